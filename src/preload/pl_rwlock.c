/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_rwlock.c -- pthread_rwlock_* under libclof-preload.so:
 * the RW locks of include/clof/rw/list.h, selected by CLOF_RWLOCK.
 *
 * The rwlock as this library sees it (pthread_rwlock_t, 56 bytes):
 *   bytes 0..7   a pointer to the lock's block (glibc's __readers and
 *                __writers; NULL = not used yet: PTHREAD_RWLOCK_INITIALIZER
 *                and a memset are valid, the block is installed at first
 *                use with a CAS)
 *   __data.__flags  glibc's kind (PTHREAD_RWLOCK_PREFER_*), written by
 *                pthread_rwlock_init and by glibc's static initializers
 *                (PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP):
 *                PREFER_WRITER_NONRECURSIVE_NP gives the lock writer
 *                preference, every other kind glibc's default, reader
 *                preference (a thread that holds a read lock may read again
 *                while a writer waits -- glibc ignores PREFER_WRITER_NP too)
 *   __data.__shared  non-zero: a process-shared rwlock, glibc's own (its
 *                init was glibc's; every call on it goes to glibc)
 * The block (lock-sized, cache-aligned, from our own mmap'd pool) holds the
 * RW lock, the write holder's tid (EDEADLK as glibc: rdlock or wrlock by the
 * writer) and its context.  pthread_rwlock_destroy puts the block back into
 * the pool as it is (unlocked; a late releaser may still be finishing in
 * it, as with the mutexes' trees), and the next rwlock's first use takes it;
 * a block still held when its rwlock is destroyed is retired instead.
 *
 * Contexts ("records"): every hold has one -- the writer lock's queue node,
 * the reader's indicator slot, BRAVO's table slot -- kept until the unlock.
 * The write hold's is in the block; a thread's read holds are a list in the
 * thread (unlock finds the newest of this rwlock: holds of one thread are
 * interchangeable).  Records come from a per-thread free list, then a global
 * one, then mmap'd chunks (never unmapped); a thread's free records go back
 * to the global list when it exits.  They are not the mutexes' boxes: a box
 * keeps its mutex lock's context (CLH moves nodes) between uses.
 *
 * Unlock: a thread's read hold of the rwlock (the newest) is released if it
 * has one; otherwise the writer (holder's tid == ours) releases the write
 * lock; anyone else: EPERM, nothing touched.
 *
 * Selection (CLOF_RWLOCK, read at the first rwlock call): a name of
 * CLOF_RW_LOCKS, `glibc` (nothing replaced), unset, empty or `auto`: the
 * default (PL_DEFAULT_RWLOCK: the topology rule, see there).  An unknown
 * name: one line on stderr naming the known ones, and glibc's rwlocks.  CLOF_STATS=1: a line at exit,
 * rwlock=<name> with the counts (global counters, relaxed adds: only with
 * CLOF_STATS).
 */
#include "pl_internal.h"
#include "pl_opaque.h"
#include "pl_profile.h"
#include "lockname.h"

/* The reader's indicator slot, cached per thread: the slot of the cpu this
 * thread last found itself on (clof_current_cpu is a thread-local or rseq
 * read), recomputed from the topology only when the cpu or the level
 * changes.  The process topology is loaded before the first rwlock is used
 * and not changed after (pl_rw_start). */
/* This thread's rwlock state, one thread-local object (one address
 * computation on the fast paths): the records and read holds (below), the
 * slot cache. */
typedef struct pl_rwrec pl_rwrec_t;
static PL_TLS struct {
    pl_rwrec_t *free;   /* free records */
    pl_rwrec_t *held;   /* read holds, newest first */
    uint32_t slot_cpu, slot_level, slot_v;
    uint8_t armed;      /* thread-exit destructor armed */
} pl_rwt = {NULL, NULL, UINT32_MAX, 0, 0, 0};
static uint32_t pl_rw_slot_refresh(uint32_t level, uint32_t cpu);
/* Bit L: an indicator of level L has one slot on the process topology
 * (clof_rw_one_slot; set at start-up, pl_rw_start): its readers skip the
 * cpu lookup, which natively is sched_getcpu and the emulation test --
 * about 40 of a read pair's instructions on this library's fast path
 * (callgrind, no emulation: 187 -> see docs/rwlocks.md). */
static uint32_t pl_rw_one_slot;
static inline __attribute__((always_inline)) uint32_t pl_rw_slot_of(uint32_t level)
{
    if (pl_rw_one_slot & (1u << level))
        return 0;
    uint32_t cpu = clof_current_cpu();
    if (CLOF_LIKELY(cpu == pl_rwt.slot_cpu && level == pl_rwt.slot_level))
        return pl_rwt.slot_v;
    return pl_rw_slot_refresh(level, cpu);
}
#define CLOF_RW_SLOT_OF(level) pl_rw_slot_of(level)

#include <clof/rw/list.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

/* CLOF_RWLOCK unset, empty or `auto`: PL_DEFAULT_RWLOCK, a name as
 * CLOF_RWLOCK takes it (src/preload/build-best.sh --rwlock compiles one in,
 * as --lock does for PL_DEFAULT_LOCK: the pick of `clof select --rw`), or
 * "auto", the topology rule (pl_rw_by_topology): the process topology's
 * NUMA nodes (clof_topology(): CLOF_TOPOLOGY, CLOF_EMULATE, sysfs) --
 *   one node (or no NUMA level): glibc's rwlock.  On the 2-vCPU, one-node
 *     machine of docs/rwlocks.md (bench/preload/rw.sh, 90% reads) rw:hmcs
 *     was 0.70-0.88x glibc at some T in runs on a machine loaded by other
 *     work, and 1.44-2.70x at every T on the quiet machine (2026-11-26):
 *     a contended program gains; but a per-node indicator has nothing to
 *     spread on one node, the uncontended read costs 119 instructions
 *     against glibc's 102, and glibc's rwlock is 56 bytes against a
 *     704-byte block, which every program pays;
 *   two nodes or more: PL_RW_NUMA_DEFAULT, the cohort RW lock over HMCS --
 *     the best or within 5% of the best at 50-99% reads under reader and
 *     writer preference (glibc's kinds; BRAVO wins only without writes) in
 *     the SIMULATED kunpeng920 figure (docs/simulation.md), and the best or
 *     close to it through this library on the 2-vCPU machine at T=2..16;
 *     still the best (or within 3%) at 2 and 4 threads per cpu on the
 *     SIMULATED kunpeng920 (bench/sim_rw.py --threads 256/512), though
 *     it lost to glibc's and rw:tas's in single runs of Kyoto Cabinet on
 *     the 2-vCPU VM with an emulated hierarchy and two busy loops beside
 *     it (not measured on a real NUMA machine yet); its 704 bytes per
 *     rwlock (the indicator's per-node lines) are the price, and a
 *     program with millions of rwlocks names glibc or rw-central. */
#ifndef PL_DEFAULT_RWLOCK
#define PL_DEFAULT_RWLOCK "auto"
#endif
#define PL_RW_NUMA_DEFAULT "rw:hmcs"

/* The topology rule's choice, and why (for CLOF_STATS). */
static char pl_rw_why[96];
static const char *pl_rw_by_topology(void)
{
    /* the process topology: the one the mutexes installed when their lock is
     * hierarchical; otherwise installed now, quietly as pl_configure does (a
     * program that asked for nothing gets no topology warning on stderr);
     * one that does not load counts as one node */
    if (pl_lock == NULL || !pl_lock->hierarchical) {
        clof_topo_opts_t o = {NULL, NULL, NULL, CLOF_TOPO_QUIET};
        clof_topo_error_t err;
        if (clof_topology_install(&o, &err) != 0) {
            snprintf(pl_rw_why, sizeof pl_rw_why, "default: the topology did not load");
            return "glibc";
        }
    }
    const clof_topology_t *t = clof_topology();
    int l = clof_topo_level_index(t, CLOF_LEVEL_NUMA);
    uint32_t nodes = l < 0 ? 1 : clof_topo_ncohorts(t, (uint32_t)l);
    const char *v = nodes >= 2 ? PL_RW_NUMA_DEFAULT : "glibc";
    snprintf(pl_rw_why, sizeof pl_rw_why, "default by topology: %u NUMA node%s", nodes,
             nodes == 1 ? "" : "s");
    return v;
}

static __attribute__((noinline)) uint32_t pl_rw_slot_refresh(uint32_t level, uint32_t cpu)
{
    uint32_t v = clof_rw_slot_of(level);
    pl_rwt.slot_cpu = cpu;
    pl_rwt.slot_level = level;
    pl_rwt.slot_v = v;
    return v;
}

/* ---- the RW locks, type-erased ---------------------------------------------- */
union pl_rwlk {
#define PL_RW_MEMBER_(id, nm) clof_##id##_t id;
    CLOF_RW_LOCKS(PL_RW_MEMBER_)
#undef PL_RW_MEMBER_
};
union pl_rwctx {
#define PL_RW_MEMBER_(id, nm) clof_##id##_ctx_t id;
    CLOF_RW_LOCKS(PL_RW_MEMBER_)
#undef PL_RW_MEMBER_
};

typedef struct pl_rwdef {
    const char *name;
    size_t size; /* sizeof the lock */
    void (*init)(void *l, uint32_t pref);
    void (*set_pref)(void *l, uint32_t pref);
    void (*ra)(void *l, void *c);
    bool (*rt)(void *l, void *c);
    bool (*ru)(void *l, void *c, uint64_t deadline);
    void (*rr)(void *l, void *c);
    void (*wa)(void *l, void *c);
    bool (*wt)(void *l, void *c);
    bool (*wu)(void *l, void *c, uint64_t deadline);
    void (*wr)(void *l, void *c);
    /* the blocking entries and unlock, one function per lock with the
     * lock's operations inlined (pl_rw_gen_ below) */
    int (*rdlock)(pthread_rwlock_t *rw);
    int (*wrlock)(pthread_rwlock_t *rw);
    int (*unlock)(pthread_rwlock_t *rw);
} pl_rwdef_t;

#define PL_RW_OPS_(id, nm)                                                     \
    static void pl_rw_init_##id(void *l, uint32_t p) { clof_##id##_init(l, p); } \
    static void pl_rw_sp_##id(void *l, uint32_t p) { clof_##id##_set_pref(l, p); } \
    static void pl_rw_ra_##id(void *l, void *c) { clof_##id##_read_acquire(l, c); } \
    static bool pl_rw_rt_##id(void *l, void *c) { return clof_##id##_read_tryacquire(l, c); } \
    static bool pl_rw_ru_##id(void *l, void *c, uint64_t d) { return clof_##id##_read_acquire_until(l, c, d); } \
    static void pl_rw_rr_##id(void *l, void *c) { clof_##id##_read_release(l, c); } \
    static void pl_rw_wa_##id(void *l, void *c) { clof_##id##_write_acquire(l, c); } \
    static bool pl_rw_wt_##id(void *l, void *c) { return clof_##id##_write_tryacquire(l, c); } \
    static bool pl_rw_wu_##id(void *l, void *c, uint64_t d) { return clof_##id##_write_acquire_until(l, c, d); } \
    static void pl_rw_wr_##id(void *l, void *c) { clof_##id##_write_release(l, c); }
CLOF_RW_LOCKS(PL_RW_OPS_)

/* ---- blocks and records -------------------------------------------------------- */
typedef struct pl_rwblk {
    clof_atomic32_t wowner;    /* write holder's tid, 0 when none */
    /* real-time writers blocked on this rwlock (pl_rw_rt_enter): their
     * number (low 16 bits) and the highest of their priorities since the
     * number was last 0 (high 16 bits); arriving readers wait on it */
    clof_atomic32_t rtw;
    pl_rwrec_t *wrec;          /* write holder's record */
    struct pl_rwblk *next_free;
    struct pl_rwblk *chunk_next; /* first block of a chunk: the next chunk */
    uint32_t chunk_n;          /* first block of a chunk: its blocks */
    uint32_t pref;             /* CLOF_RW_PREF_* given at install */
    /* the lock, on the next cache line: as large as the selected lock
     * (pl_rw_blksz), not as the largest */
    union pl_rwlk lk CLOF_CACHE_ALIGNED;
} CLOF_CACHE_ALIGNED pl_rwblk_t;
static size_t pl_rw_blksz; /* bytes per block, for the selected lock */

struct pl_rwrec {
    union pl_rwctx ctx;
    pl_rwblk_t *blk;   /* the rwlock this read hold is of */
    pl_rwrec_t *next;  /* read holds / free list */
} CLOF_CACHE_ALIGNED;

_Static_assert(sizeof(void *) <= 8, "the block pointer fits in __readers/__writers");

static const pl_rwdef_t *pl_rw;  /* NULL: glibc's rwlocks */
/* pl_rw once start-up is over (NULL before, and in glibc mode): the
 * exported entries' one test (acquire: what start-up set is visible) */
static const pl_rwdef_t *pl_rw_on;
static clof_atomic32_t pl_rw_state; /* PL_STATE_* */
static int32_t pl_rw_starter;
static uint32_t pl_rw_pref_writer = PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;

static clof_tas_t pl_rw_glock; /* the global free lists */
static pl_rwblk_t *pl_rw_free_blks;
static pl_rwblk_t *pl_rw_chunks; /* every chunk of blocks (fork child) */
static pl_rwrec_t *pl_rw_free_recs;
static pthread_key_t pl_rw_key;

/* statistics (CLOF_STATS=1) */
static uint64_t pl_rw_n_rd, pl_rw_n_wr, pl_rw_n_busy, pl_rw_n_timeouts, pl_rw_n_timed;
static uint64_t pl_rw_n_blocks;
#define PL_RW_COUNT(v)                                                         \
    do {                                                                       \
        if (CLOF_UNLIKELY(pl_stats_on))                                        \
            __atomic_fetch_add(&v, 1, __ATOMIC_RELAXED);                       \
    } while (0)

/* PL_LOCKFN: see pl_opaque.h (GCC may move loads of the free lists above
 * a lock function it can analyse) */
PL_LOCKFN void pl_rw_glock_acquire(void)
{
    clof_noctx_t c;
    clof_tas_acquire(&pl_rw_glock, &c);
}
PL_LOCKFN void pl_rw_glock_release(void)
{
    clof_noctx_t c;
    clof_tas_release(&pl_rw_glock, &c);
}

/* `want` bytes, or at least `min` of the library's reserve (*got says how
 * many), else wait for memory (pl_core.c): never NULL */
static void *pl_rw_map(size_t want, size_t min, size_t *got)
{
    void *p;
    while ((p = pl_map_min(want, min, got)) == NULL)
        pl_await_memory();
    return p;
}

#define PL_RW_CHUNK (64u * 1024u)

/* A block: a retired one as it is (*fresh = false), or a zeroed new one. */
static pl_rwblk_t *pl_rw_blk_get(bool *fresh)
{
    pl_rw_glock_acquire();
    pl_rwblk_t *b = pl_rw_free_blks;
    if (b != NULL) {
        pl_rw_free_blks = b->next_free;
        pl_rw_glock_release();
        *fresh = false;
        return b;
    }
    pl_rw_glock_release();
    size_t n = PL_RW_CHUNK / pl_rw_blksz, got;
    if (n < 1)
        n = 1;
    char *chunk = pl_rw_map(n * pl_rw_blksz, pl_rw_blksz, &got);
    n = got / pl_rw_blksz;
    pl_rw_glock_acquire();
    for (size_t i = 1; i < n; i++) {
        pl_rwblk_t *b2 = (pl_rwblk_t *)(void *)(chunk + i * pl_rw_blksz);
        b2->next_free = pl_rw_free_blks;
        pl_rw_free_blks = b2;
    }
    pl_rw_n_blocks += n;
    pl_rwblk_t *first = (pl_rwblk_t *)(void *)chunk;
    first->chunk_n = (uint32_t)n;
    first->chunk_next = pl_rw_chunks;
    pl_rw_chunks = first;
    pl_rw_glock_release();
    *fresh = true;
    return (pl_rwblk_t *)(void *)chunk;
}

static void pl_rw_thread_exit(void *arg)
{
    (void)arg;
    pl_rwrec_t *r = pl_rwt.free;
    if (r == NULL)
        return;
    pl_rwrec_t *last = r;
    while (last->next)
        last = last->next;
    pl_rw_glock_acquire();
    last->next = pl_rw_free_recs;
    pl_rw_free_recs = r;
    pl_rw_glock_release();
    pl_rwt.free = NULL;
}

static __attribute__((noinline)) pl_rwrec_t *pl_rw_rec_refill(void)
{
    if (!pl_rwt.armed) {
        pl_rwt.armed = 1;
        pthread_setspecific(pl_rw_key, (void *)1);
    }
    pl_rw_glock_acquire();
    pl_rwrec_t *r = pl_rw_free_recs;
    if (r != NULL) {
        pl_rw_free_recs = r->next;
        pl_rw_glock_release();
        return r;
    }
    pl_rw_glock_release();
    size_t n = PL_RW_CHUNK / sizeof(pl_rwrec_t), got;
    pl_rwrec_t *chunk = pl_rw_map(n * sizeof(pl_rwrec_t), 4 * sizeof(pl_rwrec_t), &got);
    n = got / sizeof(pl_rwrec_t);
    for (size_t i = 1; i < n; i++) {
        chunk[i].next = pl_rwt.free;
        pl_rwt.free = &chunk[i];
    }
    return &chunk[0];
}

static inline pl_rwrec_t *pl_rw_rec_get(void)
{
    pl_rwrec_t *r = pl_rwt.free;
    if (CLOF_LIKELY(r != NULL)) {
        pl_rwt.free = r->next;
        return r;
    }
    return pl_rw_rec_refill();
}

static inline void pl_rw_rec_put(pl_rwrec_t *r)
{
    r->next = pl_rwt.free;
    pl_rwt.free = r;
}

/* ---- glibc's functions ------------------------------------------------------------ */
static struct {
    int (*init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
    int (*destroy)(pthread_rwlock_t *);
    int (*rdlock)(pthread_rwlock_t *);
    int (*wrlock)(pthread_rwlock_t *);
    int (*tryrdlock)(pthread_rwlock_t *);
    int (*trywrlock)(pthread_rwlock_t *);
    int (*timedrdlock)(pthread_rwlock_t *, const struct timespec *);
    int (*timedwrlock)(pthread_rwlock_t *, const struct timespec *);
    int (*clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
    int (*clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
    int (*unlock)(pthread_rwlock_t *);
} pl_rwreal;

static void pl_rw_resolve(void)
{
    static const char *const v[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", NULL};
    static const char *const vc[] = {"GLIBC_2.34", "GLIBC_2.30", NULL};
#define PL_RWR(f, name, vv) *(void **)(&pl_rwreal.f) = pl_sym(name, vv)
    PL_RWR(init, "pthread_rwlock_init", v);
    PL_RWR(destroy, "pthread_rwlock_destroy", v);
    PL_RWR(rdlock, "pthread_rwlock_rdlock", v);
    PL_RWR(wrlock, "pthread_rwlock_wrlock", v);
    PL_RWR(tryrdlock, "pthread_rwlock_tryrdlock", v);
    PL_RWR(trywrlock, "pthread_rwlock_trywrlock", v);
    PL_RWR(timedrdlock, "pthread_rwlock_timedrdlock", v);
    PL_RWR(timedwrlock, "pthread_rwlock_timedwrlock", v);
    PL_RWR(clockrdlock, "pthread_rwlock_clockrdlock", vc);
    PL_RWR(clockwrlock, "pthread_rwlock_clockwrlock", vc);
    PL_RWR(unlock, "pthread_rwlock_unlock", v);
#undef PL_RWR
}

/* ---- start-up ----------------------------------------------------------------------- */
static void pl_rw_stats_print(void)
{
    if (!pl_stats_on || clof_atomic32_read_acq(&pl_rw_state) != PL_STATE_READY)
        return;
    if (pl_rw == NULL) {
        pl_say("clof-preload[%d]: rwlock=glibc (nothing replaced%s%s)", (int)getpid(),
               pl_rw_why[0] ? "; " : "", pl_rw_why);
        return;
    }
    pl_say("clof-preload[%d]: rwlock=%s rdlocks=%llu wrlocks=%llu busy=%llu timed=%llu "
              "timeouts=%llu blocks=%llu (%zu B each)%s%s",
              (int)getpid(), pl_rw->name,
              (unsigned long long)__atomic_load_n(&pl_rw_n_rd, __ATOMIC_RELAXED),
              (unsigned long long)__atomic_load_n(&pl_rw_n_wr, __ATOMIC_RELAXED),
              (unsigned long long)__atomic_load_n(&pl_rw_n_busy, __ATOMIC_RELAXED),
              (unsigned long long)__atomic_load_n(&pl_rw_n_timed, __ATOMIC_RELAXED),
              (unsigned long long)__atomic_load_n(&pl_rw_n_timeouts, __ATOMIC_RELAXED),
              (unsigned long long)pl_rw_n_blocks, pl_rw_blksz, pl_rw_why[0] ? "; " : "",
              pl_rw_why);
}

__attribute__((destructor)) static void pl_rw_fini(void)
{
    pl_rw_stats_print();
}

/* fork: the free lists' lock is held across fork (a child must not inherit
 * it held by a thread that does not exist there) */
static void pl_rw_fork_prepare(void)
{
    pl_rw_glock_acquire();
}
static void pl_rw_fork_after(void)
{
    pl_rw_glock_release();
}

/* What CLOF_RWLOCK selects: NULL = glibc (with a message when the name is
 * not known). */
static size_t pl_rw_ndefs(void);
static const pl_rwdef_t *pl_rw_def(size_t i);
static const pl_rwdef_t *pl_rw_select(const char *v)
{
    if (v == NULL || v[0] == 0)
        v = PL_DEFAULT_RWLOCK;
    if (!strcmp(v, "auto"))
        v = pl_rw_by_topology();
    /* the one grammar of lock names (src/lockname, docs/locks.md) */
    char name[CLOF_LOCKNAME_MAX];
    bool ok = clof_lockname_canon(v, name, sizeof name);
    if (ok && (!strcmp(name, "pthread") || !strcmp(name, "pthread-rwlock")))
        return NULL; /* glibc */
    for (size_t i = 0; ok && i < pl_rw_ndefs(); i++)
        if (!strcmp(pl_rw_def(i)->name, name))
            return pl_rw_def(i);
    char near[256];
    int k = clof_lockname_suggest(v,
                                  (clof_lockset_t){&pl_rw_def(0)->name, pl_rw_ndefs(),
                                                   sizeof(pl_rwdef_t)},
                                  3, near, sizeof near);
    pl_say("clof-preload: running on glibc's pthread rwlocks: unknown CLOF_RWLOCK='%.60s'%s%s%s "
           "(clof locks --family rw lists the names)",
           v, k ? "; did you mean " : "", near, k ? "?" : "");
    return NULL;
}

static __attribute__((noinline, cold)) void pl_rw_start(void)
{
    uint32_t s = clof_atomic32_read_acq(&pl_rw_state);
    if (s == PL_STATE_READY)
        return;
    if (s == PL_STATE_NEW &&
        clof_atomic32_cmpxchg(&pl_rw_state, PL_STATE_NEW, PL_STATE_STARTING) == PL_STATE_NEW) {
        pl_rw_starter = pl_tid();
        pl_ensure_started(); /* the mutexes first: CLOF_STATS, the topology's mutex */
        pl_rw_resolve();
        const pl_rwdef_t *d = pl_rw_select(getenv("CLOF_RWLOCK"));
        if (d != NULL && pthread_key_create(&pl_rw_key, pl_rw_thread_exit) != 0) {
            pl_say("clof-preload: no thread key for the rwlocks; running on glibc's "
                      "pthread rwlocks");
            d = NULL;
        }
        if (d != NULL) {
            /* loaded now, not inside a lock's first use */
            const clof_topology_t *t = clof_topology();
            for (uint32_t lv = CLOF_RW_LEVEL_NUMA; lv <= CLOF_RW_LEVEL_NONE; lv++)
                if (clof_rw_one_slot(t, lv))
                    pl_rw_one_slot |= 1u << lv;
            pthread_atfork(pl_rw_fork_prepare, pl_rw_fork_after, pl_rw_fork_after);
        }
        if (d != NULL)
            pl_rw_blksz = (offsetof(pl_rwblk_t, lk) + d->size + CLOF_CACHELINE - 1) /
                          CLOF_CACHELINE * CLOF_CACHELINE;
        pl_rw = d;
        clof_atomic32_write_rel(&pl_rw_state, PL_STATE_READY);
        __atomic_store_n(&pl_rw_on, d, __ATOMIC_RELEASE);
        return;
    }
    /* a call of the starting thread from inside start-up (dlsym, getenv and
     * the topology do not take rwlocks; if something did, it would see
     * glibc's functions, resolved first) */
    if (pl_rw_starter == pl_tid())
        return;
    while (clof_atomic32_read_acq(&pl_rw_state) != PL_STATE_READY)
        sched_yield();
}

/* The lock of rwlock rw: NULL when it is glibc's (glibc mode, process-
 * shared, or start-up still running in this very thread). */
static inline bool pl_rw_ready(void)
{
    if (CLOF_UNLIKELY(clof_atomic32_read_acq(&pl_rw_state) != PL_STATE_READY)) {
        pl_rw_start();
        if (clof_atomic32_read_acq(&pl_rw_state) != PL_STATE_READY)
            return false;
    }
    return pl_rw != NULL;
}

static inline bool pl_rw_is_glibcs(const pthread_rwlock_t *rw)
{
    return rw->__data.__shared != 0;
}

typedef CLOF_ATOMICPTR(pl_rwblk_t) pl_rwblk_ptr_t;
static inline pl_rwblk_ptr_t *pl_rw_slot(pthread_rwlock_t *rw)
{
    return (pl_rwblk_ptr_t *)(void *)rw;
}

static __attribute__((noinline)) pl_rwblk_t *pl_rw_install(pthread_rwlock_t *rw)
{
    bool fresh;
    pl_rwblk_t *b = pl_rw_blk_get(&fresh);
    uint32_t pref = (uint32_t)rw->__data.__flags == pl_rw_pref_writer ? CLOF_RW_PREF_WRITER
                                                                     : CLOF_RW_PREF_READER;
    if (fresh) {
        pl_rw->init(&b->lk, pref);
    } else {
        /* a retired block, unlocked: keep what its lock built (a writer
         * lock's tree), set the preference */
        pl_rw->set_pref(&b->lk, pref);
    }
    clof_atomic32_write_rlx(&b->wowner, 0);
    b->wrec = NULL;
    b->pref = pref;
    pl_rwblk_t *old = clof_atomicptr_cmpxchg(pl_rw_slot(rw), NULL, b);
    if (old == NULL)
        return b;
    pl_rw_glock_acquire(); /* another thread installed one first */
    b->next_free = pl_rw_free_blks;
    pl_rw_free_blks = b;
    pl_rw_glock_release();
    return old;
}

static inline pl_rwblk_t *pl_rw_blk(pthread_rwlock_t *rw)
{
    pl_rwblk_t *b = clof_atomicptr_read_acq(pl_rw_slot(rw));
    if (CLOF_LIKELY(b != NULL))
        return b;
    return pl_rw_install(rw);
}

/* ---- real-time priorities ------------------------------------------------------------
 * POSIX (pthread_rwlock_rdlock, with the Thread Execution Scheduling
 * option): when the threads run under SCHED_FIFO or SCHED_RR, a reader that
 * does not already hold a read lock of the rwlock does not acquire it while
 * a writer of higher or equal priority is blocked on it.  The RW locks'
 * reader preference lets arriving readers in while a writer waits for the
 * readers inside, and BRAVO's revoking writer waits for its fast readers
 * with the underlying lock released, so that any reader may enter then.
 * Hence, in this layer, for every RW lock: a writer that has to block and
 * runs under SCHED_FIFO or SCHED_RR registers on the rwlock's block for the
 * time it waits (rtw: how many, and their highest priority), and in the
 * process-wide count pl_rw_rt_blocked.  A reader looks at the block only
 * when that count is not 0 (one load of a line that only real-time writers
 * write, when they block), and then waits while a registered writer's
 * priority is >= its own (a thread under another policy counts as lower
 * than every real-time one), unless it holds a read lock of the rwlock (a
 * recursive read) or the write lock (EDEADLK follows).  The highest
 * priority is kept until no real-time writer is left: a reader may wait
 * for a writer of higher priority that has already gone while one of lower
 * priority still waits (it waits longer than POSIX requires, never less). */
static uint32_t pl_rw_rt_blocked;
#define PL_RW_RT_COUNT 0xffffu

/* the calling thread's real-time priority, 0 when it is not real-time */
static uint32_t pl_rw_rt_prio(void)
{
    int pol = sched_getscheduler(0);
    struct sched_param sp;
    if ((pol != SCHED_FIFO && pol != SCHED_RR) || sched_getparam(0, &sp) != 0)
        return 0;
    return sp.sched_priority > 0 ? (uint32_t)sp.sched_priority : 0;
}

/* A writer about to block: true when it registered (it runs real-time). */
static __attribute__((noinline)) bool pl_rw_rt_enter(pl_rwblk_t *b)
{
    uint32_t p = pl_rw_rt_prio();
    if (p == 0)
        return false;
    __atomic_fetch_add(&pl_rw_rt_blocked, 1, __ATOMIC_SEQ_CST);
    uint32_t w = clof_atomic32_read_rlx(&b->rtw), seen;
    for (;;) {
        uint32_t hi = w >> 16 > p ? w >> 16 : p;
        seen = clof_atomic32_cmpxchg(&b->rtw, w, hi << 16 | ((w & PL_RW_RT_COUNT) + 1u));
        if (seen == w)
            return true;
        w = seen;
    }
}

/* The registered writer has acquired or given up: readers re-check. */
static __attribute__((noinline)) void pl_rw_rt_leave(pl_rwblk_t *b)
{
    uint32_t w = clof_atomic32_read_rlx(&b->rtw), seen;
    for (;;) {
        uint32_t n = (w & PL_RW_RT_COUNT) - 1u;
        seen = clof_atomic32_cmpxchg(&b->rtw, w, n == 0 ? 0 : (w & ~PL_RW_RT_COUNT) | n);
        if (seen == w)
            break;
        w = seen;
    }
    __atomic_fetch_sub(&pl_rw_rt_blocked, 1, __ATOMIC_SEQ_CST);
    pl_futex_wake(&b->rtw._v, INT32_MAX, false);
}

/* ---- fork ----------------------------------------------------------------------------
 * In the child only the forking thread runs.  A rwlock it holds (the
 * pthread_atfork pattern: the prepare handler write-locks, the child
 * handler unlocks) may have the parent's other threads queued in it, and
 * records its write holder by the parent's thread id: its block gets a
 * fresh lock, taken again for the forking thread's holds (write, or each of
 * its read holds), the write hold under its new id.  Real-time writers
 * registered by the parent's threads, and BRAVO's visible readers (slots of
 * threads that do not exist here, or the forking thread's, taken again
 * below), are forgotten.  A rwlock held only by threads that did not
 * survive stays held, as with glibc (a BRAVO fast read hold excepted: it
 * was a table slot).  Called by pl_fork_child (the child handler the
 * library registers first, before any of the program's); old is the
 * forking thread's id in the parent, now its id here. */
void pl_rw_fork_child(int32_t old, int32_t now)
{
    if (clof_atomic32_read_acq(&pl_rw_state) != PL_STATE_READY || pl_rw == NULL)
        return;
    /* (written only where not already zero: the child's pages stay shared
     * with the parent's unless something changes) */
    __atomic_store_n(&pl_rw_rt_blocked, 0, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < CLOF_BRAVO_SLOTS; i++)
        if (clof_atomicptr_read_rlx(&clof_bravo_table[i]) != NULL)
            clof_atomicptr_write_rlx(&clof_bravo_table[i], NULL);
    for (pl_rwblk_t *c = pl_rw_chunks; c != NULL; c = c->chunk_next) {
        for (uint32_t i = 0; i < c->chunk_n; i++) {
            pl_rwblk_t *b = (pl_rwblk_t *)(void *)((char *)c + i * pl_rw_blksz);
            if (clof_atomic32_read_rlx(&b->rtw) != 0)
                clof_atomic32_write_rlx(&b->rtw, 0);
            bool w = old != 0 && (int32_t)clof_atomic32_read_rlx(&b->wowner) == old;
            bool r = false;
            for (pl_rwrec_t *h = pl_rwt.held; h != NULL && !r; h = h->next)
                r = h->blk == b;
            if (!w && !r)
                continue;
            /* the old lock state is dropped, not destroyed (what it built
             * is a leak in the child, never a lock that stays held) */
            memset(&b->lk, 0, pl_rw_blksz - offsetof(pl_rwblk_t, lk));
            pl_rw->init(&b->lk, b->pref);
            if (w) {
                pl_rw->wa(&b->lk, &b->wrec->ctx);
                clof_atomic32_write_rlx(&b->wowner, (uint32_t)now);
            }
            for (pl_rwrec_t *h = pl_rwt.held; h != NULL; h = h->next)
                if (h->blk == b)
                    pl_rw->ra(&b->lk, &h->ctx);
        }
    }
}

/* A reader, while real-time writers are blocked somewhere: 0 when it may
 * try the lock, else EBUSY (mode 1) or ETIMEDOUT (mode 2). */
static __attribute__((noinline, cold)) int pl_rw_rt_wait(pl_rwblk_t *b, int mode,
                                                        uint64_t deadline)
{
    uint32_t w = clof_atomic32_read(&b->rtw);
    if ((w & PL_RW_RT_COUNT) == 0 || clof_atomic32_read_rlx(&b->wowner) == (uint32_t)pl_tid())
        return 0;
    for (pl_rwrec_t *r = pl_rwt.held; r != NULL; r = r->next)
        if (r->blk == b)
            return 0;
    uint32_t mine = pl_rw_rt_prio();
    for (;;) {
        w = clof_atomic32_read(&b->rtw);
        if ((w & PL_RW_RT_COUNT) == 0 || w >> 16 < mine)
            return 0;
        if (mode == 1)
            return EBUSY;
        struct timespec ts, *tsp = NULL;
        if (mode == 2) {
            if (clof_now_ns() >= deadline)
                return ETIMEDOUT;
            ts.tv_sec = (time_t)(deadline / 1000000000u);
            ts.tv_nsec = (long)(deadline % 1000000000u);
            tsp = &ts;
        }
        (void)pl_futex_wait(&b->rtw._v, w, CLOCK_MONOTONIC, tsp, false);
    }
}

/* ---- the operations ------------------------------------------------------------------ */

/* abs on clock clk (glibc's two) -> a deadline on clof_now_ns's clock
 * (CLOCK_MONOTONIC).  EINVAL for what glibc refuses, before any try. */
static int pl_rw_deadline(clockid_t clk, const struct timespec *abs, uint64_t *deadline)
{
    if ((clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) || abs == NULL || !pl_ts_valid(abs))
        return EINVAL;
    struct timespec now;
    clock_gettime(clk, &now);
    int64_t left = ((int64_t)abs->tv_sec - (int64_t)now.tv_sec) * 1000000000LL +
                   ((int64_t)abs->tv_nsec - (int64_t)now.tv_nsec);
    *deadline = left <= 0 ? 0 : clof_now_ns() + (uint64_t)left;
    return 0;
}

/* mode: 0 blocking, 1 try, 2 timed (deadline).  Always inlined: the
 * blocking entries are generated per lock (pl_rw_gen_), with d's
 * operations known at compile time and inlined; the try and timed entries
 * call them through d. */
#define PL_RW_INLINE static inline __attribute__((always_inline))
PL_RW_INLINE int pl_rw_rd_(const pl_rwdef_t *d, pthread_rwlock_t *rw, int mode,
                           uint64_t deadline)
{
    pl_rwblk_t *b = pl_rw_blk(rw);
    if (CLOF_UNLIKELY(__atomic_load_n(&pl_rw_rt_blocked, __ATOMIC_RELAXED) != 0)) {
        int e = pl_rw_rt_wait(b, mode, deadline);
        if (e != 0) {
            PL_RW_COUNT(*(mode == 1 ? &pl_rw_n_busy : &pl_rw_n_timeouts));
            return e;
        }
    }
    pl_rwrec_t *r = pl_rw_rec_get();
    /* A try first, and only when it fails the test for EDEADLK: a thread
     * that holds the write lock never gets a read try (the writer's flag or
     * bit is up, a BRAVO bias is down), and the reader's fast path then
     * does not read the block's line, which every writer writes. */
    bool ok = d->rt(&b->lk, &r->ctx);
    if (CLOF_UNLIKELY(!ok)) {
        if (clof_atomic32_read_rlx(&b->wowner) == (uint32_t)pl_tid()) {
            pl_rw_rec_put(r);
            return mode == 1 ? EBUSY : EDEADLK;
        }
        if (mode == 0) {
            d->ra(&b->lk, &r->ctx);
            ok = true;
        } else if (mode == 2) {
            ok = d->ru(&b->lk, &r->ctx, deadline);
        }
    }
    if (CLOF_UNLIKELY(!ok)) {
        pl_rw_rec_put(r);
        PL_RW_COUNT(*(mode == 1 ? &pl_rw_n_busy : &pl_rw_n_timeouts));
        return mode == 1 ? EBUSY : ETIMEDOUT;
    }
    r->blk = b;
    r->next = pl_rwt.held;
    pl_rwt.held = r;
    PL_RW_COUNT(pl_rw_n_rd);
    return 0;
}

PL_RW_INLINE int pl_rw_wr_(const pl_rwdef_t *d, pthread_rwlock_t *rw, int mode,
                           uint64_t deadline)
{
    pl_rwblk_t *b = pl_rw_blk(rw);
    int32_t me = pl_tid();
    if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&b->wowner) == (uint32_t)me))
        return mode == 1 ? EBUSY : EDEADLK;
    pl_rwrec_t *r = pl_rw_rec_get();
    /* a try first: a writer that has to block registers if it runs
     * real-time (pl_rw_rt_enter) */
    bool ok = d->wt(&b->lk, &r->ctx);
    if (!ok && mode != 1) {
        bool rt = pl_rw_rt_enter(b);
        if (mode == 0) {
            d->wa(&b->lk, &r->ctx);
            ok = true;
        } else {
            ok = d->wu(&b->lk, &r->ctx, deadline);
        }
        if (rt)
            pl_rw_rt_leave(b);
    }
    if (CLOF_UNLIKELY(!ok)) {
        pl_rw_rec_put(r);
        PL_RW_COUNT(*(mode == 1 ? &pl_rw_n_busy : &pl_rw_n_timeouts));
        return mode == 1 ? EBUSY : ETIMEDOUT;
    }
    b->wrec = r;
    clof_atomic32_write_rlx(&b->wowner, (uint32_t)me);
    PL_RW_COUNT(pl_rw_n_wr);
    return 0;
}

/* Unlock: one of the thread's read holds, else the write hold (holder's tid
 * == ours), else EPERM with nothing touched. */
PL_RW_INLINE int pl_rw_unlock_(const pl_rwdef_t *d, pthread_rwlock_t *rw)
{
    pl_rwblk_t *b = clof_atomicptr_read_acq(pl_rw_slot(rw));
    if (CLOF_UNLIKELY(b == NULL))
        return EPERM;
    /* the thread's read holds first: a thread never holds both (rdlock by
     * the writer is EDEADLK, wrlock by a reader does not return), and a
     * read unlock then does not read the block's line */
    pl_rwrec_t **pp = &pl_rwt.held;
    for (pl_rwrec_t *r = *pp; r != NULL; pp = &r->next, r = *pp) {
        if (r->blk == b) {
            *pp = r->next;
            d->rr(&b->lk, &r->ctx);
            pl_rw_rec_put(r);
            return 0;
        }
    }
    if (clof_atomic32_read_rlx(&b->wowner) == (uint32_t)pl_tid()) {
        pl_rwrec_t *r = b->wrec;
        b->wrec = NULL;
        clof_atomic32_write_rlx(&b->wowner, 0);
        d->wr(&b->lk, &r->ctx);
        pl_rw_rec_put(r);
        return 0;
    }
    return EPERM; /* not held by this thread */
}

/* The lock table: the type-erased operations, and per lock the blocking
 * entries with its operations inlined (what the exported functions call
 * through pl_rw_on, one indirect call). */
#define PL_RW_DEF0_(id, nm)                                                    \
    {nm, sizeof(clof_##id##_t), pl_rw_init_##id, pl_rw_sp_##id, pl_rw_ra_##id,  \
     pl_rw_rt_##id, pl_rw_ru_##id, pl_rw_rr_##id, pl_rw_wa_##id, pl_rw_wt_##id,   \
     pl_rw_wu_##id, pl_rw_wr_##id, NULL, NULL, NULL}
#define PL_RW_GEN_(id, nm)                                                     \
    static const pl_rwdef_t pl_rw_def0_##id = PL_RW_DEF0_(id, nm);            \
    static int pl_rw_rdlock_##id(pthread_rwlock_t *rw)                         \
    {                                                                          \
        return pl_rw_rd_(&pl_rw_def0_##id, rw, 0, 0);                          \
    }                                                                          \
    static int pl_rw_wrlock_##id(pthread_rwlock_t *rw)                         \
    {                                                                          \
        return pl_rw_wr_(&pl_rw_def0_##id, rw, 0, 0);                          \
    }                                                                          \
    static int pl_rw_unlock_##id(pthread_rwlock_t *rw)                         \
    {                                                                          \
        return pl_rw_unlock_(&pl_rw_def0_##id, rw);                            \
    }
CLOF_RW_LOCKS(PL_RW_GEN_)
#define PL_RW_DEF_(id, nm)                                                     \
    {nm, sizeof(clof_##id##_t), pl_rw_init_##id, pl_rw_sp_##id, pl_rw_ra_##id,  \
     pl_rw_rt_##id, pl_rw_ru_##id, pl_rw_rr_##id, pl_rw_wa_##id, pl_rw_wt_##id,   \
     pl_rw_wu_##id, pl_rw_wr_##id, pl_rw_rdlock_##id, pl_rw_wrlock_##id,         \
     pl_rw_unlock_##id},
static const pl_rwdef_t pl_rwdefs[] = {CLOF_RW_LOCKS(PL_RW_DEF_)};
static size_t pl_rw_ndefs(void)
{
    return sizeof pl_rwdefs / sizeof pl_rwdefs[0];
}
static const pl_rwdef_t *pl_rw_def(size_t i)
{
    return &pl_rwdefs[i];
}

static inline int pl_rw_rd(pthread_rwlock_t *rw, int mode, uint64_t deadline)
{
    return pl_rw_rd_(pl_rw, rw, mode, deadline);
}
static inline int pl_rw_wr(pthread_rwlock_t *rw, int mode, uint64_t deadline)
{
    return pl_rw_wr_(pl_rw, rw, mode, deadline);
}

PL_EXPORT int pl_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *a)
{
    if (CLOF_UNLIKELY(pl_prof_track))
        pl_prof_track_new(rw, PL_PROF_RWLOCK); /* lock tracking: a new lock here */
    if (!pl_rw_ready())
        return pl_rwreal.init ? pl_rwreal.init(rw, a) : 0;
    int kind = PTHREAD_RWLOCK_DEFAULT_NP;
    if (a != NULL) {
        int v;
        if (pthread_rwlockattr_getpshared(a, &v) == 0 && v == PTHREAD_PROCESS_SHARED)
            return pl_rwreal.init(rw, a);
        if (pthread_rwlockattr_getkind_np(a, &kind) != 0)
            return EINVAL;
    }
    memset(rw, 0, sizeof *rw);
    rw->__data.__flags = (__typeof__(rw->__data.__flags))kind;
    return 0;
}

/* Whether a block's lock is held (write, or read by any thread). */
static bool pl_rw_blk_held(pl_rwblk_t *b)
{
    if (clof_atomic32_read_rlx(&b->wowner) != 0)
        return true;
    for (pl_rwrec_t *r = pl_rwt.held; r != NULL; r = r->next)
        if (r->blk == b)
            return true;
    /* read holds of other threads: the lock's own state is not uniform
     * across the algorithms; a write try tells */
    pl_rwrec_t *r = pl_rw_rec_get();
    bool free_ = pl_rw->wt(&b->lk, &r->ctx);
    if (free_)
        pl_rw->wr(&b->lk, &r->ctx);
    pl_rw_rec_put(r);
    return !free_;
}

/* Destroy: the block goes back into the pool unless its lock is still held
 * (POSIX leaves destroying a held rwlock undefined; glibc lets the memory
 * be initialised again and used, as glibc's tst-rwlock6 does: write-lock,
 * destroy, init, write-lock).  A held block is retired, never reused: one
 * block left to the holders, where reusing it would hand the next rwlock a
 * lock that is taken. */
PL_EXPORT int pl_rwlock_destroy(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(pl_prof_track))
        pl_prof_track_new(rw, PL_PROF_RWLOCK);
    if (!pl_rw_ready() || pl_rw_is_glibcs(rw))
        return pl_rwreal.destroy ? pl_rwreal.destroy(rw) : 0;
    pl_rwblk_t *b = clof_atomicptr_xchg(pl_rw_slot(rw), NULL);
    if (b != NULL && !pl_rw_blk_held(b)) {
        pl_rw_glock_acquire();
        b->next_free = pl_rw_free_blks;
        pl_rw_free_blks = b;
        pl_rw_glock_release();
    }
    return 0;
}

static __attribute__((noinline)) int pl_rwlock_rdlock_slow(pthread_rwlock_t *rw)
{
    if (!pl_rw_ready() || pl_rw_is_glibcs(rw))
        return pl_rwreal.rdlock ? pl_rwreal.rdlock(rw) : 0;
    return pl_rw->rdlock(rw);
}
static inline int pl_rw_op_rdlock(pthread_rwlock_t *rw)
{
    const pl_rwdef_t *d = __atomic_load_n(&pl_rw_on, __ATOMIC_ACQUIRE);
    if (CLOF_LIKELY(d != NULL && !pl_rw_is_glibcs(rw)))
        return d->rdlock(rw);
    return pl_rwlock_rdlock_slow(rw);
}

static int pl_rw_op_tryrdlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(!pl_rw_ready() || pl_rw_is_glibcs(rw)))
        return pl_rwreal.tryrdlock ? pl_rwreal.tryrdlock(rw) : 0;
    return pl_rw_rd(rw, 1, 0);
}

static __attribute__((noinline)) int pl_rwlock_wrlock_slow(pthread_rwlock_t *rw)
{
    if (!pl_rw_ready() || pl_rw_is_glibcs(rw))
        return pl_rwreal.wrlock ? pl_rwreal.wrlock(rw) : 0;
    return pl_rw->wrlock(rw);
}
static inline int pl_rw_op_wrlock(pthread_rwlock_t *rw)
{
    const pl_rwdef_t *d = __atomic_load_n(&pl_rw_on, __ATOMIC_ACQUIRE);
    if (CLOF_LIKELY(d != NULL && !pl_rw_is_glibcs(rw)))
        return d->wrlock(rw);
    return pl_rwlock_wrlock_slow(rw);
}

static int pl_rw_op_trywrlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(!pl_rw_ready() || pl_rw_is_glibcs(rw)))
        return pl_rwreal.trywrlock ? pl_rwreal.trywrlock(rw) : 0;
    return pl_rw_wr(rw, 1, 0);
}

static int pl_rw_op_clockrdlock(pthread_rwlock_t *rw, clockid_t clk,
                                    const struct timespec *abs)
{
    if (CLOF_UNLIKELY(!pl_rw_ready() || pl_rw_is_glibcs(rw)))
        return pl_rwreal.clockrdlock ? pl_rwreal.clockrdlock(rw, clk, abs) : EINVAL;
    uint64_t d;
    int e = pl_rw_deadline(clk, abs, &d);
    if (e != 0)
        return e;
    PL_RW_COUNT(pl_rw_n_timed);
    return pl_rw_rd(rw, 2, d);
}

static int pl_rw_op_clockwrlock(pthread_rwlock_t *rw, clockid_t clk,
                                    const struct timespec *abs)
{
    if (CLOF_UNLIKELY(!pl_rw_ready() || pl_rw_is_glibcs(rw)))
        return pl_rwreal.clockwrlock ? pl_rwreal.clockwrlock(rw, clk, abs) : EINVAL;
    uint64_t d;
    int e = pl_rw_deadline(clk, abs, &d);
    if (e != 0)
        return e;
    PL_RW_COUNT(pl_rw_n_timed);
    return pl_rw_wr(rw, 2, d);
}

/* The exported acquisitions: the operations above, or the profiling mode's
 * wrappers around them (CLOF_PROFILE, pl_profile.c), which try first and
 * time the wait when the try fails. */
#define PL_RW_PC() __builtin_return_address(0)

PL_EXPORT int pl_rwlock_rdlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_lock(rw, false, pl_rw_op_tryrdlock, pl_rw_op_rdlock, PL_RW_PC());
    return pl_rw_op_rdlock(rw);
}

PL_EXPORT int pl_rwlock_wrlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_lock(rw, true, pl_rw_op_trywrlock, pl_rw_op_wrlock, PL_RW_PC());
    return pl_rw_op_wrlock(rw);
}

PL_EXPORT int pl_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_try(rw, false, pl_rw_op_tryrdlock, PL_RW_PC());
    return pl_rw_op_tryrdlock(rw);
}

PL_EXPORT int pl_rwlock_trywrlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_try(rw, true, pl_rw_op_trywrlock, PL_RW_PC());
    return pl_rw_op_trywrlock(rw);
}

