/*
 * clof/atomic.h -- the atomics shim.  Every shared access of every clof lock
 * goes through this header; no lock uses __atomic builtins or <stdatomic.h>.
 *
 * Types
 *   clof_atomic32_t, clof_atomic64_t     32/64-bit unsigned integers
 *   CLOF_ATOMICPTR(T)                    a pointer to T (typed: reads return
 *                                        T *, writes accept only T *)
 *   CLOF_ATOMIC32_INIT(v), CLOF_ATOMIC64_INIT(v), CLOF_ATOMICPTR_INIT(p)
 *
 * Operations (W is 32 or 64; every name carries its memory order: _rlx
 * relaxed, _acq acquire, _rel release, no suffix = sequentially consistent)
 *   clof_atomicW_read[_acq|_rlx](a)               -> value
 *   clof_atomicW_write[_rel|_rlx](a, v)
 *   clof_atomicW_xchg[_acq|_rel|_rlx](a, v)       -> old value
 *   clof_atomicW_cmpxchg[_acq|_rel|_rlx](a, e, d) -> old value (== e: success)
 *   clof_atomicW_cas[_acq|_rel|_rlx](a, e, d) -> true on success
 *   clof_atomicW_get_{add,sub,and,or,xor}[...](a, v) -> old value
 *   clof_atomicW_get_{inc,dec}[...](a)            -> old value
 *   clof_atomicW_{add,sub,inc,dec}[...](a[, v])   (no result)
 *   clof_atomicptr_* : read, write, xchg, cmpxchg with the same suffixes
 *   clof_fence(), clof_fence_acq(), clof_fence_rel()
 *
 * Await helpers (return the value that satisfied the condition; the final
 * read has the order of the suffix).  They wait through the waiting policy
 * of wait.h -- spin, then yield, then futex park -- so every lock that
 * waits with them is safe with more threads than cpus:
 *   clof_atomicW_await_{eq,neq}[_acq|_rlx](a, v)
 *   clof_atomicptr_await_{eq,neq}[_acq|_rlx](a, p)
 * A store that an awaiting thread may be parked on must be made with a
 * waking write: clof_atomicW_write_wake(a, v), clof_atomicptr_write_wake(a, p),
 * or followed by clof_wake(a) (see wait.h).  Waking writes have at least
 * release order.
 *
 * The backend hook
 *   All of the above is written in terms of a small set of backend
 *   primitives: clof_be_{load,store,xchg,cmpxchg}_{u32,u64,ptr},
 *   clof_be_fetch_{add,sub,and,or,xor}_{u32,u64}, clof_be_fence, the memory
 *   order constants CLOF_MO_{RLX,ACQ,REL,AR,SEQ}, and the waiting primitives
 *   clof_be_pause, clof_be_yield, clof_be_futex_wait, clof_be_futex_wake_all.
 *   include/clof/backend/native.h defines them with C11 atomics and futexes.
 *   A build selects another backend by defining CLOF_BACKEND_HEADER to a
 *   header that defines the same names, e.g.
 *       -DCLOF_BACKEND_HEADER='"verify/backend_check.h"'
 *   (the model checker: every access becomes a scheduling point) or the
 *   simulator's (every access is charged a coherence cost in virtual time).
 *   A backend may also define CLOF_BE_HAS_AWAIT and its own
 *   clof_be_await_change_{u32,u64,ptr}(p, seen) to replace the whole waiting
 *   policy (a model checker blocks the thread until p changes).
 *   No lock source changes between backends.
 */
#ifndef CLOF_ATOMIC_H
#define CLOF_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#if defined(CLOF_BACKEND_HEADER)
#include CLOF_BACKEND_HEADER
#else
#include <clof/backend/native.h>
#endif

#ifdef __cplusplus
#define CLOF_TYPEOF_(x) __typeof__(x)
#else
#define CLOF_TYPEOF_(x) __typeof__(x)
#endif

#define CLOF_CACHELINE 64
#define CLOF_ALIGNED(n) __attribute__((aligned(n)))
#define CLOF_CACHE_ALIGNED CLOF_ALIGNED(CLOF_CACHELINE)
#define CLOF_LIKELY(x) __builtin_expect(!!(x), 1)
/* Lock fast paths are always inlined; slow paths (waiting, waking) never,
 * so a lock costs the same few instructions wherever it is used. */
