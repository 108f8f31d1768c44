#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write sim/validation/measured.csv: the clof-bench runs measured on real
machines, one row per (machine, run, lock, threads), from the raw data in
docs/data (docs/simulation-accuracy.md).

    make_measured.py [--out sim/validation/measured.csv]

Columns: id, set (fit | held: which points a model change may be tuned to;
decided before any change, rule below), machine, profile, lock, threads,
wait (the simulator's --sim-wait for the waiting policy the run used),
measured (median M lock+unlock pairs/s), lo, hi (min and max of the
repeats), n (repeats), source (file and run).

Held-back rule (fixed before the model was changed, docs/simulation-accuracy.md):
the locks ttas, ptl, clh, hemlock and c-bo-mcs are held back on every
machine; the others (tas, bo, ticket, mcs, hmcs, cna) may be fitted to.
"""
import argparse
import collections
import json
import os
import re
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "docs", "data")
HELD = {"ttas", "ptl", "clh", "hemlock", "c-bo-mcs"}


def jsonl(path):
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            yield json.loads(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "measured.csv"))
    a = ap.parse_args()
    rows = []  # (machine, profile, run, lock, T, wait, values, source)
    groups = collections.OrderedDict()

    def add(machine, profile, run, lock, t, wait, v, source):
        groups.setdefault((machine, profile, run, lock, t, wait, source), []).append(v)

    # 16-vCPU VM, 2026-11-26: native clof-bench, default (old) spin-park policy,
    # not pinned, 2 repeats of 0.5 s
    f = "many-cpus-20261126-161305-native.jsonl"
    for r in jsonl(os.path.join(DATA, f)):
        add("vm16", "vm16", "old-spin-park", r["lock"], r["threads"], "policy",
            r["ops_per_s"] / 1e6, f)
    # the same machine: spin-park (build-many) vs -DCLOF_WAIT_POLICY=spin (bs)
    f = "many-cpus-20261126-policy.txt"
    for line in open(os.path.join(DATA, f)):
        m = re.match(r"rep=\d+ T=(\d+) (\S+) (build-many|bs) ([\d.]+)", line)
        if m:
            run, wait = ("spin", "spin") if m.group(3) == "bs" else ("old-spin-park-b", "policy")
            add("vm16", "vm16", run, m.group(2), int(m.group(1)), wait, float(m.group(4)), f)
    # the same machine: old policy vs the adaptive one (CLOF_WAIT_ADAPT_IDLE):
    # with a cpu per thread the new policy spins; at T=32 (2 per cpu) it parks
    f = "many-cpus-20261126-adapt.txt"
    for line in open(os.path.join(DATA, f)):
        m = re.match(r"rep=\d+ T=(\d+) (\S+) (old|new) ([\d.]+)", line)
        if m:
            t = int(m.group(1))
            if m.group(3) == "old":
                run, wait = "old-spin-park-c", "policy"
            else:
                run, wait = "adaptive", ("spin" if t <= 16 else "auto")
            add("vm16", "vm16", run, m.group(2), t, wait, float(m.group(4)), f)
    # the 2-vCPU development VM, 2026-11-28: native clof-bench (adaptive
    # spin-park), 3 interleaved repeats of 0.3 s, load average 20-80 (shared)
    f = "sim-validation-20261128/vm2-native.jsonl"
    for r in jsonl(os.path.join(DATA, f)):
        t = r["threads"]
        add("vm2", "local", "adaptive", r["lock"], t, "spin" if t <= 2 else "auto",
            r["ops_per_s"] / 1e6, f)

    with open(a.out, "w") as o:
        o.write("id,set,machine,profile,run,lock,threads,wait,measured,lo,hi,n,source\n")
        for i, ((mach, prof, run, lock, t, wait, src), vs) in enumerate(groups.items()):
            o.write("%s-%d,%s,%s,%s,%s,%s,%d,%s,%.3f,%.3f,%.3f,%d,docs/data/%s\n" % (
                mach, i + 1, "held" if lock in HELD else "fit", mach, prof, run, lock, t,
                wait, statistics.median(vs), min(vs), max(vs), len(vs), src))
    print("wrote %s: %d points" % (a.out, len(groups)))


if __name__ == "__main__":
    main()
