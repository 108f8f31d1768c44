/* SPDX-License-Identifier: MIT */
/*
 * rw-central: the centralized reader-writer lock, the baseline the
 * NUMA-aware ones are measured against.
 *
 * Algorithm: one 32-bit word, glibc's shape (one reader count that every
 * reader on every node writes, and the writer's state beside it):
 *   bit 0          WRITER   a writer holds the lock
 *   bits 1..11     the number of writers waiting, times 2 (WWAIT)
 *   bits 12..31    the number of readers inside, times 4096 (READER)
 * A reader adds READER with one fetch-and-add (glibc's readers do the
 * same: no CAS loop that every other reader's arrival fails) and is in when
 * the word it replaced had none of the bits that keep it out -- WRITER, and
 * under writer preference also WWAITS; otherwise it backs out (subtracts
 * READER again, exactly a release: it wakes a writer waiting for the count
 * when it took it to 0) and waits until the word shows none of them, then
 * adds again.  Under writer preference a waiting reader reads the word
 * before it adds (glibc's rdlock does the same for
 * PREFER_WRITER_NONRECURSIVE_NP): its adds would otherwise keep moving the
 * count that a waiting writer needs to see 0.  A writer CASes the word from
 * "no reader, no writer" to WRITER; otherwise it adds WWAIT, waits for the
 * word to change, and takes the lock with a CAS that removes its WWAIT and
 * sets WRITER (a writer whose deadline passes removes its WWAIT and wakes
 * the readers it kept out).  A reader that is backing out counts as a
 * reader for that moment: a writer's try then fails, as glibc's trywrlock
 * does beside a reader that has added and not yet left.  Release: a reader
 * subtracts READER, a writer WRITER; either wakes the waiters of the word
 * when it may have let someone in: the last reader out while a writer
 * waits (the release's RMW reads the WWAIT of a writer that announced
 * itself before it; one that announces itself after reads the smaller
 * count), every writer release.
 * Neutral preference is served as writer preference here
 * (a single word has no queue to be neutral with).
 * Paper: the centralized lock of Calciu et al. (PPoPP'13) §2, the shape of
 * glibc's pthread_rwlock_t (one __readers word with the writer bits; its
 * readers fetch-and-add, nptl/pthread_rwlock_common.c).
 * Properties: not FIFO; readers may starve writers under reader preference
 * and writers readers under writer preference; zero bytes are an unlocked
 * reader-preferring lock; no context is needed (clof_noctx_t).
 *
 * Memory orders: a reader's add is acquire: when it enters, it read (in the
 * word's modification order, a release sequence continued by every other
 * reader's RMW) the previous writer's release.  A writer's CAS that takes
 * the lock is acquire: it reads the last reader's release (or the previous
 * writer's).  Adding WWAIT is relaxed (it publishes nothing; a reader that
 * misses it only enters as under reader preference); removing it at a
 * timeout is a seq_cst RMW followed by a wake (waking order).
 * The releases -- and a reader's back-out, which is one -- are seq_cst
 * read-modify-writes under spin-park (the waking order: a waiter parked on
 * the word is seen by the wake that follows) and release otherwise (a
 * back-out publishes nothing, but a writer waiting for the count reads it
 * like a departure).  The pre-reads of the word are relaxed (filters for
 * the RMWs).
 */
/** \file
 * rw-central, the centralized reader-writer lock of one word (glibc's
 * shape): the baseline the NUMA-aware ones are measured against.  The
 * interface of rw.h; algorithm and memory orders: the comment at the top
 * of the header. */
#ifndef CLOF_RW_CENTRAL_H
#define CLOF_RW_CENTRAL_H

#include <clof/rw.h>

#define CLOF_RWC_WRITER 1u          /**< in the word: a writer holds the lock */
#define CLOF_RWC_WWAIT 2u           /**< in the word: one waiting writer */
#define CLOF_RWC_WWAITS 0xffeu      /**< the waiting writers' count */
#define CLOF_RWC_READER 4096u       /**< in the word: one reader inside */
#define CLOF_RWC_READERS 0xfffff000u /**< the readers' count */

