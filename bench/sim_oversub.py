#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oversubscription on a SIMULATED machine (issue 19, docs/cr.md): plain
FIFO locks against their concurrency-restricted `cr:` versions when the
threads outnumber the cpus.

    bench/sim_oversub.py [--bindir build/bin] [--profile kunpeng920]
                         [--threads 128,256] [--locks mcs,cr:mcs,hmcs,cr:hmcs]
                         [--waits auto,spin] [--seeds 1,2,3] [--sim-ops N]
                         [--duration S] [--out FILE.jsonl]

Every lock at every thread count, under each wait model of the simulator
(clof-bench --sim-wait: `auto` = wait.h's spin-yield-park policy once
threads share cpus, `spin` = waiters keep their cpu until the end of their
slice), for each seed (the seed moves the threads' start offsets, the
transfer jitter and the non-critical work); the table gives the median
Mops/s of virtual time over the seeds, the range, and per critical section
the cpu switches and parks (docs/simulation.md, "Time-sharing"), the
fairness (clof-bench's relative standard deviation of the per-thread
acquisition counts, and the threads that never acquired within the run)
and the P99 acquisition latency.  At more
threads than the profile has cpus, thread i runs on the cpu of thread
i mod cpus (--placement packed): two threads share each cpu at 2x.

Every figure is SIMULATED: deterministic for a seed, independent of this
host's load (the wall time of each run is recorded as the simulation's
speed).  Output: one clof-bench --json record per run in --out, the
markdown table on stdout.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys


def run(a, lock, threads, wait, seed):
    argv = [os.path.join(a.bindir, "clof-bench"), "--simulate", a.profile, "--lock", lock,
            "--threads", str(threads), "--sim-ops", str(a.sim_ops), "--duration",
            str(a.duration), "--sim-wait", wait, "--seed", str(seed), "--json"]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write("sim_oversub: %s failed: %s\n" % (" ".join(argv), r.stderr.strip()))
        sys.exit(1)
    rec = json.loads(r.stdout.strip().splitlines()[-1])
    rec["sim_oversub"] = {"lock": lock, "threads": threads, "wait": wait, "seed": seed,
                          "argv": argv}
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bindir", default="build/bin")
    ap.add_argument("--profile", default="kunpeng920")
    ap.add_argument("--threads", default="128,256")
    ap.add_argument("--locks", default="mcs,cr:mcs,hmcs,cr:hmcs")
    ap.add_argument("--waits", default="auto,spin")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--sim-ops", type=int, default=100000000,
                    help="stop after N acquisitions (default: the virtual --duration decides)")
    ap.add_argument("--duration", type=float, default=0.05,
                    help="virtual seconds per run (default 0.05: about 16 of the default "
                         "3 ms slices, so that every thread runs)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    threads = [int(x) for x in a.threads.split(",")]
    locks = a.locks.split(",")
    waits = a.waits.split(",")
    seeds = [int(x) for x in a.seeds.split(",")]
    out = open(a.out, "w") if a.out else None
    res = {}
    for wait in waits:
        for t in threads:
            for seed in seeds:
                for lk in locks:
                    rec = run(a, lk, t, wait, seed)
                    if out:
                        out.write(json.dumps(rec, sort_keys=True) + "\n")
                        out.flush()
                    res.setdefault((wait, t, lk), []).append(rec)
                    sys.stderr.write("sim_oversub: %s t=%d %s seed %d: %.4f Mops/s (%.1f s wall)\n"
                                     % (wait, t, lk, seed, rec["ops_per_s"] / 1e6,
                                        rec["sim"]["wall_s"]))
    print("SIMULATED (%s profile, clof-bench --simulate; %d seeds, median [min-max]; "
          "--sim-ops %d, at most %g s virtual)" % (a.profile, len(seeds), a.sim_ops, a.duration))
    print()
    print("| wait model | threads | lock | Mops/s | vs plain lock | fairness rstd | threads "
          "that never acquired | p99 latency | cpu switches/CS | parks/CS | preemptions/CS "
          "| handovers/CS | cross-node handovers | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for wait in waits:
        for t in threads:
            for lk in locks:
                rs = res[(wait, t, lk)]
                ops = [r["ops_per_s"] / 1e6 for r in rs]
                med = statistics.median(ops)
                plain = lk[3:] if lk.startswith("cr:") else None
                vs = ""
                if plain and (wait, t, plain) in res:
                    pm = statistics.median(r["ops_per_s"] / 1e6 for r in res[(wait, t, plain)])
                    vs = "%.2fx" % (med / pm) if pm > 0 else "-"

                def per(key):
                    return statistics.median(r["sim"].get(key, 0) / max(r["ops"], 1)
                                             for r in rs)
                def cross(r):
                    loc = r.get("handover_local", {}).get("numa")
                    return float("nan") if loc is None else 1.0 - loc
                print("| %s | %d | `%s` | %.4f [%.4f-%.4f] | %s | %.2f | %d | %.2f ms | %.3f | %.3f "
                      "| %.4f | %.3f | %.3f | %.1f |"
                      % (wait, t, lk, med, min(ops), max(ops), vs,
                         statistics.median(r["fairness_rstd"] for r in rs),
                         statistics.median(sum(1 for c in r["per_thread"] if c == 0) for r in rs),
                         statistics.median((r["p99_ns"] if r["p99_ns"] is not None
                                            else float("nan")) for r in rs) / 1e6,
                         per("cpu_switches"), per("parks"), per("preemptions"),
                         statistics.median(r["handovers"]["per_op"] for r in rs),
                         statistics.median(cross(r) for r in rs),
                         statistics.median(r["sim"]["wall_s"] for r in rs)))


if __name__ == "__main__":
    main()
