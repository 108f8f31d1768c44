/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_cr_lazy.c -- clients of the concurrency-restriction layer
 * with lazy restriction (include/clof/cr.h, CLOF_CR_LAZY: a lock starts
 * open, limits once a contended wait could not keep a cpu, and opens again
 * after CLOF_CR_CALM calm counted releases).  Family "cr", as the
 * protocol's own clients (clients_cr.c, which run it limiting from the
 * start).
 *
 * The mode changes are driven here without a waiting policy: every
 * contended wait reports crowding (CLOF_CR_CROWDED true) and one calm
 * counted release opens the lock (CLOF_CR_CALM 1).  With the active set 1
 * and a periodic grant every 2 releases, 3 threads (T0 twice, T2 tries
 * once first) then reach the changes in every order against the rest of
 * the layer: an uncounted waiter of the open lock beside counted and
 * passive ones once it limits, and the lock opening while a thread is
 * on its way into the passive set (its holder read `npassive` 0) -- the
 * case the idle grant must still cover.  What the checker shows: mutual
 * exclusion and the ordering of the protected data, and no lost wake-up
 * (a passive thread waiting for ever while the others have finished is a
 * hang).  `cr-witness.lazy-open-passive`, whose final check says that no
 * passive thread was admitted while the lock was open, must fail: the
 * search reaches that case (CI: --check-expected).  The passive queue is MCS here (CLOF_CR_NUMA 0): its NUMA path
 * is clients_cr.c's, and lazy restriction touches only the active side.
 */
#define CLOF_CR_CPUS() 1u
#define CLOF_CR_ADMIT_EVERY 2u
#define CLOF_CR_NUMA 0
#define CLOF_CR_LAZY 1
#define CLOF_CR_CALM 1u
#define CLOF_CR_CROWDED(s, g) ((void)(s), (void)(g), true)
/* the witness: a passive thread admitted while the lock is open */
static int crl_open_admit;
#define CLOF_CR_ON_ADMIT(s, granted)                                           \
    ((void)(granted),                                                          \
     clof_atomic32_read_rlx(&(s)->limiting) == 0 ? (void)(crl_open_admit = 1)  \
                                                 : (void)0)
#include "clients.h"

#include <clof/cr.h>
#include <clof/lock/mcs.h>

#include "clients_cr.h"

static void crl_final(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired >= VC_MIN_ACQUIRED, "an acquisition went missing");
}

CLOF_CR_LOCK(crl_mcs, mcs)
static clof_crl_mcs_t crl_lock;
static clof_crl_mcs_ctx_t crl_ctx[3];

/* the witness: the search reaches a passive thread that is admitted
 * after the lock opened (the case the idle grant must cover) */
static void crl_final_witness(void *arg)
{
    crl_final(arg);
    vc_assert(!crl_open_admit, "no passive thread was admitted while the lock "
                               "was open");
}

static void crl_setup(void *arg)
{
    (void)arg;
    crl_open_admit = 0;
    memset(&crl_lock, 0, sizeof crl_lock);
    memset(crl_ctx, 0, sizeof crl_ctx);
    clof_crl_mcs_init(&crl_lock);
    vc_client_setup_common();
    vc_name(&crl_lock.base, sizeof crl_lock.base, "mcs.tail");
    vc_cr_name_state(&crl_lock.cr);
    vc_name(&crl_ctx[0], sizeof crl_ctx[0], "ctx0");
    vc_name(&crl_ctx[1], sizeof crl_ctx[1], "ctx1");
    vc_name(&crl_ctx[2], sizeof crl_ctx[2], "ctx2");
}

VC_CLIENT_THREAD(crl_thread, crl_mcs, crl_lock, crl_ctx)

const vc_client_t vc_clients_cr_lazy[] = {
    {"cr.lazy.mcs", "cr",
     "cr: over MCS with lazy restriction (open at first; every contended wait "
     "crowded, one calm release opens it), active set 1, grant every 2 "
     "releases: 3 threads, T0 twice, T2 tries first",
     3, crl_setup, crl_thread, crl_final, NULL, "", 2},
    {"cr-witness.lazy-open-passive", "cr-witness",
     "cr.lazy.mcs, whose final check says no passive thread was admitted "
     "while the lock was open: must fail (the opening with a passive thread "
     "left is reached)",
     3, crl_setup, crl_thread, crl_final_witness, NULL, "assertion", 3},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
