/* SPDX-License-Identifier: MIT */
/*
 * clof/hier/fast.h -- the fast word of the hierarchical locks: one CAS when
 * the lock is free, in front of the hierarchy.
 *
 * Used by the CLoF compositions (compose.h, which describes the fast path:
 * "The fast path"), the standalone HMCS (numa/hmcs.h) and the abortable
 * cohort locks (numa/acohort.h, which take HELD by a deadline).  The word:
 * HELD (bit 0) is held by whoever owns the lock; TOPWAIT (bit 1) is set by a
 * system-level owner that waits for a fast owner to leave.
 *
 * Memory orders: the taking CASes are acquire (the previous owner's critical
 * section, released by the clearing store or subtraction, happens before
 * ours); the fast pre-read is relaxed (only a filter before the CAS); setting
 * TOPWAIT and the fast owner's subtraction are seq_cst read-modify-writes of
 * the same word, so the fast owner sees TOPWAIT exactly when the system-level
 * owner may be waiting (and may have parked: the waking pair of wait.h).
 * The system-level owner's drop is a release store: nobody else can wait for
 * HELD while it holds the system lock.
 *
 * Why the system-level owner clears HELD before it hands the system lock
 * on, rather than keeping it set for the next owner: while the waiter the
 * system lock goes to wakes up, an arrival may take the lock through the
 * fast path.  That window is what keeps HMCS and the compositions off the
 * FIFO collapse when threads outnumber cpus (a waiter that is not running
 * does not hold the lock up).  Passing HELD along instead was measured:
 * plain HMCS fell from 0.89x to 0.04x glibc on LevelDB at T = 8 on 2
 * vCPUs, and `cr:hmcs` gained nothing (docs/perf.md, "Passing HELD at the
 * hand-over").
 *
 * Define CLOF_COMPOSE_NO_FAST_PATH for the papers' locks exactly.
 */
/** \file
 * The fast word of the hierarchical locks: one CAS when the lock is free, in
 * front of the hierarchy (compose.h, "The fast path").  Internal to the
 * hierarchical locks; define CLOF_COMPOSE_NO_FAST_PATH for the papers'
 * locks exactly. */
#ifndef CLOF_HIER_FAST_H
#define CLOF_HIER_FAST_H

#include <clof/await.h>

/* the hierarchy's paths behind the fast path: called, not inlined (not
 * CLOF_SLOW: `cold` would optimise every inlined level of the contended
 * path for size) */
#define CLOF_CMP_OUTLINE_ static __attribute__((noinline, unused))
#define CLOF_CMP_HELD_ 1u
#define CLOF_CMP_TOPWAIT_ 2u
#ifdef CLOF_COMPOSE_NO_FAST_PATH
#define CLOF_COMPOSE_FAST_ 0
#else
#define CLOF_COMPOSE_FAST_ 1
#endif

/* An arrival's (and tryacquire's) attempt. */
CLOF_INLINE bool clof_compose_fast_try_(clof_atomic32_t *f)
{
    return clof_atomic32_read_rlx(f) == 0 &&
           clof_atomic32_cas_acq(f, 0, CLOF_CMP_HELD_);
}
/* The fast owner's release. */
CLOF_INLINE void clof_compose_fast_release_(clof_atomic32_t *f)
{
    uint32_t old = clof_atomic32_get_sub(f, CLOF_CMP_HELD_);
    if (CLOF_UNLIKELY(old & CLOF_CMP_TOPWAIT_))
        clof_atomic32_wake(f, CLOF_CMP_TOPWAIT_);
}
/* Deliberately broken variants of the fast path, for the model checker's
 * regression clients only (verify/clients_timed.c defines CLOF_FAST_MUTANT(k)
 * as a run-time choice before including clof headers): everywhere else 0,
 * folded away. */
#ifndef CLOF_FAST_MUTANT
/** Whether the model checker's broken variant k of the fast path is on (a
 *  hook for its regression clients; 0 everywhere else). */
#define CLOF_FAST_MUTANT(k) 0
#endif
/* The system-level owner: take HELD, waiting for a fast owner to leave until
 * `deadline` (wait.h's clock; CLOF_DEADLINE_NONE: for good, which reads no
 * clock).  false: timed out, HELD not taken and the TOPWAIT this call set
 * withdrawn (an abortable lock's owner of the system lock gives up). */
CLOF_SLOW bool clof_compose_fast_take_until_slow_(clof_atomic32_t *f,
                                                  uint32_t v,
                                                  uint64_t deadline)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    for (;;) {
        if (!(v & CLOF_CMP_HELD_)) { /* free: take it, clearing TOPWAIT */
            uint32_t s = clof_atomic32_cmpxchg_acq(f, v, CLOF_CMP_HELD_);
            if (s == v)
                break;
            v = s;
            continue;
        }
        if (!(v & CLOF_CMP_TOPWAIT_)) { /* keep new arrivals out */
            uint32_t s = clof_atomic32_cmpxchg(f, v, v | CLOF_CMP_TOPWAIT_);
            if (s != v) {
                v = s;
                continue;
            }
            v |= CLOF_CMP_TOPWAIT_;
        }
        if (CLOF_LIKELY(clof_atomic32_wait_until(&w, f, v, deadline))) {
            v = clof_atomic32_read_rlx(f);
            continue;
        }
        /* timed out with v == HELD | TOPWAIT (only this thread sets TOPWAIT,
         * and only the fast owner's leaving changes the word meanwhile):
         * withdraw TOPWAIT, or, if the fast owner has just left (the CAS
         * reads TOPWAIT alone), take the lock after all */
        if (CLOF_FAST_MUTANT(1)) /* broken: leave TOPWAIT set */
            return false;
        uint32_t s = clof_atomic32_cmpxchg(f, v, CLOF_CMP_HELD_);
        if (s == v)
            return false;
        v = s;
    }
    clof_wait_end(&w);
    return true;
}
CLOF_INLINE void clof_compose_fast_take_(clof_atomic32_t *f)
{
    uint32_t v = clof_atomic32_cmpxchg_acq(f, 0, CLOF_CMP_HELD_);
    if (CLOF_UNLIKELY(v != 0))
        (void)clof_compose_fast_take_until_slow_(f, v, CLOF_DEADLINE_NONE);
}
/* The same by a deadline (the abortable cohort locks): false on timeout,
 * with the fast word as it would be had this call not been made. */
CLOF_INLINE bool clof_compose_fast_take_until_(clof_atomic32_t *f,
                                               uint64_t deadline)
{
    uint32_t v = clof_atomic32_cmpxchg_acq(f, 0, CLOF_CMP_HELD_);
    return CLOF_LIKELY(v == 0) ||
           clof_compose_fast_take_until_slow_(f, v, deadline);
}
/* The system-level owner, before releasing the system lock. */
CLOF_INLINE void clof_compose_fast_drop_(clof_atomic32_t *f)
{
    clof_atomic32_write_rel(f, 0);
}

/* The context invariant: high before low.  CLOF_COMPOSE_SWAPPED_RELEASE
 * builds the broken order on purpose, for the test that must catch it; a
 * model-checking client may define its own order before including clof
 * headers (verify/clients_swapped.c: with a scheduling point between). */
#if defined(CLOF_CMP_RELEASE_ORDER_)
/* the includer's */
#elif defined(CLOF_COMPOSE_SWAPPED_RELEASE)
#define CLOF_CMP_RELEASE_ORDER_(high, low) (low, high)
#else
#define CLOF_CMP_RELEASE_ORDER_(high, low) (high, low)
#endif

#endif /* CLOF_HIER_FAST_H */
