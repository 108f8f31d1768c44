#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every lock name is verifiable by that name (docs/verification.md,
"Verifying a lock by its name").

Takes every name `clof locks` prints -- the basic, peer, NUMA and RW locks
with their aliases, each composition part in a composition (PART-tkt) -- and
a few compositions and layers, and runs `clof verify --lock NAME --model sc
--quick` for each.  A lock of clof must exit 0 and end with one verdict line
"CANON: verified under sc, ... (N clients: A, B, ...)" whose clients are
exactly the ones the run printed, and must include what covers it (a
composition: each part's basic client, the induction step clof.ticket+ticket
and clof.<part>+ticket for each level below the top; a layer: its clients).
A peer (pthread, ck-*, vsync-*, pthread-rwlock) must exit 2 saying it is not
clof's; a layer over a peer runs the layer and names the peer as not
verified; a layer over the wrong kind of lock (bravo: over a mutex) exits 2.

    lock_names.py CLOF       CLOF: build/bin/clof
"""
import os
import re
import subprocess
import sys
import time

CLOF = sys.argv[1]
failures = []
# each composition part's basic lock, as the registry declares it
PART_LOCK = dict(line.split()[:2] for line in subprocess.run(
    [os.path.join(os.path.dirname(CLOF), "clof-lockname"), "parts"], stdout=subprocess.PIPE, text=True,
    check=True).stdout.splitlines())


def check(ok, what):
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def run(argv):
    return subprocess.run([CLOF] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)


def listed():
    """the names `clof locks` prints: {name: family}, aliases included, and
    the composition parts"""
    r = run(["locks"])
    check(r.returncode == 0, "clof locks exits 0")
    names, parts, fam = {}, [], None
    for line in r.stdout.splitlines():
        m = re.match(r"^(\w[\w-]*): ", line)
        if m:
            fam = m.group(1)
            continue
        if not line.startswith("  "):
            continue
        words = line.split()
        also = re.search(r"\(also: ([^)]*)\)", line)
        aliases = also.group(1).split() if also else []
        if words[0] == "part":
            parts.append(words[1])
            continue
        if "<" in words[0] or words[0] == "e.g.":
            continue
        for n in [words[0]] + aliases:
            names[n] = fam
    return names, parts


def canon_of(names):
    r = run(["locks", "--canon"] + names)
    out = r.stdout.split()
    check(r.returncode == 0 and len(out) == len(names),
          "clof locks --canon takes all %d names" % len(names))
    return dict(zip(names, out))


def must_cover(canon):
    """clients the verdict of canon must name (a lower bound)"""
    want = []
    while ":" in canon:
        layer, canon = canon.split(":", 1)
        want.append({"cr": "cr.mcs", "asl": "asl.mcs", "rw": "rw.cohort.rp",
                     "bravo": "rw.bravo.central"}[layer])
    if "-" in canon and not re.match(r"^(a-)?c-|^rw-|^ck-|^vsync-|^pthread", canon):
        ps = [PART_LOCK.get(p, p) for p in canon.split("-")]
        want += ps + ["clof.ticket+ticket"] + ["clof.%s+ticket" % p for p in ps[:-1]]
    elif canon == "hmcs":
        want += ["hmcs3", "hmcs2"]
    elif canon == "rw-central":
        want += ["rw.central"]
    elif canon not in ("pthread", "pthread-rwlock") and not canon.startswith(("ck-", "vsync-")):
        want.append(canon)
    return list(dict.fromkeys(want))


def verify_ok(name, canon, peer_inside=False):
    r = run(["verify", "--lock", name, "--model", "sc", "--quick"])
    lines = r.stdout.strip().splitlines()
    last = lines[-1] if lines else ""
    ran = [l.split()[0] for l in lines if re.match(r"^\S+\s+sc\s+(verified|VIOLATED|ERROR)", l)]
    m = re.match(r"^(\S+): %sverified under sc, .*\((\d+) clients?: ([^)]*)\)$"
                 % ("clof's part " if peer_inside else ""), last)
    named = [c.strip() for c in m.group(3).split(",")] if m else []
    check(r.returncode == 0 and m is not None and m.group(1) == canon,
          "clof verify --lock %s: exit 0, verdict line of %s: %s%s"
          % (name, canon, last[-300:], r.stderr.strip()[-200:]))
    check(m is not None and sorted(named) == sorted(ran) and int(m.group(2)) == len(ran),
          "clof verify --lock %s: the verdict names the %d clients it ran" % (name, len(ran)))
    missing = [c for c in must_cover(canon) if c not in named]
    check(not missing, "clof verify --lock %s: covered by %s (missing: %s)"
          % (name, ", ".join(must_cover(canon)), missing))
    if peer_inside:
        check("not clof's, not verified" in last, "clof verify --lock %s: names the peer as not "
              "verified: %s" % (name, last[-200:]))


def main():
    t0 = time.time()
    names, parts = listed()
    check(len(names) >= 20 and len(parts) >= 5,
          "clof locks lists %d names, %d parts" % (len(names), len(parts)))
    extra = (["%s-tkt" % p for p in parts] +
             ["tkt-mcs", "mcs-mcs-tkt", "tkt-mcs-clh", "tkt-mcs-clh-hem", "tkt-tkt-tkt",
              "mcs-clh-tkt", "clof:Ticket-MCS", "cr:tkt-mcs", "asl:mcs", "cr:hmcs",
              "asl:clof:mcs-tkt", "rw:tkt-mcs", "rw:hmcs", "bravo:rw-central", "bravo:rw:mcs"])
    allnames = list(names) + extra
    canon = canon_of(allnames + ["cr:pthread", "bravo:mcs"])
    for n in allnames:
        if names.get(n) == "peer" or canon[n] == "pthread-rwlock":
            r = run(["verify", "--lock", n, "--model", "sc", "--quick"])
            check(r.returncode == 2 and "not a lock of clof" in r.stderr,
                  "clof verify --lock %s (a peer): exit 2, not clof's: %s"
                  % (n, r.stderr.strip()[-200:]))
        else:
            verify_ok(n, canon[n])
    # a layer over a peer: the layer verified, the peer named as not
    verify_ok("cr:pthread", canon["cr:pthread"], peer_inside=True)
    # BRAVO over a mutex is no lock
    r = run(["verify", "--lock", "bravo:mcs", "--model", "sc"])
    check(r.returncode == 2 and "goes over an RW lock" in r.stderr,
          "clof verify --lock bravo:mcs: exit 2, BRAVO goes over an RW lock: %s"
          % r.stderr.strip()[-200:])
    # one verdict per lock name: a failing client beside it fails the run
    # (exit 1) but not the lock's verdict
    r = run(["verify", "--lock", "tkt-mcs", "--lock", "swapped.ticket+mcs", "--model", "sc"])
    check(r.returncode == 1 and re.search(r"^tkt-mcs: verified under sc", r.stdout, re.M),
          "clof verify --lock tkt-mcs --lock swapped.ticket+mcs: exit 1, tkt-mcs verified")
    print("%d names in %.1f s" % (len(allnames) + 2, time.time() - t0))
    if failures:
        print("%d FAILED" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
