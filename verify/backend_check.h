/* SPDX-License-Identifier: MIT */
/*
 * verify/backend_check.h -- the `check` backend of the atomics shim.
 *
 * Compile a lock with -DCLOF_BACKEND_HEADER='"backend_check.h"' (and
 * verify/ on the include path) and every shared access of the lock becomes a
 * scheduling point of vc, the model checker of verify/vc.c.
 *
 * Two waiting modes:
 *   default (await mode): defines CLOF_BE_HAS_AWAIT, so wait.h hands every
 *     wait to vc_await_change (block until the word may differ; the
 *     reference checkers' await handling).  Waking writes are release stores
 *     and clof_be_wake is a no-op: what is checked is the lock algorithm.
 *   VC_PARK_MODE: wait.h keeps its spin-park policy with one spin step and
 *     no yielding (a waiter re-reads the word once, then parks), and the futex calls are modelled (futex_wait sleeps only if the
 *     word still holds the value, and until a later futex_wake_all of that
 *     word).  What is checked is then the production code path: the lock,
 *     the parking table's handshake and each lock's wake-up gate; a lost
 *     wake-up is a hang.
 */
#ifndef CLOF_VERIFY_BACKEND_CHECK_H
#define CLOF_VERIFY_BACKEND_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vc.h"

#define CLOF_BACKEND_NAME "check"

#define CLOF_MO_RLX VC_RLX
#define CLOF_MO_ACQ VC_ACQ
#define CLOF_MO_REL VC_REL
#define CLOF_MO_AR VC_AR
#define CLOF_MO_SEQ VC_SEQ
/* publication accesses (atomic.h): marked, so that the mutation tools leave
 * their orders alone (vc does not model the plain memory they protect) */
#ifndef CLOF_MO_PUB
#define CLOF_MO_PUB(mo) ((mo) | VC_PUB)
#endif

typedef void *clof_vptr_t;

/* Every access function is inlined into its caller, so that the return
 * address vc_access sees names the access's own call site (the mutation
 * tool weakens call sites one at a time). */
#define VC_BE_INLINE_ static inline __attribute__((always_inline))

#define VC_BE_DEFINE_(sfx, T, TOU, FROMU)                                      \
    VC_BE_INLINE_ T clof_be_load_##sfx(const T *p, int mo)                     \
    {                                                                          \
        return FROMU(vc_access(VC_LOAD, (void *)(uintptr_t)p, sizeof(T), 0, 0, \
                               mo));                                           \
    }                                                                          \
    VC_BE_INLINE_ void clof_be_store_##sfx(T *p, T v, int mo)                  \
    {                                                                          \
        (void)vc_access(VC_STORE, (void *)p, sizeof(T), TOU(v), 0, mo);        \
    }                                                                          \
    VC_BE_INLINE_ T clof_be_xchg_##sfx(T *p, T v, int mo)                      \
    {                                                                          \
        return FROMU(vc_access(VC_XCHG, (void *)p, sizeof(T), TOU(v), 0, mo)); \
    }                                                                          \
    VC_BE_INLINE_ T clof_be_cmpxchg_##sfx(T *p, T e, T d, int mo)              \
    {                                                                          \
        return FROMU(                                                          \
            vc_access(VC_CAS, (void *)p, sizeof(T), TOU(d), TOU(e), mo));      \
    }

#define VC_TOU_INT_(x) ((uint64_t)(x))
#define VC_TOU_PTR_(x) ((uint64_t)(uintptr_t)(x))
#define VC_FROMU_U32_(x) ((uint32_t)(x))
#define VC_FROMU_U64_(x) ((uint64_t)(x))
#define VC_FROMU_PTR_(x) ((void *)(uintptr_t)(x))

VC_BE_DEFINE_(u32, uint32_t, VC_TOU_INT_, VC_FROMU_U32_)
VC_BE_DEFINE_(u64, uint64_t, VC_TOU_INT_, VC_FROMU_U64_)
VC_BE_DEFINE_(ptr, clof_vptr_t, VC_TOU_PTR_, VC_FROMU_PTR_)

