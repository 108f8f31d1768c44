#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: installs what is missing, builds with clang in Debug
# (its warnings come from the front end, the same at every optimisation
# level, and -O0 compiles in a quarter of Release's time; the fuzz harnesses
# there are libFuzzer programs with ASan+UBSan, and their corpora are
# replayed) and with gcc in Release with -g (the optimisation of the build
# scripts/run.sh makes, with debug information so that the profile's
# symbolization and the stripped-install test have something to read),
# warnings being errors in both, runs a subset of the tests cross-built for
# Armv8 under qemu (scripts/test-arm.sh --ci), and runs every test of the
# gcc build with ctest.  ctest's summary is the last thing it prints.  (The
# other build types: scripts/build-matrix.sh.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
# a build prints nothing when it succeeds and its errors when it fails
build() {
  local out
  if ! out=$(cmake --build "$1" -j "$jobs" 2>&1); then
    echo "$out" | grep -E -A8 "FAILED:|error" | head -80
    echo "== build of $1 FAILED ==" >&2
    exit 1
  fi
}
# each phase's line says how long the run has taken so far
phase() { echo "== $1 == (at ${SECONDS} s)"; }
phase "build (clang, Debug, -Werror)"
# the clang build is for its warnings and the fuzz harnesses: the
# compositions of clof-bench and of the preload library are instances of
# the same generator code, so it builds fewer of them (clof-bench's up to 3
# levels, which its cr: list needs, the preload library's 2; every part
# still composed; the gcc build below has them all)
cmake -S . -B build-clang -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=Debug -DCLOF_WERROR=ON -DCLOF_BENCH_COMPOSITION_LEVELS=3 \
      -DCLOF_PRELOAD_COMPOSITIONS=tkt,mcs,clh,hem:2 >/dev/null
build build-clang
phase "fuzz corpora (clang: libFuzzer, ASan+UBSan)"
if ! out=$(ctest --test-dir build-clang -L fuzz --output-on-failure 2>&1); then
  echo "$out"
  exit 1
fi
echo "$out" | grep "tests passed"
phase "build (gcc, Release with -g, -Werror)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DCMAKE_CXX_FLAGS=-g \
      -DCLOF_WERROR=ON >/dev/null
build build
# Armv8 under qemu-aarch64, both atomics flavours: the CI subset of
# scripts/test-arm.sh (which runs everything; docs/arm.md), before the native
# tests so that ctest's summary stays the last output
arm_status=0
phase "Arm subset (qemu-aarch64)"
scripts/test-arm.sh --ci || arm_status=$?
if [ $arm_status -ne 0 ]; then
  echo "== Arm subset FAILED (above); the native tests follow =="
fi
# optional outside tools (GenMC, the Open POSIX suite, libvsync) are found
# where the user installed them; their tests are skipped, never failed,
# where they are not, and the end of this script says what was skipped and why
phase "tests"
# ctest starts the tests it knows to be long first (its cost file, written
# by every run); a fresh build folder has none, so it gets the seed
# tests/ctest-cost-seed.txt (name, runs, seconds of the tests of 8 s or more
# in a run of this command), which keeps a long model check from starting
# last and running alone
cost=build/Testing/Temporary/CTestCostData.txt
if [ ! -f "$cost" ]; then
  mkdir -p "$(dirname "$cost")"
  cp tests/ctest-cost-seed.txt "$cost"
fi
# ctest's output is kept so that its summary line can close the run after
# the lines that say what was skipped (scripts/skipped.py)
log=build/Testing/Temporary/test-sh.log
ctest_status=0
ctest --test-dir build -j "$jobs" --output-on-failure --timeout 600 "$@" 2>&1 | tee "$log" \
  || ctest_status=$?
skipped=$(python3 scripts/skipped.py build "$log")
if [ -n "$skipped" ]; then
  echo
  echo "== skipped (optional tools not installed) =="
  echo "$skipped"
  grep -E "^[0-9]+% tests passed" "$log" | tail -1
fi
[ $ctest_status -ne 0 ] && exit $ctest_status
exit $arm_status
