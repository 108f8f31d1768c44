clof-sim-profile 1
# Derived by sim/heatmap2profile.py from docs/heatmap-this-machine/heatmap.csv:
#   heatmap2profile.py docs/heatmap-this-machine/heatmap.csv --topology sim/profiles/local.topo --out sim/profiles/local.profile --name local --description this VM: 2 vCPUs (AMD EPYC under KVM), one L3, one NUMA node --bindir build-sim/bin --pause 10 --rmw 8 --fence 8
# level cost = 0.5e9 / median increments per second of the pairs whose
# closest common level it is (docs/simulation.md "Profiles").
name local
description this VM: 2 vCPUs (AMD EPYC under KVM), one L3, one NUMA node
source measured heatmap heatmap.csv (medians per level); local costs are assumptions
hierarchy local.topo
level system 17.20   # 1 pairs, median 2.907e+07 increments/s
cost hit 1
cost rmw 8
cost fence 8
cost pause 10
cost memory 100
jitter 0.05