#define CLOF_INLINE static inline __attribute__((always_inline, unused))
#define CLOF_SLOW static __attribute__((noinline, cold, unused))
#define CLOF_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct {
    uint32_t _v;
} CLOF_ALIGNED(4) clof_atomic32_t;

typedef struct {
    uint64_t _v;
} CLOF_ALIGNED(8) clof_atomic64_t;

#define CLOF_ATOMIC32_INIT(v) {(uint32_t)(v)}
#define CLOF_ATOMIC64_INIT(v) {(uint64_t)(v)}

/* A typed atomic pointer: CLOF_ATOMICPTR(struct node) next; */
#define CLOF_ATOMICPTR(T)                                                      \
    struct {                                                                   \
        T *_v;                                                                 \
    }
#define CLOF_ATOMICPTR_INIT(p) {p}

/* ---- 32/64-bit operations, generated once for both widths ---- */

#define CLOF_A_READ_(W, T, sfx, mo)                                            \
    static inline T clof_atomic##W##_read##sfx(const clof_atomic##W##_t *a)    \
    {                                                                          \
        return clof_be_load_u##W(&a->_v, mo);                                  \
    }
#define CLOF_A_WRITE_(W, T, sfx, mo)                                           \
    static inline void clof_atomic##W##_write##sfx(clof_atomic##W##_t *a, T v) \
    {                                                                          \
        clof_be_store_u##W(&a->_v, v, mo);                                     \
    }
#if defined(CLOF_BE_HAS_CAS)
#define CLOF_BE_CAS_(W, p, e, d, mo) clof_be_cas_u##W(p, e, d, mo)
#else
#define CLOF_BE_CAS_(W, p, e, d, mo) (clof_be_cmpxchg_u##W(p, e, d, mo) == (e))
#endif
#define CLOF_A_RMW_(W, T, sfx, mo)                                             \
    static inline T clof_atomic##W##_xchg##sfx(clof_atomic##W##_t *a, T v)     \
    {                                                                          \
        return clof_be_xchg_u##W(&a->_v, v, mo);                               \
    }                                                                          \
    static inline T clof_atomic##W##_cmpxchg##sfx(clof_atomic##W##_t *a, T e,  \
                                                  T d)                         \
    {                                                                          \
        return clof_be_cmpxchg_u##W(&a->_v, e, d, mo);                         \
    }                                                                          \
    /* compare-exchange that says only whether it succeeded (a backend may \
     * give it natively, CLOF_BE_HAS_CAS: no compare of the result) */      \
    static inline bool clof_atomic##W##_cas##sfx(clof_atomic##W##_t *a, T e,   \
                                                 T d)                          \
    {                                                                          \
        return CLOF_BE_CAS_(W, &a->_v, e, d, mo);                              \
    }                                                                          \
    static inline T clof_atomic##W##_get_add##sfx(clof_atomic##W##_t *a, T v)  \
    {                                                                          \
        return clof_be_fetch_add_u##W(&a->_v, v, mo);                          \
    }                                                                          \
    static inline T clof_atomic##W##_get_sub##sfx(clof_atomic##W##_t *a, T v)  \
    {                                                                          \
        return clof_be_fetch_sub_u##W(&a->_v, v, mo);                          \
    }                                                                          \
    static inline T clof_atomic##W##_get_and##sfx(clof_atomic##W##_t *a, T v)  \
    {                                                                          \
        return clof_be_fetch_and_u##W(&a->_v, v, mo);                          \
    }                                                                          \
    static inline T clof_atomic##W##_get_or##sfx(clof_atomic##W##_t *a, T v)   \
    {                                                                          \
        return clof_be_fetch_or_u##W(&a->_v, v, mo);                           \
    }                                                                          \
    static inline T clof_atomic##W##_get_xor##sfx(clof_atomic##W##_t *a, T v)  \
    {                                                                          \
        return clof_be_fetch_xor_u##W(&a->_v, v, mo);                          \
    }                                                                          \
    static inline T clof_atomic##W##_get_inc##sfx(clof_atomic##W##_t *a)       \
    {                                                                          \
        return clof_be_fetch_add_u##W(&a->_v, 1, mo);                          \
    }                                                                          \
    static inline T clof_atomic##W##_get_dec##sfx(clof_atomic##W##_t *a)       \
    {                                                                          \
        return clof_be_fetch_sub_u##W(&a->_v, 1, mo);                          \
    }                                                                          \
    static inline void clof_atomic##W##_add##sfx(clof_atomic##W##_t *a, T v)   \
    {                                                                          \
        (void)clof_be_fetch_add_u##W(&a->_v, v, mo);                           \
    }                                                                          \
    static inline void clof_atomic##W##_sub##sfx(clof_atomic##W##_t *a, T v)   \
    {                                                                          \
        (void)clof_be_fetch_sub_u##W(&a->_v, v, mo);                           \
    }                                                                          \
    static inline void clof_atomic##W##_inc##sfx(clof_atomic##W##_t *a)        \
    {                                                                          \
        (void)clof_be_fetch_add_u##W(&a->_v, 1, mo);                           \
    }                                                                          \
    static inline void clof_atomic##W##_dec##sfx(clof_atomic##W##_t *a)        \
    {                                                                          \
        (void)clof_be_fetch_sub_u##W(&a->_v, 1, mo);                           \
    }

