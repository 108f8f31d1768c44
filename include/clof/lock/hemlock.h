/* SPDX-License-Identifier: MIT */
/*
 * Hemlock.
 *
 * Algorithm: a CLH-like queue of contexts with one word per context, `grant`.
 * Acquire swaps my context into the tail; with a predecessor it waits until
 * the predecessor's grant names this lock, then acknowledges by clearing it.
 * Release swings the tail back to NULL if I am last; otherwise it writes the
 * lock's address into my grant and waits for the successor's acknowledgement
 * so the context is free again when release returns.
 * Paper: CLoF (SOSP'21) §2.1 and §4 (Hemlock made thread-oblivious by an
 * explicit context); Dice and Kogan, SPAA'21.
 * Properties: fair (FIFO); context = one grant word (cache-line padded);
 * native has_waiters (tail is not my context); zero bytes are an unlocked
 * lock and an idle context; thread-oblivious with the same context.  Unlike
 * CLH, a context may live on the stack: nobody references it after release.
 * Size: lock 8 bytes; context 64 bytes.
 *
 * Memory orders:
 *   xchg on tail seq_cst: acquires the previous release (its cmpxchg_rel on
 *     tail) when the queue was empty; kept seq_cst (free on x86) so that the
 *     tail is a single total order -- a candidate for the order-mutation tool.
 *   await pred->grant == lock acquire: pairs with the predecessor's waking
 *     (release) store of the grant, which publishes its critical section.
 *   the acknowledgement is a waking write (release): the releaser waits for
 *     it with a relaxed await -- it only needs coherence on that one word to
 *     know the successor has read it; no data flows back.
 *   cmpxchg_rel on tail: publishes the critical section to the next
 *     exchanger.
 *   tryacquire's cmpxchg(tail, NULL, c) acquire: it succeeds only on an
 *     empty queue, whose last owner's cmpxchg_rel it reads (acquire); no
 *     release half is needed: a successor that swaps in behind c learns
 *     nothing from c's tail write -- it waits for c->grant, which my
 *     release writes (release), and my context's grant is NULL whenever
 *     idle, the last acknowledgement having been read by my own previous
 *     release (coherence).  Verified together by `clof-verify --optimize
 *     hemlock` (C11, park mode too); on Armv8 CASAL -> CASA, on x86 the
 *     same LOCK CMPXCHG (docs/verify-optimize.md, "Relaxations adopted").
 */
/** \file
 * Hemlock: a FIFO queue of contexts with one word each.  Algorithm,
 * properties and memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_HEMLOCK_H
#define CLOF_LOCK_HEMLOCK_H

#include <clof/lock.h>

#define CLOF_HEMLOCK_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_HEMLOCK_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_HEMLOCK_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_HEMLOCK_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

struct clof_hemlock;

/** Hemlock's context: the grant word of one acquisition (a cache line). */
typedef struct clof_hemlock_ctx {
    /** the lock handed to the successor; NULL whenever idle */
    CLOF_ATOMICPTR(struct clof_hemlock) grant;
} CLOF_CACHE_ALIGNED clof_hemlock_ctx_t;

/** The Hemlock lock: the queue's tail (8 bytes). */
typedef struct clof_hemlock {
    CLOF_ATOMICPTR(clof_hemlock_ctx_t) tail; /**< last context, NULL: free */
} clof_hemlock_t;

/** Static initializer of an unlocked Hemlock lock. */
#define CLOF_HEMLOCK_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}

/** Initialise an unlocked Hemlock lock (all-zero bytes are one too). */
static inline void clof_hemlock_init(clof_hemlock_t *l)
{
    clof_atomicptr_write_rlx(&l->tail, (clof_hemlock_ctx_t *)NULL);
}

CLOF_SLOW void clof_hemlock_wait_(clof_hemlock_t *l, clof_hemlock_ctx_t *c,
                                  clof_hemlock_ctx_t *pred)
{
    clof_atomicptr_await_eq_acq(&pred->grant, l);
    clof_atomicptr_write_wake(&pred->grant, (clof_hemlock_t *)NULL);
    /* my successor (if any) is next: let it be running at my release */
    clof_atomicptr_nudge(&c->grant, l);
}

/** Acquire the Hemlock lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_hemlock_acquire(clof_hemlock_t *l,
                                      clof_hemlock_ctx_t *c)
{
    clof_hemlock_ctx_t *pred = clof_atomicptr_xchg(&l->tail, c);
    if (CLOF_UNLIKELY(pred != NULL))
        clof_hemlock_wait_(l, c, pred);
}

CLOF_SLOW void clof_hemlock_handover_(clof_hemlock_t *l, clof_hemlock_ctx_t *c)
{
    clof_atomicptr_write_wake(&c->grant, l);
    clof_atomicptr_await_eq_rlx(&c->grant, (clof_hemlock_t *)NULL);
}

/** Acquire the Hemlock lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_hemlock_tryacquire(clof_hemlock_t *l,
                                           clof_hemlock_ctx_t *c)
{
    return clof_atomicptr_cmpxchg_acq(&l->tail, (clof_hemlock_ctx_t *)NULL,
                                      c) == NULL;
}

/** Release the Hemlock lock l, held by the caller with context c. */
CLOF_INLINE void clof_hemlock_release(clof_hemlock_t *l,
                                        clof_hemlock_ctx_t *c)
{
    if (CLOF_UNLIKELY(clof_atomicptr_cmpxchg_rel(&l->tail, c,
                                                 (clof_hemlock_ctx_t *)NULL) !=
                      c))
        clof_hemlock_handover_(l, c);
}

/** Whether a thread waits for the Hemlock lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_hemlock_has_waiters(clof_hemlock_t *l,
                                            clof_hemlock_ctx_t *c)
{
    return clof_atomicptr_read_rlx(&l->tail) != c;
}

#endif /* CLOF_LOCK_HEMLOCK_H */
