#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libvsync's NUMA-aware peers of clof-bench, vsync-cna and vsync-hmcs
(docs/peers.md): they take their NUMA configuration from clof's process
topology, so they must run correctly on every topology clof's cna and hmcs
run on -- the machine's, an emulated 2-level one, the 4-level Kunpeng 920
hierarchy file -- and refuse, with a clear error and no crash, the ones
libvsync's HMCS cannot represent (a tree with different numbers of children
under one level's cohorts; more leaves than HMCS_MAX_THREADS).

Behaviour only: each run is 0.2 s with 3 threads (more than this VM's cpus),
checked by clof-bench's mutual-exclusion count and for progress, never for
speed.

usage: test_vsync_numa.py BINDIR SRCDIR
"""
import json
import subprocess
import sys

BIN, SRC = sys.argv[1], sys.argv[2]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def bench(*args):
    return subprocess.run([BIN + "/clof-bench", *args], capture_output=True,
                          text=True, timeout=120)


names = bench("--list").stdout.split()
check("vsync-cna" in names and "vsync-hmcs" in names,
      "--list has vsync-cna and vsync-hmcs")

# (what, clof-bench options, levels of the topology)
machines = [
    ("this machine", [], None),
    ("emulated numa:2,cpu:2", ["--emulate", "numa:2,cpu:2", "--placement", "spread"], 2),
    ("emulated numa:2,cache:2,cpu:2",
     ["--emulate", "numa:2,cache:2,cpu:2", "--placement", "spread"], 3),
    ("emulated kunpeng920.topo",
     ["--emulate", SRC + "/examples/topology/kunpeng920.topo", "--placement", "spread"], 4),
]
for lock in ["vsync-cna", "vsync-hmcs"]:
    for what, opts, nlev in machines:
        r = bench("--lock", lock, "--threads", "3", "--duration", "0.2", "--json", *opts)
        tag = "%s on %s" % (lock, what)
        check(r.returncode == 0, tag + " exits 0: " + r.stderr[-300:])
        if r.returncode != 0:
            continue
        rec = json.loads(r.stdout.splitlines()[0])
        check(rec["lock"] == lock, tag + ": the record names the lock")
        check(rec["mutex_check"] == "ok", tag + ": mutual exclusion holds")
        check(len(rec["per_thread"]) == 3 and all(n > 0 for n in rec["per_thread"]),
              tag + ": every thread acquired the lock: %s" % rec["per_thread"])
        if nlev is not None:
            check(rec["topology"]["emulated"] is True, tag + ": ran emulated")
            check(len(rec["handover_local"]) == nlev,
                  tag + ": %d levels: %s" % (nlev, rec["handover_local"]))

# Topologies libvsync's HMCS cannot be built for: a clear error, exit 1, no
# crash (a signal would make returncode negative).
r = bench("--lock", "vsync-hmcs", "--threads", "2", "--duration", "0.1",
          "--emulate", SRC + "/examples/topology/alderlake-12900k.topo")
check(r.returncode == 1 and "vsync-hmcs:" in r.stderr
      and "same number under every parent" in r.stderr,
      "vsync-hmcs refuses an irregular hierarchy (alderlake): rc %d, %r"
      % (r.returncode, r.stderr[-300:]))
r = bench("--lock", "vsync-hmcs", "--threads", "2", "--duration", "0.1",
          "--emulate", "numa:1025,cpu:2")
check(r.returncode == 1 and "vsync-hmcs:" in r.stderr and "HMCS_MAX_THREADS" in r.stderr,
      "vsync-hmcs refuses more leaves than HMCS_MAX_THREADS: rc %d, %r"
      % (r.returncode, r.stderr[-300:]))
# the same topologies are fine for vsync-cna (no tree)
r = bench("--lock", "vsync-cna", "--threads", "2", "--duration", "0.1",
          "--emulate", SRC + "/examples/topology/alderlake-12900k.topo", "--json")
check(r.returncode == 0 and json.loads(r.stdout.splitlines()[0])["mutex_check"] == "ok",
      "vsync-cna runs on the irregular hierarchy: " + r.stderr[-300:])

print("PASS" if not fails else "%d failure(s)" % len(fails))
sys.exit(1 if fails else 0)
