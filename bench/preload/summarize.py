#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise the JSON lines of bench/preload/oversub.sh and apps.sh.

usage: summarize.py FILE.jsonl [--goal X] [--goals "lock=X .. *=X"]

Every record has: program, lock ("glibc" is the reference), threads, repeat,
value (higher is better) and ok.  For each (program, threads) the script
prints the median of each lock over the repeats and, per lock, the median
of the per-repeat ratios lock/glibc (each ratio compares runs made seconds
apart, in the same interleaved round), with min and max.  Where the run
has A/B pairs (NAME and NAME@b: --lib-b of oversub.sh and apps.sh), it
also prints NAME / NAME@b as the median of per-repeat ratios: the direct
comparison of the two builds, which a switch of the machine's speed
between repeats (this 2-vCPU VM has two modes, docs/perf.md) moves far
less than the two columns against glibc.  Where the run has a layer and
its inner lock (cr:NAME and NAME, asl:NAME and NAME, in the same build),
it prints LAYER:NAME / NAME the same way: the issue's "no run slower than
its plain lock", per repeat.
"""
import json
import statistics
import sys
from collections import defaultdict

_loads = []
# the layers over a lock, whose NAME:LOCK is compared with LOCK (the "@b"
# of a layered lock pairs with the plain lock's "@b": cr:mcs@b / mcs@b)
LAYERS = ("cr", "asl")


def goal_of(goals, lock):
    """The goal for a lock: its own, else the longest matching PREFIX*
    (e.g. cr:*), else *."""
    if lock in goals:
        return goals[lock]
    best = None
    for k in goals:
        if k.endswith("*") and lock.startswith(k[:-1]) and (best is None or len(k) > len(best)):
            best = k
    return goals[best] if best is not None else None


def ratios_cell(vals, prog, t, num, den):
    """The median of the per-repeat ratios num/den at (prog, t), and its
    table cell "median [min-max]" ("-" when no repeat has both)."""
    a = dict(vals.get((prog, t, num), []))
    b = dict(vals.get((prog, t, den), []))
    ratios = [a[r] / b[r] for r in a if r in b and b[r] > 0]
    if not ratios:
        return None, "-"
    m = statistics.median(ratios)
    return m, f"{m:.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    path = args[0]
    goals = {}
    if "--goal" in args:
        goals["*"] = float(args[args.index("--goal") + 1])
    if "--goals" in args:
        for g in args[args.index("--goals") + 1].split():
            k, v = g.split("=")
            goals[k] = float(v)
    goal = bool(goals)
    meta = None
    vals = defaultdict(list)  # (prog, T, lock) -> [(repeat, value)]
    failed = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if r.get("type") == "meta":
                meta = r
                continue
            if not r.get("ok", True):
                failed.append(r)
                continue
            vals[(r["program"], r["threads"], r["lock"])].append((r["repeat"], r["value"]))
            if "loadavg_1min" in r:
                _loads.append(r["loadavg_1min"])
    if meta:
        print(f"- Command: `{meta.get('cmdline', '')}`")
        print(f"- Date: {meta.get('date', '')}; machine: {meta.get('machine', '')}")
        if meta.get("notes"):
            print(f"- {meta['notes']}")
        if meta.get("emulate"):
            print(f"- clof locks over an emulated hierarchy: CLOF_EMULATE={meta['emulate']} "
                  "(glibc unchanged)")
        if meta.get("rwlock"):
            print(f"- the programs' pthread rwlocks in the clof runs: CLOF_RWLOCK={meta['rwlock']}")
    print(f"- Data: {path}")
    loads = [r for r in _loads]
    if loads:
        print(f"- 1-minute load average when the runs started: median {statistics.median(loads):.2f}, "
              f"max {max(loads):.2f} (the benchmark itself keeps it near its thread count; "
              f"more means other work on the machine)")
    programs = sorted({k[0] for k in vals})
    locks = sorted({k[2] for k in vals}, key=lambda l: (l != "glibc", l))
    for prog in programs:
        ts = sorted({k[1] for k in vals if k[0] == prog})
        unit = (meta or {}).get("units", {}).get(prog, "ops/s")
        print(f"\n### {prog}: median {unit} (higher is better)\n")
        print("| lock | " + " | ".join(f"T={t}" for t in ts) + " |")
        print("|---|" + "---:|" * len(ts))
        for l in locks:
            cells = []
            for t in ts:
                v = [x for _, x in vals.get((prog, t, l), [])]
                cells.append(f"{statistics.median(v):,.0f}" if v else "-")
            print(f"| {l} | " + " | ".join(cells) + " |")
        print(f"\n{prog}: lock / glibc, median of per-repeat ratios [min-max]\n")
        print("| lock | " + " | ".join(f"T={t}" for t in ts) + (" | goal |" if goal else " |"))
        print("|---|" + "---:|" * len(ts) + ("---|" if goal else ""))
        for l in locks:
            if l == "glibc":
                continue
            cells, meds = [], []
            for t in ts:
                m, cell = ratios_cell(vals, prog, t, l, "glibc")
                if m is not None:
                    meds.append((t, m))
                cells.append(cell)
            row = f"| {l} | " + " | ".join(cells)
            g = goal_of(goals, l)
            if goal and g is not None:
                missed = [str(t) for t, m in meds if m < g]
                row += " | " + (f">= {g}x: met at every T" if not missed
                                else f">= {g}x: missed at T={','.join(missed)}")
            elif goal:
                row += " | "
            print(row + " |")
        pairs = [l for l in locks if l + "@b" in locks]
        if pairs:
            print(f"\n{prog}: A/B, lock / lock@b, median of per-repeat ratios [min-max]\n")
            print("| lock | " + " | ".join(f"T={t}" for t in ts) + " |")
            print("|---|" + "---:|" * len(ts))
            for l in pairs:
                cells = [ratios_cell(vals, prog, t, l, l + "@b")[1] for t in ts]
                print(f"| {l} | " + " | ".join(cells) + " |")
        layered = [(l, l.split(":", 1)[1]) for l in locks
                   if ":" in l and l.split(":", 1)[0] in LAYERS and l.split(":", 1)[1] in locks]
        if layered:
            print(f"\n{prog}: layer / plain lock, median of per-repeat ratios [min-max]\n")
            print("| lock | " + " | ".join(f"T={t}" for t in ts) + " |")
            print("|---|" + "---:|" * len(ts))
            for l, inner in layered:
                cells = [ratios_cell(vals, prog, t, l, inner)[1] for t in ts]
                print(f"| {l} / {inner} | " + " | ".join(cells) + " |")
    if failed:
        print(f"\n**{len(failed)} failed runs** (not in the medians):")
        for r in failed[:20]:
            print(f"- {r.get('program')} {r.get('lock')} T={r.get('threads')} "
                  f"repeat {r.get('repeat')}: {r.get('error', '')[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
