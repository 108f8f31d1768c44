/* SPDX-License-Identifier: MIT */
/*
 * TWA: the ticket lock augmented with a waiting array.
 *
 * Algorithm: a ticket lock (ticket.h) whose far waiters do not spin on the
 * lock.  Acquire takes a ticket tx with a fetch-and-increment of `ticket`;
 * when tx - grant is 0 the lock is held.  A thread more than
 * CLOF_TWA_THRESHOLD tickets away from `grant` is a long-term waiter: it
 * waits on one slot of a process-wide waiting array, the slot of (lock, tx),
 * until that slot changes and grant has come within the threshold; then it
 * waits on grant == tx as in the ticket lock (short-term).  Release
 * increments grant to k and then increments the slot of (lock, k + the
 * threshold): the waiter that has just become short-term.  So at most the
 * threshold's number of threads read the line that the release writes,
 * however many wait (the "global spinning" of the ticket lock is gone),
 * and the lock stays two words, with no queue node.
 * Paper: Dave Dice and Alex Kogan (Oracle Labs), "TWA - Ticket Locks
 * Augmented with a Waiting Array", Euro-Par 2019 (arXiv 1810.01573): the
 * algorithm and its listing, the threshold 1 and the 4096-slot array are
 * the paper's.  Patent: the TWA paper names none; the authors' later
 * TWA-semaphore paper (arXiv 2501.18447) carries an Oracle patent
 * disclosure number.  The hash and the slot stride are ours.
 * Properties: fair (FIFO: tickets); context-free; native has_waiters
 * (ticket - grant > 1); zero bytes are an unlocked lock; thread-oblivious.
 * Size: 8 bytes, plus the one process-wide array of 4096 32-bit slots
 * (16 KiB) that every TWA lock shares.
 *
 * The waiting array.  A slot is a counter that only says "something
 * changed": different locks and tickets may hash to the same slot, so a
 * waiter woken by another lock's release re-reads grant and waits again.
 * Its value never matters, only its change, so the slots need no
 * initialisation and no reset.
 *
 * Memory orders (`spin`, and the model checkers' and simulator's awaits):
 *   taking a ticket orders no data: a relaxed increment.  The read of
 *     grant that finds the lock free (tx == grant) is acquire: it reads the
 *     previous release's store, as the final short-term wait does.
 *   the long-term waiter reads its slot with acquire and then grant; the
 *     release stores grant with release and then increments the slot with
 *     a release read-modify-write.  If the waiter reads the slot's new value
 *     it synchronizes with that increment and so reads the new grant; if it
 *     reads an older value it waits for a change, and the increment is one.
 *     Either way it is not left waiting on a slot that no one will change
 *     (a relaxed increment lets the waiter read the new slot value and the
 *     old grant: it waits forever; the seeded bug twa-notify-relaxed).  The
 *     re-read of grant is relaxed: the acquire read of the slot orders it,
 *     and the short-term wait that follows is acquire.
 *   grant is written only by the holder, so its relaxed read in release
 *     reads its own predecessor's store.
 * Under spin-park (waiters may sleep) the ticket is taken with seq_cst and
 *   the waiter's reads of grant and of its slot are seq_cst; the release's
 *   increment of grant is seq_cst, followed by a seq_cst read of ticket,
 *   as in ticket.h: the release wakes the short-term waiter only when
 *   ticket k is taken, and increments (and wakes) the slot of k + the
 *   threshold only when that ticket is taken.  A thread that takes it
 *   after that read reads (seq_cst) a grant of at least k, so it is within
 *   the threshold and waits short-term; a long-term waiter whose seq_cst
 *   read of grant missed the new value read its slot before the increment
 *   (both pairs are Dekker handshakes in the seq_cst order), so the
 *   increment changes what it waits on.  The uncontended release is then
 *   one increment and one read, with no slot touched.
 * Waiting: long-term waiters park on their slot until it changes;
 *   short-term waiters park keyed by their ticket, and a release nudges the
 *   ticket after the one it admits (wait.h, clof_nudge), as ticket.h does.
 *   Both phases of one acquisition share one wait state, so a waiter woken
 *   from its slot keeps yielding on grant rather than parking again: it is
 *   next but one, and a second futex wake-up per hand-over is what made
 *   TWA collapse with more threads than cpus (frontier.md).
 *   tryacquire reads grant with acquire and claims the ticket with a
 *     relaxed compare-exchange on ticket: success implies grant == ticket.
 *   has_waiters: relaxed reads; a hint to the owner.
 */
/** \file
 * TWA: the ticket lock whose far waiters wait on a process-wide waiting
 * array.  Algorithm, properties and memory orders: the comment at the top
 * of the header. */
#ifndef CLOF_LOCK_TWA_H
#define CLOF_LOCK_TWA_H

#include <clof/lock.h>

#define CLOF_TWA_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_TWA_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_TWA_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_TWA_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** Waiters at most this many tickets from grant wait on grant itself
 *  (short-term); farther ones wait in the waiting array (the paper's
 *  LongTermThreshold, 1). */
#define CLOF_TWA_THRESHOLD 1u
/** Slots of the process-wide waiting array (the paper's 4096). */
#define CLOF_TWA_SLOTS 4096u

/** The TWA lock (8 bytes). */
typedef struct {
    clof_atomic32_t ticket; /**< next ticket to hand out */
    clof_atomic32_t grant;  /**< ticket now served */
} clof_twa_t;
/** TWA needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_twa_ctx_t;

/** Static initializer of an unlocked TWA lock. */
#define CLOF_TWA_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}

