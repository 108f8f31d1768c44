#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# posix_suite.sh -- the Open POSIX test suite's pthread mutex, condvar and
# rwlock tests (a copy the user has, GPL-2.0, test-only: compiled from there
# into the build folder, never copied into clof) run
# under glibc and under libclof-preload.so (docs/posix-suite.md).
#
#   posix_suite.sh build  SUITE OUT CC          compile every test into OUT/bin
#   posix_suite.sh run    OUT LIB SETTING [-j N] [TEST...]
#                                               run the tests (all of OUT/list by
#                                               default) under SETTING; one line per
#                                               test; results in OUT/res/SETTING
#   posix_suite.sh check  OUT LIB SETTING [-j N]
#                                               the ctest step: run, then compare
#                                               with the baseline's run (glibc;
#                                               wpref:glibc for wpref:...)
#   posix_suite.sh table  OUT                   the table of docs/posix-suite.md
#                                               from OUT/res/*
#   posix_suite.sh all    SUITE OUT CC LIB      build, run every setting (also
#                                               MORE_SETTINGS), print the table
#   posix_suite.sh settings                     the settings (baselines: run, the
#                                               others: check) and their environment
#
# SUITE missing: `build` prints one line saying so and exits 77 (ctest: skipped),
# unless CLOF_REQUIRE_POSIX=1 is in the environment: then it fails.
#
# A test's result is its exit code (the suite's include/posixtest.h): 0 PASS,
# 1 FAIL, 2 UNRESOLVED, 4 UNSUPPORTED, 5 UNTESTED; past the time limit
# (POSIX_LIMIT seconds, default 60) it is a HANG, killed by a signal a CRASH.
# The stress programs run until SIGUSR1: they get it after POSIX_STRESS
# seconds (default 5) and must then exit 0 within POSIX_LIMIT.
#
# `check` fails when a test that PASSed under glibc does not PASS under
# SETTING.  Such a test is run again once, alone (several of the suite's
# tests measure time or scheduling and can lose on a loaded 2-vCPU machine,
# under glibc too); a second failure fails the check, a pass on the retry is
# printed as FLAKY.  A crash fails at once.  Tests that do not pass under glibc
# are listed, not held against clof (with POSIX_HELD_ONLY=1, as ctest runs
# it, they are not run).
set -u
here=$(cd "$(dirname "$0")" && pwd)
topo_asl=$(cd "$here/../preload" && pwd)/asl-3level.topo
LIMIT=${POSIX_LIMIT:-60}
STRESS=${POSIX_STRESS:-5}
EMU=numa:2,cache:2,core:2

