/* SPDX-License-Identifier: MIT */
/*
 * clof/preload.h -- introspection of libclof-preload.so (installed with the
 * other headers; the library itself is preloaded, never linked).
 *
 * A program run under LD_PRELOAD=libclof-preload.so can ask the library what
 * it is doing.  Look the functions up with dlsym(RTLD_DEFAULT, ...): they are
 * absent when the library is not loaded (that is how the conformance tests
 * make sure they really run over clof).
 */
/** \file
 * What a program run under libclof-preload.so can ask the library: the
 * lock in use, its memory, whether a mutex or rwlock is held through clof.
 * The functions are looked up with dlsym(RTLD_DEFAULT, NAME), by the
 * function-pointer types below. */
#ifndef CLOF_PRELOAD_H
#define CLOF_PRELOAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the library is doing (clof_preload_info). */
typedef struct clof_preload_info {
    const char *lock;        /**< the lock in use, or "glibc" (fallback or asked for) */
    int stats;               /**< CLOF_STATS=1 */
    int inplace;             /**< the lock lives inside pthread_mutex_t */
    size_t lock_size;        /**< sizeof the lock */
    size_t block_size;       /**< bytes per mutex when not in place, else 0 */
    size_t box_size;         /**< bytes per context (per thread x nesting depth) */
    uint64_t boxes;          /**< contexts ever allocated */
    uint64_t boxes_pooled;   /**< ... of which now in the global pool */
    uint64_t blocks;         /**< lock blocks ever allocated */
    uint64_t blocks_pooled;  /**< ... of which now free for reuse */
    uint64_t threads_seen;   /**< threads that used a clof mutex */
    uint64_t threads_live;   /**< ... still registered (not exited) */
    uint64_t forks;          /**< fork children this process descends from */
    int early_start;         /**< configured by a call that came before the
                                library's constructor ran */
    uint64_t cr_blocks;        /**< cr: locks in place: state blocks ever
                                  allocated (one per contended mutex) */
    uint64_t cr_blocks_pooled; /**< ... of which now free for reuse */
    uint64_t clh_nodes;        /**< CLH (also as a level or an inner lock):
                                  first nodes ever allocated (one per mutex
                                  in use, given back at destroy) */
    uint64_t clh_nodes_pooled; /**< ... of which now free for reuse */
    uint64_t trees;            /**< trees of the hierarchical locks (HMCS, cohort
                                  locks, compositions) ever built, each with
                                  its entry in the table of trees */
    uint64_t trees_retired;    /**< ... of which now retired, for reuse */
} clof_preload_info_t;

/** Fill *out (size = sizeof(clof_preload_info_t)); returns 0. */
int clof_preload_info(clof_preload_info_t *out, size_t size);

/** 1 if m is held through clof right now, 0 if not (free, or a mutex handed
 * to glibc: process-shared, robust, priority protocols, glibc mode). */
int clof_preload_mutex_held(const pthread_mutex_t *m);

/** The rwlock in use for pthread_rwlock_t (CLOF_RWLOCK, docs/rwlocks.md):
 * its name, or "glibc" (fallback or asked for).  Starts the rwlock part of
 * the library if no rwlock call has yet. */
const char *clof_preload_rwlock(void);
/** 1 if rw is held through clof right now (read or write), 0 if not. */
int clof_preload_rwlock_held(const pthread_rwlock_t *rw);

/** clof_preload_info, as dlsym returns it. */
typedef int (*clof_preload_info_fn)(clof_preload_info_t *, size_t);
/** clof_preload_rwlock, as dlsym returns it. */
typedef const char *(*clof_preload_rwlock_fn)(void);
/** clof_preload_rwlock_held, as dlsym returns it. */
typedef int (*clof_preload_rwlock_held_fn)(const pthread_rwlock_t *);
/** clof_preload_mutex_held, as dlsym returns it. */
typedef int (*clof_preload_mutex_held_fn)(const pthread_mutex_t *);

#ifdef __cplusplus
}
#endif

#endif /* CLOF_PRELOAD_H */