/** The process-wide waiting array of every TWA lock (weak: one copy however
 * many includers, as wait.h's parking table). */
__attribute__((weak, visibility("default"), aligned(64))) clof_atomic32_t
    clof_twa_waits[CLOF_TWA_SLOTS];

/* The slot of ticket t of lock l.  Consecutive tickets of one lock are 17
 * slots (68 bytes) apart, so the waiters of one lock spin on different
 * cache lines and a release's increment disturbs only the waiter it is
 * for (and the slots that share its line by chance). */
static inline clof_atomic32_t *clof_twa_slot_(const clof_twa_t *l, uint32_t t)
{
    uint64_t h = (uint64_t)(uintptr_t)CLOF_BE_LOCK_KEY(l) * 0x9e3779b97f4a7c15ull;
    uint32_t base = (uint32_t)(h >> 40);
    return &clof_twa_waits[(base + t * 17u) & (CLOF_TWA_SLOTS - 1)];
}

/** Initialise an unlocked TWA lock (all-zero bytes are one too). */
static inline void clof_twa_init(clof_twa_t *l)
{
    clof_atomic32_write_rlx(&l->ticket, 0);
    clof_atomic32_write_rlx(&l->grant, 0);
}

/* Grant as a waiter reads it: acquire, seq_cst where waiters may park (the
 * release's decision whom to wake rests on it, see the top). */
static inline uint32_t clof_twa_grant_(const clof_twa_t *l)
{
    return CLOF_WAIT_CAN_PARK ? clof_atomic32_read(&l->grant)
                              : clof_atomic32_read_acq(&l->grant);
}

/* Ticket t is d > 0 tickets from grant: wait, on its slot while d is more
 * than the threshold, then on grant.  One wait state for both phases: a
 * waiter woken from its slot is next but one, and stays runnable (wait.h:
 * the yields after a wake-up) instead of parking again on grant, so it is
 * running when its turn comes, as ticket.h's nudged waiter is. */
CLOF_SLOW void clof_twa_wait_(clof_twa_t *l, uint32_t t, uint32_t d)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    if (d > CLOF_TWA_THRESHOLD) {
        clof_atomic32_t *at = clof_twa_slot_(l, t);
        for (;;) {
            uint32_t u = CLOF_WAIT_CAN_PARK ? clof_atomic32_read(at)
                                            : clof_atomic32_read_acq(at);
            uint32_t g = CLOF_WAIT_CAN_PARK ? clof_atomic32_read(&l->grant)
                                            : clof_atomic32_read_rlx(&l->grant);
            if (t - g <= CLOF_TWA_THRESHOLD)
                break;
            clof_atomic32_wait(&w, at, u);
        }
    }
    for (;;) {
        uint32_t g = clof_atomic32_read_acq(&l->grant);
        if (g == t)
            break;
        clof_atomic32_wait_for(&w, &l->grant, g, t);
    }
    clof_wait_end(&w);
}

/** Acquire the TWA lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_twa_acquire(clof_twa_t *l, clof_twa_ctx_t *c)
{
    (void)c;
    uint32_t t = CLOF_WAIT_CAN_PARK ? clof_atomic32_get_inc(&l->ticket)
                                    : clof_atomic32_get_inc_rlx(&l->ticket);
    uint32_t d = t - clof_twa_grant_(l);
    if (CLOF_LIKELY(d == 0))
        return;
    clof_twa_wait_(l, t, d);
}

/** Acquire the TWA lock l if that needs no waiting: true when it is held
 * with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_twa_tryacquire(clof_twa_t *l, clof_twa_ctx_t *c)
{
    (void)c;
    return clof_tickets_try_(&l->ticket, &l->grant);
}

/* Spin-park release, ticket k taken (n: the ticket counter it read): wake
 * it, nudge k+1, and move the long-term waiter k + the threshold, if those
 * tickets are taken.  Out of line, so the release saves no registers when
 * nobody waits. */
CLOF_SLOW void clof_twa_wake_(clof_twa_t *l, uint32_t k, uint32_t n)
{
    clof_tickets_wake_(&l->grant, k, n);
    if (n - k > CLOF_TWA_THRESHOLD) {
        clof_atomic32_t *at = clof_twa_slot_(l, k + CLOF_TWA_THRESHOLD);
        clof_atomic32_inc(at);
        clof_wake(&at->_v);
    }
}

/** Release the TWA lock l, held by the caller with context c. */
CLOF_INLINE void clof_twa_release(clof_twa_t *l, clof_twa_ctx_t *c)
{
    (void)c;
    if (!CLOF_WAIT_CAN_PARK) {
        uint32_t k = clof_atomic32_read_rlx(&l->grant) + 1;
        clof_atomic32_write_rel(&l->grant, k);
        clof_atomic32_inc_rel(clof_twa_slot_(l, k + CLOF_TWA_THRESHOLD));
        return;
    }
    /* only the holder writes grant, so a seq_cst increment is the wakeable
     * store (and one instruction on x86) */
    uint32_t k = clof_atomic32_get_inc(&l->grant) + 1;
    uint32_t n = clof_atomic32_read(&l->ticket);
    if (n != k) /* ticket k is taken */
        clof_twa_wake_(l, k, n);
}

/** Whether a thread waits for the TWA lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_twa_has_waiters(clof_twa_t *l, clof_twa_ctx_t *c)
{
    (void)c;
    return clof_tickets_waiting_(&l->ticket, &l->grant);
}

#endif /* CLOF_LOCK_TWA_H */
