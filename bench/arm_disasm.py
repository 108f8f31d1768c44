#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/arm_disasm.py -- the locks' instructions on x86-64 and Armv8.

Two reports, both from bench/arm_disasm.c compiled with the project's
compilers (gcc for x86-64, Debian's aarch64-linux-gnu-gcc for Armv8 with
-march=armv8.1-a "LSE" and -march=armv8-a -mno-outline-atomics "LL/SC"):

  fastpath      for every basic lock, HMCS and the 3-level composition
                tkt-mcs-clh: the instructions one uncontended acquire and
                one release execute, counted in an instruction trace of a
                static binary run under qemu-user (qemu-x86_64 /
                qemu-aarch64 -singlestep -d exec: one trace line per
                executed instruction), with the atomic and ordering
                instructions among them.  An emulator's trace: exact
                instruction counts, no timing.  CLOF_EMULATE gives the
                hierarchical locks a 3-level machine.
  hmcs-check    the HMCS paper's barrier variants (numa/hmcs.h: implicit,
                sc, fences, amo) compiled for Armv8 (--flavour lse or llsc,
                the papers' pure spinning, no fast path): checks that each
                variant's acquire and release use the instructions the paper
                describes, prints the table, exits 1 on a mismatch (the test
                arm.hmcs_barriers.*).

  tryacquire    for every basic lock, HMCS and tkt-mcs-clh: the atomic and
                ordering instructions of the tryacquire wrapper (its fast
                path inlined, slow paths out of line), read from the
                disassembly (no trace): what a change of memory order in a
                tryacquire compiles to on each target.

  python3 bench/arm_disasm.py fastpath [--markdown]
  python3 bench/arm_disasm.py tryacquire
  python3 bench/arm_disasm.py hmcs-check --flavour lse [--cc CC --objdump OBJDUMP]
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "arm_disasm.c")

TARGETS = collections.OrderedDict([
    ("x86-64", dict(cc="gcc", objdump="objdump", flags=[], qemu="qemu-x86_64")),
    ("arm64 LSE", dict(cc="aarch64-linux-gnu-gcc", objdump="aarch64-linux-gnu-objdump",
                       flags=["-march=armv8.1-a"], qemu="qemu-aarch64")),
    ("arm64 LL/SC", dict(cc="aarch64-linux-gnu-gcc", objdump="aarch64-linux-gnu-objdump",
                         flags=["-march=armv8-a", "-mno-outline-atomics"], qemu="qemu-aarch64")),
])
FLAVOURS = {"lse": "arm64 LSE", "llsc": "arm64 LL/SC"}

# Armv8: read-modify-writes (exclusive pairs and LSE atomics), ordered
# accesses (acquire loads, release stores), fences.  x86-64: lock-prefixed
# instructions and xchg (implicitly locked), fences.
ARM_RMW = re.compile(r"^(ld[a]?xr|st[l]?xr|ld[a]?xp|st[l]?xp|swp|cas|ldadd|ldset|ldclr|ldeor|"
                     r"ld[su]max|ld[su]min)")
ARM_ORDERED = re.compile(r"^(ldar|ldapr|ldlar|stlr|stllr)")
ARM_FENCE = re.compile(r"^(dmb|dsb)")
X86_RMW = re.compile(r"^(lock |xchg)")
X86_FENCE = re.compile(r"^(mfence|lfence|sfence)")


