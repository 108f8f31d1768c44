/* SPDX-License-Identifier: MIT */
/*
 * MCS queue lock.
 *
 * Algorithm: a thread appends its context (queue node) to the tail with an
 * exchange, links itself behind its predecessor and waits on its own node;
 * release hands the lock to the successor by clearing the successor's flag,
 * or, with no successor, swings the tail back to NULL.  Local spinning.
 * Paper: CLoF (SOSP'21) §2.1; cohort paper (TOPC'15) §3.3 (local lock of
 * C-BO-MCS); Mellor-Crummey and Scott 1991.
 * Properties: fair (FIFO); context = queue node; native has_waiters (tail is
 * not my node); zero bytes are an unlocked lock (tail NULL); thread-oblivious
 * with the same context.
 * Size: lock 8 bytes; context 64 bytes (one cache line: waiters spin on it).
 *
 * Memory orders:
 *   node init (next, locked) relaxed: published by the seq_cst exchange on
 *     tail (the successor reads the node only after its own exchange, which
 *     reads ours), so the successor's link store is coherence-after our init.
 *   xchg on tail seq_cst: it must both acquire (the release's cmpxchg when
 *     the queue was empty) and release (the node init, see above).
 *   the link store pred->next is a waking write (release): the predecessor
 *     reads it with acquire before touching our node.
 *   await locked == 0 acquire: reads the predecessor's waking (release) store.
 *   release: next read acquire (pairs with the link store); cmpxchg_rel on
 *     tail publishes the critical section to the next exchanger; the hand-off
 *     is a waking write.  After it the node of the successor is not touched
 *     (clof_wake only hashes its address).
 *   next->next is read relaxed before the hand-off: it is only a hint for
 *     the nudge, which hashes the address and never dereferences it.
 *   tryacquire: one seq_cst cmpxchg (acquire + node publication as above).
 */
/** \file
 * MCS queue lock: FIFO; each waiter spins on its own queue node, the
 * context.  Algorithm, properties and memory orders: the comment at the top
 * of the header. */
#ifndef CLOF_LOCK_MCS_H
#define CLOF_LOCK_MCS_H

#include <clof/lock.h>

#define CLOF_MCS_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_MCS_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_MCS_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_MCS_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** MCS's context: the queue node of one acquisition (one cache line). */
typedef struct clof_mcs_node {
    CLOF_ATOMICPTR(struct clof_mcs_node) next; /**< successor, once linked */
    clof_atomic32_t locked; /**< 1 while waiting, 0 when handed the lock */
} CLOF_CACHE_ALIGNED clof_mcs_ctx_t;

/** The MCS lock: the queue's tail (8 bytes). */
typedef struct {
    CLOF_ATOMICPTR(clof_mcs_ctx_t) tail; /**< last node, NULL: free */
} clof_mcs_t;

/** Static initializer of an unlocked MCS lock. */
#define CLOF_MCS_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}

/** Initialise an unlocked MCS lock (all-zero bytes are one too). */
static inline void clof_mcs_init(clof_mcs_t *l)
{
    clof_atomicptr_write_rlx(&l->tail, (clof_mcs_ctx_t *)NULL);
}

CLOF_SLOW void clof_mcs_enqueue_(clof_mcs_ctx_t *pred, clof_mcs_ctx_t *c)
{
    clof_atomicptr_write_wake(&pred->next, c);
    clof_atomic32_await_eq_acq(&c->locked, 0);
}

/** Acquire the MCS lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_mcs_acquire(clof_mcs_t *l, clof_mcs_ctx_t *c)
{
    clof_atomicptr_write_rlx(&c->next, (clof_mcs_ctx_t *)NULL);
    clof_atomic32_write_rlx(&c->locked, 1);
    clof_mcs_ctx_t *pred = clof_atomicptr_xchg(&l->tail, c);
    if (CLOF_UNLIKELY(pred != NULL))
        clof_mcs_enqueue_(pred, c);
}

/** Acquire the MCS lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_mcs_tryacquire(clof_mcs_t *l, clof_mcs_ctx_t *c)
{
    clof_atomicptr_write_rlx(&c->next, (clof_mcs_ctx_t *)NULL);
    clof_atomic32_write_rlx(&c->locked, 0);
    return clof_atomicptr_cmpxchg(&l->tail, (clof_mcs_ctx_t *)NULL, c) == NULL;
}

CLOF_SLOW void clof_mcs_handover_(clof_mcs_ctx_t *c, clof_mcs_ctx_t *next)
{
    if (next == NULL)
        next = clof_atomicptr_await_neq_acq(&c->next, (clof_mcs_ctx_t *)NULL);
    /* next is still waiting, so its node is alive: read its successor now */
    clof_mcs_ctx_t *after = CLOF_WAIT_CAN_NUDGE
                                ? clof_atomicptr_read_rlx(&next->next)
                                : (clof_mcs_ctx_t *)NULL;
    clof_atomic32_write_wake(&next->locked, 0);
    if (after) /* be running when the lock reaches you (hashes only) */
        clof_atomic32_nudge(&after->locked, 0);
}

/** Release the MCS lock l, held by the caller with context c. */
CLOF_INLINE void clof_mcs_release(clof_mcs_t *l, clof_mcs_ctx_t *c)
{
    clof_mcs_ctx_t *next = clof_atomicptr_read_acq(&c->next);
    if (CLOF_LIKELY(next == NULL) &&
        clof_atomicptr_cmpxchg_rel(&l->tail, c, (clof_mcs_ctx_t *)NULL) == c)
        return;
    clof_mcs_handover_(c, next);
}

/* A linked successor answers from the owner's own node; only without one
 * is the (contended, shared) tail line read.  Both reads are relaxed: the
 * answer is a hint for the caller's hand-over decision, which MCS's release
 * then makes safely itself. */
/** Whether a thread waits for the MCS lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_mcs_has_waiters(clof_mcs_t *l, clof_mcs_ctx_t *c)
{
    return clof_atomicptr_read_rlx(&c->next) != NULL ||
           clof_atomicptr_read_rlx(&l->tail) != c;
}

#endif /* CLOF_LOCK_MCS_H */
