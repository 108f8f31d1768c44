#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make docs/perf.md (and its plot, docs/perf-oversub.svg) from the raw
files in docs/data, and check README.md's headline table against them.

    docs/data/make_perf.py            write docs/perf.md and the plot
    docs/data/make_perf.py --check    exit 1 if they differ from what the
                                      data gives (ctest docs.perf_page)

Every table and the plot are computed here from the runs' JSON lines and
CSV files with the statistics of bench/preload/summarize.py (medians of
per-repeat ratios, pooled repeats, the distribution-free interval of the
median), so a figure on the page cannot drift from its data.  To put a
newer run on the page, add its file to docs/data and name it in RUNS below
(replacing the run it supersedes, whose raw file then leaves the tree, as in
docs/lab/retired-records.md); the prose around the tables says only
what the tables show.
"""
import csv
import json
import os
import re
import statistics
import sys
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "preload"))
import summarize  # noqa: E402  (the statistics, shared with the benchmark scripts)

DATA = "docs/data"
PAGE = "docs/perf.md"
PLOT = "docs/perf-oversub.svg"

# The runs on the page: the latest run of each kind that covers the locks
# shown (older runs are in the lab notebook; their raw files left the tree:
# docs/lab/retired-records.md).
RUNS = {
    # the first table and README's: two runs of the same library and
    # command (their seeds differ), pooled
    "oversub": ["peers-20261129/all-12.jsonl", "peers-20261129/all-24.jsonl"],
    "apps_pooled": "cr-pooled-20261127/pooled-glibc.md",   # its first line names the runs pooled
    "apps_plain": "cr-pooled-20261127/pooled-plain.md",
    "callgrind_lib": "cr-quick-20261127/callgrind-after.csv",
    "callgrind_native": "callgrind-20261125-after.csv",
    "sim": "cr-grow-20261127/sim-after.jsonl",
    "cpus16": "cr-16cpu-20261127/oversub-long.jsonl",
    # cr: on both harnesses (pl_mutexbench, pl_lockloop), the current library
    "cr_two": ["peers-20261129/cr-mutexbench-48.jsonl",
               "peers-20261129/cr-lockloop-16.jsonl"],
}
NOTEBOOK = "lab/perf-notebook.md"


def path(rel):
    return os.path.join(ROOT, DATA, rel)


def read_runs(rels):
    """(metas, vals) of JSON-lines runs: vals[(program, T, lock)] =
    [((file index, repeat), value)], as summarize.py pools them."""
    metas, vals = [], defaultdict(list)
    for fi, rel in enumerate(rels):
        with open(path(rel)) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                r = json.loads(line)
                if r.get("type") == "meta":
                    r["_loads"] = []
                    metas.append(r)
                elif r.get("ok", True):
                    vals[(r["program"], r["threads"], r["lock"])].append(((fi, r["repeat"]), r["value"]))
                    if "loadavg_1min" in r:
                        metas[-1]["_loads"].append(r["loadavg_1min"])
    return metas, vals


def machine(meta):
    """The machine line without the build's commit (a user page names none)."""
    return re.sub(r"\s*/\s*clof [0-9a-f]+(\+changes)?$", "", meta.get("machine", ""))


def date(meta):
    d = meta.get("date", "")
    return d[:10]  # the date; the hour belongs to the lab notebook


def command(meta):
    """The run's command as a user would type it (no output path, no
    absolute paths of the machine it ran on)."""
    c = meta.get("cmdline", "")
    c = re.sub(r"\s*--out \S+", "", c)
    c = re.sub(r"\s*--(bin|lib) \S+", "", c)
    c = re.sub(r"--lib-b \S+", "--lib-b OLD/libclof-preload.so", c)
    c = re.sub(r"/\S*/(bench/)", r"\1", c)
    return c.replace("\\ ", " ").replace("--threads ", '--threads "', 1).replace(
        " --repeats", '" --repeats', 1) if "--threads " in c else c.replace("\\ ", " ")


def quote_locks(c):
    return re.sub(r"--locks (.*?)(?= --|$)", lambda m: f'--locks "{m.group(1)}"', c)


def loads(metas):
    xs = [x for m in metas for x in m["_loads"]]
    return f"{min(xs):.1f}-{max(xs):.1f}" if xs else "not recorded"


