#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The concurrency-restriction layer (cr:<lock>, include/clof/cr.h) through
# libclof-preload.so: oversubscribed throughput against glibc AND against
# the plain lock, then fairness at the largest thread count.
#
# 1. bench/preload/oversub.sh over the plain locks and their cr: versions
#    (interleaved: every lock and glibc once per (repeat, T), shuffled);
#    then, per T, the median of the per-repeat ratios cr:<lock> / glibc
#    and cr:<lock> / <lock> (runs of the same round, seconds apart).
# 2. Fairness: pl_mutexbench --wait at T = the largest thread count for
#    FAIR seconds, glibc, the plain locks and their cr: versions, one after
#    the other: each thread's share of the acquisitions (min and max over
#    the mean), the relative standard deviation, and the lock() wait P50 /
#    P99.9 / max.
# Results: BUILD/results/preload-cr-<date>.md (+ .jsonl of each part).
#
# usage: bench/preload/cr.sh [--bin DIR] [--lib FILE] [--threads "2 4 8 16"]
#          [--repeats 3] [--duration 1] [--fair 10] [--locks "mcs ticket .."]
#          [--no-fair] [--no-oversub] [--driver pl_lockloop [--iters N]]
# --locks names the plain locks; their cr: versions are added.  Default:
# mcs ticket clh hmcs cna clof:tkt-mcs, about 8 minutes.
# --driver pl_lockloop: the throughput part on the second harness
# (oversub.sh --driver: fixed pairs per thread, nothing outside the
# critical section); the fairness part stays pl_mutexbench --wait.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cmdline="$0"; for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
bin="${CLOF_BIN:-$root/build/bin}"
lib=""
threads="2 4 8 16"
repeats=3
duration=1
fair=10
locks="mcs ticket clh hmcs cna clof:tkt-mcs"
do_fair=1
do_over=1
driver=(); # oversub.sh's --driver/--iters, passed on
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --fair) fair="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --no-fair) do_fair=0; shift ;;
    --no-oversub) do_over=0; shift ;;
    --driver|--iters) driver+=("$1" "$2"); shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "cr.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$lib" ] || lib="$(dirname "$bin")/lib/libclof-preload.so"
[ -f "$lib" ] || { echo "cr.sh: $lib not found (build first)" >&2; exit 2; }
drv="$bin/pl_mutexbench"
[ -x "$drv" ] || { echo "cr.sh: $drv not found (build first)" >&2; exit 2; }
res="${CLOF_RESULTS:-$(dirname "$bin")/results}"
mkdir -p "$res"
stamp="$(date +%Y%m%d-%H%M%S)"
all=""
for l in $locks; do all="$all $l cr:$l"; done
md="$res/preload-cr-$stamp.md"
{
  echo "# cr:<lock> through the preload library ($stamp)"
  echo
  echo "- Command: \`$cmdline\`"
  echo "- Machine: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr) / clof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?)"
} >"$md"

if [ "$do_over" = 1 ]; then
  over="$res/preload-cr-$stamp-oversub.jsonl"
  bash "$root/bench/preload/oversub.sh" --bin "$bin" --lib "$lib" --threads "$threads" \
    --repeats "$repeats" --duration "$duration" --locks "$all" --out "$over" "${driver[@]}" >/dev/null
  python3 "$root/bench/preload/cr_summary.py" oversub "$over" >>"$md"
fi

if [ "$do_fair" = 1 ]; then
  tmax="$(tr ' ' '\n' <<<"$threads" | sort -n | tail -1)"
  fj="$res/preload-cr-$stamp-fair.jsonl"
  : >"$fj"
  for l in glibc $all; do
    pre=()
    [ "$l" = glibc ] || pre=(env LD_PRELOAD="$lib" CLOF_LOCK="$l")
    load="$(cut -d' ' -f1 /proc/loadavg)"
    timeout $((fair * 3 + 60)) "${pre[@]}" "$drv" --threads "$tmax" --duration "$fair" \
      --wait --label "load=$load" >>"$fj" || echo "cr.sh: $l failed" >&2
  done
  python3 "$root/bench/preload/cr_summary.py" fair "$fj" "$tmax" "$fair" >>"$md"
fi
cat "$md"
echo "cr.sh: wrote $md" >&2
