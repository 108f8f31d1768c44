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
 * live thread blocked, which the checker reports (vc.c).  With
 * clof-verify-park (VC_PARK_MODE) the waits are the production policy's
 * futex parks.
 */
#define CLOF_CR_CPUS() 1u
#define CLOF_CR_ADMIT_EVERY 2u
#include "clients.h"

#include <clof/compose.h>
#include <clof/cr.h>
#include <clof/lock/mcs.h>
#include <clof/lock/ticket.h>

#include <stdio.h>
#include <stdlib.h>

static void cr_final(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired >= 4, "an acquisition went missing");
}

static void cr_name_state(clof_cr_t *s)
{
    vc_name(&s->releases, sizeof s->releases, "cr.releases");
    vc_name(&s->active, sizeof s->active, "cr.active");
    vc_name(&s->cap, sizeof s->cap, "cr.cap");
    vc_name(&s->npassive, sizeof s->npassive, "cr.npassive");
    vc_name(&s->grants, sizeof s->grants, "cr.grants");
    vc_name(&s->taken, sizeof s->taken, "cr.taken");
    vc_name(&s->queue, sizeof s->queue, "cr.queue");
}

/* ---- cr over MCS ---------------------------------------------------------- */

CLOF_CR_LOCK(cr_mcs, mcs)
static clof_cr_mcs_t crm_lock;
static clof_cr_mcs_ctx_t crm_ctx[3];

static void crm_setup(void *arg)
{
    (void)arg;
    memset(&crm_lock, 0, sizeof crm_lock);
    memset(crm_ctx, 0, sizeof crm_ctx);
    clof_cr_mcs_init(&crm_lock);
    vc_client_setup_common();
    vc_name(&crm_lock.base, sizeof crm_lock.base, "mcs.tail");
    cr_name_state(&crm_lock.cr);
    vc_name(&crm_ctx[0], sizeof crm_ctx[0], "ctx0");
    vc_name(&crm_ctx[1], sizeof crm_ctx[1], "ctx1");
    vc_name(&crm_ctx[2], sizeof crm_ctx[2], "ctx2");
}

static void crm_thread(void *arg, int t)
{
    (void)arg;
    if (t == 2 && clof_cr_mcs_tryacquire(&crm_lock, &crm_ctx[t])) {
        vc_client_cs();
        clof_cr_mcs_release(&crm_lock, &crm_ctx[t]);
    }
    for (int i = 0; i < (t == 0 ? 2 : 1); i++) {
        clof_cr_mcs_acquire(&crm_lock, &crm_ctx[t]);
        vc_client_cs();
        clof_cr_mcs_release(&crm_lock, &crm_ctx[t]);
    }
}

#if !defined(VC_PARK_MODE)
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
    cr_name_state(&crc_lock.cr);
    vc_name(&crc_ctx[0], sizeof crc_ctx[0], "ctx0");
    vc_name(&crc_ctx[1], sizeof crc_ctx[1], "ctx1");
    vc_name(&crc_ctx[2], sizeof crc_ctx[2], "ctx2");
}

static void crc_thread(void *arg, int t)
{
    (void)arg;
    if (t == 2 && clof_cr_cmp_tryacquire(&crc_lock, &crc_ctx[t])) {
        vc_client_cs();
        clof_cr_cmp_release(&crc_lock, &crc_ctx[t]);
    }
    for (int i = 0; i < (t == 0 ? 2 : 1); i++) {
        clof_cr_cmp_acquire(&crc_lock, &crc_ctx[t]);
        vc_client_cs();
        clof_cr_cmp_release(&crc_lock, &crc_ctx[t]);
    }
}
#endif

const vc_client_t vc_clients_cr[] = {
    {"cr.mcs", "cr",
     "cr: over MCS, active set 1, grant every 2 releases: 3 threads, T0 twice, "
     "T2 tries first", 3, crm_setup, crm_thread, cr_final, NULL, "", 2},
#if !defined(VC_PARK_MODE)
    {"cr.clof.mcs+ticket", "cr",
     "cr: over CLoF(mcs, ticket) (2 levels), active set 1, grant every 2 "
     "releases", 3, crc_setup, crc_thread, cr_final, cr_resume, "", 2},
#endif
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
