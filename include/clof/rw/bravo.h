/* SPDX-License-Identifier: MIT */
/*
 * BRAVO: a reader bias over any clof RW lock.
 *
 * Algorithm (Dice and Kogan, "BRAVO -- Biased Locking for Reader-Writer
 * Locks", USENIX ATC'19, §3, Listing 1): the lock gets a flag `rbias` and a
 * time `inhibit_until`; all locks of the process share one table of
 * CLOF_BRAVO_SLOTS visible-reader slots.
 *   reader:  if (rbias) { slot = hash(lock, reader);
 *                         if (CAS(table[slot], NULL, lock)) {
 *                             if (rbias) done (fast: no write to the lock);
 *                             table[slot] = NULL; } }
 *            read-acquire the underlying lock B;
 *            if (!rbias && now >= inhibit_until) rbias = 1
 *   reader release: fast: table[slot] = NULL; else B's read release
 *   writer:  write-acquire B; if (rbias) { rbias = 0;            (revoke)
 *              wait until no slot of the table holds this lock;
 *              inhibit_until = now + (time the scan took) * CLOF_BRAVO_N }
 * One change to the paper: a writer that finds fast readers releases B while
 * it waits for them, and takes B again after (the bias stays revoked, and
 * inhibited meanwhile).  Waiting with B held deadlocks a fast reader that
 * reads again: its slot is taken (by itself), so it reads through B, which
 * the writer holds -- and glibc's default rwlock lets a thread holding a
 * read lock read again while a writer waits.  While such a writer waits
 * (`draining` > 0), every writer that takes B scans the table as well: the
 * fast readers it waits for are still inside although the bias is down.
 * The invariant: a fast reader is inside only while rbias or draining is
 * up.  So a write try (or a timed writer at its deadline) that finds fast
 * readers raises the bias again under B before it gives up (a timed writer
 * whose B is busy then leaves `draining` raised: later writers scan,
 * correct and slower).
 * Readers of one lock write to slots spread over the table instead of one
 * counter, so a compact lock (rw-central) reads as scalably as a
 * distributed one while the bias holds; a writer pays the scan, and the
 * inhibition window (N = 9 as in the paper) bounds that cost to about 1/(N+1)
 * of the time.  The reader's identity is its context's address (a thread
 * keeps using its own context; the preload library's is per thread); the
 * slot it took is kept in the context.  A slot already taken (another
 * thread's hash, or this thread holding the lock already) sends the reader
 * to B: correct, only slower.
 *
 * Declaring one: CLOF_RW_BRAVO(name, B) over the clof RW lock clof_B_t
 * (rw.h interface, header included before).  tryacquire: a write try that
 * finds fast readers gives up (the bias is revoked all the same).  Timed:
 * B's timed acquisition, then the wait for fast readers by the same deadline.
 * Properties: those of B, plus: with reader preference, readers on the fast
 * path bypass a writer waiting on B (it does not stop them until it holds B
 * and revokes the bias); a lock given writer preference (CLOF_RW_PREF_WRITER)
 * is never biased (inhibit_until at its maximum), so its readers always go
 * through B and its preference holds (a reader spinning on tryrdlock until a
 * waiting writer makes it fail, as glibc's tst-rwlock15 does, would spin for
 * ever otherwise).  All-zero bytes: B's zero lock, reader preference,
 * unbiased (the first read through B sets the bias).
 *
 * Memory orders: the reader's CAS of its slot and its re-read of rbias are
 * seq_cst, and so are the writer's rbias = 0 and its reads of the table: the
 * Dekker pair -- either the reader sees the revocation (and leaves the slot)
 * or the writer sees the slot (and waits for it).  Clearing a slot is a
 * waking write (release): the fast reader's section happens before the
 * writer's seq_cst (acquire) read of the cleared slot.  rbias = 1 is a
 * release store, read by the fast reader's seq_cst (acquire) re-read: the
 * one who biases the lock holds B (a slow reader or a writer giving up), so
 * it has seen every earlier writer's section, and a fast reader that finds
 * the bias must see them too -- it takes nothing else that orders it after
 * them.  (It was relaxed, argued by "the next writer holds B after it"; the
 * checker's C11 run of the BRAVO client found the fast reader that reads a
 * counter older than the last write: verify/clients_rw.c, rw.bravo.cohort.rp,
 * now in CI.)  The next writer is ordered after it by B.  `draining` is raised before
 * the waiting writer releases B and read by the next writer after it takes
 * B (B orders them; relaxed), and a writer's scan that reads a slot after
 * another writer saw the lock in it sees the lock or a later value
 * (coherence); inhibit_until is written by B's writers and read relaxed
 * (only a heuristic).
 */
