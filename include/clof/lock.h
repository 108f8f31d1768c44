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
/**
 * \file
 * The one lock interface, and the lock descriptor.
 *
 * Every clof lock NAME, basic or composed, has the type clof_NAME_t, the
 * per-acquisition context clof_NAME_ctx_t (valid when zero-filled), the
 * static initializer CLOF_NAME_INITIALIZER and the functions
 * clof_NAME_init, clof_NAME_acquire, clof_NAME_tryacquire,
 * clof_NAME_release and clof_NAME_has_waiters (clof_mcs_acquire is MCS's),
 * with the compile-time properties CLOF_NAME_FAIR, CLOF_NAME_NATIVE_HW,
 * CLOF_NAME_ZERO_INIT and CLOF_NAME_THREAD_OBLIVIOUS.  Release and
 * has_waiters are called by the owner only, with the context of its
 * acquisition; a context serves one acquisition at a time.  The comment at
 * the top of the header (see its source) has the whole contract.
 */
#ifndef CLOF_LOCK_H
#define CLOF_LOCK_H

#include <clof/await.h>

/** A lock's properties at run time, as CLOF_LOCK_DESC collects them. */
typedef struct {
    const char *name;      /**< the short name used on command lines */
    bool fair;             /**< FIFO admission (CLOF_NAME_FAIR) */
    bool native_has_waiters; /**< has_waiters exact from the lock state alone */
    bool zero_init;        /**< all-zero bytes are an unlocked lock */
    bool thread_oblivious; /**< release from another thread with the context */
    size_t lock_size;      /**< sizeof(clof_NAME_t) */
    size_t ctx_size;       /**< sizeof(clof_NAME_ctx_t) */
} clof_lock_desc_t;

/** The clof_lock_desc_t of the lock clof_name_t, whose constants are
 *  CLOF_NAME_* (a static initializer): CLOF_LOCK_DESC(mcs, MCS). */
#define CLOF_LOCK_DESC(name, NAME)                                             \
    {                                                                          \
        #name, CLOF_##NAME##_FAIR, CLOF_##NAME##_NATIVE_HW,                    \
            CLOF_##NAME##_ZERO_INIT, CLOF_##NAME##_THREAD_OBLIVIOUS,           \
            sizeof(clof_##name##_t), sizeof(clof_##name##_ctx_t)               \
    }

/** The context of a context-free lock (TAS, ticket...): one unused byte. */
typedef struct {
    char unused_;
} clof_noctx_t;

#ifndef CLOF_BE_LOCK_KEY
/** A lock's input to the hash of a process-wide table (lock/twa.h's
 *  waiting array, rw/bravo.h's readers table): its address.  A backend hook:
 *  the simulator keys by the address within its page, for runs that must
 *  not depend on where memory lands. */
#define CLOF_BE_LOCK_KEY(lock) ((const void *)(lock))
#endif

/* The ticket family (ticket.h, ptl.h, twa.h): a counter `next` of tickets
 * handed out and a counter `owner` of the ticket served. */
/* Someone waits when more than the holder's ticket is taken (relaxed: a
 * hint to the owner). */
static inline bool clof_tickets_waiting_(const clof_atomic32_t *next,
                                         const clof_atomic32_t *owner)
{
    uint32_t n = clof_atomic32_read_rlx(next);
    uint32_t o = clof_atomic32_read_rlx(owner);
    return n - o > 1;
}
/* Take the ticket now served if nobody holds it: the acquire read of owner
 * synchronizes with the previous release, and the relaxed compare-exchange
 * on next succeeds only when next == owner. */
static inline bool clof_tickets_try_(clof_atomic32_t *next,
                                     const clof_atomic32_t *owner)
{
    uint32_t o = clof_atomic32_read_acq(owner);
    return clof_atomic32_cmpxchg_rlx(next, o, o + 1) == o;
}
/* Spin-park release of a ticket lock: ticket o is taken (n: the next counter
 * read after the seq_cst store of owner = o): wake it, and nudge o+1 if that
 * is taken too (wait.h, clof_nudge). */
static inline void clof_tickets_wake_(clof_atomic32_t *owner, uint32_t o,
                                      uint32_t n)
{
    clof_atomic32_wake(owner, o);
    if (n - o > 1)
        clof_atomic32_nudge(owner, o + 1);
}

#endif /* CLOF_LOCK_H */
