/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_profile.h -- the profiling mode of libclof-preload.so
 * (CLOF_PROFILE=<file prefix>; `clof profile` sets it, docs/profile.md).
 *
 * Every lock the program uses gets a record in one table, keyed by the
 * lock's address and kind, found by hashing the address (open addressing,
 * linear probing, a slot claimed by a CAS of its key; records are never
 * removed, so a lookup never sees a record move).  The counters of a mutex
 * are written by the thread that holds the mutex, right after acquiring it
 * or right before releasing it: the mutex itself serialises them, so they
 * are plain increments, exact, and their cache line travels with the lock
 * (under glibc's mutexes the acquisition count is the exception: atomic,
 * see below).
 * What is counted outside a lock (trylock busy, timeouts, condition
 * variables' waits and signals) is counted with atomic adds.
 *
 * The uncontended path adds a table lookup and a decrement: no clock read,
 * no system call, no global lock.  A contended acquisition reads the clock
 * before and after its wait and records the wait with its call site (the
 * return address of the pthread call: the program's code).  Hold times are
 * sampled: one acquisition in CLOF_PROFILE_HOLD (a power of two, default
 * 64) of each lock reads a clock (the TSC where it can) at the acquisition
 * and at the release.
 *
 * A mutex's acquisitions are counted down, not up: every acquisition
 * decrements `down`, and the one that takes it below zero is the sampled
 * one, which adds the sampling period to both `down` and `acq`; the count
 * is acq - down.  A decrement and a test of its sign is one instruction
 * fewer than an increment and a test of its low bits, on the path every
 * acquisition takes.
 *
 * Under glibc's own mutexes (CLOF_LOCK unset or glibc) the uncontended
 * path does not try the lock first: it peeks at glibc's lock word
 * (__data.__lock, 0 when the mutex is free), and when it is 0 counts the
 * acquisition (an atomic decrement: the lock is not held yet) and jumps
 * straight into glibc's pthread_mutex_lock.  A non-zero word takes the
 * path of a clof lock: trylock, and time the lock when the try fails.
 * What that costs in accuracy is in docs/profile.md ("What is lost").
 *
 * Lock kinds: PL_PROF_MUTEX, PL_PROF_COND (waits, time waited, signals,
 * broadcasts), PL_PROF_RWLOCK (pthread_rwlock_*, under glibc's rwlocks or
 * CLOF_RWLOCK's: the same record, write acquisitions in acq, read
 * acquisitions in rd_acq, every count an atomic add since readers hold it
 * together; holds not sampled).
 */
#ifndef CLOF_PRELOAD_PROFILE_H
#define CLOF_PRELOAD_PROFILE_H

#include "pl_internal.h"

enum { PL_PROF_MUTEX = 0, PL_PROF_COND = 1, PL_PROF_RWLOCK = 2 };

#define PL_PROF_SITES 4 /* call sites kept per lock (the others: "other") */

typedef struct pl_prof_site {
    uint64_t pc;       /* return address of the waiting call, 0: free */
    uint64_t n;        /* contended acquisitions (cond: waits) from it */
    uint64_t wait_ns;  /* their total wait */
    uint64_t wait_max; /* their longest wait */
} pl_prof_site_t;

typedef struct pl_prof_rec {
    /* first cache line: what every acquisition touches */
    uintptr_t key;         /* address | kind, 0: free slot (atomic) */
    uint64_t acq;          /* acquisitions (cond: waits); a mutex's are acq - down */
    int64_t down;          /* mutex: countdown to the next sampled hold (below) */
    uint64_t contended;    /* acquisitions that waited (cond: waits that slept) */
    uint64_t wait_ns;      /* total wait */
    uint64_t wait_max;     /* longest wait */
    uint64_t hold_ticks;   /* total of the sampled holds (pl_profile.c: ticks) */
    uint64_t hold_n;       /* sampled holds */
    /* cold */
    uint64_t hold_max_ticks; /* longest sampled hold */
    uint64_t busy;         /* trylock EBUSY (cond: signals) */
    uint64_t timeouts;     /* timedlock / timedwait timeouts (cond: broadcasts) */
    uint64_t first_pc;     /* the call that first used it */
    uint64_t rd_acq;       /* rwlock: read acquisitions (atomic) */
    uint64_t other_n, other_wait_ns; /* waits from call sites beyond the table */
    pl_prof_site_t site[PL_PROF_SITES];
    uint32_t gen;          /* lock tracking: bumped by init/destroy (a new lock, same address) */
    uint32_t waits_begun;  /* lock tracking: waits begun on it (long holds' waiters; atomic) */
} CLOF_CACHE_ALIGNED pl_prof_rec_t;
/* a power of two: the lookup indexes the table with a shift */
_Static_assert(sizeof(pl_prof_rec_t) == 256, "a profile record is 256 bytes");

/* The table holds 2^PL_PROF_BITS locks (a constant: the lookup's shift is
 * an immediate); more distinct lock addresses than that are counted as
 * dropped. */
#define PL_PROF_BITS 16

extern bool pl_prof_on PL_HIDDEN;

/* At start-up (pl_start), before the ops are installed: read CLOF_PROFILE
 * and the rest; a message on stderr and no profiling on bad values. */
PL_HIDDEN void pl_prof_init(void);
/* The ops to install: the profiling ops over `inner`. */
PL_HIDDEN const pl_ops_t *pl_prof_wrap(const pl_ops_t *inner);
/* The record of the lock at `addr` of kind `kind` (never NULL: a scratch
 * record when the table is full). */
PL_HIDDEN pl_prof_rec_t *pl_prof_find_slow(uintptr_t key, const void *pc);
/* A wait of w ns from call site pc, by the holder (or atomically). */
PL_HIDDEN void pl_prof_waited(pl_prof_rec_t *r, const void *pc, uint64_t w, bool atomic);
/* Condition variables (pl_cond.c): a wait of w ns, timed out or not; a
 * signal or broadcast. */
PL_HIDDEN void pl_prof_cond_wait(const void *cond, const void *pc, uint64_t w, bool timedout);
PL_HIDDEN void pl_prof_cond_signal(const void *cond, bool all);
/* Read-write locks (pl_rwlock.c, when pl_prof_on): the profiling around
 * its own operations try_, block and timed (glibc's or clof's). */
typedef int (*pl_prof_rw_fn)(pthread_rwlock_t *);
typedef int (*pl_prof_rw_timed_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);
PL_HIDDEN int pl_prof_rw_lock(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                              pl_prof_rw_fn block, const void *pc);
PL_HIDDEN int pl_prof_rw_try(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                             const void *pc);
PL_HIDDEN int pl_prof_rw_timed(pthread_rwlock_t *rw, bool write, pl_prof_rw_fn try_,
                               pl_prof_rw_timed_fn timed, clockid_t clk,
                               const struct timespec *abs, const void *pc);
/* The rwlock in use ("glibc" until pl_rwlock.c has started), for the
 * profile's header. */
PL_HIDDEN const char *pl_rw_name_now(void);
/* Clock (CLOCK_MONOTONIC, ns) and the interval snapshots: called where a
 * slow path has read the clock anyway. */
PL_HIDDEN uint64_t pl_prof_now(void);
PL_HIDDEN void pl_prof_tick(uint64_t now);
/* ---- lock tracking (CLOF_PROFILE_ORDER, CLOF_PROFILE_HANG, CLOF_PROFILE_LONG_US)
 * Off (pl_prof_track false): the ops above, unchanged.  On: tracking ops
 * that keep each thread's held set (pl_profile.c, "lock tracking") and
 *   - ORDER: an edge held -> taken for each blocking acquisition made
 *     while holding other locks (the lock-order graph; `clof profile`
 *     looks for its cycles);
 *   - HANG: the lock each thread waits for, written with every thread's
 *     held set on SIGQUIT (the program goes on) and at exit;
 *   - LONG_US: holds longer than this, with the waits begun meanwhile.
 * The hooks below are called by pl_rwlock.c, pl_cond.c and pl_mutex.c
 * only while pl_prof_track is true. */
extern bool pl_prof_track PL_HIDDEN;
/* pthread_mutex_init / pthread_rwlock_init / _destroy: a new lock at this address */
PL_HIDDEN void pl_prof_track_new(const void *lock, unsigned kind);
/* pthread_rwlock_unlock: before the release */
PL_HIDDEN void pl_prof_track_rw_unlock(const pthread_rwlock_t *rw);
/* a condition-variable wait whose mutex glibc releases and takes again
 * without our ops (glibc's condvars): before (release) and after */
PL_HIDDEN void pl_prof_track_cond(pthread_mutex_t *m, bool before, const void *pc);

/* At exit (the library's destructor) and in the child after fork. */
PL_HIDDEN void pl_prof_exit(void);
PL_HIDDEN void pl_prof_fork_child(void);

#endif /* CLOF_PRELOAD_PROFILE_H */
