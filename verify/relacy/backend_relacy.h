/* SPDX-License-Identifier: MIT */
/*
 * verify/relacy/backend_relacy.h -- the `relacy` backend of the atomics shim.
 *
 * Compile a lock as C++ with -DCLOF_BACKEND_HEADER='"backend_relacy.h"' (and
 * verify/relacy/ on the include path) and every shared access of the lock
 * becomes an access of a Relacy atomic (Relacy Race Detector, Dmitry Vyukov;
 * Debian relacy-dev, /usr/include/relacy): an independent checker of the
 * C11 memory model, used to cross-check vc (verify/vc.c).  No lock source
 * changes: the same include/clof headers compile here as under the native
 * and `check` backends.
 *
 * Shadow atomics.  The shim's atomics are plain integers inside structs
 * (clof_atomic32_t { uint32_t _v; }) and the backend gets raw addresses,
 * while Relacy keeps a modification history per rl::atomic object.  So the
 * backend keeps a map from address to a Relacy atomic of the access's width
 * (32 or 64 bits; pointers are 64-bit), created at the first access of that
 * address in an execution and dropped at its end (rlx_shadow_reset, called
 * by the driver's before()/after()).  The value in plain memory at the first
 * access is the location's initial value (written by the client's setup,
 * before the threads start).  A shadow created during setup gets it by a
 * relaxed store (Relacy takes no scheduling point in setup and ends it with
 * a global fence).  A shadow created inside the threads (a queue node first
 * touched by its owner) must be readable by every thread without
 * synchronisation and must not add a scheduling point, which only Relacy's
 * "strong init" to T() gives; so such a shadow stores the value minus the
 * initial value (mod 2^W) and every operation adds it back: loads, stores,
 * exchanges, compare-exchanges and fetch_add/sub commute with the offset;
 * fetch_and/or/xor on a location whose offset is not 0 are a
 * compare-exchange loop (same result: the successful CAS is the RMW, with
 * the same order).  Every store also writes the value through to plain
 * memory, so a plain read outside the threads (final checks, the next
 * setup) sees the last value in modification order.
 *
 * Waiting: the backend replaces the waiting policy (CLOF_BE_HAS_AWAIT):
 * clof_be_await_change_* is Relacy's spin-wait idiom, rl::yield then a
 * relaxed re-read, until the word differs from what the caller saw.  After a
 * yield Relacy runs the other threads first, and a load that would read a
 * store older than one the thread had already seen before the yield reads
 * the newest store instead, so a wait ends when the awaited store happens; a wait that never ends runs into the execution
 * depth limit and is reported as a livelock (vc: "hang").  Waking writes are
 * release stores and clof_be_wake is a no-op (as in vc's await mode): what is
 * checked is the lock algorithm, not the parking table.
 *
 * Mutation (the named bugs of clof-verify --bug, reproduced by the driver):
 * rlx_mut describes one weakening: accesses of a kind with a given order,
 * optionally only to locations whose vc_name contains a string, optionally
 * only while the current thread is inside a given lock function (the driver
 * wraps it), are performed with a weaker order.
 */
#ifndef CLOF_VERIFY_BACKEND_RELACY_H
#define CLOF_VERIFY_BACKEND_RELACY_H

#ifndef __cplusplus
#error "backend_relacy.h is C++ (Relacy is a C++ library): compile the clients as C++"
#endif

/* System headers first: Relacy's pthread emulation defines macros (EINVAL,
 * sched_yield, pthread_t, ...) that must not rewrite them. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <relacy/relacy.hpp>

/* relacy.hpp redefines these for its own test programs (allocation checked
 * by Relacy, its pthread emulation).  The clof clients allocate in setup and
 * free in the next setup (compose.h's trees), which Relacy would call a leak,
 * and use no pthreads: they get the C library's. */
#undef new
#undef delete
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef assert
#undef errno
#define errno (*__errno_location())
#undef sched_yield
#undef pthread_yield

#include "vc.h" /* memory order and access kind names shared with vc */

#define CLOF_BACKEND_NAME "relacy"