# SETTING -> its environment (besides LD_PRELOAD).  The mutex settings leave
# the rwlocks to glibc, so that a failure names one lock; the rwlock settings
# keep the library's default mutex lock (the rwlock tests use few mutexes).
setting_env() {
  case $1 in
    glibc) echo "" ;;
    wpref:*) setting_env "${1#wpref:}" ;;
    mcs|ticket|clh|tas|ttas|bo|ptl|hemlock|hemlock_ctr) echo "CLOF_LOCK=$1 CLOF_RWLOCK=glibc" ;;
    hmcs|cna|c-*|a-c-*|clof:*) echo "CLOF_LOCK=$1 CLOF_EMULATE=$EMU CLOF_RWLOCK=glibc" ;;
    cr:*) echo "CLOF_LOCK=$1 CLOF_EMULATE=$EMU CLOF_CR_ACTIVE=1 CLOF_RWLOCK=glibc" ;;
    asl:*) echo "CLOF_LOCK=$1 CLOF_EMULATE=$topo_asl CLOF_RWLOCK=glibc" ;;
    rw-central|rw:*|bravo:*) echo "CLOF_RWLOCK=$1 CLOF_EMULATE=$EMU" ;;
    *) echo "posix_suite.sh: unknown setting '$1'" >&2; return 1 ;;
  esac
}
# the tests a setting runs: a mutex setting all but the rwlock tests, an
# rwlock setting the rwlock tests (rwlock and rwlockattr)
setting_tests() {
  case $1 in
    glibc) cat "$out/list" ;;
    rw-central|rw:*|bravo:*|wpref:*) grep '^pthread_rwlock' "$out/list" ;;
    *) grep -v '^pthread_rwlock' "$out/list" ;;
  esac | heavy_filter "$1"
}
# The heavy test: pthread_cond_broadcast/1-2 creates up to 1,000 threads (then
# 200 processes) waiting on one condvar, in each of 12 scenarios, and fails
# itself after 180 s (a lost wake-up); 30-60 s under glibc here.  It gets
# POSIX_HEAVY_LIMIT (default 200 s), runs one at a time (flock on
# OUT/heavy.lock: two at once on 2 vCPUs ran past 60 s under glibc too), and
# only under the settings of POSIX_HEAVY_SETTINGS (default: glibc mcs hmcs;
# `all` runs it under every setting).
HEAVY="pthread_cond_broadcast/1-2"
heavy_filter() {
  local h=" ${POSIX_HEAVY_SETTINGS:-glibc mcs hmcs} "
  if [ "$h" = " all " ] || [[ $h == *" $1 "* ]]; then cat; else grep -v -x -F "$HEAVY"; fi
}
# wpref:X is X with every rwlock asking for writer preference (rwpref.c,
# preloaded first: POSIX_RWPREF is its path), judged against wpref:glibc
BASELINES="glibc wpref:glibc"
SETTINGS="mcs hmcs clof:tkt-mcs-clh cna cr:mcs asl:mcs rw-central rw:hmcs bravo:rw:c-bo-mcs
wpref:rw:c-bo-mcs wpref:bravo:rw:c-bo-mcs"
# the rest of `posix_suite.sh all` (docs/posix-suite.md): the other basic
# locks, cohort locks, compositions, layers and rwlocks
MORE_SETTINGS="rw:c-bo-mcs bravo:rw-central rw:mcs rw:mcs-mcs-tkt bravo:rw:hmcs wpref:rw-central tas ticket clh hemlock ttas bo ptl hemlock_ctr c-bo-mcs c-tkt-tkt c-ptl-tkt a-c-bo-bo
clof:clh-hem clof:mcs-mcs-tkt cr:hmcs cr:clof:tkt-mcs-clh asl:clof:tkt-mcs-clh rw:tas bravo:rw:tas
bravo:rw:mcs wpref:rw:mcs wpref:rw:hmcs wpref:rw:tas wpref:bravo:rw-central
wpref:bravo:rw:hmcs"
# the baseline a setting is judged against
baseline_of() { case $1 in wpref:*) echo wpref:glibc ;; *) echo glibc ;; esac; }
# LD_PRELOAD of a setting
preload_of() {
  local lib=$1 s=$2 p=
  case $s in wpref:*) p=${POSIX_RWPREF:?set POSIX_RWPREF to the rwpref library}; s=${s#wpref:} ;; esac
  [ "$s" = glibc ] || p=${p:+$p:}$lib
  echo "$p"
}

