# SPDX-License-Identifier: MIT
"""clof run -- run a program over a clof lock through the preload library
(docs/workflow.md, docs/preload.md).

    clof run [--select DIR [--force] | --lock NAME] [--stats] [--preload LIB]
             [--topology FILE | --emulate SHAPE] [--dry-run] -- PROGRAM [ARGS...]

--select DIR   the lock `clof select` picked into DIR: DIR/libclof-best.so when
               it was built, else libclof-preload.so with DIR/clof-best.env
               (CLOF_LOCK and the hierarchy the selection used).
               Default: the newest select-*/ under RESULTS ($CLOF_RESULTS, else
               BUILD/results, else ./clof-results).
--lock NAME    any lock of libclof-preload.so, spelled any way the lock
               grammar allows (docs/locks.md, `clof locks`): mcs, hmcs, cna,
               c-bo-mcs, tkt-mcs-clh (= clof:tkt-mcs-clh), cr:mcs, glibc ...
--stats        CLOF_STATS=1: the library prints its statistics at exit.
--dry-run      print the environment and command instead of running it.
--force        --select: run even on a machine whose cpus or hierarchy differ
               from the selection's (refused otherwise, with the difference).

A --select folder whose verdict was "keep glibc's locks" runs the program
unchanged (no preload library), and says so.  A folder of a selection over
an emulated or simulated machine (a demonstration) has no artifact and is
refused.

The program's exit status is clof run's.  A lock name the library does not
know is refused before the program starts, with the library's list of the
known ones.
"""

import argparse
import functools
import glob
import json
import os
import shlex
import subprocess
import sys

import clof_common

CMD = "run"
die = functools.partial(clof_common.die, CMD)  # die(msg[, code]): `clof run: msg`, exit 2


def add_arguments(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--select", metavar="DIR",
                   help="a clof select results folder (default: the newest select-* of the results folder)")
    g.add_argument("--lock", metavar="NAME", help="a lock of libclof-preload.so (CLOF_LOCK)")
    p.add_argument("--stats", action="store_true", help="CLOF_STATS=1 (statistics at exit)")
    p.add_argument("--preload", metavar="LIB", help="the preload library (default: the build's "
                                                     "libclof-preload.so)")
    p.add_argument("--dry-run", action="store_true", help="print what would run")
    p.add_argument("--force", action="store_true",
                   help="--select: run even when this machine's cpus or hierarchy differ from "
                        "the selection's")
    p.add_argument("--topology", metavar="FILE", help="--lock: the hierarchy file (CLOF_TOPOLOGY)")
    p.add_argument("--emulate", metavar="SHAPE", help="--lock: an emulated machine (CLOF_EMULATE)")
    p.epilog = ("example: clof run --lock tkt-mcs --stats -- ./my_server   (the same as "
                "CLOF_LOCK=tkt-mcs CLOF_STATS=1 LD_PRELOAD=.../libclof-preload.so ./my_server)")
    p.usage = ("clof run [--select DIR [--force] | --lock NAME] [--stats] [--preload LIB] "
               "[--topology FILE | --emulate SHAPE] [--dry-run] -- PROGRAM [ARGS...]")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="PROGRAM [ARGS...]",
                   help="the program and its arguments (after --)")


def preload_lib(ctx, given):
    return clof_common.find_preload_lib(CMD, ctx, given)


def newest_select(ctx):
    res = ctx.results_dir()
    dirs = [d for d in glob.glob(os.path.join(res, "select-*"))
            if os.path.isfile(os.path.join(d, "ranking.json"))]
    if not dirs:
        die("no lock: give --lock NAME or --select DIR (no select-*/ with a ranking "
            "under %s; `clof select` makes one)" % res)
    return max(dirs, key=os.path.getmtime)


