#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise the JSON lines of bench/preload/oversub.sh and apps.sh.

usage: summarize.py FILE.jsonl [FILE.jsonl ..] [--goal X] [--goals "lock=X .. *=X"]
                    [--ci LEVEL]

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

Several files pool their repeats: each ratio still pairs runs of the same
repeat of the same file (never a repeat of one run with the same number
in another), and the medians are over every file's repeats.  Pool only
runs of the same build and command on the same machine.

--ci LEVEL (e.g. 0.9) adds to every lock / glibc cell (and every layer /
plain lock cell, judged against 1: slower, not slower, not resolved) the distribution-free
interval of the median of its per-repeat ratios: the order statistics
[r(k), r(n+1-k)] with the largest k for which the median lies outside
them with probability at most 1 - LEVEL whatever the ratios' distribution
(the sign test's interval; binomial(n, 1/2); its level is LEVEL or a
little more, the order statistics giving only some levels).  With
a goal, each cell then says whether the interval lies above it (met), below
it (missed) or holds it (not resolved by this many repeats): a median of
ten repeats whose single ratios spread over 0.3-1.9 can sit a few hundredths
either side of a goal by chance, and the interval says how far.
"""
import json
import os
import statistics
import sys
from collections import defaultdict

# the interval of a median: tools/clof_rank.py (clof select's verdict uses it too)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from clof_rank import median_interval  # noqa: E402

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


def repeat_ratios(vals, prog, t, num, den):
    """num/den at (prog, t), one ratio per repeat that has both."""
    a = dict(vals.get((prog, t, num), []))
    b = dict(vals.get((prog, t, den), []))
    return [a[r] / b[r] for r in a if r in b and b[r] > 0]


def ratios_cell(vals, prog, t, num, den):
    """The median of the per-repeat ratios num/den at (prog, t), and its
    table cell "median [min-max]" ("-" when no repeat has both)."""
    ratios = repeat_ratios(vals, prog, t, num, den)
    if not ratios:
        return None, "-"
    m = statistics.median(ratios)
    return m, f"{m:.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"


def ci_cell(vals, prog, t, num, den, level, g, words=("met", "missed", "not resolved")):
    """'median [lo-hi] n=N' for the per-repeat ratios num/den, with the
    verdict against goal g (None: no goal): words[0] when the interval
    lies at or above g, words[1] below it, words[2] when it holds g."""
    ratios = repeat_ratios(vals, prog, t, num, den)
    if not ratios:
        return "-", None
    m = statistics.median(ratios)
    iv = median_interval(ratios, level)
    if iv is None:
        return f"{m:.2f} (n={len(ratios)}: too few for {level:.0%})", None
    lo, hi, _ = iv
    # a bound that shows as the goal at two places gets more, so that
    # "[0.95-..] not resolved" cannot be read as met
    def fmt(x):
        d = 2
        while g is not None and x != g and d < 5 and f"{x:.{d}f}" == f"{g:.{d}f}":
            d += 1
        return f"{x:.{d}f}"
    cell = f"{m:.2f} [{fmt(lo)}-{fmt(hi)}] n={len(ratios)}"
    verdict = None
    if g is not None:
        verdict = words[0] if lo >= g else (words[1] if hi < g else words[2])
        cell += " " + verdict
    return cell, verdict


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    for opt in ("--goal", "--goals", "--ci"):
        if opt in args and args.index(opt) + 1 >= len(args):
            print(f"summarize.py: {opt} wants a value", file=sys.stderr)
            return 2
    ci = None
    if "--ci" in args:
        try:
            ci = float(args[args.index("--ci") + 1])
        except ValueError:
            ci = -1.0
        if not 0.5 < ci < 1.0:
            print(f"summarize.py: --ci {args[args.index('--ci') + 1]}: wants a level between 0.5 and 1 "
                  "(e.g. 0.9)", file=sys.stderr)
            return 2
    paths = []
    i = 0
    while i < len(args):
        if args[i] in ("--goal", "--goals", "--ci"):
            i += 2
            continue
        paths.append(args[i])
        i += 1
    if not paths:
        print("summarize.py: no FILE.jsonl given", file=sys.stderr)
        return 2
    goals = {}
    try:
        if "--goal" in args:
            goals["*"] = float(args[args.index("--goal") + 1])
        if "--goals" in args:
            for g in args[args.index("--goals") + 1].split():
                k, v = g.split("=")
                goals[k] = float(v)
    except ValueError:
        print("summarize.py: --goal wants a number (0.95), --goals \"LOCK=X .. PREFIX*=X *=X\"",
              file=sys.stderr)
        return 2
    goal = bool(goals)
    metas = []
    # (prog, T, lock) -> [((file, repeat), value)]: a repeat pairs with the
    # same repeat of the same file only
    vals = defaultdict(list)
    failed = []
    for fi, path in enumerate(paths):
        try:
            f = open(path)
        except OSError as e:
            print(f"summarize.py: {path}: {e.strerror}", file=sys.stderr)
            return 2
        with f:
            for ln, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    print(f"summarize.py: {path}:{ln}: not a JSON line ({e})", file=sys.stderr)
                    return 2
                if r.get("type") == "meta":
                    metas.append(r)
                    continue
                if not r.get("ok", True):
                    failed.append(r)
                    continue
                vals[(r["program"], r["threads"], r["lock"])].append(((fi, r["repeat"]), r["value"]))
                if "loadavg_1min" in r:
                    _loads.append(r["loadavg_1min"])
    for m in metas:
        print(f"- Command: `{m.get('cmdline', '')}`")
        print(f"- Date: {m.get('date', '')}; machine: {m.get('machine', '')}")
        if m.get("notes"):
            print(f"- {m['notes']}")
        if m.get("emulate"):
            print(f"- clof locks over an emulated hierarchy: CLOF_EMULATE={m['emulate']} "
                  "(glibc unchanged)")
        if m.get("rwlock"):
            print(f"- the programs' pthread rwlocks in the clof runs: CLOF_RWLOCK={m['rwlock']}")
    machines = {m.get("machine") for m in metas}
    if len(machines) > 1:
        print(f"- **the pooled files name {len(machines)} different machine lines (machine or commit): pool runs of the same code only**")
    print(f"- Data: {', '.join(paths)}" + (f" ({len(paths)} runs pooled; a ratio pairs runs "
                                           "of one repeat of one file)" if len(paths) > 1 else ""))
    loads = [r for r in _loads]
    if loads:
        print(f"- 1-minute load average when the runs started: median {statistics.median(loads):.2f}, "
              f"max {max(loads):.2f} (the benchmark itself keeps it near its thread count; "
              f"more means other work on the machine)")
    programs = sorted({k[0] for k in vals})
    locks = sorted({k[2] for k in vals}, key=lambda l: (l != "glibc", l))
    for prog in programs:
        ts = sorted({k[1] for k in vals if k[0] == prog})
        unit = (metas[-1] if metas else {}).get("units", {}).get(prog, "ops/s")
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
        if ci is not None:
            print(f"\n{prog}: lock / glibc, median of per-repeat ratios [its {ci:.0%} "
                  "distribution-free interval], repeats\n")
            print("| lock | " + " | ".join(f"T={t}" for t in ts) + " |")
            print("|---|" + "---|" * len(ts))
            for l in locks:
                if l == "glibc":
                    continue
                g = goal_of(goals, l) if goal else None
                cells = [ci_cell(vals, prog, t, l, "glibc", ci, g)[0] for t in ts]
                print(f"| {l} | " + " | ".join(cells) + " |")
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
            if ci is not None:
                print(f"\n{prog}: layer / plain lock, median of per-repeat ratios [its {ci:.0%} "
                      "distribution-free interval], repeats, against 1\n")
                print("| lock | " + " | ".join(f"T={t}" for t in ts) + " |")
                print("|---|" + "---|" * len(ts))
                for l, inner in layered:
                    cells = [ci_cell(vals, prog, t, l, inner, ci, 1.0,
                                     ("not slower", "slower", "not resolved"))[0] for t in ts]
                    print(f"| {l} / {inner} | " + " | ".join(cells) + " |")
    if failed:
        print(f"\n**{len(failed)} failed runs** (not in the medians):")
        for r in failed[:20]:
            print(f"- {r.get('program')} {r.get('lock')} T={r.get('threads')} "
                  f"repeat {r.get('repeat')}: {r.get('error', '')[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
