/* SPDX-License-Identifier: MIT */
/*
 * clof/cr.h -- concurrency restriction over any clof lock: `cr:<lock>`.
 *
 * Algorithm (Malthusian locks, Dice, EuroSys'17 §3-4; generic concurrency
 * restriction, GCR, Dice and Kogan, Euro-Par'19 §3): only an *active set* of
 * threads circulates over the inner lock; the surplus waits in a *passive
 * set*, parked, and is rotated in so that nobody starves.  When runnable
 * threads outnumber cpus, a FIFO lock hands itself to threads that are not
 * running (each hand-over then waits for a wake-up and a scheduling slot:
 * 20-50x below glibc on 2 vCPUs, docs/perf.md); with the surplus parked,
 * the threads the inner lock hands over to are the ones that run.
 *
 *   acquire:  1. the inner lock's tryacquire: a free lock is taken at once
 *               (the uncontended path: the inner lock's plus a store);
 *             2. else, while the lock is *open* (not `limiting`, below),
 *               retry the tryacquire a few times (barging while open,
 *               clof_cr_barge_), then wait in the inner lock uncounted,
 *               as the plain lock does;
 *               if that wait could not keep a cpu (the shrink signal
 *               below), the lock starts `limiting`;
 *             3. else (limiting), if fewer than `cap` threads are admitted
 *               (`active` < cap), join them (a CAS on `active`) and wait in
 *               the inner lock;
 *             4. else become passive: queue on the passive queue (a CNA
 *               lock, numa/cna.h: NUMA-aware admission, below); its
 *               holder, the *passive head*, waits on the word `grants`
 *               until it is granted admission or sees `active` < cap,
 *               joins `active`, and passes the head on.
 *   release:  the inner release, alone when the acquisition was not
 *             counted and no thread is passive (the uncontended path: two
 *             loads and a branch more); otherwise the release is numbered
 *             (`releases`, while holding), and after the inner release a
 *             counted thread leaves `active` (what that late part may meet
 *             when the lock was destroyed meanwhile: clof_cr_released_).
 *             Grants: every CLOF_CR_ADMIT_EVERY-th numbered release while
 *             passive threads wait (long-term fairness), and every release that
 *             leaves `active` empty while passive threads wait (the lock
 *             would sit idle: no lost wake-up; the idle grant, which
 *             leaves `cap` as it is), issue one grant, unless one
 *             is already pending.  A grant admits the head whatever `active`
 *             is: the set grows by one, and the next active thread to come
 *             back finds it full and goes passive -- one in, one out.
 *
 * Open and limiting (lazy restriction; CLOF_CR_LAZY, default 1 where the
 * waiting policy can tell, i.e. where waiters may park).  Counting costs a
 * contended acquisition two read-modify-writes on the layer's line (the
 * admission CAS and the release's decrement), which is all the layer does
 * while threads do not outnumber cpus: 0.61x the plain lock at 128 threads
 * on 128 simulated cpus (docs/cr.md).  So a lock starts *open*: contended
 * acquisitions wait in the inner lock uncounted, and the layer costs a
 * failed tryacquire and a load.  The first contended wait that could not
 * keep a cpu (it yielded to another thread or parked: the shrink signal)
 * sets `limiting`, and from then on contended acquisitions are counted
 * and restricted as described.  The lock opens again after CLOF_CR_CALM
 * counted releases in a row (default 1024) found nobody passive and the
 * active set at its largest (`cap` = the cpus): restriction then holds
 * nobody back.  `limiting` is a hint: the admission protocol and its
 * liveness argument (below) concern counted and passive threads only, and
 * uncounted waiters are like the threads that took a free lock; a passive
 * thread exists only while a counted one does (it went passive because
 * `active` >= cap >= 1), so the idle grant still comes when the lock opens
 * with passive threads left.  CLOF_CR_LAZY=0 keeps the lock limiting from
 * the start (the model checker's clients of the protocol; the spin policy,
 * where no wait yields or parks, so no signal would ever come).
 *
 * The active set.  `cap` starts at the number of cpus the process may run on
 * (clof_cr_cpus(): sched_getaffinity, or CLOF_CR_ACTIVE) and adapts within
 * [1, that]: it shrinks by one when an admitted thread's wait in the inner
 * lock had to yield or park (the waiting policy lowered its spin budget, or,
 * with the budget at its floor, it parked or a yield of it ran another
 * thread, wait.h: an active waiter did not keep a cpu; clof_cr_signalled_),
 * and grows by one after CLOF_CR_GROW counted releases in a row without a
 * shrink (default 1024; clof_cr_calm_).  An idle grant admits one thread
 * but does not grow `cap`: where nothing is done outside the critical
 * section, a counted releaser leaves the set empty only to come back at
 * once, so nearly every counted release was "idle", and growing there
 * undid each shrink -- with two threads on one cpu's worth of time, the
 * set went back to 2 and the FIFO lock handed over at every acquisition
 * (docs/lab/peers-notebook.md, 2026-11-29).  With `cap` kept, the set of
 * one runs bursts through the free lock (step 1, uncounted) while the
 * granted thread wakes up, and the two change places once per wake-up,
 * as glibc's mutex does.  Threads that took the free lock at step 1 are
 * not counted: they hold it and do not wait.
 *
 * NUMA-aware admission (CNA, Dice and Kogan, EuroSys'19, applied to the
 * passive set as GCR's NUMA variant applies node preference to admission,
 * Dice and Kogan, Euro-Par'19 §4).  The passive queue is a CNA lock: the
 * head that is admitted hands the head role to the first passive thread
 * on its own NUMA node (cna.h: the cohort at the process topology's NUMA
 * level, else its lowest level below system), moving the ones it skips to
 * CNA's secondary queue.  The admitted head is the lock's next owner, so
 * admissions follow the node of the recent owners and the active set
 * drifts onto one node, where the inner lock's hand-overs are local; the
 * secondary queue is put back in front after CLOF_CNA_COUNT consecutive
 * local hand-overs (or CLOF_CNA_TIME_NS, or when no local thread is left).
 * On a one-level machine every thread is on node 0: CNA is MCS, and the
 * passive set is FIFO.  CLOF_CR_NUMA=0 (compile time) makes the queue an
 * MCS lock on every machine (the FIFO passive set; for comparison).
 *
 * The admission bound (what tests/cr checks).  Grants are tokens: `grants`
 * counts those issued, `taken` those consumed, at most one is pending, and
 * each is consumed by exactly one passive head.  Heads: a thread W that
 * enters the passive queue with k threads ahead of it (in CNA's two
 * queues) becomes head within (k + 1) x (CLOF_CNA_COUNT + 1) hand-overs of
 * the head role: nobody joins the threads ahead of W (arrivals queue
 * behind it, skipped threads keep their order), a hand-over to a thread
 * not ahead of W is a local one that skips W into the secondary queue, and
 * at most CLOF_CNA_COUNT such hand-overs follow one another while the
 * secondary queue is not empty before CNA puts it back in front.  One
 * hand-over per admission, each head consumes at most one grant, and with
 * the lock in use a grant is issued at least every CLOF_CR_ADMIT_EVERY
 * releases (default 256): W is admitted within (k + 1) x (CLOF_CNA_COUNT +
 * 1) admissions, at most that many grants, so (k + 1) x (CLOF_CNA_COUNT +
 * 1) x CLOF_CR_ADMIT_EVERY releases plus the heads' wake-ups (FIFO
 * passive set, one node: k + 1 grants).  After admission it waits in the
 * inner lock: FIFO locks bound that wait by the admitted threads ahead of
 * it.  Passive threads admitted by `active` < cap (step 3) or by an idle
 * grant only come sooner.
 *
 * Properties (of the lock generated by CLOF_CR_LOCK(name, inner)):
 *   - not FIFO over all threads (active threads overtake passive ones, as
 *     in the papers); starvation-free when the inner lock is (bound above);
 *   - context = the inner context + one word (whether the acquisition
 *     counted in `active`); zero-filled = valid; thread-oblivious when the
 *     inner lock is (the word travels with the context);
 *   - has_waiters: the inner lock's, or passive threads waiting;
 *   - zero bytes are an unlocked lock when they are for the inner lock
 *     (`cap` 0 = not sized yet: sized at the first contended acquire);
 *   - the inner lock's init/destroy stay the inner lock's business
 *     (clof_<name>_init calls clof_<inner>_init; l->base is the inner lock);
 *   - size: the inner lock, then the state on a cache line of its own
 *     (128 bytes over MCS).  Sharing the inner lock's line, the release's
 *     read of `npassive` and the open lock's read of `limiting` moved that
 *     line (an MCS tail's) once more per acquisition: 0.79x the plain lock
 *     at one thread per cpu on the simulated 128-cpu machine, 1.00x on a
 *     line of its own (docs/cr.md).
 *
 * Memory orders:
 *   `releases` is written only by the holder (inside the critical section)
 *     and read only there: relaxed (the inner lock orders its holders).
 *     Where a layout keeps the number elsewhere (NUMBER, the generator's
 *     accessors; the preload library: a byte of its mutex), it is written
 *     by holders only there too, and needs no more order than this.
 *   The release's read of `npassive` that decides whether to number it is
 *     relaxed: missing a passive thread that has just arrived delays the
 *     count towards its grant by one release; the idle grant does not
 *     depend on it (a counted release always takes the slow path, which
 *     reads `npassive` with seq_cst).  Where the release reads a mirror of
 *     it instead (MIRROR, the generator's accessors), the mirror's RMWs
 *     and the rereads of `npassive` after them are seq_cst: the passive
 *     thread P that brings `npassive` from 0 to 1 then sets the bit; a
 *     clearer clears it and then rereads `npassive`.  While threads are
 *     passive, take the last increment from 0, by P: if a clear is the
 *     last RMW on the bit, it follows P's set in the seq_cst order, hence
 *     P's increment, and its reread sees `npassive` >= 1 and sets the bit
 *     again.  So the mirror is clear while threads wait only for the
 *     moments the plain relaxed read could miss them too
 *     (clof_cr_mirror_clear_).
 *   `active`: the admission CAS, the release's decrement and the head's
 *     read are seq_cst, and so are the passive thread's increment of
 *     `npassive` and the release's read of it: a Dekker pair -- a passive
 *     thread increments `npassive` and then reads `active`; a releaser
 *     decrements `active` and then reads `npassive`.  In the seq_cst order
 *     either the passive thread reads the decrement (and admits itself:
 *     `active` < cap) or the releaser reads the increment (and issues a
 *     grant): no passive thread sleeps while the active set is empty.
 *   `grants`: issued with a seq_cst CAS (from the value of `taken`, so at
 *     most one pending) followed by a wake of its waiters (wait.h: the
 *     waiting policy's park is keyed on the word, the RMW is the waking
 *     store); the head reads it with acquire before it reads `active`, so a
 *     grant issued after that read changes the word it then waits on.
 *   `taken` is written only by the passive head (the holder of the passive
 *     queue lock, which orders successive heads): relaxed; the releasers'
 *     read of it only decides whether a grant is pending (a stale value
 *     makes the CAS fail or issues a grant early -- never loses one: the
 *     CAS succeeds only from the current `grants`).
 *   `cap` is a hint read and written relaxed: admission decisions use it,
 *     the safety and liveness arguments above do not (cap >= 1 always).
 *     So neither do the signals that move it (clof_cr_signalled_: the
 *     thread's own counters, read by that thread) nor where it grows:
 *     the idle grant, which liveness needs, is issued as before.
 *   `limiting` is a hint too (above): relaxed.  `calm` is
 *     written only by the holder (the release before its inner release, the
 *     shrink after its inner acquire): relaxed, as `releases`.
 *   The counted word in the context is written by the acquirer and read by
 *     the releaser of the same acquisition, ordered by the inner lock.
 *
 * Waiting: the passive queue and the head's wait for a grant go through the
 * waiting policy (spin, yield, futex park); the model checker and the
 * simulator replace it as for every lock.
 *
 * The passive queue's own orders are CNA's (cna.h, verified by itself and
 * inside this layer: verify/clients_cr.c); the layer only acquires and
 * releases it.
 */
