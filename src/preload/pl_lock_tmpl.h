/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_lock_tmpl.h -- the template of the pthread_mutex_*
 * operations over one lock of the table (pl_internal.h).
 *
 * The operations are ordinary static inline functions (pl_op_*) over a
 * small per-lock table (pl_lockfns_t: the lock's tryacquire, acquire,
 * release, timed wait and destroy, and two flags); they are always inlined
 * with that table, whose entries are then direct calls, inlined in turn:
 * a debugger steps from pthread_mutex_lock (pl_mutex.c) into
 * pl_lock_<lock>0, then pl_op_lock_fast, then clof_<lock>_tryacquire
 * (docs/layers.md walks it).
 *
 * PL_DEFINE_BASIC(name, NAME), PL_DEFINE_NUMA(id, _) and PL_DEFINE_ASL(id, _)
 * instantiate, for one lock, the table and the entry points twice: plain,
 * and counting for CLOF_STATS=1 (S = 1: so that the plain fast path has no
 * statistics branch), as the hidden constants pl_ops_<lock>0 and
 * pl_ops_<lock>1 that the lock table of pl_mutex.c points to.  The
 * instantiations are spread over several files (pl_locks_*.c) so that a
 * parallel build compiles them side by side.
 *
 * Fast path of pthread_mutex_lock for a normal mutex (kind 0, which is what
 * PTHREAD_MUTEX_INITIALIZER and a default pthread_mutex_init make): take a
 * box (context) from the thread's free list, acquire the lock with it, and
 * record the box and the owner's tid in the mutex.  pthread_mutex_unlock
 * reads the box back from the mutex, so the context is found whatever the
 * release order and whichever thread releases.  Recursive, errorcheck and
 * adaptive mutexes take a slightly longer path; robust, priority-protocol
 * and process-shared mutexes go to glibc untouched.
 */
#ifndef CLOF_PRELOAD_LOCK_TMPL_H
#define CLOF_PRELOAD_LOCK_TMPL_H

#include "pl_internal.h"

#include <sched.h>

/* PL_INPLACE(name): pl_internal.h */

/* The lock fast path tries the lock and leaves everything else to the
 * slow path, so that it makes no call and saves no register.  Its attempt
 * over a basic lock (plain or under cr:): the lock's tryacquire, or a
 * quicker one that may fail where tryacquire would not (the slow path then
 * acquires in full), where tryacquire would call out of line and so give
 * the fast path a stack frame (CLH: an unmarked tail, the first
 * acquisition; with CLH's tryacquire the path pushed three registers, and
 * it acquired directly instead, docs/preload.md). */
#define PL_TRY_QUICK(name) PL_SECOND_(PL_TRY_QUICK_##name, clof_##name##_tryacquire, ~)
/* a lock whose quick try is not its tryacquire says so here, as
 * "~, function": PL_SECOND_ then picks it; for every other lock the name
 * PL_TRY_QUICK_<lock> stays one word and PL_SECOND_ picks the tryacquire */
#define PL_TRY_QUICK_clh_pl ~, clof_clh_pl_tryacquire_quick_

/* Timed waiters sleep at most this long between attempts: the wake-up after
 * a release is not ordered against a timed waiter's registration (that
 * would cost every unlock a fence), so a wake-up may be missed -- then the
 * waiter retries after this much, never later than its deadline. */
#define PL_TIMED_POLL_NS 1000000L

static inline void pl_held(pl_mutex_t *m, pl_box_t *b, int32_t tid)
{
    b->mutex = m;
    clof_atomicptr_write_rlx(&m->box, b);
    clof_atomic32_write_rlx(&m->owner, (uint32_t)tid);
}

/* CLOF_STATS: after an acquisition by tid; crblock: the lock is a cr:
 * lock whose block keeps the previous holder (pl_cr_block_t). */