#define CLOF_A_WIDTH_(W, T)                                                    \
    CLOF_A_READ_(W, T, , CLOF_MO_SEQ)                                          \
    CLOF_A_READ_(W, T, _acq, CLOF_MO_ACQ)                                      \
    CLOF_A_READ_(W, T, _rlx, CLOF_MO_RLX)                                      \
    CLOF_A_WRITE_(W, T, , CLOF_MO_SEQ)                                         \
    CLOF_A_WRITE_(W, T, _rel, CLOF_MO_REL)                                     \
    CLOF_A_WRITE_(W, T, _rlx, CLOF_MO_RLX)                                     \
    CLOF_A_RMW_(W, T, , CLOF_MO_SEQ)                                           \
    CLOF_A_RMW_(W, T, _acq, CLOF_MO_ACQ)                                       \
    CLOF_A_RMW_(W, T, _rel, CLOF_MO_REL)                                       \
    CLOF_A_RMW_(W, T, _rlx, CLOF_MO_RLX)

CLOF_A_WIDTH_(32, uint32_t)
CLOF_A_WIDTH_(64, uint64_t)

/* ---- typed pointer operations ----
 * The casts to and from void * live here, never at a call site.  Writes check
 * the argument's type against the pointer's (1 ? (v) : (a)->_v makes the
 * compiler diagnose incompatible pointer types). */
#define CLOF_APTR_CHECK_(a, v) (1 ? (v) : (a)->_v)
#define CLOF_APTR_RAW_(a) ((void **)(void *)&(a)->_v)

#define clof_atomicptr_read_mo_(a, mo)                                         \
    ((CLOF_TYPEOF_((a)->_v))clof_be_load_ptr(                                  \
        (void *const *)(const void *)&(a)->_v, mo))
#define clof_atomicptr_read(a) clof_atomicptr_read_mo_(a, CLOF_MO_SEQ)
#define clof_atomicptr_read_acq(a) clof_atomicptr_read_mo_(a, CLOF_MO_ACQ)
#define clof_atomicptr_read_rlx(a) clof_atomicptr_read_mo_(a, CLOF_MO_RLX)

#define clof_atomicptr_write_mo_(a, v, mo)                                     \
    clof_be_store_ptr(CLOF_APTR_RAW_(a), (void *)CLOF_APTR_CHECK_(a, v), mo)
#define clof_atomicptr_write(a, v) clof_atomicptr_write_mo_(a, v, CLOF_MO_SEQ)
#define clof_atomicptr_write_rel(a, v)                                         \
    clof_atomicptr_write_mo_(a, v, CLOF_MO_REL)
#define clof_atomicptr_write_rlx(a, v)                                         \
    clof_atomicptr_write_mo_(a, v, CLOF_MO_RLX)

#define clof_atomicptr_xchg_mo_(a, v, mo)                                      \
    ((CLOF_TYPEOF_((a)->_v))clof_be_xchg_ptr(                                  \
        CLOF_APTR_RAW_(a), (void *)CLOF_APTR_CHECK_(a, v), mo))
