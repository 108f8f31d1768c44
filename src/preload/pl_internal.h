/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_internal.h -- the shared internals of libclof-preload.so.
 *
 * Layout of the library:
 *   pl_config.c what CLOF_LOCK and CLOF_STATS select (string work only)
 *   pl_core.c   configuration (the environment), the lazy start-up,
 *               glibc's real functions (dlvsym), the per-thread state and
 *               its recycling, the memory pools (contexts, lock blocks),
 *               fork handling, the CLOF_STATS summary, introspection
 *   pl_mutex.c  the lock table: for every lock the pthread_mutex_* ops,
 *               generated from one template; the exported mutex symbols
 *   pl_cond.c   the condition variable (a FIFO queue of waiters, each
 *               parked on its own futex word) and its exported symbols
 *   pl_profile.c the profiling mode (CLOF_PROFILE, pl_profile.h): per-lock
 *               counts, waits and call sites, written for `clof profile`
 *
 * See docs/preload.md for the user's view and the design decisions.
 */
#ifndef CLOF_PRELOAD_INTERNAL_H
#define CLOF_PRELOAD_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define PL_HIDDEN __attribute__((visibility("hidden")))
#define PL_EXPORT __attribute__((visibility("default")))
#define PL_TLS __thread __attribute__((tls_model("initial-exec")))

/* glibc's first symbol version on this architecture (the default version
 * of the mutex functions; preload-<arch>.map lists the versions).  Other
 * architectures export unversioned symbols, which interpose on every
 * version. */
#if defined(__x86_64__)
#define PL_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define PL_GLIBC_BASE "GLIBC_2.17"
#endif

/* Hooks of the clof headers, defined before they are included: every park
 * of a lock wait is counted (always: one thread-local increment on the
 * sleeping path), and with CLOF_STATS=1 the levels a hierarchical lock had
 * to take at each blocking acquisition. */
#define PL_MAX_LEVELS 8
extern PL_TLS uint64_t pl_parks PL_HIDDEN;
extern PL_TLS uint64_t pl_levels[PL_MAX_LEVELS] PL_HIDDEN;
extern bool pl_stats_on PL_HIDDEN;
/* One line on stderr: no stdio locks, no allocation (pl_core.c). */
void pl_say(const char *fmt, ...) PL_HIDDEN __attribute__((format(printf, 1, 2)));
/* glibc's function `name` at the first of `versions` (NULL-terminated) it
 * has, else its default version (pl_core.c). */
void *pl_sym(const char *name, const char *const *versions) PL_HIDDEN;
static inline void pl_on_acquire_levels(uint32_t taken)
{
    if (__builtin_expect(pl_stats_on, 0))
        pl_levels[taken < PL_MAX_LEVELS ? taken : PL_MAX_LEVELS - 1]++;
}
#define CLOF_WAIT_ON_PARK() (pl_parks++)
#define CLOF_COMPOSE_ON_ACQUIRE(taken) pl_on_acquire_levels(taken)
/* Trees of destroyed mutexes that may not be freed are kept and reused as
 * they are (pl_core.c, "retired trees"; compose.h's hook): the first lock of
 * a mutex takes one before it builds a new tree. */
extern size_t pl_trees_nfree PL_HIDDEN;
PL_HIDDEN void pl_tree_retire(void *tree, const void *kind);
PL_HIDDEN void *pl_tree_reuse_slow(const void *kind);
static inline void *pl_tree_reuse(const void *kind)
{
    if (__atomic_load_n(&pl_trees_nfree, __ATOMIC_RELAXED) == 0)
        return NULL;
    return pl_tree_reuse_slow(kind);
}
#define CLOF_COMPOSE_TREE_REUSE(kind) pl_tree_reuse(kind)
#define CLOF_COMPOSE_TREE_RETIRE(tr, kind) pl_tree_retire((tr), (kind))
/* pthread_mutex_destroy of a lock with a tree (HMCS, the cohort locks, the
 * abortable cohort locks, the compositions): the tree goes to the retired
 * ones, never to free().  Freeing it would be wrong twice over: a tree may
 * hold nodes in use elsewhere (a CLH lowest level's nodes serve as the
 * contexts' queue nodes; A-C-BO-CLH's idle tail may hold a node that its
 * releaser is still writing), and a thread that released the system level
 * may still be releasing the lower levels when another thread takes the
 * mutex (fast path or another cohort), releases it and destroys it -- which
 * POSIX allows (a mutex may be destroyed as soon as it is unlocked; glibc's
 * unlock touches nothing after its release for that reason).  A retired tree
 * stays valid memory; its next user starts from its state as it is.
 * `kind` is the lock's clof_<name>_tree_kind_(): the kind of the tree. */
#define PL_RETIRE_TREE(l, kind)                                                \
    do {                                                                       \
        uint32_t i_ = clof_atomic32_xchg(&(l)->tree.ix, 0);                    \
        if (i_ != 0)                                                           \
            pl_tree_retire(PL_TREE_AT(i_), (kind));                            \
    } while (0)

