# SPDX-License-Identifier: MIT
"""What the mutex selection (clof_cmd_select.py), the RW selection
(clof_select_rw.py) and the program selection (clof_select_program.py) share:
the arguments' checks, the hierarchy and its levels, the progress line, one
clof-bench run and the exit status.  Each of them imports this module; it
imports none of them."""

import functools
import json
import os
import platform
import random
import shlex
import subprocess
import sys
import time

import clof_common

CMD = "select"
die = functools.partial(clof_common.die, CMD)  # die(msg[, code]): `clof select: msg`, exit 2
DEFAULT_EMULATE = "numa:2,cache:2,core:2"
MAX_COMPOSITION_LEVELS = 4   # clof-bench's registry (gen_compositions.py --max-levels)


def lock_aliases():
    """names users may write for the basic locks of compositions -> the part's
    abbreviation: {"tkt": "tkt", "ticket": "tkt", ...} (the registry of basic
    locks, through clof-lockname)"""
    return clof_common.composition_parts()[1]


def parse_part_list(text):
    """--locks tkt,mcs,hemlock -> ["tkt", "mcs", "hem"]: each part once, in
    order; an unknown name exits 2 with the known ones"""
    aliases = lock_aliases()
    out = []
    for part in text.split(","):
        part = part.strip()
        if part not in aliases:
            die("--locks: unknown basic lock '%s'; known: %s" % (part, " ".join(sorted(aliases))))
        if aliases[part] not in out:
            out.append(aliases[part])
    return out


def sim_model_error_text():
    """how far the simulator's figures are from measured ones: the median
    |error| of the held-back points of sim/validate.py (written there by
    `sim/validate.py --record`; docs/simulation-accuracy.md)"""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim", "validation",
                        "model-error.json")
    try:
        with open(path) as f:
            d = json.load(f)
        return ("+-%.0f%% (model error: median |error| of the %d held-back points, "
                "docs/simulation-accuracy.md); differences below that are not findings"
                % (100 * d["median_abs_error_held"], d["points"]))
    except (OSError, ValueError, KeyError, TypeError):
        return "of unknown error here (docs/simulation-accuracy.md has the model's error)"


def parse_threads(text):
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            n = int(part)
        except ValueError:
            die("--threads: expected a comma-separated list of thread counts, got '%s'" % part)
        if n < 1:
            die("--threads: thread counts must be at least 1, got %d" % n)
        if n > 4096:
            die("--threads: at most 4096 threads (clof-bench), got %d" % n)
        if n not in out:
            out.append(n)
    return sorted(out)


def oversub_threads(text, cpus, threads):
    """(t_over, added): the oversubscribed thread count -- --oversub N
    (above cpus), 'none' (0), default 2 x cpus -- and whether it has to be
    added to the thread counts (it is not one of them already)"""
    if text is not None and text.strip() == "none":
        return 0, False
    if text is None:
        t = 2 * max(cpus, 1)
    else:
        try:
            t = int(text)
        except ValueError:
            die("--oversub: expected a thread count or 'none', got '%s'" % text)
        if t <= cpus:
            die("--oversub: %d threads is not above the %d cpus the runs may use" % (t, cpus))
    if t > 4096:
        die("--oversub: at most 4096 threads (clof-bench), got %d" % t)
    return t, t not in threads


def default_threads(ncpus):
    out, t = [], 1
    while t < ncpus:
        out.append(t)
        t *= 2
    out.append(ncpus)
    return out


def machine_info():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"hostname": platform.node(), "arch": platform.machine(), "cpu_model": model,
            "cpus_online": os.cpu_count(), "kernel": platform.release()}


def loadavg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def choose_hierarchy(ctx, args):
    """(json of the hierarchy, note): the one given (--topology, --emulate,
    CLOF_TOPOLOGY, CLOF_EMULATE), else this machine's.  A one-level machine
    (no NUMA nodes or cache groups: this 2-vCPU VM) keeps its one level: the
    selection for it measures the locks that make sense on its real cpus
    (issue 38); the compositions over an emulated machine are a
    demonstration (--emulate), never an artifact."""
    note = ""
    explicit = args.topology or args.emulate or os.environ.get("CLOF_TOPOLOGY") \
        or os.environ.get("CLOF_EMULATE")
    h = clof_common.load_hierarchy(ctx, args, all_levels=False, cmd=CMD)
    if len(h["levels"]) == 1 and not explicit:
        note = ("This machine (%s) shows one level only (%s cpus, no NUMA nodes or cache groups "
                "to compose over): the selection measures the locks that make sense on its real "
                "cpus (the basic locks, their cr: versions, glibc's). The compositions over an "
                "emulated machine are a demonstration that writes no artifact: clof select "
                "--emulate %s" % (platform.node(), h["ncpus"], DEFAULT_EMULATE))
    return h, note


