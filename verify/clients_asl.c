/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_asl.c -- clients of the asymmetry-aware layer
 * (include/clof/asl.h, family "asl"): the reorderable lock over MCS and
 * over a 2-level CLoF composition (MCS at the lowest level, ticket at the
 * system level), with the common client's shape (clients.h: 3 threads, T0
 * acquires VC_T0_ACQUISITIONS times, T2 tries once first).
 *
 * T0 is a big core's thread: it enqueues at once (lock_immediately).  T1
 * and T2 are little cores' threads: they acquire with lock_reorder and a
 * window of ASL_WINDOW checks -- a tryacquire, then, if the lock is taken,
 * a standby that tries again at every check until the window ends, and
 * then the base's FIFO acquire.  So the two standby competitors reorder
 * with each other and with T0's queue, and every path of asl.h is
 * reachable: the immediate take, a take during the standby, and the
 * enqueue after the window.  The layer adds no shared state of its own;
 * what the checker shows is that its tryacquire-based standby keeps the
 * base's mutual exclusion and the ordering of the protected data (the
 * common client's counter and final check).
 *
 * The clock (CLOF_ASL_NOW, asl.h's hook for tests): a per-thread count of
 * the standby's checks, so a window of N "ns" is N checks and the standby
 * loop is bounded without a clock thread.  The thread's slot is its
 * virtual cpu (the resume hook sets it: vc calls it at every switch).
 */
#include "clients.h"

#include <clof/topology.h>

#ifndef ASL_WINDOW
#define ASL_WINDOW 2u /* standby checks before the enqueue */
#endif
static uint64_t asl_ticks[8]; /* per thread (by virtual cpu), plain */
#define CLOF_ASL_NOW() (++asl_ticks[clof_topo_get_vcpu() & 7])

#include <clof/asl.h>
#include <clof/compose.h>
#include <clof/lock/mcs.h>
#include <clof/lock/ticket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* T0, T1 on one cohort, T2 on the other (of "numa:2,core:2") */
static const int32_t asl_cpus[3] = {0, 1, 2};
VC_RESUME_CPUS(asl_resume, asl_cpus)

static void asl_ticks_reset(void)
{
    for (int i = 0; i < 8; i++)
        asl_ticks[i] = 0;
}

/* The thread of the client over lock `lock` (clof_<N>_t), contexts ctx[3] */
#define ASL_THREAD(fn, N, lock, ctx)                                           \
    static void fn(void *arg, int t)                                           \
    {                                                                          \
        (void)arg;                                                             \
        if (VC_T2_TRIES && t == 2 && clof_##N##_tryacquire(&(lock), &(ctx)[t])) { \
            vc_client_cs();                                                    \
            clof_##N##_release(&(lock), &(ctx)[t]);                            \
        }                                                                      \
        for (int i = 0; i < (t == 0 ? VC_T0_ACQUISITIONS : 1); i++) {          \
            if (t == 0)                                                        \
                clof_##N##_acquire_immediately(&(lock), &(ctx)[t]);            \
            else                                                               \
                clof_##N##_acquire_reorder(&(lock), &(ctx)[t], ASL_WINDOW);    \
            vc_client_cs();                                                    \
            clof_##N##_release(&(lock), &(ctx)[t]);                            \
        }                                                                      \
    }

/* ---- asl over MCS --------------------------------------------------------- */

CLOF_ASL_LOCK(asl_mcs, mcs)
static clof_asl_mcs_t aslm_lock;
static clof_asl_mcs_ctx_t aslm_ctx[3];

static void aslm_setup(void *arg)
{
    (void)arg;
    asl_ticks_reset();
    memset(&aslm_lock, 0, sizeof aslm_lock);
    memset(aslm_ctx, 0, sizeof aslm_ctx);
    clof_asl_mcs_init(&aslm_lock);
    vc_client_setup_common();
    vc_name(&aslm_lock, sizeof aslm_lock, "mcs.tail");
    vc_name(&aslm_ctx[0], sizeof aslm_ctx[0], "ctx0");
    vc_name(&aslm_ctx[1], sizeof aslm_ctx[1], "ctx1");
    vc_name(&aslm_ctx[2], sizeof aslm_ctx[2], "ctx2");
}

ASL_THREAD(aslm_thread, asl_mcs, aslm_lock, aslm_ctx)

/* ---- asl over a 2-level composition --------------------------------------- */

static clof_topology_t asl_topo2;
static bool asl_topo_ready;

CLOF_COMPOSE(asl_in2, mcs, ticket)
CLOF_ASL_LOCK(asl_cmp, asl_in2)
static clof_asl_cmp_t aslc_lock;
static clof_asl_cmp_ctx_t aslc_ctx[3];

static void aslc_setup(void *arg)
{
    (void)arg;
    vc_client_machine(&asl_topo2, &asl_topo_ready, "numa:2,core:2");
    asl_ticks_reset();
    clof_asl_in2_destroy(&aslc_lock.base);
    memset(aslc_ctx, 0, sizeof aslc_ctx);
    /* the base's own init over the machine (asl.h: the base's business) */
    if (clof_asl_in2_init_topo(&aslc_lock.base, &asl_topo2, NULL) != 0) {
        fprintf(stderr, "clof-verify: asl over mcs+ticket: init failed\n");
        exit(2);
    }
    vc_client_setup_common();
    vc_name(&aslc_lock.base, sizeof aslc_lock.base, "cmp");
    vc_name(&aslc_ctx[0], sizeof aslc_ctx[0], "ctx0");
    vc_name(&aslc_ctx[1], sizeof aslc_ctx[1], "ctx1");
    vc_name(&aslc_ctx[2], sizeof aslc_ctx[2], "ctx2");
}

ASL_THREAD(aslc_thread, asl_cmp, aslc_lock, aslc_ctx)

const vc_client_t vc_clients_asl[] = {
    {"asl.mcs", "asl",
     "asl: over MCS: T0 enqueues at once (twice), T1 and T2 reorder (window "
     "of 2 checks), T2 tries first", 3, aslm_setup, aslm_thread,
     vc_client_final4, asl_resume, "", 2},
    {"asl.clof.mcs+ticket", "asl",
     "asl: over CLoF(mcs, ticket) (2 levels): T0 enqueues at once, T1 and "
     "T2 reorder (window of 2 checks)", 3, aslc_setup, aslc_thread,
     vc_client_final4, asl_resume, "", 2},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
