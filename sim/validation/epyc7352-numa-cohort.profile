clof-sim-profile 1
# The CLoF paper's Fig. 3 NUMA cohort on the x86 server: 8 threads, one in
# each cache group (CCX) of one NUMA node.  Every pair of these cpus has the
# NUMA node as its closest common level: flat at the epyc7352 profile's
# NUMA-level cost; local costs as epyc7352.profile.
name epyc7352-numa-cohort
description EPYC 7352: one cpu of each CCX of one NUMA node (CLoF Fig. 3), simulated
source epyc7352.profile's NUMA-level transfer cost (CLoF Table 2, x86 column)
hierarchy flat8.topo
level system 129.9
cost hit 1
cost rmw 8
cost fence 8
cost pause 10
cost memory 100
jitter 0.05
