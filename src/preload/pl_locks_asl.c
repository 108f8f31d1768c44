/*
 * src/preload/pl_locks_asl.c -- the pthread_mutex_* operations over the
 * reorderable locks of LibASL over the basic and the named NUMA locks
 * (CLOF_LOCK=asl:<lock>), instantiated from pl_lock_tmpl.h.  Empty when
 * include/clof/asl.h is not there.
 */
#include "pl_lock_tmpl.h"

#ifdef PL_HAVE_ASL
PL_BASIC_LOCKS(PL_DEFINE_ASL)
PL_NAMED_NUMA_LOCKS(PL_DEFINE_ASL)
PL_ABORTABLE_LOCKS(PL_DEFINE_ASL)
#else
typedef int pl_locks_asl_empty_; /* ISO C: a unit declares something */
#endif
