#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cpython_suite.sh -- CPython's own threading tests (Debian's
# libpython3.11-testsuite, run by /usr/bin/python3.11) under glibc and under
# libclof-preload.so with each lock setting (docs/reliability.md).
# CPython's GIL is a pthread mutex and condition variable handed between
# threads; its thread pools, queues and logging locks sit on it.
#
#   cpython_suite.sh build  OUT             the list of test modules (OUT/list)
#   cpython_suite.sh run    OUT LIB SETTING [-j N] [TEST...]
#                                           run the modules under SETTING; one
#                                           line per module; OUT/res/SETTING
#   cpython_suite.sh check  OUT LIB SETTING [-j N]
#                                           the ctest step: run, then compare
#                                           with the baseline's run (glibc)
#   cpython_suite.sh refusal OUT LIB        a refused setting, on purpose: the
#                                           library's one line on stderr fails
#                                           a test that compares a child's stderr
#   cpython_suite.sh table  OUT             pass/fail per setting
#   cpython_suite.sh walls  OUT             wall seconds per module and setting
#   cpython_suite.sh all    OUT LIB         build, every setting, the tables
#   cpython_suite.sh settings               the settings and their environment
#
# The interpreter is /usr/bin/python3.11 (CPYTHON, for another), the one the
# test package belongs to: the python3 on PATH may be another build.
# Missing, `build` prints one line and exits 77 (ctest: skipped);
# scripts/deps.sh installs libpython3.11-testsuite.
#
# A module's result is regrtest's exit status: 0 PASS, 2 FAIL, 3 ENV_CHANGED
# (a test left threads or files behind), 4 NO_TESTS; killed after
# CPYTHON_LIMIT seconds (default 600) a HANG, by a signal a CRASH.  With
# CPYTHON_QUICK=1 (ctest) test_concurrent_futures runs its thread-pool
# classes only (35 s here instead of 150 s: its process pools are the
# slow part); `all` runs every module whole.
#
# Tests that compare a child's stderr with b"" fail whenever the library
# prints there, a refused setting's one line included: the settings here are
# all valid ones, and `refusal` shows the failure on purpose.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SUITE=cpython_suite.sh USAGE_LINES=8,23
# shellcheck source=../preload/suite_lib.sh
. "$here/../preload/suite_lib.sh"
LIMIT=${CPYTHON_LIMIT:-600}
PY=${CPYTHON:-/usr/bin/python3.11}
export LIMIT PY

MODULES="test_threading test_thread test_threading_local test_threadsignals test_queue
test_concurrent_futures test_logging test_sched test_threadedtempfile"
BASELINES="glibc wpref:glibc"
# CI's settings: a FIFO lock, a cr: lock, an emulated NUMA lock with a NUMA
# rwlock; `all` adds the settings of glibc's own tests (tests/glibc)
SETTINGS="mcs cr:mcs hmcs+rw:hmcs"
MORE_SETTINGS="hmcs clof:tkt-mcs-clh cna asl:mcs tas hemlock fissile mutexee array glibc-adaptive rw:hmcs bravo:rw:c-bo-mcs
wpref:rw:c-bo-mcs"

# every setting runs every module (the GIL is a mutex and a condvar, the
# rwlock settings' locks are the interpreter's few rwlocks)
setting_tests() { cat "$out/list"; }
# the program that shows the library runs the setting's lock (cmd_check):
# OUT/bin/threads, four Python threads handing the GIL around
suite_probe() {
  probe=threads
  case $setting in
    *+*) want="lock=${setting%%+*} " ;;
    # CPython takes no pthread rwlock: under an rwlock setting the modules
    # run on the library's default mutex lock, which the line names
    rw-central|rw:*|bravo:*|wpref:*) want="lock=[a-z:-]* locks_replaced=[0-9]* acquisitions=[1-9]" ;;
    *) want=$(mutex_want "$setting") ;;
  esac
}

