/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_locks_asl.c -- the pthread_mutex_* operations over the
 * reorderable locks of LibASL over the basic and the named NUMA locks
 * (CLOF_LOCK=asl:<lock>), instantiated from pl_lock_tmpl.h.
 */
#include "pl_lock_tmpl.h"

PL_BASIC_LOCKS(PL_DEFINE_ASL)
PL_NAMED_NUMA_LOCKS(PL_DEFINE_ASL)
PL_ABORTABLE_LOCKS(PL_DEFINE_ASL)
