# SPDX-License-Identifier: MIT
"""clof select --workload cmd: the user's program is the benchmark (issue 38;
docs/workflow.md "Your program as the benchmark").

    clof select --workload cmd [--metric REGEX] [--lower-is-better] [--repeat N]
                [--timeout S] [--locks LIST] [--seed N] [--out DIR] -- PROGRAM [ARGS...]

1. One profiled run under glibc's locks (clof profile's machinery,
   tools/clof_cmd_profile.py): which kinds of locks the program waits on
   (mutexes, rwlocks) and how many threads it runs (sampled from /proc).
   When this run fails (exit status not 0, no --metric figure, killed at
   --timeout) the selection stops there: the error, a partial report.
2. The candidates, from that profile: glibc's locks; for mutexes glibc's
   adaptive mutex (CLOF_LOCK=glibc-adaptive) and the basic
   locks of --locks (the preload library's CLOF_LOCK), their cr: versions
   when the program runs more threads than there are cpus, asl: ones when
   the cpus differ, hmcs and cna when the machine has more than one level;
   for rwlocks the preload library's RW locks (CLOF_RWLOCK; the
   hierarchical ones only on a machine with more than one level).
3. The runs: --repeat rounds, every candidate once per round in a seeded
   random order, each run the program under libclof-preload.so with the
   candidate (clof_cmd_profile.measure_once, as clof profile --compare).
   The figure: the first group of --metric in the program's output (higher
   is better unless --lower-is-better), else its run time (lower is better).
4. The ranking: the median figure of each candidate; a candidate with a
   failed run is excluded (it stays in the table with the reason).  The
   verdict (clof_rank.verdict) compares the best candidate with glibc round
   by round; then the exact `clof run` line.
Written to DIR: results.jsonl, ranking.json, ranking.txt (the verdict its
first line), params.json, clof-best.env.
"""

import datetime
import json
import os
import random
import shlex
import shutil
import statistics
import sys
import threading
import time

import clof_cmd_profile as prof
import clof_common
import clof_rank
import clof_select_best as best
import clof_select_common as sc
import clof_select_rw

CMD = "select"
die = sc.die


def count_threads(box):
    """a watch for measure_once: the most threads the process had"""
    def watch(p):
        def poll():
            while p.poll() is None:
                try:
                    n = len(os.listdir("/proc/%d/task" % p.pid))
                    box["threads"] = max(box.get("threads", 0), n)
                except OSError:
                    pass
                time.sleep(0.01)
        threading.Thread(target=poll, daemon=True).start()
    return watch


def run_error(r, metric):
    """why a run failed, or None"""
    if r["status"] is None:
        return "killed after the --timeout"
    if r["status"] != 0:
        return "ended with %s" % prof.status_text(r["status"])
    if r["figure"] is None:
        return "--metric %r found no number in its output" % metric.pattern
    return None


def candidates(profile, nthreads, cpus, h, abbrs, rw_names):
    """[(label, env)] of the program's candidates, glibc's first, and the
    reasons (lines) for the choice"""
    kinds = {}
    for L in (profile or {}).get("locks", []):
        if L["kind"] in ("mutex", "rwlock"):
            kinds[L["kind"]] = kinds.get(L["kind"], 0) + (L.get("contended") or 0)
    why = []
    mutex = kinds.get("mutex", 0) > 0 or not kinds.get("rwlock", 0)
    rw = kinds.get("rwlock", 0) > 0
    why.append("the profile under glibc: %d contended mutex acquisitions, %d contended rwlock "
               "acquisitions; %d threads at most on %d cpus"
               % (kinds.get("mutex", 0), kinds.get("rwlock", 0), nthreads, cpus))
    multi = len(h["levels"]) > 1
    out = [("glibc", {})]
    if mutex:
        # glibc's adaptive mutex: a candidate the program could have without clof
        out.append(("glibc-adaptive", {}))
        basic = [best.abbr_to_lock()[a] for a in abbrs]
        mx = basic + (["hmcs", "cna"] if multi else [])
        if nthreads > cpus:
            mx += ["cr:" + x for x in mx]
            why.append("more threads than cpus: the cr: candidates too")
        if sc.hetero(h):
            mx += ["asl:" + x for x in basic]
            why.append("the cpus differ (core types): the asl: candidates too")
        out += [(x, {}) for x in mx]
    if rw:
        hier = ("hmcs", "c-bo-mcs", "clof:")
        for x in rw_names:
            if x == "pthread-rwlock" or (not multi and any(k in x for k in hier)):
                continue
            out.append((x, {"CLOF_RWLOCK": x}))
        why.append("contended rwlocks: the RW candidates (CLOF_RWLOCK)%s"
                   % ("" if multi else "; the hierarchical ones left out on one level"))
    return out, why


