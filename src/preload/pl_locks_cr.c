/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_locks_cr.c -- the pthread_mutex_* operations over the
 * concurrency-restriction layer over the basic and the named NUMA locks
 * (CLOF_LOCK=cr:<lock>), instantiated from pl_lock_tmpl.h.
 */
#include "pl_lock_tmpl.h"

PL_BASIC_LOCKS(PL_DEFINE_CR_BASIC)
PL_NAMED_NUMA_LOCKS(PL_DEFINE_CR)
PL_ABORTABLE_LOCKS(PL_DEFINE_CR)
