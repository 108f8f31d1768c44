/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_swapped.c -- compositions built with the release order of
 * the CLoF generator swapped (CLOF_COMPOSE_SWAPPED_RELEASE: the low lock is
 * released before the high one, breaking the context invariant of the CLoF
 * paper §4.1.3).  The model checker must catch it wherever the high lock
 * uses its context (a queue node: MCS, CLH, Hemlock): the next owner of the
 * low lock reuses high_ctx while the previous owner still releases the high
 * lock with it.  Over a context-free high lock (ticket) the swap is harmless
 * and the client verifies: the invariant is about contexts.
 * Same machine and client as clients_numa.c (two levels, threshold 2), with
 * a scheduling point between the two releases (below).
 */
#define CLOF_COMPOSE_SWAPPED_RELEASE 1
#include "clients.h"

/* vc cannot preempt a thread inside plain code: everything between two
 * shim accesses runs as one step.  CLH's release updates its context
 * (c->node = c->pred, plain) in the step of the access before its one shim
 * store, so without a scheduling point between the two releases the
 * swapped order's window -- the low lock handed over, high_ctx not yet
 * updated -- is closed.  This relaxed load of a word nobody writes is that
 * scheduling point; natively it would be one load.  Even with it, DPOR
 * (which sees only shim accesses) treats the releaser's point and the next
 * owner's step that reads high_ctx as independent and never orders them
 * the other way: swapped.mcs+clh (family "plain") is caught by the search
 * without DPOR (SC, bound 3), docs/lab/verification-notebook.md, "swapped.mcs+clh".
 * Defined before compose.h, whose generic release code (clof_cmp_*_release)
 * is compiled where the header is included (hier/fast.h). */
static clof_atomic32_t swap_point;
#define CLOF_CMP_RELEASE_ORDER_(high, low)                                     \
    (low, (void)clof_atomic32_read_rlx(&swap_point), high)

#include <clof/compose.h>
#include <clof/lock/list.h>

#include <stdio.h>
#include <stdlib.h>

static clof_topology_t topo2;
static bool topo_ready;
static const int32_t cpus2[3] = {0, 1, 2};

static void machine(void)
{
    vc_client_machine(&topo2, &topo_ready, "numa:2,core:2");
}
VC_RESUME_CPUS(resume_vcpu, cpus2)

CLOF_COMPOSE(sw_tkt_mcs, ticket, mcs)
CLOF_COMPOSE(sw_mcs_clh, mcs, clh)
CLOF_COMPOSE(sw_tkt_hem, ticket, hemlock)
CLOF_COMPOSE(sw_tkt_tkt, ticket, ticket)

#define VC_SWAPPED_CLIENT_(N)                                                  \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[3];                                        \
    static void N##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        machine();                                                             \
        VC_COMPOSED_RESET(N, topo2);                                           \
    }                                                                          \
    static void N##_thread(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        for (int i = 0; i < (t == 0 ? 2 : 1); i++) {                           \
            clof_##N##_acquire(&N##_lock, &N##_ctx[t]);                        \
            vc_client_cs();                                                    \
            clof_##N##_release(&N##_lock, &N##_ctx[t]);                        \
        }                                                                      \
    }

VC_SWAPPED_CLIENT_(sw_tkt_mcs)
VC_SWAPPED_CLIENT_(sw_mcs_clh)
VC_SWAPPED_CLIENT_(sw_tkt_hem)
VC_SWAPPED_CLIENT_(sw_tkt_tkt)


/* Preemption bound 3: with the composition's fast path (compose.h) the
 * first acquisitions skip the hierarchy, so under SC the broken window
 * needs one preemption more than without it (found at bound 3 in 0.01 s). */
#define E_(name, what, N, expect)                                              \
    {name, "regression", what, 3, N##_setup, N##_thread, vc_client_final4, resume_vcpu,  \
     expect, expect[0] ? 3 : 2},
#define EP_(name, what, N, expect)                                             \
    {name, "plain", what, 3, N##_setup, N##_thread, vc_client_final4, resume_vcpu,       \
     expect, 3},
const vc_client_t vc_clients_swapped[] = {
    E_("swapped.ticket+mcs", "CLoF(ticket, MCS) with the release order swapped",
       sw_tkt_mcs, "*")
    EP_("swapped.mcs+clh",
        "CLoF(MCS, CLH) swapped: a race on CLH's plain context fields, "
        "caught without DPOR (--no-dpor --model sc)",
        sw_mcs_clh, "*")
    E_("swapped.ticket+hemlock",
       "CLoF(ticket, Hemlock) with the release order swapped", sw_tkt_hem, "*")
    E_("swapped.ticket+ticket",
       "CLoF(ticket, ticket) swapped: harmless, no context at the high level",
       sw_tkt_tkt, "")
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
