#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scaling on a machine with many cpus (the development machine has 2 vCPUs):
# one command that builds what it needs and runs three existing benchmarks
# with thread counts taken from the machine's cpu count N.
#
#   1. bench/oversub.sh (native clof-bench, every lock of --locks and
#      pthread once per (repeat, T) in a shuffled order; 2 cache lines
#      inside, ~100 ns outside, --duration s a run) at T = 1 2 4 8 .. N:
#      its summary, medians and ratios to pthread;
#   2. bench/preload/cr.sh at T = N, 2N, 4N (oversubscribed: the issue
#      #19 question on a real many-cpu machine), fairness at 4N;
#   3. bench/preload/rw.sh at T = 2 4 .. N, 90% reads, no callgrind.
#
# The machine's description (cpu model, cpus, NUMA nodes from sysfs, the
# topology clof reads) heads the results.  Everything goes to DIR
# (default build-many/results): many-cpus-<date>.md plus the .jsonl /
# .md files of the parts.
#
# usage: bench/many_cpus.sh [--out DIR] [--build DIR] [--duration S]
#          [--repeats R] [--locks "tas ttas .."] [--no-native] [--no-cr] [--no-rw]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-many"; out=""; duration=0.5; repeats=2
locks=""  # default: the registry's basic locks (clof-lockname), hmcs cna c-bo-mcs
do_native=1; do_cr=1; do_rw=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --no-native) do_native=0; shift ;;
    --no-cr) do_cr=0; shift ;;
    --no-rw) do_rw=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "many_cpus.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out="$build/results"
mkdir -p "$out"
n="$(getconf _NPROCESSORS_ONLN)"
stamp="$(date +%Y%m%d-%H%M%S)"
md="$out/many-cpus-$stamp.md"

# CLOF_CK_INCLUDE_DIR: Concurrency Kit's headers (clof-bench's peers) where
# libck-dev cannot be installed
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  ${CLOF_CK_INCLUDE_DIR:+-DCLOF_CK_INCLUDE_DIR="$CLOF_CK_INCLUDE_DIR"} >/dev/null
cmake --build "$build" -j"$n" --target clof-bench clof-topology clof-lockname clof_preload pl_mutexbench pl_rwbench >/dev/null
bin="$build/bin"
[ -n "$locks" ] || locks="$("$bin/clof-lockname" names --family basic | tr '\n' ' ')hmcs cna c-bo-mcs"

ts="1"; t=2; while [ "$t" -lt "$n" ]; do ts="$ts $t"; t=$((t * 2)); done; ts="$ts $n"
rts="$n"; t=2; while [ "$t" -lt "$n" ]; do rts="${rts%"$n"}$t $n"; t=$((t * 2)); done
{
  echo "# clof on a machine with $n cpus ($stamp)"
  echo
  echo "- Command: \`bench/many_cpus.sh $*\`"
  echo "- Machine: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $n cpus / $(uname -sr)"
  echo "- NUMA nodes (sysfs): $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
  echo "- Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo '```'
  "$bin/clof-topology" 2>&1 | head -20 || true
  echo '```'
} >"$md"

if [ "$do_native" = 1 ]; then
  nj="$out/many-cpus-$stamp-native.jsonl"
  {
    echo
    echo "## Native clof-bench: bench/oversub.sh at T = $ts, $repeats repeats of $duration s"
    echo
    bash "$root/bench/oversub.sh" --bin "$bin" --threads "$ts" --repeats "$repeats" \
      --duration "$duration" --locks "$locks" --out "$nj" 2>/dev/null
  } >>"$md"
fi

if [ "$do_cr" = 1 ]; then
  {
    echo
    echo "## Oversubscribed through the preload library: bench/preload/cr.sh at T = $n, $((2 * n)), $((4 * n))"
    echo
    CLOF_RESULTS="$out" bash "$root/bench/preload/cr.sh" --bin "$bin" \
      --threads "$n $((2 * n)) $((4 * n))" --repeats 3 --duration 1 --fair 5 \
      --locks "mcs ticket hmcs cna" 2>/dev/null | sed 1,4d
  } >>"$md"
fi

if [ "$do_rw" = 1 ]; then
  {
    echo
    echo "## pthread_rwlock through the preload library, 90% reads: bench/preload/rw.sh at T = $rts"
    echo
    bash "$root/bench/preload/rw.sh" --bin "$bin" --lib "$build/lib/libclof-preload.so" \
      --no-callgrind --threads "$rts" --reps 3 2>&1
  } >>"$md"
fi
cat "$md"
