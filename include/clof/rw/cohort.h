/* SPDX-License-Identifier: MIT */
/*
 * The cohort reader-writer locks of Calciu et al. over any clof lock.
 *
 * Algorithm (Calciu, Dice, Lev, Luchangco, Marathe, Shavit: "NUMA-aware
 * reader-writer locks", PPoPP'13, §3): the writers' mutual exclusion is a
 * lock W -- any clof lock: a cohort lock, HMCS, a CLoF composition of any
 * depth, so writers are batched per NUMA node (or per any level) as the
 * mutexes are -- and the readers register in a distributed reader indicator
 * (rw.h, clof_rw_ind_t: one counter per node or per cache group, each on
 * its own line).  A flag `wactive` (on its own line) says that the writer
 * that holds W is in or about to enter: it is a sequence, odd while raised,
 * and only W's holder writes it (raise: +1, lower: +1), so a waiter for a
 * change never misses a raise-and-lower in between (no ABA).  The three preferences of §3.2-3.4,
 * chosen per instance at init (rw.h):
 *
 *   neutral (C-RW-NP, §3.2)
 *     reader:  acquire W; arrive; release W
 *     writer:  acquire W; wactive = 1; wait until the indicator is empty
 *   reader preference (C-RW-RP, §3.3)
 *     reader:  arrive; if (!wactive) done;
 *              [try: depart, fail] wait, still arrived, for !wactive
 *     writer:  acquire W;
 *              loop { wactive = 1; if (empty) done; wactive = 0;
 *                     wait until empty }
 *   writer preference (C-RW-WP, §3.4)
 *     reader:  loop { wait for !wactive; arrive; if (!wactive) done; depart }
 *     writer:  acquire W; wactive = 1; wait until empty
 *   release: reader: depart; writer: wactive = 0 (a waking write); release W.
 *
 * The writer's wactive stays up while it waits, so a writer-preferring
 * lock's readers hold back as soon as a writer owns W; a reader-preferring
 * one keeps it up only when it found no reader (it lowers it again at once
 * when it finds one, and waits for the readers with the flag down), so
 * readers keep entering -- recursive reads included -- while a writer
 * waits, as glibc's default rwlock lets them.  (The paper's writer waits
 * for the indicator to empty before its first raise; raising first costs
 * an uncontended writer one scan of the indicator instead of two, and a
 * reader that arrives in the window waits only for the lowering.)
 *
 * Declaring one: CLOF_RW_COHORT(name, W) over the clof lock clof_W_t
 * (its header included before), e.g. CLOF_RW_COHORT(rw_c_bo_mcs, c_bo_mcs)
 * defines clof_rw_c_bo_mcs_t with the interface of rw.h.  Plus
 *   void clof_<name>_init_level(l, pref, level)  indicator granularity
 *                                                 (CLOF_RW_LEVEL_*)
 * Timed acquisition: readers wait on the flag by the deadline; a timed
 * writer polls W's tryacquire (rw.h, CLOF_RW_POLL_UNTIL_: W need not be
 * abortable) and then waits for the readers by the deadline (a writer that
 * gives up lowers wactive and releases W).
 *
 * Properties: writers in W's order (FIFO and NUMA-batched when W is);
 * reader preference may starve writers, writer preference readers (as the
 * paper says); neutral is as fair as W.  All-zero bytes are an unlocked,
 * reader-preferring lock with a per-node indicator (if W's zero bytes are
 * an unlocked W: every clof lock's are).  The reader's indicator slot is in
 * the context (a reader that migrates departs where it arrived).
 *
 * Memory orders:
 *   - W orders writers among themselves (its own acquire/release), and,
 *     under neutral preference, a reader's arrival before the next writer's
 *     acquisition of W (the arrival is inside W);
 *   - arrive is a seq_cst increment and the reader's next read of wactive is
 *     seq_cst; the writer's wactive = 1 is a seq_cst store and its reads of
 *     the counters are seq_cst: the Dekker pair -- either the reader sees
 *     the writer's flag (and departs) or the writer sees the arrival (and
 *     waits for it);
 *   - depart is a release decrement (seq_cst under spin-park, the waking
 *     order) read by the writer's seq_cst (hence acquire) await of 0: the
 *     reader's section happens before the writer's;
 *   - lowering wactive is a waking write (release), read by the reader's
 *     seq_cst check: the writer's section happens before the reader's;
 *     the holder's own read of wactive before it writes is relaxed (only
 *     W's holders write it, W orders them).
 */
