/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_locks.h -- the lock table shared by the benchmark programs
 * (clof-bench, clof-uncontended).
 *
 * Every lock a benchmark knows gets one adapter with the same small
 * interface, all static inline so that a loop instantiated for one lock has
 * no indirect call in it:
 *
 *   bl_<id>_lock_t                   the shared lock (lives as long as the run)
 *   bl_<id>_ctx_t                    per-thread state (queue nodes); keep it
 *                                    in storage that outlives the run (CLH
 *                                    nodes move between threads)
 *   bl_<id>_str                      the name used on command lines
 *   bl_<id>_init(lock*)              lock memory is zero-filled before
 *   bl_<id>_ctx_init(lock*, ctx*)    ctx memory is zero-filled before
 *   bl_<id>_acquire(lock*, ctx*)
 *   bl_<id>_release(lock*, ctx*)
 *
 * BENCH_LOCKS(X) lists them as X(id): the clof basic locks (from
 * CLOF_BASIC_LOCKS, so a lock added there appears here) and the peers:
 *
 *   pthread    glibc pthread_mutex_t, default attributes
 *   glibc-adaptive  glibc pthread_mutex_t, PTHREAD_MUTEX_ADAPTIVE_NP
 *   clh-lean   clof's CLH as the embedding variant CLOF_CLH_LEAN (its first
 *              node outside the lock, as the preload library runs it)
 *   ck-mcs     Concurrency Kit ck_spinlock_mcs (per-thread context)
 *   ck-clh     Concurrency Kit ck_spinlock_clh (per-thread node, plus the
 *              "unowned" node the lock is initialised with)
 *   ck-ticket  Concurrency Kit ck_spinlock_ticket
 *   ck-fas     Concurrency Kit ck_spinlock_fas (fetch-and-store, then spin
 *              on a plain load: ck_spinlock_fas_lock, no backoff)
 *   vsync-mcs, vsync-ticket, vsync-clh, vsync-hemlock, vsync-ttas,
 *   vsync-cna, vsync-hmcs
 *              libvsync's spinlocks, where bench.cmake finds libvsync
 *              (CLOF_BENCH_VSYNC); its CNA and HMCS get their NUMA
 *              configuration from the process topology, as clof's do
 *
 * and, last, cr:<lock> (include/clof/cr.h, BENCH_CR_LOCKS) over the basic
 * locks, hmcs, cna, c-bo-mcs, c-tkt-tkt, tkt-mcs, mcs-mcs and tkt-mcs-clh.
 *
 * The ck locks spin the way ck spins (ck_pr_stall, no yielding, no
 * parking): they are the reference the papers compare against.
 *
 * A program instantiates its per-lock code with the same list, e.g.
 *
 *   #define X(id) static void *loop_##id(void *arg) { ...bl_##id##_acquire... }
 *   BENCH_LOCKS(X)
 *   #undef X
 *   static void *(*const loops[])(void *) = {
 *   #define X(id) loop_##id,
 *       BENCH_LOCKS(X)
 *   #undef X
 *   };
 *
 * and dispatches once, through bench_lock_find(name) (an index into that
 * array and into bench_lock_names[]).
 */
#ifndef CLOF_BENCH_LOCKS_H
#define CLOF_BENCH_LOCKS_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clof/clof.h>
#include <clof/lock/list.h>
#include <clof/wait.h>

#if !defined(CLOF_BENCH_NO_CK)
#include <ck_spinlock.h>
#endif

#define BENCH_CACHELINE 64
#define BENCH_ALIGNED __attribute__((aligned(2 * BENCH_CACHELINE)))

/* ---- the clof basic locks: one generated adapter each ---------------- */

/* BL_ADAPTER_(id, lock, str): the adapter bl_<id>_* of the clof lock
 * clof_<lock>_* (its one interface), named str on command lines */
#define BL_ADAPTER_(id, lock, str)                                             \
    typedef clof_##lock##_t bl_##id##_lock_t;                                  \
    typedef clof_##lock##_ctx_t bl_##id##_ctx_t;                               \
    static const char bl_##id##_str[] = str;                                   \
    static inline void bl_##id##_init(bl_##id##_lock_t *l)                     \
    {                                                                          \
        clof_##lock##_init(l);                                                 \
    }                                                                          \
    static inline void bl_##id##_ctx_init(bl_##id##_lock_t *l,                 \
                                          bl_##id##_ctx_t *c)                  \
    {                                                                          \
        (void)l;                                                               \
        memset(c, 0, sizeof *c); /* a zero-filled context is valid */          \
    }                                                                          \
    static inline void bl_##id##_acquire(bl_##id##_lock_t *l, bl_##id##_ctx_t *c) \
    {                                                                          \
        clof_##lock##_acquire(l, c);                                           \
    }                                                                          \
    static inline void bl_##id##_release(bl_##id##_lock_t *l, bl_##id##_ctx_t *c) \
    {                                                                          \
        clof_##lock##_release(l, c);                                           \
    }
