/* SPDX-License-Identifier: MIT */
/*
 * CLH queue lock.
 *
 * Algorithm: a thread marks its node locked, swaps it into the tail and waits
 * until its predecessor's node is unlocked; release unlocks its own node and
 * takes over the predecessor's node for its next acquisition (the successor
 * still reads the released one).  Local spinning on the predecessor's node.
 * After an acquisition that did not wait, a release with nobody queued
 * marks the tail free instead (the free mark, below), and the uncontended
 * hand-over touches the tail alone.
 * Paper: CLoF (SOSP'21) §2.1; cohort paper (TOPC'15) §3.4 (A-C-BO-CLH);
 * Craig / Landin and Hagersten.
 * Properties: fair (FIFO); context = { node in use, predecessor, own node };
 * native has_waiters (tail is not my node); zero bytes are an unlocked lock:
 * an empty tail stands for the lock's own unlocked node `first`;
 * thread-oblivious with the same context.
 * Node lifetime (the CLH rule): nodes move between contexts and the lock, so
 * a context's storage must stay valid as long as the lock is in use (keep
 * contexts in thread-local or long-lived storage, not in a stack frame that
 * returns while other threads still use the lock).  A context is bound to
 * one lock at a time.
 * Size: lock 128 bytes (tail + its own node on a separate line), or 8 bytes
 * with the first node outside (CLOF_CLH_LEAN, below); context 128 bytes
 * (bookkeeping line + own node line).
 * The first node outside the lock: the embedding variant.  An empty tail
 * stands for the lock's first node, an unlocked node that the first
 * acquisition takes over as its predecessor's; from then on the tail never
 * empties again, and that node circulates among the contexts like any
 * other.  In clof_clh_t it lives in the lock (`first`).  An embedder that
 * cannot let a lock's memory hold a node -- the preload library, whose
 * locks live in the program's pthread_mutex_t, memory the program frees
 * while the node in it may be some thread's -- declares its own CLH type
 * with CLOF_CLH_LEAN(id, first_fn) (below): clof_<id>_t is the tail alone
 * (8 bytes), and its first acquisition takes a fresh node that nobody
 * else uses from first_fn() (a pool's; its `locked` is never read: an
 * empty tail is free), out of line, once in the lock's life.  When the
 * lock is done with, the node its tail holds (clof_<id>_idle_node:
 * nobody's but the lock's, once the lock is unlocked and nobody waits)
 * goes back to the pool.  Both types run the same functions (the
 * clof_clh_q_* steps over the tail, clof_clh_lean_t): only the node the
 * first acquisition takes over comes from elsewhere (checked as
 * `clh.first-outside`, docs/verification.md).  No macro an includer
 * defines changes either type.
 * The free mark (clof's own, 2026-11-27).  A release after an acquisition
 * that did not wait, which finds the tail still its own node (nobody
 * queued behind it), writes no node: it swaps the tail from its node to
 * its predecessor's node with the low bit set (nodes are cache-line
 * aligned), the mark that the lock is free and the
 * node named is idle in it, and keeps its own node for its next
 * acquisition.  (Nobody else refers to the predecessor's node: its owner
 * moved on when it handed over, and its one successor was the releaser.)
 * An acquisition whose exchange returns a marked node (or the empty tail)
 * holds the lock at once and takes that node over without reading it;
 * only a thread that queued behind a held, unmarked node reads (and waits
 * on) its `locked`, which its owner's release then writes, handing its
 * node to the successor and taking over its predecessor's as in the
 * paper's CLH.  So an uncontended hand-over touches the lock's word
 * alone: no read of the last holder's node, and no node that circulates
 * to another cpu to be written there (in the preload library's `cr:clh`
 * under LevelDB the read took as many samples as the mutex's own line,
 * docs/cr.md).  A node's `locked` is meaningful only while it is the
 * tail unmarked or some waiter's predecessor; an idle node's is never
 * read (its next owner writes 1 before it publishes it).
 * A release after an acquisition that waited (the context's `pred`
 * without its low bit, clof_clh_may_mark_) is the paper's: it writes 0 first, hands over, and only then reads the tail
 * to decide on a wake.  The marking release must look at the tail before
 * it lets its node go (written first, the node could be taken over and
 * reused before the compare-exchange: an ABA the model checker finds), and
 * that look, a line a successor's exchange has just taken, would sit on
 * every contended hand-over: natively on 16 cpus it cost 11% at T = 2 and
 * 8 when every release marked (docs/basic-locks.md).  A lock whose last
 * release did not mark has an unmarked tail whose node is unlocked: free,
 * as in the paper; the next acquisition reads that node once and, not
 * having waited, marks at its release.
 * tryacquire: succeeds only when the lock is free.  On a marked (or empty)
 * tail it never waits: a marked value always means "this node is idle in
 * the lock, nobody holds or waits", whatever happened between the read
 * and the compare-exchange, so an ABA of the marked value is harmless.  On
 * an unmarked tail whose node is unlocked, in the rare ABA case where that
 * node is reused between the read and the compare-exchange it waits for
 * that one holder.
 *
 * Memory orders:
 *   node->locked = 1 relaxed: published by the seq_cst tail exchange, which
 *     the successor's exchange reads before it reads the node.
 *   xchg on tail seq_cst: its acquire half takes over the critical section
 *     of a release that marked the tail (reads-from that compare-exchange,
 *     release); for an unmarked predecessor the acquire is carried by the
 *     await on its node (acquire).  Release half: the node init.
 *   await pred->locked == 0 acquire: pairs with the predecessor's waking
 *     (release) store in release.
 *   tryacquire's reads of tail and of an unmarked tail's node relaxed:
 *     only filters; the compare-exchange (seq_cst) reads the marking
 *     compare-exchange's value and acquires, or the await after it
 *     (acquire) orders behind an unmarked node's release.  A conditional
 *     branch separates the relaxed node read from every later store (no
 *     load buffering on Armv8).
 *   release after a wait: the paper's: a wakeable store of 0 (seq_cst under
 *     spin-park), then a seq_cst read of tail: a successor that swaps in
 *     after that read reads my node after our store and never parks, so
 *     the wake is needed only when tail moved.
 *   release after a free acquisition: a relaxed read of tail (only my own
 *     exchange or later values can be read, and none of them is my node
 *     again while I hold: a filter that keeps the compare-exchange off a
 *     line others are swapping), then the marking compare-exchange,
 *     release (publishes the critical section to the next exchange, and
 *     with it the idle node).  If the tail moved, somebody waits or will
 *     wait on my node: the paper's release above (one copy of it in the
 *     code).
 *   The node bookkeeping in the context is private to the holder (plain
 *   fields).
 *   Verified together by `clof-verify --optimize clh` (C11, park mode too)
 *   and `clh.first-outside` (docs/verification.md).
 */
