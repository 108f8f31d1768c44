/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_core.c -- configuration, start-up, glibc's functions,
 * per-thread state, memory pools, fork and statistics of libclof-preload.so.
 *
 * Start-up is lazy: the first interposed call from anywhere (another
 * library's constructor included, before ours has run) configures the
 * library; our constructor only makes sure that happens at load time when
 * nobody called earlier.  Nothing here allocates with malloc: the contexts
 * and lock blocks come from mmap'd pools, so a malloc that itself takes
 * pthread mutexes (jemalloc, tcmalloc) cannot recurse into us.
 */
#include "pl_internal.h"
#include "pl_opaque.h"
#include "pl_profile.h"
#include <clof/preload.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>

PL_TLS pl_tls_t pl_tls;
PL_TLS uint64_t pl_parks;
PL_TLS uint64_t pl_levels[PL_MAX_LEVELS];

clof_atomic32_t pl_state;
bool pl_glibc_mode;
bool pl_glibc_adaptive;
bool pl_stats_on;
const pl_lockdef_t *pl_lock;
clof_atomic32_t pl_fork_gen;
pl_real_t pl_real;

/* ---- the global lock: pools and registry --------------------------------------
 * Short critical sections only.  Held by the forking thread across fork
 * (prepare .. parent/child); code of that thread running in between (other
 * libraries' atfork handlers that lock mutexes) passes through. */
static clof_tas_t pl_glock;
static int32_t pl_fork_holder;

/* The lock functions are PL_LOCKFN (pl_opaque.h): opaque to GCC's analysis
 * of statics, which otherwise lets a load of the pool head move above the
 * acquire (it did: pl_box_give_back, aarch64 gcc 12). */

static bool pl_glock_forker(void)
{
    int32_t h = __atomic_load_n(&pl_fork_holder, __ATOMIC_RELAXED);
    return CLOF_UNLIKELY(h != 0) && h == pl_tid();
}
PL_LOCKFN void pl_glock_acquire(void)
{
    if (pl_glock_forker())
        return;
    clof_noctx_t c;
    clof_tas_acquire(&pl_glock, &c);
}
PL_LOCKFN void pl_glock_release(void)
{
    if (pl_glock_forker())
        return;
    clof_noctx_t c;
    clof_tas_release(&pl_glock, &c);
}

int32_t pl_tid_slow(void)
{
    int32_t t = (int32_t)syscall(SYS_gettid);
    pl_tls.tid = t;
    return t;
}

/* ---- messages: one line on stderr, no stdio locks, no allocation ---------- */
void pl_say(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(2, p, (size_t)n);
        if (w <= 0)
            break;
        p += w;
        n -= (int)w;
    }
}

/* ---- memory: mmap, the reserve, waiting ---------------------------------------
 * The library never ends the process when memory runs out (an RLIMIT_AS
 * the program lowered, a full machine): every piece it maps (boxes, lock
 * blocks, CLH first nodes, tree tables, rwlock blocks and records, trees)
 * comes from mmap, and when mmap fails, from the reserve -- a region of
 * the library's own .bss (PL_RESERVE bytes, address space the loader
 * mapped with the library: it does not depend on the limit the program
 * set later; only the pages used become resident), carved in pieces as
 * small as the caller can use.  The first time, one line on stderr says
 * so.  When the reserve is used up too, the callers that cannot answer
 * with an error code (a lock acquisition: POSIX has no ENOMEM for it) wait
 * for memory (pl_await_memory: 1 ms sleeps, trying again, a second line on
 * stderr once): a program that frees memory goes on, one that never does
 * waits rather than dies.  Reserve pieces are never unmapped (the pools
 * keep what they carve for good anyway). */
#ifndef PL_RESERVE
#define PL_RESERVE (1024u * 1024u)
#endif
static char pl_reserve[PL_RESERVE] __attribute__((aligned(4096)));
static size_t pl_reserve_used;
static const size_t pl_reserve_size = PL_RESERVE;
static uint32_t pl_oom_said, pl_wait_said;


