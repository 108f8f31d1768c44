/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_profile.c -- the profiling mode of libclof-preload.so:
 * per-lock acquisitions, contention, waits, holds and call sites, written
 * to CLOF_PROFILE.<pid> at exit, on SIGINT/SIGTERM and (with
 * CLOF_PROFILE_INTERVAL) as snapshots.  The design is in pl_profile.h; the
 * user's view and the file format in docs/profile.md.
 *
 * The profiling ops wrap the ops that would run otherwise (glibc's, or the
 * CLOF_LOCK lock's).  Over a clof lock: lock = try, and on failure time the
 * inner lock.  Trying first changes nothing a program can tell: every
 * lock's lock() starts with such a try (a clof lock's fast path).  Over
 * glibc's mutexes: peek at glibc's lock word, and when the mutex is free
 * go straight into glibc's lock (glibc's trylock costs as much as its
 * lock: trying first would pay for the lock twice); when it is taken, try
 * and time as over a clof lock (pl_profile.h).
 *
 * Robustness: nothing here allocates with malloc or takes a lock; the
 * table is mmap'd once; the dump uses open/write/close and snprintf of
 * integers only (it runs from a signal handler too); a full table counts
 * the locks it could not hold as "dropped".
 */
#include "pl_profile.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

bool pl_prof_on;

static pl_ops_t pl_prof_inner;        /* the ops being profiled */
static pl_prof_rec_t *pl_prof_tab;    /* 2^PL_PROF_BITS records */
#define pl_prof_cap ((size_t)1 << PL_PROF_BITS)
static uint32_t *pl_prof_used;        /* the claimed slots, in claim order */
static uint32_t pl_prof_nused;        /* how many (atomic) */
static uint64_t pl_prof_dropped;      /* lookups that found the table full (atomic) */
static pl_prof_rec_t pl_prof_scratch; /* their record: counted, never written out */
static int64_t pl_prof_hold_period;   /* one hold in this many is sampled (rec->down) */
static uint64_t pl_prof_interval_ns;  /* 0: no snapshots */
static uint64_t pl_prof_next_snap;    /* time of the next snapshot (atomic) */
static uint64_t pl_prof_start_ns;
static char pl_prof_path[512];        /* CLOF_PROFILE */

#define PL_PROF_GOLD32 0x9E3779B1u
#define PL_PROF_PROBES 64 /* linear probes before a lookup gives up */

/* ---- the table ------------------------------------------------------------ */
static inline uintptr_t pl_prof_key_load(const pl_prof_rec_t *r)
{
    return __atomic_load_n(&r->key, __ATOMIC_ACQUIRE);
}

/* The first slot of key: a multiplicative hash of the address's low 32
 * bits (a 32-bit multiplier is an immediate operand: one instruction fewer
 * than a 64-bit one on the fast path; locks 4 GiB apart share first slots
 * and probe on). */
static inline size_t pl_prof_hash(uintptr_t key)
{
    return (size_t)(((uint32_t)key * PL_PROF_GOLD32) >> (32 - PL_PROF_BITS));
}
static inline pl_prof_rec_t *pl_prof_slot(uintptr_t key)
{
    return &pl_prof_tab[pl_prof_hash(key)];
}

/* the record of key, inline where it is already there */
static inline __attribute__((always_inline)) pl_prof_rec_t *pl_prof_find(uintptr_t key,
                                                                         const void *pc)
{
    pl_prof_rec_t *r = pl_prof_slot(key);
    if (CLOF_LIKELY(__atomic_load_n(&r->key, __ATOMIC_RELAXED) == key))
        return r;
    return pl_prof_find_slow(key, pc);
}

pl_prof_rec_t *pl_prof_find_slow(uintptr_t key, const void *pc)
{
    if (key == 0 || pl_prof_tab == NULL)
        return &pl_prof_scratch;
    size_t i = pl_prof_hash(key);
    for (unsigned probe = 0; probe < PL_PROF_PROBES; probe++, i = (i + 1) & (pl_prof_cap - 1)) {
        pl_prof_rec_t *r = &pl_prof_tab[i];
        uintptr_t k = pl_prof_key_load(r);
        if (k == key)
            return r;
        if (k != 0)
            continue;
        /* claim the free slot (its first call site written by the winner
         * only: a loser must not touch another lock's record) */
        uintptr_t expect = 0;
        if (__atomic_compare_exchange_n(&r->key, &expect, key, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&r->first_pc, (uint64_t)(uintptr_t)pc, __ATOMIC_RELAXED);
            uint32_t n = __atomic_fetch_add(&pl_prof_nused, 1, __ATOMIC_RELAXED);
            if (n < pl_prof_cap)
                __atomic_store_n(&pl_prof_used[n], (uint32_t)i + 1, __ATOMIC_RELEASE);
            return r;
        }
        if (expect == key)
            return r;
    }
    __atomic_fetch_add(&pl_prof_dropped, 1, __ATOMIC_RELAXED);
    return &pl_prof_scratch;
}

uint64_t pl_prof_now(void)
{
    return clof_now_ns();
}

