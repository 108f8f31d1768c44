/* SPDX-License-Identifier: MIT */
/*
 * verify/genmc/vc_genmc.h -- vc's client interface (verify/vc.h) for GenMC,
 * so that the clients of clof-verify (verify/clients*.c) run unchanged
 * under GenMC.  Force-included before them (-include vc_genmc.h): it takes
 * vc.h's include guard, so their #include "vc.h" adds nothing.
 *
 *   vc_assert        GenMC's assert (a failed one is an error, exit 42)
 *   vc_cs_enter/exit mutual exclusion: a ghost count of the threads inside,
 *                    changed by relaxed read-modify-writes (they order
 *                    nothing, so they hide no bug of the lock); a second
 *                    thread inside fails an assert.  Inside, the plain
 *                    (non-atomic) counter genmc_plain is incremented: a lock
 *                    that does not order its critical sections is a data
 *                    race GenMC reports (the clients' own counter is
 *                    accessed through relaxed atomics, which race legally)
 *   vc_ghost_add/read  a client's ghost counters: relaxed atomics
 *   vc_plain_write/read  the plain counter, in RW sections (writers/readers)
 *   vc_name          nothing (names are for vc's traces)
 *   vc_access        the ghost clock thread's store (clients_timed.c)
 */
#ifndef CLOF_VERIFY_VC_GENMC_H
#define CLOF_VERIFY_VC_GENMC_H
#define VC_H 1 /* vc.h's guard: the clients' #include "vc.h" is this */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum vc_mo { VC_RLX = 0, VC_ACQ = 1, VC_REL = 2, VC_AR = 3, VC_SEQ = 4, VC_NOMO = 5 };
enum vc_kind { VC_LOAD, VC_STORE };

#define vc_assert(cond, msg) assert((cond) && (msg))

static uint32_t genmc_in_cs;  /* ghost: threads in a critical section */
static uint32_t genmc_plain;  /* plain counter of the critical sections */
static inline void vc_cs_enter(void)
{
    uint32_t in = __atomic_fetch_add(&genmc_in_cs, 1, __ATOMIC_RELAXED);
    assert(in == 0 && "two threads in the critical section");
    genmc_plain++;
}
static inline void vc_cs_exit(void)
{
    __atomic_fetch_sub(&genmc_in_cs, 1, __ATOMIC_RELAXED);
}
/* ghost counters (vc.h): relaxed atomics; a section's plain data: the
 * plain counter, incremented by writers, read by readers */
#define vc_ghost_add(p, d) ((void)__atomic_fetch_add((p), (d), __ATOMIC_RELAXED))
#define vc_ghost_read(p) __atomic_load_n((p), __ATOMIC_RELAXED)
static inline void vc_plain_write(void)
{
    genmc_plain++;
}
static inline void vc_plain_read(void)
{
    volatile uint32_t seen = genmc_plain; /* a plain read, kept */
    (void)seen;
}
/* GenMC's stdio has no snprintf; the clients format names for vc_name */
#define snprintf(buf, size, ...) ((void)(size), (buf)[0] = 0, 0)
#define vc_name(addr, size, name) ((void)(addr), (void)(size), (void)(name))

/* the ghost clock (backend_genmc.h: GENMC_CLOCK / VC_CLOCK) */
#define vc_clock genmc_clock
static inline uint64_t vc_access(int kind, void *addr, int size, uint64_t val,
                                 uint64_t exp, int mo)
{
    (void)size, (void)exp, (void)mo;
    if (kind == VC_STORE) {
        __atomic_store_n((uint64_t *)addr, val, __ATOMIC_RELAXED);
        return 0;
    }
    return __atomic_load_n((uint64_t *)addr, __ATOMIC_RELAXED);
}

#endif /* CLOF_VERIFY_VC_GENMC_H */