#define BL_CLOF_ADAPTER_(name, NAME) BL_ADAPTER_(name, name, #name)
CLOF_BASIC_LOCKS(BL_CLOF_ADAPTER_)
#undef BL_CLOF_ADAPTER_

/* ---- pthread: glibc's mutex, default attributes ------------------------ */

typedef struct {
    pthread_mutex_t m;
} BENCH_ALIGNED bl_pthread_lock_t;
typedef struct {
    char unused_;
} bl_pthread_ctx_t;
static const char bl_pthread_str[] = "pthread";
static inline void bl_pthread_init(bl_pthread_lock_t *l)
{
    pthread_mutex_init(&l->m, NULL);
}
static inline void bl_pthread_ctx_init(bl_pthread_lock_t *l,
                                       bl_pthread_ctx_t *c)
{
    (void)l;
    (void)c;
}
static inline void bl_pthread_acquire(bl_pthread_lock_t *l,
                                      bl_pthread_ctx_t *c)
{
    (void)c;
    pthread_mutex_lock(&l->m);
}
static inline void bl_pthread_release(bl_pthread_lock_t *l,
                                      bl_pthread_ctx_t *c)
{
    (void)c;
    pthread_mutex_unlock(&l->m);
}

/* ---- glibc-adaptive: glibc's PTHREAD_MUTEX_ADAPTIVE_NP ----------------------
 * glibc's mutex that spins a while (a bound it adapts per mutex) before it
 * sleeps: the candidate a program could have without clof, one attribute
 * away (the preload library's CLOF_LOCK=glibc-adaptive gives it to every
 * default mutex). */
typedef struct {
    pthread_mutex_t m;
} BENCH_ALIGNED bl_glibc_adaptive_lock_t;
typedef struct {
    char unused_;
} bl_glibc_adaptive_ctx_t;
static const char bl_glibc_adaptive_str[] = "glibc-adaptive";
static inline void bl_glibc_adaptive_init(bl_glibc_adaptive_lock_t *l)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&l->m, &a);
    pthread_mutexattr_destroy(&a);
}
static inline void bl_glibc_adaptive_ctx_init(bl_glibc_adaptive_lock_t *l,
                                              bl_glibc_adaptive_ctx_t *c)
{
    (void)l;
    (void)c;
}
static inline void bl_glibc_adaptive_acquire(bl_glibc_adaptive_lock_t *l,
                                             bl_glibc_adaptive_ctx_t *c)
{
    (void)c;
    pthread_mutex_lock(&l->m);
}
static inline void bl_glibc_adaptive_release(bl_glibc_adaptive_lock_t *l,
                                             bl_glibc_adaptive_ctx_t *c)
{
    (void)c;
    pthread_mutex_unlock(&l->m);
}

/* ---- clh-lean: clh.h's embedding variant (CLOF_CLH_LEAN) ----------------
 * CLH as the preload library runs it: the lock is its tail alone (8 bytes)
 * and its first acquisition takes a node from bl_clh_lean_node (here a
 * zeroed aligned_alloc, one per lock for the run), where clof_clh_t keeps that node
 * inside (128 bytes).  Beside clh, what a header user pays for either. */
static clof_clh_node_t *bl_clh_lean_node(void)
{
    void *n = aligned_alloc(sizeof(clof_clh_node_t), sizeof(clof_clh_node_t));
    if (n == NULL) {
        fprintf(stderr, "clh-lean: out of memory for its first node\n");
        exit(1);
    }
    return memset(n, 0, sizeof(clof_clh_node_t));
}
CLOF_CLH_LEAN(clh_bl, bl_clh_lean_node);
BL_ADAPTER_(clh_lean, clh_bl, "clh-lean")

/* The Concurrency Kit peers: left out with -DCLOF_BENCH_NO_CK (bench.cmake
 * does so where libck-dev has no build for the target, e.g. a cross build). */
#if !defined(CLOF_BENCH_NO_CK)
/* ---- ck-mcs ------------------------------------------------------------- */

typedef struct {
    ck_spinlock_mcs_t tail;
} BENCH_ALIGNED bl_ck_mcs_lock_t;
typedef struct {
    ck_spinlock_mcs_context_t node; /* waiters spin on it: own line */
} BENCH_ALIGNED bl_ck_mcs_ctx_t;
static const char bl_ck_mcs_str[] = "ck-mcs";
static inline void bl_ck_mcs_init(bl_ck_mcs_lock_t *l)
{
    ck_spinlock_mcs_init(&l->tail);
}
static inline void bl_ck_mcs_ctx_init(bl_ck_mcs_lock_t *l, bl_ck_mcs_ctx_t *c)
{
    (void)l;
    memset(c, 0, sizeof *c);
}
static inline void bl_ck_mcs_acquire(bl_ck_mcs_lock_t *l, bl_ck_mcs_ctx_t *c)
{
    ck_spinlock_mcs_lock(&l->tail, &c->node);
}
static inline void bl_ck_mcs_release(bl_ck_mcs_lock_t *l, bl_ck_mcs_ctx_t *c)
{
    ck_spinlock_mcs_unlock(&l->tail, &c->node);
}

