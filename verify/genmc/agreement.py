#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""verify/genmc/agreement.py -- the agreement table of the three checkers
(docs/genmc.md, "Agreement"): each client of verify/clients*.c under vc
(clof-verify, C11; clof-verify-park for the park rows), Relacy (clof-relacy,
C11, context bound 2) and GenMC (verify/genmc/run.sh, RC11 and IMM), with
each checker's verdict, executions and seconds, and whether the verdicts
agree with each other and with what the client must show.

    verify/genmc/agreement.py [--build DIR] [--out DIR] [--slow]
                              [--only vc,relacy,genmc] [--client PAT]...
                              [--vc-limit S] [--relacy-limit S]
    verify/genmc/agreement.py --from DIR      # the table from saved outputs

Each checker's raw output goes to DIR/<checker>/<client>.<model>.txt (default
DIR: BUILD/results/agreement), with DIR/machine.txt (machine, load average,
commands); --from DIR prints the table from those files without running
anything, so the doc's table can be regenerated.  --only reruns some checkers
and keeps the others' saved outputs.  --slow adds the set too slow for CI
(sweep.sh's).  Exit 1 when a conclusive verdict disagrees with another or
with the expected one.

The clients differ in size: vc and Relacy run clof-verify's client (3
threads, T0 acquires twice, T2 tries first; preemption / context bound 2);
GenMC runs one acquisition per thread (run.sh), exhaustively.
"""
import argparse
import datetime
import fnmatch
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gen_compositions  # noqa: E402  (the registry's rows)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))

# name, file, table, GenMC models, GenMC flags, expected ("ok" or the
# property: "hang", "violation"), park (vc: clof-verify-park), slow
P = ["-DGENMC_PARK_MODE", "-DGENMC_THREADS=2"]
HF = ["-DVC_HMCS_FAST=1"]
ROWS = []


def row(name, file, table, models, flags=(), expect="ok", park=False,
        slow=False, env=None, vcname=None, gname=None):
    ROWS.append(dict(name=name, file=file, table=table, models=models,
                     flags=list(flags), expect=expect, park=park, slow=slow,
                     env=env or {}, vcname=vcname or name,
                     gname=gname or vcname or name))


# every basic lock of the registry (include/clof/lock/list.h)
for l in [r["id"] for r in gen_compositions.registry_rows()]:
    row(l, "clients_basic.c", "vc_clients_basic", ["rc11", "imm"])
row("cna", "clients_numa.c", "vc_clients_numa", ["rc11"])
row("hmcs3", "clients_hmcs.c", "vc_clients_hmcs", ["rc11"])
row("hmcs3.fences", "clients_hmcs.c", "vc_clients_hmcs_fences", ["imm"],
    ["-DCLOF_HMCS_FENCES=1", "-DVC_HMCS_SFX=_fences",
     '-DVC_HMCS_NAME_SFX=\\".fences\\"'], expect="hang")
row("hmcs3.amo", "clients_hmcs.c", "vc_clients_hmcs_amo", ["imm"],
    ["-DCLOF_HMCS_AMO=1", "-DVC_HMCS_SFX=_amo",
     '-DVC_HMCS_NAME_SFX=\\".amo\\"'], expect="violation")
row("c-bo-mcs", "clients_numa.c", "vc_clients_numa", ["rc11"])
row("clof.mcs+clh+ticket", "clients_numa.c", "vc_clients_numa", ["rc11"])
row("hmcs2.fast", "clients_hmcs.c", "vc_clients_hmcs_fast", ["rc11"], HF)
row("hmcs3.fast", "clients_hmcs.c", "vc_clients_hmcs_fast", ["rc11"], HF)
row("a-c-bo-bo.timed.fast", "clients_timed.c", "vc_clients_timed", ["rc11"])
for m, e in [("m1", "violation"), ("m2", "violation")]:
    row("a-c-bo-bo.timed.fast." + m, "clients_timed.c", "vc_clients_timed",
        ["rc11"], expect=e)
row("a-c-bo-bo", "clients_numa.c", "vc_clients_numa", ["rc11"],
    ["-DGENMC_THREADS=2", "-DVC_MIN_ACQUIRED=2"])
for c in ["rw.central", "rw.cohort.rp", "rw.cohort.wp", "rw.cohort.np",
          "rw.bravo.cohort.rp", "rw.bravo.cohort.wp"]:
    row(c, "clients_rw.c", "vc_clients_rw", ["rc11"], ["-DGENMC_THREADS=2"])
row("cr.mcs", "clients_cr.c", "vc_clients_cr", ["rc11"], ["-O1"])
row("asl.mcs", "clients_asl.c", "vc_clients_asl", ["rc11"])
for l, extra, t0 in [("ttas", "-DVC_MIN_ACQUIRED=3", "2"),
                     ("clh", "-DVC_MIN_ACQUIRED=3", "2"),
                     ("mcs", "-DVC_MIN_ACQUIRED=2", "1")]:
    row("park." + l, "clients_basic.c", "vc_clients_basic", ["rc11", "imm"],
        P + [extra], park=True, env={"GENMC_T0": t0}, vcname=l)
row("park.mcs.lost-wakeup", "clients_basic.c", "vc_clients_basic",
    ["rc11", "imm"], P + ["-DVC_MIN_ACQUIRED=3",
                          "-DGENMC_MUTANT_PARK_WAITERS_RLX"],
    expect="hang", park=True, env={"GENMC_T0": "2"}, vcname="-", gname="mcs")
# the slow set (sweep.sh)
for c in ["c-ptl-tkt", "c-tkt-tkt", "clof.tkt3", "clof.mcs+ticket"]:
    row(c, "clients_numa.c", "vc_clients_numa", ["rc11"], slow=True)
row("hmcs2", "clients_hmcs.c", "vc_clients_hmcs", ["rc11"], slow=True)
row("a-c-bo-clh.timed.fast", "clients_timed.c", "vc_clients_timed", ["rc11"],
    slow=True)
for c in ["cr.mcs.mirror", "cr.clof.mcs+ticket"]:
    row(c, "clients_cr.c", "vc_clients_cr", ["rc11"], ["-O1"], slow=True)
row("asl.clof.mcs+ticket", "clients_asl.c", "vc_clients_asl", ["rc11"],
    slow=True)


def run(cmd, env=None, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    t = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=e, cwd=cwd, text=True)
    return p.stdout, time.time() - t


def save(out, checker, name, model, text):
    d = os.path.join(out, checker)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "%s.%s.txt" % (name, model)), "w") as f:
        f.write(text)


def load(out, checker, name, model):
    try:
        with open(os.path.join(out, checker, "%s.%s.txt" % (name, model))) as f:
            return f.read()
    except OSError:
        return None


# ---- parsing: each cell is (verdict, executions, seconds) ----------------
# verdict: "ok", "hang", "violation", "race", "open" (stopped by a limit),
# "none" (no verdict: the checker could not run), None (not run)

def vc_cell(text, name):
    if text is None:
        return None
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0] == name and f[1] == "c11":
            v = f[2]
            rest = " ".join(f[7:])
            if v == "verified":
                verdict = "open" if "stopped by" in rest else "ok"
            elif v == "VIOLATED":
                verdict = "hang" if "hang" in rest else "violation"
            else:
                verdict = "none"
            return verdict, f[3], f[5]
    return ("none", "?", "?")


def relacy_cell(text, name):
    if text is None:
        return None
    for line in text.splitlines():
        m = re.match(r"relacy +(\S+) +(.*), (\d+) iterations, ([0-9.]+) s, (.*)",
                     line)
        if m and m.group(1) == name:
            v = m.group(2)
            if v.startswith("verified"):
                verdict = "ok"
            elif v.startswith("no violation"):
                verdict = "open"
            else:
                verdict = "hang" if re.search(r"livelock|deadlock|hang", v) \
                    else "violation"
            return verdict, m.group(3), m.group(4)
    return ("none", "?", "?")


def genmc_cell(text):
    if text is None:
        return None
    m = re.search(r"^genmc -\w+ \S+.*?: (.*?); (\S+) executions; ([0-9.]+) s; "
                  r"cpu ([0-9.]+) s", text, re.M)
    if not m:
        return ("none", "?", "?") if "skipped" not in text else None
    v = m.group(1)
    if "No errors" in v:
        verdict = "ok"
    elif "Liveness" in v:
        verdict = "hang"
    elif "race" in v:
        verdict = "race"
    elif v.startswith("Error"):
        verdict = "violation"
    else:
        verdict = "none"
    return verdict, m.group(2), m.group(4)


def show(c):
    if c is None:
        return "--"
    v, e, s = c
    word = {"ok": "ok", "hang": "**hang**", "violation": "**violation**",
            "race": "**race**", "open": "no verdict (limit)",
            "none": "no verdict"}[v]
    if v == "none":
        return word
    return "%s / %s / %s" % (word, e, s)


def agree(r, cells):
    """yes, or what disagrees: conclusive verdicts must match the expected
    one (a race or a safety violation both count as a violation)"""
    want = {"ok": "ok", "hang": "hang", "violation": "bad"}[r["expect"]]
    got = set()
    for c in cells:
        if c is None or c[0] in ("open", "none"):
            continue
        got.add({"ok": "ok", "hang": "hang", "violation": "bad",
                 "race": "bad"}[c[0]])
    if not got:
        return "no verdict"
    if got == {want}:
        return "yes"
    return "**NO**"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--out")
    ap.add_argument("--from", dest="frm", metavar="DIR")
    ap.add_argument("--only", default="vc,relacy,genmc")
    ap.add_argument("--slow", action="store_true")
    ap.add_argument("--client", action="append")
    ap.add_argument("--relacy-limit", default="30")
    ap.add_argument("--vc-limit", default="60")
    a = ap.parse_args()
    out = a.frm or a.out or os.path.join(a.build, "results", "agreement")
    if a.frm and not os.path.isdir(a.frm):
        sys.exit("agreement.py: --from %s: no such folder of saved outputs" % a.frm)
    only = set(a.only.split(",")) if not a.frm else set()
    bad = only - {"vc", "relacy", "genmc"}
    if bad:
        sys.exit("agreement.py: --only: unknown checker %s" % ",".join(bad))
    rows = [r for r in ROWS if (a.slow or not r["slow"] or a.client) and
            (not a.client or any(fnmatch.fnmatch(r["name"], p) for p in a.client))]
    if not rows:
        sys.exit("agreement.py: no client matches %s" % a.client)
    bindir = os.path.join(a.build, "bin")
    vc, vcp = os.path.join(bindir, "clof-verify"), os.path.join(bindir, "clof-verify-park")
    rl = os.path.join(bindir, "clof-relacy")
    if only:
        os.makedirs(out, exist_ok=True)
        for b in (vc, vcp, rl):
            if not os.access(b, os.X_OK):
                print("agreement.py: %s not built: its column stays empty" % b,
                      file=sys.stderr)
        rl_list = ""
        if "relacy" in only and os.access(rl, os.X_OK):
            rl_list = run([rl, "--list"])[0]
        un = os.uname()
        cpu = ""
        for l in open("/proc/cpuinfo"):
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
        head = "%s, %s: %s %s %s, %d cpus, %s, load average at start %s" % (
            ",".join(sorted(only)), datetime.date.today().isoformat(),
            un.sysname, un.release, un.machine, os.cpu_count(), cpu,
            " ".join(open("/proc/loadavg").read().split()[:3]))
        for r in rows:
            n, vn = r["name"], r["vcname"]
            if "vc" in only and vn != "-":
                b = vcp if r["park"] else vc
                if os.access(b, os.X_OK):
                    save(out, "vc", n, "c11",
                         run([b, "--client", vn, "--model", "c11"] +
                             # park mode: CI's bound 1 (tests/verify)
                             (["--bound", "1"] if r["park"] else ["--quick"]) +
                             ["--time-limit", a.vc_limit])[0])
            if ("relacy" in only and not r["park"] and os.access(rl, os.X_OK)
                    and re.search(r"^%s\s" % re.escape(vn), rl_list, re.M)):
                save(out, "relacy", n, "c11",
                     run([rl, "--lock", vn, "--bound", "2", "--time-limit",
                          a.relacy_limit])[0])
            if "genmc" in only:
                for m in r["models"]:
                    env = {"GENMC_TOPO_DIR": os.path.join(a.build, "verify", "genmc")}
                    env.update(r["env"])
                    pre = ["--expect-error"] if r["expect"] != "ok" else []
                    txt = run([os.path.join(HERE, "run.sh")] + pre +
                              [m, r["file"], r["table"], r["gname"]] + r["flags"],
                              env=env)[0]
                    save(out, "genmc", n, m, txt)
            print("agreement.py: %s done" % n, file=sys.stderr)
        with open(os.path.join(out, "machine.txt"), "a") as f:
            f.write("%s, at end %s (command: %s)\n" % (
                head, " ".join(open("/proc/loadavg").read().split()[:3]),
                " ".join(["verify/genmc/agreement.py"] + sys.argv[1:])))
    # the table
    try:
        print("Runs (checkers, date, machine, load average):\n")
        for l in open(os.path.join(out, "machine.txt")):
            print("- " + l.rstrip())
    except OSError:
        pass
    print()
    print("| client | must | vc C11 | Relacy C11 | GenMC RC11 | GenMC IMM | agree |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    disagree = False
    for r in rows:
        n, vn = r["name"], r["vcname"]
        v = vc_cell(load(out, "vc", n, "c11"), vn)
        x = relacy_cell(load(out, "relacy", n, "c11"), vn)
        g = {m: genmc_cell(load(out, "genmc", n, m)) for m in ("rc11", "imm")}
        ag = agree(r, [v, x, g["rc11"], g["imm"]])
        disagree |= ag.startswith("**NO")
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            n, {"ok": "ok", "hang": "hang", "violation": "violation"}[r["expect"]],
            show(v), show(x), show(g["rc11"]), show(g["imm"]), ag))
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
