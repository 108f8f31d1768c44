/* SPDX-License-Identifier: MIT */
/*
 * Behaviour tests of the concurrency-restriction layer (include/clof/cr.h).
 *
 *   test_cr TEST LOCK T [ACTIVE]
 *
 * TEST is one of
 *   mutex   mutual exclusion with T threads (more than cpus), the active
 *           set limited to ACTIVE (default 1), tryacquire mixed in: a
 *           non-atomic invariant over 4 cache lines checked in every
 *           critical section, and the total count at the end; the passive
 *           set must have been used (else the test proves nothing)
 *   bound   the admission bound of cr.h, with the threads on 2 emulated
 *           nodes: a thread that joins the passive set with k threads
 *           ahead is admitted after at most (k + 1) x (CLOF_CNA_COUNT + 1)
 *           admissions -- checked as its ingredients at every admission
 *           (no timing): at most CLOF_CNA_COUNT admissions in a row pass
 *           over a waiting passive thread of another node (the head's CNA
 *           state: it holds the secondary queue), and each head consumes
 *           at most one grant (the lock's own `taken` tokens); the node
 *           preference must have acted (some admission passed over a
 *           thread of the other node); every thread completes its
 *           acquisitions (a starving one trips the watchdog)
 *   flat    the same on a one-level machine: no admission may pass over
 *           anyone (the passive set is FIFO, as without NUMA awareness)
 *   idle    no lost wake-up: T threads take the lock once each while it is
 *           held, so all but ACTIVE go passive; far fewer releases than
 *           CLOF_CR_ADMIT_EVERY happen, so only the idle grant (the active
 *           set empties with passive threads waiting) can admit them: a
 *           lost one hangs (watchdog)
 *   late    `idle` on a state that a late release of a destroyed lock
 *           decremented first (the preload library reuses state blocks;
 *           cr.h clof_cr_released_): `active` starts one below zero, one
 *           thread more is admitted, and the idle grant must still come
 *   open    lazy restriction, no wait signals crowding: the lock stays
 *           open, nobody is ever passive or counted, and mutual exclusion
 *           holds
 *   lazy    lazy restriction, every contended wait signals crowding: the
 *           lock must start limiting and the passive set be used (ACTIVE
 *           as for mutex), mutual exclusion as for mutex
 *   calm    lazy restriction, the lock limiting at the start, no wait
 *           signals crowding and the active set large enough for all: the
 *           lock must open after CLOF_CR_CALM (here 8) calm counted
 *           releases, and stay open
 *   grow    the quiet growth of the active set (a busy lock whose threads
 *           no longer outnumber the cpus gives no idle grant to grow by):
 *           first the rule, driven by hand on the lock's state -- with the
 *           set shrunk to 1 and ACTIVE cpus, it grows by one per
 *           CLOF_CR_GROW (here 16) counted releases, a shrink signal starts
 *           the count over, and once the set is back at ACTIVE with nobody
 *           passive the lock opens after CLOF_CR_CALM; then `calm` with the
 *           set shrunk to 1 at the start and ACTIVE = T: the lock must
 *           open (how often the quiet growth and the idle grants acted
 *           is printed, not checked); `lazy` checks the
 *           other side: with a signal at every contended wait the set
 *           never grows by quiet releases
 *   barge   barging while open (cr.h clof_cr_barge_), two threads, the
 *           lock open and never crowded: a thread W acquires while H holds
 *           the lock.  With polls enough to outlast H, W must not queue in
 *           the inner lock (H sees no waiter for 50 ms), and must take the
 *           lock uncounted once H releases; with one poll, W must queue
 *           (H sees it waiting) and be handed the lock.  Mutual exclusion
 *           is checked by a flag in both critical sections.
 *   (mutex, bound, flat and idle run the restriction from the start:
 *   CLOF_CR_LAZY 0, the protocol itself)
 * LOCK: mcs, ticket, tas, clh, mcs_tkt (a 2-level CLoF composition).
 * Every test but `flat` runs on the emulated machine SHAPE (2 cache groups
 * of 2 cpus: the passive queue's nodes), thread i on virtual cpu i mod 4.
 *
 * Exit 0 on success; on failure a message naming the property, exit 1.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdint.h>

/* barging's polls, set by the `barge` test (cr.h clof_cr_barge_) */
static uint32_t g_barge_polls = 32;
#define CLOF_CR_BARGE_POLLS g_barge_polls
/* the active-set size, set by the test (the layer asks CLOF_CR_CPUS()) */
static uint32_t g_active = 1;
#define CLOF_CR_CPUS() g_active