/* ---- ck-clh ---------------------------------------------------------------
 * ck's CLH: the lock is a tail pointer initialised with an "unowned" node;
 * each thread brings a node and, after every release, continues with its
 * predecessor's node (ck_spinlock_clh_unlock rewrites the thread's node
 * pointer).  Nodes therefore migrate between threads and the lock: all of
 * them live as long as the run (the lock's unowned node in the lock object,
 * each thread's node in its long-lived context).  Nodes are padded to their
 * own cache line, as clof's CLH nodes are.
 */
typedef struct {
    ck_spinlock_clh_t node;
} BENCH_ALIGNED bl_ck_clh_node_t;
typedef struct {
    ck_spinlock_clh_t *tail;
    bl_ck_clh_node_t unowned;
} BENCH_ALIGNED bl_ck_clh_lock_t;
typedef struct {
    ck_spinlock_clh_t *mine; /* the node for the next acquisition */
    bl_ck_clh_node_t own;
} BENCH_ALIGNED bl_ck_clh_ctx_t;
static const char bl_ck_clh_str[] = "ck-clh";
static inline void bl_ck_clh_init(bl_ck_clh_lock_t *l)
{
    ck_spinlock_clh_init(&l->tail, &l->unowned.node);
}
static inline void bl_ck_clh_ctx_init(bl_ck_clh_lock_t *l, bl_ck_clh_ctx_t *c)
{
    (void)l;
    memset(c, 0, sizeof *c);
    c->mine = &c->own.node;
}
static inline void bl_ck_clh_acquire(bl_ck_clh_lock_t *l, bl_ck_clh_ctx_t *c)
{
    ck_spinlock_clh_lock(&l->tail, c->mine);
}
static inline void bl_ck_clh_release(bl_ck_clh_lock_t *l, bl_ck_clh_ctx_t *c)
{
    (void)l;
    ck_spinlock_clh_unlock(&c->mine);
}

/* ---- ck-ticket ----------------------------------------------------------- */

typedef struct {
    ck_spinlock_ticket_t t;
} BENCH_ALIGNED bl_ck_ticket_lock_t;
typedef struct {
    char unused_;
} bl_ck_ticket_ctx_t;
static const char bl_ck_ticket_str[] = "ck-ticket";
static inline void bl_ck_ticket_init(bl_ck_ticket_lock_t *l)
{
    ck_spinlock_ticket_init(&l->t);
}
static inline void bl_ck_ticket_ctx_init(bl_ck_ticket_lock_t *l,
                                         bl_ck_ticket_ctx_t *c)
{
    (void)l;
    (void)c;
}
static inline void bl_ck_ticket_acquire(bl_ck_ticket_lock_t *l,
                                        bl_ck_ticket_ctx_t *c)
{
    (void)c;
    ck_spinlock_ticket_lock(&l->t);
}
static inline void bl_ck_ticket_release(bl_ck_ticket_lock_t *l,
                                        bl_ck_ticket_ctx_t *c)
{
    (void)c;
    ck_spinlock_ticket_unlock(&l->t);
}

/* ---- ck-fas -------------------------------------------------------------- */

typedef struct {
    ck_spinlock_fas_t f;
} BENCH_ALIGNED bl_ck_fas_lock_t;
typedef struct {
    char unused_;
} bl_ck_fas_ctx_t;
static const char bl_ck_fas_str[] = "ck-fas";
static inline void bl_ck_fas_init(bl_ck_fas_lock_t *l)
{
    ck_spinlock_fas_init(&l->f);
}
static inline void bl_ck_fas_ctx_init(bl_ck_fas_lock_t *l, bl_ck_fas_ctx_t *c)
{
    (void)l;
    (void)c;
}
static inline void bl_ck_fas_acquire(bl_ck_fas_lock_t *l, bl_ck_fas_ctx_t *c)
{
    (void)c;
    ck_spinlock_fas_lock(&l->f);
}
static inline void bl_ck_fas_release(bl_ck_fas_lock_t *l, bl_ck_fas_ctx_t *c)
{
    (void)c;
    ck_spinlock_fas_unlock(&l->f);
}

#endif /* !CLOF_BENCH_NO_CK */

/* ---- the libvsync peers (vsync-*) ------------------------------------------
 * libvsync's spinlocks (open-s4c/libvsync, header-only, MIT), defined
 * CLOF_BENCH_VSYNC where bench.cmake finds them (-DCLOF_LIBVSYNC_DIR, a
 * checkout the user has; optional).  Used as libvsync's README says: its default
 * atomics, its own spinning (no parking), one node per thread that lives as
 * long as the run (vsync-clh: clhlock_node_init once, after which the node
 * migrates as in ck-clh; the lock holds the initial node).
 */
