/* SPDX-License-Identifier: MIT */
/*
 * examples/composition.c -- a CLoF composition over the runtime topology.
 *
 * CLOF_COMPOSE lists the basic locks in the order of the lock's name, from
 * the lowest level of the hierarchy up: here MCS in each lowest cohort,
 * ticket at the system level (the paper's "mcs-tkt").  The tree is built
 * at first use from the process topology (CLOF_TOPOLOGY=file,
 * CLOF_EMULATE=shape, else sysfs), so the program links libclof.
 *   cc -std=c11 -I include examples/composition.c -L build/lib -lclof -pthread
 *   CLOF_EMULATE=numa:2,core:2 ./a.out      # pretend to be a 2-node machine
 */
#include <clof/compose.h>

#include <pthread.h>
#include <stdio.h>

CLOF_COMPOSE(mcs_tkt, mcs, ticket)

#define THREADS 4
#define ITERS 50000

static clof_mcs_tkt_t lock = CLOF_COMPOSED_INITIALIZER;
static unsigned long counter;

static void *worker(void *arg)
{
    (void)arg;
    clof_mcs_tkt_ctx_t ctx = {0};
    for (int i = 0; i < ITERS; i++) {
        clof_mcs_tkt_acquire(&lock, &ctx);
        counter++;
        clof_mcs_tkt_release(&lock, &ctx);
    }
    return NULL;
}

int main(void)
{
    const clof_topology_t *t = clof_topology();
    if (!t) {
        fprintf(stderr, "composition: no topology (see CLOF_TOPOLOGY)\n");
        return 1;
    }
    printf("hierarchy: %u levels, %u cpus\n", clof_topo_nlevels(t), t->ncpus);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    clof_mcs_tkt_destroy(&lock);
    printf("counter = %lu (expected %lu)\n", counter, (unsigned long)THREADS * ITERS);
    return counter == (unsigned long)THREADS * ITERS ? 0 : 1;
}