/** \file
 * Concurrency restriction over any clof lock (Malthusian locks, GCR):
 * CLOF_CR_LOCK(N, inner) declares the lock `cr:inner`, whose surplus
 * threads wait parked in a NUMA-aware passive set (a CNA lock) and are
 * rotated in, so that the threads the inner lock hands over to are the ones
 * that run.  CLOF_CR_FUNCTIONS is the same layer over a layout of the
 * includer's.  Link libclof (clof_cr_cpus, the topology).  Algorithm, the
 * admission bound, properties and memory orders: the comment at the top of
 * the header.  The functions the generated ones call (clof_cr_acquire,
 * clof_cr_release ... over a clof_cr_ops_t) are internal.
 */
#ifndef CLOF_CR_H
#define CLOF_CR_H

#include <clof/lock.h>

/* The passive queue: CNA (NUMA-aware admission, above), or with
 * CLOF_CR_NUMA=0 (compile time) MCS (FIFO: the passive set without node
 * preference, for comparison).  CNA looks up the waiter's node inside its
 * acquire, so the process topology must load without taking a lock that
 * may be this one: libclof's loader takes none that the preload library
 * interposes, and the preload library loads the topology at start-up for
 * every cr: lock (with the topology lazily loaded under an interposed
 * pthread mutex, preload.cr_mcs.mutex_static hung in most runs on an
 * emulated 2-node machine, 2026-11-26: docs/reliability.md). */