def ratio_table(vals, prog, locks, ts, den="glibc"):
    out = ["| lock / " + den + " | " + " | ".join(f"T = {t}" for t in ts) + " |",
           "|---|" + "---:|" * len(ts)]
    for l in locks:
        cells = []
        for t in ts:
            r = summarize.repeat_ratios(vals, prog, t, l, den)
            cells.append(f"{statistics.median(r):.2f}" if r else "-")
        out.append(f"| `{l}` | " + " | ".join(cells) + " |")
    return out


def median_ci(vals, prog, t, num, den="glibc"):
    """(cell text "median [lo-hi]", median, interval or None) of the
    per-repeat ratios num / den, or ("-", None, None) without data."""
    r = summarize.repeat_ratios(vals, prog, t, num, den)
    if not r:
        return "-", None, None
    m = statistics.median(r)
    iv = summarize.median_interval(r, 0.9)
    return (f"{m:.2f} [{iv[0]:.2f}-{iv[1]:.2f}]" if iv else f"{m:.2f}"), m, iv


def run_note(metas, repeats_word="repeats"):
    m = metas[0]
    each = (f"of {m['iters_per_thread']:,} pairs per thread" if "iters_per_thread" in m
            else f"of {m.get('duration_s', '?')} s")
    reps = " + ".join(str(x.get("repeats", "?")) for x in metas)
    pooled = (f" ({len(metas)} runs of the command, pooled; a ratio pairs the runs of one "
              "repeat of one run)" if len(metas) > 1 else "")
    return (f"{date(m)}, {machine(m)}, {reps} interleaved {repeats_word} "
            f"{each}{pooled}, 1-minute load average {loads(metas)} "
            "(the benchmark's own threads count: T threads keep it near T)")


def median_ratio(vals, prog, t, num, den):
    r = summarize.repeat_ratios(vals, prog, t, num, den)
    return statistics.median(r) if r else None


def median_own_ratio(vals, prog, t, lock, t0=1):
    """The median of the per-repeat ratios lock at T = t / the same lock
    at T = t0, or None without data."""
    a = dict(vals.get((prog, t, lock), []))
    b = dict(vals.get((prog, t0, lock), []))
    r = [a[k] / b[k] for k in a if k in b and b[k] > 0]
    return statistics.median(r) if r else None


# ---- the plot ----------------------------------------------------------------

