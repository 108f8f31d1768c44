/* SPDX-License-Identifier: MIT */
/*
 * TTAS -- test-and-test-and-set spinlock.
 *
 * Algorithm: try one exchange; on failure wait (reading only, wait.h) until
 * the word is 0, then exchange again.  Release stores 0.  Waiters poll a
 * shared line in their caches instead of bouncing it with exchanges.
 * Paper: CLoF (SOSP'21) §2.1; cohort paper (TOPC'15) §2 (TATAS).
 * Properties: unfair; context-free; native has_waiters from a waiter count
 * kept only on the contended path; zero bytes are an unlocked lock;
 * thread-oblivious.
 * Size: 8 bytes (state, waiters).
 *
 * Memory orders:
 *   the polling read is relaxed: it only decides when to retry; the
 *     exchange that wins is acquire and reads the releasing store.
 *   xchg_acq / release by a waking write: as for TAS.
 *   waiters: seq_cst increment, relaxed decrement; the release reads it to
 *     skip the wake when nobody waits (see tas.h).
 */
/** \file
 * TTAS, the test-and-test-and-set spinlock: waiters read until the word is
 * free before they exchange; not FIFO, no context.  Algorithm, properties
 * and memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_TTAS_H
#define CLOF_LOCK_TTAS_H

#include <clof/lock.h>

#define CLOF_TTAS_FAIR 0 /**< 1: FIFO admission (lock.h) */
#define CLOF_TTAS_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_TTAS_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_TTAS_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** The TTAS lock (8 bytes); also BO's (lock/bo.h). */
typedef struct {
    clof_atomic32_t state;   /**< 0 free, 1 held */
    clof_atomic32_t waiters; /**< threads on the contended path */
} clof_ttas_t;
/** TTAS needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_ttas_ctx_t;

/** Static initializer of an unlocked TTAS lock. */
#define CLOF_TTAS_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}

/** Initialise an unlocked TTAS lock (all-zero bytes are one too). */
static inline void clof_ttas_init(clof_ttas_t *l)
{
    clof_atomic32_write_rlx(&l->state, 0);
    clof_atomic32_write_rlx(&l->waiters, 0);
}

/* The contended path, shared with BO: poll until free, exchange, and after a
 * lost exchange back off for `delay` pause steps, doubling up to `max`
 * (delay 0: plain TTAS).  With a deadline (wait.h; CLOF_DEADLINE_NONE for
 * none) it gives up when the deadline passes and returns false: a TTAS/BO
 * waiter holds nothing, so leaving is just not exchanging again (the
 * cohort paper's "trivially abortable" BO lock, §3.4). */
CLOF_SLOW bool clof_ttas_slowpath_until_(clof_ttas_t *l, uint32_t delay,
                                         uint32_t max, uint64_t deadline)
{
    bool ok = true;
    clof_wait_t w = CLOF_WAIT_INIT;
    clof_atomic32_inc(&l->waiters);
    for (;;) {
        if (deadline == CLOF_DEADLINE_NONE) {
            clof_atomic32_await_eq_rlx(&l->state, 0);
        } else {
            uint32_t x;
            while ((x = clof_atomic32_read_rlx(&l->state)) != 0)
                if (!clof_atomic32_wait_until(&w, &l->state, x, deadline)) {
                    ok = false;
                    goto out;
                }
        }
        if (clof_atomic32_xchg_acq(&l->state, 1) == 0)
            break;
        clof_wait_delay(delay);
        if (delay < max)
            delay *= 2;
    }
out:
    clof_atomic32_dec_rlx(&l->waiters);
    return ok;
}
static inline void clof_ttas_slowpath_(clof_ttas_t *l, uint32_t delay,
                                       uint32_t max)
{
    (void)clof_ttas_slowpath_until_(l, delay, max, CLOF_DEADLINE_NONE);
}

/** Acquire the TTAS lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_ttas_acquire(clof_ttas_t *l, clof_ttas_ctx_t *c)
{
    (void)c;
    if (CLOF_LIKELY(clof_atomic32_xchg_acq(&l->state, 1) == 0))
        return;
    clof_ttas_slowpath_(l, 0, 0);
}

/** Acquire the TTAS lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_ttas_tryacquire(clof_ttas_t *l, clof_ttas_ctx_t *c)
{
    (void)c;
    return clof_atomic32_read_rlx(&l->state) == 0 &&
           clof_atomic32_xchg_acq(&l->state, 1) == 0;
}

/** Release the TTAS lock l, held by the caller with context c. */
CLOF_INLINE void clof_ttas_release(clof_ttas_t *l, clof_ttas_ctx_t *c)
{
    (void)c;
    clof_atomic32_write_wakeable(&l->state, 0);
    if (CLOF_WAIT_CAN_PARK && clof_atomic32_read(&l->waiters) != 0)
        clof_atomic32_wake(&l->state, 0);
}

/** Whether a thread waits for the TTAS lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_ttas_has_waiters(clof_ttas_t *l, clof_ttas_ctx_t *c)
{
    (void)c;
    return clof_atomic32_read_rlx(&l->waiters) != 0;
}

#endif /* CLOF_LOCK_TTAS_H */
