/* SPDX-License-Identifier: MIT */
/*
 * Abortable cohort locks: A-C-BO-BO and A-C-BO-CLH.
 *
 * Algorithm: a cohort lock (numa/cohort.h: a thread-oblivious global BO
 * lock, one local lock per NUMA node, the global lock passed inside the
 * node up to a batch bound) whose acquisition can be abandoned at a
 * deadline.  Abortability breaks plain cohort detection: a releaser that
 * saw a waiting node-mate and passed the global lock to it locally would
 * deadlock the other nodes if every such waiter then aborted.  So the local
 * locks here pass the global lock only to a *viable* successor, one that can
 * no longer abort (cohort paper §3.4):
 *
 *   A-C-BO-BO (§3.4.1, Fig. 6).  Local lock: a BO word FREE (= released
 *     globally: the next owner must take the global lock), LOCKED, or
 *     FORWARDED (released locally: the next owner inherits the global
 *     lock), and a count of the node-mates inside the local acquire (the
 *     paper's `successor-exists` flag, as the counter its footnote
 *     suggests).  Release: if the count is non-zero, store FORWARDED, then
 *     re-read the count; if it dropped to zero meanwhile, take FORWARDED back
 *     with a CAS to FREE and release the global lock (if the CAS fails a
 *     node-mate already took the forwarded lock).  An aborting waiter
 *     decrements the count and then re-reads the word: if it is FORWARDED
 *     it takes the lock instead of leaving.  The store/load pairs on both
 *     sides are seq_cst (a Dekker handshake), so either the releaser sees the
 *     abort or the aborter sees the forward.
 *   A-C-BO-CLH (§3.4.2).  Local lock: Scott's abortable CLH queue.  A node's
 *     word is BUSY, BUSY|SUCC_ABORTED, RELEASED_GLOBAL, RELEASED_LOCAL, or
 *     the address of its predecessor (its owner aborted: the successor skips
 *     to that node).  The successor-aborted flag sits in the same word as
 *     the state, so the releaser's CAS BUSY -> RELEASED_LOCAL and an
 *     aborting successor's CAS BUSY -> BUSY|SUCC_ABORTED exclude each other:
 *     a local hand-over succeeds only to a successor that has not aborted,
 *     and that successor, seeing its CAS fail, takes the lock.  An aborting
 *     thread that is the queue's tail swings the tail back to its
 *     predecessor; otherwise it publishes the predecessor's address.
 *     Queue nodes outlive the acquisition that used them (a successor may
 *     still read an aborted node), so they come from a per-thread pool in
 *     libclof (src/acohort.c) and are recycled by the thread that reads them
 *     last; an idle lock holds no node (tail NULL = released globally) --
 *     except after a global release whose CAS of the tail to NULL lost to
 *     an arrival that then aborted and swung the tail back: the tail is then
 *     the releaser's node, RELEASED_GLOBAL, which the next arrival recycles
 *     (found by the model checker's idle check, verify/clients_timed.c).
 *
 * The fast path (not in the paper; compose.h's, made abortable): the fast
 * word above the global lock, HELD | TOPWAIT, held exactly when the lock is.
 *   - acquire, acquire_until and tryacquire first try the CAS 0 -> HELD
 *     (one atomic operation uncontended, no node lock, no global lock, no
 *     A-CLH node); tryacquire and acquire_until with deadline 0 are that CAS
 *     alone; otherwise the paper's path above;
 *   - the thread that takes the global lock (not one that inherits it
 *     through FORWARDED / RELEASED_LOCAL) then takes HELD by the same
 *     deadline (clof_compose_fast_take_until_): if a fast owner holds it, it
 *     sets TOPWAIT (keeping new arrivals out) and waits; at the deadline it
 *     withdraws its TOPWAIT with a CAS HELD|TOPWAIT -> HELD -- or, if that
 *     CAS finds the fast owner gone, takes the lock after all -- and gives up
 *     as the paper's timeout does: releases the global lock, then the node
 *     lock (FREE; A-CLH: RELEASED_GLOBAL or the tail swung back);
 *   - the system-level owner keeps HELD across local passes and clears it
 *     (a release store: only it can have set TOPWAIT, so the word is HELD)
 *     just before every release of the global lock: the global release, and
 *     A-C-BO-BO's forward taken back after its last waiter aborted;
 *   - a fast owner releases with clof_compose_fast_release_ (a seq_cst
 *     subtraction, waking the system-level owner if TOPWAIT was set); its
 *     has_waiters reports TOPWAIT only.
 * Bypass bound: a fast owner delays the system-level owner by at most one
 * critical section (or makes it give up at its deadline); arrivals get past
 * queued waiters only while the global lock is between owners (the fast word
 * is 0 then), one each time, as arrivals already do at the BO global lock.
 * The local-pass bound is unchanged (fast acquisitions take no node lock).
 * -DCLOF_COMPOSE_NO_FAST_PATH builds the paper's locks exactly.
 *
 * Paper: Lock Cohorting (TOPC'15) §3.4 (Fig. 6, A-C-BO-BO; §3.4.2,
 * A-C-BO-CLH after Scott, PODC'02).  The global lock is BO's
 * clof_bo_acquire_until (lock/bo.h).
 * Properties: unfair (BO global lock); the node's lock is passed at most
 * `threshold` times in a row (the NUMA level's threshold of the hierarchy,
 * default 128); both are thread-oblivious with the same context; zero
 * bytes are a valid lock (the tree is built at first use, compose.h); a
 * thread that migrates between acquire and release stays correct (the node
 * lock is kept in the context).  On a hierarchy without a NUMA level the
 * lowest level is used.
 *
 * Interface: the one of every clof lock (lock.h, generated by compose.h's
 * front end) plus
 *     bool clof_<name>_acquire_until(lock, ctx, deadline_ns)
 * deadline_ns on the clock of clof_now_ns() (CLOCK_MONOTONIC natively;
 * CLOF_DEADLINE_NONE = wait forever, 0 = try once): true with the lock held,
 * false on timeout with nothing held and the lock consistent.  tryacquire is
 * acquire_until with deadline 0 (with the fast path: the fast CAS alone).
 * Names: a_c_bo_bo / "a-c-bo-bo", a_c_bo_clh / "a-c-bo-clh".
 *
 * Memory orders:
 *   A-C-BO-BO: the polling read of the word is relaxed (it only decides when
 *     to exchange); the exchange that wins is acquire and reads the
 *     releasing write (FREE: a waking store, release, seq_cst under
 *     spin-park; FORWARDED: a seq_cst exchange).  The forward is a seq_cst
 *     exchange followed by a seq_cst read of the count, and the aborter's
 *     decrement is a seq_cst RMW before its seq_cst re-read of the word: the
 *     Dekker pair above.
 *     The success-path decrement is relaxed: the count only has to be
 *     exact for threads that abort.  count/threshold are the owner's
 *     (ordered by the local lock's acquire/release).
 *   A-C-BO-CLH: the node word is initialised relaxed and published by the
 *     seq_cst exchange on the tail; predecessor words are read with acquire
 *     (pairs with the release of RELEASED_* and of the aborted node's
 *     address, which publishes the next node to follow); all CASes on node
 *     words and the tail are seq_cst (they decide ownership).
 *   The fast word: compose.h's orders -- the taking CASes are acquire (they
 *     read the clearing store of the previous system-level owner, release,
 *     or the fast owner's seq_cst subtraction), the pre-read of an arrival
 *     is relaxed (a filter), setting TOPWAIT and the fast owner's
 *     subtraction are seq_cst RMWs of one word (the fast owner sees TOPWAIT
 *     whenever the system-level owner may wait or sleep).  The withdrawal at
 *     a timeout is a seq_cst CAS; it needs no order of its own (it publishes
 *     nothing, and if it fails the retry that takes HELD is acquire).
 *     Between system-level owners the global lock and node lock order the
 *     data as in the paper; the clearing store precedes the global lock's
 *     release in program order, so the next system-level owner's take
 *     (after its acquire of the global lock) reads it or a later value,
 *     never its predecessor's HELD.
 */
