#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tables of bench/preload/cr.sh (markdown on stdout).

usage: cr_summary.py oversub FILE.jsonl
       cr_summary.py fair FILE.jsonl T SECONDS

oversub: the JSON lines of bench/preload/oversub.sh over plain locks and
their cr: versions: the median pairs/s of every lock per T, and per cr:
lock the median of the per-repeat ratios cr:<lock>/glibc and
cr:<lock>/<lock> (both runs of the same round), with min and max.
fair: the records of pl_mutexbench --wait, one per lock.
"""
import json
import statistics
import sys
from collections import defaultdict


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def oversub(path):
    v = defaultdict(dict)  # (T, repeat) -> lock -> value
    loads = []
    progs = set()
    for line in open(path):
        r = json.loads(line)
        if r.get("type") == "meta" or not r.get("ok"):
            continue
        progs.add(r.get("program", "pl_mutexbench"))
        v[(r["threads"], r["repeat"])][r["lock"]] = r["value"]
        loads.append(r.get("loadavg_1min", 0.0))
    Ts = sorted({t for t, _ in v})
    crs = sorted({l for d in v.values() for l in d if l.startswith("cr:")})
    print(f"\n## Throughput (lock+unlock pairs/s, {', '.join(sorted(progs))})\n\nRaw: `{path}`; "
          f"1-minute load average when the runs started: median "
          f"{med(loads):.1f}, max {max(loads or [0]):.1f}\n")
    print("| lock | " + " | ".join(f"T={t}" for t in Ts) + " |")
    print("|---|" + "---:|" * len(Ts))
    for l in ["glibc"] + [x for c in crs for x in (c[3:], c)]:
        cells = [f"{med([d[l] for (t, _), d in v.items() if t == T and l in d]) / 1e6:.2f} M"
                 for T in Ts]
        print(f"| {l} | " + " | ".join(cells) + " |")
    for ref in ("glibc", None):
        print(f"\nMedian of the per-repeat ratios cr:<lock> / {ref or '<lock>'} [min-max]:\n")
        print("| lock | " + " | ".join(f"T={t}" for t in Ts) + " |")
        print("|---|" + "---:|" * len(Ts))
        for c in crs:
            base = ref or c[3:]
            cells = []
            for T in Ts:
                rs = [d[c] / d[base] for (t, _), d in v.items()
                      if t == T and c in d and d.get(base, 0) > 0]
                cells.append(f"{med(rs):.2f} [{min(rs):.2f}-{max(rs):.2f}]" if rs else "-")
            print(f"| {c} | " + " | ".join(cells) + " |")


def fair(path, T, secs):
    print(f"\n## Fairness at T={T}, {secs} s per lock (pl_mutexbench --wait)\n\n"
          f"Raw: `{path}`.  share: a thread's acquisitions over the mean (the "
          "issue's goal: every thread within [0.5, 2], (!) where not); wait: one "
          "pthread_mutex_lock call, timed (P99.9 within 6.25%); load: the 1-minute "
          "load average when the run started.\n")
    print("| lock | pairs/s | share min | share max | rstd | wait P50 | wait P99.9 | wait max | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        d = json.loads(line)
        ok = d["share_min"] >= 0.5 and d["share_max"] <= 2
        print(f"| {d['lock']} | {d['ops_per_s'] / 1e6:.2f} M | {d['share_min']:.2f} | "
              f"{d['share_max']:.2f}{'' if ok else ' (!)'} | {d['fairness_rstd']:.3f} | "
              f"{d['wait_p50_ns']} ns | {d['wait_p999_ns'] / 1e3:.1f} us | "
              f"{d['wait_max_ns'] / 1e6:.1f} ms | {d['label'][5:]} |")


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "oversub":
        oversub(a[1])
    elif len(a) == 4 and a[0] == "fair":
        fair(a[1], a[2], a[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