def hetero(h):
    """the machine's cpus differ (big and little core types, both present)"""
    return sum(1 for v in (h.get("core_types") or {}).values() if v) > 1


def demo_reason(h, args):
    """why a selection writes no artifact for real programs: it ran on an
    emulated or simulated machine (None: it ran on this machine's cpus)"""
    if getattr(args, "simulate", None):
        return ("simulated machine (%s): the figures are simulated; no artifact for a real "
                "program" % args.simulate)
    if h.get("emulated"):
        return ("emulated machine (%s, virtual cpus): a demonstration of the compositions; no "
                "artifact for a real program (run without --emulate/CLOF_EMULATE for this "
                "machine's selection)" % h.get("origin"))
    return None


def choose_levels(h, text):
    kinds = [lv["kind"] for lv in h["levels"]]
    below = kinds[:-1]
    if text is None:
        chosen = below[-(MAX_COMPOSITION_LEVELS - 1):] if below else []
        dropped = below[:len(below) - len(chosen)]
        return chosen + ["system"], dropped
    chosen = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if part not in kinds:
            die("--levels: level '%s' is not in the hierarchy (%s %s); its levels are: %s"
                % (part, h["source"], h["origin"], ", ".join(kinds)))
        if part != "system" and part not in chosen:
            chosen.append(part)
    chosen.sort(key=kinds.index)
    if len(chosen) + 1 > MAX_COMPOSITION_LEVELS:
        die("--levels: %d levels with system, but clof-bench has compositions of at most %d "
            "levels (tools/gen_compositions.py --max-levels); choose at most %d below system"
            % (len(chosen) + 1, MAX_COMPOSITION_LEVELS, MAX_COMPOSITION_LEVELS - 1))
    return chosen + ["system"], []


