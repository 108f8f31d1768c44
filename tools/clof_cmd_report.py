# SPDX-License-Identifier: MIT
"""clof report -- the report of a `clof select` results folder (docs/workflow.md).

    clof report DIR [--out OUTDIR] [--quiet]

Reads DIR/params.json, DIR/results.jsonl and DIR/ranking.json (as written by
clof select) and writes into OUTDIR (default DIR):

    report.md      Markdown: the selected locks, the weights, the figures and
                   tables below, the machine and the parameters
    report.html    the same as one self-contained page (images embedded)
    beam.png       the CLoF paper's Fig. 9: throughput vs threads of every
                   composition (grey), HC-best, LC-best, worst and HMCS
    fairness.png   fairness (relative std. dev. of per-thread counts) and P99
                   acquire latency per lock at the highest thread count
    heatmap.png    copied from DIR/heatmap/ when clof select measured it

Nothing is measured here: rerunning it on the same folder gives the same
report.
"""

import base64
import html
import json
import os
import shutil
import statistics
import sys
import types

import clof_common
import clof_rank

CMD = "report"


def add_arguments(p):
    p.epilog = "example: clof report results/select-20261128-0300"
    p.add_argument("dir", metavar="DIR", help="a clof select results folder")
    p.add_argument("--out", metavar="OUTDIR", help="where the report goes (default: DIR)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")


def load(d):
    """(params, records, ranking) of a results folder; ValueError with the reason"""
    need = ["params.json", "results.jsonl", "ranking.json"]
    for n in need:
        if not os.path.isfile(os.path.join(d, n)):
            raise ValueError("%s: no %s (is this a clof select results folder? it needs %s)"
                             % (d, n, ", ".join(need)))
    out = []
    for n in ("params.json", "ranking.json"):
        p = os.path.join(d, n)
        try:
            with open(p) as f:
                out.append(json.load(f))
        except ValueError as e:
            raise ValueError("%s: not valid JSON: %s" % (p, e))
    recs = []
    p = os.path.join(d, "results.jsonl")
    with open(p) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                recs.append(json.loads(line))
            except ValueError:
                raise ValueError("%s:%d: expected one JSON object per line" % (p, i))
    return out[0], recs, out[1]


