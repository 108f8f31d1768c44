# SPDX-License-Identifier: MIT
"""Automatic levels (tools/clof_levels.py): recovered from noisy synthetic
heatmaps of every fixture machine; no level invented from noise; Table 2
arithmetic; the CSV and hierarchy-file forms."""

import os
import random
import tempfile
import unittest

import numpy as np

import topo_testlib as tl
import clof_levels as lv

# The paper's Table 2 where it measured the machine, generic rates elsewhere.
RATES = {"epyc7352": lv.PAPER_RATES["x86"], "kunpeng920": lv.PAPER_RATES["armv8"]}
SEEDS = range(5)


class RecoverLevels(unittest.TestCase):
    """A synthetic heatmap drawn from a fixture's full hierarchy (every level
    sysfs shows), with 5% lognormal noise per pair, must give back exactly
    the levels discovery keeps for locks: kinds and cohorts."""

    @classmethod
    def setUpClass(cls):
        cls.full = {m: tl.hierarchy(m, True) for m in tl.MACHINES}
        cls.lock = {m: tl.hierarchy(m, False) for m in tl.MACHINES}

    def recover(self, machine, noise=0.05, sample=1.0, seeds=SEEDS, named=True):
        full, lock = self.full[machine], self.lock[machine]
        for seed in seeds:
            m = lv.synthetic(full, rates=RATES.get(machine), noise=noise, seed=seed,
                             sample=sample)
            p = lv.propose(full["cpus"], m)
            got = lv.as_hierarchy(full["cpus"], p, lv.name_levels(p, full if named else None))
            same = lv.same_levels(got, lock) if named else lv.same_partitions(got, lock)
            self.assertTrue(same, "%s seed %d noise %g: proposed %s, expected %s" % (
                machine, seed, noise,
                [(l["kind"], len(l["groups"])) for l in got["levels"]],
                [(l["kind"], len(l["groups"])) for l in lock["levels"]]))

    def test_vm(self):
        self.recover("vm")

    def test_epyc7352_core_cache_numa(self):
        self.recover("epyc7352")

    def test_kunpeng920_cache_numa_package(self):
        self.recover("kunpeng920")

    def test_alderlake_uneven_cohorts(self):
        self.recover("alderlake")

    def test_biglittle(self):
        self.recover("biglittle")

    def test_cohorts_without_reference_names(self):
        # the cohorts come from the heatmap alone; names only from the reference
        for machine in tl.MACHINES:
            self.recover(machine, seeds=range(2), named=False)

    def test_sampled_like_clof_heatmap(self):
        # every pair inside a NUMA node, 20% of the others
        for machine in ("epyc7352", "kunpeng920"):
            self.recover(machine, sample=0.2, seeds=range(2))

    def test_kunpeng_coarse_levels_survive_more_noise(self):
        self.recover("kunpeng920", noise=0.12, seeds=range(2))

    def test_recovery_depends_on_the_data(self):
        # the same procedure on another machine's heatmap gives that machine,
        # not the expected one
        m = lv.synthetic(self.full["kunpeng920"], noise=0.05, seed=0)
        p = lv.propose(self.full["kunpeng920"]["cpus"], m)
        got = lv.as_hierarchy(self.full["kunpeng920"]["cpus"], p, lv.name_levels(p))
        self.assertFalse(lv.same_partitions(got, self.lock["epyc7352"]))


class NoFalseLevels(unittest.TestCase):
    def test_structureless_matrix_has_only_system(self):
        flat = {"cpus": list(range(48)), "levels": [{"kind": "system", "groups": [list(range(48))]}]}
        for seed in range(10):
            m = lv.synthetic(flat, noise=0.10, seed=seed)
            self.assertEqual(lv.propose(flat["cpus"], m), [], "seed %d" % seed)

    def test_a_few_fast_pairs_are_not_a_level(self):
        flat = {"cpus": list(range(32)), "levels": [{"kind": "system", "groups": [list(range(32))]}]}
        m = lv.synthetic(flat, noise=0.03, seed=3)
        m[0, 1] = m[1, 0] = m[0, 2] * 3  # one pair three times faster
        m[5, 9] = m[9, 5] = m[0, 2] * 3
        self.assertEqual(lv.propose(flat["cpus"], m), [])

    def test_two_cpus(self):
        m = np.array([[1e4, 3e7], [3e7, 1e4]])
        self.assertEqual(lv.propose([0, 1], m), [])


class NoiseEstimate(unittest.TestCase):
    def test_sigma_is_estimated_from_the_data(self):
        full = tl.hierarchy("kunpeng920", True)
        for sigma in (0.02, 0.05, 0.1):
            est = lv.noise_sigma(lv.synthetic(full, noise=sigma, seed=1))
            self.assertLess(abs(est - sigma) / sigma, 0.25, "true %g, estimated %g" % (sigma, est))


