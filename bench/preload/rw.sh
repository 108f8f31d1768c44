#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pthread_rwlock_t through libclof-preload.so against glibc's (docs/rwlocks.md).
#   1. uncontended rdlock+unlock and wrlock+unlock pairs, callgrind
#      instructions per pair: (Ir(N) - Ir(0)) / N, as callgrind.sh does;
#   2. T = 2 4 8 16 threads at P% reads (default 90), REPS interleaved
#      repeats of MS ms each (glibc, then every rwlock, then again), medians
#      of ops/s and their ratio to glibc's.
# usage: bench/preload/rw.sh [--bin DIR] [--lib FILE] [--locks "a b"] [--reps N]
#                            [--ms MS] [--pct P] [--threads "2 4 8 16"] [--no-callgrind]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"; lib="$root/build/lib/libclof-preload.so"
locks="rw-central rw:tas rw:mcs rw:c-bo-mcs rw:hmcs bravo:rw-central bravo:rw:c-bo-mcs"
reps=5; ms=300; pct=90; threads="2 4 8 16"; cg=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;; --lib) lib="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;; --reps) reps="$2"; shift 2 ;;
    --ms) ms="$2"; shift 2 ;; --pct) pct="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;; --no-callgrind) cg=0; shift ;;
    *) echo "rw.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
prog="$bin/pl_rwbench"
ir() { # rwlock op n -> instructions
  local f; f=$(mktemp)
  env -i CLOF_RWLOCK="$1" CLOF_EMULATE=numa:2,core:2 LD_PRELOAD="$lib" setarch -R \
    valgrind --tool=callgrind --callgrind-out-file="$f" "$prog" "$2" "$3" >/dev/null 2>&1
  callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
  rm -f "$f"
}
if [ "$cg" = 1 ]; then
  n=100000
  echo "| rwlock | rdlock+unlock (instr.) | wrlock+unlock (instr.) |"
  echo "| --- | ---: | ---: |"
  for l in glibc $locks; do
    r0=$(ir "$l" rd 0); r1=$(ir "$l" rd $n); w0=$(ir "$l" wr 0); w1=$(ir "$l" wr $n)
    echo "| $l | $(( (r1 - r0) / n )) | $(( (w1 - w0) / n )) |"
  done
fi
declare -A res
for rep in $(seq "$reps"); do
  for t in $threads; do
    for l in glibc $locks; do
      v=$(env CLOF_RWLOCK="$l" LD_PRELOAD="$lib" "$prog" mix "$t" "$pct" "$ms" | sed 's/.*ops_per_s=//')
      res[$l,$t]="${res[$l,$t]:-} $v"
    done
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
echo "$pct% reads, medians of $reps interleaved runs of $ms ms (ops/s; ratio to glibc):"
printf "| rwlock |"; for t in $threads; do printf " T=%s |" "$t"; done; echo
printf "| --- |"; for t in $threads; do printf " ---: |"; done; echo
for l in glibc $locks; do
  printf "| %s |" "$l"
  for t in $threads; do
    m=$(echo "${res[$l,$t]}" | med); g=$(echo "${res[glibc,$t]}" | med)
    printf " %s (%.2f) |" "$m" "$(echo "$m / $g" | bc -l)"
  done
  echo
done