# ---- figures --------------------------------------------------------------------------

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def beam_plot(path, rk, title):
    plt = _plt()
    th = rk["threads"]
    table = rk["table"]
    fig, ax = plt.subplots(figsize=(8, 5))

    def series(lk):
        tp = table.get(lk, {})
        xs = [t for t in th if tp.get(str(t))]
        return xs, [tp[str(t)] / 1e6 for t in xs]

    special = {rk.get("hc_best"), rk.get("lc_best"), rk.get("worst"), "hmcs"}
    first = True
    for lk in rk["candidates"]:
        if lk in special:
            continue
        xs, ys = series(lk)
        ax.plot(xs, ys, color="#b0b0b0", linewidth=0.8, alpha=0.8, zorder=1,
                label="other compositions" if first else None)
        first = False
    styles = [("worst", "worst", dict(color="black", linestyle="--", linewidth=1.6)),
              ("hmcs", "HMCS (same levels)", dict(color="#2ca02c", marker="s", linewidth=2)),
              ("lc_best", "LC-best", dict(color="#1f77b4", marker="o", linewidth=4.5, alpha=0.7)),
              ("hc_best", "HC-best", dict(color="#d62728", marker="^", linewidth=2.2))]
    for key, tag, st in styles:
        lk = "hmcs" if key == "hmcs" else rk.get(key)
        if not lk or lk not in table:
            continue
        xs, ys = series(lk)
        ax.plot(xs, ys, label="%s: %s" % (tag, lk) if key != "hmcs" else tag, zorder=3, **st)
    ax.set_xscale("log", base=2)
    ax.set_xticks(th)
    ax.set_xticklabels([str(t) for t in th])
    ax.set_xlabel("threads (contention)")
    ax.set_ylabel("throughput (Mops/s, median of runs)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def fairness_plot(path, locks, fair, p99, tmax):
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 0.35 * len(locks) + 1.6))
    ys = list(range(len(locks)))[::-1]
    a1.barh(ys, [fair.get(l) or 0 for l in locks], color="#1f77b4")
    a1.set_yticks(ys)
    a1.set_yticklabels(locks, fontsize=8)
    a1.set_xlabel("fairness: relative std. dev. of per-thread counts (lower = fairer)")
    a2.barh(ys, [(p99.get(l) or 0) / 1e3 for l in locks], color="#ff7f0e")
    a2.set_yticks(ys)
    a2.set_yticklabels([])
    a2.set_xlabel("P99 acquire latency (us)")
    fig.suptitle("%d threads (medians of the runs)" % tmax, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---- document model: blocks rendered to Markdown and HTML ----------------------------

def md_render(blocks):
    out = []
    for b in blocks:
        k = b[0]
        if k == "h":
            out.append("#" * b[1] + " " + b[2])
        elif k == "p":
            out.append(b[1])
        elif k == "ul":
            out.append("\n".join("- " + x for x in b[1]))
        elif k == "pre":
            out.append("```\n" + b[1].rstrip("\n") + "\n```")
        elif k == "img":
            out.append("![%s](%s)" % (b[2], b[1]))
        elif k == "raw":
            out.append(b[1])  # HTML made by the caller (an inline SVG chart)
        elif k == "table":
            hdr, rows = b[1], b[2]
            out.append("| " + " | ".join(hdr) + " |")
            out[-1] += "\n|" + "|".join(" --- " for _ in hdr) + "|"
            for r in rows:
                out[-1] += "\n| " + " | ".join(str(c) for c in r) + " |"
    return "\n\n".join(out) + "\n"


def _inline_html(text):
    """`code` and **bold** of the Markdown text, escaped"""
    s = html.escape(text)
    parts = s.split("`")
    for i in range(1, len(parts), 2):
        parts[i] = "<code>" + parts[i] + "</code>"
    s = "".join(parts)
    parts = s.split("**")
    for i in range(1, len(parts), 2):
        parts[i] = "<b>" + parts[i] + "</b>"
    return "".join(parts)


def html_render(blocks, title, folder):
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>%s</title>"
           % html.escape(title),
           "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
           "padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
           "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}img{max-width:100%}</style>",
           "</head><body>"]
    for b in blocks:
        k = b[0]
        if k == "h":
            out.append("<h%d>%s</h%d>" % (b[1], _inline_html(b[2]), b[1]))
        elif k == "p":
            out.append("<p>%s</p>" % _inline_html(b[1]))
        elif k == "ul":
            out.append("<ul>" + "".join("<li>%s</li>" % _inline_html(x) for x in b[1]) + "</ul>")
        elif k == "pre":
            out.append("<pre>%s</pre>" % html.escape(b[1]))
        elif k == "img":
            with open(os.path.join(folder, b[1]), "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            out.append("<p><img alt=\"%s\" src=\"data:image/png;base64,%s\"></p>"
                       % (html.escape(b[2]), data))
        elif k == "raw":
            out.append(b[1])  # HTML made by the caller (an inline SVG chart)
        elif k == "table":
            hdr, rows = b[1], b[2]
            t = ["<table><tr>" + "".join("<th>%s</th>" % _inline_html(h) for h in hdr) + "</tr>"]
            for r in rows:
                t.append("<tr>" + "".join("<td>%s</td>" % _inline_html(str(c)) for c in r) + "</tr>")
            out.append("".join(t) + "</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ---- the report -----------------------------------------------------------------------

def _m(x):
    return "%.3f" % (x / 1e6) if x else "-"


def _median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def make_report(d, out=None, quiet=False):
    out = out or d
    try:
        params, recs, rk = load(d)
    except (ValueError, OSError) as e:
        return clof_common.complain(CMD, str(e))
    if rk.get("workload") == "cmd" or "threads" not in rk:
        return clof_common.complain(
            CMD, "%s: a clof select --workload cmd folder (or not a mutex selection's): its "
            "report is %s" % (d, os.path.join(d, "ranking.txt")))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        return clof_common.complain(CMD, "--out %s: %s" % (out, e.strerror))
    c = _facts(d, out, params, recs, rk)
    hi, emu = c.hi, c.emu
    title = "clof select on %s: %d %s over %s%s" % (
        params["machine"]["hostname"], params["compositions"],
        "basic locks" if len(hi["levels"]) == 1 else "compositions", ",".join(hi["levels"]), emu)

    blocks = []
    _intro(blocks, c, title)
    _selection(blocks, c)
    _artifacts(blocks, c)
    _beam(blocks, c)
    focus = _fairness(blocks, c)
    _locality(blocks, c, focus)
    _heatmap(blocks, c)
    _every_lock(blocks, c)
    _machine(blocks, c)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md_render(blocks))
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(html_render(blocks, title, out))
    if not quiet:
        sys.stderr.write("clof report: %s, %s\n" % (os.path.join(out, "report.md"),
                                                   os.path.join(out, "report.html")))
    return 0


