# SPDX-License-Identifier: MIT
"""clof locks -- list the lock names every clof tool and CLOF_LOCK take.

    clof locks [--family F] [--canon NAME...]

One grammar (docs/locks.md; src/lockname/lockname.c is its one table):
basic locks, the other libraries' peers, the NUMA locks, CLoF compositions
(tkt-mcs, with or without clof:), layers cr: asl: rw: bravo: over any of
them; case-insensitive, with aliases (tkt = ticket, hem = hemlock, glibc =
pthread).
"""

import subprocess
import sys

CMD = "locks"
FAMILIES = ["basic", "peer", "numa", "composition", "layer", "rw"]


def add_arguments(p):
    p.add_argument("--family", choices=FAMILIES, metavar="F",
                   help="only this family: %s (default: all, grouped)" % ", ".join(FAMILIES))
    p.add_argument("--canon", nargs="+", metavar="NAME",
                   help="print each NAME spelled canonically instead (exit 2 for a name "
                        "outside the grammar)")
    p.epilog = ("Not every program has every lock: clof bench has compositions of 2-4 "
                "levels and the peers; CLOF_LOCK, clof run and clof profile the basic and "
                "NUMA locks, compositions of 2-3 levels, cr: and asl: over them "
                "(docs/locks.md, 'Which tool has which lock'). "
                "Example: clof locks --family numa; clof locks --canon Clof:Ticket-MCS "
                "(prints tkt-mcs)")


def main(args, ctx):
    prog = ctx.helper("clof-lockname")
    if args.canon:
        argv = [prog, "canon", "--tool", "clof locks"] + args.canon
    else:
        argv = [prog, "list"] + (["--family", args.family] if args.family else [])
    rc = subprocess.run(argv).returncode
    if rc == 0 and not args.canon:
        sys.stderr.write("clof locks: the names of the grammar; which program has which lock "
                         "(clof bench, CLOF_LOCK / clof run, clof verify, ...): docs/locks.md, "
                         "'Which tool has which lock'\n")
    return rc
