/* SPDX-License-Identifier: MIT */
/*
 * verify/genmc/client.c -- runs one client of clof-verify (verify/clients*.c,
 * unchanged) under GenMC.  Built by GenMC's own clang from this one file:
 *   genmc -rc11|-imm -check-liveness -- -I<genmc>/include -Iinclude
 *     -Iverify -Iverify/genmc -I<build>/verify/genmc
 *     -DCLOF_BACKEND_HEADER='"backend_genmc.h"' -include vc_genmc.h
 *     -DGENMC_CLIENTS='"clients_basic.c"' -DGENMC_TABLE=vc_clients_basic
 *     -DGENMC_CLIENT='"mcs"' verify/genmc/client.c
 * (verify/genmc/run.sh does this; GENMC_THREADS=n runs the client's first
 * n threads only, with VC_MIN_ACQUIRED set to what they acquire).  main() is the client's setup, its
 * threads (each starts with the client's resume hook, or virtual cpu 0),
 * and its final check.  GenMC explores every execution the memory model
 * allows; a failed assert, a data race on plain memory or (with
 * -check-liveness) a wait that can never end is an error (exit 42).
 */
#include <assert.h>
#include <pthread.h>

#include GENMC_CLIENTS
#include "topology_genmc.h"

#if defined(GENMC_MUTANT_PARK_WAITERS_RLX)
static bool genmc_is_park_waiters(const void *p)
{
    for (uint32_t i = 0; i < CLOF_PARK_BUCKETS; i++)
        if (p == (const void *)&clof_park_table[i].waiters)
            return true;
    return false;
}
#endif

extern const vc_client_t GENMC_TABLE[];
static const vc_client_t *genmc_client;

static void *genmc_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (genmc_client->resume)
        genmc_client->resume(NULL, t);
    else
        clof_topo_set_vcpu(0);
    genmc_client->thread(NULL, t);
    return NULL;
}

int main(void)
{
    for (const vc_client_t *c = GENMC_TABLE; c->name; c++)
        if (genmc_streq(c->name, GENMC_CLIENT)) {
            genmc_client = c;
            break;
        }
    assert(genmc_client && "no such client in GENMC_TABLE");
    clof_topo_set_vcpu(0);
    genmc_client->setup(NULL);
    pthread_t th[8];
    int n = genmc_client->nthreads;
#if defined(GENMC_THREADS)
    /* the first GENMC_THREADS threads only (the park-mode clients: 2) */
    n = GENMC_THREADS < n ? GENMC_THREADS : n;
#endif
    for (int t = 0; t < n; t++)
        pthread_create(&th[t], NULL, genmc_thread, (void *)(intptr_t)t);
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    genmc_client->final(NULL);
    return 0;
}
