/* SPDX-License-Identifier: MIT */
/*
 * Array lock (Anderson's queue lock).
 *
 * Algorithm: an arriving thread takes a ticket t with a fetch-and-increment
 * of `tail` and waits on slot t mod CLOF_ARRAY_SLOTS of an array of flags,
 * each on its own cache line; release sets the flag of the next slot.  With
 * fewer waiters than slots every waiter spins on a line no one else reads,
 * and the release writes the one line its successor reads.  Two changes
 * make Anderson's lock safe for any number of threads and all-zero at rest:
 *   - the flags are sense-reversing: the value that admits ticket t,
 *     clof_array_go_(t), flips with every lap of the array (and slot 0's
 *     starts at 0, the others' at 1), so no one resets a flag: a flag is
 *     written only by the release that hands over to its slot;
 *   - `head`, the ticket now served, is written by every release just
 *     before the flag.  An arrival that finds CLOF_ARRAY_SLOTS or more
 *     tickets before its own waits on head until it is within the array,
 *     and only then on its flag (with more waiters than slots, the extra
 *     ones share the line of head as a ticket lock's waiters share
 *     `owner`).  Without it, ticket t and ticket t + 2 * SLOTS would wait
 *     on one flag for the same value, and both would enter.  The holder's
 *     ticket is head, so the release needs no context.
 * Paper: Thomas E. Anderson (University of Washington), "The performance of
 * spin lock alternatives for shared-memory multiprocessors", IEEE TPDS
 * 1(1), 1990: the queueing lock of its section on spin-waiting with a
 * queue; the lock LiTL and libvsync call the array lock.  Patent: none
 * named in the paper.  Ours: the sense-reversing flags (no reset of one's
 * own flag, all-zero init), and head for the tickets beyond the array
 * (Anderson's array must have a slot per thread).
 * Properties: fair (FIFO: tickets); context-free; native has_waiters
 * (tail - head > 1); zero bytes are an unlocked lock (ticket 0 finds
 * slot 0 at 0); thread-oblivious (the holder's ticket is head).
 * Size: 17 cache lines = 1088 bytes with 16 slots (tail and head on the
 * first).
 *
 * Memory orders (`spin`, and the model checkers' and simulator's awaits):
 *   taking a ticket orders no data: a relaxed increment under `spin`,
 *     seq_cst under spin-park, for the reason given in ticket.h (the
 *     release's seq_cst read of tail must not miss it).
 *   the wait on the flag is acquire: it reads the release store of the
 *     release that hands over, so the critical sections are ordered.
 *   the arrival's reads of head are acquire, and keep the flags' laps
 *     apart: a ticket t that reads head > t - SLOTS follows (happens
 *     after) the release of ticket t - SLOTS, so it follows the store into
 *     its flag of the value that admitted t - SLOTS (every holder follows
 *     every earlier release), and cannot read the older store, two laps
 *     back, of the value that admits it.
 *   the release stores head, then the flag: with the flag first, a release
 *     delayed between the two could store an older head after a later
 *     release's (the model checker's counterexample); head first, its next
 *     writer is a holder that read the flag, so head only grows.  The
 *     release reads head (its own ticket) relaxed: it was written before
 *     the flag the holder acquired.  Both stores are wakeable (seq_cst
 *     under spin-park), then the seq_cst read of tail decides whom to
 *     wake: the next ticket if it is taken (parked on its flag for the
 *     admitting value), the ticket SLOTS - 1 after it if taken (parked on
 *     head for the value this release writes), and a nudge of the ticket
 *     after the next.
 *   tryacquire: acquire reads of head and of its flag, then a relaxed
 *     compare-exchange of tail from head: success implies the ticket now
 *     served was free and is ours (the reads are ordered after every
 *     earlier release, as the arrival's).
 *   has_waiters: relaxed reads; a hint to the owner.
 */
/** \file
 * Array lock (Anderson's): FIFO by tickets, each waiter spinning on a flag
 * of its own cache line, any number of threads.  Algorithm, properties and
 * memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_ARRAY_H
#define CLOF_LOCK_ARRAY_H

#include <clof/lock.h>

#define CLOF_ARRAY_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_ARRAY_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_ARRAY_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_ARRAY_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** The flags: a power of two; this many waiters spin each on its own line. */
#define CLOF_ARRAY_SLOTS 16u

/** One flag of the array lock (a cache line). */
typedef struct {
    clof_atomic32_t go; /**< clof_array_go_(t) admits ticket t */
} CLOF_CACHE_ALIGNED clof_array_slot_t;

/** The array lock: the counters and CLOF_ARRAY_SLOTS flags. */
typedef struct {
    clof_atomic32_t tail; /**< next ticket to hand out */
    clof_atomic32_t head; /**< ticket now served (written before its flag) */
    /** ticket t waits on slot t mod CLOF_ARRAY_SLOTS */
    clof_array_slot_t slot[CLOF_ARRAY_SLOTS] CLOF_CACHE_ALIGNED;
} clof_array_t;
/** The array lock needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_array_ctx_t;

/** Static initializer of an unlocked array lock. */
#define CLOF_ARRAY_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0), {}}

