#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clof profile` end to end (tests/profile/CMakeLists.txt).

    test_profile.py BINDIR PL_PROFILE_PROG [PL_LEVELDB_READRANDOM [PL_PROFILE_WAITS]]

Checks behaviour only, never timing: the counts the profile reports are
exact (pl_profile_prog.c says how many acquisitions each lock gets), the
hot lock ranks first and its waits are named hot_path (the program's
function), the program's output and exit status pass through, SIGINT
still writes the profile and ends `clof profile` by SIGINT, and a real
program's own result check passes under the profile.  Under glibc's own
mutexes, every acquisition that waits is counted and timed, for each mutex
type (pl_profile_waits.c: exact counts, each wait longer than a bound the
program makes sure of).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

BINDIR, PROG = sys.argv[1], sys.argv[2]
LEVELDB = sys.argv[3] if len(sys.argv) > 3 else ""
WAITS = sys.argv[4] if len(sys.argv) > 4 else ""
CLOF = os.path.join(BINDIR, "clof")
THREADS, ROUNDS = 4, 5000
failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed.append(what)


def profile(opts, args, tmp, name, prog=PROG):
    js = os.path.join(tmp, name + ".json")
    r = subprocess.run([CLOF, "profile", "--json", js] + opts + ["--", prog] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=100)
    rep = None
    if os.path.isfile(js):
        with open(js) as f:
            rep = json.load(f)
    return r, rep


def by_name(rep, name):
    return next((l for l in rep["locks"] if l.get("name") == name), None)


