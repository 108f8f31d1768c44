#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""clof-bench / clof bench command-line behaviour (DESIGN.md "Commands").

usage: test_bench_cli.py BINDIR
"""
import json
import subprocess
import sys

BIN = sys.argv[1]
fails = []


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


r = run([BIN + "/clof-bench", "--list"])
names = r.stdout.split()
check(r.returncode == 0, "--list exits 0")
for n in ["tas", "mcs", "hemlock_ctr", "pthread", "ck-mcs", "c-bo-mcs", "c-tkt-tkt",
          "c-ptl-tkt", "a-c-bo-bo", "a-c-bo-clh", "hmcs", "cna", "tkt-mcs", "hem-hem-mcs-clh", "clh-clh-clh-clh"]:
    check(n in names, "--list has " + n)
# the peers (other libraries' locks, clof's embedding variants: clh-lean)
# are no compositions, whatever their dashes
peers = set(run([BIN + "/clof-lockname", "names", "--family", "peer"]).stdout.split())
check("clh-lean" in names and "clh-lean" in peers, "--list has clh-lean, a peer")
plain = [n for n in names if not n.startswith("cr:") and n not in peers]
# every other part of the registry over two levels with tkt, mcs, clh, hem
# and itself, at either level (tools/gen_compositions.py --pairs all)
parts = [l.split()[0] for l in run([BIN + "/clof-lockname", "parts"]).stdout.splitlines() if l.strip()]
others = [p for p in parts if p not in ("tkt", "mcs", "clh", "hem")]
check(len(others) == len(parts) - 4, "clof-lockname parts has tkt, mcs, clh and hem")
check(len([n for n in plain if n.count("-") == 1 and not n.startswith("c-")])
      == 16 + 9 * len(others)
      and len([n for n in plain if n.count("-") == 2 and not n.startswith("c-")]) == 64
      and len([n for n in plain if n.count("-") == 3 and not n.startswith("a-c-")]) == 256,
      "--list has all 4^2 + 4^3 + 4^4 compositions, and 9 two-level ones per other part")
for x in others:
    for n in [x + "-mcs", "mcs-" + x, x + "-" + x]:
        check(n in names, "--list has " + n)
for n in ["cr:mcs", "cr:ticket", "cr:clh", "cr:hmcs", "cr:cna", "cr:tkt-mcs"]:
    check(n in names, "--list has " + n + " (concurrency restriction, docs/cr.md)")

r = run([BIN + "/clof-bench", "--lock", "no-such-lock"])
check(r.returncode == 2, "unknown lock exits 2")
check("unknown lock 'no-such-lock'" in r.stderr and "clof locks" in r.stderr,
      "an unknown lock says where to see the names")

r = run([BIN + "/clof-bench", "--lock", "mcs", "--emulate", "numa:2,bogus:3"])
check(r.returncode == 2 and "bogus" in r.stderr, "bad --emulate shape exits 2 naming the problem")

r = run([BIN + "/clof-bench", "--lock", "mcs", "--threads", "0"])
check(r.returncode == 2, "zero threads is bad usage")

r = run([BIN + "/clof", "bench", "--lock", "hem-hem-mcs-clh", "--threads", "8",
         "--duration", "0.2", "--emulate", "package:2,numa:2,cache:2,core:2", "--json"])
check(r.returncode == 0, "clof bench on an emulated machine exits 0: " + r.stderr[-200:])
if r.returncode == 0:
    rec = json.loads(r.stdout.splitlines()[0])
    for k in ["lock", "threads", "duration_s", "ops_per_s", "per_thread", "fairness_rstd",
              "p50_ns", "p99_ns", "handover_local", "simulated", "machine"]:
        check(k in rec, "JSON record has " + k)
    check(rec["topology"]["emulated"] is True, "JSON says the machine was emulated")
    check(set(rec["handover_local"]) == {"cache", "numa", "package", "system"},
          "handover_local has every level of the emulated hierarchy")
    check(rec["handover_local"]["system"] == 1, "every handover is local to the system")
    check(rec["mutex_check"] == "ok" and sum(rec["per_thread"]) > 0, "the run did work")

print("PASS" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
