#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measure the longest preprocessor macro of the project's C sources.

usage: tools/macro_length.py [--max N] [--top K] [DIR ...]
       (default DIR: include src, relative to the repository root)

A macro's length is the number of source lines of its #define, the line
with `#define` and every line joined to it by a trailing backslash.  The
script prints the K longest macros (file:line, name, lines) and exits 1
naming each macro longer than N lines (default 40: DEVELOPERS.md's rule
that code is written as functions a debugger can step through, and a
generator macro only declares types and one-line wrappers), 2 on bad usage.

--allow NAME=LINES (repeatable) lets the macro NAME be at most LINES long:
for the macros not yet rewritten (listed in tests/layers/CMakeLists.txt),
so that they cannot grow and no other one can pass N.  An --allow naming a
macro that is gone or now within N fails too (the list must shrink).
"""
import argparse
import os
import re
import sys

DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)')
EXTS = ('.h', '.c', '.hpp', '.cpp', '.cc', '.inc')


def macros(path):
    """Yield (line, name, length) of every #define in the file."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        m = DEFINE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        while lines[i].rstrip().endswith('\\') and i + 1 < len(lines):
            i += 1
        yield start + 1, m.group(1), i - start + 1
        i += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--max', type=int, default=40,
                    help='the longest macro allowed, in lines (default 40)')
    ap.add_argument('--top', type=int, default=5,
                    help='how many of the longest macros to print (default 5)')
    ap.add_argument('--root', default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..'),
        help='the repository root (default: the one of this script)')
    ap.add_argument('--allow', action='append', default=[], metavar='NAME=LINES',
                    help='a macro allowed up to LINES lines (repeatable)')
    ap.add_argument('dirs', nargs='*', default=['include', 'src'])
    a = ap.parse_args()
    allow = {}
    for x in a.allow:
        name, _, n = x.partition('=')
        if not name or not n.isdigit():
            print(f'macro_length.py: --allow {x!r}: expected NAME=LINES',
                  file=sys.stderr)
            return 2
        allow[name] = int(n)
    found = []
    for d in a.dirs:
        top = os.path.join(a.root, d)
        if not os.path.isdir(top):
            print(f'macro_length.py: {top}: no such folder', file=sys.stderr)
            return 2
        for dirpath, dirnames, files in os.walk(top):
            dirnames.sort()
            for fn in sorted(files):
                if fn.endswith(EXTS):
                    p = os.path.join(dirpath, fn)
                    rel = os.path.relpath(p, a.root)
                    found += [(n, rel, ln, name) for ln, name, n in macros(p)]
    if not found:
        print('macro_length.py: no macro found under ' + ' '.join(a.dirs),
              file=sys.stderr)
        return 2
    found.sort(key=lambda t: (-t[0], t[1], t[2]))
    print(f'the {min(a.top, len(found))} longest of {len(found)} macros '
          f'under {" ".join(a.dirs)}:')
    for n, rel, ln, name in found[:a.top]:
        print(f'  {n:4d} lines  {rel}:{ln}  {name}')
    over = [t for t in found if t[0] > allow.get(t[3], a.max)]
    bad = 0
    for name, n in sorted(allow.items()):
        longest = max([t[0] for t in found if t[3] == name], default=0)
        if longest <= a.max:
            print(f'macro_length.py: --allow {name}={n}: {name} is '
                  f'{longest or "no longer a macro"}{" lines" if longest else ""}'
                  f', within {a.max}: drop it from the list', file=sys.stderr)
            bad = 1
    for n, rel, ln, name in over:
        print(f'{rel}:{ln}: macro {name} is {n} lines, more than {a.max}: '
              'write the code as functions over a table and let the macro '
              'declare thin typed wrappers (include/clof/compose.h)',
              file=sys.stderr)
    return 1 if over or bad else 0


if __name__ == '__main__':
    sys.exit(main())
