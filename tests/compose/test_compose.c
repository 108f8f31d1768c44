/* SPDX-License-Identifier: MIT */
/*
 * Tests of the CLoF generator (compose.h) under emulated topologies.
 *
 *   test_compose LOCK TEST SHAPE THREADS
 *
 * LOCK: one of the compositions declared below.  SHAPE: an emulated machine
 * (topology.h), e.g. "package:2,numa:2,cache:8,core:4".  Threads get virtual
 * cpus round robin over the machine's leaves ("spread"), so every cohort has
 * contenders.  TEST:
 *   mutex      mutual exclusion: a non-atomic invariant over 4 cache lines
 *              checked in every critical section, and no lost update
 *   migrate    every acquisition moves the thread to another virtual cpu
 *              (another leaf) between acquire and release
 *   local      with per-level thresholds of 4 and every thread contending:
 *              a leaf cohort keeps the high lock for at most 4 acquisitions
 *              in a row (the first takes it, at most 3 get it passed), local
 *              passing does happen, and no thread starves (all finish)
 *   try        tryacquire fails while held, succeeds when free; has_waiters
 *   timed      (abortable locks) acquire_until times out while another
 *              thread holds the lock and nothing is left held; succeeds once
 *              it is free; then a stress run where every acquisition has a
 *              short deadline: successes == critical sections (no lost or
 *              phantom ownership) and the lock is free at the end
 *   swapped    (built with the release order swapped) a stress run that
 *              must be caught: it reports a broken invariant, a lost update
 *              or a hang (no critical section for 5 s, or the watchdog)
 *              and exits non-zero
 */
#define _GNU_SOURCE
static __thread unsigned tl_taken; /* levels the last acquire had to take */
#define CLOF_COMPOSE_ON_ACQUIRE(levels) (tl_taken = (levels))
#include <clof/compose.h>
#include <clof/numa/acohort.h>
#include <clof/numa/cohort.h>
#include <clof/numa/hmcs.h>

/* HMCS over every level of the machine, under the generator's names */
typedef clof_hmcs_t clof_hmcs_all_t;
typedef clof_hmcs_ctx_t clof_hmcs_all_ctx_t;
static int clof_hmcs_all_init_topo(clof_hmcs_t *l, const clof_topology_t *t,
                                   const uint32_t *levels)
{
    (void)levels;
    return clof_hmcs_init_topo(l, t, clof_topo_nlevels(t), NULL);
}
#define clof_hmcs_all_acquire clof_hmcs_acquire
#define clof_hmcs_all_tryacquire clof_hmcs_tryacquire
#define clof_hmcs_all_release clof_hmcs_release
#define clof_hmcs_all_has_waiters clof_hmcs_has_waiters
#define clof_hmcs_all_destroy clof_hmcs_destroy

/* CNA under the same names; `tree` only tells the test CNA's level (NUMA) */
#include <clof/numa/cna.h>
typedef struct {
    clof_cna_t cna;
    CLOF_ATOMICPTR(clof_compose_tree_t) tree;
} clof_cna_x_t;
typedef clof_cna_ctx_t clof_cna_x_ctx_t;
static clof_compose_tree_t cna_tree_;
static int clof_cna_x_init_topo(clof_cna_x_t *l, const clof_topology_t *t,
                                const uint32_t *levels)
{
    (void)levels;
    int n = clof_topo_level_index(t, CLOF_LEVEL_NUMA);
    cna_tree_.lvl[0] = n < 0 ? 0 : (uint32_t)n;
    clof_cna_init(&l->cna);
    clof_atomicptr_write_rlx(&l->tree, &cna_tree_);
    return 0;
}
static void clof_cna_x_acquire(clof_cna_x_t *l, clof_cna_ctx_t *c)
{
    clof_cna_acquire(&l->cna, c);
}
static bool clof_cna_x_tryacquire(clof_cna_x_t *l, clof_cna_ctx_t *c)
{
    return clof_cna_tryacquire(&l->cna, c);
}
static void clof_cna_x_release(clof_cna_x_t *l, clof_cna_ctx_t *c)
{
    clof_cna_release(&l->cna, c);
}
static bool clof_cna_x_has_waiters(clof_cna_x_t *l, clof_cna_ctx_t *c)
{
    return clof_cna_has_waiters(&l->cna, c);
}
static void clof_cna_x_destroy(clof_cna_x_t *l)
{
    (void)l;
}

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clof_test.h"

