/* SPDX-License-Identifier: MIT */
/*
 * BO -- test-and-test-and-set lock with exponential backoff.
 *
 * Algorithm: as TTAS, but after every lost exchange the thread backs off for
 * a delay that doubles from CLOF_BO_MIN to CLOF_BO_MAX pause steps before it
 * polls again, so a crowd of waiters does not retry together.
 * Paper: cohort paper (TOPC'15) §3 (the BO lock of C-BO-MCS, after Agarwal
 * and Cherian / Anderson); CLoF (SOSP'21) §2.1.
 * Properties: unfair; context-free; native has_waiters from a waiter count
 * kept only on the contended path; zero bytes are an unlocked lock;
 * thread-oblivious (which is why the cohort paper uses it as a global lock).
 * Size: 8 bytes (state, waiters).
 *
 * Memory orders: as TTAS (relaxed polling, acquire exchange, waking release
 * store, relaxed advisory waiter count).  The backoff delay touches no shared
 * memory.
 */
/** \file
 * BO, test-and-test-and-set with exponential backoff: the cohort paper's
 * global lock; not FIFO, no context.  Algorithm, properties and memory
 * orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_BO_H
#define CLOF_LOCK_BO_H

#include <clof/lock/ttas.h>

#ifndef CLOF_BO_MIN
/** The first backoff after a lost exchange, in pause steps (define it
 *  before the include to change it). */
#define CLOF_BO_MIN 8u
#endif
#ifndef CLOF_BO_MAX
/** The longest backoff, in pause steps (the delay doubles up to it). */
#define CLOF_BO_MAX 1024u
#endif

#define CLOF_BO_FAIR 0 /**< 1: FIFO admission (lock.h) */
#define CLOF_BO_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_BO_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_BO_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/* BO is TTAS plus a backoff on its contended path: same state, same release. */
/** The BO lock: a clof_ttas_t (8 bytes). */
typedef clof_ttas_t clof_bo_t;
/** BO needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_bo_ctx_t;

/** Static initializer of an unlocked BO lock. */
#define CLOF_BO_INITIALIZER CLOF_TTAS_INITIALIZER

/** Initialise an unlocked BO lock (all-zero bytes are one too). */
static inline void clof_bo_init(clof_bo_t *l)
{
    clof_ttas_init(l);
}

/** Acquire the BO lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_bo_acquire(clof_bo_t *l, clof_bo_ctx_t *c)
{
    (void)c;
    if (CLOF_LIKELY(clof_atomic32_xchg_acq(&l->state, 1) == 0))
        return;
    clof_ttas_slowpath_(l, CLOF_BO_MIN, CLOF_BO_MAX);
}

/* Timed acquisition: false when the deadline (wait.h clock) passes first.
 * Used as the global lock of the abortable cohort locks (numa/acohort.h). */
/** Acquire the BO lock l by the deadline (nanoseconds on the clof_now_ns
 * clock of wait.h; CLOF_DEADLINE_NONE: none): false, nothing held, when it
 * passes first. */
CLOF_INLINE bool clof_bo_acquire_until(clof_bo_t *l, clof_bo_ctx_t *c,
                                       uint64_t deadline)
{
    (void)c;
    if (CLOF_LIKELY(clof_atomic32_xchg_acq(&l->state, 1) == 0))
        return true;
    return clof_ttas_slowpath_until_(l, CLOF_BO_MIN, CLOF_BO_MAX, deadline);
}

/** Acquire the BO lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_bo_tryacquire(clof_bo_t *l, clof_bo_ctx_t *c)
{
    return clof_ttas_tryacquire(l, c);
}

/** Release the BO lock l, held by the caller with context c. */
CLOF_INLINE void clof_bo_release(clof_bo_t *l, clof_bo_ctx_t *c)
{
    clof_ttas_release(l, c);
}

/** Whether a thread waits for the BO lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_bo_has_waiters(clof_bo_t *l, clof_bo_ctx_t *c)
{
    return clof_ttas_has_waiters(l, c);
}

#endif /* CLOF_LOCK_BO_H */
