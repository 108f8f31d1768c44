/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_rwlock -- conformance of pthread_rwlock_* under
 * libclof-preload.so (src/preload/pl_rwlock.c, docs/rwlocks.md).
 *
 *   LD_PRELOAD=.../libclof-preload.so CLOF_RWLOCK=<name> pl_conform_rwlock TEST
 *
 * An ordinary pthread program.  Every test first checks through the
 * library's introspection (dlsym: clof_preload_rwlock) that the library is
 * loaded and runs the rwlock CLOF_RWLOCK names (`glibc`: glibc's, the same
 * tests then check that they describe glibc's behaviour).  Tests:
 *   mix        8 threads (more than cpus), static and init'ed rwlocks, 1 in 5
 *              operations a write, tries and timed ones mixed in: a writer
 *              is alone, a reader sees no writer and consistent data
 *   readers    4 readers inside at once (a barrier inside the read hold)
 *   errors     glibc's answers: EDEADLK (rdlock/wrlock/timed by the
 *              writer), EBUSY (tries by the writer, trywrlock beside a
 *              reader, tries under another thread's write lock), EINVAL
 *              (bad tv_nsec, bad clock) before any try, ETIMEDOUT after the
 *              deadline (and not before), a past deadline on a free lock
 *              succeeds
 *   recursive  default kind: a thread holding a read lock reads again while
 *              a writer waits (no deadlock), the writer gets in after
 *   wpref      PREFER_WRITER_NONRECURSIVE_NP (attribute and static
 *              initializer): while a writer waits, tryrdlock is EBUSY
 *   pshared    a process-shared rwlock is glibc's (not held through clof),
 *              and works between a parent and a child
 *   lifetimes  10^4 init/use/destroy cycles (blocks reused), 100 threads;
 *              destroyed while held, initialised again: free
 *   oldabi     the __pthread_rwlock_* of glibc < 2.34 (dlvsym, base
 *              version) reach the library
 *   rt         SCHED_FIFO threads: no reader enters while a writer of higher
 *              or equal priority is blocked, one of higher priority does
 *              (skipped, 77, where SCHED_FIFO is not allowed)
 *   signals    readers and writers blocked in rdlock/timedrdlock/wrlock/
 *              timedwrlock get SIGUSR2 every ~100 us (no SA_RESTART): no
 *              error returned, the handler runs, exclusion holds
 *   fork       30 forks with threads holding and waiting for the rwlock,
 *              pthread_atfork handlers write-locking and unlocking it; the
 *              child uses it with new threads
 * Exit 0 pass, 1 fail; a watchdog turns a hang into a failure.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/clof_test.h"
#include <clof/preload.h>

static const char *expect_name;
static clof_preload_rwlock_held_fn held_fn;
static bool glibc_mode;

static void check_loaded(void)
{
    clof_preload_rwlock_fn f = (clof_preload_rwlock_fn)dlsym(RTLD_DEFAULT, "clof_preload_rwlock");
    held_fn = (clof_preload_rwlock_held_fn)dlsym(RTLD_DEFAULT, "clof_preload_rwlock_held");
    if (f == NULL || held_fn == NULL)
        clof_test_fail("libclof-preload.so is not loaded (LD_PRELOAD)");
    const char *name = f();
    const char *want = getenv("CLOF_RWLOCK");
    if (want != NULL && want[0] != 0 && strcmp(want, "auto") != 0)
        CLOF_TEST_CHECK(!strcmp(name, want), "runs rwlock %s, CLOF_RWLOCK=%s", name, want);
    /* the tests of the default (CLOF_RWLOCK unset or auto): the rwlock the
     * topology rule must choose (docs/rwlocks.md) */
    const char *rule = getenv("PL_EXPECT_RWLOCK");
    if (rule != NULL && rule[0] != 0)
        CLOF_TEST_CHECK(!strcmp(name, rule), "the default is rwlock %s, expected %s", name, rule);
    expect_name = name;
    glibc_mode = !strcmp(name, "glibc");
}

static struct timespec after_ms(clockid_t clk, long ms)
{
    struct timespec t;
    clock_gettime(clk, &t);
    t.tv_nsec += (ms % 1000) * 1000000L;
    t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- mix ---- */
#define LINES 4
static clof_test_line_t lines[LINES];
static int writers_in, readers_in;
static uint64_t writes_done;
static pthread_rwlock_t rw_static = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t rw_init;
static pthread_rwlock_t *mix_lock;

static void write_section(void)
{
    CLOF_TEST_CHECK(__atomic_fetch_add(&writers_in, 1, __ATOMIC_SEQ_CST) == 0, "two writers inside");
    CLOF_TEST_CHECK(__atomic_load_n(&readers_in, __ATOMIC_SEQ_CST) == 0, "a writer beside readers");
    clof_test_critical(lines, LINES, 1);
    __atomic_fetch_add(&writes_done, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&writers_in, 1, __ATOMIC_SEQ_CST);
}

static void read_section(void)
{
    __atomic_fetch_add(&readers_in, 1, __ATOMIC_SEQ_CST);
    CLOF_TEST_CHECK(__atomic_load_n(&writers_in, __ATOMIC_SEQ_CST) == 0, "a reader beside a writer");
    uint64_t v0 = lines[0].v;
    if ((v0 & 7) == 0)
        sched_yield();
    for (int k = 1; k < LINES; k++)
        CLOF_TEST_CHECK(lines[k].v == v0, "a reader saw a half-done write");
    __atomic_fetch_sub(&readers_in, 1, __ATOMIC_SEQ_CST);
}

static void *mix_thread(void *arg)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1);
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bool write = x % 100 < 20;
        unsigned how = (unsigned)(x >> 32) % 8;
        int e;
        struct timespec d = after_ms(how == 1 ? CLOCK_REALTIME : CLOCK_MONOTONIC, 1);
        if (write) {
            e = how == 0   ? pthread_rwlock_trywrlock(mix_lock)
                : how == 1 ? pthread_rwlock_timedwrlock(mix_lock, &d)
                : how == 2 ? pthread_rwlock_clockwrlock(mix_lock, CLOCK_MONOTONIC, &d)
                           : pthread_rwlock_wrlock(mix_lock);
            CLOF_TEST_CHECK(e == 0 || e == EBUSY || e == ETIMEDOUT, "wrlock: %d", e);
            if (e == 0) {
                write_section();
                CLOF_TEST_CHECK(pthread_rwlock_unlock(mix_lock) == 0, "unlock");
            }
        } else {
            e = how == 0   ? pthread_rwlock_tryrdlock(mix_lock)
                : how == 1 ? pthread_rwlock_timedrdlock(mix_lock, &d)
                : how == 2 ? pthread_rwlock_clockrdlock(mix_lock, CLOCK_MONOTONIC, &d)
                           : pthread_rwlock_rdlock(mix_lock);
            CLOF_TEST_CHECK(e == 0 || e == EBUSY || e == ETIMEDOUT, "rdlock: %d", e);
            if (e == 0) {
                read_section();
                CLOF_TEST_CHECK(pthread_rwlock_unlock(mix_lock) == 0, "unlock");
            }
        }
    }
    return NULL;
}

