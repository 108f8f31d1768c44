#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarize clof-bench JSON lines (bench/oversub.sh output) as Markdown.

usage: bench/summarize.py FILE.jsonl [FILE.jsonl ...] [--reference pthread]

Prints, for every lock and thread count T:
  - the median throughput (Mops/s) over the repeats;
  - the median over repeats of the per-repeat ratio lock / reference
    (reference = pthread by default: the run of the same repeat and T, made
    in the same interleaved round), with its min-max;
and states the machine (cpu model, cpus), the waiting policy, the
parameters and the exact command line of the driver (its "meta" line).

Records are grouped by repeat through their label ("... repeat=N"), or by
their "run" index when there is no label.  Reader-writer records
(clof-bench --read-percent P) are rows of their own per read percentage,
"LOCK (P% reads)", compared with the reference at the same percentage
(e.g. --reference pthread-rwlock).
"""
import argparse
import json
import re
import statistics
import sys
from collections import defaultdict

# The targets of issue 2 ("What it must show"), ratios to pthread_mutex.
GOALS = {"tas": 1.0, "ttas": 1.0, "bo": 1.0,
         "ticket": 0.5, "ptl": 0.5, "mcs": 0.5, "clh": 0.5,
         "hemlock": 0.5, "hemlock_ctr": 0.5}


def load(paths):
    meta, runs, failed = [], [], []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"summarize: {p}:{n}: not JSON ({e})")
                if rec.get("type") == "meta":
                    meta.append(rec)
                elif rec.get("failed"):
                    failed.append(rec)
                elif "lock" in rec and "ops_per_s" in rec:
                    if "read_percent" in rec:
                        rec["lock"] += rw_suffix(rec)
                    runs.append(rec)
    return meta, runs, failed


def rw_suffix(rec):
    """the row-name suffix of an RW record: ' (90% reads)'"""
    return " (%g%% reads)" % rec["read_percent"]


def repeat_of(rec):
    m = re.search(r"repeat=(\d+)", rec.get("label") or "")
    return int(m.group(1)) if m else rec.get("run", 0)


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reference", default="pthread")
    a = ap.parse_args()
    meta, runs, failed = load(a.files)
    if not runs:
        sys.exit("summarize: no runs in " + " ".join(a.files))

    ops = defaultdict(list)                 # (lock, T) -> [Mops/s]
    by_rep = {}                             # (lock, T, repeat) -> ops/s
    for r in runs:
        key = (r["lock"], r["threads"])
        ops[key].append(r["ops_per_s"] / 1e6)
        by_rep[key + (repeat_of(r),)] = r["ops_per_s"]
    ratios = defaultdict(list)              # (lock, T) -> [ratio per repeat]
    for (lock, t, rep), v in by_rep.items():
        m = re.search(r" \([0-9.]+% reads\)$", lock)
        ref = by_rep.get((a.reference + (m.group(0) if m and not a.reference.endswith(m.group(0))
                                         else ""), t, rep))
        if ref:
            ratios[(lock, t)].append(v / ref)

    meta_order = meta[0].get("locks", []) if meta else []
    locks = [l for l in meta_order if any(k[0] == l for k in ops)]
    locks += sorted({k[0] for k in ops} - set(locks))
    threads = sorted({k[1] for k in ops})

    r0 = runs[0]
    m = r0.get("machine", {})
    p = r0.get("params", {})
    out = []
    out.append("## Oversubscribed throughput vs " + a.reference)
    out.append("")
    out.append(f"- Machine: {m.get('cpu_model', '?')}, {m.get('cpus_online', '?')} cpus "
               f"online ({m.get('hostname', '?')}, {m.get('kernel', '?')})")
    out.append(f"- Waiting policy: {p.get('wait_policy', '?')}; critical section "
               f"{p.get('cs_lines', '?')} shared lines; non-critical work "
               f"{p.get('non_cs_ns', '?')} ns mean ({p.get('non_cs_dist', '?')}); "
               f"pin {str(p.get('pin', '?')).lower()}; {r0.get('build', {}).get('compiler', '?')}")
    reps = sorted({repeat_of(r) for r in runs})
    durs = sorted({p2.get('duration_requested_s') for p2 in (r.get('params', {}) for r in runs)})
    out.append(f"- {len(runs)} runs: {len(reps)} repeats x {len(threads)} thread counts x "
               f"{len(locks)} locks, {', '.join(str(d) for d in durs)} s each, interleaved "
               f"(every lock once per repeat and T, shuffled order)")
    for mt in meta:
        out.append(f"- Command: `{mt.get('cmdline', '?')}` ({mt.get('date', '')})")
    if not meta:
        out.append("- Command: (no meta line: not made by bench/oversub.sh)")
    out.append(f"- Files: {', '.join(a.files)}")
    out.append("")

    out.append("### Median throughput, Mops/s")
    out.append("")
    out.append("| lock | " + " | ".join(f"T={t}" for t in threads) + " |")
    out.append("|---|" + "---:|" * len(threads))
    for l in locks:
        cells = [fmt(statistics.median(ops[(l, t)]), 3) if ops.get((l, t)) else "-"
                 for t in threads]
        out.append(f"| {l} | " + " | ".join(cells) + " |")
    out.append("")

    out.append(f"### lock / {a.reference}: median of the per-repeat ratios [min-max]")
    out.append("")
    out.append("| lock | " + " | ".join(f"T={t}" for t in threads) + " | goal (issue 2) |")
    out.append("|---|" + "---:|" * len(threads) + "---|")
    for l in locks:
        cells, met = [], []
        for t in threads:
            rs = ratios.get((l, t))
            if not rs:
                cells.append("-")
                continue
            med = statistics.median(rs)
            cells.append(f"{med:.2f} [{min(rs):.2f}-{max(rs):.2f}]")
            if l in GOALS:
                met.append(med >= GOALS[l])
        goal = ""
        if l in GOALS and met:
            goal = (f">= {GOALS[l]:.1f}x: " +
                    ("met at every T" if all(met) else
                     f"missed at T=" + ",".join(str(t) for t, ok in zip(threads, met) if not ok)))
        out.append(f"| {l} | " + " | ".join(cells) + f" | {goal} |")
    out.append("")

    if failed:
        out.append(f"### Failed runs ({len(failed)})")
        out.append("")
        for f in failed:
            msg = (f.get("stderr") or "").strip().replace("\n", " ")[:200]
            out.append(f"- {f['lock']} T={f['threads']} {f.get('label', '')}: rc {f.get('rc')}: {msg}")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
