#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Predict, then compare: simulate exactly the runs measured on real machines
and the papers' stated results, and print predicted vs measured side by side
(docs/simulation-accuracy.md).

    sim/validate.py [--bindir build/bin] [--jobs 2] [--quick] [--only vm16,vm2,papers]
                    [--json FILE]

Inputs (sim/validation/):
  measured.csv  clof-bench runs measured on the 16-vCPU VM and the 2-vCPU VM
                (made from docs/data by make_measured.py): each is simulated
                with the same lock, threads, critical section (the defaults:
                2 lines, 100 ns mean outside) and waiting policy (--sim-wait)
                on the machine's profile (vm16, local);
  papers.csv    the papers' stated results: ratios (lock / ref throughput),
                orders (lock faster than ref) and transfer ratios, each with
                its source (paper, section, figure) and the set (fit | held).

Output: per machine and run, a table lock x threads of "predicted / measured
(error)"; the ranking of the locks at each thread count (Kendall's tau and
the pairs in the right order); every paper point with its prediction; and
the summary -- median and worst |error|, pairs in the right order -- for the
fitted and the held-back points separately.  Error = predicted / measured - 1.

Every figure this prints is SIMULATED, except the "measured" columns.
Exit status 0 when every simulation ran (whatever the error), 1 when one
failed, 2 on bad usage.
"""
import argparse
import concurrent.futures as cf
import csv
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
VAL = os.path.join(HERE, "validation")
ABBR = {"tkt": "ticket", "mcs": "mcs", "clh": "clh", "hem": "hemlock"}


def die(msg, code=2):
    sys.stderr.write("validate.py: %s\n" % msg)
    sys.exit(code)


def read_csv(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die("%s: %s" % (path, e))
    for i, r in enumerate(rows, 2):
        if r.get("set") not in ("fit", "held"):
            die("%s:%d: expected set 'fit' or 'held', got %r" % (path, i, r.get("set")))
    return rows


class Sim:
    def __init__(self, bindir, ops, jobs):
        self.exe = os.path.join(bindir, "clof-bench")
        if not os.access(self.exe, os.X_OK):
            die("%s: not found (build clof-bench and clof-bench-sim, or give --bindir)" % self.exe)
        self.ops = ops
        self.pool = cf.ThreadPoolExecutor(max_workers=jobs)
        self.cache = {}
        self.failed = []

    def profile_arg(self, prof):
        return os.path.join(HERE, prof) if "/" in prof else prof

    def submit(self, prof, lock, threads, placement="packed", wait="spin", args=""):
        """a future of the JSON record (None when the run failed)"""
        key = (prof, lock, threads, placement, wait, args)
        if key not in self.cache:
            name, levels = lock, None
            m = re.match(r"^(.+)\{(.+)\}$", lock)
            if m:
                name, levels = m.group(1), m.group(2).replace(";", ",")
            argv = [self.exe, "--simulate", self.profile_arg(prof), "--lock", name,
                    "--threads", str(threads), "--placement", placement, "--sim-wait", wait,
                    "--seed", "1", "--json"] + args.split()
            if wait == "auto":
                # threads share cpus: run 10 slices of 3 ms (a run of
                # --sim-ops acquisitions would end inside the first slice)
                argv += ["--duration", "0.03" if self.ops >= 20000 else "0.01",
                         "--sim-ops", str(50 * self.ops)]
            else:
                argv += ["--sim-ops", str(self.ops)]
            if levels:
                argv += ["--levels", levels]
            self.cache[key] = self.pool.submit(self._run, argv)
        return self.cache[key]

    def _run(self, argv):
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            self.failed.append("%s: exit %d: %s" % (" ".join(argv), r.returncode,
                                                   r.stderr.strip()[-300:]))
            return None
        return json.loads(r.stdout.strip().splitlines()[-1])


def mops(rec):
    return rec["ops_per_s"] / 1e6 if rec else float("nan")


def remote_xfers(rec):
    t = rec["sim"]["transfers_per_cs"] if rec else {}
    return t.get("package", 0) + t.get("system", 0)


def err(pred, meas):
    return pred / meas - 1 if meas > 0 and pred == pred else float("nan")


def kendall(pairs):
    """(tau, pairs in the right order, pairs) over [(pred, meas)]; ties in
    the measurement are skipped"""
    right = total = 0
    for (p1, m1), (p2, m2) in itertools.combinations(pairs, 2):
        if m1 == m2:
            continue
        total += 1
        right += (p1 - p2) * (m1 - m2) > 0
    tau = (2 * right - total) / total if total else float("nan")
    return tau, right, total


def levels_of(sim, prof):
    """the number of levels below system of a profile (from a 1-thread run)"""
    rec = sim.submit(prof, "mcs", 1).result()
    return len(rec["handover_local"]) - 1 if rec else 4


def compositions(alphabet, n):
    return ["-".join(c) for c in itertools.product(alphabet, repeat=n)]


def pct(x):
    return "%+.0f%%" % (100 * x) if x == x else "n/a"


def summary_line(label, errs, orders):
    a = [abs(e) for e in errs if e == e]
    s = "  %-34s" % label
    if a:
        s += "%3d points, median |error| %4.0f%%, worst %5.0f%%" % (
            len(a), 100 * statistics.median(a), 100 * max(a))
    else:
        s += "  0 points with an error                             "
    if orders[1]:
        s += "; pairs/orders right %d of %d" % orders
    return s


def do_machines(sim, rows, out):
    fut = [(r, sim.submit(r["profile"], r["lock"], int(r["threads"]), "packed", r["wait"]))
           for r in rows]
    res = []
    for r, f in fut:
        p = mops(f.result())
        m = float(r["measured"])
        res.append(dict(r, predicted=p, error=err(p, m)))
    out["machine_points"] = res
    by = {}
    for r in res:
        by.setdefault((r["machine"], r["run"], r["wait"] if r["run"] != "adaptive" else ""), []).append(r)
    summ = {}
    for (mach, run, _), rs in by.items():
        ts = sorted({int(r["threads"]) for r in rs})
        locks = []
        for r in rs:
            if r["lock"] not in locks:
                locks.append(r["lock"])
        print("\n%s, run %s (%s): M pairs/s, predicted / measured (error); "
              "measured = median of %s repeats [min-max] in %s" % (
                  mach, run, "; ".join(sorted({"--sim-wait " + r["wait"] for r in rs})),
                  rs[0]["n"], rs[0]["source"]))
        print("  %-10s" % "lock" + "".join("%24s" % ("T=%d" % t) for t in ts))
        cell = {(r["lock"], int(r["threads"])): r for r in rs}
        for lk in locks:
            line = "  %-10s" % (lk + ("*" if cell[next(k for k in cell if k[0] == lk)]["set"] == "held" else ""))
            for t in ts:
                c = cell.get((lk, t))
                line += "%24s" % ("%.2f / %.2f (%s)" % (c["predicted"], float(c["measured"]),
                                                        pct(c["error"])) if c else "")
            print(line)
        for t in ts:
            cs = [cell[(lk, t)] for lk in locks if (lk, t) in cell]
            if len(cs) < 3:
                continue
            pr = sorted(cs, key=lambda c: -c["predicted"])
            me = sorted(cs, key=lambda c: -float(c["measured"]))
            for st in ("fit", "held", "all"):
                sel = [c for c in cs if st == "all" or c["set"] == st]
                tau, right, tot = kendall([(c["predicted"], float(c["measured"])) for c in sel])
                summ.setdefault((mach, st), [0, 0])
                summ[(mach, st)][0] += right
                summ[(mach, st)][1] += tot
                if st == "all":
                    print("  T=%-3d ranking  predicted: %s\n" % (t, " > ".join(c["lock"] for c in pr)) +
                          "         measured:  %s\n" % " > ".join(c["lock"] for c in me) +
                          "         Kendall tau %.2f, pairs in the right order %d of %d" % (tau, right, tot))
    return res, summ


def do_papers(sim, rows, out):
    nlev = {}
    fut = []
    for r in rows:
        t = int(r["threads"])
        runs = []
        for side in (r["lock"], r["ref"]):
            if side.startswith("best:"):
                if r["profile"] not in nlev:
                    nlev[r["profile"]] = levels_of(sim, r["profile"])
                alpha = [a for a in side[5:].split("+")]
                cands = compositions(alpha, nlev[r["profile"]])
                runs.append((side, [(c, sim.submit(r["profile"], c, t, r["placement"], "spin", r["args"]))
                                    for c in cands]))
            else:
                runs.append((side, [(side, sim.submit(r["profile"], side, t, r["placement"], "spin",
                                                      r["args"]))]))
        fut.append((r, runs))
    res = []
    print("\nThe papers' points (SIMULATED predictions; * held back). ratio: lock / ref "
          "throughput; gt: lock faster than ref; xfer: ref's cross-node transfers per CS / the lock's")
    print("  %-4s %-5s %-22s %-18s %-16s %4s %-6s %9s %9s %8s  source" % (
        "id", "set", "profile", "lock", "ref", "T", "kind", "measured", "predicted", "error"))
    for r, runs in fut:
        vals = []
        names = []
        recs = []
        for side, cands in runs:
            best = max(cands, key=lambda c: mops(c[1].result()) if c[1].result() else -1)
            names.append(best[0])
            recs.append(best[1].result())
            vals.append(mops(best[1].result()))
        meas = float(r["measured"])
        kind = r["kind"]
        if kind == "ratio":
            pred = vals[0] / vals[1] if vals[1] > 0 else float("nan")
            e = err(pred, meas)
            ok = None
        elif kind == "gt":
            pred = vals[0] / vals[1] if vals[1] > 0 else float("nan")
            e = float("nan")
            ok = pred > 1
        elif kind == "xfer":
            a, b = remote_xfers(recs[0]), remote_xfers(recs[1])
            pred = b / a if a > 0 else float("inf")
            e = float("nan")
            ok = pred >= meas
        else:
            die("papers.csv: point %s: unknown kind %r (ratio, gt, xfer)" % (r["id"], kind))
        lk = r["lock"] if not r["lock"].startswith("best:") else "%s=%s" % (r["lock"], names[0])
        print("  %-4s %-5s %-22s %-18s %-16s %4s %-6s %9s %9.3f %8s  %s" % (
            r["id"], r["set"] + ("*" if r["set"] == "held" else ""), r["profile"].split("/")[-1][:22],
            lk[:18] if len(lk) <= 18 else lk[-18:], r["ref"][:16], r["threads"], kind,
            (">1" if kind == "gt" else (">=%g" % meas if kind == "xfer" else "%.3f" % meas)),
            pred, pct(e) if kind == "ratio" else ("right" if ok else "WRONG"),
            r["source"][:60]))
        res.append(dict(r, predicted=pred, error=e, right=ok, lock_chosen=names[0],
                        lock_mops=vals[0], ref_mops=vals[1]))
    out["paper_points"] = res
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bindir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true",
                    help="2000 acquisitions a run instead of 20000, 10 ms of virtual time "
                    "instead of 30 where threads share cpus (the test's mode)")
    ap.add_argument("--only", default="vm16,vm2,papers")
    ap.add_argument("--json", help="write every point with its prediction here")
    ap.add_argument("--record", action="store_true",
                    help="write the model error to sim/validation/model-error.json (what "
                    "clof select --simulate reports)")
    ap.add_argument("--mech", help="the model's mechanisms (CLOF_SIM_MECH: none, all, or a "
                    "comma list of shared-reads, store-buffer; default: the simulator's default)")
    a = ap.parse_args()
    only = set(a.only.split(","))
    if a.mech is not None:
        os.environ["CLOF_SIM_MECH"] = a.mech
    if only - {"vm16", "vm2", "papers"}:
        die("--only: expected a list of vm16, vm2, papers, got %r" % a.only)
    sim = Sim(a.bindir, 2000 if a.quick else 20000, max(1, a.jobs))
    out = {"sim_ops": sim.ops}
    print("sim/validate.py: predicted (SIMULATED, %d acquisitions a run, seed 1; mechanisms: %s) "
          "vs measured" % (sim.ops, os.environ.get("CLOF_SIM_MECH") or "default"))
    mrows = [r for r in read_csv(os.path.join(VAL, "measured.csv")) if r["machine"] in only]
    mres, msumm = do_machines(sim, mrows, out) if mrows else ([], {})
    pres = do_papers(sim, read_csv(os.path.join(VAL, "papers.csv")), out) if "papers" in only else []

    print("\nSummary (error = predicted / measured - 1; * = held back, not used to tune the model)")
    for mach in sorted({r["machine"] for r in mres}):
        for st in ("fit", "held"):
            es = [r["error"] for r in mres if r["machine"] == mach and r["set"] == st]
            print(summary_line("%s %s throughput" % (mach, st + ("*" if st == "held" else "")), es,
                               tuple(msumm.get((mach, st), (0, 0)))))
    for st in ("fit", "held"):
        rs = [r for r in pres if r["set"] == st]
        es = [r["error"] for r in rs if r["kind"] == "ratio"]
        oks = [r["right"] for r in rs if r["kind"] != "ratio"]
        print(summary_line("papers %s ratios (orders)" % (st + ("*" if st == "held" else "")), es,
                           (sum(bool(o) for o in oks), len(oks))))
    allheld = [abs(r["error"]) for r in mres + pres if r["set"] == "held" and r["error"] == r["error"]]
    if allheld:
        print("  model error (median |error| of every held-back point with an error): %.0f%%"
              % (100 * statistics.median(allheld)))
        out["model_error_held_median"] = statistics.median(allheld)
        if a.record:
            with open(os.path.join(VAL, "model-error.json"), "w") as f:
                json.dump({"median_abs_error_held": round(statistics.median(allheld), 3),
                           "points": len(allheld),
                           "mechanisms": os.environ.get("CLOF_SIM_MECH") or "default",
                           "sim_ops": sim.ops,
                           "made_by": "sim/validate.py --record"}, f, indent=1)
                f.write("\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)
    if sim.failed:
        print("\n%d simulation(s) failed:" % len(sim.failed))
        for m in sim.failed[:10]:
            print("  " + m)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
