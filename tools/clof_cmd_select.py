# SPDX-License-Identifier: MIT
"""clof select -- the scripted benchmark and the selection of the best lock
(CLoF paper section 4.3 and Fig. 5; docs/workflow.md).

    clof select [--out DIR] [--locks tkt,mcs,clh,hem] [--levels L1,L2,..]
                [--threads 1,2,4,8] [--duration S] [--runs R]
                [--workload bench|leveldb] [--baselines LIST]
                [--weights W1,W2,..] [--normalize best|none] [--pick lc|hc]
                [--cs-lines K] [--non-cs NS] [--placement packed|spread|linear]
                [--topology FILE | --emulate SHAPE | --simulate PROFILE] [--sysfs ROOT]
                [--seed N] [--no-report] [--no-artifacts] [--quiet]
    clof select --rw [--read-percent P] [--rw-pref PREF] [--rw-locks LIST] ...
                (reader-writer locks: tools/clof_select_rw.py)

1. The hierarchy: this machine's (sysfs), a file (--topology) or an
   emulated machine (--emulate).  When the machine shows one level only
   (no NUMA, one cache: this 2-vCPU VM) the candidates are the basic locks
   over that one level (and their cr: versions, asl: where the cpus differ),
   measured on the real cpus.  An emulated or simulated machine is a
   demonstration: no artifact (issue 38).
2. The levels: --levels (default: every level the hierarchy has, at most
   three below system); the system level is always the last.  DIR/hierarchy.topo
   gets exactly these levels, so every lock of the run (the compositions and
   HMCS) has the same ones.
3. The candidates: every composition of the basic locks over the M levels
   (N^M), as compiled into clof-bench (tools/gen_compositions.py), plus the
   baselines (MCS, HMCS over the same levels, CNA, C-BO-MCS, glibc).
4. The runs: runs x threads x locks, interleaved (every lock once per round,
   in a seeded random order), each one clof-bench process
   (or the LevelDB driver under the preload library); progress and ETA on
   stderr; every result appended to DIR/results.jsonl as it comes.
   Oversubscription (issue 19): the runs also cover one thread count above
   the cpus the runs may use, --oversub (default 2 x those cpus: the
   process's cpu affinity natively, the profile's cpus when simulated),
   added to the thread counts unless already there.  Concurrency
   restriction: the `cr:` variant of every candidate that clof-bench has
   (cr:tkt-mcs, ...) is a candidate too.
5. The ranking (clof_rank.py): HC-best, LC-best and worst, the weights
   printed; DIR/ranking.json and DIR/ranking.txt.  The ranking's weights
   cover the --threads counts (an added oversubscribed count does not
   weigh in); then no lock that collapses at the oversubscribed count
   (below 0.5x the best lock there, clof_rank.oversub_guard) is picked
   while another candidate holds, and the output says when it replaced one
   (or that every candidate collapses).
6. The verdict (clof_rank.verdict), the first line of the output, of
   ranking.txt and of the report: glibc's mutex is ranked like every
   candidate on this machine's cpus; "use LOCK" only when the interval of
   its per-round ratios to glibc clears 1, else "keep glibc's locks" and why.
7. The artifacts, for a "use" verdict on this machine's cpus: DIR/clof_best.h
   and DIR/libclof-best.so for the --pick policy's lock (LC by default, as
   the paper's section 5.3 uses); for "keep glibc", clof-best.env with
   CLOF_LOCK=glibc and the verdict; the report (clof report DIR) unless
   --no-report.  --workload cmd: tools/clof_select_program.py.
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import types

import clof_common
import clof_rank
import clof_select_best as best
import clof_select_program
import clof_select_rw
from clof_select_common import (  # noqa: F401 (also this module's names, as before)
    DEFAULT_EMULATE, MAX_COMPOSITION_LEVELS, Progress, choose_hierarchy,
    choose_levels,
    default_threads, demo_reason, die, hetero, exit_status, fmt_s, hierarchy_file, loadavg,
    hierarchy_flags, machine_info, out_dir,
    oversub_threads, parse_part_list, parse_threads, preflight, run_bench, run_rounds, sim_model_error_text,
    write_json, write_ranking)

DEFAULT_LOCKS = "tkt,mcs,clh,hem"
DEFAULT_BASELINES = "mcs,hmcs,cna,c-bo-mcs,pthread,glibc-adaptive"

CMD = "select"


def add_arguments(p):
    p.add_argument("--out", metavar="DIR",
                   help="results folder (default: RESULTS/select-YYYYmmdd-HHMMSS, RESULTS being "
                        "$CLOF_RESULTS, else BUILD/results, else ./clof-results)")
    p.add_argument("--locks", default=DEFAULT_LOCKS, metavar="LIST",
                   help="basic locks to compose (default %s; hem = Hemlock with the "
                        "CTR optimisation on x86)" % DEFAULT_LOCKS)
    p.add_argument("--levels", metavar="LIST",
                   help="hierarchy levels to use, e.g. cache,numa (system is always added; "
                        "default: all, at most %d below system)" % (MAX_COMPOSITION_LEVELS - 1))
    p.add_argument("--threads", metavar="LIST",
                   help="contention levels (thread counts), e.g. 1,2,4,8 "
                        "(default: powers of two up to the hierarchy's cpus)")
    p.add_argument("--oversub", metavar="N|none",
                   help="thread count above the cpus measured too (default: 2 x the cpus the "
                        "runs may use; 'none': no oversubscribed count)")
    p.add_argument("--duration", type=float, default=0.25, metavar="S",
                   help="seconds per run (default 0.25)")
    p.add_argument("--runs", type=int, default=5, metavar="R",
                   help="runs of every lock and thread count, interleaved; the median counts, "
                        "and 5 or more give the verdict's 90%% interval against glibc (default 5)")
    p.add_argument("--workload", choices=("bench", "leveldb", "cmd"), default="bench",
                   help="clof-bench (default), the LevelDB readrandom driver under "
                        "the preload library (2- and 3-level compositions), or cmd: "
                        "the program after -- (docs/workflow.md)")
    p.add_argument("--baselines", default=DEFAULT_BASELINES, metavar="LIST",
                   help="other locks run next to the compositions (default %s; "
                        "'none' for none)" % DEFAULT_BASELINES)
    p.add_argument("--weights", metavar="LIST",
                   help="base weights, one per thread count (HC uses them, LC their "
                        "inverses; default: the thread counts)")
    p.add_argument("--normalize", choices=("best", "none"), default="best",
                   help="average throughput relative to the best lock per thread count "
                        "(default) or raw ops/s")
    p.add_argument("--pick", choices=("lc", "hc"), default="lc",
                   help="which policy's lock becomes the artifacts (default lc)")
    p.add_argument("--cs-lines", type=int, default=2, metavar="K",
                   help="clof-bench: shared cache lines in the critical section (default 2)")
    p.add_argument("--non-cs", type=float, default=100, metavar="NS",
                   help="clof-bench: mean non-critical work in ns (default 100)")
    p.add_argument("--placement", choices=("packed", "spread", "linear"), default="packed",
                   help="emulated hierarchies: virtual cpus of the threads (default packed)")
    p.add_argument("--keys", type=int, default=20000, metavar="N",
                   help="leveldb: keys filled before each run (default 20000)")
    p.add_argument("--simulate", metavar="PROFILE",
                   help="pass --simulate PROFILE to clof-bench (simulated machine)")
    p.add_argument("--seed", type=int, default=1, help="seed of the run order (default 1)")
    p.add_argument("--no-report", action="store_true", help="do not write the report")
    p.add_argument("--no-heatmap", action="store_true",
                   help="do not measure this machine's handover heatmap for the report")
    p.add_argument("--no-artifacts", action="store_true",
                   help="do not write clof_best.h / libclof-best.so")
    p.add_argument("--no-preload-lib", action="store_true",
                   help="write clof_best.h but do not build libclof-best.so (seconds when the "
                        "build tree is up to date, else it compiles the preload library)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    clof_common.add_topology_flags(p)
    c = p.add_argument_group("your program as the benchmark (clof select --workload cmd "
                             "-- PROGRAM ARGS)")
    c.add_argument("--metric", metavar="REGEX",
                   help="cmd: the program's figure, the first group of REGEX in its output "
                        "(default: its run time)")
    c.add_argument("--lower-is-better", action="store_true",
                   help="cmd: a lower --metric figure is better (a latency)")
    c.add_argument("--repeat", type=int, default=5, metavar="N",
                   help="cmd: interleaved rounds, every candidate once per round (default 5)")
    c.add_argument("--timeout", type=float, metavar="S",
                   help="cmd: seconds a run may take before it is killed and counts as failed")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="PROGRAM [ARGS...]",
                   help="--workload cmd: the program and its arguments (after --)")
    p.epilog = ("example: clof select --threads 1,2,4 --duration 0.25 --out sel   "
                "(then: clof run --select sel -- PROGRAM)")
    # reader-writer locks: tools/clof_select_rw.py
    g = p.add_argument_group("reader-writer locks (clof select --rw)")
    g.add_argument("--rw", action="store_true",
                   help="rank the RW locks (clof-bench --list-rw) instead of the mutexes")
    g.add_argument("--read-percent", type=float, default=90, metavar="P",
                   help="--rw: share of read acquisitions in %% (default 90)")
    g.add_argument("--rw-pref", choices=("reader", "writer", "neutral"), default="reader",
                   help="--rw: the locks' preference (default reader, glibc's)")
    g.add_argument("--rw-locks", metavar="LIST",
                   help="--rw: the RW locks to rank (default: every one)")


# ---- arguments ------------------------------------------------------------------

def bench_list(ctx):
    r = subprocess.run([ctx.helper("clof-bench"), "--list"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("clof-bench --list failed: %s" % r.stderr.strip())
    return r.stdout.split()


def compositions(abbrs, m):
    """every composition of abbrs over m levels, lowest level first"""
    import itertools
    if m == 1:
        return [best.abbr_to_lock()[a] for a in abbrs]
    return ["-".join(c) for c in itertools.product(abbrs, repeat=m)]


# ---- one run (clof-bench's: clof_select_common.run_bench) ----------------------------

def preload_lib(ctx):
    for d in (os.path.join(ctx.bindir, "..", "lib"), os.path.join(ctx.bindir, "..", "lib64")):
        p = os.path.join(d, "libclof-preload.so")
        if os.path.isfile(p):
            return os.path.abspath(p)
    return None


def preload_name(lock):
    """the CLOF_LOCK name of a clof-bench lock name"""
    if lock == "pthread":
        return "glibc"
    if lock.startswith("cr:"):
        return "cr:" + preload_name(lock[3:])
    if "-" in lock and all(p in best.abbr_to_lock() for p in lock.split("-")):
        return "clof:" + lock
    return lock


def run_leveldb(ctx, args, lock, threads, env_topo, label, seed):
    drv = os.path.join(ctx.bindir, "pl_leveldb_readrandom")
    lib = preload_lib(ctx)
    tmp = tempfile.mkdtemp(prefix="clof-select-")
    env = dict(os.environ)
    env.update(env_topo)
    env["LD_PRELOAD"] = lib
    env["CLOF_LOCK"] = preload_name(lock)
    argv = [drv, "--db", os.path.join(tmp, "db"), "--keys", str(args.keys),
            "--threads", str(threads), "--duration", str(args.duration), "--label", label]
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=120 + 20 * args.duration)
    except subprocess.TimeoutExpired:
        return None, "timed out (hung?)"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rec = None
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            try:
                rec = json.loads(line)
            except ValueError:
                pass
    if rec is not None:
        rec["driver_lock"] = rec.get("lock")  # what the library says it ran
        rec["lock"] = lock
        rec["preload_lock"] = env["CLOF_LOCK"]
        rec["threads"] = threads
    if r.returncode != 0 or rec is None:
        return rec, "exit %d: %s" % (r.returncode, (r.stderr.strip() or r.stdout.strip())[-300:])
    if rec.get("errors", 0) != 0:
        return rec, "wrong values: %s" % json.dumps(rec)
    if lock != "pthread":
        if rec.get("preloaded") is False:
            return rec, "the preload library was not active"
        # the driver may name a composition with or without its clof: prefix
        # (cr:clof:mcs-mcs, clof:mcs-mcs, mcs-mcs): compare without it
        want = env["CLOF_LOCK"].replace("clof:", "")
        if want not in str(rec.get("driver_lock")).replace("clof:", ""):
            return rec, "ran on %s, not %s" % (rec.get("driver_lock"), env["CLOF_LOCK"])
    return rec, None


# ---- main: check, plan, measure, rank, artifacts, report --------------------------------

def main(args, ctx):
    if args.workload == "cmd":
        return clof_select_program.main(args, ctx)
    if args.program and args.program != ["--"]:
        die("a program (%s) goes with --workload cmd" % " ".join(args.program))
    if args.rw:
        return clof_select_rw.main(args, ctx)
    t_start = time.time()
    check_args(args)
    pl = plan(ctx, args)
    out = out_dir(ctx, args, "select-")
    # the hierarchy file with the chosen levels
    topo_path = os.path.join(out, "hierarchy.topo")
    topo_flags, env_topo, topo_text = hierarchy_flags(ctx, args, pl.h, pl.levels, topo_path)
    if not args.simulate and args.workload == "bench":
        preflight(ctx, topo_flags)
    params = make_params(args, pl)
    say = clof_common.sayer(CMD, args.quiet)
    announce(say, args, pl, out)

    records, failures = measure(ctx, args, pl, out, topo_flags, env_topo)
    params["loadavg_1min_after"] = loadavg()
    params["bench_wall_s"] = round(time.time() - t_start, 1)
    params["failures"] = failures

    rk = rank_records(args, pl, records)
    picked = rk["picked"]
    vd = select_verdict(rk, records, picked, pl.glibc, pl.run_threads, args.pick, pl.demo)
    rk["verdict"] = params["verdict"] = vd
    write_ranking(out, rk, ranking_text(rk, params))

    params["artifacts"] = artifacts(ctx, args, pl, out, params, picked, vd,
                                    topo_path, topo_text, env_topo, say)
    params["wall_s"] = round(time.time() - t_start, 1)
    write_json(os.path.join(out, "params.json"), params)
    rc = report(ctx, args, out, params, t_start, say)
    if rc != 0:
        return rc
    if not args.quiet:
        clof_common.wrote(CMD, sorted(os.path.join(out, f) for f in os.listdir(out)))
    say(vd["line"])
    return exit_status(failures, picked, out)


def check_args(args):
    """the checks of the mutex selection's flags that need nothing measured"""
    if args.duration <= 0:
        die("--duration: must be positive, got %g" % args.duration)
    if args.runs < 1:
        die("--runs: must be at least 1, got %d" % args.runs)


