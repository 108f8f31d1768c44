/* SPDX-License-Identifier: MIT */
/*
 * verify/genmc/backend_genmc.h -- the `genmc` backend of the atomics shim.
 *
 * GenMC (MPI-SWS's stateless model checker, RC11 and IMM) interprets the
 * LLVM code of a whole C program.  Compile a client with
 *     -DCLOF_BACKEND_HEADER='"backend_genmc.h"'
 * and every shared access of a lock is the C11 atomic it asks for (the
 * __atomic builtins, as in the native backend), so GenMC checks the lock
 * sources unchanged.  This header answers, once for every client, what
 * GenMC's interpreter cannot run:
 *
 *   - the spin step's pause (x86 PAUSE is an intrinsic GenMC cannot
 *     execute): empty, so every await loop has no side effect and GenMC's
 *     spin-assume turns it into an assumption (a loop that can never end is
 *     a liveness violation under -check-liveness);
 *   - sched_yield: empty; backoff delays: empty (they touch no memory);
 *   - futex wait/wake (GENMC_PARK_MODE): wait.h keeps its spin-park policy
 *     (one spin step, no yields, then the parking table's Dekker handshake
 *     and a sleep on the bucket's `seq`); the sleep is an await on the
 *     futex word: the thread blocks until the word differs from the value
 *     it was given, which is what FUTEX_WAIT's "sleep only if *addr == val,
 *     until a wake" amounts to once every wake is preceded by a change of
 *     the word (wait.h bumps `seq` before each futex wake).  The word is read
 *     with seq_cst order: the kernel reads it after a full barrier (the
 *     futex hash bucket's lock), and GenMC's liveness check reports a
 *     sleeper only if the latest value in modification order keeps it
 *     asleep -- as the kernel compares with the current value.  The wake
 *     itself is then a no-op;
 *   - without GENMC_PARK_MODE (await mode, as the check backend's default):
 *     the backend replaces the waiting policy (CLOF_BE_HAS_AWAIT): a wait
 *     blocks until the word changes, and the locks run without their
 *     wake-up gates -- the papers' algorithms;
 *   - clock_gettime: with GENMC_CLOCK the clock is the shared word
 *     genmc_clock (read relaxed), which a client's ghost thread advances,
 *     so a deadline can pass at any point of an execution, and a timed
 *     await ends when the word changes or the deadline has passed;
 *     otherwise no clock (wait.h: deadline 0 has passed, no other deadline
 *     ever does);
 *   - the rseq cpu lookup (topology.h): its thread-pointer builtin is an
 *     intrinsic GenMC cannot run; clients give every thread a virtual cpu
 *     (topology_genmc.h), so the lookup is never reached, and the builtin
 *     and rseq globals are defined away here and in topology_genmc.h;
 *   - the topology (compiled code in src/): topology_genmc.h, generated
 *     from the library's own emulation (topo_gen.c).
 *
 * Mutant (GENMC_MUTANT_PARK_WAITERS_RLX): the wake-up side of the parking
 * handshake reads a bucket's `waiters` relaxed instead of seq_cst -- the
 * Dekker pair breaks and a wake-up can be lost (the park-mode tests expect
 * GenMC to report the hang).
 */
#ifndef CLOF_VERIFY_BACKEND_GENMC_H
#define CLOF_VERIFY_BACKEND_GENMC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <genmc.h>

#define CLOF_BACKEND_NAME "genmc"

#define CLOF_MO_RLX __ATOMIC_RELAXED
#define CLOF_MO_ACQ __ATOMIC_ACQUIRE
#define CLOF_MO_REL __ATOMIC_RELEASE
#define CLOF_MO_AR __ATOMIC_ACQ_REL
#define CLOF_MO_SEQ __ATOMIC_SEQ_CST

#define GENMC_BE_FAIL_(mo)                                                     \
    ((mo) == CLOF_MO_REL ? CLOF_MO_RLX : (mo) == CLOF_MO_AR ? CLOF_MO_ACQ : (mo))

#if defined(GENMC_MUTANT_PARK_WAITERS_RLX)
/* the client defines it (after wait.h): is p a parking bucket's `waiters`? */
static bool genmc_is_park_waiters(const void *p);
#define GENMC_LOAD_MO_(p, mo)                                                  \
    (genmc_is_park_waiters(p) ? CLOF_MO_RLX : (mo))