static inline void pl_count_acquired(bool crblock, pl_mutex_t *m, int32_t tid)
{
    pl_tls.st.acquisitions++;
    uint32_t *lastp = crblock ? &pl_cr_block(m)->last : (uint32_t *)&m->last._v;
    uint32_t last = *lastp;
    if (last != (uint32_t)tid) {
        if (last == 0)
            pl_tls.st.replaced++;
        else
            pl_tls.st.handovers++;
        *lastp = (uint32_t)tid;
    }
}

/* The wait of a timed lock (pl_mutex.c): poll `try` and sleep on the
 * mutex's tw_seq until acquired (0) or the deadline (ETIMEDOUT).  Registered
 * in tw_waiters by the caller. */
PL_HIDDEN int pl_timed_wait(pl_mutex_t *m, clockid_t clk, const struct timespec *abs,
                            bool (*try)(void *l, void *c), void *l, void *c);

/* The wait of pthread_mutex_timedlock/_clocklock once the first try failed:
 * 0 with the lock held, or ETIMEDOUT.
 * PL_TIMED_POLL: any lock -- register as a timed waiter of the mutex and
 * poll (pl_timed_wait).
 * PL_TIMED_UNTIL: an abortable lock (clof_<name>_acquire_until): wait in
 * the lock itself until the deadline, converted to the clock of
 * clof_now_ns() (CLOCK_MONOTONIC) once, at the call: a change of the
 * realtime clock during the wait does not move it. */
