/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_fork.c -- conformance tests of libclof-preload.so: fork
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

#include <sys/mman.h>

static pthread_mutex_t fork_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fork_c = PTHREAD_COND_INITIALIZER;
static atomic_int fork_stop;
static long fork_count;
static void fork_prepare(void) { pthread_mutex_lock(&fork_m); }
static void fork_release(void) { pthread_mutex_unlock(&fork_m); }
static void *fork_hammer(void *p)
{
    (void)p;
    while (!atomic_load(&fork_stop)) {
        pthread_mutex_lock(&fork_m);
        fork_count++;
        if ((fork_count & 7) == 0) {
            struct timespec abs = ts_in(CLOCK_REALTIME, 0.0002);
            pthread_cond_timedwait(&fork_c, &fork_m, &abs);
        }
        pthread_mutex_unlock(&fork_m);
    }
    return NULL;
}
static void *fork_child_worker(void *p)
{
    (void)p;
    for (int i = 0; i < 2000; i++) {
        EQ(pthread_mutex_lock(&fork_m), 0);
        fork_count++;
        EQ(pthread_mutex_unlock(&fork_m), 0);
        EQ(pthread_mutex_lock(&static_m), 0);
        EQ(pthread_mutex_unlock(&static_m), 0);
    }
    return NULL;
}
static void *fork_cond_waiter(void *p)
{
    (void)p;
    EQ(pthread_mutex_lock(&fork_m), 0);
    while (fork_count != -1)
        EQ(pthread_cond_wait(&fork_c, &fork_m), 0);
    EQ(pthread_mutex_unlock(&fork_m), 0);
    return NULL;
}

/* In the child, only the forking thread exists: every mutex it held,
 * possibly with the parent's other threads queued in it, must work. */
static void fork_child_body(void)
{
    alarm(30);
    fork_count = 0;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        t[i] = spawn(fork_child_worker, NULL);
    for (int i = 0; i < 4; i++)
        join(t[i]);
    EQ(fork_count, 4 * 2000);
    /* the cond of the parent (whose waiters are gone) still signals ours */
    pthread_t w = spawn(fork_cond_waiter, NULL);
    sleep_ms(20);
    EQ(pthread_mutex_lock(&fork_m), 0);
    fork_count = -1;
    EQ(pthread_cond_signal(&fork_c), 0);
    EQ(pthread_mutex_unlock(&fork_m), 0);
    join(w);
    _exit(0);
}

static void wait_child(pid_t pid, const char *what)
{
    int st;
    double end = now_s(CLOCK_MONOTONIC) + 60;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (now_s(CLOCK_MONOTONIC) > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            FAIL("%s: the child hung", what);
        }
        sleep_ms(2);
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        FAIL("%s: the child failed (status %#x)", what, st);
}

