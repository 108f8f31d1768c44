# SPDX-License-Identifier: MIT
"""Tests of the CLoF workflow: the ranking (tools/clof_rank.py) on fixed data,
`clof select` end to end on a tiny emulated machine, `clof report`, the
best-lock artifacts and the errors of bad arguments (docs/workflow.md).

Environment (tests/workflow/CMakeLists.txt sets it):
  CLOF_BINDIR     the build's bin/ (clof, clof-bench, pl_leveldb_readrandom)
  CLOF_INCLUDE    the source tree's include/
  CLOF_STATIC     libclof.a
  CLOF_CC         the C compiler (CLOF_CXX: the C++ compiler)
  PYTHONPATH      tools/
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import clof_rank

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("CLOF_BINDIR", "")
CLOF = os.path.join(BIN, "clof")


def two_level_topology(path):
    """a hierarchy file over this machine's cpus with two levels (numa,
    system): a user's file (--topology), real cpus, so the selection writes
    its artifacts (an emulated machine writes none)"""
    n = os.cpu_count() or 1
    with open(path, "w") as f:
        f.write("clof-topology 1\nname test: two halves\ncpus 0-%d\n\nlevel numa blocks %d\n\n"
                "level system\n" % (n - 1, max(1, n // 2)))
    return path


def clof(*argv, timeout=120):
    return subprocess.run([CLOF] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=timeout)


# ---- ranking on fixed data ----------------------------------------------------------

class Rank(unittest.TestCase):
    # A is best at low contention, B at high contention, C is mediocre
    # everywhere, D is worst at high contention.
    THREADS = [1, 2, 4, 8]
    TABLE = {
        "A": {1: 100.0, 2: 80.0, 4: 40.0, 8: 20.0},
        "B": {1: 60.0, 2: 60.0, 4: 60.0, 8: 60.0},
        "C": {1: 70.0, 2: 50.0, 4: 45.0, 8: 40.0},
        "D": {1: 90.0, 2: 70.0, 4: 30.0, 8: 10.0},
    }

    def test_weights(self):
        self.assertEqual([round(x, 6) for x in clof_rank.weights(self.THREADS, "hc")],
                         [round(x / 15.0, 6) for x in (1, 2, 4, 8)])
        lc = clof_rank.weights(self.THREADS, "lc")
        self.assertAlmostEqual(sum(lc), 1.0)
        self.assertAlmostEqual(lc[0], 1.0 / (1 + 0.5 + 0.25 + 0.125))
        self.assertGreater(lc[0], lc[-1])
        u = clof_rank.weights(self.THREADS, "hc", [1, 1, 1, 1])
        self.assertEqual(u, [0.25] * 4)
        with self.assertRaises(ValueError):
            clof_rank.weights(self.THREADS, "hc", [1, 2])
        with self.assertRaises(ValueError):
            clof_rank.weights(self.THREADS, "hc", [1, 0, 1, 1])
        with self.assertRaises(ValueError):
            clof_rank.weights(self.THREADS, "xx")

    def test_hc_lc_worst(self):
        rk = clof_rank.rank(self.TABLE, self.THREADS, sorted(self.TABLE))
        self.assertEqual(rk["hc_best"], "B")
        self.assertEqual(rk["lc_best"], "A")
        self.assertEqual(rk["worst"], "D")
        # by hand: references are the column maxima 100, 80, 60, 60
        hc = [1 / 15, 2 / 15, 4 / 15, 8 / 15]
        exp_b = hc[0] * 0.6 + hc[1] * 0.75 + hc[2] * 1 + hc[3] * 1
        self.assertAlmostEqual(rk["scores"]["B"]["hc"], exp_b)
        self.assertEqual(rk["order"]["hc"], ["B", "C", "A", "D"])

    def test_oversub_guard(self):
        # at 16 threads on 8 cpus (not a weighted count): A collapses (2 <
        # 0.5 x 50), so the LC pick moves to the next LC candidate that holds;
        # the HC pick B holds and stays; a baseline sets the best there
        table = {k: dict(v) for k, v in self.TABLE.items()}
        for lk, v in (("A", 2.0), ("B", 30.0), ("C", 26.0), ("D", 1.0), ("glibc", 50.0)):
            table.setdefault(lk, {})[16] = v
        rk = clof_rank.rank(table, self.THREADS, sorted(self.TABLE), extra=["glibc"])
        self.assertEqual(rk["lc_best"], "A")
        over = clof_rank.oversub_guard(rk, table, 16, 8, sorted(self.TABLE), ["glibc"])
        self.assertEqual(over["best_lock"], "glibc")
        self.assertEqual(over["collapsed"], ["A", "D"])
        self.assertEqual(rk["hc_best"], "B")
        self.assertIsNone(over["policies"]["hc"]["note"])
        lc_fine = [x for x in rk["order"]["lc"] if x not in ("A", "D")][0]
        self.assertEqual(rk["lc_best"], lc_fine)
        self.assertIn("A collapses at 16 threads on 8 cpus", over["policies"]["lc"]["note"])
        # every candidate collapses: the pick stays, and the record says so
        table["glibc"][16] = 1000.0
        rk = clof_rank.rank(table, self.THREADS, sorted(self.TABLE), extra=["glibc"])
        over = clof_rank.oversub_guard(rk, table, 16, 8, sorted(self.TABLE), ["glibc"])
        self.assertEqual((rk["hc_best"], rk["lc_best"]), ("B", "A"))
        self.assertIn("every candidate collapses", over["policies"]["lc"]["note"])
        # nothing measured there: no guard
        self.assertIsNone(clof_rank.oversub_guard(rk, self.TABLE, 16, 8, sorted(self.TABLE)))

    def test_raw_average(self):
        # raw ops/s: the weights alone decide; D's 90 at 1 thread no longer
        # dominates a normalised column
        rk = clof_rank.rank(self.TABLE, self.THREADS, sorted(self.TABLE), normalize="none")
        self.assertAlmostEqual(rk["scores"]["A"]["hc"], (100 + 160 + 160 + 160) / 15.0)
        self.assertEqual(rk["hc_best"], "B")
        self.assertEqual(rk["lc_best"], "A")

    def test_user_weights(self):
        # all weight on 1 thread for HC (and so on 8 threads for LC): swapped
        rk = clof_rank.rank(self.TABLE, self.THREADS, sorted(self.TABLE),
                            user_weights=[1000, 1, 1, 1])
        self.assertEqual(rk["hc_best"], "A")
        self.assertEqual(rk["lc_best"], "B")
        self.assertTrue(rk["user_weights"])
        self.assertIn("user base weights", clof_rank.weights_text(rk)[0])

    def test_failed_run_never_best(self):
        t = {k: dict(v) for k, v in self.TABLE.items()}
        del t["B"][4]
        rk = clof_rank.rank(t, self.THREADS, sorted(t))
        self.assertEqual(rk["incomplete"], ["B"])
        self.assertNotIn("B", rk["order"]["hc"])
        self.assertEqual(rk["hc_best"], "C")

    def test_baselines_scored_not_ranked(self):
        t = dict(self.TABLE)
        t["hmcs"] = {1: 1000.0, 2: 1000.0, 4: 1000.0, 8: 1000.0}
        rk = clof_rank.rank(t, self.THREADS, sorted(self.TABLE), extra=["hmcs"])
        self.assertEqual(rk["hc_best"], "B")  # references are the candidates'
        self.assertAlmostEqual(rk["scores"]["hmcs"]["hc"], sum(
            w * 1000.0 / r for w, r in zip(clof_rank.weights(self.THREADS, "hc"),
                                            [100, 80, 60, 60])))

    def test_aggregate_median(self):
        recs = [{"lock": "A", "threads": 2, "ops_per_s": v} for v in (5, 1, 3)] + \
               [{"lock": "A", "threads": 4, "ops_per_s": None}]
        self.assertEqual(clof_rank.aggregate(recs), {"A": {2: 3.0}})

    def test_zero_is_a_result(self):
        t = {k: dict(v) for k, v in self.TABLE.items()}
        t["D"][8] = 0.0   # measured, nothing done: worst, not unranked
        rk = clof_rank.rank(t, self.THREADS, sorted(t))
        self.assertEqual(rk["incomplete"], [])
        self.assertEqual(rk["worst"], "D")

    def test_ties_by_name(self):
        t = {"b": {1: 1.0}, "a": {1: 1.0}}
        rk = clof_rank.rank(t, [1], ["b", "a"])
        self.assertEqual(rk["hc_best"], "a")
        self.assertEqual(rk["worst"], "b")


# ---- clof select end to end, the artifacts, clof report -----------------------------

class Select(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="clof-wf-")
        cls.out = os.path.join(cls.tmp, "sel")
        # 2 basic locks, 2 levels (numa, system) of a hierarchy file over this
        # machine's cpus; glibc not measured, so the pick becomes the artifacts
        topo = two_level_topology(os.path.join(cls.tmp, "two.topo"))
        cls.r = clof("select", "--out", cls.out, "--topology", topo,
                     "--locks", "tkt,mcs", "--threads", "1,2,4", "--runs", "1",
                     "--baselines", "mcs,hmcs,cna,c-bo-mcs",
                     "--duration", "0.05", "--no-heatmap", "--no-preload-lib", timeout=170)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_select(self):
        r = self.r
        self.assertEqual(r.returncode, 0, r.stderr)
        for f in ("params.json", "results.jsonl", "ranking.json", "ranking.txt",
                  "hierarchy.topo", "clof_best.h", "clof-best.env"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, f)), f)
        with open(os.path.join(self.out, "results.jsonl")) as f:
            recs = [json.loads(l) for l in f if l.strip()]
        locks = {x["lock"] for x in recs}
        self.assertEqual({"tkt-tkt", "tkt-mcs", "mcs-tkt", "mcs-mcs"} - locks, set())
        self.assertTrue({"mcs", "hmcs", "cna", "c-bo-mcs"} <= locks, locks)
        # + the cr: candidates clof-bench has; the oversubscribed count, 2 x
        # this machine's cpus, is added unless it is one of 1,2,4 already
        self.assertTrue({"cr:tkt-mcs", "cr:mcs-mcs"} <= locks, locks)
        ncpu = len(os.sched_getaffinity(0))
        over = 2 * ncpu
        counts = [1, 2, 4] + ([] if over in (1, 2, 4) else [over])
        self.assertEqual({x["threads"] for x in recs}, set(counts))
        self.assertEqual(len(recs), 10 * len(counts))
        for x in recs:
            self.assertEqual(x["mutex_check"], "ok")
            self.assertEqual(x["topology"]["levels"], ["numa", "system"])
            self.assertFalse(x["topology"]["emulated"])
        with open(os.path.join(self.out, "ranking.json")) as f:
            rk = json.load(f)
        cands = {"tkt-tkt", "tkt-mcs", "mcs-tkt", "mcs-mcs", "cr:tkt-mcs", "cr:mcs-mcs"}
        for k in ("hc_best", "lc_best", "worst"):
            self.assertIn(rk[k], cands)
        # the ranking agrees with clof_rank on the recorded data, the
        # oversubscription guard included
        table = clof_rank.aggregate(recs)
        bases = ["mcs", "hmcs", "cna", "c-bo-mcs"]
        again = clof_rank.rank(table, [1, 2, 4], sorted(cands), extra=bases)
        clof_rank.oversub_guard(again, table, over, ncpu, sorted(cands), bases)
        self.assertEqual((again["hc_best"], again["lc_best"], again["worst"]),
                         (rk["hc_best"], rk["lc_best"], rk["worst"]))
        o = rk["oversub"]
        self.assertEqual((o["threads"], o["cpus"]), (over, ncpu))
        for p in ("hc", "lc"):
            pol = o["policies"][p]
            self.assertTrue(pol["picked"] not in o["collapsed"] or
                            "every candidate collapses" in pol["note"], pol)
        self.assertIn("oversubscribed: %d threads on %d cpus" % (over, ncpu), r.stdout)
        # the weights are printed
        self.assertIn("HC weights", r.stdout)
        self.assertIn("LC weights", r.stdout)
        self.assertRegex(r.stdout, r"HC-best: \S+ +LC-best: \S+ +worst: \S+")
        self.assertIn("ETA", r.stderr)
        with open(os.path.join(self.out, "hierarchy.topo")) as f:
            topo = f.read()
        self.assertIn("level numa", topo)

    def test_report_files(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        for f in ("report.md", "report.html", "beam.png", "fairness.png"):
            p = os.path.join(self.out, f)
            self.assertTrue(os.path.isfile(p) and os.path.getsize(p) > 0, f)
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        for s in ("HC-best", "LC-best", "worst", "beam.png", "HC weights", "Handover locality",
                  "Machine and parameters", "load average"):
            self.assertIn(s, md)
        with open(os.path.join(self.out, "report.html")) as f:
            page = f.read()
        self.assertGreaterEqual(page.count("data:image/png;base64,"), 2)
        self.assertNotIn('src="beam.png"', page)  # self-contained

    def test_report_again_elsewhere(self):
        out2 = os.path.join(self.tmp, "rep2")
        r = clof("report", self.out, "--out", out2, "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out2)),
                         ["beam.png", "fairness.png", "report.html", "report.md"])

    def test_best_header_mutual_exclusion(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        cc = os.environ.get("CLOF_CC", "cc")
        exe = os.path.join(self.tmp, "best_smoke")
        c = subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                            "-I", os.environ["CLOF_INCLUDE"], "-I", self.out,
                            os.path.join(HERE, "best_smoke.c"), os.environ["CLOF_STATIC"],
                            "-lpthread", "-o", exe], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        self.assertEqual(c.returncode, 0, c.stdout)
        r = subprocess.run([exe, "6", "20000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(self.out, "ranking.json")) as f:
            picked = json.load(f)["picked"]
        self.assertIn("lock %s (LC-best) over numa,system: 2 levels" % picked, r.stdout)

    def test_best_header_cxx17(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        cxx = os.environ.get("CLOF_CXX", "c++")
        src = os.path.join(self.tmp, "best.cpp")
        with open(src, "w") as f:
            f.write('#include "clof_best.h"\n'
                    "static clof_best_t lock = CLOF_BEST_INITIALIZER;\n"
                    "int main() { clof_best_ctx_t c{}; clof_best_acquire(&lock, &c);\n"
                    "  bool w = clof_best_has_waiters(&lock, &c); clof_best_release(&lock, &c);\n"
                    "  return w ? 1 : 0; }\n")
        exe = os.path.join(self.tmp, "best_cxx")
        c = subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror",
                            "-I", os.environ["CLOF_INCLUDE"], "-I", self.out, src,
                            os.environ["CLOF_STATIC"], "-lpthread", "-o", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(c.returncode, 0, c.stdout)
        self.assertEqual(subprocess.call([exe], timeout=60), 0)

    def test_selected_lock_under_leveldb(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        drv = os.path.join(BIN, "pl_leveldb_readrandom")
        if not os.access(drv, os.X_OK):
            self.skipTest("pl_leveldb_readrandom not built (LevelDB missing)")
        db = os.path.join(self.tmp, "db")
        r = clof("run", "--select", self.out, "--", drv, "--db", db, "--keys", "5000",
                 "--threads", "4", "--duration", "0.5", timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        rec = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertEqual(rec["errors"], 0)
        self.assertTrue(rec["preloaded"])
        with open(os.path.join(self.out, "ranking.json")) as f:
            picked = json.load(f)["picked"]
        self.assertIn(picked, rec["lock"].replace("clof:", ""))  # cr:X runs as cr:clof:X
        self.assertFalse(os.path.exists(os.path.join(self.out, "libclof-best.so")))


class BestPreload(unittest.TestCase):
    """libclof-best.so: clof select builds it with src/preload/build-best.sh;
    the LevelDB driver under LD_PRELOAD of it (no CLOF_LOCK) runs on the
    selected lock and passes its value checks"""

    def test_libclof_best(self):
        root = os.path.dirname(os.path.dirname(HERE))
        if not os.path.isfile(os.path.join(root, "src", "preload", "build-best.sh")):
            self.skipTest("src/preload/build-best.sh is not there")
        tmp = tempfile.mkdtemp(prefix="clof-wf-")
        try:
            out = os.path.join(tmp, "sel")
            topo = two_level_topology(os.path.join(tmp, "two.topo"))
            r = clof("select", "--out", out, "--topology", topo, "--locks", "tkt,mcs",
                     "--threads", "1,2", "--runs", "1", "--duration", "0.02",
                     "--baselines", "none", "--no-heatmap", "--no-report", timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr)
            so = os.path.join(out, "libclof-best.so")
            self.assertTrue(os.path.isfile(so), r.stderr)
            with open(os.path.join(out, "ranking.json")) as f:
                picked = json.load(f)["picked"]
            with open(os.path.join(out, "params.json")) as f:
                art = json.load(f)["artifacts"]["libclof-best.so"]
            self.assertTrue(art["ok"], art)
            drv = os.path.join(BIN, "pl_leveldb_readrandom")
            if not os.access(drv, os.X_OK):
                self.skipTest("pl_leveldb_readrandom not built (LevelDB missing)")
            env = {k: v for k, v in os.environ.items()
                   if k not in ("CLOF_LOCK", "CLOF_TOPOLOGY", "CLOF_EMULATE")}
            env["LD_PRELOAD"] = so
            r = subprocess.run([drv, "--db", os.path.join(tmp, "db"), "--keys", "5000",
                                "--threads", "4", "--duration", "0.5"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            rec = json.loads(r.stdout.strip().splitlines()[-1])
            self.assertEqual(rec["errors"], 0)
            self.assertTrue(rec["preloaded"])
            self.assertIn(picked, rec["lock"].replace("clof:", ""))  # cr:X runs as cr:clof:X
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class LevelDB(unittest.TestCase):
    """--workload leveldb: the LevelDB driver under libclof-preload.so for every
    composition and baseline, values checked, the library ran the lock"""

    def test_leveldb_workload(self):
        if not os.access(os.path.join(BIN, "pl_leveldb_readrandom"), os.X_OK):
            self.skipTest("pl_leveldb_readrandom not built (LevelDB missing)")
        tmp = tempfile.mkdtemp(prefix="clof-wf-")
        try:
            out = os.path.join(tmp, "sel")
            r = clof("select", "--workload", "leveldb", "--out", out, "--emulate",
                     "numa:2,core:2", "--locks", "tkt,mcs", "--threads", "1,2", "--runs", "1",
                     # long enough for a thread of a loaded machine to finish a Get (the
                     # driver fails a run without one)
                     "--duration", "0.3", "--keys", "2000", "--baselines", "hmcs,glibc",
                     "--no-heatmap", "--no-preload-lib", timeout=170)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(out, "results.jsonl")) as f:
                recs = [json.loads(l) for l in f if l.strip()]
            with open(os.path.join(out, "params.json")) as f:
                params = json.load(f)
            # 4 compositions + 2 baselines + the cr: candidates, at threads 1, 2
            # and the oversubscribed count select adds (2 x the cpus)
            nlocks = 6 + len(params.get("cr_candidates", []))
            nthreads = 2 + (1 if params.get("oversub", {}).get("added") else 0)
            self.assertEqual(len(recs), nlocks * nthreads)
            for x in recs:
                self.assertEqual(x["errors"], 0)
                self.assertEqual(x["workload"], "leveldb")
                if x["lock"] == "pthread":
                    self.assertEqual(x["driver_lock"], "glibc")
                else:
                    self.assertTrue(x["preloaded"])
                    # cr:mcs-mcs runs as cr:clof:mcs-mcs
                    self.assertIn(x["lock"], x["driver_lock"].replace("clof:", ""))
            self.assertTrue(os.path.isfile(os.path.join(out, "report.html")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Simulate(unittest.TestCase):
    """--simulate PROFILE goes to clof-bench; --levels reduces the profile's
    hierarchy; glibc is left out (it cannot be simulated); no artifacts"""

    def test_simulate(self):
        r = subprocess.run([os.path.join(BIN, "clof-bench"), "--simulate", "kunpeng920",
                            "--lock", "mcs", "--threads", "2", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            self.skipTest("this clof-bench does not simulate: " + r.stderr.strip())
        tmp = tempfile.mkdtemp(prefix="clof-wf-")
        try:
            out = os.path.join(tmp, "sel")
            r = clof("select", "--simulate", "kunpeng920", "--levels", "numa", "--out", out,
                     "--locks", "tkt,mcs", "--threads", "1,8", "--runs", "1", "--no-heatmap",
                     timeout=170)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("pthread, glibc-adaptive cannot be simulated", r.stderr)
            self.assertTrue(r.stdout.startswith("verdict: no artifact -- simulated machine"),
                            r.stdout[:300])
            with open(os.path.join(out, "results.jsonl")) as f:
                recs = [json.loads(l) for l in f if l.strip()]
            # 4 compositions + their 2 cr: versions + 4 baselines, at 1, 8 and
            # the oversubscribed 2 x 128 cpus of the profile (time-shared)
            self.assertEqual(len(recs), (4 + 2 + 4) * 3)
            self.assertEqual({x["threads"] for x in recs}, {1, 8, 256})
            with open(os.path.join(out, "ranking.json")) as f:
                over = json.load(f)["oversub"]
            self.assertEqual((over["threads"], over["cpus"]), (256, 128))
            for x in recs:
                self.assertTrue(x["simulated"])
                self.assertEqual(x["topology"]["levels"], ["numa", "system"])
            self.assertFalse(os.path.exists(os.path.join(out, "clof_best.h")))
            with open(os.path.join(out, "report.md")) as f:
                self.assertIn("(SIMULATED)", f.read())
            e = clof("select", "--simulate", "kunpeng920", "--levels", "core",
                     "--out", out).stderr
            self.assertIn("level 'core' is not in the hierarchy", e)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


# ---- the truth on this machine (issue 38) ----------------------------------------------

FAKE = """#!/bin/sh
# a program whose figure is fixed: 200 under the lock $FAKE_BEST, else 100
if [ "${CLOF_LOCK}" = "${FAKE_BEST:-glibc}" ]; then echo "ops: 200"; else echo "ops: 100"; fi
"""


def env_without_hierarchy():
    return {k: v for k, v in os.environ.items() if k not in ("CLOF_EMULATE", "CLOF_TOPOLOGY")}


class Truth(unittest.TestCase):
    """no emulated hierarchy ever reaches a real run; glibc competes; the
    verdict; HC-best and LC-best are the best scores past the guards"""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="clof-wf-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def artifacts(self, out):
        return [f for f in ("clof_best.h", "libclof-best.so", "clof-best.env")
                if os.path.exists(os.path.join(out, f))]

    def test_emulated_selection_no_artifact(self):
        out = os.path.join(self.tmp, "emu")
        os.makedirs(out)
        with open(os.path.join(out, "clof-best.env"), "w") as f:  # an earlier selection's
            f.write("CLOF_LOCK=mcs\n")
        r = clof("select", "--out", out, "--emulate", "numa:2,core:2", "--locks", "tkt,mcs",
                 "--threads", "1,2", "--runs", "1", "--duration", "0.02", "--no-heatmap",
                 "--no-report", "--baselines", "none", "--oversub", "none", timeout=170)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("verdict: no artifact -- emulated machine"), r.stdout)
        self.assertEqual(self.artifacts(out), [])
        # clof run refuses it: a demonstration has nothing for a real program
        e = clof("run", "--select", out, "--dry-run", "--", "true")
        self.assertEqual(e.returncode, 2, e.stdout)
        self.assertIn("emulated machine", e.stderr)
        self.assertNotIn("Traceback", e.stderr)
        # CLOF_EMULATE in the environment is an emulated machine too
        out2 = os.path.join(self.tmp, "emu2")
        env = dict(os.environ, CLOF_EMULATE="numa:2,core:2")
        r = subprocess.run([CLOF, "select", "--out", out2, "--locks", "tkt,mcs", "--threads",
                            "1,2", "--runs", "1", "--duration", "0.02", "--no-heatmap",
                            "--no-report", "--baselines", "none", "--oversub", "none"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=170)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.artifacts(out2), [])

    def test_rw_emulated_and_keep_glibc(self):
        """--rw: an emulated machine writes no clof-best.env; on this
        machine's cpus glibc's rwlock competes and the verdict opens the
        output (one run: too few rounds for an interval, so keep glibc)"""
        out = os.path.join(self.tmp, "rwemu")
        r = clof("select", "--rw", "--out", out, "--emulate", "numa:2,core:2", "--rw-locks",
                 "rw-central,rw:mcs", "--threads", "1,2", "--runs", "1", "--duration", "0.02",
                 timeout=170)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("verdict: no artifact -- emulated machine"), r.stdout)
        self.assertEqual(self.artifacts(out), [])
        out = os.path.join(self.tmp, "rwreal")
        r = subprocess.run([CLOF, "select", "--rw", "--out", out, "--rw-locks",
                            "rw-central,rw:mcs", "--threads", "1,2", "--runs", "1",
                            "--duration", "0.02"], env=env_without_hierarchy(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=170)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("verdict: keep glibc's locks"), r.stdout)
        with open(os.path.join(out, "ranking.json")) as f:
            self.assertIn("pthread-rwlock", json.load(f)["candidates"])
        with open(os.path.join(out, "clof-best.env")) as f:
            env = f.read()
        self.assertIn("CLOF_RWLOCK=glibc", env)
        self.assertNotIn("CLOF_EMULATE", env)

    def test_real_selection_real_hierarchy(self):
        """this machine's own hierarchy (no emulation): the artifacts and the
        clof run environment carry no CLOF_EMULATE; a folder that does is
        refused; a folder of another machine is refused unless --force"""
        out = os.path.join(self.tmp, "real")
        r = subprocess.run([CLOF, "select", "--out", out, "--locks", "tkt,mcs", "--threads", "1,2",
                            "--runs", "1", "--duration", "0.02", "--no-heatmap", "--no-report",
                            "--baselines", "none", "--no-preload-lib"], env=env_without_hierarchy(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=170)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "params.json")) as f:
            params = json.load(f)
        self.assertFalse(params["hierarchy"]["emulated"])
        for f in self.artifacts(out) + ["hierarchy.topo"]:
            with open(os.path.join(out, f)) as fh:
                text = fh.read()
            self.assertNotIn("CLOF_EMULATE=", text, f)
            self.assertNotIn("EMULATED: the selection ran on virtual cpus", text, f)
        with open(os.path.join(out, "clof_best.h")) as f:
            self.assertIn("#define CLOF_BEST_EMULATED 0", f.read())
        d = clof("run", "--select", out, "--dry-run", "--", "true")
        self.assertEqual(d.returncode, 0, d.stderr)
        self.assertNotIn("CLOF_EMULATE", d.stdout)
        # an older folder whose clof-best.env sets CLOF_EMULATE
        with open(os.path.join(out, "clof-best.env"), "a") as f:
            f.write("CLOF_EMULATE=numa:2,core:2\n")
        e = clof("run", "--select", out, "--dry-run", "--", "true")
        self.assertEqual(e.returncode, 2, e.stdout)
        self.assertIn("sets CLOF_EMULATE", e.stderr)
        # another machine's selection
        params["machine"]["cpus_online"] = (os.cpu_count() or 1) + 7
        with open(os.path.join(out, "params.json"), "w") as f:
            json.dump(params, f)
        e = clof("run", "--select", out, "--dry-run", "--", "true")
        self.assertEqual(e.returncode, 2, e.stdout)
        self.assertIn("this machine differs from the selection's", e.stderr)
        self.assertIn("run `clof select` here, or --force", e.stderr)
        f_ = clof("run", "--select", out, "--force", "--dry-run", "--", "true")
        self.assertEqual(f_.returncode, 0, f_.stderr)

    def test_hc_lc_rows_match_scores(self):
        """with glibc competing: HC-best / LC-best are the best scores among
        the candidates no guard excluded; the excluded ones are in the table
        with their guard"""
        out = os.path.join(self.tmp, "rows")
        r = subprocess.run([CLOF, "select", "--out", out, "--locks", "tkt,mcs,clh", "--threads",
                            "1,2", "--runs", "2", "--duration", "0.02", "--no-heatmap",
                            "--no-report", "--baselines", "pthread"], env=env_without_hierarchy(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=170)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        with open(os.path.join(out, "ranking.json")) as f:
            rk = json.load(f)
        self.assertIn("pthread", rk["candidates"])
        guards = rk["guards"]
        for p in ("hc", "lc"):
            fine = [c for c in rk["candidates"] if c not in guards]
            best = max(rk["scores"][c][p] for c in fine)
            self.assertEqual(rk["scores"][rk[p + "_best"]][p], best, (p, rk[p + "_best"]))
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("verdict: "), lines[0])
        rows = {}
        for ln in lines:
            parts = ln.split()
            if len(parts) > 3 and parts[0] in rk["candidates"]:
                rows[parts[0]] = (float(parts[1]), float(parts[2]), ln)
        self.assertEqual(set(rows), set(rk["candidates"]))
        for lk, g in guards.items():
            self.assertIn(g, rows[lk][2])
        for col, tag in ((0, "HC-best"), (1, "LC-best")):
            marked = [lk for lk, v in rows.items() if tag in v[2]]
            self.assertEqual(len(marked), 1)
            passed = [v[col] for lk, v in rows.items() if "excluded" not in v[2]]
            self.assertEqual(rows[marked[0]][col], max(passed), tag)

    def test_verdict_on_fixed_figures(self):
        """clof_rank.verdict: glibc first -> keep; a lock twice as fast in
        every round -> use it; too few rounds -> keep, with the reason"""
        def recs(fig, rounds):
            out = []
            for r in range(rounds):
                for lk, v in fig.items():
                    out.append({"lock": lk, "threads": 2, "select_run": r, "ops_per_s": v})
            return out
        v = clof_rank.verdict(recs({"pthread": 2.0, "mcs": 1.0}, 5), "pthread", "pthread", [2])
        self.assertFalse(v["use"])
        self.assertTrue(v["line"].startswith("verdict: keep glibc's locks"))
        v = clof_rank.verdict(recs({"pthread": 1.0, "mcs": 2.0}, 5), "mcs", "pthread", [2])
        self.assertTrue(v["use"], v)
        self.assertEqual(v["per_threads"][0]["state"], "above")
        self.assertTrue(v["line"].startswith("verdict: use mcs"))
        v = clof_rank.verdict(recs({"pthread": 1.0, "mcs": 2.0}, 3), "mcs", "pthread", [2])
        self.assertFalse(v["use"])
        self.assertIn("too few", v["reason"])
        v = clof_rank.verdict(recs({"pthread": 2.0, "mcs": 1.0}, 5), "mcs", "pthread", [2])
        self.assertFalse(v["use"])
        self.assertIn("slower than glibc", v["reason"])
        # faster at t=2, but at t=4 (oversubscribed) one round in five at 0.5x
        rs = recs({"pthread": 1.0, "mcs": 2.0}, 5)
        for i, x in enumerate([0.5, 1.0, 1.1, 1.2, 1.3]):
            rs += [{"lock": "pthread", "threads": 4, "select_run": i, "ops_per_s": 1.0},
                   {"lock": "mcs", "threads": 4, "select_run": i, "ops_per_s": x}]
        v = clof_rank.verdict(rs, "mcs", "pthread", [2, 4])
        self.assertFalse(v["use"], v)
        self.assertIn("t=4 reaches 0.50x", v["reason"])


class Cmd(unittest.TestCase):
    """clof select --workload cmd: the program's own figure; the verdict; a
    program that fails, prints no figure or hangs: a clear error and a
    partial report, never a traceback"""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="clof-wf-")
        cls.fake = os.path.join(cls.tmp, "fake.sh")
        with open(cls.fake, "w") as f:
            f.write(FAKE)
        os.chmod(cls.fake, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def select(self, name, *argv, env=None, timeout=170):
        out = os.path.join(self.tmp, name)
        e = env_without_hierarchy()
        e.update(env or {})
        r = subprocess.run([CLOF, "select", "--workload", "cmd", "--out", out] + list(argv),
                           env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        self.assertNotIn("Traceback", r.stderr)
        return r, out

    def test_glibc_wins(self):
        r, out = self.select("keep", "--metric", "ops: ([0-9]+)", "--repeat", "3", "--locks",
                             "tkt,mcs", "--", self.fake)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("verdict: keep glibc's locks"), r.stdout)
        with open(os.path.join(out, "clof-best.env")) as f:
            self.assertIn("CLOF_LOCK=glibc", f.read())
        d = clof("run", "--select", out, "--dry-run", "--", self.fake)
        self.assertEqual(d.returncode, 0, d.stderr)
        self.assertNotIn("LD_PRELOAD", d.stdout)  # the program unchanged
        rep = clof("report", out, "--out", os.path.join(self.tmp, "keep-report"))
        self.assertEqual(rep.returncode, 2, rep.stderr)
        self.assertIn("--workload cmd folder", rep.stderr)
        self.assertNotIn("Traceback", rep.stderr)

    def test_lock_wins(self):
        r, out = self.select("use", "--metric", "ops: ([0-9]+)", "--repeat", "5", "--locks",
                             "tkt,mcs", "--", self.fake, env={"FAKE_BEST": "mcs"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("verdict: use mcs"), r.stdout)
        self.assertIn("2.00x [2.00-2.00]", r.stdout)
        self.assertIn("run it: clof run --select %s -- %s" % (out, self.fake), r.stdout)
        with open(os.path.join(out, "clof-best.env")) as f:
            self.assertIn("CLOF_LOCK=mcs", f.read())

    def check_partial(self, r, out, what):
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(what, r.stderr)
        with open(os.path.join(out, "ranking.txt")) as f:
            text = f.read()
        self.assertTrue(text.startswith("verdict: "), text)
        self.assertIn(what, text)
        self.assertTrue(os.path.isfile(os.path.join(out, "params.json")))

    def test_exit_status(self):
        r, out = self.select("exit", "--metric", "ops: ([0-9]+)", "--repeat", "2", "--",
                             "sh", "-c", "echo ops: 5; exit 3")
        self.check_partial(r, out, "exit status 3")

    def test_no_metric(self):
        r, out = self.select("nometric", "--metric", "ops: ([0-9]+)", "--repeat", "2", "--",
                             "echo", "hello")
        self.check_partial(r, out, "found no number")

    def test_no_such_program(self):
        r, out = self.select("none", "--", os.path.join(self.tmp, "no-such-program"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no such program", r.stderr)

    def test_hang(self):
        r, out = self.select("hang", "--timeout", "1", "--repeat", "2", "--",
                             "sh", "-c", "sleep 60", timeout=60)
        self.check_partial(r, out, "killed after the --timeout")

    def test_fails_under_one_lock(self):
        """a candidate whose run fails is excluded, in the table with the reason"""
        prog = os.path.join(self.tmp, "failmcs.sh")
        with open(prog, "w") as f:
            f.write("#!/bin/sh\n[ \"$CLOF_LOCK\" = mcs ] && exit 4\necho ops: 100\n")
        os.chmod(prog, 0o755)
        r, out = self.select("failmcs", "--metric", "ops: ([0-9]+)", "--repeat", "2",
                             "--locks", "tkt,mcs", "--", prog)
        self.assertEqual(r.returncode, 1, r.stderr)
        row = [ln for ln in r.stdout.splitlines() if ln.startswith("mcs ")]
        self.assertEqual(len(row), 1, r.stdout)
        self.assertIn("excluded: 2 failed runs (ended with exit status 4)", row[0])
        self.assertTrue(r.stdout.startswith("verdict: keep glibc's locks"), r.stdout)


# ---- bad arguments --------------------------------------------------------------------

class BadArgs(unittest.TestCase):
    def bad(self, *argv):
        r = clof(*argv)
        self.assertEqual(r.returncode, 2, "%s: rc %d\n%s%s" % (argv, r.returncode, r.stdout,
                                                             r.stderr))
        self.assertEqual(r.stdout, "")
        return r.stderr

    def test_bad_oversub(self):
        ncpu = len(os.sched_getaffinity(0))
        e = self.bad("select", "--oversub", str(ncpu), "--emulate", "numa:2,core:2")
        self.assertIn("--oversub: %d threads is not above the %d cpus" % (ncpu, ncpu), e)
        e = self.bad("select", "--oversub", "lots", "--emulate", "numa:2,core:2")
        self.assertIn("--oversub: expected a thread count or 'none', got 'lots'", e)

    def test_unknown_basic_lock(self):
        e = self.bad("select", "--locks", "tkt,mutex", "--emulate", "numa:2,core:2")
        self.assertIn("unknown basic lock 'mutex'", e)
        for k in ("tkt", "mcs", "clh", "hem"):
            self.assertIn(k, e)

    def test_unknown_baseline(self):
        e = self.bad("select", "--baselines", "mcs,nosuch", "--emulate", "numa:2,core:2")
        self.assertIn("unknown lock 'nosuch'", e)
        self.assertIn("clof locks", e)  # where to see every name (docs/locks.md)

    def test_level_not_in_hierarchy(self):
        e = self.bad("select", "--levels", "cache", "--emulate", "numa:2,core:2")
        self.assertIn("level 'cache' is not in the hierarchy", e)
        self.assertIn("numa, system", e)

    def test_too_many_levels(self):
        e = self.bad("select", "--levels", "core,cache,numa,package",
                     "--emulate", "package:2,numa:2,cache:2,core:2,cpu:2")
        self.assertIn("at most 4", e)

    def test_zero_threads(self):
        e = self.bad("select", "--threads", "0,2", "--emulate", "numa:2,core:2")
        self.assertIn("thread counts must be at least 1", e)
        e = self.bad("select", "--threads", "two", "--emulate", "numa:2,core:2")
        self.assertIn("got 'two'", e)

    def test_bad_weights(self):
        e = self.bad("select", "--threads", "1,2", "--weights", "1,2,3",
                     "--emulate", "numa:2,core:2")
        self.assertIn("3 weights for 2 thread counts", e)

    def test_bad_hierarchy(self):
        e = self.bad("select", "--emulate", "numa:x")
        self.assertIn("numa:x", e)

    def test_bad_duration_runs(self):
        self.assertIn("--duration", self.bad("select", "--duration", "0"))
        self.assertIn("--runs", self.bad("select", "--runs", "0"))

    def test_report_not_a_folder(self):
        d = tempfile.mkdtemp(prefix="clof-wf-")
        try:
            e = self.bad("report", d)
            self.assertIn("no params.json", e)
            with open(os.path.join(d, "params.json"), "w") as f:
                f.write("{")
            for n in ("results.jsonl", "ranking.json"):
                with open(os.path.join(d, n), "w") as f:
                    f.write("{}\n")
            e = self.bad("report", d)
            self.assertIn("params.json: not valid JSON", e)
        finally:
            shutil.rmtree(d)

    def test_run_unknown_lock(self):
        if not os.path.isfile(os.path.join(BIN, "..", "lib", "libclof-preload.so")):
            self.skipTest("libclof-preload.so not built")
        e = self.bad("run", "--lock", "mcss", "--", "true")
        self.assertIn("unknown lock", e)
        self.assertIn("hmcs", e)

    def test_run_no_program(self):
        self.bad("run", "--lock", "mcs")


if __name__ == "__main__":
    unittest.main()
