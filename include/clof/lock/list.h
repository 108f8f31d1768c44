/* SPDX-License-Identifier: MIT */
/*
 * clof/lock/list.h -- the basic locks as an X-macro list, so that programs
 * that handle "every basic lock" (clof-bench, the tests, the composition
 * registry) never spell the list twice:
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

/** X(name, NAME) for every basic lock: X(tas, TAS) ... X(hemlock_ctr,
 *  HEMLOCK_CTR), so that code for "every basic lock" spells the list once. */
#define CLOF_BASIC_LOCKS(X)                                                    \
    X(tas, TAS)                                                                \
    X(ttas, TTAS)                                                              \
    X(bo, BO)                                                                  \
    X(ticket, TICKET)                                                          \
    X(ptl, PTL)                                                                \
    X(mcs, MCS)                                                                \
    X(clh, CLH)                                                                \
    X(hemlock, HEMLOCK)                                                        \
    X(hemlock_ctr, HEMLOCK_CTR)

#endif /* CLOF_LOCK_LIST_H */