/** \file
 * BRAVO, a reader bias over any clof RW lock: while the lock is biased a
 * reader registers in a process-wide table of visible readers instead of
 * writing the lock; a writer revokes the bias.  CLOF_RW_BRAVO(N, B)
 * declares one; rw/list.h the ones clof uses.  Algorithm and memory
 * orders: the comment at the top of the header.  The functions the
 * generated ones call (clof_bravo_init, clof_bravo_read_*,
 * clof_bravo_write_*...) are internal.
 */
#ifndef CLOF_RW_BRAVO_H
#define CLOF_RW_BRAVO_H

#include <clof/rw.h>

#ifndef CLOF_BRAVO_SLOTS
/** Slots of the visible readers' table, a power of two (define it before
 *  the include to change it). */
#define CLOF_BRAVO_SLOTS 4096u /* power of two */
#endif
#ifndef CLOF_BRAVO_N
/** The inhibition multiplier (the paper's N): after a revocation the bias
 *  stays off for N times as long as the revocation took. */
#define CLOF_BRAVO_N 9u /* inhibition multiplier (the paper's N) */
#endif

/** A slot of the visible readers' table: the lock a fast reader holds, or
 *  NULL. */
typedef CLOF_ATOMICPTR(void) clof_bravo_slot_t;
#ifdef __cplusplus
static_assert(sizeof(void *) == sizeof(uint64_t), "BRAVO's timed wait reads a slot as 64 bits");
#else
_Static_assert(sizeof(void *) == sizeof(uint64_t), "BRAVO's timed wait reads a slot as 64 bits");
#endif

/** The process-wide visible readers table (weak: one copy however many
 * includers, as wait.h's parking table). */
__attribute__((weak, visibility("default"))) clof_bravo_slot_t
    clof_bravo_table[CLOF_BRAVO_SLOTS];

/* The hash's inputs: the lock's address and the reader's (its context).
 * A backend whose runs must not depend on where the process's memory lands
 * (the simulator: a run is deterministic for its seed, and address space
 * randomization moves every heap and stack address from one process to the
 * next) gives keys of its own. */
#ifndef CLOF_BE_BRAVO_WHO_KEY
/** The reader's input to the table's hash (a backend hook, as
 *  CLOF_BE_LOCK_KEY of lock.h is the lock's). */
#define CLOF_BE_BRAVO_WHO_KEY(who) ((const void *)(who))
#endif

static inline uint32_t clof_bravo_hash_(const void *lock, const void *who)
{
    uint64_t h = (uint64_t)(uintptr_t)lock * 0x9e3779b97f4a7c15ull ^
                 (uint64_t)(uintptr_t)who * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 29;
    return (uint32_t)(h * 0xbf58476d1ce4e5b9ull >> 40) & (CLOF_BRAVO_SLOTS - 1);
}

/** A BRAVO lock's bias, beside its underlying lock B. */
typedef struct {
    clof_atomic32_t rbias;    /**< 1: readers take the fast path */
    clof_atomic32_t draining; /**< writers waiting for fast readers, B released */
    clof_atomic64_t inhibit_until; /**< no bias before this time (clof_now_ns) */
} clof_bravo_bias_t;

