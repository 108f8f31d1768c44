/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_locks_cr_comp.c -- the pthread_mutex_* operations over the
 * concurrency-restriction layer over the CLoF compositions
 * (CLOF_LOCK=cr:clof:<name>), instantiated from pl_lock_tmpl.h.
 */
#include "pl_lock_tmpl.h"

PL_COMPOSITIONS(PL_DEFINE_CR)
