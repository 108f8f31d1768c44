#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How many of a program's threads are runnable, sampled over its run.

    bench/preload/thread_states.py [--every MS] [--skip S] [--for S] -- COMMAND ...

Starts COMMAND, waits --skip seconds (default 0.15: thread start-up), then
every --every ms (default 2) for --for seconds (default 0.8) reads the state
of each of its threads from /proc/PID/task/*/stat and counts those in state
R (running or waiting for a cpu; a thread asleep in the kernel, on a futex
say, is S).  Prints one JSON line: the fraction of samples with n runnable
threads for each n, the number of samples, and COMMAND's own last output
line (pl_mutexbench's record) under "output".  The sampler takes a share of
a cpu itself: compare programs under it with each other, not with runs
without it.
"""
import json
import os
import subprocess
import sys
import time
from collections import Counter


def main(argv):
    every, skip, span = 0.002, 0.15, 0.8
    if "--" not in argv:
        sys.exit(__doc__)
    opts, cmd = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    try:
        for i in range(0, len(opts), 2):
            k, v = opts[i], float(opts[i + 1])
            if k == "--every":
                every = v / 1000
            elif k == "--skip":
                skip = v
            elif k == "--for":
                span = v
            else:
                raise ValueError(k)
    except (ValueError, IndexError):
        sys.exit(f"thread_states.py: bad options {' '.join(opts)}\n{__doc__}")
    if not cmd:
        sys.exit(__doc__)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    time.sleep(skip)
    hist, n, t0 = Counter(), 0, time.monotonic()
    while time.monotonic() - t0 < span and p.poll() is None:
        running = 0
        try:
            tids = os.listdir(f"/proc/{p.pid}/task")
        except OSError:
            break
        for t in tids:
            try:
                with open(f"/proc/{p.pid}/task/{t}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            running += st[st.rindex(")") + 2] == "R"
        hist[running] += 1
        n += 1
        time.sleep(every)
    out = p.communicate()[0].strip().splitlines()
    print(json.dumps({"command": cmd, "samples": n,
                      "runnable": {k: round(v / n, 3) for k, v in sorted(hist.items())} if n else {},
                      "output": out[-1] if out else "", "rc": p.returncode}))
    return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
