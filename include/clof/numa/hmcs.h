/* SPDX-License-Identifier: MIT */
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
 * Sizes: one cache line per node; the lock itself is one pointer (two
 * 32-bit words in the indexed layout, below).
 *
 * The fast path (not in the HMCS paper; Chabbi and Mellor-Crummey's
 * adaptive HMCS, PPoPP'16, has one): the tree has one more word, `fast`
 * (HELD | TOPWAIT, its own cache line), the same word and the same rules as
 * a CLoF composition's (compose.h, "The fast path"; the helpers are
 * hier/fast.h's): an arrival that reads it 0 takes it with one CAS and
 * skips the tree (c->leaf = NULL); the thread that acquires the root MCS
 * lock then takes HELD too (setting TOPWAIT and waiting, at most one
 * critical section,
 * when a fast owner holds it), keeps it while the root stays with its cohort
 * (local passes below), and clears it just before releasing the root.  The
 * lock is held exactly when HELD is set, so tryacquire is the fast CAS
 * alone.  A fast owner delays the root owner by at most one critical
 * section (TOPWAIT keeps further arrivals out).  The paper's HMCS exactly:
 * -DCLOF_COMPOSE_NO_FAST_PATH (for every HMCS and every composition of the
 * translation unit, so that comparisons stay like for like; the checker
 * verifies both, verify/clients_hmcs.c).  Memory orders of `fast`: those of
 * hier/fast.h.
 *
 * The fast word in the lock (an includer's layout): by default the lock is
 * the tree's pointer and the fast word is the tree's.  An includer that
 * defines CLOF_HMCS_TREE_AT(ix) and CLOF_HMCS_TREE_INDEX(tr) before
 * including this header gets a lock of two 32-bit words instead: the fast
 * word itself and the tree's index (0: no tree yet), where
 * CLOF_HMCS_TREE_INDEX(tr) gives a built tree an index (>= 1, kept in
 * tr->ix for the tree's life: the includer registers a tree once, even
 * when it reuses it through CLOF_COMPOSE_TREE_REUSE) and
 * CLOF_HMCS_TREE_AT(ix) gives it back.  The fast path then touches the
 * lock's own word alone, and the tree is built at the first acquisition
 * that needs it.  The preload library uses it: a mutex holds the lock, and
 * with the fast word on the tree's line every uncontended acquisition
 * moved that line too: with the word in the mutex plain `hmcs` runs
 * 1.15-1.29x faster at T = 2 and 4, `cr:hmcs` 1.16-1.27x at T = 2..16
 * (pl_mutexbench on the 2-vCPU VM, docs/perf.md).  The algorithm and the
 * orders are the same; the index is published as the pointer is (a
 * seq_cst CAS after the tree's plain initialisation and after the
 * includer's release store of the table entry; an acquire read before the
 * tree is used).  The checker verifies this layout too ("hmcs3.fast.index",
 * verify/clients_hmcs.c).  destroy frees the tree; an includer that keeps
 * trees in its table retires them instead (the preload library does).
 *
 * Memory orders (the HMCS paper's verified placement, Fig. 2 "implicit"):
 *   status = WAIT, next = NULL relaxed before the seq_cst SWAP on tail
 *     (which publishes them, as in mcs.h);
 *   pred->next: waking write (release), read with acquire by the releaser;
 *   status: waking writes (release), awaited with acquire -- the HMCS
 *     paper's missing acquire here is the bug it found;
 *   CAS on tail seq_cst in the release helper.
 *
 * Barrier variants (the HMCS paper, §3 Fig. 2, §5 and Appendix B Table 1),
 * a compile-time choice for the whole translation unit; each is checked
 * by `clof verify --lock hmcs-variants` (sc and the default verify under
 * every model; fences and amo only under SC and TSO) (verify/clients_hmcs.c is compiled
 * once per variant) and its Armv8 instructions are checked (tests/arm,
 * bench/arm_disasm.py; docs/arm.md):
 *   (default) CLOF_HMCS_IMPLICIT  "implicit" = hmcs-vsync: the orders above.
 *   CLOF_HMCS_SC      hmcs-sc: every racy access seq_cst (Armv8: LDAR and
 *                     STLR; no fence).
 *   CLOF_HMCS_FENCES  Fig. 2's fences (for Arm and IMM) with every access
 *                     relaxed, SWAP and CAS too (Table 1, "Fences": all
 *                     barriers on the atomic operations removed):
 *                     F_rel before each SWAP (lines 15, 28), F_acq when an
 *                     acquisition ends (line 10) or after a status wait
 *                     that goes up a level (36), F_rel at the start of the
 *                     release (44) and before each lower level's hand-over
 *                     (70, 82), F_acq after reading next (51, 75).  As
 *                     in Fig. 2 no fence follows the wait for next at
 *                     line 57: on Arm the address dependency from that
 *                     read to the status store orders them (Armv8's
 *                     ordered-before contains the external coherence
 *                     order).  IMM does not order them: GenMC's IMM shows
 *                     the store coming before the successor's
 *                     initialisation of its status in modification order
 *                     (an "S" shape) and the successor waiting forever
 *                     (ctest genmc.hmcs3.fences.imm), and so does C11,
 *                     which has no dependency ordering (clof verify's C11
 *                     model, free modification order).  Not correct as a
 *                     C11 program nor under IMM.
 *                     The default variant has no such gap.
 *   CLOF_HMCS_AMO     hmcs-amo: "implicit" with Table 1's LSE row: SWAP at
 *                     the root release + F_acq, SWAP below the root
 *                     release, CAS release.  Under C11 the checker finds a
 *                     lost update (ctest
 *                     verify.hmcs_variants.c11_counterexamples): a
 *                     thread that takes a middle level free has not
 *                     synchronised with its last owner, so its relaxed
 *                     re-initialisation of the level's node status may
 *                     come before that owner's UNLOCKED in modification
 *                     order (an "S" shape; on Arm the store's control
 *                     dependency on the SWAP forbids it; docs/arm.md).
 *                     IMM does not save it either: GenMC's IMM finds two
 *                     threads in the critical section (ctest
 *                     genmc.hmcs3.amo.imm).  Like
 *                     "fences" it is the paper's placement for the Armv8
 *                     model, not a correct C11 program; study only.
 * The fast path (compose.h's word) keeps its own orders in every variant.
 * Under the spin-park policy a waking write is seq_cst whatever the variant
 * asks (the parking handshake, wait.h); the variants' own instructions show
 * under the papers' pure spinning (CLOF_WAIT_SPIN).
 */
/** \file
 * HMCS, the hierarchical MCS lock of any depth: one MCS lock per cohort of
 * every level of the runtime topology, the lock passed inside a cohort up
 * to the level's threshold; with compose.h's fast path.  Link libclof (the
 * topology).  Algorithm, the fast path, the indexed layout, the barrier
 * variants and the memory orders: the comment at the top of the header. */
#ifndef CLOF_NUMA_HMCS_H
#define CLOF_NUMA_HMCS_H

#include <clof/lock/mcs.h>
#include <clof/hier/fast.h>
#include <clof/hier/levels.h>

/* ---- the barrier variant: one suffix or fence per site of Fig. 2 ---- */
#if (defined(CLOF_HMCS_SC) + defined(CLOF_HMCS_FENCES) +                      \
     defined(CLOF_HMCS_AMO) + defined(CLOF_HMCS_IMPLICIT)) > 1
#error "define at most one of CLOF_HMCS_SC, CLOF_HMCS_FENCES, CLOF_HMCS_AMO, CLOF_HMCS_IMPLICIT"
#endif
#define CLOF_HMCS_CAT2_(a, b) a##b
#define CLOF_HMCS_CAT_(a, b) CLOF_HMCS_CAT2_(a, b)
#if defined(CLOF_HMCS_SC)
/** The barrier variant: "sc", every racy access seq_cst (CLOF_HMCS_SC). */
#define CLOF_HMCS_VARIANT "sc"
#define CLOF_HMCS_PLAIN_         /* lines 14, 19, 27, 39, 67: node fields */
#define CLOF_HMCS_SWAP_ROOT_     /* line 17 */
#define CLOF_HMCS_SWAP_INNER_    /* line 30 */
#define CLOF_HMCS_CAS_           /* line 55 */
#define CLOF_HMCS_LOAD_          /* lines 22, 34, 50, 57, 74 */
#define CLOF_HMCS_WAKE_ _sc      /* lines 21, 32, 53, 58, 78 */
#elif defined(CLOF_HMCS_FENCES)
/** The barrier variant: "fences", the paper's fences with every access
 *  relaxed (CLOF_HMCS_FENCES; not correct under C11 nor IMM). */
#define CLOF_HMCS_VARIANT "fences"
#define CLOF_HMCS_PLAIN_ _rlx
#define CLOF_HMCS_SWAP_ROOT_ _rlx
#define CLOF_HMCS_SWAP_INNER_ _rlx
#define CLOF_HMCS_CAS_ _rlx
#define CLOF_HMCS_LOAD_ _rlx
#define CLOF_HMCS_WAKE_ _rlx
#define CLOF_HMCS_FENCED_ 1
#elif defined(CLOF_HMCS_AMO)
/** The barrier variant: "amo", the paper's LSE row (CLOF_HMCS_AMO; not
 *  correct under C11 nor IMM). */
#define CLOF_HMCS_VARIANT "amo"
#define CLOF_HMCS_PLAIN_ _rlx
#define CLOF_HMCS_SWAP_ROOT_ _rel
#define CLOF_HMCS_SWAP_ROOT_FACQ_ 1
#define CLOF_HMCS_SWAP_INNER_ _rel
#define CLOF_HMCS_CAS_ _rel
#define CLOF_HMCS_LOAD_ _acq
#define CLOF_HMCS_WAKE_
#else
/** The barrier variant: "implicit", the default (the orders the HMCS
 *  paper verified; CLOF_HMCS_IMPLICIT or none of the others defined). */
#define CLOF_HMCS_VARIANT "implicit"
#define CLOF_HMCS_PLAIN_ _rlx
#define CLOF_HMCS_SWAP_ROOT_
#define CLOF_HMCS_SWAP_INNER_
#define CLOF_HMCS_CAS_
#define CLOF_HMCS_LOAD_ _acq
#define CLOF_HMCS_WAKE_
#endif
#if !defined(CLOF_HMCS_FENCED_)
#define CLOF_HMCS_FENCED_ 0
#endif
#if !defined(CLOF_HMCS_SWAP_ROOT_FACQ_)
#define CLOF_HMCS_SWAP_ROOT_FACQ_ 0
#endif
/* op##order(args): e.g. CLOF_HMCS_OP_(clof_atomic64_write, PLAIN)(a, v) */
#define CLOF_HMCS_OP_(op, site) CLOF_HMCS_CAT_(op, CLOF_HMCS_##site##_)
/* the fences of the "fences" variant (no-ops in the others) */
#define CLOF_HMCS_F_REL_()                                                     \
    do {                                                                       \
        if (CLOF_HMCS_FENCED_)                                                 \
            clof_fence_rel();                                                  \
    } while (0)
#define CLOF_HMCS_F_ACQ_()                                                     \
    do {                                                                       \
        if (CLOF_HMCS_FENCED_)                                                 \
            clof_fence_acq();                                                  \
    } while (0)

/** \name A queue node's status (clof_hmcs_qnode_t::status) */
/**@{*/
#define CLOF_HMCS_WAIT UINT64_MAX /**< waiting for the predecessor */
/** stop waiting and acquire the parent level (the lock leaves the cohort) */
#define CLOF_HMCS_ACQUIRE_PARENT (UINT64_MAX - 1)
#define CLOF_HMCS_UNLOCKED 0u /**< the root's lock is the node's (root only) */
/** the node's thread took its cohort's lock afresh: the count of local
 *  passes starts here (a status below ACQUIRE_PARENT is such a count) */
#define CLOF_HMCS_COHORT_START 1u
/**@}*/

/** A queue node of one level's MCS lock (one cache line): a thread's, or a
 *  cohort's at its parent level. */
typedef struct clof_hmcs_qnode {
    CLOF_ATOMICPTR(struct clof_hmcs_qnode) next; /**< successor, once linked */
    clof_atomic64_t status; /**< CLOF_HMCS_WAIT, ACQUIRE_PARENT or a count */
} CLOF_CACHE_ALIGNED clof_hmcs_qnode_t;

/** A cohort's node of the tree: its MCS lock and its way to the parent. */
typedef struct clof_hmcs_hnode {
    CLOF_ATOMICPTR(clof_hmcs_qnode_t) tail; /**< the cohort's MCS lock */
    struct clof_hmcs_hnode *parent; /**< NULL at the root */
    uint64_t threshold; /**< local passes in a row at most (the level's) */
    clof_hmcs_qnode_t node CLOF_CACHE_ALIGNED; /**< used at the parent level */
} CLOF_CACHE_ALIGNED clof_hmcs_hnode_t;

/** An HMCS lock's tree over a topology, built at init_topo or first use. */
typedef struct {
    const clof_topology_t *topo; /**< the topology it is built over */
    uint32_t depth; /**< levels, 1..CLOF_TOPO_MAX_LEVELS */
    /** the topology level of each of its levels, lowest first */
    uint32_t lvl[CLOF_TOPO_MAX_LEVELS];
    /** nodes[k][c]: the node of cohort c at level k (one at the root) */
    clof_hmcs_hnode_t *nodes[CLOF_TOPO_MAX_LEVELS];
    uint32_t ix; /**< the includer's index of the tree, 0: none (above) */
    clof_atomic32_t fast CLOF_CACHE_ALIGNED; /**< the fast path's word (in
                                                the tree's layout) */
} CLOF_CACHE_ALIGNED clof_hmcs_tree_t;

#if defined(CLOF_HMCS_TREE_AT) && defined(CLOF_HMCS_TREE_INDEX)
#define CLOF_HMCS_INDEXED_ 1
/** The HMCS lock in the indexed layout (the includer defined
 *  CLOF_HMCS_TREE_AT and CLOF_HMCS_TREE_INDEX): two 32-bit words. */
typedef struct {
    clof_atomic32_t fast; /**< the fast path's word */
    clof_atomic32_t tree; /**< the tree's index, 0: not built yet */
} clof_hmcs_t;
/** Static initializer of an unlocked HMCS lock (its tree built at first
 *  use over the process topology). */
#define CLOF_HMCS_INITIALIZER {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}
#else
#define CLOF_HMCS_INDEXED_ 0
/** The HMCS lock: its tree's pointer (8 bytes). */
typedef struct {
    CLOF_ATOMICPTR(clof_hmcs_tree_t) tree; /**< NULL: not built yet */
} clof_hmcs_t;
/** Static initializer of an unlocked HMCS lock (its tree built at first
 *  use over the process topology). */
#define CLOF_HMCS_INITIALIZER {CLOF_ATOMICPTR_INIT(NULL)}
#endif

/** HMCS's context: the thread's queue node at its leaf, and the leaf. */
typedef struct {
    clof_hmcs_qnode_t q; /**< the queue node at the leaf */
    clof_hmcs_hnode_t *leaf; /**< the leaf acquired, NULL: the fast path */
} clof_hmcs_ctx_t;

#define CLOF_HMCS_FAIR 1 /**< 1: FIFO admission (lock.h) */
#define CLOF_HMCS_NATIVE_HW 1 /**< 1: has_waiters exact from the lock state */
#define CLOF_HMCS_ZERO_INIT 1 /**< 1: all-zero bytes are an unlocked lock */
#define CLOF_HMCS_THREAD_OBLIVIOUS 1 /**< 1: release may run on another thread */

static inline void clof_hmcs_free_tree_(clof_hmcs_tree_t *tr)
{
    for (uint32_t k = 0; k < CLOF_TOPO_MAX_LEVELS; k++)
        CLOF_TREE_FREE(tr->nodes[k]);
    CLOF_TREE_FREE(tr);
}

/* A tree of `depth` levels over t (levels: explicit indices as in
 * compose.h, or NULL for the lowest depth-1 levels and the system). */
static inline clof_hmcs_tree_t *clof_hmcs_build_(const clof_topology_t *t,
                                                 uint32_t depth,
                                                 const uint32_t *levels)
{
    clof_hmcs_tree_t *tr =
        (clof_hmcs_tree_t *)CLOF_TREE_ALLOC(CLOF_CACHELINE, sizeof *tr);
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
        tr->nodes[k] = (clof_hmcs_hnode_t *)CLOF_TREE_ALLOC(
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

/** Initialise l as HMCS<depth> over the topology t, its tree built now:
 * levels gives depth ascending level indices of t (the last one the system
 * level), or NULL for the depth-1 lowest levels and the system level.  0,
 * or -1 (the levels do not fit t, no memory).  Undo with clof_hmcs_destroy. */
static inline int clof_hmcs_init_topo(clof_hmcs_t *l, const clof_topology_t *t,
                                      uint32_t depth, const uint32_t *levels)
{
    clof_hmcs_tree_t *tr = clof_hmcs_build_(t, depth, levels);
    if (!tr)
        return -1;
#if CLOF_HMCS_INDEXED_
    clof_atomic32_write_rlx(&l->fast, 0);
    clof_atomic32_write_rel(&l->tree, CLOF_HMCS_TREE_INDEX(tr));
#else
    clof_atomicptr_write_pub(&l->tree, tr);
#endif
    return 0;
}

/** Initialise an unlocked HMCS lock whose tree is built at its first use,
 * over the process topology (clof_topology()) and all of its levels
 * (all-zero bytes are one too). */
static inline void clof_hmcs_init(clof_hmcs_t *l)
{
#if CLOF_HMCS_INDEXED_
    clof_atomic32_write_rlx(&l->fast, 0);
    clof_atomic32_write_rlx(&l->tree, 0);
#else
    clof_atomicptr_write_rlx(&l->tree, (clof_hmcs_tree_t *)NULL);
#endif
}

/* The tree, if built (NULL: not yet). */
static inline clof_hmcs_tree_t *clof_hmcs_tree_if_(clof_hmcs_t *l)
{
#if CLOF_HMCS_INDEXED_
    uint32_t ix = clof_atomic32_read_acq(&l->tree);
    return ix != 0 ? CLOF_HMCS_TREE_AT(ix) : (clof_hmcs_tree_t *)NULL;
#else
    return clof_atomicptr_read_pub(&l->tree);
#endif
}

/** Free the tree of the unlocked HMCS lock l (if built); l is then an
 * unlocked lock again (as clof_hmcs_init leaves it). */
static inline void clof_hmcs_destroy(clof_hmcs_t *l)
{
    clof_hmcs_tree_t *tr = clof_hmcs_tree_if_(l);
    if (tr)
        clof_hmcs_free_tree_(tr);
    clof_hmcs_init(l);
}

/* the kind of HMCS trees, for compose.h's CLOF_COMPOSE_TREE_REUSE */
static inline const void *clof_hmcs_tree_kind_(void)
{
    static const char kind = 0;
    return &kind;
}

CLOF_SLOW clof_hmcs_tree_t *clof_hmcs_lazy_(clof_hmcs_t *l)
{
    const clof_topology_t *t = clof_topology();
    /* a retired tree, if the user recycles them (compose.h's hook) */
    const void *kind = clof_hmcs_tree_kind_();
    clof_hmcs_tree_t *tr = (clof_hmcs_tree_t *)CLOF_COMPOSE_TREE_REUSE(kind);
    bool reused = tr != NULL;
    if (!reused)
        tr = clof_hmcs_build_(t, clof_topo_nlevels(t), NULL);
    if (!tr)
        abort(); /* out of memory at first use */
#if CLOF_HMCS_INDEXED_
    /* an indexed tree is the includer's for good: retired, never freed */
    uint32_t old = clof_atomic32_cmpxchg(&l->tree, 0, CLOF_HMCS_TREE_INDEX(tr));
    if (old != 0) {
        CLOF_COMPOSE_TREE_RETIRE(tr, kind);
        return CLOF_HMCS_TREE_AT(old);
    }
#else
    clof_hmcs_tree_t *old =
        clof_atomicptr_cmpxchg_pub(&l->tree, (clof_hmcs_tree_t *)NULL, tr);
    if (old) {
        if (reused)
            CLOF_COMPOSE_TREE_RETIRE(tr, kind);
        else
            clof_hmcs_free_tree_(tr);
        return old;
    }
#endif
    return tr;
}

/* The tree, built at first use; the acquire publishes its plain
 * initialisation (as compose.h's clof_cmp_tree: a publication access). */
CLOF_INLINE clof_hmcs_tree_t *clof_hmcs_tree_(clof_hmcs_t *l)
{
    clof_hmcs_tree_t *tr = clof_hmcs_tree_if_(l);
    if (CLOF_UNLIKELY(tr == NULL))
        tr = clof_hmcs_lazy_(l);
    return tr;
}

/* The fast word: the lock's (indexed layout) or its tree's (tr: the lock's
 * tree; unused in the indexed layout, where it may be NULL). */
static inline clof_atomic32_t *clof_hmcs_fast_(clof_hmcs_t *l, clof_hmcs_tree_t *tr)
{
#if CLOF_HMCS_INDEXED_
    (void)tr;
    return &l->fast;
#else
    (void)l;
    return &tr->fast;
#endif
}

/* The tree of a held lock, for its fast word: the tree's layout (it is
 * built: a relaxed read suffices); NULL in the indexed layout. */
static inline clof_hmcs_tree_t *clof_hmcs_held_tree_(clof_hmcs_t *l)
{
#if CLOF_HMCS_INDEXED_
    (void)l;
    return (clof_hmcs_tree_t *)NULL;
#else
    return clof_atomicptr_read_rlx(&l->tree);
#endif
}

/* Levels taken by a fast acquisition, for CLOF_COMPOSE_ON_ACQUIRE: the
 * tree's depth; in the indexed layout only loads (no tree is built for
 * it: 1 until one is), so that a hook that ignores it costs nothing. */
static inline uint32_t clof_hmcs_fast_levels_(clof_hmcs_t *l, clof_hmcs_tree_t *tr)
{
#if CLOF_HMCS_INDEXED_
    (void)tr;
    uint32_t ix = clof_atomic32_read_acq(&l->tree); /* then the entry */
    return ix != 0 ? CLOF_HMCS_TREE_AT(ix)->depth : 1u;
#else
    (void)l;
    return tr->depth;
#endif
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
    clof_hmcs_qnode_t *succ =
        CLOF_HMCS_OP_(clof_atomicptr_read, LOAD)(&I->next); /* line 50 */
    CLOF_HMCS_F_ACQ_();                                       /* line 51 */
    if (!succ) {
        if (CLOF_HMCS_OP_(clof_atomicptr_cmpxchg, CAS)(
                &L->tail, I, (clof_hmcs_qnode_t *)NULL) == I)
            return;
        succ = CLOF_HMCS_OP_(clof_atomicptr_await_neq, LOAD)(
            &I->next, (clof_hmcs_qnode_t *)NULL); /* line 57 */
    }
    CLOF_HMCS_OP_(clof_atomic64_write_wake, WAKE)(&succ->status, st);
}

/* AcqReal of Fig. 2, unfolded into a loop from the leaf up (then, with
 * the fast path, HELD after the root). */
CLOF_HMCS_TREE_ void clof_hmcs_acquire_tree_(clof_hmcs_t *lk,
                                             clof_hmcs_tree_t *tr,
                                             clof_hmcs_ctx_t *c)
{
    clof_hmcs_hnode_t *L = clof_hmcs_leaf_(tr);
    clof_hmcs_qnode_t *I = &c->q;
    uint32_t taken = 1;
    c->leaf = L;
    for (;;) {
        CLOF_HMCS_OP_(clof_atomic64_write, PLAIN)(&I->status, CLOF_HMCS_WAIT);
        CLOF_HMCS_OP_(clof_atomicptr_write, PLAIN)(&I->next,
                                                   (clof_hmcs_qnode_t *)NULL);
        CLOF_HMCS_F_REL_(); /* lines 15, 28 */
        clof_hmcs_qnode_t *pred;
        if (L->parent == NULL) { /* the root: a plain MCS lock */
            pred = CLOF_HMCS_OP_(clof_atomicptr_xchg, SWAP_ROOT)(&L->tail, I);
            if (CLOF_HMCS_SWAP_ROOT_FACQ_)
                clof_fence_acq();
            if (!pred) {
                CLOF_HMCS_OP_(clof_atomic64_write, PLAIN)(&I->status,
                                                          CLOF_HMCS_UNLOCKED);
            } else {
                CLOF_HMCS_OP_(clof_atomicptr_write_wake, WAKE)(&pred->next, I);
                CLOF_HMCS_OP_(clof_atomic64_await_neq, LOAD)(&I->status,
                                                             CLOF_HMCS_WAIT);
            }
            CLOF_HMCS_F_ACQ_(); /* line 10 */
            if (CLOF_COMPOSE_FAST_)
                clof_compose_fast_take_(clof_hmcs_fast_(lk, tr));
            CLOF_COMPOSE_ON_ACQUIRE(taken);
            return;
        }
        pred = CLOF_HMCS_OP_(clof_atomicptr_xchg, SWAP_INNER)(&L->tail, I);
        if (pred) {
            CLOF_HMCS_OP_(clof_atomicptr_write_wake, WAKE)(&pred->next, I);
            uint64_t st = CLOF_HMCS_OP_(clof_atomic64_await_neq, LOAD)(
                &I->status, CLOF_HMCS_WAIT);
            CLOF_HMCS_F_ACQ_(); /* line 10 or 36 */
            if (st < CLOF_HMCS_ACQUIRE_PARENT) { /* passed inside the cohort */
                CLOF_COMPOSE_ON_ACQUIRE(taken);
                return;
            }
        }
        CLOF_HMCS_OP_(clof_atomic64_write, PLAIN)(&I->status,
                                                  CLOF_HMCS_COHORT_START);
        I = &L->node;
        L = L->parent;
        taken++;
    }
}

/** Acquire the HMCS lock lk, waiting until it is free (wait.h's policy:
 * spin, yield, park): the fast word, else the tree from the caller's leaf
 * up.  c: this acquisition's context, kept until the release. */
CLOF_INLINE void clof_hmcs_acquire(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    /* the tree first in the tree's layout (its fast word is there); only
     * when the fast path fails in the indexed one */
    clof_hmcs_tree_t *tr = CLOF_HMCS_INDEXED_ ? NULL : clof_hmcs_tree_(lk);
    if (CLOF_COMPOSE_FAST_ && clof_compose_fast_try_(clof_hmcs_fast_(lk, tr))) {
        c->leaf = NULL; /* held through the fast path */
        CLOF_COMPOSE_ON_ACQUIRE(clof_hmcs_fast_levels_(lk, tr));
        return;
    }
    if (CLOF_HMCS_INDEXED_)
        tr = clof_hmcs_tree_(lk);
    clof_hmcs_acquire_tree_(lk, tr, c);
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
    CLOF_HMCS_F_REL_(); /* line 44 */
    for (;;) {
        if (L->parent == NULL) { /* root: release it, then unwind */
            if (CLOF_COMPOSE_FAST_) /* HELD first: highest first */
                CLOF_CMP_RELEASE_ORDER_(
                    clof_compose_fast_drop_(clof_hmcs_fast_(
                        lk, clof_hmcs_held_tree_(lk))),
                    clof_hmcs_release_helper_(L, I, CLOF_HMCS_UNLOCKED));
            else
                clof_hmcs_release_helper_(L, I, CLOF_HMCS_UNLOCKED);
            break;
        }
        uint64_t count = CLOF_HMCS_OP_(clof_atomic64_read, PLAIN)(&I->status);
        if (count < L->threshold) {
            clof_hmcs_qnode_t *succ =
                CLOF_HMCS_OP_(clof_atomicptr_read, LOAD)(&I->next); /* 74 */
            CLOF_HMCS_F_ACQ_();                                       /* 75 */
            if (succ) { /* pass inside the cohort */
                CLOF_HMCS_OP_(clof_atomic64_write_wake, WAKE)(&succ->status,
                                                              count + 1);
                break;
            }
        }
        path[n] = L;
        qn[n] = I;
        n++;
        I = &L->node;
        L = L->parent;
    }
    while (n-- > 0) {
        CLOF_HMCS_F_REL_(); /* lines 70, 82 */
        clof_hmcs_release_helper_(path[n], qn[n], CLOF_HMCS_ACQUIRE_PARENT);
    }
}

/** Release the HMCS lock lk, held by the caller with context c: passed
 * inside the lowest cohort whose threshold allows it, else up the tree. */
CLOF_INLINE void clof_hmcs_release(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    if (CLOF_COMPOSE_FAST_ && c->leaf == NULL) {
        clof_compose_fast_release_(
            clof_hmcs_fast_(lk, clof_hmcs_held_tree_(lk)));
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
        CLOF_HMCS_OP_(clof_atomic64_write, PLAIN)(
            &I->status,
            L->parent ? CLOF_HMCS_COHORT_START : CLOF_HMCS_UNLOCKED);
        CLOF_HMCS_OP_(clof_atomicptr_write, PLAIN)(&I->next,
                                                   (clof_hmcs_qnode_t *)NULL);
        CLOF_HMCS_F_REL_(); /* as line 15 */
        /* the CAS takes the level as the SWAP would (its order) */
        if (L->parent == NULL
                ? CLOF_HMCS_OP_(clof_atomicptr_cmpxchg, SWAP_ROOT)(
                      &L->tail, (clof_hmcs_qnode_t *)NULL, I) != NULL
                : CLOF_HMCS_OP_(clof_atomicptr_cmpxchg, SWAP_INNER)(
                      &L->tail, (clof_hmcs_qnode_t *)NULL, I) != NULL)
            break;
        if (L->parent == NULL) {
            if (CLOF_HMCS_SWAP_ROOT_FACQ_)
                clof_fence_acq();
            CLOF_HMCS_F_ACQ_(); /* as line 10 */
            return true;
        }
        path[n] = L;
        qn[n] = I;
        n++;
        I = &L->node;
        L = L->parent;
    }
    /* a level was busy: undo from the top down (successors, if any arrived,
     * are told to acquire the parent themselves) */
    while (n-- > 0) {
        CLOF_HMCS_F_REL_();
        clof_hmcs_release_helper_(path[n], qn[n], CLOF_HMCS_ACQUIRE_PARENT);
    }
    return false;
}

/** Acquire the HMCS lock lk if that needs no waiting: true when it is held
 * with context c, false (nothing held) otherwise. */
CLOF_INLINE bool clof_hmcs_tryacquire(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    if (CLOF_COMPOSE_FAST_) { /* held exactly when HELD is */
        clof_hmcs_tree_t *tr = CLOF_HMCS_INDEXED_ ? NULL : clof_hmcs_tree_(lk);
        if (!clof_compose_fast_try_(clof_hmcs_fast_(lk, tr)))
            return false;
        c->leaf = NULL;
        return true;
    }
    return clof_hmcs_try_tree_(clof_hmcs_tree_(lk), c);
}

/** Whether a thread waits for the HMCS lock lk (for its owner, with its
 * context c): a successor at any level of the owner's path (for a fast
 * owner: a root owner waiting for the fast word). */
CLOF_INLINE bool clof_hmcs_has_waiters(clof_hmcs_t *lk, clof_hmcs_ctx_t *c)
{
    if (CLOF_COMPOSE_FAST_ && c->leaf == NULL) /* a root owner waits */
        return (clof_atomic32_read_rlx(clof_hmcs_fast_(
                    lk, clof_hmcs_held_tree_(lk))) &
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