/** \file
 * The abortable cohort locks A-C-BO-BO and A-C-BO-CLH (Lock Cohorting,
 * TOPC'15 §3.4): cohort locks of a global BO lock and an abortable local
 * lock per NUMA node, with acquire_until (a deadline) besides the
 * interface of every clof lock; with compose.h's fast path, made
 * abortable.  Link libclof (the topology, A-C-BO-CLH's node pool).
 * Algorithm, properties and memory orders: the comment at the top of the
 * header.  Each lock's node level (clof_a_c_bo_bo_l0_t, its functions
 * clof_a_c_bo_bo_acq0 ...: the level compose.h's front end calls) is
 * internal.
 */
#ifndef CLOF_NUMA_ACOHORT_H
#define CLOF_NUMA_ACOHORT_H

#include <clof/numa/cohort.h>
#include <clof/hier/fast.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the node pool of A-C-BO-CLH (libclof, src/acohort.c) ---- */
/** A queue node of A-C-BO-CLH's local lock (a cache line); it outlives the
 *  acquisition that used it, so it comes from a per-thread pool. */
typedef struct clof_aclh_node {
    clof_atomic64_t word; /**< CLOF_ACLH_*, or an aborted owner's predecessor */
    struct clof_aclh_node *free_next; /**< pool link, while unused */
} CLOF_CACHE_ALIGNED clof_aclh_node_t;

