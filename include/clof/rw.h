/* SPDX-License-Identifier: MIT */
/*
 * clof/rw.h -- the reader-writer lock interface, and the parts every RW lock
 * shares: the preference, the distributed reader indicator, the polled
 * timed wait.
 *
 * Every clof RW lock <name> (rw/central.h, rw/cohort.h, rw/bravo.h) provides
 *
 *   clof_<name>_t        the lock; all-zero bytes are an unlocked lock that
 *                        prefers readers (glibc's default); init is optional
 *   clof_<name>_ctx_t    the per-acquisition context (zero-filled = valid):
 *                        the writer lock's queue node and what a reader
 *                        must remember until its release (its indicator
 *                        slot, BRAVO's table entry)
 *   void clof_<name>_init(l, pref)           pref: CLOF_RW_PREF_*
 *   void clof_<name>_set_pref(l, pref)       on an unlocked lock: change the
 *                                            preference, keep the rest
 *   void clof_<name>_read_acquire(l, ctx)
 *   bool clof_<name>_read_tryacquire(l, ctx)
 *   bool clof_<name>_read_acquire_until(l, ctx, deadline_ns)
 *   void clof_<name>_read_release(l, ctx)
 *   void clof_<name>_write_acquire(l, ctx)
 *   bool clof_<name>_write_tryacquire(l, ctx)
 *   bool clof_<name>_write_acquire_until(l, ctx, deadline_ns)
 *   void clof_<name>_write_release(l, ctx)
 *
 * Rules every implementation keeps (those of lock.h, plus):
 *   - a read hold is released with the context it was acquired with (the
 *     context says where the reader registered: a thread that migrates to
 *     another node meanwhile stays correct);
 *   - timed acquisitions (deadline on the clof_now_ns clock, CLOF_DEADLINE_NONE
 *     = never, 0 = try once) return false with nothing held;
 *   - a tryacquire never waits; it may fail spuriously only where the lock
 *     says so (none here does);
 *   - every wait goes through wait.h; every store a waiter may sleep on is
 *     a waking write (await.h), every read-modify-write one may sleep on is
 *     followed by a wake.
 *
 * Preferences (Calciu et al., "NUMA-aware reader-writer locks", PPoPP'13,
 * §3.2-§3.4), chosen per lock instance at init:
 *   CLOF_RW_PREF_READER (0, the zero lock): a reader enters whenever no
 *     writer holds the lock, even while writers wait; a thread that holds a
 *     read lock may take it again while a writer waits (glibc's default,
 *     PTHREAD_RWLOCK_PREFER_READER_NP; programs rely on it);
 *   CLOF_RW_PREF_WRITER: an arriving reader waits while a writer holds or
 *     waits for the lock (glibc's PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP:
 *     a recursive read while a writer waits deadlocks, as in glibc);
 *   CLOF_RW_PREF_NEUTRAL: readers and writers pass through the writer lock
 *     in arrival order (the writer lock's own fairness decides); readers
 *     hold it only to register.  Recursive reads deadlock as with WRITER.
 *
 * The distributed reader indicator (clof_rw_ind_t; Calciu et al. §3.1: one
 * counter per NUMA node instead of one shared word).  CLOF_RW_SLOTS
 * counters, each on its own cache line; a reader increments the counter of
 * its slot -- the index of its cpu's cohort at a chosen level of the process
 * topology (clof_topology()), modulo CLOF_RW_SLOTS -- and decrements the
 * same counter at release (the slot is kept in the context).  The indicator
 * is empty when every counter is 0.  Slots only spread the readers' writes:
 * two cohorts that share a slot (more cohorts than slots) are correct, only
 * less local.  The level (per lock: CLOF_RW_LEVEL_NUMA by default, or
 * CLOF_RW_LEVEL_CACHE for a counter per cache group, CLOF_RW_LEVEL_NONE for
 * a single counter) is the lowest level of the hierarchy at or above the one
 * asked for; on a machine without it, the system level (one slot).
 */
