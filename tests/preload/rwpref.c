// SPDX-License-Identifier: MIT
/*
 * rwpref.c -- test-only: preloaded before libclof-preload.so (or alone, over
 * glibc), it makes every pthread_rwlock_init ask for writer preference
 * (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, which the preload library
 * maps to CLOF_RW_PREF_WRITER; docs/rwlocks.md), keeping the attribute's
 * process-shared setting.  The outside suites (tests/glibc/glibc_suite.sh,
 * tests/posix/posix_suite.sh) run their rwlock tests with it (the settings
 * wpref:...), judged against the same tests under glibc with it.  An rwlock
 * a test initialises statically (PTHREAD_RWLOCK_INITIALIZER) keeps the
 * default preference.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*init_fn)(pthread_rwlock_t *, const pthread_rwlockattr_t *);

int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
    static init_fn next;
    if (!next) {
        next = (init_fn)dlsym(RTLD_NEXT, "pthread_rwlock_init");
        if (!next) {
            fprintf(stderr, "rwpref: no next pthread_rwlock_init: %s\n", dlerror());
            abort(); /* a test helper: the run is meaningless without it */
        }
    }
    pthread_rwlockattr_t a;
    int pshared = PTHREAD_PROCESS_PRIVATE;
    if (attr)
        pthread_rwlockattr_getpshared(attr, &pshared);
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setpshared(&a, pshared);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    int r = next(rw, &a);
    pthread_rwlockattr_destroy(&a);
    return r;
}
