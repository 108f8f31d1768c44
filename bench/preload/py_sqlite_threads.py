#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Python + sqlite3 program for the preload library's real-program runs
(docs/lock-bugs.md, "Real programs"): THREADS threads
(default 4), each with its own connection to one database file, insert
ROWS rows each (default 2000, a transaction per 100) and read them back;
one shared in-memory connection (check_same_thread=False, sqlite's own
serialised mode) is written by every thread under a Python lock.  Checks
every count and prints "ok" (exit 1 otherwise).

    py_sqlite_threads.py DIR [THREADS [ROWS]]
"""
import os
import sqlite3
import sys
import threading

d = sys.argv[1]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 4
rows = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
path = os.path.join(d, "t.db")
if os.path.exists(path):
    os.remove(path)
with sqlite3.connect(path) as c:
    c.execute("create table t (th integer, i integer, v text)")
shared = sqlite3.connect(":memory:", check_same_thread=False)
shared.execute("create table s (th integer, i integer)")
shared_lock = threading.Lock()
errors = []


def work(th):
    c = sqlite3.connect(path, timeout=60)
    for i in range(rows):
        if i % 100 == 0:
            c.execute("begin immediate")
        c.execute("insert into t values (?, ?, ?)", (th, i, "v%d" % i))
        if i % 100 == 99 or i == rows - 1:
            c.commit()
        with shared_lock:
            shared.execute("insert into s values (?, ?)", (th, i))
    n = c.execute("select count(*) from t where th = ?", (th,)).fetchone()[0]
    if n != rows:
        errors.append("thread %d: %d rows" % (th, n))
    c.close()


ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
n = shared.execute("select count(*) from s").fetchone()[0]
if n != threads * rows:
    errors.append("shared: %d rows" % n)
print("ok" if not errors else "; ".join(errors))
sys.exit(1 if errors else 0)
