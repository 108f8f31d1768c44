/* SPDX-License-Identifier: MIT */
/*
 * verify/clients.h -- the checked programs ("clients") of clof-verify.
 *
 * A client is a small program that uses one lock the way the HMCS paper's
 * verification client does (Fig. 9): 3 threads, thread 0 acquiring twice,
 * each critical section incrementing a shared counter with plain (relaxed)
 * accesses, and the final check `counter == acquisitions`.  So a lock that
 * lets two threads in at once is caught by the ghost critical-section
 * counter (mutual exclusion), and a lock that admits one thread at a time
 * but fails to order the data it protects is caught by the final assertion.
 * Locks with a tryacquire have thread 2 try once before acquiring; the
 * counter then expects one more increment per successful try.
 *
 * Clients are compiled against the `check` backend (backend_check.h); each
 * family lives in its own file and exports a table ending with name NULL.
 */
#ifndef CLOF_VERIFY_CLIENTS_H
#define CLOF_VERIFY_CLIENTS_H

#include "vc.h"

/* The workload of the common client (VC_CLIENT_THREAD and the clients
 * that follow it): T0's acquisitions, whether T2 tries once first, and the
 * acquisitions the final check expects at least.  clof-verify runs 2 and 1
 * (4 acquisitions); GenMC's CI runs (verify/genmc/) build with 1 and 0 (one
 * acquisition per thread, the HMCS paper's own client), a fraction of the
 * executions. */
#ifndef VC_T0_ACQUISITIONS
#define VC_T0_ACQUISITIONS 2
#endif
#ifndef VC_T2_TRIES
#define VC_T2_TRIES 1
#endif
#ifndef VC_MIN_ACQUIRED
#define VC_MIN_ACQUIRED (VC_T0_ACQUISITIONS + 2)
#endif

typedef struct vc_client {
    const char *name;   /* "mcs", "hmcs3", "clof.mcs+ticket", ... */
    const char *family; /* basic, numa, clof, rw, regression, hmcs-variants,
                           deep (not in CI) */
    const char *what;   /* one line */
    int nthreads;
    void (*setup)(void *arg);
    void (*thread)(void *arg, int tid);
    void (*final)(void *arg);
    void (*resume)(void *arg, int tid); /* NULL: nothing per thread */
    /* "" must verify; otherwise the property it must violate (a client
     * built with a known bug) */
    const char *expect;
    /* the preemption bound of quick mode (-1: exhaustive even there) */
    int quick_bound;
} vc_client_t;

extern const vc_client_t vc_clients_basic[];
extern const vc_client_t vc_clients_clh_outside[]; /* clients_basic.c: CLOF_CLH_LEAN */
extern const vc_client_t vc_clients_numa[];
/* compose.h's indexed layout (clients_compose_index.c: the preload library's) */
extern const vc_client_t vc_clients_compose_index[];
extern const vc_client_t vc_clients_hmcs[];      /* the paper's HMCS */
extern const vc_client_t vc_clients_hmcs_fast[]; /* with the fast path */
extern const vc_client_t vc_clients_hmcs_fast_index[]; /* ... its word in the lock */
/* the HMCS paper's barrier variants (numa/hmcs.h; the paper's lock) */
extern const vc_client_t vc_clients_hmcs_sc[];
extern const vc_client_t vc_clients_hmcs_fences[];
extern const vc_client_t vc_clients_hmcs_amo[];
extern const vc_client_t vc_clients_swapped[];
extern const vc_client_t vc_clients_timed[];
extern const vc_client_t vc_clients_rw[]; /* RW locks (clients_rw.c) */
extern const vc_client_t vc_clients_cr[]; /* the cr: layer (clients_cr.c) */
extern const vc_client_t vc_clients_cr_lazy[]; /* ... lazy (clients_cr_lazy.c) */
extern const vc_client_t vc_clients_asl[]; /* the asl: layer (clients_asl.c) */

#ifdef CLOF_BACKEND_HEADER
#include <clof/await.h>
#include <clof/topology.h>
#include <clof/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shared data of every client: the counter its critical sections
 * increment and the number of acquisitions that succeeded. */
static clof_atomic32_t vc_counter;
static uint32_t vc_acquired;

static inline void vc_client_setup_common(void)
{
#if defined(VC_PARK_MODE)
    /* the parking table is process state: every execution starts empty */
    memset(clof_park_table, 0, sizeof clof_park_table);
    vc_name(clof_park_table, sizeof clof_park_table, "park");
#endif
    clof_atomic32_write_rlx(&vc_counter, 0);
    vc_acquired = 0;
    vc_name(&vc_counter, sizeof vc_counter, "counter");
}

/* The critical section: a non-atomic increment with relaxed accesses. */
static inline void vc_client_cs(void)
{
    vc_cs_enter();
    uint32_t v = clof_atomic32_read_rlx(&vc_counter);
    clof_atomic32_write_rlx(&vc_counter, v + 1);
    vc_acquired++;
    vc_cs_exit();
}

/* An emulated machine for the clients of hierarchical locks: every level's
 * threshold 2, so that in-cohort passing happens within a few
 * acquisitions. */
static inline void vc_client_topology(clof_topology_t *t, const char *shape)
{
    clof_topo_error_t err;
    if (clof_topology_emulate(t, shape, 0, &err) != 0) {
        fprintf(stderr, "clof-verify: emulate %s: %s\n", shape, err.msg);
        exit(2);
    }
    for (uint32_t l = 0; l < t->nlevels; l++)
        t->level[l].threshold = 2;
}

