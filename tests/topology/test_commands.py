# SPDX-License-Identifier: MIT
"""The clof command: the dispatcher, `clof topology` (tree, --json, --dump,
--check, --emulate, --topology) and `clof heatmap` (measured on this
machine -- structure only, never timing -- synthetic, from a CSV)."""

import glob
import importlib.util
import json
import os
import tempfile
import unittest

import numpy as np

import topo_testlib as tl
import clof_levels as lv

CLOF = os.path.join(tl.BINDIR, "clof")


class Dispatcher(unittest.TestCase):
    def test_usage(self):
        rc, out, err = tl.clof()
        self.assertEqual(rc, 2)
        self.assertIn("topology", err)
        rc, out, err = tl.clof("--help")
        self.assertEqual(rc, 0)
        self.assertIn("heatmap", out)

    def test_unknown_subcommand_is_bad_usage(self):
        rc, out, err = tl.clof("frobnicate")
        self.assertEqual(rc, 2)
        self.assertIn("unknown subcommand 'frobnicate'", err)

    def test_bad_option_is_bad_usage(self):
        rc, out, err = tl.clof("topology", "--no-such-flag")
        self.assertEqual(rc, 2)

    def test_every_listed_subcommand_has_its_module(self):
        rc, out, err = tl.clof("--help")
        self.assertEqual(rc, 0)
        names = [l.split()[0] for l in out.split("subcommands:")[1].splitlines()
                 if l.startswith("  ") and l.strip()]
        self.assertIn("topology", names)
        self.assertIn("asl-profile", names)
        for c in names:
            self.assertIsNotNone(importlib.util.find_spec("clof_cmd_" + c.replace("-", "_")),
                                 "clof %s is listed but has no module" % c)
        self.assertNotIn("not implemented", out)


