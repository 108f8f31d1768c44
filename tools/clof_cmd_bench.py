# SPDX-License-Identifier: MIT
"""clof bench -- run the lock microbenchmark (clof-bench).

    clof bench --list
    clof bench --lock NAME --threads N --duration S [--cs-lines K] [--non-cs NS]
               [--pin] [--json] [--emulate SHAPE | --topology FILE]
               [--placement packed|spread|linear] [--repeat R] [--seed S]

The command line goes to clof-bench unchanged (bench/README.md), so every flag
means the same here as there; `clof bench --help` prints its help.
"""

import os

PASSTHROUGH = True


def run(argv, ctx):
    prog = ctx.helper("clof-bench")
    os.environ["CLOF_PROG"] = "clof bench"  # its usage and errors name `clof bench`
    os.execv(prog, [prog] + list(argv))
    return 2  # not reached
