#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One lock grammar across the tools (docs/locks.md, src/lockname).

Every tool that takes a lock name -- clof bench, clof select, clof run,
clof verify, clof profile, clof asl-profile, clof-asl-bench, the preload
library (CLOF_LOCK, CLOF_RWLOCK) and build-best.sh -- gets each spelling of
a composition, a layer over a composition, HMCS and an RW lock, and must
print the same canonical name: as the lock it ran, or, where the tool does
not have that lock, in its one-line refusal.  Then: the did-you-mean line
(one line, short), the exit codes (0 / 1 / 2) and `clof SUB --help` naming
itself for every subcommand.

    test_lock_names.py BINDIR SRCDIR PART     PART: tools | errors | help
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN, SRC, PART = sys.argv[1], sys.argv[2], sys.argv[3]
CLOF = os.path.join(BIN, "clof")
LIB = next((p for p in (os.path.join(BIN, "..", d, "libclof-preload.so") for d in ("lib", "lib64"))
            if os.path.isfile(p)), None)
EMU = "numa:2,core:2"
# a program that takes a pthread rwlock (the library reads CLOF_RWLOCK then)
RWPROG = [sys.executable, "-c", "import ctypes; b = ctypes.create_string_buffer(64); "
          "l = ctypes.CDLL(None); l.pthread_rwlock_rdlock(b); l.pthread_rwlock_unlock(b)"]
failures = []


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def run(argv, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=e, timeout=timeout)


# each lock: its canonical name and the spellings that must mean it
LOCKS = {
    "composition": ("mcs-tkt", ["mcs-tkt", "clof:mcs-tkt", "Clof:MCS-Ticket", "mcs_tkt"]),
    "layer": ("cr:mcs-tkt", ["cr:mcs-tkt", "cr:clof:mcs-tkt", "CR:Clof:mcs-ticket"]),
    "asl-layer": ("asl:mcs-tkt", ["asl:mcs-tkt", "asl:clof:mcs-ticket", "ASL:mcs_tkt"]),
    "hmcs": ("hmcs", ["hmcs", "HMCS"]),
    "rw": ("rw-central", ["rw-central", "RW-Central", "rw_central"]),
}


def names_canon(text, canon):
    """the tool printed canon as a whole name (not a longer one)"""
    return re.search(r"(^|[\s\"'=:(,])%s($|[\s\"',;:)?])" % re.escape(canon), text,
                     re.M) is not None


def agree(tool, kind, spelling, text, canon):
    check(names_canon(text, canon),
          "%s %s %r: prints the canonical %s: %s" % (tool, kind, spelling, canon,
                                                     text.strip()[-200:]))


def locks_run(sel):
    """the locks a clof select run into folder sel measured (results.jsonl)"""
    path = os.path.join(sel, "results.jsonl")
    if not os.path.isfile(path):
        return set()
    return {json.loads(l).get("lock") for l in open(path)}