void t_fork(void)
{
    /* qemu-user (7.2) aborts inside itself on this fork of a multi-threaded
     * program ("assertion failed: (cpu == current_cpu)"), with glibc's
     * locks as with ours: not something a test of ours can pass there */
    if (getenv("CLOF_EMULATOR") != NULL)
        SKIP("under an emulator (CLOF_EMULATOR): qemu-user aborts on fork of threaded programs");
    /* 1: the forking thread holds the mutex, other threads queue in it */
    pthread_atfork(fork_prepare, fork_release, fork_release);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        t[i] = spawn(fork_hammer, NULL);
    for (int k = 0; k < 20; k++) {
        sleep_ms(5);
        pid_t pid = fork();
        CHECK(pid >= 0, "fork");
        if (pid == 0)
            fork_child_body();
        wait_child(pid, "fork with queued waiters");
    }
    atomic_store(&fork_stop, 1);
    for (int i = 0; i < 4; i++)
        join(t[i]);
    /* 2: held across fork without atfork: the child unlocks it */
    EQ(pthread_mutex_lock(&static_m), 0);
    pid_t pid = fork();
    if (pid == 0) {
        EQ(pthread_mutex_unlock(&static_m), 0);
        EQ(pthread_mutex_lock(&static_m), 0);
        EQ(pthread_mutex_unlock(&static_m), 0);
        mutual_exclusion(&static_m, 4, 2000);
        _exit(0);
    }
    wait_child(pid, "fork holding a mutex");
    EQ(pthread_mutex_unlock(&static_m), 0);
    /* 3: a child of a child */
    pid = fork();
    if (pid == 0) {
        pid_t g = fork();
        if (g == 0) {
            mutual_exclusion(&static_m, 4, 2000);
            _exit(0);
        }
        wait_child(g, "grandchild");
        _exit(0);
    }
    wait_child(pid, "child of a child");
    /* 4: mutexes (not process-shared) in a shared mapping, held by the
     * forking thread: they are the parent's memory in the child too, and the
     * child, which does not touch them, must leave them the parent's: still
     * held by it (an error-checking one relocked says EDEADLK, as glibc's
     * tst-robust-fork checks), then working for its threads */
    pthread_mutex_t *sm = mmap(NULL, 2 * sizeof *sm, PROT_READ | PROT_WRITE,
                               MAP_ANONYMOUS | MAP_SHARED, -1, 0);
    CHECK(sm != MAP_FAILED, "mmap");
    pthread_mutexattr_t ea;
    EQ(pthread_mutexattr_init(&ea), 0);
    EQ(pthread_mutexattr_settype(&ea, PTHREAD_MUTEX_ERRORCHECK), 0);
    EQ(pthread_mutex_init(&sm[0], &ea), 0);
    EQ(pthread_mutex_init(&sm[1], NULL), 0);
    EQ(pthread_mutex_lock(&sm[0]), 0);
    EQ(pthread_mutex_lock(&sm[1]), 0);
    pid = fork();
    if (pid == 0)
        _exit(0);
    wait_child(pid, "fork holding mutexes in a shared mapping");
    EQ(pthread_mutex_lock(&sm[0]), EDEADLK);
    EQ(pthread_mutex_trylock(&sm[1]), EBUSY);
    EQ(pthread_mutex_unlock(&sm[0]), 0);
    EQ(pthread_mutex_unlock(&sm[1]), 0);
    mutual_exclusion(&sm[0], 4, 2000);
    mutual_exclusion(&sm[1], 4, 2000);
    EQ(pthread_mutex_destroy(&sm[0]), 0);
    EQ(pthread_mutex_destroy(&sm[1]), 0);
    munmap(sm, 2 * sizeof *sm);
    /* 5: a mutex (not process-shared) in a shared mapping, first used by a
     * fork child: the lock block the child's first use put in it is not
     * this process's, and destroying the mutex here must not put it into
     * this process's pool (it would be handed out twice: two mutexes on one
     * lock, a thread holding one could not take the other) */
    pthread_mutex_t *cm = mmap(NULL, sizeof *cm, PROT_READ | PROT_WRITE,
                               MAP_ANONYMOUS | MAP_SHARED, -1, 0);
    CHECK(cm != MAP_FAILED, "mmap");
    pthread_mutex_t spare[4]; /* blocks given back before the fork */
    for (int i = 0; i < 4; i++) {
        EQ(pthread_mutex_init(&spare[i], NULL), 0);
        EQ(pthread_mutex_lock(&spare[i]), 0);
        EQ(pthread_mutex_unlock(&spare[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        EQ(pthread_mutex_destroy(&spare[i]), 0);
    EQ(pthread_mutex_init(cm, NULL), 0);
    pid = fork();
    if (pid == 0) {
        EQ(pthread_mutex_lock(cm), 0);
        EQ(pthread_mutex_unlock(cm), 0);
        _exit(0);
    }
    wait_child(pid, "a child using a mutex in a shared mapping");
    EQ(pthread_mutex_destroy(cm), 0);
    munmap(cm, sizeof *cm);
    pthread_mutex_t fresh[8];
    for (int i = 0; i < 8; i++)
        EQ(pthread_mutex_init(&fresh[i], NULL), 0);
    for (int i = 0; i < 8; i++)
        CHECK(pthread_mutex_trylock(&fresh[i]) == 0,
              "a new mutex is busy while another new one is held: they share a lock");
    for (int i = 0; i < 8; i++) {
        EQ(pthread_mutex_unlock(&fresh[i]), 0);
        EQ(pthread_mutex_destroy(&fresh[i]), 0);
    }
}

/* ---- fork_stress ---------------------------------------------------------------------
 * fork() again and again from a program whose other threads hold and wait
 * for clof mutexes of every type, wait on a condition variable and in timed
 * locks, with pthread_atfork handlers in the usual pattern (prepare locks
 * the program's mutexes, parent and child unlock them); the child checks
 * every mutex is free and works (recursive and errorcheck semantics
 * included), runs new threads on them and on the condition variable
 * (signal and timed wait), and exits.  No child may hang or crash. */
static pthread_mutex_t fs_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fs_rec, fs_ec, fs_cm;
static pthread_cond_t fs_cv = PTHREAD_COND_INITIALIZER;
static int fs_go;
static long fs_count, fs_rcount;
static atomic_int fs_stop;
static void fs_prepare(void)
{
    pthread_mutex_lock(&fs_m);
    pthread_mutex_lock(&fs_rec);
    pthread_mutex_lock(&fs_ec);
    pthread_mutex_lock(&fs_cm);
}
static void fs_parent(void)
{
    pthread_mutex_unlock(&fs_cm);
    pthread_mutex_unlock(&fs_ec);
    pthread_mutex_unlock(&fs_rec);
    pthread_mutex_unlock(&fs_m);
}
/* In the child the forking thread has a new thread id: glibc answers EPERM
 * to its unlock of a recursive or errorcheck mutex locked before the fork
 * (clof's lets it unlock); such a mutex is initialised again, the other
 * usual pattern. */
static int fs_rec_unlock, fs_ec_unlock;
static void fs_reinit(pthread_mutex_t *m, int type)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, type);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}
static void fs_child_handler(void)
{
    pthread_mutex_unlock(&fs_cm);
    fs_ec_unlock = pthread_mutex_unlock(&fs_ec);
    if (fs_ec_unlock != 0)
        fs_reinit(&fs_ec, PTHREAD_MUTEX_ERRORCHECK);
    fs_rec_unlock = pthread_mutex_unlock(&fs_rec);
    if (fs_rec_unlock != 0)
        fs_reinit(&fs_rec, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_unlock(&fs_m);
}
static void fs_pause(unsigned i)
{
    if ((i & 3) == 0) {
        struct timespec d = {0, 50000L};
        nanosleep(&d, NULL);
    }
}
static void *fs_parent_thread(void *p)
{
    int role = (int)(intptr_t)p;
    for (unsigned i = 0; !atomic_load(&fs_stop); i++) {
        struct timespec abs = ts_in(CLOCK_REALTIME, 20);
        switch (role) {
        case 0: /* holds the plain mutex, sometimes sleeping inside */
        case 1:
            EQ(pthread_mutex_lock(&fs_m), 0);
            fork_count++;
            fs_pause(i);
            EQ(pthread_mutex_unlock(&fs_m), 0);
            break;
        case 2: /* recursive, twice, the first time timed */
            EQ(pthread_mutex_timedlock(&fs_rec, &abs), 0);
            EQ(pthread_mutex_lock(&fs_rec), 0);
            fs_pause(i);
            EQ(pthread_mutex_unlock(&fs_rec), 0);
            EQ(pthread_mutex_unlock(&fs_rec), 0);
            break;
        case 3: /* errorcheck */
            EQ(pthread_mutex_lock(&fs_ec), 0);
            fs_pause(i);
            EQ(pthread_mutex_unlock(&fs_ec), 0);
            break;
        case 4: /* waits on the condition variable */
            EQ(pthread_mutex_lock(&fs_cm), 0);
            while (!fs_go && !atomic_load(&fs_stop))
                EQ(pthread_cond_wait(&fs_cv, &fs_cm), 0);
            fs_go = 0;
            EQ(pthread_mutex_unlock(&fs_cm), 0);
            break;
        default: /* signals it, and waits timed */
            EQ(pthread_mutex_lock(&fs_cm), 0);
            fs_go = 1;
            EQ(pthread_cond_signal(&fs_cv), 0);
            abs = ts_in(CLOCK_REALTIME, 0.0002);
            int r = pthread_cond_timedwait(&fs_cv, &fs_cm, &abs);
            CHECK(r == 0 || r == ETIMEDOUT, "timedwait: %d", r);
            EQ(pthread_mutex_unlock(&fs_cm), 0);
            break;
        }
    }
    return NULL;
}
static void *fs_child_thread(void *p)
{
    int role = (int)(intptr_t)p;
    if (role == 2) { /* a condition waiter of the child's own */
        EQ(pthread_mutex_lock(&fs_cm), 0);
        while (fs_go != 2)
            EQ(pthread_cond_wait(&fs_cv, &fs_cm), 0);
        fs_go = 3;
        EQ(pthread_cond_signal(&fs_cv), 0);
        EQ(pthread_mutex_unlock(&fs_cm), 0);
        return NULL;
    }
    for (int i = 0; i < 300; i++) {
        EQ(pthread_mutex_lock(&fs_m), 0);
        fs_count++;
        EQ(pthread_mutex_unlock(&fs_m), 0);
        EQ(pthread_mutex_lock(&fs_rec), 0);
        EQ(pthread_mutex_lock(&fs_rec), 0);
        fs_rcount++;
        EQ(pthread_mutex_unlock(&fs_rec), 0);
        EQ(pthread_mutex_unlock(&fs_rec), 0);
    }
    return NULL;
}
static void fs_child(void)
{
    alarm(20);
    /* the atfork child handler released every mutex */
    EQ(pthread_mutex_trylock(&fs_m), 0);
    EQ(pthread_mutex_unlock(&fs_m), 0);
    EQ(pthread_mutex_trylock(&fs_rec), 0);
    EQ(pthread_mutex_trylock(&fs_rec), 0);
    EQ(pthread_mutex_unlock(&fs_rec), 0);
    EQ(pthread_mutex_unlock(&fs_rec), 0);
    EQ(pthread_mutex_lock(&fs_ec), 0);
    EQ(pthread_mutex_lock(&fs_ec), EDEADLK);
    EQ(pthread_mutex_unlock(&fs_ec), 0);
    EQ(pthread_mutex_unlock(&fs_ec), EPERM);
    fs_count = fs_rcount = 0;
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        t[i] = spawn(fs_child_thread, (void *)(intptr_t)i);
    /* the condition variable whose parent waiters are gone */
    EQ(pthread_mutex_lock(&fs_cm), 0);
    fs_go = 2;
    EQ(pthread_cond_broadcast(&fs_cv), 0);
    while (fs_go != 3) {
        struct timespec abs = ts_in(CLOCK_REALTIME, 10);
        EQ(pthread_cond_timedwait(&fs_cv, &fs_cm, &abs), 0);
    }
    struct timespec abs = ts_in(CLOCK_REALTIME, 0.002);
    EQ(pthread_cond_timedwait(&fs_cv, &fs_cm, &abs), ETIMEDOUT);
    EQ(pthread_mutex_unlock(&fs_cm), 0);
    for (int i = 0; i < 3; i++)
        join(t[i]);
    EQ(fs_count, 2 * 300);
    EQ(fs_rcount, 2 * 300);
    /* clof: the forking thread's unlocks in the child worked */
    if (strcmp(info().lock, "glibc") != 0) {
        EQ(fs_rec_unlock, 0);
        EQ(fs_ec_unlock, 0);
    }
    _exit(0);
}

void t_fork_stress(void)
{
    if (getenv("CLOF_EMULATOR") != NULL)
        SKIP("under an emulator (CLOF_EMULATOR): qemu-user aborts on fork of threaded programs");
    alarm(60); /* the watchdog (pl_conform.c), 60 s from here */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    EQ(pthread_mutex_init(&fs_rec, &a), 0);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    EQ(pthread_mutex_init(&fs_ec, &a), 0);
    pthread_mutexattr_destroy(&a);
    EQ(pthread_mutex_init(&fs_cm, NULL), 0);
    EQ(pthread_atfork(fs_prepare, fs_parent, fs_child_handler), 0);
    enum { NT = 6, FORKS = 40 };
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        t[i] = spawn(fs_parent_thread, (void *)(intptr_t)i);
    unsigned seed = 99;
    for (int k = 0; k < FORKS; k++) {
        seed = seed * 1103515245u + 12345u;
        struct timespec d = {0, (long)((seed >> 16) % 1000) * 1000L};
        nanosleep(&d, NULL);
        pid_t pid = fork();
        CHECK(pid >= 0, "fork: %s", strerror(errno));
        if (pid == 0)
            fs_child();
        wait_child(pid, "fork_stress");
    }
    atomic_store(&fs_stop, 1);
    EQ(pthread_mutex_lock(&fs_cm), 0);
    EQ(pthread_cond_broadcast(&fs_cv), 0);
    EQ(pthread_mutex_unlock(&fs_cm), 0);
    for (int i = 0; i < NT; i++)
        join(t[i]);
    printf("%d forks, %ld parent critical sections on the plain mutex\n", FORKS, fork_count);
}
