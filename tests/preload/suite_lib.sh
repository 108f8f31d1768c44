# SPDX-License-Identifier: MIT
# suite_lib.sh -- what the outside test suites of the preload library share
# (tests/glibc/glibc_suite.sh: glibc's own pthread tests; tests/posix/
# posix_suite.sh: the Open POSIX suite): the lock settings and their
# environment, running a suite's programs under a setting, judging a setting
# against its baseline (glibc), the results table.  Sourced; the suite
# defines before sourcing SUITE (its name, for messages) and USAGE_LINES
# (the lines of its opening comment that say how to call it), and after it
#   setting_tests SETTING   the tests a setting runs (stdin: nothing; $out/list)
#   run_one LIB SETTING T   run one test, print "T RESULT SECONDS"
#   suite_probe SETTING     set $probe (a test of the list) and $want (the
#                           CLOF_STATS line the library must print under it)
# and BASELINES, SETTINGS (CI's), MORE_SETTINGS (`all`'s others).
here_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
topo_asl=$here_lib/asl-3level.topo
EMU=numa:2,cache:2,core:2
export topo_asl EMU

# SETTING -> its environment (besides LD_PRELOAD).  The mutex settings leave
# the rwlocks to glibc, so that a failure names one lock; the rwlock settings
# keep the library's default mutex lock (the rwlock tests use few mutexes).
setting_env() {
  case $1 in
    glibc) echo "" ;;
    *+*) # MUTEX+RWLOCK: a mutex setting with an rwlock setting's CLOF_RWLOCK
      local m r
      m=$(setting_env "${1%%+*}") && r=$(setting_env "${1#*+}") || return 1
      [[ $m == *CLOF_EMULATE=* ]] && r=${r/CLOF_EMULATE=$EMU/}
      echo "${m/CLOF_RWLOCK=glibc/} $r" | tr -s ' ' ;;
    wpref:*) setting_env "${1#wpref:}" ;;
    mcs|ticket|clh|tas|ttas|bo|ptl|hemlock|hemlock_ctr|twa|recip|fissile|mutexee|array|glibc-adaptive)
      echo "CLOF_LOCK=$1 CLOF_RWLOCK=glibc" ;;
    hmcs|cna|c-*|a-c-*|clof:*) echo "CLOF_LOCK=$1 CLOF_EMULATE=$EMU CLOF_RWLOCK=glibc" ;;
    cr:*) echo "CLOF_LOCK=$1 CLOF_EMULATE=$EMU CLOF_CR_ACTIVE=1 CLOF_RWLOCK=glibc" ;;
    asl:*) echo "CLOF_LOCK=$1 CLOF_EMULATE=$topo_asl CLOF_RWLOCK=glibc" ;;
    rw-central|rw:*|bravo:*) echo "CLOF_RWLOCK=$1 CLOF_EMULATE=$EMU" ;;
    *) echo "$SUITE: unknown setting '$1'" >&2; return 1 ;;
  esac
}
# The CLOF_STATS=1 line (its pattern) that shows a mutex setting runs:
# its lock and its counts (glibc-adaptive runs glibc's own functions, so
# nothing is counted)
mutex_want() {
  case $1 in
    glibc-adaptive) echo "lock=glibc-adaptive " ;;
    *) echo "lock=${1//clof:/} locks_replaced=[0-9]* acquisitions=[1-9]" ;;
  esac
}
# The tests of a suite's list (stdin) that SETTING runs: all of them when
# SETTING is one of HEAVY_SETTINGS (or that is "all"), else all but the
# suite's HEAVY ones (long stress tests: a full run has them everywhere, CI
# under a few settings)
heavy_filter() {
  local h=" ${HEAVY_SETTINGS:-all} "
  if [ -z "${HEAVY:-}" ] || [ "$h" = " all " ] || [[ $h == *" $1 "* ]]; then cat
  else grep -v -x -F -f <(printf '%s\n' $HEAVY); fi
}
# the baseline a setting is judged against
baseline_of() { case $1 in wpref:*) echo wpref:glibc ;; *) echo glibc ;; esac; }
# LD_PRELOAD of a setting
preload_of() {
  local lib=$1 s=$2 p=
  case $s in wpref:*) p=${SUITE_RWPREF:?set SUITE_RWPREF to the rwpref library}; s=${s#wpref:} ;; esac
  [ "$s" = glibc ] || p=${p:+$p:}$lib
  echo "$p"
}

# For a suite's run_one: the environment of SETTING under LIB, in $env
# (setting_env) and $pre (LD_PRELOAD=..., or nothing under glibc)
run_env() {
  local p
  env=$(setting_env "$2") || exit 2
  p=$(preload_of "$1" "$2") || exit 2
  pre=()
  [ -z "$p" ] || pre=(LD_PRELOAD="$p")
}
# The result of an exit status the suite's own codes do not name: killed by
# the time limit (timeout's 124, or 137 after its -k) HANG, by a signal
# CRASH/SIG, else EXIT/N
rc_result() {
  case $1 in
    124|137) echo HANG ;;
    *) if [ "$1" -gt 128 ]; then echo "CRASH/$(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128)))"
       else echo "EXIT/$1"; fi ;;
  esac
}

