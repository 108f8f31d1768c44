/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_cr.c -- clients of the concurrency-restriction layer
 * (include/clof/cr.h, family "cr"): the layer over MCS and over a 2-level
 * CLoF composition (MCS at the lowest level, ticket at the system level),
 * with the client of clients.h (3 threads, T0 acquires twice, T2 tries
 * once first).
 *
 * The active set is 1 (CLOF_CR_CPUS) and a periodic grant comes every 2
 * releases (CLOF_CR_ADMIT_EVERY), so within 3 threads every path of the
 * layer is reachable: admission by room in the active set, the passive
 * queue and its head, the idle grant (the active set empties while a
 * passive thread waits) and the periodic grant.  What the checker then
 * shows: mutual exclusion and the ordering of the protected data (the
 * common client), and no lost wake-up -- an execution in which a passive
 * thread waits forever while the others have finished is a hang, every
 * live thread blocked, which the checker reports (vc.c).  `cr.mcs.mirror`
 * is cr.mcs in the preload library's layout (the release reads a mirror
 * of npassive != 0), and `cr.mirror` checks the mirror's own claim.  With
 * clof-verify-park (VC_PARK_MODE) the waits are the production policy's
 * futex parks.
 *
 * NUMA-aware admission (the passive queue is a CNA lock, cr.h): every
 * client runs on the emulated machine "numa:2,cache:2,core:2" (the one
 * clients_numa.c installs as the process topology; CNA reads it), each
 * thread on its own virtual cpu.  With 3 threads at most two are passive
 * at once, so the queue never has a thread to pass over; `cr.mcs.numa`
 * has 4 threads on 2 nodes (T0, T2 on node 0; T1, T3 on node 1), where
 * T2, admitted, passes over T3 (node 1) to T0 (node 0), and the checker
 * covers that path too: the CNA hand-over with a secondary queue, its
 * flush (CNA count 2), under the layer.  `cr-witness.numa-bypass`, the
 * same client whose final check says "no admission passed over a thread
 * of another node", must fail: the path is reached (CI: --check-expected).
 */
#define CLOF_CR_CPUS() 1u
#define CLOF_CR_ADMIT_EVERY 2u
#define CLOF_CR_LAZY 0 /* limiting from the start: the protocol (lazy: clients_cr_lazy.c) */
#define CLOF_CR_NUMA 1   /* the NUMA-aware passive queue (CNA; the default, named) */
#define CLOF_CNA_COUNT 2u /* the passive queue's local streak (default 256) */
static int cr_bypassed; /* an admission passed over another node's thread */
#define CLOF_CR_ON_HEAD(s, bypassed)                                           \
    ((void)(s), (bypassed) ? (void)(cr_bypassed = 1) : (void)0)
#include "clients.h"

#include <clof/compose.h>
#include <clof/cr.h>
#include <clof/lock/mcs.h>
#include <clof/lock/ticket.h>

#include "clients_cr.h"

#include <stdio.h>
#include <stdlib.h>

static void cr_final(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired >= VC_MIN_ACQUIRED, "an acquisition went missing");
}

/* The process topology (the passive queue's CNA reads it): the machine of
 * clients_numa.c, so that the families agree whichever runs first. */
static bool cr_machine_ready;
static void cr_machine(void)
{
    if (cr_machine_ready)
        return;
    vc_process_topology("numa:2,cache:2,core:2");
    cr_machine_ready = true;
}
/* 3 threads: T0, T1 on node 0, T2 on node 1; 4 threads: T0, T2 on node 0,
 * T1, T3 on node 1 */
static const int32_t cr_cpus3[3] = {0, 1, 4};
VC_RESUME_CPUS(cr_resume3, cr_cpus3)
#if !defined(VC_PARK_MODE)
static const int32_t cr_cpus4[4] = {0, 4, 1, 5};
VC_RESUME_CPUS(cr_resume4, cr_cpus4)
#endif

/* ---- cr over MCS ---------------------------------------------------------- */

CLOF_CR_LOCK(cr_mcs, mcs)
static clof_cr_mcs_t crm_lock;
static clof_cr_mcs_ctx_t crm_ctx[4];

