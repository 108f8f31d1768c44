/*
 * verify/clients_timed.c -- the timed paths of the abortable cohort locks
 * (A-C-BO-BO, A-C-BO-CLH: acquire_until), with the check backend's logical
 * clock (VC_CLOCK): a ghost thread T3 advances the clock once (0 -> 1) at
 * any point of the execution; T2 acquires with deadline 1, so it may give up
 * at any deadline check after the tick -- in the global lock's wait, in the
 * node lock's queue, after a forward -- or get the lock.  T0 acquires twice
 * and T1 once, without deadline.  Checked: mutual exclusion, the counter,
 * termination, and that a thread that gave up holds nothing (the others
 * still get the lock: no hang).
 * Limitation: a waiter re-checks its deadline when the word it waits on
 * changes (the backend has no timed await), so "give up while nothing
 * changes" is explored as "give up at the next change".
 */
#define VC_CLOCK 1
#include "clients.h"

#if defined(__has_include)
#if __has_include(<clof/numa/acohort.h>)
#include <clof/numa/acohort.h>
#define VC_HAVE_ACOHORT 1
#endif
#endif

#include <stdio.h>
#include <stdlib.h>

#if defined(VC_HAVE_ACOHORT)
static clof_topology_t topo2;
static bool topo_ready;
static const int32_t cpus[4] = {0, 1, 2, 3};

static void machine(void)
{
    if (topo_ready)
        return;
    vc_client_topology(&topo2, "numa:2,core:2");
    topo_ready = true;
}

static void resume_vcpu(void *arg, int tid)
{
    (void)arg;
    clof_topo_set_vcpu(cpus[tid]);
}

static uint32_t gave_up;

#define VC_TIMED_CLIENT_(N)                                                    \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[3];                                        \
    static void N##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        machine();                                                             \
        VC_COMPOSED_RESET(N, topo2);                                           \
        gave_up = 0;                                                           \
        vc_clock = 0;                                                          \
        vc_name(&vc_clock, sizeof vc_clock, "clock");                          \
    }                                                                          \
    static void N##_thread(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        if (t == 3) { /* the ghost clock */                                    \
            (void)vc_access(VC_STORE, &vc_clock, 8, 1, 0, VC_RLX);             \
            return;                                                            \
        }                                                                      \
        if (t == 2) {                                                          \
            if (clof_##N##_acquire_until(&N##_lock, &N##_ctx[t], 1)) {         \
                vc_client_cs();                                                \
                clof_##N##_release(&N##_lock, &N##_ctx[t]);                    \
            } else {                                                           \
                gave_up++;                                                     \
            }                                                                  \
            return;                                                            \
        }                                                                      \
        for (int i = 0; i < (t == 0 ? 2 : 1); i++) {                           \
            clof_##N##_acquire(&N##_lock, &N##_ctx[t]);                        \
            vc_client_cs();                                                    \
            clof_##N##_release(&N##_lock, &N##_ctx[t]);                        \
        }                                                                      \
    }
VC_TIMED_CLIENT_(a_c_bo_bo)
VC_TIMED_CLIENT_(a_c_bo_clh)

static void final_timed(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired + gave_up == 4, "an acquisition went missing");
}

#define E_(name, what, N)                                                      \
    {name, "numa", what, 4, N##_setup, N##_thread, final_timed, resume_vcpu,   \
     "", 2},
const vc_client_t vc_clients_timed[] = {
    E_("a-c-bo-bo.timed",
       "A-C-BO-BO, T2 with a deadline that passes at any point (ghost clock)",
       a_c_bo_bo)
    E_("a-c-bo-clh.timed",
       "A-C-BO-CLH, T2 with a deadline that passes at any point (ghost clock)",
       a_c_bo_clh)
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#else
const vc_client_t vc_clients_timed[] = {
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#endif
