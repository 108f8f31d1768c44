/* SPDX-License-Identifier: MIT */
/*
 * tests/compose/chaos_backend.h -- the native backend with random delays at
 * every shared access (a stress backend for the atomics shim).
 *
 * Build a test with -DCLOF_BACKEND_HEADER='"chaos_backend.h"': every load,
 * store, exchange, compare-exchange and read-modify-write of a lock first
 * runs chaos_point_(): with probability 1/CHAOS_ONE_IN (environment, default
 * 8) the thread yields the cpu, spins 0-1023 pauses, or (1 in 64 of those)
 * sleeps 0-255 us -- interleavings that a fast native run almost never
 * shows (a thread stopped between two steps of a protocol) become common.
 * The waiting primitives (pause, yield, futex) are native.  Used by
 * tests/compose/acohort_chaos.sh.
 */
#ifndef CLOF_TESTS_CHAOS_BACKEND_H
#define CLOF_TESTS_CHAOS_BACKEND_H

#define clof_be_load_u32 chaos_real_load_u32
#define clof_be_store_u32 chaos_real_store_u32
#define clof_be_xchg_u32 chaos_real_xchg_u32
#define clof_be_cmpxchg_u32 chaos_real_cmpxchg_u32
#define clof_be_cas_u32 chaos_real_cas_u32
#define clof_be_load_u64 chaos_real_load_u64
#define clof_be_store_u64 chaos_real_store_u64
#define clof_be_xchg_u64 chaos_real_xchg_u64
#define clof_be_cmpxchg_u64 chaos_real_cmpxchg_u64
#define clof_be_cas_u64 chaos_real_cas_u64
#define clof_be_load_ptr chaos_real_load_ptr
#define clof_be_store_ptr chaos_real_store_ptr
#define clof_be_xchg_ptr chaos_real_xchg_ptr
#define clof_be_cmpxchg_ptr chaos_real_cmpxchg_ptr
#define clof_be_cas_ptr chaos_real_cas_ptr
#define clof_be_fetch_add_u32 chaos_real_fetch_add_u32
#define clof_be_fetch_sub_u32 chaos_real_fetch_sub_u32
#define clof_be_fetch_and_u32 chaos_real_fetch_and_u32
#define clof_be_fetch_or_u32 chaos_real_fetch_or_u32
#define clof_be_fetch_xor_u32 chaos_real_fetch_xor_u32
#define clof_be_fetch_add_u64 chaos_real_fetch_add_u64
#define clof_be_fetch_sub_u64 chaos_real_fetch_sub_u64
#define clof_be_fetch_and_u64 chaos_real_fetch_and_u64
#define clof_be_fetch_or_u64 chaos_real_fetch_or_u64
#define clof_be_fetch_xor_u64 chaos_real_fetch_xor_u64
#include <clof/backend/native.h>
#undef clof_be_load_u32
#undef clof_be_store_u32
#undef clof_be_xchg_u32
#undef clof_be_cmpxchg_u32
#undef clof_be_cas_u32
#undef clof_be_load_u64
#undef clof_be_store_u64
#undef clof_be_xchg_u64
#undef clof_be_cmpxchg_u64
#undef clof_be_cas_u64
#undef clof_be_load_ptr
#undef clof_be_store_ptr
#undef clof_be_xchg_ptr
#undef clof_be_cmpxchg_ptr
#undef clof_be_cas_ptr
#undef clof_be_fetch_add_u32
#undef clof_be_fetch_sub_u32
#undef clof_be_fetch_and_u32
#undef clof_be_fetch_or_u32
#undef clof_be_fetch_xor_u32
#undef clof_be_fetch_add_u64
#undef clof_be_fetch_sub_u64
#undef clof_be_fetch_and_u64
#undef clof_be_fetch_or_u64
#undef clof_be_fetch_xor_u64

#undef CLOF_BACKEND_NAME
#define CLOF_BACKEND_NAME "chaos"

#include <stdlib.h>
#include <time.h>

