/* SPDX-License-Identifier: MIT */
/*
 * References to the old and compat versions of glibc's symbols, as a binary
 * linked against an older glibc has them: the conformance test calls them
 * to check that the preload library interposes on those versions too.
 */
#define _GNU_SOURCE
#include <pthread.h>

#define PL_API __attribute__((visibility("default")))

#if defined(__x86_64__)
extern int oldref_cond_init(pthread_cond_t *, const pthread_condattr_t *);
extern int oldref_cond_destroy(pthread_cond_t *);
extern int oldref_cond_wait(pthread_cond_t *, pthread_mutex_t *);
extern int oldref_cond_signal(pthread_cond_t *);
extern int oldref_cond_broadcast(pthread_cond_t *);
extern int oldref_mutex_trylock(pthread_mutex_t *);
extern int compatref_mutex_lock(pthread_mutex_t *);
extern int compatref_mutex_unlock(pthread_mutex_t *);
__asm__(".symver oldref_cond_init, pthread_cond_init@GLIBC_2.2.5\n"
        ".symver oldref_cond_destroy, pthread_cond_destroy@GLIBC_2.2.5\n"
        ".symver oldref_cond_wait, pthread_cond_wait@GLIBC_2.2.5\n"
        ".symver oldref_cond_signal, pthread_cond_signal@GLIBC_2.2.5\n"
        ".symver oldref_cond_broadcast, pthread_cond_broadcast@GLIBC_2.2.5\n"
        ".symver oldref_mutex_trylock, pthread_mutex_trylock@GLIBC_2.2.5\n"
        ".symver compatref_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5\n"
        ".symver compatref_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5\n");
#elif defined(__aarch64__)
/* aarch64's glibc began at 2.17 with the current condition variables: only
 * the mutex functions have older (2.17) and compat versions */
extern int oldref_mutex_trylock(pthread_mutex_t *);
extern int compatref_mutex_lock(pthread_mutex_t *);
extern int compatref_mutex_unlock(pthread_mutex_t *);
__asm__(".symver oldref_mutex_trylock, pthread_mutex_trylock@GLIBC_2.17\n"
        ".symver compatref_mutex_lock, __pthread_mutex_lock@GLIBC_2.17\n"
        ".symver compatref_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.17\n");
#define oldref_cond_init pthread_cond_init
#define oldref_cond_destroy pthread_cond_destroy
#define oldref_cond_wait pthread_cond_wait
#define oldref_cond_signal pthread_cond_signal
#define oldref_cond_broadcast pthread_cond_broadcast
#else
#define oldref_cond_init pthread_cond_init
#define oldref_cond_destroy pthread_cond_destroy
#define oldref_cond_wait pthread_cond_wait
#define oldref_cond_signal pthread_cond_signal
#define oldref_cond_broadcast pthread_cond_broadcast
#define oldref_mutex_trylock pthread_mutex_trylock
#define compatref_mutex_lock pthread_mutex_lock
#define compatref_mutex_unlock pthread_mutex_unlock
#endif

PL_API int old_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) { return oldref_cond_init(c, a); }
PL_API int old_cond_destroy(pthread_cond_t *c) { return oldref_cond_destroy(c); }
PL_API int old_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) { return oldref_cond_wait(c, m); }
PL_API int old_cond_signal(pthread_cond_t *c) { return oldref_cond_signal(c); }
PL_API int old_cond_broadcast(pthread_cond_t *c) { return oldref_cond_broadcast(c); }
PL_API int old_mutex_trylock(pthread_mutex_t *m) { return oldref_mutex_trylock(m); }
PL_API int compat_pthread_mutex_lock(pthread_mutex_t *m) { return compatref_mutex_lock(m); }
PL_API int compat_pthread_mutex_unlock(pthread_mutex_t *m) { return compatref_mutex_unlock(m); }
