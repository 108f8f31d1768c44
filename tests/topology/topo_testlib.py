# SPDX-License-Identifier: MIT
"""Shared by the Python topology tests: where things are, how to run them."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FIXTURES = os.environ.get("CLOF_TOPO_FIXTURES", os.path.join(HERE, "fixtures"))
EXAMPLES = os.environ.get("CLOF_TOPO_EXAMPLES", os.path.join(ROOT, "examples", "topology"))
BINDIR = os.environ.get("CLOF_BINDIR", os.path.join(ROOT, "build", "bin"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

MACHINES = ["vm", "epyc7352", "kunpeng920", "alderlake", "biglittle"]


def sysfs(machine):
    return os.path.join(FIXTURES, "sysfs", machine)


def run(argv, env=None, **kw):
    """run a program; (returncode, stdout, stderr)"""
    e = dict(os.environ)
    for k in ("CLOF_TOPOLOGY", "CLOF_EMULATE", "CLOF_SYSFS_ROOT"):
        e.pop(k, None)
    if env:
        e.update(env)
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=e, timeout=120, **kw)
    return r.returncode, r.stdout, r.stderr


def clof(*args, env=None):
    return run([os.path.join(BINDIR, "clof")] + list(args), env=env)


def topo_json(*args):
    rc, out, err = run([os.path.join(BINDIR, "clof-topology"), "--json", "--quiet"] + list(args))
    if rc != 0:
        raise RuntimeError("clof-topology %s: %s" % (" ".join(args), err))
    return json.loads(out)


def hierarchy(machine, all_levels):
    import clof_levels
    return clof_levels.from_json(topo_json("--sysfs", sysfs(machine),
                                           *(["--all"] if all_levels else [])))