#else
#define GENMC_LOAD_MO_(p, mo) (mo)
#endif

/* GenMC wants the memory order as a constant: every access below is a
 * switch over the orders, folded away where the order is known. */
#define GENMC_BY_MO_(mo, OP)                                                   \
    switch (mo) {                                                              \
    case CLOF_MO_RLX: OP(__ATOMIC_RELAXED, __ATOMIC_RELAXED); break;           \
    case CLOF_MO_ACQ: OP(__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE); break;           \
    case CLOF_MO_REL: OP(__ATOMIC_RELEASE, __ATOMIC_RELAXED); break;           \
    case CLOF_MO_AR: OP(__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE); break;            \
    default: OP(__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); break;                    \
    }

#define GENMC_BE_DEFINE_(sfx, T)                                               \
    static inline __attribute__((always_inline)) T clof_be_load_##sfx(         \
        const T *p, int mo)                                                    \
    {                                                                          \
        T r;                                                                   \
        int m_ = GENMC_LOAD_MO_(p, mo);                                        \
        switch (m_) {                                                          \
        case CLOF_MO_RLX: r = __atomic_load_n(p, __ATOMIC_RELAXED); break;     \
        case CLOF_MO_ACQ: r = __atomic_load_n(p, __ATOMIC_ACQUIRE); break;     \
        default: r = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;              \
        }                                                                      \
        return r;                                                              \
    }                                                                          \
    static inline __attribute__((always_inline)) void clof_be_store_##sfx(     \
        T *p, T v, int mo)                                                     \
    {                                                                          \
        switch (mo) {                                                          \
        case CLOF_MO_RLX: __atomic_store_n(p, v, __ATOMIC_RELAXED); break;     \
        case CLOF_MO_REL: __atomic_store_n(p, v, __ATOMIC_RELEASE); break;     \
        default: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;              \
        }                                                                      \
    }                                                                          \
    static inline __attribute__((always_inline)) T clof_be_xchg_##sfx(         \
        T *p, T v, int mo)                                                     \
    {                                                                          \
        T r;                                                                   \
        (void)r;                                                               \
        GENMC_BY_MO_(mo, GENMC_XCHG_)                                          \
        return r;                                                              \
    }                                                                          \
    static inline __attribute__((always_inline)) T clof_be_cmpxchg_##sfx(      \
        T *p, T e, T d, int mo)                                                \
    {                                                                          \
        GENMC_BY_MO_(mo, GENMC_CAS_)                                           \
        return e;                                                              \
    }
#define GENMC_XCHG_(m, f) r = __atomic_exchange_n(p, v, m)
#define GENMC_CAS_(m, f) __atomic_compare_exchange_n(p, &e, d, 0, m, f)

GENMC_BE_DEFINE_(u32, uint32_t)
GENMC_BE_DEFINE_(u64, uint64_t)
typedef void *clof_vptr_t;
GENMC_BE_DEFINE_(ptr, clof_vptr_t)

#define GENMC_BE_RMW1_(name, sfx, T)                                           \
    static inline __attribute__((always_inline)) T clof_be_fetch_##name##_##sfx( \
        T *p, T v, int mo)                                                     \
    {                                                                          \
        T r;                                                                   \
        switch (mo) {                                                          \
        case CLOF_MO_RLX: r = __atomic_fetch_##name(p, v, __ATOMIC_RELAXED); break; \
        case CLOF_MO_ACQ: r = __atomic_fetch_##name(p, v, __ATOMIC_ACQUIRE); break; \
        case CLOF_MO_REL: r = __atomic_fetch_##name(p, v, __ATOMIC_RELEASE); break; \
        case CLOF_MO_AR: r = __atomic_fetch_##name(p, v, __ATOMIC_ACQ_REL); break;  \
        default: r = __atomic_fetch_##name(p, v, __ATOMIC_SEQ_CST); break;     \
        }                                                                      \
        return r;                                                              \
    }