def check_counts(rep, label):
    hot, cold = by_name(rep, "hot"), by_name(rep, "cold")
    check(hot is not None and cold is not None, "%s: the locks are named hot and cold" % label)
    if hot is None or cold is None:
        return
    mutexes = [l for l in rep["locks"] if l["kind"] == "mutex"]
    check(mutexes[0]["name"] == "hot", "%s: the hot lock ranks first (by wait): %s"
          % (label, [m["name"] for m in mutexes]))
    check(hot["acquisitions"] == THREADS * ROUNDS + 2,
          "%s: hot acquisitions exact (%d)" % (label, hot["acquisitions"]))
    check(cold["acquisitions"] == THREADS * ((ROUNDS + 999) // 1000),
          "%s: cold acquisitions exact (%d)" % (label, cold["acquisitions"]))
    check(hot["contended"] >= 1 and hot["wait_ns"] > 0, "%s: the hot lock waited" % label)
    fns = [s["function"] for s in hot["sites"]]
    check("hot_path" in fns, "%s: its waits are named hot_path: %s" % (label, fns))
    check(hot["hold_samples"] >= 1 and hot["hold_avg_ns"] > 0, "%s: hold times sampled" % label)
    conds = [l for l in rep["locks"] if l["kind"] == "cond"]
    check(len(conds) == 1, "%s: one condition variable" % label)
    # the rwlock (pl_profile_prog.c: its exact counts and its sure wait)
    table = by_name(rep, "table")
    check(table is not None and table["kind"] == "rwlock", "%s: the rwlock named table" % label)
    if table is None:
        return
    reads = THREADS * ROUNDS + 1
    writes = THREADS * ((ROUNDS + 99) // 100 + 1) + 1
    check(table["read_acquisitions"] == reads and table["write_acquisitions"] == writes and
          table["acquisitions"] == reads + writes,
          "%s: rwlock reads %d (want %d), writes %d (want %d)"
          % (label, table["read_acquisitions"], reads, table["write_acquisitions"], writes))
    check(table["contended"] >= 1 and table["wait_ns"] > 0, "%s: the rwlock waited" % label)
    fns = [s["function"] for s in table["sites"]]
    check("read_path" in fns, "%s: its waits name read_path: %s" % (label, fns))
    check(table["timeouts"] == 0, "%s: no timed write timed out" % label)


with tempfile.TemporaryDirectory() as tmp:
    # 1. glibc's mutexes: status 3 and the output pass through
    args = [str(THREADS), str(ROUNDS)]
    r, rep = profile(["--html", os.path.join(tmp, "r.html"), "--interval", "0.005"],
                     args + ["3"], tmp, "glibc")
    check(r.returncode == 3, "exit status 3 passes through (got %d)" % r.returncode)
    check(r.stdout.startswith("sum=") and r.stdout.endswith(" ok\n") and r.stdout.count("\n") == 1,
          "the program's output passes through untouched: %r" % r.stdout)
    check("hot_path" in r.stderr and "clof profile:" in r.stderr, "the text report on stderr")
    check(rep is not None, "--json written")
    if rep:
        check(rep["lock"] == "glibc" and rep["exit"] == 3, "JSON: lock glibc, exit 3")
        check_counts(rep, "glibc")
        check(isinstance(rep["timeline"], list), "JSON: a timeline list (--interval)")
    with open(os.path.join(tmp, "r.html")) as f:
        page = f.read()
    check("<svg" in page and "hot" in page, "--html: a page with its charts")

    # 2. under a clof lock
    r, rep = profile(["--lock", "mcs"], args, tmp, "mcs")
    check(r.returncode == 0 and rep is not None and rep["lock"] == "mcs",
          "--lock mcs runs and reports lock mcs")
    if rep:
        check_counts(rep, "mcs")

    # 2b. under a clof rwlock (--rwlock), and an unknown one refused
    for rwl in ("rw:mcs", "bravo:rw:c-bo-mcs"):
        r, rep = profile(["--rwlock", rwl], args, tmp, "rw-" + rwl.replace(":", "_"))
        check(r.returncode == 0 and rep is not None and rep.get("rwlock") == rwl,
              "--rwlock %s runs and reports rwlock %s (got %s)"
              % (rwl, rwl, rep.get("rwlock") if rep else None))
        if rep:
            check_counts(rep, rwl)
    r = subprocess.run([CLOF, "profile", "--rwlock", "nosuchrw", "--", PROG], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "unknown lock 'nosuchrw'" in r.stderr and "clof locks" in r.stderr,
          "an unknown rwlock says where to see the names: %s" % r.stderr.strip()[-200:])
    r = subprocess.run([CLOF, "profile", "--rwlock", "rw-centrl", "--", PROG], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "did you mean rw-central" in r.stderr,
          "a misspelt rwlock: the closest name: %s" % r.stderr.strip()[-200:])

    # 3. SIGINT: the profile is written, clof profile ends by SIGINT
    r, rep = profile([], args + ["0", "2"], tmp, "sigint")
    check(r.returncode == -signal.SIGINT, "killed by SIGINT passes through (got %d)" % r.returncode)
    check(rep is not None and rep["ended_by"] == "SIGINT", "the profile written on SIGINT")
    if rep:
        check_counts(rep, "SIGINT")

    # 4. --compare with the program's own figure
    r, rep = profile(["--compare", "mcs", "--metric", r"sum=(\d+)"], args, tmp, "compare")
    check(r.returncode == 0 and rep is not None and len(rep.get("compare", [])) == 2,
          "--compare glibc,mcs: two rows")
    if rep and len(rep.get("compare", [])) == 2:
        figs = [c["figure"] for c in rep["compare"]]
        check(figs[0] is not None and figs[0] == figs[1] and figs[0] > 0,
              "--metric: the same sum under both locks: %s" % figs)
        check(r.stdout == "", "--compare: the program's output is not shown")

    # 4b. --compare select:DIR: the locks a `clof select` folder picked
    sel = os.path.join(tmp, "select-x")
    os.makedirs(sel)
    with open(os.path.join(sel, "ranking.json"), "w") as f:
        json.dump({"hc_best": "tkt-mcs", "lc_best": "mcs"}, f)
    with open(os.path.join(sel, "clof-best.env"), "w") as f:
        f.write("CLOF_LOCK=clof:tkt-mcs\nCLOF_EMULATE=numa:2,core:2\n")
    r, rep = profile(["--compare", "select:" + sel], args, tmp, "select")
    check(r.returncode == 0 and rep is not None and
          [c["lock"] for c in rep.get("compare", [])] == ["glibc", "tkt-mcs", "mcs"],
          "--compare select:DIR runs glibc and the folder's HC-best and LC-best locks")

    # 5. bad input gets a clear error
    r = subprocess.run([CLOF, "profile", "--lock", "nosuchlock", "--", PROG], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "unknown lock 'nosuchlock'" in r.stderr and "clof locks" in r.stderr,
          "an unknown lock: one line that says where to see the names: %s" % r.stderr)

    # 6. a real program checks its own results under the profile
    if LEVELDB and os.path.isfile(LEVELDB):
        js = os.path.join(tmp, "leveldb.json")
        r = subprocess.run([CLOF, "profile", "--json", js, "--", LEVELDB, "--db",
                            os.path.join(tmp, "db"), "--keys", "20000", "--threads", "2",
                            "--duration", "1", "--label", "profile"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=100)
        check(r.returncode == 0 and '"errors":0' in r.stdout,
              "LevelDB readrandom: every value right under the profile: %s" % r.stdout.strip()[-200:])
        rep = json.load(open(js)) if os.path.isfile(js) else None
        check(rep is not None and rep["locks"] and rep["locks"][0]["acquisitions"] > 1000,
              "LevelDB: its locks profiled")
        if rep:
            fns = " ".join(s["function"] + (l["first_used_at"] or {}).get("function", "")
                           for l in rep["locks"] for s in l["sites"] + [l["first_used_at"] or
                                                                         {"function": ""}])
            check("leveldb" in fns, "LevelDB: call sites named with LevelDB's functions")
    else:
        print("skip LevelDB (pl_leveldb_readrandom not built: scripts/deps.sh)")

    # 7. glibc's mutexes: the uncontended path goes straight into glibc's
    # lock when the lock word says free; every acquisition that waits must
    # still be counted and timed, for every type (pl_profile_waits.c)
    if WAITS:
        R = 5
        r, rep = profile([], [str(R)], tmp, "waits", prog=WAITS)
        ok = r.returncode == 0 and r.stdout == "waits ok\n"
        check(ok, "pl_profile_waits runs under the profile: %r%s"
              % (r.stdout, "" if ok else " " + r.stderr.strip()[-300:]))
        check(rep is not None and rep["lock"] == "glibc", "pl_profile_waits: profiled under glibc")
        want = {"w_normal": 3 * R, "w_adaptive": 2 * R, "w_recursive": 3 * R,
                "w_errorcheck": 2 * R, "w_timed": 2 * R}
        for name, acq in sorted(want.items()):
            l = by_name(rep, name) if rep else None
            check(l is not None, "pl_profile_waits: the lock %s reported" % name)
            if l is None:
                continue
            check(l["acquisitions"] == acq and l["contended"] == R,
                  "%s: %d acquisitions (want %d), %d contended (want %d)"
                  % (name, l["acquisitions"], acq, l["contended"], R))
            # each wait outlasts main's 2 ms sleep after it saw the waiter asleep
            check(l["wait_ns"] >= R * 2000000,
                  "%s: every wait timed: %d ns in all (want >= %d)" % (name, l["wait_ns"], R * 2000000))
            fns = [s["function"] for s in l["sites"]]
            check(fns == ["waiter_lock"], "%s: the waits named waiter_lock: %s" % (name, fns))
        l = by_name(rep, "w_normal") if rep else None
        if l is not None:
            check(l["trylock_busy"] == R, "w_normal: %d busy trylocks (want %d)" % (l["trylock_busy"], R))
    else:
        print("skip pl_profile_waits (not given)")

if failed:
    print("%d checks failed" % len(failed))
    sys.exit(1)
print("all checks passed")