/* HMCS, the compositions and the cohort locks keep their fast word in the
 * mutex (hmcs.h and compose.h, "The fast word in the lock"): the lock is
 * that word and its tree's index in a table of trees (pl_core.c), 8 bytes
 * in place.  With the word on the tree's line every uncontended
 * acquisition moved that line too.  Trees keep their index for good: they
 * are retired and reused (PL_RETIRE_TREE, pl_retire_hmcs below), never
 * freed, so the table only grows with the most trees ever alive at once.
 * Every translation unit of the library includes this file before any
 * clof header, so all of them see the same layout. */
PL_HIDDEN void *pl_tree_alloc(size_t align, size_t size);
PL_HIDDEN void pl_tree_free(void *p);
#define CLOF_TREE_ALLOC(align, size) pl_tree_alloc((align), (size))
#define CLOF_TREE_FREE(p) pl_tree_free(p)
#define PL_TREE_CHUNK_SHIFT 12u /* tree pointers per chunk: 2^12 (32 KiB) */
#define PL_TREE_CHUNKS (1u << 16) /* chunks: 2^28 trees */
extern void **pl_tree_chunks[PL_TREE_CHUNKS] PL_HIDDEN;
PL_HIDDEN uint32_t pl_tree_index(void *tree, uint32_t *ix);
#define PL_TREE_AT(i)                                                          \
    (pl_tree_chunks[(i) >> PL_TREE_CHUNK_SHIFT][(i) & ((1u << PL_TREE_CHUNK_SHIFT) - 1u)])
#define CLOF_COMPOSE_TREE_AT(i) PL_TREE_AT(i)
#define CLOF_COMPOSE_TREE_INDEX(tr) pl_tree_index((tr), &(tr)->ix)
#include <clof/lock/list.h>
#include <clof/numa/cna.h>
#include <clof/numa/cohort.h>
#define CLOF_HMCS_TREE_AT(i) ((clof_hmcs_tree_t *)PL_TREE_AT(i))
#define CLOF_HMCS_TREE_INDEX(tr) pl_tree_index((tr), &(tr)->ix)
#include <clof/numa/hmcs.h>
#include "pl_compositions.h"

/* ---- the lock table ---------------------------------------------------------
 * Every lock the library can run; each is one line.  A lock listed here has
 * the one lock interface of clof (include/clof/lock.h), zero bytes are an
 * unlocked lock, and it is thread-oblivious.  pl_lock_tmpl.h generates its
 * ops, the box (context) union grows to fit its context, CLOF_LOCK finds it
 * by its name (pl_name_<id>); pl_destroy_<id>(lock) frees what the lock
 * built at its first use (its tree) at pthread_mutex_destroy.
 *
 * Basic locks: X(name, NAME), with the descriptor macros CLOF_<NAME>_*. */
#define PL_BASIC_LOCKS(X) CLOF_LOCK_REGISTRY(PL_BASIC_ROW_, X)
#define PL_BASIC_ROW_(X, id, ID, ...) PL_CALL_(X, PL_ROW_ID_(id), PL_ROW_ID_(ID))
/* CLH in the library is clh.h's embedding variant, not clof_clh_t: in a
 * pthread_mutex_t, memory the program frees, a node that circulates among
 * threads cannot live.  CLOF_CLH_LEAN(clh_pl, ...) declares clof_clh_pl_t,
 * the tail alone, 8 bytes in the mutex like MCS; its first acquisition
 * takes a node from a pool (pl_core.c), and pthread_mutex_destroy gives
 * back the node the idle tail holds (pl_destroy_clh_pl_).  It takes CLH's
 * row in the library's lists (PL_ROW_ID_: the C names of a row's lock in
 * the library, the registry's own but for CLH's) under CLH's name
 * (PL_ROW_NAME_).  A CLH level of a composition is clof_clh_t, its first
 * node in the tree, which is reused as it is (never freed). */
PL_HIDDEN clof_clh_node_t *pl_clh_node_get(void);
PL_HIDDEN void pl_clh_node_put(clof_clh_node_t *node);
CLOF_CLH_LEAN(clh_pl, pl_clh_node_get);
#define CLOF_CLH_PL_FAIR CLOF_CLH_FAIR
#define CLOF_CLH_PL_NATIVE_HW CLOF_CLH_NATIVE_HW
#define CLOF_CLH_PL_ZERO_INIT CLOF_CLH_ZERO_INIT
#define CLOF_CLH_PL_THREAD_OBLIVIOUS CLOF_CLH_THREAD_OBLIVIOUS
/* PL_SECOND_(PL_ROW_ID_<id>, id, ~): "~, other" where a PL_ROW_ID_<id> line
 * below names another, else the id itself (PL_ROW_ID_<id> stays one word) */
#define PL_SECOND_(...) PL_SECOND_OF_(__VA_ARGS__)
#define PL_SECOND_OF_(a, b, ...) b
#define PL_CALL_(X, ...) X(__VA_ARGS__) /* X of the expanded arguments */
#define PL_ROW_ID_(id) PL_SECOND_(PL_ROW_ID_##id, id, ~)
#define PL_ROW_ID_clh ~, clh_pl
#define PL_ROW_ID_CLH ~, CLH_PL
#define PL_ROW_NAME_(id) PL_SECOND_(PL_ROW_NAME_##id, #id, ~)
#define PL_ROW_NAME_clh_pl ~, "clh"
#define PL_BASIC_NAMED_(name, NAME)                                            \
    static const char pl_name_##name[] __attribute__((unused)) = PL_ROW_NAME_(name); \
    static const char pl_name_asl_##name[] __attribute__((unused)) = "asl:" PL_ROW_NAME_(name); \
    static const char pl_name_cr_##name[] __attribute__((unused)) = "cr:" PL_ROW_NAME_(name); \
    static inline void pl_destroy_##name(clof_##name##_t *l) { PL_BASIC_DESTROY_(l); }