/** Initialise an unlocked array lock (all-zero bytes are one too). */
static inline void clof_array_init(clof_array_t *l)
{
    clof_atomic32_write_rlx(&l->tail, 0);
    clof_atomic32_write_rlx(&l->head, 0);
    for (uint32_t i = 0; i < CLOF_ARRAY_SLOTS; i++)
        clof_atomic32_write_rlx(&l->slot[i].go, 0);
}

/* The flag value that admits ticket t over n slots: the lap's parity,
 * inverted for every slot but the first, so that all-zero admits ticket 0
 * only ((t + n - 1) / n is t / n on slot 0 and t / n + 1 on the others;
 * n divides 2^32, so the parity survives the wrap-around of t). */
static inline uint32_t clof_array_go_(uint32_t t, uint32_t n)
{
    return ((t + n - 1) / n) & 1u;
}

/* Ticket t found head h: wait on head while SLOTS or more tickets are
 * before it, then on its flag. */
CLOF_SLOW void clof_array_wait_(clof_array_t *l, uint32_t t, uint32_t h, uint32_t n)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    do {
        /* head == t - n + 1 admits t to the array */
        clof_atomic32_wait_for(&w, &l->head, h, t - n + 1);
        h = clof_atomic32_read_acq(&l->head);
    } while (t - h >= n);
    clof_wait_end(&w);
}

/* Acquire over the first n slots (n a power of two, at most
 * CLOF_ARRAY_SLOTS: the client array.overflow uses 2). */
CLOF_INLINE void clof_array_acquire_n_(clof_array_t *l, uint32_t n)
{
    /* seq_cst where waiters may park: the releaser's seq_cst read of tail
     * must see this ticket (ticket.h) */
    uint32_t t = CLOF_WAIT_CAN_PARK ? clof_atomic32_get_inc(&l->tail)
                                    : clof_atomic32_get_inc_rlx(&l->tail);
    uint32_t h = clof_atomic32_read_acq(&l->head);
    if (CLOF_UNLIKELY(t - h >= n))
        clof_array_wait_(l, t, h, n);
    clof_atomic32_await_eq_acq(&l->slot[t % n].go, clof_array_go_(t, n));
}

/** Acquire the array lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_array_acquire(clof_array_t *l, clof_array_ctx_t *c)
{
    (void)c;
    clof_array_acquire_n_(l, CLOF_ARRAY_SLOTS);
}

/* Acquire over n slots if that needs no waiting (as tryacquire). */
CLOF_INLINE bool clof_array_tryacquire_n_(clof_array_t *l, uint32_t n)
{
    uint32_t h = clof_atomic32_read_acq(&l->head);
    return clof_atomic32_read_acq(&l->slot[h % n].go) == clof_array_go_(h, n) &&
           clof_atomic32_cmpxchg_rlx(&l->tail, h, h + 1) == h;
}

/** Acquire the array lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_array_tryacquire(clof_array_t *l, clof_array_ctx_t *c)
{
    (void)c;
    return clof_array_tryacquire_n_(l, CLOF_ARRAY_SLOTS);
}

/* Ticket u is taken (r: the next ticket, read after the stores): wake it
 * on its flag, the ticket n - 1 after it on head, and nudge u + 1. */
CLOF_SLOW void clof_array_wake_(clof_array_t *l, uint32_t u, uint32_t r, uint32_t n)
{
    clof_atomic32_wake(&l->slot[u % n].go, clof_array_go_(u, n));
    if (r - u > n - 1)
        clof_atomic32_wake(&l->head, u);
    if (r - u > 1)
        clof_atomic32_nudge(&l->slot[(u + 1) % n].go, clof_array_go_(u + 1, n));
}

/* Release over the first n slots (as the acquire). */
CLOF_INLINE void clof_array_release_n_(clof_array_t *l, uint32_t n)
{
    uint32_t u = clof_atomic32_read_rlx(&l->head) + 1; /* the next ticket */
    clof_atomic32_write_wakeable(&l->head, u);
    clof_atomic32_write_wakeable(&l->slot[u % n].go, clof_array_go_(u, n));
    if (!CLOF_WAIT_CAN_PARK)
        return;
    uint32_t r = clof_atomic32_read(&l->tail);
    if (r != u)
        clof_array_wake_(l, u, r, n);
}

/** Release the array lock l, held by the caller with context c. */
CLOF_INLINE void clof_array_release(clof_array_t *l, clof_array_ctx_t *c)
{
    (void)c;
    clof_array_release_n_(l, CLOF_ARRAY_SLOTS);
}

/** Whether a thread waits for the array lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_array_has_waiters(clof_array_t *l, clof_array_ctx_t *c)
{
    (void)c;
    return clof_tickets_waiting_(&l->tail, &l->head);
}

#endif /* CLOF_LOCK_ARRAY_H */