/** A node from the calling thread's pool (allocated when the pool is empty;
 * aborts the process when memory is exhausted, as a lazy tree does). */
clof_aclh_node_t *clof_aclh_node_get(void);
/** Return a node nobody reads any more to the calling thread's pool (freed
 * when the thread exits). */
void clof_aclh_node_put(clof_aclh_node_t *n);

#ifdef __cplusplus
}
#endif

/* ---- the fast path's word (hier/fast.h), for both ---- */
/* The thread that took the global lock takes HELD by its deadline; false:
 * timed out, HELD not taken, no TOPWAIT left behind (the caller gives the
 * global and the node lock up).  Without the fast path: nothing to take. */
CLOF_INLINE bool clof_acohort_fast_take_(clof_atomic32_t *f, uint64_t deadline)
{
    if (!CLOF_COMPOSE_FAST_ || CLOF_FAST_MUTANT(2)) /* 2: broken, no HELD */
        return true;
    return clof_compose_fast_take_until_(f, deadline);
}
/* The system-level owner clears HELD just before it releases the global
 * lock (highest first: the fast word is above the system level). */
CLOF_INLINE void clof_acohort_fast_drop_(clof_atomic32_t *f)
{
    if (CLOF_COMPOSE_FAST_)
        clof_compose_fast_drop_(f);
}

/* ================================================================ A-C-BO-BO */

/** \name A-C-BO-BO's local lock word */
/**@{*/
#define CLOF_ACBB_FREE 0u      /**< released globally */
#define CLOF_ACBB_LOCKED 1u    /**< held (or being taken) */
#define CLOF_ACBB_FORWARDED 2u /**< released locally: global lock inherited */
/**@}*/

CLOF_CMP_TOP_(a_c_bo_bo, 1, bo)

typedef struct {
    clof_atomic32_t state;   /* FREE / LOCKED / FORWARDED */
    clof_atomic32_t waiting; /* node-mates inside the acquire */
    uint32_t count;          /* consecutive local passes (owner) */
    uint32_t threshold;
    clof_a_c_bo_bo_l1_t *high;
} CLOF_CACHE_ALIGNED clof_a_c_bo_bo_l0_t;
typedef clof_noctx_t clof_a_c_bo_bo_c0_t;

CLOF_GEN_ void clof_a_c_bo_bo_node_init0(void *node,
                                         uint32_t threshold, void *high)
{
    clof_a_c_bo_bo_l0_t *n = (clof_a_c_bo_bo_l0_t *)node;
    memset(n, 0, sizeof *n);
    n->threshold = threshold ? threshold : CLOF_COMPOSE_THRESHOLD;
    n->high = (clof_a_c_bo_bo_l1_t *)high;
}

/* Holding the node lock released globally: take the global lock, then
 * HELD; on timeout give up what is held. */
CLOF_GEN_ uint32_t clof_a_c_bo_bo_global_(clof_a_c_bo_bo_l0_t *n,
                                          uint64_t deadline)
{
    clof_bo_ctx_t hc;
    n->count = 0;
    if (clof_bo_acquire_until(&n->high->lock, &hc, deadline)) {
        if (clof_acohort_fast_take_(n->high->fast, deadline))
            return 2;
        clof_bo_release(&n->high->lock, &hc); /* a fast owner stayed */
    }
    clof_atomic32_write_wake(&n->state, CLOF_ACBB_FREE); /* give up */
    return 0;
}

