/* SPDX-License-Identifier: MIT */
/*
 * clof/compose.h -- the CLoF lock generator (CLoF paper §4.1, Figs. 6-8).
 *
 * Algorithm: CLoF(l, L) adds to a low lock l (one per cohort of a level) the
 * metadata of the paper -- the high lock L (the lock of the parent cohort),
 * the context used for L (owned by whoever holds l), the passed flag
 * (has_high_lock), the keep-local counter with its threshold, and a waiter
 * count when l has no native has_waiters:
 *
 *   acquire(CLoF(l, L), c):  [inc waiters] acquire(l, c) [dec waiters]
 *                            if (!passed(l)) acquire(L, high_ctx(l))
 *   release(CLoF(l, L), c):  if (has_waiters(l) && keep_local(l))
 *                                { passed(l) = 1; release(l, c) }
 *                            else { passed(l) = 0;
 *                                   release(L, high_ctx(l));   (1)
 *                                   release(l, c); }           (2)
 *
 * The release order (1) before (2) is the context invariant of §4.1.3: only
 * the owner of l may use high_ctx(l), so L is released before l can change
 * hands.  keep_local counts consecutive local passes and returns false at the
 * threshold (default 128 per level, from the hierarchy file; HMCS's rule).
 *
 * Declaring a lock: one line, the basic locks in the order of its name, from
 * the lowest level up (as in the paper):
 *
 *     CLOF_COMPOSE(clh_mcs_tkt, clh, mcs, ticket)
 *
 * defines clof_clh_mcs_tkt_t (CLH at the lowest level, MCS in the middle,
 * ticket at the system level).  1 to 5 levels.  The older spelling
 * CLOF_LOCK(clh_mcs_tkt, ticket, mcs, clh) lists the same locks from the
 * system level down and still works (see the end of this file).  Every level is a separate static inline function that calls
 * the next one directly: the recursion unfolds at compile time, with no
 * indirect call between levels.  Any basic lock may sit at any level; high
 * locks must be thread-oblivious (all clof basic locks are).
 *
 * The generated interface is the one of every clof lock (lock.h):
 *   clof_<name>_t, clof_<name>_ctx_t (zero-filled = valid), and
 *   clof_<name>_{init, acquire, tryacquire, release, has_waiters}, plus
 *   clof_<name>_init_topo(lock, topology, levels) and clof_<name>_destroy.
 *   CLOF_COMPOSED_INITIALIZER is a valid static initializer: an all-zero
 *   composed lock builds its tree at first use over the process topology
 *   (clof_topology(), libclof).
 *
 * The instance is a tree sized by the runtime topology: one node (low lock +
 * metadata, cache-line aligned) per cohort of each level used, and the
 * cpu -> leaf lookup is one read of the topology's cpu x level table.  The
 * cpu is read once at acquire (clof_current_cpu) and the leaf is kept in the
 * context for release, so a thread that migrates in between stays correct.
 *
 * Which topology levels a lock of depth n uses (init_topo with levels ==
 * NULL): the n-1 lowest levels of the hierarchy and the system level; with
 * fewer levels than n, the lowest level is repeated (a degenerate level whose
 * cohorts equal their parents').  Pass `levels` (n ascending level indices,
 * the last one the system level) to choose.
 *
 * The fast path (not in the paper; after the fast path of Chabbi and
 * Mellor-Crummey's adaptive HMCS, PPoPP'16).  A composed lock of 2 to 5
 * levels has one more word above the system level, `fast` (its own cache
 * line in the tree): HELD (bit 0) and TOPWAIT (bit 1).  Whoever owns the
 * lock holds HELD:
 *   - an arriving thread that reads `fast` == 0 (nobody holds the lock and
 *     no system-level owner waits for it) takes it with one CAS 0 -> HELD and
 *     skips the hierarchy: one atomic operation when uncontended, instead of
 *     one lock per level; otherwise it queues in the hierarchy as above;
 *   - a thread that acquires the system-level lock (not one that inherits it
 *     through a local pass) then takes HELD as well: CAS when clear;
 *     otherwise it sets TOPWAIT, which keeps new arrivals out of the fast
 *     path, and waits through the waiting policy for the fast owner to leave
 *     (at most one critical section);
 *   - the system-level owner keeps HELD across local passes and clears it
 *     (a release store: nobody else can wait for it) just before releasing
 *     the system lock (the context invariant: highest first); a fast owner
 *     clears HELD with a seq_cst subtraction and wakes the system-level owner
 *     when TOPWAIT was set.
 * The lock is held exactly when HELD is set, so tryacquire is the fast CAS
 * alone.  has_waiters of a fast owner reports a waiting system-level owner
 * (TOPWAIT) only.  Under contention an arrival costs one more read of a line
 * that changes only when the system lock changes hands.  Bypass is bounded:
 * a fast owner delays the system-level owner by at most one critical
 * section, and queued waiters by one each time the system lock is free.
 * Define CLOF_COMPOSE_NO_FAST_PATH for the paper's lock exactly (the
 * simulator and clof-bench can compare both).  One-level compositions have
 * no fast path; the abortable cohort locks (numa/acohort.h) take HELD by
 * their deadline (clof_compose_fast_take_until_: on timeout the TOPWAIT it
 * set is withdrawn and the system lock given up).
 *
 * Memory orders: the metadata (passed, count, high_ctx) is only touched by
 * the current owner of the low lock, so it is ordered by the low lock's own
 * acquire/release and uses plain accesses (the CLoF paper §4.2 found with
 * VSync that all of the generator's auxiliary accesses can be relaxed as long
 * as the basic locks keep their barriers).  The waiter count is relaxed: it
 * is only a hint for has_waiters.  `fast`: the taking CASes are acquire (the
 * previous owner's critical section, released by the clearing store or
 * subtraction, happens before ours); the fast pre-read is relaxed (only a
 * filter before the CAS); setting TOPWAIT and the fast owner's subtraction
 * are seq_cst read-modify-writes of the same word, so the fast owner sees
 * TOPWAIT exactly when the system-level owner may be waiting (and may have
 * parked: the waking pair of wait.h).
 */
