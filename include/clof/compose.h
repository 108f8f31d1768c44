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
 * system level down and still works (see the end of this file).  Any basic
 * lock of lock/list.h may sit at any level; high locks must be
 * thread-oblivious (all clof basic locks are).
 *
 * How this file is built (read it in this order):
 *   Part 1, the tables: clof_cmp_basic_<lock> (a basic lock's operations),
 *     clof_<name>_lv<k> (a low level: its basic lock and the level above)
 *     and clof_<name>_front (the composition: depth, fast path, node sizes
 *     and initialisers, level 0).  All constant.
 *   Part 2, the generic code: ordinary functions, one per operation --
 *     clof_cmp_level_{acquire,tryacquire,release,has_waiters} (CLoF(l, L)
 *     above), clof_cmp_top_* (the system level and the fast word),
 *     clof_cmp_{acquire,tryacquire,release,has_waiters} (the front) and
 *     clof_cmp_build (the tree).  This is the code a reader reads and a
 *     debugger steps through.
 *   Part 3, the generator: CLOF_CMP_TOP_, CLOF_CMP_LEVEL_ and
 *     CLOF_CMP_FRONT_ only declare a level's node and context types, fill
 *     its table and define its functions as one-line calls of Part 2:
 *     clof_<name>_acq<k>(node, ctx) is clof_cmp_level_acquire(
 *     &clof_<name>_lv<k>, &node->lock, &node->m, ctx, &node->high_ctx).
 * The generic functions are always inlined (CLOF_INLINE) with constant
 * tables, so every table entry is a direct call, inlined in turn: level k's
 * "acquire the level above" is lv->high.acquire == clof_<name>_acq<k+1>.
 * The recursion over the levels unfolds at compile time and an optimised
 * build has no indirect call and no table left (the same instructions as
 * the former one-macro generator: docs/clof.md, "Reading and debugging a
 * composition", has the callgrind counts and a gdb session).  Built with
 * -O0 the tables stay and the calls through them are real calls.
 * The hooks (CLOF_COMPOSE_ON_ACQUIRE, CLOF_COMPOSE_TREE_REUSE/_RETIRE,
 * CLOF_COMPOSE_THRESHOLD: hier/levels.h; CLOF_COMPOSE_NO_FAST_PATH,
 * CLOF_COMPOSE_SWAPPED_RELEASE, CLOF_CMP_RELEASE_ORDER_: hier/fast.h) are
 * read by Part 2, so they are defined before this header is included.
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
 * that changes only when the system lock changes hands.  A fast owner delays
 * the system-level owner by at most one critical section; queued waiters are
 * bypassed while the system lock is free: bounded in time (docs/clof.md).
 * Define CLOF_COMPOSE_NO_FAST_PATH for the paper's lock exactly (the
 * simulator and clof-bench can compare both).  One-level compositions have
 * no fast path; the abortable cohort locks (numa/acohort.h) take HELD by
 * their deadline (clof_compose_fast_take_until_: on timeout the TOPWAIT it
 * set is withdrawn and the system lock given up).
 *
 * The fast word in the lock (an includer's layout, as numa/hmcs.h's): by
 * default the lock is the tree's pointer and the fast word is the tree's.
 * An includer that defines CLOF_COMPOSE_TREE_AT(ix) and
 * CLOF_COMPOSE_TREE_INDEX(tr) before including this header gets a lock of
 * two 32-bit words instead: the fast word itself and the tree's index (0:
 * no tree yet).  CLOF_COMPOSE_TREE_INDEX(tr) gives a built tree an index
 * (>= 1, kept in tr->ix for the tree's life: the includer registers a tree
 * once, also when it reuses it through CLOF_COMPOSE_TREE_REUSE) and
 * CLOF_COMPOSE_TREE_AT(ix) gives it back.  The fast path then touches the
 * lock's own word alone, and the tree is built at the first acquisition
 * that needs it; the system level's node points at the lock's fast word
 * (set when the tree is installed in a lock, and again when the lock is
 * found moved to another address: clof_cmp_bind_).  The
 * preload library uses it for the compositions and the cohort locks, whose
 * mutexes hold the lock: with the word on the tree's line every
 * uncontended acquisition moved that line as well as the mutex's.  The
 * algorithm and the orders are the same; the index is published as the
 * pointer is (a seq_cst CAS after the tree's plain initialisation; an
 * acquire read before the tree is used).  The checker verifies this layout
 * too (clients "clof.*.index", "c-bo-mcs.index":
 * verify/clients_compose_index.c).  destroy frees the
 * tree; an includer that keeps trees in its table retires them instead.
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
/** \file
 * The CLoF lock generator: a lock of 1 to 5 levels from one line.
 *
 * Any basic lock (lock/list.h) may sit at any level of the runtime
 * topology:
 *
 *     CLOF_COMPOSE(clh_mcs_tkt, clh, mcs, ticket)
 *
 * declares clof_clh_mcs_tkt_t (CLH at the lowest level, MCS in the middle,
 * ticket at the system level) with the interface of every clof lock
 * (lock.h: init, acquire, tryacquire, release, has_waiters) plus init_topo,
 * destroy and desc (see CLOF_COMPOSE).
 * Link libclof (the topology).  The algorithm, the fast path, the memory
 * orders and how the generator is built: the comment at the top of the
 * header.  Its tables and generic code (clof_cmp_*) are internal.
 */
#ifndef CLOF_COMPOSE_H
#define CLOF_COMPOSE_H

#include <clof/lock/list.h>
#include <clof/hier/fast.h>
#include <clof/hier/levels.h>
#include <clof/topology.h>

#include <stdlib.h>
#include <string.h>

/* Whether the basic lock B is FIFO (its CLOF_<ID>_FAIR), for a
 * composition's descriptor: clof_cmp_fair_<B>_, one per row of the registry
 * (lock/list.h). */
#define CLOF_CMP_FAIR_(B, NAME) enum { clof_cmp_fair_##B##_ = CLOF_##NAME##_FAIR };
CLOF_BASIC_LOCKS(CLOF_CMP_FAIR_)
#undef CLOF_CMP_FAIR_

/* generated functions: a declared lock need not use all of them */
#define CLOF_GEN_ static inline __attribute__((unused))
/* the constant tables (folded away where the functions are inlined) */
#define CLOF_CMP_TABLE_ static const __attribute__((unused))

/* =========================================================================
 * Part 1: the tables.  The generic code below sees a basic lock, a level
 * and a composition through these; every table is a constant, and the
 * generic functions are always inlined with it, so each entry is a direct
 * call, inlined in turn (no indirect call is left in an optimised build).
 * ========================================================================= */

