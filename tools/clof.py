#!@CLOF_PYTHON@
# SPDX-License-Identifier: MIT
"""clof -- the clof command (docs/ in the project).

    clof <subcommand> [options]          clof <subcommand> --help

The build copies this file to build/bin/clof with the Python interpreter and
the folder of the subcommand modules filled in; `cmake --install` puts it in
<prefix>/bin with the modules in <prefix>/share/clof/python.  A subcommand NAME lives in
the module clof_cmd_NAME.py (dashes become underscores) next to this file in
the source tree, with two functions:

    add_arguments(parser)   fill an argparse parser ("clof NAME")
    main(args, ctx) -> int  run; ctx.bindir is the folder of the C helpers

or, for a subcommand that is a C program's front door, PASSTHROUGH = True and
run(argv, ctx) -> int, which gets the command line unparsed.

A subcommand whose module is missing (a broken installation) says so
(exit 2).  Exit status everywhere: 0 success, 1 a failed check or run,
2 bad usage or bad input (with a message on stderr).
"""

import argparse
import importlib
import importlib.util
import os
import sys


def _pydir():
    """the folder of the subcommand modules: the source tree's tools/ (build
    tree), ../share/clof/python next to an installed bin/clof, or this
    script's own folder (run from the source tree unconfigured)"""
    here = os.path.dirname(os.path.realpath(__file__))
    for d in ("@CLOF_TOOLS_PYDIR@", os.path.join(here, "..", "share", "clof", "python"), here):
        if d and not d.startswith("@") and os.path.isfile(os.path.join(d, "clof_common.py")):
            return os.path.abspath(d)
    return here


PYDIR = _pydir()
sys.path.insert(0, PYDIR)

# (name, one line of help).  Add a subcommand by writing clof_cmd_<name>.py.
SUBCOMMANDS = [
    ("topology", "print the machine's hierarchy; check hierarchy files"),
    ("heatmap", "measure the handover heatmap; propose levels from it"),
    ("bench", "run the lock microbenchmark"),
    ("select", "benchmark compositions and pick the HC-best / LC-best lock"),
    ("report", "summarise a results directory"),
    ("run", "run a program over the preload library"),
    ("verify", "model-check the locks"),
    ("asl-profile", "profile latency SLOs for the asymmetric layer"),
    ("profile", "which locks hold a program back: per-lock contention, waits, call sites"),
    ("locks", "list the lock names every tool takes (docs/locks.md)"),
]
VERSION = "@PROJECT_VERSION@"


class Context:
    def __init__(self):
        here = os.path.dirname(os.path.abspath(__file__))
        self.bindir = os.environ.get("CLOF_BINDIR") or here
        self.pydir = PYDIR
        import clof_common
        clof_common.BINDIR = self.bindir  # where composition_parts() finds clof-lockname

    def helper(self, name):
        """path of a C helper program (clof-topology, clof-heatmap, ...)"""
        path = os.path.join(self.bindir, name)
        if not os.access(path, os.X_OK):
            sys.stderr.write("clof: %s not found in %s (build the project, or set "
                             "CLOF_BINDIR)\n" % (name, self.bindir))
            sys.exit(2)
        return path

    def results_dir(self):
        """where run output goes by default: $CLOF_RESULTS, else results/ of
        the build this command runs from (BUILD/results), else clof-results/
        in the current folder (an installed clof); never the source tree"""
        env = os.environ.get("CLOF_RESULTS")
        if env:
            return env
        build = os.path.abspath(os.path.join(self.bindir, ".."))
        if os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            return os.path.join(build, "results")
        return os.path.abspath("clof-results")


def module_name(cmd):
    return "clof_cmd_" + cmd.replace("-", "_")


def top_usage(out):
    out.write("usage: clof <subcommand> [options]\n       clof --version\n\nsubcommands:\n")
    for name, text in SUBCOMMANDS:
        out.write("  %-12s %s\n" % (name, text))
    out.write("\n'clof <subcommand> --help' for its options; man clof-<subcommand>.\n"
              "exit status: 0 success, 1 a failed run or check, 2 bad usage or input.\n"
              "example: clof bench --lock mcs --threads 2 --duration 1\n")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        top_usage(sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        sys.stdout.write("clof %s\n" % (VERSION if not VERSION.startswith("@") else
                                         "(source tree, not configured)"))
        return 0
    cmd, rest = argv[0], argv[1:]
    known = dict(SUBCOMMANDS)
    if cmd not in known:
        import difflib
        near = difflib.get_close_matches(cmd, list(known), n=2)
        sys.stderr.write("clof: unknown subcommand '%s'%s ('clof --help' lists them)\n"
                         % (cmd, "; did you mean %s?" % " or ".join(near) if near else ""))
        return 2
    if importlib.util.find_spec(module_name(cmd)) is None:
        sys.stderr.write("clof %s: its module %s.py is missing from %s (a broken "
                         "installation: reinstall clof)\n" % (cmd, module_name(cmd), PYDIR))
        return 2
    mod = importlib.import_module(module_name(cmd))
    if getattr(mod, "PASSTHROUGH", False):
        # the module hands its whole command line to a C program (clof bench)
        return int(mod.run(rest, Context()) or 0)
    parser = argparse.ArgumentParser(prog="clof " + cmd, description=known[cmd])
    mod.add_arguments(parser)
    args = parser.parse_args(rest)  # exits 2 on bad usage
    try:
        return int(mod.main(args, Context()) or 0)
    except KeyboardInterrupt:
        sys.stderr.write("clof %s: interrupted\n" % cmd)
        return 1
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
