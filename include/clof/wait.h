/* SPDX-License-Identifier: MIT */
/*
 * clof/wait.h -- the one waiting policy of clof.
 *
 * Every waiting loop of every lock waits here, through the await helpers of
 * await.h (clof_atomicW_await_*) or, for loops that are not a plain await
 * (TAS retrying its exchange), through clof_wait_change_* directly.
 *
 * Policies, chosen at compile time (define one before including any clof
 * header, or use the CMake option CLOF_WAIT_POLICY):
 *
 *   spin-park (default, CLOF_WAIT_SPIN_PARK)
 *       spin up to CLOF_WAIT_SPINS steps (pause; on Armv8 ISB or YIELD,
 *       clof_spin_on_*) (an adaptive, per-thread
 *       budget, see clof_wait_spins_), then sched_yield CLOF_WAIT_YIELDS
 *       times, then park on a futex until the awaited word changes (or, for
 *       await_eq, until it is written with the awaited value).  After a
 *       wake-up the waiter stays runnable longer (CLOF_WAIT_YIELDS_WOKEN
 *       yields) before it parks again, so a waiter that is woken early (a
 *       nudge, see clof_nudge) is running when the lock reaches it.
 *   spin (CLOF_WAIT_SPIN)
 *       the papers' pure spinning with pause; waking writes are plain
 *       release stores.  For benchmarks on machines with a cpu per thread;
 *       collapses as soon as threads outnumber cpus.
 *
 * Parking without a per-lock word.  Parked threads register in a global
 * parking table of CLOF_PARK_BUCKETS cache-line buckets hashed by the
 * address they wait on: {waiters, seq}.  A waiter increments `waiters`,
 * reads `seq`, re-reads the awaited word and sleeps on `seq` only if the word
 * still holds the value it saw.  A waking write stores the new value with
 * seq_cst order and then reads `waiters` (seq_cst): if someone is parked it
 * bumps `seq` and futex-wakes the bucket.  The seq_cst store/load pair on
 * each side is a Dekker handshake: either the waker sees the registration or
 * the waiter sees the new value; bumping `seq` before the futex wake closes
 * the window between the waiter's re-read and its sleep.  The cost on the
 * release path is one seq_cst store and one load of the bucket (no syscall)
 * when nobody is parked.
 *
 * The table is one object per process: it is defined weak with default
 * visibility in this header, so every translation unit and every shared
 * object that includes clof headers resolves to the same table (do not link
 * with -Bsymbolic-functions against clof headers if locks cross modules).
 *
 * Backends (atomic.h, "The backend hook") may replace the whole policy by
 * defining CLOF_BE_HAS_AWAIT with clof_be_await_change_{u32,u64,ptr}
 * (block until *p != seen) and clof_be_wake(p); with CLOF_BE_HAS_AWAIT_FOR
 * also clof_be_await_for_{u32,u64,ptr}(p, seen, want) (the awaited value:
 * keyed parking, as the spin-park policy's).
 */
#ifndef CLOF_WAIT_H
#define CLOF_WAIT_H

#include <clof/atomic.h>

#if !defined(CLOF_WAIT_SPIN) && !defined(CLOF_WAIT_SPIN_PARK)
#define CLOF_WAIT_SPIN_PARK 1
#endif
#if defined(CLOF_WAIT_SPIN) && defined(CLOF_WAIT_SPIN_PARK)
#error "define only one of CLOF_WAIT_SPIN and CLOF_WAIT_SPIN_PARK"
#endif

#ifndef CLOF_WAIT_SPINS
#define CLOF_WAIT_SPINS 128u /* pause iterations before yielding */
#endif
#ifndef CLOF_WAIT_YIELDS
#define CLOF_WAIT_YIELDS 2u /* sched_yield calls before parking */
#endif
#ifndef CLOF_WAIT_ADAPT_IDLE
#define CLOF_WAIT_ADAPT_IDLE 1 /* 0: the budget never grows past CLOF_WAIT_SPINS */
#endif
#ifndef CLOF_WAIT_SPINS_MAX
#define CLOF_WAIT_SPINS_MAX 8192u /* ... its ceiling while cpus are idle */
#endif
#ifndef CLOF_WAIT_SPINS_MIN
#define CLOF_WAIT_SPINS_MIN 8u /* adaptive spin budget floor (see below) */
#endif
#ifndef CLOF_WAIT_YIELDS_WOKEN
#define CLOF_WAIT_YIELDS_WOKEN 64u /* ... after a wake-up (turn expected) */
#endif
#ifndef CLOF_PARK_BUCKETS
#define CLOF_PARK_BUCKETS 512u /* power of two */
#endif

