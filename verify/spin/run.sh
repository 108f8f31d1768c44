#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/spin/run.sh -- check the Promela model of the CLoF composition step
# (clof_step.pml) with Spin, and check that the search was complete: every
# run reports its depth reached, which must stay below the -m limit (Spin
# truncates silently at the default depth otherwise).
#
#   verify/spin/run.sh [--quick|--full]
#
# quick (CI): depth 2: mutual exclusion + context invariant (safety), and
#   starvation freedom of every process under weak fairness; the swapped
#   release order at depths 2 and 3 (must fail: context invariant); an
#   unbounded keep_local at depth 2 (must fail: starvation); the fast word
#   (-DFAST) at depth 2: safety and bounded bypass (at most one fast
#   critical section while the top lock's owner waits for HELD), and the
#   two variants that must break the bound (no TOPWAIT; counting from the
#   top lock's acquisition).
# full: also depth 3 (4 processes), safety and starvation freedom (about
#   1 GB of memory and several minutes per run), and with the fast word
#   starvation freedom at depth 2 (depth 3 with the fast word exceeds
#   2 GB: not run).
# Exit 0 when every verdict is the expected one.
set -euo pipefail
mode=${1:---quick}
case "$mode" in --quick|--full) ;; *) echo "usage: $0 [--quick|--full]" >&2; exit 2;; esac
command -v spin >/dev/null || { echo "spin: not installed (scripts/deps.sh installs the Debian package spin)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/clof_step.pml" "$work/"
cd "$work"
DEPTHMAX=10000000
bad=0
# pan.c at -O0 in quick mode: its searches take about a second at any
# optimisation level, and -O0 compiles it in a quarter of -O2's time; the
# full mode's searches take minutes: -O2
opt=-O0
[ "$mode" = --quick ] || opt=-O2
built=""

# run NAME EXPECT(ok|fail) DEPTH CPPFLAGS PANFLAGS...
run() {
  local name=$1 expect=$2 depth=$3 defs=$4; shift 4
  local cc=("$opt" -DCOLLAPSE)
  if [[ " $* " == *" -a "* ]]; then cc+=(-DNFAIR=4); else cc+=(-DNOCLAIM); fi
  # the same model and flags as the last run: the same pan (the never
  # claim, -N, is chosen when pan runs)
  if [ "$built" != "$depth|$defs|${cc[*]}" ]; then
    spin -a -DDEPTH="$depth" $defs clof_step.pml >/dev/null
    gcc "${cc[@]}" -o pan pan.c
    built="$depth|$defs|${cc[*]}"
  fi
  local t0=$SECONDS
  ./pan -m$DEPTHMAX "$@" >out.txt 2>&1 || true
  local errs reached states
  errs=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' out.txt | tail -1)
  reached=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' out.txt | tail -1)
  states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' out.txt | tail -1)
  local what="no violation"
  grep -q "assertion violated" out.txt && what="assertion violated: $(grep -m1 -o 'assertion violated (.*)' out.txt)"
  grep -q "acceptance cycle" out.txt && what="acceptance cycle (starvation)"
  local verdict=OK
  if grep -q "max search depth too small" out.txt || [ -z "$reached" ] || [ "$reached" -ge "$DEPTHMAX" ]; then
    verdict="TRUNCATED"; bad=1
  elif [ "$expect" = ok ] && [ "${errs:-1}" != 0 ]; then verdict="UNEXPECTED"; bad=1
  elif [ "$expect" = fail ] && [ "${errs:-0}" = 0 ]; then verdict="UNEXPECTED (not caught)"; bad=1
  fi
  printf '%-34s depth %d %-10s %-9s states %-10s depth reached %-7s (limit %d) %3ds  %s  %s\n' \
    "$name" "$depth" "${defs:-correct}" "${*:-safety}" "${states:-?}" "${reached:-?}" "$DEPTHMAX" \
    $((SECONDS - t0)) "$what" "$verdict"
}

echo "Spin $(spin -V | head -1 | sed 's/^Spin //'): the CLoF composition step with abstract fair locks"
run "safety (mutex, context inv.)" ok 2 ""
for p in 0 1 2; do run "starvation freedom P$p (weak fair)" ok 2 "" -a -f -N s$p; done
run "swapped release order" fail 2 "-DSWAPPED"
run "swapped release order" fail 3 "-DSWAPPED"
run "unbounded keep_local, P2" fail 2 "-DUNBOUNDED" -a -f -N s2
run "fast word: safety, bypass <= 1" ok 2 "-DFAST"
run "fast word without TOPWAIT" fail 2 "-DFAST -DNOTOPWAIT"
run "fast word, bypass from top acq." fail 2 "-DFAST -DCOUNT_FROM_TOP"
if [ "$mode" = --full ]; then
  for p in 0 1 2; do run "fast word: starvation freedom P$p" ok 2 "-DFAST" -a -f -N s$p; done
  run "safety (mutex, context inv.)" ok 3 ""
  for p in 0 1 2 3; do run "starvation freedom P$p (weak fair)" ok 3 "" -a -f -N s$p; done
fi
if [ $bad = 0 ]; then echo "spin: every verdict as expected"; else echo "spin: UNEXPECTED verdicts"; fi
exit $bad
