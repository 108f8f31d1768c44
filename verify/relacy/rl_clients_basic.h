/* SPDX-License-Identifier: MIT */
/*
 * verify/relacy/rl_clients_basic.h -- included first (CMake: -include) when
 * verify/clients_basic.c is compiled as C++ against the `relacy` backend:
 * the same clients, unchanged.
 *
 * The releases of MCS, ticket, TWA, Fissile, MUTEXEE and the array lock and
 * the Reciprocating lock's acquire are wrapped (rlx_scope_enter/exit) so
 * that the named bugs mcs-handoff-release, ticket-release-rlx,
 * twa-notify-relaxed, recip-arrive-relaxed, fissile-release-relaxed,
 * mutexee-release-relaxed and array-handover-relaxed can weaken the
 * accesses made inside them only (clof-verify finds the same accesses by
 * their call sites); with no mutation active the wrapper changes nothing.
 */
#ifndef RL_CLIENTS_BASIC_H
#define RL_CLIENTS_BASIC_H

#include "clients.h"

#include <clof/lock/list.h>

#define clof_mcs_release(l, c)                                                 \
    (rlx_scope_enter(), clof_mcs_release(l, c), rlx_scope_exit())
#define clof_ticket_release(l, c)                                              \
    (rlx_scope_enter(), clof_ticket_release(l, c), rlx_scope_exit())
#define clof_twa_release(l, c)                                                 \
    (rlx_scope_enter(), clof_twa_release(l, c), rlx_scope_exit())
#define clof_recip_acquire(l, c)                                               \
    (rlx_scope_enter(), clof_recip_acquire(l, c), rlx_scope_exit())
#define clof_fissile_release(l, c)                                             \
    (rlx_scope_enter(), clof_fissile_release(l, c), rlx_scope_exit())
#define clof_mutexee_release(l, c)                                             \
    (rlx_scope_enter(), clof_mutexee_release(l, c), rlx_scope_exit())
#define clof_array_release(l, c)                                               \
    (rlx_scope_enter(), clof_array_release(l, c), rlx_scope_exit())

#endif
