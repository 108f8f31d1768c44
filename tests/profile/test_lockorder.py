#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clof profile --lock-order / --hang-after / --long-holds` end to end
(tests/profile/CMakeLists.txt; docs/profile.md "Lock-order inversions").

    test_lockorder.py BINDIR PL_LOCKORDER LOCK

Each case of pl_lockorder.c under LOCK (glibc, or a clof lock), its report
compared with the exact expected one: which locks form each inversion, in
which order, and for each edge the function that took the lock and the
function that had taken the lock held.  The look-alikes (trylock-only,
read-read, a recursive mutex taken again, a reused address) must report
nothing.  A real deadlock: `--hang-after 1` prints the wait-for graph
(the cycle, each thread's wait and its holder), then the test kills the
program with SIGKILL and `clof profile` ends by that signal.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

BINDIR, PROG, LOCK = sys.argv[1], sys.argv[2], sys.argv[3]
CLOF = os.path.join(BINDIR, "clof")
failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + "%s: %s" % (LOCK, what))
    if not cond:
        failed.append(what)


def fn(site):
    return (site or {}).get("function", "")


def profile(case, opts, tmp):
    js = os.path.join(tmp, case + ".json")
    r = subprocess.run([CLOF, "profile", "--lock", LOCK, "--json", js] + opts +
                       ["--", PROG, case], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    rep = None
    if os.path.isfile(js):
        with open(js) as f:
            rep = json.load(f)
    check(r.returncode == 0 and r.stdout.startswith("done " + case) and rep is not None,
          "%s: runs to its end under the profile (status %d)" % (case, r.returncode))
    return r, rep


def cycles_of(rep):
    """each inversion as [(to lock, function that took it, held lock, function that took the
    held one, held mode, asked mode)], in the report's order"""
    return [[(e["to"], fn(e["taken_at"]), e["from"], fn(e["held_taken_at"]), e["held_mode"],
              e["asked_mode"]) for e in c["edges"]] for c in rep["lock_order"]["cycles"]]


def rotations(cyc):
    return [cyc[i:] + cyc[:i] for i in range(len(cyc))]


W = "write"
EXPECTED = {
    # case: the inversions (each: its edges, as a cycle)
    "abba": [[("lock_b", "take_ab", "lock_a", "take_ab", W, W),
              ("lock_a", "take_ba", "lock_b", "take_ba", W, W)]],
    "cycle3": [[("lock_b", "take_ab", "lock_a", "take_ab", W, W),
                ("lock_c", "take_bc", "lock_b", "take_bc", W, W),
                ("lock_a", "take_ca", "lock_c", "take_ca", W, W)]],
    "trylock": [],
    "rwread": [],
    "rwmixed": [[("rw_b", "write_ab", "rw_a", "write_ab", W, W),
                 ("rw_a", "read_ba", "rw_b", "read_ba", "read", "read")]],
    "recursive": [[("rec", "a_then_rec", "lock_a", "a_then_rec", W, W),
                   ("lock_a", "rec_then_a", "rec", "rec_then_a", W, W)]],
    "reuse": [],
}


def main():
    tmp = tempfile.mkdtemp(prefix="test-lockorder-")
    for case, want in EXPECTED.items():
        r, rep = profile(case, ["--lock-order"], tmp)
        if rep is None:
            continue
        lo = rep.get("lock_order")
        check(lo is not None, "%s: the report has a lock_order section" % case)
        if lo is None:
            continue
        got = cycles_of(rep)
        ok = len(got) == len(want) and all(
            any(g in rotations(w) for w in want) for g in got)
        check(ok, "%s: inversions %s (expected %s)" % (case, got, want))
        if case == "recursive":
            # rec taken again by its holder: no edge rec -> rec
            check(lo["edges"] == 2, "recursive: 2 order edges (no rec -> rec): %d" % lo["edges"])
        text = r.stderr
        check(("lock-order inversions (potential deadlocks): %d" % len(want)) in text,
              "%s: the text report says %d inversion(s)" % (case, len(want)))
        if want:
            check(all(("while holding %s, taken at %s" % (e[2], e[3])) in text
                      for e in want[0]), "%s: the text names every edge's held lock and site"
                  % case)
    # thread ids: the two edges of abba by two threads
    r, rep = profile("abba", ["--lock-order"], tmp)
    if rep and rep["lock_order"]["cycles"]:
        c = rep["lock_order"]["cycles"][0]
        check(len({e["thread"] for e in c["edges"]}) == 2 and not c["one_thread"],
              "abba: each edge names its own thread")
    # long holds, alone (no order tracking: no lock_order section)
    r, rep = profile("longhold", ["--long-holds", "100"], tmp)
    if rep is not None:
        lh = (rep.get("long_holds") or {}).get("holds", [])
        check("lock_order" not in rep, "longhold: lock order not tracked unless asked")
        check(len(lh) == 1 and lh[0]["lock"] == "lock_c" and lh[0]["holds"] == 1 and
              fn(lh[0]["taken_at"]) == "main" and lh[0]["waits_begun_meanwhile"] == 1 and
              lh[0]["max_ns"] >= 200e6,
              "longhold: one hold of lock_c over 100 ms, taken in main, one wait meanwhile: %s"
              % [(h["lock"], h["holds"], fn(h["taken_at"]), h["waits_begun_meanwhile"])
                 for h in lh])
    deadlock(tmp)
    condhang()
    rwhang()
    print("%d failed" % len(failed))
    return 1 if failed else 0


def hang_graph(case, holders):
    """run case with --hang-after 1; the wait-for graph's text and the pid
    (once the graph's `holders` "holds:" lines are read), and the process"""
    p = subprocess.Popen([CLOF, "profile", "--lock", LOCK, "--hang-after", "1",
                          "--", PROG, case], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    lines, pid = [], None
    t0 = time.monotonic()
    # the graph: its header, then a line per waiting thread and holder, then the
    # held sets ("holds:")
    while time.monotonic() - t0 < 60:
        line = p.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        m = re.search(r"wait-for graph of pid (\d+)", line)
        if m:
            pid = int(m.group(1))
        if sum(1 for l in lines if " holds: " in l) == holders:
            break
    return "\n".join(lines), pid, p


def condhang():
    """a thread waiting on a condition variable holds nothing: its mutex is
    released while it waits"""
    text, pid, p = hang_graph("condhang", 2)
    check(pid is not None, "condhang: the wait-for graph printed")
    if pid is None:
        p.kill()
        return
    holds = re.findall(r"thread \d+ holds: (.*)", text)
    check(sorted(h.split(" (")[0] for h in holds) == ["lock_a", "lock_b"] and
          re.search(r"holds: lock_a \(taken at cw_take", text) is not None and
          re.search(r"waits .* for lock_b \(write\) at cw_take", text) is not None and
          "0 deadlocks" in text,
          "condhang: lock_a held by cw_take only (cw_wait released it to wait), "
          "cw_take waits for lock_b held by main: %s" % text)
    os.kill(pid, signal.SIGKILL)
    p.communicate(timeout=30)


def rwhang():
    """a reader waiting for a writer: the wait, its mode and its holder"""
    text, pid, p = hang_graph("rwhang", 2)
    check(pid is not None, "rwhang: the wait-for graph printed")
    if pid is None:
        p.kill()
        return
    check(re.search(r"waits .* for rw_a \(read\) at rw_wait", text) is not None and
          re.search(r"held by thread \d+ \(write\), taken at main", text) is not None and
          re.search(r"holds: rw_b \(taken at rw_wait", text) is not None and
          "1 threads waiting for a lock, 0 deadlocks" in text,
          "rwhang: rw_wait waits to read rw_a, held for writing by main, and holds rw_b: %s"
          % text)
    os.kill(pid, signal.SIGKILL)
    p.communicate(timeout=30)


def deadlock(tmp):
    text, pid, p = hang_graph("deadlock", 2)
    check(pid is not None, "deadlock: the wait-for graph printed while the program hangs")
    if pid is None:
        p.kill()
        return
    threads = re.search(r"DEADLOCK: thread (\d+) -> thread (\d+) -> thread (\d+)", text)
    check(threads is not None and threads.group(1) == threads.group(3) and
          threads.group(1) != threads.group(2), "deadlock: the cycle of two threads first")
    check("1 deadlock" in text and "2 threads waiting for a lock" in text,
          "deadlock: two threads waiting, one deadlock")
    want = [r"thread (\d+) waits .* for lock_b \(write\) at dl_one",
            r"held by thread (\d+) \(write\), taken at dl_two",
            r"thread (\d+) waits .* for lock_a \(write\) at dl_two",
            r"held by thread (\d+) \(write\), taken at dl_one"]
    found = [re.search(w, text) for w in want]
    check(all(found), "deadlock: each wait and its holder named (dl_one, dl_two): %s" % text)
    if all(found) and threads:
        one, two = found[0].group(1), found[2].group(1)
        check(found[1].group(1) == two and found[3].group(1) == one and one != two,
              "deadlock: the holder of each lock is the other thread")
    os.kill(pid, signal.SIGKILL)
    try:
        rest = p.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        rest = p.communicate()[1]
    check(p.returncode == -signal.SIGKILL,
          "deadlock: killed by the test, clof profile ends by SIGKILL (%s): %s"
          % (p.returncode, rest[-800:]))


if __name__ == "__main__":
    sys.exit(main())