# The tests (stdin) longest first, by the seconds of an earlier run: the
# setting's own (OUT/res/SETTING) or else its baseline's; tests that run
# lacks come first, in list order; with neither run, the list's order.  Most
# of the suite's time is sleep, and xargs -P starts the tests in this order:
# a 15 s test started last would run alone at the end.
longest_first() {
  local ref="$out/res/${1//[:\/]/_}" bs
  # (an empty run, one that was cut short, orders nothing: awk would read
  # the list as its table)
  if [ ! -s "$ref" ]; then bs=$(baseline_of "$1"); ref="$out/res/${bs//[:\/]/_}"; fi
  if [ ! -s "$ref" ]; then cat; return; fi
  awk 'NR == FNR { t[$1] = $3; next } { print (($0 in t) ? t[$0] : 1e9), FNR, $0 }' "$ref" - |
    sort -k1,1gr -k2,2n | cut -d' ' -f3-
}

cmd_run() {
  out=$(cd "$1" && pwd) || exit 2
  local lib setting=$3 jobs=${POSIX_JOBS:-2}
  lib=$(realpath "$2") || exit 2
  shift 3
  if [ "${1:-}" = -j ]; then jobs=$2; shift 2; fi
  [ -f "$out/list" ] || { echo "$SUITE: $out/list missing ($SUITE build first)" >&2; exit 2; }
  setting_env "$setting" >/dev/null || exit 2
  local tests
  if [ $# -gt 0 ]; then tests=$(printf '%s\n' "$@" | longest_first "$setting")
  else tests=$(setting_tests "$setting" | longest_first "$setting"); fi
  mkdir -p "$out/res"
  local res="$out/res/${setting//[:\/]/_}"
  export out
  export -f run_one setting_env preload_of run_env rc_result
  printf '%s\n' "$tests" | xargs -P "$jobs" -I{} bash -c 'run_one "$0" "$1" "$2"' "$lib" "$setting" {} \
    | tee "$res.new"
  sort "$res.new" >"$res"
  rm -f "$res.new"
  local want got
  want=$(printf '%s\n' "$tests" | grep -c .) got=$(wc -l <"$res")
  if [ "$want" -eq 0 ]; then
    echo "$SUITE: no test to run under $setting" >&2
    exit 1
  fi
  if [ "$got" -ne "$want" ]; then
    echo "$SUITE: $got results of $want tests under $setting" >&2
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
  [ -f "$base" ] || { echo "$SUITE: $base missing (the $bs run first)" >&2; exit 2; }
  # the library must be there and run the setting's lock: one program with
  # CLOF_STATS=1, whose line at exit names the lock and counts acquisitions;
  # it runs beside the setting's tests (it takes 4-8 s, most of it sleep),
  # and the check fails on its line before it looks at their results
  local probe want env
  suite_probe "$setting"
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
  [ -f "$out/res/glibc" ] || { echo "$SUITE: $out/res/glibc missing" >&2; exit 2; }
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


# left-out OUT: the tests a suite's build left out, and why
cmd_left_out() {
  out=$1
  [ -f "$out/left-out" ] || { echo "$SUITE: $out/left-out missing (build first)" >&2; exit 2; }
  sed 's/^/- /' "$out/left-out"
}

# walls OUT: setting x test, result and wall seconds with the ratio to
# glibc's (a markdown table; the runtimes' and CPython's suites)
cmd_walls() {
  out=$1
  [ -f "$out/res/glibc" ] || { echo "$SUITE: $out/res/glibc missing" >&2; exit 2; }
  local s f progs
  progs=$(awk '{ print $1 }' "$out/res/glibc" | tr '\n' ' ')
  printf '| setting |'; printf ' %s |' $progs; echo
  printf '| --- |'; for s in $progs; do printf ' --- |'; done; echo
  for s in $BASELINES $SETTINGS $MORE_SETTINGS; do
    f="$out/res/${s//[:\/]/_}"
    [ -f "$f" ] || continue
    awk -v s="$s" -v progs="$progs" 'NR == FNR { g[$1] = $3; next } { r[$1] = $2; w[$1] = $3 }
      END {
        n = split(progs, p, " ")
        printf "| `%s` |", s
        for (i = 1; i <= n; i++) {
          if (!(p[i] in r)) { printf " - |"; continue }
          ratio = g[p[i]] > 0 ? sprintf(" (%.1fx)", w[p[i]] / g[p[i]]) : ""
          printf " %s %.1f s%s |", r[p[i]], w[p[i]], s == "glibc" ? "" : ratio
        }
        print ""
      }' "$out/res/glibc" "$f"
  done
}


# every setting after the baselines, then the table (a suite's `all`, after
# its build): JOBS programs at once; returns 1 if a check failed
run_all_settings() {
  local lib=$1 jobs=$2 s bad=0
  for s in $BASELINES; do (cmd_run "$out" "$lib" "$s" -j "$jobs" >/dev/null) || exit 1; done
  for s in $SETTINGS $MORE_SETTINGS; do
    (set -o pipefail; cmd_check "$out" "$lib" "$s" -j "$jobs" | grep -v '^not held') || bad=1
  done
  cmd_table "$out"
  return $bad
}

# the commands both suites have (a suite handles build, all and its own first)
suite_command() {
  local s
  case ${1:-} in
    run) shift; cmd_run "$@" ;;
    check) shift; cmd_check "$@" ;;
    table) shift; cmd_table "$@" ;;
    left-out) shift; cmd_left_out "$@" ;;
    walls) shift; cmd_walls "$@" ;;
    settings) # NAME run (a baseline some setting needs) or NAME check, then the environment
      local b needed=" "
      for s in $SETTINGS; do needed+="$(baseline_of "$s") "; done
      for b in $BASELINES; do
        [[ $needed == *" $b "* ]] && echo "$b run $(setting_env "$b")"
      done
      for s in $SETTINGS; do echo "$s check $(setting_env "$s")"; done ;;
    *) sed -n "${USAGE_LINES}p" "$0" >&2; exit 2 ;;
  esac
}
