#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How often the automatic levels recover each fixture machine from a noisy
synthetic heatmap -- the numbers quoted in docs/topology.md.

    CLOF_BINDIR=build/bin /usr/bin/python3 tests/topology/sweep_levels.py [SEEDS]

For each noise sigma (lognormal, per pair) and each fixture machine, draws
SEEDS heatmaps (default 100) from the machine's full sysfs hierarchy (rates:
the CLoF paper's Table 2 for the EPYC 7352 and the Kunpeng 920, generic
elsewhere) and counts the runs whose proposed levels equal, in kinds and
cohorts, the levels clof keeps for locks.  Also: 'sampled' keeps every pair
inside a NUMA node and 10% of the others (clof heatmap's sampling policy),
and a structureless 64-cpu matrix must yield no level at all.  Takes about
30 s.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import topo_testlib as tl  # noqa: E402
import clof_levels as lv  # noqa: E402

RATES = {"epyc7352": lv.PAPER_RATES["x86"], "kunpeng920": lv.PAPER_RATES["armv8"]}


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    full = {m: tl.hierarchy(m, True) for m in tl.MACHINES}
    lock = {m: tl.hierarchy(m, False) for m in tl.MACHINES}
    print("%-16s" % "noise" + "".join("%12s" % m for m in tl.MACHINES))
    for noise, sample in [(0.03, 1.0), (0.05, 1.0), (0.05, 0.1), (0.08, 1.0), (0.12, 1.0)]:
        row = "%-16s" % ("%.0f%%%s" % (noise * 100, " sampled" if sample < 1 else ""))
        for m in tl.MACHINES:
            ok = 0
            for seed in range(seeds):
                mat = lv.synthetic(full[m], rates=RATES.get(m), noise=noise, seed=seed,
                                   sample=sample)
                p = lv.propose(full[m]["cpus"], mat)
                got = lv.as_hierarchy(full[m]["cpus"], p, lv.name_levels(p, full[m]))
                ok += lv.same_levels(got, lock[m])
            row += "%12s" % ("%d/%d" % (ok, seeds))
        print(row, flush=True)
    flat = {"cpus": list(range(64)), "levels": [{"kind": "system", "groups": [list(range(64))]}]}
    false = sum(len(lv.propose(flat["cpus"], lv.synthetic(flat, noise=0.1, seed=s)))
                for s in range(seeds))
    print("structureless 64 cpus, 10%% noise: %d level(s) proposed in %d runs" % (false, seeds))


if __name__ == "__main__":
    main()