static void run(void *(*fn)(void *), int n)
{
    pthread_t t[128];
    for (int i = 0; i < n; i++)
        CLOF_TEST_CHECK(pthread_create(&t[i], NULL, fn, (void *)(uintptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

static void test_mix(void)
{
    pthread_rwlock_t *locks[2] = {&rw_static, &rw_init};
    CLOF_TEST_CHECK(pthread_rwlock_init(&rw_init, NULL) == 0, "init");
    for (int k = 0; k < 2; k++) {
        mix_lock = locks[k];
        memset(lines, 0, sizeof lines);
        writes_done = 0;
        run(mix_thread, 8);
        CLOF_TEST_CHECK(lines[0].v == writes_done && writes_done > 0, "writes %llu, lines %llu",
                        (unsigned long long)writes_done, (unsigned long long)lines[0].v);
    }
    CLOF_TEST_CHECK(pthread_rwlock_destroy(&rw_init) == 0, "destroy");
}

/* ---- signals: waits interrupted by a handler ----
 * Readers (rdlock, timedrdlock) and writers (wrlock, timedwrlock) contend
 * with sleeps inside their sections, so most of them are blocked, while
 * the main thread sends each SIGUSR2 every ~100 us (a handler without
 * SA_RESTART: every futex sleep returns EINTR).  No lock call may return
 * an error (POSIX gives them no EINTR), the handler runs in every thread,
 * a writer is alone, readers see consistent data. */
static _Thread_local long sig_mine;
static void sig_handler(int s)
{
    int e = errno;
    (void)s;
    sig_mine++;
    errno = e;
}
static int sig_stop;
static pthread_rwlock_t sig_l = PTHREAD_RWLOCK_INITIALIZER;
static void sleep_us(long us)
{
    struct timespec d = {0, us * 1000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
}
static void *sig_thread(void *arg)
{
    int role = (int)(uintptr_t)arg;
    long n = 0;
    while (!__atomic_load_n(&sig_stop, __ATOMIC_ACQUIRE)) {
        struct timespec d = after_ms(CLOCK_REALTIME, 20000);
        int e = role == 0 || role == 1 ? pthread_rwlock_rdlock(&sig_l)
                : role == 2            ? pthread_rwlock_timedrdlock(&sig_l, &d)
                : role == 3            ? pthread_rwlock_wrlock(&sig_l)
                                       : pthread_rwlock_timedwrlock(&sig_l, &d);
        CLOF_TEST_CHECK(e == 0, "role %d: lock returned %d (%s) with a 20 s deadline", role, e,
                        strerror(e));
        /* the writer is alone, and readers see no writer, through the sleep */
        int *mine = role >= 3 ? &writers_in : &readers_in;
        __atomic_fetch_add(mine, 1, __ATOMIC_SEQ_CST);
        CLOF_TEST_CHECK(__atomic_load_n(&writers_in, __ATOMIC_SEQ_CST) == (role >= 3),
                        "a writer beside another thread");
        if (role >= 3)
            CLOF_TEST_CHECK(__atomic_load_n(&readers_in, __ATOMIC_SEQ_CST) == 0,
                            "a writer beside readers");
        if ((++n & 3) == 0)
            sleep_us(role >= 3 ? 200 : 100);
        CLOF_TEST_CHECK(__atomic_load_n(&writers_in, __ATOMIC_SEQ_CST) == (role >= 3),
                        "a writer beside another thread");
        __atomic_fetch_sub(mine, 1, __ATOMIC_SEQ_CST);
        if (role >= 3)
            write_section();
        else
            read_section();
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&sig_l) == 0, "unlock");
        if (role < 3 && (n & 1)) /* readers leave gaps: writers get in */
            sleep_us(150);
    }
    return (void *)(intptr_t)sig_mine;
}
static void test_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sig_handler;
    sigemptyset(&sa.sa_mask);
    CLOF_TEST_CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
    enum { N = 5 };
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        CLOF_TEST_CHECK(pthread_create(&t[i], NULL, sig_thread, (void *)(uintptr_t)i) == 0,
                        "pthread_create");
    uint64_t end = mono_ns() + 600 * 1000000ull;
    long sent = 0;
    while (mono_ns() < end) {
        for (int i = 0; i < N; i++, sent++)
            CLOF_TEST_CHECK(pthread_kill(t[i], SIGUSR2) == 0, "pthread_kill");
        sleep_us(100);
    }
    __atomic_store_n(&sig_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < N; i++) {
        void *r;
        pthread_join(t[i], &r);
        CLOF_TEST_CHECK((intptr_t)r > 0, "thread %d never ran the handler", i);
    }
    CLOF_TEST_CHECK(lines[0].v == writes_done && writes_done > 0, "writes %llu, lines %llu",
                    (unsigned long long)writes_done, (unsigned long long)lines[0].v);
    printf("%ld signals sent, %llu writes\n", sent, (unsigned long long)writes_done);
    CLOF_TEST_CHECK(pthread_rwlock_trywrlock(&sig_l) == 0, "the rwlock is free at the end");
    CLOF_TEST_CHECK(pthread_rwlock_unlock(&sig_l) == 0, "unlock");
}

/* ---- fork: from a program whose threads hold and wait for the rwlock ----
 * pthread_atfork in the usual pattern (prepare write-locks the rwlock,
 * parent and child unlock it); the forking thread also holds a read lock
 * of a second rwlock across the fork.  The child finds the first rwlock
 * free, runs new readers and writers on it, unlocks the second and
 * write-locks it.  30 forks; a child that hangs or fails fails the test. */
static pthread_rwlock_t fk_l = PTHREAD_RWLOCK_INITIALIZER, fk_held;
static int fk_stop;
static void fk_prepare(void) { pthread_rwlock_wrlock(&fk_l); }
static void fk_release(void) { pthread_rwlock_unlock(&fk_l); }
static void *fk_thread(void *arg)
{
    int role = (int)(uintptr_t)arg;
    for (unsigned n = 0; !__atomic_load_n(&fk_stop, __ATOMIC_ACQUIRE); n++) {
        struct timespec d = after_ms(CLOCK_MONOTONIC, 20000);
        int e = role == 0   ? pthread_rwlock_rdlock(&fk_l)
                : role == 1 ? pthread_rwlock_clockrdlock(&fk_l, CLOCK_MONOTONIC, &d)
                : role == 2 ? pthread_rwlock_wrlock(&fk_l)
                            : pthread_rwlock_clockwrlock(&fk_l, CLOCK_MONOTONIC, &d);
        CLOF_TEST_CHECK(e == 0, "role %d: lock returned %d", role, e);
        if (role >= 2)
            write_section();
        else
            read_section();
        if ((n & 7) == 0)
            sleep_us(50);
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&fk_l) == 0, "unlock");
        if (role < 2) /* readers leave gaps: writers (and fork's prepare) get in */
            sleep_us(100);
    }
    return NULL;
}
static void *fk_child_thread(void *arg)
{
    int role = (int)(uintptr_t)arg;
    for (int i = 0; i < 300; i++) {
        if (role == 0 || (i & 3) == 0) {
            if (pthread_rwlock_wrlock(&fk_l) != 0)
                _exit(10);
            write_section();
        } else {
            if (pthread_rwlock_rdlock(&fk_l) != 0)
                _exit(11);
            read_section();
        }
        if (pthread_rwlock_unlock(&fk_l) != 0)
            _exit(12);
    }
    return NULL;
}
static void fk_child(void)
{
    alarm(20);
    if (pthread_rwlock_trywrlock(&fk_l) != 0)
        _exit(5);
    if (pthread_rwlock_unlock(&fk_l) != 0)
        _exit(13);
    if (pthread_rwlock_tryrdlock(&fk_l) != 0 || pthread_rwlock_unlock(&fk_l) != 0)
        _exit(6);
    writes_done = 0;
    uint64_t v0 = lines[0].v;
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        if (pthread_create(&t[i], NULL, fk_child_thread, (void *)(uintptr_t)i) != 0)
            _exit(7);
    if (pthread_rwlock_unlock(&fk_held) != 0 || pthread_rwlock_wrlock(&fk_held) != 0 ||
        pthread_rwlock_unlock(&fk_held) != 0)
        _exit(8);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    if (lines[0].v != v0 + writes_done)
        _exit(9);
    _exit(0);
}
static void test_fork(void)
{
    if (getenv("CLOF_EMULATOR") != NULL) { /* as pl_conform's fork tests */
        printf("SKIP: under an emulator (CLOF_EMULATOR): qemu-user aborts on fork of threaded programs\n");
        exit(77);
    }
    CLOF_TEST_CHECK(pthread_rwlock_init(&fk_held, NULL) == 0, "init");
    CLOF_TEST_CHECK(pthread_atfork(fk_prepare, fk_release, fk_release) == 0, "pthread_atfork");
    enum { N = 4, FORKS = 30 };
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        CLOF_TEST_CHECK(pthread_create(&t[i], NULL, fk_thread, (void *)(uintptr_t)i) == 0,
                        "pthread_create");
    unsigned seed = 4242;
    for (int k = 0; k < FORKS; k++) {
        seed = seed * 1103515245u + 12345u;
        sleep_us((seed >> 16) % 1000);
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&fk_held) == 0, "rdlock");
        pid_t p = fork();
        CLOF_TEST_CHECK(p >= 0, "fork");
        if (p == 0)
            fk_child();
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&fk_held) == 0, "unlock");
        int st;
        CLOF_TEST_CHECK(waitpid(p, &st, 0) == p, "waitpid");
        CLOF_TEST_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                        "fork %d: the child failed (status %#x; exit 5-13: see fk_child)", k, st);
    }
    __atomic_store_n(&fk_stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CLOF_TEST_CHECK(lines[0].v == writes_done && writes_done > 0, "writes %llu, lines %llu",
                    (unsigned long long)writes_done, (unsigned long long)lines[0].v);
    printf("%d forks, %llu writes in the parent\n", FORKS, (unsigned long long)writes_done);
}