#define GENMC_BE_RMW_(sfx, T)                                                  \
    GENMC_BE_RMW1_(add, sfx, T)                                                \
    GENMC_BE_RMW1_(sub, sfx, T)                                                \
    GENMC_BE_RMW1_(and, sfx, T)                                                \
    GENMC_BE_RMW1_(or, sfx, T)                                                 \
    GENMC_BE_RMW1_(xor, sfx, T)
GENMC_BE_RMW_(u32, uint32_t)
GENMC_BE_RMW_(u64, uint64_t)

static inline __attribute__((always_inline)) void clof_be_fence(int mo)
{
    switch (mo) {
    case CLOF_MO_ACQ: __atomic_thread_fence(__ATOMIC_ACQUIRE); break;
    case CLOF_MO_REL: __atomic_thread_fence(__ATOMIC_RELEASE); break;
    case CLOF_MO_AR: __atomic_thread_fence(__ATOMIC_ACQ_REL); break;
    default: __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
    }
}

/* ---- waiting ---- */
static inline void clof_be_pause(void)
{
}
static inline void clof_be_yield(void)
{
}
#define CLOF_BE_HAS_DELAY 1
static inline void clof_be_delay(uint32_t n)
{
    (void)n;
}

/* An await: block until the word at p differs from `seen`.  Written with
 * GenMC's own spin-loop annotations (genmc.h), so that an iteration that
 * finds the word unchanged blocks the thread rather than unrolling, and
 * -check-liveness reports an await that no write can ever end.  (The
 * clients run with GenMC's spin-assume, load-annotation and
 * loop-jump-threading passes off: on clof's loops their analysis stops at
 * a global's address, "Only integer and null constants currently allowed
 * in assume() expressions"; these annotations need none of them.)  The
 * read is relaxed: the lock re-reads the word with its own order. */
#define GENMC_AWAIT_(sfx, T, MO)                                               \
    static inline void genmc_await_change_##sfx(const T *p, T seen)            \
    {                                                                          \
        __VERIFIER_loop_begin();                                               \
        for (;;) {                                                             \
            __VERIFIER_spin_start();                                           \
            T v_ = __atomic_load_n(p, MO);                                     \
            bool changed_ = v_ != seen;                                        \
            __VERIFIER_spin_end(changed_);                                     \
            if (changed_)                                                      \
                break;                                                         \
        }                                                                      \
    }
GENMC_AWAIT_(u32, uint32_t, __ATOMIC_RELAXED)
GENMC_AWAIT_(u64, uint64_t, __ATOMIC_RELAXED)
GENMC_AWAIT_(ptr, clof_vptr_t, __ATOMIC_RELAXED)
/* the futex word is read with seq_cst order: the kernel reads it after a
 * full barrier (the futex hash bucket's lock) */
GENMC_AWAIT_(futex, uint32_t, __ATOMIC_SEQ_CST)

#if defined(GENMC_PARK_MODE)
/* one spin step, no yields: a waiter re-reads the word once, then parks */
#define CLOF_WAIT_SPINS 1u
#define CLOF_WAIT_YIELDS 0u
#define CLOF_WAIT_SPINS_MIN 1u
#define CLOF_WAIT_YIELDS_WOKEN 0u
/* few buckets: waiters of different words may share one (spurious
 * wake-ups are explored too) */
#ifndef CLOF_PARK_BUCKETS
#define CLOF_PARK_BUCKETS 4u
#endif
#define CLOF_WAIT_NO_HANDOFF_YIELD 1
/* no cpu count: the count of parked threads is a hint nobody reads */
#define CLOF_BE_NO_PARKED_COUNT 1
/* FUTEX_WAIT: sleep while the word holds val; every wake of wait.h
 * follows a change of the word (seq is bumped first), so the sleep ends
 * exactly when the word differs */
static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
    genmc_await_change_futex(addr, val);
}
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
    (void)addr;
}
#else /* await mode: the papers' algorithms (wait.h: no wake-up gates) */
#define CLOF_BE_HAS_AWAIT 1
static inline void clof_be_await_change_u32(const uint32_t *p, uint32_t seen)
{
    genmc_await_change_u32(p, seen);
}
static inline void clof_be_await_change_u64(const uint64_t *p, uint64_t seen)
{
    genmc_await_change_u64(p, seen);
}
static inline void clof_be_await_change_ptr(void *const *p, void *seen)
{
    genmc_await_change_ptr((clof_vptr_t const *)p, seen);
}
static inline void clof_be_wake(const void *p)
{
    (void)p;
}
/* not used in await mode; defined so that the contract is complete */
static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
    genmc_await_change_futex(addr, val);
}
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
    (void)addr;
}
#endif

