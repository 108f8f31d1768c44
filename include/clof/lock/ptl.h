/* SPDX-License-Identifier: MIT */
/*
 * PTL -- partitioned ticket lock.
 *
 * Algorithm: a ticket lock whose single "now serving" word is replaced by
 * CLOF_PTL_SLOTS grant slots, each on its own cache line: the thread with
 * ticket t waits until slot t mod SLOTS holds t; release writes t+1 into the
 * next slot.  With fewer waiters than slots every waiter spins privately.
 * Paper: cohort paper (TOPC'15) §3.2 and Fig. 5 (the top lock of C-PTL-TKT,
 * after Dice 2011).
 * Properties: fair (FIFO); context-free; native has_waiters
 * (request - owner > 1); zero bytes are an unlocked lock (ticket 0 finds
 * slot 0 == 0; slot i waits for i); thread-oblivious (the owner's ticket is
 * kept in the lock, not in a context).
 * Size: (1 + CLOF_PTL_SLOTS) cache lines = 576 bytes with 8 slots.
 *
 * Memory orders:
 *   the increment of request that takes a ticket: relaxed under `spin`,
 *     seq_cst under spin-park, for the reason given in ticket.h (the
 *     release's seq_cst read of request must not miss it).
 *   await slot == t acquire: reads the previous holder's waking (release)
 *     store into that slot.
 *   owner_ticket is written and read only by the holder (relaxed): the next
 *     holder reads it after acquiring, i.e. after the release that follows
 *     the write, so it is ordered by the slot's release/acquire pair.
 *   release: the slot store is wakeable (seq_cst under spin-park) and the
 *     seq_cst read of request decides whether anyone holds that ticket, as
 *     in ticket.h.
 *   tryacquire: acquire read of the slot (the synchronizing read), then a
 *     relaxed compare-exchange on request claims that same ticket.
 */
/** \file
 * PTL, the partitioned ticket lock: a ticket lock whose waiters spin on
 * CLOF_PTL_SLOTS grant slots of their own cache lines; FIFO, no context.
 * Algorithm, properties and memory orders: the comment at the top of the
 * header. */
#ifndef CLOF_LOCK_PTL_H
#define CLOF_LOCK_PTL_H

#include <clof/lock.h>

#ifndef CLOF_PTL_SLOTS
/** The grant slots: a power of two, at least the NUMA nodes (cohort
 *  paper); define it before the include to change it. */
#define CLOF_PTL_SLOTS 8u /* power of two; >= NUMA nodes (cohort paper) */
#endif

#define CLOF_PTL_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_PTL_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_PTL_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_PTL_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** One grant slot of PTL (a cache line). */
typedef struct {
    clof_atomic32_t grant; /**< the ticket this slot serves next */
} CLOF_CACHE_ALIGNED clof_ptl_slot_t;

/** The PTL lock: the counters and CLOF_PTL_SLOTS grant slots. */
typedef struct {
    clof_atomic32_t request;      /**< next ticket to hand out */
    clof_atomic32_t owner_ticket; /**< ticket of the holder */
    /** ticket t waits on slot t mod CLOF_PTL_SLOTS */
    clof_ptl_slot_t slot[CLOF_PTL_SLOTS] CLOF_CACHE_ALIGNED;
} clof_ptl_t;
/** PTL needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_ptl_ctx_t;

/** Static initializer of an unlocked PTL lock. */
#define CLOF_PTL_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0), {}}

/** Initialise an unlocked PTL lock (all-zero bytes are one too). */
static inline void clof_ptl_init(clof_ptl_t *l)
{
    clof_atomic32_write_rlx(&l->request, 0);
    clof_atomic32_write_rlx(&l->owner_ticket, 0);
    for (uint32_t i = 0; i < CLOF_PTL_SLOTS; i++)
        clof_atomic32_write_rlx(&l->slot[i].grant, 0);
}

/** Acquire the PTL lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_ptl_acquire(clof_ptl_t *l, clof_ptl_ctx_t *c)
{
    (void)c;
    /* seq_cst where waiters may park: the releaser's seq_cst read of
     * request must see this ticket (else a lost wake-up; found by clof verify,
     * park mode, C11) */
    uint32_t t = CLOF_WAIT_CAN_PARK ? clof_atomic32_get_inc(&l->request)
                                    : clof_atomic32_get_inc_rlx(&l->request);
    clof_atomic32_await_eq_acq(&l->slot[t % CLOF_PTL_SLOTS].grant, t);
    clof_atomic32_write_rlx(&l->owner_ticket, t);
}

/** Acquire the PTL lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_ptl_tryacquire(clof_ptl_t *l, clof_ptl_ctx_t *c)
{
    (void)c;
    uint32_t t = clof_atomic32_read_rlx(&l->request);
    if (clof_atomic32_read_acq(&l->slot[t % CLOF_PTL_SLOTS].grant) != t)
        return false;
    if (clof_atomic32_cmpxchg_rlx(&l->request, t, t + 1) != t)
        return false;
    clof_atomic32_write_rlx(&l->owner_ticket, t);
    return true;
}

/* Ticket t is taken (r: the next ticket): wake it, nudge t+1 (see
 * ticket.h).  Out of line, so the release saves no registers when nobody
 * waits. */
CLOF_SLOW void clof_ptl_wake_(clof_ptl_t *l, uint32_t t, uint32_t r)
{
    clof_atomic32_wake(&l->slot[t % CLOF_PTL_SLOTS].grant, t);
    if (r - t > 1)
        clof_atomic32_nudge(&l->slot[(t + 1) % CLOF_PTL_SLOTS].grant, t + 1);
}

/** Release the PTL lock l, held by the caller with context c. */
CLOF_INLINE void clof_ptl_release(clof_ptl_t *l, clof_ptl_ctx_t *c)
{
    (void)c;
    uint32_t t = clof_atomic32_read_rlx(&l->owner_ticket) + 1;
    clof_atomic32_write_wakeable(&l->slot[t % CLOF_PTL_SLOTS].grant, t);
    if (!CLOF_WAIT_CAN_PARK)
        return;
    uint32_t r = clof_atomic32_read(&l->request);
    if (r != t)
        clof_ptl_wake_(l, t, r);
}

/** Whether a thread waits for the PTL lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_ptl_has_waiters(clof_ptl_t *l, clof_ptl_ctx_t *c)
{
    (void)c;
    return clof_tickets_waiting_(&l->request, &l->owner_ticket);
}

#endif /* CLOF_LOCK_PTL_H */
