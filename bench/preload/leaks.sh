#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The leak table: resident growth of tests/preload/pl_leak (10^5 mutexes and
# condition variables created, contended and destroyed, 10^3 threads) under
# every lock of libclof-preload.so.
#
# usage: bench/preload/leaks.sh [--bin DIR] [--lib FILE] [--locks "a b .."]
#                               [--rounds R] [--threads T] [--bound-kib K] [--out FILE]
#   --bin DIR     where pl_leak is (default build/bin)
#   --lib FILE    the preload library (default build/lib/libclof-preload.so)
#   --locks L     locks (default: every basic and NUMA lock, the 80 CLoF
#                 compositions, asl: over every basic and NUMA lock and over
#                 clof:clh-mcs-tkt and clof:tkt-mcs-clh)
#   --rounds R, --threads T, --bound-kib K: passed to pl_leak (defaults
#                 100000, 1000, 4096)
#   --out FILE    Markdown table (default $CLOF_RESULTS or build/results/preload-leaks-<date>.md)
# The hierarchical locks run over CLOF_EMULATE=numa:2,cache:2,core:2, the
# asl: locks over tests/preload/asl-3level.topo.  Growth is the resident
# size at the end minus after 10% of the rounds (KiB); a lock fails when it
# is over the bound.  Exit 1 if any lock failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"; lib="$root/build/lib/libclof-preload.so"
locks=""; rounds=100000; threads=1000; bound=4096
out="${CLOF_RESULTS:-$root/build/results}/preload-leaks-$(date -u +%Y%m%d-%H%M%S).md"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --bound-kib) bound="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "leaks.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$bin/pl_leak" ] || { echo "leaks.sh: $bin/pl_leak not built (cmake --build build --target pl_leak)" >&2; exit 2; }
[ -f "$lib" ] || { echo "leaks.sh: no preload library at $lib" >&2; exit 2; }
if [ -z "$locks" ]; then
  base="$("$bin/clof-lockname" names --family basic | tr '\n' ' ')hmcs cna c-bo-mcs c-tkt-tkt c-ptl-tkt a-c-bo-bo a-c-bo-clh"
  comps=""
  for a in tkt mcs clh hem; do for b in tkt mcs clh hem; do
    comps="$comps clof:$a-$b"
    for c in tkt mcs clh hem; do comps="$comps clof:$a-$b-$c"; done
  done; done
  asl=""
  for l in $base clof:clh-mcs-tkt clof:tkt-mcs-clh; do asl="$asl asl:$l"; done
  locks="$base $comps $asl"
fi
mkdir -p "$(dirname "$out")"
{
  echo "# pl_leak: $rounds mutex + condvar lifetimes, $threads threads, per lock"
  echo
  echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u +%FT%TZ), $(nproc) cpus, $(uname -r)"
  echo
  echo "| lock | resident at start (KiB) | after 10% (KiB) | at end (KiB) | growth (KiB) | result |"
  echo "| --- | ---: | ---: | ---: | ---: | --- |"
} >"$out"
fails=0
for l in $locks; do
  emu="numa:2,cache:2,core:2"
  case "$l" in asl:*) emu="$root/tests/preload/asl-3level.topo" ;; esac
  line="$(LD_PRELOAD="$lib" CLOF_LOCK="$l" CLOF_EMULATE="$emu" CLOF_ALLOW_WITHDRAWN=1 timeout 300 \
          "$bin/pl_leak" --rounds "$rounds" --threads "$threads" --bound-kib "$bound" 2>&1)"
  rc=$?
  v() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$line" | head -1; }
  res=pass
  if [ $rc -ne 0 ]; then res="FAIL (rc $rc): $(tail -1 <<<"$line" | cut -c1-120)"; fails=$((fails + 1)); fi
  printf '| %s | %s | %s | %s | %s | %s |\n' "$l" "$(v start)" "$(v warm)" "$(v end)" "$(v growth)" "$res" | tee -a "$out"
done
echo "table: $out"
[ $fails -eq 0 ]
