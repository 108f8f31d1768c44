/* SPDX-License-Identifier: MIT */
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
 * The ".fast" variants aim at the fast path (compose.h's fast word, made
 * abortable in acohort.h): T0 acquires once (the first acquisition of a free
 * lock takes the fast word), T1 acquires with deadline 1 and, behind a fast
 * owner, takes the node lock and the global lock and then waits for HELD
 * with TOPWAIT set -- so it may time out there and must withdraw TOPWAIT and
 * give both locks up -- and T2 tries once (tryacquire against a fast owner,
 * a system-level owner, or a free lock).  Exhaustive even in quick mode
 * (C11: 239,137 and 56,524 executions, about 2 s together).
 * Every client ends with the lock idle: fast word 0 (no HELD, no stale
 * TOPWAIT), global lock free, each node lock free (A-C-BO-BO: FREE, nobody
 * counted waiting; A-C-BO-CLH: no tail, or a tail node released globally).
 * The "regression" entries (`--lock regression --check-expected`, CI test
 * verify.swapped_release) build three broken fast paths through the hook
 * CLOF_FAST_MUTANT(k) of compose.h, chosen per client at run time; each must
 * be caught: 1 the timed-out take leaves its TOPWAIT set (.fast: the lock is
 * not idle at the end), 2 the global lock's owner does not take HELD (.fast:
 * two threads in the critical section), 3 A-C-BO-BO's forward taken back
 * keeps HELD (.queue: the lock is not idle, or the last acquirer hangs;
 * preemption bound 3: under SC and TSO the take-back needs 3).
 * Limitation: a waiter re-checks its deadline when the word it waits on
 * changes (the backend has no timed await), so "give up while nothing
 * changes" is explored as "give up at the next change".
 */
#define VC_CLOCK 1
/* the broken fast paths of the regression clients, selected per execution
 * (compose.h: 0 = the correct code) */
static int vc_fast_mutant;
#define CLOF_FAST_MUTANT(k) (vc_fast_mutant == (k))
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
static uint32_t fast_ok; /* .fast: T1's and T2's successful acquisitions */
static bool (*lock_idle)(void);

