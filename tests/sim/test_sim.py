#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The simulation backend, end to end (docs/simulation.md "Validation").

    test_sim.py BINDIR CASE

Each CASE runs clof-bench --simulate on the shipped profiles and checks one
qualitative result of the papers, or the command-line contract.  A simulated
run is deterministic (virtual time, seeded), so these are tests, not
benchmarks: they do not depend on this machine's speed or load.  The margins
are wide on purpose -- the claims are qualitative ("collapses", "cuts",
"beats"); the figures themselves are in docs/simulation.md.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BINDIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin")
FAILS = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        FAILS.append(msg)


def bench(*args, prog="clof-bench", expect=0):
    argv = [os.path.join(BINDIR, prog)] + [str(a) for a in args]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=240)
    if expect is not None and r.returncode != expect:
        print("command:", " ".join(argv))
        print(r.stdout[-2000:], r.stderr[-2000:])
        raise SystemExit("FAIL: exit status %d, expected %d" % (r.returncode, expect))
    return r


def sim(profile, lock, threads, *extra):
    r = bench("--simulate", profile, "--lock", lock, "--threads", threads, "--json", *extra)
    rec = json.loads(r.stdout.splitlines()[-1])
    return rec


def mops(rec):
    return rec["ops_per_s"] / 1e6


def remote(rec):
    """line transfers per critical section between cpus of different NUMA
    nodes (closest common level package or system)"""
    t = rec["sim"]["transfers_per_cs"]
    return t.get("package", 0) + t.get("system", 0)


# ---------------------------------------------------------------------------


def case_ticket_collapses_mcs_holds():
    """CLoF paper Fig. 3 / cohort paper: the ticket lock's waiters all re-read
    one line after every release, so its handover grows with the waiters;
    MCS waiters spin on their own node."""
    t16, t128 = sim("kunpeng920", "ticket", 16), sim("kunpeng920", "ticket", 128)
    m16, m128 = sim("kunpeng920", "mcs", 16), sim("kunpeng920", "mcs", 128)
    print("ticket %.3f -> %.3f Mops/s, mcs %.3f -> %.3f Mops/s (16 -> 128 threads)"
          % (mops(t16), mops(t128), mops(m16), mops(m128)))
    # The margins follow the checked model (docs/simulation-accuracy.md):
    # with the waiters' re-reads of a clean line served in parallel, ticket
    # at 16 cpus of the measured 16-cpu machine is predicted 1.5x below MCS
    # (measured: 1.85x below); before, the model put it 4.7x below.
    check(mops(t128) < mops(t16) / 1.5, "ticket collapses: 128 threads < 1/1.5 of 16 threads")
    check(mops(m128) > mops(m16) / 3, "mcs holds: 128 threads > 1/3 of 16 threads")
    check(mops(m128) > 1.2 * mops(t128), "mcs > 1.2x ticket at 128 threads")
    tx_t = sum(t128["sim"]["transfers_per_cs"].values())
    tx_m = sum(m128["sim"]["transfers_per_cs"].values())
    check(tx_t > 5 * tx_m, "ticket moves > 5x the lines per CS of mcs (%.1f vs %.1f)"
          % (tx_t, tx_m))


def case_numa_locks_cut_remote_transfers():
    """Cohort paper Fig. 10: NUMA-aware locks keep the lock and the data in one
    node for many critical sections; cross-node transfers per CS drop."""
    base = sim("kunpeng920", "mcs", 128)
    print("mcs: %.3f cross-node transfers per CS" % remote(base))
    check(remote(base) > 1.0, "mcs moves lines across nodes in most handovers")
    for lock in ("c-bo-mcs", "c-tkt-tkt", "hmcs", "cna", "clh-clh-mcs-mcs", "tkt-mcs-clh-hem"):
        rec = sim("kunpeng920", lock, 128)
        print("%s: %.4f cross-node transfers per CS, %.3f Mops/s (mcs %.3f)"
              % (lock, remote(rec), mops(rec), mops(base)))
        check(remote(rec) < 0.25 * remote(base), "%s cuts cross-node transfers per CS by > 4x"
              % lock)
        if lock != "c-tkt-tkt":  # its node-level ticket lock collapses (docs)
            check(mops(rec) > mops(base), "%s beats mcs at 128 threads" % lock)


