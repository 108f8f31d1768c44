# SPDX-License-Identifier: MIT
"""Lock tracking's part of `clof profile` (docs/profile.md, "Lock-order
inversions", "A hang explained", "Long holds"): the lock-order graph's
cycles, the wait-for graph of a stuck program, the long holds -- from the
E, T/HE and LH lines of the profile file that libclof-preload.so writes
under CLOF_PROFILE_ORDER, CLOF_PROFILE_HANG and CLOF_PROFILE_LONG_US.

Lock identity in the order graph: address, kind and generation (a lock
initialised or destroyed again at the same address is a new node); a lock
is named by its data symbol when it has one, else by its address and the
call site that first took it.

Read-write locks: an edge carries the mode the held lock was held in and
the mode the new one was asked for; a cycle counts only where, at each of
its locks, the thread that holds it and the thread that asks for it are
not both readers (readers do not block readers)."""

import collections

import clof_common

MODE = {0: "write", 1: "read"}
MAX_CYCLES = 50


def parse_line(w, cur):
    """one E/LH/T/HE line into cur (the section being read); False: not ours"""
    if w[0] == "E":
        cur.setdefault("edges", []).append({
            "from": (int(w[1], 16), int(w[2]), int(w[3])), "from_mode": int(w[4]),
            "to": (int(w[5], 16), int(w[6]), int(w[7])), "to_mode": int(w[8]),
            "pc_from": int(w[9], 16), "pc_to": int(w[10], 16), "tid": int(w[11])})
    elif w[0] == "LH":
        cur.setdefault("long", []).append({
            "addr": int(w[1], 16), "kind": int(w[2]), "pc": int(w[3], 16), "n": int(w[4]),
            "total_ns": int(w[5]), "max_ns": int(w[6]), "waiters": int(w[7])})
    elif w[0] == "T":
        cur.setdefault("threads", []).append({
            "tid": int(w[1]), "wait": int(w[2], 16), "wait_kind": int(w[3]),
            "wait_mode": int(w[4]), "wait_pc": int(w[5], 16), "waited_ns": int(w[6]),
            "untracked": int(w[7]), "held": []})
    elif w[0] == "HE":
        ts = cur.get("threads") or []
        if not ts or ts[-1]["tid"] != int(w[1]):
            raise ValueError("HE before its T line")
        ts[-1]["held"].append({"addr": int(w[2], 16), "kind": int(w[3]), "mode": int(w[4]),
                               "pc": int(w[5], 16), "depth": int(w[6])})
    else:
        return False
    return True


def pcs_of(sec):
    out = set()
    for e in sec.get("edges", []):
        out.update((e["pc_from"], e["pc_to"]))
    for l in sec.get("long", []):
        out.add(l["pc"])
    for t in sec.get("threads", []):
        if t["wait_pc"]:
            out.add(t["wait_pc"])
        out.update(h["pc"] for h in t["held"])
    return out


# ---- the lock-order graph ---------------------------------------------------------------
def _sccs(vertices, succ):
    """Tarjan's strongly connected components, iteratively"""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in vertices:
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = None
            for w in it:
                if w not in index:
                    nxt = w
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if nxt is not None:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(succ(nxt))))
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def find_cycles(edges):
    """the cycles of the lock-order graph that can block (see the module's
    doc): [[edge, ...]], each a shortest cycle through its locks, one per
    set of locks"""
    out = collections.defaultdict(list)
    for e in edges:
        if e["from"] != e["to"]:
            out[e["from"]].append(e)

    # vertices: (lock, the mode it was asked for on arrival)
    def moves(v):
        lock, asked = v
        for e in out.get(lock, ()):
            if asked == 1 and e["from_mode"] == 1:
                continue  # held for reading, asked for reading: no wait
            yield (e["to"], e["to_mode"]), e

    def succ(v):
        return [w for w, _ in moves(v)]

    verts = set()
    for e in edges:
        verts.add((e["from"], 0))
        verts.add((e["from"], 1))
        verts.add((e["to"], e["to_mode"]))
    cycles, seen = [], set()
    for comp in _sccs(sorted(verts), succ):
        cs = set(comp)
        if len(comp) < 2 and not any(w == comp[0] for w in succ(comp[0])):
            continue
        for start in sorted(comp):
            # the shortest way back to start inside the component
            prev = {start: None}
            q = collections.deque([start])
            found = None
            while q and found is None:
                v = q.popleft()
                for w, e in moves(v):
                    if w not in cs:
                        continue
                    if w == start:
                        found = (v, e)
                        break
                    if w not in prev:
                        prev[w] = (v, e)
                        q.append(w)
            if found is None:
                continue
            path = [found[1]]
            v = found[0]
            while v != start:
                pv, pe = prev[v]
                path.append(pe)
                v = pv
            path.reverse()
            locks = [e["from"] for e in path]
            if len(set(locks)) != len(locks):
                continue  # through one lock twice: not a simple cycle of locks
            key = frozenset(locks)
            if key in seen:
                continue
            seen.add(key)
            # begin at the lowest lock: the same report every run
            i = locks.index(min(locks))
            cycles.append(path[i:] + path[:i])
            if len(cycles) >= MAX_CYCLES:
                return cycles
    cycles.sort(key=lambda c: (len(c), [e["from"] for e in c]))
    return cycles


