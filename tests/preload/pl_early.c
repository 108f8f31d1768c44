/* SPDX-License-Identifier: MIT */
/*
 * libpl_early.so: a library whose constructor uses a mutex and a condition
 * variable before libclof-preload.so's own constructor has run (preload it
 * after the preload library: LD_PRELOAD=libclof-preload.so:libpl_early.so;
 * constructors run in the reverse order).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

static int result = -1;

__attribute__((constructor)) static void pl_early_ctor(void)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    int (*held)(const pthread_mutex_t *) =
        (int (*)(const pthread_mutex_t *))dlsym(RTLD_DEFAULT, "clof_preload_mutex_held");
    result = held ? held(&m) : -2;
    pthread_mutex_unlock(&m);
    pthread_cond_t c;
    pthread_cond_init(&c, NULL);
    pthread_cond_signal(&c);
    pthread_cond_broadcast(&c);
    pthread_cond_destroy(&c);
}

__attribute__((visibility("default"))) int pl_early_result(void)
{
    return result;
}
