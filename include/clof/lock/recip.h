/* SPDX-License-Identifier: MIT */
/*
 * Reciprocating lock.
 *
 * Algorithm: the lock is one word, `arrivals`: NULL when free, the mark
 * LOCKED_EMPTY (1) when held with no new arrivals, otherwise the context
 * (wait element) of the newest arrival.  An arriving thread swaps its
 * context into `arrivals`; NULL back means the lock was free and it is the
 * owner.  Otherwise it has pushed itself on the arrival stack, and the word
 * it got back (the previous newest arrival, or nobody for LOCKED_EMPTY) is
 * its successor: it waits on its own context's `gate` until a release
 * writes there.  The owner's release hands the lock to its successor if it
 * has one (the entry segment: the stack detached earlier, served newest
 * first).  If it has none, the entry segment is used up: a compare-exchange
 * frees the lock if nobody arrived; otherwise an exchange with
 * LOCKED_EMPTY detaches the whole arrival stack at once, and its newest
 * member is the next owner.  Arrival is one exchange and release one
 * store, or one compare-exchange and one exchange: constant time.  Waiters
 * spin on their own context (local spinning).
 * The end of a segment.  An owner that found the lock free has its own
 * context in `arrivals`: the first thread to arrive after it takes that
 * context for its successor, though it is no waiter.  So the gate carries
 * the end of the segment (eos): the context that stood at the bottom of the
 * stack when it was detached (the owner that found the lock free), or
 * LOCKED_EMPTY.  The admitted thread whose successor is the eos is the last
 * of its segment: it drops the successor, and its release compares
 * `arrivals` with LOCKED_EMPTY, which the detaching exchange left there.
 * The eos is only ever compared, never dereferenced.
 * Paper: Dave Dice and Alex Kogan (Oracle Labs), "Reciprocating Locks",
 * PPoPP 2025 (long form: arXiv 2501.02380): the arrival word and its
 * encoding (LOCKED_EMPTY), the two segments and their order are the
 * paper's, as its abstract, the patent application below and descriptions
 * of its listing give them (its full text was not at hand); the
 * end-of-segment mark follows from that encoding.
 * Patent: US patent application 2026/0050478 A1, "Reciprocating Locks"
 * (published 19 February 2026), claims this arrival/entry queue scheme;
 * its assignee is not in the record we read (the authors are at Oracle
 * Labs).  Ours: the context carries the successor and the eos from
 * acquire to release, and the waiting policy's parking and nudges.  The
 * gate is reset at arrival, before the exchange, as in the paper: reset by
 * the waiter once it has read the gate instead (so that the uncontended
 * path stores no gate, one instruction less), the store sat on the
 * hand-over's path and the simulator put the lock at 0.79-0.95x MCS
 * instead of 1.01-1.05x (frontier.md).
 * Properties: not FIFO: bounded bypass.  Segments are served in the order
 * they were detached and each segment newest first, so a waiter is
 * overtaken only by the threads that arrived after it in its own segment,
 * each at most once: it waits for at most the rest of the entry segment
 * and its own segment, whatever the other threads do (the paper's
 * anti-starvation property).  Context = the wait element of one
 * acquisition (a cache line); native has_waiters (a successor, or
 * `arrivals` moved from the eos); zero bytes are an unlocked lock (and a
 * context needs no initialisation); thread-oblivious with the same
 * context.  As with Hemlock, nobody dereferences a context after its
 * release returns: it may live on the stack.  (The paper needs one wait
 * element per thread however many locks it holds, as an element is idle
 * once its lock is held; here the context also carries the successor and
 * the eos, so it serves one acquisition at a time, as every clof context
 * does.)
 * Size: lock 8 bytes; context 64 bytes.
 *
 * Memory orders (`spin`, and the model checkers' and simulator's awaits):
 *   the gate's reset to NULL, before the arrival exchange, is relaxed: the
 *     exchange publishes it (below).
 *   the arrival exchange is seq_cst (acquire and release; free on x86, as
 *     MCS's).  Acquire: an arrival that gets NULL reads the release's
 *     compare-exchange (release) and so follows its critical section;
 *     relaxed, it misses that section (the seeded bug recip-arrive-relaxed).
 *     Release, paired with the acquire of whoever reads this exchange (the
 *     next arrival's exchange, or the detaching one): that reader later
 *     writes this context's gate, so the reset happens before that write
 *     and cannot overwrite it; relaxed, the reset may follow the hand-over
 *     in modification order and the waiter waits forever.
 *   the hand-over (the gate written with the eos) is a waking write
 *     (release); the waiter's await of a non-NULL gate is acquire: it reads
 *     the critical section of the thread that admits it.  Either relaxed,
 *     the admitted thread's compare-exchange on `arrivals` may read a value
 *     older than the LOCKED_EMPTY its segment's detach left (a failed
 *     compare-exchange is a load), and the exchange that follows returns
 *     LOCKED_EMPTY as a context (vc: "invalid pointer").
 *   the release's compare-exchange (eos -> NULL) is release: it publishes
 *     the critical section to the next arrival that finds the lock free.
 *     Its failure is relaxed: the exchange that follows reads `arrivals`
 *     again, and the eos it compares with happens before it (its own
 *     exchange, or the detach through the hand-over chain), so it cannot
 *     read a value older than the eos and fail when nobody arrived.
 *   the detaching exchange (-> LOCKED_EMPTY) is acquire: it reads the
 *     newest arrival's exchange, whose context it then writes (see above).
 *     It publishes nothing: the threads that find LOCKED_EMPTY take no
 *     successor and are admitted through their gate.
 *   succ and eos are plain fields of the context: only its owner (the
 *     thread that holds the lock with it) reads and writes them.
 *   tryacquire: compare-exchange NULL -> c, acquire (the previous release's
 *     compare-exchange); no release half, and no reset of c's gate: the
 *     arrival that takes c for its successor compares it with the eos and
 *     never writes c's gate (as for an arrival that finds the lock free).
 *   has_waiters: relaxed read of `arrivals`; a hint to the owner.
 * Under spin-park (waiters may sleep) the orders stay: the hand-over is the
 *   only store a waiter sleeps on, and it is a waking write (seq_cst there,
 *   with its Dekker handshake against the parked waiter's registration,
 *   wait.h).  No release decides from other state whom to wake, so no
 *   order becomes seq_cst for that (unlike ticket.h and twa.h).
 * Waiting: a waiter waits for any change of its gate (the eos is not known
 *   in advance).  An admitted waiter with a successor nudges it (wait.h,
 *   clof_nudge: a wake-up of whoever sleeps on that gate, nothing written):
 *   it is next, and should be running at the release, as Hemlock's
 *   successor is.  The nudge only hashes the address; the successor waits
 *   until this owner's release, so its context is alive anyway.
 */