/** \file
 * The cohort reader-writer locks of Calciu et al. over any clof lock: the
 * writers exclude each other with that lock, the readers register in a
 * distributed reader indicator (rw.h).  CLOF_RW_COHORT(N, W) declares one;
 * rw/list.h the ones clof uses.  Algorithm, preferences and memory orders:
 * the comment at the top of the header.  The functions the generated ones
 * call (clof_rw_cohort_*) are internal.
 */
#ifndef CLOF_RW_COHORT_H
#define CLOF_RW_COHORT_H

#include <clof/rw.h>

#include <string.h>

/* ---- the parts that do not depend on W ---- */

/** A cohort RW lock's writer flag and settings (a cache line). */
typedef struct {
    clof_atomic32_t wactive; /**< odd while W's holder is in or entering */
    uint32_t pref;  /**< CLOF_RW_PREF_*, written at init only */
    uint32_t level; /**< CLOF_RW_LEVEL_*, written at init only */
} CLOF_CACHE_ALIGNED clof_rw_flag_t;

/* Reader, reader or writer preference: one attempt (no waiting). */
CLOF_INLINE bool clof_rw_reader_try_(clof_rw_flag_t *f, clof_rw_ind_t *ri,
                                       uint32_t slot)
{
    if (f->pref == CLOF_RW_PREF_WRITER &&
        (clof_atomic32_read_rlx(&f->wactive) & 1) != 0)
        return false;
    clof_rw_ind_arrive(ri, slot);
    if ((clof_atomic32_read(&f->wactive) & 1) == 0)
        return true;
    clof_rw_ind_depart(ri, slot);
    return false;
}

/* Reader preference, by a deadline: arrive and stay arrived while the
 * flag is up.  The paper's reader departs and retries; with the writer's
 * loop (raise, find a reader, lower, wait for the indicator to empty) that
 * lets both sides retreat in step for ever -- the simulator's regular
 * timing found that livelock from two threads up (docs/rwlocks.md).  A
 * reader that stays arrived cannot be passed that way: a writer that raises
 * after the arrival sees it and lowers (and then waits for the indicator
 * with the flag down), and a writer that raised before it and saw the
 * indicator empty is inside and lowers when it leaves; either way the flag
 * comes down and the reader enters without arriving again.  Mutual
 * exclusion is the same Dekker pair as the first try's (arrive, then a
 * seq_cst read of wactive that finds it even).  False, departed, when the
 * deadline passes first. */
CLOF_SLOW bool clof_rw_reader_wait_rp_(clof_rw_flag_t *f, clof_rw_ind_t *ri, uint32_t slot,
                                       uint64_t deadline)
{
    clof_wait_t w = CLOF_WAIT_INIT;
    clof_rw_ind_arrive(ri, slot);
    for (;;) {
        uint32_t seen = clof_atomic32_read(&f->wactive);
        if ((seen & 1) == 0)
            break;
        if (!clof_rw_wait_change_until_(&w, &f->wactive, seen, deadline)) {
            clof_rw_ind_depart(ri, slot);
            return false;
        }
    }
    clof_wait_end(&w);
    return true;
}

/* Reader, reader or writer preference, by a deadline: the first attempt
 * inline, the waiting out of line. */
CLOF_SLOW bool clof_rw_reader_wait_(clof_rw_flag_t *f, clof_rw_ind_t *ri,
                                    uint32_t slot, uint64_t deadline)
{
    if (f->pref == CLOF_RW_PREF_READER)
        return clof_rw_reader_wait_rp_(f, ri, slot, deadline);
    clof_wait_t w = CLOF_WAIT_INIT;
    do {
        uint32_t seen = clof_atomic32_read_rlx(&f->wactive);
        if ((seen & 1) != 0 && !clof_rw_wait_change_until_(&w, &f->wactive, seen, deadline))
            return false;
        if ((seen & 1) == 0 && clof_deadline_passed(deadline))
            return false;
    } while (!clof_rw_reader_try_(f, ri, slot));
    clof_wait_end(&w);
    return true;
}
CLOF_INLINE bool clof_rw_reader_until_(clof_rw_flag_t *f, clof_rw_ind_t *ri,
                                         uint32_t slot, uint64_t deadline)
{
    if (CLOF_LIKELY(clof_rw_reader_try_(f, ri, slot)))
        return true;
    return clof_rw_reader_wait_(f, ri, slot, deadline);
}

