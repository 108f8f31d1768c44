/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_types.c -- conformance tests of libclof-preload.so: mutex types
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

static void *unlock_other(void *p)
{
    return (void *)(intptr_t)pthread_mutex_unlock(p);
}
static int unlock_in_thread(pthread_mutex_t *m)
{
    pthread_t t = spawn(unlock_other, m);
    void *r;
    pthread_join(t, &r);
    return (int)(intptr_t)r;
}
static void *trylock_other(void *p)
{
    pthread_mutex_t *m = p;
    int r = pthread_mutex_trylock(m);
    if (r == 0)
        pthread_mutex_unlock(m);
    return (void *)(intptr_t)r;
}
int trylock_in_thread(pthread_mutex_t *m)
{
    pthread_t t = spawn(trylock_other, m);
    void *r;
    pthread_join(t, &r);
    return (int)(intptr_t)r;
}

static void errorcheck_on(pthread_mutex_t *m)
{
    EQ(pthread_mutex_unlock(m), EPERM); /* not locked */
    EQ(pthread_mutex_lock(m), 0);
    CHECK(held_fn(m), "errorcheck mutex not held through clof");
    EQ(pthread_mutex_lock(m), EDEADLK);
    EQ(pthread_mutex_trylock(m), EBUSY);
    EQ(unlock_in_thread(m), EPERM); /* not the owner */
    EQ(trylock_in_thread(m), EBUSY);
    EQ(pthread_mutex_unlock(m), 0);
    EQ(pthread_mutex_unlock(m), EPERM);
    EQ(trylock_in_thread(m), 0);
    mutual_exclusion(m, 4, 5000);
}

void t_errorcheck(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, &a), 0);
    errorcheck_on(&m);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutex_t s = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    errorcheck_on(&s);
    pthread_mutexattr_destroy(&a);
}

static void recursive_on(pthread_mutex_t *m)
{
    EQ(pthread_mutex_unlock(m), EPERM);
    EQ(pthread_mutex_lock(m), 0);
    EQ(pthread_mutex_lock(m), 0);
    EQ(pthread_mutex_trylock(m), 0);
    CHECK(held_fn(m), "recursive mutex not held through clof");
    EQ(trylock_in_thread(m), EBUSY);
    EQ(unlock_in_thread(m), EPERM);
    EQ(pthread_mutex_unlock(m), 0);
    EQ(pthread_mutex_unlock(m), 0);
    EQ(trylock_in_thread(m), EBUSY); /* still held once */
    EQ(pthread_mutex_unlock(m), 0);
    EQ(pthread_mutex_unlock(m), EPERM);
    EQ(trylock_in_thread(m), 0);
    mutual_exclusion(m, 4, 5000);
}

void t_recursive(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, &a), 0);
    recursive_on(&m);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutex_t s = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    recursive_on(&s);
    /* the deepest recursion through clof: 2^24 - 1, then EAGAIN (POSIX);
     * the depth shares its word with a cr: lock's release number
     * (pl_internal.h): unlocking as often leaves the mutex free */
    EQ(pthread_mutex_lock(&s), 0);
    if (held_fn(&s)) {
        const uint32_t max = (1u << 24) - 1u;
        for (uint32_t i = 1; i < max; i++)
            if (pthread_mutex_lock(&s) != 0)
                FAIL("relock %u of %u failed", i, max);
        EQ(pthread_mutex_lock(&s), EAGAIN);
        EQ(pthread_mutex_trylock(&s), EAGAIN);
        for (uint32_t i = 1; i < max; i++)
            if (pthread_mutex_unlock(&s) != 0)
                FAIL("unlock %u of %u failed", i, max);
        EQ(trylock_in_thread(&s), EBUSY); /* still held once */
    }
    EQ(pthread_mutex_unlock(&s), 0);
    EQ(trylock_in_thread(&s), 0);
    pthread_mutexattr_destroy(&a);
}

/* Process-shared: glibc's, untouched -- and correct across processes. */
void t_pshared(void)
{
    struct shm {
        pthread_mutex_t m;
        long counter;
    } *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED, "mmap");
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    EQ(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
    EQ(pthread_mutex_init(&s->m, &a), 0);
    CHECK(s->m.__data.__kind & 128, "glibc's pshared bit missing: not initialised by glibc");
    EQ(pthread_mutex_lock(&s->m), 0);
    CHECK(!held_fn(&s->m), "a process-shared mutex went through clof");
    EQ(s->m.__data.__owner, syscall(SYS_gettid)); /* glibc's layout */
    EQ(pthread_mutex_unlock(&s->m), 0);
    enum { IT = 20000 };
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    for (int i = 0; i < IT; i++) {
        if (pthread_mutex_lock(&s->m) != 0)
            FAIL("lock");
        long v = s->counter;
        if ((i & 255) == 0)
            sched_yield();
        s->counter = v + 1;
        pthread_mutex_unlock(&s->m);
    }
    if (pid == 0)
        _exit(0);
    int st;
    EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed");
    EQ(s->counter, 2L * IT);
    pthread_mutexattr_destroy(&a);
}