/* A representative set: 1 to 5 levels, every basic lock at some level. */
#define COMPOSITIONS(X)                                                        \
    X(mcs_tkt)          /* 2: ticket over MCS */                               \
    X(tas_mcs)          /* 2: MCS (fair) over TAS leaves (unfair) */           \
    X(clh_mcs_tkt)      /* 3 */                                                \
    X(hem_ptl_bo)       /* 3: unfair top */                                    \
    X(hem_hem_mcs_clh)  /* 4: the paper's example name */                      \
    X(tkt_clh_mcs_hemctr) /* 4 */                                              \
    X(ttas_tkt_hem_mcs_clh) /* 5 */                                            \
    X(c_bo_mcs)         /* cohort locks: NUMA level + system */                \
    X(c_tkt_tkt)                                                               \
    X(c_ptl_tkt)                                                               \
    X(a_c_bo_bo)        /* abortable cohort locks */                           \
    X(a_c_bo_clh)                                                              \
    X(hmcs_all)         /* HMCS<depth of the machine> */                       \
    X(cna_x)            /* CNA on the NUMA level */

/* lowest level first, as the names read */
CLOF_COMPOSE(mcs_tkt, mcs, ticket)
CLOF_COMPOSE(tas_mcs, tas, mcs)
CLOF_COMPOSE(hem_ptl_bo, hemlock, ptl, bo)
CLOF_COMPOSE(hem_hem_mcs_clh, hemlock, hemlock, mcs, clh)
CLOF_COMPOSE(tkt_clh_mcs_hemctr, ticket, clh, mcs, hemlock_ctr)
CLOF_COMPOSE(ttas_tkt_hem_mcs_clh, ttas, ticket, hemlock, mcs, clh)
/* the old spelling, system level first, keeps working: CLH at level 0 */
CLOF_LOCK(clh_mcs_tkt, ticket, mcs, clh)
_Static_assert(__builtin_types_compatible_p(__typeof__(((clof_clh_mcs_tkt_l0_t *)0)->lock),
                                            clof_clh_t) &&
                   __builtin_types_compatible_p(clof_clh_mcs_tkt_c2_t, clof_ticket_ctx_t),
               "CLOF_LOCK lists the system level first");
_Static_assert(__builtin_types_compatible_p(__typeof__(((clof_hem_ptl_bo_l0_t *)0)->lock),
                                            clof_hemlock_t) &&
                   __builtin_types_compatible_p(clof_hem_ptl_bo_c2_t, clof_bo_ctx_t),
               "CLOF_COMPOSE lists the lowest level first");

#define MAXT 64
#define LINES 4

static const char *g_lock, *g_test;
static clof_topology_t g_topo;
static int g_threads, g_iters;
static clof_test_line_t g_data[LINES];
/* trace of the critical sections: the leaf cohort of each holder */
static uint32_t *g_trace; /* leaf << 8 | levels taken */
static volatile uint64_t g_ntrace;

static uint32_t vcpu_of(int thread, int iter)
{
    /* spread: thread i starts on order_spread[i], migrations walk on */
    uint32_t k = (uint32_t)(thread + iter) % g_topo.npresent;
    return g_topo.order_spread[k];
}

static void critical(uint32_t leaf)
{
    (void)clof_test_critical(g_data, LINES, (g_data[0].v & 127) == 5);
    if (g_trace)
        g_trace[g_ntrace++] = leaf << 8 | tl_taken;
}

