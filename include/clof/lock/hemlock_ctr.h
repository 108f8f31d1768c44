/* SPDX-License-Identifier: MIT */
/*
 * Hemlock with coherence-traffic reduction (hem-ctr).
 *
 * Algorithm: Hemlock (see hemlock.h) where the waiting loops read the grant
 * word with a read-modify-write instead of a load and the acknowledgement is
 * folded into it: the successor polls with cmpxchg(grant, lock, NULL), which
 * both sees the grant and clears it; the releaser publishes the grant with a
 * cmpxchg and polls for the acknowledgement with a read-modify-write.  On
 * MESI/MESIF x86 caches the line then arrives in the modified state at once
 * and never needs a shared-to-modified upgrade.
 * Paper: CLoF (SOSP'21) §2.1 ("replaces a load from x with fetch_add(&x,0)
 * and a store with a cmpxchg"); Dice and Kogan, SPAA'21.
 * Architecture: x86 only.  On Armv8 the paper measured throughput close to 0
 * (the polling RMW keeps failing the releaser's exclusive pair), so on other
 * architectures this header falls back to plain Hemlock (same names, same
 * layout, CLOF_HEMLOCK_CTR_ACTIVE = 0); define CLOF_HEMLOCK_CTR_STRICT to turn
 * the fallback into a compile-time error instead.  Non-native backends (model
 * checker, simulator) always get the CTR code.
 * Properties, sizes: as Hemlock.
 *
 * Memory orders:
 *   polling cmpxchg(pred->grant, lock, NULL), seq_cst: when it succeeds it
 *     reads the releaser's grant (acquire) and is itself the acknowledgement
 *     the releaser may be parked on, so it is followed by clof_wake, which
 *     needs a seq_cst write before it (wait.h); failed polls write nothing.
 *   releaser's cmpxchg(grant, NULL, lock), seq_cst: publishes the critical
 *     section (release) and is a waking write; its poll for NULL is a relaxed
 *     RMW (coherence on the one word suffices, as in hemlock.h).
 *   On x86 every locked RMW is a full barrier, so seq_cst costs nothing.
 *   tail: as hemlock.h.
 */
/** \file
 * Hemlock with coherence-traffic reduction (hem-ctr, x86): Hemlock's lock
 * and context, waiting loops of read-modify-writes.  Algorithm, properties
 * and memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_HEMLOCK_CTR_H
#define CLOF_LOCK_HEMLOCK_CTR_H

#include <clof/lock/hemlock.h>

#if defined(__x86_64__) || defined(__i386__) || defined(CLOF_BACKEND_HEADER)
#define CLOF_HEMLOCK_CTR_ACTIVE 1
#elif defined(CLOF_HEMLOCK_CTR_STRICT)
#error "hemlock_ctr: the CTR optimisation is for x86 only (CLoF paper §2.1)"
#else
/** 1 where the CTR loops are compiled (x86, the model checker and the
 *  simulator), 0 where hemlock_ctr is plain Hemlock (define
 *  CLOF_HEMLOCK_CTR_STRICT to make that an error). */
#define CLOF_HEMLOCK_CTR_ACTIVE 0
#endif

#define CLOF_HEMLOCK_CTR_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_HEMLOCK_CTR_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_HEMLOCK_CTR_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_HEMLOCK_CTR_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** The Hemlock-CTR lock: Hemlock's. */
typedef clof_hemlock_t clof_hemlock_ctr_t;
/** The Hemlock-CTR context: Hemlock's. */
typedef clof_hemlock_ctx_t clof_hemlock_ctr_ctx_t;

/** Static initializer of an unlocked Hemlock-CTR lock. */
#define CLOF_HEMLOCK_CTR_INITIALIZER CLOF_HEMLOCK_INITIALIZER

/** Initialise an unlocked Hemlock-CTR lock (all-zero bytes are one too). */
static inline void clof_hemlock_ctr_init(clof_hemlock_ctr_t *l)
{
    clof_hemlock_init(l);
}

#if CLOF_HEMLOCK_CTR_ACTIVE
CLOF_SLOW void clof_hemlock_ctr_wait_(clof_hemlock_ctr_t *l,
                                      clof_hemlock_ctr_ctx_t *c,
                                      clof_hemlock_ctx_t *pred)
{
    clof_hemlock_t *seen;
    clof_wait_t w = CLOF_WAIT_INIT;
    while ((seen = clof_atomicptr_cmpxchg(&pred->grant, l,
                                              (clof_hemlock_t *)NULL)) != l)
        clof_atomicptr_wait(&w, &pred->grant, seen);
    clof_wait_end(&w);
    clof_wake(&pred->grant); /* the releaser may be parked on the ack */
    clof_wake(&c->grant);    /* nudge my successor (it polls by change) */
}

CLOF_SLOW void clof_hemlock_ctr_handover_(clof_hemlock_ctr_t *l,
                                          clof_hemlock_ctr_ctx_t *c)
{
    (void)clof_atomicptr_cmpxchg(&c->grant, (clof_hemlock_t *)NULL, l);
    clof_wake(&c->grant);
    clof_hemlock_t *seen;
    clof_wait_t w = CLOF_WAIT_INIT;
    while ((seen = clof_atomicptr_cmpxchg_rlx(&c->grant,
                                              (clof_hemlock_t *)NULL,
                                              (clof_hemlock_t *)NULL)) != NULL)
        clof_atomicptr_wait(&w, &c->grant, seen);
    clof_wait_end(&w);
}
#endif

/** Acquire the Hemlock-CTR lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_hemlock_ctr_acquire(clof_hemlock_ctr_t *l,
                                          clof_hemlock_ctr_ctx_t *c)
{
#if CLOF_HEMLOCK_CTR_ACTIVE
    clof_hemlock_ctx_t *pred = clof_atomicptr_xchg(&l->tail, c);
    if (CLOF_UNLIKELY(pred != NULL))
        clof_hemlock_ctr_wait_(l, c, pred);
#else
    clof_hemlock_acquire(l, c);
#endif
}

/** Acquire the Hemlock-CTR lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_hemlock_ctr_tryacquire(clof_hemlock_ctr_t *l,
                                               clof_hemlock_ctr_ctx_t *c)
{
    return clof_hemlock_tryacquire(l, c);
}

/** Release the Hemlock-CTR lock l, held by the caller with context c. */
CLOF_INLINE void clof_hemlock_ctr_release(clof_hemlock_ctr_t *l,
                                            clof_hemlock_ctr_ctx_t *c)
{
#if CLOF_HEMLOCK_CTR_ACTIVE
    if (CLOF_UNLIKELY(clof_atomicptr_cmpxchg_rel(&l->tail, c,
                                                 (clof_hemlock_ctx_t *)NULL) !=
                      c))
        clof_hemlock_ctr_handover_(l, c);
#else
    clof_hemlock_release(l, c);
#endif
}

/** Whether a thread waits for the Hemlock-CTR lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_hemlock_ctr_has_waiters(clof_hemlock_ctr_t *l,
                                                clof_hemlock_ctr_ctx_t *c)
{
    return clof_hemlock_has_waiters(l, c);
}

#endif /* CLOF_LOCK_HEMLOCK_CTR_H */
