#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draw the include graph of clof's public headers (and optionally of more
folders) as a Mermaid flowchart, from the #include lines themselves.

usage: tools/include_graph.py [--root DIR] [FOLDER ...]
       (default FOLDER: include/clof; prints Mermaid on stdout)

docs/layers.md embeds its output; rerun it after moving headers:
    tools/include_graph.py > /tmp/g.mmd
An arrow A --> B means A includes B.  Headers are grouped by the layers
of docs/layers.md (LAYERS below, bottom up); an include that points to the
same or a higher layer, or a header no layer claims, makes the script exit
1 naming it, so the picture cannot show a knot that the code has.
"""
import argparse
import os
import re
import sys

import fnmatch

# bottom up; a header may include headers of lower layers only
LAYERS = [
    ("backend", ["clof/backend/*"]),
    ("atomics shim", ["clof/atomic.h"]),
    ("waiting policy", ["clof/wait.h"]),
    ("await", ["clof/await.h"]),
    ("lock interface", ["clof/lock.h"]),
    ("basic locks", ["clof/lock/*.h"]),
    ("basic lock list", ["clof/lock/list.h"]),
    ("topology", ["clof/topology.h"]),
    ("RW lock interface", ["clof/rw.h"]),
    ("RW locks", ["clof/rw/central.h", "clof/rw/cohort.h", "clof/rw/bravo.h"]),
    ("hierarchy parts", ["clof/hier/*"]),
    ("NUMA locks", ["clof/numa/hmcs.h", "clof/numa/cna.h"]),
    ("CLoF generator", ["clof/compose.h"]),
    ("compositions", ["clof/numa/cohort.h"]),
    ("abortable compositions", ["clof/numa/acohort.h"]),
    ("RW lock list", ["clof/rw/list.h"]),
    ("layers over any lock", ["clof/asl.h", "clof/cr.h"]),
    ("umbrella", ["clof/clof.h"]),
    # what a program under libclof-preload.so asks it (includes no clof header)
    ("preload introspection", ["clof/preload.h"]),
]


def layer_of(name):
    found = None
    for i, (_, pats) in enumerate(LAYERS):
        if any(fnmatch.fnmatch(name, p) for p in pats):
            found = i  # the last match wins (lock/list.h over lock/*.h)
    return found


INC = re.compile(r'^\s*#\s*include\s*[<"](clof/[^>"]+)[>"]', re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("folders", nargs="*", default=["include/clof"])
    a = ap.parse_args()
    inc_root = os.path.join(a.root, "include")
    edges = {}
    for folder in a.folders:
        for d, _, files in os.walk(os.path.join(a.root, folder)):
            for f in sorted(files):
                if not f.endswith((".h", ".c")):
                    continue
                p = os.path.join(d, f)
                name = os.path.relpath(p, inc_root) if p.startswith(inc_root) else os.path.relpath(p, a.root)
                with open(p, encoding="utf-8") as fh:
                    edges[name] = sorted(set(INC.findall(fh.read())))
    bad = []
    lay = {}
    for n in edges:
        if n.startswith("clof/"):
            lay[n] = layer_of(n)
            if lay[n] is None:
                bad.append("%s: in no layer (tools/include_graph.py LAYERS)" % n)
    for n, inc in edges.items():
        for m in inc:
            if n in lay and m in lay and lay[n] is not None and lay[m] is not None \
                    and lay[m] >= lay[n] and not (lay[m] == lay[n] == 5):
                bad.append("%s (%s) includes %s (%s): not a lower layer"
                           % (n, LAYERS[lay[n]][0], m, LAYERS[lay[m]][0]))
    ident = {n: "n%d" % i for i, n in enumerate(sorted(edges))}
    print("flowchart BT")
    for i, (label, _) in enumerate(LAYERS):
        names = sorted(n for n in lay if lay[n] == i)
        if not names:
            continue
        print("  subgraph L%d[\"%d. %s\"]" % (i, i + 1, label))
        for n in names:
            print("    %s[\"%s\"]" % (ident[n], n[len("clof/"):]))
        print("  end")
    for n in sorted(edges):
        for m in edges[n]:
            if m in ident and n in ident:
                print("  %s --> %s" % (ident[n], ident[m]))
    for b_ in bad:
        sys.stderr.write("include_graph: %s\n" % b_)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