/** \file
 * CLH queue lock: FIFO; each waiter spins on its predecessor's node, and
 * nodes move between contexts (see "Node lifetime" in the comment at the
 * top of the header, with the algorithm, properties and memory orders). */
#ifndef CLOF_LOCK_CLH_H
#define CLOF_LOCK_CLH_H

#include <clof/lock.h>

#define CLOF_CLH_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_CLH_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_CLH_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_CLH_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** A CLH queue node (a cache line). */
typedef struct {
    clof_atomic32_t locked; /**< 1 while its owner holds or waits for the lock */
} CLOF_CACHE_ALIGNED clof_clh_node_t;

/** CLH's context: the node in use, the predecessor's, and a node of its
 *  own for the first acquisition. */
typedef struct {
    clof_clh_node_t *node; /**< node for the next acquisition (NULL: own) */
    clof_clh_node_t *pred; /**< predecessor's node, taken over at release; its
                              low bit: this acquisition did not wait (its
                              release may mark), clof_clh_may_mark_ */
    clof_clh_node_t own;   /**< the context's first node */
} CLOF_CACHE_ALIGNED clof_clh_ctx_t;

/** The tail of a CLH lock, the state every CLH type runs on: clof_clh_t
 *  holds it with its first node; CLOF_CLH_LEAN declares a lock that is
 *  the tail alone. */