CLOF_SLOW uint32_t clof_a_c_bo_bo_slow_(clof_a_c_bo_bo_l0_t *n,
                                        uint64_t deadline)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    clof_atomic32_inc(&n->waiting);
    for (;;) {
        uint32_t s = clof_atomic32_read_rlx(&n->state);
        if (s != CLOF_ACBB_LOCKED) {
            uint32_t r = clof_atomic32_xchg_acq(&n->state, CLOF_ACBB_LOCKED);
            if (r != CLOF_ACBB_LOCKED) {
                clof_atomic32_dec_rlx(&n->waiting);
                return r == CLOF_ACBB_FORWARDED
                           ? 1
                           : clof_a_c_bo_bo_global_(n, deadline);
            }
            continue;
        }
        if (clof_atomic32_wait_until(&w, &n->state, s, deadline))
            continue;
        /* abort: retract, then look for a forward made before we left */
        clof_atomic32_dec(&n->waiting);
        if (clof_atomic32_read(&n->state) == CLOF_ACBB_FORWARDED) {
            uint32_t r = clof_atomic32_xchg_acq(&n->state, CLOF_ACBB_LOCKED);
            if (r == CLOF_ACBB_FORWARDED)
                return 1; /* the forward was for us: we hold the lock */
            if (r == CLOF_ACBB_FREE) /* took it back: not ours to keep */
                clof_atomic32_write_wake(&n->state, CLOF_ACBB_FREE);
        }
        return 0;
    }
}

/* levels acquired (1 = inherited, 2 = global taken), 0 on timeout */
CLOF_INLINE uint32_t clof_a_c_bo_bo_acqu0(clof_a_c_bo_bo_l0_t *n,
                                          clof_a_c_bo_bo_c0_t *c,
                                          uint64_t deadline)
{
    (void)c;
    if (CLOF_LIKELY(clof_atomic32_read_rlx(&n->state) != CLOF_ACBB_LOCKED)) {
        uint32_t r = clof_atomic32_xchg_acq(&n->state, CLOF_ACBB_LOCKED);
        if (r == CLOF_ACBB_FORWARDED)
            return 1;
        if (r == CLOF_ACBB_FREE)
            return clof_a_c_bo_bo_global_(n, deadline);
    }
    return clof_a_c_bo_bo_slow_(n, deadline);
}
CLOF_INLINE uint32_t clof_a_c_bo_bo_acq0(void *node, void *ctx)
{
    clof_a_c_bo_bo_l0_t *n = (clof_a_c_bo_bo_l0_t *)node;
    clof_a_c_bo_bo_c0_t *c = (clof_a_c_bo_bo_c0_t *)ctx;
    return clof_a_c_bo_bo_acqu0(n, c, CLOF_DEADLINE_NONE);
}
CLOF_INLINE bool clof_a_c_bo_bo_try0(void *node, void *ctx)
{
    clof_a_c_bo_bo_l0_t *n = (clof_a_c_bo_bo_l0_t *)node;
    clof_a_c_bo_bo_c0_t *c = (clof_a_c_bo_bo_c0_t *)ctx;
    return clof_a_c_bo_bo_acqu0(n, c, 0) != 0;
}
CLOF_INLINE void clof_a_c_bo_bo_rel0(void *node, void *ctx)
{
    clof_a_c_bo_bo_l0_t *n = (clof_a_c_bo_bo_l0_t *)node;
    clof_a_c_bo_bo_c0_t *c = (clof_a_c_bo_bo_c0_t *)ctx;
    clof_bo_ctx_t hc;
    (void)c;
    if (clof_atomic32_read_rlx(&n->waiting) != 0 &&
        ++n->count < n->threshold) {
        /* seq_cst exchange (the forward) then seq_cst read: the Dekker pair
         * with an aborter's decrement and re-read */
        (void)clof_atomic32_xchg(&n->state, CLOF_ACBB_FORWARDED);
        clof_atomic32_wake(&n->state, CLOF_ACBB_FORWARDED);
        if (clof_atomic32_read(&n->waiting) != 0)
            return; /* someone inside will take it or see it when aborting */
        if (clof_atomic32_cmpxchg(&n->state, CLOF_ACBB_FORWARDED,
                                  CLOF_ACBB_FREE) != CLOF_ACBB_FORWARDED)
            return; /* a node-mate took the forwarded lock */
        if (!CLOF_FAST_MUTANT(3)) /* 3: broken, the take-back keeps HELD */
            clof_acohort_fast_drop_(n->high->fast);
        clof_bo_release(&n->high->lock, &hc);
        return;
    }
    clof_acohort_fast_drop_(n->high->fast);
    clof_bo_release(&n->high->lock, &hc);
    /* a waiter that may park counted itself in `waiting` (seq_cst) before
     * reading the word: wake only if the seq_cst re-read shows one */
    clof_atomic32_write_wakeable(&n->state, CLOF_ACBB_FREE);
    if (CLOF_WAIT_CAN_PARK && clof_atomic32_read(&n->waiting) != 0)
        clof_atomic32_wake(&n->state, CLOF_ACBB_FREE);
}
CLOF_INLINE bool clof_a_c_bo_bo_hw0(void *node, void *ctx)
{
    clof_a_c_bo_bo_l0_t *n = (clof_a_c_bo_bo_l0_t *)node;
    clof_a_c_bo_bo_c0_t *c = (clof_a_c_bo_bo_c0_t *)ctx;
    clof_bo_ctx_t hc;
    (void)c;
    return clof_atomic32_read_rlx(&n->waiting) != 0 ||
           clof_bo_has_waiters(&n->high->lock, &hc);
}