#if defined(CLOF_BE_HAS_AWAIT)
#define CLOF_WAIT_POLICY_NAME "backend"
#elif defined(CLOF_WAIT_SPIN)
#define CLOF_WAIT_POLICY_NAME "spin"
#else
#define CLOF_WAIT_POLICY_NAME "spin-park"
#endif

/* 1 when a waiter may be asleep, so a release must check whether to wake
 * (locks skip their wake-up gate entirely when it is 0).  A backend with its
 * own awaits (model checker, simulator) wakes awaiters on the write itself:
 * no gate, so what it runs is the papers' spinning algorithm. */
#if defined(CLOF_WAIT_SPIN) || defined(CLOF_BE_HAS_AWAIT)
#define CLOF_WAIT_CAN_PARK 0
#else
#define CLOF_WAIT_CAN_PARK 1
#endif

/* 1 when clof_nudge does something (native spin-park): locks skip the
 * reads that only find whom to nudge otherwise (they would be extra line
 * transfers on the hand-over path of a spinning machine). */
#if defined(CLOF_WAIT_SPIN) || defined(CLOF_BE_HAS_AWAIT)
#define CLOF_WAIT_CAN_NUDGE 0
#else
#define CLOF_WAIT_CAN_NUDGE 1
#endif

/* The order of a waking write's store (see await.h *_write_wake). */
#if defined(CLOF_WAIT_SPIN_PARK) && !defined(CLOF_BE_HAS_AWAIT)
#define CLOF_WAKE_STORE_MO CLOF_MO_SEQ
#else
#define CLOF_WAKE_STORE_MO CLOF_MO_REL
#endif

/* Per-wait state, on the waiter's stack. */
typedef struct {
    uint32_t n;      /* steps taken in the current spin/yield round */
    uint32_t spins;  /* pauses allowed in this round before yielding */
    uint32_t yields; /* yields allowed in this round before parking */
    uint32_t parked; /* times this wait has parked */
    uint32_t busy;   /* a yield of this wait ran another thread */
} clof_wait_t;

/* Busy-wait for about n pause instructions (backoff delays). */
static inline void clof_wait_delay(uint32_t n)
{
#if defined(CLOF_BE_HAS_DELAY)
    clof_be_delay(n);
#else
    for (uint32_t i = 0; i < n; i++)
        clof_be_pause();
#endif
}

/* Deadlines, for timed acquisition (the abortable locks, numa/acohort.h):
 * absolute times in ns of the backend's monotonic clock (CLOCK_MONOTONIC
 * natively).  CLOF_DEADLINE_NONE never passes; 0 has always passed (a
 * timed acquisition with deadline 0 is a tryacquire).  A backend without a
 * clock (the model checker) reads 0: deadline 0 has passed, every other
 * deadline never passes, so its executions stay deterministic. */
#define CLOF_DEADLINE_NONE UINT64_MAX
#if !defined(CLOF_BE_HAS_CLOCK)
static inline uint64_t clof_be_now_ns(void)
{
    return 0;
}
static inline void clof_be_futex_wait_until(uint32_t *addr, uint32_t val,
                                            uint64_t deadline_ns)
{
    (void)deadline_ns;
    clof_be_futex_wait(addr, val);
}
#endif
static inline uint64_t clof_now_ns(void)
{
    return clof_be_now_ns();
}
static inline bool clof_deadline_passed(uint64_t deadline_ns)
{
    return deadline_ns != CLOF_DEADLINE_NONE && clof_be_now_ns() >= deadline_ns;
}

/* One busy-waiting step on the word at p, last seen holding `seen` (the
 * spin phase of every policy).  A backend may wait on the word itself
 * (CLOF_BE_HAS_SPIN_ON, clof_be_spin_on_*: e.g. an Armv8 WFE on the line's
 * exclusive monitor, as Linux's smp_cond_load_acquire does; none does
 * yet); otherwise one pause (native.h: x86 PAUSE, aarch64 ISB or YIELD).
 * May return early; the caller re-reads. */