static inline void pl_prof_max(uint64_t *m, uint64_t v)
{
    if (v > *m)
        *m = v;
}
static void pl_prof_max_atomic(uint64_t *m, uint64_t v)
{
    uint64_t cur = __atomic_load_n(m, __ATOMIC_RELAXED);
    while (v > cur && !__atomic_compare_exchange_n(m, &cur, v, true, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
}

/* one wait of w ns from pc: by the holder (plain), or by anyone (atomic) */
void pl_prof_waited(pl_prof_rec_t *r, const void *pc, uint64_t w, bool atomic)
{
    uint64_t p = (uint64_t)(uintptr_t)pc;
    if (atomic) {
        __atomic_fetch_add(&r->contended, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&r->wait_ns, w, __ATOMIC_RELAXED);
        pl_prof_max_atomic(&r->wait_max, w);
    } else {
        r->contended++;
        r->wait_ns += w;
        pl_prof_max(&r->wait_max, w);
    }
    for (int i = 0; i < PL_PROF_SITES; i++) {
        pl_prof_site_t *s = &r->site[i];
        uint64_t sp = __atomic_load_n(&s->pc, __ATOMIC_RELAXED);
        if (sp == 0) {
            if (atomic) {
                uint64_t z = 0;
                if (!__atomic_compare_exchange_n(&s->pc, &z, p, false, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED) &&
                    z != p)
                    continue;
            } else {
                s->pc = p;
            }
            sp = p;
        }
        if (sp != p)
            continue;
        if (atomic) {
            __atomic_fetch_add(&s->n, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&s->wait_ns, w, __ATOMIC_RELAXED);
            pl_prof_max_atomic(&s->wait_max, w);
        } else {
            s->n++;
            s->wait_ns += w;
            pl_prof_max(&s->wait_max, w);
        }
        return;
    }
    __atomic_fetch_add(&r->other_n, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&r->other_wait_ns, w, __ATOMIC_RELAXED);
}

/* ---- counting acquisitions ---------------------------------------------------
 * A mutex's acquisitions: acq - down (pl_profile.h).  The holder counts
 * (plain) over a clof lock; over glibc's, the uncontended path counts
 * before it holds the lock, so every count of a mutex is atomic there. */
static bool pl_prof_glibc; /* the ops wrap glibc's mutexes */

/* the acquisitions of r so far (racy while threads run: a snapshot) */
static uint64_t pl_prof_count(const pl_prof_rec_t *r)
{
    /* a sampled acquisition moves acq and down one after the other: read
     * again when acq moved in between (a snapshot off by a whole period
     * otherwise) */
    for (int tries = 0;; tries++) {
        uint64_t a = __atomic_load_n(&r->acq, __ATOMIC_RELAXED);
        int64_t d = __atomic_load_n(&r->down, __ATOMIC_RELAXED);
        if (__atomic_load_n(&r->acq, __ATOMIC_RELAXED) == a || tries == 3)
            return a - (uint64_t)d;
    }
}

/* one acquisition of r: true when its hold is the one to sample (down
 * goes below zero) */
static inline __attribute__((always_inline)) bool pl_prof_counted(pl_prof_rec_t *r,
                                                                  bool atomic)
{
    if (!atomic)
        return CLOF_UNLIKELY(--r->down < 0);
#if defined(__clang__)
    /* the same test on the old value: clang makes `lock sub` and a branch
     * of this form, and a `lock xadd`, an add and a branch of the other */
    return CLOF_UNLIKELY(__atomic_fetch_sub(&r->down, 1, __ATOMIC_RELAXED) <= 0);
#else
    /* gcc makes `lock sub` and a branch of this form only */
    return CLOF_UNLIKELY(__atomic_sub_fetch(&r->down, 1, __ATOMIC_RELAXED) < 0);
#endif
}

/* the sampled acquisition: the next period's countdown, its count kept in acq */
static void pl_prof_rearm(pl_prof_rec_t *r, bool atomic)
{
    if (atomic) {
        __atomic_fetch_add(&r->down, pl_prof_hold_period, __ATOMIC_RELAXED);
        __atomic_fetch_add(&r->acq, (uint64_t)pl_prof_hold_period, __ATOMIC_RELAXED);
    } else {
        r->down += pl_prof_hold_period;
        r->acq += (uint64_t)pl_prof_hold_period;
    }
}

/* ---- sampled holds ----------------------------------------------------------
 * Timed in ticks of the cheapest clock that is the same on every cpu: the
 * time-stamp counter on x86-64 when the kernel keeps time with it (its
 * clocksource is "tsc": then it is invariant and synchronised across
 * cpus), CLOCK_MONOTONIC otherwise.  rdtsc is one instruction where a
 * clock_gettime through the vDSO is a call and some 30 more; a sampled hold
 * reads the clock twice.  The dump turns ticks into ns with the rate
 * measured between start-up and the dump (pl_prof_ns_per_tick).
 *
 * A thread keeps its sampled holds (at most PL_PROF_HELD) until it releases
 * them.  An entry whose lock has been acquired again since (acq or down
 * moved on: released by another thread, or a recursive relock) is stale and
 * dropped. */
static bool pl_prof_tsc;               /* hold ticks are TSC cycles, not ns */
static uint64_t pl_prof_cal_ns, pl_prof_cal_ticks; /* the rate's starting point */

/* without the TSC: the clock, read anyway, is the snapshots' chance too.
 * Out of line: its timespec on the stack would give every caller a frame. */
static __attribute__((noinline)) uint64_t pl_prof_ticks_clock(void)
{
    uint64_t now = pl_prof_now();
    pl_prof_tick(now);
    return now;
}

static inline uint64_t pl_prof_ticks(void)
{
#if defined(__x86_64__)
    if (CLOF_LIKELY(pl_prof_tsc))
        return __builtin_ia32_rdtsc();
#endif
    return pl_prof_ticks_clock();
}

/* the TSC when the kernel keeps time with it */
static bool pl_prof_tsc_usable(void)
{
#if defined(__x86_64__)
    char buf[32];
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    return k >= 3 && memcmp(buf, "tsc", 3) == 0 && (k == 3 || buf[3] == '\n');
#else
    return false;
#endif
}

/* ns per hold tick, measured from start-up to now (ns) */
static double pl_prof_ns_per_tick(uint64_t now)
{
    if (!pl_prof_tsc)
        return 1.0;
    uint64_t t = pl_prof_ticks();
    if (t <= pl_prof_cal_ticks || now <= pl_prof_cal_ns)
        return 1.0;
    return (double)(now - pl_prof_cal_ns) / (double)(t - pl_prof_cal_ticks);
}

#define PL_PROF_HELD 4
typedef struct {
    uint32_t n;
    struct {
        const void *m;
        pl_prof_rec_t *rec;
        uint64_t acq; /* rec->acq and rec->down right after the sampled acquisition */
        int64_t down;
        uint64_t t0;  /* ticks */
    } e[PL_PROF_HELD];
} pl_prof_held_t;
static PL_TLS pl_prof_held_t pl_prof_held;

/* The unlock each thread runs: pl_prof_unlock_plain, or
 * pl_prof_unlock_sampled while the thread has sampled holds open.  A
 * pointer per thread, so that the common unlock is one indirect jump more
 * than glibc's, and tests nothing.  Every thread starts with the plain one
 * (the dynamic linker relocates the TLS initialisation image before any
 * thread copies it). */
typedef int (*pl_prof_unlock_fn)(pthread_mutex_t *);
static int pl_prof_unlock_plain(pthread_mutex_t *m);
static int pl_prof_unlock_sampled(pthread_mutex_t *m);
static PL_TLS pl_prof_unlock_fn pl_prof_unlock_to = pl_prof_unlock_plain;

static inline __attribute__((always_inline)) void pl_prof_hold_start(const void *m,
                                                                     pl_prof_rec_t *r)
{
    pl_prof_held_t *h = &pl_prof_held;
    uint32_t n = h->n;
    if (n >= PL_PROF_HELD)
        return;
    h->e[n].m = m;
    h->e[n].rec = r;
    h->e[n].acq = __atomic_load_n(&r->acq, __ATOMIC_RELAXED);
    h->e[n].down = __atomic_load_n(&r->down, __ATOMIC_RELAXED);
    h->e[n].t0 = pl_prof_ticks();
    h->n = n + 1;
    pl_prof_unlock_to = pl_prof_unlock_sampled;
}

/* entry i is fresh: its lock not acquired again since its hold began */
static inline __attribute__((always_inline)) bool pl_prof_hold_fresh(const pl_prof_held_t *h,
                                                                     uint32_t i)
{
    const pl_prof_rec_t *r = h->e[i].rec;
    /* every acquisition moves down; acq too, every period (down alone
     * comes back to its value after a whole period) */
    return __atomic_load_n(&r->down, __ATOMIC_RELAXED) == h->e[i].down &&
           __atomic_load_n(&r->acq, __ATOMIC_RELAXED) == h->e[i].acq;
}

static inline __attribute__((always_inline)) void pl_prof_hold_done(pl_prof_held_t *h,
                                                                    uint32_t i)
{
    pl_prof_rec_t *r = h->e[i].rec;
    uint64_t now = pl_prof_ticks();
    uint64_t d = now - h->e[i].t0;
    r->hold_ticks += d;
    r->hold_n++;
    pl_prof_max(&r->hold_max_ticks, d);
}

/* before the release of m, in any other case than the last sampled hold
 * released fresh: find m's entry (none: m's acquisition was not sampled),
 * dropping the stale entries on the way */
static __attribute__((noinline)) void pl_prof_hold_end(const void *m)
{
    pl_prof_held_t *h = &pl_prof_held;
    for (uint32_t i = h->n; i-- > 0;) {
        bool mine = h->e[i].m == m;
        bool stale = !pl_prof_hold_fresh(h, i);
        if (!mine && !stale)
            continue;
        if (mine && !stale)
            pl_prof_hold_done(h, i);
        h->n--;
        if (i != h->n)
            h->e[i] = h->e[h->n];
        if (mine)
            break;
    }
    if (h->n == 0)
        pl_prof_unlock_to = pl_prof_unlock_plain;
}

/* ---- the profiling ops ----------------------------------------------------------- */
#define PL_PROF_PC() __builtin_return_address(0)

/* the sampled acquisition of m (r counted already), by its holder */
static __attribute__((noinline)) void pl_prof_sampled(const void *m, pl_prof_rec_t *r,
                                                      bool atomic)
{
    pl_prof_rearm(r, atomic);
    pl_prof_hold_start(m, r);
}

/* after an acquisition, by its holder */
static inline __attribute__((always_inline)) void pl_prof_acquired(pl_prof_rec_t *r,
                                                                    const void *m, bool atomic)
{
    if (pl_prof_counted(r, atomic))
        pl_prof_sampled(m, r, atomic);
}

/* the wait of a lock whose first try failed (r: what the try said) */
static __attribute__((noinline)) int pl_prof_lock_wait(pthread_mutex_t *m, int r, const void *pc)
{
    if (r != EBUSY)
        return r; /* not "held by another" (errors, robust mutexes): as it is */
    uint64_t t0 = pl_prof_now();
    pl_prof_tick(t0);
    r = pl_prof_inner.lock(m);
    if (r != 0)
        return r; /* EDEADLK (an errorcheck mutex its owner locks again) and the like */
    uint64_t t1 = pl_prof_now();
    pl_prof_rec_t *rec = pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc);
    pl_prof_waited(rec, pc, t1 - t0, false);
    pl_prof_acquired(rec, m, pl_prof_glibc);
    return 0;
}

/* an acquisition whose lock has no record yet (its first, or a lock past
 * the first slot of its hash) */
static __attribute__((noinline)) int pl_prof_acquired_new(pthread_mutex_t *m, const void *pc)
{
    pl_prof_acquired(pl_prof_find_slow((uintptr_t)m | PL_PROF_MUTEX, pc), m, pl_prof_glibc);
    return 0;
}

/* a first try that succeeded: count it in m's record.  Inlined into the
 * interposed function, so that PL_PROF_PC() (read only for a record not in
 * its first slot yet: reading it up front costs an instruction on the fast
 * path) is that function's return address, the program's call site. */
static inline __attribute__((always_inline)) int pl_prof_took(pthread_mutex_t *m, bool atomic)
{
    uintptr_t key = (uintptr_t)m | PL_PROF_MUTEX;
    pl_prof_rec_t *rec = pl_prof_slot(key);
    if (CLOF_UNLIKELY(__atomic_load_n(&rec->key, __ATOMIC_RELAXED) != key))
        return pl_prof_acquired_new(m, PL_PROF_PC());
    pl_prof_acquired(rec, m, atomic);
    return 0;
}

/* over a clof lock */
static int pl_prof_lock(pthread_mutex_t *m)
{
    int r = pl_prof_inner.trylock(m);
    if (CLOF_UNLIKELY(r != 0))
        return pl_prof_lock_wait(m, r, PL_PROF_PC());
    return pl_prof_took(m, false);
}

static __attribute__((noinline)) int pl_prof_busy(pthread_mutex_t *m, int r, const void *pc)
{
    if (r == EBUSY) {
        pl_prof_rec_t *rec = pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc);
        __atomic_fetch_add(&rec->busy, 1, __ATOMIC_RELAXED);
    }
    return r;
}

