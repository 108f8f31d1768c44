/* SPDX-License-Identifier: MIT */
/*
 * Behaviour tests of the LibASL layer (include/clof/asl.h, src/asl.c).
 *
 *   test_asl TEST [ARGS]
 *
 * TEST is one of
 *   aimd        the window halves on an SLO miss (unit = (100-PCT)% of the
 *               halved window) and grows by the unit otherwise, bounded by
 *               the maximum window; big cores do not adjust (explicit-state
 *               bookkeeping, then the same through clof_epoch_start/end)
 *   nest        nested epochs: the inner epoch's window is used until it
 *               ends, then the outer one's, then the default window; ends
 *               adjust only their own epoch; nesting deeper than the stored
 *               stack still unwinds; bad ids are "no epoch"
 *   types       core types from an emulated big.LITTLE topology (virtual
 *               cpus) and the per-thread override
 *   fifo LOCK   an impossible SLO (0) drives a little core's window to 0,
 *               after which its acquires never stand by (the standby clock
 *               is never read): the plain base lock, i.e. FIFO
 *   starve LOCK without epochs, a little core among big cores saturating the
 *               lock is never starved: the clock of the reorder window is
 *               the number of big critical sections (a counter, no timing),
 *               so the overtakes per little acquisition are bounded by the
 *               window in overtakes plus the queue ahead of it
 *   mutex LOCK T  mutual exclusion with T threads (more than cpus), half on
 *               little virtual cpus, with epochs of random SLOs, tryacquire
 *               and the standby path: a non-atomic invariant over 4 cache
 *               lines checked in every critical section
 * LOCK: mcs, ticket, tas, mcs_tkt (a CLoF composition over the emulated
 * machine), bmcs (the blocking variant over MCS).  starve mcs_tkt runs in
 * test_asl_nofast, this file built with CLOF_COMPOSE_NO_FAST_PATH: the fast
 * path lets arrivals in while the system level changes hands (compose.h,
 * "The fast path"), for as long as a parked successor takes to wake up, so
 * its overtakes are bounded in time, not in number.
 *
 * Exit 0 on success; on failure a message naming the property, exit 1.
 * Every test runs under a watchdog: a hang is a failure.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <stdint.h>

/* The standby competitors' clock: the number of big critical sections, in
 * units of 1000 "ns" (starve), or the real clock (everything else).  Every
 * read is counted per thread (fifo: no read means no standby). */
static uint64_t g_big_cs;          /* atomic: completed big critical sections */
static int g_virtual_clock;        /* set by starve */
static __thread uint64_t t_clock_reads;
static uint64_t test_now(void);
#define CLOF_ASL_NOW() test_now()

#include <clof/asl.h>
#include <clof/compose.h>
#include <clof/lock/mcs.h>
#include <clof/lock/tas.h>
#include <clof/lock/ticket.h>

#include "clof_test.h"

/* starve: the little core's request state, so the big threads cannot run
 * ahead while the little one is descheduled (a scheduler delay is not an
 * overtake the lock allowed): 0 idle, 1 requesting / standing by, 2 its
 * window has expired (enqueuing) */
static int g_phase;
static uint64_t g_heartbeat;   /* big_cs at the little's last clock read */
static uint64_t g_phase_cs;    /* big_cs when the phase last changed */
static uint64_t g_request_cs;  /* big_cs when the current request began */
#define STARVE_WINDOW_CS 50 /* the little core's window, in big critical sections */
#define STARVE_BIGS 3
#define STARVE_K 4 /* big critical sections allowed between two clock reads */

static __thread uint64_t t_standby_cs;
static uint64_t test_now(void)
{
    t_clock_reads++;
    if (!g_virtual_clock)
        return clof_be_now_ns();
    uint64_t cs = __atomic_load_n(&g_big_cs, __ATOMIC_RELAXED);
    __atomic_store_n(&g_heartbeat, cs, __ATOMIC_RELAXED);
    if (t_clock_reads == 1)
        t_standby_cs = cs; /* the standby starts: its window ends at +W */
    else if (cs >= t_standby_cs + STARVE_WINDOW_CS) {
        __atomic_store_n(&g_phase_cs, cs, __ATOMIC_RELAXED);
        __atomic_store_n(&g_phase, 2, __ATOMIC_RELAXED);
    }
    return cs * 1000u;
}

