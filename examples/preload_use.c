/* SPDX-License-Identifier: MIT */
/*
 * examples/preload_use.c -- an ordinary pthread program, unchanged, run over
 * clof's locks by the preload library:
 *
 *   cc -I src/preload examples/preload_use.c -pthread -ldl -o preload_use
 *   LD_PRELOAD=build/lib/libclof-preload.so CLOF_LOCK=mcs ./preload_use
 *   build/bin/clof run --lock mcs -- ./preload_use        # the same
 *
 * It is not linked with clof.  It asks the library, if loaded, which lock
 * runs its mutexes (clof_preload_info of clof/preload.h, looked
 * up with dlsym: absent when the library is not preloaded), and says so.
 */
#define _GNU_SOURCE
#include <clof/preload.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 4
#define ITERS 100000

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    clof_preload_info_fn info_fn =
        (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    printf("counter = %lu (expected %lu)\n", counter, (unsigned long)THREADS * ITERS);
    if (info_fn) {
        clof_preload_info_t i;
        info_fn(&i, sizeof i);
        printf("mutexes: clof, lock %s\n", i.lock);
    } else {
        printf("mutexes: glibc (libclof-preload.so is not preloaded)\n");
    }
    return counter == (unsigned long)THREADS * ITERS ? 0 : 1;
}