def plan(ctx, args):
    """what the selection measures: the hierarchy and its levels, the thread
    counts, the candidates and the baselines (a namespace)"""
    abbrs = parse_part_list(args.locks)
    if args.simulate and (args.topology or args.emulate):
        die("--simulate takes its hierarchy from the profile: no --topology/--emulate with it")
    if args.simulate and args.workload != "bench":
        die("--simulate runs clof-bench only (not --workload %s)" % args.workload)
    known = bench_list(ctx)
    pl = types.SimpleNamespace(abbrs=abbrs, user_w=None)
    plan_hierarchy(ctx, args, pl)
    plan_threads(args, pl)
    pl.demo = demo_reason(pl.h, args)
    plan_candidates(ctx, args, pl, known)
    if args.workload == "leveldb":
        check_leveldb(ctx, pl.m)
    # glibc competes (issue 38): on this machine's cpus it is ranked like every
    # candidate; on an emulated or simulated machine it stays a baseline (its
    # runs do not see the virtual cpus)
    pl.cands_all = pl.cands + pl.cr_cands
    pl.locks = pl.cands_all + pl.baselines
    pl.glibc = "pthread" if "pthread" in pl.baselines and not pl.demo else None
    # glibc's adaptive mutex competes too: a program could have it without
    # clof, and the preload library gives it to every default mutex
    pl.adaptive = "glibc-adaptive" if "glibc-adaptive" in pl.baselines and not pl.demo else None
    pl.rank_cands = pl.cands_all + [x for x in (pl.glibc, pl.adaptive) if x]
    pl.rank_extra = [b for b in pl.baselines if b not in (pl.glibc, pl.adaptive)]
    pl.total = len(pl.locks) * len(pl.run_threads) * args.runs
    return pl