CLOF_COMPOSE(mcs_tkt, mcs, ticket)
CLOF_ASL_LOCK(a_mcs, mcs)
CLOF_ASL_LOCK(a_ticket, ticket)
CLOF_ASL_LOCK(a_tas, tas)
CLOF_ASL_LOCK(a_mcs_tkt, mcs_tkt)
CLOF_ASL_BLOCKING_LOCK(a_bmcs, mcs)

#define SHAPE "cache:2,core:4;little=4-7" /* big 0-3, little 4-7 */
#define LINES 4
#define MAXT 32

static const char *g_test, *g_lock = "";

#define CHECK CLOF_TEST_CHECK

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
    nanosleep(&ts, NULL);
}

/* ---- one lock, chosen by name ------------------------------------------- */

typedef enum { L_MCS, L_TICKET, L_TAS, L_MCS_TKT, L_BMCS } lock_kind_t;
static lock_kind_t g_kind;
static clof_a_mcs_t g_mcs;
static clof_a_ticket_t g_tkt;
static clof_a_tas_t g_tas;
static clof_a_mcs_tkt_t g_cmp;
static clof_a_bmcs_t g_bmcs;

typedef union {
    clof_a_mcs_ctx_t mcs;
    clof_a_ticket_ctx_t tkt;
    clof_a_tas_ctx_t tas;
    clof_a_mcs_tkt_ctx_t cmp;
    clof_a_bmcs_ctx_t bmcs;
} ctx_t;

static void pick_lock(const char *name)
{
    g_lock = name;
    clof_test_name("%s %s", g_test, g_lock);
    if (!strcmp(name, "mcs"))
        g_kind = L_MCS;
    else if (!strcmp(name, "ticket"))
        g_kind = L_TICKET;
    else if (!strcmp(name, "tas"))
        g_kind = L_TAS;
    else if (!strcmp(name, "mcs_tkt"))
        g_kind = L_MCS_TKT;
    else if (!strcmp(name, "bmcs"))
        g_kind = L_BMCS;
    else {
        fprintf(stderr, "test_asl: unknown lock '%s': expected mcs, ticket, "
                        "tas, mcs_tkt or bmcs\n", name);
        exit(2);
    }
    clof_a_mcs_init(&g_mcs);
    clof_a_ticket_init(&g_tkt);
    clof_a_tas_init(&g_tas);
    clof_a_mcs_tkt_init(&g_cmp);
    clof_a_bmcs_init(&g_bmcs);
}

/* how: 0 acquire (Alg. 3), 1 immediately, 2 reorder(window) */
static void lock_it(ctx_t *c, int how, uint64_t window)
{
    switch (g_kind) {
#define CASE_(K, L, f, m)                                                      \
    case K:                                                                    \
        if (how == 0)                                                          \
            clof_##L##_acquire(&f, &c->m);                                     \
        else if (how == 1)                                                     \
            clof_##L##_acquire_immediately(&f, &c->m);                         \
        else                                                                   \
            clof_##L##_acquire_reorder(&f, &c->m, window);                     \
        break;
        CASE_(L_MCS, a_mcs, g_mcs, mcs)
        CASE_(L_TICKET, a_ticket, g_tkt, tkt)
        CASE_(L_TAS, a_tas, g_tas, tas)
        CASE_(L_MCS_TKT, a_mcs_tkt, g_cmp, cmp)
        CASE_(L_BMCS, a_bmcs, g_bmcs, bmcs)
#undef CASE_
    }
}

static bool try_it(ctx_t *c)
{
    switch (g_kind) {
    case L_MCS: return clof_a_mcs_tryacquire(&g_mcs, &c->mcs);
    case L_TICKET: return clof_a_ticket_tryacquire(&g_tkt, &c->tkt);
    case L_TAS: return clof_a_tas_tryacquire(&g_tas, &c->tas);
    case L_MCS_TKT: return clof_a_mcs_tkt_tryacquire(&g_cmp, &c->cmp);
    case L_BMCS: return clof_a_bmcs_tryacquire(&g_bmcs, &c->bmcs);
    }
    return false;
}