/* The fast read: true with the slot taken (*slot = index + 1). */
static inline bool clof_bravo_read_fast_(clof_bravo_bias_t *b, void *lock,
                                         const void *who, uint32_t *slot)
{
    if (clof_atomic32_read_rlx(&b->rbias) == 0)
        return false;
    uint32_t i = clof_bravo_hash_(CLOF_BE_LOCK_KEY(lock), CLOF_BE_BRAVO_WHO_KEY(who));
    clof_bravo_slot_t *s = &clof_bravo_table[i];
    if (clof_atomicptr_read_rlx(s) != NULL ||
        clof_atomicptr_cmpxchg(s, NULL, lock) != NULL)
        return false;
    if (CLOF_LIKELY(clof_atomic32_read(&b->rbias) != 0)) {
        *slot = i + 1;
        return true;
    }
    clof_atomicptr_write_wake(s, NULL); /* revoked meanwhile */
    return false;
}

/* After a read through B: bias the lock again when the window has passed. */
static inline void clof_bravo_read_slow_done_(clof_bravo_bias_t *b)
{
    if (clof_atomic32_read_rlx(&b->rbias) == 0 &&
        clof_now_ns() >= clof_atomic64_read_rlx(&b->inhibit_until))
        clof_atomic32_write_rel(&b->rbias, 1);
}

static inline void clof_bravo_read_fast_release_(uint32_t slot)
{
    clof_atomicptr_write_wake(&clof_bravo_table[slot - 1], NULL);
}

/* The writer, B held: revoke the bias (seq_cst store, then the seq_cst
 * reads of the table).  True when no fast reader holds the lock. */
static inline bool clof_bravo_revoke_(clof_bravo_bias_t *b, void *lock)
{
    clof_atomic32_write(&b->rbias, 0);
    for (uint32_t i = 0; i < CLOF_BRAVO_SLOTS; i++)
        if (CLOF_UNLIKELY(clof_atomicptr_read(&clof_bravo_table[i]) == lock))
            return false;
    return true;
}

/* Wait, by the deadline, until no slot holds the lock (B not held). */
static inline bool clof_bravo_drain_until_(void *lock, uint64_t deadline)
{
    for (uint32_t i = 0; i < CLOF_BRAVO_SLOTS; i++) {
        clof_bravo_slot_t *s = &clof_bravo_table[i];
        void *v = clof_atomicptr_read(s);
        if (CLOF_LIKELY(v != lock))
            continue;
        if (deadline == CLOF_DEADLINE_NONE) {
            (void)clof_atomicptr_await_neq(s, lock);
            continue;
        }
        /* timed: wait on the slot as the 64-bit word it is */
        clof_wait_t w = CLOF_WAIT_INIT;
        while ((v = clof_atomicptr_read(s)) == lock)
            if (!clof_wait_change_until_u64(&w, (const uint64_t *)(const void *)&s->_v,
                                            (uint64_t)(uintptr_t)v, deadline))
                return false;
        clof_wait_end(&w);
    }
    return true;
}

/* The inhibition window after a revocation that began at `start`. */
static inline void clof_bravo_inhibit_(clof_bravo_bias_t *b, uint64_t start)
{
    uint64_t now = clof_now_ns();
    clof_atomic64_write_rlx(&b->inhibit_until, now + (now - start) * CLOF_BRAVO_N);
}

/* ---- the BRAVO lock over B, as functions over B's table (rw.h's
 * clof_rw_ops_t): B = the underlying lock's operations, base = the lock's B
 * (its first member, so its address is the lock's: the identity a fast
 * reader writes into its slot), bc = the context's B (its first member:
 * the reader's identity), slot = the context's fast slot (index + 1; 0:
 * through B).  CLOF_RW_BRAVO (below) only declares the types and calls
 * these; a debugger steps through them. */
/* Writer preference keeps the lock unbiased: inhibited for ever (a fast
 * reader would pass the waiting writer that the preference promises to let
 * in first), BRAVO is then B itself. */
static inline uint64_t clof_bravo_inhibit_for_(uint32_t pref)
{
    return pref == CLOF_RW_PREF_WRITER ? UINT64_MAX : 0;
}