def plan_hierarchy(ctx, args, pl):
    """pl.h (the hierarchy), pl.note, pl.levels, pl.dropped, pl.m"""
    pl.note = ""
    if args.simulate:
        h = {"source": "simulated", "origin": args.simulate, "emulated": False, "levels": [],
             "ncpus": 0}
        # the profile's hierarchy, from a first tiny run (which also tells
        # whether this clof-bench simulates at all)
        rec = preflight(ctx, ["--simulate", args.simulate])
        topo = rec.get("topology", {})
        h["ncpus"] = topo.get("cpus", 0)
        h["levels"] = [{"kind": k} for k in topo.get("levels", [])]
    else:
        h, pl.note = choose_hierarchy(ctx, args)
    pl.h = h
    pl.levels, pl.dropped = choose_levels(h, args.levels)
    pl.m = len(pl.levels)
    if pl.m > MAX_COMPOSITION_LEVELS:
        die("%d levels, but clof-bench has compositions of at most %d levels"
            % (pl.m, MAX_COMPOSITION_LEVELS))


def plan_threads(args, pl):
    """pl.threads, the oversubscribed count (pl.t_over, pl.added_over over
    pl.run_cpus), pl.run_threads; pl.user_w from --weights"""
    pl.threads = parse_threads(args.threads) if args.threads else \
        default_threads(pl.h["ncpus"] or os.cpu_count() or 1)
    # the oversubscribed count: above the cpus the runs may use
    pl.run_cpus = pl.h["ncpus"] if args.simulate else len(os.sched_getaffinity(0))
    pl.t_over, pl.added_over = oversub_threads(args.oversub, pl.run_cpus, pl.threads)
    pl.run_threads = pl.threads + ([pl.t_over] if pl.added_over else [])
    if args.weights:
        try:
            pl.user_w = clof_rank.base_weights(pl.threads, clof_rank.parse_weights(args.weights))
        except ValueError as e:
            die("--weights: %s" % e)


