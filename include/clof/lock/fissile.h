/* SPDX-License-Identifier: MIT */
/*
 * Fissile lock.
 *
 * Algorithm: two locks in one.  The inner lock is a test-and-set word,
 * `state`: an arriving thread takes it with one compare-exchange when it is
 * free (the fast path) and is done.  A thread that finds it taken goes to
 * the slow path: unless the word has come free (and may be bypassed, below)
 * it queues on the outer lock, an MCS lock (`outer`), whose
 * owner -- the "alpha" -- is the only thread that waits for the inner word.
 * The alpha takes the inner word when it sees it free and then releases the
 * outer lock, so the next queued thread becomes the alpha.  Release frees
 * the inner word only.  So threads that arrive while the lock is free or
 * between two holders take it as from a test-and-set lock, with one
 * atomic instruction each way, and at most one thread polls the word
 * however many wait: the others spin (or sleep) on their own MCS node.
 * Arrivals bypass the alpha, but boundedly: the alpha marks the word
 * ALPHA, and from then on each acquisition by the fast path counts itself
 * in the word (`state` >> 3).  Once CLOF_FISSILE_BYPASS have, the fast path
 * no longer takes the word; when it is released only the alpha, which
 * ignores the count, can take it, and taking it clears ALPHA and the
 * count.  So the alpha is overtaken at most CLOF_FISSILE_BYPASS times after
 * it marked the word, whether or not it is running, and the queue behind
 * it is FIFO: every thread enters.
 * Paper: Dave Dice and Alex Kogan (Oracle Labs), "Fissile Locks", arXiv
 * 2003.05025 (2020): a test-and-set fast path, a queue-lock slow path,
 * fast-path threads bypassing the queued ones, and bypass bounded by a
 * tunable parameter, as the paper's abstract gives them (its full text was
 * not at hand).  Patent: none named in what we read.  Ours: that the slow
 * path's head alone polls the word; the slow path itself, MCS where the
 * paper's is CNA, so that the lock is a basic lock that needs no topology
 * (NUMA awareness comes from composing it, `fis-mcs` ...); and the bound
 * counted in bypasses in the word (exact whatever the scheduling, and
 * checkable by a model checker) rather than in time.
 * Properties: not FIFO: bounded bypass (above; the client fissile.bypass
 * of clof verify checks it with a bound of 1); context-free (the MCS
 * node lives on the alpha's stack from its arrival until it has the inner
 * word); native has_waiters (someone is on the slow path: the outer tail);
 * zero bytes are an unlocked lock; thread-oblivious (release touches the
 * word only).
 * Size: 16 bytes (the word, and the MCS tail).
 *
 * The word: HELD (bit 0), PARKED (bit 1: the alpha may sleep on the word),
 * ALPHA (bit 2: a thread is the alpha), and the bypasses of that alpha
 * above them (0 without ALPHA).  With no alpha the word is 0 (free) or
 * HELD, and the fast path is one compare-exchange of 0 with HELD, as the
 * test-and-set lock's.  Release subtracts HELD, leaving the other bits.
 *
 * Memory orders (`spin`, and the model checkers' and simulator's awaits):
 *   the compare-exchange that takes the word (fast path, bypass,
 *     tryacquire and the alpha) is acquire: it reads the release's
 *     subtraction, and so follows that critical section.  The bypass's
 *     read of the word before it is relaxed: the compare-exchange
 *     confirms it.
 *   the release's subtraction is release (seq_cst where waiters may park):
 *     the next taker's acquire reads it.  Relaxed, the next critical
 *     section may miss this one's writes (the seeded bug
 *     fissile-release-relaxed).
 *   setting ALPHA is a relaxed compare-exchange: it orders no data.  Every
 *     write of the word is a read-modify-write, and every decision a
 *     compare-exchange confirms, so the word's modification order decides
 *     everything: a bypass counts itself in the same compare-exchange that
 *     takes the word, so no release can come between the check of the
 *     count and the count.
 *   the alpha's waits are relaxed reads: only the acquire compare-exchange
 *     takes the word.  The outer lock's orders are MCS's (mcs.h); the
 *     outer lock protects no data of the caller, only the right to be the
 *     alpha.
 * Waiting: the alpha waits on the word with its flag PARKED (wait.h,
 *   clof_wait_flag_u32, as the test-and-set lock does): before it sleeps it
 *   sets PARKED in the value it read, with a compare-exchange, so the
 *   release's subtraction (a read-modify-write, seq_cst under spin-park) either
 *   reads PARKED, and clears it and wakes it, or comes first and makes the
 *   compare-exchange fail.  While PARKED is set the fast path fails, as
 *   the test-and-set lock's does with a sleeper (once the release has
 *   cleared it, arrivals may bypass the waking alpha, within the bound).
 *   The queued threads wait as MCS's waiters do.
 *   tryacquire is the fast path's compare-exchange, then one bypass
 *   attempt: it never queues.
 *   has_waiters: a relaxed read of the outer tail; a hint to the owner.
 */