#if defined(CLOF_BE_HAS_SPIN_ON)
#define clof_spin_on_u32(p, seen) clof_be_spin_on_u32(p, seen)
#define clof_spin_on_u64(p, seen) clof_be_spin_on_u64(p, seen)
#define clof_spin_on_ptr(p, seen) clof_be_spin_on_ptr(p, seen)
#else
#define clof_spin_on_u32(p, seen) ((void)(p), (void)(seen), clof_be_pause())
#define clof_spin_on_u64(p, seen) ((void)(p), (void)(seen), clof_be_pause())
#define clof_spin_on_ptr(p, seen) ((void)(p), (void)(seen), clof_be_pause())
#endif

#if defined(CLOF_BE_HAS_AWAIT) || defined(CLOF_WAIT_SPIN)
#define CLOF_WAIT_INIT {0, 0, 0, 0, 0}
#define clof_wait_end(w) ((void)(w))
#endif

#if defined(CLOF_BE_HAS_AWAIT)

static inline void clof_wait_change_u32(clof_wait_t *w, const uint32_t *p,
                                        uint32_t seen)
{
    (void)w;
    clof_be_await_change_u32(p, seen);
}
static inline void clof_wait_change_u64(clof_wait_t *w, const uint64_t *p,
                                        uint64_t seen)
{
    (void)w;
    clof_be_await_change_u64(p, seen);
}
static inline void clof_wait_change_ptr(clof_wait_t *w, void *const *p,
                                        void *seen)
{
    (void)w;
    clof_be_await_change_ptr(p, seen);
}
#define clof_wake(p) clof_be_wake((const void *)(p))
#define clof_wake_value(p, v) ((void)(v), clof_be_wake((const void *)(p)))
#define clof_nudge(p, v) ((void)(p), (void)(v))

#elif defined(CLOF_WAIT_SPIN)

#define CLOF_WAIT_SPIN_ONLY_(sfx, T)                                           \
    static inline void clof_wait_change_##sfx(clof_wait_t *w, const T *p,      \
                                              T seen)                          \
    {                                                                          \
        (void)w;                                                               \
        clof_spin_on_##sfx(p, seen);                                           \
    }
CLOF_WAIT_SPIN_ONLY_(u32, uint32_t)
CLOF_WAIT_SPIN_ONLY_(u64, uint64_t)
static inline void clof_wait_change_ptr(clof_wait_t *w, void *const *p,
                                        void *seen)
{
    (void)w;
    clof_spin_on_ptr(p, seen);
}
#define clof_wake(p) ((void)(p))
#define clof_wake_value(p, v) ((void)(p), (void)(v))
#define clof_nudge(p, v) ((void)(p), (void)(v))
#endif

#if defined(CLOF_BE_HAS_AWAIT_FOR)
/* A backend that models keyed parking (the simulator) gets the value. */
static inline void clof_wait_for_u32(clof_wait_t *w, const uint32_t *p,
                                     uint32_t seen, uint32_t want)
{
    (void)w;
    clof_be_await_for_u32(p, seen, want);
}
static inline void clof_wait_for_u64(clof_wait_t *w, const uint64_t *p,
                                     uint64_t seen, uint64_t want)
{
    (void)w;
    clof_be_await_for_u64(p, seen, want);
}
static inline void clof_wait_for_ptr(clof_wait_t *w, void *const *p,
                                     void *seen, void *want)
{
    (void)w;
    clof_be_await_for_ptr(p, seen, want);
}
#endif
#if defined(CLOF_BE_HAS_AWAIT) || defined(CLOF_WAIT_SPIN)
#if !defined(CLOF_BE_HAS_AWAIT_FOR)
/* Without keyed parking, waiting for a value is waiting for any change. */
static inline void clof_wait_for_u32(clof_wait_t *w, const uint32_t *p,
                                     uint32_t seen, uint32_t want)
{
    (void)want;
    clof_wait_change_u32(w, p, seen);
}
static inline void clof_wait_for_u64(clof_wait_t *w, const uint64_t *p,
                                     uint64_t seen, uint64_t want)
{
    (void)want;
    clof_wait_change_u64(w, p, seen);
}
static inline void clof_wait_for_ptr(clof_wait_t *w, void *const *p,
                                     void *seen, void *want)
{
    (void)want;
    clof_wait_change_ptr(w, p, seen);
}
#endif

/* One timed waiting step; false when the deadline has passed.  A backend
 * with its own awaits may time them (CLOF_BE_HAS_TIMED_AWAIT); otherwise a
 * step waits for a change only (with no clock, deadlines other than 0
 * never pass, see above). */
