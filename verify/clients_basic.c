/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_basic.c -- the clients of the basic locks (the base step of
 * the CLoF paper's induction, §4.2): every lock of CLOF_BASIC_LOCKS, with
 * the client of clients.h (3 threads, thread 0 acquires twice, thread 2
 * tries once first).
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
        vc_assert(vc_acquired >= 4, "an acquisition went missing");           \
    }
#define X(L, U) VC_BASIC_CLIENT_(L, U)
CLOF_BASIC_LOCKS(X)
#undef X

#define X(L, U)                                                                \
    {#L, "basic", "basic lock " #L ": 3 threads, T0 twice, T2 tries first",   \
     3, L##_setup, L##_thread, L##_final, NULL, "", 2},
const vc_client_t vc_clients_basic[] = {CLOF_BASIC_LOCKS(X){NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
#undef X
