/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_compositions.h -- the CLoF compositions that
 * CLOF_LOCK=clof:<name> selects in libclof-preload.so.
 *
 * The compositions are the ones clof-bench has, made by the same generator,
 * tools/gen_compositions.py, over fewer levels:
 *
 *     tools/gen_compositions.py pl_gen_compositions.h --locks tkt,mcs,clh,hem --max-levels 3
 *
 * run by src/preload/CMakeLists.txt (and src/preload/build-best.sh) into the
 * build tree.  Its output declares each lock with CLOF_COMPOSE(k_<parts>, ...)
 * and follows each with BL_COMPOSED_ADAPTER_(k_<parts>, "<name>"), the hook
 * clof-bench uses for its lock table; here the hook defines the CLOF_LOCK
 * name and the destroy function of the lock.  BENCH_COMPOSED_LOCKS(X) lists
 * them all.  Names follow the CLoF paper and clof-bench: the abbreviations
 * joined by '-' from the lowest level to the system level (tkt-mcs-clh:
 * ticket at the lowest level, CLH at the system level); `hem` is Hemlock
 * with the x86 CTR optimisation (hemlock_ctr).
 */
#ifndef CLOF_PRELOAD_COMPOSITIONS_H
#define CLOF_PRELOAD_COMPOSITIONS_H

/* The set, as the build passes it to the generator (CMakeLists.txt
 * PL_COMPOSITION_LOCKS / PL_COMPOSITION_LEVELS, or a test build's fewer,
 * CLOF_PRELOAD_COMPOSITIONS): PL_COMPOSITION_PARTS, _MAX_LEVELS and _COUNT,
 * for the check below. */
#include "pl_composition_set.h"

/* The name and the destroy of each composition, as PL_NUMA_LOCKS wants them
 * (pl_internal.h).  The destroy retires the tree, to be reused as it is by
 * the next mutex's first lock (PL_RETIRE_TREE: never freed -- with CLH at
 * the lowest level the tree may hold a node that a thread's context still
 * uses, and any tree may still be written by a thread finishing its release
 * of the lower levels). */
#define BL_COMPOSED_ADAPTER_(id, name)                                         \
    enum { pl_levels_##id = 1 };                                               \
    static const char pl_name_##id[] __attribute__((unused)) = name;            \
    static const char pl_name_asl_##id[] __attribute__((unused)) = "asl:" name; \
    static const char pl_name_cr_##id[] __attribute__((unused)) = "cr:" name; \
    static inline void pl_destroy_##id(clof_##id##_t *l)                       \
    {                                                                          \
        PL_RETIRE_TREE(l, clof_##id##_tree_kind_());                           \
    }
#include "pl_gen_compositions.h"
#undef BL_COMPOSED_ADAPTER_

/* X(id, ID) for every composition */
#define PL_COMPOSITIONS(X) BENCH_COMPOSED_LOCKS(X)
#define PL_NCOMPOSITIONS BENCH_COMPOSED_COUNT
_Static_assert(BENCH_COMPOSED_COUNT == PL_COMPOSITION_COUNT,
               "the compositions of " PL_COMPOSITION_PARTS " over 2.." PL_COMPOSITION_MAX_LEVELS " levels");

#endif /* CLOF_PRELOAD_COMPOSITIONS_H */
