/* SPDX-License-Identifier: MIT */
/*
 * clof/clof.h -- the umbrella header of the header-only part: the atomics
 * shim, the waiting policy, the await helpers and every basic lock, plus the
 * two version calls of libclof.
 *
 * The stack, bottom up (each header includes only headers below it):
 *   atomic.h            the atomics shim (backend/native.h by default)
 *   wait.h              the waiting policy: spin -> yield -> futex park
 *   await.h             waiting on an atomic: await helpers, waking writes
 *   lock.h, lock/NAME.h the basic locks (lock/list.h includes them all)
 *   --- not included here: they need libclof (link clof::clof_static or
 *   --- clof::clof_shared, or `pkg-config --libs clof`) ---
 *   topology.h          the runtime hierarchy
 *   hier/fast.h         the fast word of the hierarchical locks
 *   hier/levels.h       a hierarchical lock's levels over the topology
 *   compose.h           the CLoF generator (CLOF_COMPOSE)
 *   numa/hmcs.h numa/cna.h numa/cohort.h numa/acohort.h  NUMA-aware locks
 *   asl.h               LibASL's reorderable lock and epochs
 *   cr.h                concurrency restriction over any lock (cr:<lock>)
 * Include those by name.  This header leaves them out so that a program
 * that uses only basic locks needs no library at any optimisation level
 * (their out-of-line slow paths call into libclof).  The preload library's
 * introspection header is clof/preload.h.
 */
/** \file
 * The umbrella header of the header-only part: the atomics, the waiting
 * policy and every basic lock (lock/list.h), plus libclof's version calls.
 * The layers that need libclof (topology.h, compose.h, the NUMA-aware
 * locks, rw.h...) are included by name; the comment at the top of the
 * header lists the stack. */
#ifndef CLOF_CLOF_H
#define CLOF_CLOF_H

/** The version of these headers. */
#define CLOF_VERSION_STRING "0.1.0"

#include <clof/atomic.h>
#include <clof/wait.h>
#include <clof/await.h>
#include <clof/lock.h>
#include <clof/lock/list.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libclof */
/** The version of the linked libclof (its CLOF_VERSION_STRING). */
const char *clof_version(void);
/** The waiting policy libclof was built with: "spin-park" or "spin". */
const char *clof_wait_policy(void); /* "spin-park" or "spin" */

#ifdef __cplusplus
}
#endif

#endif /* CLOF_CLOF_H */