#if defined(CLOF_BENCH_VSYNC)
#include <vsync/spinlock/clhlock.h>
#include <vsync/spinlock/hemlock.h>
#include <vsync/spinlock/mcslock.h>
#include <vsync/spinlock/ticketlock.h>
#include <vsync/spinlock/ttaslock.h>
typedef struct {
    char unused_;
} bl_vsync_noctx_t;
/* the adapter of a lock with a per-thread node: vsync-<str>, with
 * <pfx>_acquire(lock, node) and <pfx>_release(lock, node) */
#define BL_VSYNC_NODE_ADAPTER_(id, str, pfx, lock_t, node_t, node_init)        \
    typedef struct {                                                           \
        lock_t l;                                                              \
    } BENCH_ALIGNED bl_##id##_lock_t;                                          \
    typedef struct {                                                           \
        node_t n;                                                              \
    } BENCH_ALIGNED bl_##id##_ctx_t;                                           \
    static const char bl_##id##_str[] = str;                                   \
    static inline void bl_##id##_init(bl_##id##_lock_t *l)                     \
    {                                                                          \
        pfx##_init(&l->l);                                                     \
    }                                                                          \
    static inline void bl_##id##_ctx_init(bl_##id##_lock_t *l,                 \
                                          bl_##id##_ctx_t *c)                  \
    {                                                                          \
        (void)l;                                                               \
        memset(c, 0, sizeof *c);                                               \
        node_init;                                                             \
    }                                                                          \
    static inline void bl_##id##_acquire(bl_##id##_lock_t *l,                  \
                                         bl_##id##_ctx_t *c)                   \
    {                                                                          \
        pfx##_acquire(&l->l, &c->n);                                           \
    }                                                                          \
    static inline void bl_##id##_release(bl_##id##_lock_t *l,                  \
                                         bl_##id##_ctx_t *c)                   \
    {                                                                          \
        pfx##_release(&l->l, &c->n);                                           \
    }
/* the adapter of a lock without a node: <pfx>_acquire(lock) */
#define BL_VSYNC_PLAIN_ADAPTER_(id, str, pfx, lock_t)                          \
    typedef struct {                                                           \
        lock_t l;                                                              \
    } BENCH_ALIGNED bl_##id##_lock_t;                                          \
    typedef bl_vsync_noctx_t bl_##id##_ctx_t;                                  \
    static const char bl_##id##_str[] = str;                                   \
    static inline void bl_##id##_init(bl_##id##_lock_t *l)                     \
    {                                                                          \
        pfx##_init(&l->l);                                                     \
    }                                                                          \
    static inline void bl_##id##_ctx_init(bl_##id##_lock_t *l,                 \
                                          bl_##id##_ctx_t *c)                  \
    {                                                                          \
        (void)l;                                                               \
        (void)c;                                                               \
    }                                                                          \
    static inline void bl_##id##_acquire(bl_##id##_lock_t *l,                  \
                                         bl_##id##_ctx_t *c)                   \
    {                                                                          \
        (void)c;                                                               \
        pfx##_acquire(&l->l);                                                  \
    }                                                                          \
    static inline void bl_##id##_release(bl_##id##_lock_t *l,                  \
                                         bl_##id##_ctx_t *c)                   \
    {                                                                          \
        (void)c;                                                               \
        pfx##_release(&l->l);                                                  \
    }
BL_VSYNC_NODE_ADAPTER_(vsync_mcs, "vsync-mcs", mcslock, mcslock_t, mcs_node_t,
                       (void)0)
BL_VSYNC_NODE_ADAPTER_(vsync_clh, "vsync-clh", clhlock, clhlock_t, clh_node_t,
                       clhlock_node_init(&c->n))
BL_VSYNC_NODE_ADAPTER_(vsync_hemlock, "vsync-hemlock", hemlock, hemlock_t,
                       hem_node_t, (void)0)
BL_VSYNC_PLAIN_ADAPTER_(vsync_ticket, "vsync-ticket", ticketlock, ticketlock_t)
BL_VSYNC_PLAIN_ADAPTER_(vsync_ttas, "vsync-ttas", ttaslock, ttaslock_t)
#define BENCH_VSYNC_LOCKS(X)                                                   \
    X(vsync_mcs, VSYNC_MCS)                                                    \
    X(vsync_ticket, VSYNC_TICKET)                                              \
    X(vsync_clh, VSYNC_CLH)                                                    \
    X(vsync_hemlock, VSYNC_HEMLOCK)                                            \
    X(vsync_ttas, VSYNC_TTAS)                                                  \
    X(vsync_cna, VSYNC_CNA)                                                    \
    X(vsync_hmcs, VSYNC_HMCS)
