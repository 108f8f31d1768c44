#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The API reference covers every public function, type, macro and member.

    check_api.py SOURCE_DIR

Runs Doxygen with docs/Doxyfile (from SOURCE_DIR, into a temporary folder)
and fails if it warns about an undocumented entity: prints FILE:LINE: what
for each, one per line, and exits 1.  A header that Doxygen reads (INPUT,
not EXCLUDE) must have a \\file comment, or its members would go unchecked
(Doxygen lists, and warns about, the members of documented files only).
Other Doxygen warnings are printed but do not fail.  Exit 77 (skipped)
where Doxygen is not installed.  docs/api.md says what is covered.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

UNDOC = re.compile(r'is not documented|are not documented|was not declared or defined')
WARNING = re.compile(r'^(?:(.*?):(\d+): )?warning: (.*)$')
FILE_DOC = re.compile(r'/\*[*!][\s*]*[\\@]file\b')


def doxyfile_list(path, key):
    """The values of KEY in a Doxyfile (continued lines and += joined)."""
    values, cur = [], None
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.lstrip().startswith('#'):
                continue  # a comment line (Doxygen has no others)
            if cur is None:
                m = re.match(r'\s*([A-Z_]+)\s*\+?=(.*)$', line)
                if not m:
                    continue
                name, rest = m.group(1), m.group(2)
            else:
                name, rest = cur, line
            cont = rest.rstrip().endswith('\\')
            rest = rest.rstrip().rstrip('\\')
            if name == key:
                values += rest.split()
            cur = name if cont else None
    return values


def unfiled_headers(root, doxyfile):
    """Headers Doxygen reads that have no \\file comment."""
    excluded = [os.path.normpath(os.path.join(root, e))
                for e in doxyfile_list(doxyfile, 'EXCLUDE')]
    missing = []
    for inp in doxyfile_list(doxyfile, 'INPUT'):
        for d, _, files in os.walk(os.path.join(root, inp)):
            for name in sorted(files):
                path = os.path.normpath(os.path.join(d, name))
                if not name.endswith(('.h', '.hpp')):
                    continue
                if any(path == e or path.startswith(e + os.sep) for e in excluded):
                    continue
                with open(path, encoding='utf-8') as f:
                    if not FILE_DOC.search(f.read()):
                        missing.append(os.path.relpath(path, root))
    return sorted(missing)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: check_api.py SOURCE_DIR')
    root = os.path.abspath(sys.argv[1])
    doxygen = shutil.which('doxygen')
    if doxygen is None:
        print('doxygen not installed; scripts/deps.sh installs it')
        return 77
    doxyfile = os.path.join(root, 'docs', 'Doxyfile')
    with tempfile.TemporaryDirectory(prefix='clof-api-') as out:
        env = dict(os.environ, CLOF_API_OUT=out, CLOF_VERSION='check')
        run = subprocess.run([doxygen, doxyfile], cwd=root, env=env,
                             capture_output=True, text=True)
        index = os.path.isfile(os.path.join(out, 'html', 'index.html'))
    # a warning's continuation lines (lists of parameters) join it
    warnings = []
    for line in (run.stderr + run.stdout).splitlines():
        m = WARNING.match(line)
        if m:
            where = ''
            if m.group(1):
                where = f'{os.path.relpath(m.group(1), root)}:{m.group(2)}: '
            warnings.append(where + m.group(3))
        elif warnings and line.startswith(' '):
            warnings[-1] += ' ' + line.strip()
    warnings = list(dict.fromkeys(warnings))  # Doxygen repeats some
    undoc = [w for w in warnings if UNDOC.search(w)]
    other = [w for w in warnings if not UNDOC.search(w)]
    unfiled = unfiled_headers(root, doxyfile)
    for w in other:
        print(f'note (not a failure): {w}')
    for w in undoc:
        print(w)
    for h in unfiled:
        print(f'{h}:1: no \\file comment: Doxygen would not check its members')
    if run.returncode != 0 or not index:
        print(f'doxygen failed (exit {run.returncode}, index.html '
              f'{"written" if index else "missing"})')
        return 1
    if undoc or unfiled:
        print(f'{len(undoc)} undocumented, {len(unfiled)} headers without '
              f'\\file (docs/api.md)')
        return 1
    print(f'API reference: every public entity documented '
          f'({len(other)} other warnings)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