/* pthread_mutex_destroy of a CLH lock in place: its idle tail's node back
 * to the pool (the mutex is unlocked and nobody waits: the node is nobody's
 * but the lock's, clh.h).  Its releaser may still be finishing its release
 * (reading the tail, checking the parking table for the node's address):
 * reads, and a spurious wake-up at worst for the node's next user. */
static inline void pl_destroy_clh_pl_(clof_clh_pl_t *l)
{
    clof_clh_node_t *n = clof_clh_pl_idle_node(l);
    if (n != NULL) {
        clof_clh_pl_init(l);
        pl_clh_node_put(n);
    }
}
static inline void pl_destroy_nothing_(void *l) { (void)l; }
/* what pthread_mutex_destroy does for a basic lock in place: nothing, but
 * for CLH */
#define PL_BASIC_DESTROY_(l) _Generic((l), clof_clh_pl_t *: pl_destroy_clh_pl_, default: pl_destroy_nothing_)(l)
PL_BASIC_LOCKS(PL_BASIC_NAMED_)
/* Locks over the machine's hierarchy: the process topology (CLOF_TOPOLOGY,
 * CLOF_EMULATE or sysfs) is loaded at start-up for them.
 * X(id, _): the second argument is whatever the list that names the lock
 * passes (the lists of cohort.h and of tools/gen_compositions.py);
 * pl_levels_<id>: the lock counts the levels each acquisition took
 * (compose.h's hook: HMCS, the cohort locks, the compositions; not CNA,
 * which has no levels).  Nothing
 * is destroyed where nothing is allocated (CNA's queue nodes are the
 * threads' contexts); trees are retired for reuse (PL_RETIRE_TREE), never
 * freed.  The CLoF compositions come from pl_compositions.h. */
