# SPDX-License-Identifier: MIT
"""clof profile -- which locks hold an unmodified program back
(docs/profile.md).

    clof profile [--lock NAME] [--json FILE] [--html FILE] [--interval S]
                 [--top N] [--preload LIB] [--keep DIR]
                 [--compare A,B,.. [--metric REGEX] [--repeat N]] -- PROGRAM [ARGS...]

Runs PROGRAM over libclof-preload.so in its profiling mode (CLOF_PROFILE)
and reports, per lock, acquisitions, contended acquisitions, total and
longest wait, average and longest hold (holds are timed 1 in 64), and the
call sites that waited most, named with the program's functions
(addr2line; addresses where symbols are missing), sorted by total wait.
Condition variables are listed apart: their waits are waits for work, not
for a lock.  The profile is written when the program exits, on SIGINT or
SIGTERM, and every S seconds with --interval (a timeline).

The program's output and exit status pass through untouched: the report
goes to stderr (--json/--html: to files too), and `clof profile` exits
with the program's status (a program killed by a signal: the same signal).

--lock NAME      profile under this lock of the preload library (default
                 glibc: the program's own pthread mutexes)
--compare A,B,.. run the program under glibc and each lock given ("select"
                 or select:DIR: the HC-best and LC-best locks of the newest
                 `clof select` folder, or of DIR, over its hierarchy) and report
                 its figure next to the lock statistics: its run time, or
                 with --metric REGEX the number the regex's first group
                 captures from its output (stdout and stderr); --repeat N
                 runs each N times, interleaved, medians reported.  The
                 programs' output is not shown (see --keep).
"""

import argparse
import bisect
import functools
import glob
import html
import json
import os
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import clof_common
import clof_lockorder

CMD = "profile"
die = functools.partial(clof_common.die, CMD)  # die(msg[, code]): `clof profile: msg`, exit 2
KINDS = {0: "mutex", 1: "cond", 2: "rwlock"}


def add_arguments(p):
    p.add_argument("--lock", metavar="NAME", default="glibc",
                   help="the lock to profile under (default glibc: the program's own mutexes)")
    p.add_argument("--rwlock", metavar="NAME",
                   help="the rwlock under the program's pthread_rwlock_t (CLOF_RWLOCK; "
                        "default: the library's default, glibc's)")
    p.add_argument("--json", metavar="FILE", help="write the profile as JSON to FILE")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report to FILE")
    p.add_argument("--interval", metavar="S", type=float,
                   help="snapshots every S seconds (a contention timeline)")
    p.add_argument("--top", metavar="N", type=int, default=10, help="locks shown (default 10)")
    p.add_argument("--sites", metavar="N", type=int, default=3,
                   help="call sites shown per lock (default 3)")
    p.add_argument("--compare", metavar="A,B,..",
                   help="rerun under glibc and these locks (select: the locks `clof select` "
                        "picked); report the program's figure")
    p.add_argument("--metric", metavar="REGEX",
                   help="--compare: the program's figure, the first group of REGEX in its output")
    p.add_argument("--repeat", metavar="N", type=int, default=1,
                   help="--compare: runs per lock, interleaved (default 1)")
    p.add_argument("--lock-order", action="store_true",
                   help="track lock order; report the inversions (potential deadlocks)")
    p.add_argument("--hang", action="store_true",
                   help="track waits: the wait-for graph on SIGQUIT to the program")
    p.add_argument("--hang-after", metavar="S", type=float,
                   help="--hang, and the wait-for graph after S seconds if the program "
                        "still runs")
    p.add_argument("--long-holds", metavar="MS", type=float,
                   help="report holds longer than MS milliseconds, with their call sites")
    p.add_argument("--preload", metavar="LIB", help="the preload library (default: the build's)")
    p.add_argument("--keep", metavar="DIR", help="keep the raw profile files (and --compare's "
                                                  "program output) in DIR")
    p.epilog = "example: clof profile --lock mcs --html prof.html -- ./my_server"
    p.usage = ("clof profile [--lock NAME] [--rwlock NAME] [--json FILE] [--html FILE] [--interval S] "
               "[--compare A,B,.. [--metric REGEX] [--repeat N]] -- PROGRAM [ARGS...]")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="PROGRAM [ARGS...]",
                   help="the program and its arguments (after --)")


