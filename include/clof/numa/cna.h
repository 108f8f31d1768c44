/* SPDX-License-Identifier: MIT */
/*
 * CNA -- compact NUMA-aware lock.
 *
 * Algorithm: an MCS lock (one pointer of lock state: the tail) whose waiters
 * record their NUMA node.  The holder hands the lock to the first waiter of
 * the main queue that runs on its own node; the waiters it skips are moved,
 * in order, to the tail of a secondary queue, whose head travels with the
 * lock in the `spin` word of each holder (1: no secondary queue).  The
 * secondary queue is put back in front of the main queue when no local
 * waiter is left, after CLOF_CNA_COUNT consecutive local hand-overs, or when
 * its first waiter has waited CLOF_CNA_TIME_NS -- so nobody starves.
 * Paper: Compact NUMA-aware Locks (Dice and Kogan, EuroSys'19), as
 * presented in the CNA slides (papers/003): primary and secondary queue,
 * flushed after a count or a time threshold; one word of lock state.
 * Properties: not FIFO (bounded bypass: a skipped waiter is served at the
 * latest when the secondary queue is flushed); context = queue node;
 * has_waiters native (a successor in either queue); zero bytes are an
 * unlocked lock; thread-oblivious with the same context.  The NUMA node of
 * a thread is its cohort at the NUMA level of the process topology (the
 * lowest level below system when there is no NUMA level; on a one-level
 * machine every thread is local and CNA is MCS).  The node is looked up
 * only when it is needed: by a waiter before it links itself behind its
 * predecessor (the holder reads it from there), and by a holder that found
 * the lock free only when it has a successor at release -- an uncontended
 * acquire+release costs 20 instructions against MCS's 15 (callgrind,
 * docs/data/callgrind-20261122-025936.csv; CNA has no fast word).
 * Sizes: lock 8 bytes; context 64 bytes.
 *
 * Memory orders (as mcs.h, plus):
 *   the queue surgery (moving skipped waiters, splicing the secondary queue)
 *   is done only by the holder, on nodes whose owners are waiting and do not
 *   touch their `next`/`sec_tail` (a waiter writes only its predecessor's
 *   `next`, and only the tail's successor link can still change: the walk
 *   never detaches the tail), so relaxed accesses suffice; the hand-over
 *   (`spin` of the successor) is a waking release store that publishes the
 *   surgery and the critical section; the successor reads it with acquire.
 */
/** \file
 * CNA, the compact NUMA-aware lock: an MCS queue whose holder hands the
 * lock to the first waiter on its own NUMA node, moving the waiters it
 * skips to a secondary queue that is put back in front after a count or a
 * time.  One word of lock state.  Algorithm, properties and memory orders:
 * the comment at the top of the header. */
#ifndef CLOF_NUMA_CNA_H
#define CLOF_NUMA_CNA_H

#include <clof/lock.h>
#include <clof/topology.h>

#include <time.h>

#ifndef CLOF_CNA_COUNT
/** Consecutive local hand-overs before the secondary queue is put back in
 *  front (define it before including the header to change it). */
#define CLOF_CNA_COUNT 256u
#endif
#ifndef CLOF_CNA_TIME_NS
/** How long (ns) the first skipped waiter may wait in the secondary queue
 *  before it is put back in front: 1 ms, the kernel patch's default
 *  (define it before including the header to change it). */
#define CLOF_CNA_TIME_NS 1000000u
#endif

#define CLOF_CNA_FAIR 0 /**< 0: not FIFO (bounded bypass, lock.h) */
#define CLOF_CNA_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_CNA_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_CNA_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

