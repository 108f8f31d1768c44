# SPDX-License-Identifier: MIT
"""clof select --rw: rank the reader-writer locks for a read percentage
(docs/rwlocks.md "Measuring"; issue 20).

    clof select --rw [--read-percent P] [--rw-pref reader|writer|neutral]
                [--rw-locks LIST] [--threads ..] [--runs R] [--duration S]
                [--weights ..] [--normalize ..] [--pick lc|hc]
                [--topology FILE | --emulate SHAPE | --simulate PROFILE] [--out DIR]

The candidates are the RW locks of clof-bench --list-rw (glibc's
pthread-rwlock is the baseline; it cannot be simulated and is left out with
--simulate), each run as clof-bench --lock L --read-percent P --rw-pref
PREF at every thread count, interleaved as the mutex selection runs them;
the same hierarchy rules (a one-level machine runs on the emulated
DEFAULT_EMULATE) and the same ranking (clof_rank: HC-best, LC-best,
worst).  Written to DIR (default RESULTS/rwselect-YYYYmmdd-HHMMSS):
results.jsonl, ranking.json, ranking.txt, params.json and clof-best.env
(CLOF_RWLOCK=<picked> for the preload library).  No report, heatmap or
generated header: those are the mutex selection's.
"""

import datetime
import os
import shlex
import subprocess
import sys
import time

import clof_common
import clof_rank
import clof_select_common as sel

CMD = "select"
die = sel.die


