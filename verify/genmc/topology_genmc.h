/* SPDX-License-Identifier: MIT */
/*
 * verify/genmc/topology_genmc.h -- the test-side topology of the GenMC
 * clients: the part of libclof's topology API (src/topology*.c) that the
 * lock headers and the clients call, over the machines topo_gen.c wrote
 * from the library's own emulation (genmc_topo.h, generated at build time).
 * Every client thread gets a virtual cpu (the clients' resume hooks, or
 * cpu 0), so the rseq lookup of topology.h is never reached.
 */
#ifndef CLOF_VERIFY_TOPOLOGY_GENMC_H
#define CLOF_VERIFY_TOPOLOGY_GENMC_H

#include <clof/topology.h>

#include "genmc_topo.h"

/* topology.h's rseq lookup names these glibc globals (never read here) */
#if defined(CLOF_TOPO_HAVE_RSEQ)
const ptrdiff_t __rseq_offset = 0;
const unsigned int __rseq_size = 0;
#endif

__thread int32_t clof_topo_vcpu_tls_ = -1;
int clof_topo_real_cpus_;
static const clof_topology_t *genmc_process_topo = &genmc_topo1;

static bool genmc_streq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static int genmc_topo_find(const char *shape)
{
    for (int i = 1; i <= GENMC_NTOPOS; i++)
        if (genmc_streq(genmc_topo_shapes[i], shape))
            return i;
    assert(0 && "verify/genmc: this machine is not generated (CMakeLists.txt, clof-genmc-topo)");
    return 0;
}

int clof_topology_emulate(clof_topology_t *t, const char *shape, unsigned flags,
                          clof_topo_error_t *err)
{
    (void)flags, (void)err;
    const clof_topology_t *s = genmc_topos[genmc_topo_find(shape)];
    /* field by field: a struct copy is a memcpy GenMC cannot promote */
    t->ncpus = s->ncpus;
    t->npresent = s->npresent;
    t->nlevels = s->nlevels;
    for (uint32_t l = 0; l < s->nlevels; l++) {
        t->level[l].kind = s->level[l].kind;
        t->level[l].ncohorts = s->level[l].ncohorts;
        t->level[l].threshold = s->level[l].threshold;
        t->level[l].parent = s->level[l].parent;
        t->level[l].size = s->level[l].size;
        t->level[l].cpu_start = s->level[l].cpu_start;
        t->level[l].cpus = s->level[l].cpus;
        t->level[l].child_start = s->level[l].child_start;
    }
    t->cohort = s->cohort;
    t->present = s->present;
    t->core_type = s->core_type;
    t->capacity = s->capacity;
    t->order_packed = s->order_packed;
    t->order_spread = s->order_spread;
    t->source = s->source;
    t->emulated = s->emulated;
    return 0;
}
int clof_topology_install(const clof_topo_opts_t *opts, clof_topo_error_t *err)
{
    (void)err;
    genmc_process_topo = genmc_topos[genmc_topo_find(opts->emulate)];
    return 0;
}
const clof_topology_t *clof_topology(void)
{
    return genmc_process_topo;
}
void clof_topology_free(clof_topology_t *t)
{
    t->nlevels = 0; /* the tables are static */
    t->source = CLOF_TOPO_SRC_NONE;
}
int clof_topo_set_vcpu(int32_t vcpu)
{
    clof_topo_vcpu_tls_ = vcpu < 0 ? -1 : vcpu;
    return 0;
}
int32_t clof_topo_get_vcpu(void)
{
    return clof_topo_vcpu_tls_;
}
uint32_t clof_current_cpu_slow_(void)
{
    return 0;
}

/* A-C-BO-CLH's queue-node pool (src/acohort.c, compiled code): the same
 * policy -- a plain per-thread free list, nodes recycled into the pool of
 * whoever reads them last, so they migrate between threads and are reused
 * within an execution -- over the backend's allocation pool (never freed:
 * GenMC has no thread-exit destructors to run) */
#if defined(CLOF_NUMA_ACOHORT_H)
static __thread clof_aclh_node_t *genmc_aclh_pool_;
clof_aclh_node_t *clof_aclh_node_get(void)
{
    clof_aclh_node_t *n = genmc_aclh_pool_;
    if (n) {
        genmc_aclh_pool_ = n->free_next;
        return n;
    }
    n = (clof_aclh_node_t *)aligned_alloc(CLOF_CACHELINE, sizeof *n);
    assert(n && "verify/genmc: allocation pool exhausted (GENMC_POOL_BYTES)");
    n->free_next = NULL;
    return n;
}
void clof_aclh_node_put(clof_aclh_node_t *n)
{
    n->free_next = genmc_aclh_pool_;
    genmc_aclh_pool_ = n;
}
#endif

/* the asl: layer's configuration (src/asl.c, compiled code): the defaults,
 * no environment (the clients give every window explicitly) */
#if defined(CLOF_ASL_H)
clof_asl_config_t clof_asl_config_ = CLOF_ASL_CONFIG_DEFAULT;
const clof_asl_config_t *clof_asl_config(void)
{
    return &clof_asl_config_;
}
#endif

#endif /* CLOF_VERIFY_TOPOLOGY_GENMC_H */