/* ---- readers together ---- */
static pthread_barrier_t bar;
static void *reader_thread(void *arg)
{
    (void)arg;
    CLOF_TEST_CHECK(pthread_rwlock_rdlock(&rw_static) == 0, "rdlock");
    if (!glibc_mode)
        CLOF_TEST_CHECK(held_fn(&rw_static), "a read hold not through clof");
    pthread_barrier_wait(&bar);
    CLOF_TEST_CHECK(pthread_rwlock_unlock(&rw_static) == 0, "unlock");
    return NULL;
}
static void test_readers(void)
{
    pthread_barrier_init(&bar, NULL, 4);
    run(reader_thread, 4);
}

/* ---- a helper thread that does one operation ---- */
static pthread_rwlock_t *h_lock;
static int h_op, h_result, h_state;
static void *h_thread(void *arg)
{
    (void)arg;
    __atomic_store_n(&h_state, 1, __ATOMIC_SEQ_CST);
    struct timespec d = after_ms(CLOCK_REALTIME, 50);
    int e = 0;
    switch (h_op) {
    case 0: e = pthread_rwlock_wrlock(h_lock); break;
    case 1: e = pthread_rwlock_tryrdlock(h_lock); break;
    case 2: e = pthread_rwlock_trywrlock(h_lock); break;
    case 3: e = pthread_rwlock_timedrdlock(h_lock, &d); break;
    case 4: e = pthread_rwlock_timedwrlock(h_lock, &d); break;
    default: e = pthread_rwlock_rdlock(h_lock); break;
    }
    if (e == 0) {
        if (h_op == 0 || h_op == 2 || h_op == 4)
            write_section();
        pthread_rwlock_unlock(h_lock);
    }
    h_result = e;
    __atomic_store_n(&h_state, 2, __ATOMIC_SEQ_CST);
    return NULL;
}
static pthread_t h_start(pthread_rwlock_t *l, int op, bool wait_in)
{
    pthread_t t;
    h_lock = l, h_op = op, h_state = 0;
    CLOF_TEST_CHECK(pthread_create(&t, NULL, h_thread, NULL) == 0, "pthread_create");
    while (__atomic_load_n(&h_state, __ATOMIC_SEQ_CST) == 0)
        sched_yield();
    if (wait_in) {
        struct timespec s = {0, 50 * 1000 * 1000};
        nanosleep(&s, NULL);
    }
    return t;
}
static int h_do(pthread_rwlock_t *l, int op)
{
    pthread_t t = h_start(l, op, false);
    pthread_join(t, NULL);
    return h_result;
}