#define CLOF_WAIT_UNTIL_NOPARK_(sfx, T)                                        \
    static inline bool clof_wait_change_until_##sfx(                          \
        clof_wait_t *w, const T *p, T seen, uint64_t deadline)                 \
    {                                                                          \
        if (clof_deadline_passed(deadline))                                    \
            return false;                                                      \
        CLOF_WAIT_UNTIL_STEP_(sfx, w, p, seen, deadline);                      \
        return true;                                                           \
    }
#if defined(CLOF_BE_HAS_TIMED_AWAIT)
#define CLOF_WAIT_UNTIL_STEP_(sfx, w, p, seen, deadline)                       \
    ((void)(w), clof_be_await_change_until_##sfx(p, seen, deadline))
#else
#define CLOF_WAIT_UNTIL_STEP_(sfx, w, p, seen, deadline)                       \
    ((void)(deadline), clof_wait_change_##sfx(w, p, seen))
#endif
CLOF_WAIT_UNTIL_NOPARK_(u32, uint32_t)
CLOF_WAIT_UNTIL_NOPARK_(u64, uint64_t)
#undef CLOF_WAIT_UNTIL_NOPARK_

#else /* spin-park */

typedef struct {
    uint32_t waiters; /* threads registered to park on this bucket */
    uint32_t seq;     /* futex word: bumped by every wake */
} CLOF_CACHE_ALIGNED clof_park_bucket_t;

#ifdef __cplusplus
extern "C" {
#endif
/* The process-wide parking table (weak: one copy however many includers). */
__attribute__((weak, visibility("default"))) clof_park_bucket_t
    clof_park_table[CLOF_PARK_BUCKETS];
#ifdef __cplusplus
}
#endif

/* Keys: a waiter for a specific value v (await_eq) parks under (p, v), so a
 * write wakes only the waiters of the value it writes (a ticket lock's
 * release wakes the next ticket, not all of them); a waiter for any change
 * parks under (p, ANY). */
#define CLOF_PARK_ANY_ 0x9d2c5680a5a5a5a5ull
static inline clof_park_bucket_t *clof_park_bucket_(const void *p,
                                                     uint64_t key)
{
    uint64_t h = ((uint64_t)(uintptr_t)p ^ key) * 0x9e3779b97f4a7c15ull;
    return &clof_park_table[h >> 55 & (CLOF_PARK_BUCKETS - 1)];
}

/* Statistics hook: the preload library counts parks with it. */
#ifndef CLOF_WAIT_ON_PARK
#define CLOF_WAIT_ON_PARK() ((void)0)
#endif

/* Adaptive spin budget, per thread.  A wait that ended while spinning
 * doubles it (up to CLOF_WAIT_SPINS).  A wait that had to yield or park
 * asks whether the cpus were wanted:
 *   - if one of its yields ran another thread (the thread's involuntary
 *     context switches moved: the backend's clof_be_preempted), or the
 *     parked threads, this waiter and a lock holder are more than the
 *     process's cpus, threads outnumber cpus:
 *     the budget is halved (down to CLOF_WAIT_SPINS_MIN), so a waiter stops
 *     burning the cpu the lock holder (or the next in line) needs;
 *   - otherwise nobody else wanted the cpu, spinning longer costs nobody,
 *     and the budget is doubled (up to CLOF_WAIT_SPINS_MAX): on a machine
 *     with a cpu per thread a queue lock's waiters then spin through their
 *     turn instead of parking and paying a futex wake-up at every
 *     hand-over (with halving alone, on 16 idle cpus, MCS at T = 4 ran 0.29
 *     M pairs/s against 3.6 M with pure spinning: docs/perf.md).
 * Without the backend's cpu count (the model checker, the simulator) the
 * second case never applies. */
static __thread uint32_t clof_wait_spins_ = CLOF_WAIT_SPINS;
/* Parks of this thread so far (mod 2^32): cr.h's shrink signal, an active
 * waiter that parked did not keep a cpu. */
static __thread uint32_t clof_wait_parks_;
/* Yields of this thread that ran another thread (mod 2^32): cr.h's shrink
 * signal at the budget's floor, where halving it shows no more. */
static __thread __attribute__((unused)) uint32_t clof_wait_busy_;
/* Threads parked right now, process-wide (weak: one copy however many
 * includers; counted around the futex sleep, relaxed: a hint). */
__attribute__((weak, visibility("default"))) uint32_t clof_wait_parked_now_;
/* Count a park in and out of it.  A backend without a cpu count (nothing
 * reads the count then) may define CLOF_BE_NO_PARKED_COUNT: the model
 * checkers would otherwise explore every order of these hint updates. */
#if defined(CLOF_BE_NO_PARKED_COUNT)
#define CLOF_WAIT_PARKED_ADD_(d) ((void)0)
#else
#define CLOF_WAIT_PARKED_ADD_(d)                                               \
    ((void)__atomic_fetch_add(&clof_wait_parked_now_, (uint32_t)(d), __ATOMIC_RELAXED))
#endif

/* Could every waiter have a cpu (see the budget above)? */
static inline bool clof_wait_cpus_idle_(const clof_wait_t *w)
{
#if defined(CLOF_BE_HAS_CPU_COUNT) && CLOF_WAIT_ADAPT_IDLE
    /* the parked threads, this waiter and the lock's holder each need a cpu */
    return !w->busy &&
           __atomic_load_n(&clof_wait_parked_now_, __ATOMIC_RELAXED) + 2 <= clof_be_cpus();
#else
    (void)w;
    return false;
#endif
}
#define CLOF_WAIT_INIT {0, clof_wait_spins_, CLOF_WAIT_YIELDS, 0, 0}

/* Called when an await is satisfied after at least one step. */
static inline void clof_wait_end(const clof_wait_t *w)
{
    if (w->parked == 0 && w->n <= w->spins) {
        if (clof_wait_spins_ < CLOF_WAIT_SPINS)
            clof_wait_spins_ *= 2;
    } else if (clof_wait_cpus_idle_(w)) {
        if (clof_wait_spins_ < CLOF_WAIT_SPINS_MAX)
            clof_wait_spins_ *= 2; /* cpus to spare: spin longer */
    } else if (w->parked == 0 && clof_wait_spins_ > CLOF_WAIT_SPINS_MIN) {
        clof_wait_spins_ /= 2; /* needed to yield: spinning did not pay */
    }
}

/* Which phase the next step is in: 0 spin (the caller spins on its word,
 * clof_spin_on_*), 1 yield (done here), 2 park. */
static inline int clof_wait_phase_(clof_wait_t *w)
{
    uint32_t n = w->n++;
    if (CLOF_LIKELY(n < w->spins))
        return 0;
    if (n < w->spins + w->yields) {
#if defined(CLOF_BE_HAS_CPU_COUNT) && CLOF_WAIT_ADAPT_IDLE
        if (!w->busy) {
            long before = clof_be_preempted();
            clof_be_yield();
            w->busy = clof_be_preempted() != before;
            clof_wait_busy_ += w->busy;
            return 1;
        }
#endif
        clof_be_yield();
        return 1;
    }
    return 2;
}

/* After a park: the wake was for us (keys are precise) or a nudge saying our
 * turn is next, so stay runnable longer before parking again. */
static inline void clof_wait_parked_(clof_wait_t *w)
{
    clof_wait_parks_++;
    if (w->parked++ == 0 && !clof_wait_cpus_idle_(w) &&
        clof_wait_spins_ > CLOF_WAIT_SPINS_MIN)
        clof_wait_spins_ /= 2;
    w->n = 0;
    w->spins = clof_wait_spins_;
    w->yields = CLOF_WAIT_YIELDS_WOKEN;
}

/* Park under key until the word at p may differ from `seen` (or, for the
 * timed form, until the deadline). */
#define CLOF_WAIT_PARK_(sfx, T)                                                \
    static inline void clof_park_until_##sfx(const T *p, T seen, uint64_t key, \
                                             uint64_t deadline)                \
    {                                                                          \
        clof_park_bucket_t *b = clof_park_bucket_(p, key);                     \
        clof_be_fetch_add_u32(&b->waiters, 1, CLOF_MO_SEQ);                    \
        uint32_t s = clof_be_load_u32(&b->seq, CLOF_MO_SEQ);                   \
        if (clof_be_load_##sfx(p, CLOF_MO_SEQ) == seen) {                      \
            CLOF_WAIT_ON_PARK();                                               \
            CLOF_WAIT_PARKED_ADD_(1);                                          \
            if (deadline == CLOF_DEADLINE_NONE)                                \
                clof_be_futex_wait(&b->seq, s);                                \
            else                                                               \
                clof_be_futex_wait_until(&b->seq, s, deadline);                \
            CLOF_WAIT_PARKED_ADD_(-1);                                         \
        }                                                                      \
        clof_be_fetch_sub_u32(&b->waiters, 1, CLOF_MO_RLX);                    \
    }                                                                          \
    static inline void clof_park_##sfx(const T *p, T seen, uint64_t key)       \
    {                                                                          \
        clof_park_until_##sfx(p, seen, key, CLOF_DEADLINE_NONE);               \
    }
/* The waiting steps over the word at p: spin, yield or park (phase). */
#define CLOF_WAIT_STEP_(sfx, T)                                                \
    /* one timed waiting step; false when the deadline has passed */           \
    static inline bool clof_wait_change_until_##sfx(                          \
        clof_wait_t *w, const T *p, T seen, uint64_t deadline)                 \
    {                                                                          \
        if (clof_deadline_passed(deadline))                                    \
            return false;                                                      \
        int phase = clof_wait_phase_(w);                                       \
        if (phase == 0) {                                                      \
            clof_spin_on_##sfx(p, seen);                                       \
        } else if (phase == 2) {                                               \
            clof_park_until_##sfx(p, seen, CLOF_PARK_ANY_, deadline);          \
            clof_wait_parked_(w);                                              \
        }                                                                      \
        return true;                                                           \
    }                                                                          \
    static inline void clof_wait_step_##sfx(clof_wait_t *w, const T *p,        \
                                            T seen, uint64_t key)              \
    {                                                                          \
        int phase = clof_wait_phase_(w);                                       \
        if (phase == 0) {                                                      \
            clof_spin_on_##sfx(p, seen);                                       \
        } else if (phase == 2) {                                               \
            clof_park_##sfx(p, seen, key);                                     \
            clof_wait_parked_(w);                                              \
        }                                                                      \
    }                                                                          \
    static inline void clof_wait_change_##sfx(clof_wait_t *w, const T *p,      \
                                              T seen)                          \
    {                                                                          \
        clof_wait_step_##sfx(w, p, seen, CLOF_PARK_ANY_);                      \
    }                                                                          \
    static inline void clof_wait_for_##sfx(clof_wait_t *w, const T *p, T seen, \
                                           T want)                             \
    {                                                                          \
        clof_wait_step_##sfx(w, p, seen, (uint64_t)(want));                    \
    }