#define clof_atomicptr_xchg(a, v) clof_atomicptr_xchg_mo_(a, v, CLOF_MO_SEQ)
#define clof_atomicptr_xchg_acq(a, v) clof_atomicptr_xchg_mo_(a, v, CLOF_MO_ACQ)
#define clof_atomicptr_xchg_rel(a, v) clof_atomicptr_xchg_mo_(a, v, CLOF_MO_REL)
#define clof_atomicptr_xchg_rlx(a, v) clof_atomicptr_xchg_mo_(a, v, CLOF_MO_RLX)

#define clof_atomicptr_cmpxchg_mo_(a, e, d, mo)                                \
    ((CLOF_TYPEOF_((a)->_v))clof_be_cmpxchg_ptr(                               \
        CLOF_APTR_RAW_(a), (void *)CLOF_APTR_CHECK_(a, e),                     \
        (void *)CLOF_APTR_CHECK_(a, d), mo))
#define clof_atomicptr_cmpxchg(a, e, d)                                        \
    clof_atomicptr_cmpxchg_mo_(a, e, d, CLOF_MO_SEQ)
#define clof_atomicptr_cmpxchg_acq(a, e, d)                                    \
    clof_atomicptr_cmpxchg_mo_(a, e, d, CLOF_MO_ACQ)
#define clof_atomicptr_cmpxchg_rel(a, e, d)                                    \
    clof_atomicptr_cmpxchg_mo_(a, e, d, CLOF_MO_REL)
#define clof_atomicptr_cmpxchg_rlx(a, e, d)                                    \
    clof_atomicptr_cmpxchg_mo_(a, e, d, CLOF_MO_RLX)

/* ---- fences ---- */
static inline void clof_fence(void)
{
    clof_be_fence(CLOF_MO_SEQ);
}
static inline void clof_fence_acq(void)
{
    clof_be_fence(CLOF_MO_ACQ);
}
static inline void clof_fence_rel(void)
{
    clof_be_fence(CLOF_MO_REL);
}

/* ---- the waiting policy, then the await helpers built on it ---- */
#include <clof/wait.h>

/* await_eq parks keyed by the awaited value (woken only by a write of it);
 * await_neq parks until any change. */
#define CLOF_A_AWAIT_(W, T, cond, test, step, sfx, mo)                         \
    CLOF_SLOW T clof_atomic##W##_await_##cond##sfx##_slow_(                    \
        const clof_atomic##W##_t *a, T v, T x)                                 \
    {                                                                          \
        clof_wait_t w = CLOF_WAIT_INIT;                                        \
        do {                                                                   \
            step;                                                              \
            x = clof_be_load_u##W(&a->_v, mo);                                 \
        } while (!(x test v));                                                 \
        clof_wait_end(&w);                                                     \
        return x;                                                              \
    }                                                                          \
    CLOF_INLINE T clof_atomic##W##_await_##cond##sfx(                          \
        const clof_atomic##W##_t *a, T v)                                      \
    {                                                                          \
        T x = clof_be_load_u##W(&a->_v, mo);                                   \
        if (CLOF_LIKELY(x test v))                                             \
            return x;                                                          \
        return clof_atomic##W##_await_##cond##sfx##_slow_(a, v, x);            \
    }
#define CLOF_A_EQ_STEP_(W) clof_wait_for_u##W(&w, &a->_v, x, v)
#define CLOF_A_NEQ_STEP_(W) clof_wait_change_u##W(&w, &a->_v, x)
#define CLOF_A_AWAITS_(W, T)                                                   \
    CLOF_A_AWAIT_(W, T, eq, ==, CLOF_A_EQ_STEP_(W), , CLOF_MO_SEQ)             \
    CLOF_A_AWAIT_(W, T, eq, ==, CLOF_A_EQ_STEP_(W), _acq, CLOF_MO_ACQ)         \
    CLOF_A_AWAIT_(W, T, eq, ==, CLOF_A_EQ_STEP_(W), _rlx, CLOF_MO_RLX)         \
    CLOF_A_AWAIT_(W, T, neq, !=, CLOF_A_NEQ_STEP_(W), , CLOF_MO_SEQ)           \
    CLOF_A_AWAIT_(W, T, neq, !=, CLOF_A_NEQ_STEP_(W), _acq, CLOF_MO_ACQ)       \
    CLOF_A_AWAIT_(W, T, neq, !=, CLOF_A_NEQ_STEP_(W), _rlx, CLOF_MO_RLX)