/** The rw-central lock (8 bytes). */
typedef struct {
    clof_atomic32_t word; /**< CLOF_RWC_WRITER, the WWAITS and READERS counts */
    uint32_t pref; /**< CLOF_RW_PREF_*, written at init only */
} clof_rw_central_t;
/** rw-central needs no context: any clof_noctx_t (lock.h). */
typedef clof_noctx_t clof_rw_central_ctx_t;

/** Static initializer of an unlocked rw-central lock preferring readers. */
#define CLOF_RW_CENTRAL_INITIALIZER {CLOF_ATOMIC32_INIT(0), 0}

/** Initialise the rw-central lock l unlocked, with preference pref
 * (CLOF_RW_PREF_*). */
static inline void clof_rw_central_init(clof_rw_central_t *l, uint32_t pref)
{
    clof_atomic32_write_rlx(&l->word, 0);
    l->pref = pref;
}

/** Change the preference of the unlocked rw-central lock l to pref, keeping
 * the rest. */
static inline void clof_rw_central_set_pref(clof_rw_central_t *l, uint32_t pref)
{
    l->pref = pref;
}

/* The bits that keep a reader out. */
static inline uint32_t clof_rw_central_rblock_(const clof_rw_central_t *l)
{
    return l->pref == CLOF_RW_PREF_READER ? CLOF_RWC_WRITER
                                          : CLOF_RWC_WRITER | CLOF_RWC_WWAITS;
}

/** Release a read hold of the rw-central lock l, with the context c it was
 * acquired with. */
static inline void clof_rw_central_read_release(clof_rw_central_t *l,
                                                clof_rw_central_ctx_t *c)
{
    (void)c;
#if CLOF_WAIT_CAN_PARK
    uint32_t o = clof_atomic32_get_sub(&l->word, CLOF_RWC_READER);
#else
    uint32_t o = clof_atomic32_get_sub_rel(&l->word, CLOF_RWC_READER);
#endif
    /* the last reader out may let a waiting writer in (only a writer waits
     * for the readers to leave: a reader waits for WRITER, or under writer
     * preference for WWAITS, which this release changes neither of) */
    if ((o & CLOF_RWC_READERS) == CLOF_RWC_READER && (o & CLOF_RWC_WWAITS) != 0)
        clof_wake(&l->word._v);
}

/* One fetch-and-add: in when the word it replaced had no bit of `block`;
 * otherwise back out (a release: see the header) and say no. */
static inline bool clof_rw_central_arrive_(clof_rw_central_t *l, uint32_t block)
{
    uint32_t o = clof_atomic32_get_add_acq(&l->word, CLOF_RWC_READER);
    if (CLOF_LIKELY(!(o & block)))
        return true;
    clof_rw_central_read_release(l, NULL);
    return false;
}

/** Acquire the rw-central lock l for reading if that needs no waiting: true
 * when held with context c. */
static inline bool clof_rw_central_read_tryacquire(clof_rw_central_t *l,
                                                   clof_rw_central_ctx_t *c)
{
    (void)c;
    uint32_t block = clof_rw_central_rblock_(l);
    /* under writer preference, do not add while a writer waits (a count a
     * waiting writer would have to see fall back to 0) */
    if (block != CLOF_RWC_WRITER && (clof_atomic32_read_rlx(&l->word) & block))
        return false;
    return clof_rw_central_arrive_(l, block);
}

/** Acquire the rw-central lock l for reading by the deadline (ns on the
 * clof_now_ns clock; CLOF_DEADLINE_NONE: none): false, nothing held,
 * when it passes first. */
