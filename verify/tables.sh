#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/tables.sh -- regenerate the tables of docs/verification.md.
#
#   verify/tables.sh [BUILD_DIR] [FULL_LIMIT_S]
#
# Writes verify-<date>/ under BUILD/results (or $CLOF_RESULTS): machine.txt
# (where and when), selftest.txt,
# litmus.md (the litmus catalogue table: clof-verify --selftest --markdown),
# quick.md (every client x model, quick mode, the CI configuration),
# full.md (no preemption bound, FULL_LIMIT_S seconds per run, default 60:
# "exhaustive" or "stopped by a limit" says which), mutation.md (C11,
# every order of the basic locks and HMCS weakened one at a time),
# bugs.txt (the named memory-order bugs), optimize.txt (clof-verify
# --optimize for every basic lock, CNA, HMCS and the cohort locks) and
# spin.txt (the Promela model, full mode).  Times are single-threaded wall times of clof-verify.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
limit=${2:-60}
v=$build/bin/clof-verify
[ -x "$v" ] || { echo "tables.sh: $v not found (build first)" >&2; exit 2; }
out=${CLOF_RESULTS:-$build/results}/verify-$(date -u +%F)
mkdir -p "$out"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') (plus uncommitted changes: $(git -C "$root" status --porcelain 2>/dev/null | wc -l) files)"
  echo "machine: $(uname -srm), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs share the machine)"
  echo "full-mode time limit per run: ${limit} s"
} > "$out/machine.txt"
"$v" --selftest > "$out/selftest.txt"
"$v" --selftest --markdown > "$out/litmus.md" || true
"$v" --lock all --markdown > "$out/quick.md" 2>/dev/null || true
for b in hmcs-status-acquire mcs-handoff-release ticket-release-rlx \
         acohort-fast-take-acquire mcs-link-relaxed twa-notify-relaxed \
         recip-arrive-relaxed recip-detach-relaxed fissile-release-relaxed \
         mutexee-release-relaxed array-handover-relaxed; do
  "$v" --bug "$b" 2>/dev/null | grep '^bug '
done > "$out/bugs.txt" || true
"$v" --mutate --lock basic --lock hmcs3 --model c11 --markdown > "$out/mutation.md" || true
"$v" --lock all --full --time-limit "$limit" --markdown > "$out/full.md" 2>/dev/null || true
for l in $("$build/bin/clof-lockname" names --family basic) cna hmcs3 \
         c-bo-mcs c-tkt-tkt c-ptl-tkt; do
  "$v" --optimize "$l" -v
done > "$out/optimize.txt" 2>&1 || true
"$root/verify/spin/run.sh" --full > "$out/spin.txt" 2>&1 || true
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"

python3 "$root/verify/doc_tables.py" "$out" > "$out/tables.md"
echo "tables in $out (tables.md: the tables of docs/verification.md)"