#define CLOF_MO_RLX VC_RLX
#define CLOF_MO_ACQ VC_ACQ
#define CLOF_MO_REL VC_REL
#define CLOF_MO_AR VC_AR
#define CLOF_MO_SEQ VC_SEQ

/* One weakening (see the header comment); kind -1: every access that writes
 * with release semantics (store or RMW with rel, acq_rel or seq_cst). */
struct rlx_mutation {
    bool active;
    int kind;
    int from_mo;
    int to_mo;
    const char *loc_match; /* NULL: any location */
    bool scoped;           /* only inside the wrapped lock function */
};
extern rlx_mutation rlx_mut;
extern int rlx_scope_depth[8]; /* per Relacy thread: inside the scope */
extern long rlx_mut_hits;      /* accesses weakened (the bug was reached) */
bool rlx_loc_matches(const void *p, const char *match);
void rlx_shadow_reset(bool destroy);
/* The driver's wrappers of a lock function (the scope of a scoped mutation). */
void rlx_scope_enter(void);
void rlx_scope_exit(void);
/* The client's resume hook, run around every access (see relacy_run.cpp). */
void rlx_resume_current(void);

/* ---- shadow atomics ---- */
struct rlx_shadow {
    int width; /* 32 or 64 */
    uint64_t init;
    rl::generic_atomic<uint32_t, true> *a32;
    rl::generic_atomic<uint64_t, true> *a64;
};
rlx_shadow *rlx_shadow_of(const void *p, int width);

static inline rl::memory_order rlx_mo_(int mo)
{
    switch (mo) {
    case VC_RLX:
        return rl::mo_relaxed;
    case VC_ACQ:
        return rl::mo_acquire;
    case VC_REL:
        return rl::mo_release;
    case VC_AR:
        return rl::mo_acq_rel;
    default:
        return rl::mo_seq_cst;
    }
}

/* The order an access is performed with, after the active mutation. */
static inline int rlx_apply_mut_(int kind, const void *p, int mo)
{
    if (!rlx_mut.active)
        return mo;
    if (rlx_mut.scoped) {
        int t = rl::is_ctx() && rl::ctx().threadx_ ? (int)rl::ctx().threadx_->index_ : -1;
        if (t < 0 || t >= 8 || rlx_scope_depth[t] == 0)
            return mo;
    }
    if (rlx_mut.kind >= 0) {
        if (kind != rlx_mut.kind || mo != rlx_mut.from_mo)
            return mo;
    } else if (kind == VC_LOAD || kind == VC_FENCE ||
               !(mo == VC_REL || mo == VC_AR || mo == VC_SEQ)) {
        return mo;
    }
    if (rlx_mut.loc_match && !rlx_loc_matches(p, rlx_mut.loc_match))
        return mo;
    rlx_mut_hits++;
    return rlx_mut.to_mo;
}

/* A load's order must be one Relacy accepts for a load, a store's one it
 * accepts for a store (a weakened acq_rel RMW stays an RMW). */
static inline rl::memory_order rlx_load_mo_(int mo)
{
    return mo == VC_REL ? rl::mo_relaxed : mo == VC_AR ? rl::mo_acquire : rlx_mo_(mo);
}
static inline rl::memory_order rlx_store_mo_(int mo)
{
    return mo == VC_ACQ ? rl::mo_relaxed : mo == VC_AR ? rl::mo_release : rlx_mo_(mo);
}

template <typename A, typename U>
static inline U rlx_op_(A *a, int kind, U v, U e, int mo)
{
    switch (kind) {
    case VC_LOAD:
        return a->load(rlx_load_mo_(mo), $);
    case VC_STORE:
        a->store(v, rlx_store_mo_(mo), $);
        return 0;
    case VC_XCHG:
        return a->exchange(v, rlx_mo_(mo), $);
    case VC_CAS: {
        U cmp = e;
        a->compare_exchange_strong(cmp, v, rlx_mo_(mo), $);
        return cmp;
    }
    case VC_FADD:
        return a->fetch_add(v, rlx_mo_(mo), $);
    case VC_FSUB:
        return a->fetch_sub(v, rlx_mo_(mo), $);
    case VC_FAND:
        return a->fetch_and(v, rlx_mo_(mo), $);
    case VC_FOR:
        return a->fetch_or(v, rlx_mo_(mo), $);
    default:
        return a->fetch_xor(v, rlx_mo_(mo), $);
    }
}

