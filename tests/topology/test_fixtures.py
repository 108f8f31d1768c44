# SPDX-License-Identifier: MIT
"""The committed fixtures and documents are what their generators make."""

import filecmp
import os
import subprocess
import sys
import tempfile
import unittest

import topo_testlib as tl
import clof_levels as lv


class Fixtures(unittest.TestCase):
    def test_sysfs_trees_equal_the_generator(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "sysfs")
            subprocess.check_call([sys.executable, os.path.join(tl.FIXTURES, "gen_sysfs.py"), out])
            diffs = []

            def walk(cmp, rel):
                diffs.extend(os.path.join(rel, x) for x in
                             cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files)
                for name, sub in cmp.subdirs.items():
                    walk(sub, os.path.join(rel, name))

            walk(filecmp.dircmp(out, os.path.join(tl.FIXTURES, "sysfs")), "")
        self.assertEqual(diffs, [], "regenerate with tests/topology/fixtures/gen_sysfs.py")

    def test_every_bad_file_says_what_it_expects(self):
        bad = os.path.join(tl.FIXTURES, "bad")
        names = sorted(f for f in os.listdir(bad) if f.endswith(".topo"))
        self.assertGreaterEqual(len(names), 30)
        for f in names:
            with open(os.path.join(bad, f)) as fh:
                self.assertRegex(fh.readline(), r"^# expect: \d+: .+", f)


class DocsHeatmap(unittest.TestCase):
    """docs/data/heatmap-this-machine/ is one run of clof heatmap (docs/topology.md)."""
    DIR = os.path.join(tl.ROOT, "docs", "data", "heatmap-this-machine")

    def test_files_are_consistent(self):
        cpus, m, comments = lv.read_csv(os.path.join(self.DIR, "heatmap.csv"))
        self.assertEqual(m.shape, (len(cpus), len(cpus)))
        self.assertIn("pair_ms=", comments[1])
        with open(os.path.join(self.DIR, "heatmap.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(self.DIR, "summary.txt")) as f:
            summary = f.read()
        self.assertIn("Table 2", summary)
        # the summary's Table 2 is computed from the CSV next to it
        for row in summary.splitlines():
            if row.startswith("cache ") and "same cohorts" not in row:
                mean = float(row.split()[2])
                self.assertAlmostEqual(mean, float(m[0, 1]), delta=1.0)


if __name__ == "__main__":
    unittest.main()
