clof-sim-profile 1
# Test profile: the Kunpeng 920 hierarchy (so that the NUMA-aware locks
# build their trees) with the same transfer cost at every level -- a
# machine without locality.  A NUMA-aware lock must gain nothing here.
name flat128
description Kunpeng 920 hierarchy with flat costs (test), simulated
source test profile: every level costs the same
hierarchy ../../examples/topology/kunpeng920.topo
level cache 100
level numa 100
level package 100
level system 100
cost hit 1
cost rmw 5
cost fence 5
cost pause 2
cost memory 100
jitter 0.05
