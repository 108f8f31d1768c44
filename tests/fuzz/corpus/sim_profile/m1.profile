clof-sim-profile 1
# An Apple-M1-like big.LITTLE machine: 4 little cores (cpus 0-3) and 4 big
# cores (cpus 4-7), each cluster sharing an L2 -- the machine of the LibASL
# paper's evaluation (section 6).
name m1
description M1-like big.LITTLE, 4 little (0-3) + 4 big (4-7), simulated
source speed factor from the LibASL paper (big cores 1.8x faster on NOPs, section 6); transfer costs are assumptions
hierarchy ../../examples/topology/biglittle-4+4.topo

# Transfer costs: assumptions (no paper gives them): inside a cluster
# (shared L2) and between the clusters (through the system-level cache).
level cache 20
level system 60

cost hit 1
cost rmw 3
cost fence 3
cost pause 1
cost memory 80

# `speed LIST FACTOR`: local work of these cpus (non-critical work, hits,
# RMWs, pauses -- everything but line transfers) runs FACTOR times as fast
# as nominal.  The little cores: 1 / 1.8 (LibASL, section 6: "only 1.8x
# faster when executing the NOP instruction").
speed 0-3 0.556
speed 4-7 1.0
jitter 0.05
