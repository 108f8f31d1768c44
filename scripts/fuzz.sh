#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fuzzing campaign (docs/reliability.md "Fuzzing"):
#
#   scripts/fuzz.sh HARNESS SECONDS      one harness (topology_file, emulate, sysfs,
#                                        asl_env, preload_env, sim_profile)
#   scripts/fuzz.sh all SECONDS          each harness in turn, SECONDS each
#   scripts/fuzz.sh list                 the harnesses
#
# Builds the libFuzzer harnesses (clang, AddressSanitizer +
# UndefinedBehaviorSanitizer, LeakSanitizer on) in build-fuzz/ and runs each
# on a working corpus build-fuzz/fuzz-corpus/HARNESS, seeded from
# tests/fuzz/corpus/HARNESS and kept between runs.  A finding stops that
# harness; its input is saved in build-fuzz/fuzz-artifacts/HARNESS/
# (crash-*, timeout-*, leak-*, oom-*).  For each harness one line:
#
#   HARNESS seconds=S execs=N crashes=C timeouts=T leaks=L ooms=O corpus=FILES
#
# and the same, tab-separated, appended to build-fuzz/fuzz-results.tsv.
# The status is 1 when anything was found.  A finding goes, after the fix,
# into tests/fuzz/corpus/HARNESS/ (ctest -L fuzz replays it in every build).
# Environment: FUZZ_NICE (default 19), FUZZ_TIMEOUT (seconds one input may
# take, default 10), FUZZ_BUILD (the build directory, default build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
B=${FUZZ_BUILD:-build-fuzz}
all=(topology_file emulate sysfs asl_env preload_env sim_profile)

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
if [ "$1" = list ]; then printf '%s\n' "${all[@]}"; exit 0; fi
[ $# -eq 2 ] || usage
what=$1 secs=$2
[[ "$secs" =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "fuzz.sh: SECONDS must be a positive number, not '$secs'" >&2; exit 2; }
if [ "$what" = all ]; then
  harnesses=("${all[@]}")
else
  case " ${all[*]} " in
    *" $what "*) harnesses=("$what") ;;
    *) echo "fuzz.sh: unknown harness '$what'; known: ${all[*]} (or all)" >&2; exit 2 ;;
  esac
fi
command -v clang >/dev/null || { echo "fuzz.sh: needs clang and libclang-rt (scripts/deps.sh)" >&2; exit 2; }

if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$B" -j "${FUZZ_BUILD_JOBS:-2}" --target "${targets[@]}" >/dev/null
grep -q "CLOF_HAVE_LIBFUZZER:INTERNAL=1" "$B/CMakeCache.txt" ||
  { echo "fuzz.sh: $B has no libFuzzer (clang with libclang-rt-dev needed)" >&2; exit 2; }

status=0
for h in "${harnesses[@]}"; do
  corpus=$B/fuzz-corpus/$h art=$B/fuzz-artifacts/$h log=$B/fuzz-logs/$h.log
  mkdir -p "$corpus" "$art" "$(dirname "$log")"
  cp -n tests/fuzz/corpus/"$h"/* "$corpus"/ 2>/dev/null || true
  before=$(find "$art" -type f | wc -l)
  start=$(date +%s)
  # -max_total_time ends the run; a finding ends it earlier (status != 0)
  rc=0
  nice -n "${FUZZ_NICE:-19}" "$B/bin/fuzz_$h" -max_total_time="$secs" \
      -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$art/" "$corpus" >"$log" 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(awk '/stat::number_of_executed_units:/ {s += $2} END {print s + 0}' "$log")
  crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'deadly-*' \) -newermt "@$start" | wc -l)
  timeouts=$(find "$art" -type f -name 'timeout-*' -newermt "@$start" | wc -l)
  leaks=$(find "$art" -type f -name 'leak-*' -newermt "@$start" | wc -l)
  ooms=$(find "$art" -type f -name 'oom-*' -newermt "@$start" | wc -l)
  files=$(find "$corpus" -type f | wc -l)
  line="$h seconds=$took execs=$execs crashes=$crashes timeouts=$timeouts leaks=$leaks ooms=$ooms corpus=$files"
  echo "$line"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$h" "$took" "$execs" \
    "$crashes" "$timeouts" "$leaks" "$ooms" "$files" >>"$B/fuzz-results.tsv"
  if [ $((crashes + timeouts + leaks + ooms)) -gt 0 ] || [ "$rc" -ne 0 ]; then
    echo "  found something (exit $rc): $art/ and $log" >&2
    grep -m3 -E "ERROR|SUMMARY|check failed|runtime error" "$log" >&2 || true
    status=1
  fi
done
exit $status