class Topology(unittest.TestCase):
    EXPECT = {  # machine -> (lines in the tree, lock levels)
        "vm": (["Package #0", "NUMA #0", "Cache #0", "Core #0", "Core #1",
                "1 package (2 cpus), 1 NUMA node (2 cpus), 1 cache group (2 cpus), "
                "2 cores (1 cpu each)"], "system(1)"),
        "epyc7352": (["      Cache #0               cpus 0-2,48-50", "Core #0  ",
                      "cpus 0,48"], "core(48) cache(16) numa(2) system(1)"),
        "kunpeng920": (["NUMA #3", "Cache #31", "cpus 124-127"],
                       "cache(32) numa(4) package(2) system(1)"),
        "alderlake": (["16 big, 8 little (little: 16-23)", "cpus 16-19"],
                      "core(16) cache(10) system(1)"),
        "biglittle": (["4 big, 4 little (little: 0-3)"], "cache(2) system(1)"),
    }

    def test_tree_of_each_fixture(self):
        for m, (lines, levels) in self.EXPECT.items():
            rc, out, err = tl.clof("topology", "--sysfs", tl.sysfs(m))
            self.assertEqual(rc, 0, err)
            for line in lines:
                self.assertIn(line, out, m)
            self.assertIn("Levels for locks (leaves up): " + levels + "\n", out, m)

    def test_this_machine(self):
        rc, out, err = tl.clof("topology")
        self.assertEqual(rc, 0, err)
        self.assertIn("Machine: ", out)
        obj = json.loads(tl.clof("topology", "--json", "--all")[1])
        self.assertEqual(obj["source"], "sysfs")
        self.assertEqual(obj["levels"][-1]["kind"], "system")
        self.assertEqual(obj["npresent"], len(lv.parse_cpulist(obj["cpus"])))

    def test_json(self):
        rc, out, err = tl.clof("topology", "--json", "--sysfs", tl.sysfs("epyc7352"))
        self.assertEqual(rc, 0, err)
        obj = json.loads(out)
        self.assertEqual([l["kind"] for l in obj["levels"]], ["core", "cache", "numa", "system"])
        self.assertEqual(obj["levels"][1]["groups"][0], "0-2,48-50")
        self.assertEqual(obj["levels"][1]["parent"][:9], [0] * 8 + [1])
        all_ = json.loads(tl.clof("topology", "--json", "--all", "--sysfs", tl.sysfs("epyc7352"))[1])
        self.assertEqual(len(all_["levels"]), 5)

    def test_dump_then_load_is_the_same(self):
        for m in tl.MACHINES:
            rc, dump, err = tl.clof("topology", "--dump", "--sysfs", tl.sysfs(m))
            self.assertEqual(rc, 0, err)
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, m + ".topo")
                with open(p, "w") as f:
                    f.write(dump)
                self.assertEqual(tl.clof("topology", "--check", p)[0], 0)
                a = lv.from_json(tl.topo_json("--topology", p))
            b = tl.hierarchy(m, False)
            self.assertTrue(lv.same_levels(a, b), m)
            self.assertEqual(a["core_types"], b["core_types"], m)

    def test_check(self):
        for f in glob.glob(os.path.join(tl.EXAMPLES, "*.topo")):
            rc, out, err = tl.clof("topology", "--check", f)
            self.assertEqual(rc, 0, err)
            self.assertIn(": ok: ", out)
        bad = os.path.join(tl.FIXTURES, "bad", "not-nested.topo")
        rc, out, err = tl.clof("topology", "--check", bad)
        self.assertEqual(rc, 1)
        self.assertIn(bad + ":9: levels do not nest", err)
        rc, out, err = tl.clof("topology", "--check", "/nonexistent.topo")
        self.assertEqual(rc, 2)
        self.assertIn("cannot open", err)

    def test_emulate_and_topology_flags(self):
        rc, out, err = tl.clof("topology", "--emulate", "package:2,numa:2,cache:8,core:4")
        self.assertEqual(rc, 0, err)
        self.assertIn("Levels for locks (leaves up): cache(32) numa(4) package(2) system(1)", out)
        self.assertIn("from emulated", out)
        rc, out, err = tl.clof("topology", "--emulate", "core:4,cache:2")
        self.assertEqual(rc, 2)
        self.assertIn("units go from the top down", err)
        rc, out, err = tl.clof("topology", "--emulate", "cache:2", "--topology", "x.topo")
        self.assertEqual(rc, 2)
        rc, out, err = tl.clof("topology", "--topology",
                               os.path.join(tl.FIXTURES, "bad", "overlap.topo"))
        self.assertEqual(rc, 2)
        self.assertIn("overlap.topo:6: cpu 3 is already in the cache group", err)

    def test_environment(self):
        ex = os.path.join(tl.EXAMPLES, "biglittle-4+4.topo")
        rc, out, err = tl.clof("topology", "--json", env={"CLOF_TOPOLOGY": ex})
        self.assertEqual(json.loads(out)["source"], "file")
        rc, out, err = tl.clof("topology", "--json", env={"CLOF_EMULATE": "numa:2,cpu:3"})
        self.assertEqual(json.loads(out)["npresent"], 6)
        rc, out, err = tl.clof("topology", "--json", env={"CLOF_SYSFS_ROOT": tl.sysfs("kunpeng920")})
        self.assertEqual(json.loads(out)["npresent"], 128)
        # missing sysfs: flat, with one warning on stderr
        rc, out, err = tl.clof("topology", "--json",
                               env={"CLOF_SYSFS_ROOT": tl.sysfs("broken-empty")})
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["source"], "flat")
        self.assertEqual(err.count("warning"), 1, err)

    def test_named_sysfs_root_must_exist(self):
        # --sysfs names a tree: no silent flat fallback (bad input, exit 2)
        rc, out, err = tl.clof("topology", "--sysfs", tl.sysfs("broken-empty"))
        self.assertEqual(rc, 2)
        self.assertIn("no cpus under devices/system/cpu", err)
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = tl.clof("heatmap", "--synthetic", "--sysfs", "/nonexistent",
                                   "--out", os.path.join(d, "out"))
            self.assertEqual(rc, 2)
            self.assertFalse(os.path.exists(os.path.join(d, "out")))