#ifndef CLOF_CR_NUMA
/** 1: the passive queue is a CNA lock (NUMA-aware admission); 0: an MCS
 *  lock (a FIFO passive set, for comparison).  Compile time. */
#define CLOF_CR_NUMA 1
#endif
#if CLOF_CR_NUMA
#include <clof/numa/cna.h>
#define CLOF_CR_Q_(x) clof_cna_##x
/** Static initializer of the passive queue (clof_cr_t::queue). */
#define CLOF_CR_Q_INITIALIZER CLOF_CNA_INITIALIZER
/* the head holds CNA's secondary queue: a passive thread of another node
 * was skipped for one of the head's node (cna.h: `spin` holds its head) */
#define CLOF_CR_Q_BYPASSED_(qc)                                                \
    (clof_atomicptr_read_rlx(&(qc)->spin) != CLOF_CNA_GO_)
#else
#include <clof/lock/mcs.h>
#define CLOF_CR_Q_(x) clof_mcs_##x
/** Static initializer of the passive queue (clof_cr_t::queue). */
#define CLOF_CR_Q_INITIALIZER CLOF_MCS_INITIALIZER
#define CLOF_CR_Q_BYPASSED_(qc) ((void)(qc), false)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CLOF_CR_ADMIT_EVERY
/** The fairness grant's period: one grant every this many releases while
 *  passive threads wait (a power of two). */
#define CLOF_CR_ADMIT_EVERY 256u
#endif
#if (CLOF_CR_ADMIT_EVERY & (CLOF_CR_ADMIT_EVERY - 1)) != 0 || CLOF_CR_ADMIT_EVERY == 0
#error "CLOF_CR_ADMIT_EVERY must be a power of two"
#endif

/* Lazy restriction (above): 1 = a lock starts open and limits only once a
 * contended wait could not keep a cpu.  Default: where a wait can tell
 * (the waiting policy parks, or the backend counts parks: the simulator). */
#ifndef CLOF_CR_LAZY
#if CLOF_WAIT_CAN_PARK || defined(CLOF_BE_WAIT_PARKS)
/** 1: lazy restriction, a lock starts open (the default where a wait can
 *  tell that it could not keep a cpu); 0: limiting from the start. */
#define CLOF_CR_LAZY 1
#else
/** 1: lazy restriction, a lock starts open; 0 (the default where no wait
 *  can tell that it could not keep a cpu): limiting from the start. */
#define CLOF_CR_LAZY 0
#endif
#endif
#ifndef CLOF_CR_CALM
/** Calm counted releases in a row (nobody passive, the active set at its
 *  largest) before a limiting lock opens again. */
#define CLOF_CR_CALM 1024u
#endif
#ifndef CLOF_CR_GROW
/** Quiet counted releases in a row (no shrink signal) before the active
 *  set's size `cap` grows by one. */
#define CLOF_CR_GROW 1024u
#endif

/* The number of cpus the process may run on (libclof, src/cr.c:
 * sched_getaffinity at the first call, or the environment's CLOF_CR_ACTIVE
 * when set to 1..4096): the largest active set.  A backend without a
 * process (the model checker, the simulator) or a test defines
 * CLOF_CR_CPUS() before including this header. */
/** The number of cpus the process may run on (libclof: sched_getaffinity
 * at the first call, or CLOF_CR_ACTIVE when set to 1..4096): the largest
 * active set. */
uint32_t clof_cr_cpus(void);
#ifndef CLOF_CR_CPUS
/** The largest active set: clof_cr_cpus() (a backend without a process or
 *  a test defines it before including the header). */
#define CLOF_CR_CPUS() clof_cr_cpus()
#endif

/* Hooks (no-ops unless defined before including): the preload library's
 * CLOF_STATS counts, the tests' bound check.  `s` is the clof_cr_t. */
#ifndef CLOF_CR_ON_PASSIVE
/** Hook (a no-op unless defined before including the header; s: the
 *  lock's clof_cr_t): a thread joins the passive set. */
#define CLOF_CR_ON_PASSIVE(s) ((void)(s))
#endif
#ifndef CLOF_CR_ON_ADMIT
/** Hook: the passive head is admitted (granted: by a grant), called while
 *  it still holds the passive queue. */
#define CLOF_CR_ON_ADMIT(s, granted) ((void)(s), (void)(granted))
#endif
#ifndef CLOF_CR_ON_HEAD
/** Hook: the passive head is admitted, before CLOF_CR_ON_ADMIT; bypassed:
 *  it was chosen over a passive thread of another node (NUMA-aware
 *  admission) that still waits. */
#define CLOF_CR_ON_HEAD(s, bypassed) ((void)(s), (void)(bypassed))
#endif
#ifndef CLOF_CR_ON_GRANT
/** Hook: a grant is issued; idle: by an idle release. */
#define CLOF_CR_ON_GRANT(s, idle) ((void)(s), (void)(idle))
#endif
#ifndef CLOF_CR_ON_LIMIT
/** Hook: the lock starts limiting (on 1) or opens (on 0). */
#define CLOF_CR_ON_LIMIT(s, on) ((void)(s), (void)(on))
#endif
#ifndef CLOF_CR_ON_GROW
/** Hook: `cap` grew after CLOF_CR_GROW quiet counted releases. */
#define CLOF_CR_ON_GROW(s) ((void)(s))
#endif

/* The shrink signal: what the waiting policy tells of this thread's waits,
 * where it tells anything -- its adaptive spin budget (an admitted thread
 * whose inner wait lowered it had to yield or park) and its count of parks
 * (wait.h clof_wait_parks_; a backend that models parking, the simulator,
 * gives its own: CLOF_BE_WAIT_PARKS).  The budget stops falling at its
 * floor (CLOF_CR_FLOOR_); the park count moves at every park. */
#if CLOF_WAIT_CAN_PARK
#define CLOF_CR_BUDGET_() clof_wait_spins_
#define CLOF_CR_FLOOR_ CLOF_WAIT_SPINS_MIN
#define CLOF_CR_PARKS_() clof_wait_parks_
#define CLOF_CR_BUSY_() clof_wait_busy_
#else
#define CLOF_CR_BUDGET_() 0u
#define CLOF_CR_FLOOR_ 0u
#define CLOF_CR_BUSY_() 0u
#if defined(CLOF_BE_WAIT_PARKS)
#define CLOF_CR_PARKS_() CLOF_BE_WAIT_PARKS()
#else
#define CLOF_CR_PARKS_() 0u
#endif
#endif
/** The shrink signal's reading: the waiting policy's counters at a
 *  wait's start (clof_cr_signalled_ compares them at its end). */