/** \file
 * The reader-writer lock interface, and the parts every RW lock shares: the
 * preference, the distributed reader indicator, the polled timed wait.
 *
 * Every clof RW lock NAME (rw/central.h, rw/cohort.h, rw/bravo.h; the
 * declared ones: rw/list.h) has clof_NAME_t (all-zero bytes: an unlocked
 * lock preferring readers), clof_NAME_ctx_t (valid when zero-filled) and
 * the functions clof_NAME_init(l, pref), clof_NAME_set_pref(l, pref) and,
 * for readers, clof_NAME_read_acquire(l, c), clof_NAME_read_tryacquire(l,
 * c), clof_NAME_read_acquire_until(l, c, deadline_ns) and
 * clof_NAME_read_release(l, c); for writers the same with write.
 * Deadlines are on the clof_now_ns clock (CLOF_DEADLINE_NONE: never; 0: try
 * once); a timed or tried acquisition that fails holds nothing.  The
 * comment at the top of the header has the rules and the preferences in
 * full.
 */
#ifndef CLOF_RW_H
#define CLOF_RW_H

#include <clof/lock.h>
#include <clof/topology.h>

/** The preference of an RW lock, chosen per instance at init (see the
 *  comment at the top of the header). */
enum {
    /** readers enter while writers wait (the zero lock; glibc's default) */
    CLOF_RW_PREF_READER = 0,
    /** an arriving reader waits while a writer holds or waits */
    CLOF_RW_PREF_WRITER = 1,
    /** readers and writers in arrival order, through the writer lock */
    CLOF_RW_PREF_NEUTRAL = 2,
};

/** The granularity of a lock's reader indicator, chosen at init; 0 = per
 *  NUMA node. */
enum {
    CLOF_RW_LEVEL_NUMA = 0,  /**< a counter per NUMA node */
    CLOF_RW_LEVEL_CACHE = 1, /**< a counter per cache group */
    CLOF_RW_LEVEL_NONE = 2,  /**< a single counter */
};

#ifndef CLOF_RW_SLOTS
/** Counters of a reader indicator (define it before the include to change
 *  it). */
#define CLOF_RW_SLOTS 8u /* counters of a reader indicator */
#endif

/** One counter of a reader indicator (a cache line). */
typedef struct {
    clof_atomic32_t n; /**< readers inside that registered here */
    /** writers waiting for n to reach 0 (spin-park only: a departing reader
     * that takes n to 0 looks for parked writers only when it is not 0) */
    clof_atomic32_t wwait;
    char pad_[CLOF_CACHELINE - 2 * sizeof(clof_atomic32_t)];
} CLOF_CACHE_ALIGNED clof_rw_slot_t;

/** The distributed reader indicator: CLOF_RW_SLOTS counters, empty when
 *  every counter is 0. */
typedef struct {
    clof_rw_slot_t slot[CLOF_RW_SLOTS]; /**< a reader's: its cohort mod SLOTS */
} clof_rw_ind_t;

/* The slot of the calling thread's cpu for an indicator of level `level`.
 * Locks call it through CLOF_RW_SLOT_OF, which a user of the headers may
 * define first to a cheaper equivalent (the preload library caches the
 * answer per thread and cpu): any slot is correct, the right one is only
 * more local. */
/** The level of topology t whose cohorts an indicator of level `level`
 * (not CLOF_RW_LEVEL_NONE) counts by: the lowest at or above the one asked
 * for, the system level on a machine without it. */
static inline uint32_t clof_rw_topo_level(const clof_topology_t *t, uint32_t level)
{
    clof_level_kind_t want = level == CLOF_RW_LEVEL_CACHE ? CLOF_LEVEL_CACHE
                                                          : CLOF_LEVEL_NUMA;
    uint32_t l = 0;
    while (l + 1 < t->nlevels && t->level[l].kind < want)
        l++;
    return l;
}

/** True when every cpu of t has slot 0 at `level` (one cohort there): a
 * reader then needs no cpu lookup. */
