/* SPDX-License-Identifier: MIT */
/*
 * clof/backend/native.h -- the native backend of the atomics shim.
 *
 * The real thing: every primitive is the GCC/Clang __atomic builtin with the
 * C11 memory order it is asked for (the same code C11 <stdatomic.h> compiles
 * to, usable from C and C++ alike), and the waiting primitives are pause,
 * sched_yield and Linux futexes.
 *
 * This file is the whole contract a backend has to meet (see atomic.h, "The
 * backend hook").  Nothing in a lock calls it directly.
 */
#ifndef CLOF_BACKEND_NATIVE_H
#define CLOF_BACKEND_NATIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <limits.h>
#if !defined(__cplusplus)
/* <unistd.h> declares syscall only with _DEFAULT_SOURCE; strict -std=c11
 * users get this (compatible) declaration instead. */
extern long syscall(long number, ...);
#endif
#include <time.h>
#if !defined(CLOCK_MONOTONIC)
/* strict C11 hides the POSIX clocks; the Linux ABI values */
#define CLOCK_MONOTONIC 1
extern int clock_gettime(int clock_id, struct timespec *tp);
#endif
#endif

#define CLOF_BACKEND_NAME "native"

/* Memory orders, as the backend receives them. */
#define CLOF_MO_RLX __ATOMIC_RELAXED
#define CLOF_MO_ACQ __ATOMIC_ACQUIRE
#define CLOF_MO_REL __ATOMIC_RELEASE
#define CLOF_MO_AR  __ATOMIC_ACQ_REL
#define CLOF_MO_SEQ __ATOMIC_SEQ_CST

/* The failure order of a compare-exchange may not be release. */
#define CLOF_MO_FAIL_(mo)                                                      \
    ((mo) == CLOF_MO_REL ? CLOF_MO_RLX : (mo) == CLOF_MO_AR ? CLOF_MO_ACQ : (mo))

/* seq_cst stores on Armv8.  A seq_cst store followed by a seq_cst load of
 * another location is the store->load handshake that every parking wake-up
 * rests on (wait.h: the waker stores the word, then reads the bucket's
 * `waiters`; the waiter registers, then re-reads the word).  Compilers map
 * the store to STLR and the load to LDAR, which Armv8 orders (RCsc).
 * qemu-user (7.2, Debian 12, on this x86-64 host) does not order them:
 * tests/arm/sc_store_load.c sees the SB outcome r0 = r1 = 0, forbidden by
 * C11 and by Armv8, in about one round in ten with STLR (23329 of 200000 on
 * 2026-11-25), and none with an exchange.  That is what hung MCS-family
 * tests under qemu-aarch64: a waker read `waiters` = 0 while its store had
 * not yet reached the waiter, which then slept (a lost wake-up).  So by
 * default a seq_cst store on aarch64 is an exchange (SWPAL with LSE, an
 * LDAXR/STLXR loop with LL/SC), as x86-64 compilers map it to XCHG: ordered
 * on hardware and under qemu-user alike.  Define CLOF_AARCH64_SC_STORE_STLR
 * (CMake: -DCLOF_AARCH64_SC_STORE=stlr) for the compilers' STLR: correct on
 * Arm hardware, loses wake-ups under qemu-user. */
#if defined(__aarch64__) && !defined(CLOF_AARCH64_SC_STORE_STLR)
#define CLOF_BE_SC_STORE_XCHG_ 1
#define CLOF_BE_SC_STORE_NAME "swp"
#elif defined(__aarch64__)
#define CLOF_BE_SC_STORE_XCHG_ 0
#define CLOF_BE_SC_STORE_NAME "stlr"
#else
#define CLOF_BE_SC_STORE_XCHG_ 0
#define CLOF_BE_SC_STORE_NAME "compiler"
#endif

#define CLOF_BE_DEFINE_(sfx, T)                                                \
    static inline T clof_be_load_##sfx(const T *p, int mo)                     \
    {                                                                          \
        return __atomic_load_n(p, mo);                                         \
    }                                                                          \
    /* mo is a constant wherever this is inlined: no branch is left */        \
    static inline void clof_be_store_##sfx(T *p, T v, int mo)                  \
    {                                                                          \
        if (CLOF_BE_SC_STORE_XCHG_ && mo == CLOF_MO_SEQ)                       \
            (void)__atomic_exchange_n(p, v, CLOF_MO_SEQ);                      \
        else                                                                   \
            __atomic_store_n(p, v, mo);                                        \
    }                                                                          \
    static inline T clof_be_xchg_##sfx(T *p, T v, int mo)                      \
    {                                                                          \
        return __atomic_exchange_n(p, v, mo);                                  \
    }                                                                          \
    static inline T clof_be_cmpxchg_##sfx(T *p, T e, T d, int mo)              \
    {                                                                          \
        __atomic_compare_exchange_n(p, &e, d, 0, mo, CLOF_MO_FAIL_(mo));       \
        return e;                                                              \
    }                                                                          \
    /* the same, telling only whether it succeeded (the flag the            \
     * instruction sets: no compare of the result) */                        \
    static inline bool clof_be_cas_##sfx(T *p, T e, T d, int mo)               \
    {                                                                          \
        return __atomic_compare_exchange_n(p, &e, d, 0, mo, CLOF_MO_FAIL_(mo)); \
    }

#define CLOF_BE_HAS_CAS 1 /* clof_be_cas_* (optional; atomic.h falls back) */
CLOF_BE_DEFINE_(u32, uint32_t)
CLOF_BE_DEFINE_(u64, uint64_t)
typedef void *clof_vptr_t;
CLOF_BE_DEFINE_(ptr, clof_vptr_t)