/** \name A-C-BO-BO: abortable BO per NUMA node, BO global */
/**@{*/
/** Part of A-C-BO-BO, the abortable cohort lock of a BO lock per NUMA node
 *  under a global BO lock, with the interface CLOF_COMPOSE declares (see
 *  it for what each does; the deadline: clof_a_c_bo_bo_acquire_until). */
CLOF_CMP_FRONT_(a_c_bo_bo, clof_cohort_levels_, 2, 0, CLOF_COMPOSE_FAST_)
/**@}*/

/* ================================================================ A-C-BO-CLH */

/** \name A-C-BO-CLH's node word (clof_aclh_node_t::word); any larger value
 *  is the address of the aborted owner's predecessor */
/**@{*/
#define CLOF_ACLH_BUSY 0u         /**< held, or waited for */
#define CLOF_ACLH_SUCC_ABORTED 1u /**< flag on BUSY: the successor aborted */
#define CLOF_ACLH_REL_GLOBAL 2u   /**< released globally */
#define CLOF_ACLH_REL_LOCAL 4u    /**< released locally: global lock inherited */
/**@}*/
/* any larger value: the address of the aborted owner's predecessor */

CLOF_CMP_TOP_(a_c_bo_clh, 1, bo)

typedef struct {
    CLOF_ATOMICPTR(clof_aclh_node_t) tail; /* NULL: free, released globally */
    uint32_t count;                        /* consecutive local passes */
    uint32_t threshold;
    clof_a_c_bo_clh_l1_t *high;
} CLOF_CACHE_ALIGNED clof_a_c_bo_clh_l0_t;
typedef struct {
    clof_aclh_node_t *node; /* the node of the current acquisition */
} clof_a_c_bo_clh_c0_t;

CLOF_GEN_ void clof_a_c_bo_clh_node_init0(void *node,
                                          uint32_t threshold, void *high)
{
    clof_a_c_bo_clh_l0_t *n = (clof_a_c_bo_clh_l0_t *)node;
    memset(n, 0, sizeof *n);
    n->threshold = threshold ? threshold : CLOF_COMPOSE_THRESHOLD;
    n->high = (clof_a_c_bo_clh_l1_t *)high;
}

/* Release the node lock with the global lock released (or never taken). */
CLOF_GEN_ void clof_a_c_bo_clh_rel_global_(clof_a_c_bo_clh_l0_t *n,
                                           clof_aclh_node_t *me)
{
    if (clof_atomicptr_cmpxchg(&n->tail, me, (clof_aclh_node_t *)NULL) == me) {
        clof_aclh_node_put(me); /* no successor: the lock is idle */
        return;
    }
    clof_atomic64_write_wake(&me->word, CLOF_ACLH_REL_GLOBAL);
}

CLOF_GEN_ uint32_t clof_a_c_bo_clh_global_(clof_a_c_bo_clh_l0_t *n,
                                           clof_aclh_node_t *me,
                                           uint64_t deadline)
{
    clof_bo_ctx_t hc;
    n->count = 0;
    if (clof_bo_acquire_until(&n->high->lock, &hc, deadline)) {
        if (clof_acohort_fast_take_(n->high->fast, deadline))
            return 2;
        clof_bo_release(&n->high->lock, &hc); /* a fast owner stayed */
    }
    clof_a_c_bo_clh_rel_global_(n, me); /* give up */
    return 0;
}