#define VC_TIMED_CLIENT_(N)                                                    \
    static clof_##N##_ctx_t N##_ctx[4];                                        \
    static void N##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        machine();                                                             \
        VC_COMPOSED_RESET(N, topo2);                                           \
        clof_compose_tree_t *tr_ =                                             \
            (clof_compose_tree_t *)clof_atomicptr_read_rlx(&N##_lock.tree);    \
        vc_name(&tr_->fast, sizeof tr_->fast, "fast");                         \
        gave_up = 0;                                                           \
        fast_ok = 0;                                                           \
        vc_fast_mutant = 0;                                                    \
        lock_idle = N##_idle;                                                  \
        vc_clock = 0;                                                          \
        vc_name(&vc_clock, sizeof vc_clock, "clock");                          \
    }                                                                          \
    /* the regression clients: broken fast path k */                          \
    static void N##_setup_m1(void *arg)                                        \
    {                                                                          \
        N##_setup(arg);                                                        \
        vc_fast_mutant = 1;                                                    \
    }                                                                          \
    static void N##_setup_m2(void *arg)                                        \
    {                                                                          \
        N##_setup(arg);                                                        \
        vc_fast_mutant = 2;                                                    \
    }                                                                          \
    __attribute__((unused)) static void N##_setup_m3(void *arg)                \
    {                                                                          \
        N##_setup(arg);                                                        \
        vc_fast_mutant = 3;                                                    \
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
                vc_ghost_add(&gave_up, 1);                                     \
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
    /* .fast: T0 plain, T1 timed, T2 one try */                               \
    static void N##_thread_fast(void *arg, int t)                              \
    {                                                                          \
        (void)arg;                                                             \
        if (t == 3) { /* the ghost clock */                                    \
            (void)vc_access(VC_STORE, &vc_clock, 8, 1, 0, VC_RLX);             \
            return;                                                            \
        }                                                                      \
        bool ok = true;                                                        \
        if (t == 0)                                                            \
            clof_##N##_acquire(&N##_lock, &N##_ctx[t]);                        \
        else if (t == 1)                                                       \
            ok = clof_##N##_acquire_until(&N##_lock, &N##_ctx[t], 1);          \
        else                                                                   \
            ok = clof_##N##_tryacquire(&N##_lock, &N##_ctx[t]);                \
        if (!ok)                                                               \
            return;                                                            \
        vc_client_cs();                                                        \
        clof_##N##_release(&N##_lock, &N##_ctx[t]);                            \
        if (t != 0)                                                            \
            vc_ghost_add(&fast_ok, 1);                                         \
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
/* The lock is idle: fast word 0, global lock free, every node lock free. */
static bool idle_fast_and_global(clof_compose_tree_t *tr)
{
    clof_bo_t *g = &((clof_a_c_bo_bo_l1_t *)tr->nodes[1])->lock;
    /* the global lock: BO's word, 0 when free (ttas.h) */
    return clof_atomic32_read_rlx(&tr->fast) == 0 &&
           clof_atomic32_read_rlx(&g->state) == 0;
}
static clof_a_c_bo_bo_t a_c_bo_bo_lock;
static clof_a_c_bo_clh_t a_c_bo_clh_lock;
static bool a_c_bo_bo_idle(void)
{
    clof_compose_tree_t *tr = clof_atomicptr_read_rlx(&a_c_bo_bo_lock.tree);
    bool idle = idle_fast_and_global(tr);
    for (uint32_t i = 0; i < tr->ncoh[0]; i++) {
        clof_a_c_bo_bo_l0_t *n = &((clof_a_c_bo_bo_l0_t *)tr->nodes[0])[i];
        idle = idle && clof_atomic32_read_rlx(&n->state) == CLOF_ACBB_FREE &&
               clof_atomic32_read_rlx(&n->waiting) == 0;
    }
    return idle;
}
static bool a_c_bo_clh_idle(void)
{
    clof_compose_tree_t *tr = clof_atomicptr_read_rlx(&a_c_bo_clh_lock.tree);
    bool idle = idle_fast_and_global(tr);
    for (uint32_t i = 0; i < tr->ncoh[0]; i++) {
        clof_a_c_bo_clh_l0_t *n = &((clof_a_c_bo_clh_l0_t *)tr->nodes[0])[i];
        /* no tail, or (a releaser's CAS to NULL lost to an arrival that
         * then aborted and swung the tail back) a tail released globally,
         * which the next arrival recycles */
        clof_aclh_node_t *t = clof_atomicptr_read_rlx(&n->tail);
        idle = idle && (t == NULL || clof_atomic64_read_rlx(&t->word) ==
                                         CLOF_ACLH_REL_GLOBAL);
    }
    return idle;
}

VC_TIMED_CLIENT_(a_c_bo_bo)
VC_TIMED_CLIENT_(a_c_bo_clh)

static void final_idle(void)
{
    vc_client_final_common();
    vc_assert(lock_idle(), "the lock is not idle after every thread left "
                           "(a bit of the fast word, the global lock or a "
                           "node lock left behind)");
}
static void final_timed(void *arg)
{
    (void)arg;
    final_idle();
    vc_assert(vc_acquired + vc_ghost_read(&gave_up) == 4, "an acquisition went missing");
}
static void final_try(void *arg)
{
    (void)arg;
    final_idle();
    vc_assert(vc_acquired == 4, "an acquisition went missing");
}
static void final_try4(void *arg)
{
    (void)arg;
    final_idle();
    vc_assert(vc_acquired == 5, "an acquisition went missing");
}
static void final_fast(void *arg)
{
    (void)arg;
    final_idle();
    vc_assert(vc_acquired == 1 + vc_ghost_read(&fast_ok), "an acquisition went missing");
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
     4, N##_setup, N##_thread_try, final_try4, resume_vcpu_queue, "", 1},      \
    {name ".fast", "numa",                                                     \
     what " -- .fast: T0 once, T1 timed behind a fast owner, T2 tries once",   \
     4, N##_setup, N##_thread_fast, final_fast, resume_vcpu, "", -1},          \
    {name ".fast.m1", "regression",                                            \
     what " -- .fast, broken: the timed-out take leaves TOPWAIT set", 4,       \
     N##_setup_m1, N##_thread_fast, final_fast, resume_vcpu, "*", 2},          \
    {name ".fast.m2", "regression",                                            \
     what " -- .fast, broken: the global lock's owner does not take HELD", 4,  \
     N##_setup_m2, N##_thread_fast, final_fast, resume_vcpu, "*", 2},
const vc_client_t vc_clients_timed[] = {
    E_("a-c-bo-bo.timed",
       "A-C-BO-BO, T2 with a deadline that passes at any point (ghost clock)",
       a_c_bo_bo, 1)
    E_("a-c-bo-clh.timed",
       "A-C-BO-CLH, T2 with a deadline that passes at any point (ghost clock)",
       a_c_bo_clh, 2)
    {"a-c-bo-bo.timed.queue.m3", "regression",
     "A-C-BO-BO .queue, broken: the forward taken back keeps HELD", 4,
     a_c_bo_bo_setup_m3, a_c_bo_bo_thread_q, final_timed, resume_vcpu_queue,
     "*", 3},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#else
const vc_client_t vc_clients_timed[] = {
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#endif