def case_hmcs4_beats_hmcs2_epyc():
    """CLoF paper Fig. 2: on the x86 server HMCS over the full hierarchy beats
    the 2-level (NUMA node, system) HMCS."""
    for t in (48, 96):
        h4 = sim("epyc7352", "hmcs", t)
        h2 = sim("epyc7352", "hmcs", t, "--levels", "numa")
        check(h4["topology"]["levels"] == ["core", "cache", "numa", "system"],
              "hmcs builds HMCS<4> on epyc7352 (%s)" % h4["topology"]["levels"])
        check(h2["topology"]["levels"] == ["numa", "system"],
              "--levels numa builds HMCS<2> (%s)" % h2["topology"]["levels"])
        print("%d threads: HMCS<4> %.3f, HMCS<2> %.3f Mops/s" % (t, mops(h4), mops(h2)))
        check(mops(h4) > 1.5 * mops(h2), "HMCS<4> > 1.5x HMCS<2> at %d threads" % t)


def case_flat_no_numa_benefit():
    """On a machine whose levels all cost the same, NUMA-awareness buys
    (almost) nothing: the gain over MCS that the Kunpeng profile shows must
    mostly vanish."""
    flat = os.path.join(HERE, "flat128.profile")
    for lock in ("hmcs", "c-bo-mcs", "clh-clh-mcs-mcs"):
        kf, km = sim(flat, lock, 128), sim(flat, "mcs", 128)
        nf, nm = sim("kunpeng920", lock, 128), sim("kunpeng920", "mcs", 128)
        gf, gn = mops(kf) / mops(km), mops(nf) / mops(nm)
        print("%s / mcs: flat %.2fx, kunpeng920 %.2fx" % (lock, gf, gn))
        check(gf < 1.5, "%s gains < 1.5x over mcs on the flat profile" % lock)
        check(gn > 2 * gf, "%s: the NUMA profile's gain is > 2x the flat one" % lock)


def case_deterministic():
    a = sim("kunpeng920", "cna", 64, "--seed", 7)
    b = sim("kunpeng920", "cna", 64, "--seed", 7)
    c = sim("kunpeng920", "cna", 64, "--seed", 8)
    same = ("ops", "per_thread", "p50_ns", "p99_ns")
    check(all(a[k] == b[k] for k in same) and a["sim"]["transfers_per_cs"] ==
          b["sim"]["transfers_per_cs"], "the same seed gives the same run")
    check(a["per_thread"] != c["per_thread"], "another seed gives another run")
    check(a["simulated"] is True and "simulated" in a["machine"]["cpu_model"],
          "records are marked simulated")
    for key in ("lock", "threads", "duration_s", "ops_per_s", "per_thread", "fairness_rstd",
                "p50_ns", "p99_ns", "handover_local", "machine"):
        check(key in a, "the record has '%s'" % key)
    check(set(a["sim"]["transfers_per_cs"]) == {"cache", "numa", "package", "system"},
          "transfers per CS for every level of the profile")
    sp = sim("kunpeng920", "mcs", 8, "--placement", "spread")
    pk = sim("kunpeng920", "mcs", 8, "--placement", "packed")
    check(sp["sim"]["cpus"] != pk["sim"]["cpus"] and len(set(pk["sim"]["cpus"])) == 8,
          "placements give distinct cpus (packed %s, spread %s)"
          % (pk["sim"]["cpus"], sp["sim"]["cpus"]))
    check(remote(sp) > remote(pk), "spread threads move more lines across nodes")


def case_every_lock():
    """Every lock of the library runs simulated (same source, sim backend):
    mutual exclusion holds (clof-bench checks it) and no thread is left
    waiting (the simulator reports a deadlock)."""
    names = bench("--list").stdout.split()
    peers = {"pthread", "glibc-adaptive", "ck-mcs", "ck-clh", "ck-ticket", "ck-fas"}
    n = 0
    for lock in names:
        if lock in peers or lock.startswith("vsync-"):  # outside the shim
            continue
        r = bench("--simulate", "m1", "--lock", lock, "--threads", 8, "--sim-ops", 800,
                  "--json", prog="clof-bench-sim", expect=None)
        ok = r.returncode == 0 and json.loads(r.stdout)["simulated"] is True
        if not ok:
            print(r.stderr)
        check(ok, "%s runs simulated" % lock) if not ok else None
        n += 1 if ok else 0
    check(n >= 300, "%d locks ran simulated" % n)


