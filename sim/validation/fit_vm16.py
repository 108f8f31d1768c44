#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The one fitted number of the vm16 profile: its transfer cost (level
system).  No heatmap of that machine was recorded, so the cost is the one of
{20, 25, ..., 100} ns that minimises the median |log(predicted / measured)|
over the fitted two-thread points of measured.csv (machine vm16, T = 2, set
fit).  Prints the candidates; the profile carries the result.

    fit_vm16.py [--bindir build/bin]
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

ap = argparse.ArgumentParser()
ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
a = ap.parse_args()
pts = [r for r in csv.DictReader(open(os.path.join(HERE, "measured.csv")))
       if r["machine"] == "vm16" and r["threads"] == "2" and r["set"] == "fit"]
base = open(os.path.join(ROOT, "sim", "profiles", "vm16.profile")).read().splitlines()
best = None
with tempfile.TemporaryDirectory() as d:
    for ns in range(20, 101, 5):
        prof = os.path.join(d, "vm16-%d.profile" % ns)
        with open(prof, "w") as f:
            for line in base:
                if line.startswith("hierarchy"):
                    line = "hierarchy " + os.path.join(ROOT, "sim", "profiles", "vm16.topo")
                if line.startswith("level system"):
                    line = "level system %d" % ns
                f.write(line + "\n")
        logs = []
        for r in pts:
            out = subprocess.run([os.path.join(a.bindir, "clof-bench"), "--simulate", prof,
                                  "--lock", r["lock"], "--threads", "2", "--sim-wait", r["wait"],
                                  "--seed", "1", "--json"], stdout=subprocess.PIPE, text=True,
                                 check=True).stdout
            p = json.loads(out.splitlines()[-1])["ops_per_s"] / 1e6
            logs.append(abs(math.log(p / float(r["measured"]))))
        m = statistics.median(logs)
        print("level system %3d ns: median |log(pred/meas)| %.3f over %d points" % (ns, m, len(logs)))
        if best is None or m < best[1]:
            best = (ns, m)
print("best: level system %d ns" % best[0])
