clof-sim-profile 1
# written by bench/asl_fig8b.sh: a hypothetical NUMA big.LITTLE machine (no
# such machine in the papers): 2 NUMA nodes of 4 big + 4 little cores; the
# speed factor of the little cores is m1's (LibASL: 1.8x on NOPs), the
# transfer costs are assumptions (inside a node 25 ns, across 120 ns).
name numa-biglittle
description 2 NUMA nodes x (4 big + 4 little), simulated, assumed costs
source assumptions; little speed 1/1.8 from the LibASL paper (section 6)
hierarchy numa-biglittle.topo
level numa 25
level system 120
cost hit 1
cost rmw 3
cost fence 3
cost pause 1
cost memory 100
speed 0-3,8-11 1.0
speed 4-7,12-15 0.556
jitter 0.05
