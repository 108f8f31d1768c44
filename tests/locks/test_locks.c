/* SPDX-License-Identifier: MIT */
/*
 * Behaviour tests of every basic lock, through the one lock interface.
 *
 *   test_locks LOCK TEST [ARG]
 *
 * TEST is one of
 *   mutex T        mutual exclusion: T threads, a non-atomic invariant over
 *                  CS_LINES cache lines checked inside every critical section
 *   try            tryacquire fails while held (from another thread too) and
 *                  succeeds when free
 *   oblivious      acquire on one thread, release on another with the same
 *                  context, with and without a waiter queued behind
 *   waiters        has_waiters is false alone and true with a waiter queued
 *   fifo           (fair locks) waiters are served in their arrival order
 *   init           the static initializer, init(), and (when the descriptor
 *                  claims it) an all-zero lock each give a working lock
 *   desc           the descriptor matches the lock's compile-time constants
 *
 * Exit 0 on success; on failure a message naming the property, exit 1.
 * Every test runs under a watchdog: a hang is a failure, not a stuck CI.
 */
#define _GNU_SOURCE
#include <clof/clof.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clof_test.h"

#define CS_LINES 4
#define MAX_THREADS 64

static const char *g_lock, *g_test;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Data protected by the lock: plain (non-atomic) fields on separate lines. */
static clof_test_line_t g_data[CS_LINES];

