clof-sim-profile 1
# The CLoF paper's x86 server: 2 x AMD EPYC 7352, 24 cores x 2 hyperthreads
# per package = 96 cpus; cache groups (CCX) of 3 cores / 6 cpus; one NUMA
# node per package (CLoF paper, section 5).
name epyc7352
description AMD EPYC 7352 (2 x 24 cores x 2 threads, 4 levels), simulated
source transfer costs from the CLoF paper's Table 2 ratios (x86 column), scaled to 200 ns across packages
hierarchy ../../examples/topology/epyc7352.topo

# level_ns[system] / speedup[KIND], Table 2 x86 column: system 1.00,
# package = NUMA node 1.54, cache group 9.07, core (hyperthreads) 12.18.
# The absolute scale (200 ns between packages) is our assumption.
level core 16.4
level cache 22.1
level numa 129.9
level system 200

# Local costs (assumptions): L1 hit, lock-prefixed RMW extra, mfence,
# one pause (Zen 2 pause is long), memory fill.
cost hit 1
cost rmw 8
cost fence 8
cost pause 10
cost memory 100
jitter 0.05