/* Lower wactive (to the even v): a waking write.  Everyone who waits on
 * wactive waits for any change (readers, timed writers polling W), so only
 * the parking table's any-change bucket is looked at; and a writer that
 * woke readers does not hand them its cpu (wait.h's hand-over yield): it
 * still holds W. */
static inline void clof_rw_flag_lower_(clof_rw_flag_t *f, uint32_t v)
{
    clof_atomic32_write_wakeable(&f->wactive, v);
    clof_wake(&f->wactive._v);
}

/* Writer, W held: keep the readers out and wait for those inside.  False
 * (wactive down again, W still held) when the deadline passed first. */
static inline bool clof_rw_writer_enter_until_(clof_rw_flag_t *f,
                                               clof_rw_ind_t *ri,
                                               uint64_t deadline)
{
    uint32_t v = clof_atomic32_read_rlx(&f->wactive); /* even: ours to raise */
    if (f->pref != CLOF_RW_PREF_READER) {
        clof_atomic32_write(&f->wactive, v + 1);
        if (CLOF_LIKELY(clof_rw_ind_empty(ri)))
            return true;
        if (clof_rw_ind_await_empty_until(ri, deadline))
            return true;
        clof_rw_flag_lower_(f, v + 2);
        return false;
    }
    for (;;) {
        clof_atomic32_write(&f->wactive, v + 1);
        if (CLOF_LIKELY(clof_rw_ind_empty(ri)))
            return true;
        /* readers inside: lower the flag (they, and any recursive read,
         * must be able to finish), wait for them with it down, again */
        v += 2;
        clof_rw_flag_lower_(f, v);
        if (!clof_rw_ind_await_empty_until(ri, deadline))
            return false;
    }
}

static inline void clof_rw_writer_exit_(clof_rw_flag_t *f)
{
    uint32_t v = clof_atomic32_read_rlx(&f->wactive); /* odd: ours */
    clof_rw_flag_lower_(f, v + 1);
}

/* ---- the lock over W, as functions over W's table ----
 * W: the writer lock's operations (lock.h interface, typed void *), wl and
 * wc: the lock's W and the context's; f, ind: the lock's flag and reader
 * indicator; slot: the context's indicator slot.  CLOF_RW_COHORT (below)
 * only declares the types and calls these; a debugger steps through them. */
typedef struct clof_rw_cohort_ops clof_rw_cohort_ops_t;
struct clof_rw_cohort_ops {
    void (*acquire)(void *l, void *c);
    bool (*tryacquire)(void *l, void *c);
    void (*release)(void *l, void *c);
    /* the lock's clof_rw_cohort_read_np_ over this table: an ordinary
     * (not forced inline) function, so that the reader's fast path, which
     * calls it under neutral preference only, stays small */
    bool (*read_np)(void *wl, void *wc, clof_rw_ind_t *ind, uint32_t slot, bool once);
};

static inline void clof_rw_cohort_init_flag(clof_rw_flag_t *f, uint32_t pref,
                                            uint32_t level)
{
    f->pref = pref;
    f->level = level;
}

/* readers under neutral preference register inside W */
CLOF_INLINE bool clof_rw_cohort_read_np_(const clof_rw_cohort_ops_t *W, void *wl,
                                         void *wc, clof_rw_ind_t *ind,
                                         uint32_t slot, bool once)
{
    if (once) {
        if (!W->tryacquire(wl, wc))
            return false;
    } else {
        W->acquire(wl, wc);
    }
    clof_rw_ind_arrive(ind, slot);
    W->release(wl, wc);
    return true;
}

CLOF_INLINE bool clof_rw_cohort_read_tryacquire(const clof_rw_cohort_ops_t *W,
                                                void *wl, clof_rw_flag_t *f,
                                                clof_rw_ind_t *ind, void *wc,
                                                uint32_t *slot)
{
    uint32_t s = CLOF_RW_SLOT_OF(f->level);
    bool ok;
    if (f->pref == CLOF_RW_PREF_NEUTRAL)
        ok = W->read_np(wl, wc, ind, s, true);
    else
        ok = clof_rw_reader_try_(f, ind, s);
    *slot = s; /* written last: the reads of f above need no reload */
    return ok;
}