def _facts(d, out, params, recs, rk):
    """what every section of the report reads: the folder, its params and
    ranking, the thread counts, the runs that did not fail and their
    fairness and P99 tables, the marks of the picked locks"""
    th = rk["threads"]
    hi = params["hierarchy"]
    ok = [r for r in recs if "failed" not in r]
    marks = {}
    for key, tag in (("hc_best", "HC-best"), ("lc_best", "LC-best"), ("worst", "worst")):
        if rk.get(key):
            marks.setdefault(rk[key], []).append(tag)
    return types.SimpleNamespace(
        d=d, out=out, params=params, rk=rk, th=th, tmax=max(th), hi=hi, ok=ok,
        fair=clof_rank.aggregate(ok, "fairness_rstd"), p99=clof_rank.aggregate(ok, "p99_ns"),
        marks=marks,
        emu=" (EMULATED)" if hi["emulated"] else " (SIMULATED)" if params.get("simulate") else "")


def _intro(blocks, c, title):
    """the verdict, the title, what the figures are (emulated, simulated)"""
    d, params, rk, hi = c.d, c.params, c.rk, c.hi
    if rk.get("verdict"):  # the verdict first (issue 38)
        blocks.append(("p", "**%s**" % rk["verdict"]["line"]))
    blocks.append(("h", 1, title))
    blocks.append(("p", "Generated by `clof report` from `%s` (written by `%s` on %s)."
                   % (os.path.abspath(d), params["command"], params["date"])))
    if hi.get("note"):
        blocks.append(("p", "**One-level machine.** " + hi["note"] + "."))
    elif hi["emulated"]:
        blocks.append(("p", "**Emulated hierarchy** (%s): threads ran on virtual cpus of it; the "
                       "figures show the cost of each composition's levels and its handover "
                       "locality, not the speed of a real machine of that shape." % hi["origin"]))
    if params.get("simulate"):
        blocks.append(("p", "**Simulated machine** (profile %s): every figure below is "
                       "simulated, not measured." % params["simulate"]))