/** CNA's context: the queue node of one acquisition (one cache line). */
typedef struct clof_cna_node {
    CLOF_ATOMICPTR(struct clof_cna_node) next; /**< successor, once linked */
    CLOF_ATOMICPTR(struct clof_cna_node) spin; /**< 0 wait; 1 go; else go +
                                                  head of the secondary queue */
    struct clof_cna_node *sec_tail; /**< in a secondary head: its tail */
    uint64_t sec_since;             /**< in a secondary head: when it got there */
    uint32_t numa;                  /**< node of the waiter (or not looked up yet) */
    uint32_t local;                 /**< consecutive local hand-overs so far */
} CLOF_CACHE_ALIGNED clof_cna_ctx_t;

/** The CNA lock: the main queue's tail (8 bytes). */
typedef struct {
    CLOF_ATOMICPTR(clof_cna_ctx_t) tail; /**< last node, NULL: free */
} clof_cna_t;

/** Static initializer of an unlocked CNA lock. */
#define CLOF_CNA_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}
#define CLOF_CNA_GO_ ((clof_cna_ctx_t *)(uintptr_t)1)
#define CLOF_CNA_NUMA_UNKNOWN_ UINT32_MAX /* not looked up yet */

/** Initialise an unlocked CNA lock (all-zero bytes are one too). */
static inline void clof_cna_init(clof_cna_t *l)
{
    clof_atomicptr_write_rlx(&l->tail, (clof_cna_ctx_t *)NULL);
}

/* the calling thread's NUMA node (its cohort at the NUMA level) */
static inline uint32_t clof_cna_numa_(void)
{
    const clof_topology_t *t = clof_topology();
    if (t->nlevels < 2)
        return 0;
    int l = clof_topo_level_index(t, CLOF_LEVEL_NUMA);
    return clof_topo_cohort(t, clof_current_cpu(), l < 0 ? 0 : (uint32_t)l);
}


CLOF_SLOW void clof_cna_enqueue_(clof_cna_ctx_t *pred, clof_cna_ctx_t *c)
{
    /* before the link: the holder that walks the queue reads it there */
    c->numa = clof_cna_numa_();
    clof_atomicptr_write_wake(&pred->next, c);
    clof_atomicptr_await_neq_acq(&c->spin, (clof_cna_ctx_t *)NULL);
}

/** Acquire the CNA lock l, waiting until it is handed over (wait.h's
 * policy: spin, yield, park).  c: this acquisition's context, kept until
 * the release. */
CLOF_INLINE void clof_cna_acquire(clof_cna_t *l, clof_cna_ctx_t *c)
{
    clof_atomicptr_write_rlx(&c->next, (clof_cna_ctx_t *)NULL);
    clof_atomicptr_write_rlx(&c->spin, (clof_cna_ctx_t *)NULL);
    c->numa = CLOF_CNA_NUMA_UNKNOWN_;
    c->local = 0;
    clof_cna_ctx_t *pred = clof_atomicptr_xchg(&l->tail, c);
    if (CLOF_LIKELY(pred == NULL)) {
        clof_atomicptr_write_rlx(&c->spin, CLOF_CNA_GO_);
        return;
    }
    clof_cna_enqueue_(pred, c);
}

/** Acquire the CNA lock l if that needs no waiting: true when it is held
 * with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_cna_tryacquire(clof_cna_t *l, clof_cna_ctx_t *c)
{
    clof_atomicptr_write_rlx(&c->next, (clof_cna_ctx_t *)NULL);
    clof_atomicptr_write_rlx(&c->spin, CLOF_CNA_GO_);
    c->numa = CLOF_CNA_NUMA_UNKNOWN_;
    c->local = 0;
    return clof_atomicptr_cmpxchg(&l->tail, (clof_cna_ctx_t *)NULL, c) == NULL;
}

/* Hand over to s, passing the secondary queue `sec` (GO when empty). */
static inline void clof_cna_pass_(clof_cna_ctx_t *s, clof_cna_ctx_t *sec,
                                  uint32_t local)
{
    s->local = local;
    clof_atomicptr_write_wake(&s->spin, sec);
}