static __thread uint64_t chaos_rng_;
static int chaos_one_in_;

static inline uint64_t chaos_next_(void)
{
    uint64_t x = chaos_rng_;
    if (x == 0) { /* seed: the thread's address and the time */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = (uint64_t)(uintptr_t)&chaos_rng_ ^ (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ull;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    chaos_rng_ = x;
    return x;
}

static inline void chaos_point_(void)
{
    int one_in = __atomic_load_n(&chaos_one_in_, __ATOMIC_RELAXED);
    if (one_in == 0) {
        const char *e = getenv("CHAOS_ONE_IN");
        one_in = e && atoi(e) > 0 ? atoi(e) : 8;
        __atomic_store_n(&chaos_one_in_, one_in, __ATOMIC_RELAXED);
    }
    uint64_t r = chaos_next_();
    if (r % (uint64_t)one_in != 0)
        return;
    r >>= 16;
    switch (r % 3) {
    case 0:
        sched_yield();
        break;
    case 1:
        for (uint64_t i = (r >> 8) % 1024; i > 0; i--)
            clof_be_pause();
        break;
    default:
        if ((r >> 8) % 64 == 0) {
            struct timespec d = {0, (long)((r >> 16) % 256) * 1000};
            (void)syscall(SYS_nanosleep, &d, (void *)NULL); /* strict C11 hides nanosleep */
        } else {
            sched_yield();
        }
    }
}

#define CHAOS_WRAP_(sfx, T)                                                    \
    static inline T clof_be_load_##sfx(const T *p, int mo)                     \
    {                                                                          \
        chaos_point_();                                                        \
        return chaos_real_load_##sfx(p, mo);                                   \
    }                                                                          \
    static inline void clof_be_store_##sfx(T *p, T v, int mo)                  \
    {                                                                          \
        chaos_point_();                                                        \
        chaos_real_store_##sfx(p, v, mo);                                      \
    }                                                                          \
    static inline T clof_be_xchg_##sfx(T *p, T v, int mo)                      \
    {                                                                          \
        chaos_point_();                                                        \
        return chaos_real_xchg_##sfx(p, v, mo);                                \
    }                                                                          \
    static inline T clof_be_cmpxchg_##sfx(T *p, T e, T d, int mo)              \
    {                                                                          \
        chaos_point_();                                                        \
        return chaos_real_cmpxchg_##sfx(p, e, d, mo);                          \
    }                                                                          \
    static inline bool clof_be_cas_##sfx(T *p, T e, T d, int mo)               \
    {                                                                          \
        chaos_point_();                                                        \
        return chaos_real_cas_##sfx(p, e, d, mo);                              \
    }
CHAOS_WRAP_(u32, uint32_t)
CHAOS_WRAP_(u64, uint64_t)
CHAOS_WRAP_(ptr, clof_vptr_t)

#define CHAOS_WRAP_RMW_(op, sfx, T)                                            \
    static inline T clof_be_##op##_##sfx(T *p, T v, int mo)                    \
    {                                                                          \
        chaos_point_();                                                        \
        return chaos_real_##op##_##sfx(p, v, mo);                              \
    }
CHAOS_WRAP_RMW_(fetch_add, u32, uint32_t)
CHAOS_WRAP_RMW_(fetch_sub, u32, uint32_t)
CHAOS_WRAP_RMW_(fetch_and, u32, uint32_t)
CHAOS_WRAP_RMW_(fetch_or, u32, uint32_t)
CHAOS_WRAP_RMW_(fetch_xor, u32, uint32_t)
CHAOS_WRAP_RMW_(fetch_add, u64, uint64_t)
CHAOS_WRAP_RMW_(fetch_sub, u64, uint64_t)
CHAOS_WRAP_RMW_(fetch_and, u64, uint64_t)
CHAOS_WRAP_RMW_(fetch_or, u64, uint64_t)
CHAOS_WRAP_RMW_(fetch_xor, u64, uint64_t)

#endif /* CLOF_TESTS_CHAOS_BACKEND_H */