CLOF_INLINE void clof_bravo_init(const clof_rw_ops_t *B, void *base,
                                 clof_bravo_bias_t *bias, uint32_t pref)
{
    B->init(base, pref);
    clof_atomic32_write_rlx(&bias->rbias, 0);
    clof_atomic64_write_rlx(&bias->inhibit_until, clof_bravo_inhibit_for_(pref));
}

/* On an unlocked lock (no fast reader inside): B's preference, and the
 * bias down for writer preference. */
CLOF_INLINE void clof_bravo_set_pref(const clof_rw_ops_t *B, void *base,
                                     clof_bravo_bias_t *bias, uint32_t pref)
{
    B->set_pref(base, pref);
    clof_atomic32_write_rlx(&bias->rbias, 0);
    clof_atomic64_write_rlx(&bias->inhibit_until, clof_bravo_inhibit_for_(pref));
}

CLOF_INLINE bool clof_bravo_read_tryacquire(const clof_rw_ops_t *B, void *base,
                                            clof_bravo_bias_t *bias, void *bc,
                                            uint32_t *slot)
{
    if (clof_bravo_read_fast_(bias, base, bc, slot))
        return true;
    *slot = 0;
    if (!B->read_tryacquire(base, bc))
        return false;
    clof_bravo_read_slow_done_(bias);
    return true;
}

CLOF_INLINE bool clof_bravo_read_acquire_until(const clof_rw_ops_t *B,
                                               void *base, clof_bravo_bias_t *bias,
                                               void *bc, uint32_t *slot,
                                               uint64_t deadline)
{
    if (clof_bravo_read_fast_(bias, base, bc, slot))
        return true;
    *slot = 0;
    if (!B->read_acquire_until(base, bc, deadline))
        return false;
    clof_bravo_read_slow_done_(bias);
    return true;
}

CLOF_INLINE void clof_bravo_read_acquire(const clof_rw_ops_t *B, void *base,
                                         clof_bravo_bias_t *bias, void *bc,
                                         uint32_t *slot)
{
    if (clof_bravo_read_fast_(bias, base, bc, slot))
        return;
    *slot = 0;
    B->read_acquire(base, bc);
    clof_bravo_read_slow_done_(bias);
}

CLOF_INLINE void clof_bravo_read_release(const clof_rw_ops_t *B, void *base,
                                         void *bc, uint32_t slot)
{
    if (slot != 0)
        clof_bravo_read_fast_release_(slot);
    else
        B->read_release(base, bc);
}

/* Neither the bias nor a draining writer: no fast reader can be inside. */
CLOF_INLINE bool clof_bravo_unbiased_(clof_bravo_bias_t *bias)
{
    return (clof_atomic32_read_rlx(&bias->rbias) |
            clof_atomic32_read_rlx(&bias->draining)) == 0;
}

CLOF_INLINE bool clof_bravo_write_tryacquire(const clof_rw_ops_t *B, void *base,
                                             clof_bravo_bias_t *bias, void *bc)
{
    if (!B->write_tryacquire(base, bc))
        return false;
    if (CLOF_LIKELY(clof_bravo_unbiased_(bias)) || clof_bravo_revoke_(bias, base))
        return true;
    /* fast readers inside: bias up again, for the next writer to wait */
    clof_atomic32_write_rel(&bias->rbias, 1);
    B->write_release(base, bc);
    return false;
}

CLOF_INLINE bool clof_bravo_write_acquire_until(const clof_rw_ops_t *B,
                                                void *base, clof_bravo_bias_t *bias,
                                                void *bc, uint64_t deadline)
{
    for (;;) {
        if (deadline == CLOF_DEADLINE_NONE)
            B->write_acquire(base, bc);
        else if (!B->write_acquire_until(base, bc, deadline))
            return false;
        if (CLOF_LIKELY(clof_bravo_unbiased_(bias)))
            return true;
        uint64_t start = clof_now_ns();
        if (clof_bravo_revoke_(bias, base)) {
            clof_bravo_inhibit_(bias, start);
            return true;
        }
        /* fast readers inside: wait for them without holding B (one of
         * them may read again through B: a recursive read) */
        clof_atomic64_write_rlx(&bias->inhibit_until, UINT64_MAX);
        clof_atomic32_inc_rlx(&bias->draining);
        B->write_release(base, bc);
        if (!clof_bravo_drain_until_(base, deadline)) {
            /* timed out with fast readers inside: bias up again under B,
             * or (B busy) leave `draining` raised: writers keep scanning */
            if (B->write_tryacquire(base, bc)) {
                clof_atomic32_write_rel(&bias->rbias, 1);
                clof_atomic32_dec_rlx(&bias->draining);
                B->write_release(base, bc);
            }
            return false;
        }
        clof_atomic32_dec_rlx(&bias->draining);
        clof_bravo_inhibit_(bias, start);
    }
}