static void test_errors(void)
{
    pthread_rwlock_t l;
    CLOF_TEST_CHECK(pthread_rwlock_init(&l, NULL) == 0, "init");
    struct timespec bad = after_ms(CLOCK_REALTIME, 10);
    bad.tv_nsec = 1000000000L;
    CLOF_TEST_CHECK(pthread_rwlock_timedrdlock(&l, &bad) == EINVAL, "timedrdlock bad nsec");
    CLOF_TEST_CHECK(pthread_rwlock_timedwrlock(&l, &bad) == EINVAL, "timedwrlock bad nsec");
    struct timespec ok = after_ms(CLOCK_MONOTONIC, 10);
    CLOF_TEST_CHECK(pthread_rwlock_clockrdlock(&l, CLOCK_PROCESS_CPUTIME_ID, &ok) == EINVAL,
                    "clockrdlock bad clock");
    CLOF_TEST_CHECK(pthread_rwlock_clockwrlock(&l, CLOCK_PROCESS_CPUTIME_ID, &ok) == EINVAL,
                    "clockwrlock bad clock");
    struct timespec past = {1, 0};
    CLOF_TEST_CHECK(pthread_rwlock_timedwrlock(&l, &past) == 0, "timedwrlock past, free lock");
    if (!glibc_mode)
        CLOF_TEST_CHECK(held_fn(&l), "write hold not through clof");
    CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == EDEADLK, "rdlock by the writer");
    CLOF_TEST_CHECK(pthread_rwlock_wrlock(&l) == EDEADLK, "wrlock by the writer");
    struct timespec t10 = after_ms(CLOCK_REALTIME, 10);
    CLOF_TEST_CHECK(pthread_rwlock_timedwrlock(&l, &t10) == EDEADLK, "timedwrlock by the writer");
    CLOF_TEST_CHECK(pthread_rwlock_timedrdlock(&l, &t10) == EDEADLK, "timedrdlock by the writer");
    CLOF_TEST_CHECK(pthread_rwlock_trywrlock(&l) == EBUSY, "trywrlock by the writer");
    CLOF_TEST_CHECK(pthread_rwlock_tryrdlock(&l) == EBUSY, "tryrdlock by the writer");
    CLOF_TEST_CHECK(h_do(&l, 1) == EBUSY, "tryrdlock under a writer");
    CLOF_TEST_CHECK(h_do(&l, 2) == EBUSY, "trywrlock under a writer");
    uint64_t t0 = mono_ns();
    CLOF_TEST_CHECK(h_do(&l, 3) == ETIMEDOUT, "timedrdlock under a writer");
    CLOF_TEST_CHECK(mono_ns() - t0 >= 45000000ull, "timedrdlock gave up early");
    CLOF_TEST_CHECK(h_do(&l, 4) == ETIMEDOUT, "timedwrlock under a writer");
    CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
    CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == 0, "rdlock");
    CLOF_TEST_CHECK(h_do(&l, 2) == EBUSY, "trywrlock beside a reader");
    t0 = mono_ns();
    CLOF_TEST_CHECK(h_do(&l, 4) == ETIMEDOUT, "timedwrlock beside a reader");
    CLOF_TEST_CHECK(mono_ns() - t0 >= 45000000ull, "timedwrlock gave up early");
    CLOF_TEST_CHECK(h_do(&l, 1) == 0, "tryrdlock beside a reader");
    CLOF_TEST_CHECK(h_do(&l, 3) == 0, "timedrdlock beside a reader");
    CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
    CLOF_TEST_CHECK(h_do(&l, 2) == 0, "trywrlock on a free lock");
    CLOF_TEST_CHECK(pthread_rwlock_destroy(&l) == 0, "destroy");
}