#define pl_no_destroy(l) ((void)(l))
#define PL_NUMA_NAMED_(id, str, destroy, levels)                               \
    enum { pl_levels_##id = levels };                                          \
    static const char pl_name_##id[] __attribute__((unused)) = str;            \
    static const char pl_name_asl_##id[] __attribute__((unused)) = "asl:" str; \
    static const char pl_name_cr_##id[] __attribute__((unused)) = "cr:" str; \
    static inline void pl_destroy_##id(clof_##id##_t *l) { destroy(l); }
static inline void pl_retire_hmcs(clof_hmcs_t *l)
{
    uint32_t i = clof_atomic32_xchg(&l->tree, 0);
    if (i != 0)
        pl_tree_retire(CLOF_HMCS_TREE_AT(i), clof_hmcs_tree_kind_());
}
PL_NUMA_NAMED_(hmcs, "hmcs", pl_retire_hmcs, 1)
PL_NUMA_NAMED_(cna, "cna", pl_no_destroy, 0)
#define PL_COHORT_NAMED_(id, str)                                              \
    static inline void pl_retire_##id(clof_##id##_t *l) { PL_RETIRE_TREE(l, clof_##id##_tree_kind_()); } \
    PL_NUMA_NAMED_(id, str, pl_retire_##id, 1)
CLOF_COHORT_LOCKS(PL_COHORT_NAMED_)
#define PL_NAMED_NUMA_LOCKS(X)                                                 \
    X(hmcs, HMCS)                                                              \
    X(cna, CNA)                                                                \
    CLOF_COHORT_LOCKS(X)
/* The abortable cohort locks (numa/acohort.h): pthread_mutex_timedlock and
 * _clocklock wait in the lock (clof_<id>_acquire_until) and give up at the
 * deadline.  A-C-BO-CLH takes its queue nodes from per-thread pools of
 * libclof that malloc when empty (a thread's first acquisitions): not for
 * programs whose malloc takes pthread mutexes. */
#include <clof/numa/acohort.h>
/* Their trees are retired too (PL_RETIRE_TREE): after a global release
 * whose CAS of the tail lost to an arrival that then aborted, A-C-BO-CLH's
 * idle tail holds the releaser's node (RELEASED_GLOBAL, or still being
 * written by the releaser finishing its unlock) until the next arrival
 * recycles it; freeing the tree lost that node (the leak of issue 17), and
 * putting the node into a pool could hand it out while the releaser still
 * writes to it.  Reused as it is, the tree's next arrival recycles it. */
CLOF_ABORTABLE_COHORT_LOCKS(PL_COHORT_NAMED_)
#define PL_ABORTABLE_LOCKS(X) CLOF_ABORTABLE_COHORT_LOCKS(X)
#define PL_NUMA_LOCKS(X) PL_NAMED_NUMA_LOCKS(X) PL_ABORTABLE_LOCKS(X) PL_COMPOSITIONS(X)

/* The reorderable locks of LibASL (include/clof/asl.h), CLOF_LOCK=asl:<lock>
 * over every lock above: clof_asl_<id> for each id of PL_BASIC_LOCKS and
 * PL_NUMA_LOCKS.  They are locks of their own (own ops, own table entries),
 * so the fast paths of the other locks do not change.  The core type of the
 * calling cpu comes from the process topology, loaded at start-up for them
 * as for the hierarchical locks. */
#include <clof/asl.h>
#define PL_ASL_DECLARE_(id, _)                                                 \
    CLOF_ASL_LOCK(asl_##id, id)                                                \
    static inline void pl_destroy_asl_##id(clof_asl_##id##_t *l) { pl_destroy_##id(&l->base); }
PL_BASIC_LOCKS(PL_ASL_DECLARE_)
PL_NUMA_LOCKS(PL_ASL_DECLARE_)

/* ---- the mutex as this library sees it -------------------------------------
 * Overlays pthread_mutex_t (40 bytes on x86-64).  The fields at glibc's
 * offsets of __owner (8) and __kind (16) keep glibc's meaning, so the static
 * initializers (all zero, or only a type in __kind) and debuggers read
 * them as they expect. */
typedef struct pl_box pl_box_t;
#define PL_COUNT_BITS 24 /* the recursion depth's bits; the rest of its word: crnum */
typedef struct {
    union {
        uint64_t raw;               /* in place: the lock itself (<= 8 bytes) */
        CLOF_ATOMICPTR(void) blk;   /* otherwise: its block (NULL until first use) */
    } lk;                           /*  0 */
    clof_atomic32_t owner;          /*  8: holder's tid, 0 when free */
    uint32_t count : PL_COUNT_BITS; /* 12: recursion depth (recursive type) */
    uint32_t crnum : 32 - PL_COUNT_BITS; /* 15: a cr: lock's release number
                                       (holder only: PL_CR_NUMBER_) */
    clof_atomic32_t kind;           /* 16: glibc's __kind */
    clof_atomic32_t tw_waiters;     /* 20: threads in pthread_mutex_timedlock
                                       (next to kind: unlock tests both at once) */
    CLOF_ATOMICPTR(pl_box_t) box;   /* 24: context of the current holder */
    clof_atomic32_t tw_seq;         /* 32: the timed waiters' futex word */
    clof_atomic32_t last;           /* 36: tid of the previous holder (CLOF_STATS);
                                       a cr: lock's block index and mirror bit
                                       instead (pl_cr_block below) */
} pl_mutex_t;

/* the deepest recursion of a recursive mutex (then EAGAIN, as POSIX allows) */
#define PL_COUNT_MAX ((1u << PL_COUNT_BITS) - 1u)

_Static_assert(sizeof(pl_mutex_t) <= sizeof(pthread_mutex_t),
               "pl_mutex_t must fit in pthread_mutex_t");
_Static_assert(offsetof(pl_mutex_t, kind) == 16, "__kind is at offset 16");
_Static_assert(offsetof(pl_mutex_t, tw_waiters) == 20, "kind and tw_waiters share 8 bytes");

/* Concurrency restriction (include/clof/cr.h), CLOF_LOCK=cr:<lock> over
 * every lock above: clof_cr_<id>, locks of their own as the asl: ones.
 * The layer's counts (passive waits, admissions by a grant) go to the
 * CLOF_STATS line through its hooks (pl_core.c). */
PL_HIDDEN void pl_cr_count(int what); /* pl_core.c, slow paths only */
#define CLOF_CR_ON_PASSIVE(s) ((void)(s), pl_stats_on ? pl_cr_count(-1) : (void)0)
#define CLOF_CR_ON_ADMIT(s, granted)                                           \
    ((void)(s), pl_stats_on && (granted) ? pl_cr_count(1) : (void)0)
#define CLOF_CR_ON_LIMIT(s, on)                                                \
    ((void)(s), pl_stats_on ? pl_cr_count((on) ? 2 : 3) : (void)0)
#define CLOF_CR_ON_GROW(s) ((void)(s), pl_stats_on ? pl_cr_count(4) : (void)0)
#include <clof/cr.h>
/* The layer's state of a cr: lock whose inner lock fits in the mutex: a
 * block of its own, installed at the mutex's first contended acquisition
 * (or first count under CLOF_STATS) and freed at pthread_mutex_destroy.
 * The mutex's `last` holds the block's index (bits 1-31; 0: none yet) and,
 * in bit 0, the mirror of "passive threads wait" (cr.h, MIRROR) that the
 * release's fast path reads: the uncontended lock and unlock touch the
 * mutex alone, as the plain lock's do (LevelDB lost 5-15% to a lock in a
 * block of its own, docs/cr.md).  An index, not a pointer: `last` is the
 * only spare word, 32 bits.  CLOF_STATS's previous holder, which `last`
 * holds for the other locks, moves into the block. */
typedef struct {
    clof_cr_t cr;
    uint32_t last; /* CLOF_STATS: tid of the previous holder */
} __attribute__((aligned(CLOF_CACHELINE))) pl_cr_block_t;
/* blocks per chunk: 2^12 (256 KiB: the library's reserve can hold one
 * when mmap fails, pl_core.c) */
#define PL_CR_CHUNK_SHIFT 12u
#define PL_CR_CHUNKS (1u << 16) /* chunks: 2^28 indices in all */
extern pl_cr_block_t *pl_cr_chunks[PL_CR_CHUNKS] PL_HIDDEN;
/* the block of index i (1 .. pl_cr_block_install's highest) */
static inline pl_cr_block_t *pl_cr_at(uint32_t i)
{
    return &pl_cr_chunks[i >> PL_CR_CHUNK_SHIFT][i & ((1u << PL_CR_CHUNK_SHIFT) - 1)];
}
/* pl_core.c: install a block in m (under the global lock; a zero or
 * unknown index is replaced, a valid one returned) and free it at destroy */
PL_HIDDEN pl_cr_block_t *pl_cr_block_install(pl_mutex_t *m);
PL_HIDDEN void pl_cr_block_free(pl_mutex_t *m);
extern uint32_t pl_cr_top PL_HIDDEN; /* the next never-used index */
/* the block of m, installed if it has none -- or if its index is beyond
 * every block (memory that was not a zeroed or initialised mutex: a new
 * block rather than a wild read; the install rechecks under the lock) */
static inline pl_cr_block_t *pl_cr_block(pl_mutex_t *m)
{
    uint32_t i = clof_atomic32_read_acq(&m->last) >> 1;
    if (CLOF_UNLIKELY(i - 1u >= __atomic_load_n(&pl_cr_top, __ATOMIC_RELAXED) - 1u))
        return pl_cr_block_install(m);
    return pl_cr_at(i);
}
/* cr.h's accessors over a cr: lock that lives at the start of its mutex */
#define PL_CR_MUTEX_(l) ((pl_mutex_t *)(void *)(l))
#define PL_CR_BASE_(l) (&(l)->base)
#define PL_CR_STATE_(l) (&pl_cr_block(PL_CR_MUTEX_(l))->cr)
#define PL_CR_HINT_(l) (clof_atomic32_read_rlx(&PL_CR_MUTEX_(l)->last) & 1u)
#define PL_CR_MIRROR_(l) (&PL_CR_MUTEX_(l)->last)
/* The release number (cr.h, NUMBER: the periodic grant) modulo 256, in the
 * mutex: only holders write it, as they write the recursion depth beside
 * it, on the line they hold anyway.  Kept in the block, its write at every
 * release while passive threads waited moved the block's line between cpus
 * at every hand-over: 0.73x glibc at T = 16 on 2 vCPUs against 0.94x
 * without it (docs/cr.md). */
/* (an assignment's value is the bit-field's after it: wrapped) */
#define PL_CR_NUMBER_(l) ((uint32_t)(PL_CR_MUTEX_(l)->crnum = PL_CR_MUTEX_(l)->crnum + 1u))
_Static_assert(CLOF_CR_ADMIT_EVERY <= (1u << (32 - PL_COUNT_BITS)),
               "the mutex keeps the release number modulo 256 (CLOF_CR_ADMIT_EVERY)");
/* cr: over an inner lock of 8 bytes or less (its row says WORD): the inner
 * lock in the mutex, the state in a block (pl_crblock_<id> = 1) */
#define PL_CR_WORD_(id, _)                                                    \
    typedef struct {                                                           \
        clof_##id##_t base;                                                    \
    } clof_cr_##id##_t;                                                        \
    _Static_assert(sizeof(clof_cr_##id##_t) <= 8 && _Alignof(clof_cr_##id##_t) <= 8, \
                   "cr:" #id ": the inner lock does not fit in the mutex"); \
    enum { pl_crblock_cr_##id = 1 };                                           \
    CLOF_CR_CTX(cr_##id, id)                                                   \
    CLOF_CR_FUNCTIONS(cr_##id, id, PL_CR_BASE_, PL_CR_STATE_, PL_CR_HINT_,     \
                      PL_CR_MIRROR_, PL_CR_NUMBER_)                            \
    static inline void pl_destroy_cr_##id(clof_cr_##id##_t *l)                 \
    {                                                                          \
        pl_destroy_##id(&l->base);                                             \
        pl_cr_block_free(PL_CR_MUTEX_(l));                                     \
    }
/* cr: over a larger inner lock (its row says BLOCK: ptl): the state beside
 * it, both in the lock block (pl_crblock_<id> = 0) */
#define PL_CR_BLOCK_(id, _)                                                   \
    CLOF_CR_LOCK(cr_##id, id)                                                  \
    enum { pl_crblock_cr_##id = 0 };                                           \
    static inline void pl_destroy_cr_##id(clof_cr_##id##_t *l) { pl_destroy_##id(&l->base); }
/* every basic lock by its registry row's fit (clof/lock/list.h) */
#define PL_CR_OF_ROW_(X, id, ID, fit, ...) PL_CALL_(PL_CR_##fit##_, PL_ROW_ID_(id), PL_ROW_ID_(ID))
CLOF_LOCK_REGISTRY(PL_CR_OF_ROW_, ~)
PL_NUMA_LOCKS(PL_CR_WORD_)

/* Locks withdrawn from the library: built and tested, but not offered to
 * programs.  CLOF_LOCK naming one of them (or asl: over it) says so in one
 * line and the program runs on glibc's mutexes, unless CLOF_ALLOW_WITHDRAWN=1
 * (for the project's own tests and soak runs).
 *   a-c-bo-clh: it hung twice under this library on 2026-11-21 (two waiters
 *     polling queue nodes whose owner was gone, one thread releasing the
 *     node another had just enqueued) and the cause was not found: the
 *     model checker, random-delay stress of the algorithm with a checking
 *     node pool and soak runs did not reproduce it (docs/reliability.md).
 *     A lock that may hang must not run under unmodified programs. */
#define PL_WITHDRAWN_NAMES "a-c-bo-clh"
PL_HIDDEN bool pl_is_withdrawn(const char *name); /* pl_config.c */

/* The lock used when CLOF_LOCK is unset or empty: the one that met every
 * goal on the 2-vCPU machine of docs/preload.md (the FIFO locks collapse
 * when runnable threads outnumber cpus four to one, see the figures). */
#ifndef PL_DEFAULT_LOCK
#define PL_DEFAULT_LOCK "tas"
#endif
/* PL_DEFAULT_TOPOLOGY (src/preload/build-best.sh defines it): a hierarchy
 * file the library loads when none of CLOF_TOPOLOGY, CLOF_EMULATE and
 * CLOF_SYSFS_ROOT is set. */

/* A lock lives in place when it fits in the first 8 bytes of the mutex.
 * PL_FORCE_BLOCK (compile time, for measurement only: bench/preload/apps.sh
 * --lib-b with such a build) puts every lock in a lock block, so that what
 * the block itself costs can be told apart from what a lock that needs one
 * costs (docs/cr.md, "Not done": how the block was found to cost LevelDB
 * 5-15%).  A cr: lock with a state block stays in the mutex all the same
 * (PL_DEFINE_LOCK's CRBLOCK). */
#ifdef PL_FORCE_BLOCK
#define PL_INPLACE(name) (sizeof(clof_##name##_t) == 0)
#else
#define PL_INPLACE(name) (sizeof(clof_##name##_t) <= 8 && _Alignof(clof_##name##_t) <= 8)
#endif

/* ---- configuration (pl_config.c) -------------------------------------------- */
typedef struct pl_lockdef pl_lockdef_t;
typedef struct pl_config {
    const pl_lockdef_t *lock; /* the lock to run, NULL: glibc's (a message says why) */
    bool glibc_adaptive;      /* lock NULL by request of glibc-adaptive: glibc's
                                 adaptive mutex behind every default mutex */
    const char *value;        /* CLOF_LOCK's value as given */
    bool stats;               /* CLOF_STATS on */
    char stats_msg[256];      /* a line for stderr, or "" */
    char lock_msg[2048];
} pl_config_t;
/* What CLOF_LOCK=lock and CLOF_STATS=stats (NULL: unset) select: string
 * work only, safe on any input (tests/fuzz/fuzz_preload_env.c). */
void pl_config_parse(const char *lock, const char *stats, pl_config_t *out) PL_HIDDEN;

/* ---- glibc's mutex kind bits (the __kind word, offset 16) ------------------ */
#define PL_KIND_TYPE_MASK 3       /* 0 normal, 1 recursive, 2 errorcheck, 3 adaptive */
#define PL_KIND_RECURSIVE 1
#define PL_KIND_ERRORCHECK 2
#define PL_KIND_ADAPTIVE 3
/* robust (16), priority inherit (32), priority protect (64), pshared (128):
 * such mutexes are glibc's, untouched.  A mutex destroyed by glibc has kind
 * -1, which has these bits too (glibc then answers EINVAL, as without us). */
#define PL_KIND_GLIBC 0xf0

/* glibc's condition variable flags (the __wrefs word, offset 36). */
#define PL_COND_SHARED 1u
#define PL_COND_MONOTONIC 2u

/* kind and tw_waiters together: zero for a normal mutex without timed waiters */
static inline uint64_t pl_kind_tw(pl_mutex_t *m)
{
    return clof_be_load_u64((const uint64_t *)(const void *)&m->kind, CLOF_MO_RLX);
}

/* ---- per-acquisition contexts ("boxes") ------------------------------------
 * One box per held mutex: the lock's context (MCS/CLH/Hemlock queue node)
 * plus bookkeeping.  A thread keeps a short free list of boxes; the holder's
 * box is recorded in the mutex, so unlock finds the right context whatever
 * the release order (hand-over-hand) and whichever thread unlocks.
 * Boxes are never freed or unmapped (CLH moves nodes between contexts); a
 * thread's free boxes go back to a global pool when it exits. */
union pl_ctx {
#define PL_CTX_MEMBER(name, NAME) clof_##name##_ctx_t name;
#define PL_CTX_MEMBER_N(id, _) clof_##id##_ctx_t id;
#define PL_CTX_MEMBER_ASL(id, _) clof_asl_##id##_ctx_t asl_##id;
#define PL_CTX_MEMBER_CR(id, _) clof_cr_##id##_ctx_t cr_##id;
    PL_BASIC_LOCKS(PL_CTX_MEMBER)
    PL_NUMA_LOCKS(PL_CTX_MEMBER_N)
    PL_BASIC_LOCKS(PL_CTX_MEMBER_ASL)
    PL_NUMA_LOCKS(PL_CTX_MEMBER_ASL)
    PL_BASIC_LOCKS(PL_CTX_MEMBER_CR)
    PL_NUMA_LOCKS(PL_CTX_MEMBER_CR)
#undef PL_CTX_MEMBER
#undef PL_CTX_MEMBER_N
#undef PL_CTX_MEMBER_ASL
#undef PL_CTX_MEMBER_CR
};

struct pl_box {
    union pl_ctx ctx;
    pl_box_t *next_free;      /* free list link */
    pl_mutex_t *mutex;        /* the mutex held with this box, NULL if none */
    uint32_t dead;            /* held by a thread that did not survive fork */
} CLOF_CACHE_ALIGNED;

/* ---- per-thread state --------------------------------------------------------*/
typedef struct pl_counters {
    uint64_t acquisitions; /* lock, successful trylock and timedlock */
    uint64_t contended;    /* acquisitions that found the lock taken */
    uint64_t trylock_busy; /* trylock answered EBUSY */
    uint64_t timed;        /* timedlock/clocklock calls */
    uint64_t timeouts;     /* ... that timed out */
    uint64_t handovers;    /* acquisitions from a different previous holder */
    uint64_t replaced;     /* mutexes first acquired by this thread */
    uint64_t cond_waits, cond_timeouts, cond_signals, cond_broadcasts;
    uint64_t cr_passive;   /* cr:<lock>: acquisitions that waited passive */
    uint64_t cr_granted;   /* ... admitted by a grant (fairness or idle) */
    uint64_t cr_limits;    /* ... times a cr: lock started limiting */
    uint64_t cr_opens;     /* ... times a cr: lock opened again */
    uint64_t cr_grows;     /* ... times a cr: lock's active set grew after
                              quiet releases (cr.h clof_cr_calm_) */
} pl_counters_t;

typedef struct pl_tls {
    pl_box_t *cache;       /* one free box, for the fast paths */
    pl_box_t *free;        /* more free boxes (slow paths) */
    uint32_t nfree;        /* ... how many */
    int32_t tid;           /* cached gettid(), 0 = not yet read */
    uint64_t *parks;       /* this thread's pl_parks (for the registry) */
    uint64_t *levels;      /* this thread's pl_levels */
    pl_counters_t st;      /* counted when CLOF_STATS=1 */
    struct pl_tls *reg_prev, *reg_next; /* registry of live threads */
    uint8_t registered;    /* in the registry, destructor armed */
    uint8_t exiting;       /* the thread-exit destructor has run */
} pl_tls_t;

extern PL_TLS pl_tls_t pl_tls PL_HIDDEN;

/* ---- the ops of the selected lock ------------------------------------------*/
typedef struct pl_ops {
    int (*lock)(pthread_mutex_t *);
    int (*trylock)(pthread_mutex_t *);
    int (*unlock)(pthread_mutex_t *);
    /* api: 0 pthread_mutex_timedlock, 1 pthread_mutex_clocklock */
    int (*timedlock)(pthread_mutex_t *, clockid_t, const struct timespec *, int api);
    int (*destroy)(pthread_mutex_t *);
    /* after fork, in the child: give mutex m, held by the forking thread
     * with box b, a fresh lock state (ghost waiters dropped), held by b */
    void (*fork_reset)(pl_mutex_t *m, pl_box_t *b);
} pl_ops_t;

struct pl_lockdef {
    const char *name;        /* as CLOF_LOCK names it */
    size_t lock_size, ctx_size;
    bool inplace;            /* the lock lives inside the pthread_mutex_t */
    bool hierarchical;       /* needs the process topology */
    bool levels;             /* counts the levels its acquisitions take */
    const pl_ops_t *ops;     /* plain */
    const pl_ops_t *ops_st;  /* counting (CLOF_STATS=1) */
};

extern const pl_lockdef_t pl_lockdefs[] PL_HIDDEN;
extern const size_t pl_nlockdefs PL_HIDDEN;
extern const pl_ops_t pl_ops_glibc PL_HIDDEN;
/* CLOF_LOCK=glibc-adaptive: glibc's functions, each default mutex made
 * PTHREAD_MUTEX_ADAPTIVE_NP first (pl_mutex.c) */
extern const pl_ops_t pl_ops_glibc_adaptive PL_HIDDEN;
void pl_glibc_adapt(pthread_mutex_t *m) PL_HIDDEN;

/* The dispatch table the exported functions jump through.  It starts with
 * the start-up ops (which configure the library at the first call) and is
 * overwritten once with the selected lock's ops. */
extern pl_ops_t pl_fn PL_HIDDEN;

/* ---- glibc's functions --------------------------------------------------------*/
typedef struct pl_real {
    int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
    int (*mutex_destroy)(pthread_mutex_t *);
    int (*mutex_lock)(pthread_mutex_t *);
    int (*mutex_trylock)(pthread_mutex_t *);
    int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
    int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*mutex_unlock)(pthread_mutex_t *);
    /* [0] = the current ABI (GLIBC_2.3.2), [1] = the old one (GLIBC_2.2.5) */
    int (*cond_init[2])(pthread_cond_t *, const pthread_condattr_t *);
    int (*cond_destroy[2])(pthread_cond_t *);
    int (*cond_wait[2])(pthread_cond_t *, pthread_mutex_t *);
    int (*cond_timedwait[2])(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    int (*cond_signal[2])(pthread_cond_t *);
    int (*cond_broadcast[2])(pthread_cond_t *);
    int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
} pl_real_t;
extern pl_real_t pl_real PL_HIDDEN;

/* ---- configuration -------------------------------------------------------------*/
enum { PL_STATE_NEW = 0, PL_STATE_STARTING = 1, PL_STATE_READY = 2 };
extern clof_atomic32_t pl_state PL_HIDDEN;
extern bool pl_glibc_mode PL_HIDDEN;  /* running on glibc's locks */
extern bool pl_glibc_adaptive PL_HIDDEN; /* ... with default mutexes adaptive */
extern const pl_lockdef_t *pl_lock PL_HIDDEN; /* NULL in glibc mode */
extern clof_atomic32_t pl_fork_gen PL_HIDDEN; /* bumped in every fork child */
/* pl_rwlock.c: the rwlocks in a fork child (old: the forking thread's id in
 * the parent, now: here) */
PL_HIDDEN void pl_rw_fork_child(int32_t old, int32_t now);

PL_HIDDEN void pl_start(void);            /* configure (idempotent, thread-safe) */
static inline void pl_ensure_started(void)
{
    if (CLOF_UNLIKELY(clof_atomic32_read_acq(&pl_state) != PL_STATE_READY))
        pl_start();
}

/* ---- per-thread helpers ---------------------------------------------------------*/
PL_HIDDEN int32_t pl_tid_slow(void);
static inline int32_t pl_tid(void)
{
    int32_t t = pl_tls.tid;
    if (CLOF_UNLIKELY(t == 0))
        t = pl_tid_slow();
    return t;
}

/* Boxes: the thread's cached box, then its free list, then the global pool.
 * The fast paths of pl_mutex.c use the cached box only. */
#define PL_FREE_MAX 16u /* a thread keeps at most this many free boxes */
PL_HIDDEN pl_box_t *pl_box_refill(void);
PL_HIDDEN void pl_box_trim(void);
static inline pl_box_t *pl_box_get(void)
{
    pl_box_t *b = pl_tls.cache;
    if (CLOF_LIKELY(b != NULL)) {
        pl_tls.cache = NULL;
        return b;
    }
    b = pl_tls.free;
    if (CLOF_UNLIKELY(b == NULL))
        return pl_box_refill();
    pl_tls.free = b->next_free;
    pl_tls.nfree--;
    return b;
}
static inline void pl_box_put(pl_box_t *b)
{
    if (CLOF_LIKELY(pl_tls.cache == NULL)) {
        pl_tls.cache = b;
        return;
    }
    b->next_free = pl_tls.free;
    pl_tls.free = b;
    if (CLOF_UNLIKELY(++pl_tls.nfree > PL_FREE_MAX))
        pl_box_trim();
}

/* Memory (pl_core.c): mmap, else `min` bytes of the library's reserve
 * (*got: how many bytes came), else NULL; pl_await_memory: one wait for
 * memory (1 ms; a line on stderr the first time).  Trees (hmcs.h and
 * compose.h through CLOF_TREE_ALLOC/CLOF_TREE_FREE): never NULL. */
PL_HIDDEN void *pl_map_min(size_t want, size_t min, size_t *got);
PL_HIDDEN void pl_await_memory(void);

/* Lock blocks (locks that do not fit in place): one per mutex, from our
 * own mmap'd pool, installed at first use. */
PL_HIDDEN void *pl_block_install(pl_mutex_t *m);
PL_HIDDEN void *pl_block_fresh(void);     /* a never-used block */
PL_HIDDEN void pl_block_free(void *blk);  /* back to the pool, as it is */

/* Register the calling thread (stats registry, exit destructor). */
PL_HIDDEN void pl_thread_register(void);

/* Timed waiters of a mutex: wake them after a release. */
PL_HIDDEN void pl_timed_wake(pl_mutex_t *m);

/* ---- futex helpers ---------------------------------------------------------------*/
/* Sleep while *w == val, until the absolute time abs on clock clk (NULL: no
 * limit).  Returns 0, EAGAIN, EINTR or ETIMEDOUT. */
PL_HIDDEN int pl_futex_wait(uint32_t *w, uint32_t val, clockid_t clk,
                            const struct timespec *abs, bool shared);
PL_HIDDEN void pl_futex_wake(uint32_t *w, int n, bool shared);

static inline bool pl_ts_valid(const struct timespec *ts)
{
    return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L;
}
static inline bool pl_ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Statistics from the condition variables (counted only with CLOF_STATS). */
static inline pl_counters_t *pl_st(void)
{
    if (CLOF_UNLIKELY(!pl_tls.registered))
        pl_thread_register();
    return &pl_tls.st;
}

#endif /* CLOF_PRELOAD_INTERNAL_H */