/** CLOF_RW_BRAVO(N, B): the BRAVO lock clof_N_t over the RW lock clof_B_t
 * (rw.h): its types, B's table clof_N_B_ops, and the interface of rw.h,
 * each function one call of the generic code.  The rw/list.h page shows such
 * declarations. */
#define CLOF_RW_BRAVO(N, B)                                                    \
    typedef struct {                                                           \
        clof_##B##_t base; /* first: the lock's address is B's */              \
        clof_bravo_bias_t bias;                                                \
    } clof_##N##_t;                                                            \
    typedef struct {                                                           \
        clof_##B##_ctx_t b; /* first: the reader's identity */                 \
        uint32_t slot;      /* fast read: table index + 1; 0: through B */     \
    } clof_##N##_ctx_t;                                                        \
    CLOF_RW_OPS_TABLE_(clof_##N##_B_ops, B)                                    \
    CLOF_RW_BRAVO_API_(N, &clof_##N##_B_ops)

/* The rw.h interface of clof_N_t, over the table OPS. */
#define CLOF_RW_BRAVO_API_(N, OPS)                                             \
    CLOF_RW_GEN_ void clof_##N##_init(clof_##N##_t *l, uint32_t pref)          \
    { clof_bravo_init(OPS, &l->base, &l->bias, pref); }                        \
    CLOF_RW_GEN_ void clof_##N##_set_pref(clof_##N##_t *l, uint32_t pref)      \
    { clof_bravo_set_pref(OPS, &l->base, &l->bias, pref); }                    \
    CLOF_RW_GEN_ bool clof_##N##_read_tryacquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_bravo_read_tryacquire(OPS, &l->base, &l->bias, &c->b, &c->slot); } \
    CLOF_RW_GEN_ bool clof_##N##_read_acquire_until(clof_##N##_t *l,           \
                                                    clof_##N##_ctx_t *c, uint64_t d) \
    { return clof_bravo_read_acquire_until(OPS, &l->base, &l->bias, &c->b, &c->slot, d); } \
    CLOF_RW_GEN_ void clof_##N##_read_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_bravo_read_acquire(OPS, &l->base, &l->bias, &c->b, &c->slot); }     \
    CLOF_RW_GEN_ void clof_##N##_read_release(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { clof_bravo_read_release(OPS, &l->base, &c->b, c->slot); }               \
    CLOF_RW_GEN_ bool clof_##N##_write_tryacquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { return clof_bravo_write_tryacquire(OPS, &l->base, &l->bias, &c->b); }   \
    CLOF_RW_GEN_ bool clof_##N##_write_acquire_until(clof_##N##_t *l,          \
                                                     clof_##N##_ctx_t *c, uint64_t d) \
    { return clof_bravo_write_acquire_until(OPS, &l->base, &l->bias, &c->b, d); } \
    CLOF_RW_GEN_ void clof_##N##_write_acquire(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { (void)clof_bravo_write_acquire_until(OPS, &l->base, &l->bias, &c->b,     \
                                           CLOF_DEADLINE_NONE); }              \
    CLOF_RW_GEN_ void clof_##N##_write_release(clof_##N##_t *l, clof_##N##_ctx_t *c) \
    { (OPS)->write_release(&l->base, &c->b); }

#endif /* CLOF_RW_BRAVO_H */