def say(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def preload_lib(ctx, given):
    return clof_common.find_preload_lib(CMD, ctx, given)


_ctx = None  # main's: lock_name asks clof-lockname next to the programs


def lock_name(name):
    """name spelled canonically (the lock grammar, docs/locks.md); glibc for pthread"""
    n = clof_common.lock_name(CMD, _ctx, name)
    return "glibc" if n == "pthread" else n


def check_lock(lib, name, extra_env=None):
    """the library names a lock it does not know on stderr: refuse it"""
    if name == "glibc":
        return
    e = dict(os.environ)
    e.update(extra_env or {})
    e.update({"LD_PRELOAD": lib, "CLOF_LOCK": name})
    e.pop("CLOF_PROFILE", None)
    r = subprocess.run(["true"], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    msg = r.stderr.strip()
    if "running on glibc" in msg:
        msg = msg.replace("running on glibc's pthread mutexes: ", "")
        die(msg.replace("clof-preload: ", "the preload library says: ", 1))


def check_rwlock(lib, name):
    """an rwlock name the library does not know: refuse it, with its list
    (the library reads CLOF_RWLOCK at the first rwlock call: make one)"""
    if name == "glibc":
        return
    e = dict(os.environ)
    e.update({"LD_PRELOAD": lib, "CLOF_RWLOCK": name})
    e.pop("CLOF_PROFILE", None)
    code = ("import ctypes; b = ctypes.create_string_buffer(64); l = ctypes.CDLL(None); "
            "l.pthread_rwlock_rdlock(b); l.pthread_rwlock_unlock(b)")
    r = subprocess.run([sys.executable, "-c", code], env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    msg = r.stderr.strip()
    if "unknown CLOF_RWLOCK" in msg:
        msg = msg.replace("running on glibc's pthread rwlocks: ", "")
        die(msg.replace("clof-preload: ", "the preload library says: ", 1))


# ---- the profile file (src/preload/pl_profile.c writes it) ----------------------------
def parse_profile(path):
    """{'final': header+locks+sites+maps or None, 'snaps': [(t, {addr: lock})]}"""
    out = {"final": None, "snaps": []}
    cur = None
    maps = None
    with open(path, errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if maps is not None:
                if line == "endmaps":
                    cur["maps"] = maps
                    maps = None
                else:
                    maps.append(line)
                continue
            w = line.split()
            if not w:
                continue
            try:
                if w[0] in ("snap", "final", "hang"):
                    head = dict(x.split("=", 1) for x in w[3:] if "=" in x)
                    cur = {"what": w[0], "t": int(w[1]), "why": w[2], "head": head,
                           "locks": {}, "sites": {}, "maps": []}
                elif w[0] == "L" and cur is not None:
                    v = [int(x) for x in w[3:13]]
                    cur["locks"][int(w[1], 16)] = {
                        "addr": int(w[1], 16), "kind": int(w[2]), "acq": v[0], "contended": v[1],
                        "wait_ns": v[2], "wait_max_ns": v[3], "hold_ns": v[4], "hold_n": v[5],
                        "hold_max_ns": v[6], "busy": v[7], "timeouts": v[8], "rd_acq": v[9],
                        "first_pc": int(w[13], 16), "other_n": int(w[14]),
                        "other_wait_ns": int(w[15])}
                elif w[0] == "S" and cur is not None:
                    cur["sites"].setdefault(int(w[1], 16), []).append(
                        {"pc": int(w[2], 16), "n": int(w[3]), "wait_ns": int(w[4]),
                         "wait_max_ns": int(w[5])})
                elif w[0] == "maps" and cur is not None:
                    maps = []
                elif w[0] in ("E", "LH", "T", "HE") and cur is not None:
                    clof_lockorder.parse_line(w, cur)
                elif w[0] == "end" and cur is not None:
                    if cur["what"] == "hang":
                        out.setdefault("hangs", []).append(cur)
                    elif cur["what"] == "final":
                        out["final"] = cur
                    else:
                        out["snaps"].append(cur)
                    cur = None
            except (ValueError, IndexError):
                die("%s:%d: a malformed profile line (expected the format of docs/profile.md): %r"
                    % (path, lineno, line[:120]), 1)
    return out


# ---- naming addresses --------------------------------------------------------------------
def parse_maps(lines):
    maps = []
    for line in lines:
        w = line.split(None, 5)
        if len(w) < 6 or not w[5].startswith("/"):
            continue
        a, b = w[0].split("-")
        maps.append((int(a, 16), int(b, 16), int(w[2], 16), w[5]))
    return maps


def elf_loads(path, cache={}):
    """the PT_LOAD segments (offset, vaddr, filesz) of an ELF64 file"""
    if path in cache:
        return cache[path]
    segs = []
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if h[:4] == b"\x7fELF" and h[4] == 2:
                en = "<" if h[5] == 1 else ">"
                phoff, = struct.unpack(en + "Q", h[32:40])
                phentsize, phnum = struct.unpack(en + "HH", h[54:58])
                f.seek(phoff)
                for _ in range(phnum):
                    ph = f.read(phentsize)
                    ptype, _flags, off, vaddr, _pa, filesz, memsz = struct.unpack(
                        en + "IIQQQQQ", ph[:48])
                    if ptype == 1:
                        segs.append((off, vaddr, filesz, memsz))
    except OSError:
        pass
    cache[path] = segs
    return segs


def file_addr(maps, addr):
    """(file, address in the file's ELF terms) of a run-time address, or None"""
    for start, end, off, path in maps:
        if start <= addr < end:
            foff = addr - start + off
            for so, sv, sz, _ in elf_loads(path):
                if so <= foff < so + max(sz, 1):
                    return path, sv + (foff - so)
            return path, foff
    return None


def addr2line(path, addrs):
    """{addr: (function, 'file:line' or '')} from addr2line"""
    out = {}
    exe = shutil.which("addr2line")
    if not exe or not addrs or not os.path.isfile(path):
        return out
    addrs = sorted(set(addrs))
    r = subprocess.run([exe, "-f", "-C", "-e", path] + ["%x" % a for a in addrs],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = r.stdout.splitlines()
    for i, a in enumerate(addrs):
        if 2 * i + 1 >= len(lines):
            break
        fn, loc = lines[2 * i], lines[2 * i + 1]
        loc = "" if loc.startswith("??") else re.sub(r" \(discriminator \d+\)", "", loc)
        out[a] = ("" if fn == "??" else fn, loc)
    return out


def symbols(path, types, cache={}):
    """[(start, size, name)] of the file's symbols whose nm type is in
    types (the symbol table, and the dynamic one for stripped files),
    sorted"""
    if (path, types) in cache:
        return cache[(path, types)]
    syms = {}
    exe = shutil.which("nm")
    if exe and os.path.isfile(path):
        for extra in ([], ["-D"]):
            r = subprocess.run([exe, "-C", "-S", "--defined-only"] + extra + [path],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            for line in r.stdout.splitlines():
                w = line.split(None, 3)
                if len(w) == 4 and w[2] in types:
                    try:
                        syms.setdefault(int(w[0], 16), (int(w[1], 16), w[3]))
                    except ValueError:
                        pass
    out = sorted((a, sz, n) for a, (sz, n) in syms.items())
    cache[(path, types)] = out
    return out


def containing(syms, va):
    """the name of the symbol whose [start, start + size) holds va, or "" """
    i = bisect.bisect_right(syms, (va, float("inf"), "")) - 1
    for start, size, name in syms[max(i - 3, 0):i + 1][::-1]:  # aliases share a start
        if start <= va < start + max(size, 1):
            return name
    return ""


def data_symbols(path):
    return symbols(path, "bBdDsSgGvV")


class Namer:
    """names code addresses (call sites) and data addresses (locks) with the
    maps of the process at its exit"""

    def __init__(self, maps_lines):
        self.maps = parse_maps(maps_lines)
        self.code = {}

    def resolve(self, pcs):
        byfile = {}
        where = {}
        for pc in pcs:
            fa = file_addr(self.maps, pc - 1)  # a return address: the call is before it
            if fa:
                byfile.setdefault(fa[0], []).append(fa[1])
                where[pc] = fa
        names = {}
        for path, addrs in byfile.items():
            names[path] = addr2line(path, addrs)
        for pc in pcs:
            fa = where.get(pc)
            if fa is None:
                self.code[pc] = {"pc": "0x%x" % pc, "function": "", "source": "", "object": ""}
                continue
            fn, loc = names[fa[0]].get(fa[1], ("", ""))
            # addr2line names the nearest symbol before an address even where
            # that symbol ends before it (stripped libraries: the next
            # exported one): keep a name only where a symbol holds the address
            # (a name with a source line comes from debug information: right)
            if not loc:
                fn = containing(symbols(fa[0], "tTwWiu"), fa[1])
            self.code[pc] = {"pc": "0x%x" % pc, "function": fn, "source": loc,
                             "object": os.path.basename(fa[0]), "offset": fa[1]}

    def site(self, pc):
        s = self.code.get(pc) or {"pc": "0x%x" % pc, "function": "", "source": "", "object": ""}
        return s

    @staticmethod
    def site_text(s):
        if s["function"]:
            fn = short_fn(s["function"])
            if fn.startswith("pl_") and s["object"].startswith("libclof-preload"):
                fn = "(inside %s: pthread_cond_wait's relock)" % fn if "relock" in fn or "cond" in fn \
                     else "(inside libclof-preload: %s)" % fn
            t = fn
            if s["source"]:
                t += " at " + os.path.basename(s["source"])
            return t + (" [%s]" % s["object"] if s["object"] else "")
        if s["object"]:
            return "%s+0x%x (no symbol)" % (s["object"], s.get("offset") or 0)
        return s["pc"]

    def data(self, addr):
        """the name of the data object at addr (a lock in a program's or a
        library's static data, .bss included), or "" """
        bias = {}
        for start, _end, off, path in self.maps:
            if path in bias:
                continue
            for so, sv, sz, _ in elf_loads(path):
                if so <= off < so + max(sz, 1):
                    bias[path] = start - (sv + (off - so))
                    break
        for path, b in bias.items():
            va = addr - b
            if not any(sv <= va < sv + msz for _, sv, _, msz in elf_loads(path)):
                continue
            for start, size, name in data_symbols(path):
                if start <= va < start + max(size, 1):
                    return name if va == start else "%s+%d" % (name, va - start)
            return ""
        return ""


# ---- the report --------------------------------------------------------------------------
fmt_ns = clof_common.fmt_ns


def build(prof, cmdline, lock, run_s, status, top_sites):
    """the profile as the JSON object of docs/profile.md"""
    fin = prof["final"]
    if fin is None:
        return None
    namer = Namer(fin["maps"])
    pcs = set()
    for L in fin["locks"].values():
        if L["first_pc"]:
            pcs.add(L["first_pc"])
    for ss in fin["sites"].values():
        pcs.update(s["pc"] for s in ss)
    pcs.update(clof_lockorder.pcs_of(fin))
    namer.resolve(pcs)
    start = int(fin["head"].get("start", "0") or 0)
    span_ns = max(fin["t"] - start, 1)
    locks = []
    for addr, L in fin["locks"].items():
        kind = KINDS.get(L["kind"], "kind%d" % L["kind"])
        sites = sorted(fin["sites"].get(addr, []), key=lambda s: -s["wait_ns"])
        name = namer.data(addr)
        first = namer.site(L["first_pc"]) if L["first_pc"] else None
        rec = {
            "address": "0x%x" % addr, "kind": kind, "name": name,
            "first_used_at": first,
            "acquisitions": L["acq"], "contended": L["contended"],
            "wait_ns": L["wait_ns"], "wait_max_ns": L["wait_max_ns"],
            "wait_share": L["wait_ns"] / span_ns,
            "hold_avg_ns": (L["hold_ns"] / L["hold_n"]) if L["hold_n"] else None,
            "hold_max_ns": L["hold_max_ns"] if L["hold_n"] else None,
            "hold_samples": L["hold_n"],
            "trylock_busy": L["busy"], "timeouts": L["timeouts"],
            "sites": [dict(namer.site(s["pc"]), waits=s["n"], wait_ns=s["wait_ns"],
                           wait_max_ns=s["wait_max_ns"]) for s in sites],
            "other_sites": {"waits": L["other_n"], "wait_ns": L["other_wait_ns"]},
        }
        if kind == "rwlock":
            # acq: write acquisitions, rd_acq: read acquisitions (holds not sampled)
            rec["acquisitions"] = L["acq"] + L["rd_acq"]
            rec["read_acquisitions"] = L["rd_acq"]
            rec["write_acquisitions"] = L["acq"]
        if kind == "cond":
            rec = {"address": rec["address"], "kind": kind, "name": name,
                   "first_used_at": first, "waits": L["acq"], "wait_ns": L["wait_ns"],
                   "wait_max_ns": L["wait_max_ns"], "wait_share": L["wait_ns"] / span_ns,
                   "timeouts": L["timeouts"], "signals": L["busy"], "broadcasts": L["rd_acq"],
                   "sites": rec["sites"], "other_sites": rec["other_sites"]}
        locks.append(rec)
    locks.sort(key=lambda r: (-r["wait_ns"], -r.get("acquisitions", r.get("waits", 0))))
    # the timeline: wait per interval of the locks that waited most
    timeline = []
    prev_t, prev = start, {}
    for snap in prof["snaps"] + [fin]:
        cur = {a: L["wait_ns"] for a, L in snap["locks"].items() if L["kind"] != 1}
        cont = {a: L["contended"] for a, L in snap["locks"].items() if L["kind"] != 1}
        dt = snap["t"] - prev_t
        if dt <= 0:
            continue
        timeline.append({"t_s": (snap["t"] - start) / 1e9, "interval_s": dt / 1e9,
                         "wait_ns": {"0x%x" % a: cur[a] - prev.get(a, (0, 0))[0]
                                     for a in cur if cur[a] - prev.get(a, (0, 0))[0] > 0},
                         "contended": {"0x%x" % a: cont[a] - prev.get(a, (0, 0))[1]
                                       for a in cont if cont[a] - prev.get(a, (0, 0))[1] > 0}})
        prev = {a: (cur[a], cont[a]) for a in cur}
        prev_t = snap["t"]
    head = fin["head"]
    return {
        "command": cmdline, "lock": head.get("lock", lock), "rwlock": head.get("rwlock", "glibc"),
        "pid": int(head.get("pid", 0)),
        "run_s": run_s, "profiled_s": span_ns / 1e9, "exit": status, "ended_by": fin["why"],
        "hold_sample": int(head.get("hold_sample", 0)),
        "locks_dropped": int(head.get("dropped", 0)),
        "locks": locks, "timeline": timeline if len(timeline) > 1 else [],
        **tracking(fin, namer),
    }


def tracking(sec, namer):
    """lock tracking's sections (clof_lockorder): lock_order, long_holds, wait_for"""
    first = {a: L["first_pc"] for a, L in sec["locks"].items()}
    out = clof_lockorder.build(sec, namer, KINDS, first, sec["head"])
    if sec["head"].get("hang") == "1" and sec.get("threads"):
        out["wait_for_at_end"] = clof_lockorder.wait_for(sec, namer, KINDS, first)
    return out


def hang_report(sec):
    """a "hang" section of the profile file: its wait-for graph, in JSON and text"""
    namer = Namer(sec["maps"])
    namer.resolve(clof_lockorder.pcs_of(sec))
    wf = clof_lockorder.wait_for(sec, namer, KINDS, {})
    start = int(sec["head"].get("start", "0") or 0)
    when = "%s at %.2f s" % (sec["why"], (sec["t"] - start) / 1e9)
    wf["when"] = when
    return wf, "\n".join(clof_lockorder.hang_text(wf, Namer.site_text, when,
                                                  int(sec["head"].get("pid", 0)))) + "\n"


def short_fn(fn):
    """a C++ name without its parameter list"""
    return fn.split("(", 1)[0] if "(" in fn and not fn.startswith("(") else fn


def lock_label(r):
    if r["name"]:
        return r["name"]
    f = r.get("first_used_at")
    if f and f["function"]:
        return "%s (first: %s)" % (r["address"], short_fn(f["function"]))
    return r["address"]


def text_report(rep, top, nsites):
    out = []
    mut = [r for r in rep["locks"] if r["kind"] != "cond"]
    conds = [r for r in rep["locks"] if r["kind"] == "cond"]
    waited = [r for r in mut if r["contended"]]
    tw = sum(r["wait_ns"] for r in mut)
    out.append("clof profile: %s" % " ".join(rep["command"]))
    out.append("  lock %s, rwlock %s, run %.2f s, %s; %d locks used, %d contended; %s waiting "
               "in all (%.1f%% of the run time; several threads waiting at once count each)"
               % (rep["lock"], rep.get("rwlock", "glibc"), rep["run_s"], status_text(rep["exit"]), len(mut), len(waited),
                  fmt_ns(tw), 100.0 * tw / 1e9 / max(rep["profiled_s"], 1e-9)))
    out.append("  hold times: 1 acquisition in %d of each mutex timed" % rep["hold_sample"]
               if rep["hold_sample"] < 2 ** 62 else "  hold times: not timed")
    if rep["locks_dropped"]:
        out.append("  %d acquisitions were of locks beyond the profile's table "
                   "(it holds 65,536 lock addresses)" % rep["locks_dropped"])
    out.append("")
    hdr = "%3s  %-50s %-6s %11s %18s %10s %6s %10s %10s %10s" % (
        "#", "lock", "kind", "acquired", "contended", "wait", "%run", "wait max", "hold avg",
        "hold max")
    out.append(hdr)
    for i, r in enumerate(mut[:top], 1):
        pct = 100.0 * r["contended"] / r["acquisitions"] if r["acquisitions"] else 0.0
        out.append("%3d  %-50s %-6s %11d %10d (%4.1f%%) %10s %5.1f%% %10s %10s %10s" % (
            i, lock_label(r)[:50], r["kind"], r["acquisitions"], r["contended"], pct,
            fmt_ns(r["wait_ns"]), 100 * r["wait_share"], fmt_ns(r["wait_max_ns"]),
            fmt_ns(r["hold_avg_ns"]), fmt_ns(r["hold_max_ns"])))
        if r["kind"] == "rwlock":
            out.append("       %9d reads, %d writes" % (r["read_acquisitions"],
                                                        r["write_acquisitions"]))
        for s in r["sites"][:nsites]:
            out.append("       %9d waits %10s (max %s)  %s" % (
                s["waits"], fmt_ns(s["wait_ns"]), fmt_ns(s["wait_max_ns"]), Namer.site_text(s)))
        if r["other_sites"]["waits"]:
            out.append("       %9d waits %10s  from other call sites" % (
                r["other_sites"]["waits"], fmt_ns(r["other_sites"]["wait_ns"])))
    if len(mut) > top:
        out.append("  ... %d more locks (--top, --json)" % (len(mut) - top))
    if conds:
        out.append("")
        out.append("condition variables (time waited for a signal: waiting for work, not for a lock)")
        for r in conds[:top]:
            out.append("  %-44s waits %d, %s waited (max %s), signals %d, broadcasts %d%s" % (
                lock_label(r)[:44], r["waits"], fmt_ns(r["wait_ns"]), fmt_ns(r["wait_max_ns"]),
                r["signals"], r["broadcasts"],
                ("; waits from " + Namer.site_text(r["sites"][0])) if r["sites"] else ""))
    if rep.get("lock_order"):
        out.append("")
        out.extend(clof_lockorder.order_text(rep["lock_order"], Namer.site_text))
    if rep.get("long_holds"):
        out.append("")
        out.extend(clof_lockorder.long_text(rep["long_holds"], Namer.site_text, top))
    if rep.get("wait_for_at_end") and rep["wait_for_at_end"]["waiting"]:
        out.append("")
        out.extend(clof_lockorder.hang_text(rep["wait_for_at_end"], Namer.site_text,
                                            "at the end, " + rep["ended_by"], rep["pid"]))
    if rep["timeline"]:
        out.append("")
        out.append("timeline (wait per interval, the 3 locks that waited most)")
        tops = [r["address"] for r in mut[:3]]
        out.append("  %8s  " % "t (s)" + "  ".join("%22s" % (r["name"] or r["address"])[:22] for r in mut[:3]))
        for iv in rep["timeline"]:
            out.append("  %8.2f  " % iv["t_s"] + "  ".join(
                "%22s" % fmt_ns(iv["wait_ns"].get(a, 0)) for a in tops))
    return "\n".join(out) + "\n"


def status_text(st):
    if st is None:
        return "status unknown"
    if st < 0:
        try:
            return "killed by %s" % signal.Signals(-st).name
        except ValueError:
            return "killed by signal %d" % -st
    return "exit status %d" % st


# ---- HTML ---------------------------------------------------------------------------------
def svg_bars(items, title, width=900):
    """horizontal bars: items = [(label, value_ns)]"""
    items = [(l, v) for l, v in items if v > 0]
    if not items:
        return "<p>(no waits)</p>"
    bh, gap, left = 18, 6, 440
    h = 30 + len(items) * (bh + gap)
    vmax = max(v for _, v in items)
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
         'font-size="12">' % (width, h),
         '<text x="0" y="16" font-weight="bold">%s</text>' % html.escape(title)]
    for i, (label, v) in enumerate(items):
        y = 28 + i * (bh + gap)
        w = max(1, int((width - left - 90) * v / vmax))
        o.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                 % (left - 6, y + 13, html.escape(label[:64])))
        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="#c0504d"/>' % (left, y, w, bh))
        o.append('<text x="%d" y="%d">%s</text>' % (left + w + 4, y + 13, html.escape(fmt_ns(v))))
    o.append("</svg>")
    return "".join(o)


def svg_timeline(rep, width=900, height=260):
    mut = [r for r in rep["locks"] if r["kind"] != "cond"][:5]
    tl = rep["timeline"]
    if not tl or not mut:
        return ""
    colors = ["#c0504d", "#4f81bd", "#9bbb59", "#8064a2", "#f79646"]
    left, right, top, bottom = 60, 220, 24, 30
    tmax = max(iv["t_s"] for iv in tl) or 1
    # wait per second of each interval: the share of time spent waiting
    series = []
    for r in mut:
        series.append([(iv["t_s"], iv["wait_ns"].get(r["address"], 0) / 1e9 / iv["interval_s"])
                       for iv in tl])
    vmax = max([v for s in series for _, v in s] + [1e-9])
    pw, ph = width - left - right, height - top - bottom
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
         'font-size="12">' % (width, height),
         '<text x="0" y="14" font-weight="bold">waiting per second of run (thread-seconds/s), '
         'per interval</text>',
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (left, top + ph, left + pw, top + ph),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (left, top, left, top + ph),
         '<text x="%d" y="%d" text-anchor="end">%.2f</text>' % (left - 4, top + 10, vmax),
         '<text x="%d" y="%d" text-anchor="end">0</text>' % (left - 4, top + ph),
         '<text x="%d" y="%d" text-anchor="end">%.1f s</text>' % (left + pw, top + ph + 18, tmax)]
    for k, (r, s) in enumerate(zip(mut, series)):
        pts = " ".join("%.1f,%.1f" % (left + pw * t / tmax, top + ph - ph * v / vmax) for t, v in s)
        o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (colors[k], pts))
        o.append('<text x="%d" y="%d" fill="%s">%s</text>'
                 % (left + pw + 8, top + 14 + 16 * k, colors[k], html.escape(lock_label(r)[:30])))
    o.append("</svg>")
    return "".join(o)


def html_report(rep, top, nsites, compare):
    import clof_cmd_report
    mut = [r for r in rep["locks"] if r["kind"] != "cond"]
    blocks = [("h", 1, "clof profile: %s" % os.path.basename(rep["command"][0])),
              ("p", "`%s`" % " ".join(rep["command"])[:300]),
              ("p", "lock **%s**, rwlock **%s**, run %.2f s, %s, %d locks used, %d contended; "
                    "hold times timed 1 acquisition in %d." % (rep["lock"],
                                                               rep.get("rwlock", "glibc"),
                                                               rep["run_s"],
                                                     status_text(rep["exit"]), len(mut),
                                                     sum(1 for r in mut if r["contended"]),
                                                     rep["hold_sample"]))]
    blocks.append(("raw", svg_bars([(lock_label(r), r["wait_ns"]) for r in mut[:top]],
                                   "total wait per lock")))
    sites = []
    for r in mut[:top]:
        for s in r["sites"][:nsites]:
            sites.append(("%s: %s" % (r["name"] or r["address"], Namer.site_text(s)), s["wait_ns"]))
    sites.sort(key=lambda x: -x[1])
    blocks.append(("raw", svg_bars(sites[:15], "total wait per call site")))
    if rep["timeline"]:
        blocks.append(("h", 2, "Timeline"))
        blocks.append(("raw", svg_timeline(rep)))
    blocks.append(("h", 2, "Locks"))
    rows = []
    for i, r in enumerate(mut[:top], 1):
        pct = 100.0 * r["contended"] / r["acquisitions"] if r["acquisitions"] else 0.0
        rows.append([i, lock_label(r), r["kind"], r["acquisitions"],
                     "%d (%.1f%%)" % (r["contended"], pct), fmt_ns(r["wait_ns"]),
                     "%.1f%%" % (100 * r["wait_share"]), fmt_ns(r["wait_max_ns"]),
                     fmt_ns(r["hold_avg_ns"]), fmt_ns(r["hold_max_ns"]),
                     "; ".join("%s (%d, %s)" % (Namer.site_text(s), s["waits"], fmt_ns(s["wait_ns"]))
                               for s in r["sites"][:nsites])])
    blocks.append(("table", ["#", "lock", "kind", "acquired", "contended", "wait", "% run",
                             "wait max", "hold avg", "hold max", "call sites that waited most"],
                   rows))
    if rep.get("lock_order"):
        blocks.append(("h", 2, "Lock-order inversions"))
        blocks.append(("pre", "\n".join(clof_lockorder.order_text(rep["lock_order"],
                                                                  Namer.site_text))))
    if rep.get("long_holds"):
        blocks.append(("h", 2, "Long holds"))
        blocks.append(("pre", "\n".join(clof_lockorder.long_text(rep["long_holds"],
                                                                 Namer.site_text, top))))
    for h in rep.get("hangs", []):
        blocks.append(("h", 2, "Wait-for graph (%s)" % h["when"]))
        blocks.append(("pre", h["text"]))
    if compare:
        blocks.append(("h", 2, "Under other locks"))
        blocks.append(("pre", compare_text(compare)))
    blocks.append(("p", "Made by `clof profile` (docs/profile.md)."))
    return clof_cmd_report.html_render(blocks, "clof profile", ".")


# ---- running ---------------------------------------------------------------------------------
def run_profiled(lib, lock, prog, workdir, interval, quiet, extra_env=None, hang=None,
                 timeout=None, watch=None):
    """run prog under the profile; (report input, wall s, status, pid).
    quiet: the program's output is captured (returned), else it passes through.
    timeout: seconds, then the program (its process group) is killed and the
    status is None.  watch(popen): called once it started (clof select
    --workload cmd counts its threads)"""
    prefix = os.path.join(workdir, "prof")
    env = dict(os.environ)
    env.update(extra_env or {})
    env.update({"LD_PRELOAD": lib, "CLOF_LOCK": lock, "CLOF_PROFILE": prefix})
    env.pop("CLOF_STATS", None)
    if interval:
        env["CLOF_PROFILE_INTERVAL_MS"] = str(max(1, int(interval * 1000)))
    else:
        env.pop("CLOF_PROFILE_INTERVAL_MS", None)
    t0 = time.monotonic()
    # SIGINT from the terminal reaches the program (same process group): we
    # wait for it to end, then report
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        try:
            p = subprocess.Popen(prog, env=env, stdout=subprocess.PIPE if quiet else None,
                                 stderr=subprocess.STDOUT if quiet else None,
                                 restore_signals=True, start_new_session=timeout is not None,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        except OSError as e:
            die("%s: %s" % (prog[0], e.strerror), 2)
        if watch:
            watch(p)
        if hang is not None and not quiet:
            st = watch_hangs(p, "%s.%d" % (prefix, p.pid), hang)
            output = None
        else:
            try:
                output = p.communicate(timeout=timeout)[0] if quiet else None
                st = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                output = p.communicate()[0] if quiet else None
                p.wait()
                st = None
    finally:
        signal.signal(signal.SIGINT, old)
    wall = time.monotonic() - t0
    path = "%s.%d" % (prefix, p.pid)
    prof = parse_profile(path) if os.path.isfile(path) else None
    others = sorted(f for f in os.listdir(workdir) if f.startswith("prof.") and f != os.path.basename(path))
    pid = p.pid
    if (prof is None or prof["final"] is None or not prof["final"]["locks"]) and others:
        # the process started took no lock (a shell, a launcher): the
        # process among the others that took most
        best = None
        for f in others:
            o = parse_profile(os.path.join(workdir, f))
            n = sum(L["acq"] for L in o["final"]["locks"].values()) if o["final"] else 0
            if n > 0 and (best is None or n > best[0]):
                best = (n, f, o)
        if best:
            say("clof profile: %s took no lock; reporting its child process %s"
                % (prog[0], best[1].split(".")[-1]))
            others = [f for f in others if f != best[1]] + [os.path.basename(path)]
            prof, pid = best[2], int(best[1].split(".")[-1])
    return prof, wall, st, pid, output, others


def watch_hangs(p, path, hang):
    """wait for p; print each wait-for graph it writes (SIGQUIT: ours after
    hang["after"] seconds, or the user's); hang["reports"] collects them"""
    t0 = time.monotonic()
    sent = hang.get("after") is None
    seen = 0
    while True:
        try:
            st = p.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            st = None
        if not sent and time.monotonic() - t0 >= hang["after"] and st is None:
            sent = True
            try:
                os.kill(p.pid, signal.SIGQUIT)
            except ProcessLookupError:
                pass
        if os.path.isfile(path):
            hangs = parse_profile(path).get("hangs", [])
            for sec in hangs[seen:]:
                wf, text = hang_report(sec)
                wf["text"] = text
                hang["reports"].append(wf)
                say("\nclof profile: " + text.rstrip("\n"))
            seen = len(hangs)
        if st is not None:
            return st


def median(xs):
    return statistics.median(xs) if xs else None


def compare_text(rows):
    out = ["%-22s %12s %10s %12s %12s %s" % ("lock", "figure", "run (s)", "total wait",
                                            "top wait", "top lock")]
    for r in rows:
        out.append("%-22s %12s %10.2f %12s %12s %s" % (
            r["lock"], "-" if r["figure"] is None else "%.6g" % r["figure"], r["run_s"],
            fmt_ns(r["wait_ns"]), fmt_ns(r["top_wait_ns"]), r["top_lock"][:60]))
    return "\n".join(out)


def select_locks(ctx, word):
    """the HC-best and LC-best locks of a `clof select` folder (select:DIR,
    or "select": the newest select-* of the results folder), with the
    environment of its clof-best.env (the hierarchy the selection used)"""
    d = word[len("select:"):] if word.startswith("select:") else ""
    if not d:
        res = ctx.results_dir()
        dirs = [x for x in glob.glob(os.path.join(res, "select-*"))
                if os.path.isfile(os.path.join(x, "ranking.json"))]
        if not dirs:
            die("--compare select: no select-*/ with a ranking.json under %s (`clof select` "
                "makes one; or give select:DIR)" % res)
        d = max(dirs, key=os.path.getmtime)
    path = os.path.join(d, "ranking.json")
    try:
        with open(path) as f:
            rk = json.load(f)
    except (OSError, ValueError) as e:
        die("--compare %s: %s: not a clof select ranking (%s)" % (word, path, e))
    env = {}
    envf = os.path.join(d, "clof-best.env")
    if os.path.isfile(envf):
        with open(envf) as f:
            for i, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if "=" not in line:
                    die("%s:%d: expected NAME=VALUE" % (envf, i))
                k, v = line.split("=", 1)
                if k.strip() != "CLOF_LOCK":
                    env[k.strip()] = v.strip()
    out = []
    for key in ("hc_best", "lc_best"):
        name = rk.get(key)
        if name and lock_name(name) not in [n for n, _ in out]:
            out.append((lock_name(name), env))
    if not out:
        die("--compare %s: %s names no HC-best or LC-best lock" % (word, path))
    say("clof profile: --compare %s: %s (from %s)" % (word, ", ".join(n for n, _ in out), d))
    return out


def compile_metric(text):
    """--metric REGEX, compiled; dies when it is no regex or has no group"""
    try:
        metric = re.compile(text)
    except re.error as e:
        die("--metric %r: not a regular expression: %s" % (text, e))
    if metric.groups < 1:
        die("--metric %r: the regular expression needs a group, e.g. 'ops/s: ([0-9.]+)'" % text)
    return metric


def measure_once(lib, lock, prog, env, metric, keep, timeout=None, watch=None):
    """one run of prog under lock (CLOF_LOCK; env: more of the library's
    variables) with the profile; its figure: the first group of metric in
    its output (stdout and stderr), else its run time.  Returns {figure,
    wall_s, status (None: killed at the timeout), output (its tail),
    profile (clof profile's report of the run, or None)}.  clof profile
    --compare and clof select --workload cmd measure with it."""
    d = tempfile.mkdtemp(prefix="clof-profile-", dir=keep)
    try:
        prof, wall, st, pid, output, _ = run_profiled(lib, lock, prog, d, None, True, env,
                                                      timeout=timeout, watch=watch)
        if keep:
            with open(os.path.join(d, "output.txt"), "wb") as f:
                f.write(output or b"")
        text = (output or b"").decode("utf-8", "replace")
        fig = wall
        if metric:
            m = metric.search(text)
            fig = None
            if m:
                try:
                    fig = float(m.group(1))
                except ValueError:
                    fig = None
        try:
            rep = build(prof, prog, lock, wall, st, 1) if prof else None
        except (KeyError, ValueError, IndexError):
            rep = None
    finally:
        if not keep:
            shutil.rmtree(d, ignore_errors=True)
    return {"figure": fig, "wall_s": wall, "status": st, "output": text[-400:], "profile": rep}


def run_compare(args, lib, prog, keep, ctx):
    locks, envs = ["glibc"], {"glibc": {}}
    for x in args.compare.split(","):
        x = x.strip()
        if not x:
            continue
        picked = select_locks(ctx, x) if x == "select" or x.startswith("select:") \
            else [(lock_name(x), {})]
        for name, env in picked:
            if name not in locks:
                locks.append(name)
                envs[name] = env
    for l in locks:
        check_lock(lib, l, envs[l])
    metric = compile_metric(args.metric) if args.metric else None
    res = {l: [] for l in locks}
    for rep_i in range(max(1, args.repeat)):
        for l in locks:  # interleaved
            r = measure_once(lib, l, prog, envs[l], metric, keep)
            if r["figure"] is None and metric:
                say("clof profile: --metric %r found no number in the output of the run "
                    "under %s" % (args.metric, l))
            if r["status"] != 0:
                say("clof profile: the run under %s ended with %s" % (l, status_text(r["status"])))
            fig, wall = r["figure"], r["wall_s"]
            res[l].append((fig, wall, r["profile"]))
            say("  %s run %d: %s%s" % (l, rep_i + 1, "figure %.6g, " % fig if fig is not None and metric else "",
                                      "%.2f s" % wall))
    rows = []
    for l in locks:
        reps = [x[2] for x in res[l] if x[2]]
        waits = [sum(r["wait_ns"] for r in rp["locks"] if r["kind"] != "cond") for rp in reps]
        tops = [next((r for r in rp["locks"] if r["kind"] != "cond"), None) for rp in reps]
        top = tops[-1] if tops else None
        rows.append({"lock": l, "runs": len(res[l]),
                     "figure": median([x[0] for x in res[l] if x[0] is not None]),
                     "figure_is": "metric" if metric else "run time (s)",
                     "run_s": median([x[1] for x in res[l]]),
                     "wait_ns": median(waits) if waits else None,
                     "top_wait_ns": median([t["wait_ns"] for t in tops if t]) if top else None,
                     "top_lock": lock_label(top) if top else "-"})
    return rows


def tracking_env(args):
    """lock tracking's environment (CLOF_PROFILE_ORDER, _HANG, _LONG_US) and
    the hang watch, from the options"""
    env = {}
    hang = None
    if args.hang_after is not None and not (0.01 <= args.hang_after <= 86400):
        die("--hang-after %s: seconds between 0.01 and 86400" % args.hang_after)
    if args.long_holds is not None and not (0.001 <= args.long_holds <= 3600000):
        die("--long-holds %s: milliseconds between 0.001 and 3600000" % args.long_holds)
    if args.lock_order:
        env["CLOF_PROFILE_ORDER"] = "1"
    if args.hang or args.hang_after is not None:
        env["CLOF_PROFILE_HANG"] = "1"
        hang = {"after": args.hang_after, "reports": []}
    if args.long_holds is not None:
        env["CLOF_PROFILE_LONG_US"] = str(max(1, int(args.long_holds * 1000)))
    return env, hang


def main(args, ctx):
    global _ctx
    _ctx = ctx
    prog = list(args.program)
    if prog and prog[0] == "--":
        prog = prog[1:]
    if not prog:
        die("no program: clof profile [options] -- PROGRAM [ARGS]")
    if args.interval is not None and not (0.001 <= args.interval <= 86400):
        die("--interval %s: seconds between 0.001 and 86400" % args.interval)
    if args.metric and not args.compare:
        die("--metric goes with --compare")
    if args.top < 1 or args.sites < 0 or args.repeat < 1:
        die("--top and --repeat must be at least 1, --sites at least 0")
    lib = preload_lib(ctx, args.preload)
    lock = lock_name(args.lock)
    check_lock(lib, lock)
    if args.rwlock:
        args.rwlock = lock_name(args.rwlock)
        check_rwlock(lib, args.rwlock)
        os.environ["CLOF_RWLOCK"] = args.rwlock  # every run, --compare's too
    keep = None
    if args.keep:
        keep = os.path.abspath(args.keep)
        os.makedirs(keep, exist_ok=True)
    compare = None
    if args.compare:
        say("clof profile: comparing locks (the program's output is not shown%s)"
            % ("; kept in %s" % keep if keep else ""))
        compare = run_compare(args, lib, prog, keep, ctx)
    workdir = tempfile.mkdtemp(prefix="clof-profile-", dir=keep)
    track_env, hang = tracking_env(args)
    prof, wall, st, pid, _, others = run_profiled(lib, lock, prog, workdir, args.interval,
                                                  bool(compare), track_env, hang)
    rep = build(prof, prog, lock, wall, st, args.sites) if prof else None
    if rep is not None and hang is not None:
        rep["hangs"] = hang["reports"]
    if rep is None:
        say("clof profile: no profile from %s (pid %d): it ended before writing one (killed "
            "by SIGKILL, _exit, or exec of another program), or it is not dynamically linked "
            "against pthreads%s" % (prog[0], pid, "" if keep else ""))
    else:
        if compare:
            rep["compare"] = compare
        if others:
            rep["other_processes"] = others
        sys.stderr.write("\n" + text_report(rep, args.top, args.sites))
        if compare:
            sys.stderr.write("\nunder other locks (%s, %s; median of %d run%s)\n%s\n"
                             % ("figure: " + args.metric if args.metric else "figure: run time (s)",
                                "interleaved", args.repeat, "s" if args.repeat > 1 else "",
                                compare_text(compare)))
        if others:
            sys.stderr.write("(%d other processes profiled: their files %s in %s)\n"
                             % (len(others), " ".join(others[:5]),
                                workdir if keep else "were not kept (--keep DIR)"))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rep, f, indent=1)
                f.write("\n")
        if args.html:
            with open(args.html, "w") as f:
                f.write(html_report(rep, args.top, args.sites, compare))
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    if rep is not None:
        clof_common.wrote(CMD, [args.json, args.html, keep])
    sys.stderr.flush()
    if st < 0:
        # the program was killed by a signal: so are we
        sys.stdout.flush()
        if -st != signal.SIGKILL:  # SIGKILL's action cannot be set (nor caught)
            signal.signal(-st, signal.SIG_DFL)
        os.kill(os.getpid(), -st)
        return 128 - st
    return st