/** \file
 * Reciprocating lock: constant-time arrival and release, bounded bypass,
 * one wait element (context) per waiting thread.  Algorithm, properties and
 * memory orders: the comment at the top of the header. */
#ifndef CLOF_LOCK_RECIP_H
#define CLOF_LOCK_RECIP_H

#include <clof/lock.h>

#define CLOF_RECIP_FAIR 0 /**< 0: bounded bypass, not FIFO admission (lock.h) */
#define CLOF_RECIP_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_RECIP_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_RECIP_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** The Reciprocating lock's context: the wait element of one acquisition
 *  (one cache line: its waiter spins on it). */
typedef struct clof_recip_ctx {
    /** NULL from the arrival until the admitting release writes the end
     *  of the segment here */
    CLOF_ATOMICPTR(struct clof_recip_ctx) gate;
    struct clof_recip_ctx *succ; /**< the next owner of the segment (owner's) */
    struct clof_recip_ctx *eos;  /**< the end of the segment (owner's) */
} CLOF_CACHE_ALIGNED clof_recip_ctx_t;

/** The Reciprocating lock: its arrival word (8 bytes). */
typedef struct {
    /** NULL: free; CLOF_RECIP_LOCKED_EMPTY: held, nobody arrived since the
     *  last detach; otherwise the newest arrival's context */
    CLOF_ATOMICPTR(clof_recip_ctx_t) arrivals;
} clof_recip_t;