#ifndef CLOF_COMPOSE_H
#define CLOF_COMPOSE_H

#include <clof/lock/list.h>
#include <clof/hier/fast.h>
#include <clof/hier/levels.h>
#include <clof/topology.h>

#include <stdlib.h>
#include <string.h>

/* lower-case views of the basic locks' descriptors, for token pasting */
#define CLOF_HW_tas CLOF_TAS_NATIVE_HW
#define CLOF_HW_ttas CLOF_TTAS_NATIVE_HW
#define CLOF_HW_bo CLOF_BO_NATIVE_HW
#define CLOF_HW_ticket CLOF_TICKET_NATIVE_HW
#define CLOF_HW_ptl CLOF_PTL_NATIVE_HW
#define CLOF_HW_mcs CLOF_MCS_NATIVE_HW
#define CLOF_HW_clh CLOF_CLH_NATIVE_HW
#define CLOF_HW_hemlock CLOF_HEMLOCK_NATIVE_HW
#define CLOF_HW_hemlock_ctr CLOF_HEMLOCK_CTR_NATIVE_HW
#define CLOF_FAIR_tas CLOF_TAS_FAIR
#define CLOF_FAIR_ttas CLOF_TTAS_FAIR
#define CLOF_FAIR_bo CLOF_BO_FAIR
#define CLOF_FAIR_ticket CLOF_TICKET_FAIR
#define CLOF_FAIR_ptl CLOF_PTL_FAIR
#define CLOF_FAIR_mcs CLOF_MCS_FAIR
#define CLOF_FAIR_clh CLOF_CLH_FAIR
#define CLOF_FAIR_hemlock CLOF_HEMLOCK_FAIR
#define CLOF_FAIR_hemlock_ctr CLOF_HEMLOCK_CTR_FAIR

/* generated functions: a declared lock need not use all of them */
#define CLOF_GEN_ static inline __attribute__((unused))

/* The top (system) level k: the basic lock B alone (and, with the fast
 * path, the fast word it takes after B: `fast`, NULL without one). */
