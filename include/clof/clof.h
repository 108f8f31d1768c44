/*
 * clof/clof.h -- the umbrella header: the atomics shim, the waiting policy,
 * every basic lock, and the declarations of libclof.
 */
#ifndef CLOF_CLOF_H
#define CLOF_CLOF_H

#define CLOF_VERSION_STRING "0.1.0"

#include <clof/atomic.h>
#include <clof/lock.h>
#include <clof/lock/list.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libclof */
const char *clof_version(void);
const char *clof_wait_policy(void); /* "spin-park" or "spin" */

#ifdef __cplusplus
}
#endif

#endif /* CLOF_CLOF_H */