#define LOCK_FUNCS(N)                                                          \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[MAXT];                                     \
    static void *N##_thread(void *arg)                                         \
    {                                                                          \
        int id = (int)(intptr_t)arg;                                           \
        int migrate = !strcmp(g_test, "migrate");                              \
        clof_topo_set_vcpu((int32_t)vcpu_of(id, 0));                           \
        for (int i = 0; i < g_iters; i++) {                                    \
            clof_##N##_acquire(&N##_lock, &N##_ctx[id]);                       \
            uint32_t leaf = clof_topo_cohort(                                  \
                &g_topo, clof_current_cpu(),                                   \
                clof_atomicptr_read_rlx(&N##_lock.tree)->lvl[0]);              \
            if (migrate)                                                       \
                clof_topo_set_vcpu((int32_t)vcpu_of(id, i + 1));               \
            critical(leaf);                                                    \
            clof_##N##_release(&N##_lock, &N##_ctx[id]);                       \
        }                                                                      \
        return NULL;                                                           \
    }                                                                          \
    static int N##_holder_done;                                                \
    static void *N##_try_thread(void *arg)                                     \
    {                                                                          \
        (void)arg;                                                             \
        clof_topo_set_vcpu((int32_t)vcpu_of(1, 0));                            \
        if (clof_##N##_tryacquire(&N##_lock, &N##_ctx[1]))                     \
            clof_test_fail("tryacquire succeeded on a held lock");                       \
        clof_##N##_acquire(&N##_lock, &N##_ctx[1]); /* waits */                \
        if (!__atomic_load_n(&N##_holder_done, __ATOMIC_ACQUIRE))              \
            clof_test_fail("acquired while held");                                       \
        clof_##N##_release(&N##_lock, &N##_ctx[1]);                            \
        return NULL;                                                           \
    }                                                                          \
    static void N##_test_try(void)                                             \
    {                                                                          \
        clof_topo_set_vcpu((int32_t)vcpu_of(0, 0));                            \
        if (!clof_##N##_tryacquire(&N##_lock, &N##_ctx[0]))                    \
            clof_test_fail("tryacquire failed on a free lock");                          \
        if (clof_##N##_has_waiters(&N##_lock, &N##_ctx[0]))                    \
            clof_test_fail("has_waiters true with nobody waiting");                      \
        pthread_t th;                                                          \
        pthread_create(&th, NULL, N##_try_thread, NULL);                       \
        time_t t0 = time(NULL);                                                \
        while (!clof_##N##_has_waiters(&N##_lock, &N##_ctx[0]))                \
            if (time(NULL) - t0 > 10)                                          \
                clof_test_fail("has_waiters stayed false with a waiter");                \
            else                                                               \
                sched_yield();                                                 \
        __atomic_store_n(&N##_holder_done, 1, __ATOMIC_RELEASE);               \
        clof_##N##_release(&N##_lock, &N##_ctx[0]);                            \
        pthread_join(th, NULL);                                                \
        if (!clof_##N##_tryacquire(&N##_lock, &N##_ctx[0]))                    \
            clof_test_fail("lock not free after release");                               \
        clof_##N##_release(&N##_lock, &N##_ctx[0]);                            \
    }                                                                          \
    static int N##_run(void)                                                   \
    {                                                                          \
        if (clof_##N##_init_topo(&N##_lock, &g_topo, NULL) != 0)               \
            clof_test_fail("init_topo");                                                 \
        if (!strcmp(g_test, "try")) {                                          \
            N##_test_try();                                                    \
            return 0;                                                          \
        }                                                                      \
        pthread_t th[MAXT];                                                    \
        for (intptr_t i = 0; i < g_threads; i++)                               \
            pthread_create(&th[i], NULL, N##_thread, (void *)i);               \
        for (int i = 0; i < g_threads; i++)                                    \
            pthread_join(th[i], NULL);                                         \
        clof_##N##_destroy(&N##_lock);                                         \
        return 0;                                                              \
    }
#define LOCK_FUNCS_X(N) LOCK_FUNCS(N)
COMPOSITIONS(LOCK_FUNCS_X)

/* ---- timed acquisition (abortable locks) ---- */
#define ABORTABLE(X) X(a_c_bo_bo) X(a_c_bo_clh)
static uint64_t g_timed_ok;   /* successful timed acquisitions */
static uint64_t g_timeouts;   /* timed-out ones */
static int g_holding;         /* the holder of phase 1 is inside */
#define TIMED_FUNCS(N)                                                         \
    static void *N##_timed_waiter(void *arg)                                   \
    {                                                                          \
        int id = (int)(intptr_t)arg;                                           \
        clof_topo_set_vcpu((int32_t)vcpu_of(id, 0));                           \
        /* phase 1: the lock is held for much longer than our patience */     \
        uint64_t t0 = clof_now_ns();                                           \
        if (clof_##N##_acquire_until(&N##_lock, &N##_ctx[id],                  \
                                     t0 + 20000000u))                          \
            clof_test_fail("acquire_until succeeded while another thread held the lock"); \
        if (clof_now_ns() < t0 + 20000000u)                                    \
            clof_test_fail("acquire_until gave up before its deadline");                 \
        if (!__atomic_load_n(&g_holding, __ATOMIC_ACQUIRE))                    \
            clof_test_fail("holder left before the waiters timed out");                  \
        return NULL;                                                           \
    }                                                                          \
    static void *N##_timed_stress(void *arg)                                   \
    {                                                                          \
        int id = (int)(intptr_t)arg;                                           \
        uint64_t ok = 0, to = 0, seed = (uint64_t)id * 0x9e3779b97f4a7c15ull + 1; \
        for (int i = 0; i < g_iters; i++) {                                    \
            clof_topo_set_vcpu((int32_t)vcpu_of(id, i));                       \
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;     \
            /* patience 0 (a try), or 1..255 us: many aborts at every stage */ \
            uint64_t patience = (seed >> 33) % 4 == 0 ? 0                      \
                                                      : ((seed >> 40) % 256) * 1000; \
            uint64_t dl = patience ? clof_now_ns() + patience : 0;              \
            if (!clof_##N##_acquire_until(&N##_lock, &N##_ctx[id], dl)) {      \
                to++;                                                          \
                continue;                                                      \
            }                                                                  \
            ok++;                                                              \
            critical(0);                                                       \
            clof_##N##_release(&N##_lock, &N##_ctx[id]);                       \
        }                                                                      \
        __atomic_fetch_add(&g_timed_ok, ok, __ATOMIC_RELAXED);                 \
        __atomic_fetch_add(&g_timeouts, to, __ATOMIC_RELAXED);                 \
        return NULL;                                                           \
    }                                                                          \
    static int N##_timed(void)                                                 \
    {                                                                          \
        if (clof_##N##_init_topo(&N##_lock, &g_topo, NULL) != 0)               \
            clof_test_fail("init_topo");                                                 \
        pthread_t th[MAXT];                                                    \
        int w = g_threads - 1;                                                 \
        clof_topo_set_vcpu((int32_t)vcpu_of(0, 0));                            \
        clof_##N##_acquire(&N##_lock, &N##_ctx[0]);                            \
        __atomic_store_n(&g_holding, 1, __ATOMIC_RELEASE);                     \
        for (intptr_t i = 1; i <= w; i++)                                      \
            pthread_create(&th[i], NULL, N##_timed_waiter, (void *)i);         \
        for (int i = 1; i <= w; i++)                                           \
            pthread_join(th[i], NULL);                                         \
        __atomic_store_n(&g_holding, 0, __ATOMIC_RELEASE);                     \
        clof_##N##_release(&N##_lock, &N##_ctx[0]);                            \
        /* free: a timed acquisition succeeds at once, from every thread */    \
        for (int i = 0; i < g_threads; i++) {                                  \
            clof_topo_set_vcpu((int32_t)vcpu_of(i, 0));                        \
            if (!clof_##N##_acquire_until(&N##_lock, &N##_ctx[i],              \
                                          clof_now_ns() + 1000000000u))        \
                clof_test_fail("acquire_until timed out on a free lock");                \
            clof_##N##_release(&N##_lock, &N##_ctx[i]);                        \
        }                                                                      \
        /* phase 2: stress with short deadlines */                             \
        for (intptr_t i = 0; i < g_threads; i++)                               \
            pthread_create(&th[i], NULL, N##_timed_stress, (void *)i);         \
        for (int i = 0; i < g_threads; i++)                                    \
            pthread_join(th[i], NULL);                                         \
        for (int k = 0; k < LINES; k++)                                        \
            if (g_data[k].v != g_timed_ok)                                     \
                clof_test_fail("critical sections != successful timed acquisitions");    \
        printf("timed stress: %llu acquired, %llu timed out\n",                \
               (unsigned long long)g_timed_ok, (unsigned long long)g_timeouts); \
        if (g_timed_ok == 0)                                                   \
            clof_test_fail("no timed acquisition succeeded");                            \
        /* consistent at the end: free, and a plain acquire works */           \
        clof_topo_set_vcpu((int32_t)vcpu_of(0, 0));                            \
        if (!clof_##N##_tryacquire(&N##_lock, &N##_ctx[0]))                    \
            clof_test_fail("lock not free after the stress run");                        \
        clof_##N##_release(&N##_lock, &N##_ctx[0]);                            \
        clof_##N##_acquire(&N##_lock, &N##_ctx[0]);                            \
        clof_##N##_release(&N##_lock, &N##_ctx[0]);                            \
        clof_##N##_destroy(&N##_lock);                                         \
        return 0;                                                              \
    }
ABORTABLE(TIMED_FUNCS)

/* swapped: the run hangs with every thread parked within milliseconds (no
 * cpu used after that); a hang is declared when no critical section has
 * completed for 5 s (the watchdog's 30 s still bound the run).  The count
 * of critical sections is only compared, so a stale read costs a second. */
#define PROGRESS_STALL_S 5
static void *progress_watch(void *arg)
{
    (void)arg;
    uint64_t last = 0;
    for (int still = 0;;) {
        sleep(1);
        uint64_t now = __atomic_load_n(&g_data[0].v, __ATOMIC_RELAXED);
        still = now == last ? still + 1 : 0;
        last = now;
        if (still == PROGRESS_STALL_S) {
            fprintf(stderr, "FAIL: no critical section completed in %d s (hang)\n",
                    PROGRESS_STALL_S);
            _exit(3);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s LOCK TEST SHAPE THREADS\n", argv[0]);
        return 2;
    }
    g_lock = argv[1];
    g_test = argv[2];
    clof_test_name("%s %s", g_lock, g_test);
    g_threads = atoi(argv[4]);
    if (g_threads < 1 || g_threads > MAXT)
        return 2;
    clof_topo_opts_t o;
    memset(&o, 0, sizeof o);
    o.emulate = argv[3];
    o.flags = CLOF_TOPO_NO_ENV;
    clof_topo_error_t e;
    if (clof_topology_load(&g_topo, &o, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 2;
    }
    /* the process topology too (CNA finds its NUMA node there) */
    if (clof_topology_install(&o, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 2;
    }
    int local = !strcmp(g_test, "local");
    if (local)
        for (uint32_t l = 0; l < g_topo.nlevels; l++)
            g_topo.level[l].threshold = 4;
    g_iters = local ? 2000 : (g_threads <= 8 ? 4000 : 32000 / g_threads);
    if (!strcmp(g_test, "swapped"))
        g_iters = 100000;
    if (local)
        g_trace = calloc((size_t)g_threads * g_iters, sizeof *g_trace);
    clof_test_watchdog(!strcmp(g_test, "swapped") ? 30 : 150, 3, NULL);
    if (!strcmp(g_test, "swapped")) {
        pthread_t w;
        if (pthread_create(&w, NULL, progress_watch, NULL) == 0)
            pthread_detach(w);
    }
    int rc = -1;
#define RUN(N)                                                                 \
    if (!strcmp(g_lock, #N))                                                   \
        rc = N##_run();
#define RUN_TIMED(N)                                                           \
    if (!strcmp(g_lock, #N))                                                   \
        rc = N##_timed();
    if (!strcmp(g_test, "timed")) {
        ABORTABLE(RUN_TIMED)
    } else {
        COMPOSITIONS(RUN)
    }
    if (rc < 0) {
        fprintf(stderr, "unknown lock %s\n", g_lock);
        return 2;
    }
    if (strcmp(g_test, "try") && strcmp(g_test, "timed")) {
        uint64_t want = (uint64_t)g_threads * (uint64_t)g_iters;
        for (int k = 0; k < LINES; k++)
            if (g_data[k].v != want)
                clof_test_fail("lost updates");
    }
    if (local) {
        /* runs of one leaf where every acquisition after the first was
         * passed the high lock (took only the leaf lock) */
        uint64_t n = g_ntrace, best = 0, run = 0, passes = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint32_t leaf = g_trace[i] >> 8, taken = g_trace[i] & 255;
            if (taken == 1 && i && (g_trace[i - 1] >> 8) == leaf) {
                run++;
                passes++;
            } else if (taken == 1) {
                clof_test_fail("passed the high lock to a different cohort");
            } else {
                run = 1;
            }
            if (run > best)
                best = run;
        }
        printf("longest hold of the high lock by one leaf cohort: %llu "
               "acquisitions (threshold 4); %llu local passes of %llu\n",
               (unsigned long long)best, (unsigned long long)passes,
               (unsigned long long)n);
        if (best > 4)
            clof_test_fail("a cohort kept the lock longer than its threshold");
        if (passes == 0)
            clof_test_fail("no local passing happened at all");
    }
    if (!strcmp(g_test, "swapped")) {
        printf("swapped release order was NOT caught\n");
        return 0;
    }
    printf("PASS %s %s %s T=%d (%u levels)\n", g_lock, g_test, argv[3], g_threads,
           g_topo.nlevels);
    return 0;
}