/* the hooks: the bound test's bookkeeping */
static uint64_t g_passive_entries, g_admits, g_granted_admits, g_grants,
    g_idle_grants;
static __thread uint32_t t_release_at_entry;
static uint32_t g_threads;
struct clof_cr;
static void on_passive(struct clof_cr *s);
static void on_admit(struct clof_cr *s, int granted);
#define CLOF_CR_ON_PASSIVE(s) on_passive(s)
#define CLOF_CR_ON_ADMIT(s, granted) on_admit(s, granted)
#define CLOF_CR_ON_GRANT(s, idle)                                              \
    (__atomic_add_fetch(&g_grants, 1, __ATOMIC_RELAXED),                       \
     (idle) ? (void)__atomic_add_fetch(&g_idle_grants, 1, __ATOMIC_RELAXED)    \
            : (void)0)
/* CLOF_CR_ON_HEAD: NUMA-aware admission passed over a thread of another node */
static void on_head(struct clof_cr *s, int bypassed);
#define CLOF_CR_ON_HEAD(s, bypassed) on_head(s, bypassed)
#define CLOF_CR_ADMIT_EVERY 64u
/* lazy restriction: chosen per test; the crowding signal: 0 the waiting
 * policy's, 1 never, 2 always; the calm releases before opening */
static uint32_t g_lazy, g_crowd;
static uint64_t g_limits, g_opens, g_grows;
#define CLOF_CR_LAZY g_lazy
#define CLOF_CR_CALM 8u
#define CLOF_CR_GROW 16u
#define CLOF_CR_ON_GROW(s) ((void)(s), (void)__atomic_add_fetch(&g_grows, 1, __ATOMIC_RELAXED))
#define CLOF_CR_CROWDED(s, g)                                                  \
    ((void)(s), g_crowd == 0 ? clof_cr_signalled_(g) : g_crowd == 2)
#define CLOF_CR_ON_LIMIT(s, on)                                                \
    ((void)(s), (void)__atomic_add_fetch((on) ? &g_limits : &g_opens, 1,       \
                                         __ATOMIC_RELAXED))
/* the passive queue's CNA: a short local streak, so that the bound's count
 * acts (the time threshold, which only flushes sooner, out of the way) */
#define CLOF_CR_NUMA 1 /* the NUMA-aware passive queue (CNA; the default, named) */
#define CLOF_CNA_COUNT 4u
#define CLOF_CNA_TIME_NS 60000000000u

#include <clof/compose.h>
#include <clof/cr.h>
#include <clof/lock/clh.h>
#include <clof/lock/mcs.h>
#include <clof/lock/tas.h>
#include <clof/lock/ticket.h>

#include "clof_test.h"

static void on_passive(struct clof_cr *s)
{
    __atomic_add_fetch(&g_passive_entries, 1, __ATOMIC_RELAXED);
    t_release_at_entry = clof_atomic32_read_rlx(&s->releases);
}
/* Called by the passive head, holding the passive queue (a CNA lock): the
 * admissions are serialized, so plain globals suffice.  The bound's
 * ingredients: at most CLOF_CNA_COUNT admissions in a row pass over a
 * thread of another node (on_head), and a head consumes at most one grant
 * -- so a thread with k threads ahead is admitted after at most (k + 1) x
 * (CLOF_CNA_COUNT + 1) admissions, each consuming at most one grant. */
static uint32_t g_last_taken, g_multi_grant;
static uint32_t g_bypass_run, g_bypass_run_max, g_bypassed;
static bool g_have_last;
static void on_head(struct clof_cr *s, int bypassed)
{
    (void)s;
    if (bypassed) {
        g_bypassed++;
        if (++g_bypass_run > g_bypass_run_max)
            g_bypass_run_max = g_bypass_run;
    } else {
        g_bypass_run = 0;
    }
}
static uint32_t g_worst_wait; /* releases while passive (printed, not checked) */
static void on_admit(struct clof_cr *s, int granted)
{
    __atomic_add_fetch(&g_admits, 1, __ATOMIC_RELAXED);
    if (granted)
        __atomic_add_fetch(&g_granted_admits, 1, __ATOMIC_RELAXED);
    uint32_t taken = clof_atomic32_read_rlx(&s->taken);
    if (g_have_last && taken - g_last_taken > 1)
        g_multi_grant++;
    g_have_last = true;
    g_last_taken = taken;
    uint32_t w = clof_atomic32_read_rlx(&s->releases) - t_release_at_entry;
    if (w > g_worst_wait)
        g_worst_wait = w;
}