/* Robust: glibc's, with EOWNERDEAD when the owner died. */
static void *lock_and_die(void *p)
{
    pthread_mutex_lock(p);
    return NULL; /* exits holding it */
}
void t_robust(void)
{
    /* robust mutexes need the kernel's robust futex list, which qemu-user
     * does not emulate (set_robust_list is ENOSYS there: an owner's death
     * never unlocks): glibc's own robust mutex cannot work then */
    void *head;
    size_t len;
    if (syscall(SYS_get_robust_list, 0, &head, &len) != 0 && errno == ENOSYS)
        SKIP("no robust futex list (get_robust_list: ENOSYS; an emulator?)");
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    EQ(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, &a), 0);
    join(spawn(lock_and_die, &m));
    EQ(pthread_mutex_lock(&m), EOWNERDEAD);
    CHECK(!held_fn(&m), "a robust mutex went through clof");
    EQ(pthread_mutex_consistent(&m), 0);
    EQ(pthread_mutex_unlock(&m), 0);
    EQ(pthread_mutex_lock(&m), 0);
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    EQ(pthread_mutex_destroy(&m), 0);
    /* priority inheritance: glibc's as well */
    pthread_mutexattr_init(&a);
    EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0);
    EQ(pthread_mutex_init(&m, &a), 0);
    EQ(pthread_mutex_lock(&m), 0);
    CHECK(!held_fn(&m), "a priority-inheritance mutex went through clof");
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutexattr_destroy(&a);
}

/* Unlock by another thread than the locker (normal mutex; glibc allows it). */
void t_oblivious(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    for (int i = 0; i < 200; i++) {
        EQ(pthread_mutex_lock(&m), 0);
        EQ(unlock_in_thread(&m), 0);
        EQ(trylock_in_thread(&m), 0);
    }
    mutual_exclusion(&m, 4, 2000);
}

/* Hand-over-hand: locks released in another order than taken. */
enum { HOH_N = 32 };
static pthread_mutex_t hoh_m[HOH_N];
static long hoh_count[HOH_N];
static void *hoh_worker(void *p)
{
    int rounds = (int)(intptr_t)p;
    for (int r = 0; r < rounds; r++) {
        EQ(pthread_mutex_lock(&hoh_m[0]), 0);
        for (int i = 0; i < HOH_N; i++) {
            hoh_count[i]++;
            if (i + 1 < HOH_N)
                EQ(pthread_mutex_lock(&hoh_m[i + 1]), 0);
            EQ(pthread_mutex_unlock(&hoh_m[i]), 0);
        }
    }
    return NULL;
}
void t_handoverhand(void)
{
    for (int i = 0; i < HOH_N; i++)
        EQ(pthread_mutex_init(&hoh_m[i], NULL), 0);
    enum { T = 8, R = 1000 };
    pthread_t t[T];
    for (int i = 0; i < T; i++)
        t[i] = spawn(hoh_worker, (void *)(intptr_t)R);
    for (int i = 0; i < T; i++)
        join(t[i]);
    for (int i = 0; i < HOH_N; i++)
        EQ(hoh_count[i], (long)T * R);
    /* and an arbitrary order: take 8, release in a shuffled order */
    int order[8] = {3, 0, 7, 5, 1, 6, 2, 4};
    for (int r = 0; r < 1000; r++) {
        for (int i = 0; i < 8; i++)
            EQ(pthread_mutex_lock(&hoh_m[i]), 0);
        for (int i = 0; i < 8; i++)
            EQ(pthread_mutex_unlock(&hoh_m[order[(i + r) % 8]]), 0);
    }
    for (int i = 0; i < 8; i++)
        EQ(trylock_in_thread(&hoh_m[i]), 0);
}

/* A cr: lock whose inner lock is in the mutex (pl_internal.h, PL_CR_SPLIT_)
 * numbers its releases in the mutex (crnum, the top byte of the word at
 * offset 12) while its mirror (bit 0 of `last`, offset 36) says passive
 * threads wait, and the release due a periodic grant (every 256th) clears
 * a mirror left set with nobody passive (cr.h clof_cr_releasing_).  The
 * layout is the library's own (white box, little-endian targets only):
 * set the mirror by hand, with nobody passive, and count. */
void t_cr_number(void)
{
    clof_preload_info_t in = info();
    if (strncmp(in.lock, "cr:", 3) != 0 || !in.inplace)
        SKIP("not a cr: lock whose inner lock is in the mutex (lock %s)", in.lock);
    if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
        SKIP("the test reads the mutex's bytes as a little-endian target lays them out");
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    unsigned char *b = (unsigned char *)&m;
    uint32_t *last = (uint32_t *)(void *)(b + 36);
    EQ(pthread_mutex_lock(&m), 0);
    CHECK(held_fn(&m), "not held through clof");
    EQ(pthread_mutex_unlock(&m), 0);
    CHECK(b[15] == 0 && (__atomic_load_n(last, __ATOMIC_RELAXED) & 1u) == 0,
          "uncontended releases numbered (crnum %u) or the mirror set", b[15]);
    __atomic_fetch_or(last, 1u, __ATOMIC_SEQ_CST); /* "passive threads wait" */
    for (int i = 0; i < 100; i++) {
        EQ(pthread_mutex_lock(&m), 0);
        EQ(pthread_mutex_unlock(&m), 0);
    }
    CHECK(b[15] == 100, "100 releases under the mirror numbered %u", b[15]);
    CHECK((__atomic_load_n(last, __ATOMIC_RELAXED) & 1u) != 0,
          "the mirror cleared before a periodic release");
    for (int i = 100; i < 300; i++) {
        EQ(pthread_mutex_lock(&m), 0);
        EQ(pthread_mutex_unlock(&m), 0);
    }
    /* the 256th release wrapped the number to 0 and, finding nobody
     * passive, cleared the mirror: the later ones took the fast path */
    CHECK(b[15] == 0, "crnum %u after 256 numbered releases and 44 fast ones", b[15]);
    CHECK((__atomic_load_n(last, __ATOMIC_RELAXED) & 1u) == 0,
          "the mirror is still set with nobody passive after a periodic release");
    CHECK((__atomic_load_n(last, __ATOMIC_RELAXED) >> 1) != 0, "no state block was installed");
    EQ(pthread_mutex_destroy(&m), 0);
    printf("cr_number: %s numbers its releases in the mutex; the periodic release healed the mirror\n", in.lock);
}