class Table2(unittest.TestCase):
    def test_speedups_are_the_rates_over_system(self):
        full = tl.hierarchy("epyc7352", True)
        rates = lv.PAPER_RATES["x86"]
        m = lv.synthetic(full, rates=rates, noise=0.0)
        rows, ref = lv.table2(full["cpus"], m, full)
        self.assertEqual(ref, "system")
        by = {r["cohort"]: r for r in rows}
        for kind in ("core", "cache", "numa"):
            self.assertAlmostEqual(by[kind]["speedup"], rates[kind], places=6)
        self.assertEqual(by["package"]["same_as"], "numa")
        self.assertEqual(by["core"]["pairs"], 48)
        self.assertEqual(by["cache"]["pairs"], 16 * 12)
        self.assertEqual(by["system"]["pairs"], 48 * 48)
        self.assertEqual(sum(by[k]["pairs"] for k in ("core", "cache", "numa", "system")),
                         96 * 95 // 2)
        self.assertIn("same cohorts as numa", lv.format_table2(rows, ref))

    def test_one_cache_machine_is_relative_to_its_only_level(self):
        full = tl.hierarchy("vm", True)
        m = np.array([[4e4, 3e7], [3e7, 4e4]])
        rows, ref = lv.table2(full["cpus"], m, full)
        self.assertEqual(ref, "cache")
        by = {r["cohort"]: r for r in rows}
        self.assertEqual(by["cache"]["pairs"], 1)
        self.assertAlmostEqual(by["cache"]["speedup"], 1.0)
        self.assertEqual(by["system"]["same_as"], "cache")
        self.assertAlmostEqual(by["same cpu"]["speedup"], 4e4 / 3e7)


class Files(unittest.TestCase):
    def test_csv_roundtrip_with_nan(self):
        m = np.array([[1.0, 2.5], [2.5, np.nan]])
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.csv")
            lv.write_csv(p, [3, 7], m, ["hello"])
            cpus, m2, comments = lv.read_csv(p)
        self.assertEqual(cpus, [3, 7])
        self.assertEqual(comments, ["hello"])
        self.assertTrue(np.isnan(m2[1, 1]) and m2[0, 1] == 2.5)

    def test_csv_errors_name_the_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.csv")
            with open(p, "w") as f:
                f.write("cpu,0,1\n0,1,2\n1,2\n")
            with self.assertRaisesRegex(ValueError, r"h.csv:3: expected 2 values"):
                lv.read_csv(p)

    def test_csv_bad_inputs_are_value_errors_with_the_line(self):
        # found by the mutation test below: an extra row was an IndexError,
        # a bad number a ValueError without the file and line
        cases = [("cpu,0,1\n0,1,2\n1,2,3\n1,2,3\n", r"h.csv:4: expected 2 rows"),
                 ("cpu,0,x\n", r"h.csv:1: expected cpu ids"),
                 ("cpu,0,0\n", r"h.csv:1: expected distinct cpu ids"),
                 ("cpu,0,1\n0,1,zz\n", r"h.csv:2: expected the cpu id and 2 numbers"),
                 ("cpu,0,1\nq,1,2\n", r"h.csv:2: expected the cpu id")]
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.csv")
            for text, msg in cases:
                with open(p, "w") as f:
                    f.write(text)
                with self.assertRaisesRegex(ValueError, msg):
                    lv.read_csv(p)

    def test_csv_mutations(self):
        # a small deterministic mutation fuzzer over a valid heatmap (the
        # C parsers have libFuzzer harnesses, tests/fuzz; this one is
        # Python): every mutant reads back or is a ValueError naming the file
        rng = random.Random(17)
        good = b"# c\ncpu,0,1,2\n0,nan,2.5,3\n1,2.5,nan,4\n2,3,4,nan\n"
        alphabet = b"0123456789,.-+#\n\r cpunaex\xff"
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.csv")
            for _ in range(1500):
                b = bytearray(good)
                for _ in range(rng.randint(1, 4)):
                    op, i = rng.randrange(3), rng.randrange(len(b) + 1)
                    if op == 0 and i < len(b):
                        del b[i]
                    elif op == 1:
                        b.insert(i, rng.choice(alphabet))
                    elif i < len(b):
                        b[i] = rng.choice(alphabet)
                with open(p, "wb") as f:
                    f.write(bytes(b))
                try:
                    cpus, m, _ = lv.read_csv(p)
                    self.assertEqual(m.shape, (len(cpus), len(cpus)))
                except ValueError as e:
                    self.assertTrue(str(e).startswith(p), "%r: %s" % (bytes(b), e))

    def test_proposed_file_checks_and_loads_back(self):
        full = tl.hierarchy("alderlake", True)
        m = lv.synthetic(full, noise=0.04, seed=2)
        p = lv.propose(full["cpus"], m)
        hier = lv.as_hierarchy(full["cpus"], p, lv.name_levels(p, full))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "levels.topo")
            with open(path, "w") as f:
                f.write(lv.hierarchy_text(hier, name="test", comments=["a comment"]))
            rc, out, err = tl.run([os.path.join(tl.BINDIR, "clof-topology"), "--check", path])
            self.assertEqual(rc, 0, err)
            back = lv.from_json(tl.topo_json("--topology", path))
        self.assertTrue(lv.same_levels(back, hier))

    def test_cpulists(self):
        self.assertEqual(lv.parse_cpulist("0-2,5"), [0, 1, 2, 5])
        self.assertEqual(lv.format_cpulist([5, 0, 1, 2, 7, 8]), "0-2,5,7-8")
        with self.assertRaises(ValueError):
            lv.parse_cpulist("3-1")


if __name__ == "__main__":
    unittest.main()
