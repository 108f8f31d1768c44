/* SPDX-License-Identifier: MIT */
/*
 * clof/lock.h -- the one lock interface, and the lock descriptor.
 *
 * Every clof lock <name>, basic or composed, provides
 *
 *   clof_<name>_t                     the lock
 *   clof_<name>_ctx_t                 the per-acquisition context (queue node
 *                                     of MCS/CLH/Hemlock; a one-byte dummy for
 *                                     context-free locks).  Valid when
 *                                     zero-filled: no context-init call.
 *   CLOF_<NAME>_INITIALIZER           static initializer of an unlocked lock
 *   void clof_<name>_init(clof_<name>_t *)
 *   void clof_<name>_acquire(clof_<name>_t *, clof_<name>_ctx_t *)
 *   bool clof_<name>_tryacquire(clof_<name>_t *, clof_<name>_ctx_t *)
 *   void clof_<name>_release(clof_<name>_t *, clof_<name>_ctx_t *)
 *   bool clof_<name>_has_waiters(clof_<name>_t *, clof_<name>_ctx_t *)
 *
 * and, as compile-time constants (the generator of compose.h reads them):
 *
 *   CLOF_<NAME>_FAIR             FIFO admission
 *   CLOF_<NAME>_NATIVE_HW        has_waiters is exact from the lock state
 *                                alone (otherwise the composition counts
 *                                waiters itself; the basic lock's has_waiters
 *                                then answers conservatively)
 *   CLOF_<NAME>_ZERO_INIT        all-zero bytes are an unlocked lock
 *   CLOF_<NAME>_THREAD_OBLIVIOUS release may run on another thread than the
 *                                acquire, given the same context
 *
 * collected at run time in a clof_lock_desc_t by CLOF_LOCK_DESC(name, NAME).
 *
 * Rules every implementation keeps:
 *   - release and has_waiters are only called by the current owner, with the
 *     context the lock was acquired with (any thread may be the caller);
 *   - a context is used for one acquisition at a time; between acquisitions
 *     its contents are the lock's business (CLH moves nodes between contexts,
 *     see lock/clh.h);
 *   - every wait goes through wait.h; every store a waiter may sleep on is a
 *     waking write.
 */
#ifndef CLOF_LOCK_H
#define CLOF_LOCK_H

#include <clof/await.h>

typedef struct {
    const char *name;      /* the short name used on command lines */
    bool fair;             /* FIFO */
    bool native_has_waiters;
    bool zero_init;        /* all-zero bytes are an unlocked lock */
    bool thread_oblivious; /* release from another thread with the context */
    size_t lock_size;      /* sizeof(clof_<name>_t) */
    size_t ctx_size;       /* sizeof(clof_<name>_ctx_t) */
} clof_lock_desc_t;

#define CLOF_LOCK_DESC(name, NAME)                                             \
    {                                                                          \
        #name, CLOF_##NAME##_FAIR, CLOF_##NAME##_NATIVE_HW,                    \
            CLOF_##NAME##_ZERO_INIT, CLOF_##NAME##_THREAD_OBLIVIOUS,           \
            sizeof(clof_##name##_t), sizeof(clof_##name##_ctx_t)               \
    }

/* The context of a context-free lock. */
typedef struct {
    char unused_;
} clof_noctx_t;

#endif /* CLOF_LOCK_H */