def lock_name(namer, addr, kind, gen, first_pc, kinds):
    name = namer.data(addr)
    first = namer.site(first_pc) if first_pc else None
    label = name or "0x%x" % addr
    if not name and first and first.get("function"):
        # a lock on the heap: its address and the function that first took it
        # (the part of its identity that is the same from run to run)
        label += " (first taken in %s)" % first["function"].split("(", 1)[0]
    if gen:
        label += " (instance %d)" % (gen + 1)
    return {"address": "0x%x" % addr, "kind": kinds.get(kind, str(kind)), "name": name,
            "generation": gen, "label": label, "first_used_at": first}


def build(sec, namer, kinds, first_pcs, head):
    """the JSON objects: lock_order, long_holds (None where not tracked)"""
    rep = {}
    if head.get("order") == "1":
        edges = sec.get("edges", [])
        cycles = []
        for c in find_cycles(edges):
            locks = [lock_name(namer, a, k, g, first_pcs.get(a), kinds) for a, k, g in
                     (e["from"] for e in c)]
            es = []
            for j, e in enumerate(c):
                es.append({"from": locks[j]["label"], "to": locks[(j + 1) % len(c)]["label"],
                           "held_mode": MODE[e["from_mode"]], "asked_mode": MODE[e["to_mode"]],
                           "thread": e["tid"], "held_taken_at": namer.site(e["pc_from"]),
                           "taken_at": namer.site(e["pc_to"])})
            cycles.append({"locks": locks, "edges": es,
                           "one_thread": len({e["tid"] for e in c}) == 1})
        nodes = {e["from"] for e in edges} | {e["to"] for e in edges}
        rep["lock_order"] = {"edges": len(edges), "locks": len(nodes), "cycles": cycles,
                             "edges_dropped": int(head.get("edges_dropped", 0)),
                             "threads_untracked": int(head.get("threads_untracked", 0)),
                             "edge_cap": 262144}
    if int(head.get("long_ns", 0) or 0):
        rows = []
        for l in sorted(sec.get("long", []), key=lambda l: -l["total_ns"]):
            ln = lock_name(namer, l["addr"], l["kind"], 0, first_pcs.get(l["addr"]), kinds)
            rows.append({"lock": ln["label"], "address": ln["address"], "kind": ln["kind"],
                         "taken_at": namer.site(l["pc"]), "holds": l["n"],
                         "total_ns": l["total_ns"], "max_ns": l["max_ns"],
                         "waits_begun_meanwhile": l["waiters"]})
        rep["long_holds"] = {"threshold_ns": int(head["long_ns"]), "holds": rows,
                             "dropped": int(head.get("long_dropped", 0))}
    return rep


