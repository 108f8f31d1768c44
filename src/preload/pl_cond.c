/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_cond.c -- the condition variable of libclof-preload.so.
 *
 * Algorithm: a FIFO queue of waiters protected by a small internal lock.
 * A waiter puts a node (on its stack) at the tail -- while it still holds
 * the mutex, so a signal issued after it released the mutex finds it --
 * releases the mutex and sleeps on its node's own futex word.  signal takes
 * the head node out of the queue and wakes exactly that waiter; broadcast
 * takes all of them.  A waiter that times out removes its own node, unless
 * a signal has already taken it (then the wait succeeds: a signal is never
 * lost to a timeout).  The mutex is released and re-acquired through the
 * interposed functions, so the condition variable works with every clof
 * lock, every mutex type, and mutexes handed to glibc.
 *
 * Why not glibc's: glibc's pthread_cond_wait unlocks and relocks the mutex
 * with its internal functions, which do not know our mutex layout.
 *
 * Lifetime: after taking a node out of the queue the signaller releases the
 * internal lock and only then writes the node's word (and futex-wakes its
 * address, which is harmless if the waiter is already gone).  A woken
 * waiter never touches the condition variable again, so it may destroy it
 * at once.
 *
 * Clocks: the clock of pthread_condattr_setclock is kept in glibc's
 * encoding (the __wrefs word), so zero (PTHREAD_COND_INITIALIZER) is
 * CLOCK_REALTIME; pthread_cond_clockwait takes its clock as an argument.
 *
 * Process-shared condition variables are glibc's (they live in memory that
 * other processes, perhaps without this library, use).  Waiting on one with
 * a clof mutex (not process-shared) cannot use glibc's wait; such a wait
 * releases the mutex, sleeps at most 1 ms and returns (a spurious wake-up,
 * which POSIX allows), so the caller's predicate loop stays live.
 *
 * Cancellation: pthread_cond_wait is a cancellation point.  The sleep runs
 * with asynchronous cancellation enabled; the cleanup takes the node out
 * (or passes on a signal it consumed) and re-acquires the mutex, as POSIX
 * requires, before the caller's cleanup handlers run.  This file is built
 * without -fexceptions so that pthread_cleanup_push is glibc's setjmp-based
 * form: it runs wherever in the asynchronous region the cancellation lands.
 *
 * Fork: only the forking thread survives in the child, and the stacks of
 * the other threads (where their queue nodes live) are reused for new
 * threads.  The internal lock and the queue carry the fork generation: the
 * first operation in the child finds an older generation, takes the lock
 * over and empties the queue without reading the old nodes.
 */
#include "pl_internal.h"
#include "pl_profile.h"

#include <sched.h>

typedef struct pl_cwaiter {
    struct pl_cwaiter *next, *prev;
    uint32_t state;  /* futex word: 0 waiting, 1 signalled */
    uint32_t queued; /* in the queue (read and written under ilock) */
} pl_cwaiter_t;

typedef struct {
    CLOF_ATOMICPTR(pl_cwaiter_t) head; /*  0 */
    pl_cwaiter_t *tail;                /*  8 */
    clof_atomic32_t ilock;             /* 16: see pl_ilock */
    uint32_t qgen;                     /* 20: pl_fork_gen the queue belongs to */
    uint32_t unused_[3];               /* 24 */
    clof_atomic32_t flags;             /* 36: glibc's __wrefs flag bits */
    uint32_t unused2_[2];              /* 40 */
} pl_cond_t;

_Static_assert(sizeof(pl_cond_t) <= sizeof(pthread_cond_t), "pl_cond_t fits");
_Static_assert(offsetof(pl_cond_t, flags) == 36, "__wrefs is at offset 36");

/* The internal lock: 0 free, else (fork generation << 2) | 1, | 2 when a
 * thread sleeps on it.  Fork: in the child only the forking thread runs,
 * and the stacks of the parent's other threads are reused for new threads;
 * so a lock word or a queue of an older generation belongs to threads that
 * do not exist: the lock is taken over and the queue emptied (without
 * reading its nodes). */
