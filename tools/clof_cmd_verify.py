# SPDX-License-Identifier: MIT
"""clof verify -- model-check the locks (clof-verify, docs/verification.md).

    clof verify [--lock NAME | --client PAT]... [--model sc|tso|c11|all] [--quick|--full]
                [--bound K] [--max-execs N] [--time-limit S] [--markdown] [-v]
    clof verify --selftest [--markdown]  the checker's own litmus suite and
                                      the litmus catalogue
    clof verify --mutate [--lock NAME]... [--model M] [--markdown]
    clof verify --mutate --sites ...  the weakenings --mutate would check,
                                      unchecked
    clof verify --optimize LOCK       the weakest orders that verify together
    clof verify --bug NAME            a named memory-order bug (must be caught)
    clof verify --list                the checked locks and the named bugs

--lock NAME takes every name of `clof locks` and runs what covers it (a
composition: its parts' clients and the CLoF induction step's), ending with
one verdict line for the lock (docs/verification.md, "Verifying a lock by
its name"); a peer (pthread, ck-*) is not clof's: exit 2.

The command line goes to clof-verify unchanged.  Exit status: 0 every run
verified, 1 a property was violated (the execution is printed as a trace),
2 bad usage, a checker error or a lock with nothing of clof's to check.
"""

import os

PASSTHROUGH = True


def run(argv, ctx):
    prog = ctx.helper("clof-verify")
    os.environ["CLOF_PROG"] = "clof verify"  # its usage and errors name `clof verify`
    os.execv(prog, [prog] + list(argv))
    return 2  # not reached
