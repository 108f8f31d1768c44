/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_table.h -- the lock table, included once by pl_mutex.c.
 *
 * tests/fuzz/fuzz_preload_env.c includes it too, with PL_TABLE_OPS(id, n)
 * defined as NULL: the same names, without the lock code, for
 * pl_config_parse.
 */
#ifndef CLOF_PRELOAD_TABLE_H
#define CLOF_PRELOAD_TABLE_H

#include "pl_internal.h"

#ifndef PL_TABLE_OPS
#define PL_TABLE_OPS(id, n) &pl_ops_##id##n
#endif

/* The table: CLOF_LOCK name, sizes, placement, needs the topology, counts
 * levels, ops. */
const pl_lockdef_t pl_lockdefs[] = {
#define PL_LOCKDEF(name, NAME)                                                 \
    {pl_name_##name, sizeof(clof_##name##_t), sizeof(clof_##name##_ctx_t),     \
     PL_INPLACE(name), false, false, PL_TABLE_OPS(name, 0), PL_TABLE_OPS(name, 1)},
#define PL_LOCKDEF_N(id, _)                                                    \
    {pl_name_##id, sizeof(clof_##id##_t), sizeof(clof_##id##_ctx_t),           \
     PL_INPLACE(id), true, pl_levels_##id, PL_TABLE_OPS(id, 0), PL_TABLE_OPS(id, 1)},
/* asl:<lock>: the topology for the core types; levels as the lock's */
#define PL_LOCKDEF_ASL(id, levels)                                             \
    {pl_name_asl_##id, sizeof(clof_asl_##id##_t), sizeof(clof_asl_##id##_ctx_t), \
     PL_INPLACE(asl_##id), true, levels, PL_TABLE_OPS(asl_##id, 0), PL_TABLE_OPS(asl_##id, 1)},
#define PL_LOCKDEF_ASL_B(name, NAME) PL_LOCKDEF_ASL(name, false)
#define PL_LOCKDEF_ASL_N(id, _) PL_LOCKDEF_ASL(id, pl_levels_##id)
    PL_BASIC_LOCKS(PL_LOCKDEF)
    PL_NUMA_LOCKS(PL_LOCKDEF_N)
    PL_BASIC_LOCKS(PL_LOCKDEF_ASL_B)
    PL_NUMA_LOCKS(PL_LOCKDEF_ASL_N)
/* cr:<lock>: the topology when the inner lock needs it, and always when the
 * passive queue is CNA (CLOF_CR_NUMA: it looks up the waiter's node);
 * levels as the inner lock's */
#define PL_LOCKDEF_CR(id, hier, levels)                                        \
    {pl_name_cr_##id, sizeof(clof_cr_##id##_t), sizeof(clof_cr_##id##_ctx_t),  \
     PL_INPLACE(cr_##id) || pl_crblock_cr_##id, hier, levels, PL_TABLE_OPS(cr_##id, 0), PL_TABLE_OPS(cr_##id, 1)},
#define PL_LOCKDEF_CR_B(name, NAME) PL_LOCKDEF_CR(name, CLOF_CR_NUMA != 0, false)
#define PL_LOCKDEF_CR_N(id, _) PL_LOCKDEF_CR(id, true, pl_levels_##id)
    PL_BASIC_LOCKS(PL_LOCKDEF_CR_B)
    PL_NUMA_LOCKS(PL_LOCKDEF_CR_N)
#undef PL_LOCKDEF_CR
#undef PL_LOCKDEF_CR_B
#undef PL_LOCKDEF_CR_N
#undef PL_LOCKDEF
#undef PL_LOCKDEF_N
#undef PL_LOCKDEF_ASL
#undef PL_LOCKDEF_ASL_B
#undef PL_LOCKDEF_ASL_N
};
const size_t pl_nlockdefs = sizeof pl_lockdefs / sizeof pl_lockdefs[0];

#endif /* CLOF_PRELOAD_TABLE_H */