#define PL_IL_HELD 1u
#define PL_IL_SLEEP 2u
static inline uint32_t pl_il_gen(uint32_t v)
{
    return v >> 2;
}
static void pl_ilock_slow(pl_cond_t *c, uint32_t me, uint32_t v)
{
    for (unsigned i = 0;; i++) {
        if (v == 0) {
            v = clof_atomic32_cmpxchg(&c->ilock, 0, me | PL_IL_SLEEP);
            if (v == 0)
                return;
            continue;
        }
        if (pl_il_gen(v) != pl_il_gen(me)) { /* held by a thread lost in a fork */
            if (clof_atomic32_cmpxchg(&c->ilock, v, me | PL_IL_SLEEP) == v)
                return;
        } else if (i < 64) {
            clof_be_pause();
        } else if (i < 66) {
            sched_yield();
        } else {
            if (!(v & PL_IL_SLEEP) &&
                clof_atomic32_cmpxchg(&c->ilock, v, v | PL_IL_SLEEP) != v)
                goto reread;
            pl_futex_wait(&c->ilock._v, v | PL_IL_SLEEP, CLOCK_MONOTONIC, NULL, false);
        }
    reread:
        v = clof_atomic32_read(&c->ilock);
    }
}
static inline void pl_ilock(pl_cond_t *c)
{
    uint32_t gen = clof_atomic32_read_rlx(&pl_fork_gen);
    uint32_t me = (gen << 2) | PL_IL_HELD;
    uint32_t v = clof_atomic32_cmpxchg_acq(&c->ilock, 0, me);
    if (CLOF_UNLIKELY(v != 0))
        pl_ilock_slow(c, me, v);
    if (CLOF_UNLIKELY(c->qgen != gen)) { /* the queue of a previous life */
        clof_atomicptr_write_rlx(&c->head, (pl_cwaiter_t *)NULL);
        c->tail = NULL;
        c->qgen = gen;
    }
}
static inline void pl_iunlock(pl_cond_t *c)
{
    uint32_t v = clof_atomic32_xchg_rel(&c->ilock, 0);
    if (CLOF_UNLIKELY(v & PL_IL_SLEEP))
        pl_futex_wake(&c->ilock._v, 1, false);
}

/* queue operations, under ilock */
static void pl_q_append(pl_cond_t *c, pl_cwaiter_t *w)
{
    w->next = NULL;
    w->prev = c->tail;
    if (c->tail)
        c->tail->next = w;
    else
        clof_atomicptr_write_rlx(&c->head, w);
    c->tail = w;
    w->queued = 1;
}
static void pl_q_remove(pl_cond_t *c, pl_cwaiter_t *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        clof_atomicptr_write_rlx(&c->head, w->next);
    if (w->next)
        w->next->prev = w->prev;
    else
        c->tail = w->prev;
    w->queued = 0;
}

static void pl_wake_node(pl_cwaiter_t *w)
{
    __atomic_store_n(&w->state, 1, __ATOMIC_RELEASE);
    pl_futex_wake(&w->state, 1, false); /* w may be gone: only the address */
}

/* Take the first live waiter out of the queue and wake it.  Returns
 * whether there was one. */
static bool pl_signal_one(pl_cond_t *c)
{
    pl_ilock(c);
    pl_cwaiter_t *w = clof_atomicptr_read_rlx(&c->head);
    if (w != NULL)
        pl_q_remove(c, w);
    pl_iunlock(c);
    if (w)
        pl_wake_node(w);
    return w != NULL;
}

/* Wait until a signaller that took w out of the queue has written its word. */
static void pl_await_signal(pl_cwaiter_t *w)
{
    while (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == 0)
        pl_futex_wait(&w->state, 0, CLOCK_MONOTONIC, NULL, false);
}

typedef struct {
    pl_cond_t *c;
    pthread_mutex_t *m;
    pl_cwaiter_t *w;
    uint32_t count; /* recursion depth to restore (0: not recursive) */
    clockid_t clk;
    const struct timespec *deadline;
    bool timed_out;
} pl_wait_ctx_t;

static int pl_relock(pl_wait_ctx_t *x)
{
    int r = pl_fn.lock(x->m);
    if (x->count != 0 && (r == 0 || r == EOWNERDEAD))
        ((pl_mutex_t *)(void *)x->m)->count = x->count;
    return r;
}

/* Cancelled while asleep: leave the queue (or pass on the signal we got)
 * and take the mutex again. */