CLOF_INLINE bool clof_rw_cohort_read_acquire_until(const clof_rw_cohort_ops_t *W,
                                                   void *wl, clof_rw_flag_t *f,
                                                   clof_rw_ind_t *ind, void *wc,
                                                   uint32_t *slot, uint64_t deadline)
{
    uint32_t s = CLOF_RW_SLOT_OF(f->level);
    bool ok;
    if (f->pref == CLOF_RW_PREF_NEUTRAL)
        ok = CLOF_RW_POLL_UNTIL_(W->read_np(wl, wc, ind, s, true), &f->wactive, deadline);
    else
        ok = clof_rw_reader_until_(f, ind, s, deadline);
    *slot = s;
    return ok;
}

CLOF_INLINE void clof_rw_cohort_read_acquire(const clof_rw_cohort_ops_t *W,
                                             void *wl, clof_rw_flag_t *f,
                                             clof_rw_ind_t *ind, void *wc,
                                             uint32_t *slot)
{
    uint32_t s = CLOF_RW_SLOT_OF(f->level);
    if (f->pref == CLOF_RW_PREF_NEUTRAL)
        (void)W->read_np(wl, wc, ind, s, false);
    else
        (void)clof_rw_reader_until_(f, ind, s, CLOF_DEADLINE_NONE);
    *slot = s;
}

CLOF_INLINE bool clof_rw_cohort_write_tryacquire(const clof_rw_cohort_ops_t *W,
                                                 void *wl, clof_rw_flag_t *f,
                                                 clof_rw_ind_t *ind, void *wc)
{
    if (!W->tryacquire(wl, wc))
        return false;
    if (clof_rw_writer_enter_until_(f, ind, 0))
        return true;
    W->release(wl, wc);
    return false;
}

CLOF_INLINE bool clof_rw_cohort_write_acquire_until(const clof_rw_cohort_ops_t *W,
                                                    void *wl, clof_rw_flag_t *f,
                                                    clof_rw_ind_t *ind, void *wc,
                                                    uint64_t deadline)
{
    if (!CLOF_RW_POLL_UNTIL_(W->tryacquire(wl, wc), &f->wactive, deadline))
        return false;
    if (clof_rw_writer_enter_until_(f, ind, deadline))
        return true;
    W->release(wl, wc);
    return false;
}

CLOF_INLINE void clof_rw_cohort_write_acquire(const clof_rw_cohort_ops_t *W,
                                              void *wl, clof_rw_flag_t *f,
                                              clof_rw_ind_t *ind, void *wc)
{
    W->acquire(wl, wc);
    (void)clof_rw_writer_enter_until_(f, ind, CLOF_DEADLINE_NONE);
}

CLOF_INLINE void clof_rw_cohort_write_release(const clof_rw_cohort_ops_t *W,
                                              void *wl, clof_rw_flag_t *f,
                                              void *wc)
{
    clof_rw_writer_exit_(f);
    W->release(wl, wc);
}

/* ---- the generator: types, W's table, one-line calls of the above ---- */

/** CLOF_RW_COHORT(N, W): the cohort RW lock clof_N_t over the mutex
 * clof_W_t (any clof lock: lock.h).  It declares clof_N_t (all-zero: an
 * unlocked lock preferring readers, a counter per NUMA node),
 * clof_N_ctx_t and the interface of rw.h, plus
 * clof_N_init_level(l, pref, level): init with the indicator's granularity
 * (CLOF_RW_LEVEL_*; clof_N_init takes CLOF_RW_LEVEL_NUMA).  The rw/list.h
 * page shows such declarations. */