CLOF_SLOW uint32_t clof_a_c_bo_clh_slow_(clof_a_c_bo_clh_l0_t *n,
                                         clof_aclh_node_t *me,
                                         clof_aclh_node_t *pred,
                                         uint64_t deadline)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    uint64_t x = clof_atomic64_read_acq(&pred->word);
    for (;;) {
        if (x == CLOF_ACLH_REL_LOCAL) {
            clof_aclh_node_put(pred);
            return 1;
        }
        if (x == CLOF_ACLH_REL_GLOBAL) {
            clof_aclh_node_put(pred);
            return clof_a_c_bo_clh_global_(n, me, deadline);
        }
        if (x > CLOF_ACLH_REL_LOCAL) { /* pred aborted: follow its link */
            clof_aclh_node_put(pred);
            pred = (clof_aclh_node_t *)(uintptr_t)x;
            x = clof_atomic64_read_acq(&pred->word);
            continue;
        }
        if (clof_atomic64_wait_until(&w, &pred->word, x, deadline)) {
            x = clof_atomic64_read_acq(&pred->word);
            continue;
        }
        /* abort: tell pred (fails if pred released or left meanwhile) */
        uint64_t seen = clof_atomic64_cmpxchg(&pred->word, x,
                                              x | CLOF_ACLH_SUCC_ABORTED);
        if (seen != x) {
            x = seen; /* re-evaluate (the CAS read it with acquire): it */
            continue; /* may hand us the lock, or send us further up */
        }
        if (clof_atomicptr_cmpxchg(&n->tail, me, pred) == me)
            clof_aclh_node_put(me); /* we were last: pred is the tail again */
        else /* a successor spins on us: send it to pred */
            clof_atomic64_write_wake(&me->word, (uint64_t)(uintptr_t)pred);
        return 0;
    }
}

CLOF_INLINE uint32_t clof_a_c_bo_clh_acqu0(clof_a_c_bo_clh_l0_t *n,
                                           clof_a_c_bo_clh_c0_t *c,
                                           uint64_t deadline)
{
    clof_aclh_node_t *me = clof_aclh_node_get();
    clof_atomic64_write_rlx(&me->word, CLOF_ACLH_BUSY);
    c->node = me;
    clof_aclh_node_t *pred = clof_atomicptr_xchg(&n->tail, me);
    if (pred == NULL)
        return clof_a_c_bo_clh_global_(n, me, deadline);
    return clof_a_c_bo_clh_slow_(n, me, pred, deadline);
}
CLOF_INLINE uint32_t clof_a_c_bo_clh_acq0(void *node, void *ctx)
{
    clof_a_c_bo_clh_l0_t *n = (clof_a_c_bo_clh_l0_t *)node;
    clof_a_c_bo_clh_c0_t *c = (clof_a_c_bo_clh_c0_t *)ctx;
    return clof_a_c_bo_clh_acqu0(n, c, CLOF_DEADLINE_NONE);
}
CLOF_INLINE bool clof_a_c_bo_clh_try0(void *node, void *ctx)
{
    clof_a_c_bo_clh_l0_t *n = (clof_a_c_bo_clh_l0_t *)node;
    clof_a_c_bo_clh_c0_t *c = (clof_a_c_bo_clh_c0_t *)ctx;
    return clof_a_c_bo_clh_acqu0(n, c, 0) != 0;
}
CLOF_INLINE void clof_a_c_bo_clh_rel0(void *node, void *ctx)
{
    clof_a_c_bo_clh_l0_t *n = (clof_a_c_bo_clh_l0_t *)node;
    clof_a_c_bo_clh_c0_t *c = (clof_a_c_bo_clh_c0_t *)ctx;
    clof_bo_ctx_t hc;
    clof_aclh_node_t *me = c->node;
    if (clof_atomic64_read_rlx(&me->word) == CLOF_ACLH_BUSY &&
        clof_atomicptr_read(&n->tail) != me && ++n->count < n->threshold) {
        if (clof_atomic64_cmpxchg(&me->word, CLOF_ACLH_BUSY,
                                  CLOF_ACLH_REL_LOCAL) == CLOF_ACLH_BUSY) {
            /* the successor can no longer abort: it inherits the global
             * lock and recycles our node (the wake only hashes the address) */
            clof_atomic64_wake(&me->word, CLOF_ACLH_REL_LOCAL);
            return;
        }
        /* the successor aborted: release globally */
    }
    clof_acohort_fast_drop_(n->high->fast);
    clof_bo_release(&n->high->lock, &hc);
    clof_a_c_bo_clh_rel_global_(n, me);
}
CLOF_INLINE bool clof_a_c_bo_clh_hw0(void *node, void *ctx)
{
    clof_a_c_bo_clh_l0_t *n = (clof_a_c_bo_clh_l0_t *)node;
    clof_a_c_bo_clh_c0_t *c = (clof_a_c_bo_clh_c0_t *)ctx;
    clof_bo_ctx_t hc;
    return clof_atomicptr_read_rlx(&n->tail) != c->node ||
           clof_bo_has_waiters(&n->high->lock, &hc);
}