#define PL_TIMED_POLL(name, m, l, c, clk, abs)                                 \
    pl_timed_poll_(m, clk, abs, pl_tryfn_##name, l, c)
static inline int pl_timed_poll_(pl_mutex_t *m, clockid_t clk, const struct timespec *abs,
                                 bool (*try)(void *l, void *c), void *l, void *c)
{
    clof_atomic32_inc(&m->tw_waiters);
    int r = pl_timed_wait(m, clk, abs, try, l, c);
    clof_atomic32_dec(&m->tw_waiters);
    return r;
}
#define PL_TIMED_UNTIL(name, m, l, c, clk, abs)                                \
    (clof_##name##_acquire_until(l, c, pl_deadline_ns(clk, abs)) ? 0 : ETIMEDOUT)
/* abs on clock clk as a deadline of clof_now_ns(); 0 (try once) if passed */
static inline uint64_t pl_deadline_ns(clockid_t clk, const struct timespec *abs)
{
    struct timespec now;
    clock_gettime(clk, &now);
    int64_t left = ((int64_t)abs->tv_sec - (int64_t)now.tv_sec) * 1000000000LL +
                   ((int64_t)abs->tv_nsec - (int64_t)now.tv_nsec);
    if (left <= 0)
        return 0;
    return clof_now_ns() + (uint64_t)left;
}

/* ---- one lock, as the operations see it ---------------------------------- */
typedef struct {
    bool inplace; /* the lock lives in the mutex (PL_INPLACE) */
    bool crblock; /* a cr: lock in place, its state in a block (pl_cr_block) */
    bool (*tryacquire)(void *l, void *c);
    void (*acquire)(void *l, void *c);
    void (*release)(void *l, void *c);
    /* a cr: lock's release in two halves (cr.h, release_needs_layer_ and
     * release_inner_), NULL for the others: the unlock fast path asks the
     * first before it touches anything and tail-calls the slow path when
     * the layer is needed, so that it makes no call and needs no stack
     * frame (called inline, the layer's out-of-line part cost every unlock
     * a stack adjustment, 2 of the layer's 8 instructions over MCS) */
    bool (*rel_needs_layer)(void *l, void *c);
    void (*rel_inner)(void *l, void *c);
    /* the lock fast path's attempt (PL_TRY_QUICK), NULL: tryacquire */
    bool (*tryquick)(void *l, void *c);
    /* the wait of a timed lock after a failed try: 0 held, or ETIMEDOUT */
    int (*timed)(pl_mutex_t *m, void *l, void *c, clockid_t clk, const struct timespec *abs);
    void (*destroy)(void *l); /* an in-place lock at pthread_mutex_destroy */
} pl_lockfns_t;

/* Operations take the table and S (1: count for CLOF_STATS), both constant
 * where they are inlined. */
#define PL_OP static inline __attribute__((always_inline))
/* A box's context: every member of the context union starts at its start. */
#define PL_CTX(b) ((void *)&(b)->ctx)

/* the lock of m (its block installed at first use) */
PL_OP void *pl_op_lockp(const pl_lockfns_t *f, pl_mutex_t *m)
{
    if (f->inplace)
        return (void *)&m->lk;
    void *b = clof_atomicptr_read_acq(&m->lk.blk);
    if (CLOF_UNLIKELY(b == NULL))
        b = pl_block_install(m);
    return b;
}
/* the lock if it is ready to use, else NULL (block not yet installed) */
PL_OP void *pl_op_lockp_fast(const pl_lockfns_t *f, pl_mutex_t *m)
{
    if (f->inplace)
        return (void *)&m->lk;
    return clof_atomicptr_read_acq(&m->lk.blk);
}

PL_OP void pl_op_acq(const pl_lockfns_t *f, bool S, pl_mutex_t *m)
{
    pl_box_t *b = pl_box_get();
    void *l = pl_op_lockp(f, m);
    if (S) {
        if (!f->tryacquire(l, PL_CTX(b))) {
            pl_tls.st.contended++;
            f->acquire(l, PL_CTX(b));
        }
    } else {
        f->acquire(l, PL_CTX(b));
    }
    int32_t tid = pl_tid();
    pl_held(m, b, tid);
    if (S)
        pl_count_acquired(f->crblock, m, tid);
}
/* busy: count a failure as a busy pthread_mutex_trylock (statistics) */
PL_OP bool pl_op_try(const pl_lockfns_t *f, bool S, pl_mutex_t *m, bool busy)
{
    pl_box_t *b = pl_box_get();
    if (!f->tryacquire(pl_op_lockp(f, m), PL_CTX(b))) {
        pl_box_put(b);
        if (S && busy)
            pl_tls.st.trylock_busy++;
        return false;
    }
    int32_t tid = pl_tid();
    pl_held(m, b, tid);
    if (S)
        pl_count_acquired(f->crblock, m, tid);
    return true;
}
PL_OP void pl_op_rel(const pl_lockfns_t *f, pl_mutex_t *m, pl_box_t *b)
{
    /* read before the release: after it the mutex may be gone */
    uint32_t tw = clof_atomic32_read_rlx(&m->tw_waiters);
    b->mutex = NULL;
    clof_atomicptr_write_rlx(&m->box, (pl_box_t *)NULL);
    clof_atomic32_write_rlx(&m->owner, 0);
    f->release(pl_op_lockp(f, m), PL_CTX(b));
    pl_box_put(b);
    if (CLOF_UNLIKELY(tw != 0))
        pl_timed_wake(m);
}
PL_OP int pl_op_timed_acq(const pl_lockfns_t *f, bool S, pl_mutex_t *m, clockid_t clk,
                          const struct timespec *abs)
{
    if (S)
        pl_tls.st.timed++;
    pl_box_t *b = pl_box_get();
    void *l = pl_op_lockp(f, m);
    if (!f->tryacquire(l, PL_CTX(b))) {
        if (!pl_ts_valid(abs)) {
            pl_box_put(b);
            return EINVAL;
        }
        int r = f->timed(m, l, PL_CTX(b), clk, abs);
        if (r != 0) {
            pl_box_put(b);
            if (S)
                pl_tls.st.timeouts++;
            return r;
        }
        if (S)
            pl_tls.st.contended++;
    }
    int32_t tid = pl_tid();
    pl_held(m, b, tid);
    if (S)
        pl_count_acquired(f->crblock, m, tid);
    return 0;
}

/* Recursive and errorcheck mutexes: the owner's relock (*done set, with
 * the result), else *done clear and the caller acquires (then count = 1). */
PL_OP int pl_op_relock(pl_mutex_t *m, uint32_t type, int deadlock, bool *done)
{
    *done = (int32_t)clof_atomic32_read_rlx(&m->owner) == pl_tid();
    if (!*done)
        return 0;
    if (type == PL_KIND_ERRORCHECK)
        return deadlock;
    if (m->count == PL_COUNT_MAX)
        return EAGAIN;
    m->count++;
    return 0;
}
#define PL_KIND_COUNTED(type) ((type) == PL_KIND_RECURSIVE || (type) == PL_KIND_ERRORCHECK)

/* Whether the calling thread has asynchronous cancellation on (asked of
 * glibc: set deferred, and put asynchronous back).  A pending cancellation
 * then acts at once, before we hold or queue for anything. */
static inline bool pl_cancel_async(void)
{
    int old;
    if (pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) != 0)
        return false;
    if (old != PTHREAD_CANCEL_ASYNCHRONOUS)
        return false;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    return true;
}

/* Take the lock for pthread_mutex_lock (waiting) or _trylock (false: held).
 * A thread with asynchronous cancellation on waits as a timed lock does,
 * polling and sleeping on the mutex, never in the lock's queue: cancelled
 * there, a queue lock would keep its node (MCS, CLH, ticket: the mutex
 * stays locked for good; Hemlock: the holder's release waits forever for
 * an acknowledgement).  POSIX leaves pthread_mutex_lock under asynchronous
 * cancellation undefined; glibc's survives it, and so does ours (the Open
 * POSIX suite's pthread_mutex_init/1-2 and 3-2 do it).  Asked on the slow
 * path only (contended, first use, statistics; a recursive or errorcheck
 * mutex once its try failed): about 23 instructions there. */
PL_OP bool pl_op_take(const pl_lockfns_t *f, bool S, bool trylock, pl_mutex_t *m)
{
    if (trylock)
        return pl_op_try(f, S, m, true);
    if (CLOF_UNLIKELY(pl_cancel_async())) {
        for (;;) {
            struct timespec far;
            clock_gettime(CLOCK_MONOTONIC, &far);
            far.tv_sec += 10L * 365 * 24 * 3600; /* a deadline that does not come */
            if (pl_op_timed_acq(f, S, m, CLOCK_MONOTONIC, &far) == 0)
                return true;
        }
    }
    pl_op_acq(f, S, m);
    return true;
}
/* pthread_mutex_lock (trylock = false) or _trylock (true) of a recursive,
 * errorcheck, adaptive or glibc mutex */
PL_OP int pl_op_lock_kind(const pl_lockfns_t *f, bool S, bool trylock, pl_mutex_t *m)
{
    pthread_mutex_t *pm = (pthread_mutex_t *)(void *)m;
    uint32_t kind = clof_atomic32_read_rlx(&m->kind);
    if (kind & PL_KIND_GLIBC)
        return trylock ? pl_real.mutex_trylock(pm) : pl_real.mutex_lock(pm);
    uint32_t type = kind & PL_KIND_TYPE_MASK;
    if (PL_KIND_COUNTED(type)) {
        bool done;
        int r = pl_op_relock(m, type, trylock ? EBUSY : EDEADLK, &done);
        if (done)
            return r;
        /* a free lock is taken before pl_op_take asks glibc for the cancel
         * type (about 23 instructions): every lock of these mutexes comes
         * here, not only the contended ones as with normal mutexes */
        if (!trylock && pl_op_try(f, S, m, false)) {
            m->count = 1;
            return 0;
        }
        if (!pl_op_take(f, S, trylock, m))
            return EBUSY;
        m->count = 1;
        return 0;
    }
    return pl_op_take(f, S, trylock, m) ? 0 : EBUSY;
}
PL_OP int pl_op_unlock_kind(const pl_lockfns_t *f, pl_mutex_t *m)
{
    uint32_t kind = clof_atomic32_read_rlx(&m->kind);
    if (kind & PL_KIND_GLIBC)
        return pl_real.mutex_unlock((pthread_mutex_t *)(void *)m);
    uint32_t type = kind & PL_KIND_TYPE_MASK;
    if (PL_KIND_COUNTED(type)) {
        if ((int32_t)clof_atomic32_read_rlx(&m->owner) != pl_tid())
            return EPERM;
        if (type == PL_KIND_RECURSIVE && --m->count != 0)
            return 0;
    }
    pl_box_t *b = clof_atomicptr_read_rlx(&m->box);
    if (CLOF_UNLIKELY(b == NULL))
        return EPERM;
    pl_op_rel(f, m, b);
    return 0;
}

/* The slow paths start over: a mutex of another kind, or any normal one. */
PL_OP int pl_op_lock_slow(const pl_lockfns_t *f, bool S, bool trylock, pl_mutex_t *m,
                          int (*kind_path)(pl_mutex_t *))
{
    if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))
        return kind_path(m);
    return pl_op_take(f, S, trylock, m) ? 0 : EBUSY;
}
PL_OP int pl_op_unlock_slow(const pl_lockfns_t *f, pl_mutex_t *m,
                            int (*kind_path)(pl_mutex_t *))
{
    if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))
        return kind_path(m);
    pl_box_t *b = clof_atomicptr_read_rlx(&m->box);
    if (CLOF_UNLIKELY(b == NULL))
        return EPERM; /* not locked */
    pl_op_rel(f, m, b);
    return 0;
}

