#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault_sweep.sh -- the library's allocations failed one at a time, and
# from each one on (tests/preload/pl_fault.c), under conformance programs:
#   fault_sweep.sh FAULT_LIB PRELOAD_LIB LOCK PROGRAM TEST...
# For each TEST: a counting run (CLOF_FAULT=0) says how many allocations the
# library makes (K); then runs with CLOF_FAULT=N and CLOF_FAULT=N+ for
# N = 1..K.  Every run must exit 0 (the program checks mutual exclusion
# and POSIX's answers itself); a signal is a crash, a run past 60 s a hang.
# One line per TEST: points, runs, crashes, hangs, failures.  Exit 1 if any.
set -u
fault=$1 lib=$2 lock=$3 prog=$4
shift 4
bad=0
export PL_ALLOW_GLIBC=1
for t in "$@"; do
  out=$(CLOF_LOCK=$lock CLOF_FAULT=0 LD_PRELOAD="$fault:$lib" timeout 60 "$prog" "$t" 2>&1)
  k=$(printf '%s\n' "$out" | sed -n 's/^pl_fault\[[0-9]*\]: allocations=\([0-9]*\).*/\1/p' | sort -n | tail -1)
  if [ -z "$k" ] || [ "$k" -eq 0 ]; then
    echo "FAIL $t under $lock: the counting run made no allocation of the library (is it loaded?)"
    printf '%s\n' "$out" | tail -5
    exit 1
  fi
  runs=0 crash=0 hang=0 fail=0
  for n in $(seq 1 "$k"); do
    for mode in "$n" "$n+"; do
      CLOF_LOCK=$lock CLOF_FAULT=$mode LD_PRELOAD="$fault:$lib" timeout 60 "$prog" "$t" >/tmp/fault_sweep.$$ 2>&1
      rc=$?
      runs=$((runs + 1))
      if [ $rc -eq 124 ]; then hang=$((hang + 1)); echo "HANG $t CLOF_FAULT=$mode"
      elif [ $rc -gt 128 ]; then crash=$((crash + 1)); echo "CRASH $t CLOF_FAULT=$mode (signal $((rc - 128)))"
      elif [ $rc -ne 0 ] && [ $rc -ne 77 ]; then fail=$((fail + 1)); echo "FAIL $t CLOF_FAULT=$mode (exit $rc)"; tail -3 /tmp/fault_sweep.$$
      fi
    done
  done
  rm -f /tmp/fault_sweep.$$
  echo "sweep lock=$lock test=$t points=$k runs=$runs crashes=$crash hangs=$hang failures=$fail"
  [ $((crash + hang + fail)) -eq 0 ] || bad=1
done
exit $bad
