#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every pointer from the code into the documentation still points somewhere.

    check_code_refs.py SOURCE_DIR

Comments in code, scripts and build files send the reader to the docs as
`docs/PAGE.md` or `docs/PAGE.md, "Section"` (the section's words may follow
on the next comment line).  The page must exist, and the section must be
found in it: inside a heading, or as a bold lead (`**Section**`) that opens
a paragraph.  Backticks and case do not count.  Files under docs/ and *.md
files are left to check_links.py.  Prints FILE:LINE: what is wrong for each
broken pointer; exit 1 if there is any, 0 otherwise.
"""
import os
import re
import subprocess
import sys

REF = re.compile(r'(docs/[A-Za-z0-9_/.-]+?\.md)'
                 r'(?:,(?:\s|#|\*|//)*"([^"\n]+)")?')
HEADING = re.compile(r'^#{1,6}\s+(.*)$')
BOLD = re.compile(r'\*\*([^*]+)\*\*')
SUFFIXES = ('.c', '.h', '.cc', '.hpp', '.py', '.sh', '.cmake', '.txt', '.in')


def norm(text):
    return re.sub(r'[`*]', '', text).strip().lower()


def anchors(path, cache={}):
    """Headings and bold leads of a page, normalised."""
    if path not in cache:
        found = []
        with open(path, encoding='utf-8') as f:
            for line in f:
                m = HEADING.match(line)
                if m:
                    found.append(norm(m.group(1)))
                found.extend(norm(b) for b in BOLD.findall(line))
        cache[path] = found
    return cache[path]


def tracked_files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files'], check=True,
                             capture_output=True, text=True).stdout
        return out.split()
    except (OSError, subprocess.CalledProcessError):
        names = []
        for d, _, files in os.walk(root):
            if '/.git' in d or '/build' in d:
                continue
            names += [os.path.relpath(os.path.join(d, f), root) for f in files]
        return names


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: check_code_refs.py SOURCE_DIR')
    root = sys.argv[1]
    broken = checked = 0
    for name in tracked_files(root):
        if name.startswith('docs/') or not name.endswith(SUFFIXES):
            continue
        try:
            with open(os.path.join(root, name), encoding='utf-8') as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        for m in REF.finditer(text):
            page, section = m.group(1), m.group(2)
            if os.path.basename(page)[:-3].isupper():
                continue  # a placeholder (docs/PAGE.md), as in this file
            checked += 1
            line = text.count('\n', 0, m.start()) + 1
            path = os.path.join(root, page)
            if not os.path.isfile(path):
                print(f'{name}:{line}: {page} does not exist')
                broken += 1
            elif section and not any(norm(section) in a for a in anchors(path)):
                print(f'{name}:{line}: {page} has no section "{section}"')
                broken += 1
    print(f'{checked} pointers into docs/, {broken} broken')
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main())