/* The fast path of pthread_mutex_lock (trylock = false) and of
 * pthread_mutex_trylock (true), one function: a normal mutex, the thread's
 * cached box and tid, the lock ready and free.  Anything else -- and every
 * call when counting -- takes the slow path, which starts over (trylock: a
 * held lock is EBUSY at once).  No call but tail calls: no registers to
 * save. */
PL_OP int pl_op_lock_fast(const pl_lockfns_t *f, bool S, bool trylock, pthread_mutex_t *pm,
                          int (*slow)(pl_mutex_t *))
{
    pl_mutex_t *m = (pl_mutex_t *)(void *)pm;
    if (S)
        return slow(m);
    pl_box_t *b = pl_tls.cache;
    int32_t tid = pl_tls.tid;
    void *l = pl_op_lockp_fast(f, m);
    if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))
        return slow(m);
    if (CLOF_UNLIKELY(b == NULL))
        return slow(m);
    if (CLOF_UNLIKELY(tid == 0))
        return slow(m);
    if (CLOF_UNLIKELY(l == NULL))
        return slow(m);
    if (!trylock && f->tryquick) {
        if (CLOF_UNLIKELY(!f->tryquick(l, PL_CTX(b))))
            return slow(m);
        pl_tls.cache = NULL;
    } else {
        if (CLOF_UNLIKELY(!f->tryacquire(l, PL_CTX(b))))
            return trylock ? EBUSY : slow(m);
        pl_tls.cache = NULL;
    }
    pl_held(m, b, tid);
    return 0;
}
/* The fast path of pthread_mutex_unlock: a normal mutex, no timed waiter,
 * the cache empty; the box is cached before the release, which is the last
 * thing done. */
