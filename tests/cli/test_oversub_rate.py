#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The work outside the critical section in bench/preload's series:
pl_mutexbench --calibrate prints the loop rate, --spin-per-ns uses a
given one (and says so in its record), a bad one is refused with exit 2;
oversub.sh measures the rate once and gives it to every run (its meta
line), or passes the one it is given; oversub.sh takes a lock by any
spelling of the one grammar (docs/locks.md: `MCS`, `clof:tkt-mcs`) and
checks each run against the canonical name the library reports, and
stops at an unknown name with the closest ones before any run;
thread_states.py samples a run and prints its thread counts and the
program's record.  Behaviour only."""
import json
import os
import subprocess
import sys
import tempfile

BIN, SRC, LIB = sys.argv[1], sys.argv[2], sys.argv[3]
DRV = os.path.join(BIN, "pl_mutexbench")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(*cmd, env=None):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=120, env=env)


def record(p):
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}


p = run(DRV, "--calibrate")
try:
    rate = float(p.stdout.strip())
except ValueError:
    rate = -1.0
check(p.returncode == 0 and rate > 0 and len(p.stdout.split()) == 1,
      f"--calibrate prints one positive number: rc={p.returncode} {p.stdout!r}")

p = run(DRV, "--threads", "2", "--duration", "0.05", "--spin-per-ns", "0.75")
r = record(p)
check(p.returncode == 0 and r.get("spin_per_ns") == 0.75 and r.get("ops", 0) > 0,
      f"--spin-per-ns 0.75 is used and recorded: rc={p.returncode} {p.stdout[-300:]!r}")
p = run(DRV, "--threads", "2", "--duration", "0.05")
check(record(p).get("spin_per_ns", 0) > 0, "without it the measured rate is recorded")
for bad in ("abc", "0", "-1", "1.5x"):
    p = run(DRV, "--threads", "1", "--duration", "0.05", "--spin-per-ns", bad)
    check(p.returncode == 2 and "--spin-per-ns" in p.stderr and not p.stdout,
          f"--spin-per-ns {bad}: exit 2 naming the option: rc={p.returncode} {p.stderr!r}")

with tempfile.TemporaryDirectory() as d:
    def series(*extra):
        out = os.path.join(d, "run.jsonl")
        if os.path.exists(out):
            os.remove(out)
        p = run("bash", os.path.join(SRC, "bench", "preload", "oversub.sh"), "--bin", BIN,
                "--lib", LIB, "--threads", "1 2", "--repeats", "1", "--duration", "0.05",
                "--locks", "mcs", "--out", out, *extra)
        rows = []
        if os.path.exists(out):
            with open(out) as f:
                rows = [json.loads(x) for x in f if x.strip()]
        return p, rows

    p, rows = series()
    meta = rows[0] if rows else {}
    runs = rows[1:]
    check(p.returncode == 0 and meta.get("spin_per_ns", 0) > 0,
          f"oversub.sh records the rate it measured: rc={p.returncode} {p.stderr[-300:]!r}")
    check(len(runs) == 4 and all(x.get("ok") for x in runs),
          f"oversub.sh: 2 locks x 2 T, every run ok: {runs}")
    p, rows = series("--spin-per-ns", "0.6")
    check(p.returncode == 0 and rows and rows[0].get("spin_per_ns") == 0.6,
          f"oversub.sh --spin-per-ns 0.6 is recorded: {rows[:1]}")
    p, rows = series("--locks", "MCS clof:tkt-mcs cr:Clof:Ticket-MCS")
    runs = rows[1:]
    check(p.returncode == 0 and len(runs) == 8 and all(x.get("ok") for x in runs),
          f"oversub.sh: aliases of the grammar are checked by their canonical name: "
          f"{[x for x in runs if not x.get('ok')][:2]}")
    p, rows = series("--locks", "mcs mcz")
    check(p.returncode == 2 and "did you mean mcs" in p.stderr and not rows,
          f"oversub.sh: an unknown name stops it before any run: rc={p.returncode} {p.stderr!r}")
    p, rows = series("--spin-per-ns", "nope")
    check(p.returncode == 2 and "--spin-per-ns nope" in p.stderr,
          f"oversub.sh --spin-per-ns nope: exit 2 naming it: rc={p.returncode} {p.stderr!r}")

ts = os.path.join(SRC, "bench", "preload", "thread_states.py")
p = run(sys.executable, ts, "--skip", "0.05", "--for", "0.2", "--", DRV, "--threads", "3",
        "--duration", "0.4")
r = record(p)
fr = r.get("runnable", {})
inner = {}
try:
    inner = json.loads(r.get("output", ""))
except ValueError:
    pass
check(p.returncode == 0 and r.get("samples", 0) > 0 and abs(sum(fr.values()) - 1) < 0.01
      and all(0 <= int(k) <= 4 for k in fr) and inner.get("threads") == 3,
      f"thread_states.py: samples, fractions summing to 1, the program's record: {p.stdout!r}")
p = run(sys.executable, ts, "--every", "x", "--", DRV)
check(p.returncode != 0 and "bad options" in p.stderr, f"thread_states.py bad option: {p.stderr!r}")

for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failed")
sys.exit(1 if failures else 0)