static void unlock_it(ctx_t *c)
{
    switch (g_kind) {
    case L_MCS: clof_a_mcs_release(&g_mcs, &c->mcs); break;
    case L_TICKET: clof_a_ticket_release(&g_tkt, &c->tkt); break;
    case L_TAS: clof_a_tas_release(&g_tas, &c->tas); break;
    case L_MCS_TKT: clof_a_mcs_tkt_release(&g_cmp, &c->cmp); break;
    case L_BMCS: clof_a_bmcs_release(&g_bmcs, &c->bmcs); break;
    }
}

static void install_shape(void)
{
    clof_topo_opts_t o = {NULL, SHAPE, NULL, CLOF_TOPO_NO_ENV};
    clof_topo_error_t err;
    if (clof_topology_install(&o, &err) != 0)
        clof_test_fail(err.msg);
}

/* ---- aimd ---------------------------------------------------------------- */

static void test_aimd(void)
{
    clof_asl_config_t cfg = {990, 100000000u, 100000000u, 1000000u};
    clof_asl_thread_t st = CLOF_ASL_THREAD_INIT;
    uint64_t t = 1000;
    clof_asl_epoch_start_at(&st, 5, t, &cfg);
    CHECK(st.ep[5].window == 1000000, "first window %llu, expected the initial 1 ms",
          (unsigned long long)st.ep[5].window);
    CHECK(clof_asl_window_of(&st, true, &cfg) == 1000000, "little in epoch 5 uses its window");
    CHECK(clof_asl_window_of(&st, false, &cfg) == 0, "a big core never stands by");
    /* a miss halves: 1 ms -> 500 us, unit = 1% of it = 5 us */
    CHECK(clof_asl_epoch_end_at(&st, 5, 100, t + 101, true, &cfg) == 1, "101 ns > SLO 100 is a miss");
    CHECK(st.ep[5].window == 500000 && st.ep[5].unit == 5000,
          "after a miss window %llu unit %llu, expected 500000 and 5000",
          (unsigned long long)st.ep[5].window, (unsigned long long)st.ep[5].unit);
    CHECK(st.cur == CLOF_ASL_NO_EPOCH, "no epoch after the end");
    /* met SLOs grow by the unit, linearly */
    for (int i = 1; i <= 10; i++) {
        clof_asl_epoch_start_at(&st, 5, t, &cfg);
        CHECK(clof_asl_epoch_end_at(&st, 5, 100, t + 100, true, &cfg) == 0, "100 ns <= SLO 100 is met");
        CHECK(st.ep[5].window == 500000 + (uint64_t)i * 5000, "growth %d: window %llu", i,
              (unsigned long long)st.ep[5].window);
    }
    /* big cores do not adjust */
    clof_asl_epoch_start_at(&st, 5, t, &cfg);
    CHECK(clof_asl_epoch_end_at(&st, 5, 100, t + 1000000, false, &cfg) == -1 &&
              st.ep[5].window == 550000, "a big core's epoch end changed the window");
    /* consecutive misses: window -> 0 and stays there (FIFO) */
    for (int i = 0; i < 40; i++) {
        clof_asl_epoch_start_at(&st, 5, t, &cfg);
        clof_asl_epoch_end_at(&st, 5, 0, t + 1, true, &cfg);
    }
    CHECK(st.ep[5].window == 0, "40 misses leave window %llu, expected 0",
          (unsigned long long)st.ep[5].window);
    /* ... and grows again (minimum unit) once epochs meet the SLO */
    clof_asl_epoch_start_at(&st, 5, t, &cfg);
    clof_asl_epoch_end_at(&st, 5, 100, t + 1, true, &cfg);
    CHECK(st.ep[5].window == CLOF_ASL_MIN_UNIT_NS, "window after recovery %llu",
          (unsigned long long)st.ep[5].window);
    /* the upper bound */
    clof_asl_config_t small = cfg;
    small.max_window_ns = 600000;
    clof_asl_thread_t s2 = CLOF_ASL_THREAD_INIT;
    for (int i = 0; i < 100; i++) {
        clof_asl_epoch_start_at(&s2, 1, t, &small);
        clof_asl_epoch_end_at(&s2, 1, 1000, t, true, &small);
    }
    CHECK(s2.ep[1].window == 600000, "window %llu above the maximum 600000",
          (unsigned long long)s2.ep[1].window);
    /* PCT 90: unit = 10% of the halved window */
    clof_asl_config_t p90 = cfg;
    p90.pct_permille = 900;
    clof_asl_thread_t s3 = CLOF_ASL_THREAD_INIT;
    clof_asl_epoch_start_at(&s3, 2, t, &p90);
    clof_asl_epoch_end_at(&s3, 2, 0, t + 5, true, &p90);
    CHECK(s3.ep[2].unit == 50000, "PCT 90 unit %llu, expected 50000",
          (unsigned long long)s3.ep[2].unit);

    /* the same through the library calls, on a little core, real clock */
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    clof_epoch_start(7);
    uint64_t w0 = clof_asl_epoch_window(7);
    CHECK(w0 == clof_asl_config()->init_window_ns, "libclof: first window %llu",
          (unsigned long long)w0);
    sleep_us(10);
    clof_epoch_end(7, 0); /* 10 us > 0: miss */
    CHECK(clof_asl_epoch_window(7) == w0 / 2, "libclof: a miss left %llu, expected %llu",
          (unsigned long long)clof_asl_epoch_window(7), (unsigned long long)(w0 / 2));
    clof_epoch_start(7);
    clof_epoch_end(7, UINT64_MAX); /* met */
    uint64_t unit = w0 / 2 * (1000 - clof_asl_config()->pct_permille) / 1000;
    CHECK(clof_asl_epoch_window(7) == w0 / 2 + unit, "libclof: met SLO: %llu, expected %llu",
          (unsigned long long)clof_asl_epoch_window(7), (unsigned long long)(w0 / 2 + unit));
    clof_asl_set_thread_core_type(CLOF_CORE_BIG);
    clof_epoch_start(7);
    sleep_us(10);
    clof_epoch_end(7, 0);
    CHECK(clof_asl_epoch_window(7) == w0 / 2 + unit, "libclof: a big core adjusted");
    /* configuration errors change nothing */
    clof_asl_config_t bad = {5, 0, 0, 0};
    CHECK(clof_asl_configure(&bad) == -1 && clof_asl_config()->pct_permille == 990,
          "a bad percentile was accepted");
    uint64_t ns;
    CHECK(clof_asl_parse_ns("250us", &ns) == 0 && ns == 250000, "250us");
    CHECK(clof_asl_parse_ns("2s", &ns) == 0 && ns == 2000000000u, "2s");
    CHECK(clof_asl_parse_ns("10 ms", &ns) == -1 && clof_asl_parse_ns("x", &ns) == -1,
          "bad durations accepted");
}