/* One access of width W (32 or 64) to p: val (store, RMW operand, CAS
 * desired), exp (CAS expected).  Returns the value read (old value). */
static inline uint64_t rlx_access(int kind, const void *p, int width,
                                  uint64_t val, uint64_t exp, int mo)
{
    mo = rlx_apply_mut_(kind, p, mo);
    rlx_resume_current();
    rlx_shadow *s = rlx_shadow_of(p, width);
    uint64_t r = 0;
    bool bitop = kind == VC_FAND || kind == VC_FOR || kind == VC_FXOR;
    if (bitop && s->init != 0) {
        /* a CAS loop: the offset does not commute with bit operations */
        uint64_t cur = rlx_access(VC_LOAD, p, width, 0, 0, VC_RLX);
        for (;;) {
            uint64_t d = kind == VC_FAND ? (cur & val)
                         : kind == VC_FOR ? (cur | val)
                                          : (cur ^ val);
            uint64_t o = rlx_access(VC_CAS, p, width, d, cur, mo);
            if (o == cur)
                return o;
            cur = o;
        }
    }
    uint64_t off = bitop ? 0 : s->init;
    /* fetch_add/sub operands are not offset (they commute) */
    bool arith = kind == VC_FADD || kind == VC_FSUB || bitop;
    uint64_t v = arith ? val : val - off;
    uint64_t e = exp - off;
    if (width == 32) {
        r = (uint32_t)(rlx_op_<rl::generic_atomic<uint32_t, true>, uint32_t>(
                           s->a32, kind, (uint32_t)v, (uint32_t)e, mo) +
                       (uint32_t)off);
    } else {
        r = rlx_op_<rl::generic_atomic<uint64_t, true>, uint64_t>(s->a64, kind, v, e, mo) + off;
    }
    rlx_resume_current();
    /* write through: plain memory holds the newest value in mo order */
    if (kind != VC_LOAD) {
        uint64_t nv = width == 32 ? (uint64_t)(uint32_t)(
                                        s->a32->debug_value() + (uint32_t)off)
                                  : s->a64->debug_value() + off;
        if (width == 32)
            *(uint32_t *)(uintptr_t)p = (uint32_t)nv;
        else
            *(uint64_t *)(uintptr_t)p = nv;
    }
    return r;
}

typedef void *clof_vptr_t;

#define RLX_BE_INLINE_ static inline __attribute__((always_inline))
#define RLX_BE_DEFINE_(sfx, T, W)                                              \
    RLX_BE_INLINE_ T clof_be_load_##sfx(const T *p, int mo)                    \
    {                                                                          \
        return (T)(uintptr_t)rlx_access(VC_LOAD, p, W, 0, 0, mo);              \
    }                                                                          \
    RLX_BE_INLINE_ void clof_be_store_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        (void)rlx_access(VC_STORE, p, W, (uint64_t)(uintptr_t)v, 0, mo);       \
    }                                                                          \
    RLX_BE_INLINE_ T clof_be_xchg_##sfx(T *p, T v, int mo)                     \
    {                                                                          \
        return (T)(uintptr_t)rlx_access(VC_XCHG, p, W, (uint64_t)(uintptr_t)v, \
                                        0, mo);                                \
    }                                                                          \
    RLX_BE_INLINE_ T clof_be_cmpxchg_##sfx(T *p, T e, T d, int mo)             \
    {                                                                          \
        return (T)(uintptr_t)rlx_access(VC_CAS, p, W, (uint64_t)(uintptr_t)d,  \
                                        (uint64_t)(uintptr_t)e, mo);           \
    }
RLX_BE_DEFINE_(u32, uint32_t, 32)
RLX_BE_DEFINE_(u64, uint64_t, 64)
RLX_BE_DEFINE_(ptr, clof_vptr_t, 64)