typedef struct {
    CLOF_ATOMICPTR(clof_clh_node_t) tail; /**< NULL: no acquisition yet */
} clof_clh_lean_t;

/** Where the first acquisition of a CLH lock (an empty tail) gets the
 *  node it takes over: a fresh, unlocked node nobody else uses. */
typedef clof_clh_node_t *clof_clh_first_fn(clof_clh_lean_t *q);

/** The CLH lock: the tail and the initial node. */
typedef struct {
    clof_clh_lean_t q;     /**< the tail; NULL stands for &first */
    clof_clh_node_t first; /**< the initial, unlocked node */
} CLOF_CACHE_ALIGNED clof_clh_t;

/** Static initializer of an unlocked CLH lock. */
#define CLOF_CLH_INITIALIZER {{CLOF_ATOMICPTR_INIT(NULL)}, {CLOF_ATOMIC32_INIT(0)}}

/* The free mark: the tail's low bit (nodes are cache-line aligned). */
static inline bool clof_clh_marked_(const clof_clh_node_t *t)
{
    return ((uintptr_t)t & 1u) != 0;
}

static inline clof_clh_node_t *clof_clh_mark_(clof_clh_node_t *n)
{
    return (clof_clh_node_t *)((uintptr_t)n | 1u);
}

static inline clof_clh_node_t *clof_clh_unmark_(clof_clh_node_t *t)
{
    return (clof_clh_node_t *)((uintptr_t)t & ~(uintptr_t)1u);
}

/* The context's `pred` carries the same low bit, private to the holder:
 * set, this acquisition did not wait and its release may mark; the value
 * is then the very word that release writes to the tail (so the common
 * acquisition, from a marked tail, stores what its exchange returned, and
 * the common release compare-exchanges it back as it is: no unmarking and
 * re-marking on the fast path).  Clear: it waited (the paper's release). */
static inline bool clof_clh_may_mark_(const clof_clh_node_t *pred)
{
    return clof_clh_marked_(pred);
}

/* ---- the algorithm, once, over the tail q --------------------------------
 * first: where the acquisition that finds the tail empty gets its node
 * (clof_clh_t: its own `first`; a lean lock: its first_fn).  The front
 * ends below pass a constant, so the call is direct once inlined, and it
 * is on the path that runs once in a lock's life. */

/* The node the tail of an unlocked lock without waiters holds (NULL if the
 * lock was never acquired): nobody's but the lock's.  Whoever frees or
 * reuses the lock's memory may take it (the first node outside, above). */
static inline clof_clh_node_t *clof_clh_q_idle_node_(clof_clh_lean_t *q)
{
    return clof_clh_unmark_(clof_atomicptr_read_rlx(&q->tail));
}

/* Whether the tail says free (empty, marked, or its node unlocked): true
 * of an unlocked lock without waiters, once its last release has returned. */
static inline bool clof_clh_q_idle_(clof_clh_lean_t *q)
{
    clof_clh_node_t *t = clof_atomicptr_read_rlx(&q->tail);
    return t == NULL || clof_clh_marked_(t) ||
           clof_atomic32_read_rlx(&t->locked) == 0;
}

static inline clof_clh_node_t *clof_clh_mynode_(clof_clh_ctx_t *c)
{
    clof_clh_node_t *me = c->node;
    if (CLOF_UNLIKELY(me == NULL)) /* a fresh (zero) context */
        me = c->node = &c->own;
    return me;
}

/* The contended acquire, out of line and ending the acquisition, so that
 * nothing of the lock is live across its call (the caller's fast path
 * saves fewer registers). */
