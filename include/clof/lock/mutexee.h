/* SPDX-License-Identifier: MIT */
/*
 * MUTEXEE -- a futex mutex that spins before it sleeps and, on release,
 * gives a spinner the chance to take the lock before it wakes a sleeper.
 *
 * Algorithm: one word, HELD (bit 0) and PARKED (bit 1: a waiter may be
 * asleep, kept while one may be).  Acquire takes the word with a
 * compare-exchange from 0; a waiter waits through the waiting policy (spin,
 * yield, park: wait.h) and takes the word whenever HELD is clear, with
 * PARKED left as it is (a sleeper's bit stays until someone wakes it).
 * Release clears HELD.  If PARKED was set it does not wake at once, as a
 * futex mutex (Drepper's, glibc's) does on every release with a sleeper:
 * it waits a short grace period, polling, and if a running waiter has
 * taken the word meanwhile it returns -- the new holder, which sees PARKED
 * in the word, has the duty to wake -- and otherwise clears PARKED and
 * wakes.  A sleeper is woken only when no spinner wants the lock, so under
 * contention the lock passes between running threads without a system
 * call, and the sleepers sleep.
 * Paper: Babak Falsafi, Rachid Guerraoui, Javier Picorel and Vasileios
 * Trigonakis (EPFL), "Unlocking Energy", USENIX ATC 2016, its
 * MUTEXEE, the pthread mutex changed in two ways, spinning longer before
 * sleeping and, in unlock, waiting in user space for the lock to be taken
 * before issuing the futex wake-up.  Patent: none named in the paper.
 * Ours: the code; the spinning before sleeping is clof's waiting policy
 * (its adaptive budget, wait.h), which every clof lock has; the grace
 * period's length (CLOF_MUTEXEE_GRACE polls of CLOF_MUTEXEE_GRACE_STEP
 * pauses) is ours, not the paper's, and MUTEXEE's variant with bounded
 * tail latency is not implemented.
 * Properties: not FIFO, and bypass is unbounded (a sleeper waits while
 * spinners take the lock: the price of the skipped wake-ups); context-free;
 * native has_waiters from a waiter count kept on the contended path; zero
 * bytes are an unlocked lock; thread-oblivious.
 * Size: 8 bytes (state, waiters).
 * Under the `spin` policy and the checking and simulation backends nothing
 * parks: PARKED is never set, the release is a release store, and MUTEXEE
 * is the test-and-set lock (tas.h) with a waiter that takes the word
 * whatever it holds besides HELD.
 *
 * Memory orders:
 *   the compare-exchanges that take the word are acquire: they read the
 *     release's write and so follow that critical section; the reads
 *     before them are relaxed (the compare-exchange confirms them).
 *   release: a release store of 0 (`spin`), or a seq_cst subtraction of
 *     HELD (spin-park) that returns PARKED if a waiter set it before
 *     sleeping (wait.h, clof_wait_flag_u32: the waiter's relaxed
 *     compare-exchange and the subtraction are read-modify-writes of one
 *     word, so one of them reads the other).  Relaxed, the next critical
 *     section may miss this one's writes (the seeded bug
 *     mutexee-release-relaxed).
 *   the grace period's polls are relaxed: a poll that finds HELD reads a
 *     write that follows our subtraction in the word's modification order,
 *     the taking of a holder after us, whose own release will read PARKED
 *     (only a release clears PARKED, and then wakes).  Clearing PARKED is
 *     a seq_cst read-modify-write, followed by the wake (wait.h's handshake).
 *   waiters: seq_cst increment before the first wait, relaxed decrement,
 *     relaxed read in has_waiters (a hint), as TAS's.
 */
/** \file
 * MUTEXEE: a futex mutex whose release lets a spinner take the lock before
 * it wakes a sleeper; not FIFO, no context.  Algorithm, properties and
 * memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_MUTEXEE_H
#define CLOF_LOCK_MUTEXEE_H

#include <clof/lock.h>

#define CLOF_MUTEXEE_FAIR 0 /**< 1: FIFO admission (lock.h) */
#define CLOF_MUTEXEE_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_MUTEXEE_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_MUTEXEE_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