static int pl_prof_trylock(pthread_mutex_t *m)
{
    int r = pl_prof_inner.trylock(m);
    if (CLOF_UNLIKELY(r != 0))
        return pl_prof_busy(m, r, PL_PROF_PC());
    return pl_prof_took(m, false);
}

/* ---- over glibc's own mutexes ---------------------------------------------------
 * pl_prof_g_lock peeks at glibc's lock word, __data.__lock (offset 0 of
 * every glibc mutex type): 0 when the mutex is free -- for the normal,
 * adaptive, recursive and errorcheck types (1 held, 2 held with waiters),
 * the robust and priority-inherit ones (the owner's tid when held), and a
 * mutex in a lock-elision transaction -- and never 0 for a
 * priority-protect mutex (its ceiling lives in that word), which therefore
 * always takes the path of a taken mutex.  The peek is only a guess of
 * what glibc's lock will find: glibc's pthread_mutex_lock, called in every
 * case, decides everything a program can tell. */
static inline int pl_prof_glibc_word(pthread_mutex_t *m)
{
    return __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
}

/* taken when peeked at: try, and time the lock when the try fails, as
 * over a clof lock.  The try also takes a recursive mutex its owner locks
 * again (counted: an acquisition that did not wait), and leaves an
 * errorcheck mutex its owner locks again to the lock (EDEADLK, not
 * counted). */
static __attribute__((noinline)) int pl_prof_g_lock_taken(pthread_mutex_t *m, const void *pc)
{
    int r = pl_prof_inner.trylock(m);
    if (r != 0)
        return pl_prof_lock_wait(m, r, pc);
    pl_prof_acquired(pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc), m, true);
    return 0;
}

/* free when peeked at, and the acquisition whose hold is sampled (rec:
 * its record, counted already) */
static __attribute__((noinline)) int pl_prof_g_lock_sampled(pthread_mutex_t *m,
                                                            pl_prof_rec_t *rec)
{
    int r = pl_prof_inner.lock(m);
    if (r != 0) {
        /* not acquired after all (EINVAL: a destroyed mutex): not counted */
        __atomic_fetch_add(&rec->down, 1, __ATOMIC_RELAXED);
        return r;
    }
    pl_prof_sampled(m, rec, true);
    return 0;
}

/* free when peeked at, and no record in the first slot of its hash */
static __attribute__((noinline)) int pl_prof_g_lock_new(pthread_mutex_t *m, const void *pc)
{
    pl_prof_rec_t *rec = pl_prof_find_slow((uintptr_t)m | PL_PROF_MUTEX, pc);
    if (pl_prof_counted(rec, true))
        return pl_prof_g_lock_sampled(m, rec);
    int r = pl_prof_inner.lock(m);
    if (r != 0)
        __atomic_fetch_add(&rec->down, 1, __ATOMIC_RELAXED); /* as above */
    return r;
}

/* The uncontended path: peek, find the record, count (before the lock is
 * held: atomically), and jump into glibc's lock -- a tail call, so no
 * frame of ours is left around glibc's lock.  A lock that glibc refuses
 * on this path (a destroyed mutex: EINVAL) stays counted. */
static int pl_prof_g_lock(pthread_mutex_t *m)
{
    if (CLOF_UNLIKELY(pl_prof_glibc_word(m) != 0))
        return pl_prof_g_lock_taken(m, PL_PROF_PC());
    uintptr_t key = (uintptr_t)m | PL_PROF_MUTEX;
    pl_prof_rec_t *rec = pl_prof_slot(key);
    /* A plain read of the key, which gcc folds into the compare (an atomic
     * load costs a load and a register move more).  The key of a slot is
     * written once, 0 to its value, by a compare-and-swap, and never
     * changes after: an aligned word, read once; a stale 0 only sends this
     * acquisition to pl_prof_find_slow, which reads it atomically. */
    if (CLOF_UNLIKELY(rec->key != key))
        return pl_prof_g_lock_new(m, PL_PROF_PC());
    if (pl_prof_counted(rec, true))
        return pl_prof_g_lock_sampled(m, rec);
    return pl_prof_inner.lock(m);
}

static int pl_prof_g_trylock(pthread_mutex_t *m)
{
    int r = pl_prof_inner.trylock(m);
    if (CLOF_UNLIKELY(r != 0))
        return pl_prof_busy(m, r, PL_PROF_PC());
    return pl_prof_took(m, true);
}

/* ---- unlock, timedlock, destroy: both ----------------------------------------------- */
static int pl_prof_unlock_sampled(pthread_mutex_t *m)
{
    pl_prof_held_t *h = &pl_prof_held;
    uint32_t n = h->n;
    if (CLOF_LIKELY(n != 0 && h->e[n - 1].m == m && pl_prof_hold_fresh(h, n - 1))) {
        /* the common case: the last sampled hold ends */
        pl_prof_hold_done(h, n - 1);
        h->n = n - 1;
        if (n == 1)
            pl_prof_unlock_to = pl_prof_unlock_plain;
    } else {
        pl_prof_hold_end(m);
    }
    return pl_prof_inner.unlock(m);
}

static int pl_prof_unlock_plain(pthread_mutex_t *m)
{
    return pl_prof_inner.unlock(m);
}

static int pl_prof_unlock(pthread_mutex_t *m)
{
    return pl_prof_unlock_to(m);
}

static int pl_prof_timedlock_at(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs,
                                int api, const void *pc)
{
    if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
        return pl_prof_inner.timedlock(m, clk, abs, api); /* EINVAL, as without us */
    int r = pl_prof_inner.trylock(m);
    if (r == 0) {
        pl_prof_acquired(pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc), m, pl_prof_glibc);
        return 0;
    }
    if (r != EBUSY)
        return r;
    uint64_t t0 = pl_prof_now();
    pl_prof_tick(t0);
    r = pl_prof_inner.timedlock(m, clk, abs, api);
    uint64_t t1 = pl_prof_now();
    pl_prof_rec_t *rec = pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc);
    if (r == 0) {
        pl_prof_waited(rec, pc, t1 - t0, false);
        pl_prof_acquired(rec, m, pl_prof_glibc);
    } else if (r == ETIMEDOUT) {
        __atomic_fetch_add(&rec->timeouts, 1, __ATOMIC_RELAXED);
    }
    return r;
}

static __attribute__((noinline)) int pl_prof_timedlock(pthread_mutex_t *m, clockid_t clk,
                                                       const struct timespec *abs, int api)
{
    return pl_prof_timedlock_at(m, clk, abs, api, PL_PROF_PC());
}

static int pl_prof_destroy(pthread_mutex_t *m)
{
    return pl_prof_inner.destroy(m);
}

static pl_ops_t pl_ops_prof = {
    pl_prof_lock, pl_prof_trylock, pl_prof_unlock, pl_prof_timedlock, pl_prof_destroy, NULL,
};
static pl_ops_t pl_ops_prof_glibc = {
    pl_prof_g_lock, pl_prof_g_trylock, pl_prof_unlock, pl_prof_timedlock, pl_prof_destroy, NULL,
};

static const pl_ops_t *pl_track_ops(const pl_ops_t *inner);

const pl_ops_t *pl_prof_wrap(const pl_ops_t *inner)
{
    pl_prof_inner = *inner;
    pl_ops_prof.fork_reset = inner->fork_reset;
    /* glibc's own functions (without the one-line forwarders), when they
     * all resolved: then the glibc ops, which peek at glibc's lock word */
    if (inner == &pl_ops_glibc && pl_real.mutex_lock && pl_real.mutex_trylock &&
        pl_real.mutex_unlock) {
        pl_prof_inner.lock = pl_real.mutex_lock;
        pl_prof_inner.trylock = pl_real.mutex_trylock;
        pl_prof_inner.unlock = pl_real.mutex_unlock;
        pl_prof_glibc = true;
        pl_ops_prof_glibc.fork_reset = inner->fork_reset;
        return pl_prof_track ? pl_track_ops(inner) : &pl_ops_prof_glibc;
    }
    if (inner == &pl_ops_glibc_adaptive)
        pl_prof_glibc = true; /* glibc's mutexes too, through the forwarders that adapt them */
    return pl_prof_track ? pl_track_ops(inner) : &pl_ops_prof;
}

/* ---- condition variables ---------------------------------------------------------- */
void pl_prof_cond_wait(const void *cond, const void *pc, uint64_t w, bool timedout)
{
    pl_prof_rec_t *r = pl_prof_find((uintptr_t)cond | PL_PROF_COND, pc);
    __atomic_fetch_add(&r->acq, 1, __ATOMIC_RELAXED);
    pl_prof_waited(r, pc, w, true);
    if (timedout)
        __atomic_fetch_add(&r->timeouts, 1, __ATOMIC_RELAXED);
}

void pl_prof_cond_signal(const void *cond, bool all)
{
    pl_prof_rec_t *r = pl_prof_find((uintptr_t)cond | PL_PROF_COND, NULL);
    __atomic_fetch_add(all ? &r->rd_acq : &r->busy, 1, __ATOMIC_RELAXED);
}

/* ---- read-write locks (pl_rwlock.c calls these when pl_prof_on) ----------------------
 * A first try, then the blocking (or timed) call, timed, when the try says
 * the lock is taken: as for the mutexes.  Every count of an rwlock record is
 * an atomic add -- readers hold the lock together, and a writer's counts
 * would share fields with theirs -- so the write side costs one locked add
 * more than a mutex's.  Holds are not sampled for rwlocks (hold columns
 * empty in the report). */
