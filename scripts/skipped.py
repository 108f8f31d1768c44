#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a ctest run skipped, and why, in one line per reason.

usage: skipped.py BUILD_DIR CTEST_OUTPUT

Takes the skipped tests from ctest's own list in CTEST_OUTPUT ("The
following tests did not run: ... (Skipped)"), each one's last line of output
from BUILD_DIR/Testing/Temporary/LastTest.log as its reason, and prints one line per (group, reason), the group being the test
name's first component ("genmc" for genmc.mcs.rc11):

    57 GenMC tests skipped: GenMC not installed; docs/genmc.md says how

Prints nothing when nothing was skipped; exits 0 always (it only reports).
"""
import collections
import os
import re
import sys

# the groups whose tool is optional, named as a user knows them, and the
# page that says how to install it
KNOWN = {
    "genmc": ("GenMC", "GenMC not installed", "docs/genmc.md"),
    "posix": ("Open POSIX suite", "the Open POSIX test suite not given (-DCLOF_POSIX_SUITE)",
              "docs/posix-suite.md"),
    "glibc": ("glibc-suite", "Debian's glibc-source package not installed",
              "docs/glibc-suite.md"),
}


def skipped_names(ctest_output):
    """The tests ctest reports as skipped, in its order."""
    return re.findall(r"^\s*\d+ - (\S+) \(Skipped\)\s*$", ctest_output, re.M)


def parse(log):
    """(name, output) for every test of a LastTest.log."""
    name, out, in_out = None, [], False
    for line in log.splitlines():
        m = re.match(r"^\d+/\d+ Test: (\S+)$", line)
        if m:
            name, out, in_out = m.group(1), [], False
            continue
        if name is None:
            continue
        if line == "Output:":
            in_out = True
            continue
        if in_out:
            if line.startswith("<end of output>"):
                in_out = False
            elif not re.match(r"^-{20,}$", line):
                out.append(line)
            continue
        if re.match(r'^".*" end time:', line):
            yield name, out
            name = None


def main():
    path = os.path.join(sys.argv[1], "Testing", "Temporary", "LastTest.log")
    try:
        with open(sys.argv[2], errors="replace") as f:
            names = skipped_names(f.read())
        with open(path, errors="replace") as f:
            outputs = dict(parse(f.read()))
    except OSError:
        return 0
    groups = collections.OrderedDict()
    for name in names:
        out = outputs.get(name, [])
        group = name.split(".")[0]
        lines = [l.strip() for l in out if l.strip()]
        reason = lines[-1] if lines else "(no output)"
        reason = re.sub(r"\s*--\s*skipped\.?$", "", reason)
        if group in KNOWN:
            reason = None  # one line for the whole group
        groups.setdefault((group, reason), []).append(name)
    for (group, reason), names in groups.items():
        n = len(names)
        if reason is None:
            what, why, doc = KNOWN[group]
            print(f"{n} {what} test{'s' if n > 1 else ''} skipped: {why}; {doc} says how")
        else:
            shown = names[0] if n == 1 else f"{group}.*"
            print(f"{n} test{'s' if n > 1 else ''} skipped ({shown}): {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
