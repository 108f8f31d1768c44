#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the man pages of the clof command from its own help: clof(1) and
clof-SUB(1) for every subcommand (the text of `clof SUB --help`, so a page
never says other than the program does).  Run by the build
(tools/man.cmake); `cmake --install` puts the pages in share/man/man1.

usage: gen_man.py CLOF OUTDIR VERSION
"""
import os
import subprocess
import sys


def roff_escape(line):
    line = line.replace("\\", "\\e")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def page(name, section, version, brief, synopsis, body, see_also):
    out = ['.TH "%s" "%s" "" "clof %s" "clof manual"' % (name.upper(), section, version),
           ".SH NAME", "%s \\- %s" % (name.replace("-", "\\-"), roff_escape(brief)),
           ".SH SYNOPSIS", ".nf"] + [roff_escape(l) for l in synopsis] + [".fi",
           ".SH DESCRIPTION", ".nf"] + [roff_escape(l) for l in body] + [".fi",
           ".SH EXIT STATUS",
           "0 success, 1 a failed run or check, 2 bad usage or input (a missing program included).",
           ".SH SEE ALSO", ", ".join("\\fB%s\\fR(%s)" % s for s in see_also)]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    clof, outdir, version = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    top = subprocess.run([clof, "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    subs = []
    section = top.split("subcommands:", 1)[1].split("\n\n", 1)[0]
    for line in section.splitlines():
        if line.startswith("  ") and len(line.split(None, 1)) == 2:
            n, brief = line.split(None, 1)
            subs.append((n, brief.strip()))
    see = [("clof-" + n, "1") for n, _ in subs] + [("clof-preload", "7")]
    with open(os.path.join(outdir, "clof.1"), "w") as f:
        f.write(page("clof", "1", version, "compositional locks: measure, choose, verify, run",
                     ["clof SUBCOMMAND [options]", "clof --version"], top.splitlines(), see))
    for n, brief in subs:
        r = subprocess.run([clof, n, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode != 0:
            sys.exit("gen_man.py: clof %s --help failed (exit %d): %s"
                     % (n, r.returncode, r.stdout[-300:]))
        lines = r.stdout.rstrip("\n").splitlines()
        syn = []
        while lines and (lines[0].startswith("usage:") or (syn and lines[0].startswith(" "))):
            syn.append(lines.pop(0).replace("usage: ", "", 1).strip())
        while lines and not lines[0].strip():
            lines.pop(0)
        with open(os.path.join(outdir, "clof-%s.1" % n), "w") as f:
            f.write(page("clof-" + n, "1", version, brief, syn or ["clof %s [options]" % n],
                         lines, [("clof", "1")] + [s for s in see if s[0] != "clof-" + n]))


if __name__ == "__main__":
    main()