def is_atomic(mn):
    """An atomic or ordering instruction (the ones the table lists)."""
    return any(r.match(mn) for r in (ARM_RMW, ARM_ORDERED, ARM_FENCE, X86_RMW, X86_FENCE))


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        sys.exit("arm_disasm: %s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def disassemble(objdump, path):
    """{function: [(address, mnemonic, operands)]} of every code section."""
    funcs = collections.OrderedDict()
    cur = None
    for line in run([objdump, "-d", "--no-show-raw-insn", path]).splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and cur is not None:
            mn, ops = m.group(2), m.group(3)
            if mn in ("lock", "rep", "repz", "repnz") and ops:  # x86 prefixes
                first, _, rest = ops.partition(" ")
                mn, ops = mn + " " + first, rest
            cur.append((int(m.group(1), 16), mn, ops.split("//")[0].split("#")[0].strip()))
    return funcs


# ---------------------------------------------------------------- fastpath

LOCKS = ["tas", "ttas", "bo", "ticket", "ptl", "mcs", "clh", "hemlock", "hemlock_ctr",
         "hmcs", "tkt_mcs_clh"]


def fastpath_target(name, t, tmp):
    exe = os.path.join(tmp, re.sub(r"\W", "_", name))
    srcs = [SRC] + sorted(glob.glob(os.path.join(ROOT, "src", "*.c")))
    run([t["cc"], "-O2", "-g0", "-static", "-D_GNU_SOURCE", "-DARM_DISASM_MAIN=1",
         "-I" + os.path.join(ROOT, "include")] + t["flags"] + srcs +
        ["-o", exe, "-lm", "-lpthread"])
    insns = {}
    for fn, body in disassemble(t["objdump"], exe).items():
        for addr, mn, ops in body:
            insns[addr] = (mn, ops, fn)
    log = os.path.join(tmp, "trace.log")
    env = dict(os.environ, CLOF_EMULATE=os.environ.get("CLOF_EMULATE", "numa:2,cache:2,core:2"))
    run([t["qemu"], "-singlestep", "-d", "nochain,exec", "-D", log, exe], env=env)
    # one line per executed instruction: "Trace N: host [flags/PC/...] symbol"
    result = {}
    phase, lock = None, None
    counts = {}
    with open(log) as f:
        for line in f:
            m = re.match(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/", line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            mn, ops, fn = insns.get(pc, ("?", "", "?"))
            if fn == "arm_mark":
                if mn in ("ret", "retq"):  # the mark's end: a new phase starts
                    phase = {None: "acquire", "acquire": "release", "release": None}[phase]
                    if phase == "acquire":
                        lock = LOCKS[len(result)]
                        counts = {"acquire": [0, []], "release": [0, []]}
                        result[lock] = counts
                continue
            if phase is None or fn == "?":
                continue
            # the call of the mark and its argument set-up count to the
            # measured operation's caller, not to it: only instructions of
            # the wrappers and what they call
            if fn == "main":
                continue
            c = counts[phase]
            c[0] += 1
            if is_atomic(mn):
                c[1].append(mn)
    if len(result) != len(LOCKS):
        sys.exit("arm_disasm: %s: traced %d locks, expected %d" % (name, len(result), len(LOCKS)))
    return result


def fmt_atomics(lst):
    cnt = collections.Counter(lst)
    return ", ".join("%s%s" % (k, "" if v == 1 else " x%d" % v) for k, v in cnt.items()) or "-"


def cmd_fastpath(a):
    data = collections.OrderedDict()
    with tempfile.TemporaryDirectory() as tmp:
        for name, t in TARGETS.items():
            data[name] = fastpath_target(name, t, tmp)
    cc = run(["aarch64-linux-gnu-gcc", "--version"]).splitlines()[0]
    hc = run(["gcc", "--version"]).splitlines()[0]
    qv = run(["qemu-aarch64", "--version"]).splitlines()[0]
    print("Uncontended acquire / release: instructions executed (qemu-user trace), "
          "atomic and ordering instructions among them")
    print("compilers: %s; %s; -O2; %s; CLOF_EMULATE=%s; waiting policy spin-park"
          % (hc, cc, qv, os.environ.get("CLOF_EMULATE", "numa:2,cache:2,core:2")))
    print()
    cols = list(TARGETS)
    print("| lock | " + " | ".join("%s acq / rel" % c for c in cols) + " | " +
          " | ".join("%s atomics (acq; rel)" % c for c in cols) + " |")
    print("|---" * (1 + 2 * len(cols)) + "|")
    for lock in LOCKS:
        row = [lock.replace("_", "-") if lock != "tkt_mcs_clh" else "clof:tkt-mcs-clh"]
        for c in cols:
            d = data[c][lock]
            row.append("%d / %d" % (d["acquire"][0], d["release"][0]))
        for c in cols:
            d = data[c][lock]
            row.append("%s; %s" % (fmt_atomics(d["acquire"][1]), fmt_atomics(d["release"][1])))
        print("| " + " | ".join(row) + " |")
    return 0


# ---------------------------------------------------------------- tryacquire

def cmd_tryacquire(a):
    cols = list(TARGETS)
    data = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, t in TARGETS.items():
            obj = os.path.join(tmp, re.sub(r"\W", "_", name) + ".o")
            run([t["cc"], "-O2", "-g0", "-c", "-D_GNU_SOURCE",
                 "-I" + os.path.join(ROOT, "include")] + t["flags"] + [SRC, "-o", obj])
            funcs = disassemble(t["objdump"], obj)
            data[name] = {}
            for lock in LOCKS:
                body = funcs.get("arm_%s_tryacquire" % lock)
                if body is None:
                    sys.exit("arm_disasm: %s: no arm_%s_tryacquire" % (name, lock))
                data[name][lock] = [mn for _, mn, _ in body if is_atomic(mn)]
    cc = run(["aarch64-linux-gnu-gcc", "--version"]).splitlines()[0]
    hc = run(["gcc", "--version"]).splitlines()[0]
    print("tryacquire: atomic and ordering instructions of the wrapper, in "
          "address order (disassembly; slow paths out of line)")
    print("compilers: %s; %s; -O2" % (hc, cc))
    print()
    print("| lock | " + " | ".join(cols) + " |")
    print("|---" * (1 + len(cols)) + "|")
    for lock in LOCKS:
        row = [lock.replace("_", "-") if lock != "tkt_mcs_clh" else "clof:tkt-mcs-clh"]
        for c in cols:
            row.append(", ".join(data[c][lock]) or "-")
        print("| " + " | ".join(row) + " |")
    return 0


# ---------------------------------------------------------------- hmcs-check

VARIANTS = ["implicit", "sc", "fences", "amo"]


def hmcs_profile(cc, objdump, flags, variant, tmp):
    obj = os.path.join(tmp, "hmcs_%s.o" % variant)
    run([cc, "-O2", "-c", "-I" + os.path.join(ROOT, "include"), "-DCLOF_WAIT_SPIN=1",
         "-DCLOF_COMPOSE_NO_FAST_PATH=1", "-DARM_DISASM_HMCS=1",
         "-DCLOF_HMCS_%s=1" % variant.upper()] + flags + [SRC, "-o", obj])
    # the object holds HMCS alone: the acquire and release wrappers, the
    # release helper and the await loops (its out-of-line slow paths)
    prof = collections.Counter()
    for fn, body in disassemble(objdump, obj).items():
        for _, mn, ops in body:
            if ARM_FENCE.match(mn):
                prof["dmb " + ops] += 1
            elif is_atomic(mn):
                prof[mn] += 1
    return prof


def hmcs_expect(flavour, variant, prof, base):
    """The instructions the paper describes for each variant (list of
    failures; empty = as described).  base: the implicit variant's profile
    (sc is implicit with every racy access seq_cst: more ordered accesses)."""
    lse = flavour == "lse"
    bad = []

    def need(cond, what):
        if not cond:
            bad.append(what)
    has = lambda *mns: sum(prof[m] for m in mns)
    dmbs = sum(v for k, v in prof.items() if k.startswith("dmb"))
    acq_loads = has("ldar", "ldapr")
    if variant in ("implicit", "sc"):
        need(dmbs == 0, "no DMB (the barriers are implicit)")
        if lse:
            need(prof["swpal"] >= 1, "SWAP seq_cst: SWPAL")
            need(prof["casal"] >= 1, "CAS seq_cst: CASAL")
        else:
            need(prof["ldaxr"] >= 1 and prof["stlxr"] >= 1, "SWAP/CAS seq_cst: LDAXR/STLXR")
        need(acq_loads >= 1, "acquire loads: LDAR or LDAPR")
    if variant == "implicit":
        need(prof["stlr"] >= 1, "release stores: STLR")
    if variant == "sc":
        # a seq_cst store is an exchange on aarch64 (backend/native.h: STLR
        # is not ordered before a later LDAR under qemu-user); with
        # -DCLOF_AARCH64_SC_STORE_STLR it is the compilers' STLR
        xchg = "swpal" if lse else "stlxr"
        sc_stores = lambda p: p["stlr"] + p[xchg]
        need(sc_stores(prof) > sc_stores(base),
             "every racy store seq_cst: more STLR/%s than implicit" % xchg.upper())
        need(acq_loads > base["ldar"] + base["ldapr"],
             "every racy load seq_cst: more LDAR than implicit")
    if variant == "fences":
        need(dmbs >= 1, "explicit fences: DMB")
        need(prof["dmb ish"] >= 1 and prof["dmb ishld"] >= 1,
             "release fences DMB ISH and acquire fences DMB ISHLD")
        need(acq_loads == 0 and prof["stlr"] == 0, "no LDAR/LDAPR/STLR (plain accesses)")
        if lse:
            need(prof["swp"] >= 1 and prof["cas"] >= 1 and
                 has("swpa", "swpl", "swpal", "casa", "casl", "casal") == 0,
                 "SWAP and CAS without ordering: SWP, CAS")
        else:
            need(prof["ldxr"] >= 1 and prof["stxr"] >= 1 and has("ldaxr", "stlxr") == 0,
                 "SWAP and CAS without ordering: LDXR/STXR")
    if variant == "amo":
        need(prof["dmb ishld"] == 1 and prof["dmb ish"] == 0,
             "one acquire fence (DMB ISHLD) after the root SWAP, no full DMB")
        if lse:
            need(prof["swpl"] >= 1 and prof["casl"] >= 1 and
                 has("swpa", "swpal", "casa", "casal") == 0,
                 "SWAP and CAS release only: SWPL, CASL")
        else:
            need(prof["ldxr"] >= 1 and prof["stlxr"] >= 1 and prof["ldaxr"] == 0,
                 "SWAP and CAS release only: LDXR/STLXR")
        need(acq_loads >= 1 and prof["stlr"] >= 1, "acquire loads and release stores as implicit")
    return bad


def cmd_hmcs_check(a):
    t = TARGETS[FLAVOURS[a.flavour]]
    cc = a.cc or t["cc"]
    objdump = a.objdump or t["objdump"]
    flags = t["flags"]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        profs = {v: hmcs_profile(cc, objdump, flags, v, tmp) for v in VARIANTS}
    print("HMCS barrier variants, %s (%s %s), pure spinning, no fast path: "
          "atomic, ordered and fence instructions of acquire + release" %
          (FLAVOURS[a.flavour], os.path.basename(cc), " ".join(flags)))
    for v in VARIANTS:
        bad = hmcs_expect(a.flavour, v, profs[v], profs["implicit"])
        print("  %-9s %-60s %s" % (v, ", ".join("%s x%d" % kv for kv in sorted(profs[v].items())),
                                   "ok" if not bad else "MISMATCH"))
        for b in bad:
            print("            expected: " + b)
        failed += bool(bad)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("fastpath")
    sub.add_parser("tryacquire")
    h = sub.add_parser("hmcs-check")
    h.add_argument("--flavour", choices=sorted(FLAVOURS), required=True)
    h.add_argument("--cc")
    h.add_argument("--objdump")
    a = ap.parse_args()
    if a.cmd == "tryacquire":
        return cmd_tryacquire(a)
    return cmd_fastpath(a) if a.cmd == "fastpath" else cmd_hmcs_check(a)


if __name__ == "__main__":
    sys.exit(main())