#else
#define BENCH_VSYNC_LOCKS(X)
#endif /* CLOF_BENCH_VSYNC */

/* ---- the list ------------------------------------------------------------ */

/* ---- CLoF compositions (generated: tools/gen_compositions.py) ---------- */

/* A composed lock builds its tree over the process topology at init, so a
 * program installs the topology (clof_topology_install) before. */
#define BL_COMPOSED_ADAPTER_(id, str)                                          \
    typedef clof_##id##_t bl_##id##_lock_t;                                    \
    typedef clof_##id##_ctx_t bl_##id##_ctx_t;                                 \
    static const char bl_##id##_str[] = str;                                   \
    static inline void bl_##id##_init(bl_##id##_lock_t *l)                     \
    {                                                                          \
        if (clof_##id##_init_topo(l, clof_topology(), NULL) != 0) {            \
            fprintf(stderr, "%s: cannot build the lock tree\n", str);          \
            exit(1);                                                           \
        }                                                                      \
    }                                                                          \
    static inline void bl_##id##_ctx_init(bl_##id##_lock_t *l,                 \
                                          bl_##id##_ctx_t *c)                  \
    {                                                                          \
        (void)l;                                                               \
        memset(c, 0, sizeof *c);                                               \
    }                                                                          \
    static inline void bl_##id##_acquire(bl_##id##_lock_t *l,                  \
                                         bl_##id##_ctx_t *c)                   \
    {                                                                          \
        clof_##id##_acquire(l, c);                                             \
    }                                                                          \
    static inline void bl_##id##_release(bl_##id##_lock_t *l,                  \
                                         bl_##id##_ctx_t *c)                   \
    {                                                                          \
        clof_##id##_release(l, c);                                             \
    }
#include <stdlib.h>
#include <clof/numa/cohort.h>
#include "bench_compositions.h"
/* the cohort locks (numa/cohort.h) and the abortable ones (numa/acohort.h,
 * measured here through their untimed acquire) */
CLOF_COHORT_LOCKS(BL_COMPOSED_ADAPTER_)
#include <clof/numa/acohort.h>
CLOF_ABORTABLE_COHORT_LOCKS(BL_COMPOSED_ADAPTER_)
/* HMCS over every level of the hierarchy: HMCS<4> on a 4-level machine */
#include <clof/numa/hmcs.h>
typedef clof_hmcs_t bl_hmcs_lock_t;
typedef clof_hmcs_ctx_t bl_hmcs_ctx_t;
static const char bl_hmcs_str[] = "hmcs";
static inline void bl_hmcs_init(bl_hmcs_lock_t *l)
{
    const clof_topology_t *t = clof_topology();
    if (clof_hmcs_init_topo(l, t, clof_topo_nlevels(t), NULL) != 0) {
        fprintf(stderr, "hmcs: cannot build the lock tree\n");
        exit(1);
    }
}
static inline void bl_hmcs_ctx_init(bl_hmcs_lock_t *l, bl_hmcs_ctx_t *c)
{
    (void)l;
    memset(c, 0, sizeof *c);
}
static inline void bl_hmcs_acquire(bl_hmcs_lock_t *l, bl_hmcs_ctx_t *c)
{
    clof_hmcs_acquire(l, c);
}
static inline void bl_hmcs_release(bl_hmcs_lock_t *l, bl_hmcs_ctx_t *c)
{
    clof_hmcs_release(l, c);
}
/* CNA (numa/cna.h): an MCS-like lock, no tree; finds the NUMA node of a
 * thread in the process topology */
#include <clof/numa/cna.h>
typedef clof_cna_t bl_cna_lock_t;
typedef clof_cna_ctx_t bl_cna_ctx_t;
static const char bl_cna_str[] = "cna";
static inline void bl_cna_init(bl_cna_lock_t *l)
{
    clof_cna_init(l);
}
static inline void bl_cna_ctx_init(bl_cna_lock_t *l, bl_cna_ctx_t *c)
{
    (void)l;
    memset(c, 0, sizeof *c);
}
static inline void bl_cna_acquire(bl_cna_lock_t *l, bl_cna_ctx_t *c)
{
    clof_cna_acquire(l, c);
}
static inline void bl_cna_release(bl_cna_lock_t *l, bl_cna_ctx_t *c)
{
    clof_cna_release(l, c);
}

#if defined(CLOF_BENCH_VSYNC)
/* ---- libvsync's NUMA-aware locks: vsync-cna, vsync-hmcs --------------------
 * (listed in BENCH_VSYNC_LOCKS above; defined here, after clof's cna and
 * hmcs, because they take their NUMA configuration from the same process
 * topology -- clof_topology(), the machine's or the emulated one of
 * --emulate / CLOF_EMULATE -- and each thread's cpu from the same
 * clof_current_cpu(), virtual on an emulated machine.)  Spin-only, as the
 * other vsync-* peers. */