/** \name A-C-BO-CLH: abortable CLH per NUMA node, BO global */
/**@{*/
/** Part of A-C-BO-CLH, the abortable cohort lock of Scott's abortable CLH
 *  queue per NUMA node under a global BO lock, with the interface
 *  CLOF_COMPOSE declares (see it for what each does; the deadline:
 *  clof_a_c_bo_clh_acquire_until). */
CLOF_CMP_FRONT_(a_c_bo_clh, clof_cohort_levels_, 2, 0, CLOF_COMPOSE_FAST_)
/**@}*/

/* ---- acquire with a deadline, for both ---- */
/* The fast word first (held exactly when HELD is set, so with deadline 0 a
 * failed CAS is the answer), then the node lock and the global lock (out of
 * line with the fast path, as compose.h's acquire). */
#define CLOF_ACOHORT_UNTIL_(N)                                                 \
    CLOF_INLINE bool clof_##N##_acquire_until_tree_(                           \
        clof_##N##_t *l, clof_##N##_ctx_t *c, uint64_t deadline_ns)            \
    {                                                                          \
        clof_##N##_l0_t *leaf = clof_##N##_leaf_(l);                           \
        uint32_t taken = clof_##N##_acqu0(leaf, &c->c0, deadline_ns);          \
        if (!taken)                                                            \
            return false;                                                      \
        c->leaf = leaf;                                                        \
        CLOF_COMPOSE_ON_ACQUIRE(taken);                                        \
        return true;                                                           \
    }                                                                          \
    CLOF_CMP_OUTLINE_ bool clof_##N##_acquire_until_slow_(                     \
        clof_##N##_t *l, clof_##N##_ctx_t *c, uint64_t deadline_ns)            \
    {                                                                          \
        return clof_##N##_acquire_until_tree_(l, c, deadline_ns);              \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_acquire_until(                                 \
        clof_##N##_t *l, clof_##N##_ctx_t *c, uint64_t deadline_ns)            \
    {                                                                          \
        if (!CLOF_COMPOSE_FAST_)                                               \
            return clof_##N##_acquire_until_tree_(l, c, deadline_ns);          \
        if (clof_compose_fast_try_(clof_##N##_fastw_(l))) {                    \
            c->leaf = NULL; /* held through the fast path */                  \
            CLOF_COMPOSE_ON_ACQUIRE(2);                                        \
            return true;                                                       \
        }                                                                      \
        if (deadline_ns == 0) /* a try: the lock is held */                   \
            return false;                                                      \
        return clof_##N##_acquire_until_slow_(l, c, deadline_ns);              \
    }
/** \name Acquisition with a deadline */
/**@{*/
/** Acquire the lock l by deadline_ns, on the clock of clof_now_ns()
 *  (CLOF_DEADLINE_NONE: wait forever; 0: try once): true with the lock
 *  held with context c, false on timeout with nothing held and the lock
 *  consistent. */
CLOF_ACOHORT_UNTIL_(a_c_bo_bo)
CLOF_ACOHORT_UNTIL_(a_c_bo_clh)
/**@}*/
#undef CLOF_ACOHORT_UNTIL_

/** X(id, "name") for every abortable cohort lock, with the name
 *  `clof-bench --lock` and the preload library use. */
#define CLOF_ABORTABLE_COHORT_LOCKS(X)                                         \
    X(a_c_bo_bo, "a-c-bo-bo")                                                  \
    X(a_c_bo_clh, "a-c-bo-clh")

#endif /* CLOF_NUMA_ACOHORT_H */