static void test_recursive(void)
{
    pthread_rwlock_t l;
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_READER_NP);
    for (int k = 0; k < 3; k++) { /* static, NULL attr, reader kind */
        pthread_rwlock_t s = PTHREAD_RWLOCK_INITIALIZER;
        if (k == 0)
            l = s;
        else
            CLOF_TEST_CHECK(pthread_rwlock_init(&l, k == 1 ? NULL : &a) == 0, "init");
        writes_done = 0;
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == 0, "rdlock");
        pthread_t w = h_start(&l, 0, true); /* a writer that waits */
        CLOF_TEST_CHECK(__atomic_load_n(&h_state, __ATOMIC_SEQ_CST) == 1, "writer beside a reader");
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == 0, "recursive rdlock");
        CLOF_TEST_CHECK(pthread_rwlock_tryrdlock(&l) == 0, "recursive tryrdlock");
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
        CLOF_TEST_CHECK(__atomic_load_n(&h_state, __ATOMIC_SEQ_CST) == 1, "writer beside a reader");
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
        pthread_join(w, NULL);
        CLOF_TEST_CHECK(h_result == 0 && writes_done == 1, "the writer did not write");
        if (k > 0)
            pthread_rwlock_destroy(&l);
    }
}

static int try_result;
static void *try_thread(void *arg)
{
    try_result = pthread_rwlock_tryrdlock((pthread_rwlock_t *)arg);
    if (try_result == 0)
        pthread_rwlock_unlock((pthread_rwlock_t *)arg);
    return NULL;
}