#define CLOF_RW_COHORT(N, W)                                                   \
    typedef struct {                                                           \
        clof_##W##_t wlock;                                                    \
        clof_rw_flag_t flag;                                                   \
        clof_rw_ind_t ind;                                                     \
    } clof_##N##_t;                                                            \
    typedef struct {                                                           \
        clof_##W##_ctx_t w;                                                    \
        uint32_t slot;                                                         \
    } clof_##N##_ctx_t;                                                        \
    CLOF_INLINE void clof_##N##_W_acq_(void *l, void *c)                       \
    { clof_##W##_acquire((clof_##W##_t *)l, (clof_##W##_ctx_t *)c); }          \
    CLOF_INLINE bool clof_##N##_W_try_(void *l, void *c)                       \
    { return clof_##W##_tryacquire((clof_##W##_t *)l, (clof_##W##_ctx_t *)c); } \
    CLOF_INLINE void clof_##N##_W_rel_(void *l, void *c)                       \
    { clof_##W##_release((clof_##W##_t *)l, (clof_##W##_ctx_t *)c); }          \
    CLOF_RW_GEN_ bool clof_##N##_read_np_(void *wl, void *wc, clof_rw_ind_t *ind, \
                                           uint32_t slot, bool once);         \
    static const __attribute__((unused)) clof_rw_cohort_ops_t clof_##N##_W_ops = { \
        clof_##N##_W_acq_, clof_##N##_W_try_, clof_##N##_W_rel_,               \
        clof_##N##_read_np_};                                                  \
    CLOF_RW_GEN_ bool clof_##N##_read_np_(void *wl, void *wc, clof_rw_ind_t *ind, \
                                           uint32_t slot, bool once)          \
    { return clof_rw_cohort_read_np_(&clof_##N##_W_ops, wl, wc, ind, slot, once); } \
    CLOF_RW_COHORT_API_(N, &clof_##N##_W_ops)

/* the arguments of every call: W's table and the lock's and context's parts */
#define CLOF_RW_COHORT_ARGS_(OPS, l, c) OPS, &(l)->wlock, &(l)->flag, &(l)->ind, &(c)->w

/* The rw.h interface of clof_N_t over the table OPS (the reader's and the
 * writer's paths always inlined, as the generic functions they call). */
#define CLOF_RW_COHORT_API_(N, OPS)                                            \
    CLOF_RW_GEN_ void clof_##N##_init_level(clof_##N##_t *l, uint32_t pref, uint32_t level) \
    { memset(l, 0, sizeof *l); clof_rw_cohort_init_flag(&l->flag, pref, level); } \
    CLOF_RW_GEN_ void clof_##N##_set_pref(clof_##N##_t *l, uint32_t pref)      \
    { l->flag.pref = pref; }                                                   \
    CLOF_RW_GEN_ void clof_##N##_init(clof_##N##_t *l, uint32_t pref)          \
    { clof_##N##_init_level(l, pref, CLOF_RW_LEVEL_NUMA); }                    \
    CLOF_INLINE bool clof_##N##_read_tryacquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_rw_cohort_read_tryacquire(CLOF_RW_COHORT_ARGS_(OPS, l, c), &c->slot); } \
    CLOF_RW_GEN_ bool clof_##N##_read_acquire_until(clof_##N##_t *l,           \
                                                    clof_##N##_ctx_t *c, uint64_t d) \
    { return clof_rw_cohort_read_acquire_until(CLOF_RW_COHORT_ARGS_(OPS, l, c), &c->slot, d); } \
    CLOF_INLINE void clof_##N##_read_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_rw_cohort_read_acquire(CLOF_RW_COHORT_ARGS_(OPS, l, c), &c->slot); } \
    CLOF_INLINE void clof_##N##_read_release(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_rw_ind_depart(&l->ind, c->slot); }                                  \
    CLOF_INLINE bool clof_##N##_write_tryacquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_rw_cohort_write_tryacquire(CLOF_RW_COHORT_ARGS_(OPS, l, c)); } \
    CLOF_RW_GEN_ bool clof_##N##_write_acquire_until(clof_##N##_t *l,          \
                                                     clof_##N##_ctx_t *c, uint64_t d) \
    { return clof_rw_cohort_write_acquire_until(CLOF_RW_COHORT_ARGS_(OPS, l, c), d); } \
    CLOF_INLINE void clof_##N##_write_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_rw_cohort_write_acquire(CLOF_RW_COHORT_ARGS_(OPS, l, c)); }         \
    CLOF_INLINE void clof_##N##_write_release(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_rw_cohort_write_release(OPS, &l->wlock, &l->flag, &c->w); }

#endif /* CLOF_RW_COHORT_H */
