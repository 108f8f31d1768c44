/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_profile.c -- the profiling mode of libclof-preload.so:
 * per-lock acquisitions, contention, waits, holds and call sites, written
 * to CLOF_PROFILE.<pid> at exit, on SIGINT/SIGTERM and (with
 * CLOF_PROFILE_INTERVAL) as snapshots.  The design is in pl_profile.h; the
 * user's view and the file format in docs/profile.md.
 *
 * The profiling ops wrap the ops that would run otherwise (glibc's, or the
 * CLOF_LOCK lock's): lock = try, and on failure time the inner lock.  Trying
 * first changes nothing a program can tell: every lock's lock() starts with
 * such a try (glibc's CAS, a clof lock's fast path).
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
#define pl_prof_shift (64 - PL_PROF_BITS)
#define pl_prof_cap ((size_t)1 << PL_PROF_BITS)
static uint32_t *pl_prof_used;        /* the claimed slots, in claim order */
static uint32_t pl_prof_nused;        /* how many (atomic) */
static uint64_t pl_prof_dropped;      /* lookups that found the table full (atomic) */
static pl_prof_rec_t pl_prof_scratch; /* their record: counted, never written out */
static uint64_t pl_prof_hold_mask;    /* hold sampled when (acq & mask) == 0 */
static uint64_t pl_prof_interval_ns;  /* 0: no snapshots */
static uint64_t pl_prof_next_snap;    /* time of the next snapshot (atomic) */
static uint64_t pl_prof_start_ns;
static char pl_prof_path[512];        /* CLOF_PROFILE */

#define PL_PROF_GOLD 0x9E3779B97F4A7C15ull
#define PL_PROF_PROBES 64 /* linear probes before a lookup gives up */

/* ---- the table ------------------------------------------------------------ */
static inline uintptr_t pl_prof_key_load(const pl_prof_rec_t *r)
{
    return __atomic_load_n(&r->key, __ATOMIC_ACQUIRE);
}

/* the record of key, inline where it is already there */
static inline __attribute__((always_inline)) pl_prof_rec_t *pl_prof_find(uintptr_t key,
                                                                         const void *pc)
{
    pl_prof_rec_t *r = &pl_prof_tab[(key * PL_PROF_GOLD) >> pl_prof_shift];
    if (CLOF_LIKELY(__atomic_load_n(&r->key, __ATOMIC_RELAXED) == key))
        return r;
    return pl_prof_find_slow(key, pc);
}

pl_prof_rec_t *pl_prof_find_slow(uintptr_t key, const void *pc)
{
    if (key == 0 || pl_prof_tab == NULL)
        return &pl_prof_scratch;
    size_t i = (size_t)((key * PL_PROF_GOLD) >> pl_prof_shift);
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

/* ---- sampled holds ----------------------------------------------------------
 * A thread keeps its sampled holds (at most PL_PROF_HELD) until it releases
 * them.  An entry whose lock has been acquired again since (acq moved on:
 * released by another thread, or a recursive relock) is stale and dropped. */
#define PL_PROF_HELD 4
typedef struct {
    uint32_t n;
    struct {
        const void *m;
        pl_prof_rec_t *rec;
        uint64_t acq; /* rec->acq right after the sampled acquisition */
        uint64_t t0;
    } e[PL_PROF_HELD];
} pl_prof_held_t;
static PL_TLS pl_prof_held_t pl_prof_held;

static __attribute__((noinline)) void pl_prof_hold_start(const void *m, pl_prof_rec_t *r,
                                                         uint64_t t0)
{
    pl_prof_held_t *h = &pl_prof_held;
    if (h->n >= PL_PROF_HELD)
        return;
    if (t0 == 0)
        t0 = pl_prof_now();
    h->e[h->n].m = m;
    h->e[h->n].rec = r;
    h->e[h->n].acq = r->acq;
    h->e[h->n].t0 = t0;
    h->n++;
}

/* before the release of m: its sampled hold, if it has one; the time, or 0 */
static __attribute__((noinline)) uint64_t pl_prof_hold_end(const void *m)
{
    pl_prof_held_t *h = &pl_prof_held;
    uint64_t now = 0;
    for (uint32_t i = h->n; i-- > 0;) {
        pl_prof_rec_t *r = h->e[i].rec;
        bool mine = h->e[i].m == m;
        bool stale = __atomic_load_n(&r->acq, __ATOMIC_RELAXED) != h->e[i].acq;
        if (!mine && !stale)
            continue;
        if (mine && !stale) {
            now = pl_prof_now();
            uint64_t d = now - h->e[i].t0;
            r->hold_ns += d;
            r->hold_n++;
            pl_prof_max(&r->hold_max, d);
        }
        h->e[i] = h->e[--h->n];
        if (mine)
            break;
    }
    return now;
}

/* ---- the profiling ops ----------------------------------------------------------- */
#define PL_PROF_PC() __builtin_return_address(0)

/* after an acquisition at time t (0: not read) */
static inline __attribute__((always_inline)) void pl_prof_acquired(pl_prof_rec_t *r,
                                                                    const void *m, uint64_t t)
{
    uint64_t n = r->acq++;
    if (CLOF_UNLIKELY((n & pl_prof_hold_mask) == 0))
        pl_prof_hold_start(m, r, t);
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
        return r;
    uint64_t t1 = pl_prof_now();
    pl_prof_rec_t *rec = pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc);
    pl_prof_waited(rec, pc, t1 - t0, false);
    pl_prof_acquired(rec, m, t1);
    return 0;
}

/* an acquisition whose lock has no record yet (its first, or a lock past
 * the first slot of its hash) */
static __attribute__((noinline)) int pl_prof_acquired_new(pthread_mutex_t *m, const void *pc)
{
    pl_prof_acquired(pl_prof_find_slow((uintptr_t)m | PL_PROF_MUTEX, pc), m, 0);
    return 0;
}

/* a first try that succeeded: count it in m's record.  Inlined into the
 * interposed function, so that PL_PROF_PC() (read only for a record not in
 * its first slot yet: reading it up front costs an instruction on the fast
 * path) is that function's return address, the program's call site. */
static inline __attribute__((always_inline)) int pl_prof_took(pthread_mutex_t *m)
{
    uintptr_t key = (uintptr_t)m | PL_PROF_MUTEX;
    pl_prof_rec_t *rec = &pl_prof_tab[(key * PL_PROF_GOLD) >> pl_prof_shift];
    if (CLOF_UNLIKELY(__atomic_load_n(&rec->key, __ATOMIC_RELAXED) != key))
        return pl_prof_acquired_new(m, PL_PROF_PC());
    pl_prof_acquired(rec, m, 0);
    return 0;
}

static int pl_prof_lock(pthread_mutex_t *m)
{
    int r = pl_prof_inner.trylock(m);
    if (CLOF_UNLIKELY(r != 0))
        return pl_prof_lock_wait(m, r, PL_PROF_PC());
    return pl_prof_took(m);
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
    return pl_prof_took(m);
}

static __attribute__((noinline)) int pl_prof_unlock_sampled(pthread_mutex_t *m)
{
    uint64_t now = pl_prof_hold_end(m);
    int r = pl_prof_inner.unlock(m);
    if (now != 0)
        pl_prof_tick(now);
    return r;
}

static int pl_prof_unlock(pthread_mutex_t *m)
{
    if (CLOF_UNLIKELY(pl_prof_held.n != 0))
        return pl_prof_unlock_sampled(m);
    return pl_prof_inner.unlock(m);
}

static __attribute__((noinline)) int pl_prof_timedlock(pthread_mutex_t *m, clockid_t clk,
                                                       const struct timespec *abs, int api)
{
    const void *pc = PL_PROF_PC();
    if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
        return pl_prof_inner.timedlock(m, clk, abs, api); /* EINVAL, as without us */
    int r = pl_prof_inner.trylock(m);
    if (r == 0) {
        pl_prof_acquired(pl_prof_find((uintptr_t)m | PL_PROF_MUTEX, pc), m, 0);
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
        pl_prof_acquired(rec, m, t1);
    } else if (r == ETIMEDOUT) {
        __atomic_fetch_add(&rec->timeouts, 1, __ATOMIC_RELAXED);
    }
    return r;
}

static int pl_prof_destroy(pthread_mutex_t *m)
{
    return pl_prof_inner.destroy(m);
}

static pl_ops_t pl_ops_prof = {
    pl_prof_lock, pl_prof_trylock, pl_prof_unlock, pl_prof_timedlock, pl_prof_destroy, NULL,
};

const pl_ops_t *pl_prof_wrap(const pl_ops_t *inner)
{
    pl_prof_inner = *inner;
    if (inner == &pl_ops_glibc) {
        /* glibc's own functions, without the one-line forwarders */
        if (pl_real.mutex_lock && pl_real.mutex_trylock && pl_real.mutex_unlock) {
            pl_prof_inner.lock = pl_real.mutex_lock;
            pl_prof_inner.trylock = pl_real.mutex_trylock;
            pl_prof_inner.unlock = pl_real.mutex_unlock;
        }
    }
    pl_ops_prof.fork_reset = inner->fork_reset;
    return &pl_ops_prof;
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

int pl_prof_rw_lock(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_, pl_prof_rw_fn block,
                    const void *pc)
{
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
    int r = try_(rw);
    if (r == 0)
        pl_prof_rw_acquired(pl_prof_rw_rec(rw, pc), write);
    else if (r == EBUSY)
        __atomic_fetch_add(&pl_prof_rw_rec(rw, pc)->busy, 1, __ATOMIC_RELAXED);
    return r;
}

int pl_prof_rw_timed(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                     pl_prof_rw_timed_fn timed, clockid_t clk, const struct timespec *abs,
                     const void *pc)
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
    pl_prof_printf(&o, "%s %llu %s pid=%d lock=%s rwlock=%s hold_sample=%llu start=%llu dropped=%llu\n",
                   what, (unsigned long long)now, why, (int)getpid(),
                   pl_glibc_mode || pl_lock == NULL ? "glibc" : pl_lock->name, pl_rw_name_now(),
                   (unsigned long long)(pl_prof_hold_mask + 1),
                   (unsigned long long)pl_prof_start_ns,
                   (unsigned long long)__atomic_load_n(&pl_prof_dropped, __ATOMIC_RELAXED));
    uint32_t n = __atomic_load_n(&pl_prof_nused, __ATOMIC_RELAXED);
    if (n > pl_prof_cap)
        n = (uint32_t)pl_prof_cap;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t slot = __atomic_load_n(&pl_prof_used[u], __ATOMIC_ACQUIRE);
        if (slot == 0)
            continue; /* being claimed right now */
        const pl_prof_rec_t *r = &pl_prof_tab[slot - 1];
        uintptr_t key = pl_prof_key_load(r);
        /* racy reads of the counters of running threads: a snapshot */
        uint64_t acq = r->acq, cont = r->contended, busy = r->busy;
        if (acq == 0 && busy == 0 && r->rd_acq == 0 && r->timeouts == 0)
            continue;
        if (!final && cont == 0)
            continue; /* snapshots: the locks that waited */
        pl_prof_printf(&o, "L %lx %u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llx %llu %llu\n",
                       (unsigned long)(key & ~(uintptr_t)7), (unsigned)(key & 7),
                       (unsigned long long)acq, (unsigned long long)cont,
                       (unsigned long long)r->wait_ns, (unsigned long long)r->wait_max,
                       (unsigned long long)r->hold_ns, (unsigned long long)r->hold_n,
                       (unsigned long long)r->hold_max, (unsigned long long)busy,
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
    if (final) {
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

static void pl_prof_catch(int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pl_prof_on_signal;
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
    /* hold sampling: 1 in the power of two at or above `hold`; none: a mask
     * no counter reaches in practice (2^63 - 1) */
    uint64_t p = 1;
    while (p < hold)
        p <<= 1;
    pl_prof_hold_mask = hold == 0 ? (~0ull >> 1) : p - 1;
    pl_prof_interval_ns = ims * 1000000ull;
    pl_prof_start_ns = pl_prof_now();
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
}
