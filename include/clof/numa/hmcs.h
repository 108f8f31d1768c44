/*
 * HMCS -- the hierarchical MCS lock, of any depth.
 *
 * Algorithm: a tree of MCS locks, one per cohort of every level (leaf cohorts
 * at the bottom, the system at the root).  A thread enqueues its node at its
 * leaf; a node's status tells it, when it stops waiting, either that the
 * lock was passed inside the cohort (a count 1..threshold of consecutive
 * local passes) or that it must acquire the parent level itself
 * (ACQUIRE_PARENT), which it does with the cohort's own node.  Release passes
 * the lock to the local successor with the count + 1 while the count is under
 * the level's threshold; otherwise it releases the parent first and then
 * tells its successor to acquire the parent.
 * Paper: "Verifying and Optimizing the HMCS Lock for Arm Servers", Fig. 2
 * (Chabbi et al.'s HMCS with the barriers VSync verified): SWAP and CAS
 * seq_cst, the link store release, the status stores release, the status
 * reads acquire.  The CLoF paper compares against HMCS<3> and HMCS<4>.
 * Properties: fair (FIFO at every level, bounded local passing); context =
 * one queue node (+ the leaf, kept for release so a migrating thread stays
 * correct); has_waiters native (a successor at any level of the path);
 * zero bytes are a valid lock (the tree is built at first use over the
 * process topology, all of its levels); thread-oblivious with the context.
 * Sizes: one cache line per node; the lock itself is one pointer.
 *
 * The fast path (not in the HMCS paper; Chabbi and Mellor-Crummey's
 * adaptive HMCS, PPoPP'16, has one): the tree has one more word, `fast`
 * (HELD | TOPWAIT, its own cache line), the same word and the same rules as
 * a CLoF composition's (compose.h, "The fast path", whose helpers this file
 * calls): an arrival that reads it 0 takes it with one CAS and skips the
 * tree (c->leaf = NULL); the thread that acquires the root MCS lock then
 * takes HELD too (setting TOPWAIT and waiting, at most one critical section,
 * when a fast owner holds it), keeps it while the root stays with its cohort
 * (local passes below), and clears it just before releasing the root.  The
 * lock is held exactly when HELD is set, so tryacquire is the fast CAS
 * alone.  A fast owner delays the root owner by at most one critical
 * section (TOPWAIT keeps further arrivals out).  The paper's HMCS exactly:
 * -DCLOF_COMPOSE_NO_FAST_PATH (for every HMCS and every composition of the
 * translation unit, so that comparisons stay like for like; the checker
 * verifies both, verify/clients_hmcs.c).  Memory orders of `fast`: those of
 * compose.h.
 *
 * Memory orders (the HMCS paper's verified placement, Fig. 2 "implicit"):
 *   status = WAIT, next = NULL relaxed before the seq_cst SWAP on tail
 *     (which publishes them, as in mcs.h);
 *   pred->next: waking write (release), read with acquire by the releaser;
 *   status: waking writes (release), awaited with acquire -- the HMCS
 *     paper's missing acquire here is the bug it found;
 *   CAS on tail seq_cst in the release helper.
 */
#ifndef CLOF_NUMA_HMCS_H
#define CLOF_NUMA_HMCS_H

#include <clof/compose.h>

#define CLOF_HMCS_WAIT UINT64_MAX
#define CLOF_HMCS_ACQUIRE_PARENT (UINT64_MAX - 1)
#define CLOF_HMCS_UNLOCKED 0u
#define CLOF_HMCS_COHORT_START 1u

typedef struct clof_hmcs_qnode {
    CLOF_ATOMICPTR(struct clof_hmcs_qnode) next;
    clof_atomic64_t status;
} CLOF_CACHE_ALIGNED clof_hmcs_qnode_t;

typedef struct clof_hmcs_hnode {
    CLOF_ATOMICPTR(clof_hmcs_qnode_t) tail;
    struct clof_hmcs_hnode *parent; /* NULL at the root */
    uint64_t threshold;
    clof_hmcs_qnode_t node CLOF_CACHE_ALIGNED; /* used at the parent level */
} CLOF_CACHE_ALIGNED clof_hmcs_hnode_t;

typedef struct {
    const clof_topology_t *topo;
    uint32_t depth;
    uint32_t lvl[CLOF_TOPO_MAX_LEVELS];
    clof_hmcs_hnode_t *nodes[CLOF_TOPO_MAX_LEVELS];
    clof_atomic32_t fast CLOF_CACHE_ALIGNED; /* the fast path's word */
} CLOF_CACHE_ALIGNED clof_hmcs_tree_t;