static inline pl_prof_rec_t *pl_prof_rw_rec(const pthread_rwlock_t *rw, const void *pc)
{
    return pl_prof_find((uintptr_t)rw | PL_PROF_RWLOCK, pc);
}

static void pl_prof_rw_acquired(pl_prof_rec_t *r, bool write)
{
    __atomic_fetch_add(write ? &r->acq : &r->rd_acq, 1, __ATOMIC_RELAXED);
}

static int pl_track_rw_lock(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                            pl_prof_rw_fn block, const void *pc);
static int pl_track_rw_try(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_, const void *pc);
static int pl_track_rw_timed(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                             pl_prof_rw_timed_fn timed, clockid_t clk,
                             const struct timespec *abs, const void *pc);

int pl_prof_rw_lock(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_, pl_prof_rw_fn block,
                    const void *pc)
{
    if (CLOF_UNLIKELY(pl_prof_track))
        return pl_track_rw_lock(rw, write, try_, block, pc);
    int r = try_(rw);
    if (CLOF_LIKELY(r == 0)) {
        pl_prof_rw_acquired(pl_prof_rw_rec(rw, pc), write);
        return 0;
    }
    if (r != EBUSY)
        return r; /* EDEADLK and the like: what the blocking call would say */
    uint64_t t0 = pl_prof_now();
    pl_prof_tick(t0);
    r = block(rw);
    if (r != 0)
        return r;
    uint64_t t1 = pl_prof_now();
    pl_prof_rec_t *rec = pl_prof_rw_rec(rw, pc);
    pl_prof_waited(rec, pc, t1 - t0, true);
    pl_prof_rw_acquired(rec, write);
    return 0;
}

int pl_prof_rw_try(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_, const void *pc)
{
    if (CLOF_UNLIKELY(pl_prof_track))
        return pl_track_rw_try(rw, write, try_, pc);
    int r = try_(rw);
    if (r == 0)
        pl_prof_rw_acquired(pl_prof_rw_rec(rw, pc), write);
    else if (r == EBUSY)
        __atomic_fetch_add(&pl_prof_rw_rec(rw, pc)->busy, 1, __ATOMIC_RELAXED);
    return r;
}

static int pl_prof_rw_timed_plain(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                                  pl_prof_rw_timed_fn timed, clockid_t clk,
                                  const struct timespec *abs, const void *pc)
{
    /* glibc refuses a bad clock or deadline before it tries (EINVAL even
     * when the lock is free): so must a try in front of it */
    if ((clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) || abs == NULL || !pl_ts_valid(abs))
        return timed(rw, clk, abs);
    int r = try_(rw);
    if (r == 0) {
        pl_prof_rw_acquired(pl_prof_rw_rec(rw, pc), write);
        return 0;
    }
    if (r != EBUSY)
        return r;
    uint64_t t0 = pl_prof_now();
    pl_prof_tick(t0);
    r = timed(rw, clk, abs);
    uint64_t t1 = pl_prof_now();
    pl_prof_rec_t *rec = pl_prof_rw_rec(rw, pc);
    if (r == 0) {
        pl_prof_waited(rec, pc, t1 - t0, true);
        pl_prof_rw_acquired(rec, write);
    } else if (r == ETIMEDOUT) {
        __atomic_fetch_add(&rec->timeouts, 1, __ATOMIC_RELAXED);
    }
    return r;
}

int pl_prof_rw_timed(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                     pl_prof_rw_timed_fn timed, clockid_t clk, const struct timespec *abs,
                     const void *pc)
{
    if (CLOF_UNLIKELY(pl_prof_track))
        return pl_track_rw_timed(rw, write, try_, timed, clk, abs, pc);
    return pl_prof_rw_timed_plain(rw, write, try_, timed, clk, abs, pc);
}

/* ---- lock tracking (pl_profile.h): held sets, the lock-order graph, waits, long holds --
 * Each thread's held set lives in a slot of one mmap'd array (so that a
 * dump on SIGQUIT can read every thread's, racily: a snapshot), claimed on
 * the thread's first tracked acquisition and given back at its exit.  An
 * entry names its lock by profile-table slot and generation (pthread_*_init
 * and _destroy start a new generation: a new lock at a reused address is a
 * new node of the graph).  Bounds, all fixed at start-up:
 * PL_TRACK_THREADS threads at a time, PL_TRACK_HELD locks held by one
 * thread (deeper ones are not tracked, counted), 2^PL_TRACK_EDGE_BITS
 * distinct edges (more: counted as dropped), PL_TRACK_LONG long-hold sites;
 * locks beyond the profile table (2^PL_PROF_BITS) are not tracked. */
bool pl_prof_track;
static bool pl_track_order, pl_track_hang;
static uint64_t pl_track_long_ns; /* 0: long holds not watched */

#define PL_TRACK_HELD 32
#define PL_TRACK_THREADS 4096
#define PL_TRACK_EDGE_BITS 18
#define PL_TRACK_LONG 1024
enum { PL_TM_WRITE = 0, PL_TM_READ = 1 };

typedef struct {
    uintptr_t lock;  /* its address */
    uint32_t slot;   /* profile-table index + 1; 0: untracked (table full) */
    uint32_t gen;
    uint8_t kind, mode;
    uint16_t depth;  /* recursive re-acquisitions (recursive mutex, read lock again) */
    uint32_t waits0; /* the lock's waits_begun at the acquisition (long holds) */
    uint64_t pc;     /* where it was taken */
    uint64_t t0;     /* when (ns; long holds only) */
} pl_track_held_t;

typedef struct {
    int32_t tid;        /* 0: a free slot (atomic) */
    uint32_t n;         /* entries of held (release-stored by the owner) */
    uint32_t overflow;  /* acquisitions past PL_TRACK_HELD, not tracked */
    uint8_t wait_kind, wait_mode;
    uintptr_t wait_lock; /* the lock the thread waits for, 0: none (atomic) */
    uint64_t wait_pc, wait_since;
    pl_track_held_t held[PL_TRACK_HELD];
} pl_track_thr_t;

typedef struct {
    uint64_t key;            /* 0: free (atomic); pl_track_edge_key */
    uint64_t pc_from, pc_to; /* where the held lock was taken, where the new one */
    int32_t tid;             /* the thread that made the edge first */
    uint32_t pad;
} pl_track_edge_t;

typedef struct {
    uint64_t key;            /* slot + 1 of the lock, 0: free (atomic) */
    uint64_t pc;             /* where the long hold was taken */
    uint64_t n, total_ns, max_ns, waiters; /* atomic */
} pl_track_long_t;

static pl_track_thr_t *pl_track_thr;     /* PL_TRACK_THREADS */
static pl_track_edge_t *pl_track_edges;  /* 2^PL_TRACK_EDGE_BITS */
static pl_track_long_t *pl_track_longs;  /* PL_TRACK_LONG */
static uint64_t pl_track_edges_dropped, pl_track_threads_dropped, pl_track_longs_dropped;
static pthread_key_t pl_track_key;
static PL_TLS pl_track_thr_t *pl_track_me;
static PL_TLS bool pl_track_gone; /* this thread's slot was given back at its exit */

static void pl_track_thread_exit(void *arg)
{
    pl_track_thr_t *t = arg;
    if (t == NULL)
        return;
    __atomic_store_n(&t->n, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->wait_lock, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->tid, 0, __ATOMIC_RELEASE);
    pl_track_me = NULL;
    pl_track_gone = true;
}

static __attribute__((noinline)) pl_track_thr_t *pl_track_claim(void)
{
    if (pl_track_thr == NULL || pl_track_gone)
        return NULL; /* not set up, or a lock taken by a destructor after ours ran */
    int32_t tid = pl_tid();
    for (uint32_t i = 0; i < PL_TRACK_THREADS; i++) {
        pl_track_thr_t *t = &pl_track_thr[(i + (uint32_t)tid) % PL_TRACK_THREADS];
        int32_t z = 0;
        if (__atomic_load_n(&t->tid, __ATOMIC_RELAXED) != 0 ||
            !__atomic_compare_exchange_n(&t->tid, &z, tid, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED))
            continue;
        t->n = 0;
        t->overflow = 0;
        t->wait_lock = 0;
        pl_track_me = t;
        pthread_setspecific(pl_track_key, t);
        return t;
    }
    __atomic_fetch_add(&pl_track_threads_dropped, 1, __ATOMIC_RELAXED);
    pl_track_gone = true; /* do not search again */
    return NULL;
}

static inline pl_track_thr_t *pl_track_self(void)
{
    pl_track_thr_t *t = pl_track_me;
    return CLOF_LIKELY(t != NULL) ? t : pl_track_claim();
}

/* the record of a lock, if it has one (no claim) */
static pl_prof_rec_t *pl_prof_peek(uintptr_t key)
{
    if (pl_prof_tab == NULL)
        return NULL;
    size_t i = pl_prof_hash(key);
    for (unsigned probe = 0; probe < PL_PROF_PROBES; probe++, i = (i + 1) & (pl_prof_cap - 1)) {
        uintptr_t k = pl_prof_key_load(&pl_prof_tab[i]);
        if (k == key)
            return &pl_prof_tab[i];
        if (k == 0)
            return NULL;
    }
    return NULL;
}