/* ---- nest ------------------------------------------------------------------ */

static void test_nest(void)
{
    clof_asl_config_t cfg = {990, 100000000u, 7777u, 1000000u};
    clof_asl_thread_t st = CLOF_ASL_THREAD_INIT;
    clof_asl_epoch_start_at(&st, 1, 0, &cfg);
    st.ep[1].window = 111;
    clof_asl_epoch_start_at(&st, 2, 0, &cfg);
    st.ep[2].window = 222;
    CHECK(clof_asl_window_of(&st, true, &cfg) == 222, "inner epoch's window not used");
    clof_asl_epoch_end_at(&st, 2, 1000, 10, true, &cfg); /* met: grows */
    CHECK(st.ep[1].window == 111, "the inner end adjusted the outer epoch");
    CHECK(st.ep[2].window > 222, "the inner end did not adjust the inner epoch");
    CHECK(clof_asl_window_of(&st, true, &cfg) == 111, "outer window not restored");
    clof_asl_epoch_end_at(&st, 1, 0, 10, true, &cfg); /* miss */
    CHECK(st.ep[1].window == 55, "outer miss: %llu", (unsigned long long)st.ep[1].window);
    CHECK(clof_asl_window_of(&st, true, &cfg) == 7777, "outside epochs: the default window");
    /* deeper than the stored stack */
    for (int i = 0; i < CLOF_ASL_MAX_NEST + 5; i++)
        clof_asl_epoch_start_at(&st, i % 4, 0, &cfg);
    for (int i = CLOF_ASL_MAX_NEST + 4; i >= 0; i--) {
        CHECK(st.cur == i % 4 || i >= CLOF_ASL_MAX_NEST, "depth %d: current epoch %d", i, st.cur);
        clof_asl_epoch_end_at(&st, i % 4, 1000, 0, true, &cfg);
    }
    CHECK(st.cur == CLOF_ASL_NO_EPOCH && st.depth == 0, "deep nesting did not unwind");
    /* a bad id: "no epoch" inside, the outer epoch comes back */
    clof_asl_epoch_start_at(&st, 3, 0, &cfg);
    clof_asl_epoch_start_at(&st, 999, 0, &cfg);
    CHECK(clof_asl_window_of(&st, true, &cfg) == 7777, "bad id: not the default window");
    CHECK(clof_asl_epoch_end_at(&st, 999, 0, 5, true, &cfg) == -1, "bad id adjusted");
    CHECK(st.cur == 3, "bad id lost the outer epoch");
    clof_asl_epoch_end_at(&st, 3, 1000, 0, true, &cfg);
    /* the library calls nest the same way */
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    clof_epoch_start(10);
    uint64_t w10 = clof_asl_current_window();
    clof_epoch_start(11);
    clof_epoch_end(11, 0); /* miss: 11 halves, 10 untouched */
    clof_epoch_start(11);
    CHECK(clof_asl_current_window() == clof_asl_epoch_window(11) &&
              clof_asl_epoch_window(11) == w10 / 2, "libclof: inner window not current");
    clof_epoch_end(11, UINT64_MAX);
    CHECK(clof_asl_current_window() == w10 && clof_asl_epoch_window(10) == w10,
          "libclof: outer window not restored");
    clof_epoch_end(10, UINT64_MAX);
    CHECK(clof_asl_current_window() == clof_asl_config()->free_window_ns,
          "libclof: outside epochs not the default window");
}

