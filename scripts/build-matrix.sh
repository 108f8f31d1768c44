#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build matrix of docs/reliability.md "Builds": every build type with gcc
# and clang, the whole tree, warnings counted (not errors, so that one run
# lists them all).
#
#   scripts/build-matrix.sh                  all eight (one at a time, -j2)
#   scripts/build-matrix.sh gcc-MinSizeRel clang-Debug ...
#
# Each combination builds in build-mx-COMPILER-TYPE/ with its output in
# build-mx-COMPILER-TYPE/matrix.log; one line each:
#   COMPILER-TYPE rc=STATUS warnings=N seconds=S
# Exit status 1 when a build failed or warned.  JOBS (default 2) sets -j.
set -uo pipefail
cd "$(dirname "$0")/.."
combos=("$@")
[ ${#combos[@]} -gt 0 ] || combos=(gcc-Debug gcc-Release gcc-RelWithDebInfo gcc-MinSizeRel
                                   clang-Debug clang-Release clang-RelWithDebInfo clang-MinSizeRel)
status=0
for combo in "${combos[@]}"; do
  cc=${combo%%-*} bt=${combo#*-}
  case "$cc" in
    gcc) cx=(-DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++) ;;
    clang) cx=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++) ;;
    *) echo "build-matrix.sh: '$combo': expected gcc-TYPE or clang-TYPE" >&2; exit 2 ;;
  esac
  case "$bt" in
    Debug|Release|RelWithDebInfo|MinSizeRel) ;;
    *) echo "build-matrix.sh: '$combo': TYPE is Debug, Release, RelWithDebInfo or MinSizeRel" >&2; exit 2 ;;
  esac
  d=build-mx-$cc-$bt log=build-mx-$cc-$bt/matrix.log
  mkdir -p "$d"
  start=$(date +%s)
  { cmake -S . -B "$d" -G Ninja "${cx[@]}" -DCMAKE_BUILD_TYPE="$bt" &&
    cmake --build "$d" -j "${JOBS:-2}"; } >"$log" 2>&1
  rc=$?
  n=$(grep -c 'warning:' "$log")
  echo "$combo rc=$rc warnings=$n seconds=$(( $(date +%s) - start ))"
  [ "$rc" -ne 0 ] || [ "$n" -ne 0 ] && status=1
done
exit $status
