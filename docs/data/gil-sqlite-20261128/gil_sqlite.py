# 4 threads, each with its own sqlite3 database in memory: a query (sqlite
# releases the interpreter's lock around it), then Python work on the rows.
import sqlite3, threading, time, sys
N = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
def work():
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute("create table t(a integer, b text)")
    db.executemany("insert into t values (?, ?)", [(i, str(i)) for i in range(200)])
    s = 0
    for i in range(N):
        rows = db.execute("select a, b from t where a % 7 = ?", (i % 7,)).fetchall()
        s += sum(a for a, _ in rows)
    return s
t0 = time.time()
th = [threading.Thread(target=work) for _ in range(4)]
for t in th: t.start()
for t in th: t.join()
print(f"{time.time() - t0:.2f}")