static void pl_cond_cancelled(void *arg)
{
    pl_wait_ctx_t *x = arg;
    bool consumed;
    pl_ilock(x->c);
    consumed = !x->w->queued;
    if (!consumed)
        pl_q_remove(x->c, x->w);
    pl_iunlock(x->c);
    if (consumed) {
        pl_await_signal(x->w);
        pl_signal_one(x->c);
    }
    pl_relock(x);
}

/* Sleep until signalled (false) or timed out and out of the queue (true).
 * The sleep itself is the asynchronous cancellation region.  Everything
 * the cleanup needs is in *x (memory), nothing in locals changed after
 * the setjmp of pthread_cleanup_push. */
static __attribute__((noinline)) bool pl_cond_sleep(pl_wait_ctx_t *x, clockid_t clk,
                                                    const struct timespec *abs)
{
    pl_cwaiter_t *w = x->w;
    pl_cond_t *c = x->c;
    x->clk = clk;
    x->deadline = abs;
    x->timed_out = false;
    pthread_cleanup_push(pl_cond_cancelled, x);
    while (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == 0) {
        int oldtype;
        pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
        int e = pl_futex_wait(&w->state, 0, x->clk, x->deadline, false);
        pthread_setcanceltype(oldtype, NULL);
        if (e == ETIMEDOUT) {
            pl_ilock(c);
            if (w->queued) {
                pl_q_remove(c, w);
                x->timed_out = true;
            }
            pl_iunlock(c);
            if (x->timed_out)
                break;
            x->deadline = NULL; /* a signaller took us: its write is imminent */
        }
    }
    pthread_cleanup_pop(0);
    return x->timed_out;
}

/* Wait with a clof mutex on a process-shared (glibc) condition variable:
 * a bounded sleep, i.e. a spurious wake-up. */
static int pl_cond_poll(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
    int r = pl_fn.unlock(m);
    if (r != 0)
        return r;
    struct timespec now, d = {0, 1000000L};
    if (abs != NULL) {
        clock_gettime(clk, &now);
        struct timespec left = {abs->tv_sec - now.tv_sec, abs->tv_nsec - now.tv_nsec};
        if (left.tv_nsec < 0) {
            left.tv_nsec += 1000000000L;
            left.tv_sec--;
        }
        if (left.tv_sec < 0)
            left.tv_sec = left.tv_nsec = 0;
        if (pl_ts_before(&left, &d))
            d = left;
    }
    nanosleep(&d, NULL);
    r = pl_fn.lock(m);
    if (r != 0)
        return r;
    if (abs != NULL) {
        clock_gettime(clk, &now);
        if (!pl_ts_before(&now, abs))
            return ETIMEDOUT;
    }
    return 0;
}