/* A basic lock as a level of a composition uses it: its operations on a
 * (lock, context) pair, typed void * for the table.  One per basic lock of
 * lock/list.h: clof_cmp_basic_<lock> (below). */
typedef struct {
    const char *name;
    bool native_hw; /* has a native has_waiters (else the level counts) */
    void (*init)(void *lock);
    void (*acquire)(void *lock, void *ctx);
    bool (*tryacquire)(void *lock, void *ctx);
    void (*release)(void *lock, void *ctx);
    bool (*has_waiters)(void *lock, void *ctx);
} clof_cmp_basic_t;

/* The operations of one level of a composition over (node, context): those
 * of the level above, as a low level calls them (clof_<name>_acq<k> and
 * friends, generated below). */
typedef struct {
    uint32_t (*acquire)(void *node, void *ctx);  /* levels acquired */
    bool (*tryacquire)(void *node, void *ctx);
    void (*release)(void *node, void *ctx);
    bool (*has_waiters)(void *node, void *ctx);
} clof_cmp_ops_t;

/* A low level (below the system level): its basic lock and the level
 * above it.  clof_<name>_lv<k>. */
typedef struct {
    uint32_t k; /* 0 = lowest */
    const clof_cmp_basic_t *basic;
    clof_cmp_ops_t high;
} clof_cmp_level_t;

/* The metadata of the CLoF paper that a low level's node adds to its basic
 * lock (§4.1): touched only by the owner of that lock, except `waiters`. */
typedef struct {
    clof_atomic32_t waiters; /* only when the lock has no native has_waiters */
    uint32_t passed;         /* has_high_lock: set by the previous owner */
    uint32_t count;          /* consecutive local passes */
    uint32_t threshold;      /* keep_local bound */
    void *high;              /* the parent node (clof_<name>_l<k+1>_t) */
} clof_cmp_meta_t;

/* The tree of a composed lock: per level, an array of nodes (one per cohort
 * of the topology level it maps to). */
typedef struct {
    const clof_topology_t *topo;
    uint32_t nlev;
    uint32_t lvl[CLOF_TOPO_MAX_LEVELS];     /* topology level of each level */
    uint32_t ncoh[CLOF_TOPO_MAX_LEVELS];    /* nodes per level */
    void *nodes[CLOF_TOPO_MAX_LEVELS];      /* arrays of clof_<name>_l<k>_t */
    uint32_t ix; /* the includer's index of the tree, 0: none (below) */
    clof_atomic32_t *bound; /* the fast word the system level's node points
                               at (indexed layout; clof_cmp_bind_) */
    clof_atomic32_t fast CLOF_CACHE_ALIGNED; /* the fast path's word (in
                                                the tree's layout) */
} clof_compose_tree_t;
/* The lock's own words (the lock is this and nothing else).  The tree's
 * layout (the default): the tree's pointer, NULL until built, and the fast
 * word is the tree's.  The indexed layout ("The fast word in the lock",
 * above): the fast word itself and the tree's index. */
#if defined(CLOF_COMPOSE_TREE_AT) && defined(CLOF_COMPOSE_TREE_INDEX)
#define CLOF_CMP_INDEXED_ 1
typedef struct {
    clof_atomic32_t fast; /* the fast path's word */
    clof_atomic32_t ix;   /* the tree's index, 0: not built yet */
} clof_compose_treep_t;
#define CLOF_CMP_TREEP_INIT_ {CLOF_ATOMIC32_INIT(0), CLOF_ATOMIC32_INIT(0)}
#else
#define CLOF_CMP_INDEXED_ 0
typedef CLOF_ATOMICPTR(clof_compose_tree_t) clof_compose_treep_t;
#define CLOF_CMP_TREEP_INIT_ CLOF_ATOMICPTR_INIT(NULL)
#endif

#define CLOF_CMP_MAX_LEVELS_ 5
/* A composition: what its front (the user-facing lock) and its tree
 * builder need.  clof_<name>_front. */
typedef struct {
    const char *name;
    uint32_t nlev;
    bool fast;                        /* has the fast path */
    const clof_level_kind_t *prefer;  /* preferred level kinds, or NULL */
    size_t node_size[CLOF_CMP_MAX_LEVELS_];
    /* initialise one node; `high`: its parent node (the top: the fast word,
     * or NULL) */
    void (*node_init[CLOF_CMP_MAX_LEVELS_])(void *node, uint32_t threshold,
                                            void *high);
    clof_cmp_ops_t low;               /* level 0, over the leaf */
    const void *(*tree_kind)(void);   /* for CLOF_COMPOSE_TREE_REUSE */
    /* the first use of an all-zero lock: clof_<name>_lazy_ (clof_cmp_lazy) */
    clof_compose_tree_t *(*lazy)(clof_compose_treep_t *tree);
    /* the tree paths behind the fast path, out of line (see clof_cmp_acquire) */
    void (*acquire_slow)(clof_compose_treep_t *tree, void *c0, void **leaf);
    /* c0: the first member of the lock's context, so the context's address */
    void (*release_slow)(void *c0);
    /* point the system level's node at the fast word (the indexed layout:
     * the lock's; clof_cmp_bind_) */
    void (*bind)(void *top, clof_atomic32_t *fast);
} clof_cmp_front_t;

