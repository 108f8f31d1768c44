/* SPDX-License-Identifier: MIT */
/*
 * Ticket lock.
 *
 * Algorithm: acquire takes a ticket with a fetch-and-increment of `next` and
 * waits until `owner` equals it; release increments `owner`.  Threads are
 * admitted in ticket order.
 * Paper: CLoF (SOSP'21) §2.1 (Ticketlock, tkt); cohort paper (TOPC'15) §3.1
 * (TKT, the local and global lock of C-TKT-TKT).
 * Properties: fair (FIFO); context-free; native has_waiters (next - owner > 1);
 * zero bytes are an unlocked lock; thread-oblivious.
 * Size: 8 bytes (next, owner on one line, as in the papers: waiters read the
 * line the releaser writes; PTL spreads it, see ptl.h).
 *
 * Memory orders:
 *   taking a ticket orders no data, so under `spin` it is a relaxed
 *     increment; under spin-park it is seq_cst, because the release below
 *     decides from a seq_cst read of next whether to wake: a relaxed
 *     increment is outside the seq_cst order and that read could miss it
 *     while the waiter parks (a lost wake-up under C11, found by
 *     `clof verify` in park mode; the same instruction on x86).  The wait
 *     for owner == ticket is acquire and reads the previous release's store.
 *   owner is written only by the holder, so the holder's relaxed read of it
 *     in release reads its own predecessor's store (already acquired);
 *     under `spin` the increment is a release store; under spin-park it is
 *     a seq_cst increment (the holder is the only writer) followed by a
 *     seq_cst read of next: a thread that takes
 *     ticket o after that read finds owner == o without parking (its
 *     fetch-add and the read are ordered after our store in the seq_cst
 *     order), so the wake is needed only when next != o.
 * Waiting: a waiter parks keyed by its ticket, so a release wakes exactly the
 *   next ticket; it also nudges the ticket after it, which is then running
 *   when its turn comes (wait.h, clof_nudge).
 *   tryacquire reads owner with acquire (that read is what synchronizes with
 *     the previous release) and then claims the ticket with a relaxed
 *     compare-exchange on next: success implies owner == next == the ticket.
 *   has_waiters: relaxed reads; a hint to the owner.
 */
/** \file
 * Ticket lock: FIFO by a pair of counters, no context.  Algorithm,
 * properties and memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_TICKET_H
#define CLOF_LOCK_TICKET_H

#include <clof/lock.h>

#define CLOF_TICKET_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_TICKET_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_TICKET_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_TICKET_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** The ticket lock (8 bytes). */
typedef struct {
    clof_atomic32_t next;  /**< next ticket to hand out */
    clof_atomic32_t owner; /**< ticket now served */
} clof_ticket_t;
/** The ticket lock needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_ticket_ctx_t;

/** Static initializer of an unlocked ticket lock. */
#define CLOF_TICKET_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}

/** Initialise an unlocked ticket lock (all-zero bytes are one too). */
static inline void clof_ticket_init(clof_ticket_t *l)
{
    clof_atomic32_write_rlx(&l->next, 0);
    clof_atomic32_write_rlx(&l->owner, 0);
}

/** Acquire the ticket lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_ticket_acquire(clof_ticket_t *l, clof_ticket_ctx_t *c)
{
    (void)c;
    /* seq_cst where waiters may park: the releaser's seq_cst read of
     * next must see this ticket (else a lost wake-up; found by clof verify,
     * park mode, C11) */
    uint32_t t = CLOF_WAIT_CAN_PARK ? clof_atomic32_get_inc(&l->next)
                                    : clof_atomic32_get_inc_rlx(&l->next);
    clof_atomic32_await_eq_acq(&l->owner, t);
}

/** Acquire the ticket lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_ticket_tryacquire(clof_ticket_t *l,
                                          clof_ticket_ctx_t *c)
{
    (void)c;
    return clof_tickets_try_(&l->next, &l->owner);
}

/* Ticket o is taken: wake it, and nudge o+1 if that is taken too.  Out of
 * line, so the release saves no registers when nobody waits. */
CLOF_SLOW void clof_ticket_wake_(clof_ticket_t *l, uint32_t o, uint32_t n)
{
    clof_tickets_wake_(&l->owner, o, n);
}

/** Release the ticket lock l, held by the caller with context c. */
CLOF_INLINE void clof_ticket_release(clof_ticket_t *l, clof_ticket_ctx_t *c)
{
    (void)c;
    if (!CLOF_WAIT_CAN_PARK) {
        uint32_t o = clof_atomic32_read_rlx(&l->owner);
        clof_atomic32_write_rel(&l->owner, o + 1);
        return;
    }
    /* only the holder writes owner, so a seq_cst increment is the wakeable
     * store (and one instruction on x86) */
    uint32_t o = clof_atomic32_get_inc(&l->owner) + 1;
    uint32_t n = clof_atomic32_read(&l->next);
    if (n != o) /* ticket o is taken */
        clof_ticket_wake_(l, o, n);
}

/** Whether a thread waits for the ticket lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_ticket_has_waiters(clof_ticket_t *l,
                                           clof_ticket_ctx_t *c)
{
    (void)c;
    return clof_tickets_waiting_(&l->next, &l->owner);
}

#endif /* CLOF_LOCK_TICKET_H */