name_of() { # conformance/pthread_mutex_init/5-1.c -> pthread_mutex_init/5-1
  local f=${1%.c}
  f=${f#conformance/}
  f=${f#stress/}
  echo "${f%/*}/${f##*/}"
}

cmd_build() {
  local suite=$1 cc=$3
  out=$2
  if [ ! -f "$suite/include/posixtest.h" ]; then
    local msg="the Open POSIX test suite is not installed (-DCLOF_POSIX_SUITE=PATH${suite:+; not in $suite}; docs/posix-suite.md) -- skipped"
    if [ "${CLOF_REQUIRE_POSIX:-0}" = 1 ]; then echo "FAIL: $msg (CLOF_REQUIRE_POSIX=1)"; exit 1; fi
    echo "$msg"; exit 77
  fi
  suite=$(cd "$suite" && pwd)
  mkdir -p "$out/bin" "$out/log" "$out/res"
  out=$(cd "$out" && pwd)
  # conformance tests, the two condvar tests, the stress programs (not the
  # s-c*.c scalability programs, which run for minutes)
  (cd "$suite" && ls conformance/pthread_*/*-*.c condvar/*.c stress/pthread_*/stress*.c) >"$out/sources"
  : >"$out/list.new"
  local jobs=${POSIX_JOBS:-2} f
  export suite out cc
  # shellcheck disable=SC2016
  <"$out/sources" xargs -P "$jobs" -I{} bash -c '
    f={}; n=${f%.c}; n=${n#conformance/}; n=${n#stress/}; b=${n//\//__}
    extra=""; case $f in stress/*) extra=-DSCALABILITY_FACTOR=1 ;; esac
    if [ "$out/bin/$b" -nt "$suite/$f" ] && [ "$out/bin/$b" -nt "$suite/lib/common.c" ]; then echo "$n" >>"$out/list.new"
    elif "$cc" -std=gnu99 -D_GNU_SOURCE -w $extra -I"$suite/include" -I"$suite/$(dirname "$f")" \
         "$suite/lib/common.c" "$suite/$f" -o "$out/bin/$b" -lpthread -lrt >"$out/log/$b.build" 2>&1
    then echo "$n" >>"$out/list.new"
    else echo "not built: $n (the compiler'"'"'s messages: $out/log/$b.build)"
    fi'
  sort "$out/list.new" >"$out/list"
  rm -f "$out/list.new"
  echo "built $(wc -l <"$out/list") of $(wc -l <"$out/sources") programs of the suite into $out/bin"
}

# run_one LIB SETTING TEST: prints "TEST RESULT SECONDS"
run_one() {
  local lib=$1 setting=$2 t=$3 b env rc t0 t1 res
  b=${t//\//__}
  env=$(setting_env "$setting") || exit 2
  local pre=() p
  p=$(preload_of "$lib" "$setting") || exit 2
  [ -z "$p" ] || pre=(LD_PRELOAD="$p")
  local log="$out/log/$b.${setting//[:\/]/_}.out"
  local fd=
  if [ "$t" = "$HEAVY" ]; then exec {fd}>"$out/heavy.lock"; flock "$fd"; fi # one at a time
  t0=$(date +%s.%N)
  case $t in
    pthread_*/stress*)
      # shellcheck disable=SC2086
      env $env "${pre[@]}" timeout --preserve-status -s USR1 -k "$LIMIT" "$STRESS" "$out/bin/$b" >"$log" 2>&1
      rc=$? ;;
    "$HEAVY")
      # shellcheck disable=SC2086
      # (the program does not inherit the lock's descriptor)
      (exec {fd}>&-; cd "$out/log" && env $env "${pre[@]}" timeout -k 5 "${POSIX_HEAVY_LIMIT:-200}" "$out/bin/$b") >"$log" 2>&1
      rc=$? ;;
    *)
      # shellcheck disable=SC2086
      (cd "$out/log" && env $env "${pre[@]}" timeout -k 5 "$LIMIT" "$out/bin/$b") >"$log" 2>&1
      rc=$? ;;
  esac
  t1=$(date +%s.%N)
  [ -z "$fd" ] || exec {fd}>&-
  case $rc in
    0) res=PASS ;; 1) res=FAIL ;; 2) res=UNRESOLVED ;; 4) res=UNSUPPORTED ;; 5) res=UNTESTED ;;
    124|137) res=HANG ;;
    *) if [ "$rc" -gt 128 ]; then res=CRASH/$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))
       else res=EXIT/$rc; fi ;;
  esac
  printf '%s %s %.1f\n' "$t" "$res" "$(echo "$t1 - $t0" | bc)"
}

# The tests (stdin) longest first, by the seconds of an earlier run: the
# setting's own (OUT/res/SETTING) or else its baseline's; tests that run
# lacks come first, in list order; with neither run, the list's order.  Most
# of the suite's time is sleep, and xargs -P starts the tests in this order:
# a 15 s test started last would run alone at the end.
longest_first() {
  local ref="$out/res/${1//[:\/]/_}" bs
  if [ ! -f "$ref" ]; then bs=$(baseline_of "$1"); ref="$out/res/${bs//[:\/]/_}"; fi
  if [ ! -f "$ref" ]; then cat; return; fi
  awk 'NR == FNR { t[$1] = $3; next } { print (($0 in t) ? t[$0] : 1e9), FNR, $0 }' "$ref" - |
    sort -k1,1gr -k2,2n | cut -d' ' -f3-
}