CLOF_COMPOSE(mcs_tkt, mcs, ticket)
CLOF_CR_LOCK(cr_mcs, mcs)
CLOF_CR_LOCK(cr_ticket, ticket)
CLOF_CR_LOCK(cr_tas, tas)
CLOF_CR_LOCK(cr_clh, clh)
CLOF_CR_LOCK(cr_mcs_tkt, mcs_tkt)

#define SHAPE "cache:2,core:2" /* 4 virtual cpus, 2 caches */
#define LINES 4
#define MAXT 64
#define CHECK CLOF_TEST_CHECK

typedef enum { L_MCS, L_TICKET, L_TAS, L_CLH, L_MCS_TKT } lock_kind_t;
static lock_kind_t g_kind;
static const char *g_lock = "";
static clof_cr_mcs_t g_mcs;
static clof_cr_ticket_t g_tkt;
static clof_cr_tas_t g_tas;
static clof_cr_clh_t g_clh;
static clof_cr_mcs_tkt_t g_cmp;
typedef union {
    clof_cr_mcs_ctx_t mcs;
    clof_cr_ticket_ctx_t tkt;
    clof_cr_tas_ctx_t tas;
    clof_cr_clh_ctx_t clh;
    clof_cr_mcs_tkt_ctx_t cmp;
} ctx_t;

static clof_cr_t *g_cr; /* the chosen lock's layer state */

static void pick_lock(const char *name, bool flat)
{
    g_lock = name;
    if (!strcmp(name, "mcs"))
        g_kind = L_MCS, g_cr = &g_mcs.cr;
    else if (!strcmp(name, "ticket"))
        g_kind = L_TICKET, g_cr = &g_tkt.cr;
    else if (!strcmp(name, "tas"))
        g_kind = L_TAS, g_cr = &g_tas.cr;
    else if (!strcmp(name, "clh"))
        g_kind = L_CLH, g_cr = &g_clh.cr;
    else if (!strcmp(name, "mcs_tkt"))
        g_kind = L_MCS_TKT, g_cr = &g_cmp.cr;
    else {
        fprintf(stderr, "test_cr: unknown lock '%s' (mcs, ticket, tas, clh or mcs_tkt)\n", name);
        exit(2);
    }
    {
        /* flat: "core:4" keeps only the system level (cores of one cpu) */
        clof_topo_opts_t o = {NULL, flat ? "core:4" : SHAPE, NULL,
                              CLOF_TOPO_NO_ENV | CLOF_TOPO_QUIET};
        clof_topo_error_t err;
        if (clof_topology_install(&o, &err) != 0)
            clof_test_fail(err.msg);
    }
    clof_cr_mcs_init(&g_mcs);
    clof_cr_ticket_init(&g_tkt);
    clof_cr_tas_init(&g_tas);
    clof_cr_clh_init(&g_clh);
    clof_cr_mcs_tkt_init(&g_cmp);
}

static void lock_acquire(ctx_t *c)
{
    switch (g_kind) {
    case L_MCS: clof_cr_mcs_acquire(&g_mcs, &c->mcs); break;
    case L_TICKET: clof_cr_ticket_acquire(&g_tkt, &c->tkt); break;
    case L_TAS: clof_cr_tas_acquire(&g_tas, &c->tas); break;
    case L_CLH: clof_cr_clh_acquire(&g_clh, &c->clh); break;
    case L_MCS_TKT: clof_cr_mcs_tkt_acquire(&g_cmp, &c->cmp); break;
    }
}
static bool lock_try(ctx_t *c)
{
    switch (g_kind) {
    case L_MCS: return clof_cr_mcs_tryacquire(&g_mcs, &c->mcs);
    case L_TICKET: return clof_cr_ticket_tryacquire(&g_tkt, &c->tkt);
    case L_TAS: return clof_cr_tas_tryacquire(&g_tas, &c->tas);
    case L_CLH: return clof_cr_clh_tryacquire(&g_clh, &c->clh);
    case L_MCS_TKT: return clof_cr_mcs_tkt_tryacquire(&g_cmp, &c->cmp);
    }
    return false;
}
static void lock_release(ctx_t *c)
{
    switch (g_kind) {
    case L_MCS: clof_cr_mcs_release(&g_mcs, &c->mcs); break;
    case L_TICKET: clof_cr_ticket_release(&g_tkt, &c->tkt); break;
    case L_TAS: clof_cr_tas_release(&g_tas, &c->tas); break;
    case L_CLH: clof_cr_clh_release(&g_clh, &c->clh); break;
    case L_MCS_TKT: clof_cr_mcs_tkt_release(&g_cmp, &c->cmp); break;
    }
}