def read_env_file(path):
    env = {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "=" not in line:
                die("%s:%d: expected NAME=VALUE" % (path, i))
            k, v = line.split("=", 1)
            env[k.strip()] = v.strip()
    return env


def machine_differs(ctx, d):
    """the differences between this machine and the one DIR's selection
    ran on (its params.json): cpus, cpu model, hierarchy levels; [] when
    none (or when DIR has no params.json: an older folder)"""
    import clof_select_common as sc
    try:
        with open(os.path.join(d, "params.json")) as f:
            params = json.load(f)
    except (OSError, ValueError):
        return []
    out = []
    then, now = params.get("machine", {}), sc.machine_info()
    if then.get("cpus_online") != now["cpus_online"]:
        out.append("%s cpus there, %s here" % (then.get("cpus_online"), now["cpus_online"]))
    if then.get("cpu_model") != now["cpu_model"]:
        out.append("cpu '%s' there, '%s' here" % (then.get("cpu_model"), now["cpu_model"]))
    hi = params.get("hierarchy", {})
    if hi.get("source") == "sysfs" and hi.get("levels_available"):
        a = argparse.Namespace(topology=None, emulate=None, sysfs=None)
        h = clof_common.load_hierarchy(ctx, a, all_levels=False, cmd=CMD)
        kinds = [lv["kind"] for lv in h["levels"]]
        if kinds != hi["levels_available"]:
            out.append("hierarchy levels %s there, %s here (%s %s)"
                       % (",".join(hi["levels_available"]), ",".join(kinds), h["source"],
                          h["origin"]))
    return out


def demo_of(d):
    """why DIR's selection has no artifact for a real program (emulated or
    simulated machine), or None"""
    try:
        with open(os.path.join(d, "params.json")) as f:
            params = json.load(f)
    except (OSError, ValueError):
        return None
    if params.get("simulate"):
        return "simulated machine (%s)" % params["simulate"]
    if params.get("hierarchy", {}).get("emulated"):
        return "emulated machine (%s)" % params["hierarchy"].get("origin")
    return None


def check_lock(lib, env):
    """run `true` under the library: it names a lock it does not know on
    stderr (and would run the program on glibc); refuse such a name"""
    e = dict(os.environ)
    e.update(env)
    e["LD_PRELOAD"] = lib
    r = subprocess.run(["true"], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    msg = r.stderr.strip()
    if msg and ("unknown lock" in msg or "not yet available" in msg or "not a composition" in msg
                or "did not load" in msg or "running on glibc" in msg):
        msg = msg.replace("running on glibc's pthread mutexes: ", "")
        die(msg.replace("clof-preload: ", "the preload library says: ", 1))


def main(args, ctx):
    prog = list(args.program)
    if prog and prog[0] == "--":
        prog = prog[1:]
    if not prog:
        die("no program: clof run [options] -- PROGRAM [ARGS]")
    env = {}
    what = ""
    if args.lock:
        lib = preload_lib(ctx, args.preload)
        name = clof_common.lock_name(CMD, ctx, args.lock)
        if name == "pthread":
            name = "glibc"
        env["CLOF_LOCK"] = name
        clof_common.check_file(CMD, "--topology", args.topology)
        if args.topology:
            env["CLOF_TOPOLOGY"] = os.path.abspath(args.topology)
        if args.emulate:
            env["CLOF_EMULATE"] = args.emulate
        what = "lock %s" % name
    else:
        if args.topology or args.emulate:
            die("--topology/--emulate go with --lock; a --select folder has its own hierarchy")
        d = args.select or newest_select(ctx)
        if not os.path.isfile(os.path.join(d, "ranking.json")):
            die("--select %s: not a clof select results folder (no ranking.json)" % d)
        so = os.path.join(d, "libclof-best.so")
        envf = os.path.join(d, "clof-best.env")
        demo = demo_of(d)
        if demo:
            die("--select %s: that selection ran on an %s, a demonstration: it has no "
                "artifact for a real program; run `clof select` without --emulate/--simulate"
                % (d, demo))
        diff = machine_differs(ctx, d)
        if diff and not args.force:
            die("--select %s: this machine differs from the selection's (%s); its lock was "
                "measured there: run `clof select` here, or --force" % (d, "; ".join(diff)))
        if diff:
            sys.stderr.write("clof run: --force: this machine differs from the selection's "
                             "(%s)\n" % "; ".join(diff))
        keep = os.path.isfile(envf) and not os.path.isfile(so) and \
            read_env_file(envf).get("CLOF_LOCK") == "glibc"
        if os.path.isfile(envf) and "CLOF_EMULATE" in read_env_file(envf) and not args.force:
            die("%s sets CLOF_EMULATE: an emulated hierarchy is not for a real program (an "
                "older clof select wrote it); run `clof select` again, or --force" % envf)
        if keep:
            with open(envf) as f:
                why = next((l[1:].strip() for l in f if l.startswith("# verdict")), "")
            sys.stderr.write("clof run: %s: %s; running %s unchanged\n"
                             % (d, why or "keep glibc's locks", prog[0]))
            sys.stderr.flush()
            if args.dry_run:
                sys.stdout.write(" ".join(map(shlex.quote, prog)) + "\n")
                return 0
            try:
                os.execvp(prog[0], prog)
            except OSError as e:
                die("%s: %s" % (prog[0], e.strerror))
        if os.path.isfile(so):
            lib = os.path.abspath(so)
            what = "%s (libclof-best.so)" % d
        elif os.path.isfile(envf):
            lib = preload_lib(ctx, args.preload)
            env.update(read_env_file(envf))
            what = "%s: %s through libclof-preload.so" % (d, env.get("CLOF_LOCK"))
        else:
            die("--select %s: no libclof-best.so and no clof-best.env (was it run with "
                "--no-artifacts?)" % d)
    if args.stats:
        env["CLOF_STATS"] = "1"
    if not args.lock or env.get("CLOF_LOCK") != "glibc":
        check_lock(lib, env)
    env["LD_PRELOAD"] = lib
    if args.dry_run:
        sys.stdout.write(" ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(env.items())) +
                         " " + " ".join(map(shlex.quote, prog)) + "\n")
        return 0
    sys.stderr.write("clof run: %s\n" % what)
    sys.stderr.flush()
    full = dict(os.environ)
    full.update(env)
    try:
        os.execvpe(prog[0], prog, full)
    except OSError as e:
        die("%s: %s" % (prog[0], e.strerror))
    return 2
