/* SPDX-License-Identifier: MIT */
/*
 * clof/lock/list.h -- the registry of basic locks: each lock's header and its
 * row, from which every list of basic locks is derived (clof-bench, the
 * tests, the preload library, the lock names, the composition registry):
 *
 *   #define X(name, NAME) ...clof_##name##_acquire...
 *   CLOF_BASIC_LOCKS(X)
 *   #undef X
 */
/** \file
 * The basic locks, all included, and their list as an X-macro. */
#ifndef CLOF_LOCK_LIST_H
#define CLOF_LOCK_LIST_H

#include <clof/lock/tas.h>
#include <clof/lock/ttas.h>
#include <clof/lock/bo.h>
#include <clof/lock/ticket.h>
#include <clof/lock/ptl.h>
#include <clof/lock/mcs.h>
#include <clof/lock/clh.h>
#include <clof/lock/hemlock.h>
#include <clof/lock/hemlock_ctr.h>
#include <clof/lock/twa.h>
#include <clof/lock/recip.h>
#include <clof/lock/fissile.h>
#include <clof/lock/mutexee.h>
#include <clof/lock/array.h>

/* ---- the registry of basic locks -------------------------------------------
 * One row per lock, and the lock's header included above: everything else
 * that handles "every basic lock" is derived from these rows -- the
 * lock-name grammar (src/lockname), the preload library's table, the bench
 * adapters, the model-checking clients, the test lists of CMake (read from
 * this file by cmake/LockRegistry.cmake) and, through clof-lockname, the
 * Python tools.  docs/adding-a-lock.md walks through adding one.
 *
 *   R(X, id, ID, fit, part, aliases, about, paper)
 *
 *   id, ID   the C names: clof_<id>_t, CLOF_<ID>_INITIALIZER, CLOF_<ID>_FAIR ...
 *            (the properties stay in the header, beside the code they describe)
 *   fit      WORD: the lock is at most 8 bytes, so the preload library keeps
 *            it in the pthread_mutex_t itself; BLOCK: it is larger and lives
 *            in a lock block (a _Static_assert checks WORD)
 *   part     its abbreviation as a level of a CLoF composition (tkt-mcs)
 *   aliases  other names it answers to, space-separated ("" for none)
 *   about    one line for `clof locks`
 *   paper    where the algorithm comes from
 *
 * R is the row macro a consumer wants; X travels along for the ones that
 * forward to a two-argument X(id, ID) (CLOF_BASIC_LOCKS). */
/** The registry of basic locks: R(X, id, ID, fit, part, aliases, about,
 *  paper) for every basic lock (docs/adding-a-lock.md). */
#define CLOF_LOCK_REGISTRY(R, X)                                               \
    R(X, tas, TAS, WORD, "tas", "", "test-and-set spinlock",                   \
      "CLoF (SOSP'21) 2.1")                                                    \
    R(X, ttas, TTAS, WORD, "ttas", "", "test-and-test-and-set spinlock",       \
      "CLoF (SOSP'21) 2.1; cohort locks (TOPC'15) 2")                          \
    R(X, bo, BO, WORD, "bo", "", "test-and-set with exponential backoff",      \
      "cohort locks (TOPC'15) 3; Anderson 1990")                               \
    R(X, ticket, TICKET, WORD, "tkt", "tkt", "ticket lock: FIFO, one counter pair", \
      "CLoF (SOSP'21) 2.1; Mellor-Crummey and Scott 1991")                     \
    R(X, ptl, PTL, BLOCK, "ptl", "", "partitioned ticket lock",                \
      "cohort locks (TOPC'15) 3.2; Dice 2011")                                 \
    R(X, mcs, MCS, WORD, "mcs", "",                                            \
      "MCS queue lock: FIFO, each waiter spins on its own node",               \
      "CLoF (SOSP'21) 2.1; Mellor-Crummey and Scott 1991")                     \
    R(X, clh, CLH, WORD, "clh", "",                                            \
      "CLH queue lock: FIFO, each waiter spins on its predecessor's node",     \
      "CLoF (SOSP'21) 2.1; Craig 1993; Magnusson, Landin, Hagersten 1994")     \
    R(X, hemlock_ctr, HEMLOCK_CTR, WORD, "hem", "hemctr hemlock",              \
      "Hemlock with the CTR optimisation (x86)",                               \
      "CLoF (SOSP'21) 2.1; Dice and Kogan 2021")                            \
    R(X, hemlock, HEMLOCK, WORD, "hemnc", "hem", "Hemlock: FIFO, one word per thread", \
      "CLoF (SOSP'21) 2.1, 4; Dice and Kogan 2021")                           \
    R(X, twa, TWA, WORD, "twa", "",                                            \
      "TWA: ticket lock whose far waiters wait in a shared array",             \
      "Dice and Kogan, Euro-Par 2019")                                        \
    R(X, recip, RECIP, WORD, "rcp", "rcp",                                     \
      "Reciprocating lock: constant-time arrival and release, bounded bypass", \
      "Dice and Kogan, PPoPP 2025")                                           \
    R(X, fissile, FISSILE, BLOCK, "fis", "",                                   \
      "Fissile lock: test-and-set fast path over an MCS slow path, bounded bypass", \
      "Dice and Kogan, arXiv 2003.05025 (2020)")                              \
    R(X, mutexee, MUTEXEE, WORD, "mxe", "",                                    \
      "MUTEXEE: futex mutex whose release lets a spinner take it before a wake-up", \
      "Falsafi, Guerraoui, Picorel, Trigonakis, USENIX ATC 2016")             \
    R(X, array, ARRAY, BLOCK, "arr", "anderson",                               \
      "array lock (Anderson's): FIFO, each waiter spins on its own flag",      \
      "Anderson, IEEE TPDS 1990")

/** X(name, NAME) for every basic lock of the registry: X(tas, TAS) ...
 *  X(recip, RECIP), so that code for "every basic lock" spells
 *  the list once. */
#define CLOF_BASIC_LOCKS(X) CLOF_LOCK_REGISTRY(CLOF_LOCK_ROW_ID_, X)
/** A row of the registry as X(id, ID): CLOF_BASIC_LOCKS's row macro. */
#define CLOF_LOCK_ROW_ID_(X, id, ID, ...) X(id, ID)

#endif /* CLOF_LOCK_LIST_H */