class Heatmap(unittest.TestCase):
    def usable_cpus(self, n):
        return sorted(os.sched_getaffinity(0))[:n]

    def test_measured_on_this_machine(self):
        cpus = self.usable_cpus(2)
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = tl.clof("heatmap", "--out", d, "--cpus", lv.format_cpulist(cpus),
                                   "--pair-ms", "4", "--slices", "2")
            self.assertEqual(rc, 0, err)
            self.assertIn("ETA", err)  # the progress line
            got, m, comments = lv.read_csv(os.path.join(d, "heatmap.csv"))
            self.assertEqual(got, cpus)
            self.assertTrue(np.all(np.isfinite(m)) and np.all(m >= 0))
            self.assertTrue(np.array_equal(m, m.T))
            for f in ("heatmap.png", "heatmap-by-level.png"):
                with open(os.path.join(d, f), "rb") as fh:
                    self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertIn("Table 2", out)
            self.assertEqual(tl.clof("topology", "--check", os.path.join(d, "levels.topo"))[0], 0)
            obj = json.load(open(os.path.join(d, "heatmap.json")))
            self.assertEqual(obj["cpus"], cpus)

    def test_sampling_keeps_pairs_inside_a_node(self):
        # twonode: cpu 0 and cpu 1 in different NUMA nodes; with room for
        # only the diagonal, the cross-node pair is left out
        cpus = self.usable_cpus(2)
        if cpus != [0, 1]:
            self.skipTest("needs cpus 0 and 1")
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "h.csv")
            rc, out, err = tl.run([os.path.join(tl.BINDIR, "clof-heatmap"), "--cpus", "0-1",
                                   "--pair-ms", "2", "--max-pairs", "2", "--sysfs",
                                   tl.sysfs("twonode"), "--out", csv, "--quiet"])
            self.assertEqual(rc, 0, err)
            _, m, comments = lv.read_csv(csv)
            self.assertTrue(np.isnan(m[0, 1]) and np.isfinite(m[0, 0]) and np.isfinite(m[1, 1]))
            self.assertIn("policy=sampled", comments[1])
            # the same in one node (vm): every pair inside the node is measured
            rc, out, err = tl.run([os.path.join(tl.BINDIR, "clof-heatmap"), "--cpus", "0-1",
                                   "--pair-ms", "2", "--max-pairs", "2", "--sysfs",
                                   tl.sysfs("vm"), "--out", csv, "--quiet"])
            _, m, comments = lv.read_csv(csv)
            self.assertTrue(np.all(np.isfinite(m)), comments)

    def test_synthetic_kunpeng_gives_the_example_file(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = tl.clof("heatmap", "--synthetic", "--sysfs", tl.sysfs("kunpeng920"),
                                   "--rates", "cache=7.04,numa=2.98,package=1.76",
                                   "--out", d, "--no-plot")
            self.assertEqual(rc, 0, err)
            self.assertIn("Proposed levels (leaves up): cache(32), numa(4), package(2), system(1)",
                          out)
            got = lv.from_json(tl.topo_json("--topology", os.path.join(d, "levels.topo")))
            ex = lv.from_json(tl.topo_json("--topology",
                                           os.path.join(tl.EXAMPLES, "kunpeng920.topo")))
            self.assertTrue(lv.same_levels(got, ex))
            # and again from the CSV it wrote
            rc, out2, err = tl.clof("heatmap", "--from-csv", os.path.join(d, "heatmap.csv"),
                                    "--sysfs", tl.sysfs("kunpeng920"), "--out", d, "--no-plot")
            self.assertEqual(rc, 0, err)
            self.assertIn("cache(32), numa(4), package(2)", out2)

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = tl.clof("heatmap", "--from-csv", os.path.join(d, "none.csv"),
                                   "--out", d)
            self.assertEqual(rc, 2)
            rc, out, err = tl.clof("heatmap", "--pair-ms", "0", "--out", d)
            self.assertEqual(rc, 2)
            self.assertIn("--pair-ms", err)
            rc, out, err = tl.clof("heatmap", "--synthetic", "--rates", "socket=3", "--out", d)
            self.assertEqual(rc, 2)
            self.assertIn("unknown level 'socket'", err)


if __name__ == "__main__":
    unittest.main()