/** \file
 * Fissile lock: a test-and-set fast path over an MCS slow path whose head
 * alone polls the word; bounded bypass.  Algorithm, properties and memory
 * orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_FISSILE_H
#define CLOF_LOCK_FISSILE_H

#include <clof/lock.h>
#include <clof/lock/mcs.h>

#define CLOF_FISSILE_FAIR 0 /**< 1: FIFO admission (lock.h) */
#define CLOF_FISSILE_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_FISSILE_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_FISSILE_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** Bypasses of the alpha by the fast path before it alone may take the
 *  word (the paper leaves the bound tunable; this value is ours). */
#define CLOF_FISSILE_BYPASS 64u

#define CLOF_FISSILE_HELD 1u   /**< in state: the lock is held */
#define CLOF_FISSILE_PARKED 2u /**< in state: the alpha may sleep on the word */
#define CLOF_FISSILE_ALPHA 4u  /**< in state: a thread is the alpha */
#define CLOF_FISSILE_ONE_ 8u   /* one bypass, in the count above the flags */

/** The Fissile lock (16 bytes). */
typedef struct {
    clof_atomic32_t state; /**< HELD, PARKED, ALPHA, and the bypasses << 3 */
    clof_mcs_t outer;      /**< the slow path's queue; its owner is the alpha */
} clof_fissile_t;
/** Fissile needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_fissile_ctx_t;

/** Static initializer of an unlocked Fissile lock. */
#define CLOF_FISSILE_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_MCS_INITIALIZER}

/** Initialise an unlocked Fissile lock (all-zero bytes are one too). */
static inline void clof_fissile_init(clof_fissile_t *l)
{
    clof_atomic32_write_rlx(&l->state, 0);
    clof_mcs_init(&l->outer);
}

/* A bypass: the word with an alpha, released, not reserved for it yet
 * (fewer than `bound` bypasses); taking it counts one. */
static inline bool clof_fissile_bypass_(clof_fissile_t *l, uint32_t bound)
{
    uint32_t s = clof_atomic32_read_rlx(&l->state);
    if (s == 0)
        return clof_atomic32_cas_acq(&l->state, 0, CLOF_FISSILE_HELD);
    return (s & (CLOF_FISSILE_HELD | CLOF_FISSILE_PARKED | CLOF_FISSILE_ALPHA)) ==
               CLOF_FISSILE_ALPHA &&
           s / CLOF_FISSILE_ONE_ < bound &&
           clof_atomic32_cas_acq(&l->state, s, (s | CLOF_FISSILE_HELD) + CLOF_FISSILE_ONE_);
}

/* The slow path (the fast path's compare-exchange failed): a bypass if the
 * word allows one, else queue on the outer lock and, as the alpha, mark
 * the word and wait for its release; the alpha's taking clears its mark
 * and the count. */
