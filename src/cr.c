/* SPDX-License-Identifier: MIT */
/*
 * libclof: the size of the active set of the concurrency-restriction layer
 * (include/clof/cr.h): the number of cpus the process may run on.
 */
#include <clof/cr.h>

#include <stdio.h>
#include <stdlib.h>

static uint32_t cr_cpus; /* 0 until the first call */

/* CLOF_CR_ACTIVE=N (1..4096) replaces the affinity count; a bad value is
 * reported once on stderr and ignored. */
static uint32_t cr_cpus_now(void)
{
    const char *e = getenv("CLOF_CR_ACTIVE");
    if (e && *e) {
        char *end;
        unsigned long v = strtoul(e, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 4096)
            return (uint32_t)v;
        fprintf(stderr, "clof: CLOF_CR_ACTIVE=%s: expected a number of threads "
                        "1..4096; using the cpu affinity\n", e);
    }
    return clof_be_cpus(); /* the affinity count (backend/native.h) */
}

uint32_t clof_cr_cpus(void)
{
    uint32_t n = __atomic_load_n(&cr_cpus, __ATOMIC_RELAXED);
    if (n == 0) { /* racing first calls compute the same value */
        n = cr_cpus_now();
        __atomic_store_n(&cr_cpus, n, __ATOMIC_RELAXED);
    }
    return n;
}