/* api: 0 wait, 1 timedwait, 2 clockwait; abi: 0 GLIBC_2.3.2, 1 GLIBC_2.2.5 */
static int pl_cond_wait_run(pthread_cond_t *pc, pthread_mutex_t *pm, clockid_t clk,
                            const struct timespec *abs, int api, int abi)
{
    pl_ensure_started();
    pl_cond_t *c = (pl_cond_t *)(void *)pc;
    uint32_t fl = clof_atomic32_read_rlx(&c->flags);
    if (api == 1)
        clk = (fl & PL_COND_MONOTONIC) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    if (pl_glibc_mode || (fl & PL_COND_SHARED)) {
        pl_mutex_t *pmx = (pl_mutex_t *)(void *)pm;
        if (!pl_glibc_mode && !(clof_atomic32_read_rlx(&pmx->kind) & PL_KIND_GLIBC)) {
            if (api == 2 && clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
                return EINVAL;
            if (abs != NULL && !pl_ts_valid(abs))
                return EINVAL;
            return pl_cond_poll(pm, clk, abs);
        }
        /* a process-shared cond was made by glibc's current pthread_cond_init
         * (ours forwards it there, whichever version was called) */
        int a = pl_glibc_mode && pl_real.cond_wait[abi] ? abi : 0;
        if (api == 0)
            return pl_real.cond_wait[a](pc, pm);
        if (api == 1)
            return pl_real.cond_timedwait[a](pc, pm, abs);
        return pl_real.cond_clockwait ? pl_real.cond_clockwait(pc, pm, clk, abs) : EINVAL;
    }
    if (api == 2 && clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
        return EINVAL;
    if (abs != NULL && !pl_ts_valid(abs))
        return EINVAL;

    pl_mutex_t *m = (pl_mutex_t *)(void *)pm;
    uint32_t kind = clof_atomic32_read_rlx(&m->kind);
    bool ours = !(kind & PL_KIND_GLIBC);
    uint32_t type = kind & PL_KIND_TYPE_MASK;
    pl_wait_ctx_t x = {c, pm, NULL, 0, clk, abs, false};
    if (ours && type == PL_KIND_RECURSIVE) {
        /* release every level while waiting; restore them after */
        if ((int32_t)clof_atomic32_read_rlx(&m->owner) != pl_tid())
            return EPERM;
        x.count = m->count;
        m->count = 1;
    }
    if (pl_stats_on)
        pl_st()->cond_waits++;

    pl_cwaiter_t w;
    memset(&w, 0, sizeof w);
    x.w = &w;
    pl_ilock(c);
    pl_q_append(c, &w);
    pl_iunlock(c);

    int r = pl_fn.unlock(pm);
    /* a normal mutex the caller did not hold: glibc waits anyway (and the
     * caller holds the mutex afterwards); so do we */
    if (r != 0 && !(r == EPERM && ours && type != PL_KIND_RECURSIVE &&
                    type != PL_KIND_ERRORCHECK)) {
        bool consumed;
        pl_ilock(c);
        consumed = !w.queued;
        if (!consumed)
            pl_q_remove(c, &w);
        pl_iunlock(c);
        if (consumed) {
            pl_await_signal(&w);
            pl_signal_one(c);
        }
        if (x.count != 0)
            m->count = x.count;
        return r;
    }

    bool timed_out = pl_cond_sleep(&x, clk, abs);
    int r2 = pl_relock(&x);
    if (timed_out && pl_stats_on)
        pl_st()->cond_timeouts++;
    if (r2 != 0)
        return r2; /* EOWNERDEAD from a robust mutex, as glibc reports it */
    return timed_out ? ETIMEDOUT : 0;
}

static int pl_cond_signal_common(pthread_cond_t *pc, int abi, bool all)
{
    pl_ensure_started();
    if (pl_prof_on)
        pl_prof_cond_signal(pc, all);
    pl_cond_t *c = (pl_cond_t *)(void *)pc;
    if (pl_glibc_mode || (clof_atomic32_read_rlx(&c->flags) & PL_COND_SHARED)) {
        int a = pl_glibc_mode && pl_real.cond_signal[abi] ? abi : 0;
        return all ? pl_real.cond_broadcast[a](pc) : pl_real.cond_signal[a](pc);
    }
    if (pl_stats_on) {
        if (all)
            pl_st()->cond_broadcasts++;
        else
            pl_st()->cond_signals++;
    }
    /* No waiter queued: nothing to do.  A waiter queues itself before it
     * releases the mutex, so a signaller that saw its predicate change
     * (under the mutex) also sees the node. */
    if (clof_atomicptr_read_acq(&c->head) == NULL)
        return 0;
    if (!all) {
        pl_signal_one(c);
        return 0;
    }
    pl_ilock(c);
    pl_cwaiter_t *list = clof_atomicptr_read_rlx(&c->head);
    for (pl_cwaiter_t *w = list; w; w = w->next)
        w->queued = 0;
    clof_atomicptr_write_rlx(&c->head, (pl_cwaiter_t *)NULL);
    c->tail = NULL;
    pl_iunlock(c);
    for (pl_cwaiter_t *w = list, *next; w; w = next) {
        next = w->next; /* before the wake: w may be gone after it */
        pl_wake_node(w);
    }
    return 0;
}

static int pl_cond_init_common(pthread_cond_t *pc, const pthread_condattr_t *a, int abi)
{
    pl_ensure_started();
    if (pl_glibc_mode) {
        int ab = pl_real.cond_init[abi] ? abi : 0;
        return pl_real.cond_init[ab](pc, a);
    }
    int pshared = PTHREAD_PROCESS_PRIVATE;
    clockid_t clk = CLOCK_REALTIME;
    if (a != NULL) {
        if (pthread_condattr_getpshared(a, &pshared) != 0 ||
            pthread_condattr_getclock(a, &clk) != 0)
            return EINVAL;
    }
    if (pshared == PTHREAD_PROCESS_SHARED)
        return pl_real.cond_init[0](pc, a);
    if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
        return EINVAL;
    memset(pc, 0, sizeof *pc);
    pl_cond_t *c = (pl_cond_t *)(void *)pc;
    clof_atomic32_write_rlx(&c->flags, clk == CLOCK_MONOTONIC ? PL_COND_MONOTONIC : 0);
    return 0;
}

static int pl_cond_destroy_common(pthread_cond_t *pc, int abi)
{
    pl_ensure_started();
    pl_cond_t *c = (pl_cond_t *)(void *)pc;
    if (pl_glibc_mode || (clof_atomic32_read_rlx(&c->flags) & PL_COND_SHARED)) {
        int ab = pl_glibc_mode && pl_real.cond_destroy[abi] ? abi : 0;
        return pl_real.cond_destroy[ab](pc);
    }
    pl_ilock(c);
    int r = clof_atomicptr_read_rlx(&c->head) != NULL ? EBUSY : 0; /* a thread is blocked on it */
    pl_iunlock(c);
    return r;
}
/* CLOF_PROFILE (pl_profile.c): the wait timed, with its call site (the
 * caller of the exported function this is inlined into) */
static __attribute__((noinline)) int pl_cond_wait_prof(pthread_cond_t *pc, pthread_mutex_t *pm,
                                                       clockid_t clk, const struct timespec *abs,
                                                       int api, int abi, const void *pc_site)
{
    uint64_t t0 = pl_prof_now();
    pl_prof_tick(t0);
    /* lock tracking: glibc's condvars release and retake the mutex inside
     * glibc, out of sight of the profiling ops (ours go through pl_fn) */
    bool glibc_cv =
        pl_prof_track &&
        (pl_glibc_mode ||
         ((clof_atomic32_read_rlx(&((pl_cond_t *)(void *)pc)->flags) & PL_COND_SHARED) &&
          (clof_atomic32_read_rlx(&((pl_mutex_t *)(void *)pm)->kind) & PL_KIND_GLIBC)));
    if (glibc_cv)
        pl_prof_track_cond(pm, true, pc_site);
    int r = pl_cond_wait_run(pc, pm, clk, abs, api, abi);
    if (glibc_cv)
        pl_prof_track_cond(pm, false, pc_site);
    if (r == 0 || r == ETIMEDOUT)
        pl_prof_cond_wait(pc, pc_site, pl_prof_now() - t0, r == ETIMEDOUT);
    return r;
}
static inline __attribute__((always_inline)) int
pl_cond_wait_common(pthread_cond_t *pc, pthread_mutex_t *pm, clockid_t clk,
                    const struct timespec *abs, int api, int abi)
{
    if (CLOF_LIKELY(!pl_prof_on))
        return pl_cond_wait_run(pc, pm, clk, abs, api, abi);
    return pl_cond_wait_prof(pc, pm, clk, abs, api, abi, __builtin_return_address(0));
}


/* ---- exported, one function per glibc symbol version ---------------------------- */
#define PL_COND_API(sfx, abi)                                                  \
    PL_EXPORT int pl_cond_init_##sfx(pthread_cond_t *c, const pthread_condattr_t *a) \
    {                                                                          \
        return pl_cond_init_common(c, a, abi);                                 \
    }                                                                          \
    PL_EXPORT int pl_cond_destroy_##sfx(pthread_cond_t *c)                     \
    {                                                                          \
        return pl_cond_destroy_common(c, abi);                                 \
    }                                                                          \
    PL_EXPORT int pl_cond_wait_##sfx(pthread_cond_t *c, pthread_mutex_t *m)    \
    {                                                                          \
        return pl_cond_wait_common(c, m, CLOCK_REALTIME, NULL, 0, abi);        \
    }                                                                          \
    PL_EXPORT int pl_cond_timedwait_##sfx(pthread_cond_t *c, pthread_mutex_t *m, \
                                          const struct timespec *abs)          \
    {                                                                          \
        return pl_cond_wait_common(c, m, CLOCK_REALTIME, abs, 1, abi);         \
    }                                                                          \
    PL_EXPORT int pl_cond_signal_##sfx(pthread_cond_t *c)                      \
    {                                                                          \
        return pl_cond_signal_common(c, abi, false);                           \
    }                                                                          \
    PL_EXPORT int pl_cond_broadcast_##sfx(pthread_cond_t *c)                   \
    {                                                                          \
        return pl_cond_signal_common(c, abi, true);                            \
    }
PL_COND_API(new, 0)
PL_COND_API(old, 1)

PL_EXPORT int pl_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                const struct timespec *abs)
{
    return pl_cond_wait_common(c, m, clk, abs, 2, 0);
}

