/*
 * src/preload/pl_mutex.c -- pthread_mutex_* over every lock of the table.
 *
 * For each lock of PL_LOCKS one template (PL_DEFINE) generates the mutex
 * operations twice: plain, and counting for CLOF_STATS=1 (so that the plain
 * fast path has no statistics branch).  The exported functions jump through
 * pl_fn, which start-up fills with the selected lock's operations (or with
 * glibc's functions when running on glibc).
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
#include "pl_internal.h"

#include <sched.h>

/* A lock lives in place when it fits in the first 8 bytes of the mutex. */
#define PL_INPLACE(name) (sizeof(clof_##name##_t) <= 8 && _Alignof(clof_##name##_t) <= 8)

/* The lock fast path tries the lock (tryacquire) and leaves everything
 * else to the slow path, so that it makes no call and saves no register;
 * a lock whose tryacquire itself may wait (CLH: the rare reuse of the free
 * node) gains nothing from that and acquires directly instead. */
#define PL_FAST_ACQUIRE(name) PL_FAST_ACQUIRE_##name
#define PL_FAST_ACQUIRE_tas 0
#define PL_FAST_ACQUIRE_ttas 0
#define PL_FAST_ACQUIRE_bo 0
#define PL_FAST_ACQUIRE_ticket 0
#define PL_FAST_ACQUIRE_ptl 0
#define PL_FAST_ACQUIRE_mcs 0
#define PL_FAST_ACQUIRE_clh 1
#define PL_FAST_ACQUIRE_hemlock 0
#define PL_FAST_ACQUIRE_hemlock_ctr 0

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

/* CLOF_STATS: after an acquisition by tid. */
static inline void pl_count_acquired(pl_mutex_t *m, int32_t tid)
{
    pl_tls.st.acquisitions++;
    uint32_t last = m->last;
    if (last != (uint32_t)tid) {
        if (last == 0)
            pl_tls.st.replaced++;
        else
            pl_tls.st.handovers++;
        m->last = (uint32_t)tid;
    }
}

/* The wait of a timed lock: poll `try` and sleep on the mutex's tw_seq
 * until acquired (0) or the deadline (ETIMEDOUT).  Registered in tw_waiters
 * by the caller. */
static int pl_timed_wait(pl_mutex_t *m, clockid_t clk, const struct timespec *abs,
                         bool (*try)(void *l, void *c), void *l, void *c)
{
    for (unsigned i = 0;; i++) {
        uint32_t seq = clof_atomic32_read(&m->tw_seq);
        if (try(l, c))
            return 0;
        struct timespec now;
        clock_gettime(clk, &now);
        if (!pl_ts_before(&now, abs))
            return ETIMEDOUT;
        if (i < 2) {
            sched_yield();
            continue;
        }
        struct timespec until = now;
        until.tv_nsec += PL_TIMED_POLL_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pl_ts_before(abs, &until))
            until = *abs;
        pl_futex_wait(&m->tw_seq._v, seq, clk, &until, false);
    }
}

/* A basic lock: its descriptor is checked at compile time. */
#define PL_DEFINE_BASIC(name, NAME)                                            \
    _Static_assert(CLOF_##NAME##_ZERO_INIT,                                    \
                   "the preload library needs all-zero = unlocked");           \
    _Static_assert(CLOF_##NAME##_THREAD_OBLIVIOUS,                             \
                   "the preload library needs thread-oblivious locks");       \
    PL_DEFINE_LOCK(name, PL_FAST_ACQUIRE(name), pl_no_destroy)
/* A lock over the hierarchy (hmcs.h, cna.h, cohort.h, compose.h: zero bytes
 * are a valid lock, thread-oblivious by construction). */
#define PL_DEFINE_NUMA(id, str, destroy) PL_DEFINE_LOCK(id, 0, destroy)