def plan_candidates(ctx, args, pl, known):
    """pl.cands (the compositions), pl.cr_cands (cr: and asl: ones),
    pl.baselines, pl.one_level_off"""
    m = pl.m
    cands = compositions(pl.abbrs, m)
    missing = [c for c in cands if c not in known]
    # concurrency restriction over the candidates clof-bench has it for
    cr_cands = [c for c in ["cr:" + x for x in cands] if c in known]
    # asymmetric locks where the cpus differ (core types), as clof-bench has them
    if hetero(pl.h):
        cr_cands += [c for c in ["asl:" + x for x in cands] if c in known]
    if missing:
        die("clof-bench has no %s (%d of the %d compositions of %s over %d levels are missing); "
            "it has compositions of the basic locks tkt mcs clh hem over 2..%d levels "
            "(tools/gen_compositions.py)"
            % (", ".join(missing[:6]) + (" ..." if len(missing) > 6 else ""), len(missing),
               len(cands), ",".join(pl.abbrs), m, MAX_COMPOSITION_LEVELS))
    baselines = []
    one_level_off = []
    if args.baselines.strip() != "none":
        for b in args.baselines.split(","):
            b = clof_common.lock_name(CMD, ctx, b)  # the lock grammar (docs/locks.md)
            if b not in known:
                die("--baselines: clof-bench has no lock %s (clof locks lists the names)" % b)
            if b not in cands and b not in baselines:
                baselines.append(b)
        if m == 1 and args.baselines == DEFAULT_BASELINES:
            # hierarchical and cohort locks have nothing to compose over on one level
            one_level_off = [b for b in baselines if b in ("hmcs", "c-bo-mcs")]
            baselines = [b for b in baselines if b not in one_level_off]
    if args.simulate:
        # glibc and Concurrency Kit do not go through the atomics shim
        off = [b for b in baselines if b in ("pthread", "glibc-adaptive") or b.startswith("ck-")]
        baselines = [b for b in baselines if b not in off]
        if off and not args.quiet:
            sys.stderr.write("clof select: %s cannot be simulated (not built on clof's atomics "
                             "shim): left out\n" % ", ".join(off))
    pl.cands, pl.cr_cands, pl.baselines, pl.one_level_off = cands, cr_cands, baselines, one_level_off