typedef struct {
    /**@{*/
    /** the spin budget, the count of parks and of busy yields (wait.h) */
    uint32_t budget, parks, busy;
    /**@}*/
} clof_cr_signal_t;

static inline clof_cr_signal_t clof_cr_signal_(void)
{
    clof_cr_signal_t g = {CLOF_CR_BUDGET_(), CLOF_CR_PARKS_(), CLOF_CR_BUSY_()};
    return g;
}

/* Whether the wait since `g` could not keep a cpu: it lowered the spin
 * budget, or, with the budget at its floor (where lowering it shows no
 * more), it parked or one of its yields ran another thread (wait.h
 * clof_wait_busy_).  The yields count because at the floor a waiter whose
 * cpu is shared with the holder mostly neither lowers the budget nor
 * parks: its yield runs the holder, which releases, and the wait ends.
 * Two threads on one cpu's worth of time (a T = 2 run beside another
 * process on 2 cpus) then never signalled, and the lock stayed open or
 * its active set at 2: a FIFO hand-over per acquisition, each through a
 * yield -- 0.03x glibc on pl_lockloop (docs/lab/peers-notebook.md,
 * 2026-11-29).  A park that left the budget above its floor is no
 * signal: the waiting policy halves the budget at a park only when the
 * cpus were wanted (wait.h, CLOF_WAIT_ADAPT_IDLE), and a park on a machine
 * with a cpu for every thread -- a long wait in a FIFO queue of many
 * running waiters -- raises it instead.  Counting those parks made the
 * lock limit, and stay limiting, with a cpu per thread: 0.39-0.74x the
 * plain MCS lock at T = 8 and 16 on 16 cpus (docs/cr.md).  Backends
 * without a budget (the simulator: its floor is 0) signal at every park.
 * A checker's client may replace it (CLOF_CR_CROWDED) to reach the mode
 * changes without a waiting policy. */
static inline bool clof_cr_signalled_(clof_cr_signal_t g)
{
    uint32_t b = CLOF_CR_BUDGET_();
    return b < g.budget || ((CLOF_CR_PARKS_() != g.parks || CLOF_CR_BUSY_() != g.busy) &&
                            b <= CLOF_CR_FLOOR_);
}
#ifndef CLOF_CR_CROWDED
/** Whether the wait of the lock with state s since the signal g could not
 *  keep a cpu: clof_cr_signalled_(g), unless a checker's client replaces
 *  it (defined before including the header). */
#define CLOF_CR_CROWDED(s, g) ((void)(s), clof_cr_signalled_(g))
#endif

/** The layer's state, beside the inner lock (all-zero: valid, sized at
 *  the first contended acquire). */
typedef struct clof_cr {
    clof_atomic32_t releases; /**< holder only: releases so far (mod 2^32) */
    clof_atomic32_t active;   /**< admitted (counted) threads not yet released */
    clof_atomic32_t cap;      /**< active-set size, 1..clof_cr_cpus(); 0 unsized */
    clof_atomic32_t npassive; /**< threads in the passive set */
    clof_atomic32_t grants;   /**< admissions granted (tokens issued) */
    clof_atomic32_t taken;    /**< ... consumed (passive head only) */
    clof_atomic32_t limiting; /**< 1: contended acquisitions are counted and
                                 may go passive; 0: open (CLOF_CR_LAZY) */
    clof_atomic32_t calm;     /**< holder only: counted releases in a row
                                 without a shrink: below the max, towards
                                 growing `cap` (CLOF_CR_GROW); at it, with
                                 nobody passive, towards opening
                                 (CLOF_CR_CALM) */
    CLOF_CR_Q_(t) queue;      /**< the passive set (CNA: NUMA-aware) */
} clof_cr_t;

/** Static initializer of the layer's state. */
#define CLOF_CR_STATE_INITIALIZER                                              \
    {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0),      \
     CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0),      \
     CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0), CLOF_CR_Q_INITIALIZER}

/** Initialise the layer's state s (all-zero bytes are a valid one too). */
static inline void clof_cr_state_init(clof_cr_t *s)
{
    clof_atomic32_write_rlx(&s->releases, 0);
    clof_atomic32_write_rlx(&s->active, 0);
    clof_atomic32_write_rlx(&s->cap, 0);
    clof_atomic32_write_rlx(&s->npassive, 0);
    clof_atomic32_write_rlx(&s->grants, 0);
    clof_atomic32_write_rlx(&s->taken, 0);
    clof_atomic32_write_rlx(&s->limiting, 0);
    clof_atomic32_write_rlx(&s->calm, 0);
    CLOF_CR_Q_(init)(&s->queue);
}

/* The active-set size, sized at the first use. */
static inline uint32_t clof_cr_cap_(clof_cr_t *s)
{
    uint32_t c = clof_atomic32_read_rlx(&s->cap);
    if (CLOF_UNLIKELY(c == 0)) {
        c = CLOF_CR_CPUS();
        if (c == 0)
            c = 1;
        clof_atomic32_write_rlx(&s->cap, c);
    }
    return c;
}

/* Join the active set if it has room: true when joined. */
static inline bool clof_cr_try_enter_(clof_cr_t *s, uint32_t cap)
{
    uint32_t a = clof_atomic32_read(&s->active);
    while ((int32_t)a < (int32_t)cap) { /* signed: below */
        uint32_t seen = clof_atomic32_cmpxchg(&s->active, a, a + 1);
        if (seen == a)
            return true;
        a = seen;
    }
    return false;
}

/* Issue a grant unless one is pending (see the memory orders above); true
 * when issued: the caller then wakes the head (clof_cr_wake_). */
static inline bool clof_cr_grant_(clof_cr_t *s, bool idle)
{
    uint32_t t = clof_atomic32_read_rlx(&s->taken);
    if (clof_atomic32_cmpxchg(&s->grants, t, t + 1) != t)
        return false; /* one is pending (or `taken` moved on: the head is awake) */
    CLOF_CR_ON_GRANT(s, idle);
    return true;
}

/* Wake the passive head after a grant.  The head waits for any change of
 * `grants` (clof_atomic32_wait); no hand-off yield (clof_wake_value's):
 * the woken head does not hold the lock.  The wake only hashes the
 * address: on a state reused by another lock (clof_cr_released_) it at
 * worst wakes a waiter that rechecks. */
CLOF_SLOW void clof_cr_wake_(clof_cr_t *s)
{
    clof_wake(&s->grants._v);
}

