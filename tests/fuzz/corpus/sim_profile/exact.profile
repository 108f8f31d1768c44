clof-sim-profile 1
# Test profile: the Kunpeng 920 hierarchy with round costs, no local costs
# and no jitter, so that the model's charges can be checked exactly.
name exact
description Kunpeng 920 hierarchy, exact round costs (test), simulated
source test profile
hierarchy ../../examples/topology/kunpeng920.topo
level cache 30
level numa 70
level package 110
level system 200
cost hit 0
cost rmw 0
cost fence 0
cost pause 1
cost memory 50
jitter 0
