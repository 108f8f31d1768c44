#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of one epoch pair, clof_epoch_start + clof_epoch_end on a little
# core (the full path: the window is adjusted), LibASL paper §3.4 (~93
# cycles).  Two figures:
#   - callgrind: user-space instructions per pair, counted inside run_pairs()
#     only (--toggle-collect), (Ir(N) - Ir(N/10)) / (0.9 N): deterministic,
#     comparable across machines (valgrind does not run the vDSO clock: the
#     clock reads' own instructions are not in this figure);
#   - native: TSC cycles and ns per pair (median of 5 runs), which include the
#     two clock reads (clock_gettime; about 140 ns each on the 2-vCPU test VM,
#     see docs/asl.md).
# usage: bench/asl_epoch_cost.sh [--bin DIR] [--iters N] [--out FILE]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build/bin"
iters=200000
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2;;
    --iters) iters="$2"; shift 2;;
    --out) out="$2"; shift 2;;
    -h|--help) sed -n '2,14p' "$0"; exit 0;;
    *) echo "asl_epoch_cost.sh: unknown argument '$1' (expected --bin DIR, --iters N, --out FILE)" >&2; exit 2;;
  esac
done
case "$iters" in ''|*[!0-9]*) echo "asl_epoch_cost.sh: --iters must be a positive integer" >&2; exit 2;; esac
[ "$iters" -ge 10 ] || { echo "asl_epoch_cost.sh: --iters must be at least 10" >&2; exit 2; }
prog="$bin/clof-asl-epoch-cost"
[ -x "$prog" ] || { echo "asl_epoch_cost.sh: $prog not found: build first" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "asl_epoch_cost.sh: valgrind missing (scripts/deps.sh)" >&2; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
ir() { # pairs -> Ir inside run_pairs
  valgrind --tool=callgrind --toggle-collect=run_pairs --callgrind-out-file="$tmp/cg.$1" \
    "$prog" "$1" >/dev/null 2>"$tmp/log.$1"
  awk '/^summary:|^totals:/ {print $2; exit}' "$tmp/cg.$1"
}
small=$((iters / 10))
a="$(ir "$small")"; b="$(ir "$iters")"
per="$(awk -v a="$a" -v b="$b" -v n="$((iters - small))" 'BEGIN {printf "%.1f", (b - a) / n}')"
nat=()
for i in 1 2 3 4 5; do nat+=("$("$prog" 1000000)"); done
line="$(printf '%s\n' "${nat[@]}" | /usr/bin/python3 -c '
import json, statistics, sys
r = [json.loads(l) for l in sys.stdin if l.strip()]
print("%.1f %.1f" % (statistics.median(x["tsc_cycles_per_pair"] for x in r),
                     statistics.median(x["ns_per_pair"] for x in r)))')"
cyc="${line% *}"; ns="${line#* }"
load="$(cut -d' ' -f1 /proc/loadavg)"
cpu="$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
json="{\"bench\":\"asl-epoch-cost\",\"callgrind_ir_per_pair\":$per,\"tsc_cycles_per_pair_median\":$cyc,\"ns_per_pair_median\":$ns,\"loadavg_1min\":$load,\"cpu\":\"$cpu\",\"date\":\"$(date -u +%FT%TZ)\"}"
echo "epoch pair: $per instructions (callgrind, without the clock reads' vDSO code); $cyc TSC cycles = $ns ns natively (median of 5, with the clock reads; load $load, $cpu)"
[ -z "$out" ] || echo "$json" >> "$out"
