#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# runtimes_suite.sh -- unmodified language runtimes under glibc and under
# libclof-preload.so with each lock setting of the glibc suite: the JVM
# (Locks.java), node's libuv thread pool (uvpool.js), perl's ithreads
# (ithreads.pl) and stress-ng's mutex, pthread and sem stressors.
#
#   runtimes_suite.sh build   OUT             the installed runtimes: OUT/list,
#                                             OUT/left-out, a launcher per
#                                             program in OUT/bin
#   runtimes_suite.sh run     OUT LIB SETTING [-j N] [PROGRAM...]
#                                             run the programs under SETTING;
#                                             "NAME RESULT SECONDS" per program
#                                             in OUT/res/SETTING
#   runtimes_suite.sh check   OUT LIB SETTING [-j N]
#                                             the ctest step: run, then compare
#                                             with glibc's run
#   runtimes_suite.sh table   OUT             pass counts per setting
#   runtimes_suite.sh walls   OUT             program x setting: result, wall
#                                             seconds, ratio to glibc's
#   runtimes_suite.sh left-out OUT            the programs not run, and why
#   runtimes_suite.sh present                 the runtimes installed; exit 77
#                                             if none is
#   runtimes_suite.sh all     OUT LIB         build, every setting, the tables
#   runtimes_suite.sh settings                the settings and their environment
#
# Each program checks its own results (counts, sums, contents) and prints
# one line "ok ..." on stdout at the end.  Its result: exit status 0 and that
# line: PASS; another exit status (or no line): FAIL; killed after
# RUNTIMES_LIMIT seconds (default 120): HANG; killed by a signal: CRASH/SIG.
# Never stderr, where the library writes its own lines.  stress-ng's verdict
# is its exit status (2: a stressor failed, 5: killed by a signal) and its
# log file (no "fail:" line); that log is not its stderr either.
#
# The programs use few rwlocks: of the four only node takes them (OpenSSL's
# locks under crypto.pbkdf2); an rwlock setting runs all four, the others
# then on the library's default mutex lock.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SUITE=runtimes_suite.sh USAGE_LINES=3,25
# shellcheck source=../preload/suite_lib.sh
. "$here/../preload/suite_lib.sh"
LIMIT=${RUNTIMES_LIMIT:-120}
export LIMIT

PROGRAMS="java node perl stress-ng"
BASELINES="glibc wpref:glibc"
# the glibc suite's settings (writer preference: node's OpenSSL rwlocks)
SETTINGS="mcs hmcs clof:tkt-mcs-clh cna cr:mcs asl:mcs tas hemlock rw:hmcs bravo:rw:c-bo-mcs
wpref:rw:c-bo-mcs"
MORE_SETTINGS="ticket clh ttas bo ptl hemlock_ctr twa recip fissile mutexee array glibc-adaptive c-bo-mcs c-tkt-tkt clof:mcs-mcs-tkt cr:hmcs
asl:clof:tkt-mcs-clh rw:mcs bravo:rw:hmcs"

# every program under every setting
setting_tests() { cat "$out/list"; }
# the program that shows the library was loaded and ran the setting's lock:
# a small perl run (mutexes), a small node run (OpenSSL's rwlocks; the only
# program with rwlocks); without those the first program of the list
suite_probe() {
  local t
  case $setting in
    rw-central|rw:*|bravo:*|wpref:*)
      want="rwlock=${setting#wpref:} rdlocks=[1-9]"
      if grep -qx node "$out/list"; then probe=probe-node
      else probe=$(head -1 "$out/list") want="rwlock=${setting#wpref:} "; fi ;;
    *)
      want=$(mutex_want "$setting")
      for t in perl node java stress-ng; do
        if grep -qx "$t" "$out/list"; then probe=probe-$t; break; fi
      done ;;
  esac
}

