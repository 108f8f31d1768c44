#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/preload/summarize.py on a small hand-made run: the medians, the
ratios against glibc, the A/B table of NAME against NAME@b (each
ratio taken within a repeat, so a repeat where the machine ran at half
speed for every lock moves the glibc column but not the A/B one), and the
table of a layer over its plain lock (cr:mcs / mcs, cr:mcs@b / mcs@b);
then two runs pooled with --ci: each ratio pairs a repeat with the same
repeat of its own file, and every cell's distribution-free interval of
the median says met, missed or not resolved against the goal."""
import json
import os
import subprocess
import sys
import tempfile

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run_summarize(d, runs, *extra):
    paths = []
    for i, rows in enumerate(runs):
        path = os.path.join(d, f"run{i}.jsonl")
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        paths.append(path)
    return subprocess.run([sys.executable, os.path.join(SRC, "bench", "preload", "summarize.py"),
                           *paths, *extra], capture_output=True, text=True)


def pooled():
    # two runs of 10 repeats; the second runs at half speed throughout, so
    # a repeat paired with the same repeat number of the other file would
    # give 2x or 0.5x ratios.  cr:a is 1.2x glibc in every repeat, cr:b
    # 0.8x, cr:c alternates 0.90 and 1.00 (median 0.95: the goal inside).
    runs = []
    for speed in (1.0, 0.5):
        rows = [{"type": "meta", "driver": "test", "cmdline": "test", "machine": "m"}]
        for rep in range(1, 11):
            c = 0.90 if rep % 2 else 1.00
            for lock, v in (("glibc", 100.0), ("cr:a", 120.0), ("cr:b", 80.0), ("cr:c", 100.0 * c),
                            ("a", 100.0), ("b", 100.0), ("c", 95.0)):
                rows.append({"program": "p", "lock": lock, "threads": 8, "repeat": rep,
                             "ok": True, "value": v * speed})
        runs.append(rows)
    with tempfile.TemporaryDirectory() as d:
        r = run_summarize(d, runs, "--goal", "0.95", "--ci", "0.9")
        check(r.returncode == 0, "pooled run failed: " + r.stderr)
        out = r.stdout
        check("2 runs pooled" in out, "pooling not said: " + out)
        # the plain table pairs within files too: 1.20 with no 0.6 or 2.4
        check("| cr:a | 1.20 [1.20-1.20] |" in out, "cr:a pooled ratio row: " + out)
        ci = out[out.index("distribution-free interval"):]
        check("| cr:a | 1.20 [1.20-1.20] n=20 met |" in ci, "cr:a met: " + ci)
        check("| cr:b | 0.80 [0.80-0.80] n=20 missed |" in ci, "cr:b missed: " + ci)
        check("| cr:c | 0.95 [0.90-1.00] n=20 not resolved |" in ci, "cr:c not resolved: " + ci)
        # the layer against its plain lock, judged against 1
        lp = out[out.index("layer / plain lock, median of per-repeat ratios [its 90%"):]
        check("| cr:a / a | 1.20 [1.20-1.20] n=20 not slower |" in lp, "cr:a / a: " + lp)
        check("| cr:b / b | 0.80 [0.80-0.80] n=20 slower |" in lp, "cr:b / b: " + lp)
        check("| cr:c / c | 1.00 [0.95-1.05] n=20 not resolved |" in lp, "cr:c / c: " + lp)
        # too few repeats for the level: said, no verdict
        r = run_summarize(d, [runs[0][:1 + 7 * 3]], "--goal", "0.95", "--ci", "0.9")
        check("n=3: too few for 90%" in r.stdout, "three repeats at 90%: " + r.stdout)
        # bad options are said, not a traceback
        for bad in (["--ci", "2"], ["--ci", "x"], ["--ci"], ["--goals", "cr:*"]):
            r = subprocess.run([sys.executable, os.path.join(SRC, "bench", "preload", "summarize.py"),
                                os.path.join(d, "run0.jsonl"), *bad], capture_output=True, text=True)
            check(r.returncode == 2 and "summarize.py: " in r.stderr and "Traceback" not in r.stderr,
                  f"{bad}: {r.returncode} {r.stderr[-300:]}")
        # a bad line names its file and line
        with open(os.path.join(d, "bad.jsonl"), "w") as f:
            f.write(json.dumps(runs[0][0]) + "\n{oops\n")
        r = subprocess.run([sys.executable, os.path.join(SRC, "bench", "preload", "summarize.py"),
                            os.path.join(d, "bad.jsonl")], capture_output=True, text=True)
        check(r.returncode == 2 and "bad.jsonl:2: not a JSON line" in r.stderr,
              "bad line: " + r.stderr)


def main():
    # three repeats; repeat 2 runs at half speed for everyone (a machine mode)
    rows = [{"type": "meta", "driver": "test", "cmdline": "test"}]
    base = {"glibc": 100.0, "cr:mcs": 90.0, "cr:mcs@b": 60.0, "mcs": 10.0,
            "clof:tkt-mcs": 50.0}
    for rep, speed in ((1, 1.0), (2, 0.5), (3, 1.0)):
        for lock, v in base.items():
            rows.append({"program": "pl_mutexbench", "lock": lock, "threads": 4,
                         "repeat": rep, "ok": True, "value": v * speed})
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.jsonl")
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        out = subprocess.run([sys.executable, os.path.join(SRC, "bench", "preload", "summarize.py"),
                              path], capture_output=True, text=True, check=True).stdout
    check("| cr:mcs | 0.90 [0.90-0.90] |" in out, "cr:mcs / glibc row: " + out)
    check("A/B, lock / lock@b" in out, "no A/B table: " + out)
    check("| cr:mcs | 1.50 [1.50-1.50] |" in out, "cr:mcs / cr:mcs@b row: " + out)
    # a lock without an @b partner has no A/B row
    ab = out[out.index("A/B, lock / lock@b"):]
    check("| mcs |" not in ab.split("layer / plain")[0], "plain mcs in the A/B table: " + ab)
    check("layer / plain lock" in out, "no layer / plain table: " + out)
    lp = out[out.index("layer / plain lock"):]
    check("| cr:mcs / mcs | 9.00 [9.00-9.00] |" in lp, "cr:mcs / mcs row: " + lp)
    # mcs@b is not in the run: no cr:mcs@b row; clof: is not a layer
    check("cr:mcs@b /" not in lp, "cr:mcs@b without mcs@b: " + lp)
    check("clof:tkt-mcs /" not in lp, "clof: taken for a layer: " + lp)
    pooled()
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print("ok summarize.py A/B, layer / plain, pooled runs and intervals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
