/* SPDX-License-Identifier: MIT */
/*
 * pl_uncontended -- N uncontended pthread_mutex_lock + pthread_mutex_unlock
 * pairs on one mutex, from one thread, through the PLT: with glibc's
 * functions, or with libclof-preload.so's when run under LD_PRELOAD.
 * Meant for callgrind (bench/preload/callgrind.sh): the instructions per
 * pair are (Ir(N) - Ir(0)) / N.
 *
 *   pl_uncontended N [static|init]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m_static = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void loop(pthread_mutex_t *m, long n)
{
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(m);
        pthread_mutex_unlock(m);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [static|init]\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    pthread_mutex_t m_init, *m = &m_static;
    if (argc > 2 && argv[2][0] == 'i') {
        pthread_mutex_init(&m_init, NULL);
        m = &m_init;
    }
    /* one pair before the measured loop: first-use work (the preload
     * library's start-up and the thread's first context) is in Ir(0) */
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
    loop(m, n);
    return 0;
}