#if defined(GENMC_CLOCK) || defined(VC_CLOCK)
#define CLOF_BE_HAS_CLOCK 1
/* the logical clock a client's ghost thread advances: each read of it may
 * see the tick or not, so GenMC explores a deadline passing at every check */
static uint64_t genmc_clock;
static inline uint64_t clof_be_now_ns(void)
{
    return __atomic_load_n(&genmc_clock, __ATOMIC_RELAXED);
}
#if !defined(GENMC_PARK_MODE)
/* A timed await: block until the word differs from `seen` or the deadline
 * has passed -- so a waiter may give up while nothing else changes (vc's
 * untimed awaits give up at the next change only). */
#define CLOF_BE_HAS_TIMED_AWAIT 1
#define GENMC_AWAIT_UNTIL_(sfx, T)                                             \
    static inline void clof_be_await_change_until_##sfx(const T *p, T seen,   \
                                                        uint64_t deadline)     \
    {                                                                          \
        __VERIFIER_loop_begin();                                               \
        for (;;) {                                                             \
            __VERIFIER_spin_start();                                           \
            T v_ = __atomic_load_n(p, __ATOMIC_RELAXED);                       \
            bool done_ = v_ != seen ||                                         \
                         (deadline != UINT64_MAX && clof_be_now_ns() >= deadline); \
            __VERIFIER_spin_end(done_);                                        \
            if (done_)                                                         \
                break;                                                         \
        }                                                                      \
    }
GENMC_AWAIT_UNTIL_(u32, uint32_t)
GENMC_AWAIT_UNTIL_(u64, uint64_t)
#endif
/* a timed sleep ends at a wake-up only (the deadline is re-checked after) */
static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns)
{
    (void)deadline_ns;
    clof_be_futex_wait(addr, val);
}
#endif

/* Memory.  GenMC cannot promote a memset whose operand it cannot type (a
 * lock tree's nodes) nor one of run-time length, and a byte-wise loop
 * would make mixed-size accesses (bytes written, words read: an error in
 * GenMC).  Under GenMC every memset of clof's code and clients zeroes
 * memory that is already zero: statics are zero at the start of every
 * explored execution and a client's setup runs once per execution, before
 * any write; every allocation of a lock (aligned_alloc: the trees of
 * compose.h and hmcs.h) comes from a static pool that is never reused
 * within an execution.  So memset(p, 0, n) is nothing here (a non-zero
 * fill fails an assert). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#ifndef GENMC_POOL_BYTES
#define GENMC_POOL_BYTES 16384
#endif
static unsigned char genmc_pool_[GENMC_POOL_BYTES] __attribute__((aligned(64)));
static size_t genmc_pool_used_;
/* threads allocate too (A-C-BO-CLH's queue nodes): the pool's end is taken
 * by a relaxed CAS (it orders nothing: the memory is zero from the start) */
static inline void *genmc_aligned_alloc(size_t align, size_t n)
{
    size_t old = __atomic_load_n(&genmc_pool_used_, __ATOMIC_RELAXED), at;
    do {
        at = (old + align - 1) / align * align;
        if (at + n > GENMC_POOL_BYTES)
            return NULL;
    } while (!__atomic_compare_exchange_n(&genmc_pool_used_, &old, at + n, 0,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return genmc_pool_ + at;
}
static inline void *genmc_memset(void *p, int c, size_t n)
{
    (void)n;
    assert(c == 0 && "verify/genmc: memset with a non-zero fill");
    return p;
}
#define aligned_alloc(a, n) genmc_aligned_alloc(a, n)
#define free(p) ((void)(p))
#define memset(p, c, n) genmc_memset(p, c, n)

/* the rseq lookup of topology.h is compiled but never reached (every
 * client thread has a virtual cpu); GenMC cannot run this intrinsic */
#define __builtin_thread_pointer() ((void *)0)

#endif /* CLOF_VERIFY_BACKEND_GENMC_H */
