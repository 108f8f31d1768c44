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
#ifndef CLOF_LOCK_BO_H
#define CLOF_LOCK_BO_H

#include <clof/lock/ttas.h>

#ifndef CLOF_BO_MIN
#define CLOF_BO_MIN 8u
#endif
#ifndef CLOF_BO_MAX
#define CLOF_BO_MAX 1024u
#endif

#define CLOF_BO_FAIR 0
#define CLOF_BO_NATIVE_HW 1
#define CLOF_BO_ZERO_INIT 1
#define CLOF_BO_THREAD_OBLIVIOUS 1

/* BO is TTAS plus a backoff on its contended path: same state, same release. */
typedef clof_ttas_t clof_bo_t;
typedef clof_noctx_t clof_bo_ctx_t;

#define CLOF_BO_INITIALIZER CLOF_TTAS_INITIALIZER

static inline void clof_bo_init(clof_bo_t *l)
{
    clof_ttas_init(l);
}

CLOF_INLINE void clof_bo_acquire(clof_bo_t *l, clof_bo_ctx_t *c)
{
    (void)c;
    if (CLOF_LIKELY(clof_atomic32_xchg_acq(&l->state, 1) == 0))
        return;
    clof_ttas_slowpath_(l, CLOF_BO_MIN, CLOF_BO_MAX);
}

/* Timed acquisition: false when the deadline (wait.h clock) passes first.
 * Used as the global lock of the abortable cohort locks (numa/acohort.h). */
CLOF_INLINE bool clof_bo_acquire_until(clof_bo_t *l, clof_bo_ctx_t *c,
                                       uint64_t deadline)
{
    (void)c;
    if (CLOF_LIKELY(clof_atomic32_xchg_acq(&l->state, 1) == 0))
        return true;
    return clof_ttas_slowpath_until_(l, CLOF_BO_MIN, CLOF_BO_MAX, deadline);
}

CLOF_INLINE bool clof_bo_tryacquire(clof_bo_t *l, clof_bo_ctx_t *c)
{
    return clof_ttas_tryacquire(l, c);
}

CLOF_INLINE void clof_bo_release(clof_bo_t *l, clof_bo_ctx_t *c)
{
    clof_ttas_release(l, c);
}

CLOF_INLINE bool clof_bo_has_waiters(clof_bo_t *l, clof_bo_ctx_t *c)
{
    return clof_ttas_has_waiters(l, c);
}

#endif /* CLOF_LOCK_BO_H */
