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
 * The ".try" variants run the preload library's lock path instead (try
 * once, then wait: an A-CLH node enqueued and abandoned at once, then a
 * second node), T0-T2 on one leaf; ".try4" adds T3 on the other leaf (family
 * "deep", preemption bound 1 in quick mode: not in CI, tens of seconds).
 * The ".queue" variants put all three on one leaf (one node lock) and give
 * both T1 and T2 the deadline, so the node lock's own abort paths run: a
 * waiter that leaves the A-CLH queue with a successor behind it, two
 * aborters next to each other, a release racing an abort, and queue nodes
 * recycled between acquisitions.
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
static const int32_t cpus_queue[4] = {0, 1, 1, 3}; /* T0-T2 on leaf 0 */

static void machine(void)
{
    vc_client_machine(&topo2, &topo_ready, "numa:2,core:2");
}
VC_RESUME_CPUS(resume_vcpu, cpus)
VC_RESUME_CPUS(resume_vcpu_queue, cpus_queue)

static uint32_t gave_up;

#define VC_TIMED_CLIENT_(N)                                                    \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[4];                                        \
    static void N##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        machine();                                                             \
        VC_COMPOSED_RESET(N, topo2);                                           \
        gave_up = 0;                                                           \
        vc_clock = 0;                                                          \
        vc_name(&vc_clock, sizeof vc_clock, "clock");                          \
    }                                                                          \
    /* q: T1 has the deadline too */                                          \
    static void N##_body(int t, bool q)                                        \
    {                                                                          \
        if (t == 3) { /* the ghost clock */                                    \
            (void)vc_access(VC_STORE, &vc_clock, 8, 1, 0, VC_RLX);             \
            return;                                                            \
        }                                                                      \
        if (t == 2 || (q && t == 1)) {                                         \
            if (clof_##N##_acquire_until(&N##_lock, &N##_ctx[t], 1)) {         \
                vc_client_cs();                                                \
                clof_##N##_release(&N##_lock, &N##_ctx[t]);                    \
            } else {                                                           \
                gave_up++;                                                     \
            }                                                                  \
            return;                                                            \
        }                                                                      \
        for (int i = 0; i < (t == 0 ? 2 : 1); i++) {  /* T0 twice, T1 once */ \
            clof_##N##_acquire(&N##_lock, &N##_ctx[t]);                        \
            vc_client_cs();                                                    \
            clof_##N##_release(&N##_lock, &N##_ctx[t]);                        \
        }                                                                      \
    }                                                                          \
    static void N##_thread(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        N##_body(t, false);                                                    \
    }                                                                          \
    static void N##_thread_q(void *arg, int t)                                 \
    {                                                                          \
        (void)arg;                                                             \
        N##_body(t, true);                                                     \
    }                                                                          \
    /* the preload library's lock path: try once, then wait */                \
    static void N##_thread_try(void *arg, int t)                               \
    {                                                                          \
        (void)arg;                                                             \
        for (int i = 0; i < (t == 0 ? 2 : 1); i++) {                           \
            if (!clof_##N##_tryacquire(&N##_lock, &N##_ctx[t]))                \
                clof_##N##_acquire(&N##_lock, &N##_ctx[t]);                    \
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
static void final_try(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired == 4, "an acquisition went missing");
}
static void final_try4(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired == 5, "an acquisition went missing");
}

/* TB: the .try variant's quick-mode preemption bound (A-C-BO-BO's BO
 * queue-less retries make bound 2 under C11 take ~40 s: 1 there) */
#define E_(name, what, N, TB)                                                  \
    {name, "numa", what, 4, N##_setup, N##_thread, final_timed, resume_vcpu,   \
     "", 2},                                                                   \
    {name ".queue", "numa", what " -- .queue: T0-T2 on one leaf, T1 timed too", \
     4, N##_setup, N##_thread_q, final_timed, resume_vcpu_queue, "", 2},      \
    {name ".try", "numa", what " -- .try: T0-T2 on one leaf, try then wait",  \
     3, N##_setup, N##_thread_try, final_try, resume_vcpu_queue, "", TB},      \
    {name ".try4", "deep", what " -- .try4: .try and T3 on the other leaf",   \
     4, N##_setup, N##_thread_try, final_try4, resume_vcpu_queue, "", 1},
const vc_client_t vc_clients_timed[] = {
    E_("a-c-bo-bo.timed",
       "A-C-BO-BO, T2 with a deadline that passes at any point (ghost clock)",
       a_c_bo_bo, 1)
    E_("a-c-bo-clh.timed",
       "A-C-BO-CLH, T2 with a deadline that passes at any point (ghost clock)",
       a_c_bo_clh, 2)
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#else
const vc_client_t vc_clients_timed[] = {
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#endif