static inline bool clof_rw_one_slot(const clof_topology_t *t, uint32_t level)
{
    return level == CLOF_RW_LEVEL_NONE ||
           clof_topo_ncohorts(t, clof_rw_topo_level(t, level)) == 1;
}

/** The indicator slot of the calling thread's cpu for an indicator of
 *  level `level` (CLOF_RW_LEVEL_*): its cohort there, modulo
 *  CLOF_RW_SLOTS. */
static inline uint32_t clof_rw_slot_of(uint32_t level)
{
    if (level == CLOF_RW_LEVEL_NONE)
        return 0;
    const clof_topology_t *t = clof_topology();
    return clof_topo_cohort(t, clof_current_cpu(), clof_rw_topo_level(t, level)) %
           CLOF_RW_SLOTS;
}

#ifndef CLOF_RW_SLOT_OF
/** The slot function the locks call (a hook: any slot is correct; the
 *  default is clof_rw_slot_of). */
#define CLOF_RW_SLOT_OF(level) clof_rw_slot_of(level)
#endif

/* One waiting step until the word at a may differ from `seen`, by the
 * deadline (false once it has passed).  Without a deadline it is the
 * blocking await of await.h: the policy's phases start again at every
 * change of the word (a model checker then blocks the thread instead of
 * exploring a spin loop).  Keeping w's phases across changes instead (so
 * that a writer whose word keeps changing under it, readers coming and
 * going, parks sooner) was measured and lost: rw-central at 90% reads,
 * T = 8 and 16 on the 2-vCPU machine, fell from 0.72 and 0.42 of glibc to
 * 0.59 and 0.32 -- a spinning writer takes the short moments without
 * readers, a parked one needs a wake-up and misses them (docs/rwlocks.md). */
static inline bool clof_rw_wait_change_until_(clof_wait_t *w, const clof_atomic32_t *a,
                                              uint32_t seen, uint64_t deadline)
{
    if (deadline == CLOF_DEADLINE_NONE) {
        (void)clof_atomic32_await_neq_rlx(a, seen);
        return true;
    }
    return clof_atomic32_wait_until(w, a, seen, deadline);
}

/** Arrive: a seq_cst increment.  It is the first half of the Dekker pair
 * with a writer's flag (the reader then reads the flag, the writer writes
 * the flag and then reads the counters): either the reader sees the writer
 * or the writer sees the reader.  Neutral locks order it by their writer
 * lock instead; seq_cst costs them nothing on x86 and one barrier on Arm. */
CLOF_INLINE void clof_rw_ind_arrive(clof_rw_ind_t *ri, uint32_t slot)
{
    clof_atomic32_inc(&ri->slot[slot].n);
}

/** Depart: a decrement with release order (the reader's critical section
 * happens before the writer's acquire read of 0), seq_cst -- the waking
 * order -- when a writer may sleep on the counter; the reader that takes a
 * counter to 0 wakes a writer parked until it is 0.  Under spin-park it
 * looks in the parking table only when the slot's `wwait` says a writer
 * waits: the reader's seq_cst decrement and read of wwait against the
 * writer's seq_cst increment of wwait and its (seq_cst) reads of n, a
 * Dekker pair -- either the reader sees the waiting writer (and wakes it)
 * or the writer reads the 0 (and does not sleep). */
CLOF_INLINE void clof_rw_ind_depart(clof_rw_ind_t *ri, uint32_t slot)
{
    clof_atomic32_t *c = &ri->slot[slot].n;
#if CLOF_WAIT_CAN_PARK
    if (clof_atomic32_get_dec(c) == 1 &&
        CLOF_UNLIKELY(clof_atomic32_read(&ri->slot[slot].wwait) != 0))
        clof_atomic32_wake(c, 0);
#else
    if (clof_atomic32_get_dec_rel(c) == 1)
        clof_atomic32_wake(c, 0);
#endif
}

/** Empty: every counter 0, read seq_cst (the second half of the Dekker
 * pair; also acquire: the departed readers' sections happen before). */