def case_bad_input():
    r = bench("--simulate", "nosuch", "--lock", "mcs", expect=2)
    check("unknown profile 'nosuch'" in r.stderr and "kunpeng920" in r.stderr,
          "unknown profile: named, known ones listed (%s)" % r.stderr.strip())
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.profile")
        with open(bad, "w") as f:
            f.write("clof-sim-profile 1\nlevel cache fast\n")
        r = bench("--simulate", bad, "--lock", "mcs", expect=2)
        check("bad.profile:2:" in r.stderr and "fast" in r.stderr,
              "a bad profile: file:line and what was expected (%s)" % r.stderr.strip())
        with open(bad, "w") as f:
            f.write("clof-sim-profile 1\nhierarchy %s\nlevel cache 10\nlevel system 50\n"
                    % os.path.join(ROOT, "examples", "topology", "kunpeng920.topo"))
        r = bench("--simulate", bad, "--lock", "mcs", expect=2)
        check("no 'level numa NS'" in r.stderr, "a level without a cost (%s)"
              % r.stderr.strip())
    r = bench("--simulate", "m1", "--lock", "mcs", "--threads", 1025, expect=2)
    check("at most 1024" in r.stderr, "more threads than the simulator runs (%s)"
          % r.stderr.strip())
    r = bench("--simulate", "m1", "--lock", "mcs", "--sim-wait", "sometimes", expect=2)
    check("--sim-wait" in r.stderr, "a bad --sim-wait (%s)" % r.stderr.strip())
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "slice.profile")
        with open(bad, "w") as f:
            f.write("clof-sim-profile 1\n# time-sharing\nslice 2ms\n")
        r = bench("--simulate", bad, "--lock", "mcs", expect=2)
        check("slice.profile:3:" in r.stderr and "expected 'slice NS'" in r.stderr,
              "a bad slice: file:line and what was expected (%s)" % r.stderr.strip())
    r = bench("--simulate", "m1", "--lock", "ck-mcs", expect=2)
    check("cannot be simulated" in r.stderr, "a peer lock outside the shim (%s)"
          % r.stderr.strip())
    r = bench("--simulate", "m1", "--lock", "hmcs", "--levels", "numa", expect=2)
    check("no numa level" in r.stderr, "--levels with a level the machine lacks (%s)"
          % r.stderr.strip())
    r = bench("--simulate", "m1", "--emulate", "core:2", "--lock", "mcs", expect=2)
    check("excludes" in r.stderr, "--simulate with --emulate (%s)" % r.stderr.strip())


def case_profiles():
    """The shipped profiles load, have the documented shapes, and their costs
    keep the CLoF paper's Table 2 ratios."""
    shapes = {"kunpeng920": (128, ["cache", "numa", "package", "system"]),
              "epyc7352": (96, ["core", "cache", "numa", "system"]),
              "local": (2, None), "m1": (8, ["cache", "system"])}
    for name, (cpus, levels) in shapes.items():
        rec = sim(name, "mcs", 2, "--sim-ops", 500)
        check(rec["machine"]["cpus_online"] == cpus, "%s has %d cpus" % (name, cpus))
        if levels:
            check(rec["topology"]["levels"] == levels, "%s levels %s" % (name, levels))
    table2 = {"kunpeng920": {"package": 1.76, "numa": 2.98, "cache": 7.04},
              "epyc7352": {"numa": 1.54, "cache": 9.07, "core": 12.18}}
    for name, ratios in table2.items():
        cost = {}
        with open(os.path.join(ROOT, "sim", "profiles", name + ".profile")) as f:
            for line in f:
                w = line.split("#")[0].split()
                if len(w) == 3 and w[0] == "level":
                    cost[w[1]] = float(w[2])
        for kind, speedup in ratios.items():
            got = cost["system"] / cost[kind]
            check(abs(got / speedup - 1) < 0.01, "%s: system/%s cost = %.2f (Table 2: %.2f)"
                  % (name, kind, got, speedup))
    # m1: little cores run local work slower
    big = sim("m1", "mcs", 1, "--non-cs", 2000, "--placement", "linear", "--sim-ops", 300)
    check(big["sim"]["cpus"] == [0], "linear placement starts at cpu 0 (a little core)")