def main(args, ctx):
    t_start = time.time()
    prog = list(args.program or [])
    if prog and prog[0] == "--":
        prog = prog[1:]
    if not prog:
        die("--workload cmd: no program: clof select --workload cmd [--metric REGEX] -- PROGRAM "
            "[ARGS...]")
    if shutil.which(prog[0]) is None:
        die("--workload cmd: %s: no such program (not a file that can run, nor on PATH)"
            % prog[0])
    if args.repeat < 1:
        die("--repeat: must be at least 1, got %d" % args.repeat)
    if args.timeout is not None and args.timeout <= 0:
        die("--timeout: seconds above 0, got %g" % args.timeout)
    if args.simulate or args.emulate or args.topology:
        die("--workload cmd runs the program on this machine's cpus: no --simulate, --emulate "
            "or --topology")
    metric = prof.compile_metric(args.metric) if args.metric else None
    lower = args.lower_is_better or metric is None
    abbrs = sc.parse_part_list(args.locks)
    lib = clof_common.find_preload_lib(CMD, ctx, None)
    h, _ = sc.choose_hierarchy(ctx, args)
    cpus = len(os.sched_getaffinity(0))
    out = args.out or os.path.join(ctx.results_dir(), "select-" + time.strftime("%Y%m%d-%H%M%S"))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        die("--out %s: %s" % (out, e.strerror))
    out = os.path.abspath(out)
    for f in ("clof_best.h", "libclof-best.so", "clof-best.env"):
        if os.path.exists(os.path.join(out, f)):  # never leave an earlier selection's
            os.remove(os.path.join(out, f))
    figure_is = ("the first group of %r in its output (%s is better)"
                 % (args.metric, "lower" if lower else "higher")) if metric \
        else "its run time in s (lower is better)"
    params = {
        "command": "clof select " + " ".join(map(shlex.quote, sys.argv[2:])),
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
        "machine": sc.machine_info(), "workload": "cmd", "program": prog,
        "hierarchy": {"source": h["source"], "origin": h["origin"], "emulated": False,
                      "levels": [lv["kind"] for lv in h["levels"]],
                      "levels_available": [lv["kind"] for lv in h["levels"]]},
        "metric": args.metric, "lower_is_better": lower, "figure": figure_is,
        "repeat": args.repeat, "timeout_s": args.timeout, "seed": args.seed, "simulate": None,
        "demo": None, "loadavg_1min_before": sc.loadavg(),
    }
    say = clof_common.sayer(CMD, args.quiet)
    records, failures = [], []
    res_path = os.path.join(out, "results.jsonl")
    rf = open(res_path, "w")

    def record(label, env, r, rnd, nthr, what):
        err = run_error(r, metric) if metric else (
            None if r["status"] == 0 else run_error(r, metric))
        rec = {"lock": label, "env": env, "select_run": rnd, "threads": nthr, "what": what,
               "figure": r["figure"] if not err else None, "wall_s": round(r["wall_s"], 4),
               "status": r["status"], "loadavg_1min": sc.loadavg()}
        if err:
            rec["failed"] = err
            rec["output_tail"] = r["output"][-300:]
            failures.append({"lock": label, "threads": nthr, "run": rnd, "error": err})
        rf.write(json.dumps(rec, sort_keys=True) + "\n")
        rf.flush()
        return rec, err

    # 1. the profile under glibc
    say("profiling %s under glibc's locks (the program's output is not shown; the failed "
        "runs' last lines go to results.jsonl)" % " ".join(map(shlex.quote, prog)))
    box = {}
    r0 = prof.measure_once(lib, "glibc", prog, {}, metric, None, args.timeout, count_threads(box))
    nthr = max(box.get("threads", 1) - 1, 1)  # the main thread usually waits
    rec0, err0 = record("glibc", {}, r0, -1, nthr, "profile")
    params["program_threads"] = nthr
    if err0:
        msg = ("the program %s under glibc's locks (the profile run): %s; last output: %s"
               % (prog[0], err0, r0["output"].strip()[-200:] or "(none)"))
        vd = {"use": False, "winner": None, "ref": "glibc", "per_threads": [], "reason": msg,
              "line": "verdict: no verdict -- " + msg}
        finish(out, params, vd, [], {}, [], prog, t_start, failures, rf, say, [msg])
        return 1
    cands, why = candidates(r0["profile"], nthr, cpus, h, abbrs, clof_select_rw.rw_list(ctx))
    for w in why:
        say(w)
    envs = dict(cands)
    params["_envs"] = envs
    labels = [c for c, _ in cands]
    # 2. the interleaved rounds
    rng = random.Random(args.seed)
    total = len(labels) * args.repeat
    prog_bar = sc.Progress(total, args.quiet)
    for rnd in range(args.repeat):
        order = list(labels)
        rng.shuffle(order)
        for lk in order:
            env = dict(envs[lk])
            lock = "glibc" if "CLOF_RWLOCK" in env else lk
            r = prof.measure_once(lib, lock, prog, env, metric, None, args.timeout)
            rec, err = record(lk, env, r, rnd, nthr, "run")
            records.append(rec)
            prog_bar.step("%s%s" % (lk, ": " + err if err else ""))
    # 3. the ranking and the verdict
    rows = {}
    for lk in labels:
        ok = [x["figure"] for x in records if x["lock"] == lk and "failed" not in x]
        bad = [x["failed"] for x in records if x["lock"] == lk and "failed" in x]
        rows[lk] = {"median": statistics.median(ok) if ok else None, "runs": len(ok),
                    "failed": len(bad), "guard": ("excluded: %d failed run%s (%s)"
                                                  % (len(bad), "s" if len(bad) > 1 else "", bad[0])
                                                  if bad else None)}
    fine = [lk for lk in labels if rows[lk]["guard"] is None and rows[lk]["median"] is not None]
    fine.sort(key=lambda lk: ((rows[lk]["median"] if lower else -rows[lk]["median"]), lk))
    winner = fine[0] if fine else None
    ok_recs = [x for x in records if "failed" not in x]
    if rows["glibc"]["guard"]:
        msg = "the program failed under glibc's locks: %s" % rows["glibc"]["guard"]
        vd = {"use": False, "winner": winner, "ref": "glibc", "per_threads": [], "reason": msg,
              "line": "verdict: keep glibc's locks -- " + msg}
    else:
        vd = clof_rank.verdict(ok_recs, winner, "glibc", [nthr], key="figure",
                               lower_is_better=lower)
    for lk in labels:
        rs = clof_rank.paired_ratios(ok_recs, lk, "glibc", nthr, "figure", lower_is_better=lower)
        iv = clof_rank.median_interval(rs, vd.get("level", 0.9)) if rs else None
        rows[lk]["ratio"] = statistics.median(rs) if rs else None
        rows[lk]["interval"] = [iv[0], iv[1]] if iv else None
    rc = finish(out, params, vd, labels, rows, fine, prog, t_start, failures, rf, say, why)
    return rc