#define CLOF_BE_DEFINE_RMW_(sfx, T)                                            \
    static inline T clof_be_fetch_add_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return __atomic_fetch_add(p, v, mo);                                   \
    }                                                                          \
    static inline T clof_be_fetch_sub_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return __atomic_fetch_sub(p, v, mo);                                   \
    }                                                                          \
    static inline T clof_be_fetch_and_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return __atomic_fetch_and(p, v, mo);                                   \
    }                                                                          \
    static inline T clof_be_fetch_or_##sfx(T *p, T v, int mo)                  \
    {                                                                          \
        return __atomic_fetch_or(p, v, mo);                                    \
    }                                                                          \
    static inline T clof_be_fetch_xor_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return __atomic_fetch_xor(p, v, mo);                                   \
    }

CLOF_BE_DEFINE_RMW_(u32, uint32_t)
CLOF_BE_DEFINE_RMW_(u64, uint64_t)

static inline void clof_be_fence(int mo)
{
    __atomic_thread_fence(mo);
}

/* ---- waiting primitives (used only by wait.h) ---- */

/* Armv8's busy-waiting (docs/arm.md, "Waiting on Arm"): define one of
 *   CLOF_ARM_SPIN_ISB    (default) a spin step is an ISB: it stalls until
 *                        the pipeline drains, tens of cycles, the nearest
 *                        thing to x86's PAUSE (Rust's spin_loop hint and
 *                        OpenJDK's SpinPause made the same choice);
 *   CLOF_ARM_SPIN_YIELD  YIELD, a hint for SMT cores that most Arm cores
 *                        execute as a NOP.
 * The CMake option CLOF_AARCH64_SPIN (isb, yield) sets one.  A spin step
 * on the awaited line with WFE (wait.h, CLOF_BE_HAS_SPIN_ON) is not here
 * yet: docs/arm.md says why. */
#if defined(__aarch64__)
#if !defined(CLOF_ARM_SPIN_ISB) && !defined(CLOF_ARM_SPIN_YIELD)
#define CLOF_ARM_SPIN_ISB 1
#endif
#if defined(CLOF_ARM_SPIN_YIELD)
#define CLOF_BE_PAUSE_NAME "yield"
#else
#define CLOF_BE_PAUSE_NAME "isb"
#endif
#elif defined(__x86_64__) || defined(__i386__)
#define CLOF_BE_PAUSE_NAME "pause"
#else
#define CLOF_BE_PAUSE_NAME "none"
#endif

/* One polite busy-wait step. */
static inline void clof_be_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) && defined(CLOF_ARM_SPIN_YIELD)
    __asm__ __volatile__("yield" ::: "memory");
#elif defined(__aarch64__)
    __asm__ __volatile__("isb" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}


/* Give the cpu to another runnable thread. */
static inline void clof_be_yield(void)
{
#if defined(__linux__)
    sched_yield();
#endif
}

/* Sleep while *addr == val (may return spuriously). */
static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
#if defined(__linux__)
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
#else
    (void)addr;
    (void)val;
    clof_be_yield();
#endif
}

/* For the waiting policy's "could every waiter have a cpu" test (wait.h,
 * clof_wait_cpus_idle_) and cr.h's active set (src/cr.c): the number of
 * cpus the process may run on (its affinity mask, else the cpus online,
 * read once per process; at least 1), and this thread's
 * involuntary context switches so far (a sched_yield that ran another
 * thread counts as one; one that came straight back does not). */
#define CLOF_BE_HAS_CPU_COUNT 1
__attribute__((weak, visibility("default"))) uint32_t clof_be_cpus_;
static inline uint32_t clof_be_cpus(void)
{
    uint32_t n = __atomic_load_n(&clof_be_cpus_, __ATOMIC_RELAXED);
    if (__builtin_expect(n == 0, 0)) {
#if defined(__linux__)
        unsigned long mask[16] = {0}; /* 1024 cpus */
        long r = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
        for (long i = 0; r > 0 && i < r / (long)sizeof mask[0]; i++)
            n += (uint32_t)__builtin_popcountl(mask[i]);
#endif
        if (n == 0) {
            long on = sysconf(_SC_NPROCESSORS_ONLN);
            n = on > 0 ? (uint32_t)on : 1u;
        }
        __atomic_store_n(&clof_be_cpus_, n, __ATOMIC_RELAXED);
    }
    return n;
}
static inline long clof_be_preempted(void)
{
#if defined(__linux__)
    struct rusage ru;
    if (syscall(SYS_getrusage, 1 /* RUSAGE_THREAD */, &ru) == 0)
        return ru.ru_nivcsw;
#endif
    return 0;
}

/* Deadlines (timed acquisition, wait.h): a monotonic clock in ns, and a
 * futex sleep that also ends at an absolute CLOCK_MONOTONIC deadline. */
#define CLOF_BE_HAS_CLOCK 1
static inline uint64_t clof_be_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns)
{
#if defined(__linux__)
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
    ts.tv_nsec = (long)(deadline_ns % 1000000000u);
    /* FUTEX_WAIT_BITSET takes an absolute timeout on CLOCK_MONOTONIC */
    syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, val, &ts, NULL,
            FUTEX_BITSET_MATCH_ANY);
#else
    (void)addr;
    (void)val;
    (void)deadline_ns;
    clof_be_yield();
#endif
}

/* Wake every thread sleeping in clof_be_futex_wait(addr, ...). */
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
#if defined(__linux__)
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    (void)addr;
#endif
}

#endif /* CLOF_BACKEND_NATIVE_H */