def check_leveldb(ctx, m):
    """--workload leveldb: its driver and the preload library are built, m levels fit"""
    if not os.access(os.path.join(ctx.bindir, "pl_leveldb_readrandom"), os.X_OK):
        die("--workload leveldb: %s/pl_leveldb_readrandom is not built (LevelDB missing: "
            "scripts/deps.sh)" % ctx.bindir)
    if preload_lib(ctx) is None:
        die("--workload leveldb: libclof-preload.so not found next to %s" % ctx.bindir)
    if m > 3:
        die("--workload leveldb: the preload library has compositions of 2 and 3 levels; "
            "%d levels were chosen (use --levels)" % m)


def make_params(args, pl):
    """params.json: what was asked and planned (the results are added later)"""
    h = pl.h
    return {
        "command": "clof select " + " ".join(map(shlex.quote, sys.argv[2:])),
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
        "machine": machine_info(),
        "hierarchy": {"source": h["source"], "origin": h["origin"],
                      "emulated": bool(h.get("emulated")), "file": "hierarchy.topo",
                      "levels": pl.levels, "levels_available": [l["kind"] for l in h["levels"]],
                      "levels_dropped": pl.dropped, "note": pl.note},
        "basic_locks": [best.abbr_to_lock()[a] for a in pl.abbrs], "abbreviations": pl.abbrs,
        "compositions": len(pl.cands), "baselines": pl.baselines, "cr_candidates": pl.cr_cands,
        "threads": pl.threads, "duration_s": args.duration, "runs": args.runs,
        "oversub": {"threads": pl.t_over, "cpus": pl.run_cpus, "added": pl.added_over},
        "workload": args.workload, "cs_lines": args.cs_lines, "non_cs_ns": args.non_cs,
        "placement": args.placement if h.get("emulated") or args.simulate else None,
        "seed": args.seed,
        "keys": args.keys if args.workload == "leveldb" else None,
        "simulate": args.simulate,
        "demo": pl.demo, "glibc_competes": bool(pl.glibc),
        "baselines_one_level_off": pl.one_level_off,
        "policy": {"weights": args.weights, "normalize": args.normalize, "pick": args.pick},
        "loadavg_1min_before": loadavg(),
    }


