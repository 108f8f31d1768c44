#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/compose/acohort_chaos.sh -- the abortable cohort locks under random
# delays at every shared access, for a set time.
#
#   tests/compose/acohort_chaos.sh [--build DIR] [--minutes M] [--lock L]
#                                  [--iters N] [--timeout S] [--out DIR]
#
# Runs test_acohort_chaos_{nofast,fast} (tests/compose/test_acohort_fast.c
# "mixed": plain, try and timed acquisitions with deadlines of 0-63 us,
# threads moving between leaves every iteration, mutual exclusion and the
# count of critical sections checked) built over chaos_backend.h (a yield,
# a spin or a sleep before 1 in 8 shared accesses) and aclh_pool_check.c
# (a node handed out twice or put twice aborts the run), alternating
# nofast (the paper's lock: what the preload library ran when A-C-BO-CLH
# hung on 2026-11-21 -- every contended lock() was a try that enqueued a
# node and abandoned it, then an acquire) and fast, over the preload
# tests' emulated machine (numa:2,cache:2,core:2) with 4 threads and over
# numa:4,core:4 with 8 and 3 threads.  A run still going after S seconds
# (default 300) is a hang: every thread's stack (gdb) is saved under --out
# and the run killed.  Prints runs, acquisitions, hangs, failures.
# Default lock a_c_bo_clh (a_c_bo_bo also works), 2 minutes, 4000
# iterations per thread per run.  The 8-thread runs take 1-60 s each on the
# 2-vCPU machine under load, so the default timeout is 300 s.
set -u
build=build; minutes=2; lock=a_c_bo_clh; iters=4000; timeout_s=300; out=${CLOF_RESULTS:-build/results}/acohort-chaos
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --lock) lock=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "acohort_chaos.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
for v in fast nofast; do
    [ -x "$build/bin/test_acohort_chaos_$v" ] || {
        echo "acohort_chaos.sh: $build/bin/test_acohort_chaos_$v not built (cmake --build $build --target test_acohort_chaos_$v)" >&2; exit 2; }
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shapes=("numa:2,cache:2,core:2 4" "numa:4,core:4 8" "numa:2,cache:2,core:2 3" "numa:4,core:4 3")
end=$(($(date +%s) + minutes * 60))
runs=0 fails=0 hangs=0 acq=0 k=0
declare -A vruns
while [ "$(date +%s)" -lt $end ]; do
    v=$([ $((k % 2)) -eq 0 ] && echo nofast || echo fast)
    read -r shape th <<<"${shapes[$(((k / 2) % ${#shapes[@]}))]}"
    k=$((k + 1))
    ACOHORT_ALARM=0 ACOHORT_ITERS=$iters "$build/bin/test_acohort_chaos_$v" "$lock" mixed "$shape" "$th" >"$tmp/o" 2>&1 &
    pid=$!
    t=0 hung=0
    while kill -0 $pid 2>/dev/null; do
        sleep 0.2; t=$((t + 1))
        if [ $t -ge $((timeout_s * 5)) ]; then hung=1; break; fi
    done
    runs=$((runs + 1)); vruns[$v]=$((${vruns[$v]:-0} + 1))
    if [ $hung = 1 ]; then
        hangs=$((hangs + 1))
        f=$out/hang-$lock-$v-$(date -u +%Y%m%d-%H%M%S).txt
        { echo "# acohort_chaos.sh: $v $lock mixed $shape $th, still running after ${timeout_s}s"; cat "$tmp/o"
          echo "## stacks"; gdb -p $pid -batch -ex "thread apply all bt" 2>&1; } >"$f"
        kill -9 $pid; wait $pid 2>/dev/null
        echo "HANG: $v $shape T=$th, stacks in $f"
        continue
    fi
    wait $pid; rc=$?
    if [ $rc -ne 0 ]; then
        fails=$((fails + 1))
        f=$out/fail-$lock-$v-$(date -u +%Y%m%d-%H%M%S).txt
        { echo "# acohort_chaos.sh: $v $lock mixed $shape $th: exit $rc"; cat "$tmp/o"; } >"$f"
        echo "FAIL (exit $rc): $v $shape T=$th, output in $f"
        continue
    fi
    # acquisitions: plain + try ok + timed ok
    a=$(sed -n 's/^mixed: plain \([0-9]*\); try \([0-9]*\) ok.*timed \([0-9]*\) ok.*/\1 \2 \3/p' "$tmp/o" | awk '{print $1 + $2 + $3}')
    acq=$((acq + ${a:-0}))
    echo "$(date -u +%H:%M:%S) $v $shape T=$th: $((t / 5)) s, ${a:-0} acquisitions" >>"$out/runs.log"
done
echo "acohort_chaos: $lock, $minutes min: $runs runs (nofast ${vruns[nofast]:-0}, fast ${vruns[fast]:-0}), $acq acquisitions, $hangs hangs, $fails failures"
[ $hangs -eq 0 ] && [ $fails -eq 0 ]