static void test_wpref(void)
{
    pthread_rwlock_t l;
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    for (int k = 0; k < 2; k++) { /* static initializer, attribute */
        pthread_rwlock_t s = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
        if (k == 0)
            l = s;
        else
            CLOF_TEST_CHECK(pthread_rwlock_init(&l, &a) == 0, "init");
        writes_done = 0;
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == 0, "rdlock");
        pthread_t w = h_start(&l, 0, true); /* a writer that waits */
        pthread_t t;
        CLOF_TEST_CHECK(pthread_create(&t, NULL, try_thread, &l) == 0, "pthread_create");
        pthread_join(t, NULL);
        CLOF_TEST_CHECK(try_result == EBUSY, "tryrdlock while a writer waits: %d, not EBUSY",
                        try_result);
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
        pthread_join(w, NULL);
        CLOF_TEST_CHECK(h_result == 0 && writes_done == 1, "the writer did not write");
        CLOF_TEST_CHECK(pthread_create(&t, NULL, try_thread, &l) == 0, "pthread_create");
        pthread_join(t, NULL);
        CLOF_TEST_CHECK(try_result == 0, "tryrdlock after the writer: %d", try_result);
        if (k > 0)
            pthread_rwlock_destroy(&l);
    }
}

static void test_pshared(void)
{
    pthread_rwlock_t *l = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CLOF_TEST_CHECK(l != MAP_FAILED, "mmap");
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    CLOF_TEST_CHECK(pthread_rwlock_init(l, &a) == 0, "init pshared");
    CLOF_TEST_CHECK(pthread_rwlock_wrlock(l) == 0, "wrlock");
    CLOF_TEST_CHECK(!held_fn(l), "a process-shared rwlock held through clof");
    pid_t p = fork();
    if (p == 0) {
        int e = pthread_rwlock_tryrdlock(l); /* the parent writes */
        if (e != EBUSY)
            _exit(3);
        if (pthread_rwlock_rdlock(l) != 0) /* waits for the parent */
            _exit(4);
        pthread_rwlock_unlock(l);
        _exit(0);
    }
    struct timespec s = {0, 50 * 1000 * 1000};
    nanosleep(&s, NULL);
    CLOF_TEST_CHECK(pthread_rwlock_unlock(l) == 0, "unlock");
    int st;
    waitpid(p, &st, 0);
    CLOF_TEST_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %d", st);
    CLOF_TEST_CHECK(pthread_rwlock_destroy(l) == 0, "destroy");
}

static void *life_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        pthread_rwlock_t l;
        CLOF_TEST_CHECK(pthread_rwlock_init(&l, NULL) == 0, "init");
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == 0, "rdlock");
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
        CLOF_TEST_CHECK(pthread_rwlock_wrlock(&l) == 0, "wrlock");
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
        CLOF_TEST_CHECK(pthread_rwlock_destroy(&l) == 0, "destroy");
    }
    return NULL;
}
static void test_lifetimes(void)
{
    for (int r = 0; r < 25; r++)
        run(life_thread, 4); /* 100 threads, 10^4 lifetimes */
    /* destroyed while held (write, then read), initialised again at the same
     * address and locked: glibc allows it (its tst-rwlock6 relies on it);
     * the lock of the new rwlock must be free */
    for (int mode = 0; mode < 2; mode++) {
        for (int i = 0; i < 3; i++) {
            pthread_rwlock_t l;
            CLOF_TEST_CHECK(pthread_rwlock_init(&l, NULL) == 0, "init");
            if (mode == 0)
                CLOF_TEST_CHECK(pthread_rwlock_wrlock(&l) == 0, "wrlock");
            else
                CLOF_TEST_CHECK(pthread_rwlock_rdlock(&l) == 0, "rdlock");
            CLOF_TEST_CHECK(pthread_rwlock_destroy(&l) == 0, "destroy held");
            CLOF_TEST_CHECK(pthread_rwlock_init(&l, NULL) == 0, "init again");
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 2;
            int e = pthread_rwlock_timedwrlock(&l, &ts);
            CLOF_TEST_CHECK(e == 0, mode == 0 ? "destroyed while write-held, initialised again: "
                                                "timedwrlock fails"
                                              : "destroyed while read-held, initialised again: "
                                                "timedwrlock fails");
            CLOF_TEST_CHECK(pthread_rwlock_unlock(&l) == 0, "unlock");
            CLOF_TEST_CHECK(pthread_rwlock_destroy(&l) == 0, "destroy");
        }
    }
}