/* ---- types ----------------------------------------------------------------- */

static void test_types(void)
{
    install_shape();
    for (int v = 0; v < 8; v++) {
        clof_topo_set_vcpu(v);
        CHECK(clof_asl_on_little() == (v >= 4), "vcpu %d: little=%d", v, clof_asl_on_little());
    }
    clof_topo_set_vcpu(0);
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    CHECK(clof_asl_on_little(), "override to little ignored");
    clof_asl_set_thread_core_type(-1);
    CHECK(!clof_asl_on_little(), "override not cleared");
    /* the machine itself: all big unless sysfs says otherwise */
    clof_topo_set_vcpu(-1);
}

/* ---- threads ------------------------------------------------------------- */

static clof_test_line_t g_data[LINES];
static volatile int g_stop;
static int g_threads, g_iters;
static uint64_t g_ops[MAXT];
static uint64_t g_max_overtakes, g_little_acqs, g_standby_reads;

static void cs_check(void)
{
    (void)clof_test_critical(g_data, LINES, 0);
}

static pthread_barrier_t g_start;
static uint64_t g_standbys; /* acquisitions that read the standby clock */

static void *mutex_thread(void *arg)
{
    int id = (int)(intptr_t)arg;
    clof_topo_set_vcpu(id % 8); /* 0-3 big, 4-7 little */
    pthread_barrier_wait(&g_start);
    ctx_t c;
    memset(&c, 0, sizeof c);
    unsigned seed = (unsigned)id * 2654435761u;
    for (int i = 0; i < g_iters; i++) {
        int r = rand_r(&seed);
        bool epoch = r & 1;
        if (epoch)
            clof_epoch_start(r >> 1 & 3);
        if ((r >> 3 & 15) == 0) {
            while (!try_it(&c))
                clof_be_yield();
        } else {
            lock_it(&c, (r >> 7 & 7) == 0 ? 2 : 0, (uint64_t)(r >> 10 & 1023) * 100);
        }
        cs_check();
        clof_wait_delay(20); /* a critical section long enough to queue behind */
        g_ops[id]++;
        unlock_it(&c);
        clof_wait_delay(r >> 20 & 31);
        if (epoch)
            clof_epoch_end(r >> 1 & 3, (uint64_t)(r >> 12 & 255) * 1000);
    }
    __atomic_fetch_add(&g_standbys, t_clock_reads, __ATOMIC_RELAXED);
    return NULL;
}