#define PL_DEFINE_LOCK(name, FASTACQ, DESTROY)                                 \
    static inline clof_##name##_t *pl_lockp_##name(pl_mutex_t *m)              \
    {                                                                          \
        if (PL_INPLACE(name))                                                  \
            return (clof_##name##_t *)(void *)&m->lk;                          \
        void *b = clof_atomicptr_read_acq(&m->lk.blk);                         \
        if (CLOF_UNLIKELY(b == NULL))                                          \
            b = pl_block_install(m);                                           \
        return (clof_##name##_t *)b;                                           \
    }                                                                          \
    /* the lock if it is ready to use, else NULL (block not yet installed) */ \
    static inline clof_##name##_t *pl_lockp_fast_##name(pl_mutex_t *m)         \
    {                                                                          \
        if (PL_INPLACE(name))                                                  \
            return (clof_##name##_t *)(void *)&m->lk;                          \
        return (clof_##name##_t *)clof_atomicptr_read_acq(&m->lk.blk);         \
    }                                                                          \
    static bool pl_tryfn_##name(void *l, void *c)                              \
    {                                                                          \
        return clof_##name##_tryacquire((clof_##name##_t *)l,                  \
                                        (clof_##name##_ctx_t *)c);             \
    }                                                                          \
    static void pl_fork_reset_##name(pl_mutex_t *m, pl_box_t *b)              \
    {                                                                          \
        if (PL_INPLACE(name))                                                  \
            m->lk.raw = 0;                                                     \
        else                                                                   \
            clof_atomicptr_write_rlx(&m->lk.blk, pl_block_fresh());            \
        clof_##name##_acquire(pl_lockp_##name(m), &b->ctx.name);               \
    }                                                                          \
    PL_DEFINE_OPS(name, FASTACQ, DESTROY, 0)                                   \
    PL_DEFINE_OPS(name, FASTACQ, DESTROY, 1)

#define PL_DEFINE_OPS(name, FASTACQ, DESTROY, S)                               \
    static inline void pl_acq_##name##S(pl_mutex_t *m)                         \
    {                                                                          \
        pl_box_t *b = pl_box_get();                                            \
        clof_##name##_t *l = pl_lockp_##name(m);                               \
        if (S) {                                                               \
            if (!clof_##name##_tryacquire(l, &b->ctx.name)) {                  \
                pl_tls.st.contended++;                                         \
                clof_##name##_acquire(l, &b->ctx.name);                        \
            }                                                                  \
        } else {                                                               \
            clof_##name##_acquire(l, &b->ctx.name);                            \
        }                                                                      \
        int32_t tid = pl_tid();                                                \
        pl_held(m, b, tid);                                                    \
        if (S)                                                                 \
            pl_count_acquired(m, tid);                                         \
    }                                                                          \
    static inline bool pl_try_##name##S(pl_mutex_t *m)                         \
    {                                                                          \
        pl_box_t *b = pl_box_get();                                            \
        if (!clof_##name##_tryacquire(pl_lockp_##name(m), &b->ctx.name)) {     \
            pl_box_put(b);                                                     \
            if (S)                                                             \
                pl_tls.st.trylock_busy++;                                      \
            return false;                                                      \
        }                                                                      \
        int32_t tid = pl_tid();                                                \
        pl_held(m, b, tid);                                                    \
        if (S)                                                                 \
            pl_count_acquired(m, tid);                                         \
        return true;                                                           \
    }                                                                          \
    static inline void pl_rel_##name##S(pl_mutex_t *m, pl_box_t *b)            \
    {                                                                          \
        /* read before the release: after it the mutex may be gone */         \
        uint32_t tw = clof_atomic32_read_rlx(&m->tw_waiters);                  \
        b->mutex = NULL;                                                       \
        clof_atomicptr_write_rlx(&m->box, (pl_box_t *)NULL);                   \
        clof_atomic32_write_rlx(&m->owner, 0);                                 \
        clof_##name##_release(pl_lockp_##name(m), &b->ctx.name);               \
        pl_box_put(b);                                                         \
        if (CLOF_UNLIKELY(tw != 0))                                            \
            pl_timed_wake(m);                                                  \
    }                                                                          \
    static int pl_timed_acq_##name##S(pl_mutex_t *m, clockid_t clk,           \
                                      const struct timespec *abs)              \
    {                                                                          \
        if (S)                                                                 \
            pl_tls.st.timed++;                                                 \
        pl_box_t *b = pl_box_get();                                            \
        clof_##name##_t *l = pl_lockp_##name(m);                               \
        if (!clof_##name##_tryacquire(l, &b->ctx.name)) {                      \
            if (!pl_ts_valid(abs)) {                                           \
                pl_box_put(b);                                                 \
                return EINVAL;                                                 \
            }                                                                  \
            clof_atomic32_inc(&m->tw_waiters);                                 \
            int r = pl_timed_wait(m, clk, abs, pl_tryfn_##name, l,             \
                                  &b->ctx.name);                               \
            clof_atomic32_dec(&m->tw_waiters);                                 \
            if (r != 0) {                                                      \
                pl_box_put(b);                                                 \
                if (S)                                                         \
                    pl_tls.st.timeouts++;                                      \
                return r;                                                      \
            }                                                                  \
            if (S)                                                             \
                pl_tls.st.contended++;                                         \
        }                                                                      \
        int32_t tid = pl_tid();                                                \
        pl_held(m, b, tid);                                                    \
        if (S)                                                                 \
            pl_count_acquired(m, tid);                                         \
        return 0;                                                              \
    }                                                                          \
    /* recursive, errorcheck, adaptive, glibc's */                            \
    static __attribute__((noinline)) int pl_lock_kind_##name##S(pl_mutex_t *m) \
    {                                                                          \
        uint32_t kind = clof_atomic32_read_rlx(&m->kind);                      \
        if (kind & PL_KIND_GLIBC)                                              \
            return pl_real.mutex_lock((pthread_mutex_t *)(void *)m);           \
        uint32_t type = kind & PL_KIND_TYPE_MASK;                              \
        if (type == PL_KIND_RECURSIVE || type == PL_KIND_ERRORCHECK) {         \
            if ((int32_t)clof_atomic32_read_rlx(&m->owner) == pl_tid()) {      \
                if (type == PL_KIND_ERRORCHECK)                                \
                    return EDEADLK;                                            \
                if (m->count == UINT32_MAX)                                    \
                    return EAGAIN;                                             \
                m->count++;                                                    \
                return 0;                                                      \
            }                                                                  \
            pl_acq_##name##S(m);                                               \
            m->count = 1;                                                      \
            return 0;                                                          \
        }                                                                      \
        pl_acq_##name##S(m);                                                   \
        return 0;                                                              \
    }                                                                          \
    static __attribute__((noinline)) int pl_lock_slow_##name##S(pl_mutex_t *m) \
    {                                                                          \
        if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))              \
            return pl_lock_kind_##name##S(m);                                  \
        pl_acq_##name##S(m);                                                   \
        return 0;                                                              \
    }                                                                          \
    /* The fast path: a normal mutex, the thread's cached box, the lock free. \
     * Anything else -- and every call when counting -- takes the slow path, \
     * which starts over.  No call but tail calls: no registers to save. */  \
    static int pl_lock_##name##S(pthread_mutex_t *pm)                          \
    {                                                                          \
        pl_mutex_t *m = (pl_mutex_t *)(void *)pm;                              \
        if (S)                                                                 \
            return pl_lock_slow_##name##S(m);                                  \
        pl_box_t *b = pl_tls.cache;                                            \
        int32_t tid = pl_tls.tid;                                              \
        clof_##name##_t *l = pl_lockp_fast_##name(m);                          \
        if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))              \
            return pl_lock_slow_##name##S(m);                                  \
        if (CLOF_UNLIKELY(b == NULL))                                          \
            return pl_lock_slow_##name##S(m);                                  \
        if (CLOF_UNLIKELY(tid == 0))                                           \
            return pl_lock_slow_##name##S(m);                                  \
        if (CLOF_UNLIKELY(l == NULL))                                          \
            return pl_lock_slow_##name##S(m);                                  \
        if (FASTACQ) {                                                         \
            pl_tls.cache = NULL;                                               \
            clof_##name##_acquire(l, &b->ctx.name);                            \
        } else {                                                               \
            if (CLOF_UNLIKELY(!clof_##name##_tryacquire(l, &b->ctx.name)))     \
                return pl_lock_slow_##name##S(m);                              \
            pl_tls.cache = NULL;                                               \
        }                                                                      \
        pl_held(m, b, tid);                                                    \
        return 0;                                                              \
    }                                                                          \
    static __attribute__((noinline)) int pl_trylock_kind_##name##S(           \
        pl_mutex_t *m)                                                         \
    {                                                                          \
        uint32_t kind = clof_atomic32_read_rlx(&m->kind);                      \
        if (kind & PL_KIND_GLIBC)                                              \
            return pl_real.mutex_trylock((pthread_mutex_t *)(void *)m);        \
        uint32_t type = kind & PL_KIND_TYPE_MASK;                              \
        if (type == PL_KIND_RECURSIVE || type == PL_KIND_ERRORCHECK) {         \
            if ((int32_t)clof_atomic32_read_rlx(&m->owner) == pl_tid()) {      \
                if (type == PL_KIND_ERRORCHECK)                                \
                    return EBUSY;                                              \
                if (m->count == UINT32_MAX)                                    \
                    return EAGAIN;                                             \
                m->count++;                                                    \
                return 0;                                                      \
            }                                                                  \
            if (!pl_try_##name##S(m))                                          \
                return EBUSY;                                                  \
            m->count = 1;                                                      \
            return 0;                                                          \
        }                                                                      \
        return pl_try_##name##S(m) ? 0 : EBUSY;                                \
    }                                                                          \
    static __attribute__((noinline)) int pl_trylock_slow_##name##S(pl_mutex_t *m) \
    {                                                                          \
        if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))              \
            return pl_trylock_kind_##name##S(m);                               \
        return pl_try_##name##S(m) ? 0 : EBUSY;                                \
    }                                                                          \
    static int pl_trylock_##name##S(pthread_mutex_t *pm)                       \
    {                                                                          \
        pl_mutex_t *m = (pl_mutex_t *)(void *)pm;                              \
        if (S)                                                                 \
            return pl_trylock_slow_##name##S(m);                               \
        pl_box_t *b = pl_tls.cache;                                            \
        int32_t tid = pl_tls.tid;                                              \
        clof_##name##_t *l = pl_lockp_fast_##name(m);                          \
        if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))              \
            return pl_trylock_slow_##name##S(m);                               \
        if (CLOF_UNLIKELY(b == NULL))                                          \
            return pl_trylock_slow_##name##S(m);                               \
        if (CLOF_UNLIKELY(tid == 0))                                           \
            return pl_trylock_slow_##name##S(m);                               \
        if (CLOF_UNLIKELY(l == NULL))                                          \
            return pl_trylock_slow_##name##S(m);                               \
        if (!clof_##name##_tryacquire(l, &b->ctx.name))                        \
            return EBUSY;                                                      \
        pl_tls.cache = NULL;                                                   \
        pl_held(m, b, tid);                                                    \
        return 0;                                                              \
    }                                                                          \
    static __attribute__((noinline)) int pl_unlock_kind_##name##S(            \
        pl_mutex_t *m)                                                         \
    {                                                                          \
        uint32_t kind = clof_atomic32_read_rlx(&m->kind);                      \
        if (kind & PL_KIND_GLIBC)                                              \
            return pl_real.mutex_unlock((pthread_mutex_t *)(void *)m);         \
        uint32_t type = kind & PL_KIND_TYPE_MASK;                              \
        if (type == PL_KIND_RECURSIVE || type == PL_KIND_ERRORCHECK) {         \
            if ((int32_t)clof_atomic32_read_rlx(&m->owner) != pl_tid())        \
                return EPERM;                                                  \
            if (type == PL_KIND_RECURSIVE && --m->count != 0)                  \
                return 0;                                                      \
        }                                                                      \
        pl_box_t *b = clof_atomicptr_read_rlx(&m->box);                        \
        if (CLOF_UNLIKELY(b == NULL))                                          \
            return EPERM;                                                      \
        pl_rel_##name##S(m, b);                                                \
        return 0;                                                              \
    }                                                                          \
    static __attribute__((noinline)) int pl_unlock_slow_##name##S(pl_mutex_t *m) \
    {                                                                          \
        if (CLOF_UNLIKELY(clof_atomic32_read_rlx(&m->kind) != 0))              \
            return pl_unlock_kind_##name##S(m);                                \
        pl_box_t *b = clof_atomicptr_read_rlx(&m->box);                        \
        if (CLOF_UNLIKELY(b == NULL))                                          \
            return EPERM; /* not locked */                                     \
        pl_rel_##name##S(m, b);                                                \
        return 0;                                                              \
    }                                                                          \
    /* The fast path: a normal mutex, no timed waiter, the cache empty; the \
     * box is cached before the release, which is the last thing done. */   \
    static int pl_unlock_##name##S(pthread_mutex_t *pm)                        \
    {                                                                          \
        pl_mutex_t *m = (pl_mutex_t *)(void *)pm;                              \
        if (S)                                                                 \
            return pl_unlock_slow_##name##S(m);                                \
        pl_box_t *b = clof_atomicptr_read_rlx(&m->box);                        \
        if (CLOF_UNLIKELY(pl_kind_tw(m) != 0))                                 \
            return pl_unlock_slow_##name##S(m);                                \
        if (CLOF_UNLIKELY(b == NULL))                                          \
            return pl_unlock_slow_##name##S(m);                                \
        if (CLOF_UNLIKELY(pl_tls.cache != NULL))                               \
            return pl_unlock_slow_##name##S(m);                                \
        clof_##name##_t *l = pl_lockp_fast_##name(m);                          \
        b->mutex = NULL;                                                       \
        clof_atomicptr_write_rlx(&m->box, (pl_box_t *)NULL);                   \
        pl_tls.cache = b;                                                      \
        clof_##name##_release(l, &b->ctx.name);                                \
        return 0;                                                              \
    }                                                                          \
    static int pl_timedlock_##name##S(pthread_mutex_t *pm, clockid_t clk,     \
                                      const struct timespec *abs, int api)     \
    {                                                                          \
        pl_mutex_t *m = (pl_mutex_t *)(void *)pm;                              \
        if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)                   \
            return EINVAL;                                                     \
        uint32_t kind = clof_atomic32_read_rlx(&m->kind);                      \
        if (kind & PL_KIND_GLIBC) {                                            \
            if (api == 0)                                                      \
                return pl_real.mutex_timedlock(pm, abs);                       \
            return pl_real.mutex_clocklock ? pl_real.mutex_clocklock(pm, clk, abs) \
                                           : EINVAL;                           \
        }                                                                      \
        uint32_t type = kind & PL_KIND_TYPE_MASK;                              \
        if (type == PL_KIND_RECURSIVE || type == PL_KIND_ERRORCHECK) {         \
            if ((int32_t)clof_atomic32_read_rlx(&m->owner) == pl_tid()) {      \
                if (type == PL_KIND_ERRORCHECK)                                \
                    return EDEADLK;                                            \
                if (m->count == UINT32_MAX)                                    \
                    return EAGAIN;                                             \
                m->count++;                                                    \
                return 0;                                                      \
            }                                                                  \
            int r = pl_timed_acq_##name##S(m, clk, abs);                       \
            if (r == 0)                                                        \
                m->count = 1;                                                  \
            return r;                                                          \
        }                                                                      \
        return pl_timed_acq_##name##S(m, clk, abs);                            \
    }                                                                          \
    static int pl_destroy_##name##S(pthread_mutex_t *pm)                       \
    {                                                                          \
        pl_mutex_t *m = (pl_mutex_t *)(void *)pm;                              \
        if (clof_atomic32_read_rlx(&m->kind) & PL_KIND_GLIBC)                  \
            return pl_real.mutex_destroy(pm);                                  \
        if (clof_atomicptr_read_rlx(&m->box) != NULL)                          \
            return EBUSY;                                                      \
        if (!PL_INPLACE(name)) {                                               \
            void *blk = clof_atomicptr_xchg(&m->lk.blk, (void *)NULL);         \
            if (blk != NULL)                                                   \
                pl_block_free(blk);                                            \
        } else {                                                               \
            DESTROY((clof_##name##_t *)(void *)&m->lk);                        \
        }                                                                      \
        return 0;                                                              \
    }                                                                          \
    static const pl_ops_t pl_ops_##name##S = {                                 \
        pl_lock_##name##S,     pl_trylock_##name##S, pl_unlock_##name##S,      \
        pl_timedlock_##name##S, pl_destroy_##name##S, pl_fork_reset_##name,    \
    };

PL_BASIC_LOCKS(PL_DEFINE_BASIC)
PL_NUMA_LOCKS(PL_DEFINE_NUMA)

const pl_lockdef_t pl_lockdefs[] = {
#define PL_LOCKDEF(name, NAME)                                                 \
    {#name, sizeof(clof_##name##_t), sizeof(clof_##name##_ctx_t),              \
     PL_INPLACE(name), false, &pl_ops_##name##0, &pl_ops_##name##1},
#define PL_LOCKDEF_N(id, str, destroy)                                         \
    {str, sizeof(clof_##id##_t), sizeof(clof_##id##_ctx_t), PL_INPLACE(id),    \
     true, &pl_ops_##id##0, &pl_ops_##id##1},
    PL_BASIC_LOCKS(PL_LOCKDEF)
    PL_NUMA_LOCKS(PL_LOCKDEF_N)
#undef PL_LOCKDEF
#undef PL_LOCKDEF_N
};
const size_t pl_nlockdefs = sizeof pl_lockdefs / sizeof pl_lockdefs[0];

/* ---- running on glibc's locks --------------------------------------------------- */
static int pl_g_lock(pthread_mutex_t *m) { return pl_real.mutex_lock(m); }
static int pl_g_trylock(pthread_mutex_t *m) { return pl_real.mutex_trylock(m); }
static int pl_g_unlock(pthread_mutex_t *m) { return pl_real.mutex_unlock(m); }
static int pl_g_destroy(pthread_mutex_t *m) { return pl_real.mutex_destroy(m); }
static int pl_g_timedlock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs, int api)
{
    if (api == 0)
        return pl_real.mutex_timedlock(m, abs);
    return pl_real.mutex_clocklock ? pl_real.mutex_clocklock(m, clk, abs) : EINVAL;
}
const pl_ops_t pl_ops_glibc = {
    pl_g_lock, pl_g_trylock, pl_g_unlock, pl_g_timedlock, pl_g_destroy, NULL,
};

/* ---- before start-up ----------------------------------------------------------------
 * The first call of any thread lands here, configures the library and goes
 * on with the selected ops.  The only way to find the library still
 * starting after pl_start() is a call made by the starting thread itself
 * from inside start-up (a function we call coming back into us); the
 * process is then in its first moments and the call is a no-op. */
static bool pl_boot(void)
{
    pl_start();
    return clof_atomic32_read_acq(&pl_state) == PL_STATE_READY;
}
static int pl_b_lock(pthread_mutex_t *m) { return pl_boot() ? pl_fn.lock(m) : 0; }
static int pl_b_trylock(pthread_mutex_t *m) { return pl_boot() ? pl_fn.trylock(m) : 0; }
static int pl_b_unlock(pthread_mutex_t *m) { return pl_boot() ? pl_fn.unlock(m) : 0; }
static int pl_b_destroy(pthread_mutex_t *m) { return pl_boot() ? pl_fn.destroy(m) : 0; }
static int pl_b_timedlock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs, int api)
{
    return pl_boot() ? pl_fn.timedlock(m, clk, abs, api) : 0;
}

pl_ops_t pl_fn = {
    pl_b_lock, pl_b_trylock, pl_b_unlock, pl_b_timedlock, pl_b_destroy, NULL,
};

/* ---- the exported functions ------------------------------------------------------------
 * Every symbol version glibc has, with glibc's default as default (see
 * preload.map): a program linked against any of them, and dlvsym() with an
 * explicit version, both find ours. */
PL_EXPORT int pl_mutex_lock(pthread_mutex_t *m)
{
    return pl_fn.lock(m);
}

PL_EXPORT int pl_mutex_unlock(pthread_mutex_t *m)
{
    return pl_fn.unlock(m);
}

PL_EXPORT int pl_mutex_destroy(pthread_mutex_t *m)
{
    return pl_fn.destroy(m);
}

PL_EXPORT int pl_mutex_init(pthread_mutex_t *pm, const pthread_mutexattr_t *a)
{
    pl_ensure_started();
    if (pl_glibc_mode)
        return pl_real.mutex_init(pm, a);
    int type = PTHREAD_MUTEX_NORMAL;
    if (a != NULL) {
        int v;
        if (pthread_mutexattr_getpshared(a, &v) == 0 && v == PTHREAD_PROCESS_SHARED)
            return pl_real.mutex_init(pm, a);
        if (pthread_mutexattr_getrobust(a, &v) == 0 && v == PTHREAD_MUTEX_ROBUST)
            return pl_real.mutex_init(pm, a);
        if (pthread_mutexattr_getprotocol(a, &v) == 0 && v != PTHREAD_PRIO_NONE)
            return pl_real.mutex_init(pm, a);
        if (pthread_mutexattr_gettype(a, &type) != 0)
            return EINVAL;
    }
    pl_mutex_t *m = (pl_mutex_t *)(void *)pm;
    memset(pm, 0, sizeof *pm);
    /* adaptive is glibc's spin-then-sleep normal mutex: ours is normal */
    uint32_t kind = type == PTHREAD_MUTEX_RECURSIVE    ? PL_KIND_RECURSIVE
                    : type == PTHREAD_MUTEX_ERRORCHECK ? PL_KIND_ERRORCHECK
                                                       : 0;
    clof_atomic32_write_rlx(&m->kind, kind);
    return 0;
}

PL_EXPORT int pl_mutex_trylock(pthread_mutex_t *m)
{
    return pl_fn.trylock(m);
}

PL_EXPORT int pl_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
    return pl_fn.timedlock(m, CLOCK_REALTIME, abs, 0);
}

PL_EXPORT int pl_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
    return pl_fn.timedlock(m, clk, abs, 1);
}