def rw_list(ctx):
    r = subprocess.run([ctx.helper("clof-bench"), "--list-rw"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("clof-bench --list-rw failed: %s" % r.stderr.strip())
    return r.stdout.split()


def preload_rw_name(lock):
    """the CLOF_RWLOCK name of a clof-bench RW lock name"""
    return "glibc" if lock == "pthread-rwlock" else lock


def rw_candidates(ctx, args):
    """(the RW locks ranked, the baselines): --rw-locks by the lock grammar,
    else every RW lock of clof-bench; glibc's a baseline unless a candidate"""
    known = rw_list(ctx)
    if args.rw_locks:
        cands = []
        for x in args.rw_locks.split(","):
            # the one grammar (docs/locks.md): case, aliases, did-you-mean
            x = clof_common.lock_name(CMD, ctx, x.strip())
            if x == "pthread":
                x = "pthread-rwlock"  # glibc's, in its reader-writer form
            if x not in known:
                die("--rw-locks: %s is not a reader-writer lock of clof-bench "
                    "(clof locks --family rw lists them)" % x)
            if x not in cands:
                cands.append(x)
    else:
        cands = [x for x in known if x != "pthread-rwlock"]
    baselines = [] if args.simulate or "pthread-rwlock" in cands else ["pthread-rwlock"]
    if args.simulate:
        off = [x for x in cands if x == "pthread-rwlock"]
        cands = [x for x in cands if x not in off]
        if off and not args.quiet:
            sys.stderr.write("clof select: pthread-rwlock cannot be simulated (glibc's, not "
                             "built on clof's atomics shim): left out\n")
    if not cands:
        die("--rw-locks: no RW lock left to rank")
    return cands, baselines


def main(args, ctx):
    t_start = time.time()
    if args.duration <= 0:
        die("--duration: must be positive, got %g" % args.duration)
    if args.runs < 1:
        die("--runs: must be at least 1, got %d" % args.runs)
    if not (0 <= args.read_percent <= 100):
        die("--read-percent: expected 0..100, got %g" % args.read_percent)
    if args.simulate and (args.topology or args.emulate):
        die("--simulate takes its hierarchy from the profile: no --topology/--emulate with it")
    if args.workload != "bench":
        die("--rw runs clof-bench only (not --workload %s)" % args.workload)

    cands, baselines = rw_candidates(ctx, args)
    note = ""
    if args.simulate:
        rec = sel.preflight(ctx, ["--simulate", args.simulate])
        topo = rec.get("topology", {})
        h = {"source": "simulated", "origin": args.simulate, "emulated": False,
             "ncpus": topo.get("cpus", 0), "levels": [{"kind": k} for k in topo.get("levels", [])]}
    else:
        h, note = sel.choose_hierarchy(ctx, args)
    levels, dropped = sel.choose_levels(h, args.levels)
    demo = sel.demo_reason(h, args)
    threads = sel.parse_threads(args.threads) if args.threads else \
        sel.default_threads(h["ncpus"] or os.cpu_count() or 1)
    user_w = None
    if args.weights:
        try:
            user_w = clof_rank.base_weights(threads, clof_rank.parse_weights(args.weights))
        except ValueError as e:
            die("--weights: %s" % e)

    out = sel.out_dir(ctx, args, "rwselect-")
    topo_flags, env_topo, _ = sel.hierarchy_flags(ctx, args, h, levels,
                                                  os.path.join(out, "hierarchy.topo"))
    if not args.simulate:
        sel.preflight(ctx, topo_flags)
    rw_flags = ["--read-percent", "%g" % args.read_percent, "--rw-pref", args.rw_pref]

    locks = cands + baselines
    total = len(locks) * len(threads) * args.runs
    params = {
        "command": "clof select " + " ".join(map(shlex.quote, sys.argv[2:])),
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
        "machine": sel.machine_info(),
        "hierarchy": {"source": h["source"], "origin": h["origin"],
                      "emulated": bool(h.get("emulated")), "levels": levels,
                      "levels_dropped": dropped, "note": note},
        "demo": demo, "glibc_competes": bool(baselines) and not demo,
        "rw": True, "read_percent": args.read_percent, "rw_pref": args.rw_pref,
        "candidates": cands, "baselines": baselines,
        "threads": threads, "duration_s": args.duration, "runs": args.runs,
        "cs_lines": args.cs_lines, "non_cs_ns": args.non_cs,
        "placement": args.placement if h.get("emulated") or args.simulate else None,
        "seed": args.seed, "simulate": args.simulate,
        "policy": {"weights": args.weights, "normalize": args.normalize, "pick": args.pick},
        "loadavg_1min_before": sel.loadavg(),
    }
    say = clof_common.sayer(CMD, args.quiet)
    if note:
        say(note)
    say("%d RW locks + %d baselines at %g%% reads (%s preference) over %s (%s %s), threads %s, "
        "%d runs of %gs: %d runs -> %s"
        % (len(cands), len(baselines), args.read_percent, args.rw_pref, ",".join(levels),
           h["source"], h["origin"], ",".join(map(str, threads)), args.runs, args.duration,
           total, out))

    def run_one(lk, t, label, seed):
        rec, err = sel.run_bench(ctx, args, lk, t, topo_flags + rw_flags, label, seed)
        if rec is not None and err is None and rec.get("read_percent") != args.read_percent:
            err = "the record says read_percent %s" % rec.get("read_percent")
        return rec, err
    records, failures = sel.run_rounds(os.path.join(out, "results.jsonl"), args.runs, threads,
                                       locks, args.seed, args.quiet, run_one)
    params["loadavg_1min_after"] = sel.loadavg()
    params["failures"] = failures

    ok = [x for x in records if "failed" not in x]
    table = clof_rank.aggregate(ok)
    # glibc's rwlock competes on this machine's cpus (issue 38)
    glibc = "pthread-rwlock" if "pthread-rwlock" in baselines + cands and not demo else None
    rank_cands = cands + ([glibc] if glibc and glibc not in cands else [])
    rank_extra = [b for b in baselines if b != glibc]
    rk = clof_rank.rank(table, threads, rank_cands, user_weights=user_w,
                        normalize=args.normalize, extra=rank_extra)
    rk["table"] = {lk: {str(t): v for t, v in byt.items()} for lk, byt in table.items()}
    rk["candidates"], rk["baselines"], rk["pick"] = rank_cands, rank_extra, args.pick
    rk["read_percent"], rk["rw_pref"] = args.read_percent, args.rw_pref
    rk["guards"] = clof_rank.guards(rk)
    picked = rk[args.pick + "_best"]
    rk["picked"] = picked
    vd = rw_verdict(ok, picked, glibc, threads, args.pick, demo)
    rk["verdict"] = params["verdict"] = vd
    sel.write_ranking(out, rk, ranking_text(rk, params, h))
    write_env(args, out, picked, demo, vd, env_topo)
    if not args.quiet:
        sys.stderr.write("clof select: %s\n" % vd["line"])
    params["wall_s"] = round(time.time() - t_start, 1)
    sel.write_json(os.path.join(out, "params.json"), params)
    return sel.exit_status(failures, picked, out)


def rw_verdict(ok, picked, glibc, threads, pick, demo):
    """the verdict (clof_rank.verdict) of the pick against glibc's rwlock"""
    why = " (%s-best)" % pick.upper()
    if demo:
        return {"use": False, "winner": picked, "ref": glibc, "per_threads": [], "reason": demo,
                "line": "verdict: no artifact -- " + demo}
    if glibc is None:
        reason = "ranked among clof's rwlocks only: glibc's was not measured (--rw-locks)"
        return {"use": picked is not None, "winner": picked, "ref": None, "per_threads": [],
                "reason": reason, "line": "verdict: use %s%s -- %s" % (picked, why, reason)}
    return clof_rank.verdict(ok, picked, glibc, threads, why_winner=why)


def write_env(args, out, picked, demo, vd, env_topo):
    """clof-best.env: the selected rwlock, or glibc's locks where it does not win"""
    envf = os.path.join(out, "clof-best.env")
    if os.path.exists(envf):  # never leave an earlier selection's
        os.remove(envf)
    if picked and not demo and vd["use"]:
        with open(envf, "w") as f:
            f.write("# the selected rwlock for libclof-preload.so at %g%% reads\n# %s\n"
                    % (args.read_percent, vd["line"]))
            f.write("CLOF_RWLOCK=%s\n" % preload_rw_name(picked))
            for k, v in env_topo.items():
                f.write("%s=%s\n" % (k, v))
    elif picked and not demo:
        with open(envf, "w") as f:
            f.write("# %s\n# clof run --select %s runs the program unchanged, on glibc's locks\n"
                    "CLOF_LOCK=glibc\nCLOF_RWLOCK=glibc\n" % (vd["line"], out))


def ranking_text(rk, params, h):
    th = rk["threads"]
    lines = [rk["verdict"]["line"]] if rk.get("verdict") else []
    lines += ["clof select --rw: %d RW locks at %g%% reads (%s preference) over %s (%s %s%s), "
             "threads %s, %d runs of %gs (median)"
             % (len(rk["candidates"]), rk["read_percent"], rk["rw_pref"],
                ",".join(params["hierarchy"]["levels"]), h["source"], h["origin"],
                ", EMULATED" if h.get("emulated") else
                (", SIMULATED" if params["simulate"] else ""),
                ",".join(map(str, th)), params["runs"], params["duration_s"])]
    if params.get("simulate"):
        lines.append("SIMULATED on %s: every figure %s" % (params["simulate"],
                                                          sel.sim_model_error_text()))
    lines += clof_rank.weights_text(rk)
    lines.append("load average (1 min) before %s, after %s" % (
        params.get("loadavg_1min_before"), params.get("loadavg_1min_after")))
    lines.append("")
    marks = {}
    for key, tag in (("hc_best", "HC-best"), ("lc_best", "LC-best"), ("worst", "worst")):
        if rk[key]:
            marks.setdefault(rk[key], []).append(tag)
    w = max([len(x) for x in rk["candidates"] + rk["baselines"]] + [4])
    lines.append("%-*s %7s %7s " % (w, "lock", "HC", "LC") +
                 " ".join("%10s" % ("t=%d" % t) for t in th) + "   (Mops/s, median)")

    def row(lk):
        sc = rk["scores"][lk]
        tp = rk["table"].get(lk, {})
        cells = " ".join("%10s" % ("%.3f" % (tp[str(t)] / 1e6) if tp.get(str(t)) else "-")
                         for t in th)
        notes = marks.get(lk, []) + ([rk["guards"][lk]] if lk in rk.get("guards", {}) else [])
        if lk == "pthread-rwlock":
            notes.append("glibc")
        return ("%-*s %7.3f %7.3f %s  %s" % (w, lk, sc["hc"], sc["lc"], cells,
                                             ", ".join(notes))).rstrip()
    for lk in sorted(rk["candidates"], key=lambda c: (-rk["scores"][c]["hc"], c)):
        lines.append(row(lk))
    if rk["baselines"]:
        lines.append("baselines (scored, not ranked):")
        for lk in rk["baselines"]:
            lines.append(row(lk))
    if rk["incomplete"]:
        lines.append("not ranked (a run failed): " + " ".join(rk["incomplete"]))
    lines.append("")
    lines.append("HC-best: %s   LC-best: %s   worst: %s" % (rk["hc_best"], rk["lc_best"], rk["worst"]))
    return "\n".join(lines) + "\n"