#define VC_BE_RMW_(sfx, T)                                                     \
    VC_BE_INLINE_ T clof_be_fetch_add_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return (T)vc_access(VC_FADD, (void *)p, sizeof(T), v, 0, mo);          \
    }                                                                          \
    VC_BE_INLINE_ T clof_be_fetch_sub_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return (T)vc_access(VC_FSUB, (void *)p, sizeof(T), v, 0, mo);          \
    }                                                                          \
    VC_BE_INLINE_ T clof_be_fetch_and_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return (T)vc_access(VC_FAND, (void *)p, sizeof(T), v, 0, mo);          \
    }                                                                          \
    VC_BE_INLINE_ T clof_be_fetch_or_##sfx(T *p, T v, int mo)                  \
    {                                                                          \
        return (T)vc_access(VC_FOR, (void *)p, sizeof(T), v, 0, mo);           \
    }                                                                          \
    VC_BE_INLINE_ T clof_be_fetch_xor_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return (T)vc_access(VC_FXOR, (void *)p, sizeof(T), v, 0, mo);          \
    }
VC_BE_RMW_(u32, uint32_t)
VC_BE_RMW_(u64, uint64_t)

VC_BE_INLINE_ void clof_be_fence(int mo)
{
    (void)vc_access(VC_FENCE, NULL, 0, 0, 0, mo);
}

/* Waiting primitives.  pause/yield are never a scheduling point: every wait
 * of a clof lock goes through an await (or, in park mode, a futex). */
static inline void clof_be_pause(void)
{
}
static inline void clof_be_yield(void)
{
}

/* Backoff delays touch no shared memory: nothing to model. */
#define CLOF_BE_HAS_DELAY 1
static inline void clof_be_delay(uint32_t n)
{
    (void)n;
}

/* VC_CLOCK: a logical clock for the timed paths (deadlines).  Reading it is
 * a relaxed load of the shared word vc_clock (a scheduling point); a client
 * adds a ghost thread that advances it, so a deadline passes at any point
 * of an execution.  Without VC_CLOCK the backend has no clock (wait.h: the
 * deadline 0 has passed, every other deadline never passes). */
#if defined(VC_CLOCK)
#define CLOF_BE_HAS_CLOCK 1
static inline uint64_t clof_be_now_ns(void)
{
    return vc_access(VC_LOAD, &vc_clock, 8, 0, 0, VC_RLX);
}
static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns);
#endif

#if defined(VC_PARK_MODE)

/* one spin step (a pause, not a scheduling point), no yields: a waiter
 * re-reads the word once and parks (1, not 0: wait.h compares with them) */
#define CLOF_WAIT_SPINS 1u
#define CLOF_WAIT_YIELDS 0u
#define CLOF_WAIT_SPINS_MIN 1u
#define CLOF_WAIT_YIELDS_WOKEN 0u

static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
    (void)vc_access(VC_FUTEX_WAIT, (void *)addr, 4, val, 0, VC_SEQ);
}
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
    (void)vc_access(VC_FUTEX_WAKE, (void *)addr, 4, 0, 0, VC_SEQ);
}

#else /* await mode */

#define CLOF_BE_HAS_AWAIT 1
static inline void clof_be_await_change_u32(const uint32_t *p, uint32_t seen)
{
    vc_await_change(p, 4, seen);
}
static inline void clof_be_await_change_u64(const uint64_t *p, uint64_t seen)
{
    vc_await_change(p, 8, seen);
}
static inline void clof_be_await_change_ptr(void *const *p, void *seen)
{
    vc_await_change(p, (int)sizeof(void *), (uint64_t)(uintptr_t)seen);
}
static inline void clof_be_wake(const void *p)
{
    (void)p;
}
/* Not used in await mode; defined so that the contract is complete. */
static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
    vc_await_change(addr, 4, val);
}
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
    (void)addr;
}

#endif

#if defined(VC_CLOCK)
/* a timed sleep ends at a wake-up only (the deadline is re-checked after) */
static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns)
{
    (void)deadline_ns;
    clof_be_futex_wait(addr, val);
}
#endif

#endif /* CLOF_VERIFY_BACKEND_CHECK_H */
