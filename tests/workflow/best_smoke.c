/* SPDX-License-Identifier: MIT */
/* A program that uses clof_best.h as a user would: one include, a static
 * lock, threads that increment a plain counter under it.  Exit 0 when no
 * increment was lost (mutual exclusion held), 1 otherwise.
 *
 *   best_smoke [THREADS] [ITERATIONS]
 */
#include "clof_best.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static clof_best_t lock = CLOF_BEST_INITIALIZER;
static unsigned long counter;      /* plain: only the lock protects it */
static unsigned long tries_ok;
static long iterations = 20000;

static void *worker(void *arg)
{
    (void)arg;
    clof_best_ctx_t ctx = {0};
    for (long i = 0; i < iterations; i++) {
        if ((i & 15) == 0 && clof_best_tryacquire(&lock, &ctx)) {
            tries_ok++;
        } else {
            clof_best_acquire(&lock, &ctx);
        }
        unsigned long c = counter;
        __asm__ volatile("" ::: "memory"); /* widen the race window */
        counter = c + 1;
        clof_best_release(&lock, &ctx);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    if (argc > 2)
        iterations = atol(argv[2]);
    if (n < 1 || n > 256 || iterations < 1) {
        fprintf(stderr, "usage: best_smoke [THREADS 1..256] [ITERATIONS]\n");
        return 2;
    }
    pthread_t t[256];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    unsigned long want = (unsigned long)n * (unsigned long)iterations;
    const clof_topology_t *topo = clof_best_topology();
    printf("lock %s (%s-best) over %s: %u levels in the tree's hierarchy; "
           "counter %lu of %lu, %lu by tryacquire\n",
           CLOF_BEST_NAME, CLOF_BEST_POLICY, CLOF_BEST_LEVELS, clof_topo_nlevels(topo),
           counter, want, tries_ok);
    clof_best_destroy(&lock);
    return counter == want ? 0 : 1;
}