#define CLOF_CMP_TOP_(N, k, B)                                                 \
    typedef struct {                                                           \
        clof_##B##_t lock;                                                     \
        clof_atomic32_t *fast; /* the fast path's word, or NULL */             \
    } CLOF_CACHE_ALIGNED clof_##N##_l##k##_t;                                  \
    typedef clof_##B##_ctx_t clof_##N##_c##k##_t;                              \
    /* high: the fast word (the top has no high lock) */                       \
    CLOF_GEN_ void clof_##N##_node_init##k(clof_##N##_l##k##_t *n,         \
                                               uint32_t threshold, void *high) \
    {                                                                          \
        (void)threshold;                                                       \
        clof_##B##_init(&n->lock);                                             \
        n->fast = (clof_atomic32_t *)high;                                     \
    }                                                                          \
    CLOF_INLINE uint32_t clof_##N##_acq##k(clof_##N##_l##k##_t *n,           \
                                             clof_##N##_c##k##_t *c)           \
    {                                                                          \
        clof_##B##_acquire(&n->lock, c);                                       \
        if (n->fast)                                                           \
            clof_compose_fast_take_(n->fast);                                  \
        return 1;                                                              \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_try##k(clof_##N##_l##k##_t *n,               \
                                         clof_##N##_c##k##_t *c)               \
    {                                                                          \
        if (!clof_##B##_tryacquire(&n->lock, c))                               \
            return false;                                                      \
        if (!n->fast || clof_compose_fast_try_(n->fast))                       \
            return true;                                                       \
        clof_##B##_release(&n->lock, c);                                       \
        return false;                                                          \
    }                                                                          \
    CLOF_INLINE void clof_##N##_rel##k(clof_##N##_l##k##_t *n,               \
                                         clof_##N##_c##k##_t *c)               \
    {                                                                          \
        if (n->fast)                                                           \
            CLOF_CMP_RELEASE_ORDER_(clof_compose_fast_drop_(n->fast),          \
                                    clof_##B##_release(&n->lock, c));          \
        else                                                                   \
            clof_##B##_release(&n->lock, c);                                   \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_hw##k(clof_##N##_l##k##_t *n,                \
                                        clof_##N##_c##k##_t *c)                \
    {                                                                          \
        return clof_##B##_has_waiters(&n->lock, c);                            \
    }

/* A low level k whose high lock is level k1. */
#define CLOF_CMP_LEVEL_(N, k, k1, B)                                           \
    typedef struct {                                                           \
        clof_##B##_t lock;                                                     \
        clof_atomic32_t waiters; /* only when B has no native has_waiters */   \
        uint32_t passed;         /* has_high_lock: set by the previous owner */\
        uint32_t count;          /* consecutive local passes */                \
        uint32_t threshold;      /* keep_local bound */                        \
        clof_##N##_l##k1##_t *high;                                            \
        clof_##N##_c##k1##_t high_ctx CLOF_CACHE_ALIGNED;                      \
    } CLOF_CACHE_ALIGNED clof_##N##_l##k##_t;                                  \
    typedef clof_##B##_ctx_t clof_##N##_c##k##_t;                              \
    CLOF_GEN_ void clof_##N##_node_init##k(clof_##N##_l##k##_t *n,         \
                                               uint32_t threshold, void *high) \
    {                                                                          \
        memset(n, 0, sizeof *n);                                               \
        clof_##B##_init(&n->lock);                                             \
        n->threshold = threshold ? threshold : CLOF_COMPOSE_THRESHOLD;         \
        n->high = (clof_##N##_l##k1##_t *)high;                                \
    }                                                                          \
    /* returns the number of levels acquired (1 = this one only) */            \
    CLOF_INLINE uint32_t clof_##N##_acq##k(clof_##N##_l##k##_t *n,           \
                                             clof_##N##_c##k##_t *c)           \
    {                                                                          \
        if (!CLOF_HW_##B)                                                      \
            clof_atomic32_inc_rlx(&n->waiters);                                \
        clof_##B##_acquire(&n->lock, c);                                       \
        if (!CLOF_HW_##B)                                                      \
            clof_atomic32_dec_rlx(&n->waiters);                                \
        if (n->passed)                                                         \
            return 1;                                                          \
        return 1 + clof_##N##_acq##k1(n->high, &n->high_ctx);                  \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_try##k(clof_##N##_l##k##_t *n,               \
                                         clof_##N##_c##k##_t *c)               \
    {                                                                          \
        if (!clof_##B##_tryacquire(&n->lock, c))                               \
            return false;                                                      \
        if (n->passed || clof_##N##_try##k1(n->high, &n->high_ctx))            \
            return true;                                                       \
        clof_##B##_release(&n->lock, c);                                       \
        return false;                                                          \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_lowhw##k(clof_##N##_l##k##_t *n,             \
                                           clof_##N##_c##k##_t *c)             \
    {                                                                          \
        return CLOF_HW_##B ? clof_##B##_has_waiters(&n->lock, c)               \
                           : clof_atomic32_read_rlx(&n->waiters) != 0;         \
    }                                                                          \
    CLOF_INLINE void clof_##N##_rel##k(clof_##N##_l##k##_t *n,               \
                                         clof_##N##_c##k##_t *c)               \
    {                                                                          \
        if (clof_##N##_lowhw##k(n, c) && ++n->count < n->threshold) {          \
            n->passed = 1; /* pass_high_lock: keep it in the cohort */         \
            clof_##B##_release(&n->lock, c);                                   \
            return;                                                            \
        }                                                                      \
        n->count = 0;                                                          \
        n->passed = 0; /* clear_high_lock */                                   \
        CLOF_CMP_RELEASE_ORDER_(clof_##N##_rel##k1(n->high, &n->high_ctx),     \
                                clof_##B##_release(&n->lock, c));              \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_hw##k(clof_##N##_l##k##_t *n,                \
                                        clof_##N##_c##k##_t *c)                \
    {                                                                          \
        return clof_##N##_lowhw##k(n, c) ||                                    \
               clof_##N##_hw##k1(n->high, &n->high_ctx);                       \
    }

/* The tree of a composed lock: per level, an array of nodes (one per cohort
 * of the topology level it maps to). */
typedef struct {
    const clof_topology_t *topo;
    uint32_t nlev;
    uint32_t lvl[CLOF_TOPO_MAX_LEVELS];     /* topology level of each level */
    uint32_t ncoh[CLOF_TOPO_MAX_LEVELS];    /* nodes per level */
    void *nodes[CLOF_TOPO_MAX_LEVELS];      /* arrays of clof_<name>_l<k>_t */
    clof_atomic32_t fast CLOF_CACHE_ALIGNED; /* the fast path's word */
} clof_compose_tree_t;

/* a zeroed tree (cache-line aligned: the fast word has its own line) */
static inline clof_compose_tree_t *clof_compose_tree_new_(void)
{
    clof_compose_tree_t *tr = (clof_compose_tree_t *)aligned_alloc(
        CLOF_CACHELINE, sizeof(clof_compose_tree_t));
    if (tr)
        memset(tr, 0, sizeof *tr);
    return tr;
}

#define CLOF_CMP_ALLOC_(N, k)                                                  \
    do {                                                                       \
        size_t sz_ = sizeof(clof_##N##_l##k##_t) * tr->ncoh[k];                \
        sz_ = (sz_ + CLOF_CACHELINE - 1) / CLOF_CACHELINE * CLOF_CACHELINE;    \
        tr->nodes[k] = aligned_alloc(CLOF_CACHELINE, sz_);                     \
        if (!tr->nodes[k])                                                     \
            return -1;                                                         \
    } while (0)

/* Initialise the nodes of level k, linking each to its parent at k+1. */
#define CLOF_CMP_LINK_(N, k, k1)                                               \
    for (uint32_t c_ = 0; c_ < tr->ncoh[k]; c_++) {                            \
        uint32_t p_ = tr->lvl[k] == tr->lvl[k1]                                \
                          ? c_                                                 \
                          : clof_compose_parent_(t, tr->lvl[k], c_,            \
                                                 tr->lvl[k1]);                 \
        clof_##N##_node_init##k(                                               \
            &((clof_##N##_l##k##_t *)tr->nodes[k])[c_],                        \
            clof_topo_threshold(t, tr->lvl[k]),                                \
            &((clof_##N##_l##k1##_t *)tr->nodes[k1])[p_]);                     \
    }
#define CLOF_CMP_TOPINIT_(N, k)                                                \
    clof_##N##_node_init##k((clof_##N##_l##k##_t *)tr->nodes[k], 0,            \
                            CLOF_COMPOSE_FAST_ ? (void *)&tr->fast : NULL);
/* the same without a fast path (one level; the abortable cohort locks) */
#define CLOF_CMP_TOPINIT_NOFAST_(N, k)                                         \
    clof_##N##_node_init##k((clof_##N##_l##k##_t *)tr->nodes[k], 0, NULL);

/* Recycling of trees: CLOF_COMPOSE_TREE_REUSE / _RETIRE, hier/levels.h. */

/* The user-facing lock over the tree; n levels, lowest index 0. */
/* FAST: 1 for the fast path (with CLOF_CMP_TOPINIT_), 0 without */
#define CLOF_CMP_FRONT_(N, P, NLEV, FAIR, FAST, BUILD)                            \
    typedef struct {                                                           \
        CLOF_ATOMICPTR(clof_compose_tree_t) tree;                              \
    } clof_##N##_t;                                                            \
    typedef struct {                                                           \
        clof_##N##_c0_t c0;                                                    \
        clof_##N##_l0_t *leaf; /* the leaf locked at acquire */                \
    } clof_##N##_ctx_t;                                                        \
    CLOF_GEN_ int clof_##N##_build_(clof_compose_tree_t *tr,               \
                                        const clof_topology_t *t,              \
                                        const uint32_t *levels)                \
    {                                                                          \
        memset(tr, 0, sizeof *tr);                                             \
        tr->topo = t;                                                          \
        tr->nlev = NLEV;                                                       \
        uint32_t pref_[NLEV];                                                  \
        if (!levels && clof_compose_prefer_(t, NLEV, P, pref_))                \
            levels = pref_;                                                    \
        if (clof_compose_levels_(t, NLEV, levels, tr->lvl) != 0)               \
            return -1;                                                         \
        for (uint32_t k = 0; k < NLEV; k++)                                    \
            tr->ncoh[k] = k == NLEV - 1 ? 1 : clof_topo_ncohorts(t, tr->lvl[k]); \
        BUILD                                                                  \
        return 0;                                                              \
    }                                                                          \
    CLOF_GEN_ void clof_##N##_free_tree_(clof_compose_tree_t *tr)          \
    {                                                                          \
        for (uint32_t k = 0; k < CLOF_TOPO_MAX_LEVELS; k++)                    \
            free(tr->nodes[k]);                                                \
        free(tr);                                                              \
    }                                                                          \
    /* 0, or -1 when levels do not fit the topology or memory is short */      \
    CLOF_GEN_ int clof_##N##_init_topo(clof_##N##_t *l,                    \
                                           const clof_topology_t *t,           \
                                           const uint32_t *levels)             \
    {                                                                          \
        clof_compose_tree_t *tr =                                              \
            clof_compose_tree_new_();                                          \
        if (!tr)                                                               \
            return -1;                                                         \
        if (clof_##N##_build_(tr, t, levels) != 0) {                           \
            clof_##N##_free_tree_(tr);                                         \
            return -1;                                                         \
        }                                                                      \
        clof_atomicptr_write_rel(&l->tree, tr);                                \
        return 0;                                                              \
    }                                                                          \
    CLOF_GEN_ void clof_##N##_init(clof_##N##_t *l)                        \
    {                                                                          \
        clof_atomicptr_write_rlx(&l->tree, (clof_compose_tree_t *)NULL);       \
    }                                                                          \
    CLOF_GEN_ void clof_##N##_destroy(clof_##N##_t *l)                     \
    {                                                                          \
        clof_compose_tree_t *tr = clof_atomicptr_read_acq(&l->tree);           \
        if (tr)                                                                \
            clof_##N##_free_tree_(tr);                                         \
        clof_atomicptr_write_rlx(&l->tree, (clof_compose_tree_t *)NULL);       \
    }                                                                          \
    /* the kind of this lock's trees, for CLOF_COMPOSE_TREE_REUSE */         \
    CLOF_GEN_ const void *clof_##N##_tree_kind_(void)                         \
    {                                                                          \
        static const char kind_ = 0;                                           \
        return &kind_;                                                         \
    }                                                                          \
    /* first use of an all-zero lock: a retired tree (if the user recycles \
     * them), else one built over the process topology */                   \
    CLOF_SLOW clof_compose_tree_t *clof_##N##_lazy_(clof_##N##_t *l)            \
    {                                                                          \
        const void *kind_ = clof_##N##_tree_kind_();                           \
        clof_compose_tree_t *tr =                                              \
            (clof_compose_tree_t *)CLOF_COMPOSE_TREE_REUSE(kind_);             \
        bool reused_ = tr != NULL;                                             \
        if (!reused_) {                                                        \
            tr = clof_compose_tree_new_();                                     \
            if (!tr || clof_##N##_build_(tr, clof_topology(), NULL) != 0)      \
                abort(); /* out of memory at first use */                      \
        }                                                                      \
        clof_compose_tree_t *old = clof_atomicptr_cmpxchg(                     \
            &l->tree, (clof_compose_tree_t *)NULL, tr);                        \
        if (old) {                                                             \
            if (reused_)                                                       \
                CLOF_COMPOSE_TREE_RETIRE(tr, kind_);                           \
            else                                                               \
                clof_##N##_free_tree_(tr);                                     \
            return old;                                                        \
        }                                                                      \
        return tr;                                                             \
    }                                                                          \
    CLOF_INLINE clof_##N##_l0_t *clof_##N##_leaf_(clof_##N##_t *l)           \
    {                                                                          \
        clof_compose_tree_t *tr = clof_atomicptr_read_acq(&l->tree);           \
        if (CLOF_UNLIKELY(tr == NULL))                                         \
            tr = clof_##N##_lazy_(l);                                          \
        uint32_t cpu = clof_current_cpu();                                     \
        uint32_t leaf = NLEV == 1 ? 0 : clof_topo_cohort(tr->topo, cpu, tr->lvl[0]); \
        return &((clof_##N##_l0_t *)tr->nodes[0])[leaf];                       \
    }                                                                          \
    /* the fast word (the tree is built at the first use) */                 \
    CLOF_INLINE clof_atomic32_t *clof_##N##_fastw_(clof_##N##_t *l)           \
    {                                                                          \
        clof_compose_tree_t *tr = clof_atomicptr_read_acq(&l->tree);           \
        if (CLOF_UNLIKELY(tr == NULL))                                         \
            tr = clof_##N##_lazy_(l);                                          \
        return &tr->fast;                                                      \
    }                                                                          \
    /* through the tree (inline without the fast path; out of line with   \
     * it, so that the fast path saves no registers) */                       \
    CLOF_INLINE void clof_##N##_acquire_tree_(clof_##N##_t *l,               \
                                              clof_##N##_ctx_t *c)             \
    {                                                                          \
        clof_##N##_l0_t *leaf = clof_##N##_leaf_(l);                           \
        c->leaf = leaf;                                                        \
        uint32_t taken = clof_##N##_acq0(leaf, &c->c0);                        \
        (void)taken;                                                           \
        CLOF_COMPOSE_ON_ACQUIRE(taken);                                        \
    }                                                                          \
    CLOF_CMP_OUTLINE_ void clof_##N##_acquire_slow_(clof_##N##_t *l,         \
                                                    clof_##N##_ctx_t *c)       \
    {                                                                          \
        clof_##N##_acquire_tree_(l, c);                                        \
    }                                                                          \
    CLOF_CMP_OUTLINE_ void clof_##N##_release_slow_(clof_##N##_ctx_t *c)      \
    {                                                                          \
        clof_##N##_rel0(c->leaf, &c->c0);                                      \
    }                                                                          \
    CLOF_INLINE void clof_##N##_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    {                                                                          \
        if (FAST) {                                                            \
            if (clof_compose_fast_try_(clof_##N##_fastw_(l))) {                \
                c->leaf = NULL; /* held through the fast path */               \
                CLOF_COMPOSE_ON_ACQUIRE(NLEV);                                 \
                return;                                                        \
            }                                                                  \
            clof_##N##_acquire_slow_(l, c);                                    \
            return;                                                            \
        }                                                                      \
        clof_##N##_acquire_tree_(l, c);                                        \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_tryacquire(clof_##N##_t *l,                  \
                                             clof_##N##_ctx_t *c)              \
    {                                                                          \
        if (FAST) { /* held exactly when the fast word is */                   \
            if (!clof_compose_fast_try_(clof_##N##_fastw_(l)))                 \
                return false;                                                  \
            c->leaf = NULL;                                                    \
            return true;                                                       \
        }                                                                      \
        clof_##N##_l0_t *leaf = clof_##N##_leaf_(l);                           \
        if (!clof_##N##_try0(leaf, &c->c0))                                    \
            return false;                                                      \
        c->leaf = leaf;                                                        \
        return true;                                                           \
    }                                                                          \
    CLOF_INLINE void clof_##N##_release(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    {                                                                          \
        if (FAST) {                                                            \
            if (c->leaf == NULL)                                               \
                clof_compose_fast_release_(                                    \
                    &clof_atomicptr_read_rlx(&l->tree)->fast);                 \
            else                                                               \
                clof_##N##_release_slow_(c);                                   \
            return;                                                            \
        }                                                                      \
        clof_##N##_rel0(c->leaf, &c->c0);                                      \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_has_waiters(clof_##N##_t *l,                 \
                                              clof_##N##_ctx_t *c)             \
    {                                                                          \
        if ((FAST) && c->leaf == NULL) /* a system-level owner waits */        \
            return (clof_atomic32_read_rlx(                                    \
                        &clof_atomicptr_read_rlx(&l->tree)->fast) &            \
                    CLOF_CMP_TOPWAIT_) != 0;                                   \
        return clof_##N##_hw0(c->leaf, &c->c0);                                \
    }                                                                          \
    CLOF_GEN_ clof_lock_desc_t clof_##N##_desc(void)                       \
    {                                                                          \
        clof_lock_desc_t d = {#N,  FAIR, true, true, true,                     \
                              sizeof(clof_##N##_t), sizeof(clof_##N##_ctx_t)}; \
        return d;                                                              \
    }

#define CLOF_COMPOSED_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}

/* ---- depths 1..5 (arguments from the system level down) ---- */
#define CLOF_LOCK_1_(N, P, B0)                                                    \
    CLOF_CMP_TOP_(N, 0, B0)                                                    \
    CLOF_CMP_FRONT_(N, P, 1, CLOF_FAIR_##B0, 0,                                   \
                    CLOF_CMP_ALLOC_(N, 0); CLOF_CMP_TOPINIT_NOFAST_(N, 0))
#define CLOF_LOCK_2_(N, P, B1, B0)                                                \
    CLOF_CMP_TOP_(N, 1, B1)                                                    \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 2, CLOF_FAIR_##B1 && CLOF_FAIR_##B0, CLOF_COMPOSE_FAST_, \
                    CLOF_CMP_ALLOC_(N, 1); CLOF_CMP_ALLOC_(N, 0);              \
                    CLOF_CMP_TOPINIT_(N, 1) CLOF_CMP_LINK_(N, 0, 1))
#define CLOF_LOCK_3_(N, P, B2, B1, B0)                                            \
    CLOF_CMP_TOP_(N, 2, B2)                                                    \
    CLOF_CMP_LEVEL_(N, 1, 2, B1)                                               \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 3, CLOF_FAIR_##B2 && CLOF_FAIR_##B1 && CLOF_FAIR_##B0,  \
                    CLOF_COMPOSE_FAST_,                                        \
                    CLOF_CMP_ALLOC_(N, 2); CLOF_CMP_ALLOC_(N, 1);              \
                    CLOF_CMP_ALLOC_(N, 0); CLOF_CMP_TOPINIT_(N, 2)             \
                    CLOF_CMP_LINK_(N, 1, 2) CLOF_CMP_LINK_(N, 0, 1))
#define CLOF_LOCK_4_(N, P, B3, B2, B1, B0)                                        \
    CLOF_CMP_TOP_(N, 3, B3)                                                    \
    CLOF_CMP_LEVEL_(N, 2, 3, B2)                                               \
    CLOF_CMP_LEVEL_(N, 1, 2, B1)                                               \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 4,                                                      \
                    CLOF_FAIR_##B3 && CLOF_FAIR_##B2 && CLOF_FAIR_##B1 &&      \
                        CLOF_FAIR_##B0,                                        \
                    CLOF_COMPOSE_FAST_,                                        \
                    CLOF_CMP_ALLOC_(N, 3); CLOF_CMP_ALLOC_(N, 2);              \
                    CLOF_CMP_ALLOC_(N, 1); CLOF_CMP_ALLOC_(N, 0);              \
                    CLOF_CMP_TOPINIT_(N, 3) CLOF_CMP_LINK_(N, 2, 3)            \
                    CLOF_CMP_LINK_(N, 1, 2) CLOF_CMP_LINK_(N, 0, 1))
#define CLOF_LOCK_5_(N, P, B4, B3, B2, B1, B0)                                    \
    CLOF_CMP_TOP_(N, 4, B4)                                                    \
    CLOF_CMP_LEVEL_(N, 3, 4, B3)                                               \
    CLOF_CMP_LEVEL_(N, 2, 3, B2)                                               \
    CLOF_CMP_LEVEL_(N, 1, 2, B1)                                               \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 5,                                                      \
                    CLOF_FAIR_##B4 && CLOF_FAIR_##B3 && CLOF_FAIR_##B2 &&      \
                        CLOF_FAIR_##B1 && CLOF_FAIR_##B0,                      \
                    CLOF_COMPOSE_FAST_,                                        \
                    CLOF_CMP_ALLOC_(N, 4); CLOF_CMP_ALLOC_(N, 3);              \
                    CLOF_CMP_ALLOC_(N, 2); CLOF_CMP_ALLOC_(N, 1);              \
                    CLOF_CMP_ALLOC_(N, 0); CLOF_CMP_TOPINIT_(N, 4)             \
                    CLOF_CMP_LINK_(N, 3, 4) CLOF_CMP_LINK_(N, 2, 3)            \
                    CLOF_CMP_LINK_(N, 1, 2) CLOF_CMP_LINK_(N, 0, 1))

/* ---- the same, arguments from the lowest level up (as a name reads) ---- */
#define CLOF_COMPOSE_1_(N, P, B0) CLOF_LOCK_1_(N, P, B0)
#define CLOF_COMPOSE_2_(N, P, B0, B1) CLOF_LOCK_2_(N, P, B1, B0)
#define CLOF_COMPOSE_3_(N, P, B0, B1, B2) CLOF_LOCK_3_(N, P, B2, B1, B0)
#define CLOF_COMPOSE_4_(N, P, B0, B1, B2, B3) CLOF_LOCK_4_(N, P, B3, B2, B1, B0)
#define CLOF_COMPOSE_5_(N, P, B0, B1, B2, B3, B4)                              \
    CLOF_LOCK_5_(N, P, B4, B3, B2, B1, B0)

#define CLOF_CMP_PICK_(_1, _2, _3, _4, _5, M, ...) M
/* CLOF_COMPOSE(name, lowest_lock, ..., system_lock): 1 to 5 basic locks,
 * listed in the order of the composition's name (the paper's: lowest level
 * first), e.g. CLOF_COMPOSE(tkt_mcs_clh, ticket, mcs, clh) is tkt-mcs-clh:
 * ticket at the lowest level, CLH at the system level. */
#define CLOF_COMPOSE(N, ...)                                                   \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_COMPOSE_5_, CLOF_COMPOSE_4_,              \
                   CLOF_COMPOSE_3_, CLOF_COMPOSE_2_, CLOF_COMPOSE_1_,          \
                   none)(N, NULL, __VA_ARGS__)
/* The same, preferring the hierarchy levels whose kinds the array P (of
 * clof_level_kind_t, n entries, lowest first, system last) names; when the
 * hierarchy lacks one of them the default choice applies.  The cohort locks
 * use it to sit on the NUMA level. */
#define CLOF_COMPOSE_ON(N, P, ...)                                             \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_COMPOSE_5_, CLOF_COMPOSE_4_,              \
                   CLOF_COMPOSE_3_, CLOF_COMPOSE_2_, CLOF_COMPOSE_1_,          \
                   none)(N, P, __VA_ARGS__)

/* The old spelling, kept working: CLOF_LOCK(name, system_lock, ...,
 * lowest_lock) lists the levels from the system level down (the reverse of
 * the name); CLOF_LOCK_ON likewise.  New code: CLOF_COMPOSE.  (CLOF_LOCK is
 * also the preload library's environment variable, unrelated to this.) */
#define CLOF_LOCK(N, ...)                                                      \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_LOCK_5_, CLOF_LOCK_4_, CLOF_LOCK_3_,      \
                   CLOF_LOCK_2_, CLOF_LOCK_1_, none)(N, NULL, __VA_ARGS__)
#define CLOF_LOCK_ON(N, P, ...)                                                \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_LOCK_5_, CLOF_LOCK_4_, CLOF_LOCK_3_,      \
                   CLOF_LOCK_2_, CLOF_LOCK_1_, none)(N, P, __VA_ARGS__)

#endif /* CLOF_COMPOSE_H */
