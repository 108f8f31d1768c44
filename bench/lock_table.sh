#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The measured columns of the table of every lock (docs/locks.md, "Every
# lock, measured"): for every basic lock of the registry, HMCS, CNA, glibc's
# mutex and glibc's adaptive mutex,
#   callgrind.csv  uncontended instructions per acquire+release pair
#                  (bench/callgrind.sh: callgrind, one thread; deterministic)
#   oversub.jsonl  clof-bench throughput at T = 2 and 16 against glibc's
#                  mutex, interleaved repeats (bench/oversub.sh)
#   sim.jsonl      SIMULATED throughput at 128 threads on a shipped profile,
#                  seeds 1-3 (clof-bench --simulate; not for glibc's
#                  mutexes, which the simulator cannot run)
# written to OUT (default docs/data/lock-table).  docs/data/make_lock_table.py
# then writes the table into docs/locks.md from them and from the registry.
#
# usage: bench/lock_table.sh [--bin DIR] [--out DIR] [--repeats R]
#                            [--duration S] [--profile P]
#   --bin DIR      where clof-bench, clof-uncontended and clof-lockname are
#                  (default build/bin, or $CLOF_BIN)
#   --out DIR      where the three files go (default docs/data/lock-table)
#   --repeats R    repeats of the contended runs (default 6)
#   --duration S   seconds per contended run (default 0.5)
#   --profile P    the simulated machine (default kunpeng920)
# About 8 minutes on a 2-vCPU VM.  The contended runs want a quiet machine;
# callgrind and the simulator are deterministic.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CLOF_BIN:-$root/build/bin}"
out="$root/docs/data/lock-table"
repeats=6
duration=0.5
profile=kunpeng920
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "lock_table.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
for t in clof-bench clof-uncontended clof-lockname; do
  [ -x "$bin/$t" ] || { echo "lock_table.sh: $bin/$t not found; build first (README.md)" >&2; exit 2; }
done
mkdir -p "$out"
basic="$("$bin/clof-lockname" names --family basic | tr '\n' ' ')"
simulated="$basic hmcs cna"

echo "lock_table.sh: callgrind -> $out/callgrind.csv" >&2
"$root/bench/callgrind.sh" --bin "$bin" --locks "$basic hmcs cna pthread glibc-adaptive" \
  --out "$out/callgrind.csv" >/dev/null
echo "lock_table.sh: contended, T = 2 and 16 -> $out/oversub.jsonl" >&2
"$root/bench/oversub.sh" --bin "$bin" --threads "2 16" --repeats "$repeats" \
  --duration "$duration" --locks "$basic hmcs cna glibc-adaptive" \
  --out "$out/oversub.jsonl" >/dev/null
rm -f "$out/oversub.md"
echo "lock_table.sh: SIMULATED, $profile, 128 threads -> $out/sim.jsonl" >&2
{
  printf '{"type": "meta", "driver": "bench/lock_table.sh", "profile": "%s", "threads": 128, "seeds": [1, 2, 3], "date": "%s"}\n' \
    "$profile" "$(date +%Y-%m-%dT%H:%M:%S%z)"
  for l in $simulated; do
    for s in 1 2 3; do
      "$bin/clof-bench" --simulate "$profile" --lock "$l" --threads 128 --duration 1 \
        --seed "$s" --json 2>/dev/null | sed "s/^{/{\"seed\": $s, /"
    done
  done
} > "$out/sim.jsonl"
echo "lock_table.sh: now run docs/data/make_lock_table.py" >&2
