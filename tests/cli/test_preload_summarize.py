#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/preload/summarize.py on a small hand-made run: the medians, the
ratios against glibc, the A/B table of NAME against NAME@b (each
ratio taken within a repeat, so a repeat where the machine ran at half
speed for every lock moves the glibc column but not the A/B one), and the
table of a layer over its plain lock (cr:mcs / mcs, cr:mcs@b / mcs@b)."""
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
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print("ok summarize.py A/B and layer / plain")
    return 0


if __name__ == "__main__":
    sys.exit(main())
