/* SPDX-License-Identifier: MIT */
/*
 * test_topology_lock.c -- the process topology loads and installs without
 * pthread_mutex_lock.
 *
 * Under libclof-preload.so pthread_mutex_lock is a clof lock, and CNA (also
 * as cr:'s passive queue) looks the topology up from inside its acquire; a
 * lazy load that took a pthread mutex re-entered the lock and hung the
 * queue (docs/reliability.md).  This program defines pthread_mutex_lock
 * itself, as the preload library does: libclof (linked statically) calls
 * this one, which counts and forwards to glibc's.  Threads race to the
 * first clof_topology() (the lazy load), then clof_topology_install runs:
 * neither may have called it.
 */
#define _GNU_SOURCE
#include <clof/topology.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/clof_test.h"

static int calls;

int pthread_mutex_lock(pthread_mutex_t *m)
{
    static int (*real)(pthread_mutex_t *);
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
    if (real == NULL)
        real = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    return real(m);
}

static const clof_topology_t *seen[4];

static void *first_use(void *p)
{
    seen[(long)p] = clof_topology();
    return NULL;
}

int main(void)
{
    clof_test_name("topology.no_interposed_mutex");
    clof_test_watchdog(60, 1, NULL);
    if (setenv("CLOF_EMULATE", "numa:2,core:2", 1) != 0)
        clof_test_fail("setenv");
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, first_use, (void *)i) != 0)
            clof_test_fail("pthread_create");
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++)
        CLOF_TEST_CHECK(seen[i] == seen[0] && seen[0] != NULL,
                        "threads saw different topologies (%p, %p)", (void *)seen[0],
                        (void *)seen[i]);
    CLOF_TEST_CHECK(seen[0]->ncpus == 4 && seen[0]->emulated,
                    "CLOF_EMULATE=numa:2,core:2 not loaded: %u cpus", seen[0]->ncpus);
    CLOF_TEST_CHECK(calls == 0, "the lazy load called pthread_mutex_lock %d times", calls);
    clof_topo_opts_t o = {NULL, NULL, NULL, CLOF_TOPO_QUIET};
    clof_topo_error_t err;
    if (clof_topology_install(&o, &err) != 0) {
        fprintf(stderr, "install: %s\n", err.msg);
        clof_test_fail("clof_topology_install failed");
    }
    CLOF_TEST_CHECK(calls == 0, "clof_topology_install called pthread_mutex_lock %d times",
                    calls);
    printf("PASS topology.no_interposed_mutex\n");
    return 0;
}