CLOF_A_AWAITS_(32, uint32_t)
CLOF_A_AWAITS_(64, uint64_t)

CLOF_SLOW void *clof_atomicptr_await_eq_slow_(void *const *p, void *v, int mo,
                                              void *x)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    do {
        clof_wait_for_ptr(&w, p, x, v);
        x = clof_be_load_ptr(p, mo);
    } while (x != v);
    clof_wait_end(&w);
    return x;
}
CLOF_INLINE void *clof_atomicptr_await_eq_mo_(void *const *p, void *v, int mo)
{
    void *x = clof_be_load_ptr(p, mo);
    if (CLOF_LIKELY(x == v))
        return x;
    return clof_atomicptr_await_eq_slow_(p, v, mo, x);
}
CLOF_SLOW void *clof_atomicptr_await_neq_slow_(void *const *p, void *v, int mo,
                                               void *x)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    do {
        clof_wait_change_ptr(&w, p, x);
        x = clof_be_load_ptr(p, mo);
    } while (x == v);
    clof_wait_end(&w);
    return x;
}
CLOF_INLINE void *clof_atomicptr_await_neq_mo_(void *const *p, void *v, int mo)
{
    void *x = clof_be_load_ptr(p, mo);
    if (CLOF_LIKELY(x != v))
        return x;
    return clof_atomicptr_await_neq_slow_(p, v, mo, x);
}
#define clof_atomicptr_await_(cond, a, v, mo)                                  \
    ((CLOF_TYPEOF_((a)->_v))clof_atomicptr_await_##cond##_mo_(                 \
        (void *const *)(const void *)&(a)->_v,                                 \
        (void *)CLOF_APTR_CHECK_(a, v), mo))
#define clof_atomicptr_await_eq(a, v) clof_atomicptr_await_(eq, a, v, CLOF_MO_SEQ)
#define clof_atomicptr_await_eq_acq(a, v)                                      \
    clof_atomicptr_await_(eq, a, v, CLOF_MO_ACQ)
#define clof_atomicptr_await_eq_rlx(a, v)                                      \
    clof_atomicptr_await_(eq, a, v, CLOF_MO_RLX)
#define clof_atomicptr_await_neq(a, v)                                         \
    clof_atomicptr_await_(neq, a, v, CLOF_MO_SEQ)
#define clof_atomicptr_await_neq_acq(a, v)                                     \
    clof_atomicptr_await_(neq, a, v, CLOF_MO_ACQ)
#define clof_atomicptr_await_neq_rlx(a, v)                                     \
    clof_atomicptr_await_(neq, a, v, CLOF_MO_RLX)

/* One waiting step for loops that are not a plain await (TAS retrying its
 * exchange): returns when the word may no longer hold `seen`. */
static inline void clof_atomic32_wait(clof_wait_t *w, const clof_atomic32_t *a,
                                      uint32_t seen)
{
    clof_wait_change_u32(w, &a->_v, seen);
}

/* Timed waiting steps (abortable locks): false once the deadline
 * (wait.h, clof_now_ns clock; CLOF_DEADLINE_NONE = never) has passed. */
static inline bool clof_atomic32_wait_until(clof_wait_t *w,
                                            const clof_atomic32_t *a,
                                            uint32_t seen, uint64_t deadline)
{
    return clof_wait_change_until_u32(w, &a->_v, seen, deadline);
}
static inline bool clof_atomic64_wait_until(clof_wait_t *w,
                                            const clof_atomic64_t *a,
                                            uint64_t seen, uint64_t deadline)
{
    return clof_wait_change_until_u64(w, &a->_v, seen, deadline);
}

/* Waiting steps on a word that carries its own "someone may be asleep"
 * bit `flag` (wait.h, clof_wait_flag_u32): the TAS family. */
static inline void clof_atomic32_wait_flag(clof_wait_t *w, clof_atomic32_t *a,
                                           uint32_t seen, uint32_t flag)
{
    clof_wait_flag_u32(w, &a->_v, seen, flag);
}
static inline bool clof_atomic32_wait_flag_until(clof_wait_t *w,
                                                 clof_atomic32_t *a,
                                                 uint32_t seen, uint32_t flag,
                                                 uint64_t deadline)
{
    return clof_wait_flag_until_u32(w, &a->_v, seen, flag, deadline);
}

