/*
 * TAS -- test-and-set spinlock.
 *
 * Algorithm: acquire exchanges 1 into the lock word until the old value is 0;
 * every failed exchange is followed by one waiting step (wait.h), which in the
 * park phase sleeps until the word changes.  Release stores 0.
 * Paper: CLoF (SOSP'21) §2.1, the simplest NUMA-oblivious basic lock.
 * Properties: unfair (no admission order); context-free; has_waiters is
 * native from a waiter count kept only on the contended path; zero bytes are
 * an unlocked lock; thread-oblivious (any thread may store the 0).
 * Size: 8 bytes (state, waiters); no padding, embed it where you like.
 *
 * Memory orders:
 *   xchg_acq on acquire: the winning exchange reads the 0 stored by the
 *     previous release (release order), so the critical sections are ordered;
 *     a failed exchange publishes nothing new (it writes the 1 already there).
 *   release is a waking write (release order at least): it publishes the
 *     critical section to the next winner.
 *   waiters: seq_cst increment before the first wait, relaxed decrement,
 *     relaxed read in has_waiters (advisory: a hint for composition).  The
 *     release stores 0 (seq_cst under spin-park) and reads waiters (seq_cst):
 *     a thread whose increment follows that read will see the 0 before it
 *     can park, so the release wakes only when waiters != 0.
 */
#ifndef CLOF_LOCK_TAS_H
#define CLOF_LOCK_TAS_H

#include <clof/lock.h>

#define CLOF_TAS_FAIR 0
#define CLOF_TAS_NATIVE_HW 1
#define CLOF_TAS_ZERO_INIT 1
#define CLOF_TAS_THREAD_OBLIVIOUS 1

typedef struct {
    clof_atomic32_t state;   /* 0 free, 1 held */
    clof_atomic32_t waiters; /* threads on the contended path */
} clof_tas_t;
typedef clof_noctx_t clof_tas_ctx_t;

#define CLOF_TAS_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}

static inline void clof_tas_init(clof_tas_t *l)
{
    clof_atomic32_write_rlx(&l->state, 0);
    clof_atomic32_write_rlx(&l->waiters, 0);
}

CLOF_SLOW void clof_tas_slowpath_(clof_tas_t *l)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    clof_atomic32_inc(&l->waiters);
    do {
        clof_atomic32_wait(&w, &l->state, 1);
    } while (clof_atomic32_xchg_acq(&l->state, 1) != 0);
    clof_wait_end(&w);
    clof_atomic32_dec_rlx(&l->waiters);
}

CLOF_INLINE void clof_tas_acquire(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    if (CLOF_UNLIKELY(clof_atomic32_xchg_acq(&l->state, 1) != 0))
        clof_tas_slowpath_(l);
}

CLOF_INLINE bool clof_tas_tryacquire(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    return clof_atomic32_xchg_acq(&l->state, 1) == 0;
}

CLOF_INLINE void clof_tas_release(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    clof_atomic32_write_wakeable(&l->state, 0);
    if (CLOF_WAIT_CAN_PARK && clof_atomic32_read(&l->waiters) != 0)
        clof_atomic32_wake(&l->state, 0);
}

CLOF_INLINE bool clof_tas_has_waiters(clof_tas_t *l, clof_tas_ctx_t *c)
{
    (void)c;
    return clof_atomic32_read_rlx(&l->waiters) != 0;
}

#endif /* CLOF_LOCK_TAS_H */