/* The same, built at the first call only (*ready remembers it). */
static inline void vc_client_machine(clof_topology_t *t, bool *ready,
                                     const char *shape)
{
    if (*ready)
        return;
    vc_client_topology(t, shape);
    *ready = true;
}

/* The process topology (what clof_topology() returns: CNA and cr: read
 * it): the emulated machine `shape`, environment ignored.  Every family
 * that needs it installs the same one, so that they agree whichever runs
 * first. */
static inline void vc_process_topology(const char *shape)
{
    clof_topo_opts_t o;
    memset(&o, 0, sizeof o);
    o.emulate = shape;
    o.flags = CLOF_TOPO_NO_ENV | CLOF_TOPO_QUIET;
    clof_topo_error_t err;
    if (clof_topology_install(&o, &err) != 0) {
        fprintf(stderr, "clof-verify: topology: %s\n", err.msg);
        exit(2);
    }
}

/* A resume hook (vc_client_t.resume) that puts thread tid on virtual cpu
 * cpus[tid]. */
#define VC_RESUME_CPUS(fn, cpus)                                               \
    static void fn(void *arg, int tid)                                         \
    {                                                                          \
        (void)arg;                                                             \
        clof_topo_set_vcpu((cpus)[tid]);                                       \
    }

/* Reset a lock N built by compose.h's front end (CLOF_LOCK, the cohort and
 * abortable cohort locks) over topology T for a new execution, with zeroed
 * contexts N##_ctx[3], and name its parts for traces.  Either layout of
 * compose.h (the indexed one: clients_compose_index.c, which defines
 * VC_COMPOSED_FORGET to free the tree's table entry before the tree). */
#ifndef VC_COMPOSED_FORGET
#define VC_COMPOSED_FORGET(treep) ((void)(treep))
#endif
#define VC_COMPOSED_RESET(N, T)                                                \
    do {                                                                       \
        VC_COMPOSED_FORGET(&N##_lock.tree);                                    \
        clof_##N##_destroy(&N##_lock);                                         \
        memset(N##_ctx, 0, sizeof N##_ctx);                                    \
        if (clof_##N##_init_topo(&N##_lock, &(T), NULL) != 0) {                \
            fprintf(stderr, "clof-verify: " #N " init failed\n");            \
            exit(2);                                                           \
        }                                                                      \
        vc_client_setup_common();                                              \
        clof_compose_tree_t *tr_ = clof_cmp_tree_if_(&N##_lock.tree);          \
        vc_name(&N##_lock, sizeof N##_lock, "lock");                           \
        vc_name(tr_->nodes[0], sizeof(clof_##N##_l0_t) * tr_->ncoh[0], "L0");  \
        vc_name(tr_->nodes[1], sizeof(clof_##N##_l1_t) * tr_->ncoh[1], "L1");  \
        vc_name(&N##_ctx[0], sizeof N##_ctx[0], "ctx0");                       \
        vc_name(&N##_ctx[1], sizeof N##_ctx[1], "ctx1");                       \
        vc_name(&N##_ctx[2], sizeof N##_ctx[2], "ctx2");                       \
    } while (0)

/* The common client's thread `fn` over lock `lock` of type clof_<N>_t with
 * contexts ctx[3]: T2 tries once first (the tryacquire path), then T0
 * acquires twice and the others once, each with a critical section. */
#define VC_CLIENT_THREAD(fn, N, lock, ctx)                                     \
    static void fn(void *arg, int t)                                           \
    {                                                                          \
        (void)arg;                                                             \
        if (VC_T2_TRIES && t == 2 && clof_##N##_tryacquire(&(lock), &(ctx)[t])) {             \
            vc_client_cs();                                                    \
            clof_##N##_release(&(lock), &(ctx)[t]);                            \
        }                                                                      \
        for (int i = 0; i < (t == 0 ? VC_T0_ACQUISITIONS : 1); i++) {          \
            clof_##N##_acquire(&(lock), &(ctx)[t]);                            \
            vc_client_cs();                                                    \
            clof_##N##_release(&(lock), &(ctx)[t]);                            \
        }                                                                      \
    }

static inline void vc_client_final_common(void)
{
    vc_assert(clof_atomic32_read_rlx(&vc_counter) == vc_acquired,
              "counter != number of critical sections: an update was lost "
              "(the lock did not order its data)");
}

/* The final check of the clients where T0 acquires twice and T1 and T2
 * once (vc_client_t.final). */
static inline void vc_client_final4(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired >= VC_MIN_ACQUIRED, "an acquisition went missing");
}

/* The machines of the NUMA-aware clients (clients_numa.c,
 * clients_compose_index.c), built at the first call (*ready): two levels
 * "numa:2,core:2" in *t2, three levels "numa:2,cache:2,core:2" in *t3 and
 * as the process topology (CNA and cr: read it). */
static inline void vc_client_numa_machines(clof_topology_t *t2, clof_topology_t *t3,
                                           bool *ready)
{
    if (*ready)
        return;
    vc_client_topology(t2, "numa:2,core:2");
    vc_client_topology(t3, "numa:2,cache:2,core:2");
    vc_process_topology("numa:2,cache:2,core:2");
    *ready = true;
}

/* A client of a composed lock N on topology T with placement C (the
 * includer's machines() and cur_cpus, the cpus its resume hook reads). */
#define VC_COMPOSED_CLIENT(N, T, C)                                            \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[3];                                        \
    static void N##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        machines();                                                            \
        cur_cpus = C;                                                          \
        VC_COMPOSED_RESET(N, T);                                               \
    }                                                                          \
    VC_CLIENT_THREAD(N##_thread, N, N##_lock, N##_ctx)
#endif

#endif /* CLOF_VERIFY_CLIENTS_H */
