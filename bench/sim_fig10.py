#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CLoF paper's Fig. 9 / Fig. 10 analogue on a SIMULATED machine.

    bench/sim_fig10.py [--bindir build/bin] [--profile kunpeng920]
                       [--out DIR (default $CLOF_RESULTS or build/results)/sim-fig10-PROFILE] [--sim-ops N]
                       [--scan-threads 16,64,128] [--threads 1,2,4,...,128]
                       [--top 3] [--seed S]

1. Scan (Fig. 9): every 4-level CLoF composition of clof-bench (a-b-c-d) on
   the profile at --scan-threads; rank them by the HC policy of the CLoF
   paper (weighted mean throughput biased to high contention: weights 1, 2,
   3 ... for the thread counts in increasing order) and keep the --top best.
2. Curves (Fig. 10): throughput vs threads for the best compositions, HMCS<4>
   (`hmcs`, all levels), CNA, C-BO-MCS and MCS.
3. Summary: the ratios at the largest thread count, against the library's
   goal (best CLoF >= 2x MCS, >= 2x CNA, >= 1.1x HMCS<4>), whatever they are.

Every figure is SIMULATED (clof-bench --simulate, virtual time; see
docs/simulation.md): deterministic for a seed, independent of this host's
load.  Wall time per run is recorded as the simulation speed.  Output:
OUT/scan.jsonl (the figures of each scan run), OUT/curves.jsonl (whole
clof-bench --json records), OUT/summary.txt.
"""

import argparse
import json
import os
import subprocess
import sys
import time


def run(bindir, profile, lock, threads, sim_ops, seed):
    argv = [os.path.join(bindir, "clof-bench"), "--simulate", profile, "--lock", lock,
            "--threads", str(threads), "--sim-ops", str(sim_ops), "--seed", str(seed), "--json"]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write("sim_fig10: %s failed: %s\n" % (" ".join(argv), r.stderr.strip()))
        sys.exit(1)
    return json.loads(r.stdout.splitlines()[-1])


def trim(rec):
    """the scan keeps the figures, not the per-thread arrays (curves.jsonl
    has whole records)"""
    return {"lock": rec["lock"], "threads": rec["threads"], "ops_per_s": rec["ops_per_s"],
            "fairness_rstd": rec["fairness_rstd"], "p50_ns": rec["p50_ns"],
            "p99_ns": rec["p99_ns"], "simulated": rec["simulated"],
            "handover_local": rec["handover_local"],
            "sim": {k: rec["sim"][k] for k in ("profile", "transfers_per_cs", "virtual_s",
                                               "wall_s")}}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bindir", default=os.path.join("build", "bin"))
    p.add_argument("--profile", default="kunpeng920")
    p.add_argument("--out", default=None)
    p.add_argument("--sim-ops", type=int, default=50000)
    p.add_argument("--scan-threads", default="16,64,128")
    p.add_argument("--threads", default="1,2,4,8,16,32,48,64,96,128")
    p.add_argument("--top", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    out = a.out or os.path.join(os.environ.get("CLOF_RESULTS") or
                               os.path.join(os.path.dirname(os.path.abspath(a.bindir)), "results"),
                               "sim-fig10-%s" % a.profile)
    os.makedirs(out, exist_ok=True)
    names = subprocess.run([os.path.join(a.bindir, "clof-bench"), "--list"],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    comps = [n for n in names if n.count("-") == 3 and not n.startswith(("a-", "c-"))]
    scan_t = [int(x) for x in a.scan_threads.split(",")]
    weights = {t: i + 1 for i, t in enumerate(sorted(scan_t))}

    t0 = time.time()
    walls = []
    scores = {}
    with open(os.path.join(out, "scan.jsonl"), "w") as f:
        for c in comps:
            s = 0.0
            for t in scan_t:
                rec = run(a.bindir, a.profile, c, t, a.sim_ops, a.seed)
                walls.append(rec["sim"]["wall_s"])
                f.write(json.dumps(trim(rec)) + "\n")
                s += weights[t] * rec["ops_per_s"]
            scores[c] = s / sum(weights.values())
    scan_wall = time.time() - t0
    best = sorted(comps, key=lambda c: -scores[c])[:a.top]

    threads = [int(x) for x in a.threads.split(",")]
    refs = ["hmcs", "cna", "c-bo-mcs", "mcs"]
    curves = {}
    with open(os.path.join(out, "curves.jsonl"), "w") as f:
        for lock in best + refs:
            for t in threads:
                rec = run(a.bindir, a.profile, lock, t, a.sim_ops, a.seed)
                f.write(json.dumps(rec) + "\n")
                curves.setdefault(lock, {})[t] = rec

    tmax = max(threads)
    load = os.getloadavg()[0]
    lines = []
    lines.append("SIMULATED: clof-bench --simulate %s (virtual time; docs/simulation.md)"
                 % a.profile)
    lines.append("command: %s" % " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]))
    rec0 = curves["mcs"][tmax]
    lines.append("profile: %s -- %s" % (rec0["sim"]["description"], rec0["sim"]["cost_source"]))
    lines.append("cs_lines %d, non_cs %g ns (uniform 0..2x), a run stops after %d acquisitions "
                 "or %g ms of virtual time, seed %d, placement packed"
                 % (rec0["params"]["cs_lines"], rec0["params"]["non_cs_ns"], a.sim_ops,
                    rec0["params"]["duration_requested_s"] * 1e3, a.seed))
    lines.append("host: %s; 1-min load average at the end %.1f (does not affect simulated figures)"
                 % (rec0["machine"]["cpu_model"].split("(simulated on ")[-1].rstrip(")"), load))
    lines.append("")
    lines.append("scan: %d 4-level compositions x threads %s, ranked by HC weights %s"
                 % (len(comps), scan_t, [weights[t] for t in sorted(scan_t)]))
    for c in sorted(comps, key=lambda c: -scores[c])[:10]:
        lines.append("  %-22s %8.3f Mops/s (weighted)" % (c, scores[c] / 1e6))
    lines.append("  ... worst: %s %.3f" % (min(comps, key=lambda c: scores[c]),
                                          min(scores.values()) / 1e6))
    lines.append("")
    lines.append("throughput (Mops/s, simulated) vs threads")
    lines.append("%-22s" % "lock" + "".join("%8d" % t for t in threads))
    for lock in best + refs:
        label = "HMCS<4> (hmcs)" if lock == "hmcs" else lock
        lines.append("%-22s" % label + "".join("%8.3f" % (curves[lock][t]["ops_per_s"] / 1e6)
                                               for t in threads))
    lines.append("")
    b = best[0]
    def ratio(x, y):
        return curves[x][tmax]["ops_per_s"] / curves[y][tmax]["ops_per_s"]
    lines.append("at %d threads, best CLoF (%s):" % (tmax, b))
    for ref, goal in (("mcs", 2.0), ("cna", 2.0), ("hmcs", 1.1)):
        r = ratio(b, ref)
        lines.append("  / %-8s = %5.2fx   (goal >= %.1fx: %s)"
                     % (ref, r, goal, "met" if r >= goal else "NOT met"))
    lines.append("")
    lines.append("cross-node line transfers per CS at %d threads (package+system level):" % tmax)
    for lock in best + refs:
        t = curves[lock][tmax]["sim"]["transfers_per_cs"]
        lines.append("  %-22s %.4f   (all levels: %s)" % (
            lock, t.get("package", 0) + t.get("system", 0),
            ", ".join("%s %.2f" % kv for kv in t.items())))
    lines.append("")
    lines.append("simulation speed: scan of %d runs took %.0f s wall (%.2f s per run incl. "
                 "process start; simulator alone median %.3f s, max %.3f s)"
                 % (len(walls), scan_wall, scan_wall / len(walls), sorted(walls)[len(walls) // 2],
                    max(walls)))
    w128 = [curves[l][tmax]["sim"]["wall_s"] for l in best + refs]
    lines.append("  one lock at %d threads (one run as above): %.3f .. %.3f s wall"
                 % (tmax, min(w128), max(w128)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