def announce(say, args, pl, out):
    """the lines on stderr before the runs: notes, what runs, where it goes"""
    if pl.note:
        say(pl.note)
    if pl.demo:
        say("no artifact: " + pl.demo)
    if pl.one_level_off:
        say("%s left out: hierarchical locks have one level to compose over here"
            % ", ".join(pl.one_level_off))
    if pl.dropped:
        say("levels %s left out (compositions have at most %d levels); use --levels to choose"
            % (",".join(pl.dropped), MAX_COMPOSITION_LEVELS))
    say("%d %s of %s over %s (%s %s) + %d cr: + %d baselines, threads %s%s, %d runs "
        "of %gs: %d runs -> %s"
        % (len(pl.cands), "basic locks" if pl.m == 1 else "compositions", ",".join(pl.abbrs),
           ",".join(pl.levels), pl.h["source"], pl.h["origin"], len(pl.cr_cands),
           len(pl.baselines), ",".join(map(str, pl.threads)),
           (" + %d (oversubscribed: %d cpus)" % (pl.t_over, pl.run_cpus)) if pl.added_over else
           ("; oversubscribed: %d (%d cpus)" % (pl.t_over, pl.run_cpus)) if pl.t_over else "",
           args.runs, args.duration, pl.total, out))


def measure(ctx, args, pl, out, topo_flags, env_topo):
    """every run (clof_select_common.run_rounds) into out/results.jsonl:
    clof-bench's or LevelDB's; (records, failures)"""
    def run_one(lk, t, label, seed):
        if args.workload == "bench":
            rec, err = run_bench(ctx, args, lk, t, topo_flags, label, seed)
        else:
            rec, err = run_leveldb(ctx, args, lk, t, env_topo, label, seed)
        if rec is not None:
            rec["workload"] = args.workload
        return rec, err
    return run_rounds(os.path.join(out, "results.jsonl"), args.runs, pl.run_threads, pl.locks,
                      args.seed, args.quiet, run_one)


def rank_records(args, pl, records):
    """the ranking (clof_rank) of the runs that did not fail, its pick in rk["picked"]"""
    table = clof_rank.aggregate([x for x in records if "failed" not in x])
    rk = clof_rank.rank(table, pl.threads, pl.rank_cands, user_weights=pl.user_w,
                        normalize=args.normalize, extra=pl.rank_extra)
    over = clof_rank.oversub_guard(rk, table, pl.t_over, pl.run_cpus, pl.rank_cands,
                                   pl.rank_extra)
    if over:
        for p_ in clof_rank.POLICIES:
            note_ = over["policies"].get(p_, {}).get("note")
            if note_:
                sys.stderr.write("clof select: %s-best: %s\n" % (p_.upper(), note_))
    rk["table"] = {lk: {str(t): v for t, v in byt.items()} for lk, byt in table.items()}
    rk["candidates"] = pl.rank_cands
    rk["baselines"] = pl.rank_extra
    rk["pick"] = args.pick
    rk["guards"] = clof_rank.guards(rk)
    rk["picked"] = rk[args.pick + "_best"]
    return rk


