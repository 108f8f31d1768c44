#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""heatmap2profile -- a simulation profile from a measured heatmap.

    sim/heatmap2profile.py HEATMAP.csv --topology FILE --out NAME.profile
                           [--name NAME] [--description TEXT] [--bindir DIR]
                           [--hit NS] [--rmw NS] [--fence NS] [--pause NS]
                           [--memory NS]

HEATMAP.csv is what `clof heatmap` writes (heatmap.csv: increments per second
of two threads pinned to a pair of cpus taking turns on a shared counter,
CLoF paper section 3.1).  FILE is the machine's hierarchy file (for example
the levels.topo that `clof heatmap` proposes, or `clof topology --dump`).

For each level of the hierarchy, the pairs of cpus whose closest common
level it is are collected; the level's transfer cost is

    cost = 0.5e9 / median(increments per second of those pairs)  ns

because the simulator charges one increment of the heatmap loop as one
line transfer (the read that sees the other thread's write) plus one
invalidation (the write that follows) of the same level: two costs per
increment (docs/simulation.md "Profiles").  Simulating the heatmap loop on
the profile therefore gives the measured medians back.  Local costs are not
in a heatmap: they take the defaults below unless given.

Exit status: 0 written, 1 the heatmap cannot give a cost for some level,
2 bad usage or unreadable input.  Needs clof-topology (the build's bin/,
--bindir or $CLOF_BINDIR) to read the hierarchy file.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

import numpy as np  # noqa: E402

import clof_levels as lv  # noqa: E402


def die(msg, code=2):
    sys.stderr.write("heatmap2profile: %s\n" % msg)
    sys.exit(code)


def main(argv):
    p = argparse.ArgumentParser(prog="heatmap2profile",
                                description="a simulation profile from a heatmap CSV")
    p.add_argument("csv", help="heatmap.csv from clof heatmap")
    p.add_argument("--topology", required=True, metavar="FILE",
                   help="the machine's hierarchy file")
    p.add_argument("--out", required=True, metavar="FILE", help="the profile to write")
    p.add_argument("--name", help="profile name (default: the --out base name)")
    p.add_argument("--description", default="", help="one line describing the machine")
    p.add_argument("--bindir", default=os.environ.get("CLOF_BINDIR"),
                   help="folder of clof-topology (default $CLOF_BINDIR)")
    for cost, default in (("hit", 1.0), ("rmw", 5.0), ("fence", 5.0), ("pause", 5.0),
                          ("memory", 100.0)):
        p.add_argument("--" + cost, type=float, default=default, metavar="NS",
                       help="cost %s in ns (default %g; not in a heatmap)" % (cost, default))
    a = p.parse_args(argv)

    try:
        cpus, m, _comments = lv.read_csv(a.csv)
    except (OSError, ValueError) as e:
        die("%s" % e)
    tool = os.path.join(a.bindir or "", "clof-topology")
    if not a.bindir or not os.access(tool, os.X_OK):
        die("clof-topology not found: give --bindir (the build's bin/) or set CLOF_BINDIR")
    r = subprocess.run([tool, "--json", "--quiet", "--topology", a.topology],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die(r.stderr.strip().replace("clof-topology: ", ""))
    hier = lv.from_json(json.loads(r.stdout))
    known = set(hier["cpus"])
    missing = [c for c in cpus if c not in known]
    if missing:
        die("%s: cpus %s of the heatmap are not in the hierarchy %s"
            % (a.csv, lv.format_cpulist(missing), a.topology))

    lcl = lv.lowest_common_level(hier, cpus)
    n = len(cpus)
    off = ~np.eye(n, dtype=bool)
    costs = []
    for li, level in enumerate(hier["levels"]):
        sel = off & (lcl == li) & np.isfinite(m) & (m > 0)
        if not sel.any():
            die("%s: no measured pair of cpus whose closest common level is %s: "
                "cannot derive its cost (measure more pairs, or drop the level from %s)"
                % (a.csv, level["kind"], a.topology), 1)
        med = float(np.median(m[sel]))
        costs.append((level["kind"], 0.5e9 / med, int(sel.sum()) // 2, med))

    name = a.name or os.path.basename(a.out).rsplit(".profile", 1)[0]
    out_dir = os.path.dirname(os.path.abspath(a.out))
    rel = os.path.relpath(os.path.abspath(a.topology), out_dir)
    lines = [
        "clof-sim-profile 1",
        "# Derived by sim/heatmap2profile.py from %s:" % a.csv,
        "#   heatmap2profile.py %s" % " ".join(argv),
        "# level cost = 0.5e9 / median increments per second of the pairs whose",
        "# closest common level it is (docs/simulation.md \"Profiles\").",
        "name %s" % name,
        "description %s" % (a.description or "machine of heatmap %s" % os.path.basename(a.csv)),
        "source measured heatmap %s (medians per level); local costs are assumptions"
        % os.path.basename(a.csv),
        "hierarchy %s" % rel,
    ]
    for kind, cost, pairs, med in costs:
        lines.append("level %s %.2f   # %d pairs, median %.4g increments/s" % (kind, cost, pairs, med))
    for c in ("hit", "rmw", "fence", "pause", "memory"):
        lines.append("cost %s %g" % (c, getattr(a, c)))
    lines.append("jitter 0.05")
    try:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    except OSError as e:
        die("%s: %s" % (a.out, e))
    for kind, cost, pairs, _ in costs:
        print("%-8s %8.2f ns  (%d pairs)" % (kind, cost, pairs))
    print("wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