def _selection(blocks, c):
    """the selected locks, against HMCS, the names, the ranking weights"""
    params, rk, th, hi = c.params, c.rk, c.th, c.hi
    blocks.append(("h", 2, "Selected locks"))
    rows = []
    for key, tag in (("hc_best", "HC-best"), ("lc_best", "LC-best"), ("worst", "worst")):
        lk = rk.get(key)
        if lk:
            sc = rk["scores"][lk]
            rows.append([tag, "`%s`" % lk, "%.3f" % sc["hc"], "%.3f" % sc["lc"]] +
                        [_m(rk["table"].get(lk, {}).get(str(t))) for t in th])
    for b in rk["baselines"]:
        sc = rk["scores"].get(b, {"hc": 0, "lc": 0})
        rows.append(["baseline", "`%s`" % b, "%.3f" % sc["hc"], "%.3f" % sc["lc"]] +
                    [_m(rk["table"].get(b, {}).get(str(t))) for t in th])
    blocks.append(("table", ["", "lock", "HC score", "LC score"] + ["t=%d Mops/s" % t for t in th],
                   rows))
    if "hmcs" in rk["table"]:
        hm = rk["table"]["hmcs"]
        vs = []
        for key, tag in (("hc_best", "HC-best"), ("lc_best", "LC-best"), ("worst", "worst")):
            lk = rk.get(key)
            if not lk:
                continue
            tp = rk["table"].get(lk, {})
            vs.append(["%s `%s`" % (tag, lk)] + [
                "%+.0f%%" % (100.0 * (tp[str(t)] / hm[str(t)] - 1))
                if tp.get(str(t)) and hm.get(str(t)) else "-" for t in th])
        blocks.append(("p", "Relative to HMCS over the same levels (as the paper's Fig. 9 "
                       "discussion; medians of the runs on a shared machine: differences of a "
                       "few percent are noise):"))
        blocks.append(("table", ["lock vs HMCS"] + ["t=%d" % t for t in th], vs))
    pk = rk.get("picked") or ""
    names = ", ".join("`%s` at %s" % x for x in zip(
        (pk[3:] if pk.startswith("cr:") else pk).split("-"), hi["levels"])) if pk else ""
    if pk.startswith("cr:"):
        names += ", under concurrency restriction (cr:, docs/cr.md)"
    over = rk.get("oversub")
    if over:
        blocks.append(("h", 3, "Oversubscription"))
        items = ["measured at %d threads on %d cpus too; best there `%s` (%.3f Mops/s); a "
                 "candidate below %.2fx that collapses and is not picked while another holds: %s"
                 % (over["threads"], over["cpus"], over["best_lock"], over["best"] / 1e6,
                    over["threshold"], ", ".join("`%s`" % c for c in over["collapsed"]) or "none")]
        for p_, tag in (("hc", "HC-best"), ("lc", "LC-best")):
            pol = over.get("policies", {}).get(p_)
            if pol and pol.get("note"):
                items.append("%s: %s" % (tag, pol["note"]))
        blocks.append(("ul", items))
    vd = rk.get("verdict") or {}
    if vd and not vd.get("use"):
        # the verdict kept glibc's locks, or the figures cannot reach a real run
        held = ("No artifact holds a clof lock: %s. The %s-best lock of the ranking is `%s`."
                % (vd.get("reason") or vd.get("line", "see the verdict"),
                   rk.get("pick", "lc").upper(), rk.get("picked")))
    else:
        held = ("The artifacts hold the **%s-best** lock `%s`%s."
                % (rk.get("pick", "lc").upper(), rk.get("picked"),
                   " (" + names + ")" if names else ""))
    blocks.append(("p", "Names list the basic locks from the lowest level up (%s): %s. %s"
                   % (",".join(hi["levels"]), "tkt = ticket, mcs, clh, hem = Hemlock "
                      "(with the CTR optimisation on x86)", held)))
    blocks.append(("h", 3, "Ranking weights"))
    blocks.append(("ul", clof_rank.weights_text(rk) + [
        "a score is the weighted average of the normalised throughputs: 1.0 would be the best "
        "candidate at every thread count",
        "HC-best = first by the HC score, LC-best = first by the LC score, worst = last by the "
        "HC score (CLoF paper section 4.3); %s, the other baselines are scored for "
        "comparison" % ("the candidates and glibc's mutex are ranked" if params.get("glibc_competes")
                        else "the candidates are ranked")]))
    if rk.get("incomplete"):
        blocks.append(("p", "Not ranked (a run failed): " + ", ".join(rk["incomplete"])))


def _artifacts(blocks, c):
    """what the selection wrote and how to use it"""
    d, params = c.d, c.params
    arts = params.get("artifacts", {})
    if arts:
        blocks.append(("h", 2, "Artifacts"))
        items = []
        if "clof_best.h" in arts:
            items.append("`clof_best.h`: `#include \"clof_best.h\"`, link libclof; "
                         "`clof_best_t`, `CLOF_BEST_INITIALIZER`, `clof_best_acquire/release`")
        so = arts.get("libclof-best.so")
        if so:
            items.append("`libclof-best.so`: " + ("`LD_PRELOAD=%s/libclof-best.so program` (%s)"
                                                 % (os.path.abspath(d), so["message"])
                                                 if so["ok"] else so["message"]))
        items.append("`hierarchy.topo`: the hierarchy file the selection used")
        items.append("`clof run --select %s -- program args`: the program over the selected lock"
                     % os.path.abspath(d))
        blocks.append(("ul", items))