static void test_oldabi(void)
{
    if (glibc_mode) {
        printf("skip: oldabi checks the library's symbols\n");
        return;
    }
    const char *base =
#if defined(__x86_64__)
        "GLIBC_2.2.5";
#elif defined(__aarch64__)
        "GLIBC_2.17";
#else
        NULL;
#endif
    if (base == NULL)
        return;
    int (*wr)(pthread_rwlock_t *) = (int (*)(pthread_rwlock_t *))dlvsym(RTLD_DEFAULT, "__pthread_rwlock_wrlock", base);
    int (*un)(pthread_rwlock_t *) = (int (*)(pthread_rwlock_t *))dlvsym(RTLD_DEFAULT, "__pthread_rwlock_unlock", base);
    int (*rd)(pthread_rwlock_t *) = (int (*)(pthread_rwlock_t *))dlvsym(RTLD_DEFAULT, "pthread_rwlock_rdlock", base);
    CLOF_TEST_CHECK(wr && un && rd, "old versions not found");
    pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
    CLOF_TEST_CHECK(wr(&l) == 0 && held_fn(&l), "__pthread_rwlock_wrlock@%s is not clof's", base);
    CLOF_TEST_CHECK(un(&l) == 0 && !held_fn(&l), "__pthread_rwlock_unlock@%s", base);
    CLOF_TEST_CHECK(rd(&l) == 0 && held_fn(&l), "pthread_rwlock_rdlock@%s is not clof's", base);
    CLOF_TEST_CHECK(un(&l) == 0, "unlock");
}

/* ---- rt: POSIX's rule for real-time threads ---------------------------------
 * Under SCHED_FIFO, a reader that holds no read lock of the rwlock does not
 * acquire it while a writer of higher or equal priority is blocked on it
 * (pthread_rwlock_rdlock; Open POSIX pthread_rwlock_rdlock/2-1 and 2-2),
 * with BRAVO's biased readers too; a reader of higher priority does, and a
 * recursive read does (no deadlock).  The writer gets the lock first when
 * the read hold ends, the blocked reader after it. */