CLOF_WAIT_PARK_(u32, uint32_t)
CLOF_WAIT_PARK_(u64, uint64_t)
CLOF_WAIT_STEP_(u32, uint32_t)
CLOF_WAIT_STEP_(u64, uint64_t)
#undef CLOF_WAIT_PARK_
#undef CLOF_WAIT_STEP_

/* Pointers: the same, keyed by the pointer value. */
static inline void clof_park_ptr(void *const *p, void *seen, uint64_t key)
{
    clof_park_bucket_t *b = clof_park_bucket_(p, key);
    clof_be_fetch_add_u32(&b->waiters, 1, CLOF_MO_SEQ);
    uint32_t s = clof_be_load_u32(&b->seq, CLOF_MO_SEQ);
    if (clof_be_load_ptr(p, CLOF_MO_SEQ) == seen) {
        CLOF_WAIT_ON_PARK();
        CLOF_WAIT_PARKED_ADD_(1);
        clof_be_futex_wait(&b->seq, s);
        CLOF_WAIT_PARKED_ADD_(-1);
    }
    clof_be_fetch_sub_u32(&b->waiters, 1, CLOF_MO_RLX);
}
static inline void clof_wait_step_ptr(clof_wait_t *w, void *const *p,
                                      void *seen, uint64_t key)
{
    int phase = clof_wait_phase_(w);
    if (phase == 0) {
        clof_spin_on_ptr(p, seen);
    } else if (phase == 2) {
        clof_park_ptr(p, seen, key);
        clof_wait_parked_(w);
    }
}
static inline void clof_wait_change_ptr(clof_wait_t *w, void *const *p,
                                        void *seen)
{
    clof_wait_step_ptr(w, p, seen, CLOF_PARK_ANY_);
}
static inline void clof_wait_for_ptr(clof_wait_t *w, void *const *p,
                                     void *seen, void *want)
{
    clof_wait_step_ptr(w, p, seen, (uint64_t)(uintptr_t)want);
}