def _beam(blocks, c):
    """the beam plot (beam.png): throughput vs contention"""
    out, params, rk, hi, emu = c.out, c.params, c.rk, c.hi, c.emu
    beam_title = "%s: %d compositions of %s over %s%s, %s" % (
        params["machine"]["hostname"], params["compositions"], ",".join(params["abbreviations"]),
        ",".join(hi["levels"]), emu, params["workload"])
    beam_plot(os.path.join(out, "beam.png"), rk, beam_title)
    blocks.append(("h", 2, "Throughput vs contention (the CLoF paper's Fig. 9)"))
    blocks.append(("img", "beam.png", "beam plot"))
    blocks.append(("p", "Every composition in grey; HC-best, LC-best, the worst and HMCS over "
                   "the same levels highlighted. Medians of %d runs of %g s each, runs "
                   "interleaved." % (params["runs"], params["duration_s"])))


def _fairness(blocks, c):
    """fairness and P99 latency (fairness.png); the locks in focus"""
    out, params, rk, tmax, fair, p99 = c.out, c.params, c.rk, c.tmax, c.fair, c.p99
    have_fair = any(fair.get(l, {}).get(tmax) is not None for l in fair)
    focus = []
    for lk in [rk.get("hc_best"), rk.get("lc_best"), rk.get("worst")] + rk["baselines"]:
        if lk and lk not in focus:
            focus.append(lk)
    if have_fair:
        fair_t = {l: fair.get(l, {}).get(tmax) for l in focus}
        p99_t = {l: p99.get(l, {}).get(tmax) for l in focus}
        fairness_plot(os.path.join(out, "fairness.png"), focus, fair_t, p99_t, tmax)
        blocks.append(("h", 2, "Fairness and P99 latency per lock"))
        blocks.append(("img", "fairness.png", "fairness and latency"))
        blocks.append(("p", "Fairness is the relative standard deviation of the per-thread "
                       "acquisition counts (0 = every thread got the same share; the cohort "
                       "paper's measure); P99 is the 99th percentile of sampled acquire "
                       "latencies. Per thread count, for every lock, in the table at the end."))
    else:
        blocks.append(("p", "The %s workload reports no per-thread counts or latencies: no "
                       "fairness or P99 figures." % params["workload"]))
    return focus


def _locality(blocks, c, focus):
    """handover locality per level at the most threads"""
    rk, tmax, hi, ok = c.rk, c.tmax, c.hi, c.ok
    levels = [l for l in hi["levels"] if l != "system"]
    loc_rows = []
    if levels:
        for lk in focus + [x for x in rk["candidates"] if x not in focus][:0]:
            vals = []
            for lvname in levels:
                v = _median([r.get("handover_local", {}).get(lvname) for r in ok
                             if r["lock"] == lk and int(r["threads"]) == tmax])
                vals.append("%.3f" % v if v is not None else "-")
            streak = _median([r.get("local_streak_max", {}).get(levels[0]) for r in ok
                              if r["lock"] == lk and int(r["threads"]) == tmax])
            loc_rows.append(["`%s`" % lk] + vals + ["%d" % streak if streak is not None else "-"])
    if loc_rows and any(c != "-" for r in loc_rows for c in r[1:]):
        blocks.append(("h", 2, "Handover locality per level (%d threads)" % tmax))
        blocks.append(("table", ["lock"] + ["stayed in %s cohort" % l for l in levels] +
                       ["longest run in one %s cohort" % levels[0]], loc_rows))
        blocks.append(("p", "The fraction of handovers whose next owner was in the same cohort "
                       "of the level as the previous owner (clof-bench handover_local); "
                       "keep-local thresholds bound the runs (%s)." % (
                           "threads on virtual cpus, packed in hierarchy order"
                           if hi["emulated"] else "threads on this machine's cpus")))