static inline bool clof_rw_central_read_acquire_until(clof_rw_central_t *l,
                                                      clof_rw_central_ctx_t *c,
                                                      uint64_t deadline)
{
    (void)c;
    uint32_t block = clof_rw_central_rblock_(l);
    clof_wait_t w = CLOF_WAIT_INIT;
    for (;;) {
        uint32_t s = clof_atomic32_read_rlx(&l->word);
        if (!(s & block)) {
            if (clof_rw_central_arrive_(l, block))
                break;
            continue;
        }
        if (!clof_rw_wait_change_until_(&w, &l->word, s, deadline))
            return false;
    }
    clof_wait_end(&w);
    return true;
}

/** Acquire the rw-central lock l for reading, waiting while a writer holds
 * it (or, by the preference, waits for it); c: this hold's context. */
static inline void clof_rw_central_read_acquire(clof_rw_central_t *l,
                                                clof_rw_central_ctx_t *c)
{
    if (CLOF_LIKELY(clof_rw_central_read_tryacquire(l, c)))
        return;
    (void)clof_rw_central_read_acquire_until(l, c, CLOF_DEADLINE_NONE);
}

/** Acquire the rw-central lock l for writing if that needs no waiting: true
 * when held with context c. */
static inline bool clof_rw_central_write_tryacquire(clof_rw_central_t *l,
                                                    clof_rw_central_ctx_t *c)
{
    (void)c;
    uint32_t s = clof_atomic32_read_rlx(&l->word);
    while ((s & (CLOF_RWC_WRITER | CLOF_RWC_READERS)) == 0) {
        uint32_t o = clof_atomic32_cmpxchg_acq(&l->word, s, s | CLOF_RWC_WRITER);
        if (o == s)
            return true;
        s = o;
    }
    return false;
}

/** Acquire the rw-central lock l for writing by the deadline (ns on the
 * clof_now_ns clock; CLOF_DEADLINE_NONE: none): false, nothing held,
 * when it passes first. */
static inline bool clof_rw_central_write_acquire_until(clof_rw_central_t *l,
                                                       clof_rw_central_ctx_t *c,
                                                       uint64_t deadline)
{
    if (clof_rw_central_write_tryacquire(l, c))
        return true;
    clof_wait_t w = CLOF_WAIT_INIT;
    uint32_t s = clof_atomic32_get_add_rlx(&l->word, CLOF_RWC_WWAIT) + CLOF_RWC_WWAIT;
    for (;;) {
        if ((s & (CLOF_RWC_WRITER | CLOF_RWC_READERS)) == 0) {
            uint32_t d = (s - CLOF_RWC_WWAIT) | CLOF_RWC_WRITER;
            uint32_t o = clof_atomic32_cmpxchg_acq(&l->word, s, d);
            if (o == s)
                break;
            s = o;
            continue;
        }
        if (!clof_rw_wait_change_until_(&w, &l->word, s, deadline)) {
            /* give up: our WWAIT may be all that keeps readers waiting */
            (void)clof_atomic32_get_sub(&l->word, CLOF_RWC_WWAIT);
            clof_wake(&l->word._v);
            return false;
        }
        s = clof_atomic32_read_rlx(&l->word);
    }
    clof_wait_end(&w);
    return true;
}

/** Acquire the rw-central lock l for writing, waiting for the writer and the
 * readers inside to leave; c: this hold's context. */
static inline void clof_rw_central_write_acquire(clof_rw_central_t *l,
                                                 clof_rw_central_ctx_t *c)
{
    if (CLOF_LIKELY(clof_rw_central_write_tryacquire(l, c)))
        return;
    (void)clof_rw_central_write_acquire_until(l, c, CLOF_DEADLINE_NONE);
}

/** Release the write hold of the rw-central lock l, acquired with context c. */
static inline void clof_rw_central_write_release(clof_rw_central_t *l,
                                                 clof_rw_central_ctx_t *c)
{
    (void)c;
#if CLOF_WAIT_CAN_PARK
    (void)clof_atomic32_get_sub(&l->word, CLOF_RWC_WRITER);
#else
    (void)clof_atomic32_get_sub_rel(&l->word, CLOF_RWC_WRITER);
#endif
    clof_wake(&l->word._v);
}

#endif /* CLOF_RW_CENTRAL_H */