#if defined(__x86_64__)
/* aliases, one per symbol version */
#define PL_ALIAS(to, from) \
    extern __typeof__(from) to __attribute__((alias(#from), visibility("default")));
PL_ALIAS(pl_mutex_trylock_225, pl_mutex_trylock)
PL_ALIAS(pl_mutex_timedlock_225, pl_mutex_timedlock)
PL_ALIAS(pl_mutex_clocklock_230, pl_mutex_clocklock)
PL_ALIAS(pl_mutex_init_c, pl_mutex_init)
PL_ALIAS(pl_mutex_destroy_c, pl_mutex_destroy)
PL_ALIAS(pl_mutex_lock_c, pl_mutex_lock)
PL_ALIAS(pl_mutex_trylock_c, pl_mutex_trylock)
PL_ALIAS(pl_mutex_unlock_c, pl_mutex_unlock)
__asm__(".symver pl_mutex_lock, pthread_mutex_lock@@GLIBC_2.2.5\n"
        ".symver pl_mutex_unlock, pthread_mutex_unlock@@GLIBC_2.2.5\n"
        ".symver pl_mutex_init, pthread_mutex_init@@GLIBC_2.2.5\n"
        ".symver pl_mutex_destroy, pthread_mutex_destroy@@GLIBC_2.2.5\n"
        ".symver pl_mutex_trylock, pthread_mutex_trylock@@GLIBC_2.34\n"
        ".symver pl_mutex_trylock_225, pthread_mutex_trylock@GLIBC_2.2.5\n"
        ".symver pl_mutex_timedlock, pthread_mutex_timedlock@@GLIBC_2.34\n"
        ".symver pl_mutex_timedlock_225, pthread_mutex_timedlock@GLIBC_2.2.5\n"
        ".symver pl_mutex_clocklock, pthread_mutex_clocklock@@GLIBC_2.34\n"
        ".symver pl_mutex_clocklock_230, pthread_mutex_clocklock@GLIBC_2.30\n"
        /* glibc < 2.34 exported these too; old binaries may call them */
        ".symver pl_mutex_init_c, __pthread_mutex_init@GLIBC_2.2.5\n"
        ".symver pl_mutex_destroy_c, __pthread_mutex_destroy@GLIBC_2.2.5\n"
        ".symver pl_mutex_lock_c, __pthread_mutex_lock@GLIBC_2.2.5\n"
        ".symver pl_mutex_trylock_c, __pthread_mutex_trylock@GLIBC_2.2.5\n"
        ".symver pl_mutex_unlock_c, __pthread_mutex_unlock@GLIBC_2.2.5\n");
#else
/* other architectures: unversioned, interposing on every version */
#define PL_UNVERSIONED(to, from) \
    extern __typeof__(from) to __attribute__((alias(#from), visibility("default")));
PL_UNVERSIONED(pthread_mutex_lock, pl_mutex_lock)
PL_UNVERSIONED(pthread_mutex_unlock, pl_mutex_unlock)
PL_UNVERSIONED(pthread_mutex_init, pl_mutex_init)
PL_UNVERSIONED(pthread_mutex_destroy, pl_mutex_destroy)
PL_UNVERSIONED(pthread_mutex_trylock, pl_mutex_trylock)
PL_UNVERSIONED(pthread_mutex_timedlock, pl_mutex_timedlock)
PL_UNVERSIONED(pthread_mutex_clocklock, pl_mutex_clocklock)
#endif