typedef struct {
    CLOF_ATOMICPTR(clof_hmcs_tree_t) tree;
} clof_hmcs_t;

typedef struct {
    clof_hmcs_qnode_t q;
    clof_hmcs_hnode_t *leaf;
} clof_hmcs_ctx_t;

#define CLOF_HMCS_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}
#define CLOF_HMCS_FAIR 1
#define CLOF_HMCS_NATIVE_HW 1
#define CLOF_HMCS_ZERO_INIT 1
#define CLOF_HMCS_THREAD_OBLIVIOUS 1

static inline void clof_hmcs_free_tree_(clof_hmcs_tree_t *tr)
{
    for (uint32_t k = 0; k < CLOF_TOPO_MAX_LEVELS; k++)
        free(tr->nodes[k]);
    free(tr);
}

/* A tree of `depth` levels over t (levels: explicit indices as in
 * compose.h, or NULL for the lowest depth-1 levels and the system). */
static inline clof_hmcs_tree_t *clof_hmcs_build_(const clof_topology_t *t,
                                                 uint32_t depth,
                                                 const uint32_t *levels)
{
    clof_hmcs_tree_t *tr =
        (clof_hmcs_tree_t *)aligned_alloc(CLOF_CACHELINE, sizeof *tr);
    if (!tr)
        return NULL;
    memset(tr, 0, sizeof *tr);
    tr->topo = t;
    tr->depth = depth;
    if (depth < 1 || depth > CLOF_TOPO_MAX_LEVELS ||
        clof_compose_levels_(t, depth, levels, tr->lvl) != 0) {
        clof_hmcs_free_tree_(tr);
        return NULL;
    }
    for (uint32_t k = depth; k-- > 0;) {
        uint32_t n = k == depth - 1 ? 1 : clof_topo_ncohorts(t, tr->lvl[k]);
        tr->nodes[k] = (clof_hmcs_hnode_t *)aligned_alloc(
            CLOF_CACHELINE, sizeof(clof_hmcs_hnode_t) * n);
        if (!tr->nodes[k]) {
            clof_hmcs_free_tree_(tr);
            return NULL;
        }
        memset(tr->nodes[k], 0, sizeof(clof_hmcs_hnode_t) * n);
        for (uint32_t c = 0; c < n; c++) {
            clof_hmcs_hnode_t *h = &tr->nodes[k][c];
            h->threshold = clof_topo_threshold(t, tr->lvl[k]);
            if (h->threshold == 0)
                h->threshold = CLOF_COMPOSE_THRESHOLD;
            if (k + 1 < depth) {
                uint32_t p = tr->lvl[k] == tr->lvl[k + 1]
                                 ? c
                                 : clof_compose_parent_(t, tr->lvl[k], c,
                                                        tr->lvl[k + 1]);
                h->parent = &tr->nodes[k + 1][p];
            }
        }
    }
    return tr;
}

/* HMCS<depth> over topology t; 0, or -1 (levels do not fit, no memory). */
static inline int clof_hmcs_init_topo(clof_hmcs_t *l, const clof_topology_t *t,
                                      uint32_t depth, const uint32_t *levels)
{
    clof_hmcs_tree_t *tr = clof_hmcs_build_(t, depth, levels);
    if (!tr)
        return -1;
    clof_atomicptr_write_rel(&l->tree, tr);
    return 0;
}

static inline void clof_hmcs_init(clof_hmcs_t *l)
{
    clof_atomicptr_write_rlx(&l->tree, (clof_hmcs_tree_t *)NULL);
}

static inline void clof_hmcs_destroy(clof_hmcs_t *l)
{
    clof_hmcs_tree_t *tr = clof_atomicptr_read_acq(&l->tree);
    if (tr)
        clof_hmcs_free_tree_(tr);
    clof_atomicptr_write_rlx(&l->tree, (clof_hmcs_tree_t *)NULL);
}

CLOF_SLOW clof_hmcs_tree_t *clof_hmcs_lazy_(clof_hmcs_t *l)
{
    const clof_topology_t *t = clof_topology();
    clof_hmcs_tree_t *tr = clof_hmcs_build_(t, clof_topo_nlevels(t), NULL);
    if (!tr)
        abort(); /* out of memory at first use */
    clof_hmcs_tree_t *old =
        clof_atomicptr_cmpxchg(&l->tree, (clof_hmcs_tree_t *)NULL, tr);
    if (old) {
        clof_hmcs_free_tree_(tr);
        return old;
    }
    return tr;
}

