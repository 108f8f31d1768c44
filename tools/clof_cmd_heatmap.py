# SPDX-License-Identifier: MIT
"""clof heatmap -- the handover heatmap (CLoF paper section 3.1, Fig. 1 and
Table 2) and the levels proposed from it.

    clof heatmap [--out DIR] [--cpus LIST] [--pair-ms MS] [--slices N]
                 [--max-pairs N] [--seed N] [--quiet]
                 [--from-csv FILE | --synthetic [--noise SIGMA] [--rates R]]
                 [--topology FILE | --emulate SHAPE] [--sysfs ROOT]
                 [--min-gap FRACTION] [--no-plot]

Measuring is done by the C helper clof-heatmap (progress and ETA on
stderr).  Into DIR (default ./heatmap) go:

    heatmap.csv            the matrix, increments per second (nan: not measured)
    heatmap.png            the matrix by cpu id, darker = faster (like Fig. 1)
    heatmap-by-level.png   the cpus reordered by the proposed levels, cohorts boxed
    summary.txt            Table 2 (speedup of each level's cohort over the
                           system cohort) and the proposed levels
    levels.topo            the proposed hierarchy file (checked by clof-topology)
    heatmap.json           all of the above, machine-readable

The hierarchy used to group pairs for Table 2 and to name the proposed
levels is this machine's (every level sysfs shows), or --topology/--emulate.
--synthetic draws a heatmap from that hierarchy instead of measuring (rates
per level from the paper's Table 2, lognormal noise): the test bench of the
automatic levels.
"""

import json
import os
import platform
import subprocess
import sys
import time

import clof_common
import clof_levels as lv


def add_arguments(p):
    p.add_argument("--out", metavar="DIR", default="heatmap",
                   help="output folder (default: ./heatmap)")
    p.add_argument("--cpus", metavar="LIST", help="cpus to measure (default: all usable)")
    p.add_argument("--pair-ms", type=int, default=20, metavar="MS",
                   help="time per pair in ms (default 20)")
    p.add_argument("--slices", type=int, default=5, metavar="N",
                   help="slices per pair; the best slice counts (default 5)")
    p.add_argument("--max-pairs", type=int, default=5000, metavar="N",
                   help="sample above this many pairs (default 5000; see docs)")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of sampling, order and noise (default 1)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--from-csv", metavar="FILE",
                     help="analyse a heatmap CSV instead of measuring")
    src.add_argument("--synthetic", action="store_true",
                     help="draw a noisy heatmap from the hierarchy instead of measuring")
    p.add_argument("--noise", type=float, default=0.05, metavar="SIGMA",
                   help="--synthetic: lognormal noise sigma (default 0.05, i.e. ~5%%)")
    p.add_argument("--rates", metavar="KIND=R,...",
                   help="--synthetic: relative rate per level, e.g. core=12,cache=9,numa=1.5 "
                        "(default: the paper's Table 2, generic where it has none)")
    p.add_argument("--sample", type=float, default=1.0, metavar="FRACTION",
                   help="--synthetic: fraction of pairs kept (default 1)")
    p.add_argument("--min-gap", type=float, default=0.05, metavar="FRACTION",
                   help="automatic levels: smallest rate difference between levels "
                        "(default 0.05 = 5%%)")
    p.add_argument("--no-plot", action="store_true", help="do not draw the PNGs")
    clof_common.add_topology_flags(p)
    p.epilog = "example: clof heatmap --out heatmap --pair-ms 20   (then: man clof-heatmap)"


def parse_rates(text):
    rates = dict(lv.GENERIC_RATES)
    for part in text.split(","):
        if "=" not in part:
            clof_common.die("heatmap", "--rates: expected KIND=NUMBER, got '%s'" % part)
        k, v = part.split("=", 1)
        if k not in lv.KIND_RANK:
            clof_common.die("heatmap", "--rates: unknown level '%s'" % k)
        try:
            rates[k] = float(v)
        except ValueError:
            clof_common.die("heatmap", "--rates: expected a number for %s, got '%s'" % (k, v))
    return rates


def machine_line():
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        model = ""
    return "%s, %s %s" % (platform.node(), platform.machine(), model)


# ---- plots ------------------------------------------------------------------------

