#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kyoto Cabinet's kccachetest (Debian kyotocabinet-utils) with its
# pthread rwlocks through libclof-preload.so (CLOF_RWLOCK) against glibc's
# rwlocks (CLOF_RWLOCK=glibc; the mutexes are the library's in both, the
# default CLOF_LOCK), T = 1..4 threads, 1000000/T records per thread,
# REPS interleaved repeats, median wall time; every run must print `ok`
# (kccachetest checks its records).
# usage: bench/preload/rw_kc.sh [--lib FILE] [--locks "a b"] [--reps N] [--threads "1 2 3 4"]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
lib="$root/build/lib/libclof-preload.so"; locks="rw-central rw:hmcs"; reps=3; threads="1 2 3 4"
while [ $# -gt 0 ]; do
  case "$1" in
    --lib) lib="$2"; shift 2 ;; --locks) locks="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;; --threads) threads="$2"; shift 2 ;;
    *) echo "rw_kc.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v kccachetest >/dev/null || { echo "rw_kc.sh: kccachetest not installed (kyotocabinet-utils)" >&2; exit 77; }
declare -A res
for rep in $(seq "$reps"); do
  for t in $threads; do
    for l in glibc $locks; do
      s=$(date +%s.%N)
      out=$(env LD_PRELOAD="$lib" CLOF_RWLOCK="$l" kccachetest wicked -th "$t" -it 1 $((1000000 / t)) 2>&1)
      e=$(date +%s.%N)
      echo "$out" | tail -1 | grep -qx ok || { echo "rw_kc.sh: $l T=$t: kccachetest did not say ok" >&2; exit 1; }
      res[$l,$t]="${res[$l,$t]:-} $(echo "$e - $s" | bc -l)"
    done
  done
done
med() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "kccachetest wicked, median wall time of $reps interleaved runs (s; glibc's time / this one's: > 1 is faster):"
printf "| rwlock |"; for t in $threads; do printf " T=%s |" "$t"; done; echo
printf "| --- |"; for t in $threads; do printf " ---: |"; done; echo
for l in glibc $locks; do
  printf "| %s |" "$l"
  for t in $threads; do
    m=$(echo "${res[$l,$t]}" | med); g=$(echo "${res[glibc,$t]}" | med)
    printf " %.2f (%.2f) |" "$m" "$(echo "$g / $m" | bc -l)"
  done
  echo
done
