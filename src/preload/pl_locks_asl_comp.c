/*
 * src/preload/pl_locks_asl_comp.c -- the pthread_mutex_* operations over the
 * reorderable locks of LibASL over the CLoF compositions
 * (CLOF_LOCK=asl:clof:<name>), instantiated from pl_lock_tmpl.h.  Empty
 * when include/clof/asl.h is not there.
 */
#include "pl_lock_tmpl.h"

#ifdef PL_HAVE_ASL
PL_COMPOSITIONS(PL_DEFINE_ASL)
#else
typedef int pl_locks_asl_comp_empty_; /* ISO C: a unit declares something */
#endif