#if defined(__x86_64__)
extern __typeof__(pl_cond_clockwait) pl_cond_clockwait_230
    __attribute__((alias("pl_cond_clockwait"), visibility("default")));
__asm__(".symver pl_cond_init_new, pthread_cond_init@@GLIBC_2.3.2\n"
        ".symver pl_cond_destroy_new, pthread_cond_destroy@@GLIBC_2.3.2\n"
        ".symver pl_cond_wait_new, pthread_cond_wait@@GLIBC_2.3.2\n"
        ".symver pl_cond_timedwait_new, pthread_cond_timedwait@@GLIBC_2.3.2\n"
        ".symver pl_cond_signal_new, pthread_cond_signal@@GLIBC_2.3.2\n"
        ".symver pl_cond_broadcast_new, pthread_cond_broadcast@@GLIBC_2.3.2\n"
        ".symver pl_cond_init_old, pthread_cond_init@GLIBC_2.2.5\n"
        ".symver pl_cond_destroy_old, pthread_cond_destroy@GLIBC_2.2.5\n"
        ".symver pl_cond_wait_old, pthread_cond_wait@GLIBC_2.2.5\n"
        ".symver pl_cond_timedwait_old, pthread_cond_timedwait@GLIBC_2.2.5\n"
        ".symver pl_cond_signal_old, pthread_cond_signal@GLIBC_2.2.5\n"
        ".symver pl_cond_broadcast_old, pthread_cond_broadcast@GLIBC_2.2.5\n"
        ".symver pl_cond_clockwait, pthread_cond_clockwait@@GLIBC_2.34\n"
        ".symver pl_cond_clockwait_230, pthread_cond_clockwait@GLIBC_2.30\n");