#define CLOF_MUTEXEE_HELD 1u   /**< in state: the lock is held */
#define CLOF_MUTEXEE_PARKED 2u /**< in state: a waiter may be asleep */
/** Polls of the release's grace period before it wakes a sleeper. */
#define CLOF_MUTEXEE_GRACE 2u
/** Pause instructions before each poll of the grace period. */
#define CLOF_MUTEXEE_GRACE_STEP 64u

/** The MUTEXEE lock (8 bytes). */
typedef struct {
    clof_atomic32_t state;   /**< HELD, PARKED */
    clof_atomic32_t waiters; /**< threads on the contended path */
} clof_mutexee_t;
/** MUTEXEE needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_mutexee_ctx_t;

/** Static initializer of an unlocked MUTEXEE lock. */
#define CLOF_MUTEXEE_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}

/** Initialise an unlocked MUTEXEE lock (all-zero bytes are one too). */
static inline void clof_mutexee_init(clof_mutexee_t *l)
{
    clof_atomic32_write_rlx(&l->state, 0);
    clof_atomic32_write_rlx(&l->waiters, 0);
}

/* The contended path: wait until HELD is clear and take the word, keeping
 * PARKED (the waiting step sets it before it parks). */
CLOF_SLOW void clof_mutexee_slowpath_(clof_mutexee_t *l)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    clof_atomic32_inc(&l->waiters);
    uint32_t s = clof_atomic32_read_rlx(&l->state);
    for (;;) {
        if (!(s & CLOF_MUTEXEE_HELD)) {
            if (clof_atomic32_cas_acq(&l->state, s, s | CLOF_MUTEXEE_HELD))
                break;
        } else {
            clof_atomic32_wait_flag(&w, &l->state, s, CLOF_MUTEXEE_PARKED);
        }
        s = clof_atomic32_read_rlx(&l->state);
    }
    clof_wait_end(&w);
    clof_atomic32_dec_rlx(&l->waiters);
}

/** Acquire the MUTEXEE lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_mutexee_acquire(clof_mutexee_t *l, clof_mutexee_ctx_t *c)
{
    (void)c;
    if (CLOF_UNLIKELY(!clof_atomic32_cas_acq(&l->state, 0, CLOF_MUTEXEE_HELD)))
        clof_mutexee_slowpath_(l);
}

/** Acquire the MUTEXEE lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_mutexee_tryacquire(clof_mutexee_t *l, clof_mutexee_ctx_t *c)
{
    (void)c;
    uint32_t s = clof_atomic32_read_rlx(&l->state);
    return !(s & CLOF_MUTEXEE_HELD) &&
           clof_atomic32_cas_acq(&l->state, s, s | CLOF_MUTEXEE_HELD);
}

/* Released with PARKED set: give a running waiter the grace period to take
 * the word (then it wakes, at its release); else clear PARKED and wake. */
CLOF_SLOW void clof_mutexee_handoff_(clof_mutexee_t *l)
{
    for (uint32_t i = 0; i < CLOF_MUTEXEE_GRACE; i++) {
        clof_wait_delay(CLOF_MUTEXEE_GRACE_STEP);
        if (clof_atomic32_read_rlx(&l->state) & CLOF_MUTEXEE_HELD)
            return;
    }
    if (clof_atomic32_get_and(&l->state, ~CLOF_MUTEXEE_PARKED) & CLOF_MUTEXEE_PARKED)
        clof_wake(&l->state._v);
}

/** Release the MUTEXEE lock l, held by the caller with context c. */
CLOF_INLINE void clof_mutexee_release(clof_mutexee_t *l, clof_mutexee_ctx_t *c)
{
    (void)c;
    if (!CLOF_WAIT_CAN_PARK) {
        clof_atomic32_write_rel(&l->state, 0);
        return;
    }
    if (CLOF_UNLIKELY(clof_atomic32_get_sub(&l->state, CLOF_MUTEXEE_HELD) !=
                      CLOF_MUTEXEE_HELD))
        clof_mutexee_handoff_(l);
}

/** Whether a thread waits for the MUTEXEE lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_mutexee_has_waiters(clof_mutexee_t *l, clof_mutexee_ctx_t *c)
{
    (void)c;
    return clof_atomic32_read_rlx(&l->waiters) != 0;
}

#endif /* CLOF_LOCK_MUTEXEE_H */