/* ---- the basic locks' tables: clof_cmp_basic_<lock> ---- */
#define CLOF_CMP_BASIC_(B, NAME)                                               \
    CLOF_INLINE void clof_cmp_##B##_init_(void *l)                             \
    { clof_##B##_init((clof_##B##_t *)l); }                                    \
    CLOF_INLINE void clof_cmp_##B##_acquire_(void *l, void *c)                 \
    { clof_##B##_acquire((clof_##B##_t *)l, (clof_##B##_ctx_t *)c); }          \
    CLOF_INLINE bool clof_cmp_##B##_tryacquire_(void *l, void *c)              \
    { return clof_##B##_tryacquire((clof_##B##_t *)l, (clof_##B##_ctx_t *)c); } \
    CLOF_INLINE void clof_cmp_##B##_release_(void *l, void *c)                 \
    { clof_##B##_release((clof_##B##_t *)l, (clof_##B##_ctx_t *)c); }          \
    CLOF_INLINE bool clof_cmp_##B##_has_waiters_(void *l, void *c)             \
    { return clof_##B##_has_waiters((clof_##B##_t *)l, (clof_##B##_ctx_t *)c); } \
    CLOF_CMP_TABLE_ clof_cmp_basic_t clof_cmp_basic_##B = {                    \
        #B, CLOF_##NAME##_NATIVE_HW, clof_cmp_##B##_init_,                     \
        clof_cmp_##B##_acquire_, clof_cmp_##B##_tryacquire_,                   \
        clof_cmp_##B##_release_, clof_cmp_##B##_has_waiters_};
CLOF_BASIC_LOCKS(CLOF_CMP_BASIC_)

/* =========================================================================
 * Part 2: the generic code -- ordinary functions, one per operation of a
 * level, of the system level and of the front; a debugger steps through
 * them (docs/clof.md, "Reading and debugging a composition").
 * ========================================================================= */

/* ---- a low level k: CLoF(l, L) of the paper, l = lock, L = the level above */
/* init: a zeroed node, its lock, its threshold and its parent */
static inline void clof_cmp_level_init(const clof_cmp_level_t *lv, void *node,
                                       size_t size, void *lock,
                                       clof_cmp_meta_t *m, uint32_t threshold,
                                       void *high)
{
    memset(node, 0, size);
    lv->basic->init(lock);
    m->threshold = threshold ? threshold : CLOF_COMPOSE_THRESHOLD;
    m->high = high;
}
/* acquire: returns the number of levels acquired (1 = this one only) */
CLOF_INLINE uint32_t clof_cmp_level_acquire(const clof_cmp_level_t *lv,
                                            void *lock, clof_cmp_meta_t *m,
                                            void *c, void *high_ctx)
{
    if (!lv->basic->native_hw)
        clof_atomic32_inc_rlx(&m->waiters);
    lv->basic->acquire(lock, c);
    if (!lv->basic->native_hw)
        clof_atomic32_dec_rlx(&m->waiters);
    if (m->passed) /* the previous owner kept the high lock for us */
        return 1;
    return 1 + lv->high.acquire(m->high, high_ctx);
}
CLOF_INLINE bool clof_cmp_level_tryacquire(const clof_cmp_level_t *lv,
                                           void *lock, clof_cmp_meta_t *m,
                                           void *c, void *high_ctx)
{
    if (!lv->basic->tryacquire(lock, c))
        return false;
    if (m->passed || lv->high.tryacquire(m->high, high_ctx))
        return true;
    lv->basic->release(lock, c);
    return false;
}
/* has_waiters of this level's lock alone */
CLOF_INLINE bool clof_cmp_level_lowhw(const clof_cmp_level_t *lv, void *lock,
                                      clof_cmp_meta_t *m, void *c)
{
    return lv->basic->native_hw ? lv->basic->has_waiters(lock, c)
                                : clof_atomic32_read_rlx(&m->waiters) != 0;
}
CLOF_INLINE void clof_cmp_level_release(const clof_cmp_level_t *lv,
                                        void *lock, clof_cmp_meta_t *m,
                                        void *c, void *high_ctx)
{
    if (clof_cmp_level_lowhw(lv, lock, m, c) && ++m->count < m->threshold) {
        m->passed = 1; /* pass_high_lock: keep it in the cohort */
        lv->basic->release(lock, c);
        return;
    }
    m->count = 0;
    m->passed = 0; /* clear_high_lock */
    /* the context invariant: the high lock first (hier/fast.h) */
    CLOF_CMP_RELEASE_ORDER_(lv->high.release(m->high, high_ctx),
                            lv->basic->release(lock, c));
}
CLOF_INLINE bool clof_cmp_level_has_waiters(const clof_cmp_level_t *lv,
                                            void *lock, clof_cmp_meta_t *m,
                                            void *c, void *high_ctx)
{
    return clof_cmp_level_lowhw(lv, lock, m, c) ||
           lv->high.has_waiters(m->high, high_ctx);
}

/* ---- the system level: its basic lock, then (with the fast path) the fast
 * word, `fast` (NULL without one) */
static inline void clof_cmp_top_init(const clof_cmp_basic_t *b, void *lock,
                                     clof_atomic32_t **fastp, void *fast)
{
    b->init(lock);
    *fastp = (clof_atomic32_t *)fast;
}
CLOF_INLINE uint32_t clof_cmp_top_acquire(const clof_cmp_basic_t *b,
                                          void *lock, clof_atomic32_t *fast,
                                          void *c)
{
    b->acquire(lock, c);
    if (fast)
        clof_compose_fast_take_(fast);
    return 1;
}
CLOF_INLINE bool clof_cmp_top_tryacquire(const clof_cmp_basic_t *b,
                                         void *lock, clof_atomic32_t *fast,
                                         void *c)
{
    if (!b->tryacquire(lock, c))
        return false;
    if (!fast || clof_compose_fast_try_(fast))
        return true;
    b->release(lock, c);
    return false;
}
CLOF_INLINE void clof_cmp_top_release(const clof_cmp_basic_t *b, void *lock,
                                      clof_atomic32_t *fast, void *c)
{
    if (fast)
        CLOF_CMP_RELEASE_ORDER_(clof_compose_fast_drop_(fast),
                                b->release(lock, c));
    else
        b->release(lock, c);
}
CLOF_INLINE bool clof_cmp_top_has_waiters(const clof_cmp_basic_t *b,
                                          void *lock, void *c)
{
    return b->has_waiters(lock, c);
}

/* ---- the front: the tree over the topology, the fast path ---- */
/* a zeroed tree (cache-line aligned: the fast word has its own line) */
static inline clof_compose_tree_t *clof_compose_tree_new_(void)
{
    clof_compose_tree_t *tr = (clof_compose_tree_t *)CLOF_TREE_ALLOC(
        CLOF_CACHELINE, sizeof(clof_compose_tree_t));
    if (tr)
        memset(tr, 0, sizeof *tr);
    return tr;
}
static inline void clof_cmp_free_tree(clof_compose_tree_t *tr)
{
    for (uint32_t k = 0; k < CLOF_TOPO_MAX_LEVELS; k++)
        CLOF_TREE_FREE(tr->nodes[k]);
    CLOF_TREE_FREE(tr);
}
/* Fill tree `tr` for composition f over topology t: 0, or -1 when `levels`
 * do not fit t or memory is short (free what was allocated with
 * clof_cmp_free_tree). */
static inline int clof_cmp_build(const clof_cmp_front_t *f,
                                 clof_compose_tree_t *tr,
                                 const clof_topology_t *t,
                                 const uint32_t *levels)
{
    const uint32_t n = f->nlev, top = n - 1;
    uint32_t ix = tr->ix; /* a tree keeps its index (indexed layout) */
    memset(tr, 0, sizeof *tr);
    tr->ix = ix;
    tr->topo = t;
    tr->nlev = n;
    uint32_t pref[CLOF_CMP_MAX_LEVELS_];
    if (!levels && clof_compose_prefer_(t, n, f->prefer, pref))
        levels = pref;
    if (clof_compose_levels_(t, n, levels, tr->lvl) != 0)
        return -1;
    for (uint32_t k = 0; k < n; k++)
        tr->ncoh[k] = k == top ? 1 : clof_topo_ncohorts(t, tr->lvl[k]);
    for (uint32_t k = n; k-- > 0;) { /* the system level first */
        size_t sz = f->node_size[k] * tr->ncoh[k];
        sz = (sz + CLOF_CACHELINE - 1) / CLOF_CACHELINE * CLOF_CACHELINE;
        tr->nodes[k] = CLOF_TREE_ALLOC(CLOF_CACHELINE, sz);
        if (!tr->nodes[k])
            return -1;
    }
    f->node_init[top](tr->nodes[top], 0, f->fast ? (void *)&tr->fast : NULL);
    for (uint32_t k = top; k-- > 0;) { /* link each node to its parent */
        char *nodes = (char *)tr->nodes[k], *up = (char *)tr->nodes[k + 1];
        for (uint32_t c = 0; c < tr->ncoh[k]; c++) {
            uint32_t p = tr->lvl[k] == tr->lvl[k + 1]
                             ? c
                             : clof_compose_parent_(t, tr->lvl[k], c,
                                                    tr->lvl[k + 1]);
            f->node_init[k](nodes + (size_t)c * f->node_size[k],
                            clof_topo_threshold(t, tr->lvl[k]),
                            up + (size_t)p * f->node_size[k + 1]);
        }
    }
    return 0;
}
/* The lock's tree if built, else NULL.  The acquire (a publication access,
 * atomic.h) orders the reader after the plain stores that built the tree:
 * relaxed, a thread that finds the tree another thread has just installed
 * could read its nodes uninitialised (a data race in C11).  The model
 * checker does not model plain memory, so it cannot judge this order and
 * never weakens it (its clients build the tree before the threads start). */
CLOF_INLINE clof_compose_tree_t *clof_cmp_tree_if_(clof_compose_treep_t *tree)
{
#if CLOF_CMP_INDEXED_
    uint32_t ix = clof_atomic32_read_acq(&tree->ix);
    return ix != 0 ? (clof_compose_tree_t *)CLOF_COMPOSE_TREE_AT(ix)
                   : (clof_compose_tree_t *)NULL;
#else
    return clof_atomicptr_read_pub(tree);
#endif
}
/* The indexed layout: point the system level's node at the fast word of
 * the lock `tree` (plain stores).  When a tree is installed in a lock
 * (published with it by the index's CAS or release store; a reused tree
 * is pointed again: its last lock was destroyed, so nobody reads the old
 * pointer any more -- a releaser reads it before it drops the fast word,
 * and the lock's destruction follows that drop), and when a lock is found
 * at another address than its tree's `bound` (clof_cmp_leaf: a mutex
 * moved while unlocked and idle, e.g. by realloc of the structure that
 * holds it).  After a move the threads that find it so are the lock's
 * first users at its new address, and they all write the same values;
 * without the rebinding the moved lock's system level would take the old
 * address's fast word: no exclusion, and a write to freed memory. */
static inline void clof_cmp_bind_(const clof_cmp_front_t *f,
                                  clof_compose_treep_t *tree,
                                  clof_compose_tree_t *tr)
{
#if CLOF_CMP_INDEXED_
    if (f->fast) {
        f->bind(tr->nodes[f->nlev - 1], &tree->fast);
        tr->bound = &tree->fast;
    }
#else
    (void)f, (void)tree, (void)tr;
#endif
}
/* Install the built tree `tr` in an all-zero lock: NULL, or the tree
 * another thread installed first (then `tr` is not installed).  The
 * indexed layout binds it to the lock first (clof_cmp_bind_). */
static inline clof_compose_tree_t *clof_cmp_install_(const clof_cmp_front_t *f,
                                                     clof_compose_treep_t *tree,
                                                     clof_compose_tree_t *tr)
{
#if CLOF_CMP_INDEXED_
    clof_cmp_bind_(f, tree, tr);
    uint32_t old = clof_atomic32_cmpxchg(&tree->ix, 0, CLOF_COMPOSE_TREE_INDEX(tr));
    return old != 0 ? (clof_compose_tree_t *)CLOF_COMPOSE_TREE_AT(old)
                    : (clof_compose_tree_t *)NULL;
#else
    (void)f;
    return clof_atomicptr_cmpxchg_pub(tree, (clof_compose_tree_t *)NULL, tr);
#endif
}
/* an all-zero lock (no tree; the fast word clear) */
static inline void clof_cmp_init_(clof_compose_treep_t *tree)
{
#if CLOF_CMP_INDEXED_
    clof_atomic32_write_rlx(&tree->fast, 0);
    clof_atomic32_write_rlx(&tree->ix, 0);
#else
    clof_atomicptr_write_rlx(tree, (clof_compose_tree_t *)NULL);
#endif
}
/* 0, or -1 when levels do not fit the topology or memory is short */
static inline int clof_cmp_init_topo(const clof_cmp_front_t *f,
                                     clof_compose_treep_t *tree,
                                     const clof_topology_t *t,
                                     const uint32_t *levels)
{
    clof_compose_tree_t *tr = clof_compose_tree_new_();
    if (!tr)
        return -1;
    if (clof_cmp_build(f, tr, t, levels) != 0) {
        clof_cmp_free_tree(tr);
        return -1;
    }
#if CLOF_CMP_INDEXED_
    clof_atomic32_write_rlx(&tree->fast, 0);
    clof_cmp_bind_(f, tree, tr);
    clof_atomic32_write_rel(&tree->ix, CLOF_COMPOSE_TREE_INDEX(tr));
#else
    clof_atomicptr_write_pub(tree, tr);
#endif
    return 0;
}
/* free the lock's tree (an includer that keeps trees in its table retires
 * them instead: the preload library does) */
static inline void clof_cmp_destroy(clof_compose_treep_t *tree)
{
    clof_compose_tree_t *tr = clof_cmp_tree_if_(tree);
    if (tr)
        clof_cmp_free_tree(tr);
    clof_cmp_init_(tree);
}
/* First use of an all-zero lock: a retired tree (if the user recycles
 * them), else one built over the process topology.  Called out of line
 * through f->lazy (clof_<name>_lazy_, one argument: the fast paths that may
 * call it then keep as few registers as without a table). */
static inline clof_compose_tree_t *clof_cmp_lazy(const clof_cmp_front_t *f,
                                                 clof_compose_treep_t *tree)
{
    const void *kind = f->tree_kind();
    clof_compose_tree_t *tr =
        (clof_compose_tree_t *)CLOF_COMPOSE_TREE_REUSE(kind);
    bool reused = tr != NULL;
    if (!reused) {
        tr = clof_compose_tree_new_();
        if (!tr || clof_cmp_build(f, tr, clof_topology(), NULL) != 0)
            abort(); /* out of memory at first use */
    }
    clof_compose_tree_t *old = clof_cmp_install_(f, tree, tr);
    if (old) {
        /* an indexed tree is the includer's for good: retired, never freed */
        if (reused || CLOF_CMP_INDEXED_)
            CLOF_COMPOSE_TREE_RETIRE(tr, kind);
        else
            clof_cmp_free_tree(tr);
        return old;
    }
    return tr;
}
/* the tree (built at the first use) */
CLOF_INLINE clof_compose_tree_t *clof_cmp_tree(const clof_cmp_front_t *f,
                                               clof_compose_treep_t *tree)
{
    clof_compose_tree_t *tr = clof_cmp_tree_if_(tree);
    if (CLOF_UNLIKELY(tr == NULL))
        tr = f->lazy(tree);
    return tr;
}
/* The fast word: the lock's (indexed layout: no tree is built for it) or
 * its tree's (built at the first use). */
CLOF_INLINE clof_atomic32_t *clof_cmp_fastw_(const clof_cmp_front_t *f,
                                             clof_compose_treep_t *tree)
{
#if CLOF_CMP_INDEXED_
    (void)f;
    return &tree->fast;
#else
    return &clof_cmp_tree(f, tree)->fast;
#endif
}
/* ... of a lock held through it (the tree's layout: its tree is built, a
 * relaxed read of the pointer suffices) */
CLOF_INLINE clof_atomic32_t *clof_cmp_held_fastw_(clof_compose_treep_t *tree)
{
#if CLOF_CMP_INDEXED_
    return &tree->fast;
#else
    return &clof_atomicptr_read_rlx(tree)->fast;
#endif
}
/* the calling cpu's node of level 0 */
CLOF_INLINE void *clof_cmp_leaf(const clof_cmp_front_t *f,
                                clof_compose_treep_t *tree)
{
    clof_compose_tree_t *tr = clof_cmp_tree(f, tree);
#if CLOF_CMP_INDEXED_
    if (f->fast && CLOF_UNLIKELY(tr->bound != &tree->fast))
        clof_cmp_bind_(f, tree, tr); /* the lock moved (clof_cmp_bind_) */
#endif
    uint32_t cpu = clof_current_cpu();
    uint32_t leaf = f->nlev == 1 ? 0 : clof_topo_cohort(tr->topo, cpu, tr->lvl[0]);
    return (char *)tr->nodes[0] + (size_t)leaf * f->node_size[0];
}
/* Through the tree, level by level from the leaf: f->low.acquire is
 * clof_<name>_acq0, which calls clof_<name>_acq1, ... up to the system
 * level.  The context keeps the leaf for the release. */
CLOF_INLINE void clof_cmp_acquire_tree(const clof_cmp_front_t *f,
                                       clof_compose_treep_t *tree, void *c0,
                                       void **leafp)
{
    void *leaf = clof_cmp_leaf(f, tree);
    *leafp = leaf;
    uint32_t taken = f->low.acquire(leaf, c0);
    (void)taken;
    CLOF_COMPOSE_ON_ACQUIRE(taken);
}
/* The fast word first (one CAS when the lock is free); else the tree, out
 * of line (f->acquire_slow: clof_<name>_acquire_slow_, so that the fast
 * path saves no registers).  Without the fast path: the tree, inline. */
CLOF_INLINE void clof_cmp_acquire(const clof_cmp_front_t *f,
                                  clof_compose_treep_t *tree, void *c0,
                                  void **leafp)
{
    if (f->fast) {
        if (clof_compose_fast_try_(clof_cmp_fastw_(f, tree))) {
            *leafp = NULL; /* held through the fast path */
            CLOF_COMPOSE_ON_ACQUIRE(f->nlev);
            return;
        }
        f->acquire_slow(tree, c0, leafp);
        return;
    }
    clof_cmp_acquire_tree(f, tree, c0, leafp);
}
CLOF_INLINE bool clof_cmp_tryacquire(const clof_cmp_front_t *f,
                                     clof_compose_treep_t *tree, void *c0,
                                     void **leafp)
{
    if (f->fast) { /* held exactly when the fast word is */
        if (!clof_compose_fast_try_(clof_cmp_fastw_(f, tree)))
            return false;
        *leafp = NULL;
        return true;
    }
    void *leaf = clof_cmp_leaf(f, tree);
    if (!f->low.tryacquire(leaf, c0))
        return false;
    *leafp = leaf;
    return true;
}
/* (leafp, not the leaf: the out-of-line release reads it again, so that
 * the fast path keeps no register for it) */
CLOF_INLINE void clof_cmp_release(const clof_cmp_front_t *f,
                                  clof_compose_treep_t *tree, void *c0,
                                  void *const *leafp)
{
    if (f->fast) {
        if (*leafp == NULL)
            clof_compose_fast_release_(clof_cmp_held_fastw_(tree));
        else
            f->release_slow(c0);
        return;
    }
    f->low.release(*leafp, c0);
}
CLOF_INLINE bool clof_cmp_has_waiters(const clof_cmp_front_t *f,
                                      clof_compose_treep_t *tree, void *c0,
                                      void *leaf)
{
    if (f->fast && leaf == NULL) /* a system-level owner waits */
        return (clof_atomic32_read_rlx(clof_cmp_held_fastw_(tree)) &
                CLOF_CMP_TOPWAIT_) != 0;
    return f->low.has_waiters(leaf, c0);
}

/* =========================================================================
 * Part 3: the generator -- short macros that only name types, fill the
 * tables and forward to Part 2, one line per function.
 * ========================================================================= */

/* node n (void *) of level k of composition N, typed */
#define CLOF_CMP_NODE_(N, k, n) ((clof_##N##_l##k##_t *)(n))
/* the table entries of level k's functions */
#define CLOF_CMP_OPS_(N, k)                                                    \
    {clof_##N##_acq##k, clof_##N##_try##k, clof_##N##_rel##k, clof_##N##_hw##k}

/* The top (system) level k: the basic lock B alone, and the fast word.
 * Its node_init's `high` is the fast word (the top has no high lock);
 * bind_top_ is the front's bind: the node's fast word (the indexed
 * layout). */
#define CLOF_CMP_TOP_(N, k, B)                                                 \
    typedef struct {                                                           \
        clof_##B##_t lock;                                                     \
        clof_atomic32_t *fast; /* the fast path's word, or NULL */             \
    } CLOF_CACHE_ALIGNED clof_##N##_l##k##_t;                                  \
    typedef clof_##B##_ctx_t clof_##N##_c##k##_t;                              \
    CLOF_GEN_ void clof_##N##_node_init##k(void *n, uint32_t threshold,        \
                                           void *high)                         \
    {                                                                          \
        (void)threshold;                                                       \
        clof_cmp_top_init(&clof_cmp_basic_##B, &CLOF_CMP_NODE_(N, k, n)->lock, \
                          &CLOF_CMP_NODE_(N, k, n)->fast, high);               \
    }                                                                          \
    CLOF_GEN_ void clof_##N##_bind_top_(void *n, clof_atomic32_t *fast)        \
    {                                                                          \
        CLOF_CMP_NODE_(N, k, n)->fast = fast;                                  \
    }                                                                          \
    CLOF_INLINE uint32_t clof_##N##_acq##k(void *n, void *c)                   \
    {                                                                          \
        return clof_cmp_top_acquire(&clof_cmp_basic_##B,                      \
                                    &CLOF_CMP_NODE_(N, k, n)->lock,            \
                                    CLOF_CMP_NODE_(N, k, n)->fast, c);         \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_try##k(void *n, void *c)                       \
    {                                                                          \
        return clof_cmp_top_tryacquire(&clof_cmp_basic_##B,                    \
                                       &CLOF_CMP_NODE_(N, k, n)->lock,         \
                                       CLOF_CMP_NODE_(N, k, n)->fast, c);      \
    }                                                                          \
    CLOF_INLINE void clof_##N##_rel##k(void *n, void *c)                       \
    {                                                                          \
        clof_cmp_top_release(&clof_cmp_basic_##B,                              \
                             &CLOF_CMP_NODE_(N, k, n)->lock,                   \
                             CLOF_CMP_NODE_(N, k, n)->fast, c);                \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_hw##k(void *n, void *c)                        \
    {                                                                          \
        return clof_cmp_top_has_waiters(&clof_cmp_basic_##B,                  \
                                        &CLOF_CMP_NODE_(N, k, n)->lock, c);    \
    }

/* A low level k whose high lock is level k1 (declared before it). */
#define CLOF_CMP_LEVEL_(N, k, k1, B)                                           \
    typedef struct {                                                           \
        clof_##B##_t lock;                                                     \
        clof_cmp_meta_t m;                                                     \
        clof_##N##_c##k1##_t high_ctx CLOF_CACHE_ALIGNED;                      \
    } CLOF_CACHE_ALIGNED clof_##N##_l##k##_t;                                  \
    typedef clof_##B##_ctx_t clof_##N##_c##k##_t;                              \
    CLOF_CMP_TABLE_ clof_cmp_level_t clof_##N##_lv##k = {                      \
        k, &clof_cmp_basic_##B, CLOF_CMP_OPS_(N, k1)};                         \
    /* the arguments of every generic call: the table and the node's parts */ \
    CLOF_GEN_ void clof_##N##_node_init##k(void *n, uint32_t threshold,        \
                                           void *high)                         \
    {                                                                          \
        clof_cmp_level_init(&clof_##N##_lv##k, n, sizeof(clof_##N##_l##k##_t), \
                            &CLOF_CMP_NODE_(N, k, n)->lock,                    \
                            &CLOF_CMP_NODE_(N, k, n)->m, threshold, high);     \
    }                                                                          \
    CLOF_INLINE uint32_t clof_##N##_acq##k(void *n, void *c)                   \
    {                                                                          \
        return clof_cmp_level_acquire(CLOF_CMP_LEVEL_ARGS_(N, k, n, c));       \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_try##k(void *n, void *c)                       \
    {                                                                          \
        return clof_cmp_level_tryacquire(CLOF_CMP_LEVEL_ARGS_(N, k, n, c));    \
    }                                                                          \
    CLOF_INLINE void clof_##N##_rel##k(void *n, void *c)                       \
    {                                                                          \
        clof_cmp_level_release(CLOF_CMP_LEVEL_ARGS_(N, k, n, c));              \
    }                                                                          \
    CLOF_INLINE bool clof_##N##_hw##k(void *n, void *c)                        \
    {                                                                          \
        return clof_cmp_level_has_waiters(CLOF_CMP_LEVEL_ARGS_(N, k, n, c));   \
    }
#define CLOF_CMP_LEVEL_ARGS_(N, k, n, c)                                       \
    &clof_##N##_lv##k, &CLOF_CMP_NODE_(N, k, n)->lock,                         \
        &CLOF_CMP_NODE_(N, k, n)->m, c, &CLOF_CMP_NODE_(N, k, n)->high_ctx

/* The nodes of levels 0..n-1, for the front's table (sizes, then inits). */
#define CLOF_CMP_NODES_1_(N)                                                   \
    {sizeof(clof_##N##_l0_t)}, {clof_##N##_node_init0}
#define CLOF_CMP_NODES_2_(N)                                                   \
    {sizeof(clof_##N##_l0_t), sizeof(clof_##N##_l1_t)},                        \
        {clof_##N##_node_init0, clof_##N##_node_init1}
#define CLOF_CMP_NODES_3_(N)                                                   \
    {sizeof(clof_##N##_l0_t), sizeof(clof_##N##_l1_t),                         \
     sizeof(clof_##N##_l2_t)},                                                 \
        {clof_##N##_node_init0, clof_##N##_node_init1, clof_##N##_node_init2}
#define CLOF_CMP_NODES_4_(N)                                                   \
    {sizeof(clof_##N##_l0_t), sizeof(clof_##N##_l1_t),                         \
     sizeof(clof_##N##_l2_t), sizeof(clof_##N##_l3_t)},                        \
        {clof_##N##_node_init0, clof_##N##_node_init1, clof_##N##_node_init2,  \
         clof_##N##_node_init3}
#define CLOF_CMP_NODES_5_(N)                                                   \
    {sizeof(clof_##N##_l0_t), sizeof(clof_##N##_l1_t),                         \
     sizeof(clof_##N##_l2_t), sizeof(clof_##N##_l3_t),                         \
     sizeof(clof_##N##_l4_t)},                                                 \
        {clof_##N##_node_init0, clof_##N##_node_init1, clof_##N##_node_init2,  \
         clof_##N##_node_init3, clof_##N##_node_init4}

/* The user-facing lock over the tree (levels 0..NLEV-1 declared before it):
 * its types, its table clof_<name>_front, and the interface of every clof
 * lock (lock.h), each function one call of Part 2.  FAST: 1 for the fast
 * path, 0 without. */
#define CLOF_CMP_FRONT_(N, P, NLEV, FAIR, FAST)                                \
    typedef struct {                                                           \
        clof_compose_treep_t tree;                                             \
    } clof_##N##_t;                                                            \
    typedef struct {                                                           \
        clof_##N##_c0_t c0;                                                    \
        void *leaf; /* the leaf (clof_<name>_l0_t) locked at acquire */        \
    } clof_##N##_ctx_t;                                                        \
    /* the kind of this lock's trees, for CLOF_COMPOSE_TREE_REUSE */           \
    CLOF_GEN_ const void *clof_##N##_tree_kind_(void)                          \
    {                                                                          \
        static const char kind_ = 0;                                           \
        return &kind_;                                                         \
    }                                                                          \
    CLOF_CMP_OUTLINE_ void clof_##N##_acquire_slow_(clof_compose_treep_t *t,   \
                                                    void *c0, void **leaf);    \
    CLOF_CMP_OUTLINE_ void clof_##N##_release_slow_(void *c0);                 \
    CLOF_SLOW clof_compose_tree_t *clof_##N##_lazy_(clof_compose_treep_t *t);  \
    CLOF_CMP_TABLE_ clof_cmp_front_t clof_##N##_front = {                      \
        #N, NLEV, FAST, P, CLOF_CMP_NODES_##NLEV##_(N), CLOF_CMP_OPS_(N, 0),   \
        clof_##N##_tree_kind_, clof_##N##_lazy_, clof_##N##_acquire_slow_,     \
        clof_##N##_release_slow_, clof_##N##_bind_top_};                       \
    CLOF_SLOW clof_compose_tree_t *clof_##N##_lazy_(clof_compose_treep_t *t)   \
    { return clof_cmp_lazy(&clof_##N##_front, t); }                            \
    CLOF_CMP_OUTLINE_ void clof_##N##_acquire_slow_(clof_compose_treep_t *t,   \
                                                    void *c0, void **leaf)     \
    { clof_cmp_acquire_tree(&clof_##N##_front, t, c0, leaf); }                 \
    CLOF_CMP_OUTLINE_ void clof_##N##_release_slow_(void *c0)                  \
    { clof_##N##_rel0(((clof_##N##_ctx_t *)c0)->leaf, c0); }                   \
    CLOF_CMP_FRONT_API_(N, FAIR)

/* The lock interface of the front (lock.h), each function one call. */
#define CLOF_CMP_FRONT_API_(N, FAIR)                                           \
    CLOF_GEN_ int clof_##N##_build_(clof_compose_tree_t *tr,                   \
                                    const clof_topology_t *t,                  \
                                    const uint32_t *levels)                    \
    { return clof_cmp_build(&clof_##N##_front, tr, t, levels); }               \
    CLOF_GEN_ void clof_##N##_free_tree_(clof_compose_tree_t *tr)             \
    { clof_cmp_free_tree(tr); }                                                \
    CLOF_GEN_ int clof_##N##_init_topo(clof_##N##_t *l,                        \
                                       const clof_topology_t *t,               \
                                       const uint32_t *levels)                 \
    { return clof_cmp_init_topo(&clof_##N##_front, &l->tree, t, levels); }     \
    CLOF_GEN_ void clof_##N##_init(clof_##N##_t *l)                           \
    { clof_cmp_init_(&l->tree); }                                              \
    CLOF_GEN_ void clof_##N##_destroy(clof_##N##_t *l)                        \
    { clof_cmp_destroy(&l->tree); }                                            \
    CLOF_INLINE clof_##N##_l0_t *clof_##N##_leaf_(clof_##N##_t *l)             \
    { return (clof_##N##_l0_t *)clof_cmp_leaf(&clof_##N##_front, &l->tree); }  \
    CLOF_INLINE clof_atomic32_t *clof_##N##_fastw_(clof_##N##_t *l)            \
    { return clof_cmp_fastw_(&clof_##N##_front, &l->tree); }                   \
    CLOF_INLINE void clof_##N##_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c)  \
    { clof_cmp_acquire(&clof_##N##_front, &l->tree, &c->c0, &c->leaf); }       \
    CLOF_INLINE bool clof_##N##_tryacquire(clof_##N##_t *l,                    \
                                           clof_##N##_ctx_t *c)                \
    { return clof_cmp_tryacquire(&clof_##N##_front, &l->tree, &c->c0, &c->leaf); } \
    CLOF_INLINE void clof_##N##_release(clof_##N##_t *l, clof_##N##_ctx_t *c)  \
    { clof_cmp_release(&clof_##N##_front, &l->tree, &c->c0, &c->leaf); }       \
    CLOF_INLINE bool clof_##N##_has_waiters(clof_##N##_t *l,                   \
                                            clof_##N##_ctx_t *c)               \
    { return clof_cmp_has_waiters(&clof_##N##_front, &l->tree, &c->c0, c->leaf); } \
    CLOF_GEN_ clof_lock_desc_t clof_##N##_desc(void)                           \
    {                                                                          \
        clof_lock_desc_t d = {#N,  FAIR, true, true, true,                     \
                              sizeof(clof_##N##_t), sizeof(clof_##N##_ctx_t)}; \
        return d;                                                              \
    }

/* Recycling of trees: CLOF_COMPOSE_TREE_REUSE / _RETIRE, hier/levels.h. */

/** Static initializer of an unlocked composed lock: its tree is built at
 *  the first use, over the process topology (clof_topology). */
#define CLOF_COMPOSED_INITIALIZER {CLOF_CMP_TREEP_INIT_}

/* ---- depths 1..5 (arguments from the system level down) ---- */
#define CLOF_LOCK_1_(N, P, B0)                                                 \
    CLOF_CMP_TOP_(N, 0, B0)                                                    \
    CLOF_CMP_FRONT_(N, P, 1, clof_cmp_fair_##B0##_, 0)
#define CLOF_LOCK_2_(N, P, B1, B0)                                             \
    CLOF_CMP_TOP_(N, 1, B1)                                                    \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 2, clof_cmp_fair_##B1##_ && clof_cmp_fair_##B0##_,   \
                    CLOF_COMPOSE_FAST_)
#define CLOF_LOCK_3_(N, P, B2, B1, B0)                                         \
    CLOF_CMP_TOP_(N, 2, B2)                                                    \
    CLOF_CMP_LEVEL_(N, 1, 2, B1)                                               \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 3, clof_cmp_fair_##B2##_ && clof_cmp_fair_##B1##_ && clof_cmp_fair_##B0##_, \
                    CLOF_COMPOSE_FAST_)
#define CLOF_LOCK_4_(N, P, B3, B2, B1, B0)                                     \
    CLOF_CMP_TOP_(N, 3, B3)                                                    \
    CLOF_CMP_LEVEL_(N, 2, 3, B2)                                               \
    CLOF_CMP_LEVEL_(N, 1, 2, B1)                                               \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 4,                                                   \
                    clof_cmp_fair_##B3##_ && clof_cmp_fair_##B2##_ && clof_cmp_fair_##B1##_ && \
                        clof_cmp_fair_##B0##_,                                 \
                    CLOF_COMPOSE_FAST_)
#define CLOF_LOCK_5_(N, P, B4, B3, B2, B1, B0)                                 \
    CLOF_CMP_TOP_(N, 4, B4)                                                    \
    CLOF_CMP_LEVEL_(N, 3, 4, B3)                                               \
    CLOF_CMP_LEVEL_(N, 2, 3, B2)                                               \
    CLOF_CMP_LEVEL_(N, 1, 2, B1)                                               \
    CLOF_CMP_LEVEL_(N, 0, 1, B0)                                               \
    CLOF_CMP_FRONT_(N, P, 5,                                                   \
                    clof_cmp_fair_##B4##_ && clof_cmp_fair_##B3##_ && clof_cmp_fair_##B2##_ && \
                        clof_cmp_fair_##B1##_ && clof_cmp_fair_##B0##_,        \
                    CLOF_COMPOSE_FAST_)

/* ---- the same, arguments from the lowest level up (as a name reads) ---- */
#define CLOF_COMPOSE_1_(N, P, B0) CLOF_LOCK_1_(N, P, B0)
#define CLOF_COMPOSE_2_(N, P, B0, B1) CLOF_LOCK_2_(N, P, B1, B0)
#define CLOF_COMPOSE_3_(N, P, B0, B1, B2) CLOF_LOCK_3_(N, P, B2, B1, B0)
#define CLOF_COMPOSE_4_(N, P, B0, B1, B2, B3) CLOF_LOCK_4_(N, P, B3, B2, B1, B0)
#define CLOF_COMPOSE_5_(N, P, B0, B1, B2, B3, B4)                              \
    CLOF_LOCK_5_(N, P, B4, B3, B2, B1, B0)

#define CLOF_CMP_PICK_(_1, _2, _3, _4, _5, M, ...) M
/** Declare the composed lock N of 1 to 5 basic locks, the lowest level's
 * first.
 *
 * CLOF_COMPOSE(name, lowest_lock, ..., system_lock) lists the basic locks
 * in the order of the composition's name (the paper's: lowest level
 * first); CLOF_COMPOSE(tkt_mcs_clh, ticket, mcs, clh) is tkt-mcs-clh:
 * ticket at the lowest level, CLH at the system level.
 *
 * It declares, for N = name:
 *   - clof_N_t, the lock: all-zero bytes (CLOF_COMPOSED_INITIALIZER) are an
 *     unlocked lock whose tree is built at the first use over the process
 *     topology (clof_topology());
 *   - clof_N_ctx_t, the per-acquisition context (valid when zero-filled);
 *   - the interface of every clof lock (lock.h): void clof_N_init(clof_N_t *),
 *     void clof_N_acquire(clof_N_t *, clof_N_ctx_t *), bool
 *     clof_N_tryacquire(...), void clof_N_release(...), bool
 *     clof_N_has_waiters(...);
 *   - int clof_N_init_topo(l, t, levels): build the tree of l over the
 *     topology t now, on the levels given (n ascending level indices, the
 *     last the system level) or, with levels NULL, on the n-1 lowest
 *     levels and the system level; 0, or -1 when the levels do not fit t
 *     or memory is short;
 *   - void clof_N_destroy(clof_N_t *): free the tree (the lock is all-zero
 *     again);
 *   - clof_lock_desc_t clof_N_desc(void): its descriptor (lock.h).
 *
 * The numa/cohort.h and rw/list.h pages show such declarations. */
#define CLOF_COMPOSE(N, ...)                                                   \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_COMPOSE_5_, CLOF_COMPOSE_4_,              \
                   CLOF_COMPOSE_3_, CLOF_COMPOSE_2_, CLOF_COMPOSE_1_,          \
                   none)(N, NULL, __VA_ARGS__)
/** CLOF_COMPOSE on preferred levels.
 *
 * As CLOF_COMPOSE, preferring the hierarchy levels whose kinds the array P
 * (of clof_level_kind_t, n entries, lowest first, system last) names; when
 * the hierarchy lacks one of them the default choice applies.  The cohort locks
 * use it to sit on the NUMA level. */
#define CLOF_COMPOSE_ON(N, P, ...)                                             \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_COMPOSE_5_, CLOF_COMPOSE_4_,              \
                   CLOF_COMPOSE_3_, CLOF_COMPOSE_2_, CLOF_COMPOSE_1_,          \
                   none)(N, P, __VA_ARGS__)

/** The old spelling of CLOF_COMPOSE: the basic locks from the system level
 * down.
 *
 * CLOF_LOCK(name, system_lock, ..., lowest_lock) lists the levels from the
 * system level down (the reverse of the name); CLOF_LOCK_ON likewise.
 * New code: CLOF_COMPOSE.  (CLOF_LOCK is also the preload library's
 * environment variable, unrelated to this.) */
#define CLOF_LOCK(N, ...)                                                      \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_LOCK_5_, CLOF_LOCK_4_, CLOF_LOCK_3_,      \
                   CLOF_LOCK_2_, CLOF_LOCK_1_, none)(N, NULL, __VA_ARGS__)
/** The old spelling of CLOF_COMPOSE_ON: the levels from the system level
 *  down. */
#define CLOF_LOCK_ON(N, P, ...)                                                \
    CLOF_CMP_PICK_(__VA_ARGS__, CLOF_LOCK_5_, CLOF_LOCK_4_, CLOF_LOCK_3_,      \
                   CLOF_LOCK_2_, CLOF_LOCK_1_, none)(N, P, __VA_ARGS__)

#endif /* CLOF_COMPOSE_H */