def case_heatmap_profile():
    """A heatmap CSV (clof heatmap's format) becomes a profile whose level
    costs are half the time per increment of the pairs of that level (one
    transfer + one invalidation per increment, as the model charges), and
    simulating the heatmap handover on that profile gives the CSV back."""
    tool = os.path.join(ROOT, "sim", "heatmap2profile.py")
    topo = os.path.join(ROOT, "examples", "topology", "kunpeng920.topo")
    rates = {"cache": 7.04, "numa": 2.98, "package": 1.76, "system": 1.0}
    with tempfile.TemporaryDirectory() as d:
        csv = os.path.join(d, "heatmap.csv")
        # kunpeng920: 4-cpu cache groups, 32-cpu nodes, 64-cpu packages
        def kind(a, b):
            if a // 4 == b // 4:
                return "cache"
            if a // 32 == b // 32:
                return "numa"
            if a // 64 == b // 64:
                return "package"
            return "system"
        cpus = list(range(0, 128, 3)) + [1]
        cpus.sort()
        with open(csv, "w") as f:
            f.write("# synthetic\ncpu," + ",".join(map(str, cpus)) + "\n")
            for a in cpus:
                row = [("nan" if a == b else "%.1f" % (2.5e6 * rates[kind(a, b)]))
                       for b in cpus]
                f.write("%d,%s\n" % (a, ",".join(row)))
        out = os.path.join(d, "k.profile")
        r = subprocess.run([sys.executable, tool, csv, "--topology", topo, "--out", out,
                            "--name", "k", "--bindir", BINDIR],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        print(r.stdout, r.stderr)
        check(r.returncode == 0, "heatmap2profile converts the CSV")
        if r.returncode != 0:
            return
        cost = {}
        with open(out) as f:
            for line in f:
                w = line.split("#")[0].split()
                if len(w) == 3 and w[0] == "level":
                    cost[w[1]] = float(w[2])
        for k, rate in rates.items():
            want = 0.5e9 / (2.5e6 * rate)
            check(abs(cost.get(k, -1) / want - 1) < 0.02, "level %s costs %.1f ns (want %.1f)"
                  % (k, cost.get(k, -1), want))
        rec = sim(out, "mcs", 2, "--sim-ops", 500)
        check(rec["sim"]["profile"] == "k", "the converted profile runs")
        r = subprocess.run([sys.executable, tool, os.path.join(d, "missing.csv"),
                            "--topology", topo, "--out", out, "--bindir", BINDIR],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(r.returncode == 2 and "missing.csv" in r.stderr,
              "a missing CSV: exit 2, named (%s)" % r.stderr.strip())


def case_oversubscribed():
    """Twice as many threads as the simulated machine has cpus (m1: 16
    threads on 8 cpus, two per cpu): plain and cr: locks finish with mutual
    exclusion under both wait models; under the waiting policy the cpus
    switch and waiters park, under spinning the waiters burn their slices
    and are preempted; the cr: layer's active set is the run's 8 cpus."""
    for lock in ("mcs", "cr:mcs", "hmcs", "cr:hmcs"):
        for wait in ("auto", "spin"):
            # spinning: 6 ms of virtual time, two of m1's 3 ms slices
            stop = ("--sim-ops", 2000, "--duration", 2) if wait == "auto" else \
                ("--sim-ops", 10 ** 9, "--duration", 0.006)
            rec = sim("m1", lock, 16, "--sim-wait", wait, *stop)
            st = rec["sim"]
            check(rec["mutex_check"] == "ok" and rec["ops"] > 0,
                  "%s, 16 threads on 8 cpus, %s: %d acquisitions, mutual exclusion %s"
                  % (lock, wait, rec["ops"], rec["mutex_check"]))
            check(st["wait_model"] == wait and st["cpu_switches"] > 0,
                  "%s %s: %d cpu switches" % (lock, wait, st["cpu_switches"]))
            if wait == "auto":
                check(st["parks"] + st["yields"] > 0 and st["park_wakes"] <= st["parks"],
                      "%s auto: waiters yield or park (%d yields, %d parks, %d woken)"
                      % (lock, st["yields"], st["parks"], st["park_wakes"]))
            else:
                check(st["parks"] == 0 and st["preemptions"] > 0,
                      "%s spin: no parks, slices end in preemptions (%d)"
                      % (lock, st["preemptions"]))
    # with a cpu per thread nothing time-shares: the model of every earlier figure
    rec = sim("m1", "mcs", 8, "--sim-ops", 2000)
    check(rec["sim"]["cpu_switches"] == 0 and rec["sim"]["parks"] == 0,
          "8 threads on 8 cpus: no cpu switches, no parks")


def case_spin_budget_spent():
    """A waiter's spin budget runs out however large the virtual clock: the
    remainder left by rounding (clock + budget - clock) is spent, not carried
    into waits of zero length.  c-bo-mcs, 256 threads on Kunpeng 920's 128
    cpus, seed 3 found it: 10,000 simulator switches per acquisition (83 s
    of host time for 0.05 s of virtual time) where 3 are the norm."""
    rec = sim("kunpeng920", "c-bo-mcs", 256, "--levels", "numa", "--placement", "packed",
              "--seed", 3, "--cs-lines", 2, "--non-cs", 100)
    st = rec["sim"]
    per_op = st["switches"] / max(rec["ops"], 1)
    check(rec["mutex_check"] == "ok" and per_op < 100,
          "c-bo-mcs, 256 threads on 128 cpus, seed 3: %.1f simulator switches per "
          "acquisition (< 100), mutual exclusion %s" % (per_op, rec["mutex_check"]))


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        sys.stderr.write("usage: test_sim.py BINDIR CASE (%s)\n" % ", ".join(CASES))
        sys.exit(2)
    CASES[sys.argv[2]]()
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        sys.exit(1)
    print("all checks passed")
