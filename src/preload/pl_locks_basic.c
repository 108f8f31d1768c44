/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_locks_basic.c -- the pthread_mutex_* operations over the
 * basic locks and the named NUMA locks (hmcs, cna, the cohort locks, the
 * abortable cohort locks), instantiated from pl_lock_tmpl.h.
 */
#include "pl_lock_tmpl.h"

PL_BASIC_LOCKS(PL_DEFINE_BASIC)
PL_NAMED_NUMA_LOCKS(PL_DEFINE_NUMA)
PL_ABORTABLE_LOCKS(PL_DEFINE_ABORTABLE)
