#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every relative link of README.md and docs/**/*.md resolves.

    check_links.py SOURCE_DIR

A link [text](path), [text](path#anchor) or [text](#anchor) must name a file
or directory that exists (relative to the page), and an anchor must be a
heading of the target page: GitHub's slug of the heading text (lower case,
punctuation dropped, spaces to hyphens, -1, -2 ... for repeats), the id of an
explicit `{#id}` at the heading's end, or an <a id="..."> / <a name="...">.
Links to http(s):, mailto: and the like are not followed.  Code blocks
(``` fences) and inline code are skipped.  Prints one line per broken link,
FILE:LINE: what is wrong; exit 1 if there is any, 0 otherwise.
"""
import os
import re
import sys

LINK = re.compile(r'\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
EXPLICIT = re.compile(r'\s*\{#([A-Za-z0-9_.:-]+)\}\s*$')
HTML_ID = re.compile(r'<a\s+(?:id|name)="([^"]+)"')
FENCE = re.compile(r'^\s*(```|~~~)')


def slug(text):
    text = re.sub(r'</?(?:a|br|sub|sup|code|em|b|i)\b[^>]*>', '', text)  # HTML tags
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)  # links keep their text
    text = text.strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)           # punctuation, backticks
    return text.replace(' ', '-')


def lines_outside_code(path):
    """(line number, line) of the lines outside fenced code blocks."""
    fenced = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line


_anchors = {}


def anchors(path):
    if path in _anchors:
        return _anchors[path]
    found, seen = set(), {}
    for _, line in lines_outside_code(path):
        for m in HTML_ID.finditer(line):
            found.add(m.group(1))
        h = HEADING.match(line)
        if not h:
            continue
        text = h.group(2)
        e = EXPLICIT.search(text)
        if e:
            found.add(e.group(1))
            found.add(slug(text))   # GitHub shows the {#id} as text
            text = text[:e.start()]
        s = slug(text)
        k = seen.get(s, 0)
        seen[s] = k + 1
        found.add(s if k == 0 else '%s-%d' % (s, k))
    _anchors[path] = found
    return found


def check(root, page):
    errors = []
    rel = os.path.relpath(page, root)
    for n, line in lines_outside_code(page):
        line = re.sub(r'`[^`]*`', '``', line)     # inline code
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target):
                continue                           # http:, mailto: ...
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                errors.append('%s:%d: %s: no such file %s' % (rel, n, target, os.path.relpath(dest, root)))
                continue
            if anchor and dest.endswith('.md') and os.path.isfile(dest):
                if anchor not in anchors(dest):
                    errors.append('%s:%d: %s: no heading with anchor #%s in %s'
                                  % (rel, n, target, anchor, os.path.relpath(dest, root)))
    return errors


def pages(root):
    yield os.path.join(root, 'README.md')
    for d, dirs, files in os.walk(os.path.join(root, 'docs')):
        dirs.sort()
        for f in sorted(files):
            if f.endswith('.md'):
                yield os.path.join(d, f)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: check_links.py SOURCE_DIR')
    root = sys.argv[1]
    errors, count = [], 0
    for page in pages(root):
        count += 1
        errors += check(root, page)
    for e in errors:
        print(e)
    print('%d pages, %d broken links' % (count, len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
