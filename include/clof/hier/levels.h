/* SPDX-License-Identifier: MIT */
/*
 * clof/hier/levels.h -- a hierarchical lock's levels over the runtime
 * topology: which topology level each of its n levels maps to, and the
 * cohort above a cohort.  Used by the compositions (compose.h) and the
 * standalone HMCS (numa/hmcs.h) to build their trees.
 */
/** \file
 * A hierarchical lock's levels over the runtime topology, and the hooks an
 * includer may define before including a hierarchical lock: where trees
 * come from, the keep-local threshold, hand-over accounting, tree
 * recycling. */
#ifndef CLOF_HIER_LEVELS_H
#define CLOF_HIER_LEVELS_H

#include <clof/topology.h>

#include <stdlib.h>
#include <string.h>

/* Where the trees of the hierarchical locks come from (hmcs.h, compose.h):
 * an includer may define both before including a clof header (the preload
 * library takes them from its reserve when malloc fails, and waits rather
 * than returning NULL). */
#ifndef CLOF_TREE_ALLOC
/** Allocate size bytes aligned to align for a lock's tree (a hook: the
 *  default is aligned_alloc). */
#define CLOF_TREE_ALLOC(align, size) aligned_alloc((align), (size))
/** Free what CLOF_TREE_ALLOC gave (a hook, defined with it). */
#define CLOF_TREE_FREE(p) free(p)
#endif

/* The keep-local threshold of every level (topology files may set their own). */
#ifndef CLOF_COMPOSE_THRESHOLD
/** The keep-local threshold of a level whose topology sets none. */
#define CLOF_COMPOSE_THRESHOLD CLOF_TOPO_DEFAULT_THRESHOLD
#endif

/* Hook for handover accounting (bench): called by the owner after a full
 * acquire with the levels it had to take (0 = passed at the lowest level). */
#ifndef CLOF_COMPOSE_ON_ACQUIRE
/** Called by the owner after a full acquire with the levels it had to take
 *  (a hook, for hand-over accounting; the default does nothing). */
#define CLOF_COMPOSE_ON_ACQUIRE(levels_taken) ((void)0)
#endif

/* Map the n levels of a composition onto levels of topology t. */
static inline int clof_compose_levels_(const clof_topology_t *t, uint32_t n,
                                       const uint32_t *want, uint32_t *lvl)
{
    uint32_t tl = clof_topo_nlevels(t);
    if (want) {
        for (uint32_t k = 0; k < n; k++) {
            if (want[k] >= tl || (k && want[k] < want[k - 1]))
                return -1;
            lvl[k] = want[k];
        }
        return lvl[n - 1] == tl - 1 ? 0 : -1;
    }
    /* the n-1 lowest levels below system, the lowest one repeated when the
     * hierarchy has fewer (a flat machine maps every level to system) */
    uint32_t low = n - 1, have = tl - 1;
    uint32_t pad = low > have ? low - have : 0;
    for (uint32_t k = 0; k < low; k++)
        lvl[k] = k < pad ? 0 : k - pad;
    lvl[n - 1] = tl - 1;
    return 0;
}

/* Level indices of the kinds in `kinds` (n of them), if t has them all. */
static inline bool clof_compose_prefer_(const clof_topology_t *t, uint32_t n,
                                        const clof_level_kind_t *kinds,
                                        uint32_t *lvl)
{
    if (!kinds)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        int i = clof_topo_level_index(t, kinds[k]);
        if (i < 0)
            return false;
        lvl[k] = (uint32_t)i;
    }
    return true;
}

/* Cohort of the first cpu of cohort c of level lf, at level lt. */
static inline uint32_t clof_compose_parent_(const clof_topology_t *t,
                                            uint32_t lf, uint32_t c,
                                            uint32_t lt)
{
    const clof_topo_level_t *L = &t->level[lf];
    uint32_t cpu = L->cpus[L->cpu_start[c]];
    return clof_topo_cohort(t, cpu, lt);
}

/* Recycling of trees (optional; the preload library defines both before it
 * includes the lock headers; compose.h and hmcs.h use them).  CLOF_COMPOSE_TREE_REUSE(kind)
 * returns (as void *) an idle tree of a destroyed lock of the same kind --
 * `kind` is clof_<name>_tree_kind_(), an address unique to the lock type
 * (in each translation unit) --
 * built over the process topology, exactly as its last release left it, or
 * NULL.  Never re-initialised: a CLH lowest level's first node may by then
 * serve as a queue node of some context, A-C-BO-CLH's tail may hold a
 * released node that the next arrival recycles, and a thread whose release
 * let another thread take, release and destroy the lock may still be
 * releasing the lower levels (the system level is released first).
 * CLOF_COMPOSE_TREE_RETIRE(tree, kind) takes back a reused tree that lost
 * the race to install itself.  By default there is no recycling: the lazy
 * build allocates. */
#ifndef CLOF_COMPOSE_TREE_REUSE
/** An idle tree of a destroyed lock of the same kind, or NULL (a hook: see
 *  the header's comment on recycling; the default recycles nothing). */
#define CLOF_COMPOSE_TREE_REUSE(kind) ((void)(kind), (void *)0)
/** Take back a reused tree that lost the race to install itself (a hook,
 *  defined with CLOF_COMPOSE_TREE_REUSE). */
#define CLOF_COMPOSE_TREE_RETIRE(tr, kind) ((void)(tr), (void)(kind))
#endif

#endif /* CLOF_HIER_LEVELS_H */