CLOF_SLOW void clof_fissile_slowpath_(clof_fissile_t *l, uint32_t bound)
{
    if (clof_fissile_bypass_(l, bound))
        return;
    clof_mcs_ctx_t node;
    clof_mcs_acquire(&l->outer, &node);
    clof_wait_t w = CLOF_WAIT_INIT;
    uint32_t s = clof_atomic32_read_rlx(&l->state);
    for (;;) {
        uint32_t parked = s & CLOF_FISSILE_PARKED; /* the releaser's to clear */
        if (!(s & CLOF_FISSILE_HELD)) {
            if (clof_atomic32_cas_acq(&l->state, s, CLOF_FISSILE_HELD | parked))
                break;
            s = clof_atomic32_read_rlx(&l->state);
            continue;
        }
        if (!(s & CLOF_FISSILE_ALPHA)) {
            uint32_t a = CLOF_FISSILE_HELD | parked | CLOF_FISSILE_ALPHA;
            if (!clof_atomic32_cas_rlx(&l->state, s, a)) {
                s = clof_atomic32_read_rlx(&l->state);
                continue;
            }
            s = a;
        }
        clof_atomic32_wait_flag(&w, &l->state, s, CLOF_FISSILE_PARKED);
        s = clof_atomic32_read_rlx(&l->state);
    }
    clof_wait_end(&w);
    clof_mcs_release(&l->outer, &node);
}

/* Acquire with a bypass bound of `bound` (CLOF_FISSILE_BYPASS; the client
 * fissile.bypass uses 1). */
CLOF_INLINE void clof_fissile_acquire_bounded_(clof_fissile_t *l, uint32_t bound)
{
    if (CLOF_UNLIKELY(!clof_atomic32_cas_acq(&l->state, 0, CLOF_FISSILE_HELD)))
        clof_fissile_slowpath_(l, bound);
}

/** Acquire the Fissile lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_fissile_acquire(clof_fissile_t *l, clof_fissile_ctx_t *c)
{
    (void)c;
    clof_fissile_acquire_bounded_(l, CLOF_FISSILE_BYPASS);
}

/** Acquire the Fissile lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_fissile_tryacquire(clof_fissile_t *l, clof_fissile_ctx_t *c)
{
    (void)c;
    return clof_atomic32_cas_acq(&l->state, 0, CLOF_FISSILE_HELD) ||
           clof_fissile_bypass_(l, CLOF_FISSILE_BYPASS);
}

/* The alpha may sleep on the word: clear PARKED and wake it. */
CLOF_SLOW void clof_fissile_wake_(clof_fissile_t *l)
{
    if (clof_atomic32_get_and(&l->state, ~CLOF_FISSILE_PARKED) & CLOF_FISSILE_PARKED)
        clof_wake(&l->state._v);
}

/** Release the Fissile lock l, held by the caller with context c. */
CLOF_INLINE void clof_fissile_release(clof_fissile_t *l, clof_fissile_ctx_t *c)
{
    (void)c;
    /* HELD cleared; ALPHA and the count stay */
    uint32_t old = CLOF_WAIT_CAN_PARK ? clof_atomic32_get_sub(&l->state, CLOF_FISSILE_HELD)
                                      : clof_atomic32_get_sub_rel(&l->state, CLOF_FISSILE_HELD);
    if (CLOF_WAIT_CAN_PARK && CLOF_UNLIKELY(old & CLOF_FISSILE_PARKED))
        clof_fissile_wake_(l);
}

/** Whether a thread waits for the Fissile lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_fissile_has_waiters(clof_fissile_t *l, clof_fissile_ctx_t *c)
{
    (void)c;
    return clof_atomicptr_read_rlx(&l->outer.tail) != NULL;
}

#endif /* CLOF_LOCK_FISSILE_H */
