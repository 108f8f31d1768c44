#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every clof RW lock against rw-central on a SIMULATED machine (issue 20,
"What it must show": kunpeng920, 128 threads, 50/90/99/100% reads).

    bench/sim_rw.py [--bindir build/bin] [--profile kunpeng920] [--threads 128]
                    [--read-percents 50,90,99,100] [--prefs reader,writer,neutral]
                    [--locks LIST (default: every clof-bench --list-rw name that
                    can be simulated)] [--sim-ops N] [--seeds 1,2,3]
                    [--cs-lines K] [--non-cs NS] [--duration S] [--sim-wall S] [--jobs N]
                    [--out DIR]

Each (lock, preference, read percent) is run once per seed with
clof-bench --simulate PROFILE --lock L --rw-pref PREF --read-percent P
--threads T --json; the figure is the median throughput over the seeds,
and the ratio to rw-central under the same preference and read percent.
The goal of the issue is checked as it is written: the best NUMA-aware RW
lock (every lock but rw-central and bravo:rw-central, whose readers share
one counter or one table) >= 3x rw-central at 99% reads and >= 1x at 50%.

Every figure is SIMULATED (virtual time; docs/simulation.md): deterministic
for a seed, independent of this host's load.  Output: OUT/runs.jsonl (the
whole clof-bench records), OUT/summary.md (the table, as docs/simulation.md
and docs/perf.md show it), also printed.
"""

import argparse
import concurrent.futures
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(bindir, a, lock, pref, rp, seed):
    argv = [os.path.join(bindir, "clof-bench"), "--simulate", a.profile, "--lock", lock,
            "--rw-pref", pref, "--read-percent", str(rp), "--threads", str(a.threads),
            "--sim-ops", str(a.sim_ops), "--seed", str(seed), "--cs-lines", str(a.cs_lines),
            "--non-cs", str(a.non_cs), "--sim-wall", str(a.sim_wall), "--json"]
    if a.duration is not None:
        argv += ["--duration", str(a.duration)]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 1 and "did not finish" in r.stderr:
        # no acquisition completes in the model: a result, shown as such
        sys.stderr.write("sim_rw: %s %s %s%%: %s\n" % (lock, pref, rp, r.stderr.strip()))
        return None
    if r.returncode != 0:
        sys.stderr.write("sim_rw: %s failed (exit %d): %s\n"
                         % (" ".join(map(shlex.quote, argv)), r.returncode, r.stderr.strip()))
        sys.exit(1)
    rec = json.loads(r.stdout.splitlines()[-1])
    if rec.get("read_percent") != rp or rec.get("rw_pref") != pref:
        sys.exit("sim_rw: the record does not say read_percent %s / rw_pref %s: %s"
                 % (rp, pref, r.stdout[:300]))
    return rec


def numa_aware(lock):
    """locks whose readers write per-node (or per-reader) state: every clof
    RW lock but the centralized one and BRAVO over it (one table of visible
    readers, process-wide, is not per node either -- kept apart)"""
    return lock not in ("rw-central", "bravo:rw-central")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bindir", default=os.path.join("build", "bin"))
    p.add_argument("--profile", default="kunpeng920")
    p.add_argument("--threads", type=int, default=128)
    p.add_argument("--read-percents", default="50,90,99,100")
    p.add_argument("--prefs", default="reader,writer,neutral")
    p.add_argument("--locks", default=None)
    p.add_argument("--sim-ops", type=int, default=50000)
    p.add_argument("--duration", type=float, default=None,
                   help="virtual seconds a run may last (clof-bench --duration; default "
                        "clof-bench's, 10 ms simulated): with threads above the profile's "
                        "cpus, give the time-sharing several slices, e.g. 0.05 with "
                        "--sim-ops 100000000")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--cs-lines", type=int, default=2)
    p.add_argument("--non-cs", type=float, default=100)
    p.add_argument("--sim-wall", type=int, default=60,
                   help="wall seconds before a run that makes no progress is given up "
                        "(clof-bench --sim-wall; default 60)")
    p.add_argument("--jobs", type=int, default=1,
                   help="runs at a time (default 1; the figures do not depend on it)")
    p.add_argument("--from-runs", metavar="FILE",
                   help="make the table from the runs.jsonl of an earlier run instead of "
                        "simulating (same options)")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    out = a.out or os.path.join(os.environ.get("CLOF_RESULTS") or
                               os.path.join(os.path.dirname(os.path.abspath(a.bindir)), "results"),
                               "sim-rw-%s" % a.profile)
    os.makedirs(out, exist_ok=True)
    names = subprocess.run([os.path.join(a.bindir, "clof-bench"), "--list-rw"],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    if a.locks:
        locks = [x.strip() for x in a.locks.split(",") if x.strip()]
        bad = [x for x in locks if x not in names]
        if bad:
            sys.exit("sim_rw: unknown RW lock(s) %s; known: %s" % (" ".join(bad), " ".join(names)))
    else:
        locks = [n for n in names if n != "pthread-rwlock"]  # glibc's: not on the shim
    if "rw-central" not in locks:
        locks.insert(0, "rw-central")
    rps = [float(x) if "." in x else int(x) for x in a.read_percents.split(",")]
    prefs = [x.strip() for x in a.prefs.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]

    t0 = time.time()
    res = {}  # (lock, pref, rp) -> [ops/s per seed]
    stuck = set()  # runs without progress
    walls = []
    jobs = [(lock, pref, rp, s) for pref in prefs for lock in locks for rp in rps
            for s in seeds]
    if a.from_runs:
        # the table again from an earlier run's records (no simulation)
        have = {}
        with open(a.from_runs) as f:
            for line in f:
                x = json.loads(line)
                have[(x["lock"], x["rw_pref"], x["read_percent"],
                      x.get("seed", x.get("params", {}).get("seed")))] = \
                    None if "failed" in x else x
        missing = [j for j in jobs if j not in have]
        if missing:
            sys.exit("sim_rw: %s has no run of %s" % (a.from_runs, missing[0]))
        recs = [have[j] for j in jobs]
    else:
        # simulated figures do not depend on the host's load: runs may overlap
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            recs = list(ex.map(lambda j: run(a.bindir, a, *j), jobs))
    last = None
    runs_path = os.path.join(out, "runs.jsonl")
    if a.from_runs and os.path.abspath(a.from_runs) == os.path.abspath(runs_path):
        runs_path = os.devnull
    with open(runs_path, "w") as f:
        for (lock, pref, rp, s), rec in zip(jobs, recs):
            if rec is None:
                f.write(json.dumps({"lock": lock, "rw_pref": pref, "read_percent": rp,
                                    "seed": s, "failed": "no progress (livelock in the "
                                                         "model)"}) + "\n")
                stuck.add((lock, pref, rp))
                res.setdefault((lock, pref, rp), []).append(0.0)
                continue
            f.write(json.dumps(rec) + "\n")
            res.setdefault((lock, pref, rp), []).append(rec["ops_per_s"])
            walls.append(rec["sim"]["wall_s"])
            last = rec
    if last is None:
        sys.exit("sim_rw: no run made progress")
    wall = time.time() - t0
    med = {k: statistics.median(v) for k, v in res.items()}

    L = []
    L.append("SIMULATED: clof-bench --simulate %s (virtual time; docs/simulation.md)" % a.profile)
    L.append("")
    L.append("command: `bench/sim_rw.py %s`" % " ".join(map(shlex.quote, sys.argv[1:])))
    L.append("")
    L.append("profile: %s -- %s; %d threads, placement packed; cs_lines %d (a read reads them, "
             "a write reads and writes them), non_cs %g ns (uniform 0..2x); a run stops after "
             "%d acquisitions or %g ms virtual; median over seeds %s; host: %s"
             % (last["sim"]["description"], last["sim"]["cost_source"], a.threads,
                a.cs_lines, a.non_cs, a.sim_ops,
                last["params"]["duration_requested_s"] * 1e3,
                ",".join(map(str, seeds)),
                last["machine"]["cpu_model"].split("(simulated on ")[-1].rstrip(")")))
    L.append("")
    for pref in prefs:
        L.append("%s preference: Mops/s (simulated), ratio to rw-central in ()" % pref)
        L.append("")
        L.append("| lock | " + " | ".join("%g%% reads" % rp for rp in rps) + " |")
        L.append("|---|" + "---:|" * len(rps))
        for lock in locks:
            cells = []
            for rp in rps:
                v = med[(lock, pref, rp)]
                ref = med[("rw-central", pref, rp)]
                if (lock, pref, rp) in stuck:
                    n0 = res[(lock, pref, rp)].count(0.0)
                    cells.append("no progress (%d of %d seeds)" % (n0, len(seeds)))
                    continue
                cells.append("%.3f (%.2f)" % (v / 1e6, v / ref if ref else float("nan")))
            L.append("| `%s` | %s |" % (lock, " | ".join(cells)))
        L.append("")
    # the goal
    L.append("goal (issue 20): best NUMA-aware RW lock >= 3x rw-central at 99% reads, "
             ">= 1x at 50%:")
    for pref in prefs:
        for rp, goal in ((99, 3.0), (50, 1.0)):
            if rp not in rps:
                continue
            ref = med[("rw-central", pref, rp)]
            cand = [l for l in locks if numa_aware(l) and (l, pref, rp) not in stuck]
            if not cand or not ref:
                L.append("- %s preference, %g%% reads: no NUMA-aware lock completed a run "
                         "(goal >= %gx: NOT met)" % (pref, rp, goal))
                continue
            best = max(cand, key=lambda l: med[(l, pref, rp)])
            r = med[(best, pref, rp)] / ref
            L.append("- %s preference, %g%% reads: best %s %.2fx (goal >= %gx: %s)"
                     % (pref, rp, best, r, goal, "met" if r >= goal else "NOT met"))
    # the best at 99% and how it fares at 50%
    L.append("")
    if stuck:
        L.append("")
        L.append("no progress: %s -- no acquisition completed within --sim-wall %d s of wall "
                 "time (the run stops only at an acquisition; see docs/rwlocks.md)"
                 % ("; ".join("%s %s %g%%" % k for k in sorted(stuck)), a.sim_wall))
    L.append("")
    walls = walls or [0.0]
    if a.from_runs:
        L.append("(table made from %s; simulator alone: median %.3f s, max %.3f s per run)"
                 % (a.from_runs, sorted(walls)[len(walls) // 2], max(walls)))
    else:
        L.append("simulation: %d runs, %.0f s wall (simulator alone: median %.3f s, max %.3f s "
                 "per run)" % (len(walls), wall, sorted(walls)[len(walls) // 2], max(walls)))
    text = "\n".join(L) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