#include <stdalign.h>
#include <vsync/common/assert.h> /* hmcslock_which_lock's ASSERT, which
                                   hmcslock.h defines only without NDEBUG */
#include <vsync/spinlock/cnalock.h>
#include <vsync/spinlock/hmcslock.h>

/* vsync-cna: cnalock_acquire and cnalock_release take the caller's NUMA
 * node; it is the node clof's cna gives the thread (clof_cna_numa_: its
 * cohort at the topology's NUMA level, 0 without one), looked up at every
 * acquisition (clof's cna looks it up only when it must wait), and the same
 * node is passed to the release. */
typedef struct {
    cnalock_t l;
} BENCH_ALIGNED bl_vsync_cna_lock_t;
typedef struct {
    cna_node_t n;
    uint32_t numa; /* the node passed to the acquisition */
} BENCH_ALIGNED bl_vsync_cna_ctx_t;
static const char bl_vsync_cna_str[] = "vsync-cna";
static inline void bl_vsync_cna_init(bl_vsync_cna_lock_t *l)
{
    cnalock_init(&l->l);
}
static inline void bl_vsync_cna_ctx_init(bl_vsync_cna_lock_t *l,
                                         bl_vsync_cna_ctx_t *c)
{
    (void)l;
    memset(c, 0, sizeof *c);
}
static inline void bl_vsync_cna_acquire(bl_vsync_cna_lock_t *l,
                                        bl_vsync_cna_ctx_t *c)
{
    c->numa = clof_cna_numa_();
    cnalock_acquire(&l->l, &c->n, c->numa);
}
static inline void bl_vsync_cna_release(bl_vsync_cna_lock_t *l,
                                        bl_vsync_cna_ctx_t *c)
{
    cnalock_release(&l->l, &c->n, c->numa);
}

/* vsync-hmcs: libvsync's tree (hmcslock_init) over the levels of the
 * process topology, as clof's hmcs takes them all (HMCS<n> on an n-level
 * hierarchy).  libvsync's level i from the top is the topology's level
 * nlevels-1-i: the number of its locks per parent is the topology's number
 * of children per cohort (libvsync's tree is regular, so a topology whose
 * cohorts of one level have different numbers of children is refused), its
 * threshold is the topology's keep-local threshold of that level (clof's
 * hmcs uses the same; default 128).  libvsync's tree has at least two
 * levels (its acquire walks to the parent of a one-level tree): on a flat
 * machine it is a root over one leaf.  hmcslock_init numbers its locks
 * depth first, which is the topology's canonical order, so the leaf of a
 * cpu is the k-th leaf where k is the cpu's cohort at level 0; the table
 * leaf[k] is filled once with libvsync's own hmcslock_which_lock (one cpu
 * per "core", core k).  A thread looks up its leaf at every acquisition,
 * as clof's hmcs does, and keeps it for the release. */
