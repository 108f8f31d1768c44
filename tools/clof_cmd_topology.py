# SPDX-License-Identifier: MIT
"""clof topology -- print the machine's hierarchy; check hierarchy files.

    clof topology [--json | --dump] [--all] [--topology FILE | --emulate SHAPE]
                  [--sysfs ROOT] [--quiet]
    clof topology --check FILE

The work is done by the C helper clof-topology (the same code locks use).
"""

import subprocess

import clof_common


def add_arguments(p):
    p.epilog = "example: clof topology --all   (or: clof topology --check my.topo)"
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true",
                     help="the lock hierarchy as one JSON object")
    out.add_argument("--dump", action="store_true",
                     help="the lock hierarchy as a hierarchy file (edit it, then use it "
                          "with --topology or CLOF_TOPOLOGY)")
    out.add_argument("--check", metavar="FILE",
                     help="validate a hierarchy file: exit 0, or 1 with file:line: why")
    p.add_argument("--all", action="store_true",
                   help="with --json/--dump: every level found, also those locks leave out")
    p.add_argument("--quiet", action="store_true", help="no warning when sysfs is incomplete")
    clof_common.add_topology_flags(p)


def main(args, ctx):
    argv = [ctx.helper("clof-topology")]
    if args.check:
        if args.topology or args.emulate or args.all:
            clof_common.die("topology", "--check takes no other option")
        argv += ["--check", args.check]
    else:
        if args.json:
            argv.append("--json")
        if args.dump:
            argv.append("--dump")
        if args.all:
            argv.append("--all")
        if args.quiet:
            argv.append("--quiet")
        argv += clof_common.topology_args(args)
    return subprocess.call(argv)