def artifacts(ctx, args, pl, out, params, picked, vd, topo_path, topo_text, env_topo, say):
    """clof_best.h, libclof-best.so, clof-best.env: only for this machine's
    cpus, and only a lock that beats glibc's (else an env that keeps glibc's
    locks); what was written, for params.json"""
    arts = {}
    for f_ in ("clof_best.h", "libclof-best.so", "clof-best.env"):
        if os.path.exists(os.path.join(out, f_)):  # never leave an earlier selection's
            os.remove(os.path.join(out, f_))
    demo = pl.demo
    if picked and not args.no_artifacts and not demo and not vd["use"]:
        with open(os.path.join(out, "clof-best.env"), "w") as f:
            f.write("# %s\n# clof run --select %s runs the program unchanged, on glibc's locks\n"
                    "CLOF_LOCK=glibc\n" % (vd["line"], out))
        arts["clof-best.env"] = {"ok": True, "lock": "glibc"}
        arts["note"] = ("no clof_best.h or libclof-best.so: keep glibc's locks (%s)"
                        % vd["reason"])
        say(arts["note"])
    elif picked == "glibc-adaptive" and not args.no_artifacts and not demo:
        # glibc's own mutex wins: no lock of clof's to build, the preload
        # library runs glibc's adaptive mutex behind every default mutex
        with open(os.path.join(out, "clof-best.env"), "w") as f:
            f.write("# %s\n# clof run --select %s runs the program under the preload library, "
                    "every default mutex glibc's adaptive one\nCLOF_LOCK=glibc-adaptive\n"
                    % (vd["line"], out))
        arts["clof-best.env"] = {"ok": True, "lock": "glibc-adaptive"}
        arts["note"] = ("no clof_best.h or libclof-best.so: glibc's adaptive mutex won; "
                        "clof-best.env sets CLOF_LOCK=glibc-adaptive")
        say(arts["note"])
    elif picked and not args.no_artifacts and not demo:
        h, levels = pl.h, pl.levels
        info = {"machine": "%s (%s)" % (params["machine"]["hostname"], params["machine"]["cpu_model"]),
                "origin": "%s %s, levels %s" % (h["source"], h["origin"], ",".join(levels)),
                "emulated": h.get("emulated"), "date": params["date"],
                "command": params["command"]}
        hdr = os.path.join(out, "clof_best.h")
        with open(hdr, "w") as f:
            f.write(best.header_text(picked, levels, topo_text, args.pick, info))
        arts["clof_best.h"] = {"ok": True, "lock": picked, "policy": args.pick}
        so = os.path.join(out, "libclof-best.so")
        if os.path.exists(so):  # never leave an earlier selection's library
            os.remove(so)
        if args.no_preload_lib:
            ok, msg = False, "not built (--no-preload-lib)"
        elif len(levels) > 3:
            ok, msg = False, ("not built: the preload library has compositions of 2 and 3 "
                              "levels, %s has %d" % (picked, len(levels)))
        else:
            if not args.quiet:
                sys.stderr.write("clof select: building libclof-best.so (%s) ...\n" % picked)
            ok, msg = best.build_preload(ctx.pydir, preload_name(picked), topo_path, so,
                                         os.path.join(out, "libclof-best.log"),
                                         build=os.path.dirname(os.path.abspath(ctx.bindir)))
        arts["libclof-best.so"] = {"ok": ok, "message": msg, "lock": picked}
        with open(os.path.join(out, "clof-best.env"), "w") as f:
            f.write("# the selected lock for libclof-preload.so (clof run --select %s)\n" % out)
            f.write("CLOF_LOCK=%s\n" % preload_name(picked))
            for k, v in env_topo.items():
                f.write("%s=%s\n" % (k, v))
        arts["clof-best.env"] = {"ok": True}
        arts["hierarchy.topo"] = {"ok": True}
        say("clof_best.h: %s (%s-best)" % (picked, args.pick.upper()))
        say("libclof-best.so: %s" % msg)
    elif demo and picked:
        arts["note"] = "no artifact: " + demo
    return arts


def report(ctx, args, out, params, t_start, say):
    """the heatmap and the report (clof report) into out, unless --no-report;
    clof report's exit status"""
    if not args.no_report and not args.no_heatmap and not args.simulate:
        heatmap(ctx, args, out)
    if args.no_report:
        return 0
    import clof_cmd_report
    rc = clof_cmd_report.make_report(out, out, quiet=args.quiet)
    if rc != 0:
        return rc
    params["wall_s"] = round(time.time() - t_start, 1)
    write_json(os.path.join(out, "params.json"), params)
    say("report: %s (and report.html)" % os.path.join(out, "report.md"))
    return 0


def select_verdict(rk, records, picked, glibc, run_threads, pick, demo):
    """the verdict (clof_rank.verdict) of the pick against glibc's mutex"""
    why = " (%s-best)" % pick.upper()
    if demo:
        return {"use": False, "winner": picked, "ref": glibc, "per_threads": [],
                "reason": demo, "line": "verdict: no artifact -- " + demo}
    if glibc is None:
        reason = "ranked among clof's locks only: glibc was not measured (--baselines)"
        return {"use": picked is not None, "winner": picked, "ref": None, "per_threads": [],
                "reason": reason, "line": "verdict: use %s%s -- %s" % (picked, why, reason)
                if picked else "verdict: no lock -- no candidate completed its runs"}
    ok = [x for x in records if "failed" not in x]
    return clof_rank.verdict(ok, picked, glibc, run_threads, why_winner=why)


def heatmap(ctx, args, out):
    """this machine's handover heatmap (clof heatmap, quick settings) into
    out/heatmap for the report; a failure only costs the figure"""
    import argparse
    import contextlib
    import io
    import clof_cmd_heatmap
    p = argparse.ArgumentParser()
    clof_cmd_heatmap.add_arguments(p)
    a = p.parse_args(["--out", os.path.join(out, "heatmap"), "--pair-ms", "10", "--slices", "3",
                      "--max-pairs", "500", "--quiet"] +
                     (["--sysfs", args.sysfs] if args.sysfs else []))
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            rc = clof_cmd_heatmap.main(a, ctx)
    except SystemExit as e:
        rc = e.code
    if rc and not args.quiet:
        sys.stderr.write("clof select: the heatmap failed (exit %s); the report goes without it\n"
                         % rc)