/* The mirror of "passive threads wait" (MIRROR(l) of the generator, below;
 * NULL where the release reads `npassive` itself): bit 0 of a word that
 * the release's fast path reads instead of `npassive`, kept where the
 * inner lock is (the preload library: the mutex).  The passive thread that
 * brings `npassive` from 0 sets it after its increment; the last one out
 * clears it and then rereads `npassive`, setting it again if a thread came
 * in between: so it cannot stay clear while a thread is passive (memory
 * orders, above).  It may stay set with nobody passive (a set that follows
 * the last one's clear): a release that finds it so clears it the same
 * way. */
CLOF_SLOW void clof_cr_mirror_clear_(clof_cr_t *s, clof_atomic32_t *mirror)
{
    (void)clof_atomic32_get_and(mirror, ~1u);
    if (clof_atomic32_read(&s->npassive) != 0)
        (void)clof_atomic32_get_or(mirror, 1u);
}

/* A release that finds the mirror set with nobody passive clears it. */
static inline void clof_cr_mirror_heal_(clof_cr_t *s, clof_atomic32_t *mirror)
{
    if ((clof_atomic32_read_rlx(mirror) & 1u) != 0 && clof_atomic32_read(&s->npassive) == 0)
        clof_cr_mirror_clear_(s, mirror);
}

/* A thread enters the passive set: count it; the first one (from 0) sets
 * the mirror.  The others do not touch it (the mirror lives on the lock's
 * own line, which the holder writes at every acquisition): a clear that
 * follows the first one's set in the seq_cst order rereads `npassive`
 * after that increment, and one that precedes it is undone by it (memory
 * orders, above). */
static inline void clof_cr_passive_enter_(clof_cr_t *s, clof_atomic32_t *mirror)
{
    /* seq_cst: Dekker, above */
    if (clof_atomic32_get_inc(&s->npassive) == 0 && mirror != NULL)
        (void)clof_atomic32_get_or(mirror, 1u);
}

/* ... and leaves it: the last one out clears the mirror. */
static inline void clof_cr_passive_exit_(clof_cr_t *s, clof_atomic32_t *mirror)
{
    if (clof_atomic32_get_dec(&s->npassive) == 1 && mirror != NULL)
        clof_cr_mirror_clear_(s, mirror);
}

/* The passive set: wait until admitted, then count in `active`. */
CLOF_SLOW void clof_cr_passive_(clof_cr_t *s, clof_atomic32_t *mirror)
{
    CLOF_CR_ON_PASSIVE(s);
    clof_cr_passive_enter_(s, mirror);
    CLOF_CR_Q_(ctx_t) qc;
    CLOF_CR_Q_(acquire)(&s->queue, &qc);
    /* the head */
    bool granted = false;
    clof_wait_t w = CLOF_WAIT_INIT;
    for (;;) {
        uint32_t g = clof_atomic32_read_acq(&s->grants);
        uint32_t t = clof_atomic32_read_rlx(&s->taken);
        if (g != t) { /* a grant: in, whatever `active` is */
            clof_atomic32_write_rlx(&s->taken, t + 1);
            (void)clof_atomic32_get_inc(&s->active);
            granted = true;
            break;
        }
        if (clof_cr_try_enter_(s, clof_cr_cap_(s)))
            break;
        clof_atomic32_wait(&w, &s->grants, g);
    }
    if (w.n != 0)
        clof_wait_end(&w);
    CLOF_CR_ON_HEAD(s, CLOF_CR_Q_BYPASSED_(&qc));
    CLOF_CR_ON_ADMIT(s, granted); /* still the head: admissions in order */
    clof_cr_passive_exit_(s, mirror);
    CLOF_CR_Q_(release)(&s->queue, &qc);
}

/* Before the inner acquire of a thread that found the lock taken: join the
 * active set, or wait in the passive one.  Returns the waiting policy's
 * signal (for clof_cr_acquired_). */
static inline clof_cr_signal_t clof_cr_admit_(clof_cr_t *s, clof_atomic32_t *mirror)
{
    if (!clof_cr_try_enter_(s, clof_cr_cap_(s)))
        clof_cr_passive_(s, mirror);
    return clof_cr_signal_();
}

/* After the inner acquire of an admitted thread (holding the lock): shrink
 * the active set when its wait could not keep a cpu (it lowered its spin
 * budget, or parked), and start the count of calm releases over
 * (clof_cr_calm_). */
static inline void clof_cr_acquired_(clof_cr_t *s, clof_cr_signal_t g)
{
    if (CLOF_CR_CROWDED(s, g)) {
        uint32_t c = clof_atomic32_read_rlx(&s->cap);
        if (c > 1)
            clof_atomic32_write_rlx(&s->cap, c - 1);
        clof_atomic32_write_rlx(&s->calm, 0);
    }
}

/* Whether contended acquisitions are counted (open: they are not). */
static inline bool clof_cr_limiting_(clof_cr_t *s)
{
    return !CLOF_CR_LAZY || clof_atomic32_read_rlx(&s->limiting) != 0;
}

/* After the inner acquire of an uncounted waiter of an open lock: limit
 * from now on if its wait could not keep a cpu. */
static inline void clof_cr_open_acquired_(clof_cr_t *s, clof_cr_signal_t g)
{
    if (CLOF_CR_CROWDED(s, g) && clof_atomic32_read_rlx(&s->limiting) == 0) {
        clof_atomic32_write_rlx(&s->limiting, 1);
        CLOF_CR_ON_LIMIT(s, 1);
    }
}

/* A counted release, still holding: grow the active set by one after
 * CLOF_CR_GROW counted releases in a row without a shrink signal, and open
 * the lock after CLOF_CR_CALM more in a row that found nobody passive with
 * the active set at its largest.  One count serves both (`calm`): below
 * the largest set only the growth counts, at it only the opening.
 *
 * Why the quiet growth: `cap` shrinks at every signal, and this is the
 * only way it grows (an idle grant does not grow it, above; nor would a
 * busy lock give one).  With as many threads as cpus,
 * a few signals (another process took a cpu for a moment) shrank `cap`
 * for good: every release then let one passive thread in and sent the
 * releaser, coming back, to the passive set, nearly every acquisition went
 * through it, and the lock never opened again -- 0.39-0.49x glibc for
 * `cr:mcs` and `cr:cna` at T = 16 on 16 cpus, against 0.77-0.92x for the
 * plain locks (docs/cr.md).  Where threads do outnumber cpus, signals
 * come far more often than one per CLOF_CR_GROW releases, and `cap` stays
 * where active waiters keep their cpus. */
