/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_mutex.c -- the lock table and the exported pthread_mutex_*
 * functions.
 *
 * The operations of every lock are instantiated from pl_lock_tmpl.h in the
 * files pl_locks_*.c; the table here lists them by CLOF_LOCK name.  The
 * exported functions jump through pl_fn, which start-up fills with the
 * selected lock's operations (or with glibc's functions when running on
 * glibc).
 */
#include "pl_lock_tmpl.h"
#include "pl_profile.h"

/* The wait of a timed lock: poll `try` and sleep on the mutex's tw_seq
 * until acquired (0) or the deadline (ETIMEDOUT).  Registered in tw_waiters
 * by the caller. */
int pl_timed_wait(pl_mutex_t *m, clockid_t clk, const struct timespec *abs,
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


/* The table: CLOF_LOCK name, sizes, placement, needs the topology, counts
 * levels, ops (pl_table.h). */
#include "pl_table.h"

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

/* ---- CLOF_LOCK=glibc-adaptive: glibc's adaptive mutex behind every default one ---------
 * glibc's PTHREAD_MUTEX_ADAPTIVE_NP spins a while (bounded, adapting the
 * bound per mutex in __spins) before it sleeps, where the default mutex
 * sleeps at once.  A program gets it only by asking for it per mutex; here
 * every default mutex is made one before glibc's function sees it: its
 * kind, 0 (PTHREAD_MUTEX_TIMED_NP: normal, private, not robust, no
 * priority protocol, no elision), becomes PTHREAD_MUTEX_ADAPTIVE_NP.  Any
 * other kind (recursive, error-checking, robust, shared, PI or PP, already
 * adaptive) stays as it is.  The two kinds share glibc's lock-word
 * protocol and differ only in the spin before sleeping (nptl's
 * pthread_mutex_lock.c: ADAPTIVE_NP takes the normal path after its
 * spin), so a mutex that changes kind while it is held or waited for is
 * still one mutex; glibc reads the kind with relaxed atomic loads, and the
 * change is a compare-exchange from 0, so it happens once. */
void pl_glibc_adapt(pthread_mutex_t *m)
{
    int *k = &m->__data.__kind;
    int zero = PTHREAD_MUTEX_TIMED_NP;
    if (__atomic_load_n(k, __ATOMIC_RELAXED) == zero)
        __atomic_compare_exchange_n(k, &zero, PTHREAD_MUTEX_ADAPTIVE_NP, false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static int pl_ga_lock(pthread_mutex_t *m)
{
    pl_glibc_adapt(m);
    return pl_real.mutex_lock(m);
}
static int pl_ga_trylock(pthread_mutex_t *m)
{
    pl_glibc_adapt(m);
    return pl_real.mutex_trylock(m);
}
static int pl_ga_timedlock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs, int api)
{
    pl_glibc_adapt(m);
    return pl_g_timedlock(m, clk, abs, api);
}
const pl_ops_t pl_ops_glibc_adaptive = {
    pl_ga_lock, pl_ga_trylock, pl_g_unlock, pl_ga_timedlock, pl_g_destroy, NULL,
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
    if (CLOF_UNLIKELY(pl_prof_track))
        pl_prof_track_new(pm, 0); /* lock tracking (pl_profile.h): a new lock here */
    if (pl_glibc_mode) {
        int r = pl_real.mutex_init(pm, a);
        if (r == 0 && pl_glibc_adaptive)
            pl_glibc_adapt(pm);
        return r;
    }
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

#if defined(PL_GLIBC_BASE)
/* aliases, one per symbol version */
#define PL_ALIAS(to, from) \
    extern __typeof__(from) to __attribute__((alias(#from), visibility("default")));
PL_ALIAS(pl_mutex_trylock_base, pl_mutex_trylock)
PL_ALIAS(pl_mutex_timedlock_base, pl_mutex_timedlock)
PL_ALIAS(pl_mutex_clocklock_230, pl_mutex_clocklock)
PL_ALIAS(pl_mutex_init_c, pl_mutex_init)
PL_ALIAS(pl_mutex_destroy_c, pl_mutex_destroy)
PL_ALIAS(pl_mutex_lock_c, pl_mutex_lock)
PL_ALIAS(pl_mutex_trylock_c, pl_mutex_trylock)
PL_ALIAS(pl_mutex_unlock_c, pl_mutex_unlock)
__asm__(".symver pl_mutex_lock, pthread_mutex_lock@@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_unlock, pthread_mutex_unlock@@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_init, pthread_mutex_init@@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_destroy, pthread_mutex_destroy@@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_trylock, pthread_mutex_trylock@@GLIBC_2.34\n"
        ".symver pl_mutex_trylock_base, pthread_mutex_trylock@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_timedlock, pthread_mutex_timedlock@@GLIBC_2.34\n"
        ".symver pl_mutex_timedlock_base, pthread_mutex_timedlock@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_clocklock, pthread_mutex_clocklock@@GLIBC_2.34\n"
        ".symver pl_mutex_clocklock_230, pthread_mutex_clocklock@GLIBC_2.30\n"
        /* glibc < 2.34 exported these too; old binaries may call them */
        ".symver pl_mutex_init_c, __pthread_mutex_init@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_destroy_c, __pthread_mutex_destroy@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_lock_c, __pthread_mutex_lock@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_trylock_c, __pthread_mutex_trylock@" PL_GLIBC_BASE "\n"
        ".symver pl_mutex_unlock_c, __pthread_mutex_unlock@" PL_GLIBC_BASE "\n");
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
