/* SPDX-License-Identifier: MIT */
/*
 * sim/backend_sim.h -- the `sim` backend of the atomics shim (atomic.h, "The
 * backend hook"; DESIGN.md "three backends").
 *
 * Compile lock code with -DCLOF_BACKEND_HEADER='"backend_sim.h"' (sim/ on
 * the include path) and link sim/sim.c + fiber/fiber.c: every shared access
 * of every lock is then charged by the cache-coherence cost model of sim.c
 * in virtual time, on the simulated thread that makes it.  No lock source
 * changes.
 *
 * Each primitive first calls sim_access (which may switch to a simulated
 * thread with a smaller clock, then charges the access), then does the
 * operation on the program's own memory.  All simulated threads are fibers
 * of one OS thread and switch only inside sim_*(), so the operation itself
 * is atomic with respect to them; the __atomic builtins are used (relaxed)
 * only so that the compiler does not reorder or cache the accesses across
 * the switches.  The simulation is sequentially consistent: memory orders
 * cost nothing extra except seq_cst fences (`cost fence`) and RMWs
 * (`cost rmw`).  Outside a simulated thread (lock init, result checks) the
 * accesses are plain and free.
 *
 * Waiting: CLOF_BE_HAS_AWAIT hands every wait of wait.h to sim_await
 * (sleep until another cpu writes the line), so a spinning waiter costs the
 * misses a real spin would take, and nothing more; when threads share cpus
 * it models wait.h's spin budget, yields and futex parks (sim.c).  Backoff
 * delays (clof_wait_delay) and pauses advance the clock; a yield costs a
 * pause.  clof_be_now_ns is virtual time (deadlines of timed acquisition).
 */
#ifndef CLOF_SIM_BACKEND_SIM_H
#define CLOF_SIM_BACKEND_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

#define CLOF_BACKEND_NAME "sim"

#define CLOF_MO_RLX __ATOMIC_RELAXED
#define CLOF_MO_ACQ __ATOMIC_ACQUIRE
#define CLOF_MO_REL __ATOMIC_RELEASE
#define CLOF_MO_AR __ATOMIC_ACQ_REL
#define CLOF_MO_SEQ __ATOMIC_SEQ_CST

typedef void *clof_vptr_t;

#define SIM_BE_DEFINE_(sfx, T)                                                 \
    static inline T clof_be_load_##sfx(const T *p, int mo)                     \
    {                                                                          \
        (void)mo;                                                              \
        sim_access(p, SIM_READ);                                               \
        return __atomic_load_n(p, __ATOMIC_RELAXED);                           \
    }                                                                          \
    static inline void clof_be_store_##sfx(T *p, T v, int mo)                  \
    {                                                                          \
        sim_access(p, mo == CLOF_MO_SEQ ? SIM_WRITE_SC : SIM_WRITE);           \
        __atomic_store_n(p, v, __ATOMIC_RELAXED);                              \
        sim_written();                                                         \
    }                                                                          \
    static inline T clof_be_xchg_##sfx(T *p, T v, int mo)                      \
    {                                                                          \
        (void)mo;                                                              \
        sim_access(p, SIM_RMW);                                                \
        T old = __atomic_exchange_n(p, v, __ATOMIC_RELAXED);                   \
        sim_written();                                                         \
        return old;                                                            \
    }                                                                          \
    static inline T clof_be_cmpxchg_##sfx(T *p, T e, T d, int mo)              \
    {                                                                          \
        (void)mo;                                                              \
        sim_access(p, SIM_RMW); /* the line is taken exclusive either way */   \
        __atomic_compare_exchange_n(p, &e, d, 0, __ATOMIC_RELAXED,             \
                                    __ATOMIC_RELAXED);                         \
        sim_written();                                                         \
        return e;                                                              \
    }

SIM_BE_DEFINE_(u32, uint32_t)
SIM_BE_DEFINE_(u64, uint64_t)
SIM_BE_DEFINE_(ptr, clof_vptr_t)

#define SIM_BE_RMW_(sfx, T, op)                                                \
    static inline T clof_be_fetch_##op##_##sfx(T *p, T v, int mo)              \
    {                                                                          \
        (void)mo;                                                              \
        sim_access(p, SIM_RMW);                                                \
        T old = __atomic_fetch_##op(p, v, __ATOMIC_RELAXED);                   \
        sim_written();                                                         \
        return old;                                                            \
    }
#define SIM_BE_RMWS_(sfx, T)                                                   \
    SIM_BE_RMW_(sfx, T, add)                                                   \
    SIM_BE_RMW_(sfx, T, sub)                                                   \
    SIM_BE_RMW_(sfx, T, and)                                                   \
    SIM_BE_RMW_(sfx, T, or)                                                    \
    SIM_BE_RMW_(sfx, T, xor)