void pl_prof_track_new(const void *lock, unsigned kind)
{
    pl_prof_rec_t *r = pl_prof_peek((uintptr_t)lock | kind);
    if (r != NULL)
        __atomic_fetch_add(&r->gen, 1, __ATOMIC_RELAXED);
}

/* An edge: 1 | from (slot 17 bits, generation 13, mode 1) | to (the same) */
static inline uint64_t pl_track_end(uint32_t slot, uint32_t gen, unsigned mode)
{
    return ((uint64_t)slot << 14) | ((uint64_t)(gen & 0x1fff) << 1) | mode;
}

static void pl_track_edge(const pl_track_held_t *from, uint32_t slot, uint32_t gen,
                          unsigned mode, const void *pc, int32_t tid)
{
    uint64_t key = (1ull << 63) | (pl_track_end(from->slot, from->gen, from->mode) << 31) |
                   pl_track_end(slot, gen, mode);
    size_t cap = (size_t)1 << PL_TRACK_EDGE_BITS;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - PL_TRACK_EDGE_BITS));
    for (unsigned probe = 0; probe < 64; probe++, i = (i + 1) & (cap - 1)) {
        pl_track_edge_t *e = &pl_track_edges[i];
        uint64_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == key)
            return; /* known: nothing written (hot pairs share no cache line writes) */
        if (k != 0)
            continue;
        /* the winner writes the rest, then publishes the key */
        uint64_t z = 0;
        if (!__atomic_compare_exchange_n(&e->key, &z, 1, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED)) {
            if (z == key)
                return;
            continue;
        }
        e->pc_from = from->pc;
        e->pc_to = (uint64_t)(uintptr_t)pc;
        e->tid = tid;
        __atomic_store_n(&e->key, key, __ATOMIC_RELEASE);
        return;
    }
    __atomic_fetch_add(&pl_track_edges_dropped, 1, __ATOMIC_RELAXED);
}

/* a lock taken, with others held or none (rec: its record; block: by a
 * call that can block) */
static __attribute__((noinline)) void pl_track_took_slow(pl_track_thr_t *t, pl_prof_rec_t *rec,
                                                         const void *lock, unsigned kind,
                                                         unsigned mode, const void *pc,
                                                         bool block)
{
    if (t == NULL && (t = pl_track_claim()) == NULL)
        return;
    uint32_t n = t->n;
    for (uint32_t i = n; i-- > 0;)
        if (t->held[i].lock == (uintptr_t)lock && t->held[i].kind == kind) {
            t->held[i].depth++; /* again, by its holder: no new order */
            return;
        }
    if (n >= PL_TRACK_HELD) {
        t->overflow++;
        return;
    }
    bool in_tab = rec != &pl_prof_scratch && pl_prof_tab != NULL;
    uint32_t slot = in_tab ? (uint32_t)(rec - pl_prof_tab) + 1 : 0;
    uint32_t gen = in_tab ? __atomic_load_n(&rec->gen, __ATOMIC_RELAXED) : 0;
    if (pl_track_order && block && slot != 0)
        for (uint32_t i = 0; i < n; i++)
            if (t->held[i].slot != 0)
                pl_track_edge(&t->held[i], slot, gen, mode, pc, t->tid);
    pl_track_held_t *h = &t->held[n];
    h->lock = (uintptr_t)lock;
    h->slot = slot;
    h->gen = gen;
    h->kind = (uint8_t)kind;
    h->mode = (uint8_t)mode;
    h->depth = 0;
    h->pc = (uint64_t)(uintptr_t)pc;
    if (pl_track_long_ns != 0 && in_tab) {
        h->t0 = pl_prof_now();
        h->waits0 = __atomic_load_n(&rec->waits_begun, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&t->n, n + 1, __ATOMIC_RELEASE);
}

/* the common case inline: the thread holds nothing else (no edge, no
 * re-acquisition to look for) and long holds are not watched */
static inline __attribute__((always_inline)) void pl_track_took(pl_prof_rec_t *rec,
                                                                const void *lock, unsigned kind,
                                                                unsigned mode, const void *pc,
                                                                bool block)
{
    pl_track_thr_t *t = pl_track_me;
    if (CLOF_UNLIKELY(t == NULL || t->n != 0 || pl_track_long_ns != 0 ||
                      rec == &pl_prof_scratch)) {
        pl_track_took_slow(t, rec, lock, kind, mode, pc, block);
        return;
    }
    pl_track_held_t *h = &t->held[0];
    h->lock = (uintptr_t)lock;
    h->slot = (uint32_t)(rec - pl_prof_tab) + 1;
    h->gen = __atomic_load_n(&rec->gen, __ATOMIC_RELAXED);
    h->kind = (uint8_t)kind;
    h->mode = (uint8_t)mode;
    h->depth = 0;
    h->pc = (uint64_t)(uintptr_t)pc;
    __atomic_store_n(&t->n, 1, __ATOMIC_RELEASE);
}

static void pl_track_long(const pl_track_held_t *h, uint64_t d)
{
    pl_prof_rec_t *rec = &pl_prof_tab[h->slot - 1];
    uint32_t waiters = __atomic_load_n(&rec->waits_begun, __ATOMIC_RELAXED) - h->waits0;
    uint64_t key = h->slot;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull ^ h->pc * 0xC2B2AE3D27D4EB4Full) >> 54) %
               PL_TRACK_LONG;
    for (unsigned probe = 0; probe < 32; probe++, i = (i + 1) % PL_TRACK_LONG) {
        pl_track_long_t *l = &pl_track_longs[i];
        uint64_t k = __atomic_load_n(&l->key, __ATOMIC_ACQUIRE);
        if (k == 0) {
            uint64_t z = 0;
            if (!__atomic_compare_exchange_n(&l->key, &z, ~0ull, false, __ATOMIC_ACQ_REL,
                                             __ATOMIC_RELAXED)) {
                probe--; /* look at it again */
                i = (i + PL_TRACK_LONG - 1) % PL_TRACK_LONG;
                continue;
            }
            l->pc = h->pc;
            __atomic_store_n(&l->key, key, __ATOMIC_RELEASE);
            k = key;
        }
        if (k != key || __atomic_load_n(&l->pc, __ATOMIC_RELAXED) != h->pc)
            continue;
        __atomic_fetch_add(&l->n, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&l->total_ns, d, __ATOMIC_RELAXED);
        __atomic_fetch_add(&l->waiters, waiters, __ATOMIC_RELAXED);
        pl_prof_max_atomic(&l->max_ns, d);
        return;
    }
    __atomic_fetch_add(&pl_track_longs_dropped, 1, __ATOMIC_RELAXED);
}

/* a lock about to be released by this thread: any case */
static __attribute__((noinline)) void pl_track_release_slow(pl_track_thr_t *t, const void *lock,
                                                            unsigned kind)
{
    uint32_t n = t->n;
    for (uint32_t i = n; i-- > 0;) {
        pl_track_held_t *h = &t->held[i];
        if (h->lock != (uintptr_t)lock || h->kind != kind)
            continue;
        if (h->depth != 0) {
            h->depth--;
            return;
        }
        if (pl_track_long_ns != 0 && h->slot != 0) {
            uint64_t d = pl_prof_now() - h->t0;
            if (d >= pl_track_long_ns)
                pl_track_long(h, d);
        }
        /* keep the order of acquisition (a dump shows it) */
        __atomic_store_n(&t->n, i, __ATOMIC_RELEASE);
        for (uint32_t j = i + 1; j < n; j++)
            t->held[j - 1] = t->held[j];
        __atomic_store_n(&t->n, n - 1, __ATOMIC_RELEASE);
        return;
    }
    if (t->overflow != 0)
        t->overflow--; /* an untracked one, most likely */
}

/* the common case inline: the last lock taken, not taken again, no long
 * holds watched (long: whether they may be; false only where the caller
 * knows they are not) */
static inline __attribute__((always_inline)) void pl_track_release_if(const void *lock,
                                                                      unsigned kind, bool long_)
{
    pl_track_thr_t *t = pl_track_me;
    if (t == NULL)
        return;
    uint32_t n = t->n;
    if (CLOF_LIKELY(n != 0)) {
        const pl_track_held_t *h = &t->held[n - 1];
        if (CLOF_LIKELY(h->lock == (uintptr_t)lock && h->kind == kind && h->depth == 0 &&
                        !(long_ && pl_track_long_ns != 0))) {
            __atomic_store_n(&t->n, n - 1, __ATOMIC_RELEASE);
            return;
        }
    }
    pl_track_release_slow(t, lock, kind);
}

static inline __attribute__((always_inline)) void pl_track_release(const void *lock,
                                                                   unsigned kind)
{
    pl_track_release_if(lock, kind, true);
}

/* about to block on lock (hang: the thread waits for it; long holds: a
 * wait begun under its holder) */
