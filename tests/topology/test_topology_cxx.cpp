/* SPDX-License-Identifier: MIT */
// The topology header compiles as C++17 and its inline lookups work there.
#include <clof/topology.h>

#include <cstdio>

int main()
{
    clof_topology_t t{};
    clof_topo_error_t err{};
    if (clof_topology_emulate(&t, "numa:2,cache:2,core:2", 0, &err) != 0) {
        std::fprintf(stderr, "emulate: %s\n", err.msg);
        return 1;
    }
    int bad = 0;
    // 8 cpus: numa 0-3 | 4-7, cache groups of 2
    if (clof_topo_nlevels(&t) != 3 || clof_topo_ncohorts(&t, 0) != 4 ||
        clof_topo_level_kind(&t, 1) != CLOF_LEVEL_NUMA)
        bad = 1;
    if (clof_topo_cohort(&t, 5, 0) != 2 || clof_topo_cohort(&t, 5, 1) != 1 ||
        clof_topo_cohorts_of(&t, 3)[1] != 0 || clof_topo_threshold(&t, 0) != 128)
        bad = 1;
    if (clof_topo_level_index(&t, CLOF_LEVEL_CACHE) != 0 || clof_topo_is_little(&t, 0))
        bad = 1;
    clof_topo_set_vcpu(6);
    if (clof_current_cpu() != 6)
        bad = 1;
    clof_topology_free(&t);
    if (bad)
        std::fprintf(stderr, "C++: unexpected lookups\n");
    return bad;
}
