# SPDX-License-Identifier: MIT
"""Helpers shared by the clof subcommands."""

import json
import os
import subprocess
import sys


def complain(cmd, msg, code=2):
    """`clof CMD: MSG` on stderr; returns code, for `return complain(...)`
    from a subcommand's run()"""
    sys.stderr.write("clof %s: %s\n" % (cmd, msg))
    return code


def die(cmd, msg, code=2):
    """`clof CMD: MSG` on stderr, exit with code (2: bad usage or input).
    The one error helper of the subcommands: a module binds its name once,
    die = functools.partial(clof_common.die, CMD), and calls die(msg)."""
    sys.exit(complain(cmd, msg, code))


def sayer(cmd, quiet=False):
    """say(msg): a progress line `clof CMD: MSG` on stderr; nothing when quiet"""
    if quiet:
        return lambda msg: None
    return lambda msg: sys.stderr.write("clof %s: %s\n" % (cmd, msg))


def find_preload_lib(cmd, ctx, given):
    """The preload library: --preload LIB if given, else the build's own
    (lib/, lib64/ or the multiarch folder next to the programs)."""
    if given:
        if not os.path.isfile(given):
            die(cmd, "--preload %s: no such file" % given)
        return os.path.abspath(given)
    for d in ("lib", "lib64", os.path.join("lib", "x86_64-linux-gnu"),
              os.path.join("lib", "aarch64-linux-gnu")):
        p = os.path.join(ctx.bindir, "..", d, "libclof-preload.so")
        if os.path.isfile(p):
            return os.path.abspath(p)
    die(cmd, "libclof-preload.so not found next to %s (build the project, or give --preload LIB)"
        % ctx.bindir)


def add_topology_flags(p):
    """--topology FILE | --emulate SHAPE, --sysfs ROOT: the same meaning in
    every subcommand (docs/topology.md)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--topology", metavar="FILE",
                   help="the hierarchy from FILE (default: $CLOF_TOPOLOGY, else sysfs)")
    g.add_argument("--emulate", metavar="SHAPE",
                   help="an emulated machine, e.g. package:2,numa:2,cache:8,core:4, "
                        "or the path of a hierarchy file")
    p.add_argument("--sysfs", metavar="ROOT",
                   help="read sysfs under ROOT (default: $CLOF_SYSFS_ROOT, else /sys)")


def topology_args(args):
    out = []
    if getattr(args, "topology", None):
        out += ["--topology", args.topology]
    if getattr(args, "emulate", None):
        out += ["--emulate", args.emulate]
    if getattr(args, "sysfs", None):
        out += ["--sysfs", args.sysfs]
    return out


def load_hierarchy(ctx, args, all_levels=True, cmd="topology"):
    """the hierarchy (as clof-topology --json) chosen by args' topology
    flags; every level found when all_levels.  Exits 2 on bad input."""
    argv = [ctx.helper("clof-topology"), "--json", "--quiet"] + topology_args(args)
    if all_levels:
        argv.append("--all")
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die(cmd, r.stderr.strip().replace("clof-topology: ", ""), 2)
    return json.loads(r.stdout)


def lock_name(cmd, ctx, name):
    """name spelled canonically by the one grammar of lock names
    (src/lockname, docs/locks.md, through clof-lockname): tkt-mcs for
    clof:tkt-mcs, Clof:Ticket-MCS or tkt-mcs; cr:tkt-mcs; ticket for tkt.
    A name outside the grammar exits 2 with one line (did you mean ...)."""
    r = subprocess.run([ctx.helper("clof-lockname"), "canon", "--tool", "clof " + cmd, name],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        sys.exit(2)
    return r.stdout.strip()


_PARTS = None
BINDIR = None  # the programs' folder: clof.py's Context sets it


def composition_parts():
    """The parts of CLoF compositions, as the registry of basic locks declares
    them (include/clof/lock/list.h, through `clof-lockname parts`):
    ({abbr: basic lock}, {every name a user may write for a part: abbr}),
    e.g. ({"tkt": "ticket", ...}, {"tkt": "tkt", "ticket": "tkt", ...})."""
    global _PARTS
    if _PARTS is None:
        bindir = (BINDIR or os.environ.get("CLOF_BINDIR")
                  or os.path.dirname(os.path.abspath(sys.argv[0])))
        prog = os.path.join(bindir, "clof-lockname")
        try:
            r = subprocess.run([prog, "parts"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        except OSError as e:
            complain("clof", "%s: %s (build the project, or set CLOF_BINDIR)" % (prog, e.strerror))
            sys.exit(2)
        if r.returncode != 0:
            complain("clof", "%s parts failed: %s" % (prog, r.stderr.strip()))
            sys.exit(2)
        locks, names = {}, {}
        for line in r.stdout.splitlines():
            words = line.split()
            if len(words) >= 2:
                locks[words[0]] = words[1]
                for w in [words[0]] + words[1:]:
                    names.setdefault(w, words[0])
        _PARTS = (locks, names)
    return _PARTS


def check_file(cmd, flag, path):
    """path of option flag exists (a file): else exit 2 before any run starts"""
    if path is not None and not os.path.isfile(path):
        die(cmd, "%s %s: no such file" % (flag, path))
    return path


def parse_duration_ns(cmd, flag, text, bare_unit=None):
    """a duration with its unit (ns, us, ms, s; 50us, 1.5ms) in ns.  A bare
    number is refused unless bare_unit names the unit it takes."""
    import re
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s)?\s*", str(text))
    if not m:
        die(cmd, "%s %s: expected a duration with its unit, e.g. 50us, 2ms, 100ns" % (flag, text))
    unit = m.group(2) or bare_unit
    if unit is None:
        die(cmd, "%s %s: give the unit (ns, us, ms or s), e.g. %sus or %sns"
            % (flag, text, m.group(1), m.group(1)))
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def wrote(cmd, paths):
    """the last lines of a tool that writes files: every file it wrote"""
    paths = [p for p in paths if p and os.path.exists(p)]
    if not paths:
        return
    sys.stderr.write("clof %s wrote:\n" % cmd)
    for p in paths:
        sys.stderr.write("  %s\n" % p)
    sys.stderr.flush()


def fmt_ns(ns):
    """a duration in ns as the reports print it ("-" for none)"""
    if ns is None:
        return "-"
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.1f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%d ns" % ns