# ---- the wait-for graph -----------------------------------------------------------------
def wait_for(sec, namer, kinds, first_pcs):
    """who waits for whom: threads, their waits and holders, deadlocks first"""
    threads = sec.get("threads", [])
    holders = collections.defaultdict(list)
    for t in threads:
        for h in t["held"]:
            holders[(h["addr"], h["kind"])].append((t["tid"], h))
    waits = []
    succ = {}
    for t in threads:
        if not t["wait"]:
            continue
        hs = [(tid, h) for tid, h in holders.get((t["wait"], t["wait_kind"]), [])
              if not (t["wait_mode"] == 1 and h["mode"] == 1)]
        ln = lock_name(namer, t["wait"], t["wait_kind"], 0, first_pcs.get(t["wait"]), kinds)
        waits.append({"thread": t["tid"], "lock": ln["label"], "address": ln["address"],
                      "mode": MODE[t["wait_mode"]], "waited_ns": t["waited_ns"],
                      "at": namer.site(t["wait_pc"]),
                      "holders": [{"thread": tid, "mode": MODE[h["mode"]],
                                   "taken_at": namer.site(h["pc"])} for tid, h in hs]})
        succ[t["tid"]] = [tid for tid, _ in hs]
    # cycles of threads: each a deadlock
    cycles, seen = [], set()
    for start in sorted(succ):
        path, pos, v = [], {}, start
        while v in succ and v not in pos:
            pos[v] = len(path)
            path.append(v)
            v = succ[v][0] if succ[v] else None
        if v is not None and v in pos:
            cyc = path[pos[v]:]
            key = frozenset(cyc)
            if key not in seen:
                seen.add(key)
                i = cyc.index(min(cyc))
                cycles.append(cyc[i:] + cyc[:i])
    held = [{"thread": t["tid"], "locks": [
        {"lock": lock_name(namer, h["addr"], h["kind"], 0, first_pcs.get(h["addr"]),
                           kinds)["label"], "mode": MODE[h["mode"]],
         "taken_at": namer.site(h["pc"])} for h in t["held"]]} for t in threads]
    in_cycle = {tid for c in cycles for tid in c}
    waits.sort(key=lambda w: (w["thread"] not in in_cycle, w["thread"]))
    return {"deadlocks": cycles, "waiting": waits, "holding": held}


# ---- text --------------------------------------------------------------------------------
def order_text(lo, site_text):
    out = []
    n = len(lo["cycles"])
    out.append("lock-order inversions (potential deadlocks): %d  [%d locks, %d order edges "
               "seen%s]" % (n, lo["locks"], lo["edges"],
                            "; %d edges beyond the table's %d not kept" % (lo["edges_dropped"],
                                                                           lo["edge_cap"])
                            if lo["edges_dropped"] else ""))
    for i, c in enumerate(lo["cycles"], 1):
        out.append("  inversion %d: %s%s" % (
            i, " -> ".join(l["label"] for l in c["locks"] + c["locks"][:1]),
            "  (every edge by one thread: a deadlock needs this code on two threads)"
            if c["one_thread"] else ""))
        for e in c["edges"]:
            rw = "" if e["held_mode"] == e["asked_mode"] == "write" else \
                " [held for %s, asked for %s]" % (e["held_mode"], e["asked_mode"])
            out.append("    thread %d took %s at %s" % (e["thread"], e["to"],
                                                       site_text(e["taken_at"])))
            out.append("        while holding %s, taken at %s%s" % (
                e["from"], site_text(e["held_taken_at"]), rw))
    return out


def long_text(lh, site_text, top):
    out = ["long holds (over %s): %d call sites" % (fmt_ns(lh["threshold_ns"]), len(lh["holds"]))]
    for r in lh["holds"][:top]:
        out.append("  %-40s %6d holds, %10s in all, max %10s, %d waits begun meanwhile; "
                   "taken at %s" % (r["lock"][:40], r["holds"], fmt_ns(r["total_ns"]),
                                    fmt_ns(r["max_ns"]), r["waits_begun_meanwhile"],
                                    site_text(r["taken_at"])))
    if lh["dropped"]:
        out.append("  (%d long holds beyond the table's 1024 call sites not kept)" % lh["dropped"])
    return out


def hang_text(wf, site_text, when, pid):
    out = ["wait-for graph of pid %d (%s): %d threads waiting for a lock, %d deadlock%s"
           % (pid, when, len(wf["waiting"]), len(wf["deadlocks"]),
              "" if len(wf["deadlocks"]) == 1 else "s")]
    for c in wf["deadlocks"]:
        out.append("  DEADLOCK: " + " -> ".join("thread %d" % t for t in c + c[:1]))
    for w in wf["waiting"]:
        out.append("  thread %d waits %s for %s (%s) at %s" % (
            w["thread"], fmt_ns(w["waited_ns"]), w["lock"], w["mode"], site_text(w["at"])))
        if not w["holders"]:
            out.append("      held by no tracked thread (released meanwhile, or taken by an "
                       "untracked thread)")
        for h in w["holders"]:
            out.append("      held by thread %d (%s), taken at %s" % (
                h["thread"], h["mode"], site_text(h["taken_at"])))
    for t in wf["holding"]:
        if t["locks"]:
            out.append("  thread %d holds: %s" % (t["thread"], "; ".join(
                "%s (taken at %s)" % (l["lock"], site_text(l["taken_at"])) for l in t["locks"])))
    return out


fmt_ns = clof_common.fmt_ns
