#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/preload/callgrind_apps.py's reading of a callgrind output file, on
a small hand-made one: the total, the library's pthread_mutex_lock calls
(pl_mutex_lock; glibc's only where the library's were not called), and the
self cost of the library's functions (a call's inclusive cost line is not
self cost; compressed names "(id)" are resolved)."""
import importlib.util
import os
import sys
import tempfile

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
spec = importlib.util.spec_from_file_location(
    "callgrind_apps", os.path.join(SRC, "bench", "preload", "callgrind_apps.py"))
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)

LIB = "/x/lib/libclof-preload.so"
WITH_LIB = f"""version: 1
creator: callgrind-3.19.0
events: Ir
ob=(1) /usr/bin/prog
fl=(1) prog.c
fn=(1) main
10 100
cob=(2) {LIB}
cfi=(2) pl.c
cfn=(2) pl_mutex_lock
calls=7 0
11 700
12 5
fn=(3) work
+1 50
ob=(2)
fl=(2)
fn=(2)
20 60
cob=(3) /lib/libc.so.6
cfi=(3) pthread_mutex_lock.c
cfn=(4) pthread_mutex_lock@@GLIBC_2.2.5
calls=7 0
21 300
+2 10
ob=(3)
fl=(3)
fn=(4)
30 300
summary: 825
totals: 825
"""
GLIBC_ONLY = """version: 1
events: Ir
ob=(1) /usr/bin/prog
fl=(1) prog.c
fn=(1) main
10 100
cob=(3) /lib/libc.so.6
cfi=(3) pthread_mutex_lock.c
cfn=(4) pthread_mutex_lock@@GLIBC_2.2.5
calls=3 0
11 90
ob=(3)
fl=(3)
fn=(4)
30 90
summary: 190
"""


def parsed(d, name, text):
    """parse_callgrind of `text` written to d/name."""
    p = os.path.join(d, name)
    with open(p, "w") as f:
        f.write(text)
    return mod.parse_callgrind(p, "libclof-preload.so")


def main():
    failures = []
    with tempfile.TemporaryDirectory() as d:
        # self cost in the library: 60 + 10 (the 300 of the call line is glibc's, inclusive)
        got = parsed(d, "a.out", WITH_LIB)
        if got != (825, 7, 70):
            failures.append(f"with the library: {got}, want (825, 7, 70)")
        got = parsed(d, "b.out", GLIBC_ONLY)
        if got != (190, 3, 0):
            failures.append(f"glibc only: {got}, want (190, 3, 0)")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("ok callgrind_apps.py parse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
