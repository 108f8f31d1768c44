/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_rwlocks.h -- the reader-writer lock table of the benchmark
 * programs (clof-bench --lock <rw name> --read-percent P, clof-uncontended
 * --lock <rw name> --rw-op read|write), beside the mutex table of
 * bench_locks.h.
 *
 * Every RW lock gets one adapter with the same small interface, all static
 * inline (a loop instantiated for one lock has no indirect call in it):
 *
 *   bl_<id>_lock_t, bl_<id>_ctx_t, bl_<id>_str   as in bench_locks.h
 *   bl_<id>_init(lock*, pref)            pref: CLOF_RW_PREF_* (rw.h)
 *   bl_<id>_read_acquire(lock*, ctx*)    bl_<id>_read_release(lock*, ctx*)
 *   bl_<id>_write_acquire(lock*, ctx*)   bl_<id>_write_release(lock*, ctx*)
 *
 * BENCH_RW_LOCKS(X) lists them as X(id, ID): every lock of
 * include/clof/rw/list.h (CLOF_RW_LOCKS: a lock added there appears here,
 * under the same name as in the tests and CLOF_RWLOCK), then the peer
 *
 *   pthread-rwlock   glibc's pthread_rwlock_t (its kind from the
 *                    preference: reader -> PTHREAD_RWLOCK_PREFER_READER_NP,
 *                    glibc's default; writer and neutral ->
 *                    PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)
 *
 * which does not go through clof's atomics shim (not simulated).  A context
 * is per thread and reused for every acquisition (the RW interface allows
 * it: a context is needed from an acquisition to its release).
 */
#ifndef CLOF_BENCH_RWLOCKS_H
#define CLOF_BENCH_RWLOCKS_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <clof/rw/list.h>

#ifndef BENCH_ALIGNED
#define BENCH_ALIGNED __attribute__((aligned(128)))
#endif

/* ---- the clof RW locks: one generated adapter each ---------------------- */

#define BL_RW_ADAPTER_(id, name)                                               \
    typedef clof_##id##_t bl_##id##_lock_t;                                    \
    typedef clof_##id##_ctx_t bl_##id##_ctx_t;                                 \
    static const char bl_##id##_str[] = name;                                  \
    static inline void bl_##id##_init(bl_##id##_lock_t *l, uint32_t pref)      \
    {                                                                          \
        clof_##id##_init(l, pref);                                             \
    }                                                                          \
    static inline void bl_##id##_read_acquire(bl_##id##_lock_t *l,             \
                                              bl_##id##_ctx_t *c)              \
    {                                                                          \
        clof_##id##_read_acquire(l, c);                                        \
    }                                                                          \
    static inline void bl_##id##_read_release(bl_##id##_lock_t *l,             \
                                              bl_##id##_ctx_t *c)              \
    {                                                                          \
        clof_##id##_read_release(l, c);                                        \
    }                                                                          \
    static inline void bl_##id##_write_acquire(bl_##id##_lock_t *l,            \
                                               bl_##id##_ctx_t *c)             \
    {                                                                          \
        clof_##id##_write_acquire(l, c);                                       \
    }                                                                          \
    static inline void bl_##id##_write_release(bl_##id##_lock_t *l,            \
                                               bl_##id##_ctx_t *c)             \
    {                                                                          \
        clof_##id##_write_release(l, c);                                       \
    }
CLOF_RW_LOCKS(BL_RW_ADAPTER_)
#undef BL_RW_ADAPTER_

/* ---- pthread-rwlock: glibc's rwlock ------------------------------------ */

typedef struct {
    pthread_rwlock_t rw;
} BENCH_ALIGNED bl_pthread_rwlock_lock_t;
typedef struct {
    char unused_;
} bl_pthread_rwlock_ctx_t;
static const char bl_pthread_rwlock_str[] = "pthread-rwlock";
static inline void bl_pthread_rwlock_init(bl_pthread_rwlock_lock_t *l,
                                          uint32_t pref)
{
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(
        &a, pref == CLOF_RW_PREF_READER
                ? PTHREAD_RWLOCK_PREFER_READER_NP
                : PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&l->rw, &a);
    pthread_rwlockattr_destroy(&a);
}
static inline void bl_pthread_rwlock_read_acquire(bl_pthread_rwlock_lock_t *l,
                                                  bl_pthread_rwlock_ctx_t *c)
{
    (void)c;
    pthread_rwlock_rdlock(&l->rw);
}
static inline void bl_pthread_rwlock_read_release(bl_pthread_rwlock_lock_t *l,
                                                  bl_pthread_rwlock_ctx_t *c)
{
    (void)c;
    pthread_rwlock_unlock(&l->rw);
}
static inline void bl_pthread_rwlock_write_acquire(bl_pthread_rwlock_lock_t *l,
                                                   bl_pthread_rwlock_ctx_t *c)
{
    (void)c;
    pthread_rwlock_wrlock(&l->rw);
}
static inline void bl_pthread_rwlock_write_release(bl_pthread_rwlock_lock_t *l,
                                                   bl_pthread_rwlock_ctx_t *c)
{
    (void)c;
    pthread_rwlock_unlock(&l->rw);
}

/* ---- the list ------------------------------------------------------------ */

/* X(id, name) of the peers (not built on the atomics shim) */
#define BENCH_RW_PEER_LOCKS(X) X(pthread_rwlock, "pthread-rwlock")
#define BENCH_RW_LOCKS(X) CLOF_RW_LOCKS(X) BENCH_RW_PEER_LOCKS(X)

enum {
#define BENCH_X_(id, name) BENCH_RWLOCK_##id,
    BENCH_RW_LOCKS(BENCH_X_)
#undef BENCH_X_
    BENCH_NRWLOCKS
};

static const char *const bench_rwlock_names[BENCH_NRWLOCKS] = {
#define BENCH_X_(id, name) bl_##id##_str,
    BENCH_RW_LOCKS(BENCH_X_)
#undef BENCH_X_
};

typedef union {
#define BENCH_X_(id, name) bl_##id##_lock_t id;
    BENCH_RW_LOCKS(BENCH_X_)
#undef BENCH_X_
} BENCH_ALIGNED bench_rwlock_u;

typedef union {
#define BENCH_X_(id, name) bl_##id##_ctx_t id;
    BENCH_RW_LOCKS(BENCH_X_)
#undef BENCH_X_
} BENCH_ALIGNED bench_rwctx_u;

/* The index of an RW lock by name, or -1. */
static inline int bench_rwlock_find(const char *name)
{
    for (int i = 0; i < BENCH_NRWLOCKS; i++)
        if (strcmp(bench_rwlock_names[i], name) == 0)
            return i;
    return -1;
}

static inline void bench_rwlock_list(FILE *f, const char *sep)
{
    for (int i = 0; i < BENCH_NRWLOCKS; i++)
        fprintf(f, "%s%s", i ? sep : "", bench_rwlock_names[i]);
}

/* The preference names of --rw-pref, by CLOF_RW_PREF_* value. */
static const char *const bench_rw_pref_names[] = {"reader", "writer",
                                                  "neutral"};

static inline int bench_rw_pref_find(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(bench_rw_pref_names[i], name) == 0)
            return i;
    return -1;
}

#endif /* CLOF_BENCH_RWLOCKS_H */