def table_lines(rk, th, show=None):
    """the ranking table: the candidates by HC score, each excluded one
    with the guard that excluded it (HC-best and LC-best are then the best
    scores among the rest), then the baselines (scored, not ranked).
    show: the most candidates listed (the marked ones always are)"""
    marks = {}
    for key, tag in (("hc_best", "HC-best"), ("lc_best", "LC-best"), ("worst", "worst")):
        if rk.get(key):
            marks.setdefault(rk[key], []).append(tag)
    guards = rk.get("guards", {})
    w = max([len(x) for x in rk["candidates"] + rk["baselines"]] + [16])
    lines = ["%-*s %7s %7s " % (w, "lock", "HC", "LC") + " ".join("%10s" % ("t=%d" % t) for t in th)
             + "   (Mops/s, median)"]

    def row(lk):
        sc = rk["scores"][lk]
        tp = rk["table"].get(lk, {})
        cells = " ".join("%10s" % ("%.3f" % (tp[str(t)] / 1e6) if tp.get(str(t)) else "-")
                         for t in th)
        notes = marks.get(lk, []) + ([guards[lk]] if lk in guards else [])
        if lk == "pthread":
            notes.append("glibc")
        return ("%-*s %7.3f %7.3f %s  %s" % (w, lk, sc["hc"], sc["lc"], cells,
                                             ", ".join(notes))).rstrip()
    order = sorted(rk["candidates"], key=lambda c: (-rk["scores"][c]["hc"], c))
    shown = [lk for i, lk in enumerate(order)
             if show is None or i < show or lk in marks or lk == "pthread"]
    lines += [row(lk) for lk in shown]
    if len(shown) < len(order):
        lines.append("(%d more candidates in ranking.json)" % (len(order) - len(shown)))
    if rk["baselines"]:
        lines.append("baselines (scored, not ranked):")
        lines += [row(lk) for lk in rk["baselines"]]
    return lines


def ranking_text(rk, params):
    th = rk["threads"]
    hi = params["hierarchy"]
    lines = []
    if rk.get("verdict"):
        lines.append(rk["verdict"]["line"])
    lines.append("clof select: %d %s of %s over %s (%s %s%s), threads %s, %d runs of %gs "
                 "(median), workload %s" % (params["compositions"],
                                            "basic locks" if len(hi["levels"]) == 1
                                            else "compositions", ",".join(params["abbreviations"]),
                                            ",".join(hi["levels"]), hi["source"], hi["origin"],
                                            ", EMULATED" if hi["emulated"] else "",
                                            ",".join(map(str, th)), params["runs"],
                                            params["duration_s"], params["workload"]))
    if params.get("simulate"):
        lines.append("SIMULATED on %s: every figure %s" % (params["simulate"],
                                                          sim_model_error_text()))
    if params.get("glibc_competes"):
        lines.append("glibc's mutex (pthread) is ranked like every candidate")
    lines += clof_rank.weights_text(rk)
    lines.append("load average (1 min) before %s, after %s" % (
        params.get("loadavg_1min_before"), params.get("loadavg_1min_after")))
    lines.append("")
    lines += table_lines(rk, th, show=12)
    if (rk.get("verdict") or {}).get("ref"):
        lines.append("(the verdict's ratios are medians of per-round ratios -- each round runs "
                     "the lock and glibc back to back -- so they can differ from the ratio of "
                     "the medians above when runs swing)")
    over = rk.get("oversub")
    if over:
        lines.append("")
        lines.append("oversubscribed: %d threads on %d cpus; best there %s (%.3f Mops/s); "
                     "collapsing (< %.2fx it): %s"
                     % (over["threads"], over["cpus"], over["best_lock"], over["best"] / 1e6,
                        over["threshold"], " ".join(over["collapsed"]) or "none"))
        for p, tag in (("hc", "HC-best"), ("lc", "LC-best")):
            pol = over["policies"].get(p)
            if pol and pol.get("note"):
                lines.append("%s: %s" % (tag, pol["note"]))
    lines.append("")
    lines.append("HC-best: %s   LC-best: %s   worst: %s" % (rk["hc_best"], rk["lc_best"], rk["worst"]))
    return "\n".join(lines) + "\n"