CLOF_SLOW void clof_clh_wait_(clof_clh_ctx_t *c, clof_clh_node_t *me,
                              clof_clh_node_t *pred)
{
    clof_atomic32_await_eq_acq(&pred->locked, 0);
    /* my successor is next: let it be running at my release */
    clof_atomic32_nudge(&me->locked, 0);
    c->pred = pred; /* unmarked: it waited */
}

CLOF_INLINE void clof_clh_q_acquire_(clof_clh_lean_t *q, clof_clh_ctx_t *c,
                                     clof_clh_first_fn *first)
{
    clof_clh_node_t *me = clof_clh_mynode_(c);
    clof_atomic32_write_rlx(&me->locked, 1);
    clof_clh_node_t *pred = clof_atomicptr_xchg(&q->tail, me);
    if (CLOF_LIKELY(clof_clh_marked_(pred))) { /* free: a marking release's */
        c->pred = pred; /* marked: did not wait */
        return;
    }
    if (CLOF_UNLIKELY(pred == NULL)) { /* free: the first acquisition */
        c->pred = clof_clh_mark_(first(q));
        return;
    }
    /* held or released unmarked: its owner's release writes `locked` */
    if (CLOF_UNLIKELY(clof_atomic32_read_acq(&pred->locked) != 0))
        clof_clh_wait_(c, me, pred);
    else
        c->pred = clof_clh_mark_(pred);
}

/* tryacquire on an unmarked tail `t`, out of line: free if its node is
 * unlocked (a release after a contended acquisition does not mark). */
CLOF_SLOW bool clof_clh_tryacquire_unmarked_(clof_clh_lean_t *q, clof_clh_ctx_t *c,
                                             clof_clh_node_t *t)
{
    if (clof_atomic32_read_rlx(&t->locked) != 0)
        return false;
    clof_clh_node_t *me = clof_clh_mynode_(c);
    clof_atomic32_write_rlx(&me->locked, 1);
    if (clof_atomicptr_cmpxchg(&q->tail, t, me) != t)
        return false;
    /* the node may have been reused between the read and the
     * compare-exchange (ABA): then its new holder is my predecessor, and
     * I wait for it (one critical section at most) */
    clof_atomic32_await_eq_acq(&t->locked, 0);
    c->pred = clof_clh_mark_(t); /* did not wait in the paper's sense */
    return true;
}

/* tryacquire on a free tail `t` (empty or marked): my node in its place */
CLOF_INLINE bool clof_clh_try_free_(clof_clh_lean_t *q, clof_clh_ctx_t *c,
                                    clof_clh_node_t *t, clof_clh_first_fn *first)
{
    clof_clh_node_t *me = clof_clh_mynode_(c);
    clof_atomic32_write_rlx(&me->locked, 1);
    if (clof_atomicptr_cmpxchg(&q->tail, t, me) != t)
        return false;
    c->pred = t != NULL ? t : clof_clh_mark_(first(q));
    return true;
}

CLOF_INLINE bool clof_clh_q_tryacquire_(clof_clh_lean_t *q, clof_clh_ctx_t *c,
                                        clof_clh_first_fn *first)
{
    clof_clh_node_t *t = clof_atomicptr_read_rlx(&q->tail);
    /* free: empty (the first node) or marked by its last release; an
     * unmarked tail is held, or free behind a release that did not mark */
    if (CLOF_UNLIKELY(t != NULL && !clof_clh_marked_(t)))
        return clof_clh_tryacquire_unmarked_(q, c, t);
    return clof_clh_try_free_(q, c, t, first);
}

/* tryacquire's common case alone (a marked tail), for a caller that
 * acquires in full when it fails: the preload library's lock fast path
 * under cr: (cr.h), which then calls nothing and needs no stack frame.
 * false also where tryacquire looks further: an unmarked tail (usually
 * held) and the lock's first acquisition. */