static void crm_setup(void *arg)
{
    (void)arg;
    cr_machine();
    cr_bypassed = 0;
    memset(&crm_lock, 0, sizeof crm_lock);
    memset(crm_ctx, 0, sizeof crm_ctx);
    clof_cr_mcs_init(&crm_lock);
    vc_client_setup_common();
    vc_name(&crm_lock.base, sizeof crm_lock.base, "mcs.tail");
    vc_cr_name_state(&crm_lock.cr);
    vc_name(&crm_ctx[0], sizeof crm_ctx[0], "ctx0");
    vc_name(&crm_ctx[1], sizeof crm_ctx[1], "ctx1");
    vc_name(&crm_ctx[2], sizeof crm_ctx[2], "ctx2");
    vc_name(&crm_ctx[3], sizeof crm_ctx[3], "ctx3");
}

VC_CLIENT_THREAD(crm_thread, cr_mcs, crm_lock, crm_ctx)

/* ---- cr over MCS, the release reading a mirror (the preload library) ------
 * The preload library keeps the inner lock in the mutex and the layer's
 * state in a block; the release's fast path reads bit 0 of a word of the
 * mutex, which mirrors "passive threads wait" (cr.h, MIRROR), instead of
 * `npassive`.  The same functions over that layout: the mirror is set,
 * cleared and reread by the passive threads and the releases. */
typedef struct {
    clof_mcs_t base;
    clof_cr_t cr;
    clof_atomic32_t mirror;
} clof_crx_mcs_t;
CLOF_CR_CTX(crx_mcs, mcs)
#define CRX_HINT_(l) (clof_atomic32_read_rlx(&(l)->mirror) & 1u)
#define CRX_MIRROR_(l) (&(l)->mirror)
/* the release number: a word written by holders only, as the library's
 * (the state's `releases` here; the mutex's crnum there) */
CLOF_CR_FUNCTIONS(crx_mcs, mcs, CLOF_CR_BASE_, CLOF_CR_STATE_, CRX_HINT_, CRX_MIRROR_,
                  CLOF_CR_NUMBER_)
static clof_crx_mcs_t crx_lock;
static clof_crx_mcs_ctx_t crx_ctx[3];

static void crx_setup(void *arg)
{
    (void)arg;
    cr_machine();
    cr_bypassed = 0;
    memset(&crx_lock, 0, sizeof crx_lock);
    memset(crx_ctx, 0, sizeof crx_ctx);
    clof_mcs_init(&crx_lock.base);
    clof_cr_state_init(&crx_lock.cr);
    vc_client_setup_common();
    vc_name(&crx_lock.base, sizeof crx_lock.base, "mcs.tail");
    vc_cr_name_state(&crx_lock.cr);
    vc_name(&crx_lock.mirror, sizeof crx_lock.mirror, "cr.mirror");
    vc_name(&crx_ctx[0], sizeof crx_ctx[0], "ctx0");
    vc_name(&crx_ctx[1], sizeof crx_ctx[1], "ctx1");
    vc_name(&crx_ctx[2], sizeof crx_ctx[2], "ctx2");
}

VC_CLIENT_THREAD(crx_thread, crx_mcs, crx_lock, crx_ctx)

/* The mirror's own claim (cr.h, clof_cr_mirror_clear_): it is not left
 * clear while a thread is passive.  T0 becomes passive and stays; T1 and
 * T3 become passive and leave (the first in from 0 sets the bit, the last
 * one out clears it); T2 is a release that finds the mirror set with
 * nobody passive (it clears too).  Whatever the interleaving, once all are
 * done T0 is passive and the bit is set. */
static clof_cr_t crmi_state;
static clof_atomic32_t crmi_mirror;
static void crmi_setup(void *arg)
{
    (void)arg;
    memset(&crmi_state, 0, sizeof crmi_state);
    clof_atomic32_write_rlx(&crmi_mirror, 0);
    vc_cr_name_state(&crmi_state);
    vc_name(&crmi_mirror, sizeof crmi_mirror, "cr.mirror");
}
static void crmi_thread(void *arg, int t)
{
    (void)arg;
    clof_cr_t *s = &crmi_state;
    if (t == 2) { /* clof_cr_releasing_'s check */
        clof_cr_mirror_heal_(s, &crmi_mirror);
        return;
    }
    /* clof_cr_passive_'s entry and (T1, T3) exit */
    clof_cr_passive_enter_(s, &crmi_mirror);
    if (t != 0)
        clof_cr_passive_exit_(s, &crmi_mirror);
}
static void crmi_final(void *arg)
{
    (void)arg;
    vc_assert(clof_atomic32_read_rlx(&crmi_state.npassive) == 1, "npassive is not 1");
    vc_assert((clof_atomic32_read_rlx(&crmi_mirror) & 1u) != 0,
              "the mirror is clear while a thread is passive");
}