def hierarchy_file(h, levels, path, ctx):
    """write the hierarchy with only `levels` to path; check it"""
    import clof_levels as lv
    full = lv.from_json(h)
    keep = [l for l in full["levels"] if l["kind"] in levels]
    sub = {"cpus": full["cpus"], "levels": keep, "core_types": full.get("core_types", {})}
    text = lv.hierarchy_text(sub, name="clof select: %s of %s" % (",".join(levels), h["origin"]),
                             comments=["levels %s of %s %s%s" % (
                                 ",".join(levels), h["source"], h["origin"],
                                 " (emulated)" if h.get("emulated") else "")])
    with open(path, "w") as f:
        f.write(text)
    chk = subprocess.run([ctx.helper("clof-topology"), "--check", path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if chk.returncode != 0:
        die("the hierarchy file %s does not check: %s" % (path, chk.stderr.strip()))
    return text


def fmt_s(s):
    s = int(round(s))
    return "%dm%02ds" % (s // 60, s % 60) if s >= 60 else "%ds" % s


class Progress:
    def __init__(self, total, quiet):
        self.total, self.done, self.quiet = total, 0, quiet
        self.t0 = time.time()
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def step(self, what):
        self.done += 1
        if self.quiet:
            return
        now = time.time()
        el = now - self.t0
        eta = el / self.done * (self.total - self.done)
        pct = 100.0 * self.done / self.total
        bar = "#" * int(pct / 5) + "-" * (20 - int(pct / 5))
        line = "clof select: [%s] %d/%d %3.0f%% elapsed %s ETA %s  %s" % (
            bar, self.done, self.total, pct, fmt_s(el), fmt_s(eta), what)
        if self.tty:
            sys.stderr.write("\r\033[K" + line[:150])
            if self.done == self.total:
                sys.stderr.write("\n")
        elif now - self.last >= 10 or self.done == self.total:
            sys.stderr.write(line + "\n")
            self.last = now
        sys.stderr.flush()


def run_bench(ctx, args, lock, threads, topo_flags, label, seed):
    argv = [ctx.helper("clof-bench"), "--lock", lock, "--threads", str(threads),
            "--duration", str(args.duration), "--cs-lines", str(args.cs_lines),
            "--non-cs", str(args.non_cs), "--seed", str(seed), "--label", label,
            "--json"] + topo_flags
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=60 + 20 * args.duration)
    except subprocess.TimeoutExpired:
        return None, "timed out (hung?): %s" % " ".join(map(shlex.quote, argv))
    rec = None
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            try:
                rec = json.loads(line)
            except ValueError:
                pass
    if r.returncode != 0 or rec is None:
        return rec, "exit %d: %s" % (r.returncode, (r.stderr.strip() or r.stdout.strip())[-300:])
    return rec, None


def out_dir(ctx, args, prefix):
    """the results folder (--out, else results/PREFIX-DATE), made; its absolute path"""
    out = args.out or os.path.join(ctx.results_dir(), prefix + time.strftime("%Y%m%d-%H%M%S"))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        die("--out %s: %s" % (out, e.strerror))
    return os.path.abspath(out)


def hierarchy_flags(ctx, args, h, levels, topo_path):
    """(clof-bench's hierarchy flags, the preload library's environment, the
    hierarchy file's text) for the chosen levels.  --simulate: clof-bench
    --levels reduces the simulated hierarchy (the compositions and HMCS
    alike) and no file is written; else the file topo_path."""
    if args.simulate:
        topo_flags = ["--simulate", args.simulate, "--placement", args.placement]
        if len(levels) < len(h["levels"]):
            topo_flags += ["--levels", ",".join(levels[:-1]) or "system"]
        return topo_flags, {}, ""
    topo_text = hierarchy_file(h, levels, topo_path, ctx)
    if h.get("emulated"):
        return (["--emulate", topo_path, "--placement", args.placement],
                {"CLOF_EMULATE": topo_path, "CLOF_EMULATE_ASSIGN": args.placement}, topo_text)
    return ["--topology", topo_path], {"CLOF_TOPOLOGY": topo_path}, topo_text


def run_rounds(path, runs, threads, locks, seed, quiet, run_one):
    """The measuring loop of clof select (mutexes and --rw alike): `runs`
    rounds; in each, for every thread count, every lock once in a seeded
    random order.  run_one(lock, threads, label, seed) -> (record or None,
    error or None) runs one; each record, marked with its round (and
    "failed" where it failed), goes to path (JSON lines) as it comes.
    Returns (records, failures)."""
    rng = random.Random(seed)
    prog = Progress(len(locks) * len(threads) * runs, quiet)
    failures, records = [], []
    with open(path, "w") as rf:
        for r in range(runs):
            for t in threads:
                order = list(locks)
                rng.shuffle(order)
                for lk in order:
                    rec, err = run_one(lk, t, "select run=%d" % r, seed * 1000 + r)
                    if rec is not None:
                        rec["select_run"] = r
                        if err:
                            rec["failed"] = err
                            rec.pop("ops_per_s", None)
                        rf.write(json.dumps(rec, sort_keys=True) + "\n")
                        rf.flush()
                        records.append(rec)
                    if err:
                        failures.append({"lock": lk, "threads": t, "run": r, "error": err})
                    prog.step("%s t=%d" % (lk, t))
    return records, failures


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)


def write_ranking(out, rk, text):
    """ranking.json, ranking.txt (text), and text on stdout"""
    write_json(os.path.join(out, "ranking.json"), rk)
    with open(os.path.join(out, "ranking.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def preflight(ctx, topo_flags):
    """one 10 ms run of mcs: clof-bench accepts the hierarchy flags (exit 2
    and its message otherwise); returns its record"""
    argv = [ctx.helper("clof-bench"), "--lock", "mcs", "--threads", "1", "--duration", "0.01",
            "--json"] + topo_flags
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if r.returncode != 0:
        die("clof-bench %s: %s" % (" ".join(topo_flags),
                                   r.stderr.strip().replace("clof-bench: ", "") or
                                   "exit %d" % r.returncode))
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    die("clof-bench printed no JSON record: %s" % r.stdout[-200:])


def exit_status(failures, picked, out):
    """select's exit status (0: a pick and no failed run), saying the first
    failed runs on stderr (also used by clof_select_rw.py)"""
    if failures:
        sys.stderr.write("clof select: %d runs failed (see %s): %s\n" % (
            len(failures), os.path.join(out, "params.json"),
            "; ".join("%s t=%d: %s" % (x["lock"], x["threads"], x["error"][:120])
                      for x in failures[:3])))
        return 1
    return 0 if picked else 1
