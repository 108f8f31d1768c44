#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The language runtimes of tests/runtimes over libclof-preload.so, each lock
# against glibc, interleaved: perl ithreads (ithreads.pl: 8 threads, a shared
# counter under lock() and a cond_wait queue), the JVM (Locks.java) and
# node's libuv pool (uvpool.js).  The figure is runs per second of the whole
# program (1 / its wall time; higher is better), every run checking its own
# results (a failed check is recorded as not ok).  For each repeat and
# program, glibc and every lock run once, in an order shuffled per (seed,
# repeat, program).  Writes JSON lines for bench/preload/summarize.py and
# prints its tables (with --ci 0.9 from 6 repeats on).
#
# usage: bench/preload/runtimes.sh [--lib FILE] [--locks "mcs cr:mcs tas asl:mcs"]
#          [--programs "perl java node"] [--repeats 6] [--seed 1] [--out FILE]
# The locks run with the environment of the outside suites' settings
# (tests/preload/suite_lib.sh: emulated NUMA for the NUMA locks, cr: with
# CLOF_CR_ACTIVE=1, asl: over big and little cores).  The threads column
# of the tables is the programs' own thread count (8).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=$root/build/lib/libclof-preload.so
locks="mcs cr:mcs tas asl:mcs"
programs="perl java node"
repeats=6 seed=1 out=""
cmdline="$0 $*"
while [ $# -gt 0 ]; do
  case $1 in
    --lib) lib=$2; shift 2 ;;
    --locks) locks=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) sed -n 13,18p "$0" >&2; exit 2 ;;
  esac
done
[ -f "$lib" ] || { echo "runtimes.sh: no preload library at $lib (build first)" >&2; exit 2; }
lib=$(realpath "$lib")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the launchers of the installed runtimes (tests/runtimes/runtimes_suite.sh)
"$root/tests/runtimes/runtimes_suite.sh" build "$work" >/dev/null ||
  { echo "runtimes.sh: no runtime installed" >&2; exit 2; }
SUITE=runtimes.sh
# shellcheck source=../../tests/preload/suite_lib.sh
. "$root/tests/preload/suite_lib.sh"
mkdir -p "$root/build/results"
[ -n "$out" ] || out=$root/build/results/preload-runtimes-$(date +%Y%m%d-%H%M%S).jsonl
: >"$out"
python3 -c 'import json,sys; print(json.dumps({"type": "meta", "driver": "bench/preload/runtimes.sh",
  "cmdline": sys.argv[1], "machine": sys.argv[2]}))' "$cmdline" "$(uname -srm), $(nproc) cpus" >>"$out"
for r in $(seq 1 "$repeats"); do
  for p in $programs; do
    grep -qx "$p" "$work/list" || continue
    # shuffled per (seed, repeat, program)
    order=$(printf '%s\n' glibc $locks | python3 -c 'import random,sys
rng = random.Random(sys.argv[1]); l = sys.stdin.read().split(); rng.shuffle(l); print(" ".join(l))' "$seed-$r-$p")
    for l in $order; do
      env=$(setting_env "$l")
      pre=()
      [ "$l" = glibc ] || pre=(LD_PRELOAD="$lib")
      t0=$(date +%s.%N)
      ok=1
      # shellcheck disable=SC2086
      (cd "$work" && env $env "${pre[@]}" timeout 300 "$work/bin/$p") >"$work/out" 2>&1 </dev/null || ok=0
      t1=$(date +%s.%N)
      grep -q '^ok' "$work/out" || ok=0
      python3 -c 'import json,sys; p,l,r,ok,t0,t1,ld=sys.argv[1:]
w = float(t1) - float(t0)
print(json.dumps({"program": p, "lock": l, "threads": 8, "repeat": int(r), "ok": ok == "1",
                  "value": 1 / w, "wall_s": w, "loadavg_1min": float(ld)}))' \
        "$p" "$l" "$r" "$ok" "$t0" "$t1" "$(cut -d' ' -f1 /proc/loadavg)" >>"$out"
    done
  done
done
echo "results: $out"
ci=()
[ "$repeats" -ge 6 ] && ci=(--ci 0.9)
python3 "$here/summarize.py" "$out" "${ci[@]}"