static inline bool clof_rw_ind_empty(clof_rw_ind_t *ri)
{
    for (uint32_t i = 0; i < CLOF_RW_SLOTS; i++)
        if (clof_atomic32_read(&ri->slot[i].n) != 0)
            return false;
    return true;
}

/* A writer about to wait for slot i to empty raises its wwait (seq_cst,
 * before its reads of the counter: the writer's half of depart's Dekker
 * pair) and lowers it after (relaxed: a reader that still sees it only
 * looks in the parking table for nothing). */
static inline void clof_rw_ind_wwait_(clof_rw_ind_t *ri, uint32_t i, int d)
{
#if CLOF_WAIT_CAN_PARK
    if (d > 0)
        clof_atomic32_inc(&ri->slot[i].wwait);
    else
        clof_atomic32_dec_rlx(&ri->slot[i].wwait);
#else
    (void)ri, (void)i, (void)d;
#endif
}

/** Wait until every counter has been seen 0 (each in turn; the caller has
 * made sure no new reader can stay: its flag is up or it holds the writer
 * lock that a neutral reader needs).  Acquire: each 0 read is of the
 * departing reader's release (or later). */
static inline void clof_rw_ind_await_empty(clof_rw_ind_t *ri)
{
    for (uint32_t i = 0; i < CLOF_RW_SLOTS; i++) {
        if (clof_atomic32_read(&ri->slot[i].n) == 0)
            continue;
        clof_rw_ind_wwait_(ri, i, 1);
        (void)clof_atomic32_await_eq(&ri->slot[i].n, 0);
        clof_rw_ind_wwait_(ri, i, -1);
    }
}

/** clof_rw_ind_await_empty by a deadline: false when it passed first. */
static inline bool clof_rw_ind_await_empty_until(clof_rw_ind_t *ri,
                                                 uint64_t deadline)
{
    for (uint32_t i = 0; i < CLOF_RW_SLOTS; i++) {
        uint32_t v = clof_atomic32_read(&ri->slot[i].n);
        if (v == 0)
            continue;
        clof_rw_ind_wwait_(ri, i, 1);
        if (deadline == CLOF_DEADLINE_NONE) {
            (void)clof_atomic32_await_eq(&ri->slot[i].n, 0);
            clof_rw_ind_wwait_(ri, i, -1);
            continue;
        }
        clof_wait_t w = CLOF_WAIT_INIT;
        while ((v = clof_atomic32_read(&ri->slot[i].n)) != 0)
            if (!clof_atomic32_wait_until(&w, &ri->slot[i].n, v, deadline)) {
                clof_rw_ind_wwait_(ri, i, -1);
                return false;
            }
        clof_wait_end(&w);
        clof_rw_ind_wwait_(ri, i, -1);
    }
    return true;
}

/** An RW lock's operations as a table, typed void * (the lock, its
 * context): what a layer over any clof RW lock (rw/bravo.h) calls.  The
 * layer fills one with CLOF_RW_OPS_TABLE_(T, B) and passes it, constant,
 * to always-inlined functions, so every entry is a direct call, inlined in
 * turn (compose.h's scheme: no indirect call is left in an optimised
 * build; built with -O0 the calls through the table are real calls). */
typedef struct {
    /**@{*/
    /** the lock's function of that name: clof_NAME_init... */
    void (*init)(void *l, uint32_t pref);
    void (*set_pref)(void *l, uint32_t pref);
    bool (*read_tryacquire)(void *l, void *c);
    bool (*read_acquire_until)(void *l, void *c, uint64_t deadline);
    void (*read_acquire)(void *l, void *c);
    void (*read_release)(void *l, void *c);
    bool (*write_tryacquire)(void *l, void *c);
    bool (*write_acquire_until)(void *l, void *c, uint64_t deadline);
    void (*write_acquire)(void *l, void *c);
    void (*write_release)(void *l, void *c);
    /**@}*/
} clof_rw_ops_t;

/* The table T (a constant clof_rw_ops_t) of the RW lock clof_B_t, and its
 * entries T_<op>: one cast each. */