# run_one LIB SETTING PROGRAM: prints "PROGRAM RESULT SECONDS"
run_one() {
  local lib=$1 setting=$2 t=$3 env rc t0 t1 res pre
  run_env "$lib" "$setting"
  local s=${setting//[:\/]/_}
  local log="$out/log/$t.$s.out" dir="$out/run/$t.$s"
  rm -rf "$dir"
  mkdir -p "$dir" "$out/log"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  (cd "$dir" && env $env "${pre[@]}" TMPDIR="$dir" \
     timeout -k 5 "$LIMIT" "$out/bin/$t") >"$log.stdout" 2>"$log.stderr" </dev/null
  rc=$?
  t1=$(date +%s.%N)
  case $rc in
    0) if grep -q '^ok' "$log.stdout"; then res=PASS; else res=FAIL; fi ;;
    *) res=$(rc_result "$rc"); [[ $res == EXIT/* ]] && res=FAIL ;;
  esac
  { echo "== $t under $setting: exit status $rc, $res"; cat "$log.stdout"
    echo "== stderr"; cat "$log.stderr"; } >"$log"
  rm -f "$log.stdout" "$log.stderr"
  [ "$res" != PASS ] || rm -rf "$dir"
  printf '%s %s %.1f\n' "$t" "$res" "$(echo "$t1 - $t0" | bc)"
}

# the installed runtimes: "NAME" or "NAME: why not" per program
runtime_state() {
  local v
  case $1 in
    java)
      command -v java >/dev/null || { echo "java: no java on PATH"; return; }
      v=$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ { print $2 }')
      v=${v%%.*}
      if [ -z "$v" ] || [ "$v" -lt 11 ]; then echo "java: java ${v:-?} cannot launch a source file (11 or newer)"
      else echo java; fi ;;
    node)
      command -v node >/dev/null || { echo "node: no node on PATH"; return; }
      node -e 'require("crypto").pbkdf2Sync("a", "b", 1, 8, "sha256")' >/dev/null 2>&1 ||
        { echo "node: node cannot run crypto.pbkdf2Sync"; return; }
      echo node ;;
    perl)
      command -v perl >/dev/null || { echo "perl: no perl on PATH"; return; }
      perl -Mthreads -Mthreads::shared -e1 >/dev/null 2>&1 ||
        { echo "perl: perl without ithreads (threads, threads::shared)"; return; }
      echo perl ;;
    stress-ng)
      command -v stress-ng >/dev/null || { echo "stress-ng: no stress-ng on PATH"; return; }
      v=$(stress-ng --stressors 2>/dev/null | tr ' ' '\n' | grep -c -x -E 'mutex|pthread|sem')
      [ "$v" = 3 ] || { echo "stress-ng: no mutex, pthread or sem stressor"; return; }
      echo stress-ng ;;
  esac
}

# launcher OUT/bin/NAME for program NAME at SCALE (the probes: a small run)
launcher() {
  local t=$1 scale=$2 f=$out/bin/$3
  case $t in
    java) printf '#!/bin/sh\nexec java -XX:-UsePerfData %q %s\n' "$here/Locks.java" "$scale" ;;
    node) printf '#!/bin/sh\nUV_THREADPOOL_SIZE=8 exec node %q %s\n' "$here/uvpool.js" "$scale" ;;
    perl) printf '#!/bin/sh\nexec perl %q %s\n' "$here/ithreads.pl" "$scale" ;;
    # its own messages into a log file (its stderr is the library's too);
    # exit status 2: a stressor failed (--verify), 5: killed by a signal
    stress-ng) printf '%s\n' '#!/bin/sh' 'log=./stress-ng.log; rm -f "$log"' \
      "stress-ng --mutex 2 --pthread 2 --sem 2 --verify --timeout $scale --metrics-brief --log-file \"\$log\" >/dev/null" \
      'rc=$?; cat "$log"' \
      '[ "$rc" = 0 ] || { echo "stress-ng: exit status $rc" >&2; exit "$rc"; }' \
      'if grep -q " fail: " "$log"; then echo "stress-ng: fail lines in its log" >&2; exit 1; fi' \
      'grep -q "successful run completed" "$log" || { echo "stress-ng: no successful run line" >&2; exit 1; }' \
      'echo "ok stress-ng mutex pthread sem verified"' ;;
  esac >"$f"
  chmod +x "$f"
}

cmd_build() {
  mkdir -p "$1" || exit 2
  out=$(cd "$1" && pwd)
  local t st
  rm -rf "$out/bin"
  mkdir -p "$out/bin" "$out/log"
  : >"$out/list"
  : >"$out/left-out"
  for t in $PROGRAMS; do
    st=$(runtime_state "$t")
    if [ "$st" = "$t" ]; then
      echo "$t" >>"$out/list"
      case $t in stress-ng) launcher "$t" 2s "$t"; launcher "$t" 1s "probe-$t" ;;
        *) launcher "$t" 1 "$t"; launcher "$t" 0.1 "probe-$t" ;; esac
    else
      echo "$st" >>"$out/left-out"
    fi
  done
  if [ ! -s "$out/list" ]; then
    echo "none of the runtimes ($PROGRAMS) is installed -- skipped"
    exit 77
  fi
  echo "runtimes: $(tr '\n' ' ' <"$out/list")into $out/bin" \
       "($(wc -l <"$out/left-out") left out: runtimes_suite.sh left-out $out)"
}

# all OUT LIB: build, glibc, every setting (one program at a time: the wall
# times are compared), the tables
cmd_all() {
  local lib=$2 bad=0
  (cmd_build "$1") || exit $?
  out=$(cd "$1" && pwd)
  run_all_settings "$lib" 1 || bad=1
  echo
  cmd_walls "$out"
  return $bad
}

case ${1:-} in
  build) shift; cmd_build "$@" ;;
  all) shift; cmd_all "$@" ;;
  present) for t in $PROGRAMS; do st=$(runtime_state "$t"); [ "$st" != "$t" ] || echo "$t"; done |
             grep . || { echo "none of the runtimes ($PROGRAMS) is installed"; exit 77; } ;;
  *) suite_command "$@" ;;
esac