#define RLX_BE_RMW_(sfx, T, W)                                                 \
    RLX_BE_INLINE_ T clof_be_fetch_add_##sfx(T *p, T v, int mo)                \
    {                                                                          \
        return (T)rlx_access(VC_FADD, p, W, v, 0, mo);                         \
    }                                                                          \
    RLX_BE_INLINE_ T clof_be_fetch_sub_##sfx(T *p, T v, int mo)                \
    {                                                                          \
        return (T)rlx_access(VC_FSUB, p, W, v, 0, mo);                         \
    }                                                                          \
    RLX_BE_INLINE_ T clof_be_fetch_and_##sfx(T *p, T v, int mo)                \
    {                                                                          \
        return (T)rlx_access(VC_FAND, p, W, v, 0, mo);                         \
    }                                                                          \
    RLX_BE_INLINE_ T clof_be_fetch_or_##sfx(T *p, T v, int mo)                 \
    {                                                                          \
        return (T)rlx_access(VC_FOR, p, W, v, 0, mo);                          \
    }                                                                          \
    RLX_BE_INLINE_ T clof_be_fetch_xor_##sfx(T *p, T v, int mo)                \
    {                                                                          \
        return (T)rlx_access(VC_FXOR, p, W, v, 0, mo);                         \
    }
RLX_BE_RMW_(u32, uint32_t, 32)
RLX_BE_RMW_(u64, uint64_t, 64)

RLX_BE_INLINE_ void clof_be_fence(int mo)
{
    mo = rlx_apply_mut_(VC_FENCE, NULL, mo);
    if (mo == VC_NOMO || mo == VC_RLX)
        return; /* a removed fence */
    rlx_resume_current();
    rl::atomic_thread_fence(rlx_mo_(mo), $);
    rlx_resume_current();
}

/* Spin steps outside an await (none of the clof locks has one under a
 * backend with its own awaits): a Relacy yield, so a spin loop cannot
 * starve the others. */
static inline void clof_be_pause(void)
{
    rl::yield(1, $);
    rlx_resume_current();
}
static inline void clof_be_yield(void)
{
    rl::yield(1, $);
    rlx_resume_current();
}

/* Backoff delays touch no shared memory: nothing to model. */
#define CLOF_BE_HAS_DELAY 1
static inline void clof_be_delay(uint32_t n)
{
    (void)n;
}

/* VC_CLOCK (clients_timed.c): the logical clock is the shared word vc_clock,
 * read relaxed; the client's ghost thread advances it. */
#if defined(VC_CLOCK)
#define CLOF_BE_HAS_CLOCK 1
static inline uint64_t clof_be_now_ns(void)
{
    return rlx_access(VC_LOAD, &vc_clock, 64, 0, 0, VC_RLX);
}
#endif

#define CLOF_BE_HAS_AWAIT 1
#define RLX_BE_AWAIT_(sfx, T, W)                                               \
    static inline void clof_be_await_change_##sfx(const T *p, T seen)          \
    {                                                                          \
        do {                                                                   \
            rl::yield(1, $);                                                   \
            rlx_resume_current();                                              \
        } while ((T)(uintptr_t)rlx_access(VC_LOAD, p, W, 0, 0, VC_RLX) ==      \
                 seen);                                                        \
    }
RLX_BE_AWAIT_(u32, uint32_t, 32)
RLX_BE_AWAIT_(u64, uint64_t, 64)
RLX_BE_AWAIT_(ptr, clof_vptr_t, 64)

static inline void clof_be_wake(const void *p)
{
    (void)p;
}
/* Not used with CLOF_BE_HAS_AWAIT; defined so that the contract is complete. */
static inline void clof_be_futex_wait(uint32_t *addr, uint32_t val)
{
    clof_be_await_change_u32(addr, val);
}
static inline void clof_be_futex_wake_all(uint32_t *addr)
{
    (void)addr;
}
#if defined(VC_CLOCK)
static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns)
{
    (void)deadline_ns;
    clof_be_futex_wait(addr, val);
}
#endif

#endif /* CLOF_VERIFY_BACKEND_RELACY_H */