PL_EXPORT int pl_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clk,
                                    const struct timespec *abs)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_timed(rw, false, pl_rw_op_tryrdlock, pl_rw_op_clockrdlock, clk, abs,
                                PL_RW_PC());
    return pl_rw_op_clockrdlock(rw, clk, abs);
}

PL_EXPORT int pl_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clk,
                                    const struct timespec *abs)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_timed(rw, true, pl_rw_op_trywrlock, pl_rw_op_clockwrlock, clk, abs,
                                PL_RW_PC());
    return pl_rw_op_clockwrlock(rw, clk, abs);
}

static int pl_rw_op_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abs)
{
    if (CLOF_UNLIKELY(!pl_rw_ready() || pl_rw_is_glibcs(rw)))
        return pl_rwreal.timedrdlock ? pl_rwreal.timedrdlock(rw, abs) : EINVAL;
    return pl_rw_op_clockrdlock(rw, CLOCK_REALTIME, abs);
}

PL_EXPORT int pl_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abs)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_timed(rw, false, pl_rw_op_tryrdlock, pl_rw_op_clockrdlock,
                                CLOCK_REALTIME, abs, PL_RW_PC());
    return pl_rw_op_timedrdlock(rw, abs);
}

static int pl_rw_op_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abs)
{
    if (CLOF_UNLIKELY(!pl_rw_ready() || pl_rw_is_glibcs(rw)))
        return pl_rwreal.timedwrlock ? pl_rwreal.timedwrlock(rw, abs) : EINVAL;
    return pl_rw_op_clockwrlock(rw, CLOCK_REALTIME, abs);
}