CLOF_SLOW void clof_cr_calm_(clof_cr_t *s)
{
    uint32_t max = CLOF_CR_CPUS(), c = clof_atomic32_read_rlx(&s->cap);
    uint32_t was = clof_atomic32_read_rlx(&s->calm), k = was + 1;
    if (c == 0) {
        k = 0; /* not sized (a counted release has sized it: defensive) */
    } else if (c < max) { /* below its max: towards growing */
        if (k >= CLOF_CR_GROW) {
            clof_atomic32_write_rlx(&s->cap, c + 1);
            CLOF_CR_ON_GROW(s);
            k = 0;
        }
    } else if (clof_atomic32_read_rlx(&s->npassive) == 0) { /* towards opening */
        if (k >= CLOF_CR_CALM) {
            clof_atomic32_write_rlx(&s->limiting, 0);
            CLOF_CR_ON_LIMIT(s, 0);
            k = 0;
        }
    } else {
        k = 0;
    }
    if (k != was)
        clof_atomic32_write_rlx(&s->calm, k);
}

/* Number a release (NUMBER(l) of the generator, below, in the layout of
 * CLOF_CR_LOCK): the holder's count in the state.  Only the number modulo
 * CLOF_CR_ADMIT_EVERY is used (the periodic grant), so a layout may keep
 * fewer bits, and keep them elsewhere: the preload library keeps 8 in its
 * mutex (pl_internal.h), because a write to the state's line at every
 * release while passive threads wait moved that line between cpus at
 * every hand-over -- 0.73x glibc at T = 16 on 2 vCPUs, 0.94x without it
 * (docs/cr.md). */
static inline uint32_t clof_cr_number_(clof_cr_t *s)
{
    uint32_t n = clof_atomic32_read_rlx(&s->releases) + 1;
    clof_atomic32_write_rlx(&s->releases, n);
    return n;
}

/* The release's slow part, still holding (before the inner release),
 * after the generator numbered it (`n`): count the calm ones, and clear a
 * mirror left set with nobody passive (the mirror may live in the lock's
 * own memory, which is not to be touched after the inner release).  The
 * mirror is checked at the releases that read the state anyway (counted,
 * or due a periodic grant): a release that is neither touches no line but
 * the lock's own while passive threads wait, and a mirror left set with
 * nobody passive (a race, clof_cr_mirror_clear_) costs at most
 * CLOF_CR_ADMIT_EVERY slow releases. */
CLOF_SLOW void clof_cr_releasing_(clof_cr_t *s, uint32_t counted, clof_atomic32_t *mirror,
                                  uint32_t n)
{
    if (CLOF_CR_LAZY && counted)
        clof_cr_calm_(s);
    if (mirror != NULL && (counted || (n & (CLOF_CR_ADMIT_EVERY - 1)) == 0))
        clof_cr_mirror_heal_(s, mirror);
}

/* After the inner release (`n` = this release's number): leave the active
 * set; issue the idle and the periodic grants, and wake the head.
 * Done after the inner release so that the critical section does not
 * grow by an RMW on the layer's line (the next holder is handed the lock
 * first).  The lock may by then be taken, released and destroyed by other
 * threads (POSIX allows a mutex's destruction as soon as it is unlocked),
 * and its state reused by another lock (the preload library's state
 * blocks): each of these writes is harmless there.  A late decrement
 * leaves `active` one below the other lock's count, which `active` being
 * read as signed absorbs (clof_cr_try_enter_ admits one more; the idle
 * test below fires one release early: one more grant); a late grant
 * admits one more passive thread; a late `cap` write stays within
 * [1, cpus]; the wake only hashes the address. */
CLOF_SLOW void clof_cr_released_(clof_cr_t *s, uint32_t counted, uint32_t n)
{
    if (counted && (int32_t)clof_atomic32_get_dec(&s->active) <= 1 &&
        clof_atomic32_read(&s->npassive) != 0) {
        /* the active set is empty and passive threads wait: admit one
         * (not a reason to grow `cap`: see the active set, above) */
        if (clof_cr_grant_(s, true))
            clof_cr_wake_(s);
        return;
    }
    if ((n & (CLOF_CR_ADMIT_EVERY - 1)) == 0 &&
        clof_atomic32_read(&s->npassive) != 0 && clof_cr_grant_(s, false))
        clof_cr_wake_(s);
}

/* ---- the generator ---------------------------------------------------------- */

/** Static initializer of a lock of CLOF_CR_LOCK over an inner lock whose
 *  static initializer is inner_init (CLOF_CR_INITIALIZER(
 *  CLOF_MCS_INITIALIZER) over MCS). */
#define CLOF_CR_INITIALIZER(inner_init) {inner_init, CLOF_CR_STATE_INITIALIZER}

/** CLOF_CR_CTX(N, B): declare the context clof_N_ctx_t of the layer over
 * the inner lock clof_B_t: B's context (member base) and whether the
 * acquisition counted in the active set (member counted). */
#define CLOF_CR_CTX(N, B)                                                      \
    typedef struct {                                                           \
        clof_##B##_ctx_t base;                                                 \
        uint32_t counted; /* this acquisition is in `active` */                \
    } clof_##N##_ctx_t;

/* ---- the layer as functions over a table ----
 * clof_cr_ops_t: a lock's layout (its accessors, below) and its inner
 * lock's operations, typed void *; l: the lock, c: its context (bc, the
 * inner lock's context in it, counted: the context's flag).  The functions
 * are always inlined with a constant table, so every entry is a direct
 * call, inlined in turn (compose.h's scheme); CLOF_CR_FUNCTIONS (below)
 * fills the table and defines the interface as one-line calls of these. */
typedef struct {
    void *(*base)(void *l);                 /* BASE(l) */
    clof_cr_t *(*state)(void *l);           /* STATE(l) */
    uint32_t (*hint)(void *l);              /* HINT(l) */
    clof_atomic32_t *(*mirror)(void *l);    /* MIRROR(l) */
    uint32_t (*number)(void *l);            /* NUMBER(l) */
    void (*acquire)(void *b, void *bc);     /* the inner lock's */
    bool (*tryacquire)(void *b, void *bc);
    void (*release)(void *b, void *bc);
    bool (*has_waiters)(void *b, void *bc);
    /* the lock's out-of-line slow paths (clof_<name>_acquire_slow_,
     * clof_<name>_release_slow_: the functions below over this table) */
    void (*acquire_slow)(void *l, void *c);
    void (*release_slow)(void *l, void *c, uint32_t counted);
} clof_cr_ops_t;