# run_one LIB SETTING MODULE: prints "MODULE RESULT SECONDS"
run_one() {
  local lib=$1 setting=$2 t=$3 env rc t0 t1 res pre match=()
  run_env "$lib" "$setting"
  local log="$out/log/$t.${setting//[:\/]/_}.out" dir="$out/run/$t.${setting//[:\/]/_}"
  rm -rf "$dir"
  mkdir -p "$dir" "$out/log"
  if [ "$t" = test_concurrent_futures ] && [ "${CPYTHON_QUICK:-0}" = 1 ]; then
    match=(-m '*ThreadPool*')
  fi
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  (cd "$dir" && env $env "${pre[@]}" TMPDIR="$dir" \
     timeout -k 5 "$LIMIT" "$PY" -m test "$t" "${match[@]}") >"$log" 2>&1 </dev/null
  rc=$?
  t1=$(date +%s.%N)
  case $rc in
    0) res=PASS ;; 2) res=FAIL ;; 3) res=ENV_CHANGED ;; 4) res=NO_TESTS ;;
    *) res=$(rc_result "$rc") ;;
  esac
  printf '%s %s %.1f\n' "$t" "$res" "$(echo "$t1 - $t0" | bc)"
}

cmd_build() {
  out=$1
  if [ ! -x "$PY" ]; then
    echo "$PY not installed (Debian's python3.11) -- skipped"
    exit 77
  fi
  local testdir
  testdir=$("$PY" -c 'import os, sysconfig; print(os.path.join(sysconfig.get_paths()["stdlib"], "test"))')
  if [ ! -f "$testdir/test_threading.py" ]; then
    echo "CPython's test suite not installed ($testdir/test_threading.py missing; scripts/deps.sh installs libpython3.11-testsuite) -- skipped"
    exit 77
  fi
  mkdir -p "$out/bin" "$out/log"
  out=$(cd "$out" && pwd)
  local m
  : >"$out/list"
  : >"$out/left-out"
  for m in $MODULES; do
    if [ -f "$testdir/$m.py" ] || [ -d "$testdir/$m" ]; then echo "$m" >>"$out/list"
    else echo "$m: not in $testdir" >>"$out/left-out"; fi
  done
  # the probe: the GIL handed between four threads, a lock and a condition
  cat >"$out/bin/threads" <<EOF
#!$PY
import threading
n = 0
cv = threading.Condition()
def work():
    global n
    for _ in range(2000):
        with cv:
            n += 1
            cv.notify_all()
ts = [threading.Thread(target=work) for _ in range(4)]
for t in ts: t.start()
for t in ts: t.join()
assert n == 8000, n
EOF
  chmod +x "$out/bin/threads"
  echo "$(wc -l <"$out/list") modules of CPython's test suite ($PY, $testdir)" \
       "$( [ -s "$out/left-out" ] && echo "; left out: $(tr '\n' ' ' <"$out/left-out")")"
}

# refusal OUT LIB: a setting the library refuses (an unknown lock name)
# under a test that compares a child's stderr with b"": the test must fail,
# and on the library's line, which says glibc's mutexes run instead
cmd_refusal() {
  out=$(cd "$1" && pwd) || exit 2
  local lib log=$out/log/refusal.out
  lib=$(realpath "$2") || exit 2
  mkdir -p "$out/log" "$out/run/refusal"
  (cd "$out/run/refusal" && CLOF_LOCK=mcz LD_PRELOAD="$lib" timeout 120 "$PY" -m test test_threading \
     -m test_join_nondaemon_on_shutdown) >"$log" 2>&1 </dev/null
  local rc=$?
  local line="clof-preload: running on glibc's pthread mutexes: unknown lock CLOF_LOCK='mcz'; did you mean mcs?"
  if [ "$rc" -ne 2 ]; then
    echo "FAIL: test_join_nondaemon_on_shutdown under CLOF_LOCK=mcz exited $rc, not 2 (a failed test): $log"
    exit 1
  fi
  if ! grep -q "AssertionError: b\"clof-preload: running on glibc's pthread" "$log" ||
     ! grep -q -F "$line" "$log"; then
    echo "FAIL: test_join_nondaemon_on_shutdown failed, but not on the library's line '$line': $log"
    exit 1
  fi
  echo "as expected: under CLOF_LOCK=mcz the library says once \"$line ...\"," \
       "runs glibc's mutexes, and test_join_nondaemon_on_shutdown, which wants a child's stderr empty, fails on that line"
}

cmd_all() {
  local lib=$2
  out=$1
  (cmd_build "$out") || exit $?
  out=$(cd "$out" && pwd)
  run_all_settings "$lib" "${CPYTHON_JOBS:-3}"
  local bad=$?
  echo
  cmd_walls "$out"
  echo
  cmd_refusal "$out" "$lib" || bad=1
  return $bad
}

case ${1:-} in
  build) shift; cmd_build "$@" ;;
  all) shift; cmd_all "$@" ;;
  refusal) shift; cmd_refusal "$@" ;;
  *) suite_command "$@" ;;
esac