typedef struct {
    hmcslock_t *locks;           /* hmcslock_init's array (the whole tree) */
    hmcslock_t **leaf;           /* [leaf cohort] its leaf lock */
    const clof_topology_t *topo; /* the topology it was built on */
    vsize_t nlevels;             /* libvsync's num_levels */
} BENCH_ALIGNED bl_vsync_hmcs_lock_t;
typedef struct {
    hmcs_node_t n;
    hmcslock_t *leaf; /* the leaf of the acquisition, for the release */
} BENCH_ALIGNED bl_vsync_hmcs_ctx_t;
static const char bl_vsync_hmcs_str[] = "vsync-hmcs";
static inline void bl_vsync_hmcs_fail_(const char *why)
{
    fprintf(stderr, "vsync-hmcs: %s\n", why);
    exit(1);
}
static inline void bl_vsync_hmcs_init(bl_vsync_hmcs_lock_t *l)
{
    const clof_topology_t *t = clof_topology();
    uint32_t tl = clof_topo_nlevels(t);
    uint32_t n = tl < 2 ? 2 : tl;
    hmcslock_level_spec_t spec[CLOF_TOPO_MAX_LEVELS + 1];
    size_t nlocks = 0, width = 1;
    for (uint32_t i = 0; i < n; i++) {
        /* the topology's level of libvsync's level i (flat: the system) */
        uint32_t lv = tl < 2 ? 0 : tl - 1 - i;
        size_t fan = 1;
        if (i > 0 && tl >= 2) {
            const clof_topo_level_t *up = &t->level[lv + 1];
            fan = up->child_start[1] - up->child_start[0];
            for (uint32_t c = 1; c < up->ncohorts; c++)
                if (up->child_start[c + 1] - up->child_start[c] != fan) {
                    char why[200];
                    snprintf(why, sizeof why,
                             "the topology's %s cohorts have different "
                             "numbers of %s cohorts; libvsync's HMCS tree "
                             "needs the same number under every parent",
                             clof_topo_level_name(t->level[lv + 1].kind),
                             clof_topo_level_name(t->level[lv].kind));
                    bl_vsync_hmcs_fail_(why);
                }
        }
        width *= fan;
        if (width > HMCS_MAX_THREADS) {
            char why[200];
            snprintf(why, sizeof why,
                     "the topology has more leaf cohorts than libvsync's "
                     "HMCS_MAX_THREADS (%u)",
                     (unsigned)HMCS_MAX_THREADS);
            bl_vsync_hmcs_fail_(why);
        }
        uint32_t thr = clof_topo_threshold(t, lv);
        spec[i].num_nodes_per_parent = fan;
        spec[i].threshold = thr ? thr : CLOF_COMPOSE_THRESHOLD;
        nlocks += width;
    }
    size_t al = alignof(hmcslock_t);
    l->locks = aligned_alloc(al, nlocks * sizeof(hmcslock_t));
    l->leaf = malloc(width * sizeof *l->leaf);
    if (!l->locks || !l->leaf)
        bl_vsync_hmcs_fail_("out of memory for the lock tree");
    memset(l->locks, 0, nlocks * sizeof(hmcslock_t));
    hmcslock_init(l->locks, nlocks, spec, n);
    for (size_t k = 0; k < width; k++) {
        l->leaf[k] = hmcslock_which_lock(l->locks, nlocks, spec, n, 1,
                                         (vuint32_t)k);
        if (!l->leaf[k])
            bl_vsync_hmcs_fail_("hmcslock_which_lock found no leaf");
    }
    l->topo = t;
    l->nlevels = n;
}
static inline void bl_vsync_hmcs_ctx_init(bl_vsync_hmcs_lock_t *l,
                                          bl_vsync_hmcs_ctx_t *c)
{
    (void)l;
    memset(c, 0, sizeof *c);
}
static inline void bl_vsync_hmcs_acquire(bl_vsync_hmcs_lock_t *l,
                                         bl_vsync_hmcs_ctx_t *c)
{
    uint32_t k = l->topo->nlevels < 2
                     ? 0
                     : clof_topo_cohort(l->topo, clof_current_cpu(), 0);
    c->leaf = l->leaf[k];
    hmcslock_acquire(c->leaf, &c->n, l->nlevels);
}
static inline void bl_vsync_hmcs_release(bl_vsync_hmcs_lock_t *l,
                                         bl_vsync_hmcs_ctx_t *c)
{
    hmcslock_release(c->leaf, &c->n, l->nlevels);
}
#endif /* CLOF_BENCH_VSYNC */

#define BENCH_NUMA_LOCKS(X)                                                    \
    X(hmcs, HMCS) X(cna, CNA) X(c_bo_mcs, C_BO_MCS) X(c_tkt_tkt, C_TKT_TKT)                \
    X(c_ptl_tkt, C_PTL_TKT) X(a_c_bo_bo, A_C_BO_BO) X(a_c_bo_clh, A_C_BO_CLH)