static void *pl_map(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* `size` bytes of the reserve (cache-line aligned, zero), or NULL */
static void *pl_reserve_take(size_t size)
{
    size = (size + CLOF_CACHELINE - 1) & ~(size_t)(CLOF_CACHELINE - 1);
    size_t used = __atomic_load_n(&pl_reserve_used, __ATOMIC_RELAXED);
    do {
        if (used + size > pl_reserve_size)
            return NULL;
    } while (!__atomic_compare_exchange_n(&pl_reserve_used, &used, used + size, true,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    if (__atomic_exchange_n(&pl_oom_said, 1, __ATOMIC_RELAXED) == 0)
        pl_say("clof-preload: out of memory (mmap failed); running on the library's "
               "reserve of %u KiB",
               (unsigned)(pl_reserve_size / 1024));
    return pl_reserve + used;
}

void *pl_map_min(size_t want, size_t min, size_t *got)
{
    void *p = pl_map(want);
    if (p != NULL) {
        *got = want;
        return p;
    }
    p = pl_reserve_take(min);
    *got = min;
    return p;
}

void pl_await_memory(void)
{
    if (__atomic_exchange_n(&pl_wait_said, 1, __ATOMIC_RELAXED) == 0)
        pl_say("clof-preload: out of memory, the reserve used up; waiting for memory");
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

/* Trees of the hierarchical locks (hmcs.h, compose.h: CLOF_TREE_ALLOC):
 * malloc'd, else from the reserve, else waited for; never NULL.  Nothing
 * of a reserve piece is ever freed. */
void *pl_tree_alloc(size_t align, size_t size)
{
    for (;;) {
        void *p = aligned_alloc(align, (size + align - 1) / align * align);
        if (p != NULL)
            return p;
        if (align <= 4096 && (p = pl_reserve_take(size + align)) != NULL)
            return (void *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
        pl_await_memory();
    }
}

void pl_tree_free(void *p)
{
    if ((char *)p >= pl_reserve && (char *)p < pl_reserve + sizeof pl_reserve)
        return;
    free(p);
}

/* ---- context boxes ---------------------------------------------------------------
 * Chunks of boxes, bump-allocated, never unmapped; the chunk list is also
 * what the fork child scans for mutexes held by the forking thread. */
#define PL_BOX_CHUNK (64u * 1024u)
typedef struct pl_box_chunk {
    struct pl_box_chunk *next;
    uint32_t used, cap;
    pl_box_t *boxes;
} pl_box_chunk_t;

static pl_box_chunk_t *pl_box_chunks; /* newest first */
static pl_box_t *pl_box_pool;         /* global free boxes */
static uint64_t pl_box_pool_n, pl_boxes_total;

static pl_box_t *pl_box_new_locked(void)
{
    pl_box_chunk_t *c = pl_box_chunks;
    if (c == NULL || c->used == c->cap) {
        size_t off = (sizeof *c + _Alignof(pl_box_t) - 1) & ~(_Alignof(pl_box_t) - 1);
        size_t got;
        /* from the reserve: room for 4 boxes */
        char *mem = pl_map_min(PL_BOX_CHUNK, off + 4 * sizeof(pl_box_t), &got);
        if (mem == NULL)
            return NULL;
        c = (pl_box_chunk_t *)(void *)mem;
        c->boxes = (pl_box_t *)(void *)(mem + off);
        c->cap = (uint32_t)((got - off) / sizeof(pl_box_t));
        c->used = 0;
        c->next = pl_box_chunks;
        pl_box_chunks = c;
    }
    pl_boxes_total++;
    return &c->boxes[c->used++]; /* zero-filled: a valid fresh context */
}

#define PL_REFILL 4u
pl_box_t *pl_box_refill(void)
{
    if (CLOF_UNLIKELY(!pl_tls.registered))
        pl_thread_register();
    pl_box_t *got[PL_REFILL];
    unsigned n = 0;
again:
    pl_glock_acquire();
    while (n < PL_REFILL && pl_box_pool != NULL) {
        got[n++] = pl_box_pool;
        pl_box_pool = pl_box_pool->next_free;
        pl_box_pool_n--;
    }
    while (n < PL_REFILL) {
        pl_box_t *b = pl_box_new_locked();
        if (b == NULL)
            break;
        got[n++] = b;
    }
    pl_glock_release();
    if (n == 0) { /* no memory, no reserve: wait for a box or for memory */
        pl_await_memory();
        goto again;
    }
    for (unsigned i = 1; i < n; i++) {
        got[i]->next_free = pl_tls.free;
        pl_tls.free = got[i];
        pl_tls.nfree++;
    }
    return got[0];
}

/* Give back to the pool all but PL_FREE_MAX/2 of the thread's free boxes
 * (keep = 0: all of them). */
static void pl_box_give_back(uint32_t keep)
{
    if (pl_tls.nfree <= keep)
        return;
    pl_box_t *first = NULL, *last = NULL;
    uint32_t n = 0;
    while (pl_tls.nfree > keep) {
        pl_box_t *b = pl_tls.free;
        pl_tls.free = b->next_free;
        pl_tls.nfree--;
        b->next_free = first;
        if (last == NULL)
            last = b;
        first = b;
        n++;
    }
    pl_glock_acquire();
    last->next_free = pl_box_pool;
    pl_box_pool = first;
    pl_box_pool_n += n;
    pl_glock_release();
}

void pl_box_trim(void)
{
    pl_box_give_back(PL_FREE_MAX / 2);
}

/* ---- pools of fixed-size pieces: lock blocks and CLH first nodes --------------
 * Pieces carved from mmap'd chunks, cache-line aligned, never unmapped; a
 * piece given back is kept as it is and reused as it is (never
 * re-initialised), under the global lock. */
#define PL_POOL_CHUNK (256u * 1024u)
typedef struct pl_pool {
    size_t size;          /* bytes per piece (0: the pool is not in use) */
    char *cur, *end;      /* the chunk being carved */
    void **stack;         /* pieces given back */
    size_t nfree, cap;
    uint64_t total;       /* pieces ever carved */
    bool owned;           /* pieces handed out are kept in pl_owned */
} pl_pool_t;

/* The lock blocks this process handed out: a set of addresses (open
 * addressing, tombstones), under the global lock.  A block goes back into
 * the pool only if it is in the set.  A mutex that is not process-shared
 * but lives in memory shared with another process (MAP_SHARED, used by a
 * fork child: undefined by POSIX, works with glibc, and glibc's
 * tst-robust-fork does it) can carry a block pointer the other process
 * installed: here that address is a free block of our pool, or one of our
 * live ones, and destroying the mutex would put it into the pool a second
 * time -- two mutexes on one lock, a hang.  Such a block is left alone.
 * Where the set cannot grow (no memory), blocks stay out of it, and their
 * mutexes' destroy leaks them: never a block given out twice. */
#define PL_OWNED_TOMB ((void *)1)
static struct {
    void **slot;
    size_t cap, n, used; /* used: entries and tombstones */
} pl_owned;

static size_t pl_owned_hash(const void *b, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)b * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static bool pl_owned_grow_locked(void)
{
    size_t ncap = pl_owned.cap ? pl_owned.cap * 2 : 4096;
    if (pl_owned.n * 4 < pl_owned.cap)
        ncap = pl_owned.cap; /* mostly tombstones: rebuild at the same size */
    void **ns = pl_map(ncap * sizeof(void *));
    if (ns == NULL)
        return false;
    for (size_t i = 0; i < pl_owned.cap; i++) {
        void *b = pl_owned.slot[i];
        if (b == NULL || b == PL_OWNED_TOMB)
            continue;
        size_t j = pl_owned_hash(b, ncap);
        while (ns[j] != NULL)
            j = (j + 1) & (ncap - 1);
        ns[j] = b;
    }
    if (pl_owned.slot != NULL)
        munmap(pl_owned.slot, pl_owned.cap * sizeof(void *));
    pl_owned.slot = ns;
    pl_owned.cap = ncap;
    pl_owned.used = pl_owned.n;
    return true;
}

static void pl_owned_add_locked(void *b)
{
    if ((pl_owned.used + 1) * 4 > pl_owned.cap * 3 && !pl_owned_grow_locked())
        return;
    size_t j = pl_owned_hash(b, pl_owned.cap);
    while (pl_owned.slot[j] != NULL && pl_owned.slot[j] != PL_OWNED_TOMB)
        j = (j + 1) & (pl_owned.cap - 1);
    if (pl_owned.slot[j] == NULL)
        pl_owned.used++;
    pl_owned.slot[j] = b;
    pl_owned.n++;
}

/* True (and b taken out of the set) if this process handed b out. */
static bool pl_owned_take_locked(void *b)
{
    if (pl_owned.cap == 0)
        return false;
    for (size_t j = pl_owned_hash(b, pl_owned.cap); pl_owned.slot[j] != NULL;
         j = (j + 1) & (pl_owned.cap - 1)) {
        if (pl_owned.slot[j] == b) {
            pl_owned.slot[j] = PL_OWNED_TOMB;
            pl_owned.n--;
            return true;
        }
    }
    return false;
}

static void *pl_pool_new_locked(pl_pool_t *p)
{
    if (p->cur == NULL || (size_t)(p->end - p->cur) < p->size) {
        size_t sz = PL_POOL_CHUNK, got;
        while (sz < p->size)
            sz *= 2;
        char *mem = pl_map_min(sz, p->size, &got); /* the reserve: one piece */
        if (mem == NULL)
            return NULL;
        p->cur = mem;
        p->end = mem + got;
    }
    void *b = p->cur;
    p->cur += p->size;
    p->total++;
    return b;
}

/* A piece: a given-back one if any, else a never-used one (fresh). */
static void *pl_pool_get(pl_pool_t *p, bool fresh)
{
    for (;;) {
        pl_glock_acquire();
        void *b = !fresh && p->nfree > 0 ? p->stack[--p->nfree] : pl_pool_new_locked(p);
        if (b != NULL && p->owned)
            pl_owned_add_locked(b);
        pl_glock_release();
        if (b != NULL)
            return b;
        pl_await_memory();
    }
}

static void pl_pool_put(pl_pool_t *p, void *piece)
{
    pl_glock_acquire();
    if (p->owned && !pl_owned_take_locked(piece)) { /* not ours: left alone */
        pl_glock_release();
        return;
    }
    if (p->nfree == p->cap) {
        size_t ncap = p->cap ? p->cap * 2 : 4096;
        void **ns = pl_map(ncap * sizeof(void *));
        if (ns == NULL) { /* keep the piece out of circulation: a leak, not a crash */
            pl_glock_release();
            return;
        }
        if (p->stack != NULL) {
            memcpy(ns, p->stack, p->nfree * sizeof(void *));
            munmap(p->stack, p->cap * sizeof(void *));
        }
        p->stack = ns;
        p->cap = ncap;
    }
    p->stack[p->nfree++] = piece;
    pl_glock_release();
}

/* Lock blocks, for locks larger than 8 bytes: one block per mutex,
 * pl_blocks.size bytes.  A block released by pthread_mutex_destroy is
 * reused as it is, an unlocked lock: never re-initialised, because a queue
 * node in it (a composition's CLH level took its first node from the pool
 * below, and its tail holds one) may serve some thread. */
static pl_pool_t pl_blocks;

void *pl_block_fresh(void)
{
    return pl_pool_get(&pl_blocks, true);
}

void pl_block_free(void *blk)
{
    pl_pool_put(&pl_blocks, blk);
}

/* CLH's first nodes (clh.h's CLOF_CLH_LEAN; pl_internal.h): a CLH lock
 * takes one at its first acquisition, and pthread_mutex_destroy gives back
 * the node its idle tail holds. */
static pl_pool_t pl_clh_nodes = {sizeof(clof_clh_node_t), NULL, NULL, NULL, 0, 0, 0, false};

clof_clh_node_t *pl_clh_node_get(void)
{
    return pl_pool_get(&pl_clh_nodes, false);
}

void pl_clh_node_put(clof_clh_node_t *node)
{
    pl_pool_put(&pl_clh_nodes, node);
}

void *pl_block_install(pl_mutex_t *m)
{
    void *b = pl_pool_get(&pl_blocks, false);
    void *seen = clof_atomicptr_cmpxchg(&m->lk.blk, (void *)NULL, b);
    if (seen == NULL)
        return b;
    pl_block_free(b); /* another thread installed one first; ours is unused */
    return seen;
}

/* ---- the state blocks of the cr: locks ------------------------------------------
 * (pl_internal.h, pl_cr_block_t) One per contended mutex, found by the
 * index in the mutex's `last`: chunks of 2^15 blocks, mapped as needed and
 * never unmapped; freed indices are reused, the state re-initialised (a
 * destroyed lock has no passive thread; what a releaser of it may still
 * write after its inner release is harmless to the next lock, cr.h
 * clof_cr_released_).  Index 0 means none.  Counted in clof_preload_info
 * (cr_blocks) and on the CLOF_STATS line (cr_state_blocks). */
/* The trees by index (pl_internal.h: the indexed layouts of hmcs.h and
 * compose.h -- HMCS, the compositions, the cohort locks): a tree gets its
 * index when first built and keeps it when retired and reused.  Entries
 * are written under the library's global lock, before the mutex publishes
 * the index (the lock's CAS), and never change after. */
void **pl_tree_chunks[PL_TREE_CHUNKS];
static uint32_t pl_tree_top = 1; /* the next index; 0 means none */

uint32_t pl_tree_index(void *tree, uint32_t *ix)
{
    if (*ix != 0)
        return *ix;
    pl_glock_acquire();
    uint32_t i = pl_tree_top, c = i >> PL_TREE_CHUNK_SHIFT;
    while (c >= PL_TREE_CHUNKS || pl_tree_chunks[c] == NULL) {
        /* 2^28 trees (at least 16 GiB of them) alive at once: memory ran out
         * long before; a table chunk: from mmap or the reserve, else wait */
        size_t got, sz = sizeof(void *) << PL_TREE_CHUNK_SHIFT;
        void **mem = c >= PL_TREE_CHUNKS ? NULL : pl_map_min(sz, sz, &got);
        if (mem != NULL) {
            __atomic_store_n(&pl_tree_chunks[c], mem, __ATOMIC_RELEASE);
            break;
        }
        pl_glock_release();
        pl_await_memory();
        pl_glock_acquire();
        if (*ix != 0) { /* (nobody else indexes this tree: it is not installed yet) */
            pl_glock_release();
            return *ix;
        }
        i = pl_tree_top;
        c = i >> PL_TREE_CHUNK_SHIFT;
    }
    __atomic_store_n(&pl_tree_chunks[c][i & ((1u << PL_TREE_CHUNK_SHIFT) - 1u)], tree,
                     __ATOMIC_RELEASE);
    pl_tree_top = i + 1;
    *ix = i;
    pl_glock_release();
    return i;
}

pl_cr_block_t *pl_cr_chunks[PL_CR_CHUNKS];
uint32_t pl_cr_top = 1;              /* the next never-used index */
static uint32_t *pl_cr_free;         /* freed indices */
static size_t pl_cr_nfree, pl_cr_freecap;

static uint32_t pl_cr_index_locked(void)
{
    if (pl_cr_nfree > 0)
        return pl_cr_free[--pl_cr_nfree];
    uint32_t i = pl_cr_top;
    uint32_t c = i >> PL_CR_CHUNK_SHIFT;
    if (c >= PL_CR_CHUNKS)
        return 0;
    if (pl_cr_chunks[c] == NULL) {
        size_t got, sz = sizeof(pl_cr_block_t) << PL_CR_CHUNK_SHIFT;
        void *mem = pl_map_min(sz, sz, &got);
        if (mem == NULL)
            return 0;
        __atomic_store_n(&pl_cr_chunks[c], (pl_cr_block_t *)mem, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&pl_cr_top, i + 1, __ATOMIC_RELAXED); /* read outside the lock too */
    return i;
}

static pl_cr_block_t *pl_cr_block_install_(pl_mutex_t *m);
pl_cr_block_t *pl_cr_block_install(pl_mutex_t *m)
{
    pl_cr_block_t *b;
    while ((b = pl_cr_block_install_(m)) == NULL)
        pl_await_memory(); /* no chunk of state blocks: wait for memory */
    return b;
}

static pl_cr_block_t *pl_cr_block_install_(pl_mutex_t *m)
{
    pl_glock_acquire();
    uint32_t v = clof_atomic32_read_acq(&m->last), i = v >> 1;
    if (i != 0 && i < pl_cr_top) { /* installed meanwhile */
        pl_glock_release();
        return pl_cr_at(i);
    }
    /* none, or an index no block has (memory that was not a zeroed or
     * initialised mutex): a new block */
    uint32_t n = pl_cr_index_locked();
    if (n == 0) {
        pl_glock_release();
        return NULL;
    }
    pl_cr_block_t *b = pl_cr_at(n);
    clof_cr_state_init(&b->cr);
    b->last = 0;
    /* installs happen under the global lock; the CAS keeps the mirror bit
     * of the mutex (set by nobody before a block exists: 0) and publishes
     * the initialised block (seq_cst, read with acquire) */
    for (;;) {
        uint32_t seen = clof_atomic32_cmpxchg(&m->last, v, n << 1 | (v & 1u));
        if (seen == v)
            break;
        if (seen >> 1 != 0 && seen >> 1 < pl_cr_top) {
            /* another block came first (installs take the global lock, so
             * only a racing destroy and reuse could do it): ours stays
             * unused, a leak of one block rather than a lost state */
            pl_glock_release();
            return pl_cr_at(seen >> 1);
        }
        v = seen; /* bit 0 moved */
    }
    pl_glock_release();
    return b;
}

void pl_cr_block_free(pl_mutex_t *m)
{
    uint32_t i = clof_atomic32_xchg(&m->last, 0) >> 1;
    if (i == 0)
        return;
    pl_glock_acquire();
    if (i >= pl_cr_top) { /* not ours */
        pl_glock_release();
        return;
    }
    if (pl_cr_nfree == pl_cr_freecap) {
        size_t ncap = pl_cr_freecap ? pl_cr_freecap * 2 : 4096;
        uint32_t *ns = pl_map(ncap * sizeof(uint32_t));
        if (ns == NULL) { /* keep the block out of circulation: a leak, not a crash */
            pl_glock_release();
            return;
        }
        if (pl_cr_free != NULL) {
            memcpy(ns, pl_cr_free, pl_cr_nfree * sizeof(uint32_t));
            munmap(pl_cr_free, pl_cr_freecap * sizeof(uint32_t));
        }
        pl_cr_free = ns;
        pl_cr_freecap = ncap;
    }
    pl_cr_free[pl_cr_nfree++] = i;
    pl_glock_release();
}

/* ---- retired trees ------------------------------------------------------------
 * The trees of destroyed mutexes whose lock may not free them (a CLH lowest
 * level: its first node may serve as some context's queue node; A-C-BO-CLH:
 * its tail may hold a released node that the next arrival recycles), kept as
 * they are and handed to the next mutex's first lock (compose.h's
 * CLOF_COMPOSE_TREE_REUSE): the trees in the process are bounded by the most
 * such mutexes alive at once.  One lock runs in a process, so the trees are
 * all of one kind (the kind is checked anyway: a tree of another kind is
 * never reused, and never freed). */
size_t pl_trees_nfree;
/* Under LeakSanitizer (a program built with -fsanitize=leak or address, or
 * liblsan preloaded), the table of retired trees -- our own mmap'd memory,
 * which LSan does not scan -- is registered as a root region, so that the
 * trees it holds are not reported as leaked. */
extern void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));
extern void __lsan_unregister_root_region(const void *p, size_t size) __attribute__((weak));
static struct pl_retired_tree_ {
    void *tree;
    const void *kind;
} *pl_trees;
static size_t pl_trees_cap;
static uint64_t pl_trees_total, pl_trees_reused;

void pl_tree_retire(void *tree, const void *kind)
{
    pl_glock_acquire();
    pl_trees_total++;
    if (pl_trees_nfree == pl_trees_cap) {
        size_t ncap = pl_trees_cap ? pl_trees_cap * 2 : 1024;
        struct pl_retired_tree_ *nt = pl_map(ncap * sizeof *nt);
        if (nt == NULL) { /* keep it out of circulation: a leak, not a crash */
            pl_glock_release();
            return;
        }
        if (__lsan_register_root_region)
            __lsan_register_root_region(nt, ncap * sizeof *nt);
        if (pl_trees != NULL) {
            memcpy(nt, pl_trees, pl_trees_nfree * sizeof *nt);
            if (__lsan_unregister_root_region)
                __lsan_unregister_root_region(pl_trees, pl_trees_cap * sizeof *nt);
            munmap(pl_trees, pl_trees_cap * sizeof *nt);
        }
        pl_trees = nt;
        pl_trees_cap = ncap;
    }
    pl_trees[pl_trees_nfree].tree = tree;
    pl_trees[pl_trees_nfree].kind = kind;
    __atomic_store_n(&pl_trees_nfree, pl_trees_nfree + 1, __ATOMIC_RELAXED);
    pl_glock_release();
}

void *pl_tree_reuse_slow(const void *kind)
{
    void *tr = NULL;
    pl_glock_acquire();
    if (pl_trees_nfree > 0 && pl_trees[pl_trees_nfree - 1].kind == kind) {
        tr = pl_trees[pl_trees_nfree - 1].tree;
        __atomic_store_n(&pl_trees_nfree, pl_trees_nfree - 1, __ATOMIC_RELAXED);
        pl_trees_reused++;
    }
    pl_glock_release();
    return tr;
}

/* ---- per-thread registry, thread exit ---------------------------------------- */
static pthread_key_t pl_key;
static bool pl_key_ok;
static pl_tls_t *pl_registry; /* live registered threads */
static pl_counters_t pl_retired; /* counters of exited threads */
static uint64_t pl_retired_parks, pl_threads_seen, pl_threads_live;
static uint64_t pl_retired_levels[PL_MAX_LEVELS];

static void pl_counters_add(pl_counters_t *to, const pl_counters_t *from)
{
    const uint64_t *f = (const uint64_t *)(const void *)from;
    uint64_t *t = (uint64_t *)(void *)to;
    for (size_t i = 0; i < sizeof *to / sizeof(uint64_t); i++)
        t[i] += f[i];
}

static void pl_thread_exit(void *arg)
{
    (void)arg;
    pl_tls.exiting = 1;
    if (pl_tls.cache != NULL) {
        pl_box_t *b = pl_tls.cache;
        pl_tls.cache = NULL;
        b->next_free = pl_tls.free;
        pl_tls.free = b;
        pl_tls.nfree++;
    }
    pl_box_give_back(0);
    if (!pl_tls.registered)
        return;
    pl_glock_acquire();
    if (pl_tls.reg_prev)
        pl_tls.reg_prev->reg_next = pl_tls.reg_next;
    else
        pl_registry = pl_tls.reg_next;
    if (pl_tls.reg_next)
        pl_tls.reg_next->reg_prev = pl_tls.reg_prev;
    pl_counters_add(&pl_retired, &pl_tls.st);
    pl_retired_parks += pl_parks;
    for (int i = 0; i < PL_MAX_LEVELS; i++)
        pl_retired_levels[i] += pl_levels[i];
    pl_threads_live--;
    pl_glock_release();
    memset(&pl_tls.st, 0, sizeof pl_tls.st);
    pl_parks = 0;
    memset(pl_levels, 0, sizeof pl_levels);
    pl_tls.registered = 0;
}

/* The cr: layer's hooks (pl_internal.h), with CLOF_STATS=1: -1 a passive
 * wait began, 1 a passive thread was admitted by a grant, 2 a lock started
 * limiting, 3 it opened again (lazy restriction, cr.h), 4 its active set
 * grew after quiet releases. */
void pl_cr_count(int what)
{
    pl_counters_t *st = pl_st();
    if (what == 4)
        st->cr_grows++;
    else if (what == 3)
        st->cr_opens++;
    else if (what == 2)
        st->cr_limits++;
    else if (what > 0)
        st->cr_granted++;
    else
        st->cr_passive++;
}

void pl_thread_register(void)
{
    if (pl_tls.registered)
        return;
    pl_ensure_started();
    /* Without a key (the program used up PTHREAD_KEYS_MAX) the thread's
     * boxes are not recycled at its exit and its counters are not summed. */
    if (!pl_key_ok || pthread_setspecific(pl_key, &pl_tls) != 0)
        return;
    pl_tls.parks = &pl_parks;
    pl_tls.levels = pl_levels;
    pl_glock_acquire();
    pl_tls.reg_prev = NULL;
    pl_tls.reg_next = pl_registry;
    if (pl_registry)
        pl_registry->reg_prev = &pl_tls;
    pl_registry = &pl_tls;
    if (!pl_tls.exiting)
        pl_threads_seen++;
    pl_threads_live++;
    pl_glock_release();
    pl_tls.registered = 1;
}

/* ---- timed waiters of a mutex ----------------------------------------------------*/
void pl_timed_wake(pl_mutex_t *m)
{
    clof_atomic32_inc(&m->tw_seq);
    pl_futex_wake(&m->tw_seq._v, INT32_MAX, false);
}

/* ---- futexes -------------------------------------------------------------------------*/
int pl_futex_wait(uint32_t *w, uint32_t val, clockid_t clk, const struct timespec *abs,
                  bool shared)
{
    int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG);
    if (abs != NULL && clk == CLOCK_REALTIME)
        op |= FUTEX_CLOCK_REALTIME;
    long r = syscall(SYS_futex, w, op, val, abs, NULL, FUTEX_BITSET_MATCH_ANY);
    return r == 0 ? 0 : errno;
}

void pl_futex_wake(uint32_t *w, int n, bool shared)
{
    syscall(SYS_futex, w, FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG), n, NULL, NULL, 0);
}

/* ---- glibc's own functions ------------------------------------------------------- */
/* glibc's `name` at the first of `versions` it has (NULL-terminated), or
 * its default version (pl_rwlock.c resolves glibc's rwlocks with it too) */
void *pl_sym(const char *name, const char *const *versions)
{
    for (; *versions; versions++) {
        void *p = dlvsym(RTLD_NEXT, name, *versions);
        if (p != NULL)
            return p;
    }
    return dlsym(RTLD_NEXT, name);
}

static void pl_resolve(void)
{
    /* newest first; x86-64's base version is GLIBC_2.2.5, aarch64's 2.17 */
    static const char *const v_base[] = {"GLIBC_2.2.5", "GLIBC_2.17", NULL};
    static const char *const v_234[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", NULL};
    static const char *const v_clock[] = {"GLIBC_2.34", "GLIBC_2.30", NULL};
    static const char *const v_cond[] = {"GLIBC_2.3.2", "GLIBC_2.17", NULL};
    static const char *const v_cond_old[] = {"GLIBC_2.2.5", NULL};
#define PL_R(field, name, v) *(void **)(&pl_real.field) = pl_sym(name, v)
    PL_R(mutex_init, "pthread_mutex_init", v_base);
    PL_R(mutex_destroy, "pthread_mutex_destroy", v_base);
    PL_R(mutex_lock, "pthread_mutex_lock", v_base);
    PL_R(mutex_trylock, "pthread_mutex_trylock", v_234);
    PL_R(mutex_timedlock, "pthread_mutex_timedlock", v_234);
    PL_R(mutex_clocklock, "pthread_mutex_clocklock", v_clock);
    PL_R(mutex_unlock, "pthread_mutex_unlock", v_base);
    PL_R(cond_init[0], "pthread_cond_init", v_cond);
    PL_R(cond_destroy[0], "pthread_cond_destroy", v_cond);
    PL_R(cond_wait[0], "pthread_cond_wait", v_cond);
    PL_R(cond_timedwait[0], "pthread_cond_timedwait", v_cond);
    PL_R(cond_signal[0], "pthread_cond_signal", v_cond);
    PL_R(cond_broadcast[0], "pthread_cond_broadcast", v_cond);
    PL_R(cond_clockwait, "pthread_cond_clockwait", v_clock);
    /* the pre-2.3.2 ABI: only where it exists; else the current one */
    PL_R(cond_init[1], "pthread_cond_init", v_cond_old);
    PL_R(cond_destroy[1], "pthread_cond_destroy", v_cond_old);
    PL_R(cond_wait[1], "pthread_cond_wait", v_cond_old);
    PL_R(cond_timedwait[1], "pthread_cond_timedwait", v_cond_old);
    PL_R(cond_signal[1], "pthread_cond_signal", v_cond_old);
    PL_R(cond_broadcast[1], "pthread_cond_broadcast", v_cond_old);
#undef PL_R
}

/* ---- configuration (what CLOF_LOCK and CLOF_STATS select: pl_config.c) ----------*/
static __attribute__((unused)) bool pl_env_set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && *v != 0;
}

static void pl_configure(void)
{
    const char *lock = getenv("CLOF_LOCK");
    if (lock == NULL || *lock == 0)
        lock = PL_DEFAULT_LOCK; /* here: build-best.sh compiles this file with its own */
    pl_config_t cf;
    pl_config_parse(lock, getenv("CLOF_STATS"), &cf);
    pl_stats_on = cf.stats;
    if (cf.stats_msg[0] != 0)
        pl_say("%s", cf.stats_msg);
    if (cf.lock_msg[0] != 0)
        pl_say("%s", cf.lock_msg);
    if (cf.lock == NULL) {
        pl_glibc_mode = true;
        pl_glibc_adaptive = cf.glibc_adaptive;
        return;
    }
    const pl_lockdef_t *d = cf.lock;
    const char *v = cf.value;
    if (pl_is_withdrawn(d->name)) {
        const char *ok = getenv("CLOF_ALLOW_WITHDRAWN");
        if (ok == NULL || strcmp(ok, "1") != 0) {
            pl_say("clof-preload: CLOF_LOCK='%s' is withdrawn from the preload library "
                   "(it hung under it, cause not found; see docs/reliability.md); "
                   "running on glibc's pthread mutexes",
                   v);
            pl_glibc_mode = true;
            return;
        }
    }
    if (d->hierarchical) {
        /* the process topology, now, so that no lock loads it from inside
         * its own acquire (CNA, also as cr:'s passive queue, looks a
         * waiter's node up there); the loader's lock is libclof's own,
         * never an interposed pthread mutex (src/topology.c) */
        clof_topo_opts_t o = {NULL, NULL, NULL, CLOF_TOPO_QUIET};
#ifdef PL_DEFAULT_TOPOLOGY
        if (!pl_env_set("CLOF_TOPOLOGY") && !pl_env_set("CLOF_EMULATE") &&
            !pl_env_set("CLOF_SYSFS_ROOT"))
            o.file = PL_DEFAULT_TOPOLOGY;
#endif
        clof_topo_error_t err;
        if (clof_topology_install(&o, &err) != 0) {
            pl_say("clof-preload: CLOF_LOCK='%s' needs the machine's hierarchy, which did not "
                   "load: %s; running on glibc's pthread mutexes",
                   v, err.msg);
            pl_glibc_mode = true;
            return;
        }
        const clof_topology_t *t = clof_topology();
        if (t->warning[0] != 0 && pl_stats_on)
            pl_say("clof-preload: %s", t->warning);
    }
    pl_lock = d;
    pl_blocks.size = d->inplace ? 0 : (d->lock_size + CLOF_CACHELINE - 1) & ~(size_t)(CLOF_CACHELINE - 1);
    pl_blocks.owned = true;
}

/* ---- fork ------------------------------------------------------------------------------*/
/* Whether the bytes at p lie in a shared mapping (MAP_SHARED, shm, a shared
 * file): the 's' of their line's permissions in /proc/self/maps.  The fork
 * child asks it of each mutex the forking thread holds: a mutex there (not
 * process-shared, or the library would not have it) is the parent's memory
 * too, and writing a fresh lock state into it would take the parent's lock
 * away (glibc's tst-robust-fork: the parent's error-checking mutex, relocked
 * after a fork, hung instead of EDEADLK).  Only async-signal-safe calls (a
 * fork child of a threaded program).  Without /proc: false, the private
 * case, which is every mutex of most programs. */
static bool pl_in_shared_mapping(const void *p)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    uintptr_t a = (uintptr_t)p, lo = 0, hi = 0;
    int field = 0; /* 0 start, 1 end, 2 permissions, 3 the rest of the line */
    int perm = 0;  /* the permission characters seen */
    bool found = false, shared = false;
    char buf[4096];
    ssize_t n;
    while (!found && (n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n && !found; i++) {
            char ch = buf[i];
            if (ch == '\n') {
                field = 0, perm = 0, lo = 0, hi = 0;
                continue;
            }
            if (field == 0 || field == 1) {
                int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
                if (v >= 0) {
                    if (field == 0)
                        lo = lo << 4 | (uintptr_t)v;
                    else
                        hi = hi << 4 | (uintptr_t)v;
                } else {
                    field++;
                }
            } else if (field == 2) {
                if (ch == ' ') {
                    field++;
                } else if (++perm == 4 && a >= lo && a < hi) {
                    found = true;
                    shared = ch == 's';
                }
            }
        }
    }
    close(fd);
    return shared;
}

static void pl_fork_prepare(void)
{
    int32_t me = pl_tid();
    clof_noctx_t c;
    clof_tas_acquire(&pl_glock, &c);
    __atomic_store_n(&pl_fork_holder, me, __ATOMIC_RELAXED);
}

static void pl_fork_parent(void)
{
    __atomic_store_n(&pl_fork_holder, 0, __ATOMIC_RELAXED);
    clof_noctx_t c;
    clof_tas_release(&pl_glock, &c);
}

static void pl_fork_child(void)
{
    int32_t old = pl_tls.tid;
    int32_t now = pl_tid_slow();
    __atomic_store_n(&pl_fork_holder, 0, __ATOMIC_RELAXED);
    clof_tas_init(&pl_glock);
    clof_atomic32_inc(&pl_fork_gen);
#if CLOF_WAIT_CAN_PARK
    /* No thread of the child is parked: forget the parent's parked waiters
     * (their counts would make every wake-up a system call). */
    memset(clof_park_table, 0, sizeof clof_park_table);
#endif
    /* Statistics: the child counts from zero, with only this thread. */
    memset(&pl_retired, 0, sizeof pl_retired);
    pl_retired_parks = 0;
    memset(pl_retired_levels, 0, sizeof pl_retired_levels);
    memset(pl_levels, 0, sizeof pl_levels);
    memset(&pl_tls.st, 0, sizeof pl_tls.st);
    pl_parks = 0;
    /* Retired trees: one may have been in the middle of a release by a
     * thread that does not exist here (its lower levels released late,
     * "retired trees" above): the child forgets them (a leak in the child,
     * never a lock that stays held). */
    pl_trees_nfree = 0;
    pl_registry = NULL;
    pl_prof_fork_child();
    pl_threads_live = 0;
    pl_threads_seen = 0;
    if (pl_tls.registered) {
        pl_tls.reg_prev = pl_tls.reg_next = NULL;
        pl_registry = &pl_tls;
        pl_threads_live = pl_threads_seen = 1;
    }
    pl_rw_fork_child(old, now);
    if (pl_lock == NULL)
        return;
    /* Mutexes held by the forking thread: a fresh lock state, still held by
     * it, without the parent's other threads queued in it; one in a shared
     * mapping is the parent's too and is left as it is (pl_in_shared_mapping).
     * Mutexes held by the other threads stay held (as with glibc); their
     * boxes are retired. */
    for (pl_box_chunk_t *c = pl_box_chunks; c; c = c->next) {
        for (uint32_t i = 0; i < c->used; i++) {
            pl_box_t *b = &c->boxes[i];
            pl_mutex_t *m = b->mutex;
            if (m == NULL || b->dead)
                continue;
            if (old != 0 && clof_atomicptr_read_rlx(&m->box) == b &&
                (int32_t)clof_atomic32_read_rlx(&m->owner) == old) {
                if (pl_in_shared_mapping(m))
                    continue;
                pl_lock->ops->fork_reset(m, b);
                clof_atomic32_write_rlx(&m->owner, (uint32_t)now);
            } else {
                b->dead = 1;
            }
        }
    }
}

/* ---- start-up ---------------------------------------------------------------------------*/
static int32_t pl_starter;
static bool pl_ctor_ran, pl_early_start;

void pl_start(void)
{
    uint32_t s = clof_atomic32_read_acq(&pl_state);
    if (s == PL_STATE_READY)
        return;
    if (s == PL_STATE_NEW &&
        clof_atomic32_cmpxchg(&pl_state, PL_STATE_NEW, PL_STATE_STARTING) == PL_STATE_NEW) {
        pl_starter = pl_tid();
        pl_early_start = !pl_ctor_ran;
        pl_resolve();
        pl_configure();
        pl_key_ok = pthread_key_create(&pl_key, pl_thread_exit) == 0;
        pthread_atfork(pl_fork_prepare, pl_fork_parent, pl_fork_child);
        const pl_ops_t *ops = pl_glibc_mode ? (pl_glibc_adaptive ? &pl_ops_glibc_adaptive
                                                                 : &pl_ops_glibc)
                              : pl_stats_on ? pl_lock->ops_st : pl_lock->ops;
        pl_prof_init(); /* CLOF_PROFILE: the profiling ops over these */
        if (pl_prof_on)
            ops = pl_prof_wrap(ops);
        __atomic_store_n(&pl_fn.lock, ops->lock, __ATOMIC_RELAXED);
        __atomic_store_n(&pl_fn.trylock, ops->trylock, __ATOMIC_RELAXED);
        __atomic_store_n(&pl_fn.unlock, ops->unlock, __ATOMIC_RELAXED);
        __atomic_store_n(&pl_fn.timedlock, ops->timedlock, __ATOMIC_RELAXED);
        __atomic_store_n(&pl_fn.destroy, ops->destroy, __ATOMIC_RELAXED);
        __atomic_store_n(&pl_fn.fork_reset, ops->fork_reset, __ATOMIC_RELAXED);
        clof_atomic32_write_rel(&pl_state, PL_STATE_READY);
        return;
    }
    /* Someone is starting.  If it is this very thread (a function we call
     * while starting came back into us), return: the caller copes. */
    if (pl_starter == pl_tid())
        return;
    while (clof_atomic32_read_acq(&pl_state) != PL_STATE_READY)
        sched_yield();
}

/* ---- statistics ------------------------------------------------------------------------*/
static void pl_print_stats(void)
{
    pl_counters_t t = {0};
    uint64_t parks;
    pl_glock_acquire();
    t = pl_retired;
    parks = pl_retired_parks;
    for (pl_tls_t *p = pl_registry; p; p = p->reg_next) {
        pl_counters_t snap;
        memcpy(&snap, &p->st, sizeof snap); /* racy for running threads: a snapshot */
        pl_counters_add(&t, &snap);
        parks += __atomic_load_n(p->parks, __ATOMIC_RELAXED);
    }
    uint64_t levels[PL_MAX_LEVELS];
    memcpy(levels, pl_retired_levels, sizeof levels);
    for (pl_tls_t *p = pl_registry; p; p = p->reg_next)
        for (int i = 0; i < PL_MAX_LEVELS; i++)
            levels[i] += __atomic_load_n(&p->levels[i], __ATOMIC_RELAXED);
    uint64_t boxes = pl_boxes_total, blocks = pl_blocks.total, seen = pl_threads_seen;
    uint64_t clhnodes = pl_clh_nodes.total;
    uint64_t crblocks = pl_cr_top - 1;
    pl_glock_release();
    if (pl_glibc_mode) {
        if (pl_glibc_adaptive)
            pl_say("clof-preload[%d]: lock=glibc-adaptive (glibc's mutexes, every default one "
                   "adaptive; not counted)", (int)getpid());
        else
            pl_say("clof-preload[%d]: lock=glibc (nothing replaced)", (int)getpid());
        return;
    }
    double pct = t.acquisitions ? 100.0 * (double)t.contended / (double)t.acquisitions : 0.0;
    /* hierarchical locks: blocking acquisitions by the levels they took
     * (1: the lock was passed inside the lowest cohort; the last: the
     * system level was acquired) */
    char lv[640] = "";
    if (pl_lock->levels) {
        int top = 0;
        for (int i = 1; i < PL_MAX_LEVELS; i++)
            if (levels[i])
                top = i;
        size_t o = (size_t)snprintf(lv, sizeof lv, " levels_taken=[");
        for (int i = 1; i <= top && o < sizeof lv; i++)
            o += (size_t)snprintf(lv + o, sizeof lv - o, "%s%d:%llu", i > 1 ? "," : "", i,
                                  (unsigned long long)levels[i]);
        if (o < sizeof lv)
            o += (size_t)snprintf(lv + o, sizeof lv - o, "]");
    }
    /* cr:<lock>: acquisitions that waited in the passive set, the
     * admissions a grant gave (cr.h: fairness or idle grants), and how often
     * a lock started limiting (0: every cr: lock stayed open), opened
     * again, and grew its active set after quiet releases */
    if (strncmp(pl_lock->name, "cr:", 3) == 0) {
        size_t o = strlen(lv);
        if (o < sizeof lv)
            snprintf(lv + o, sizeof lv - o,
                     " cr_passive=%llu cr_granted=%llu cr_limits=%llu cr_opens=%llu cr_grows=%llu",
                     (unsigned long long)t.cr_passive, (unsigned long long)t.cr_granted,
                     (unsigned long long)t.cr_limits, (unsigned long long)t.cr_opens,
                     (unsigned long long)t.cr_grows);
    }
    /* the hierarchy a lock over it ran on */
    if (pl_lock->hierarchical) {
        size_t o = strlen(lv);
        const clof_topology_t *tp = clof_topology();
        if (o < sizeof lv)
            snprintf(lv + o, sizeof lv - o, " topology=%s:%s", clof_topo_source_name(tp->source),
                     tp->origin);
    }
    char crb[160] = ""; /* cr: locks in place: their state blocks */
    if (crblocks != 0)
        snprintf(crb, sizeof crb, " cr_state_blocks=%llu (%zu B each)",
                 (unsigned long long)crblocks, sizeof(pl_cr_block_t));
    if (clhnodes != 0) { /* CLH (also as a level or inner lock): first nodes */
        size_t o = strlen(crb);
        snprintf(crb + o, sizeof crb - o, " clh_first_nodes=%llu (%zu B each)",
                 (unsigned long long)clhnodes, sizeof(clof_clh_node_t));
    }
    pl_say("clof-preload[%d]: lock=%s locks_replaced=%llu acquisitions=%llu contended=%llu "
           "(%.2f%%) parks=%llu handovers[system]=%llu%s trylock_busy=%llu timedlock=%llu "
           "(timeouts %llu) cond_waits=%llu (timeouts %llu) signals=%llu broadcasts=%llu "
           "threads=%llu contexts=%llu (%zu B each) lock_blocks=%llu (%zu B each)%s",
           (int)getpid(), pl_lock->name, (unsigned long long)t.replaced,
           (unsigned long long)t.acquisitions, (unsigned long long)t.contended, pct,
           (unsigned long long)parks, (unsigned long long)t.handovers, lv,
           (unsigned long long)t.trylock_busy, (unsigned long long)t.timed,
           (unsigned long long)t.timeouts, (unsigned long long)t.cond_waits,
           (unsigned long long)t.cond_timeouts, (unsigned long long)t.cond_signals,
           (unsigned long long)t.cond_broadcasts, (unsigned long long)seen,
           (unsigned long long)boxes, sizeof(pl_box_t), (unsigned long long)blocks,
           pl_blocks.size, crb);
}

__attribute__((constructor)) static void pl_constructor(void)
{
    pl_ctor_ran = true;
    pl_start();
}

__attribute__((destructor)) static void pl_destructor(void)
{
    if (clof_atomic32_read_acq(&pl_state) == PL_STATE_READY && pl_stats_on)
        pl_print_stats();
    if (clof_atomic32_read_acq(&pl_state) == PL_STATE_READY)
        pl_prof_exit();
}

/* ---- introspection ---------------------------------------------------------------------*/
PL_EXPORT int clof_preload_info(clof_preload_info_t *out, size_t size)
{
    pl_ensure_started();
    clof_preload_info_t i;
    memset(&i, 0, sizeof i);
    i.lock = pl_glibc_mode ? (pl_glibc_adaptive ? "glibc-adaptive" : "glibc") : pl_lock->name;
    i.stats = pl_stats_on;
    if (!pl_glibc_mode) {
        i.inplace = pl_lock->inplace;
        i.lock_size = pl_lock->lock_size;
        i.block_size = pl_blocks.size;
    }
    i.box_size = sizeof(pl_box_t);
    pl_glock_acquire();
    i.boxes = pl_boxes_total;
    i.boxes_pooled = pl_box_pool_n;
    i.blocks = pl_blocks.total;
    i.blocks_pooled = pl_blocks.nfree;
    i.clh_nodes = pl_clh_nodes.total;
    i.clh_nodes_pooled = pl_clh_nodes.nfree;
    i.cr_blocks = pl_cr_top - 1;
    i.cr_blocks_pooled = pl_cr_nfree;
    i.trees = pl_tree_top - 1;
    i.trees_retired = pl_trees_nfree;
    i.threads_seen = pl_threads_seen;
    i.threads_live = pl_threads_live;
    pl_glock_release();
    i.forks = clof_atomic32_read_rlx(&pl_fork_gen);
    i.early_start = pl_early_start;
    memcpy(out, &i, size < sizeof i ? size : sizeof i);
    return 0;
}

PL_EXPORT int clof_preload_mutex_held(const pthread_mutex_t *pm)
{
    pl_ensure_started();
    pl_mutex_t *m = (pl_mutex_t *)(void *)(uintptr_t)pm;
    if (pl_glibc_mode || (clof_atomic32_read_rlx(&m->kind) & PL_KIND_GLIBC))
        return 0;
    return clof_atomicptr_read_rlx(&m->box) != NULL;
}
