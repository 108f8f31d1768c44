/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_compose_index.c -- compose.h's indexed layout, the one the
 * preload library gives the compositions and the cohort locks: the fast
 * word in the lock, the tree by index, the system level's node pointing at
 * the lock's fast word (compose.h, "The fast word in the lock").
 *
 * The clients are those of clients_numa.c (T2 tries once first, T0
 * acquires twice, T1 once; thresholds 2), on the same machines:
 *   clof.mcs+ticket.index  CLoF(mcs, ticket), two levels ("numa:2,core:2":
 *                          T0 cpu 0, T1 cpu 1 in T0's cohort, T2 cpu 2);
 *   clof.tkt3.index        three levels of ticket locks, the HMCS placement
 *                          ("numa:2,cache:2,core:2": T0 cpu 0, T1 cpu 2,
 *                          T2 cpu 4);
 *   c-bo-mcs.index         the cohort lock C-BO-MCS, two levels.
 * The tree is built before the threads start (VC_COMPOSED_RESET), so the
 * lazy install is not explored here; its CAS is the one of the tree's
 * layout, on the index.
 */
#include <stdint.h>
#include <stdlib.h>

/* the includer's table of trees: a tree gets the first free slot when it
 * is installed, and gives it back when its client frees it */
#define VC_CMP_TREES 16u
static void *vc_cmp_trees[VC_CMP_TREES];
static uint32_t vc_cmp_tree_index(void *tr, uint32_t *ix)
{
    if (*ix != 0)
        return *ix;
    for (uint32_t i = 1; i < VC_CMP_TREES; i++) {
        if (vc_cmp_trees[i] == NULL) {
            vc_cmp_trees[i] = tr;
            *ix = i;
            return i;
        }
    }
    abort();
}
#define CLOF_COMPOSE_TREE_AT(i) (vc_cmp_trees[(i)])
#define CLOF_COMPOSE_TREE_INDEX(tr) vc_cmp_tree_index((tr), &(tr)->ix)

#include "clients.h"

#include <clof/compose.h>
#include <clof/numa/cohort.h>

#include <stdio.h>

/* before VC_COMPOSED_RESET frees a tree: its slot back */
static inline void vc_cmp_forget(clof_compose_treep_t *treep)
{
    clof_compose_tree_t *tr = clof_cmp_tree_if_(treep);
    if (tr != NULL)
        vc_cmp_trees[tr->ix] = NULL;
}
#undef VC_COMPOSED_FORGET
#define VC_COMPOSED_FORGET(treep) vc_cmp_forget(treep)


static clof_topology_t topo2, topo3;
static bool topo_ready;

static void machines(void)
{
    vc_client_numa_machines(&topo2, &topo3, &topo_ready);
}

static const int32_t cpus2[3] = {0, 1, 2};
static const int32_t cpus_hmcs[3] = {0, 2, 4};
static const int32_t *cur_cpus = cpus2;

VC_RESUME_CPUS(resume_vcpu, cur_cpus)

CLOF_COMPOSE(ix_mcs, mcs, ticket)
CLOF_COMPOSE(ix_tkt3, ticket, ticket, ticket)


VC_COMPOSED_CLIENT(ix_mcs, topo2, cpus2)
VC_COMPOSED_CLIENT(ix_tkt3, topo3, cpus_hmcs)
VC_COMPOSED_CLIENT(c_bo_mcs, topo2, cpus2)

#define VC_ENTRY_(name, fam, what, N)                                          \
    {name, fam, what, 3, N##_setup, N##_thread, vc_client_final4, resume_vcpu, "", 2},

const vc_client_t vc_clients_compose_index[] = {
    VC_ENTRY_("clof.mcs+ticket.index", "clof",
              "CLoF(mcs, ticket), the fast word in the lock (the indexed layout)",
              ix_mcs)
    VC_ENTRY_("clof.tkt3.index", "clof",
              "3 levels of ticket locks, HMCS placement, the indexed layout",
              ix_tkt3)
    VC_ENTRY_("c-bo-mcs.index", "numa",
              "cohort lock C-BO-MCS, batch 2, the indexed layout", c_bo_mcs)
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
