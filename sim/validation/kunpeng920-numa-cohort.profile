clof-sim-profile 1
# The CLoF paper's Fig. 3 NUMA cohort on the Armv8 server: 8 threads, one in
# each cache group of one NUMA node.  Every pair of these cpus has the NUMA
# node as its closest common level, so the machine is flat at the kunpeng920
# profile's NUMA-level cost; local costs as kunpeng920.profile.
name kunpeng920-numa-cohort
description Kunpeng 920: one cpu of each cache group of one NUMA node (CLoF Fig. 3), simulated
source kunpeng920.profile's NUMA-level transfer cost (CLoF Table 2, Armv8 column)
hierarchy flat8.topo
level system 67.1
cost hit 1
cost rmw 5
cost fence 5
cost pause 2
cost memory 100
jitter 0.05
