/* SPDX-License-Identifier: MIT */
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
 *   clof_atomicptr_{read,write,cmpxchg}_pub  publication: see below
 *   clof_fence(), clof_fence_acq(), clof_fence_rel()
 *
 * Publication accesses
 *   clof_atomicptr_read_pub (acquire), clof_atomicptr_write_pub (release)
 *   and clof_atomicptr_cmpxchg_pub (seq_cst) read and install a pointer to memory that was initialised by
 *   plain stores (a lazily built lock tree).  Their order protects that
 *   plain memory, which the model checker does not model (it sees shim
 *   accesses only), so the checker can never show that a weaker order is
 *   wrong there.  A backend may mark them by defining CLOF_MO_PUB(mo)
 *   (verify/backend_check.h does: its mutation and --optimize tools never
 *   weaken them); elsewhere CLOF_MO_PUB(mo) is mo and they are exactly
 *   clof_atomicptr_read_acq, clof_atomicptr_write_rel and
 *   clof_atomicptr_cmpxchg.
 *
 * Waiting on an atomic (the await helpers, waking writes) is not here: it
 * sits one floor up, in await.h, over this header and wait.h.
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
    CLOF_A_RMW_GET_(W, T, sfx, mo)                                             \
    CLOF_A_RMW_VOID_(W, T, sfx, mo)
/* the read-modify-writes that return the previous value */
#define CLOF_A_RMW_GET_(W, T, sfx, mo)                                         \
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
    }
/* the read-modify-writes whose result is not wanted */
#define CLOF_A_RMW_VOID_(W, T, sfx, mo)                                        \
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
#ifndef CLOF_MO_PUB
#define CLOF_MO_PUB(mo) (mo)
#endif
#define clof_atomicptr_read_pub(a)                                             \
    clof_atomicptr_read_mo_(a, CLOF_MO_PUB(CLOF_MO_ACQ))

#define clof_atomicptr_write_mo_(a, v, mo)                                     \
    clof_be_store_ptr(CLOF_APTR_RAW_(a), (void *)CLOF_APTR_CHECK_(a, v), mo)
#define clof_atomicptr_write(a, v) clof_atomicptr_write_mo_(a, v, CLOF_MO_SEQ)
#define clof_atomicptr_write_rel(a, v)                                         \
    clof_atomicptr_write_mo_(a, v, CLOF_MO_REL)
#define clof_atomicptr_write_rlx(a, v)                                         \
    clof_atomicptr_write_mo_(a, v, CLOF_MO_RLX)
#define clof_atomicptr_write_pub(a, v)                                         \
    clof_atomicptr_write_mo_(a, v, CLOF_MO_PUB(CLOF_MO_REL))

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
#define clof_atomicptr_cmpxchg_pub(a, e, d)                                    \
    clof_atomicptr_cmpxchg_mo_(a, e, d, CLOF_MO_PUB(CLOF_MO_SEQ))

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

#endif /* CLOF_ATOMIC_H */
