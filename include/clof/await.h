/* SPDX-License-Identifier: MIT */
/*
 * clof/await.h -- waiting on an atomic: the await helpers and waking writes.
 *
 * The floor above the atomics shim (atomic.h) and the waiting policy
 * (wait.h); locks include it through lock.h.  Nothing below includes it.
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
 */
#ifndef CLOF_AWAIT_H
#define CLOF_AWAIT_H

#include <clof/atomic.h>
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
/* The same, keyed: returns when the word may hold `want` (a park is woken by
 * a waking write of want, or of any value by clof_wake).  For a wait of two
 * phases that keeps one wait state (lock/twa.h). */
static inline void clof_atomic32_wait_for(clof_wait_t *w, const clof_atomic32_t *a,
                                          uint32_t seen, uint32_t want)
{
    clof_wait_for_u32(w, &a->_v, seen, want);
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

#endif /* CLOF_AWAIT_H */
