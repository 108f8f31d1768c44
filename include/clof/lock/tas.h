/* SPDX-License-Identifier: MIT */
/*
 * TAS -- test-and-set spinlock.
 *
 * Algorithm: acquire sets the lock word from 0 to 1 (a compare-and-swap,
 * retried until it succeeds); every failed attempt is followed by one
 * waiting step (wait.h), which in the park phase sleeps until the word
 * changes.  Release stores 0.
 * Paper: CLoF (SOSP'21) §2.1, the simplest NUMA-oblivious basic lock.
 * Properties: unfair (no admission order); context-free; has_waiters is
 * native from a waiter count kept only on the contended path; zero bytes are
 * an unlocked lock; thread-oblivious (any thread may store the 0).
 * Size: 8 bytes (state, waiters); no padding, embed it where you like.
 *
 * Parking (spin-park): a waiter that is about to sleep first sets the
 * PARKED bit in the word (1 -> 3, wait.h clof_wait_flag_u32), so the word
 * itself says whether anyone may be asleep: the release is one decrement,
 * 1 -> 0 when nobody parked (no other access: the same cost as a plain
 * store on x86), 3 -> 2 otherwise, after which it stores 0 with a waking
 * write.  This is why acquire takes the word with a CAS from 0 and not an
 * exchange: an exchange of 1 into 3 would erase the bit.  Under the `spin`
 * policy and the checking and simulation backends nothing parks: the bit is
 * never set and the release is a plain release store.  (TTAS and BO keep a
 * separate waiter count that the release reads: with the bit, their
 * polling loops multiply the executions the model checker must explore in
 * park mode under C11 beyond what CI can afford -- docs/verification.md.)
 *
 * Memory orders:
 *   cmpxchg_acq on acquire: the winning CAS reads the 0 stored by the
 *     previous release (release order at least), so the critical sections
 *     are ordered; a failed CAS writes nothing.
 *   release: a seq_cst decrement (spin-park) or a release store (spin); the
 *     waking store of 0 after 3 -> 2 is seq_cst and pairs with the parking
 *     table's handshake (wait.h).  The PARKED CAS is relaxed: only the
 *     word's modification order matters for whether the decrement sees it.
 *   waiters: seq_cst increment before the first wait, relaxed decrement,
 *     relaxed read in has_waiters (advisory: a hint for composition).
 */
/** \file
 * TAS, the test-and-set spinlock: one word, not FIFO, no context.
 * Algorithm, properties and memory orders: the comment at the top of the
 * header. */
#ifndef CLOF_LOCK_TAS_H
#define CLOF_LOCK_TAS_H

#include <clof/lock.h>

#define CLOF_TAS_FAIR 0 /**< 1: FIFO admission (lock.h) */
#define CLOF_TAS_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_TAS_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_TAS_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** The TAS lock (8 bytes). */
typedef struct {
    clof_atomic32_t state;   /**< 0 free, 1 held, 3 held + CLOF_TAS_PARKED */
    clof_atomic32_t waiters; /**< threads on the contended path */
} clof_tas_t;
/** TAS needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_tas_ctx_t;

/** Static initializer of an unlocked TAS lock. */
#define CLOF_TAS_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}

/** Initialise an unlocked TAS lock (all-zero bytes are one too). */
static inline void clof_tas_init(clof_tas_t *l)
{
    clof_atomic32_write_rlx(&l->state, 0);
    clof_atomic32_write_rlx(&l->waiters, 0);
}

#define CLOF_TAS_PARKED 2u /**< in clof_tas_t::state: a waiter may be asleep */

CLOF_SLOW void clof_tas_slowpath_(clof_tas_t *l)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    clof_atomic32_inc(&l->waiters);
    uint32_t s = 1; /* as the failed CAS found it, near enough: a wait
                     * step only parks if the word still holds it */
    do {
        clof_atomic32_wait_flag(&w, &l->state, s, CLOF_TAS_PARKED);
    } while ((s = clof_atomic32_cmpxchg_acq(&l->state, 0, 1)) != 0);
    clof_wait_end(&w);
    clof_atomic32_dec_rlx(&l->waiters);
}

/** Acquire the TAS lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_tas_acquire(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    if (CLOF_UNLIKELY(!clof_atomic32_cas_acq(&l->state, 0, 1)))
        clof_tas_slowpath_(l);
}

/** Acquire the TAS lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_tas_tryacquire(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    return clof_atomic32_cas_acq(&l->state, 0, 1);
}

CLOF_SLOW void clof_tas_wake_(clof_tas_t *l)
{
    clof_atomic32_write_wake(&l->state, 0);
}

/** Release the TAS lock l, held by the caller with context c. */
CLOF_INLINE void clof_tas_release(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    if (!CLOF_WAIT_CAN_PARK) {
        clof_atomic32_write_rel(&l->state, 0);
        return;
    }
    /* 1 -> 0: nobody parked; 3 -> 2: clear PARKED and wake */
    if (CLOF_UNLIKELY(clof_atomic32_get_sub(&l->state, 1) != 1))
        clof_tas_wake_(l);
}

/** Whether a thread waits for the TAS lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_tas_has_waiters(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    return clof_atomic32_read_rlx(&l->waiters) != 0;
}

#endif /* CLOF_LOCK_TAS_H */