def run_line(out, vd, prog):
    return "clof run --select %s -- %s" % (shlex.quote(out), " ".join(map(shlex.quote, prog)))


def finish(out, params, vd, labels, rows, fine, prog, t_start, failures, rf, say, notes):
    """ranking.json, ranking.txt, clof-best.env, params.json; the exit status"""
    rf.close()
    params["loadavg_1min_after"] = sc.loadavg()
    params["failures"] = failures
    params["verdict"] = vd
    params["wall_s"] = round(time.time() - t_start, 1)
    winner = vd.get("winner")
    use = bool(vd.get("use"))
    if winner is not None or rows:
        with open(os.path.join(out, "clof-best.env"), "w") as f:
            f.write("# %s\n" % vd["line"])
            if use:
                wenv = params.get("_envs", {}).get(winner, {})
                if "CLOF_RWLOCK" in wenv or winner.startswith(("rw", "bravo:")):
                    f.write("CLOF_LOCK=glibc\nCLOF_RWLOCK=%s\n" % winner)
                else:
                    f.write("CLOF_LOCK=%s\n" % winner)
            else:
                f.write("# clof run --select %s runs the program unchanged, on glibc's locks\n"
                        "CLOF_LOCK=glibc\n" % out)
    rk = {"workload": "cmd", "candidates": labels, "rows": rows, "order": fine,
          "picked": winner if use else "glibc", "hc_best": None, "lc_best": None,
          "verdict": vd, "figure": params["figure"]}
    with open(os.path.join(out, "ranking.json"), "w") as f:
        json.dump(rk, f, indent=1, sort_keys=True)
    lines = [vd["line"],
             "clof select --workload cmd: %s; %d rounds, interleaved; figure: %s"
             % (" ".join(map(shlex.quote, prog)), params["repeat"], params["figure"])]
    lines += notes
    lines.append("load average (1 min) before %s, after %s"
                 % (params.get("loadavg_1min_before"), params.get("loadavg_1min_after")))
    if rows:
        lines.append("")
        w = max(len(x) for x in labels + ["lock"])
        lines.append("%-*s %12s %22s %5s  %s" % (w, "lock", "median", "vs glibc [90%]", "runs",
                                                 ""))
        order = fine + [lk for lk in labels if lk not in fine]
        for lk in order:
            r = rows[lk]
            ratio = "-" if r.get("ratio") is None else (
                "%.2fx" % r["ratio"] + (" [%.2f-%.2f]" % tuple(r["interval"])
                                        if r.get("interval") else " (too few)"))
            tags = (["best"] if lk == winner else []) + ([r["guard"]] if r["guard"] else [])
            lines.append(("%-*s %12s %22s %5d  %s" % (
                w, lk, "-" if r["median"] is None else "%.6g" % r["median"],
                ratio if lk != "glibc" else "1", r["runs"], ", ".join(tags))).rstrip())
    lines.append("")
    if use:
        lines.append("run it: " + run_line(out, vd, prog))
    else:
        lines.append("run it: %s   (the program unchanged, on glibc's locks)"
                     % " ".join(map(shlex.quote, prog)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "ranking.txt"), "w") as f:
        f.write(text)
    params.pop("_envs", None)
    with open(os.path.join(out, "params.json"), "w") as f:
        json.dump(params, f, indent=1, sort_keys=True)
    sys.stdout.write(text)
    if failures:
        sys.stderr.write("clof select: %d runs failed (partial report: %s): %s\n" % (
            len(failures), os.path.join(out, "ranking.txt"),
            "; ".join("%s: %s" % (x["lock"], x["error"][:120]) for x in failures[:3])))
        return 1
    return 0