CLOF_SLOW void clof_cna_release_slow_(clof_cna_t *l, clof_cna_ctx_t *c,
                                      clof_cna_ctx_t *next)
{
    clof_cna_ctx_t *sec = clof_atomicptr_read_rlx(&c->spin);
    if (next == NULL) {
        if (sec != CLOF_CNA_GO_) {
            /* main queue empty, secondary not: the secondary becomes the
             * queue (its tail becomes the lock's tail) */
            if (clof_atomicptr_cmpxchg(&l->tail, c, sec->sec_tail) == c) {
                clof_cna_pass_(sec, CLOF_CNA_GO_, 0);
                return;
            }
        } else if (clof_atomicptr_cmpxchg_rel(&l->tail, c,
                                              (clof_cna_ctx_t *)NULL) == c) {
            return;
        }
        next = clof_atomicptr_await_neq_acq(&c->next, (clof_cna_ctx_t *)NULL);
    }
    /* flush the secondary queue in front of the main one? */
    if (sec != CLOF_CNA_GO_ &&
        (c->local >= CLOF_CNA_COUNT ||
         clof_now_ns() - sec->sec_since >= CLOF_CNA_TIME_NS)) {
        clof_atomicptr_write_rlx(&sec->sec_tail->next, next);
        clof_cna_pass_(sec, CLOF_CNA_GO_, 0);
        return;
    }
    /* the first main-queue waiter on my node, never past the tail */
    if (c->numa == CLOF_CNA_NUMA_UNKNOWN_) /* I found the lock free */
        c->numa = clof_cna_numa_();
    clof_cna_ctx_t *last = NULL, *cur = next;
    while (cur->numa != c->numa) {
        clof_cna_ctx_t *after = clof_atomicptr_read_acq(&cur->next);
        if (after == NULL) { /* cur may be the tail: stop here */
            cur = NULL;
            break;
        }
        last = cur;
        cur = after;
    }
    if (cur == NULL) {
        /* nobody local: the secondary queue (if any) goes first */
        if (sec != CLOF_CNA_GO_) {
            clof_atomicptr_write_rlx(&sec->sec_tail->next, next);
            clof_cna_pass_(sec, CLOF_CNA_GO_, 0);
        } else {
            clof_cna_pass_(next, CLOF_CNA_GO_, 0);
        }
        return;
    }
    if (last) { /* move next..last to the tail of the secondary queue */
        clof_atomicptr_write_rlx(&last->next, (clof_cna_ctx_t *)NULL);
        if (sec == CLOF_CNA_GO_) {
            sec = next;
            sec->sec_since = clof_now_ns();
        } else {
            clof_atomicptr_write_rlx(&sec->sec_tail->next, next);
        }
        sec->sec_tail = last;
    }
    clof_cna_pass_(cur, sec, c->local + 1);
}

/** Release the CNA lock l, held by the caller with context c: hand it to
 * the first waiter on the caller's NUMA node, or put the secondary queue
 * back in front (the header's comment says when). */
CLOF_INLINE void clof_cna_release(clof_cna_t *l, clof_cna_ctx_t *c)
{
    clof_cna_ctx_t *next = clof_atomicptr_read_acq(&c->next);
    if (CLOF_LIKELY(next == NULL) &&
        clof_atomicptr_read_rlx(&c->spin) == CLOF_CNA_GO_ &&
        clof_atomicptr_cmpxchg_rel(&l->tail, c, (clof_cna_ctx_t *)NULL) == c)
        return;
    clof_cna_release_slow_(l, c, next);
}

/** Whether a thread waits for the CNA lock l (for its owner, with its
 * context c), in the main or the secondary queue. */
CLOF_INLINE bool clof_cna_has_waiters(clof_cna_t *l, clof_cna_ctx_t *c)
{
    return clof_atomicptr_read_rlx(&l->tail) != c ||
           clof_atomicptr_read_rlx(&c->spin) != CLOF_CNA_GO_;
}

#endif /* CLOF_NUMA_CNA_H */