def part_tools():
    tmp = tempfile.mkdtemp(prefix="clof-names-")
    try:
        for kind, (canon, spellings) in LOCKS.items():
            for sp in spellings:
                # clof bench (clof-bench): the JSON record's lock, or the refusal
                rw = ["--read-percent", "50"] if kind == "rw" else []
                r = run([CLOF, "bench", "--lock", sp, "--threads", "1", "--duration", "0.01",
                         "--json", "--emulate", EMU] + rw)
                agree("clof bench", kind, sp, r.stdout + r.stderr, canon)
                # clof verify: "lock NAME: N clients", or the refusal
                if kind != "rw" or sp == spellings[0]:
                    r = run([CLOF, "verify", "--lock", sp, "--model", "sc", "--bound", "0"],
                            timeout=300)
                    agree("clof verify", kind, sp, r.stdout + r.stderr, canon)
                # clof-asl-bench: the record's lock, or the refusal
                r = run([os.path.join(BIN, "clof-asl-bench"), "--lock", sp, "--duration", "0.01",
                         "--big", "1", "--little", "1", "--json"])
                agree("clof-asl-bench", kind, sp, r.stdout + r.stderr, canon)
                if LIB is None:
                    continue
                # the preload library: CLOF_LOCK / CLOF_RWLOCK, its statistics line
                var = "CLOF_RWLOCK" if kind == "rw" else "CLOF_LOCK"
                r = run(RWPROG, env={"LD_PRELOAD": LIB, var: sp, "CLOF_STATS": "1", "CLOF_EMULATE": EMU})
                want = ("rwlock=" if kind == "rw" else "lock=") + canon
                check(want in r.stderr, "preload %s=%s: %s: %s" % (var, sp, want,
                                                                  r.stderr.strip()[-200:]))
                if kind == "rw":
                    # clof profile --rwlock: the report names it
                    js = os.path.join(tmp, "p.json")
                    r = run([CLOF, "profile", "--rwlock", sp, "--json", js, "--"] + RWPROG,
                            env={"CLOF_EMULATE": EMU})
                    rep = json.load(open(js)) if os.path.isfile(js) else {}
                    check(rep.get("rwlock") == canon or names_canon(r.stderr, canon),
                          "clof profile --rwlock %s: %s" % (sp, canon))
                    continue
                # clof run: "clof run: lock NAME", and the library's own line
                r = run([CLOF, "run", "--lock", sp, "--stats", "--emulate", EMU, "--", "true"])
                check(r.returncode == 0 and "clof run: lock %s\n" % canon in r.stderr
                      and "lock=%s " % canon in r.stderr,
                      "clof run --lock %s: lock %s: %s" % (sp, canon, r.stderr.strip()[-200:]))
                # clof profile --lock: the JSON report's lock
                js = os.path.join(tmp, "p.json")
                if os.path.exists(js):
                    os.remove(js)
                r = run([CLOF, "profile", "--lock", sp, "--json", js, "--", "true"],
                        env={"CLOF_EMULATE": EMU})
                rep = json.load(open(js)) if os.path.isfile(js) else {}
                check(rep.get("lock") == canon,
                      "clof profile --lock %s: lock %s (got %s; %s)"
                      % (sp, canon, rep.get("lock"), r.stderr.strip()[-200:]))
        # clof asl-profile: the lock and the baselines as the records name them
        out = os.path.join(tmp, "aslp")
        r = run([CLOF, "asl-profile", "--lock", "ASL:clof:mcs-ticket", "--baselines",
                 "Clof:MCS-Ticket", "--slos", "0",
                 "--reps", "1", "--duration", "0.01", "--big", "1", "--little", "1",
                 "--no-max", "--no-plot", "--out", out])
        locks = []
        if os.path.isfile(os.path.join(out, "profile.jsonl")):
            locks = [json.loads(l)["lock"] for l in open(os.path.join(out, "profile.jsonl"))]
        check(r.returncode == 0 and locks == ["mcs-tkt", "asl:mcs-tkt"],
              "clof asl-profile: the records name mcs-tkt and asl:mcs-tkt (%s; %s)"
              % (locks, r.stderr.strip()[-200:]))
        r = run([CLOF, "asl-profile", "--lock", "HMCS", "--slos", "0", "--out", out])
        check(r.returncode == 2 and names_canon(r.stderr, "hmcs"),
              "clof asl-profile --lock HMCS: refused naming hmcs: " + r.stderr.strip())
        # clof select: baselines in any spelling, run under their canonical names
        sel = os.path.join(tmp, "sel")
        r = run([CLOF, "select", "--emulate", EMU, "--locks", "tkt", "--threads", "1",
                 "--duration", "0.01", "--runs", "1", "--baselines", "HMCS,Clof:MCS-Ticket",
                 "--no-report", "--no-heatmap", "--no-artifacts", "--quiet", "--out", sel],
                timeout=300)
        ran = locks_run(sel)
        check({"hmcs", "mcs-tkt"} <= ran,
              "clof select --baselines HMCS,Clof:MCS-Ticket runs hmcs and mcs-tkt (%s; rc %d %s)"
              % (sorted(x for x in ran if x), r.returncode, r.stderr.strip()[-200:]))
        # clof select --rw: --rw-locks in any spelling, run under their canonical names
        sel = os.path.join(tmp, "rwsel")
        r = run([CLOF, "select", "--rw", "--emulate", EMU, "--rw-locks", "RW:C-BO-MCS,Glibc",
                 "--threads", "1", "--duration", "0.01", "--runs", "1", "--quiet", "--out", sel],
                timeout=300)
        ran = locks_run(sel)
        check({"rw:c-bo-mcs", "pthread-rwlock"} <= ran,
              "clof select --rw --rw-locks RW:C-BO-MCS,Glibc runs rw:c-bo-mcs and pthread-rwlock "
              "(%s; rc %d %s)" % (sorted(x for x in ran if x), r.returncode, r.stderr.strip()[-200:]))
        r = run([CLOF, "select", "--rw", "--emulate", EMU, "--rw-locks", "rw:mcss",
                 "--threads", "1", "--out", sel])
        check(r.returncode == 2 and "did you mean" in r.stderr,
              "clof select --rw --rw-locks rw:mcss: exit 2, did you mean: " + r.stderr.strip())
        # build-best.sh: the default lock spelled canonically, and run as such
        bb = os.path.join(SRC, "src", "preload", "build-best.sh")
        so = os.path.join(tmp, "best", "libclof-best.so")
        r = run([bb, "--lock", "CR:Clof:mcs-ticket", "--out", so, "--build",
                 os.path.join(BIN, "..")], timeout=600)
        check(r.returncode == 0 and "default lock cr:mcs-tkt" in r.stdout + r.stderr,
              "build-best.sh --lock CR:Clof:mcs-ticket: default lock cr:mcs-tkt: %s"
              % (r.stdout + r.stderr).strip()[-300:])
        if os.path.isfile(so):
            r = run(["true"], env={"LD_PRELOAD": so, "CLOF_STATS": "1", "CLOF_EMULATE": EMU})
            check("lock=cr:mcs-tkt " in r.stderr, "libclof-best.so runs cr:mcs-tkt: " + r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def part_errors():
    # did you mean: one line, the closest names first, where to see them all, short
    for argv, env in ((["bench", "--lock", "mcss", "--threads", "1"], None),
                      (["run", "--lock", "mcss", "--", "true"], None),
                      (["verify", "--lock", "mcss"], None),
                      (["locks", "--canon", "mcss"], None)):
        r = run([CLOF] + argv, env)
        err = r.stderr.strip()
        check(r.returncode == 2 and len(err.splitlines()) == 1 and "did you mean mcs" in err
              and "clof locks" in err and len(err) <= 200,
              "clof %s: exit 2, one line of <= 200 characters with 'did you mean mcs' "
              "(%d characters): %s" % (argv[0], len(err), err))
    if LIB:
        r = run(["true"], env={"LD_PRELOAD": LIB, "CLOF_LOCK": "nonsense"})
        check(r.stderr.startswith("clof-preload: running on glibc's pthread mutexes")
              and len(r.stderr) <= 200,
              "CLOF_LOCK=nonsense: the key phrase first, short: " + r.stderr)
    # exit codes: 0 success, 1 a failed check, 2 bad usage or input
    cases = [
        (["--version"], 0), (["locks"], 0), (["locks", "--family", "numa"], 0),
        (["nosuchsub"], 2), (["locks", "--family", "nope"], 2),
        (["bench", "--lock", "mcs", "--threads", "1", "--duration", "0.01"], 0),
        (["bench", "--lock", "nosuch"], 2), (["bench", "--lock", "mcs", "--threads", "x"], 2),
        (["verify", "--lock", "ticket", "--model", "sc"], 0),
        (["verify", "--client", "swapped.ticket+mcs", "--model", "sc"], 1),
        (["verify", "--bound", "x"], 2), (["verify", "--lock", "nosuch"], 2),
        (["run", "--lock", "mcs", "--", "/nonexistent/program"], 2),
        (["run", "--lock", "mcs", "--topology", "/nonexistent.topo", "--", "true"], 2),
        (["run", "--lock", "nosuch", "--", "true"], 2),
        (["run", "--lock", "mcs", "--", "false"], 1),
        (["profile", "--", "/nonexistent/program"], 2),
        (["profile", "--lock", "nosuch", "--", "true"], 2),
        (["asl-profile", "--slos", "100"], 2), (["asl-profile", "--lock", "asl:mcss"], 2),
        (["asl-profile", "--topology", "/nonexistent.topo"], 2),
        (["heatmap", "--pair-ms", "0"], 2), (["select", "--baselines", "nosuch"], 2),
        (["topology", "--check", "/nonexistent.topo"], 2),
    ]
    for argv, want in cases:
        if LIB is None and argv[0] in ("run", "profile"):
            continue
        r = run([CLOF] + argv, timeout=300)
        check(r.returncode == want, "clof %s: exit %d (want %d): %s"
              % (" ".join(argv), r.returncode, want, r.stderr.strip()[-200:]))
    # asl-profile refuses a bad --lock before any baseline runs
    r = run([CLOF, "asl-profile", "--lock", "asl:mcss", "--out", "/nonexistent/x"])
    check("[round" not in r.stderr, "asl-profile: --lock checked before the first run")
    # heatmap: the wrapper's message, not the internal program's usage
    r = run([CLOF, "heatmap", "--pair-ms", "0"])
    check("clof-heatmap" not in r.stderr and "--out FILE" not in r.stderr,
          "clof heatmap --pair-ms 0: no internal usage: " + r.stderr)


def part_help():
    r = run([CLOF, "--help"])
    subs = [l.split()[0] for l in r.stdout.split("subcommands:", 1)[1].split("\n\n")[0]
            .splitlines() if l.strip()]
    check(len(subs) >= 10 and "locks" in subs, "clof --help lists the subcommands: %s" % subs)
    for s in subs:
        r = run([CLOF, s, "--help"])
        first = (r.stdout.splitlines() or [""])[0]
        check(r.returncode == 0 and first.startswith("usage: clof %s" % s),
              "clof %s --help names itself: %s" % (s, first))
        check("example" in r.stdout.lower(), "clof %s --help ends with an example" % s)
    r = run([CLOF, "--version"])
    check(r.returncode == 0 and re.match(r"clof \d+\.\d+", r.stdout) is not None,
          "clof --version: " + r.stdout.strip())


{"tools": part_tools, "errors": part_errors, "help": part_help}[PART]()
if failures:
    print("%d FAILED" % len(failures))
    sys.exit(1)
print("all ok")