/* The same for a pointer (Hemlock-CTR polls with read-modify-writes). */
#define clof_atomicptr_wait(w, a, seen)                                        \
    clof_wait_change_ptr(w, (void *const *)(const void *)&(a)->_v,            \
                         (void *)CLOF_APTR_CHECK_(a, seen))

/* ---- waking writes: a store that a parked awaiter may be waiting for ---- */
static inline void clof_atomic32_write_wake(clof_atomic32_t *a, uint32_t v)
{
    clof_be_store_u32(&a->_v, v, CLOF_WAKE_STORE_MO);
    clof_wake_value(&a->_v, v);
}
static inline void clof_atomic64_write_wake(clof_atomic64_t *a, uint64_t v)
{
    clof_be_store_u64(&a->_v, v, CLOF_WAKE_STORE_MO);
    clof_wake_value(&a->_v, v);
}
#define clof_atomicptr_write_wake(a, v)                                        \
    do {                                                                       \
        void *v_ = (void *)CLOF_APTR_CHECK_(a, v);                             \
        clof_be_store_ptr(CLOF_APTR_RAW_(a), v_, CLOF_WAKE_STORE_MO);          \
        clof_wake_value(&(a)->_v, (uintptr_t)v_);                              \
    } while (0)

/* Waking writes with an explicit order, for locks whose orders are a
 * compile-time choice (numa/hmcs.h's barrier variants): _sc is seq_cst
 * always; _rlx is relaxed wherever no awaiter can be parked (the spin
 * policy, a backend's own awaits: the caller orders it with fences) and
 * the waking store's seq_cst under spin-park. */
#define CLOF_WAKE_STORE_MO_RLX_ (CLOF_WAIT_CAN_PARK ? CLOF_WAKE_STORE_MO : CLOF_MO_RLX)
static inline void clof_atomic64_write_wake_sc(clof_atomic64_t *a, uint64_t v)
{
    clof_be_store_u64(&a->_v, v, CLOF_MO_SEQ);
    clof_wake_value(&a->_v, v);
}
static inline void clof_atomic64_write_wake_rlx(clof_atomic64_t *a, uint64_t v)
{
    clof_be_store_u64(&a->_v, v, CLOF_WAKE_STORE_MO_RLX_);
    clof_wake_value(&a->_v, v);
}
#define clof_atomicptr_write_wake_mo_(a, v, mo)                                \
    do {                                                                       \
        void *v_ = (void *)CLOF_APTR_CHECK_(a, v);                             \
        clof_be_store_ptr(CLOF_APTR_RAW_(a), v_, mo);                          \
        clof_wake_value(&(a)->_v, (uintptr_t)v_);                              \
    } while (0)
#define clof_atomicptr_write_wake_sc(a, v)                                     \
    clof_atomicptr_write_wake_mo_(a, v, CLOF_MO_SEQ)
#define clof_atomicptr_write_wake_rlx(a, v)                                    \
    clof_atomicptr_write_wake_mo_(a, v, CLOF_WAKE_STORE_MO_RLX_)

/* Split waking writes, for locks that know from their own state whether
 * anyone can be waiting: store with the order waking needs (seq_cst under
 * spin-park), read the lock's own "someone may wait" state with seq_cst,
 * and wake only then. */
static inline void clof_atomic32_write_wakeable(clof_atomic32_t *a, uint32_t v)
{
    clof_be_store_u32(&a->_v, v, CLOF_WAKE_STORE_MO);
}
#define clof_atomic32_wake(a, v) clof_wake_value(&(a)->_v, (uint32_t)(v))
/* Wake after a seq_cst read-modify-write that a parked awaiter may be
 * waiting for (the RMW is at least as strong as the waking store). */
#define clof_atomic64_wake(a, v) clof_wake_value(&(a)->_v, (uint64_t)(v))

/* Nudge the threads parked until a holds v (wait.h, clof_nudge). */
#define clof_atomic32_nudge(a, v) clof_nudge(&(a)->_v, (uint32_t)(v))
#define clof_atomicptr_nudge(a, v)                                             \
    clof_nudge(&(a)->_v, (uintptr_t)(void *)CLOF_APTR_CHECK_(a, v))

#endif /* CLOF_ATOMIC_H */
