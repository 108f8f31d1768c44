/* SPDX-License-Identifier: MIT */
/*
 * examples/basic_lock.c -- one basic lock (MCS) shared by four threads.
 *
 * Header-only: no library to link but pthreads.
 *   cc -std=c11 -I include examples/basic_lock.c -pthread
 */
#include <clof/lock/mcs.h>

#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERS 100000

static clof_mcs_t lock = CLOF_MCS_INITIALIZER;
static unsigned long counter;

static void *worker(void *arg)
{
    (void)arg;
    clof_mcs_ctx_t ctx = {0}; /* zero-filled = valid; one per acquisition */
    for (int i = 0; i < ITERS; i++) {
        clof_mcs_acquire(&lock, &ctx);
        counter++; /* the critical section */
        clof_mcs_release(&lock, &ctx);
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
    printf("counter = %lu (expected %lu)\n", counter, (unsigned long)THREADS * ITERS);
    return counter == (unsigned long)THREADS * ITERS ? 0 : 1;
}