static pthread_rwlock_t rt_l;
static int rt_w_state, rt_r_state; /* 1 started, 2 acquired, 3 released */
static int rt_r_try, rt_r_timed;
static void rt_sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}
static void *rt_writer(void *arg)
{
    (void)arg;
    __atomic_store_n(&rt_w_state, 1, __ATOMIC_SEQ_CST);
    CLOF_TEST_CHECK(pthread_rwlock_wrlock(&rt_l) == 0, "wrlock");
    __atomic_store_n(&rt_w_state, 2, __ATOMIC_SEQ_CST);
    rt_sleep_ms(200);
    CLOF_TEST_CHECK(__atomic_load_n(&rt_r_state, __ATOMIC_SEQ_CST) != 2,
                    "a reader got in beside the writer");
    __atomic_store_n(&rt_w_state, 3, __ATOMIC_SEQ_CST);
    CLOF_TEST_CHECK(pthread_rwlock_unlock(&rt_l) == 0, "unlock");
    return NULL;
}
static void *rt_reader(void *arg)
{
    bool blocks = arg != NULL;
    rt_r_try = pthread_rwlock_tryrdlock(&rt_l);
    if (rt_r_try == 0)
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&rt_l) == 0, "unlock");
    if (blocks) {
        struct timespec t = after_ms(CLOCK_REALTIME, 100);
        rt_r_timed = pthread_rwlock_timedrdlock(&rt_l, &t);
        if (rt_r_timed == 0)
            CLOF_TEST_CHECK(pthread_rwlock_unlock(&rt_l) == 0, "unlock");
    }
    __atomic_store_n(&rt_r_state, 1, __ATOMIC_SEQ_CST);
    CLOF_TEST_CHECK(pthread_rwlock_rdlock(&rt_l) == 0, "rdlock");
    __atomic_store_n(&rt_r_state, 2, __ATOMIC_SEQ_CST);
    CLOF_TEST_CHECK(pthread_rwlock_unlock(&rt_l) == 0, "unlock");
    __atomic_store_n(&rt_r_state, 3, __ATOMIC_SEQ_CST);
    return NULL;
}
static pthread_t rt_start(void *(*fn)(void *), void *arg, int prio)
{
    pthread_attr_t a;
    struct sched_param sp = {.sched_priority = prio};
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_FIFO);
    pthread_attr_setschedparam(&a, &sp);
    pthread_t t;
    int r = pthread_create(&t, &a, fn, arg);
    CLOF_TEST_CHECK(r == 0, "pthread_create (SCHED_FIFO %d): %s", prio, strerror(r));
    pthread_attr_destroy(&a);
    return t;
}
static void test_rt(void)
{
    int lo = sched_get_priority_min(SCHED_FIFO);
    struct sched_param sp = {.sched_priority = lo + 3};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        printf("SKIP rt: this process may not use SCHED_FIFO (%s)\n", strerror(errno));
        exit(77);
    }
    /* reader priority below, equal to, above the writer's (lo + 2) */
    for (int k = 0; k < 3; k++) {
        int rprio = lo + 1 + k;
        bool blocks = rprio <= lo + 2;
        CLOF_TEST_CHECK(pthread_rwlock_init(&rt_l, NULL) == 0, "init");
        rt_w_state = rt_r_state = 0;
        rt_r_try = rt_r_timed = -1;
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&rt_l) == 0, "rdlock");
        pthread_t w = rt_start(rt_writer, NULL, lo + 2);
        rt_sleep_ms(200); /* the writer blocks */
        CLOF_TEST_CHECK(__atomic_load_n(&rt_w_state, __ATOMIC_SEQ_CST) == 1,
                        "the writer got in beside a reader");
        /* a recursive read while the writer waits: no deadlock */
        CLOF_TEST_CHECK(pthread_rwlock_rdlock(&rt_l) == 0, "recursive rdlock");
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&rt_l) == 0, "unlock");
        pthread_t r = rt_start(rt_reader, blocks ? (void *)1 : NULL, rprio);
        rt_sleep_ms(400);
        int rs = __atomic_load_n(&rt_r_state, __ATOMIC_SEQ_CST);
        /* (glibc's tryrdlock and timedrdlock do not apply the rule) */
        if (blocks && !glibc_mode) {
            CLOF_TEST_CHECK(rt_r_try == EBUSY, "tryrdlock beside a blocked writer of %s priority: %d",
                            k == 0 ? "higher" : "equal", rt_r_try);
            CLOF_TEST_CHECK(rt_r_timed == ETIMEDOUT, "timedrdlock beside a blocked writer: %d",
                            rt_r_timed);
        }
        if (blocks) {
            CLOF_TEST_CHECK(rs == 1, "a reader of priority %d acquired while a writer of "
                            "priority %d was blocked (state %d)", rprio, lo + 2, rs);
        } else {
            CLOF_TEST_CHECK(rt_r_try == 0 && rs == 3, "a reader of higher priority did not "
                            "acquire beside a blocked writer (try %d, state %d)", rt_r_try, rs);
        }
        CLOF_TEST_CHECK(pthread_rwlock_unlock(&rt_l) == 0, "unlock");
        pthread_join(w, NULL);
        pthread_join(r, NULL);
        CLOF_TEST_CHECK(rt_r_state == 3, "the reader did not finish");
        CLOF_TEST_CHECK(pthread_rwlock_destroy(&rt_l) == 0, "destroy");
    }
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pl_conform_rwlock TEST\n");
        return 2;
    }
    clof_test_name("rwlock %s (CLOF_RWLOCK=%s)", argv[1],
                   getenv("CLOF_RWLOCK") ? getenv("CLOF_RWLOCK") : "");
    clof_test_watchdog(60, 1, NULL);
    check_loaded();
    const char *t = argv[1];
    if (!strcmp(t, "mix"))
        test_mix();
    else if (!strcmp(t, "readers"))
        test_readers();
    else if (!strcmp(t, "errors"))
        test_errors();
    else if (!strcmp(t, "recursive"))
        test_recursive();
    else if (!strcmp(t, "wpref"))
        test_wpref();
    else if (!strcmp(t, "pshared"))
        test_pshared();
    else if (!strcmp(t, "lifetimes"))
        test_lifetimes();
    else if (!strcmp(t, "oldabi"))
        test_oldabi();
    else if (!strcmp(t, "rt"))
        test_rt();
    else if (!strcmp(t, "signals"))
        test_signals();
    else if (!strcmp(t, "fork"))
        test_fork();
    else {
        fprintf(stderr, "pl_conform_rwlock: unknown test '%s'\n", t);
        return 2;
    }
    printf("ok %s (rwlock %s)\n", t, expect_name);
    return 0;
}