#elif defined(__aarch64__)
/* aarch64's glibc began (2.17) with the current condition variables: one
 * version each, no old ABI */
extern __typeof__(pl_cond_clockwait) pl_cond_clockwait_230
    __attribute__((alias("pl_cond_clockwait"), visibility("default")));
__asm__(".symver pl_cond_init_new, pthread_cond_init@@GLIBC_2.17\n"
        ".symver pl_cond_destroy_new, pthread_cond_destroy@@GLIBC_2.17\n"
        ".symver pl_cond_wait_new, pthread_cond_wait@@GLIBC_2.17\n"
        ".symver pl_cond_timedwait_new, pthread_cond_timedwait@@GLIBC_2.17\n"
        ".symver pl_cond_signal_new, pthread_cond_signal@@GLIBC_2.17\n"
        ".symver pl_cond_broadcast_new, pthread_cond_broadcast@@GLIBC_2.17\n"
        ".symver pl_cond_clockwait, pthread_cond_clockwait@@GLIBC_2.34\n"
        ".symver pl_cond_clockwait_230, pthread_cond_clockwait@GLIBC_2.30\n");
#else
PL_EXPORT int pthread_cond_init(pthread_cond_t *, const pthread_condattr_t *)
    __attribute__((alias("pl_cond_init_new")));
PL_EXPORT int pthread_cond_destroy(pthread_cond_t *) __attribute__((alias("pl_cond_destroy_new")));
PL_EXPORT int pthread_cond_wait(pthread_cond_t *, pthread_mutex_t *)
    __attribute__((alias("pl_cond_wait_new")));
PL_EXPORT int pthread_cond_timedwait(pthread_cond_t *, pthread_mutex_t *, const struct timespec *)
    __attribute__((alias("pl_cond_timedwait_new")));
PL_EXPORT int pthread_cond_signal(pthread_cond_t *) __attribute__((alias("pl_cond_signal_new")));
PL_EXPORT int pthread_cond_broadcast(pthread_cond_t *) __attribute__((alias("pl_cond_broadcast_new")));
PL_EXPORT int pthread_cond_clockwait(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                                     const struct timespec *) __attribute__((alias("pl_cond_clockwait")));
#endif
