#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Does any heterogeneous composition beat HMCS<4> on the simulated Kunpeng
920 and EPYC 7352 (docs/simulation-accuracy.md)?  Scans every 4-level
composition of tkt, mcs, clh, hem at the given thread counts, and prints the
best against HMCS over the same 4 levels, with the line transfers per
critical section by level of both.  SIMULATED.

    clof_vs_hmcs.py [--bindir build/bin] [--jobs 2] [--out FILE.jsonl]
"""
import argparse
import concurrent.futures as cf
import itertools
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MACHINES = [("kunpeng920", [8, 32, 128]), ("epyc7352", [8, 32, 96])]

ap = argparse.ArgumentParser()
ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--out")
a = ap.parse_args()
exe = os.path.join(a.bindir, "clof-bench")


def run(prof, lock, t):
    out = subprocess.run([exe, "--simulate", prof, "--lock", lock, "--threads", str(t),
                          "--seed", "1", "--sim-ops", "50000", "--json"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


comps = ["-".join(c) for c in itertools.product(["tkt", "mcs", "clh", "hem"], repeat=4)]
pool = cf.ThreadPoolExecutor(a.jobs)
jobs = {(p, l, t): pool.submit(run, p, l, t) for p, ts in MACHINES for t in ts
        for l in comps + ["hmcs"]}
outf = open(a.out, "w") if a.out else None
print("SIMULATED (mechanisms: %s); 50000 acquisitions, seed 1, packed; Mops/s"
      % (os.environ.get("CLOF_SIM_MECH") or "default"))
for p, ts in MACHINES:
    for t in ts:
        recs = {l: jobs[(p, l, t)].result() for l in comps + ["hmcs"]}
        if outf:
            for l, r in recs.items():
                outf.write(json.dumps({"profile": p, "lock": l, "threads": t,
                                       "ops_per_s": r["ops_per_s"],
                                       "transfers_per_cs": r["sim"]["transfers_per_cs"]}) + "\n")
        rank = sorted(comps, key=lambda l: -recs[l]["ops_per_s"])
        h = recs["hmcs"]
        homog = "mcs-mcs-mcs-mcs"
        print("%s T=%d: HMCS<4> %.3f; best %s %.3f (%.3fx HMCS); 2nd %s %.3fx; %s %.3fx; worst %s %.3fx"
              % (p, t, h["ops_per_s"] / 1e6, rank[0], recs[rank[0]]["ops_per_s"] / 1e6,
                 recs[rank[0]]["ops_per_s"] / h["ops_per_s"], rank[1],
                 recs[rank[1]]["ops_per_s"] / h["ops_per_s"], homog,
                 recs[homog]["ops_per_s"] / h["ops_per_s"], rank[-1],
                 recs[rank[-1]]["ops_per_s"] / h["ops_per_s"]))
        for name, r in (("HMCS<4>", h), (rank[0], recs[rank[0]])):
            tx = r["sim"]["transfers_per_cs"]
            print("    %-16s transfers per CS: %s" % (name, ", ".join(
                "%s %.3f" % (k, v) for k, v in tx.items())))
