# SPDX-License-Identifier: MIT
# The small program of docs/workflow.md's "--workload cmd" example:
# 4 threads, one sqlite3 connection each to a shared-cache in-memory database:
# inserts and reads for 1 s; prints the operations per second
import sqlite3, threading, time
URI = "file:clofdemo?mode=memory&cache=shared"
keep = sqlite3.connect(URI, uri=True, check_same_thread=False)
keep.execute("create table if not exists t (k integer, v text)")
keep.commit()
count = [0] * 4
stop = time.time() + 1.0
def work(i):
    c = sqlite3.connect(URI, uri=True, timeout=30)
    n = 0
    while time.time() < stop:
        try:
            c.execute("insert into t values (?, ?)", (n, "x" * 20))
            c.commit()
            c.execute("select count(*) from t where k = ?", (n,)).fetchone()
        except sqlite3.OperationalError:
            pass
        n += 1
    count[i] = n
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
print("ops/s: %d" % (sum(count) / 1.0))
