/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_numa.c -- clients of the NUMA-aware locks (HMCS: in
 * clients_hmcs.c), CNA, the cohort locks,
 * the CLoF induction step CLoF(l, ticket) for every basic lock l (CLoF paper
 * §4.2), 2- and 3-level compositions of ticket locks and a heterogeneous
 * 3-level one (MCS, CLH, ticket).
 *
 * Machines (emulated topologies, thresholds 2 at every level so that
 * in-cohort passing really happens and really stops):
 *   two levels   "numa:2,core:2": numa (2 cohorts of 2 cpus), system;
 *                T0 cpu 0, T1 cpu 1 (T0's cohort), T2 cpu 2 (the other).
 *   three levels "numa:2,cache:2,core:2": cache (4 cohorts of 2 cpus),
 *                numa (2 of 4), system.  HMCS: T0 cpu 0, T1 cpu 2, T2 cpu 4
 *                (the paper's Fig. 6: T0 and T1 share the middle lock, T2
 *                is alone); ticket x3 the same, and (.leaf) T0 cpu 0,
 *                T1 cpu 1 (same leaf), T2 cpu 2 (same middle cohort).
 * Each fiber gets its virtual cpu back whenever it is resumed (the vc
 * resume hook), so clof_current_cpu() answers per thread.
 */
#define CLOF_CNA_COUNT 2u /* the client's threshold (default 256) */
#include "clients.h"

#include <clof/compose.h>
#include <clof/numa/cna.h>
#include <clof/numa/cohort.h>
#include <clof/lock/list.h>

#include <stdio.h>
#include <stdlib.h>

#if defined(__has_include)
#if __has_include(<clof/numa/acohort.h>)
#include <clof/numa/acohort.h>
#define VC_HAVE_ACOHORT 1
#endif
#endif

/* ---------------------------------------------------------------- machines */

static clof_topology_t topo2, topo3;
static bool topo_ready;

static void machines(void)
{
    vc_client_numa_machines(&topo2, &topo3, &topo_ready);
}

static const int32_t cpus2[3] = {0, 1, 2};
static const int32_t cpus_hmcs[3] = {0, 2, 4}; /* tkt3: HMCS placement */
static const int32_t cpus3_leaf[3] = {0, 1, 2}; /* leaf passing, mid contended */
static const int32_t cpus_cna[3] = {0, 4, 2}; /* T1 remote: T2 passes it */
static const int32_t *cur_cpus = cpus2;

VC_RESUME_CPUS(resume_vcpu, cur_cpus)


/* ---------------------------------------------------------------- CNA */

static clof_cna_t cna_lock;
static clof_cna_ctx_t cna_ctx[3];

static void cna_setup(void *arg)
{
    (void)arg;
    machines();
    cur_cpus = cpus_cna;
    memset(&cna_lock, 0, sizeof cna_lock);
    memset(cna_ctx, 0, sizeof cna_ctx);
    clof_cna_init(&cna_lock);
    vc_client_setup_common();
    vc_name(&cna_lock, sizeof cna_lock, "tail");
    for (int i = 0; i < 3; i++) {
        char b[32];
        snprintf(b, sizeof b, "T%d.next", i);
        vc_name(&cna_ctx[i].next, sizeof cna_ctx[i].next, b);
        snprintf(b, sizeof b, "T%d.spin", i);
        vc_name(&cna_ctx[i].spin, sizeof cna_ctx[i].spin, b);
    }
}

VC_CLIENT_THREAD(cna_thread, cna, cna_lock, cna_ctx)

/* ---------------------------------------------------------------- compositions */

/* The CLoF induction step: CLoF(l, ticket) for every basic lock l. */
#define X(L, U) CLOF_COMPOSE(ind_##L, L, ticket)
CLOF_BASIC_LOCKS(X)
#undef X
/* 2- and 3-level compositions of ticket locks (the paper's GenMC runs). */
CLOF_COMPOSE(tkt3, ticket, ticket, ticket)
/* a heterogeneous 3-level composition: MCS, CLH, ticket (lowest first) */
CLOF_COMPOSE(het3, mcs, clh, ticket)


#define X(L, U) VC_COMPOSED_CLIENT(ind_##L, topo2, cpus2)
CLOF_BASIC_LOCKS(X)
#undef X
VC_COMPOSED_CLIENT(tkt3, topo3, cpus_hmcs)
VC_COMPOSED_CLIENT(het3, topo3, cpus_hmcs)
#define tkt3l_lock tkt3_lock
#define tkt3l_ctx tkt3_ctx
static void tkt3l_setup(void *arg)
{
    tkt3_setup(arg);
    cur_cpus = cpus3_leaf;
}
#define tkt3l_thread tkt3_thread
VC_COMPOSED_CLIENT(c_bo_mcs, topo2, cpus2)
VC_COMPOSED_CLIENT(c_tkt_tkt, topo2, cpus2)
VC_COMPOSED_CLIENT(c_ptl_tkt, topo2, cpus2)

#if defined(VC_HAVE_ACOHORT)
/* The abortable cohort locks: T0 twice and T1 once with acquire, T2 first
 * with acquire_until(deadline 0) (a try: the deadline has passed), then
 * with acquire_until(CLOF_DEADLINE_NONE).  The checker has no clock, so a
 * deadline other than 0 never passes: the abort paths run through the
 * deadline-0 attempt (docs/verification.md). */
#define VC_ABORTABLE_CLIENT_(N)                                                \
    VC_COMPOSED_CLIENT(N##_x, topo2, cpus2)                                   \
    static void N##_athread(void *arg, int t)                                  \
    {                                                                          \
        (void)arg;                                                             \
        if (t == 2) {                                                          \
            if (clof_##N##_acquire_until(&N##_x_lock, &N##_x_ctx[t], 0)) {     \
                vc_client_cs();                                                \
                clof_##N##_release(&N##_x_lock, &N##_x_ctx[t]);                \
            }                                                                  \
            bool ok = clof_##N##_acquire_until(&N##_x_lock, &N##_x_ctx[t],     \
                                               CLOF_DEADLINE_NONE);            \
            vc_assert(ok, "acquire_until without a deadline failed");          \
            vc_client_cs();                                                    \
            clof_##N##_release(&N##_x_lock, &N##_x_ctx[t]);                    \
            return;                                                            \
        }                                                                      \
        N##_x_thread(arg, t);                                                  \
    }
/* the composed-client macro names its lock N##_x: alias the generated API */
#define clof_a_c_bo_bo_x_t clof_a_c_bo_bo_t
#define clof_a_c_bo_bo_x_ctx_t clof_a_c_bo_bo_ctx_t
#define clof_a_c_bo_bo_x_l0_t clof_a_c_bo_bo_l0_t
#define clof_a_c_bo_bo_x_l1_t clof_a_c_bo_bo_l1_t
#define clof_a_c_bo_bo_x_destroy clof_a_c_bo_bo_destroy
#define clof_a_c_bo_bo_x_init_topo clof_a_c_bo_bo_init_topo
#define clof_a_c_bo_bo_x_acquire clof_a_c_bo_bo_acquire
#define clof_a_c_bo_bo_x_tryacquire clof_a_c_bo_bo_tryacquire
#define clof_a_c_bo_bo_x_release clof_a_c_bo_bo_release
#define clof_a_c_bo_clh_x_t clof_a_c_bo_clh_t
#define clof_a_c_bo_clh_x_ctx_t clof_a_c_bo_clh_ctx_t
#define clof_a_c_bo_clh_x_l0_t clof_a_c_bo_clh_l0_t
#define clof_a_c_bo_clh_x_l1_t clof_a_c_bo_clh_l1_t
#define clof_a_c_bo_clh_x_destroy clof_a_c_bo_clh_destroy
#define clof_a_c_bo_clh_x_init_topo clof_a_c_bo_clh_init_topo
#define clof_a_c_bo_clh_x_acquire clof_a_c_bo_clh_acquire
#define clof_a_c_bo_clh_x_tryacquire clof_a_c_bo_clh_tryacquire
#define clof_a_c_bo_clh_x_release clof_a_c_bo_clh_release
VC_ABORTABLE_CLIENT_(a_c_bo_bo)
VC_ABORTABLE_CLIENT_(a_c_bo_clh)
#define a_c_bo_bo_a_setup a_c_bo_bo_x_setup
#define a_c_bo_bo_a_thread a_c_bo_bo_athread
#define a_c_bo_clh_a_setup a_c_bo_clh_x_setup
#define a_c_bo_clh_a_thread a_c_bo_clh_athread
#endif

#define VC_ENTRY_(name, fam, what, N, bound)                                   \
    {name, fam, what, 3, N##_setup, N##_thread, vc_client_final4, resume_vcpu, "", bound},

const vc_client_t vc_clients_numa[] = {
    {"cna", "numa", "CNA, T1 on the remote node (T2 overtakes it), count 2",
     3, cna_setup, cna_thread, vc_client_final4, resume_vcpu, "", 2},
    VC_ENTRY_("c-bo-mcs", "numa", "cohort lock C-BO-MCS, batch 2", c_bo_mcs, 2)
    VC_ENTRY_("c-tkt-tkt", "numa", "cohort lock C-TKT-TKT, batch 2", c_tkt_tkt, 2)
    VC_ENTRY_("c-ptl-tkt", "numa", "cohort lock C-PTL-TKT, batch 2", c_ptl_tkt, 2)
#if defined(VC_HAVE_ACOHORT)
    VC_ENTRY_("a-c-bo-bo", "numa",
              "abortable cohort A-C-BO-BO, batch 2, T2 tries (deadline 0) first",
              a_c_bo_bo_a, 2)
    VC_ENTRY_("a-c-bo-clh", "numa",
              "abortable cohort A-C-BO-CLH, batch 2, T2 tries (deadline 0) first",
              a_c_bo_clh_a, 2)
#endif
#define X(L, U)                                                                \
    VC_ENTRY_("clof." #L "+ticket", "clof",                                    \
              "induction step CLoF(" #L ", ticket), 2 levels, threshold 2",    \
              ind_##L, 2)
    CLOF_BASIC_LOCKS(X)
#undef X
    VC_ENTRY_("clof.tkt3", "clof",
              "3 levels of ticket locks, thresholds 2, HMCS placement", tkt3, 2)
    VC_ENTRY_("clof.mcs+clh+ticket", "clof",
              "3 levels, heterogeneous: MCS, CLH, ticket, HMCS placement", het3, 2)
    VC_ENTRY_("clof.tkt3.leaf", "clof",
              "3 levels of ticket locks, T0 and T1 share a leaf, T2 the middle",
              tkt3l, 2)
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