CLOF_SLOW void clof_wake_bucket_slow_(clof_park_bucket_t *b)
{
    clof_be_fetch_add_u32(&b->seq, 1, CLOF_MO_SEQ);
    clof_be_futex_wake_all(&b->seq);
}
static inline bool clof_wake_bucket_(clof_park_bucket_t *b)
{
    if (CLOF_UNLIKELY(clof_be_load_u32(&b->waiters, CLOF_MO_SEQ) != 0)) {
        clof_wake_bucket_slow_(b);
        return true;
    }
    return false;
}

/* Wake the threads parked on the word at p that wait for the value v or for
 * any change.  Call after storing v to p with seq_cst order (the *_write_wake
 * helpers of atomic.h do both).  Costs two loads when nobody is parked. */
CLOF_SLOW void clof_wake_value_(const void *p, uint64_t v)
{
    bool woke = clof_wake_bucket_(clof_park_bucket_(p, v));
    woke |= clof_wake_bucket_(clof_park_bucket_(p, CLOF_PARK_ANY_));
#ifndef CLOF_WAIT_NO_HANDOFF_YIELD
    /* The thread we handed to was asleep: give it our cpu now rather than
     * at the end of our time slice (it holds the lock, we don't). */
    if (woke)
        clof_be_yield();
#endif
}
/* Wake the threads waiting for any change of the word at p. */
#define clof_wake(p) ((void)clof_wake_bucket_(clof_park_bucket_((const void *)(p), CLOF_PARK_ANY_)))
#define clof_wake_value(p, v) clof_wake_value_((const void *)(p), (uint64_t)(v))