#if !defined(VC_PARK_MODE)
/* 4 threads on 2 nodes: T0 twice, the others once, no tryacquire (not in
 * clof-verify-park: 457 k executions, 24 s under C11 at bound 1; the
 * 3-thread client checks the parks of the layer and of its CNA queue) */
static void crm4_thread(void *arg, int t)
{
    (void)arg;
    for (int i = 0; i < (t == 0 ? VC_T0_ACQUISITIONS : 1); i++) {
        clof_cr_mcs_acquire(&crm_lock, &crm_ctx[t]);
        vc_client_cs();
        clof_cr_mcs_release(&crm_lock, &crm_ctx[t]);
    }
}

static void crm4_final(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired == VC_T0_ACQUISITIONS + 3, "an acquisition went missing");
}

/* the witness: the passive queue's NUMA path is reached */
static void crm4_final_witness(void *arg)
{
    crm4_final(arg);
    vc_assert(!cr_bypassed, "no admission passed over a passive thread of "
                            "another node");
}

/* ---- cr over a 2-level composition ------------------------------------------ */

static clof_topology_t cr_topo2;
static bool cr_topo_ready;
static const int32_t cr_cpus2[3] = {0, 1, 2}; /* T0, T1 one cohort; T2 the other */
static const int32_t *cr_cur = cr_cpus2;
VC_RESUME_CPUS(cr_resume, cr_cur)

CLOF_COMPOSE(cr_in2, mcs, ticket)
CLOF_CR_LOCK(cr_cmp, cr_in2)
static clof_cr_cmp_t crc_lock;
static clof_cr_cmp_ctx_t crc_ctx[3];

static void crc_setup(void *arg)
{
    (void)arg;
    vc_client_machine(&cr_topo2, &cr_topo_ready, "numa:2,core:2");
    cr_machine();
    clof_cr_in2_destroy(&crc_lock.base);
    memset(&crc_lock.cr, 0, sizeof crc_lock.cr);
    memset(crc_ctx, 0, sizeof crc_ctx);
    if (clof_cr_in2_init_topo(&crc_lock.base, &cr_topo2, NULL) != 0) {
        fprintf(stderr, "clof-verify: cr over mcs+ticket: init failed\n");
        exit(2);
    }
    clof_cr_state_init(&crc_lock.cr);
    vc_client_setup_common();
    vc_name(&crc_lock.base, sizeof crc_lock.base, "cmp");
    vc_cr_name_state(&crc_lock.cr);
    vc_name(&crc_ctx[0], sizeof crc_ctx[0], "ctx0");
    vc_name(&crc_ctx[1], sizeof crc_ctx[1], "ctx1");
    vc_name(&crc_ctx[2], sizeof crc_ctx[2], "ctx2");
}

VC_CLIENT_THREAD(crc_thread, cr_cmp, crc_lock, crc_ctx)
#endif

const vc_client_t vc_clients_cr[] = {
    {"cr.mcs", "cr",
     "cr: over MCS, active set 1, grant every 2 releases: 3 threads, T0 twice, "
     "T2 tries first", 3, crm_setup, crm_thread, cr_final, cr_resume3, "", 2},
    {"cr.mcs.mirror", "cr",
     "cr.mcs with the preload library's layout: the release reads a mirror "
     "of npassive != 0 kept beside the inner lock", 3, crx_setup, crx_thread,
     cr_final, cr_resume3, "", 2},
    {"cr.mirror", "cr",
     "the mirror of npassive != 0: not left clear while a thread is passive "
     "(a passive thread stays, two come and leave, a release clears a stale "
     "bit)", 4, crmi_setup, crmi_thread, crmi_final, NULL, "", 3},
#if !defined(VC_PARK_MODE)
    {"cr.mcs.numa", "cr",
     "cr: over MCS, 4 threads on 2 nodes (NUMA-aware admission: an admitted "
     "head passes over the other node's thread), T0 twice", 4, crm_setup,
     crm4_thread, crm4_final, cr_resume4, "", 1},
    {"cr-witness.numa-bypass", "cr-witness",
     "cr.mcs.numa, whose final check says no admission passed over another "
     "node's thread: must fail (the NUMA path is reached)", 4, crm_setup,
     crm4_thread, crm4_final_witness, cr_resume4, "assertion", 1},
    {"cr.clof.mcs+ticket", "cr",
     "cr: over CLoF(mcs, ticket) (2 levels), active set 1, grant every 2 "
     "releases", 3, crc_setup, crc_thread, cr_final, cr_resume, "", 2},
#endif
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