static void run_threads(int n, void *(*fn)(void *))
{
    pthread_t th[MAXT];
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, (void *)(intptr_t)i) != 0)
            clof_test_fail("pthread_create");
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

static void test_mutex(int n)
{
    install_shape();
    clof_asl_config_t cfg = {0, 2000000u, 0, 200000u}; /* 2 ms max: keep it short */
    if (clof_asl_configure(&cfg) != 0)
        clof_test_fail("configure");
    g_threads = n;
    pthread_barrier_init(&g_start, NULL, (unsigned)n);
    run_threads(n, mutex_thread);
    printf("mutex %s: %d threads x %d, %llu standby clock reads\n", g_lock, n,
           g_iters, (unsigned long long)g_standbys);
    /* the test must have exercised the standby path, or it proves little */
    CHECK(g_standbys > 0, "no little core ever stood by: the reorder path was not exercised");
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        CHECK(g_ops[i] == (uint64_t)g_iters, "thread %d did %llu of %d", i,
              (unsigned long long)g_ops[i], g_iters);
        total += g_ops[i];
    }
    CHECK(g_data[0].v == total, "lost updates: %llu of %llu",
          (unsigned long long)g_data[0].v, (unsigned long long)total);
}

/* starve: 3 big threads hammer the lock until the little one has done its
 * acquisitions; the clock is their critical-section count.  A big thread
 * that is about to complete a critical section waits (holding the lock)
 * while the little one stands by and has not read the clock for STARVE_K
 * big critical sections, or, once its window expired, until it had the
 * time to enqueue: until the little thread has run STARVE_ENQUEUE_CPU_NS of
 * cpu time since (its own thread clock, which a descheduled thread does not
 * advance) or sleeps in the kernel (parked: it enqueued before it parked).
 * The count then measures the overtakes the lock allows, not the
 * scheduler's delays, however loaded the machine is. */
static uint64_t g_bound;
#define STARVE_ENQUEUE_CPU_NS 2000000u /* thousands of times an enqueue */
static clockid_t g_little_clock;
static pid_t g_little_tid;
static uint64_t little_cpu_ns(void)
{
    struct timespec ts;
    (void)__atomic_load_n(&g_little_tid, __ATOMIC_ACQUIRE); /* g_little_clock */
    if (clock_gettime(g_little_clock, &ts) != 0)
        clof_test_fail("clock_gettime of the little thread's cpu clock");
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* the little thread's state letter in /proc (R running or runnable, S or
 * D asleep in the kernel), '?' if unknown */
static char little_state(void)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat",
             (int)__atomic_load_n(&g_little_tid, __ATOMIC_ACQUIRE));
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the state follows the (comm) */
    return p && p[1] == ' ' ? p[2] : '?';
}
static int little_sleeps(void)
{
    char s = little_state();
    return s == 'S' || s == 'D';
}

/* Critical sections of the bigs during which the little thread, having
 * requested, was runnable but got no cpu time (its thread clock did not
 * move since the previous big critical section): the scheduler delayed it,
 * the lock did not (a composition's fast path, for one, lets arrivals in
 * while a successor that was handed a lower level waits for a cpu to take
 * the system level).  Not counted as overtakes.  Written by the lock's
 * holder only. */