/* Barging while open (native only): before queueing in the inner lock, an
 * uncounted waiter of an open lock retries its tryacquire a few times,
 * CLOF_CR_BARGE_POLLS, CLOF_CR_BARGE_PAUSE pauses apart.  While threads
 * have cpus (the lock is open: no wait has yielded or parked), a releaser
 * that comes back at once then takes its lock again, as glibc's does,
 * instead of queueing behind the thread it handed to.  Queued waiters lose
 * nothing to it: the inner lock's tryacquire takes only a lock nobody
 * queues for, so it orders the bargers among themselves and the
 * releaser, and after its polls a barger queues as before.  At T = 2 on
 * 2 cpus with nothing outside the critical section (pl_lockloop) the FIFO
 * lock otherwise alternated at every acquisition: 0.34-0.50x glibc, and
 * 1.73-2.58x with the polls (docs/lab/peers-notebook.md, 2026-11-29).
 * Native only (a backend with a cpu count): the model checkers' clients
 * run the layer without it, and what it adds is the inner lock's own
 * tryacquire, checked with the inner lock.  CLOF_CR_BARGE_POLLS=0 turns
 * it off. */
#ifndef CLOF_CR_BARGE_POLLS
/** Barging while open: the tryacquire retries of an uncounted waiter
 *  before it queues in the inner lock (native only; 0 turns it off). */
#define CLOF_CR_BARGE_POLLS 32u
#endif
#ifndef CLOF_CR_BARGE_PAUSE
/** Barging while open: the pauses between two of those retries. */
#define CLOF_CR_BARGE_PAUSE 16u
#endif
CLOF_INLINE bool clof_cr_barge_(const clof_cr_ops_t *o, void *l, void *bc)
{
#if defined(CLOF_BE_HAS_CPU_COUNT)
    for (uint32_t i = 0; i < (uint32_t)(CLOF_CR_BARGE_POLLS); i++) {
        clof_wait_delay(CLOF_CR_BARGE_PAUSE);
        if (o->tryacquire(o->base(l), bc))
            return true;
    }
#else
    (void)o, (void)l, (void)bc;
#endif
    return false;
}

/* The acquisition that found the inner lock taken: wait uncounted while
 * the layer is open, else be admitted (or wait passive) first. */
CLOF_INLINE void clof_cr_acquire_slow(const clof_cr_ops_t *o, void *l, void *bc,
                                      uint32_t *counted)
{
    clof_cr_t *s = o->state(l);
    if (!clof_cr_limiting_(s)) { /* open: wait uncounted */
        *counted = 0;
        if (clof_cr_barge_(o, l, bc))
            return;
        clof_cr_signal_t sig = clof_cr_signal_();
        o->acquire(o->base(l), bc);
        clof_cr_open_acquired_(s, sig);
        return;
    }
    clof_cr_signal_t sig = clof_cr_admit_(s, o->mirror(l));
    *counted = 1;
    o->acquire(o->base(l), bc);
    clof_cr_acquired_(s, sig);
}

/* The fast path: the inner lock free, taken uncounted. */
CLOF_INLINE void clof_cr_acquire(const clof_cr_ops_t *o, void *l, void *c,
                                 void *bc, uint32_t *counted)
{
    if (CLOF_LIKELY(o->tryacquire(o->base(l), bc))) {
        *counted = 0;
        return;
    }
    o->acquire_slow(l, c);
}

/* The release that needs the layer: number it, then the inner release
 * between the layer's two halves (clof_cr_releasing_, clof_cr_released_). */
CLOF_INLINE void clof_cr_release_slow(const clof_cr_ops_t *o, void *l, void *bc,
                                      uint32_t counted)
{
    clof_cr_t *s = o->state(l); /* before the inner release: above */
    uint32_t n = o->number(l);
    clof_cr_releasing_(s, counted, o->mirror(l), n);
    o->release(o->base(l), bc);
    clof_cr_released_(s, counted, n);
}

/* The release in two halves, for an includer that dispatches itself (the
 * preload library: it tail-calls its own slow path when the first says
 * so, and its fast path then makes no call and needs no stack frame):
 * does this release need the layer (a counted acquisition, or passive
 * threads may wait)?  If not, the inner release is all of it. */
CLOF_INLINE bool clof_cr_release_needs_layer(const clof_cr_ops_t *o, void *l,
                                             uint32_t counted)
{
    return (counted | o->hint(l)) != 0;
}

CLOF_INLINE void clof_cr_release(const clof_cr_ops_t *o, void *l, void *c,
                                 void *bc, uint32_t counted)
{
    if (CLOF_UNLIKELY(clof_cr_release_needs_layer(o, l, counted))) {
        o->release_slow(l, c, counted);
        return;
    }
    o->release(o->base(l), bc);
}

CLOF_INLINE bool clof_cr_has_waiters(const clof_cr_ops_t *o, void *l, void *bc)
{
    return o->has_waiters(o->base(l), bc) || o->hint(l) != 0;
}

/** CLOF_CR_FUNCTIONS(N, B, BASE, STATE, HINT, MIRROR, NUMBER): the layer
 * over the inner lock clof_B_t in a layout of the includer's.
 *
 * It defines the functions of the lock interface, clof_N_acquire,
 * clof_N_tryacquire, clof_N_release and clof_N_has_waiters (lock.h), for a
 * lock type clof_N_t and a context clof_N_ctx_t (CLOF_CR_CTX) declared
 * before, whose parts are reached through five accessors, each applied to
 * the lock pointer l:
 *   - BASE(l): the inner lock, clof_B_t *;
 *   - STATE(l): the layer's state, clof_cr_t * (slow paths only: it may
 *     look the state up, or install it at a first contention);
 *   - HINT(l): nonzero when passive threads may wait: the release's fast
 *     path and has_waiters read it (relaxed);
 *   - MIRROR(l): the word whose bit 0 HINT reads, which the layer keeps
 *     (clof_cr_mirror_clear_), or NULL when HINT reads `npassive`;
 *   - NUMBER(l): numbers a release, by its holder, before the inner
 *     release: returns the number, of which only the low bits (modulo
 *     CLOF_CR_ADMIT_EVERY) are used (clof_cr_number_).
 *
 * CLOF_CR_LOCK below is the layer with its state beside the inner lock
 * (HINT = `npassive`, the number in the state); the preload library keeps
 * the inner lock in the mutex and the state in a block of its own, with
 * the mirror and the number in the mutex (src/preload/pl_internal.h).
 * The functions are the same: those above, over the table clof_N_cr
 * that the accessors fill. */