static pl_track_thr_t *pl_track_wait(const void *lock, unsigned kind, unsigned mode,
                                     const void *pc)
{
    if (pl_track_long_ns != 0) {
        pl_prof_rec_t *rec = pl_prof_find((uintptr_t)lock | kind, pc);
        __atomic_fetch_add(&rec->waits_begun, 1, __ATOMIC_RELAXED);
    }
    if (!pl_track_hang)
        return NULL;
    pl_track_thr_t *t = pl_track_self();
    if (t == NULL)
        return NULL;
    t->wait_kind = (uint8_t)kind;
    t->wait_mode = (uint8_t)mode;
    t->wait_pc = (uint64_t)(uintptr_t)pc;
    t->wait_since = pl_prof_now();
    __atomic_store_n(&t->wait_lock, (uintptr_t)lock, __ATOMIC_RELEASE);
    return t;
}

static inline void pl_track_wait_end(pl_track_thr_t *t)
{
    if (t != NULL)
        __atomic_store_n(&t->wait_lock, 0, __ATOMIC_RELEASE);
}

/* ---- the tracking ops: the profiling ops' counts, and the held set -------------- */
static inline __attribute__((always_inline)) int pl_track_lock_pc(pthread_mutex_t *m,
                                                                  const void *pc)
{
    uintptr_t key = (uintptr_t)m | PL_PROF_MUTEX;
    int r = pl_prof_inner.trylock(m);
    if (CLOF_LIKELY(r == 0)) {
        pl_prof_rec_t *rec = pl_prof_find(key, pc);
        pl_prof_acquired(rec, m, pl_prof_glibc);
        pl_track_took(rec, m, PL_PROF_MUTEX, PL_TM_WRITE, pc, true);
        return 0;
    }
    pl_track_thr_t *t = r == EBUSY ? pl_track_wait(m, PL_PROF_MUTEX, PL_TM_WRITE, pc) : NULL;
    r = pl_prof_lock_wait(m, r, pc);
    pl_track_wait_end(t);
    if (r == 0)
        pl_track_took(pl_prof_find(key, pc), m, PL_PROF_MUTEX, PL_TM_WRITE, pc, true);
    return r;
}

static int pl_track_lock(pthread_mutex_t *m)
{
    return pl_track_lock_pc(m, PL_PROF_PC());
}

static __attribute__((noinline)) int pl_track_lock_slow(pthread_mutex_t *m, const void *pc)
{
    return pl_track_lock_pc(m, pc);
}

/* Under glibc's mutexes, order tracking without hang tracking: the common
 * case -- the lock word free (as pl_prof_g_lock peeks), the thread holding
 * no other lock, the lock's record in its first slot -- enters the lock in
 * the held set *before* glibc's lock takes it, counts it, and jumps into
 * glibc's lock (a tail call: no frame of ours around it).  With nothing
 * else held there is no edge to make, and nothing is done while the
 * thread is in glibc's lock, so an entry made a moment early changes no
 * report: if another thread takes the lock between the peek and glibc's
 * lock, this one waits there with the entry already made.  (Hang tracking
 * publishes waits, which need the try first: it keeps pl_track_lock.)
 * The lock refused by glibc on this path (EINVAL: a destroyed mutex)
 * leaves its entry behind until the thread's next release of it. */
static int pl_track_g_lock(pthread_mutex_t *m)
{
    uintptr_t key = (uintptr_t)m | PL_PROF_MUTEX;
    pl_prof_rec_t *rec = pl_prof_slot(key);
    pl_track_thr_t *t = pl_track_me;
    if (CLOF_UNLIKELY(pl_prof_glibc_word(m) != 0 || rec->key != key || t == NULL ||
                      t->n != 0 || pl_track_long_ns != 0))
        return pl_track_lock_slow(m, PL_PROF_PC());
    pl_track_held_t *h = &t->held[0];
    h->lock = (uintptr_t)m;
    h->slot = (uint32_t)(rec - pl_prof_tab) + 1;
    h->gen = __atomic_load_n(&rec->gen, __ATOMIC_RELAXED);
    h->kind = PL_PROF_MUTEX;
    h->mode = PL_TM_WRITE;
    h->depth = 0;
    h->pc = (uint64_t)(uintptr_t)PL_PROF_PC();
    __atomic_store_n(&t->n, 1, __ATOMIC_RELEASE);
    if (pl_prof_counted(rec, true))
        return pl_prof_g_lock_sampled(m, rec);
    return pl_prof_inner.lock(m);
}

static int pl_track_trylock(pthread_mutex_t *m)
{
    const void *pc = PL_PROF_PC();
    int r = pl_prof_inner.trylock(m);
    if (r != 0)
        return pl_prof_busy(m, r, pc);
    pl_prof_rec_t *rec = pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc);
    pl_prof_acquired(rec, m, pl_prof_glibc);
    pl_track_took(rec, m, PL_PROF_MUTEX, PL_TM_WRITE, pc, false); /* cannot block: no edge */
    return 0;
}

static int pl_track_unlock(pthread_mutex_t *m)
{
    pl_track_release(m, PL_PROF_MUTEX);
    return pl_prof_unlock_to(m);
}

/* the unlock where long holds are not watched (pl_track_ops) */
static int pl_track_unlock_short(pthread_mutex_t *m)
{
    pl_track_release_if(m, PL_PROF_MUTEX, false);
    return pl_prof_unlock_to(m);
}

/* a timed lock gives up at its deadline: it waits (hang), but makes no
 * edge (it cannot block forever) */
static int pl_track_timedlock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs,
                              int api)
{
    const void *pc = PL_PROF_PC();
    pl_track_thr_t *t = pl_track_wait(m, PL_PROF_MUTEX, PL_TM_WRITE, pc);
    int r = pl_prof_timedlock_at(m, clk, abs, api, pc);
    pl_track_wait_end(t);
    if (r == 0)
        pl_track_took(pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc), m, PL_PROF_MUTEX,
                      PL_TM_WRITE, pc, false);
    return r;
}

static int pl_track_destroy(pthread_mutex_t *m)
{
    pl_prof_track_new(m, PL_PROF_MUTEX);
    return pl_prof_inner.destroy(m);
}

static pl_ops_t pl_ops_track = {
    pl_track_lock, pl_track_trylock, pl_track_unlock, pl_track_timedlock, pl_track_destroy, NULL,
};

static const pl_ops_t *pl_track_ops(const pl_ops_t *inner)
{
    pl_ops_track.fork_reset = inner->fork_reset;
    if (pl_prof_glibc && !pl_track_hang)
        pl_ops_track.lock = pl_track_g_lock;
    if (pl_track_long_ns == 0)
        pl_ops_track.unlock = pl_track_unlock_short;
    return &pl_ops_track;
}

void pl_prof_track_cond(pthread_mutex_t *m, bool before, const void *pc)
{
    if (before)
        pl_track_release(m, PL_PROF_MUTEX);
    else
        pl_track_took(pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc), m, PL_PROF_MUTEX,
                      PL_TM_WRITE, pc, true);
}

static int pl_track_rw_lock(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                            pl_prof_rw_fn block, const void *pc)
{
    unsigned mode = write ? PL_TM_WRITE : PL_TM_READ;
    int r = try_(rw);
    if (r == EBUSY) {
        pl_track_thr_t *t = pl_track_wait(rw, PL_PROF_RWLOCK, mode, pc);
        uint64_t t0 = pl_prof_now();
        pl_prof_tick(t0);
        r = block(rw);
        pl_track_wait_end(t);
        if (r == 0)
            pl_prof_waited(pl_prof_rw_rec(rw, pc), pc, pl_prof_now() - t0, true);
    }
    if (r != 0)
        return r;
    pl_prof_rec_t *rec = pl_prof_rw_rec(rw, pc);
    pl_prof_rw_acquired(rec, write);
    pl_track_took(rec, rw, PL_PROF_RWLOCK, mode, pc, true);
    return 0;
}

static int pl_track_rw_try(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_, const void *pc)
{
    int r = try_(rw);
    pl_prof_rec_t *rec = pl_prof_rw_rec(rw, pc);
    if (r == 0) {
        pl_prof_rw_acquired(rec, write);
        pl_track_took(rec, rw, PL_PROF_RWLOCK, write ? PL_TM_WRITE : PL_TM_READ, pc, false);
    } else if (r == EBUSY) {
        __atomic_fetch_add(&rec->busy, 1, __ATOMIC_RELAXED);
    }
    return r;
}

static int pl_track_rw_timed(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                             pl_prof_rw_timed_fn timed, clockid_t clk,
                             const struct timespec *abs, const void *pc)
{
    unsigned mode = write ? PL_TM_WRITE : PL_TM_READ;
    pl_track_thr_t *t = pl_track_wait(rw, PL_PROF_RWLOCK, mode, pc);
    int r;
    r = pl_prof_rw_timed_plain(rw, write, try_, timed, clk, abs, pc);
    pl_track_wait_end(t);
    if (r == 0)
        pl_track_took(pl_prof_rw_rec(rw, pc), rw, PL_PROF_RWLOCK, mode, pc, false);
    return r;
}

void pl_prof_track_rw_unlock(const pthread_rwlock_t *rw)
{
    pl_track_release(rw, PL_PROF_RWLOCK);
}

/* ---- writing the profile --------------------------------------------------------------
 * Lines of text, one record each (docs/profile.md, "The profile file").
 * A buffer on the stack, flushed with write(2); snprintf of integers and
 * strings only, which glibc does without allocating. */
typedef struct {
    int fd;
    size_t n;
    char buf[8192];
} pl_prof_out_t;