PL_EXPORT int pl_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abs)
{
    if (CLOF_UNLIKELY(pl_prof_on))
        return pl_prof_rw_timed(rw, true, pl_rw_op_trywrlock, pl_rw_op_clockwrlock,
                                CLOCK_REALTIME, abs, PL_RW_PC());
    return pl_rw_op_timedwrlock(rw, abs);
}

static __attribute__((noinline)) int pl_rwlock_unlock_slow(pthread_rwlock_t *rw)
{
    if (!pl_rw_ready() || pl_rw_is_glibcs(rw))
        return pl_rwreal.unlock ? pl_rwreal.unlock(rw) : 0;
    return pl_rw->unlock(rw);
}
PL_EXPORT int pl_rwlock_unlock(pthread_rwlock_t *rw)
{
    if (CLOF_UNLIKELY(pl_prof_track))
        pl_prof_track_rw_unlock(rw); /* lock tracking: leaves the held set */
    const pl_rwdef_t *d = __atomic_load_n(&pl_rw_on, __ATOMIC_ACQUIRE);
    if (CLOF_LIKELY(d != NULL && !pl_rw_is_glibcs(rw)))
        return d->unlock(rw);
    return pl_rwlock_unlock_slow(rw);
}

#if defined(PL_GLIBC_BASE)
#define PL_RW_ALIAS(to, from)                                                  \
    extern __typeof__(from) to __attribute__((alias(#from), visibility("default")));
PL_RW_ALIAS(pl_rwlock_init_b, pl_rwlock_init)
PL_RW_ALIAS(pl_rwlock_destroy_b, pl_rwlock_destroy)
PL_RW_ALIAS(pl_rwlock_rdlock_b, pl_rwlock_rdlock)
PL_RW_ALIAS(pl_rwlock_wrlock_b, pl_rwlock_wrlock)
PL_RW_ALIAS(pl_rwlock_tryrdlock_b, pl_rwlock_tryrdlock)
PL_RW_ALIAS(pl_rwlock_trywrlock_b, pl_rwlock_trywrlock)
PL_RW_ALIAS(pl_rwlock_timedrdlock_b, pl_rwlock_timedrdlock)
PL_RW_ALIAS(pl_rwlock_timedwrlock_b, pl_rwlock_timedwrlock)
PL_RW_ALIAS(pl_rwlock_unlock_b, pl_rwlock_unlock)
PL_RW_ALIAS(pl_rwlock_clockrdlock_230, pl_rwlock_clockrdlock)
PL_RW_ALIAS(pl_rwlock_clockwrlock_230, pl_rwlock_clockwrlock)
PL_RW_ALIAS(pl_rwlock_init_c, pl_rwlock_init)
PL_RW_ALIAS(pl_rwlock_destroy_c, pl_rwlock_destroy)
PL_RW_ALIAS(pl_rwlock_rdlock_c, pl_rwlock_rdlock)
PL_RW_ALIAS(pl_rwlock_wrlock_c, pl_rwlock_wrlock)
PL_RW_ALIAS(pl_rwlock_tryrdlock_c, pl_rwlock_tryrdlock)
PL_RW_ALIAS(pl_rwlock_trywrlock_c, pl_rwlock_trywrlock)
PL_RW_ALIAS(pl_rwlock_unlock_c, pl_rwlock_unlock)
/* every version glibc has, its default (2.34) as default; the __ names are
 * glibc < 2.34's exports that old binaries may call */
#define PL_RW_V2(f)                                                            \
    ".symver pl_rwlock_" #f ", pthread_rwlock_" #f "@@GLIBC_2.34\n"            \
    ".symver pl_rwlock_" #f "_b, pthread_rwlock_" #f "@" PL_GLIBC_BASE "\n"
#define PL_RW_OLD(f) ".symver pl_rwlock_" #f "_c, __pthread_rwlock_" #f "@" PL_GLIBC_BASE "\n"
__asm__(PL_RW_V2(init) PL_RW_V2(destroy) PL_RW_V2(rdlock) PL_RW_V2(wrlock)
        PL_RW_V2(tryrdlock) PL_RW_V2(trywrlock) PL_RW_V2(timedrdlock)
        PL_RW_V2(timedwrlock) PL_RW_V2(unlock)
        ".symver pl_rwlock_clockrdlock, pthread_rwlock_clockrdlock@@GLIBC_2.34\n"
        ".symver pl_rwlock_clockrdlock_230, pthread_rwlock_clockrdlock@GLIBC_2.30\n"
        ".symver pl_rwlock_clockwrlock, pthread_rwlock_clockwrlock@@GLIBC_2.34\n"
        ".symver pl_rwlock_clockwrlock_230, pthread_rwlock_clockwrlock@GLIBC_2.30\n"
        PL_RW_OLD(init) PL_RW_OLD(destroy) PL_RW_OLD(rdlock) PL_RW_OLD(wrlock)
        PL_RW_OLD(tryrdlock) PL_RW_OLD(trywrlock) PL_RW_OLD(unlock));
#else
#define PL_RW_UNV(f)                                                           \
    extern __typeof__(pl_rwlock_##f) pthread_rwlock_##f                        \
        __attribute__((alias("pl_rwlock_" #f), visibility("default")));
PL_RW_UNV(init)
PL_RW_UNV(destroy)
PL_RW_UNV(rdlock)
PL_RW_UNV(wrlock)
PL_RW_UNV(tryrdlock)
PL_RW_UNV(trywrlock)
PL_RW_UNV(timedrdlock)
PL_RW_UNV(timedwrlock)
PL_RW_UNV(clockrdlock)
PL_RW_UNV(clockwrlock)
PL_RW_UNV(unlock)
#endif

/* ---- introspection (clof/preload.h) ------------------------------------------------ */
/* the rwlock in use, without starting anything (the profile's header: may
 * run in a signal handler) */
const char *pl_rw_name_now(void)
{
    if (clof_atomic32_read_acq(&pl_rw_state) != PL_STATE_READY || pl_rw == NULL)
        return "glibc";
    return pl_rw->name;
}

PL_EXPORT const char *clof_preload_rwlock(void)
{
    if (!pl_rw_ready())
        return "glibc";
    return pl_rw->name;
}

PL_EXPORT int clof_preload_rwlock_held(const pthread_rwlock_t *rw)
{
    if (!pl_rw_ready() || pl_rw_is_glibcs(rw))
        return 0;
    pl_rwblk_t *b = clof_atomicptr_read_acq(pl_rw_slot((pthread_rwlock_t *)(uintptr_t)rw));
    return b != NULL && pl_rw_blk_held(b) ? 1 : 0;
}