static uint64_t g_sched_delay_cs;
static uint64_t g_little_cpu_seen;
static void count_sched_delay(void)
{
    uint64_t now = little_cpu_ns();
    if (now == g_little_cpu_seen && little_state() == 'R')
        __atomic_store_n(&g_sched_delay_cs, g_sched_delay_cs + 1, __ATOMIC_RELAXED);
    g_little_cpu_seen = now;
}
static void big_throttle(void)
{
    uint64_t cs = __atomic_load_n(&g_big_cs, __ATOMIC_RELAXED); /* we hold the lock */
    uint64_t req = __atomic_load_n(&g_request_cs, __ATOMIC_SEQ_CST);
    int ph = __atomic_load_n(&g_phase, __ATOMIC_SEQ_CST);
    if (ph != 0 && req != 0)
        count_sched_delay();
    uint64_t delayed = __atomic_load_n(&g_sched_delay_cs, __ATOMIC_RELAXED);
    if (ph != 0 && req != 0 && cs - req - delayed > g_bound) {
        char m[96];
        snprintf(m, sizeof m, "little core starved: %llu overtakes, bound %llu",
                 (unsigned long long)(cs - req - delayed), (unsigned long long)g_bound);
        clof_test_fail(m);
    }
    uint64_t t0 = 0;
    for (;;) {
        ph = __atomic_load_n(&g_phase, __ATOMIC_RELAXED);
        if (ph == 1 && cs - __atomic_load_n(&g_heartbeat, __ATOMIC_RELAXED) > STARVE_K) {
            clof_be_yield();
            continue;
        }
        if (ph == 2 && cs - __atomic_load_n(&g_phase_cs, __ATOMIC_RELAXED) > STARVE_BIGS + 2) {
            if (t0 == 0)
                t0 = little_cpu_ns();
            if (little_cpu_ns() - t0 < STARVE_ENQUEUE_CPU_NS && !little_sleeps()) {
                clof_be_yield();
                continue;
            }
        }
        return;
    }
}
static void *big_thread(void *arg)
{
    (void)arg;
    clof_asl_set_thread_core_type(CLOF_CORE_BIG);
    ctx_t c;
    memset(&c, 0, sizeof c);
    while (!__atomic_load_n(&g_stop, __ATOMIC_RELAXED)) {
        lock_it(&c, 0, 0);
        cs_check();
        if (g_virtual_clock)
            big_throttle();
        __atomic_fetch_add(&g_big_cs, 1, __ATOMIC_RELAXED);
        unlock_it(&c);
    }
    return NULL;
}

