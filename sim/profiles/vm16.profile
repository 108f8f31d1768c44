clof-sim-profile 1
# The 16-vCPU VM lent to this project on 2026-11-26/27 (Firecracker/KVM,
# "Intel(R) Xeon(R) Processor", family 6 model 207, 16 cpus, one package,
# one NUMA node, one L3 of 300 MiB in sysfs: docs/data/cr-16cpu-20261127/machine.txt).
# No heatmap of it was recorded.  The one transfer cost is FITTED: the value
# of 20..100 ns (step 5) that best predicts the fitted two-thread runs
# measured there (sim/validation/fit_vm16.py over sim/validation/measured.csv;
# docs/simulation-accuracy.md).  Local costs: as the `local` profile (x86
# assumptions).
name vm16
description the lent 16-vCPU VM (Intel Xeon under KVM, one L3, one NUMA node)
source transfer cost fitted to its measured two-thread runs (sim/validation/fit_vm16.py); local costs are assumptions
hierarchy vm16.topo
level system 55
cost hit 1
cost rmw 8
cost fence 8
cost pause 10
cost memory 100
jitter 0.05
