clof-sim-profile 1
# The CLoF paper's Armv8 server: 2 x Kunpeng 920-6426, 128 cpus, no SMT,
# 2 packages x 2 NUMA nodes x 8 cache groups x 4 cores (CLoF paper, section 5).
name kunpeng920
description Huawei Kunpeng 920 (2 x 64 cores, 4 levels), simulated
source transfer costs from the CLoF paper's Table 2 ratios (Armv8 column), scaled to 200 ns across packages
hierarchy ../../examples/topology/kunpeng920.topo

# A line transfer between two cpus whose closest common level is KIND costs
# level_ns[system] / speedup[KIND], with the Table 2 speedups of two threads
# handing a counter over within one cohort of that level (Armv8 column:
# system 1.00, package 1.76, NUMA node 2.98, cache group 7.04).  Table 2 has
# ratios only: the absolute scale (200 ns between packages) is our
# assumption; every figure of this profile is relative to it.
level cache 28.4
level numa 67.1
level package 113.6
level system 200

# Local costs (assumptions, not from the paper): an L1 hit, the extra of an
# atomic read-modify-write (LSE), a full fence, one pause/yield instruction
# (backoff loops), a fill from memory of a line nobody holds.
cost hit 1
cost rmw 5
cost fence 5
cost pause 2
cost memory 100
# +-5% uniform noise on every transfer (seeded): breaks lock-step ties.
jitter 0.05
