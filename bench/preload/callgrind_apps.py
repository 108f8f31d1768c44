#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a lock costs inside a real program, in callgrind instructions.

usage: bench/preload/callgrind_apps.py [--lib FILE] [--programs "kccachetest kcgrasstest"]
           [--threads 8] [--records N] [--locks "hmcs cr:hmcs .."] [--out FILE]

Each program runs once per lock (and once under glibc's own mutexes) under
`valgrind --tool=callgrind`, with the Kyoto Cabinet workload of apps.sh
(`kccachetest wicked -th T -it 1 N/T`, `kcgrasstest wicked ...`) but
fewer records (valgrind runs the threads one at a time, about 50x slower).
For each run it reads from callgrind's output file:

  - the program's instructions (Ir) in all;
  - pthread_mutex_lock calls (the acquisitions);
  - the instructions spent in libclof-preload.so itself (its functions'
    self cost: the lock and unlock paths, their slow paths, the stats and
    the rwlock wrappers), and per acquisition.

Why: in Kyoto Cabinet nearly every acquisition is uncontended (CLOF_STATS
counts 0.05-0.09% contended at T = 8, 16 on this VM), so what a layer such
as cr: adds there is its uncontended instructions, far below what timed
runs of a second resolve (their spread is +-10%).  This counts it.  Under
valgrind the threads are serialised, so the figures are the uncontended
regime: they say nothing about contention.  The programs' own
instructions differ a little between runs (the wicked test draws its
operations at random, e.g. how often CacheDB::clear runs), which is why
the library's share is counted apart.  Deterministic per run otherwise:
no inherited environment but PATH, no address randomisation.

Writes a Markdown table to stdout and the rows to --out (JSON lines,
default BUILD/results/callgrind-apps-<date>.jsonl).
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def parse_callgrind(path, lib):
    """(total Ir, pthread_mutex_lock calls, self Ir of functions in `lib`).
    The program's calls of pthread_mutex_lock reach the library's
    pl_mutex_lock (its definition of the symbol); glibc's are counted only
    where no call reached the library's (glibc's mutexes under CLOF_LOCK=glibc
    are reached through pl_mutex_lock too, and would count twice)."""
    names = {"ob": {}, "fn": {}}
    total = 0
    calls = 0
    glibc_calls = 0  # glibc's own, where the library's were not called
    in_lib = 0
    cur_ob = None
    cfn = None
    pending_call = False  # the next cost line is a call's inclusive cost
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^(ob|fn|cob|cfn|fl|fi|fe|cfi|cfl)=(?:\((\d+)\))?\s*(.*)$", line)
        if m:
            kind, ident, name = m.groups()
            table = "ob" if kind in ("ob", "cob") else "fn" if kind in ("fn", "cfn") else None
            if table and ident is not None:
                if name:
                    names[table][ident] = name
                name = names[table].get(ident, name)
            if kind == "ob":
                cur_ob = name
            elif kind == "cfn":
                cfn = name
            continue
        if line.startswith("calls="):
            n = int(line.split("=", 1)[1].split()[0])
            if cfn == "pl_mutex_lock":  # the library's pthread_mutex_lock
                calls += n
            elif cfn is not None and cfn.startswith("pthread_mutex_lock"):
                glibc_calls += n
            pending_call = True
            continue
        if line.startswith("summary:") or line.startswith("totals:"):
            total = int(line.split(":", 1)[1].split()[0])
            continue
        if line and (line[0].isdigit() or line[0] in "+-*"):
            parts = line.split()
            if len(parts) < 2:
                continue
            if pending_call:  # inclusive cost of a call: not self cost
                pending_call = False
                continue
            if cur_ob is not None and cur_ob.endswith(lib):
                in_lib += int(parts[1])
    return total, calls if calls else glibc_calls, in_lib


def workload(prog, threads, records):
    per = max(1, records // threads)
    return [prog, "wicked", "-th", str(threads), "-it", "1", str(per)]


def main():
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    opt = {"--lib": os.path.join(ROOT, "build", "lib", "libclof-preload.so"),
           "--programs": "kccachetest kcgrasstest", "--threads": "8", "--records": "",
           "--locks": "hmcs cr:hmcs clh cr:clh mcs cr:mcs", "--out": ""}
    i = 0
    while i < len(args):
        if args[i] in opt and i + 1 < len(args):
            opt[args[i]] = args[i + 1]
            i += 2
        else:
            print(f"callgrind_apps.py: unknown argument: {args[i]} (see --help)", file=sys.stderr)
            return 2
    for tool in ["valgrind"] + opt["--programs"].split():
        if shutil.which(tool) is None:
            print(f"callgrind_apps.py: {tool} missing (scripts/deps.sh)", file=sys.stderr)
            return 2
    lib = os.path.abspath(opt["--lib"])
    if not os.path.exists(lib):
        print(f"callgrind_apps.py: {lib}: no such file (build the project first)", file=sys.stderr)
        return 2
    threads = int(opt["--threads"])
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = opt["--out"] or os.path.join(os.path.dirname(os.path.dirname(lib)), "results",
                                       f"callgrind-apps-{stamp}.jsonl")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    locks = ["glibc"] + opt["--locks"].split()
    rows = []
    print(f"- Command: `{' '.join(sys.argv)}`")
    print(f"- Date: {stamp} UTC; {subprocess.run(['valgrind', '--version'], capture_output=True, text=True).stdout.strip()}")
    print("- Under valgrind the threads run one at a time: the uncontended regime.\n")
    print("| program | lock | program Ir (M) | pthread_mutex_lock calls | Ir in libclof-preload.so (M) | per call |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for prog in opt["--programs"].split():
            records = int(opt["--records"]) if opt["--records"] else (200000 if prog == "kccachetest" else 20000)
            for lock in locks:
                f = os.path.join(d, "cg.out")
                # glibc: its mutexes with the library loaded (CLOF_LOCK=glibc)
                env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_PRELOAD": lib,
                       "CLOF_LOCK": lock}
                cmd = ["setarch", "-R", "valgrind", "--tool=callgrind", f"--callgrind-out-file={f}"] + \
                    workload(prog, threads, records)
                r = subprocess.run(cmd, env=env, cwd=d, capture_output=True, text=True)
                if r.returncode != 0 or "ok" not in r.stdout.split():
                    print(f"callgrind_apps.py: {prog} under {lock} failed (rc {r.returncode}):\n"
                          f"{r.stdout[-2000:]}{r.stderr[-2000:]}", file=sys.stderr)
                    return 1
                total, calls, in_lib = parse_callgrind(f, os.path.basename(lib))
                per = in_lib / calls if calls else float("nan")
                row = {"program": prog, "lock": lock, "threads": threads, "records": records,
                       "ir": total, "mutex_lock_calls": calls, "ir_in_library": in_lib,
                       "ir_in_library_per_call": round(per, 2)}
                rows.append(row)
                print(f"| {prog} | {lock} | {total / 1e6:.1f} | {calls} | {in_lib / 1e6:.2f} | {per:.1f} |",
                      flush=True)
    with open(out, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    print(f"\nRows: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