def svg_plot(vals, prog, ts, series):
    """Lines of lock/glibc against T (log2 x axis, linear y from 0)."""
    W, H, L, R, T, B = 640, 360, 60, 170, 30, 50
    ymax = 1.4
    cols = ["#1f77b4", "#1f77b4", "#d62728", "#d62728", "#2ca02c", "#2ca02c"]
    def x(i):
        return L + i * (W - L - R) / (len(ts) - 1)
    def y(v):
        return T + (H - T - B) * (1 - min(v, ymax) / ymax)
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2 - 60:.0f}" y="18" font-size="13">lock / glibc, pl_mutexbench on 2 vCPUs</text>']
    for k in range(0, 8):
        v = k * 0.2
        o.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    o.append(f'<line x1="{L}" y1="{y(1):.1f}" x2="{W - R}" y2="{y(1):.1f}" stroke="#888" stroke-dasharray="4 3"/>')
    for i, t in enumerate(ts):
        o.append(f'<text x="{x(i):.1f}" y="{H - B + 18}" text-anchor="middle">{t}</text>')
    o.append(f'<text x="{(L + W - R) / 2:.0f}" y="{H - 12}" text-anchor="middle">threads (2 vCPUs)</text>')
    for n, lock in enumerate(series):
        pts = [(x(i), y(m)) for i, t in enumerate(ts)
               if (m := median_ratio(vals, prog, t, lock, "glibc")) is not None]
        dash = "" if lock.startswith("cr:") else ' stroke-dasharray="6 4"'
        o.append(f'<polyline fill="none" stroke="{cols[n % len(cols)]}" stroke-width="2"{dash} points="'
                 + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
        ly = T + 20 + n * 20
        o.append(f'<line x1="{W - R + 12}" y1="{ly}" x2="{W - R + 40}" y2="{ly}" '
                 f'stroke="{cols[n % len(cols)]}" stroke-width="2"{dash}/>')
        o.append(f'<text x="{W - R + 46}" y="{ly + 4}">{lock}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


# ---- the page ----------------------------------------------------------------

def pooled_files(md_rel):
    """The runs a pooled table of summarize.py was made from: the file
    names in the command on its first line."""
    with open(path(md_rel)) as f:
        first = f.readline()
    return [p[len(DATA) + 1:] for p in re.findall(r"(docs/data/\S+\.jsonl)", first)]


def page():
    L = []
    w = L.append
    w("# Performance figures")
    w("")
    w("<!-- Made by docs/data/make_perf.py from the files in docs/data; "
      "do not edit: edit the script and run it (ctest docs.perf_page checks). -->")
    w("")
    w("The current figures, each with its command, machine, date and raw data.")
    w("Benchmarks, not tests: timings on the 2-vCPU VM swing from run to run, so")
    w("every throughput figure is a median of interleaved repeats against glibc")
    w("measured in the same repeat. Where a figure is **emulated** (an emulated")
    w("topology) or **simulated** (virtual time on a modelled machine) it says so.")
    w(f"Every run, A/B comparison and superseded table behind them: the [lab notebook]({NOTEBOOK}).")
    w("")
    w("The VM: a KVM guest with 2 vCPUs (AMD EPYC) that deliver about one cpu")
    w("of throughput, Debian 12, gcc 12.2, glibc 2.36, one NUMA node.")
    w("")
    w("Every lock side by side (its properties, paper, uncontended instructions,")
    w("clof-bench at T = 2 and 16 against glibc, and simulated at 128 threads")
    w("against MCS): the table in [locks.md](locks.md#every-lock-measured). The")
    w("newer locks, each with its own series: [frontier.md](frontier.md).")
    w("")

    # 1. oversubscription
    metas, vals = read_runs(RUNS["oversub"])
    prog = "pl_mutexbench"
    ts = sorted({k[1] for k in vals})
    plain = ["mcs", "ticket", "clh", "hmcs", "cna", "tkt-mcs"]
    w("## Threads outnumber cpus: the preload library's mutexes")
    w("")
    w(f"`pl_mutexbench` under `LD_PRELOAD` (T threads on one mutex, {metas[0].get('cs_lines')} cache")
    w(f"lines written in the critical section, {metas[0].get('non_cs_ns')} ns outside it), lock+unlock/s")
    w("over glibc's in the same repeat, median of the per-repeat ratios. Every lock of the run, plain")
    w("and under the concurrency-restriction layer [`cr:`](cr.md):")
    w("")
    w("```sh")
    for m in metas:
        w(quote_locks(command(m)))
    w("```")
    w("")
    w(f"({run_note(metas)}; data: " +
      ", ".join(f"[{os.path.basename(r)}](data/{r})" for r in RUNS["oversub"]) + ".)")
    w("")
    w(f"![lock / glibc against threads](perf-oversub.svg)")
    w("")
    L.extend(ratio_table(vals, prog, [x for l in plain for x in (l, "cr:" + l)], ts))
    w("")
    worst = min(median_ratio(vals, prog, ts[-1], l, "glibc") for l in plain)
    best_cr = min(median_ratio(vals, prog, t, "cr:" + l, "glibc") for l in plain for t in ts)
    w(f"The FIFO queue locks hand the lock to threads that are not running: at T = {ts[-1]} the")
    w(f"plain locks fall as low as {worst:.2f}x glibc. Under `cr:` no cell here is below")
    w(f"{best_cr:.2f}x.")
    w("")
    # 1a. the peers
    w("## Beside the peers: libvsync and Concurrency Kit")
    w("")
    w("Every basic lock that libvsync or Concurrency Kit also has, theirs beside")
    w("clof's and glibc's in one run: callgrind instructions per uncontended pair,")
    w("then throughput at T = 1, 2 and 8 in interleaved rounds, medians of the")
    w("per-round ratios to glibc with their intervals:")
    w("")
    w("```sh")
    w("bench/peers.sh")
    w("```")
    w("")
    w("The tables, the instruction sequences side by side where clof counts more,")
    w("and CLH's count before and after its change: [peers.md](peers.md).")
    w("")

    # 1b. cr: on both harnesses
    w("## `cr:` on two harnesses (T = 2..16)")
    w("")
    w("The same locks on two programs: `pl_mutexbench` (above: 100 ns of work outside")
    w("the critical section, a fixed duration) and `pl_lockloop`")
    w("(bench/preload/pl_lockloop.c: a fixed number of pairs per thread and nothing")
    w("outside the critical section, so a FIFO lock hands over at every acquisition")
    w("while glibc's releaser keeps its lock). Lock / glibc, median of the per-repeat")
    w("ratios [its distribution-free 90% interval]; the goal is 0.8x at every T")
    w("([cr.md](cr.md#current-figures)). Where a run has T = 1, that column is the")
    w("one-thread reference: no contention, the layer's uncontended path against glibc's.")
    w("")
    cells, runs = {}, {}  # per program: {(T, lock): median_ci(...)}, and its values
    for rel in RUNS["cr_two"]:
        m3, v3 = read_runs([rel])
        prog3 = sorted({k[0] for k in v3})[0]
        locks3 = sorted({k[2] for k in v3 if k[2] != "glibc" and not k[2].endswith("@b")})
        ts3 = sorted({k[1] for k in v3})
        cells[prog3] = {(t, l): median_ci(v3, prog3, t, l) for t in ts3 for l in locks3}
        runs[prog3] = v3
        w("```sh")
        w(quote_locks(command(m3[0])))
        w("```")
        w("")
        w(f"({prog3}: {run_note(m3)}; [data](data/{rel}).)")
        w("")
        w("| lock / glibc | " + " | ".join(f"T = {t}" for t in ts3) + " |")
        w("|---|" + "---|" * len(ts3))
        for l in locks3:
            w(f"| `{l}` | " + " | ".join(cells[prog3][(t, l)][0] for t in ts3) + " |")
        w("")
    ll = cells["pl_lockloop"]
    llv = [m for _, m, _ in ll.values()]
    ll_above = sum(1 for _, _, iv in ll.values() if iv and iv[0] > 1)
    w(f"On `pl_lockloop` the medians are {min(llv):.2f}-{max(llv):.2f}x glibc at T = 2..16, "
      + (f"and all {len(ll)} intervals lie above 1:" if ll_above == len(ll)
         else f"and {ll_above} of {len(ll)} intervals lie above 1:"))
    w("at T = 2 the layer is open (no wait yields or parks), and a waiter polls the")
    w("inner lock before it queues, so a releaser that comes back at once takes its")
    w("lock again, as glibc's does ([cr.md](cr.md#barging-while-open)). On")
    mb, mbv_vals = cells["pl_mutexbench"], runs["pl_mutexbench"]
    goal = {k: c for k, c in mb.items() if k[0] >= 2}  # the goal is for T = 2..16
    mbv = [m for _, m, _ in goal.values()]
    low = [f"`{l}` at T = {t}" for (t, l), (_, m, _) in sorted(goal.items()) if m < 0.8]
    ivs = {k: iv for k, (_, _, iv) in goal.items()}
    wide = [f"{iv[0]:.2f} (`{l}` at T = {t})" for (t, l), iv in sorted(ivs.items())
            if iv and iv[0] < 0.8]
    above = sum(1 for iv in ivs.values() if iv and iv[0] >= 0.8)
    w(f"`pl_mutexbench` the medians are {min(mbv):.2f}-{max(mbv):.2f}x at T = 2..16; below 0.8 "
      "at the median: " + (", ".join(low) if low else "none") +
      f"; {above} of {len(ivs)} intervals lie above 0.8" +
      ((", and the lower end of the other" + ("s" if len(wide) > 1 else "") + " is " +
        ", ".join(wide) + ".") if wide else "."))
    w("")
    # at T >= 8: each lock against its own one-thread rate, and glibc's two modes
    tall = sorted({t for t, _ in mb})
    if 1 in tall and 8 in tall and 16 in tall:
        own = {l: [median_own_ratio(mbv_vals, "pl_mutexbench", t, l) for t in (8, 16)]
               for l in ["glibc"] + sorted({l for _, l in mb})}
        crs_own = [x for l, v in own.items() if l != "glibc" for x in v if x is not None]
        gl = [x for x in own["glibc"] if x is not None]

        def runs_at(lock, tt):
            return [x for _, x in mbv_vals.get(("pl_mutexbench", tt, lock), [])]

        def below_half(lock, tt):  # runs below half the lock's median at T = tt
            xs = runs_at(lock, tt)
            return sum(1 for x in xs if x < 0.5 * statistics.median(xs)) if xs else 0
        slow = [below_half("glibc", tt) for tt in (8, 16)]
        n = [len(runs_at("glibc", tt)) for tt in (8, 16)]
        cr_slow = sum(below_half(l, tt) for l in own if l != "glibc" for tt in (8, 16))

        def rng(xs):
            lo, hi = f"{min(xs):.2f}", f"{max(xs):.2f}"
            return lo if lo == hi else f"{lo}-{hi}"
        w(f"At T = 8 and 16 every `cr:` lock keeps {rng(crs_own)}x its own one-thread rate")
        w(f"(glibc: {rng(gl)}x), each per-round ratio taken against the same lock's T = 1 run")
        w("of that round. What moves the ratio to glibc is glibc's spread: in "
          f"{slow[0]} of {n[0]} runs at T = 8")
        w(f"and {slow[1]} of {n[1]} at T = 16 it fell below half its median: runs in which its")
        w("waiters went to sleep in the kernel many times more often (the")
        w("[peers notebook](lab/peers-notebook.md#2026-11-29-cr-on-pl_mutexbench-at-t--8-and-16-where-the-time-goes)")
        crw = "no `cr:` run" if cr_slow == 0 else f"{cr_slow} `cr:` run" + ("" if cr_slow == 1 else "s")
        w(f"has the counts); {crw} did. Runs of a dozen rounds catch more or")
        w("fewer of those and put one cell or another below 0.8.")
        w("")
    # the third harness: its figures live in cr.md (measured, not generated here)
    w("A third harness, `pl_hotloop` (three of four iterations straight back to")
    w("the lock, the fourth after some private work), shows the shape `cr:` does")
    w("not serve: with a few hundred ns of private work every fourth iteration")
    w("every `cr:` lock falls below 0.8x glibc at T = 8 and 16, where the")
    w("test-and-set locks and glibc's adaptive mutex keep glibc's rate. Its")
    w("figures and what to run there: [cr.md](cr.md#the-hottest-shape-pl_hotloop).")
    w("")

    # 2. real programs, pooled
    files = pooled_files(RUNS["apps_pooled"])
    pm, pv = read_runs(files)
    progs = ["leveldb", "kccachetest", "kcgrasstest", "memcached"]
    crs = ["cr:mcs", "cr:ticket", "cr:clh", "cr:hmcs", "cr:cna", "cr:clof:tkt-mcs"]
    tsa = sorted({k[1] for k in pv})
    dates = sorted(date(m) for m in pm)
    w("## Real programs under `cr:` (T = 8 and 16 on 2 vCPUs)")
    w("")
    w("LevelDB (readrandom), Kyoto Cabinet (`kccachetest`, `kcgrasstest`) and memcached")
    w("(under memcaslap) under `LD_PRELOAD`, each lock against glibc in interleaved")
    w(f"repeats; {len(files)} runs of the same lock code pooled ({dates[0][:10]}), "
      f"1-minute load average {loads(pm)}:")
    w("")
    w("```sh")
    w('bench/preload/apps.sh --programs "leveldb kccachetest kcgrasstest memcached" --threads "8 16" \\')
    w('    --repeats 20 --locks "cr:mcs cr:ticket cr:clh cr:hmcs cr:cna cr:clof:tkt-mcs"')
    w('bench/preload/summarize.py RUN.jsonl [MORE.jsonl ..] --goals "cr:*=0.95" --ci 0.9')
    w("```")
    w("")
    w("Lock / glibc, pooled median of the per-repeat ratios [its distribution-free 90%")
    w(f"interval], T = {tsa[0]} / {tsa[-1]} ([data](data/{RUNS['apps_pooled']}), which names the runs):")
    w("")
    w("| lock | " + " | ".join(progs) + " |")
    w("|---|" + "---|" * len(progs))
    meds, lows = [], []
    for l in crs:
        cells = []
        for p in progs:
            parts = []
            for t in tsa:
                text, m, iv = median_ci(pv, p, t, l)
                parts.append(text)
                if m is not None:
                    meds.append(m)
                if iv:
                    lows.append(iv[0])
            cells.append(" / ".join(parts))
        w(f"| `{l}` | " + " | ".join(cells) + " |")
    w("")
    w(f"Every pooled median is {min(meds):.2f}-{max(meds):.2f}x glibc; the lowest interval bound is {min(lows):.2f}.")
    w("")
    files2 = pooled_files(RUNS["apps_plain"])
    qm, qv = read_runs(files2)
    progs2 = ["kccachetest", "kcgrasstest", "memcached"]
    w("Beside its plain lock, `cr:X` / `X`, same statistics, "
      f"{len(files2)} runs pooled ([data](data/{RUNS['apps_plain']})):")
    w("")
    w("| | " + " | ".join(progs2) + " |")
    w("|---|" + "---|" * len(progs2))
    for l in ["mcs", "clh", "hmcs"]:
        cells = []
        for p in progs2:
            parts = []
            for t in tsa:
                r = summarize.repeat_ratios(qv, p, t, "cr:" + l, l)
                iv = summarize.median_interval(r, 0.9) if r else None
                parts.append(f"{statistics.median(r):.2f} [{iv[0]:.2f}-{iv[1]:.2f}]" if iv else "-")
            cells.append(" / ".join(parts))
        w(f"| `cr:{l}` / `{l}` | " + " | ".join(cells) + " |")
    w("")
    w("On LevelDB, where the plain FIFO locks collapse, `cr:` is far above its plain lock")
    w(f"(see the [lab notebook]({NOTEBOOK}#every-cr-lock-and-plain-2026-11-27)).")
    w("")

    # 3. uncontended
    w("## Uncontended lock+unlock (instructions, deterministic)")
    w("")
    with open(path(RUNS["callgrind_lib"])) as f:
        rows = list(csv.DictReader(f))
    g = float(rows[0]["glibc_instr_per_pair"])
    w("Callgrind instructions per lock+unlock pair of a static mutex through the preload")
    w(f"library, one thread; glibc's own pair is {g:.0f} "
      f"({rows[0]['compiler']}, {rows[0]['valgrind']}; [data](data/{RUNS['callgrind_lib']})):")
    w("")
    w("```sh")
    w('bench/preload/callgrind.sh --locks "tas cr:tas mcs cr:mcs clh cr:clh hmcs cr:hmcs ..."')
    w("```")
    w("")
    by = {r["lock"]: float(r["instr_per_pair"]) for r in rows}
    base = [r["lock"] for r in rows if r["lock"] != "glibc" and not r["lock"].startswith("cr:")]
    w("| lock | plain | x glibc | under `cr:` |")
    w("|---|---:|---:|---:|")
    for l in base:
        crv = by.get("cr:" + l)
        w(f"| `{l}` | {by[l]:.0f} | {by[l] / g:.2f} | " + (f"{crv:.0f} (+{crv - by[l]:.0f})" if crv else "-") + " |")
    w("")
    with open(path(RUNS["callgrind_native"])) as f:
        nrows = list(csv.DictReader(f))
    w("Natively (the header locks called directly, `clof-uncontended`; "
      f"[data](data/{RUNS['callgrind_native']})), with Concurrency Kit's lock where it has one:")
    w("")
    w("```sh")
    w("bench/callgrind.sh")
    w("```")
    w("")
    w("| lock | instructions per pair | Concurrency Kit |")
    w("|---|---:|---|")
    seen = set()
    for r in nrows:
        if r["lock"] in seen or r["lock"].startswith("ck-"):
            continue
        seen.add(r["lock"])
        if r["lock"] == "pthread":
            r["lock"] = "glibc pthread_mutex"
        peer = f"{r['peer']} {float(r['peer_instr_per_pair']):.0f}" if r.get("peer") else "-"
        w(f"| `{r['lock']}` | {float(r['instr_per_pair']):.0f} | {peer} |")
    w("")

    # 4. simulated
    w("## Simulated: 256 threads on a 128-cpu Kunpeng 920 (SIMULATED)")
    w("")
    recs = [json.loads(l) for l in open(path(RUNS["sim"])) if l.strip()]
    w("The simulator's model of the Kunpeng 920 (virtual time, deterministic per seed; its")
    w("switch, wake and slice costs are assumptions, [simulation.md](simulation.md)),")
    w("threads time-shared two per cpu at 256, waits by wait.h's policy; Mops/s of virtual")
    w(f"time, median over seeds ([data](data/{RUNS['sim']})):")
    w("")
    w("```sh")
    w("bench/sim_oversub.py --threads 128,256 --locks mcs,cr:mcs,cna,cr:cna,hmcs,cr:hmcs --waits auto")
    w("```")
    w("")
    agg = defaultdict(list)
    for r in recs:
        agg[(r["threads"], r["lock"])].append(r["ops_per_s"] / 1e6)
    thr = sorted({k[0] for k in agg})
    w("| lock | " + " | ".join(f"T = {t}" for t in thr) + " |")
    w("|---|" + "---:|" * len(thr))
    for l in ["mcs", "cr:mcs", "cna", "cr:cna", "hmcs", "cr:hmcs"]:
        cells = []
        for t in thr:
            v = statistics.median(agg[(t, l)])
            if l.startswith("cr:"):
                p = statistics.median(agg[(t, l[3:])])
                cells.append(f"{v:.2f} ({v / p:.2f}x `{l[3:]}`)")
            else:
                cells.append(f"{v:.2f}")
        w(f"| `{l}` | " + " | ".join(cells) + " |")
    w("")

    # 5. 16 cpus
    cm, cv = read_runs([RUNS["cpus16"]])
    ts16 = sorted({k[1] for k in cv})
    locks16 = ["mcs", "cr:mcs", "ticket", "cr:ticket", "clh", "cr:clh", "hmcs", "cr:hmcs",
               "cr:cna", "cr:clof:tkt-mcs"]
    w("## A machine with 16 cpus")
    w("")
    w("The same microbenchmark on a lent machine with 16 cpus (one run; its")
    w("contention differs from the 2-vCPU VM's: below T = 16 every thread has a cpu):")
    w("")
    w("```sh")
    w(quote_locks(command(cm[0])))
    w("```")
    w("")
    w(f"({run_note(cm)}; [data](data/{RUNS['cpus16']}).)")
    w("")
    L.extend(ratio_table(cv, prog, locks16, ts16))
    w("")
    over = [t for t in ts16 if t > 16]
    fifo = ["mcs", "ticket", "clh"]
    gain = [median_ratio(cv, prog, t, "cr:" + l, l) for l in fifo for t in over]
    vs = [median_ratio(cv, prog, t, l, "glibc") for l in locks16 if l.startswith("cr:") for t in over]
    at16 = [median_ratio(cv, prog, 16, "cr:" + l, l) for l in fifo + ["hmcs"]]
    w(f"At T = 16 (a cpu per thread) `cr:` is at {min(at16):.2f}-{max(at16):.2f}x its plain lock.")
    w("At T = "
      + " and ".join(str(t) for t in over) + f" `cr:` over a FIFO lock is {min(gain):.0f}-{max(gain):.0f}x")
    w(f"its plain lock, and every `cr:` lock is {min(vs):.2f}-{max(vs):.2f}x glibc, whose mutex lets")
    w("running threads take a free lock past parked ones.")
    w("")
    w("## Where the rest is")
    w("")
    w("- Reader-writer locks: [rwlocks.md](rwlocks.md#measurements).")
    w("- Handover locality of the compositions (emulated): "
      f"[lab notebook]({NOTEBOOK}#handover-locality-emulated).")
    w("- LibASL's figures (emulated, simulated): [asl.md](asl.md).")
    w(f"- The locks against glibc in real programs at T = 1..4, the NUMA and abortable locks, "
      f"and every dated run: [lab notebook]({NOTEBOOK}).")
    w("- The raw files and what each holds: [data/README.md](data/README.md).")
    return "\n".join(L) + "\n", svg_plot(vals, prog, ts, ["mcs", "cr:mcs", "hmcs", "cr:hmcs", "clh", "cr:clh"])


README_LOCKS = ["mcs", "cr:mcs", "cna", "cr:cna"]


def readme_rows():
    """The rows of README.md's headline table, from the same run as
    perf.md's first table."""
    _, vals = read_runs(RUNS["oversub"])
    ts = sorted({k[1] for k in vals})
    return ratio_table(vals, "pl_mutexbench", README_LOCKS, ts)


def main():
    check = "--check" in sys.argv[1:]
    if [a for a in sys.argv[1:] if a != "--check"]:
        print(__doc__)
        return 2
    text, svg = page()
    stale = []
    for rel, new in ((PAGE, text), (PLOT, svg)):
        full = os.path.join(ROOT, rel)
        old = open(full).read() if os.path.exists(full) else None
        if old == new:
            continue
        if check:
            stale.append(rel)
        else:
            with open(full, "w") as f:
                f.write(new)
            print(f"wrote {rel}")
    readme = open(os.path.join(ROOT, "README.md")).read()
    missing = [r for r in readme_rows() if r not in readme]
    if missing:
        print("make_perf.py: README.md's headline table is not what " + " + ".join(RUNS["oversub"])
              + " gives; its rows should be:\n" + "\n".join(readme_rows()), file=sys.stderr)
        return 1
    if stale:
        print("make_perf.py: " + ", ".join(stale) + " differ from what docs/data gives: "
              "run docs/data/make_perf.py and commit the result", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