#define CLOF_CR_FUNCTIONS(N, B, BASE, STATE, HINT, MIRROR, NUMBER)             \
    CLOF_CR_TABLE_(N, B, BASE, STATE, HINT, MIRROR, NUMBER)                    \
    CLOF_SLOW void clof_##N##_acquire_slow_(void *l, void *c)                  \
    { clof_cr_acquire_slow(&clof_##N##_cr, l, &CLOF_CR_C_(N, c)->base, &CLOF_CR_C_(N, c)->counted); } \
    CLOF_SLOW void clof_##N##_release_slow_(void *l, void *c, uint32_t counted) \
    { clof_cr_release_slow(&clof_##N##_cr, l, &CLOF_CR_C_(N, c)->base, counted); } \
    CLOF_INLINE void clof_##N##_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c)  \
    { clof_cr_acquire(&clof_##N##_cr, l, c, &c->base, &c->counted); }          \
    /* tryacquire through `try_inner`, the inner lock's tryacquire or a    \
     * quicker attempt that may fail where it would not (the preload        \
     * library's lock fast path, which then acquires in full) */            \
    CLOF_INLINE bool clof_##N##_tryacquire_with_(                              \
        clof_##N##_t *l, clof_##N##_ctx_t *c,                                  \
        bool (*try_inner)(clof_##B##_t *, clof_##B##_ctx_t *))                 \
    { c->counted = 0; return try_inner(BASE(l), &c->base); }                   \
    CLOF_INLINE bool clof_##N##_tryacquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_##N##_tryacquire_with_(l, c, clof_##B##_tryacquire); }       \
    CLOF_INLINE bool clof_##N##_release_needs_layer_(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_cr_release_needs_layer(&clof_##N##_cr, l, c->counted); }     \
    CLOF_INLINE void clof_##N##_release_inner_(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_##B##_release(BASE(l), &c->base); }                                 \
    CLOF_INLINE void clof_##N##_release(clof_##N##_t *l, clof_##N##_ctx_t *c)  \
    { clof_cr_release(&clof_##N##_cr, l, c, &c->base, c->counted); }           \
    CLOF_INLINE bool clof_##N##_has_waiters(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_cr_has_waiters(&clof_##N##_cr, l, &c->base); }

#define CLOF_CR_L_(N, l) ((clof_##N##_t *)(l))
#define CLOF_CR_C_(N, c) ((clof_##N##_ctx_t *)(c))
#define CLOF_CR_B_(B, b) ((clof_##B##_t *)(b))
#define CLOF_CR_BC_(B, c) ((clof_##B##_ctx_t *)(c))
/* The table clof_<name>_cr: the accessors and the inner lock's operations
 * as functions of void *, one cast each. */
#define CLOF_CR_TABLE_(N, B, BASE, STATE, HINT, MIRROR, NUMBER)                \
    CLOF_INLINE void *clof_##N##_base_(void *l) { return BASE(CLOF_CR_L_(N, l)); } \
    CLOF_INLINE clof_cr_t *clof_##N##_state_(void *l) { return STATE(CLOF_CR_L_(N, l)); } \
    CLOF_INLINE uint32_t clof_##N##_hint_(void *l) { return HINT(CLOF_CR_L_(N, l)); } \
    CLOF_INLINE clof_atomic32_t *clof_##N##_mirror_(void *l) { return MIRROR(CLOF_CR_L_(N, l)); } \
    CLOF_INLINE uint32_t clof_##N##_number_(void *l) { return NUMBER(CLOF_CR_L_(N, l)); } \
    CLOF_INLINE void clof_##N##_b_acq_(void *b, void *c)                       \
    { clof_##B##_acquire(CLOF_CR_B_(B, b), CLOF_CR_BC_(B, c)); }               \
    CLOF_INLINE bool clof_##N##_b_try_(void *b, void *c)                       \
    { return clof_##B##_tryacquire(CLOF_CR_B_(B, b), CLOF_CR_BC_(B, c)); }     \
    CLOF_INLINE void clof_##N##_b_rel_(void *b, void *c)                       \
    { clof_##B##_release(CLOF_CR_B_(B, b), CLOF_CR_BC_(B, c)); }               \
    CLOF_INLINE bool clof_##N##_b_hw_(void *b, void *c)                        \
    { return clof_##B##_has_waiters(CLOF_CR_B_(B, b), CLOF_CR_BC_(B, c)); }    \
    CLOF_SLOW void clof_##N##_acquire_slow_(void *l, void *c);                 \
    CLOF_SLOW void clof_##N##_release_slow_(void *l, void *c, uint32_t counted); \
    static const __attribute__((unused)) clof_cr_ops_t clof_##N##_cr = {       \
        clof_##N##_base_, clof_##N##_state_, clof_##N##_hint_,                 \
        clof_##N##_mirror_, clof_##N##_number_, clof_##N##_b_acq_,             \
        clof_##N##_b_try_, clof_##N##_b_rel_, clof_##N##_b_hw_,                \
        clof_##N##_acquire_slow_, clof_##N##_release_slow_};

/* The accessors of CLOF_CR_LOCK's layout: the state beside the inner lock. */
#define CLOF_CR_BASE_(l) (&(l)->base)
#define CLOF_CR_STATE_(l) (&(l)->cr)
#define CLOF_CR_HINT_(l) clof_atomic32_read_rlx(&(l)->cr.npassive)
#define CLOF_CR_NO_MIRROR_(l) ((void)(l), (clof_atomic32_t *)NULL)
#define CLOF_CR_NUMBER_(l) clof_cr_number_(&(l)->cr)

/** CLOF_CR_LOCK(N, B): declare the concurrency-restricted lock clof_N_t
 * over the clof lock clof_B_t (its header included before), as
 * CLOF_CR_LOCK(cr_mcs, mcs) declares clof_cr_mcs_t.
 *
 * It declares clof_N_t (the inner lock as its member base, then the
 * layer's clof_cr_t cr on a cache line of its own; static initializer
 * CLOF_CR_INITIALIZER; zero bytes are an unlocked lock when they are for
 * B), clof_N_ctx_t (CLOF_CR_CTX; valid when zero-filled) and the interface
 * of lock.h: void clof_N_init(clof_N_t *l) (clof_B_init of the inner lock
 * and the state's init: a composed inner lock's init_topo and destroy stay
 * the caller's, on l->base), clof_N_acquire, clof_N_tryacquire,
 * clof_N_release and clof_N_has_waiters (the inner lock's, or passive
 * threads waiting). */
#define CLOF_CR_LOCK(N, B)                                                     \
    typedef struct {                                                           \
        clof_##B##_t base;                                                     \
        clof_cr_t cr CLOF_CACHE_ALIGNED; /* not on the inner lock's line */    \
    } clof_##N##_t;                                                            \
    CLOF_CR_CTX(N, B)                                                          \
    static inline __attribute__((unused)) void clof_##N##_init(clof_##N##_t *l) \
    {                                                                          \
        clof_##B##_init(&l->base);                                             \
        clof_cr_state_init(&l->cr);                                            \
    }                                                                          \
    CLOF_CR_FUNCTIONS(N, B, CLOF_CR_BASE_, CLOF_CR_STATE_, CLOF_CR_HINT_,      \
                      CLOF_CR_NO_MIRROR_, CLOF_CR_NUMBER_)

#ifdef __cplusplus
}
#endif

#endif /* CLOF_CR_H */