/* Test-side atomics (not lock code: plain builtins are fine here). */
static int ld(const int *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static void st(int *p, int v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Snapshot of the lock's first cache line, read word by word atomically, to
 * see that a waiter has joined the queue (ticket taken, tail swapped). */
static void snapshot(const void *lock, size_t size, uint32_t *out)
{
    const uint32_t *w = (const uint32_t *)lock;
    size_t n = (size < 64 ? size : 64) / 4;
    for (size_t i = 0; i < 16; i++)
        out[i] = i < n ? __atomic_load_n(&w[i], __ATOMIC_RELAXED) : 0;
}
static int snapshot_changed(const void *lock, size_t size, const uint32_t *old)
{
    uint32_t now[16];
    snapshot(lock, size, now);
    return memcmp(now, old, sizeof now) != 0;
}

/* Wait up to 10 s for cond(); fail with `what` otherwise. */
#define WAIT_FOR(cond, what)                                                   \
    do {                                                                       \
        double t0_ = now_s();                                                  \
        while (!(cond)) {                                                      \
            if (now_s() - t0_ > 10.0)                                          \
                clof_test_fail(what);                                                    \
            sched_yield();                                                     \
        }                                                                      \
    } while (0)

static void check_desc(const clof_lock_desc_t *d, const char *expect,
                       size_t lock_size, size_t ctx_size)
{
    if (strcmp(d->name, expect) != 0 || d->lock_size != lock_size ||
        d->ctx_size != ctx_size)
        clof_test_fail("descriptor does not describe the lock");
    if (!d->thread_oblivious)
        clof_test_fail("every basic lock must be thread-oblivious");
    printf("%s: fair=%d native_has_waiters=%d zero_init=%d lock=%zu B "
           "ctx=%zu B\n",
           d->name, d->fair, d->native_has_waiters, d->zero_init,
           d->lock_size, d->ctx_size);
}

/* One set of tests per lock, generated from the X-macro list. */
#define LOCK_TESTS(name, NAME)                                                 \
    static clof_##name##_t name##_lock = CLOF_##NAME##_INITIALIZER;            \
    /* contexts live as long as the process (CLH's rule) */                    \
    static clof_##name##_ctx_t name##_ctx[MAX_THREADS + 2];                    \
    static int name##_iters;                                                   \
                                                                               \
    static void *name##_mutex_thread(void *arg)                                \
    {                                                                          \
        clof_##name##_ctx_t *c = &name##_ctx[(intptr_t)arg];                   \
        for (int i = 0; i < name##_iters; i++) {                               \
            clof_##name##_acquire(&name##_lock, c);                            \
            (void)clof_test_critical(g_data, CS_LINES, (i & 63) == 7);         \
            clof_##name##_release(&name##_lock, c);                            \
        }                                                                      \
        return NULL;                                                           \
    }                                                                          \
    static void name##_test_mutex(int T)                                       \
    {                                                                          \
        pthread_t th[MAX_THREADS];                                             \
        name##_iters = T <= 2 ? 20000 : 40000 / T;                             \
        if (getenv("CLOF_TEST_ITERS"))                                         \
            name##_iters = atoi(getenv("CLOF_TEST_ITERS"));                    \
        for (intptr_t i = 0; i < T; i++)                                       \
            pthread_create(&th[i], NULL, name##_mutex_thread, (void *)i);      \
        for (int i = 0; i < T; i++)                                            \
            pthread_join(th[i], NULL);                                         \
        for (int k = 0; k < CS_LINES; k++)                                     \
            if (g_data[k].v != (uint64_t)T * (uint64_t)name##_iters)           \
                clof_test_fail("mutual exclusion: lost updates");                        \
    }                                                                          \
                                                                               \
    static int name##_flag;                                                    \
    static void *name##_try_thread(void *arg)                                  \
    {                                                                          \
        (void)arg;                                                             \
        clof_##name##_ctx_t *c = &name##_ctx[1];                               \
        if (clof_##name##_tryacquire(&name##_lock, c))                         \
            clof_test_fail("tryacquire succeeded on a held lock (other thread)");        \
        st(&name##_flag, 1);                                                   \
        WAIT_FOR(ld(&name##_flag) == 2, "main did not release");               \
        if (!clof_##name##_tryacquire(&name##_lock, c))                        \
            clof_test_fail("tryacquire failed on a free lock (other thread)");           \
        clof_##name##_release(&name##_lock, c);                                \
        st(&name##_flag, 3);                                                   \
        return NULL;                                                           \
    }                                                                          \
    static void name##_test_try(void)                                          \
    {                                                                          \
        clof_##name##_ctx_t *c = &name##_ctx[0], *d = &name##_ctx[2];          \
        for (int round = 0; round < 100; round++) {                            \
            if (!clof_##name##_tryacquire(&name##_lock, c))                    \
                clof_test_fail("tryacquire failed on a free lock");                      \
            if (clof_##name##_tryacquire(&name##_lock, d))                     \
                clof_test_fail("tryacquire succeeded on a held lock");                   \
            clof_##name##_release(&name##_lock, c);                            \
            clof_##name##_acquire(&name##_lock, d);                            \
            if (clof_##name##_tryacquire(&name##_lock, c))                     \
                clof_test_fail("tryacquire succeeded while acquire() holds the lock");   \
            clof_##name##_release(&name##_lock, d);                            \
        }                                                                      \
        pthread_t th;                                                          \
        clof_##name##_acquire(&name##_lock, c);                                \
        pthread_create(&th, NULL, name##_try_thread, NULL);                    \
        WAIT_FOR(ld(&name##_flag) == 1, "try thread did not start");           \
        clof_##name##_release(&name##_lock, c);                                \
        st(&name##_flag, 2);                                                   \
        pthread_join(th, NULL);                                                \
        if (ld(&name##_flag) != 3)                                             \
            clof_test_fail("try thread did not finish");                                 \
        if (!clof_##name##_tryacquire(&name##_lock, c))                        \
            clof_test_fail("lock not free after the other thread released it");          \
        clof_##name##_release(&name##_lock, c);                                \
    }                                                                          \
                                                                               \
    /* oblivious: A acquires, B releases with A's context. */                  \
    static int name##_stage, name##_wdone;                                     \
    static void *name##_obl_acquirer(void *arg)                                \
    {                                                                          \
        (void)arg;                                                             \
        clof_##name##_acquire(&name##_lock, &name##_ctx[0]);                   \
        st(&name##_stage, 1);                                                  \
        return NULL; /* exits holding the lock */                              \
    }                                                                          \
    static void *name##_obl_releaser(void *arg)                                \
    {                                                                          \
        (void)arg;                                                             \
        clof_##name##_release(&name##_lock, &name##_ctx[0]);                   \
        st(&name##_stage, 2);                                                  \
        return NULL;                                                           \
    }                                                                          \
    static void *name##_obl_waiter(void *arg)                                  \
    {                                                                          \
        (void)arg;                                                             \
        clof_##name##_acquire(&name##_lock, &name##_ctx[3]);                   \
        st(&name##_wdone, 1);                                                  \
        clof_##name##_release(&name##_lock, &name##_ctx[3]);                   \
        return NULL;                                                           \
    }                                                                          \
    static void name##_test_oblivious(void)                                    \
    {                                                                          \
        for (int round = 0; round < 50; round++) {                             \
            int with_waiter = round & 1;                                       \
            pthread_t a, b, w;                                                 \
            uint32_t snap[16];                                                 \
            st(&name##_stage, 0);                                              \
            st(&name##_wdone, 0);                                              \
            pthread_create(&a, NULL, name##_obl_acquirer, NULL);               \
            pthread_join(a, NULL);                                             \
            if (ld(&name##_stage) != 1)                                        \
                clof_test_fail("acquirer did not acquire");                              \
            if (with_waiter) {                                                 \
                snapshot(&name##_lock, sizeof name##_lock, snap);              \
                pthread_create(&w, NULL, name##_obl_waiter, NULL);             \
                if (CLOF_##NAME##_FAIR)                                        \
                    WAIT_FOR(snapshot_changed(&name##_lock,                    \
                                              sizeof name##_lock, snap),       \
                             "waiter did not queue");                          \
                else                                                           \
                    sleep_ms(2);                                               \
                if (ld(&name##_wdone))                                         \
                    clof_test_fail("waiter got a lock that is held");                    \
            }                                                                  \
            pthread_create(&b, NULL, name##_obl_releaser, NULL);               \
            pthread_join(b, NULL);                                             \
            if (with_waiter) {                                                 \
                pthread_join(w, NULL);                                         \
                if (!ld(&name##_wdone))                                        \
                    clof_test_fail("waiter not admitted after a cross-thread release");  \
            }                                                                  \
            if (!clof_##name##_tryacquire(&name##_lock, &name##_ctx[4]))       \
                clof_test_fail("lock not free after a cross-thread release");            \
            clof_##name##_release(&name##_lock, &name##_ctx[4]);               \
        }                                                                      \
    }                                                                          \
                                                                               \
    static void *name##_hw_waiter(void *arg)                                   \
    {                                                                          \
        (void)arg;                                                             \
        clof_##name##_ctx_t *c = &name##_ctx[1];                               \
        clof_##name##_acquire(&name##_lock, c);                                \
        if (clof_##name##_has_waiters(&name##_lock, c))                        \
            clof_test_fail("has_waiters true with nobody waiting (after handover)");     \
        clof_##name##_release(&name##_lock, c);                                \
        return NULL;                                                           \
    }                                                                          \
    static void name##_test_waiters(void)                                      \
    {                                                                          \
        clof_##name##_ctx_t *c = &name##_ctx[0];                               \
        for (int round = 0; round < 20; round++) {                             \
            clof_##name##_acquire(&name##_lock, c);                            \
            if (clof_##name##_has_waiters(&name##_lock, c))                    \
                clof_test_fail("has_waiters true with nobody waiting");                  \
            pthread_t th;                                                      \
            pthread_create(&th, NULL, name##_hw_waiter, NULL);                 \
            WAIT_FOR(clof_##name##_has_waiters(&name##_lock, c),               \
                     "has_waiters stayed false with a waiter queued");         \
            clof_##name##_release(&name##_lock, c);                            \
            pthread_join(th, NULL);                                            \
            clof_##name##_acquire(&name##_lock, c);                            \
            if (clof_##name##_has_waiters(&name##_lock, c))                    \
                clof_test_fail("has_waiters true after the waiter left");                \
            clof_##name##_release(&name##_lock, c);                            \
        }                                                                      \
    }                                                                          \
                                                                               \
    /* fifo: waiters queue one at a time (arrival ticket = start order) */     \
    static int name##_served[MAX_THREADS], name##_nserved;                     \
    static void *name##_fifo_waiter(void *arg)                                 \
    {                                                                          \
        intptr_t id = (intptr_t)arg;                                           \
        clof_##name##_acquire(&name##_lock, &name##_ctx[id + 1]);              \
        name##_served[name##_nserved++] = (int)id; /* inside the CS */         \
        clof_##name##_release(&name##_lock, &name##_ctx[id + 1]);              \
        return NULL;                                                           \
    }                                                                          \
    static void name##_test_fifo(void)                                         \
    {                                                                          \
        enum { W = 8 };                                                        \
        if (!CLOF_##NAME##_FAIR) {                                             \
            printf("SKIP: %s is not a FIFO lock\n", #name);                    \
            return;                                                            \
        }                                                                      \
        for (int round = 0; round < 10; round++) {                             \
            pthread_t th[W];                                                   \
            uint32_t snap[16];                                                 \
            name##_nserved = 0;                                                \
            clof_##name##_acquire(&name##_lock, &name##_ctx[0]);               \
            for (intptr_t i = 0; i < W; i++) {                                 \
                snapshot(&name##_lock, sizeof name##_lock, snap);              \
                pthread_create(&th[i], NULL, name##_fifo_waiter, (void *)i);   \
                WAIT_FOR(snapshot_changed(&name##_lock, sizeof name##_lock,    \
                                          snap),                               \
                         "waiter did not join the queue");                     \
            }                                                                  \
            clof_##name##_release(&name##_lock, &name##_ctx[0]);               \
            for (int i = 0; i < W; i++)                                        \
                pthread_join(th[i], NULL);                                     \
            if (name##_nserved != W)                                           \
                clof_test_fail("not every waiter was served");                           \
            for (int i = 0; i < W; i++)                                        \
                if (name##_served[i] != i) {                                   \
                    char m[128];                                               \
                    snprintf(m, sizeof m,                                      \
                             "FIFO: position %d served waiter %d", i,          \
                             name##_served[i]);                                \
                    clof_test_fail(m);                                                   \
                }                                                              \
        }                                                                      \
    }                                                                          \
                                                                               \
    static void name##_use(clof_##name##_t *l)                                 \
    {                                                                          \
        clof_##name##_ctx_t *c = &name##_ctx[5];                               \
        if (!clof_##name##_tryacquire(l, c))                                   \
            clof_test_fail("fresh lock is not free");                                    \
        clof_##name##_release(l, c);                                           \
        clof_##name##_acquire(l, c);                                           \
        if (clof_##name##_tryacquire(l, &name##_ctx[6]))                       \
            clof_test_fail("fresh lock admits two holders");                             \
        clof_##name##_release(l, c);                                           \
    }                                                                          \
    static void name##_test_init(void)                                         \
    {                                                                          \
        static clof_##name##_t s = CLOF_##NAME##_INITIALIZER;                  \
        name##_use(&s);                                                        \
        clof_##name##_t *d = (clof_##name##_t *)aligned_alloc(                 \
            CLOF_CACHELINE, (sizeof(clof_##name##_t) + CLOF_CACHELINE - 1) /   \
                                CLOF_CACHELINE * CLOF_CACHELINE);              \
        memset(d, 0xa5, sizeof *d);                                            \
        clof_##name##_init(d);                                                 \
        name##_use(d);                                                         \
        if (CLOF_##NAME##_ZERO_INIT) {                                         \
            memset(d, 0, sizeof *d);                                           \
            name##_use(d);                                                     \
        }                                                                      \
        free(d);                                                               \
    }                                                                          \
    static void name##_test_desc(void)                                         \
    {                                                                          \
        clof_lock_desc_t d = CLOF_LOCK_DESC(name, NAME);                       \
        check_desc(&d, #name, sizeof(clof_##name##_t),                         \
                   sizeof(clof_##name##_ctx_t));                               \
    }                                                                          \
                                                                               \
    static int name##_run(const char *test, int arg)                           \
    {                                                                          \
        if (!strcmp(test, "mutex"))                                            \
            name##_test_mutex(arg);                                            \
        else if (!strcmp(test, "try"))                                         \
            name##_test_try();                                                 \
        else if (!strcmp(test, "oblivious"))                                   \
            name##_test_oblivious();                                           \
        else if (!strcmp(test, "waiters"))                                     \
            name##_test_waiters();                                             \
        else if (!strcmp(test, "fifo"))                                        \
            name##_test_fifo();                                                \
        else if (!strcmp(test, "init"))                                        \
            name##_test_init();                                                \
        else if (!strcmp(test, "desc"))                                        \
            name##_test_desc();                                                \
        else                                                                   \
            return 2;                                                          \
        return 0;                                                              \
    }

CLOF_BASIC_LOCKS(LOCK_TESTS)

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LOCK TEST [ARG]\n", argv[0]);
        return 2;
    }
    g_lock = argv[1];
    g_test = argv[2];
    clof_test_name("%s %s", g_lock, g_test);
    int arg = argc > 3 ? atoi(argv[3]) : 0;
    if (!strcmp(g_test, "mutex") && (arg < 1 || arg > MAX_THREADS)) {
        fprintf(stderr, "mutex needs a thread count 1..%d\n", MAX_THREADS);
        return 2;
    }
    clof_test_watchdog(getenv("CLOF_TEST_TIMEOUT") ? (unsigned)atoi(getenv("CLOF_TEST_TIMEOUT")) : 120,
                       1, NULL);
    int rc = -1;
#define RUN(name, NAME)                                                        \
    if (!strcmp(g_lock, #name))                                                \
        rc = name##_run(g_test, arg);
    CLOF_BASIC_LOCKS(RUN)
#undef RUN
    if (rc < 0) {
        fprintf(stderr, "unknown lock '%s'; known:", g_lock);
#define NAMES(name, NAME) fprintf(stderr, " %s", #name);
        CLOF_BASIC_LOCKS(NAMES)
#undef NAMES
        fprintf(stderr, "\n");
        return 2;
    }
    if (rc == 2) {
        fprintf(stderr, "unknown test '%s'\n", g_test);
        return 2;
    }
    printf("PASS %s %s %s\n", g_lock, g_test, argc > 3 ? argv[3] : "");
    return 0;
}