def _heatmap(blocks, c):
    """this machine's handover heatmap, where the selection measured one"""
    d, out, params, hi = c.d, c.out, c.params, c.hi
    hm = os.path.join(d, "heatmap", "heatmap.png")
    if os.path.isfile(hm):
        if os.path.abspath(os.path.join(out, "heatmap.png")) != os.path.abspath(hm):
            shutil.copyfile(hm, os.path.join(out, "heatmap.png"))
        blocks.append(("h", 2, "Handover heatmap of this machine"))
        blocks.append(("img", "heatmap.png", "heatmap"))
        summ = os.path.join(d, "heatmap", "summary.txt")
        txt = ""
        if os.path.isfile(summ):
            with open(summ) as f:
                txt = f.read()
        blocks.append(("p", "Measured by `clof heatmap` on the real cpus of %s (CLoF paper "
                       "section 3.1)%s." % (params["machine"]["hostname"],
                                           ": this is what the machine's own levels look like; "
                                           "the compositions above ran on the emulated hierarchy"
                                           if hi["emulated"] else "")))
        if txt:
            blocks.append(("pre", txt))


def _every_lock(blocks, c):
    """the table of every lock"""
    rk, th, tmax, fair, p99, marks = c.rk, c.th, c.tmax, c.fair, c.p99, c.marks
    blocks.append(("h", 2, "Every lock"))
    allrows = []
    order = rk["order"]["hc"] + rk.get("incomplete", []) + rk["baselines"]
    for lk in order:
        sc = rk["scores"].get(lk, {})
        allrows.append(["`%s`" % lk, ", ".join(marks.get(lk, ["baseline"] if lk in rk["baselines"]
                                                          else []) +
                                               ([rk["guards"][lk]] if lk in rk.get("guards", {})
                                                else [])),
                        "%.3f" % sc.get("hc", 0), "%.3f" % sc.get("lc", 0)] +
                       [_m(rk["table"].get(lk, {}).get(str(t))) for t in th] +
                       ["%.3f" % fair[lk][tmax] if fair.get(lk, {}).get(tmax) is not None else "-",
                        "%.1f" % (p99[lk][tmax] / 1e3) if p99.get(lk, {}).get(tmax) is not None
                        else "-"])
    blocks.append(("table", ["lock", "", "HC", "LC"] + ["t=%d" % t for t in th] +
                   ["fairness t=%d" % tmax, "P99 us t=%d" % tmax], allrows))
    blocks.append(("p", "Throughput in Mops/s (median of runs), by HC score."))


def _machine(blocks, c):
    """the machine and the parameters of the selection"""
    params, th, hi, emu = c.params, c.th, c.hi, c.emu
    mc = params["machine"]
    blocks.append(("h", 2, "Machine and parameters"))
    fails = params.get("failures", [])
    blocks.append(("ul", [
        "machine: %s, %s, %s cpus online, Linux %s" % (mc["hostname"], mc["cpu_model"] or mc["arch"],
                                                       mc["cpus_online"], mc["kernel"]),
        "hierarchy: %s %s%s, levels used: %s (available: %s)%s" % (
            hi["source"], hi["origin"], emu, ",".join(hi["levels"]),
            ",".join(hi["levels_available"]),
            "; left out: " + ",".join(hi["levels_dropped"]) if hi.get("levels_dropped") else ""),
        "basic locks: %s (%s); %d compositions; baselines: %s" % (
            ",".join(params["basic_locks"]), ",".join(params["abbreviations"]),
            params["compositions"], ", ".join(params["baselines"]) or "none"),
        "workload: %s; threads %s; %d runs x %g s; cs_lines %s, non_cs %s ns%s" % (
            params["workload"], ",".join(map(str, th)), params["runs"], params["duration_s"],
            params["cs_lines"], params["non_cs_ns"],
            ", placement " + params["placement"] if params.get("placement") else ""),
        "load average (1 min): %s before, %s after (other programs shared the cpus)" % (
            params.get("loadavg_1min_before"), params.get("loadavg_1min_after")),
        "benchmark wall time: %s s; failed runs: %d" % (params.get("bench_wall_s"), len(fails)),
        "command: `%s`" % params["command"],
    ]))
    if fails:
        blocks.append(("pre", "\n".join("%s t=%d run %d: %s" % (x["lock"], x["threads"], x["run"],
                                                                 x["error"]) for x in fails)))


def main(args, ctx):
    return make_report(args.dir, args.out, args.quiet)
