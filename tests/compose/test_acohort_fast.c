/* SPDX-License-Identifier: MIT */
/*
 * The abortable cohort locks (numa/acohort.h) with their fast path, and
 * without it (built with -DCLOF_COMPOSE_NO_FAST_PATH: the paper's locks).
 *
 *   test_acohort_fast LOCK TEST SHAPE THREADS
 *
 * LOCK: a_c_bo_bo or a_c_bo_clh.  SHAPE: an emulated machine (topology.h).
 * TEST:
 *   mixed   THREADS threads (more than cpus: oversubscribed) each run a
 *           random mix of plain acquires, tryacquires and acquire_until with
 *           deadlines of 0-63 us, moving to another virtual cpu (leaf) every
 *           iteration.  Checked: mutual exclusion (an owner word and a
 *           non-atomic invariant over 4 cache lines in every critical
 *           section), critical sections == successful acquisitions, every
 *           kind of acquisition both succeeded and (tries, timed) failed
 *           somewhere, and after all that every thread's plain acquire and
 *           a timed acquire with a 1 s deadline succeed and the lock is free
 *           (tryacquire succeeds): no failed attempt left anything held.
 *   fast    (fast path) directed: a fast owner holds the lock; a timed
 *           acquirer -- which then owns the node lock and the global lock
 *           and waits for HELD with TOPWAIT set -- times out (not before its
 *           deadline) and leaves no TOPWAIT behind (the fast word is HELD
 *           alone, the fast owner's has_waiters is false, tryacquire after
 *           the release succeeds); tryacquire and acquire_until(0) fail
 *           against a fast owner; a waiter without deadline shows up in the
 *           fast owner's has_waiters (TOPWAIT) and gets the lock through the
 *           hierarchy when the fast owner leaves.
 */
#define _GNU_SOURCE
#include <clof/numa/acohort.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clof_test.h"

#define MAXT 64
#define LINES 4

static clof_topology_t g_topo;
static int g_threads;
static int g_iters;

/* the k-th virtual cpu in spread order (leaves round robin) */
static int32_t vcpu(uint32_t k)
{
    return (int32_t)g_topo.order_spread[k % g_topo.npresent];
}

/* protected data: an owner word and a counter on LINES cache lines */
static clof_test_line_t g_data[LINES];
static volatile int g_owner = -1;

static void critical(int id)
{
    if (g_owner != -1)
        clof_test_fail("two owners at once (mutual exclusion)");
    g_owner = id;
    (void)clof_test_critical(g_data, LINES, 0);
    if (g_owner != id)
        clof_test_fail("owner changed inside the critical section");
    g_owner = -1;
}

static uint64_t g_ok[3], g_failed[3]; /* per kind: plain, try, timed */