/* Nudge: wake, without writing anything, the threads parked until the word
 * at p holds v -- "your turn is next, be running when it comes".  A lock
 * calls it for the next-but-one waiter at a hand-over (or the next one at an
 * acquire), so the futex wake-up latency overlaps a critical section instead
 * of following it.  Only hashes p: safe on memory that may be gone. */
CLOF_SLOW void clof_nudge_(const void *p, uint64_t v)
{
    (void)clof_wake_bucket_(clof_park_bucket_(p, v));
}
#define clof_nudge(p, v) clof_nudge_((const void *)(p), (uint64_t)(v))

#endif /* policy */

/* Waiting on a lock word that tells by itself whether anyone may be asleep
 * on it (the TAS family): `flag` is a bit of the word that a waiter sets
 * before it parks; the release's read-modify-write of the word returns it,
 * and only then does the release clear it with a waking write (and wake).
 * One waiting step: spin and yield as clof_wait_change_u32; a step that
 * would park first sets `flag` (a relaxed CAS from `seen`: the word's
 * modification order alone decides whether the release's RMW sees the
 * flag; if the word changed meanwhile the step ends without parking), then
 * parks until the word changes.  The timed form returns false once the
 * deadline has passed (a flag left behind costs the next release a check of
 * the parking table, nothing more). */
#if defined(CLOF_BE_HAS_AWAIT) || defined(CLOF_WAIT_SPIN)
static inline bool clof_wait_flag_until_u32(clof_wait_t *w, uint32_t *p,
                                            uint32_t seen, uint32_t flag,
                                            uint64_t deadline)
{
    (void)flag;
    return clof_wait_change_until_u32(w, p, seen, deadline);
}
static inline void clof_wait_flag_u32(clof_wait_t *w, uint32_t *p,
                                      uint32_t seen, uint32_t flag)
{
    (void)flag;
    clof_wait_change_u32(w, p, seen);
}
#else
static inline bool clof_wait_flag_until_u32(clof_wait_t *w, uint32_t *p,
                                            uint32_t seen, uint32_t flag,
                                            uint64_t deadline)
{
    if (clof_deadline_passed(deadline))
        return false;
    int phase = clof_wait_phase_(w);
    if (phase == 0)
        clof_spin_on_u32(p, seen);
    if (phase != 2)
        return true;
    if (!(seen & flag)) {
        if (clof_be_cmpxchg_u32(p, seen, seen | flag, CLOF_MO_RLX) != seen)
            return true;
        seen |= flag;
    }
    clof_park_until_u32(p, seen, CLOF_PARK_ANY_, deadline);
    clof_wait_parked_(w);
    return true;
}
static inline void clof_wait_flag_u32(clof_wait_t *w, uint32_t *p,
                                      uint32_t seen, uint32_t flag)
{
    (void)clof_wait_flag_until_u32(w, p, seen, flag, CLOF_DEADLINE_NONE);
}
#endif

#endif /* CLOF_WAIT_H */
