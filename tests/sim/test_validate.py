#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sim/validate.py runs and produces its table (docs/simulation-accuracy.md).

    test_validate.py BINDIR

Behaviour only, never a threshold on accuracy (benchmarks are not tests):
the script exits 0, prints a predicted/measured cell for every measured
point, a prediction for every paper point, a Kendall tau per thread count,
and the summary rows of the fitted and held-back sets; a bad points file
is refused with its line.  --quick keeps it under 30 s.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BINDIR = sys.argv[1]
FAILS = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        FAILS.append(msg)


script = os.path.join(ROOT, "sim", "validate.py")
r = subprocess.run([sys.executable, script, "--bindir", BINDIR, "--quick", "--jobs", "2"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
out = r.stdout
print(out[-3000:])
check(r.returncode == 0, "validate.py exits 0 (%d; %s)" % (r.returncode, r.stderr[-300:]))
measured = list(csv.DictReader(open(os.path.join(ROOT, "sim", "validation", "measured.csv"))))
papers = list(csv.DictReader(open(os.path.join(ROOT, "sim", "validation", "papers.csv"))))
cells = re.findall(r"\d+\.\d\d / \d+\.\d\d \([+-]\d+%\)", out)
check(len(cells) == len(measured), "a predicted / measured (error) cell per measured point "
      "(%d cells, %d points)" % (len(cells), len(measured)))
for p in papers:
    check(re.search(r"^  %s\s+(fit|held)" % re.escape(p["id"]), out, re.M) is not None,
          "paper point %s has a row" % p["id"])
check(len(re.findall(r"Kendall tau -?\d\.\d\d, pairs in the right order \d+ of \d+", out)) >= 5,
      "rankings with Kendall's tau per thread count")
for label in ("vm16 fit", "vm16 held*", "vm2 fit", "vm2 held*", "papers fit", "papers held*"):
    check(re.search(r"^  %s.*median \|error\|" % re.escape(label), out, re.M) is not None,
          "summary row '%s'" % label)
check("model error (median |error| of every held-back point" in out, "the model error line")

# what clof select --simulate prints with its ranking: the recorded error
sys.path.insert(0, os.path.join(ROOT, "tools"))
import clof_select_common  # noqa: E402
txt = clof_select_common.sim_model_error_text()
check(re.match(r"\+-\d+% \(model error: median \|error\| of the \d+ held-back points", txt)
      is not None, "clof select --simulate's error line: %s" % txt)

# a bad points file: refused with file:line
tmp = tempfile.mkdtemp()
try:
    shutil.copytree(os.path.join(ROOT, "sim"), os.path.join(tmp, "sim"))
    bad = os.path.join(tmp, "sim", "validation", "papers.csv")
    lines = open(bad).read().splitlines()
    lines[2] = lines[2].replace(",held,", ",maybe,", 1)
    open(bad, "w").write("\n".join(lines) + "\n")
    r = subprocess.run([sys.executable, os.path.join(tmp, "sim", "validate.py"), "--bindir", BINDIR,
                        "--only", "papers", "--quick"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    check(r.returncode == 2 and "papers.csv:3" in r.stderr and "'maybe'" in r.stderr,
          "a bad set is refused with file:line (%d: %s)" % (r.returncode, r.stderr.strip()))
finally:
    shutil.rmtree(tmp)
sys.exit(1 if FAILS else 0)