#define ACOHORT_TEST(N)                                                        \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[MAXT];                                     \
    static void *N##_mixed_thread(void *arg)                                   \
    {                                                                          \
        int id = (int)(intptr_t)arg;                                           \
        uint64_t ok[3] = {0}, failed[3] = {0};                                 \
        uint64_t seed = (uint64_t)id * 0x9e3779b97f4a7c15ull + 7;              \
        for (int i = 0; i < g_iters; i++) {                                    \
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;     \
            clof_topo_set_vcpu(vcpu((uint32_t)(seed >> 20)));             \
            int kind = (int)((seed >> 33) % 3);                                \
            bool got = true;                                                   \
            if (kind == 0)                                                     \
                clof_##N##_acquire(&N##_lock, &N##_ctx[id]);                   \
            else if (kind == 1)                                                \
                got = clof_##N##_tryacquire(&N##_lock, &N##_ctx[id]);          \
            else                                                               \
                got = clof_##N##_acquire_until(                                \
                    &N##_lock, &N##_ctx[id],                                   \
                    clof_now_ns() + ((seed >> 40) % 64) * 1000);               \
            if (!got) {                                                        \
                failed[kind]++;                                                \
                continue;                                                      \
            }                                                                  \
            ok[kind]++;                                                        \
            critical(id);                                                      \
            if (i % 16 == 0)                                                   \
                sched_yield(); /* a preempted owner, now and then */          \
            clof_##N##_release(&N##_lock, &N##_ctx[id]);                       \
        }                                                                      \
        for (int k = 0; k < 3; k++) {                                          \
            __atomic_fetch_add(&g_ok[k], ok[k], __ATOMIC_RELAXED);             \
            __atomic_fetch_add(&g_failed[k], failed[k], __ATOMIC_RELAXED);     \
        }                                                                      \
        /* the end: a plain acquire, then a timed one, both succeed */         \
        clof_topo_set_vcpu(vcpu((uint32_t)id));                 \
        clof_##N##_acquire(&N##_lock, &N##_ctx[id]);                           \
        critical(id);                                                          \
        clof_##N##_release(&N##_lock, &N##_ctx[id]);                           \
        if (!clof_##N##_acquire_until(&N##_lock, &N##_ctx[id],                 \
                                      clof_now_ns() + 1000000000u))            \
            clof_test_fail("a timed acquire with a 1 s deadline failed at the end");     \
        critical(id);                                                          \
        clof_##N##_release(&N##_lock, &N##_ctx[id]);                           \
        return NULL;                                                           \
    }                                                                          \
    static void N##_mixed(void)                                                \
    {                                                                          \
        pthread_t th[MAXT];                                                    \
        for (intptr_t i = 0; i < g_threads; i++)                               \
            pthread_create(&th[i], NULL, N##_mixed_thread, (void *)i);         \
        for (int i = 0; i < g_threads; i++)                                    \
            pthread_join(th[i], NULL);                                         \
        uint64_t total = 2 * (uint64_t)g_threads;                              \
        for (int k = 0; k < 3; k++)                                            \
            total += g_ok[k];                                                  \
        for (int k = 0; k < LINES; k++)                                        \
            if (g_data[k].v != total)                                          \
                clof_test_fail("critical sections != successful acquisitions");          \
        printf("mixed: plain %llu; try %llu ok, %llu failed; timed %llu ok, "  \
               "%llu timed out\n",                                             \
               (unsigned long long)g_ok[0], (unsigned long long)g_ok[1],       \
               (unsigned long long)g_failed[1], (unsigned long long)g_ok[2],   \
               (unsigned long long)g_failed[2]);                               \
        if (!g_ok[0] || !g_ok[1] || !g_ok[2])                                  \
            clof_test_fail("a kind of acquisition never succeeded");                     \
        if (g_threads > 1 && (!g_failed[1] || !g_failed[2]))                   \
            clof_test_fail("no try or no timed acquisition ever failed: no contention"); \
        clof_topo_set_vcpu(vcpu(0));                                                 \
        if (!clof_##N##_tryacquire(&N##_lock, &N##_ctx[0]))                    \
            clof_test_fail("the lock is not free at the end");                           \
        if (clof_##N##_has_waiters(&N##_lock, &N##_ctx[0]))                    \
            clof_test_fail("has_waiters on an idle lock");                               \
        clof_##N##_release(&N##_lock, &N##_ctx[0]);                            \
    }                                                                          \
    /* fast: a waiter without deadline, while main holds the lock fast */    \
    static int N##_waiter_got; /* 1 = acquired through the hierarchy */      \
    static void *N##_waiter(void *arg)                                         \
    {                                                                          \
        (void)arg;                                                             \
        clof_topo_set_vcpu(vcpu(g_topo.npresent - 1));                            \
        clof_##N##_acquire(&N##_lock, &N##_ctx[2]);                            \
        critical(2);                                                           \
        int via = N##_ctx[2].leaf != NULL ? 1 : 2;                             \
        clof_##N##_release(&N##_lock, &N##_ctx[2]);                            \
        __atomic_store_n(&N##_waiter_got, via, __ATOMIC_RELEASE);              \
        return NULL;                                                           \
    }                                                                          \
    static void *N##_timed_waiter(void *arg)                                   \
    {                                                                          \
        (void)arg;                                                             \
        clof_topo_set_vcpu(vcpu(g_topo.npresent - 1));                            \
        uint64_t t0 = clof_now_ns(), dl = t0 + 20000000u;                      \
        if (clof_##N##_acquire_until(&N##_lock, &N##_ctx[1], dl))              \
            clof_test_fail("acquire_until succeeded against a fast owner");              \
        if (clof_now_ns() < dl)                                                \
            clof_test_fail("acquire_until gave up before its deadline");                 \
        if (clof_##N##_tryacquire(&N##_lock, &N##_ctx[1]))                     \
            clof_test_fail("tryacquire succeeded against a fast owner");                 \
        if (clof_##N##_acquire_until(&N##_lock, &N##_ctx[1], 0))               \
            clof_test_fail("acquire_until(0) succeeded against a fast owner");           \
        return NULL;                                                           \
    }                                                                          \
    static void N##_fast(void)                                                 \
    {                                                                          \
        if (!CLOF_COMPOSE_FAST_)                                               \
            clof_test_fail("test `fast` needs the fast path");                           \
        clof_atomic32_t *f = clof_##N##_fastw_(&N##_lock);                     \
        for (int round = 0; round < 3; round++) {                              \
            clof_topo_set_vcpu(vcpu(0));                                             \
            /* round 1 holds the lock taken with acquire_until, 2 tryacquire */ \
            if (round == 0)                                                    \
                clof_##N##_acquire(&N##_lock, &N##_ctx[0]);                    \
            else if (round == 1 &&                                             \
                     !clof_##N##_acquire_until(&N##_lock, &N##_ctx[0],         \
                                               CLOF_DEADLINE_NONE))            \
                clof_test_fail("acquire_until failed on a free lock");                   \
            else if (round == 2 &&                                             \
                     !clof_##N##_tryacquire(&N##_lock, &N##_ctx[0]))           \
                clof_test_fail("tryacquire failed on a free lock (a stale TOPWAIT?)");   \
            if (N##_ctx[0].leaf != NULL)                                       \
                clof_test_fail("an uncontended acquisition did not take the fast path"); \
            pthread_t th;                                                      \
            pthread_create(&th, NULL, N##_timed_waiter, NULL);                 \
            pthread_join(th, NULL);                                            \
            if (clof_atomic32_read(f) != CLOF_CMP_HELD_)                       \
                clof_test_fail("the timed-out acquirer left TOPWAIT set");               \
            if (clof_##N##_has_waiters(&N##_lock, &N##_ctx[0]))                \
                clof_test_fail("has_waiters after the timed acquirer left");             \
            /* a waiter without deadline: seen through TOPWAIT */             \
            __atomic_store_n(&N##_waiter_got, 0, __ATOMIC_RELAXED);            \
            pthread_create(&th, NULL, N##_waiter, NULL);                       \
            uint64_t until = clof_now_ns() + 10000000000ull;                   \
            while (!clof_##N##_has_waiters(&N##_lock, &N##_ctx[0])) {          \
                if (clof_now_ns() > until)                                     \
                    clof_test_fail("the fast owner never saw the waiter (TOPWAIT)");     \
                sched_yield();                                                 \
            }                                                                  \
            critical(0);                                                       \
            clof_##N##_release(&N##_lock, &N##_ctx[0]);                        \
            pthread_join(th, NULL);                                            \
            if (__atomic_load_n(&N##_waiter_got, __ATOMIC_ACQUIRE) != 1)       \
                clof_test_fail("the waiter did not get the lock through the hierarchy"); \
            if (clof_atomic32_read(f) != 0)                                    \
                clof_test_fail("the fast word is not 0 on an idle lock");                \
        }                                                                      \
        if (g_data[0].v != 6)                                                  \
            clof_test_fail("critical sections went missing");                            \
        printf("fast: 3 rounds of fast owner vs timed, try and plain "         \
               "acquirers\n");                                                 \
    }                                                                          \
    static int N##_run(const char *test)                                       \
    {                                                                          \
        if (clof_##N##_init_topo(&N##_lock, &g_topo, NULL) != 0)               \
            clof_test_fail("init_topo");                                                 \
        if (!strcmp(test, "mixed"))                                            \
            N##_mixed();                                                       \
        else if (!strcmp(test, "fast"))                                        \
            N##_fast();                                                        \
        else                                                                   \
            return -1;                                                         \
        clof_##N##_destroy(&N##_lock);                                         \
        return 0;                                                              \
    }
ACOHORT_TEST(a_c_bo_bo)
ACOHORT_TEST(a_c_bo_clh)

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s LOCK TEST SHAPE THREADS\n", argv[0]);
        return 2;
    }
    g_threads = atoi(argv[4]);
    if (g_threads < 1 || g_threads > MAXT)
        return 2;
    clof_topo_opts_t o;
    memset(&o, 0, sizeof o);
    o.emulate = argv[3];
    o.flags = CLOF_TOPO_NO_ENV;
    clof_topo_error_t e;
    if (clof_topology_load(&g_topo, &o, &e) != 0 ||
        clof_topology_install(&o, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 2;
    }
    g_iters = 40000 / g_threads;
    if (getenv("ACOHORT_ITERS")) /* acohort_chaos.sh: longer runs */
        g_iters = atoi(getenv("ACOHORT_ITERS"));
    /* ACOHORT_ALARM=0: no watchdog of its own (acohort_chaos.sh keeps one
     * that saves the stacks first) */
    unsigned alarm_s = getenv("ACOHORT_ALARM") ? (unsigned)atoi(getenv("ACOHORT_ALARM")) : 120u;
    if (alarm_s)
        clof_test_watchdog(alarm_s, 1, "FAIL: hang (watchdog)\n");
    int rc = -1;
    if (!strcmp(argv[1], "a_c_bo_bo"))
        rc = a_c_bo_bo_run(argv[2]);
    else if (!strcmp(argv[1], "a_c_bo_clh"))
        rc = a_c_bo_clh_run(argv[2]);
    if (rc < 0) {
        fprintf(stderr, "unknown lock or test: %s %s\n", argv[1], argv[2]);
        return 2;
    }
    return 0;
}