SIM_BE_RMWS_(u32, uint32_t)
SIM_BE_RMWS_(u64, uint64_t)

static inline void clof_be_fence(int mo)
{
    if (mo == CLOF_MO_SEQ)
        sim_fence();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* ---- waiting ---- */

static inline void clof_be_pause(void)
{
    sim_pause(1);
}
static inline void clof_be_yield(void)
{
    sim_pause(1);
}

#define CLOF_BE_HAS_DELAY 1
static inline void clof_be_delay(uint32_t n)
{
    sim_pause(n);
}

#define CLOF_BE_HAS_CLOCK 1
static inline uint64_t clof_be_now_ns(void)
{
    return (uint64_t)sim_now_ns();
}

/* The slot hashes of the process-wide tables (rw/bravo.h's readers,
 * lock/twa.h's waiting array, lock.h's CLOF_BE_LOCK_KEY): keys that do not
 * depend on addresses,
 * which address space randomization moves from one process to the next
 * (the same seed gave 9.2 to 17.3 Mops/s for bravo:rw:mcs, 2026-11-26):
 * the reader is the simulated thread, salted with the run's seed (each
 * seed draws its own slots, as it draws its own timing), the lock its
 * address within its page (randomization moves whole pages). */
#define CLOF_BE_BRAVO_WHO_KEY(who) ((void)(who), (const void *)(uintptr_t)sim_thread_key())
#define CLOF_BE_LOCK_KEY(lock) ((const void *)((uintptr_t)(lock) & 0xfffu))

/* cr.h (concurrency restriction): the active set is sized by the cpus of
 * the run (the simulated process's cpu set), as natively by the affinity. */
#define CLOF_CR_CPUS() sim_ncpus()
/* ... and shrinks it when an active waiter parked (the modelled parks) */
#define CLOF_BE_WAIT_PARKS() sim_parks()

/* Awaits: the simulator sleeps on the line (a spin costs its misses); on
 * time-shared cpus it follows the waiting policy of wait.h with wait.h's
 * own parameters -- macros, so that they expand inside wait.h, where
 * CLOF_WAIT_SPINS and the others are defined (CLOF_WAIT_SPIN: spin only). */
#if defined(CLOF_WAIT_SPIN)
#define SIM_BE_SPIN_ONLY_ true
#else
#define SIM_BE_SPIN_ONLY_ false
#endif
#define SIM_BE_WAIT_PARAMS_                                                    \
    (&(const sim_wait_params_t){CLOF_WAIT_SPINS, CLOF_WAIT_SPINS_MIN,          \
                                CLOF_WAIT_YIELDS, CLOF_WAIT_YIELDS_WOKEN,      \
                                SIM_BE_SPIN_ONLY_})
#define CLOF_BE_HAS_AWAIT 1
#define clof_be_await_change_u32(p, seen)                                      \
    sim_await((p), 4, (uint64_t)(seen), SIM_BE_WAIT_PARAMS_)
#define clof_be_await_change_u64(p, seen)                                      \
    sim_await((p), 8, (uint64_t)(seen), SIM_BE_WAIT_PARAMS_)
#define clof_be_await_change_ptr(p, seen)                                      \
    sim_await((p), (int)sizeof(void *), (uint64_t)(uintptr_t)(seen),          \
              SIM_BE_WAIT_PARAMS_)
/* await_eq: the value is the key of a park (wait.h parks keyed by it, and a
 * write wakes only the waiters of the value it writes) */
#define CLOF_BE_HAS_AWAIT_FOR 1
#define clof_be_await_for_u32(p, seen, want)                                   \
    sim_await_for((p), 4, (uint64_t)(seen), (uint64_t)(want),                 \
                  SIM_BE_WAIT_PARAMS_)
#define clof_be_await_for_u64(p, seen, want)                                   \
    sim_await_for((p), 8, (uint64_t)(seen), (uint64_t)(want),                 \
                  SIM_BE_WAIT_PARAMS_)
#define clof_be_await_for_ptr(p, seen, want)                                   \
    sim_await_for((p), (int)sizeof(void *), (uint64_t)(uintptr_t)(seen),      \
                  (uint64_t)(uintptr_t)(want), SIM_BE_WAIT_PARAMS_)
static inline void clof_be_wake(const void *p)
{
    (void)p; /* a write wakes the sleepers of its line by itself */
}
/* Not used with CLOF_BE_HAS_AWAIT; complete the contract. */
static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
    sim_await_change(addr, 4, val);
}
static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns)
{
    (void)deadline_ns;
    sim_await_change(addr, 4, val);
}
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
    (void)addr;
}

#endif /* CLOF_SIM_BACKEND_SIM_H */
