/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_basic.c -- the clients of the basic locks (the base step of
 * the CLoF paper's induction, §4.2): every lock of CLOF_BASIC_LOCKS, with
 * the client of clients.h (3 threads, thread 0 acquires twice, thread 2
 * tries once first).
 *
 * Beside them, CLH with its first node outside the lock as the preload
 * library runs it (clh.h's embedding variant, CLOF_CLH_LEAN), the client
 * `clh.first-outside`: the node comes from a pool of one, which must be
 * asked at most once, and at the end the node the idle tail holds is
 * unlocked and nobody else's (no context's next node), so that the pool
 * may take it back.
 */
#include "clients.h"

#include <clof/lock/list.h>

#define VC_BASIC_CLIENT_(L, U)                                                 \
    static clof_##L##_t L##_lock;                                              \
    static clof_##L##_ctx_t L##_ctx[3];                                        \
    static void L##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        memset(&L##_lock, 0, sizeof L##_lock);                                 \
        memset(L##_ctx, 0, sizeof L##_ctx);                                    \
        clof_##L##_init(&L##_lock);                                            \
        vc_client_setup_common();                                              \
        vc_name(&L##_lock, sizeof L##_lock, "lock");                           \
        vc_name(&L##_ctx[0], sizeof L##_ctx[0], "ctx0");                       \
        vc_name(&L##_ctx[1], sizeof L##_ctx[1], "ctx1");                       \
        vc_name(&L##_ctx[2], sizeof L##_ctx[2], "ctx2");                       \
    }                                                                          \
    VC_CLIENT_THREAD(L##_thread, L, L##_lock, L##_ctx)                         \
    static void L##_final(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        vc_client_final_common();                                              \
        vc_assert(vc_acquired >= VC_MIN_ACQUIRED, "an acquisition went missing");           \
    }
#define X(L, U) VC_BASIC_CLIENT_(L, U)
CLOF_BASIC_LOCKS(X)
#undef X

/* <L>.bypass, the bound on bypass of a lock that is not FIFO but bounds
 * it (the Reciprocating lock): 2 threads, T0 acquiring three times, T1
 * once.  When T0, holding the lock, finds has_waiters true, T1 has arrived
 * (it is the only other thread), and T1 must be the next to enter: T0 may
 * not overtake a waiter it has seen (for the Reciprocating lock: T1 is in
 * T0's entry segment, or in the arrival stack that T0's release detaches;
 * T0 itself arrives after that).  A lock without the bound (TTAS) fails
 * it; a FIFO lock passes it.  It checks has_waiters too: a true answer
 * with nobody arrived lets T0 in again. */
#define VC_BYPASS_CLIENT_(L)                                                   \
    static bool L##_bp_seen; /* T0's last critical section saw a waiter */     \
    static void L##_bp_thread(void *arg, int t)                                \
    {                                                                          \
        (void)arg;                                                             \
        for (int i = 0; i < (t == 0 ? 3 : 1); i++) {                           \
            clof_##L##_acquire(&L##_lock, &L##_ctx[t]);                        \
            vc_client_cs();                                                    \
            vc_assert(t != 0 || !L##_bp_seen,                                  \
                      "T0 entered again before the waiter it had seen");       \
            L##_bp_seen = t == 0 && clof_##L##_has_waiters(&L##_lock, &L##_ctx[t]); \
            clof_##L##_release(&L##_lock, &L##_ctx[t]);                        \
        }                                                                      \
    }                                                                          \
    static void L##_bp_setup(void *arg)                                        \
    {                                                                          \
        L##_setup(arg);                                                        \
        L##_bp_seen = false;                                                   \
    }                                                                          \
    static void L##_bp_final(void *arg)                                        \
    {                                                                          \
        (void)arg;                                                             \
        vc_client_final_common();                                              \
        vc_assert(vc_acquired == 4, "an acquisition went missing");            \
    }
VC_BYPASS_CLIENT_(recip)

/* fissile.bypass, the Fissile lock's bound on bypass, with the bound 1
 * (the lock's own CLOF_FISSILE_BYPASS is 64, more acquisitions than a
 * client can make): 2 threads, T0 acquiring three times, T1 once.  In each
 * critical section of T0 it counts the ones that find ALPHA in the word (a
 * thread is the alpha, marked before or during that section).  The alpha
 * can only be T1, and after its mark the fast path may take the word once
 * (the bound); so at most two of T0's sections see the mark before T1
 * enters: the one during which T1 marked it and one bypass.  A fast path
 * that ignored the count would let T0 take all three. */
static uint32_t fissile_bp_seen; /* T0's sections that saw ALPHA */
static bool fissile_bp_t1_in;    /* T1 has entered */
static void fissile_bp_thread(void *arg, int t)
{
    (void)arg;
    for (int i = 0; i < (t == 0 ? 3 : 1); i++) {
        clof_fissile_acquire_bounded_(&fissile_lock, 1);
        vc_client_cs();
        if (t == 1)
            fissile_bp_t1_in = true;
        else if (!fissile_bp_t1_in &&
                 (clof_atomic32_read_rlx(&fissile_lock.state) & CLOF_FISSILE_ALPHA))
            fissile_bp_seen++;
        vc_assert(fissile_bp_seen <= 2, "T0 overtook the alpha more than the bound allows");
        clof_fissile_release(&fissile_lock, &fissile_ctx[t]);
    }
}
static void fissile_bp_setup(void *arg)
{
    fissile_setup(arg);
    fissile_bp_seen = 0;
    fissile_bp_t1_in = false;
}
static void fissile_bp_final(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired == 4, "an acquisition went missing");
    vc_assert(clof_atomic32_read_rlx(&fissile_lock.state) == 0,
              "the word is not free and unmarked at the end");
}

/* array.overflow, the array lock over 2 slots (its own CLOF_ARRAY_SLOTS
 * is 16, more threads than a client can have): 3 threads, T0 acquiring
 * twice, so 4 tickets go around the 2 flags twice and a ticket may find 2
 * before it (it waits on head, then on its flag).  The mutual exclusion of
 * the critical section and every acquisition are checked; at the end the
 * lock is free with tail == head == 4. */
static void array_ov_thread(void *arg, int t)
{
    (void)arg;
    for (int i = 0; i < (t == 0 ? 2 : 1); i++) {
        clof_array_acquire_n_(&array_lock, 2);
        vc_client_cs();
        clof_array_release_n_(&array_lock, 2);
    }
}
static void array_ov_final(void *arg)
{
    (void)arg;
    vc_client_final_common();
    vc_assert(vc_acquired == 4, "an acquisition went missing");
    vc_assert(clof_atomic32_read_rlx(&array_lock.tail) == 4 &&
                  clof_atomic32_read_rlx(&array_lock.head) == 4,
              "the lock is not free with four tickets served at the end");
}

#define X(L, U)                                                                \
    {#L, "basic", "basic lock " #L ": 3 threads, T0 twice, T2 tries first",   \
     3, L##_setup, L##_thread, L##_final, NULL, "", 2},
const vc_client_t vc_clients_basic[] = {
    CLOF_BASIC_LOCKS(X)
    {"recip.bypass", "basic",
     "Reciprocating lock's bounded bypass: 2 threads, T0 thrice; T0 seeing "
     "a waiter is not the next to enter",
     2, recip_bp_setup, recip_bp_thread, recip_bp_final, NULL, "", 2},
    {"fissile.bypass", "basic",
     "Fissile lock's bounded bypass (bound 1): 2 threads, T0 thrice; at most "
     "two of T0's sections see the alpha's mark before it enters",
     2, fissile_bp_setup, fissile_bp_thread, fissile_bp_final, NULL, "", 2},
    {"array.overflow", "basic",
     "array lock over 2 slots: 3 threads, T0 twice; 4 tickets around the "
     "flags twice, a ticket beyond the array waits on head",
     3, array_setup, array_ov_thread, array_ov_final, NULL, "", 2},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#undef X

static clof_clh_node_t vc_clh_pool; /* the pool: one node */
static int vc_clh_taken;            /* times it was asked (holders only) */
static clof_clh_node_t *vc_clh_first_node(void)
{
    vc_assert(vc_clh_taken++ == 0, "the first node was asked for twice");
    return &vc_clh_pool;
}
CLOF_CLH_LEAN(clh_vc, vc_clh_first_node);
VC_BASIC_CLIENT_(clh_vc, CLH_VC)
static void clh_outside_setup(void *arg)
{
    clh_vc_setup(arg);
    memset(&vc_clh_pool, 0, sizeof vc_clh_pool);
    vc_clh_taken = 0;
    vc_name(&vc_clh_pool, sizeof vc_clh_pool, "pool");
}
static void clh_outside_final(void *arg)
{
    clh_vc_final(arg);
    clof_clh_node_t *idle = clof_clh_vc_idle_node(&clh_vc_lock);
    vc_assert(vc_clh_taken == 1, "the first node was not taken");
    vc_assert(idle != NULL && clof_clh_vc_idle(&clh_vc_lock),
              "the idle tail is not free (neither empty, marked nor unlocked)");
    for (int t = 0; t < 3; t++)
        vc_assert(clh_vc_ctx[t].node != idle, "the idle tail's node is also a context's");
}
const vc_client_t vc_clients_clh_outside[] = {
    {"clh.first-outside", "basic",
     "CLH with its first node from a pool (the preload library's layout): 3 threads, T0 twice, T2 tries first",
     3, clh_outside_setup, clh_vc_thread, clh_outside_final, NULL, "", 2},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