def plot(path, cpus, m, title, order=None, boxes=()):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    import numpy as np

    n = len(cpus)
    idx = list(range(n)) if order is None else order
    mm = m[np.ix_(idx, idx)]
    labels = [cpus[i] for i in idx]
    size = min(12.0, max(5.5, 0.09 * n + 3.5))
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    cmap = matplotlib.colormaps["Blues"].copy()
    cmap.set_bad("#dddddd")
    pos = mm[np.isfinite(mm) & (mm > 0)]
    norm = LogNorm(vmin=pos.min(), vmax=pos.max()) if pos.size and pos.min() < pos.max() else None
    masked = np.ma.masked_invalid(np.where(mm > 0, mm, np.nan))
    im = ax.imshow(masked, cmap=cmap, norm=norm, interpolation="nearest", origin="upper")
    step = max(1, n // 24)
    ticks = list(range(0, n, step))
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(labels[i]) for i in ticks], rotation=90 if n > 16 else 0, fontsize=8)
    ax.set_yticks(ticks)
    ax.set_yticklabels([str(labels[i]) for i in ticks], fontsize=8)
    ax.set_xlabel("cpu of thread 1")
    ax.set_ylabel("cpu of thread 2")
    import textwrap
    ax.set_title("\n".join(textwrap.wrap(title, 70)), fontsize=9)
    if n <= 16:  # small machines: the values in the tiles
        for i in range(n):
            for j in range(n):
                v = mm[i, j]
                if np.isfinite(v):
                    dark = norm is not None and norm(v) > 0.6
                    ax.text(j, i, "%.3g M/s" % (v / 1e6), ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
    for (a, b, style) in boxes:  # half-open index ranges along the diagonal
        ax.add_patch(matplotlib.patches.Rectangle((a - 0.5, a - 0.5), b - a, b - a, fill=False,
                                                  **style))
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    cb.set_label("increments per second (darker = faster handover)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def level_order_and_boxes(cpus, hier):
    """cpu order by the hierarchy (depth first) and the diagonal boxes of
    every level's cohorts in that order"""
    levels = hier["levels"]
    pos = {c: i for i, c in enumerate(cpus)}

    def rec(li, group):
        if li < 0:
            return sorted(group)
        subs = [g for g in levels[li]["groups"] if set(g) <= set(group)]
        subs.sort(key=min)
        out = []
        for g in subs:
            out += rec(li - 1, g)
        return out

    order_cpus = rec(len(levels) - 2, list(cpus))
    order = [pos[c] for c in order_cpus]
    where = {c: i for i, c in enumerate(order_cpus)}
    styles = [{"edgecolor": "#d62728", "linewidth": 0.8},
              {"edgecolor": "#ff7f0e", "linewidth": 1.2},
              {"edgecolor": "#2ca02c", "linewidth": 1.6},
              {"edgecolor": "#9467bd", "linewidth": 2.0}]
    boxes = []
    for li, level in enumerate(levels[:-1]):
        for g in level["groups"]:
            ix = sorted(where[c] for c in g)
            if len(ix) > 1:
                boxes.append((ix[0], ix[-1] + 1, styles[min(li, 3)]))
    return order, boxes


# ---- main -----------------------------------------------------------------------------

def main(args, ctx):
    out = args.out
    # bad values refused before anything is measured or written
    if args.pair_ms < 1:
        clof_common.die("heatmap", "--pair-ms %d: milliseconds per pair, at least 1" % args.pair_ms)
    if not 1 <= args.slices <= 64:
        clof_common.die("heatmap", "--slices %d: from 1 to 64" % args.slices)
    if args.max_pairs < 1:
        clof_common.die("heatmap", "--max-pairs %d: at least 1" % args.max_pairs)
    clof_common.check_file("heatmap", "--from-csv", args.from_csv)
    clof_common.check_file("heatmap", "--topology", args.topology)
    ref_json = clof_common.load_hierarchy(ctx, args, all_levels=True, cmd="heatmap")
    ref = lv.from_json(ref_json)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        clof_common.die("heatmap", "--out %s: %s" % (out, e.strerror))
    csv = os.path.join(out, "heatmap.csv")
    meta = {"machine": machine_line(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "reference": {"source": ref_json["source"], "origin": ref_json["origin"]}}

    if args.from_csv:
        try:
            cpus, m, comments = lv.read_csv(args.from_csv)
        except (OSError, ValueError) as e:
            clof_common.die("heatmap", str(e))
        meta["source"] = "csv " + args.from_csv
        if os.path.abspath(args.from_csv) != os.path.abspath(csv):
            lv.write_csv(csv, cpus, m, comments)
    elif args.synthetic:
        rates = parse_rates(args.rates) if args.rates else dict(lv.GENERIC_RATES)
        m = lv.synthetic(ref, rates=rates, noise=args.noise, seed=args.seed,
                         sample=args.sample)
        cpus = ref["cpus"]
        comments = ["clof heatmap: SYNTHETIC, drawn from %s (%s): rates %s, noise sigma %g, "
                    "seed %d, sample %g" % (ref_json["source"], ref_json["origin"],
                                            ",".join("%s=%g" % kv for kv in sorted(rates.items())),
                                            args.noise, args.seed, args.sample)]
        lv.write_csv(csv, cpus, m, comments)
        meta["source"] = "synthetic"
    else:
        os.environ["CLOF_PROG"] = "clof heatmap"  # its errors name `clof heatmap`
        argv = [ctx.helper("clof-heatmap"), "--out", csv, "--pair-ms", str(args.pair_ms),
                "--slices", str(args.slices), "--max-pairs", str(args.max_pairs),
                "--seed", str(args.seed)]
        if args.cpus:
            argv += ["--cpus", args.cpus]
        if args.sysfs:
            argv += ["--sysfs", args.sysfs]
        if args.quiet:
            argv.append("--quiet")
        rc = subprocess.call(argv)
        if rc != 0:
            return rc
        cpus, m, comments = lv.read_csv(csv)
        meta["source"] = "measured"
    meta["csv_comments"] = comments
    params = next((c for c in comments if c.startswith("pair_ms=")), comments[-1] if comments else "")
    load = next((c for c in comments if c.startswith("before measuring")), "")

    # Table 2 by the reference hierarchy (its cpus must cover the heatmap's)
    missing = set(cpus) - set(ref["cpus"])
    if missing:
        clof_common.die("heatmap", "the hierarchy (%s) lacks cpus %s of the heatmap"
                        % (ref_json["origin"], lv.format_cpulist(missing)))
    sub = {"cpus": cpus, "levels": [{"kind": l["kind"], "groups": [
        [c for c in g if c in set(cpus)] for g in l["groups"]]} for l in ref["levels"]]}
    for l in sub["levels"]:
        l["groups"] = [g for g in l["groups"] if g]
    rows, ref_kind = lv.table2(cpus, m, sub)

    # automatic levels
    proposed = lv.propose(cpus, m, min_gap=args.min_gap)
    names = lv.name_levels(proposed, sub)
    hier = lv.as_hierarchy(cpus, proposed, names)
    prows, pref = lv.table2(cpus, m, hier)
    topo_path = os.path.join(out, "levels.topo")
    if meta["source"] == "measured":
        src_note = "the measured heatmap of %s" % platform.node()
    elif meta["source"] == "synthetic":
        src_note = "a synthetic heatmap of %s" % ref_json["origin"]
    else:
        src_note = "the heatmap %s" % args.from_csv
    with open(topo_path, "w") as f:
        f.write(lv.hierarchy_text(
            hier, name="proposed from " + src_note,
            comments=["levels found by clustering %s (clof heatmap, min gap %g%%);"
                      % (csv, args.min_gap * 100),
                      "review before use: docs/topology.md \"Automatic levels\""] +
                     ["level %s: %d cohorts, %.2fx faster inside than at the level above"
                      % (nm, len(p["groups"]), p["gap"]) for p, nm in zip(proposed, names)]))
    chk = subprocess.run([ctx.helper("clof-topology"), "--check", topo_path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if chk.returncode != 0:
        sys.stderr.write("clof heatmap: the proposed hierarchy does not check: %s\n"
                         % chk.stderr.strip())
        return 1

    # text summary
    lines = ["clof heatmap on %s" % meta["machine"],
             "source: %s; %d cpus; %s" % (meta["source"], len(cpus), params)] + \
            (["cpus: " + load] if load else []) + [
             "",
             "Table 2: handover rate of pairs by the closest cohort they share",
             "(hierarchy: %s %s)" % (ref_json["source"], ref_json["origin"]),
             lv.format_table2(rows, ref_kind),
             "",
             "Proposed levels (leaves up): " +
             (", ".join("%s(%d)" % (nm, len(p["groups"])) for p, nm in zip(proposed, names))
              + ", " if proposed else "") + "system(1)",
             "written to %s" % topo_path]
    same = lv.same_levels(hier, lv.from_json(clof_common.load_hierarchy(
        ctx, args, all_levels=False, cmd="heatmap"))) if not missing else False
    lines.append("the proposal %s the hierarchy locks use now (%s)"
                 % ("matches" if same else "differs from", ref_json["source"]))
    if proposed:
        lines += ["", "Table 2 by the proposed levels:", lv.format_table2(prows, pref)]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)

    # plots
    if not args.no_plot:
        title = "clof heatmap: %s" % (src_note if meta["source"] != "measured"
                                      else "%s, %s" % (meta["machine"], params))
        plot(os.path.join(out, "heatmap.png"), cpus, m, title)
        order, boxes = level_order_and_boxes(cpus, hier)
        plot(os.path.join(out, "heatmap-by-level.png"), cpus, m,
             title + "\ncpus ordered by the proposed levels, cohorts boxed", order, boxes)

    with open(os.path.join(out, "heatmap.json"), "w") as f:
        json.dump({"meta": meta, "cpus": cpus,
                   "table2": {"relative_to": ref_kind, "rows": rows},
                   "proposed": {"levels": [{"kind": nm, "groups": p["groups"],
                                            "gap": p["gap"]} for p, nm in zip(proposed, names)],
                                "table2": {"relative_to": pref, "rows": prows},
                                "matches_current": same}}, f, indent=1)
    clof_common.wrote("heatmap", [csv, os.path.join(out, "heatmap.png"),
                                  os.path.join(out, "heatmap-by-level.png"),
                                  os.path.join(out, "summary.txt"), topo_path,
                                  os.path.join(out, "heatmap.json")])
    return 0