static void *little_thread(void *arg)
{
    (void)arg;
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    ctx_t c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < g_iters; i++) {
        if (i == 0) {
            if (pthread_getcpuclockid(pthread_self(), &g_little_clock) != 0)
                clof_test_fail("pthread_getcpuclockid");
            /* published before phase 1: the bigs read it in phase 2 only */
            __atomic_store_n(&g_little_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
        }
        /* phase 1 first: from then on the bigs wait for a fresh heartbeat,
         * so a little thread descheduled before it reads `before` does not
         * count the bigs' free run as overtakes (the request starts at
         * `before`; request_cs 0 means not yet) */
        t_clock_reads = 0;
        /* no big counts delays now: request_cs is 0 */
        __atomic_store_n(&g_sched_delay_cs, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&g_phase, 1, __ATOMIC_SEQ_CST);
        uint64_t before = __atomic_load_n(&g_big_cs, __ATOMIC_SEQ_CST);
        __atomic_store_n(&g_heartbeat, before, __ATOMIC_SEQ_CST);
        __atomic_store_n(&g_request_cs, before, __ATOMIC_SEQ_CST);
        lock_it(&c, 0, 0); /* no epoch: the default window */
        uint64_t over = __atomic_load_n(&g_big_cs, __ATOMIC_RELAXED) - before -
                        __atomic_load_n(&g_sched_delay_cs, __ATOMIC_RELAXED);
        __atomic_store_n(&g_request_cs, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&g_phase, 0, __ATOMIC_SEQ_CST);
        cs_check();
        unlock_it(&c);
        if (over > g_max_overtakes)
            g_max_overtakes = over;
        g_little_acqs++;
        sleep_us(20); /* let the bigs refill the queue */
    }
    __atomic_store_n(&g_stop, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void *starve_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    return id < STARVE_BIGS ? big_thread(arg) : little_thread(arg);
}

static void test_starve(void)
{
    g_virtual_clock = 1;
    /* before the standby's first clock read: STARVE_K + 1; the window; the
     * reads' spacing: STARVE_K + 1; after it expired: the bigs queued ahead
     * and the one holding, + 2 */
    g_bound = STARVE_WINDOW_CS + 2 * (STARVE_K + 1) + STARVE_BIGS + 2;
    clof_asl_config_t cfg = {0, STARVE_WINDOW_CS * 1000u, STARVE_WINDOW_CS * 1000u, 0};
    if (getenv("TEST_ASL_UNBOUNDED")) /* demonstrate that the test can fail */
        cfg.max_window_ns = cfg.free_window_ns = (uint64_t)1 << 62;
    if (clof_asl_configure(&cfg) != 0)
        clof_test_fail("configure");
    run_threads(STARVE_BIGS + 1, starve_main);
    uint64_t bound = g_bound;
    printf("starve %s: %llu little acquisitions, max %llu big critical sections "
           "overtook one (bound %llu), %llu big critical sections in all\n",
           g_lock, (unsigned long long)g_little_acqs,
           (unsigned long long)g_max_overtakes, (unsigned long long)bound,
           (unsigned long long)g_big_cs);
    CHECK(g_little_acqs == (uint64_t)g_iters, "little core starved");
    CHECK(g_max_overtakes <= bound, "%llu overtakes of one little acquisition, bound %llu",
          (unsigned long long)g_max_overtakes, (unsigned long long)bound);
}

/* fifo: the little core runs epochs with SLO 0 (impossible) */
static void *fifo_little(void *arg)
{
    (void)arg;
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    ctx_t c;
    memset(&c, 0, sizeof c);
    int converge = 0;
    for (int i = 0; i < g_iters; i++) {
        clof_epoch_start(0);
        if (i == converge) /* from now on the window must be 0 */
            t_clock_reads = 0;
        lock_it(&c, 0, 0);
        cs_check();
        unlock_it(&c);
        sleep_us(2); /* the epoch takes > 0 ns */
        clof_epoch_end(0, 0);
        if (converge == 0 && clof_asl_epoch_window(0) == 0)
            converge = i + 1;
        g_little_acqs++;
    }
    g_standby_reads = t_clock_reads;
    CHECK(converge > 0 && converge <= 40, "window reached 0 after %d misses", converge);
    __atomic_store_n(&g_stop, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void *fifo_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    return id < STARVE_BIGS ? big_thread(arg) : fifo_little(arg);
}

static void test_fifo(void)
{
    run_threads(STARVE_BIGS + 1, fifo_main);
    printf("fifo %s: %llu little acquisitions, standby clock reads after the "
           "window reached 0: %llu\n", g_lock, (unsigned long long)g_little_acqs,
           (unsigned long long)g_standby_reads);
    CHECK(g_standby_reads == 0, "a little core with window 0 stood by (%llu clock reads)",
          (unsigned long long)g_standby_reads);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_asl aimd|nest|types|fifo LOCK|starve LOCK|mutex LOCK T\n");
        return 2;
    }
    g_test = argv[1];
    clof_test_name("%s", g_test);
    clof_test_watchdog(100, 1, "FAIL: watchdog expired (hang or starvation)\n");
    if (!strcmp(g_test, "aimd"))
        test_aimd();
    else if (!strcmp(g_test, "nest"))
        test_nest();
    else if (!strcmp(g_test, "types"))
        test_types();
    else if (argc >= 3 && !strcmp(g_test, "fifo")) {
        pick_lock(argv[2]);
        g_iters = 300;
        test_fifo();
    } else if (argc >= 3 && !strcmp(g_test, "starve")) {
        pick_lock(argv[2]);
        g_iters = g_kind == L_BMCS ? 60 : 300; /* the blocking standby sleeps */
        test_starve();
    } else if (argc >= 4 && !strcmp(g_test, "mutex")) {
        pick_lock(argv[2]);
        int n = atoi(argv[3]);
        CHECK(n >= 1 && n <= MAXT, "threads 1..%d", MAXT);
        g_iters = argc >= 5 ? atoi(argv[4]) : 60000;
        test_mutex(n);
    } else {
        fprintf(stderr, "test_asl: unknown test '%s'\n", g_test);
        return 2;
    }
    printf("ok %s %s\n", g_test, g_lock);
    return 0;
}