/** The arrival word of a held lock with an empty arrival stack. */
#define CLOF_RECIP_LOCKED_EMPTY ((clof_recip_ctx_t *)(uintptr_t)1)

/** Static initializer of an unlocked Reciprocating lock. */
#define CLOF_RECIP_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}

/** Initialise an unlocked Reciprocating lock (all-zero bytes are one too). */
static inline void clof_recip_init(clof_recip_t *l)
{
    clof_atomicptr_write_rlx(&l->arrivals, (clof_recip_ctx_t *)NULL);
}

/* The arrival exchange returned tail != NULL: wait on the gate for the end
 * of the segment, then take the successor (NULL at the end of it). */
CLOF_SLOW void clof_recip_wait_(clof_recip_ctx_t *c, clof_recip_ctx_t *tail)
{
    clof_recip_ctx_t *succ = tail == CLOF_RECIP_LOCKED_EMPTY ? NULL : tail;
    clof_recip_ctx_t *eos =
        clof_atomicptr_await_neq_acq(&c->gate, (clof_recip_ctx_t *)NULL);
    if (succ == eos) { /* the last of the segment */
        succ = NULL;
        eos = CLOF_RECIP_LOCKED_EMPTY;
    }
    c->succ = succ;
    c->eos = eos;
    if (CLOF_WAIT_CAN_NUDGE && succ != NULL) /* it is next: be running */
        clof_wake(&succ->gate._v);
}

/** Acquire the Reciprocating lock l, waiting until it is free (wait.h's
 * policy: spin, yield, park).  c: this acquisition's context, kept until
 * the release. */
CLOF_INLINE void clof_recip_acquire(clof_recip_t *l, clof_recip_ctx_t *c)
{
    clof_atomicptr_write_rlx(&c->gate, (clof_recip_ctx_t *)NULL);
    clof_recip_ctx_t *tail = clof_atomicptr_xchg(&l->arrivals, c);
    if (CLOF_LIKELY(tail == NULL)) {
        c->succ = NULL;
        c->eos = c;
        return;
    }
    clof_recip_wait_(c, tail);
}

/** Acquire the Reciprocating lock l if that needs no waiting: true when it
 * is held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_recip_tryacquire(clof_recip_t *l, clof_recip_ctx_t *c)
{
    if (clof_atomicptr_cmpxchg_acq(&l->arrivals, (clof_recip_ctx_t *)NULL,
                                   c) != NULL)
        return false;
    c->succ = NULL;
    c->eos = c;
    return true;
}

/* The entry segment is used up and someone arrived: detach the arrival
 * stack and admit its newest member (succ == NULL), or admit the successor.
 * Either way the gate gets the end of the segment. */
CLOF_SLOW void clof_recip_pass_(clof_recip_t *l, clof_recip_ctx_t *succ,
                                clof_recip_ctx_t *eos)
{
    if (succ == NULL)
        succ = clof_atomicptr_xchg_acq(&l->arrivals, CLOF_RECIP_LOCKED_EMPTY);
    clof_atomicptr_write_wake(&succ->gate, eos);
}

/** Release the Reciprocating lock l, held by the caller with context c. */
CLOF_INLINE void clof_recip_release(clof_recip_t *l, clof_recip_ctx_t *c)
{
    clof_recip_ctx_t *succ = c->succ, *eos = c->eos;
    if (CLOF_LIKELY(succ == NULL) &&
        clof_atomicptr_cmpxchg_rel(&l->arrivals, eos,
                                   (clof_recip_ctx_t *)NULL) == eos)
        return;
    clof_recip_pass_(l, succ, eos);
}

/** Whether a thread waits for the Reciprocating lock l (for its owner,
 * with its context c): the hint a composition's hand-over decision reads.
 * Exact: a successor in the entry segment, or an arrival since the owner's
 * segment was detached (`arrivals` is no longer the eos). */
CLOF_INLINE bool clof_recip_has_waiters(clof_recip_t *l, clof_recip_ctx_t *c)
{
    return c->succ != NULL || clof_atomicptr_read_rlx(&l->arrivals) != c->eos;
}

#endif /* CLOF_LOCK_RECIP_H */