PL_OP int pl_op_unlock(const pl_lockfns_t *f, bool S, pthread_mutex_t *pm,
                       int (*slow)(pl_mutex_t *))
{
    pl_mutex_t *m = (pl_mutex_t *)(void *)pm;
    if (S)
        return slow(m);
    pl_box_t *b = clof_atomicptr_read_rlx(&m->box);
    if (CLOF_UNLIKELY(pl_kind_tw(m) != 0))
        return slow(m);
    if (CLOF_UNLIKELY(b == NULL))
        return slow(m);
    if (CLOF_UNLIKELY(pl_tls.cache != NULL))
        return slow(m);
    void *l = pl_op_lockp_fast(f, m);
    if (f->rel_needs_layer && CLOF_UNLIKELY(f->rel_needs_layer(l, PL_CTX(b))))
        return slow(m);
    b->mutex = NULL;
    clof_atomicptr_write_rlx(&m->box, (pl_box_t *)NULL);
    pl_tls.cache = b;
    if (f->rel_inner)
        f->rel_inner(l, PL_CTX(b));
    else
        f->release(l, PL_CTX(b));
    return 0;
}
PL_OP int pl_op_timedlock(const pl_lockfns_t *f, bool S, pthread_mutex_t *pm, clockid_t clk,
                          const struct timespec *abs, int api)
{
    pl_mutex_t *m = (pl_mutex_t *)(void *)pm;
    if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
        return EINVAL;
    uint32_t kind = clof_atomic32_read_rlx(&m->kind);
    if (kind & PL_KIND_GLIBC) {
        if (api == 0)
            return pl_real.mutex_timedlock(pm, abs);
        return pl_real.mutex_clocklock ? pl_real.mutex_clocklock(pm, clk, abs) : EINVAL;
    }
    uint32_t type = kind & PL_KIND_TYPE_MASK;
    if (PL_KIND_COUNTED(type)) {
        bool done;
        int r = pl_op_relock(m, type, EDEADLK, &done);
        if (done)
            return r;
        r = pl_op_timed_acq(f, S, m, clk, abs);
        if (r == 0)
            m->count = 1;
        return r;
    }
    return pl_op_timed_acq(f, S, m, clk, abs);
}
PL_OP int pl_op_destroy(const pl_lockfns_t *f, pthread_mutex_t *pm)
{
    pl_mutex_t *m = (pl_mutex_t *)(void *)pm;
    if (clof_atomic32_read_rlx(&m->kind) & PL_KIND_GLIBC)
        return pl_real.mutex_destroy(pm);
    if (clof_atomicptr_read_rlx(&m->box) != NULL)
        return EBUSY;
    if (!f->inplace) {
        void *blk = clof_atomicptr_xchg(&m->lk.blk, (void *)NULL);
        if (blk != NULL)
            pl_block_free(blk);
    } else {
        f->destroy((void *)&m->lk);
    }
    return 0;
}
PL_OP void pl_op_fork_reset(const pl_lockfns_t *f, pl_mutex_t *m, pl_box_t *b)
{
    if (f->inplace)
        m->lk.raw = 0;
    if (f->crblock) /* the state counts threads of the parent: a new one */
        clof_atomic32_write_rlx(&m->last, 0);
    if (!f->inplace)
        clof_atomicptr_write_rlx(&m->lk.blk, pl_block_fresh());
    f->acquire(pl_op_lockp(f, m), PL_CTX(b));
}