cmd_run() {
  out=$(cd "$1" && pwd) || exit 2
  local lib setting=$3 jobs=${POSIX_JOBS:-2}
  lib=$(realpath "$2") || exit 2
  shift 3
  if [ "${1:-}" = -j ]; then jobs=$2; shift 2; fi
  [ -f "$out/list" ] || { echo "posix_suite.sh: $out/list missing (posix_suite.sh build first)" >&2; exit 2; }
  setting_env "$setting" >/dev/null || exit 2
  local tests
  if [ $# -gt 0 ]; then tests=$(printf '%s\n' "$@" | longest_first "$setting")
  else tests=$(setting_tests "$setting" | longest_first "$setting"); fi
  mkdir -p "$out/res"
  local res="$out/res/${setting//[:\/]/_}"
  export out LIMIT STRESS topo_asl EMU
  export HEAVY
  export -f run_one setting_env preload_of
  printf '%s\n' "$tests" | xargs -P "$jobs" -I{} bash -c 'run_one "$0" "$1" "$2"' "$lib" "$setting" {} \
    | tee "$res.new"
  sort "$res.new" >"$res"
  rm -f "$res.new"
  local want got
  want=$(printf '%s\n' "$tests" | grep -c .) got=$(wc -l <"$res")
  if [ "$got" -ne "$want" ]; then
    echo "posix_suite.sh: $got results of $want tests under $setting" >&2
    exit 1
  fi
}

cmd_check() {
  out=$(cd "$1" && pwd) || exit 2
  local lib setting=$3
  lib=$(realpath "$2") || exit 2
  shift 3
  local bs base res="$out/res/${setting//[:\/]/_}"
  bs=$(baseline_of "$setting")
  base="$out/res/${bs//[:\/]/_}"
  [ -f "$base" ] || { echo "posix_suite.sh: $base missing (the $bs run first)" >&2; exit 2; }
  # the library must be there and run the setting's lock: one program with
  # CLOF_STATS=1, whose line at exit names the lock and counts acquisitions;
  # it runs beside the setting's tests (it takes 4-8 s, most of it sleep),
  # and the check fails on its line before it looks at their results
  local probe want env
  case $setting in
    rw-central|rw:*|bravo:*|wpref:*) probe=pthread_rwlock_rdlock__1-1 want="rwlock=${setting#wpref:} rdlocks=[1-9]" ;;
    *) probe=pthread_mutex_lock__1-1 want="lock=${setting//clof:/} locks_replaced=[0-9]* acquisitions=[1-9]" ;;
  esac
  env=$(setting_env "$setting") || exit 2
  local said probe_out="$out/log/probe.${setting//[:\/]/_}.out" probe_pid
  # shellcheck disable=SC2086
  (cd "$out/log" && env $env CLOF_STATS=1 LD_PRELOAD="$(preload_of "$lib" "$setting")" \
     timeout 60 "$out/bin/$probe" >"$probe_out" 2>&1) &
  probe_pid=$!
  # POSIX_HELD_ONLY=1 (ctest): only the tests that PASS under the baseline,
  # the ones the check judges; the others would only be listed (`all` runs
  # them, for the table)
  local held_tests=()
  if [ "${POSIX_HELD_ONLY:-0}" = 1 ]; then
    mapfile -t held_tests < <(setting_tests "$setting" |
      awk 'NR == FNR { if ($2 == "PASS") p[$1] = 1; next } ($0 in p)' "$base" -)
  fi
  cmd_run "$out" "$lib" "$setting" "$@" "${held_tests[@]}" >/dev/null
  wait "$probe_pid"
  said=$(cat "$probe_out")
  if ! grep -q -- "clof-preload\[[0-9]*\]: $want" <<<"$said"; then
    echo "FAIL: $probe with CLOF_STATS=1 under $setting printed no line '$want': is $lib loaded, does it run $setting?"
    exit 1
  fi
  local bad=0 flaky=0 n=0 pass=0 held=0 t r b
  while read -r t r _; do
    n=$((n + 1))
    b=$(awk -v t="$t" '$1 == t { print $2 }' "$base")
    [ "$r" = PASS ] && pass=$((pass + 1))
    if [ "$b" != PASS ]; then
      [ "$r" = PASS ] || echo "not held against clof: $t is ${b:-not run} under $bs, $r under $setting"
      continue
    fi
    held=$((held + 1))
    [ "$r" = PASS ] && continue
    local again=
    case $r in CRASH/*) ;; *) again=$(run_one "$lib" "$setting" "$t" | awk '{ print $2 }') ;; esac
    if [ "$again" = PASS ]; then
      flaky=$((flaky + 1))
      echo "FLAKY $t under $setting: $r, then PASS when run again alone ($bs: PASS)"
    else
      bad=$((bad + 1))
      echo "FAIL $t under $setting: $r${again:+, again $again} ($bs: PASS); output: $out/log/${t//\//__}.${setting//[:\/]/_}.out"
      tail -5 "$out/log/${t//\//__}.${setting//[:\/]/_}.out" | sed 's/^/  | /'
    fi
  done <"$res"
  echo "$setting: $n tests, $pass PASS; of the $held that PASS under $bs: $((held - bad)) PASS, $bad not ($flaky passed when run again)"
  [ "$bad" -eq 0 ]
}

cmd_table() {
  out=$1
  local base bs
  [ -f "$out/res/glibc" ] || { echo "posix_suite.sh: $out/res/glibc missing" >&2; exit 2; }
  echo "| setting | tests | PASS | PASS under the baseline | of those, PASS here | not PASS (result) |"
  echo "| --- | --- | --- | --- | --- | --- |"
  local s f
  for s in $BASELINES $SETTINGS $MORE_SETTINGS; do
    f="$out/res/${s//[:\/]/_}"
    [ -f "$f" ] || continue
    bs=$(baseline_of "$s")
    base="$out/res/${bs//[:\/]/_}"
    [ -f "$base" ] || continue
    awk -v s="$s" 'NR == FNR { g[$1] = $2; next }
      { n++; if ($2 == "PASS") p++; if (g[$1] == "PASS") { h++; if ($2 == "PASS") hp++; else bad = bad " " $1 " (" $2 ")" } }
      END { printf "| `%s` | %d | %d | %d | %d | %s |\n", s, n, p, h, hp, bad == "" ? "none" : bad }' "$base" "$f"
  done
  echo
  for bs in $BASELINES; do
    [ -f "$out/res/${bs//[:\/]/_}" ] || continue
    echo "Not PASS under $bs:"
    awk '$2 != "PASS" { printf "- `%s`: %s\n", $1, $2 }' "$out/res/${bs//[:\/]/_}"
  done
}

# all SUITE OUT CC LIB: build, the baselines, every setting (this file's
# SETTINGS and MORE_SETTINGS), the table; exit 1 if a check failed
cmd_all() {
  local suite=$1 cc=$3 lib=$4 s bad=0
  out=$2
  (cmd_build "$suite" "$out" "$cc") || exit $?
  export POSIX_HEAVY_SETTINGS=all
  for s in $BASELINES; do (cmd_run "$out" "$lib" "$s" -j 4 >/dev/null) || exit 1; done
  for s in $SETTINGS $MORE_SETTINGS; do (set -o pipefail; cmd_check "$out" "$lib" "$s" -j 4 | grep -v '^not held') || bad=1; done
  cmd_table "$out"
  return $bad
}

case ${1:-} in
  build) shift; cmd_build "$@" ;;
  all) shift; cmd_all "$@" ;;
  run) shift; cmd_run "$@" ;;
  check) shift; cmd_check "$@" ;;
  table) shift; cmd_table "$@" ;;
  settings) # NAME run (a baseline) or NAME check, then the environment
    for s in $BASELINES; do echo "$s run $(setting_env "$s")"; done
    for s in $SETTINGS; do echo "$s check $(setting_env "$s")"; done ;;
  *) sed -n '3,20p' "$0" >&2; exit 2 ;;
esac