/* ---- concurrency restriction (include/clof/cr.h) over some of the above -- */
/* cr:<lock>: the inner lock initialised by its own adapter, then the layer. */
#include <clof/cr.h>
#define BL_CR_ADAPTER_(id, str)                                                \
    CLOF_CR_LOCK(cr_##id, id)                                                  \
    typedef clof_cr_##id##_t bl_cr_##id##_lock_t;                              \
    typedef clof_cr_##id##_ctx_t bl_cr_##id##_ctx_t;                           \
    static const char bl_cr_##id##_str[] = "cr:" str;                          \
    static inline void bl_cr_##id##_init(bl_cr_##id##_lock_t *l)               \
    {                                                                          \
        bl_##id##_init(&l->base);                                              \
        clof_cr_state_init(&l->cr);                                            \
    }                                                                          \
    static inline void bl_cr_##id##_ctx_init(bl_cr_##id##_lock_t *l,           \
                                             bl_cr_##id##_ctx_t *c)            \
    {                                                                          \
        (void)l;                                                               \
        memset(c, 0, sizeof *c);                                               \
    }                                                                          \
    static inline void bl_cr_##id##_acquire(bl_cr_##id##_lock_t *l,            \
                                            bl_cr_##id##_ctx_t *c)             \
    {                                                                          \
        clof_cr_##id##_acquire(l, c);                                          \
    }                                                                          \
    static inline void bl_cr_##id##_release(bl_cr_##id##_lock_t *l,            \
                                            bl_cr_##id##_ctx_t *c)             \
    {                                                                          \
        clof_cr_##id##_release(l, c);                                          \
    }
/* X(id, ID) of the cr: locks: over every basic lock of the registry
 * (clof/lock/list.h), the NUMA locks without an abortable path, and three
 * compositions (named as clof-bench names them: cr:tkt-mcs; the preload
 * library's cr:clof:tkt-mcs) */
#define BL_CR_BASIC_NAME_(X_CR_, id, ID, ...) X_CR_(id, #id)
#define BL_CR_BASIC_ID_(X, id, ID, ...) X(cr_##id, CR_##ID)
#define BENCH_CR_LIST_(X_CR_)                                                  \
    CLOF_LOCK_REGISTRY(BL_CR_BASIC_NAME_, X_CR_)                               \
    X_CR_(hmcs, "hmcs") X_CR_(cna, "cna")                                      \
    X_CR_(c_bo_mcs, "c-bo-mcs") X_CR_(c_tkt_tkt, "c-tkt-tkt")                  \
    X_CR_(k_tkt_mcs, "tkt-mcs") X_CR_(k_mcs_mcs, "mcs-mcs")                    \
    X_CR_(k_tkt_mcs_clh, "tkt-mcs-clh")
BENCH_CR_LIST_(BL_CR_ADAPTER_)
#define BENCH_CR_LOCKS(X)                                                      \
    CLOF_LOCK_REGISTRY(BL_CR_BASIC_ID_, X)                                     \
    X(cr_hmcs, CR_HMCS) X(cr_cna, CR_CNA)                                      \
    X(cr_c_bo_mcs, CR_C_BO_MCS) X(cr_c_tkt_tkt, CR_C_TKT_TKT)                  \
    X(cr_k_tkt_mcs, CR_K_TKT_MCS) X(cr_k_mcs_mcs, CR_K_MCS_MCS)                \
    X(cr_k_tkt_mcs_clh, CR_K_TKT_MCS_CLH)

/* BENCH_LOCKS(X): X(id, ID) for every lock, the clof basic locks first (the
 * two-argument form is CLOF_BASIC_LOCKS's; benchmarks use only id), then the
 * peers, then the CLoF compositions. */
#if !defined(CLOF_BENCH_NO_CK)
#define BENCH_CK_LOCKS(X)                                                      \
    X(ck_mcs, CK_MCS)                                                          \
    X(ck_clh, CK_CLH)                                                          \
    X(ck_ticket, CK_TICKET)                                                    \
    X(ck_fas, CK_FAS)
#else
#define BENCH_CK_LOCKS(X)
#endif
#define BENCH_PEER_LOCKS(X)                                                    \
    X(pthread, PTHREAD) X(glibc_adaptive, GLIBC_ADAPTIVE) BENCH_CK_LOCKS(X)    \
        BENCH_VSYNC_LOCKS(X)
/* clof's own locks in another form, for comparison: through the atomics
 * shim, so they run simulated too */
#define BENCH_VARIANT_LOCKS(X) X(clh_lean, CLH_LEAN)
#define BENCH_LOCKS(X)                                                         \
    CLOF_BASIC_LOCKS(X) BENCH_PEER_LOCKS(X) BENCH_VARIANT_LOCKS(X)             \
        BENCH_NUMA_LOCKS(X)                                                    \
        BENCH_COMPOSED_LOCKS(X) BENCH_CR_LOCKS(X)

enum {
#define BENCH_X_(id, ID) BENCH_LOCK_##ID,
    BENCH_LOCKS(BENCH_X_)
#undef BENCH_X_
    BENCH_NLOCKS
};

/* The command-line names, in BENCH_LOCKS order. */
static const char *const bench_lock_names[BENCH_NLOCKS] = {
#define BENCH_X_(id, ID) bl_##id##_str,
    BENCH_LOCKS(BENCH_X_)
#undef BENCH_X_
};

/* Every lock in one union: a program that runs one lock by index keeps
 * its storage here (and its per-thread contexts in bench_ctx_u). */
typedef union {
#define BENCH_X_(id, ID) bl_##id##_lock_t id;
    BENCH_LOCKS(BENCH_X_)
#undef BENCH_X_
} BENCH_ALIGNED bench_lock_u;

typedef union {
#define BENCH_X_(id, ID) bl_##id##_ctx_t id;
    BENCH_LOCKS(BENCH_X_)
#undef BENCH_X_
} BENCH_ALIGNED bench_ctx_u;

/* The index of a lock by name, or -1. */
static inline int bench_lock_find(const char *name)
{
    for (int i = 0; i < BENCH_NLOCKS; i++)
        if (strcmp(bench_lock_names[i], name) == 0)
            return i;
    return -1;
}

static inline void bench_lock_list(FILE *f, const char *sep)
{
    for (int i = 0; i < BENCH_NLOCKS; i++)
        fprintf(f, "%s%s", i ? sep : "", bench_lock_names[i]);
}

/* The waiting policy clof's locks were built with. */
#define BENCH_WAIT_POLICY CLOF_WAIT_POLICY_NAME

#endif /* CLOF_BENCH_LOCKS_H */
