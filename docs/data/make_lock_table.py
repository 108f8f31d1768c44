#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the table of every lock into docs/locks.md ("Every lock,
measured"), from the registry and the measured files of
bench/lock_table.sh.

    docs/data/make_lock_table.py          write the table into docs/locks.md
    docs/data/make_lock_table.py --check  exit 1 if the page differs from
                                          what the files give (ctest
                                          docs.lock_table)

The rows: every basic lock of the registry (include/clof/lock/list.h, in
its order; the properties are read from each lock's header, where they are
declared), then HMCS and CNA (their headers), then glibc's two mutexes.
The columns measured come from docs/data/lock-table: callgrind.csv
(uncontended instructions per pair), oversub.jsonl (clof-bench, lock /
glibc at T = 2 and 16: the median of the per-repeat ratios [min-max], as
bench/preload/summarize.py computes them) and sim.jsonl (SIMULATED, the
median over seeds of the throughput at 128 threads, over MCS's).  A lock
the files do not cover shows "-" (rerun bench/lock_table.sh after adding
one).
"""
import csv
import json
import os
import re
import statistics
import sys
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "docs", "data", "lock-table")
PAGE = os.path.join(ROOT, "docs", "locks.md")
BEGIN = "<!-- lock-table: written by docs/data/make_lock_table.py from docs/data/lock-table -->"
END = "<!-- /lock-table -->"
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_compositions  # noqa: E402  (the registry's rows, read once for every tool)


def die(msg):
    print(f"make_lock_table.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read(rel):
    try:
        with open(os.path.join(ROOT, rel)) as f:
            return f.read()
    except OSError as e:
        die(f"{rel}: {e.strerror}")


def registry():
    """[(id, fit, paper)] of CLOF_LOCK_REGISTRY, in its order."""
    return [(r["id"], r["fit"], r["paper"]) for r in gen_compositions.registry_rows()]


def props(header, ID):
    """The properties a header declares: {FAIR, ZERO_INIT, THREAD_OBLIVIOUS,
    ctx} (None where it declares none)."""
    text = read(header)
    p = {}
    for k in ("FAIR", "ZERO_INIT", "THREAD_OBLIVIOUS"):
        m = re.search(rf"#define CLOF_{ID}_{k} (\d)", text)
        p[k] = None if m is None else m.group(1) == "1"
    p["ctx"] = not re.search(rf"typedef clof_noctx_t clof_{ID.lower()}_ctx_t;", text)
    return p


def paper_of(header):
    """The header's "Paper:" paragraph (numa locks), up to its first
    parenthesis closed (the paper and its authors)."""
    m = re.search(r"\* Paper: (.*?)\n \* [A-Z][a-z]+:", read(header), re.S)
    if not m:
        return "-"
    text = " ".join(line.strip().lstrip("*").strip() for line in m.group(1).split("\n"))
    return text[:text.index(")") + 1] if ")" in text else text.rstrip(",;.")


def yes(v, y="yes", n="no"):
    return "-" if v is None else (y if v else n)


def callgrind():
    path = os.path.join(DATA, "callgrind.csv")
    if not os.path.exists(path):
        return {}, ""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {r["lock"]: float(r["instr_per_pair"]) for r in rows}, (rows[0].get("machine", "") if rows else "")


def jsonl(name):
    """(meta, records) of docs/data/lock-table/NAME (({}, []) if absent)."""
    path = os.path.join(DATA, name)
    meta, recs = {}, []
    if not os.path.exists(path):
        return meta, recs
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                die(f"docs/data/lock-table/{name}:{ln}: not a JSON line")
            if r.get("type") == "meta":
                meta = r
            else:
                recs.append(r)
    return meta, recs


def oversub():
    """({(lock, T): [per-repeat ratio to pthread]}, meta)."""
    meta, recs = jsonl("oversub.jsonl")
    vals = defaultdict(dict)
    for r in recs:
        m = re.search(r"repeat=(\d+)", r.get("label", ""))
        if m:
            vals[(r["lock"], r["threads"])][int(m.group(1))] = r["ops_per_s"]
    out = {}
    for (lock, t), byrep in vals.items():
        ref = vals.get(("pthread", t), {})
        rs = [v / ref[k] for k, v in byrep.items() if ref.get(k)]
        if rs:
            out[(lock, t)] = rs
    return out, meta


def sim():
    """({lock: median ops/s over seeds}, meta)."""
    meta, recs = jsonl("sim.jsonl")
    vals = defaultdict(list)
    for r in recs:
        vals[r["lock"]].append(r["ops_per_s"])
    return {k: statistics.median(v) for k, v in vals.items()}, meta


def ratio_cell(rs):
    if not rs:
        return "-"
    return f"{statistics.median(rs):.2f} [{min(rs):.2f}-{max(rs):.2f}]"


def table():
    cg, cg_machine = callgrind()
    ov, ov_meta = oversub()
    sm, sm_meta = sim()
    rows = []
    for lid, fit, paper in registry():
        p = props(f"include/clof/lock/{lid}.h", lid.upper())
        rows.append((lid, "basic", p, paper, fit))
    for lid in ("hmcs", "cna"):
        h = f"include/clof/numa/{lid}.h"
        rows.append((lid, "numa", props(h, lid.upper()), paper_of(h), None))
    glibc = {"FAIR": False, "ZERO_INIT": True, "THREAD_OBLIVIOUS": None, "ctx": False}
    rows.append(("pthread", "peer (glibc)", glibc, "glibc's default mutex (the reference)", None))
    rows.append(("glibc-adaptive", "peer (glibc)", glibc, "glibc's PTHREAD_MUTEX_ADAPTIVE_NP", None))
    mcs = sm.get("mcs")
    lines = [BEGIN, "",
             "| lock | family | FIFO | context | zero-init | thread-oblivious | paper | "
             "instr/pair | T=2 / glibc | T=16 / glibc | SIMULATED 128 / MCS |",
             "|---|---|---|---|---|---|---|---:|---|---|---:|"]
    for lid, fam, p, paper, fit in rows:
        s = sm.get(lid)
        simc = f"{s / mcs:.2f}" if s is not None and mcs else "-"
        ipp = f"{cg[lid]:.0f}" if lid in cg else "-"
        lines.append(f"| `{lid}` | {fam} | {yes(p['FAIR'], 'FIFO', 'no')} | "
                     f"{'yes' if p['ctx'] else 'none'} | {yes(p['ZERO_INIT'])} | "
                     f"{yes(p['THREAD_OBLIVIOUS'])} | {paper} | {ipp} | "
                     f"{ratio_cell(ov.get((lid, 2)))} | {ratio_cell(ov.get((lid, 16)))} | {simc} |")
    lines.append("")
    notes = []
    if cg:
        notes.append(f"instr/pair: callgrind, one thread, clof-bench's adapters "
                     f"(`bench/callgrind.sh`; {cg_machine or 'machine not recorded'}).")
    if ov_meta:
        notes.append(f"T=2 and T=16: clof-bench, lock / glibc's mutex, median of the "
                     f"per-repeat ratios [min-max] of {ov_meta.get('repeats', '?')} interleaved "
                     f"repeats of {ov_meta.get('duration_s', '?')} s, on {ov_meta.get('date', '')[:10]} "
                     f"(T = 16 is 8 threads per cpu on the 2-vCPU VM).")
    if sm_meta:
        notes.append(f"SIMULATED 128 / MCS: the simulator on the `{sm_meta.get('profile', '?')}` "
                     f"profile, 128 threads, the median of seeds 1-3 over MCS's; the model's "
                     f"error is stated in [simulation-accuracy.md](simulation-accuracy.md), and "
                     f"glibc's mutexes cannot be simulated.")
    notes.append("Measured by `bench/lock_table.sh` (about 8 minutes); "
                 "`docs/data/make_lock_table.py` writes this table from its files.")
    lines += [f"- {n}" for n in notes]
    lines += ["", END]
    return "\n".join(lines)


def main():
    check = "--check" in sys.argv[1:]
    page = read("docs/locks.md")
    if BEGIN not in page or END not in page:
        die(f"docs/locks.md: the markers {BEGIN!r} and {END!r} are missing")
    a, b = page.index(BEGIN), page.index(END) + len(END)
    new = page[:a] + table() + page[b:]
    if check:
        if new != page:
            print("make_lock_table.py: docs/locks.md's table differs from docs/data/lock-table "
                  "(run docs/data/make_lock_table.py)", file=sys.stderr)
            return 1
        return 0
    with open(PAGE, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