CLOF_INLINE bool clof_clh_q_tryacquire_quick_(clof_clh_lean_t *q, clof_clh_ctx_t *c,
                                              clof_clh_first_fn *first)
{
    clof_clh_node_t *t = clof_atomicptr_read_rlx(&q->tail);
    if (CLOF_UNLIKELY(!clof_clh_marked_(t)))
        return false;
    return clof_clh_try_free_(q, c, t, first);
}

CLOF_INLINE void clof_clh_q_release_(clof_clh_lean_t *q, clof_clh_ctx_t *c)
{
    clof_clh_node_t *me = c->node;
    clof_clh_node_t *pred = c->pred;
    if (CLOF_LIKELY(clof_clh_may_mark_(pred)) &&
        clof_atomicptr_read_rlx(&q->tail) == me &&
        clof_atomicptr_cmpxchg_rel(&q->tail, me, pred) == me)
        return; /* nobody queued: the lock is free, idle on pred; mine stays */
    /* the paper's release: after a wait, or with a successor behind me */
    c->node = clof_clh_unmark_(pred); /* take over the predecessor's node
                                         (without the may-mark bit) */
    clof_atomic32_write_wakeable(&me->locked, 0);
    if (CLOF_WAIT_CAN_PARK && clof_atomicptr_read(&q->tail) != me)
        clof_atomic32_wake(&me->locked, 0);
}

CLOF_INLINE bool clof_clh_q_has_waiters_(clof_clh_lean_t *q, clof_clh_ctx_t *c)
{
    return clof_atomicptr_read_rlx(&q->tail) != c->node;
}

/* ---- clof_clh_t: the first node in the lock ------------------------------ */

/* The first node of a clof_clh_t: its own (q is the lock's first member). */
static inline clof_clh_node_t *clof_clh_own_first_(clof_clh_lean_t *q)
{
    return &((clof_clh_t *)(void *)q)->first;
}

/** Initialise an unlocked CLH lock (all-zero bytes are one too). */
static inline void clof_clh_init(clof_clh_t *l)
{
    clof_atomicptr_write_rlx(&l->q.tail, (clof_clh_node_t *)NULL);
    clof_atomic32_write_rlx(&l->first.locked, 0);
}

/** The node an idle lock's tail holds, NULL if l was never acquired:
 * nobody's but the lock's, for whoever frees or reuses its memory. */
static inline clof_clh_node_t *clof_clh_idle_node(clof_clh_t *l)
{
    return clof_clh_q_idle_node_(&l->q);
}

/** Whether l is idle: unlocked, no waiter, its last release returned. */
static inline bool clof_clh_idle(clof_clh_t *l)
{
    return clof_clh_q_idle_(&l->q);
}

/** Acquire the CLH lock l, waiting until it is free (wait.h's policy:
 * spin, yield, park).  c: this acquisition's context, kept until the
 * release. */
CLOF_INLINE void clof_clh_acquire(clof_clh_t *l, clof_clh_ctx_t *c)
{
    clof_clh_q_acquire_(&l->q, c, clof_clh_own_first_);
}

/** Acquire the CLH lock l if that needs no waiting: true when it is
 * held with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_clh_tryacquire(clof_clh_t *l, clof_clh_ctx_t *c)
{
    return clof_clh_q_tryacquire_(&l->q, c, clof_clh_own_first_);
}

/* tryacquire's common case alone (clof_clh_q_tryacquire_quick_). */
CLOF_INLINE bool clof_clh_tryacquire_quick_(clof_clh_t *l, clof_clh_ctx_t *c)
{
    return clof_clh_q_tryacquire_quick_(&l->q, c, clof_clh_own_first_);
}

/** Release the CLH lock l, held by the caller with context c. */
CLOF_INLINE void clof_clh_release(clof_clh_t *l, clof_clh_ctx_t *c)
{
    clof_clh_q_release_(&l->q, c);
}