/* Every thread's context, outliving the thread: CLH moves nodes between
 * contexts (a release keeps the predecessor's node), so a context on a
 * thread's stack would leave another thread's context pointing into a dead
 * stack once the first thread exits (the lock tests and the preload
 * library keep contexts alive for the same reason).  Zero: fresh contexts.
 * One test runs per process, so each is used by one thread only. */
static ctx_t g_ctx[MAXT + 1];

static clof_test_line_t g_lines[LINES];
static long g_iters;
static uint64_t g_done; /* acquisitions made */
static uint32_t g_started, g_go;

static void *mutex_main(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    ctx_t *c = &g_ctx[id];
    clof_topo_set_vcpu((int)(id % 4));
    unsigned seed = (unsigned)id * 2654435761u + 1;
    __atomic_add_fetch(&g_started, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&g_go, __ATOMIC_ACQUIRE))
        sched_yield();
    for (long i = 0; i < g_iters; i++) {
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) % 8 == 0) {
            if (!lock_try(c))
                continue;
        } else {
            lock_acquire(c);
        }
        clof_test_critical(g_lines, LINES, (seed >> 20) % 64 == 0);
        lock_release(c);
        __atomic_add_fetch(&g_done, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void run_threads(int n, void *(*fn)(void *))
{
    pthread_t th[MAXT];
    g_threads = (uint32_t)n;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, (void *)(uintptr_t)i) != 0)
            clof_test_fail("pthread_create");
    while (__atomic_load_n(&g_started, __ATOMIC_RELAXED) < (uint32_t)n)
        sched_yield();
    __atomic_store_n(&g_go, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

/* Run the mutex workload with n threads and check what every test of it
 * checks: mutual exclusion (the count), the layer back at rest, and one
 * admission per passive entry. */
static void run_mutex_checked(int n)
{
    run_threads(n, mutex_main);
    CHECK(g_lines[0].v == g_done, "%s: %llu critical sections counted, %llu made",
          g_lock, (unsigned long long)g_lines[0].v, (unsigned long long)g_done);
    CHECK(clof_atomic32_read(&g_cr->active) == 0 && clof_atomic32_read(&g_cr->npassive) == 0,
          "%s: the layer is not back to rest: active %u, passive %u", g_lock,
          clof_atomic32_read(&g_cr->active), clof_atomic32_read(&g_cr->npassive));
    CHECK(g_admits == g_passive_entries, "%s: %llu passive entries, %llu admissions",
          g_lock, (unsigned long long)g_passive_entries, (unsigned long long)g_admits);
}

static void test_mutex(int n)
{
    run_mutex_checked(n);
    CHECK(g_passive_entries > 0, "%s: no thread was ever passive with %d threads and "
          "an active set of %u: the restriction did not act", g_lock, n, g_active);
    printf("%s T=%d active<=%u: %llu acquisitions, %llu passive, %llu granted "
           "admissions, %llu grants (%llu idle), cap now %u\n",
           g_lock, n, g_active, (unsigned long long)g_done,
           (unsigned long long)g_passive_entries, (unsigned long long)g_granted_admits,
           (unsigned long long)g_grants, (unsigned long long)g_idle_grants,
           clof_atomic32_read(&g_cr->cap));
}

static void test_bound(int n, bool flat)
{
    test_mutex(n);
    CHECK(g_multi_grant == 0, "%s: %u passive heads consumed more than one grant",
          g_lock, g_multi_grant);
    CHECK(g_granted_admits > 0, "%s: no admission by a grant: the bound was not exercised",
          g_lock);
    CHECK(g_bypass_run_max <= CLOF_CNA_COUNT, "%s: %u admissions in a row passed over "
          "a passive thread of another node (at most CLOF_CNA_COUNT = %u)", g_lock,
          g_bypass_run_max, CLOF_CNA_COUNT);
    if (flat)
        CHECK(g_bypassed == 0, "%s: one level, yet %u admissions passed over a "
              "passive thread (the passive set must be FIFO)", g_lock, g_bypassed);
    else
        CHECK(g_bypassed > 0, "%s: 2 nodes, and no admission passed over a thread "
              "of the other node: the node preference did not act", g_lock);
    printf("%s: %llu admissions, %u passed over another node's thread (longest "
           "run %u, at most %u); longest passive wait %u releases (bound (k+1) x "
           "%u x %u + wake-ups, k < %d; not checked: timing)\n", g_lock,
           (unsigned long long)g_admits, g_bypassed, g_bypass_run_max, CLOF_CNA_COUNT,
           g_worst_wait, CLOF_CNA_COUNT + 1, CLOF_CR_ADMIT_EVERY, n);
}

/* idle: every thread takes the lock once while main holds it */
static void *idle_main(void *arg)
{
    ctx_t *c = &g_ctx[(uintptr_t)arg];
    clof_topo_set_vcpu((int)((uintptr_t)arg % 4));
    __atomic_add_fetch(&g_started, 1, __ATOMIC_RELAXED);
    lock_acquire(c);
    clof_test_critical(g_lines, LINES, 1);
    lock_release(c);
    __atomic_add_fetch(&g_done, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void test_idle(int n, int late)
{
    ctx_t *c = &g_ctx[MAXT]; /* main's */
    lock_acquire(c); /* uncounted: the lock was free */
    pthread_t th[MAXT];
    g_threads = (uint32_t)n;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, idle_main, (void *)(uintptr_t)i) != 0)
            clof_test_fail("pthread_create");
    /* wait until the workers are in: ACTIVE admitted, the rest passive */
    for (int k = 0; k < 20000; k++) {
        /* active is signed: `late` starts it at -1, and admits one more */
        if ((int64_t)__atomic_load_n(&g_passive_entries, __ATOMIC_RELAXED) +
                (int32_t)clof_atomic32_read(&g_cr->active) + late >= (int64_t)n)
            break;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    CHECK(g_passive_entries + g_active + (uint64_t)late >= (uint64_t)n,
          "%s: %llu passive and %d active of %d waiting threads", g_lock,
          (unsigned long long)g_passive_entries, (int)(int32_t)clof_atomic32_read(&g_cr->active),
          n);
    lock_release(c);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    CHECK(g_done == (uint64_t)n, "%s: %llu of %d threads got the lock", g_lock,
          (unsigned long long)g_done, n);
    CHECK(g_idle_grants > 0, "%s: no idle grant: the test did not exercise it", g_lock);
    printf("%s idle T=%d active<=%u: %llu passive, %llu idle grants\n", g_lock, n,
           g_active, (unsigned long long)g_passive_entries,
           (unsigned long long)g_idle_grants);
}

/* The quiet growth's rule, by hand on the state (test `grow`, first part):
 * the holder's calls as a counted release (clof_cr_calm_) and as an
 * admitted thread's acquire that signalled (clof_cr_acquired_). */
static void grow_rule(void)
{
    clof_cr_t *s = g_cr;
    clof_atomic32_write(&s->limiting, 1);
    clof_atomic32_write(&s->cap, 1);
    for (uint32_t i = 0; i + 1 < CLOF_CR_GROW; i++)
        clof_cr_calm_(s);
    CHECK(clof_atomic32_read(&s->cap) == 1, "%s: the set grew before %u quiet releases",
          g_lock, CLOF_CR_GROW);
    clof_cr_calm_(s);
    CHECK(clof_atomic32_read(&s->cap) == 2 && g_grows == 1,
          "%s: %u quiet releases did not grow the set by one (cap %u)", g_lock,
          CLOF_CR_GROW, clof_atomic32_read(&s->cap));
    for (uint32_t i = 0; i + 1 < CLOF_CR_GROW; i++)
        clof_cr_calm_(s);
    g_crowd = 2; /* an admitted thread's wait signals: shrink, count over */
    clof_cr_acquired_(s, clof_cr_signal_());
    g_crowd = 1;
    CHECK(clof_atomic32_read(&s->cap) == 1, "%s: a shrink signal did not shrink the set",
          g_lock);
    clof_cr_calm_(s);
    CHECK(clof_atomic32_read(&s->cap) == 1,
          "%s: the quiet count did not start over at a shrink signal", g_lock);
    uint32_t n = 0;
    while (clof_atomic32_read(&s->cap) < g_active && n < 2 * g_active * CLOF_CR_GROW) {
        clof_cr_calm_(s);
        n++;
    }
    CHECK(clof_atomic32_read(&s->cap) == g_active && n == (g_active - 1) * CLOF_CR_GROW - 1,
          "%s: from 1 to %u cpus took %u quiet releases (cap %u), not %u", g_lock,
          g_active, n, clof_atomic32_read(&s->cap), (g_active - 1) * CLOF_CR_GROW - 1);
    for (uint32_t i = 0; i < CLOF_CR_CALM; i++)
        clof_cr_calm_(s);
    CHECK(clof_atomic32_read(&s->cap) == g_active && clof_atomic32_read(&s->limiting) == 0 &&
          g_opens == 1, "%s: back at %u with nobody passive, the lock did not open after "
          "%u calm releases (cap %u)", g_lock, g_active, CLOF_CR_CALM,
          clof_atomic32_read(&s->cap));
    printf("%s grow rule: 1 -> %u cpus in %u quiet releases, open after %u more\n", g_lock,
           g_active, n + 1, CLOF_CR_CALM);
    g_grows = g_opens = 0;
}

/* lazy restriction: open (never crowded), lazy (always), calm */
static void test_lazy(const char *test, int n)
{
    run_mutex_checked(n);
    uint32_t limiting = clof_atomic32_read(&g_cr->limiting);
    if (!strcmp(test, "open")) {
        CHECK(g_passive_entries == 0 && g_limits == 0 && limiting == 0,
              "%s: no wait signalled crowding, yet the lock limited (%llu times, "
              "%llu passive entries, limiting %u)", g_lock,
              (unsigned long long)g_limits, (unsigned long long)g_passive_entries,
              limiting);
    } else if (!strcmp(test, "lazy")) {
        CHECK(g_limits > 0 && g_passive_entries > 0,
              "%s: every contended wait signalled crowding, yet the lock limited "
              "%llu times and %llu threads went passive", g_lock,
              (unsigned long long)g_limits, (unsigned long long)g_passive_entries);
        CHECK(g_grows == 0, "%s: every contended wait signalled crowding, yet the "
              "active set grew %llu times after quiet releases", g_lock,
              (unsigned long long)g_grows);
    } else if (!strcmp(test, "grow")) {
        CHECK(g_opens > 0 && limiting == 0 && g_limits == 0,
              "%s: the active set started at 1 with %u cpus and no crowding, yet the "
              "lock opened %llu times (limiting %u, cap %u, limited again %llu times)",
              g_lock, g_active, (unsigned long long)g_opens, limiting,
              clof_atomic32_read(&g_cr->cap), (unsigned long long)g_limits);
    } else { /* calm */
        CHECK(g_opens > 0 && limiting == 0 && g_limits == 0,
              "%s: no crowding and nobody passive, yet the lock did not open "
              "(opened %llu times, limiting %u, limited again %llu times)", g_lock,
              (unsigned long long)g_opens, limiting, (unsigned long long)g_limits);
    }
    printf("%s %s T=%d: %llu acquisitions, limited %llu times, opened %llu times, "
           "%llu passive, cap grew %llu times\n", g_lock, test, n, (unsigned long long)g_done,
           (unsigned long long)g_limits, (unsigned long long)g_opens,
           (unsigned long long)g_passive_entries, (unsigned long long)g_grows);
}

/* Barging while open (test `barge`). */
static uint32_t g_w_in, g_w_done, g_in_cs;
static void *barge_waiter(void *arg)
{
    ctx_t *c = arg;
    __atomic_store_n(&g_w_in, 1, __ATOMIC_RELEASE);
    lock_acquire(c);
    CHECK(__atomic_exchange_n(&g_in_cs, 1, __ATOMIC_ACQ_REL) == 0,
          "barge: two threads in the critical section");
    CHECK(c->mcs.counted == 0, "barge: an open lock counted an acquisition");
    __atomic_store_n(&g_in_cs, 0, __ATOMIC_RELEASE);
    lock_release(c);
    __atomic_store_n(&g_w_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* One round: H (this thread) holds the lock while W acquires; true when W
 * queued in the inner lock within `ms` milliseconds. */
static bool barge_round(uint32_t polls, int ms)
{
    g_barge_polls = polls;
    __atomic_store_n(&g_w_in, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_w_done, 0, __ATOMIC_RELAXED);
    ctx_t *h = &g_ctx[0];
    lock_acquire(h);
    __atomic_store_n(&g_in_cs, 1, __ATOMIC_RELEASE);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, barge_waiter, &g_ctx[1]) == 0, "pthread_create");
    while (!__atomic_load_n(&g_w_in, __ATOMIC_ACQUIRE))
        clof_be_yield();
    bool queued = false;
    for (int i = 0; i < ms && !queued; i++) {
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
        queued = clof_cr_mcs_has_waiters(&g_mcs, &h->mcs);
    }
    __atomic_store_n(&g_in_cs, 0, __ATOMIC_RELEASE);
    lock_release(h);
    pthread_join(t, NULL);
    CHECK(__atomic_load_n(&g_w_done, __ATOMIC_ACQUIRE), "barge: the waiter did not finish");
    return queued;
}

static void test_barge(void)
{
#if defined(CLOF_BE_HAS_CPU_COUNT)
    g_lazy = 1;
    g_crowd = 1; /* open, and it stays open */
    CHECK(!barge_round(UINT32_MAX, 50),
          "%s: a waiter of an open lock queued while it had polls left", g_lock);
    CHECK(barge_round(1, 10000),
          "%s: a waiter with one poll did not queue in 10 s", g_lock);
    CHECK(clof_atomic32_read(&g_cr->limiting) == 0 && g_passive_entries == 0,
          "%s: the lock limited", g_lock);
    printf("%s barge: took the lock without queueing while polling, queued after its polls\n",
           g_lock);
#else
    printf("%s barge: no barging on this backend\n", g_lock);
#endif
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_cr mutex|bound|flat|idle|late|open|lazy|calm|grow|barge LOCK T [ACTIVE [ITERS]]\n");
        return 2;
    }
    const char *test = argv[1];
    clof_test_name("cr.%s %s", test, argv[2]);
    clof_test_watchdog(100, 1, "FAIL: watchdog expired (hang or starvation)\n");
    pick_lock(argv[2], !strcmp(test, "flat"));
    int n = atoi(argv[3]);
    CHECK(n >= 1 && n <= MAXT, "threads 1..%d", MAXT);
    if (argc >= 5)
        g_active = (uint32_t)atoi(argv[4]);
    CHECK(g_active >= 1, "ACTIVE >= 1");
    g_iters = argc >= 6 ? atol(argv[5]) : 20000;
    if (!strcmp(test, "mutex"))
        test_mutex(n);
    else if (!strcmp(test, "bound") || !strcmp(test, "flat"))
        test_bound(n, !strcmp(test, "flat"));
    else if (!strcmp(test, "idle"))
        test_idle(n, 0);
    else if (!strcmp(test, "late")) {
        clof_cr_released_(g_cr, 1, 1); /* a destroyed lock's counted release */
        CHECK((int32_t)clof_atomic32_read(&g_cr->active) == -1, "late: active is not -1");
        test_idle(n, 1);
    }
    else if (!strcmp(test, "barge")) {
        CHECK(g_kind == L_MCS, "barge: the test reads MCS's has_waiters (LOCK mcs)");
        test_barge();
    }
    else if (!strcmp(test, "open") || !strcmp(test, "lazy") || !strcmp(test, "calm") ||
             !strcmp(test, "grow")) {
        g_lazy = 1;
        g_crowd = !strcmp(test, "lazy") ? 2 : 1;
        if (!strcmp(test, "calm") || !strcmp(test, "grow"))
            clof_atomic32_write(&g_cr->limiting, 1);
        if (!strcmp(test, "grow")) {
            grow_rule();
            clof_atomic32_write(&g_cr->limiting, 1);
            clof_atomic32_write(&g_cr->cap, 1); /* shrunk (sized: not 0) */
        }
        test_lazy(test, n);
    }
    else {
        fprintf(stderr, "test_cr: unknown test '%s'\n", test);
        return 2;
    }
    printf("ok %s %s\n", test, g_lock);
    return 0;
}