CLOF_INLINE clof_hmcs_tree_t *clof_hmcs_tree_(clof_hmcs_t *l)
{
    clof_hmcs_tree_t *tr = clof_atomicptr_read_acq(&l->tree);
    if (CLOF_UNLIKELY(tr == NULL))
        tr = clof_hmcs_lazy_(l);
    return tr;
}

CLOF_INLINE clof_hmcs_hnode_t *clof_hmcs_leaf_(clof_hmcs_tree_t *tr)
{
    uint32_t c = tr->depth == 1
                     ? 0
                     : clof_topo_cohort(tr->topo, clof_current_cpu(), tr->lvl[0]);
    return &tr->nodes[0][c];
}

/* The paths through the tree: inline without the fast path, called with it
 * (so that the fast path saves no registers; see compose.h). */
#if CLOF_COMPOSE_FAST_
#define CLOF_HMCS_TREE_ CLOF_CMP_OUTLINE_
#else
#define CLOF_HMCS_TREE_ CLOF_INLINE
#endif

/* Hand the lock at level L to I's successor with status st. */
CLOF_SLOW void clof_hmcs_release_helper_(clof_hmcs_hnode_t *L,
                                         clof_hmcs_qnode_t *I, uint64_t st)
{
    clof_hmcs_qnode_t *succ = clof_atomicptr_read_acq(&I->next);
    if (!succ) {
        if (clof_atomicptr_cmpxchg(&L->tail, I, (clof_hmcs_qnode_t *)NULL) ==
            I)
            return;
        succ = clof_atomicptr_await_neq_acq(&I->next, (clof_hmcs_qnode_t *)NULL);
    }
    clof_atomic64_write_wake(&succ->status, st);
}

/* AcqReal of Fig. 2, unfolded into a loop from the leaf up (then, with
 * the fast path, HELD after the root). */
CLOF_HMCS_TREE_ void clof_hmcs_acquire_tree_(clof_hmcs_tree_t *tr,
                                             clof_hmcs_ctx_t *c)
{
    clof_hmcs_hnode_t *L = clof_hmcs_leaf_(tr);
    clof_hmcs_qnode_t *I = &c->q;
    uint32_t taken = 1;
    c->leaf = L;
    for (;;) {
        clof_atomic64_write_rlx(&I->status, CLOF_HMCS_WAIT);
        clof_atomicptr_write_rlx(&I->next, (clof_hmcs_qnode_t *)NULL);
        clof_hmcs_qnode_t *pred = clof_atomicptr_xchg(&L->tail, I);
        if (L->parent == NULL) { /* the root: a plain MCS lock */
            if (!pred) {
                clof_atomic64_write_rlx(&I->status, CLOF_HMCS_UNLOCKED);
            } else {
                clof_atomicptr_write_wake(&pred->next, I);
                clof_atomic64_await_neq_acq(&I->status, CLOF_HMCS_WAIT);
            }
            if (CLOF_COMPOSE_FAST_)
                clof_compose_fast_take_(&tr->fast);
            CLOF_COMPOSE_ON_ACQUIRE(taken);
            return;
        }
        if (pred) {
            clof_atomicptr_write_wake(&pred->next, I);
            uint64_t st = clof_atomic64_await_neq_acq(&I->status, CLOF_HMCS_WAIT);
            if (st < CLOF_HMCS_ACQUIRE_PARENT) { /* passed inside the cohort */
                CLOF_COMPOSE_ON_ACQUIRE(taken);
                return;
            }
        }
        clof_atomic64_write_rlx(&I->status, CLOF_HMCS_COHORT_START);
        I = &L->node;
        L = L->parent;
        taken++;
    }
}

CLOF_INLINE void clof_hmcs_acquire(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    clof_hmcs_tree_t *tr = clof_hmcs_tree_(lk);
    if (CLOF_COMPOSE_FAST_ && clof_compose_fast_try_(&tr->fast)) {
        c->leaf = NULL; /* held through the fast path */
        CLOF_COMPOSE_ON_ACQUIRE(tr->depth);
        return;
    }
    clof_hmcs_acquire_tree_(tr, c);
}

/* RelReal of Fig. 2: climb while the lock must leave the cohort, release
 * the highest such level first, then tell each lower successor to acquire
 * the parent (high before low, as the context invariant demands). */