static void pl_prof_flush(pl_prof_out_t *o)
{
    const char *p = o->buf;
    size_t n = o->n;
    while (n > 0 && o->fd >= 0) {
        ssize_t w = write(o->fd, p, n);
        if (w <= 0)
            break;
        p += w;
        n -= (size_t)w;
    }
    o->n = 0;
}

static void pl_prof_printf(pl_prof_out_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void pl_prof_printf(pl_prof_out_t *o, const char *fmt, ...)
{
    if (sizeof o->buf - o->n < 512)
        pl_prof_flush(o);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf + o->n, sizeof o->buf - o->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->n += (size_t)k < sizeof o->buf - o->n ? (size_t)k : sizeof o->buf - o->n - 1;
}

static int pl_prof_open(void)
{
    char name[600];
    snprintf(name, sizeof name, "%s.%d", pl_prof_path, (int)getpid());
    return open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* lock tracking's lines (docs/profile.md, "The profile file"): the
 * lock-order edges and long holds (final), every thread's held set and
 * wait (the wait-for graph: with hang tracking) */
static void pl_track_lock_at(uint32_t slot, uintptr_t *addr, unsigned *kind)
{
    uintptr_t key = slot != 0 ? pl_prof_key_load(&pl_prof_tab[slot - 1]) : 0;
    *addr = key & ~(uintptr_t)7;
    *kind = (unsigned)(key & 7);
}

static void pl_track_write(pl_prof_out_t *o, bool final, uint64_t now)
{
    if (final && pl_track_order) {
        for (size_t i = 0; i < ((size_t)1 << PL_TRACK_EDGE_BITS); i++) {
            const pl_track_edge_t *e = &pl_track_edges[i];
            uint64_t key = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
            if (key <= 1)
                continue;
            uint64_t ends[2] = {(key >> 31) & 0x7fffffff, key & 0x7fffffff};
            uintptr_t a[2];
            unsigned k[2];
            for (int j = 0; j < 2; j++)
                pl_track_lock_at((uint32_t)(ends[j] >> 14), &a[j], &k[j]);
            pl_prof_printf(o, "E %lx %u %u %u %lx %u %u %u %llx %llx %d\n", (unsigned long)a[0],
                           k[0], (unsigned)((ends[0] >> 1) & 0x1fff), (unsigned)(ends[0] & 1),
                           (unsigned long)a[1], k[1], (unsigned)((ends[1] >> 1) & 0x1fff),
                           (unsigned)(ends[1] & 1), (unsigned long long)e->pc_from,
                           (unsigned long long)e->pc_to, (int)e->tid);
        }
    }
    if (final && pl_track_long_ns != 0) {
        for (size_t i = 0; i < PL_TRACK_LONG; i++) {
            const pl_track_long_t *l = &pl_track_longs[i];
            uint64_t key = __atomic_load_n(&l->key, __ATOMIC_ACQUIRE);
            if (key == 0 || key == ~0ull)
                continue;
            uintptr_t a;
            unsigned k;
            pl_track_lock_at((uint32_t)key, &a, &k);
            pl_prof_printf(o, "LH %lx %u %llx %llu %llu %llu %llu\n", (unsigned long)a, k,
                           (unsigned long long)l->pc, (unsigned long long)l->n,
                           (unsigned long long)l->total_ns, (unsigned long long)l->max_ns,
                           (unsigned long long)l->waiters);
        }
    }
    if (!pl_track_hang)
        return;
    for (size_t i = 0; i < PL_TRACK_THREADS; i++) {
        const pl_track_thr_t *t = &pl_track_thr[i];
        int32_t tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE);
        if (tid == 0)
            continue;
        uintptr_t w = __atomic_load_n(&t->wait_lock, __ATOMIC_ACQUIRE);
        uint32_t n = __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);
        if (n > PL_TRACK_HELD)
            n = PL_TRACK_HELD;
        if (w == 0 && n == 0)
            continue;
        uint64_t since = t->wait_since;
        pl_prof_printf(o, "T %d %lx %u %u %llx %llu %u\n", (int)tid, (unsigned long)w,
                       (unsigned)t->wait_kind, (unsigned)t->wait_mode,
                       (unsigned long long)(w ? t->wait_pc : 0),
                       (unsigned long long)(w && now > since ? now - since : 0),
                       (unsigned)t->overflow);
        for (uint32_t j = 0; j < n; j++) {
            const pl_track_held_t *h = &t->held[j];
            pl_prof_printf(o, "HE %d %lx %u %u %llx %u\n", (int)tid, (unsigned long)h->lock,
                           (unsigned)h->kind, (unsigned)h->mode, (unsigned long long)h->pc,
                           (unsigned)h->depth);
        }
    }
}

static uint32_t pl_prof_dumping; /* a dump is being written (atomic) */

/* what: "snap" (interval) or "final"; why: interval, exit, SIGINT, SIGTERM */
static void pl_prof_write(const char *what, const char *why, uint64_t now)
{
    pl_prof_out_t o;
    o.fd = pl_prof_open();
    o.n = 0;
    if (o.fd < 0)
        return;
    bool final = strcmp(what, "final") == 0;
    bool hang = strcmp(what, "hang") == 0;
    pl_prof_printf(&o, "%s %llu %s pid=%d lock=%s rwlock=%s hold_sample=%llu start=%llu dropped=%llu",
                   what, (unsigned long long)now, why, (int)getpid(),
                   pl_glibc_mode || pl_lock == NULL ? (pl_glibc_adaptive ? "glibc-adaptive" : "glibc") : pl_lock->name, pl_rw_name_now(),
                   (unsigned long long)pl_prof_hold_period,
                   (unsigned long long)pl_prof_start_ns,
                   (unsigned long long)__atomic_load_n(&pl_prof_dropped, __ATOMIC_RELAXED));
    if (pl_prof_track)
        pl_prof_printf(&o, " order=%d hang=%d long_ns=%llu edges_dropped=%llu "
                           "threads_untracked=%llu long_dropped=%llu",
                       (int)pl_track_order, (int)pl_track_hang,
                       (unsigned long long)pl_track_long_ns,
                       (unsigned long long)pl_track_edges_dropped,
                       (unsigned long long)pl_track_threads_dropped,
                       (unsigned long long)pl_track_longs_dropped);
    pl_prof_printf(&o, "\n");
    double ns_per_tick = pl_prof_ns_per_tick(now);
    uint32_t n = __atomic_load_n(&pl_prof_nused, __ATOMIC_RELAXED);
    if (n > pl_prof_cap)
        n = (uint32_t)pl_prof_cap;
    if (hang)
        n = 0; /* the wait-for graph only */
    for (uint32_t u = 0; u < n; u++) {
        uint32_t slot = __atomic_load_n(&pl_prof_used[u], __ATOMIC_ACQUIRE);
        if (slot == 0)
            continue; /* being claimed right now */
        const pl_prof_rec_t *r = &pl_prof_tab[slot - 1];
        uintptr_t key = pl_prof_key_load(r);
        /* racy reads of the counters of running threads: a snapshot */
        uint64_t acq = pl_prof_count(r), cont = r->contended, busy = r->busy;
        if (acq == 0 && busy == 0 && r->rd_acq == 0 && r->timeouts == 0)
            continue;
        if (!final && cont == 0)
            continue; /* snapshots: the locks that waited */
        pl_prof_printf(&o, "L %lx %u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llx %llu %llu\n",
                       (unsigned long)(key & ~(uintptr_t)7), (unsigned)(key & 7),
                       (unsigned long long)acq, (unsigned long long)cont,
                       (unsigned long long)r->wait_ns, (unsigned long long)r->wait_max,
                       (unsigned long long)((double)r->hold_ticks * ns_per_tick),
                       (unsigned long long)r->hold_n,
                       (unsigned long long)((double)r->hold_max_ticks * ns_per_tick),
                       (unsigned long long)busy,
                       (unsigned long long)r->timeouts, (unsigned long long)r->rd_acq,
                       (unsigned long long)r->first_pc, (unsigned long long)r->other_n,
                       (unsigned long long)r->other_wait_ns);
        if (!final)
            continue;
        for (int i = 0; i < PL_PROF_SITES; i++) {
            const pl_prof_site_t *s = &r->site[i];
            if (s->pc == 0 || s->n == 0)
                continue;
            pl_prof_printf(&o, "S %lx %llx %llu %llu %llu\n",
                           (unsigned long)(key & ~(uintptr_t)7), (unsigned long long)s->pc,
                           (unsigned long long)s->n, (unsigned long long)s->wait_ns,
                           (unsigned long long)s->wait_max);
        }
    }
    if (pl_prof_track && (final || hang))
        pl_track_write(&o, final, now);
    if (final || hang) {
        /* where the code was: the tool names the call sites with it */
        pl_prof_printf(&o, "maps\n");
        pl_prof_flush(&o);
        int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t k;
            while ((k = read(fd, o.buf, sizeof o.buf)) > 0) {
                o.n = (size_t)k;
                pl_prof_flush(&o);
            }
            close(fd);
        }
        pl_prof_printf(&o, "endmaps\n");
    }
    pl_prof_printf(&o, "end %s\n", what);
    pl_prof_flush(&o);
    close(o.fd);
}