/** Whether a thread waits for the CLH lock l (for its owner, with its
 * context c): the hint a composition's hand-over decision reads. */
CLOF_INLINE bool clof_clh_has_waiters(clof_clh_t *l, clof_clh_ctx_t *c)
{
    return clof_clh_q_has_waiters_(&l->q, c);
}

/* ---- CLOF_CLH_LEAN: the first node outside the lock ----------------------- */

/** Declare clof_<id>_t, a CLH lock that is its tail alone (8 bytes), whose
 * first acquisition takes its node from first_fn(), a function of no
 * arguments that returns a clof_clh_node_t *: a fresh, unlocked node
 * nobody else uses, asked once in the lock's life (the embedding variant,
 * at the top of this header).  It has the lock interface
 * of clof_clh_t: clof_<id>_init, _acquire, _tryacquire, _release,
 * _has_waiters, _idle_node, _idle and _tryacquire_quick_, with the
 * context clof_<id>_ctx_t = clof_clh_ctx_t, and CLH's properties
 * (CLOF_CLH_FAIR ...; a macro cannot declare CLOF_<ID>_*, so a caller
 * that needs them by the new name defines them as CLH's).  Zero bytes are
 * an unlocked lock, CLOF_CLH_LEAN_INITIALIZER a static one.  Example:
 *
 *     static clof_clh_node_t *my_node_get(void);  (from a pool)
 *     CLOF_CLH_LEAN(myclh, my_node_get);
 *     clof_myclh_t lock;  (8 bytes)  */
#define CLOF_CLH_LEAN(id, first_fn)                                            \
    typedef clof_clh_lean_t clof_##id##_t;                                     \
    static inline clof_clh_node_t *clof_##id##_first_(clof_clh_lean_t *q)      \
    {                                                                          \
        (void)q;                                                               \
        return first_fn();                                                     \
    }                                                                          \
    static inline __attribute__((unused)) void clof_##id##_init(clof_##id##_t *l) \
    { clof_atomicptr_write_rlx(&l->tail, (clof_clh_node_t *)NULL); }           \
    static inline __attribute__((unused)) clof_clh_node_t *clof_##id##_idle_node( \
        clof_##id##_t *l)                                                      \
    { return clof_clh_q_idle_node_(l); }                                       \
    static inline __attribute__((unused)) bool clof_##id##_idle(clof_##id##_t *l) \
    { return clof_clh_q_idle_(l); }                                            \
    CLOF_INLINE void clof_##id##_acquire(clof_##id##_t *l, clof_clh_ctx_t *c)  \
    {                                                                          \
        clof_clh_q_acquire_(l, c, clof_##id##_first_);                         \
    }                                                                          \
    CLOF_INLINE bool clof_##id##_tryacquire(clof_##id##_t *l, clof_clh_ctx_t *c) \
    {                                                                          \
        return clof_clh_q_tryacquire_(l, c, clof_##id##_first_);               \
    }                                                                          \
    CLOF_INLINE bool clof_##id##_tryacquire_quick_(clof_##id##_t *l,           \
                                                   clof_clh_ctx_t *c)          \
    {                                                                          \
        return clof_clh_q_tryacquire_quick_(l, c, clof_##id##_first_);         \
    }                                                                          \
    CLOF_INLINE void clof_##id##_release(clof_##id##_t *l, clof_clh_ctx_t *c)  \
    { clof_clh_q_release_(l, c); }                                             \
    CLOF_INLINE bool clof_##id##_has_waiters(clof_##id##_t *l, clof_clh_ctx_t *c) \
    { return clof_clh_q_has_waiters_(l, c); }                                  \
    typedef clof_clh_ctx_t clof_##id##_ctx_t /* (the caller's semicolon) */

/** Initializer of an unlocked lean CLH lock (CLOF_CLH_LEAN). */
#define CLOF_CLH_LEAN_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}

#endif /* CLOF_LOCK_CLH_H */
