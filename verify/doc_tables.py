#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""verify/doc_tables.py RESULTS_DIR -- the tables of docs/verification.md
from the files verify/tables.sh wrote (quick.md, full.md, mutation.md):
one row per lock, one column per model and mode."""
import os
import re
import sys


def rows(path):
    out = {}
    order = []
    if not os.path.exists(path):
        return out, order
    for line in open(path):
        f = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(f) != 6 or f[0] in ("lock", "---") or f[0].startswith("-"):
            continue
        lock, model, result, execs, secs, search = f
        if lock not in out:
            out[lock] = {}
            order.append(lock)
        out[lock][model] = (result, int(execs), float(secs), search)
    return out, order


def cell(r, full):
    if r is None:
        return "-"
    result, execs, secs, search = r
    if result.startswith("VIOLATED"):
        what = result.split(":", 1)[1].strip() if ":" in result else result
        return "**violated** (%s), exec %d" % (what.replace(" (spinloop non-termination)", ""), execs)
    if result != "verified":
        return result
    if search.startswith("exhaustive"):
        how = "exhaustive"
    elif search.startswith("stopped"):
        how = "not finished"
    else:
        how = "bound 2"
    return "ok, %s, %d, %.2f s" % (how, execs, secs)


def main():
    d = sys.argv[1]
    q, order = rows(os.path.join(d, "quick.md"))
    f, _ = rows(os.path.join(d, "full.md"))
    print("Each cell: verdict, search (`bound 2`: quick mode, preemption bound 2; "
          "`exhaustive`: no bound, the search finished; `not finished`: no bound, "
          "stopped by the time limit), executions explored, time.\n")
    print("| lock | SC quick | TSO quick | C11 quick | SC full | TSO full | C11 full |")
    print("|---|---|---|---|---|---|---|")
    for lock in order:
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            lock, *(cell(q[lock].get(m), False) for m in ("sc", "tso", "c11")),
            *(cell(f.get(lock, {}).get(m), True) for m in ("sc", "tso", "c11"))))
    mpath = os.path.join(d, "mutation.md")
    if os.path.exists(mpath):
        text = open(mpath).read()
        m = re.search(r"mutation: (\d+) weakenings caught, (\d+) safe", text)
        print("\n### Mutation (C11, quick mode)\n")
        if m:
            print("%s weakenings caught, %s safe (proposed relaxations).  "
                  "Every access of each lock, grouped by its source line, weakened one step "
                  "at a time (seq_cst -> acq_rel/acq/rel -> rlx; a fence removed) until a "
                  "property fails.\n" % (m.group(1), m.group(2)))
        print("\n".join(l for l in text.splitlines() if l.startswith("|")))
    lpath = os.path.join(d, "litmus.md")
    if os.path.exists(lpath):
        print("\n### The litmus catalogue\n")
        print(open(lpath).read().rstrip())


main()