void pl_prof_tick(uint64_t now)
{
    if (pl_prof_interval_ns == 0)
        return;
    uint64_t next = __atomic_load_n(&pl_prof_next_snap, __ATOMIC_RELAXED);
    if (now < next)
        return;
    /* one thread writes the snapshot: the one that moves the time on */
    uint64_t to = now + pl_prof_interval_ns;
    if (!__atomic_compare_exchange_n(&pl_prof_next_snap, &next, to, false, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED))
        return;
    if (__atomic_exchange_n(&pl_prof_dumping, 1, __ATOMIC_ACQUIRE) != 0)
        return;
    pl_prof_write("snap", "interval", now);
    __atomic_store_n(&pl_prof_dumping, 0, __ATOMIC_RELEASE);
}

static uint32_t pl_prof_done; /* the final profile is written (atomic) */

static void pl_prof_final(const char *why)
{
    if (!pl_prof_on || __atomic_exchange_n(&pl_prof_done, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    pl_prof_write("final", why, pl_prof_now());
}

void pl_prof_exit(void)
{
    pl_prof_final("exit");
}

/* SIGINT, SIGTERM: the profile, then the signal's default action (the
 * program ends as it would have without us).  Installed only where the
 * disposition is the default; a handler the program sets replaces it (and
 * its exit then writes the profile at exit). */
static void pl_prof_on_signal(int sig)
{
    int saved = errno;
    pl_prof_final(sig == SIGINT ? "SIGINT" : "SIGTERM");
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

/* SIGQUIT with hang tracking: the wait-for graph, and the program goes on */
static void pl_prof_on_quit(int sig)
{
    (void)sig;
    int saved = errno;
    if (__atomic_exchange_n(&pl_prof_dumping, 1, __ATOMIC_ACQUIRE) == 0) {
        pl_prof_write("hang", "SIGQUIT", pl_prof_now());
        __atomic_store_n(&pl_prof_dumping, 0, __ATOMIC_RELEASE);
    }
    errno = saved;
}

static void pl_prof_catch(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sig == SIGQUIT ? pl_prof_on_quit : pl_prof_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, NULL);
}

void pl_prof_fork_child(void)
{
    if (!pl_prof_on)
        return;
    /* the child counts from zero into its own file (its pid) */
    uint32_t n = __atomic_load_n(&pl_prof_nused, __ATOMIC_RELAXED);
    if (n > pl_prof_cap)
        n = (uint32_t)pl_prof_cap;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t slot = pl_prof_used[u];
        if (slot == 0)
            continue;
        pl_prof_rec_t *r = &pl_prof_tab[slot - 1];
        size_t off = offsetof(pl_prof_rec_t, acq);
        memset((char *)r + off, 0, sizeof *r - off);
    }
    pl_prof_dropped = 0;
    pl_prof_held.n = 0;
    if (pl_track_thr != NULL) {
        /* only this thread goes on: the others' slots are free, the edges
         * and long holds the parent's */
        for (size_t i = 0; i < PL_TRACK_THREADS; i++)
            if (&pl_track_thr[i] != pl_track_me)
                __atomic_store_n(&pl_track_thr[i].tid, 0, __ATOMIC_RELAXED);
        if (pl_track_me != NULL)
            pl_track_me->tid = pl_tid();
        memset(pl_track_edges, 0, sizeof(pl_track_edge_t) << PL_TRACK_EDGE_BITS);
        memset(pl_track_longs, 0, sizeof(pl_track_long_t) * PL_TRACK_LONG);
        pl_track_edges_dropped = pl_track_threads_dropped = pl_track_longs_dropped = 0;
    }
    pl_prof_unlock_to = pl_prof_unlock_plain;
    pl_prof_done = 0;
    pl_prof_dumping = 0;
    pl_prof_start_ns = pl_prof_now();
    pl_prof_next_snap = pl_prof_start_ns + pl_prof_interval_ns;
}

/* ---- start-up ------------------------------------------------------------------------- */
static void pl_prof_say(const char *msg, const char *value)
{
    char buf[700];
    int n = snprintf(buf, sizeof buf, "clof-preload: %s '%s'; profiling is off\n", msg,
                     value);
    if (n > 0)
        (void)!write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void pl_track_say(const char *msg, const char *value)
{
    char buf[700];
    int n = snprintf(buf, sizeof buf, "clof-preload: %s '%s'; lock tracking is off\n", msg,
                     value);
    if (n > 0)
        (void)!write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* a whole number in [lo, hi] (unsigned decimal), or false */
static bool pl_prof_num(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (v == NULL || *v == 0)
        return false;
    uint64_t x = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9' || x > hi)
            return false;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    if (x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

/* CLOF_PROFILE_ORDER=1, CLOF_PROFILE_HANG=1, CLOF_PROFILE_LONG_US=N: lock
 * tracking, each alone or together (pl_profile.h) */
static void pl_track_init(void)
{
    uint64_t order = 0, hang = 0, long_us = 0;
    const char *v = getenv("CLOF_PROFILE_ORDER");
    if (v != NULL && *v != 0 && !pl_prof_num(v, 0, 1, &order)) {
        pl_track_say("CLOF_PROFILE_ORDER is not 0 or 1:", v);
        return;
    }
    v = getenv("CLOF_PROFILE_HANG");
    if (v != NULL && *v != 0 && !pl_prof_num(v, 0, 1, &hang)) {
        pl_track_say("CLOF_PROFILE_HANG is not 0 or 1:", v);
        return;
    }
    v = getenv("CLOF_PROFILE_LONG_US");
    if (v != NULL && *v != 0 && !pl_prof_num(v, 1, 3600000000ull, &long_us)) {
        pl_track_say("CLOF_PROFILE_LONG_US is not a number of microseconds 1..3600000000:", v);
        return;
    }
    if (!order && !hang && long_us == 0)
        return;
    void *thr = mmap(NULL, PL_TRACK_THREADS * sizeof(pl_track_thr_t), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *edges = mmap(NULL, sizeof(pl_track_edge_t) << PL_TRACK_EDGE_BITS,
                       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *longs = mmap(NULL, PL_TRACK_LONG * sizeof(pl_track_long_t), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (thr == MAP_FAILED || edges == MAP_FAILED || longs == MAP_FAILED ||
        pthread_key_create(&pl_track_key, pl_track_thread_exit) != 0) {
        pl_track_say("no memory for lock tracking", "");
        return;
    }
    pl_track_thr = thr;
    pl_track_edges = edges;
    pl_track_longs = longs;
    pl_track_order = order != 0;
    pl_track_hang = hang != 0;
    pl_track_long_ns = long_us * 1000;
    if (pl_track_hang)
        pl_prof_catch(SIGQUIT);
    pl_prof_track = true;
}

void pl_prof_init(void)
{
    const char *path = getenv("CLOF_PROFILE");
    if (path == NULL || *path == 0)
        return;
    if (strlen(path) >= sizeof pl_prof_path) {
        pl_prof_say("CLOF_PROFILE is too long:", path);
        return;
    }
    uint64_t hold = 64, ims = 0;
    const char *v = getenv("CLOF_PROFILE_HOLD");
    if (v != NULL && *v != 0 && (!pl_prof_num(v, 0, 1u << 20, &hold))) {
        pl_prof_say("CLOF_PROFILE_HOLD is not a number 0..1048576 (1 in N holds timed, 0: none):", v);
        return;
    }
    v = getenv("CLOF_PROFILE_INTERVAL_MS");
    if (v != NULL && *v != 0 && !pl_prof_num(v, 1, 86400000, &ims)) {
        pl_prof_say("CLOF_PROFILE_INTERVAL_MS is not a number of milliseconds 1..86400000:", v);
        return;
    }
    size_t cap = pl_prof_cap;
    void *tab = mmap(NULL, cap * sizeof(pl_prof_rec_t), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *used = mmap(NULL, cap * sizeof(uint32_t), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (tab == MAP_FAILED || used == MAP_FAILED) {
        pl_prof_say("no memory for the profile table, CLOF_PROFILE=", path);
        return;
    }
    strcpy(pl_prof_path, path);
    pl_prof_tab = tab;
    pl_prof_used = used;
    /* hold sampling: 1 in the power of two at or above `hold`; none: a
     * period no countdown gets through in practice (2^62) */
    uint64_t p = 1;
    while (p < hold)
        p <<= 1;
    pl_prof_hold_period = hold == 0 ? (int64_t)1 << 62 : (int64_t)p;
    pl_prof_interval_ns = ims * 1000000ull;
    pl_prof_tsc = pl_prof_tsc_usable();
    pl_prof_cal_ns = pl_prof_now();
    pl_prof_cal_ticks = pl_prof_tsc ? pl_prof_ticks() : pl_prof_cal_ns;
    pl_prof_start_ns = pl_prof_cal_ns;
    pl_prof_next_snap = pl_prof_start_ns + pl_prof_interval_ns;
    /* the file starts empty (this process's pid) */
    char name[600];
    snprintf(name, sizeof name, "%s.%d", pl_prof_path, (int)getpid());
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        pl_prof_say("cannot create the profile file", name);
        return;
    }
    close(fd);
    pl_prof_catch(SIGINT);
    pl_prof_catch(SIGTERM);
    pl_prof_on = true;
    pl_track_init();
}
