/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_hmcs.c -- HMCS at depths 3 and 2 with the HMCS paper's client
 * (Fig. 9: 3 threads on separate NUMA nodes, thresholds 2, T0 acquires
 * twice, counter == 4), and the same with T2 trying once first.
 *
 * Compiled twice: as itself, the paper's lock exactly (no fast path:
 * CLOF_COMPOSE_NO_FAST_PATH for this translation unit; clients "hmcs3",
 * "hmcs3.try", the named bug hmcs-status-acquire and the mutation test use
 * them), and again with VC_HMCS_FAST (verify/CMakeLists.txt), the lock as
 * clof ships it (the fast word of hmcs.h; "hmcs3.fast", "hmcs3.fast.try"),
 * and a third time with VC_HMCS_FAST and VC_HMCS_INDEXED: the fast word in
 * the lock, the tree by index, as the preload library lays HMCS out
 * ("hmcs3.fast.index", "hmcs3.fast.index.try").
 *
 * Machine "numa:2,cache:2,core:2": cache (4 cohorts of 2 cpus), numa (2 of
 * 4), system; T0 cpu 0, T1 cpu 2, T2 cpu 4 (the paper's Fig. 6: T0 and T1
 * share the middle lock, T2 is alone).  Depth 2 ("hmcs2", "hmcs2.fast"
 * ...): machine "numa:2,core:2", T0 cpu 0, T1 cpu 1 (T0's node), T2 cpu 2
 * (the other node).
 */
#if defined(VC_HMCS_SFX)
/* the HMCS paper's barrier variants (numa/hmcs.h), the paper's lock each:
 * verify/CMakeLists.txt compiles this file once per variant with
 * -DCLOF_HMCS_<V> -DVC_HMCS_SFX=_<v> -DVC_HMCS_NAME_SFX='".<v>"'
 * (clients "hmcs3.<v>", "hmcs3.<v>.try", family hmcs-variants) */
#define CLOF_COMPOSE_NO_FAST_PATH 1
#define VC_HMCS_CAT2_(a, b) a##b
#define VC_HMCS_CAT_(a, b) VC_HMCS_CAT2_(a, b)
#define VC_HMCS_(x) VC_HMCS_CAT_(x, VC_HMCS_SFX)
#define VC_HMCS_NAME_(s) s VC_HMCS_NAME_SFX
#define VC_HMCS_WHAT_ "the paper's lock, barrier variant " CLOF_HMCS_VARIANT
#define VC_HMCS_FAMILY_ "hmcs-variants"
#elif !defined(VC_HMCS_FAST)
#define CLOF_COMPOSE_NO_FAST_PATH 1
#define VC_HMCS_(x) x
#define VC_HMCS_NAME_(s) s
#define VC_HMCS_WHAT_ "the paper's lock (no fast path)"
#elif defined(VC_HMCS_INDEXED)
/* the fast word in the lock, the tree by index (hmcs.h's indexed layout,
 * which the preload library uses): one lock, so a table of one tree */
#define VC_HMCS_(x) x##_fast_index
#define VC_HMCS_NAME_(s) s ".fast.index"
#define VC_HMCS_WHAT_ "with the fast path, its word in the lock (the indexed layout)"
static void *vc_hmcs_tree1;
#define CLOF_HMCS_TREE_AT(i) ((void)(i), (clof_hmcs_tree_t *)vc_hmcs_tree1)
#define CLOF_HMCS_TREE_INDEX(tr) (vc_hmcs_tree1 = (tr), (tr)->ix = 1u)
#else
#define VC_HMCS_(x) x##_fast
#define VC_HMCS_NAME_(s) s ".fast"
#define VC_HMCS_WHAT_ "with the fast path"
#endif
#if !defined(VC_HMCS_FAMILY_)
#define VC_HMCS_FAMILY_ "numa"
#endif
#include "clients.h"

#include <clof/numa/hmcs.h>

#include <stdio.h>
#include <stdlib.h>

static clof_topology_t topo2, topo3;
static bool topo2_ready, topo_ready;
static const int32_t cpus_hmcs[3] = {0, 2, 4};
static const int32_t cpus_hmcs2[3] = {0, 1, 2};
static const int32_t *cur_cpus = cpus_hmcs;
VC_RESUME_CPUS(resume_vcpu, cur_cpus)

static clof_hmcs_t hmcs_lock;
static clof_hmcs_ctx_t hmcs_ctx[3];

static void name_tree_(void *base, size_t size, const char *what, int k, int c)
{
    char b[40];
    snprintf(b, sizeof b, "L%d.%d.%s", k, c, what);
    vc_name(base, size, b);
}

/* a fresh lock of `depth` levels over topology t, the threads on cpus */
static void hmcs_setup_(const clof_topology_t *t, uint32_t depth, const int32_t *cpus)
{
    cur_cpus = cpus;
    clof_hmcs_destroy(&hmcs_lock);
    memset(hmcs_ctx, 0, sizeof hmcs_ctx);
    if (clof_hmcs_init_topo(&hmcs_lock, t, depth, NULL) != 0) {
        fprintf(stderr, "clof-verify: hmcs init failed\n");
        exit(2);
    }
    vc_client_setup_common();
    vc_name(&hmcs_lock, sizeof hmcs_lock, "lock");
#ifdef VC_HMCS_INDEXED
    clof_hmcs_tree_t *tr = (clof_hmcs_tree_t *)vc_hmcs_tree1;
    vc_name(&hmcs_lock.fast, sizeof hmcs_lock.fast, "fast");
#else
    clof_hmcs_tree_t *tr = (clof_hmcs_tree_t *)clof_atomicptr_read_rlx(&hmcs_lock.tree);
    vc_name(&tr->fast, sizeof tr->fast, "fast");
#endif
    for (uint32_t k = 0; k < depth; k++) {
        uint32_t n = k == depth - 1 ? 1 : clof_topo_ncohorts(t, tr->lvl[k]);
        for (uint32_t c = 0; c < n; c++) {
            clof_hmcs_hnode_t *h = &tr->nodes[k][c];
            name_tree_(&h->tail, sizeof h->tail, "tail", (int)k, (int)c);
            name_tree_(&h->node.next, sizeof h->node.next, "N.next", (int)k, (int)c);
            name_tree_(&h->node.status, sizeof h->node.status, "N.status", (int)k, (int)c);
        }
    }
    for (int i = 0; i < 3; i++) {
        char b[32];
        snprintf(b, sizeof b, "T%d.next", i);
        vc_name(&hmcs_ctx[i].q.next, sizeof hmcs_ctx[i].q.next, b);
        snprintf(b, sizeof b, "T%d.status", i);
        vc_name(&hmcs_ctx[i].q.status, sizeof hmcs_ctx[i].q.status, b);
    }
}

static void hmcs3_setup(void *arg)
{
    (void)arg;
    vc_client_machine(&topo3, &topo_ready, "numa:2,cache:2,core:2");
    hmcs_setup_(&topo3, 3, cpus_hmcs);
}
__attribute__((unused)) static void hmcs2_setup(void *arg)
{
    (void)arg;
    vc_client_machine(&topo2, &topo2_ready, "numa:2,core:2");
    hmcs_setup_(&topo2, 2, cpus_hmcs2);
}

/* Fig. 9 of the HMCS paper: T0 twice, T1 and T2 once. */
static void hmcs3_thread(void *arg, int t)
{
    (void)arg;
    for (int i = 0; i < (t == 0 ? VC_T0_ACQUISITIONS : 1); i++) {
        clof_hmcs_acquire(&hmcs_lock, &hmcs_ctx[t]);
        vc_client_cs();
        clof_hmcs_release(&hmcs_lock, &hmcs_ctx[t]);
    }
}

/* The same with T2 trying once first (the tryacquire path). */
static void hmcs3_try_thread(void *arg, int t)
{
    (void)arg;
    if (VC_T2_TRIES && t == 2 && clof_hmcs_tryacquire(&hmcs_lock, &hmcs_ctx[t])) {
        vc_client_cs();
        clof_hmcs_release(&hmcs_lock, &hmcs_ctx[t]);
    }
    hmcs3_thread(arg, t);
}


const vc_client_t VC_HMCS_(vc_clients_hmcs)[] = {
    {VC_HMCS_NAME_("hmcs3"), VC_HMCS_FAMILY_,
     "HMCS depth 3, the HMCS paper's client (Fig. 9), thresholds 2, " VC_HMCS_WHAT_,
     3, hmcs3_setup, hmcs3_thread, vc_client_final4, resume_vcpu, "", 2},
    {VC_HMCS_NAME_("hmcs3") ".try", VC_HMCS_FAMILY_,
     "HMCS depth 3, T2 tries once first, " VC_HMCS_WHAT_, 3, hmcs3_setup,
     hmcs3_try_thread, vc_client_final4, resume_vcpu, "", 2},
#if !defined(VC_HMCS_INDEXED) /* depth 2: the default layout only */
    {VC_HMCS_NAME_("hmcs2"), VC_HMCS_FAMILY_,
     "HMCS depth 2, T0 and T1 on one node, T2 on the other, thresholds 2, " VC_HMCS_WHAT_,
     3, hmcs2_setup, hmcs3_thread, vc_client_final4, resume_vcpu, "", 2},
#endif
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0},
};
