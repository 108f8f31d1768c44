#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Handover locality per level on an EMULATED machine (issue 4): for each lock,
# the fraction of handovers whose previous and next owner share a cohort of
# each level, and the longest run of acquisitions inside one cohort.  These
# fractions depend on the lock's policy, not on this machine's speed; the
# throughput column is from this (2-vCPU) machine and is only indicative.
#
# usage: bench/locality.sh [--bin DIR] [--shape SHAPE] [--threads N]
#                          [--duration S] [--locks "a b .."] [--non-cs NS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build/bin"
shape="package:2,numa:2,cache:2,core:4"
threads=32
duration=2
noncs=200
locks="mcs ticket clh hemlock hmcs cna c-bo-mcs c-tkt-tkt c-ptl-tkt tkt-tkt-tkt-tkt mcs-mcs-mcs-mcs hem-hem-mcs-clh tkt-mcs-clh-hem clh-clh-tkt-mcs"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --shape) shape="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --non-cs) noncs="$2"; shift 2 ;;
    *) echo "locality.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
res="${CLOF_RESULTS:-$(dirname "$bin")/results}"
out="$res/locality-$(date +%Y%m%d-%H%M%S).jsonl"
mkdir -p "$res"
for l in $locks; do
  "$bin/clof-bench" --lock "$l" --threads "$threads" --duration "$duration" \
    --emulate "$shape" --non-cs "$noncs" --json >> "$out"
done
python3 - "$out" "$shape" "$threads" "$*" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
levels = recs[0]["topology"]["levels"][:-1]
print("Emulated machine `%s` (%d virtual cpus), %s threads, packed placement; "
      "measured on %s, %d cpus." % (sys.argv[2], recs[0]["topology"]["cpus"], sys.argv[3],
      recs[0]["machine"]["cpu_model"], recs[0]["machine"]["cpus_online"]))
print()
print("| lock | " + " | ".join("local@%s" % l for l in levels) + " | " +
      " | ".join("streak@%s" % l for l in levels) + " | Mops/s (this VM) |")
print("|---|" + "---:|" * (2 * len(levels) + 1))
for r in recs:
    hl = r["handover_local"]; st = r["local_streak_max"]
    print("| %s | %s | %s | %.3f |" % (r["lock"],
          " | ".join("%.3f" % hl[l] for l in levels),
          " | ".join("%d" % st[l] for l in levels), r["ops_per_s"] / 1e6))
print()
print("Raw records: %s" % sys.argv[1])
PY