/* ---- the instantiation of one lock --------------------------------------- */
/* A basic lock: its descriptor is checked at compile time. */
#define PL_DEFINE_BASIC(name, NAME)                                            \
    _Static_assert(CLOF_##NAME##_ZERO_INIT,                                    \
                   "the preload library needs all-zero = unlocked");           \
    _Static_assert(CLOF_##NAME##_THREAD_OBLIVIOUS,                             \
                   "the preload library needs thread-oblivious locks");       \
    PL_OP bool pl_tryquick_##name(void *l, void *c)                            \
    { return PL_TRY_QUICK(name)((clof_##name##_t *)l, (clof_##name##_ctx_t *)c); } \
    PL_DEFINE_LOCK_(name, pl_destroy_##name, PL_TIMED_POLL, 0, NULL, NULL,     \
                    pl_tryquick_##name)
/* A lock over the hierarchy (hmcs.h, cna.h, cohort.h, compose.h: zero bytes
 * are a valid lock, thread-oblivious by construction). */
#define PL_DEFINE_NUMA(id, _) PL_DEFINE_LOCK(id, pl_destroy_##id, PL_TIMED_POLL, 0)
/* An abortable lock over the hierarchy: timed locks wait in the lock. */
#define PL_DEFINE_ABORTABLE(id, _) PL_DEFINE_LOCK(id, pl_destroy_##id, PL_TIMED_UNTIL, 0)

/* The table of lock `name` (its functions, typed as the table needs them),
 * and its entry points for S = 0 and 1.  CRBLOCK: a cr: lock whose state is
 * in a block of its own (pl_internal.h): it lives in place, whatever
 * PL_INPLACE says (PL_FORCE_BLOCK). */
#define PL_DEFINE_LOCK(name, DESTROY, TIMED, CRBLOCK)                          \
    PL_DEFINE_LOCK_(name, DESTROY, TIMED, CRBLOCK, NULL, NULL, NULL)
/* ... with a cr: lock's two release halves and its quick attempt
 * (PL_DEFINE_CR) */
#define PL_DEFINE_LOCK_(name, DESTROY, TIMED, CRBLOCK, NEEDS, INNER,            \
                        QUICK)                                                 \
    PL_OP bool pl_tryfn_##name(void *l, void *c)                               \
    { return clof_##name##_tryacquire((clof_##name##_t *)l, (clof_##name##_ctx_t *)c); } \
    PL_OP void pl_acqfn_##name(void *l, void *c)                               \
    { clof_##name##_acquire((clof_##name##_t *)l, (clof_##name##_ctx_t *)c); } \
    PL_OP void pl_relfn_##name(void *l, void *c)                               \
    { clof_##name##_release((clof_##name##_t *)l, (clof_##name##_ctx_t *)c); } \
    PL_OP void pl_destroyfn_##name(void *l)                                    \
    { DESTROY((clof_##name##_t *)l); }                                         \
    static int pl_timedfn_##name(pl_mutex_t *m, void *l, void *c, clockid_t clk, \
                                 const struct timespec *abs)                   \
    { (void)m; return TIMED(name, m, l, c, clk, abs); }                        \
    static const pl_lockfns_t pl_fns_##name = {                                \
        PL_INPLACE(name) || (CRBLOCK), CRBLOCK, pl_tryfn_##name,               \
        pl_acqfn_##name,                                                       \
        pl_relfn_##name, NEEDS, INNER, QUICK, pl_timedfn_##name,               \
        pl_destroyfn_##name};                                                  \
    static void pl_fork_reset_##name(pl_mutex_t *m, pl_box_t *b)               \
    { pl_op_fork_reset(&pl_fns_##name, m, b); }                                \
    PL_DEFINE_ENTRIES(name, 0)                                                 \
    PL_DEFINE_ENTRIES(name, 1)

/* The entry points of the ops table: one line each over the pl_op_*
 * functions; the slow paths stay out of line (noinline: the fast paths
 * reach them by tail calls and save no registers). */
#define PL_SLOW_ static __attribute__((noinline))
#define PL_DEFINE_ENTRIES(name, S)                                             \
    PL_SLOW_ int pl_lock_kind_##name##S(pl_mutex_t *m)                         \
    { return pl_op_lock_kind(&pl_fns_##name, S, false, m); }                   \
    PL_SLOW_ int pl_lock_slow_##name##S(pl_mutex_t *m)                         \
    { return pl_op_lock_slow(&pl_fns_##name, S, false, m, pl_lock_kind_##name##S); } \
    static int pl_lock_##name##S(pthread_mutex_t *pm)                          \
    { return pl_op_lock_fast(&pl_fns_##name, S, false, pm, pl_lock_slow_##name##S); } \
    PL_SLOW_ int pl_trylock_kind_##name##S(pl_mutex_t *m)                      \
    { return pl_op_lock_kind(&pl_fns_##name, S, true, m); }                    \
    PL_SLOW_ int pl_trylock_slow_##name##S(pl_mutex_t *m)                      \
    { return pl_op_lock_slow(&pl_fns_##name, S, true, m, pl_trylock_kind_##name##S); } \
    static int pl_trylock_##name##S(pthread_mutex_t *pm)                       \
    { return pl_op_lock_fast(&pl_fns_##name, S, true, pm, pl_trylock_slow_##name##S); } \
    PL_SLOW_ int pl_unlock_kind_##name##S(pl_mutex_t *m)                       \
    { return pl_op_unlock_kind(&pl_fns_##name, m); }                           \
    PL_SLOW_ int pl_unlock_slow_##name##S(pl_mutex_t *m)                       \
    { return pl_op_unlock_slow(&pl_fns_##name, m, pl_unlock_kind_##name##S); } \
    static int pl_unlock_##name##S(pthread_mutex_t *pm)                        \
    { return pl_op_unlock(&pl_fns_##name, S, pm, pl_unlock_slow_##name##S); }  \
    static int pl_timedlock_##name##S(pthread_mutex_t *pm, clockid_t clk,      \
                                      const struct timespec *abs, int api)     \
    { return pl_op_timedlock(&pl_fns_##name, S, pm, clk, abs, api); }          \
    static int pl_destroy_##name##S(pthread_mutex_t *pm)                       \
    { return pl_op_destroy(&pl_fns_##name, pm); }                              \
    PL_HIDDEN const pl_ops_t pl_ops_##name##S = {                              \
        pl_lock_##name##S,      pl_trylock_##name##S, pl_unlock_##name##S,     \
        pl_timedlock_##name##S, pl_destroy_##name##S, pl_fork_reset_##name};

/* The ops of every lock, defined by the instantiations (pl_locks_*.c). */
#define PL_OPS_DECL_(name, _)                                                  \
    extern const pl_ops_t pl_ops_##name##0 PL_HIDDEN;                          \
    extern const pl_ops_t pl_ops_##name##1 PL_HIDDEN;
#define PL_OPS_DECL_ASL_(id, _) PL_OPS_DECL_(asl_##id, _)
PL_BASIC_LOCKS(PL_OPS_DECL_)
PL_NUMA_LOCKS(PL_OPS_DECL_)
PL_BASIC_LOCKS(PL_OPS_DECL_ASL_)
PL_NUMA_LOCKS(PL_OPS_DECL_ASL_)
#define PL_OPS_DECL_CR_(id, _) PL_OPS_DECL_(cr_##id, _)
PL_BASIC_LOCKS(PL_OPS_DECL_CR_)
PL_NUMA_LOCKS(PL_OPS_DECL_CR_)

/* The reorderable lock (LibASL) over lock `id` of the table: clof_asl_<id>
 * (pl_internal.h); a lock of its own, so the other locks' paths are
 * untouched. */
#define PL_DEFINE_ASL(id, _) PL_DEFINE_LOCK(asl_##id, pl_destroy_asl_##id, PL_TIMED_POLL, 0)
/* Concurrency restriction (cr.h) over lock `id` of the table: clof_cr_<id>. */
#define PL_DEFINE_CR(id, _) PL_DEFINE_CR_(id, NULL)
/* ... over a basic lock: with the quick attempt of PL_TRY_QUICK */
#define PL_DEFINE_CR_BASIC(name, _)                                            \
    PL_OP bool pl_tryquick_cr_##name(void *l, void *c)                         \
    { return clof_cr_##name##_tryacquire_with_((clof_cr_##name##_t *)l,        \
                                               (clof_cr_##name##_ctx_t *)c,    \
                                               PL_TRY_QUICK(name)); }          \
    PL_DEFINE_CR_(name, pl_tryquick_cr_##name)
#define PL_DEFINE_CR_(id, QUICK)                                               \
    PL_OP bool pl_rel_needs_layer_cr_##id(void *l, void *c)                    \
    { return clof_cr_##id##_release_needs_layer_((clof_cr_##id##_t *)l,        \
                                                 (clof_cr_##id##_ctx_t *)c); } \
    PL_OP void pl_rel_inner_cr_##id(void *l, void *c)                          \
    { clof_cr_##id##_release_inner_((clof_cr_##id##_t *)l,                     \
                                    (clof_cr_##id##_ctx_t *)c); }              \
    PL_DEFINE_LOCK_(cr_##id, pl_destroy_cr_##id, PL_TIMED_POLL,                 \
                    pl_crblock_cr_##id, pl_rel_needs_layer_cr_##id,             \
                    pl_rel_inner_cr_##id, QUICK)

#endif /* CLOF_PRELOAD_LOCK_TMPL_H */