#define CLOF_RW_L_(B, l) ((clof_##B##_t *)(l))
#define CLOF_RW_C_(B, c) ((clof_##B##_ctx_t *)(c))
#define CLOF_RW_OPS_TABLE_(T, B)                                               \
    CLOF_INLINE void T##_init(void *l, uint32_t p)                             \
    { clof_##B##_init(CLOF_RW_L_(B, l), p); }                                  \
    CLOF_INLINE void T##_set_pref(void *l, uint32_t p)                         \
    { clof_##B##_set_pref(CLOF_RW_L_(B, l), p); }                              \
    CLOF_INLINE bool T##_rtry(void *l, void *c)                                \
    { return clof_##B##_read_tryacquire(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c)); } \
    CLOF_INLINE bool T##_runtil(void *l, void *c, uint64_t d)                  \
    { return clof_##B##_read_acquire_until(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c), d); } \
    CLOF_INLINE void T##_racq(void *l, void *c)                                \
    { clof_##B##_read_acquire(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c)); }           \
    CLOF_INLINE void T##_rrel(void *l, void *c)                                \
    { clof_##B##_read_release(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c)); }           \
    CLOF_INLINE bool T##_wtry(void *l, void *c)                                \
    { return clof_##B##_write_tryacquire(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c)); } \
    CLOF_INLINE bool T##_wuntil(void *l, void *c, uint64_t d)                  \
    { return clof_##B##_write_acquire_until(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c), d); } \
    CLOF_INLINE void T##_wacq(void *l, void *c)                                \
    { clof_##B##_write_acquire(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c)); }          \
    CLOF_INLINE void T##_wrel(void *l, void *c)                                \
    { clof_##B##_write_release(CLOF_RW_L_(B, l), CLOF_RW_C_(B, c)); }          \
    static const __attribute__((unused)) clof_rw_ops_t T = {                   \
        T##_init, T##_set_pref, T##_rtry, T##_runtil, T##_racq,                \
        T##_rrel, T##_wtry, T##_wuntil, T##_wacq, T##_wrel};

/* A timed acquisition over a lock that only has a tryacquire: try, then
 * wait on `word` (a word of the RW lock that changes whenever the lock may
 * have become free: the writer flag) for at most CLOF_RW_POLL_NS, and try
 * again, until the deadline.  The cap bounds the latency of a change the
 * word does not show (a neutral reader leaving the writer lock). */
/* Functions that the lock-defining macros (CLOF_RW_COHORT, CLOF_RW_BRAVO)
 * generate: a user's .c file that expands one need not call every one of
 * them (clang warns about unused static functions of the main file). */
#define CLOF_RW_GEN_ static inline __attribute__((unused))

#ifndef CLOF_RW_POLL_NS
/** The longest wait between two tries of a polled timed acquisition, in
 *  ns (define it before the include to change it). */
#define CLOF_RW_POLL_NS 1000000u /* 1 ms */
#endif
#define CLOF_RW_POLL_UNTIL_(try_expr, word, deadline)                          \
    __extension__({ /* a GNU statement expression, C and C++ */               \
        bool ok_ = false;                                                      \
        clof_wait_t w_ = CLOF_WAIT_INIT;                                       \
        for (;;) {                                                             \
            uint32_t seen_ = clof_atomic32_read_rlx(word);                     \
            if (try_expr) {                                                    \
                ok_ = true;                                                    \
                break;                                                         \
            }                                                                  \
            uint64_t now_ = clof_now_ns();                                     \
            if ((deadline) != CLOF_DEADLINE_NONE && now_ >= (deadline))        \
                break;                                                         \
            uint64_t cap_ = now_ + CLOF_RW_POLL_NS;                            \
            if (now_ == 0 || (deadline) < cap_)                                \
                cap_ = (deadline);                                             \
            (void)clof_rw_wait_change_until_(&w_, word, seen_, cap_);          \
        }                                                                      \
        clof_wait_end(&w_);                                                    \
        ok_;                                                                   \
    })

#endif /* CLOF_RW_H */