CLOF_HMCS_TREE_ void clof_hmcs_release_tree_(clof_hmcs_t *lk,
                                             clof_hmcs_ctx_t *c)
{
    clof_hmcs_hnode_t *path[CLOF_TOPO_MAX_LEVELS];
    clof_hmcs_qnode_t *qn[CLOF_TOPO_MAX_LEVELS];
    clof_hmcs_hnode_t *L = c->leaf;
    clof_hmcs_qnode_t *I = &c->q;
    uint32_t n = 0;
    for (;;) {
        if (L->parent == NULL) { /* root: release it, then unwind */
            if (CLOF_COMPOSE_FAST_) /* HELD first: highest first */
                CLOF_CMP_RELEASE_ORDER_(
                    clof_compose_fast_drop_(
                        &clof_atomicptr_read_rlx(&lk->tree)->fast),
                    clof_hmcs_release_helper_(L, I, CLOF_HMCS_UNLOCKED));
            else
                clof_hmcs_release_helper_(L, I, CLOF_HMCS_UNLOCKED);
            break;
        }
        uint64_t count = clof_atomic64_read_rlx(&I->status);
        if (count < L->threshold) {
            clof_hmcs_qnode_t *succ = clof_atomicptr_read_acq(&I->next);
            if (succ) { /* pass inside the cohort */
                clof_atomic64_write_wake(&succ->status, count + 1);
                break;
            }
        }
        path[n] = L;
        qn[n] = I;
        n++;
        I = &L->node;
        L = L->parent;
    }
    while (n-- > 0)
        clof_hmcs_release_helper_(path[n], qn[n], CLOF_HMCS_ACQUIRE_PARENT);
}

CLOF_INLINE void clof_hmcs_release(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    if (CLOF_COMPOSE_FAST_ && c->leaf == NULL) {
        clof_compose_fast_release_(&clof_atomicptr_read_rlx(&lk->tree)->fast);
        return;
    }
    clof_hmcs_release_tree_(lk, c);
}

/* The paper's tryacquire: free only if every level on the path is free:
 * take them bottom up. */
CLOF_HMCS_TREE_ bool clof_hmcs_try_tree_(clof_hmcs_tree_t *tr,
                                         clof_hmcs_ctx_t *c)
{
    clof_hmcs_hnode_t *L = clof_hmcs_leaf_(tr);
    clof_hmcs_hnode_t *path[CLOF_TOPO_MAX_LEVELS];
    clof_hmcs_qnode_t *qn[CLOF_TOPO_MAX_LEVELS];
    clof_hmcs_qnode_t *I = &c->q;
    uint32_t n = 0;
    c->leaf = L;
    for (;;) {
        clof_atomic64_write_rlx(&I->status,
                                L->parent ? CLOF_HMCS_COHORT_START
                                          : CLOF_HMCS_UNLOCKED);
        clof_atomicptr_write_rlx(&I->next, (clof_hmcs_qnode_t *)NULL);
        if (clof_atomicptr_cmpxchg(&L->tail, (clof_hmcs_qnode_t *)NULL, I) !=
            NULL)
            break;
        if (L->parent == NULL)
            return true;
        path[n] = L;
        qn[n] = I;
        n++;
        I = &L->node;
        L = L->parent;
    }
    /* a level was busy: undo from the top down (successors, if any arrived,
     * are told to acquire the parent themselves) */
    while (n-- > 0)
        clof_hmcs_release_helper_(path[n], qn[n], CLOF_HMCS_ACQUIRE_PARENT);
    return false;
}

CLOF_INLINE bool clof_hmcs_tryacquire(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    clof_hmcs_tree_t *tr = clof_hmcs_tree_(lk);
    if (CLOF_COMPOSE_FAST_) { /* held exactly when HELD is */
        if (!clof_compose_fast_try_(&tr->fast))
            return false;
        c->leaf = NULL;
        return true;
    }
    return clof_hmcs_try_tree_(tr, c);
}

CLOF_INLINE bool clof_hmcs_has_waiters(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    if (CLOF_COMPOSE_FAST_ && c->leaf == NULL) /* a root owner waits */
        return (clof_atomic32_read_rlx(
                    &clof_atomicptr_read_rlx(&lk->tree)->fast) &
                CLOF_CMP_TOPWAIT_) != 0;
    clof_hmcs_hnode_t *L = c->leaf;
    clof_hmcs_qnode_t *I = &c->q;
    for (;;) {
        if (clof_atomicptr_read_rlx(&L->tail) != I)
            return true;
        if (L->parent == NULL)
            return false;
        I = &L->node;
        L = L->parent;
    }
}

#endif /* CLOF_NUMA_HMCS_H */
