# SPDX-License-Identifier: MIT
"""clof run -- run a program over a clof lock through the preload library
(docs/workflow.md, docs/preload.md).

    clof run [--select DIR | --lock NAME] [--stats] [--preload LIB]
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

The program's exit status is clof run's.  A lock name the library does not
know is refused before the program starts, with the library's list of the
known ones.
"""

import argparse
import glob
import os
import shlex
import subprocess
import sys

import clof_common

CMD = "run"


def add_arguments(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--select", metavar="DIR",
                   help="a clof select results folder (default: the newest select-* of the results folder)")
    g.add_argument("--lock", metavar="NAME", help="a lock of libclof-preload.so (CLOF_LOCK)")
    p.add_argument("--stats", action="store_true", help="CLOF_STATS=1 (statistics at exit)")
    p.add_argument("--preload", metavar="LIB", help="the preload library (default: the build's "
                                                     "libclof-preload.so)")
    p.add_argument("--dry-run", action="store_true", help="print what would run")
    p.add_argument("--topology", metavar="FILE", help="--lock: the hierarchy file (CLOF_TOPOLOGY)")
    p.add_argument("--emulate", metavar="SHAPE", help="--lock: an emulated machine (CLOF_EMULATE)")
    p.epilog = ("example: clof run --lock tkt-mcs --stats -- ./my_server   (the same as "
                "CLOF_LOCK=tkt-mcs CLOF_STATS=1 LD_PRELOAD=.../libclof-preload.so ./my_server)")
    p.usage = ("clof run [--select DIR | --lock NAME] [--stats] [--preload LIB] "
               "[--topology FILE | --emulate SHAPE] [--dry-run] -- PROGRAM [ARGS...]")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="PROGRAM [ARGS...]",
                   help="the program and its arguments (after --)")


def die(msg):
    clof_common.die(CMD, msg, 2)


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
