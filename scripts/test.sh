#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command: installs what is missing, builds with clang (Release:
# what `cmake -DCMAKE_BUILD_TYPE=Release` users get; the fuzz harnesses there
# are libFuzzer programs with ASan+UBSan, and their corpora are replayed), with
# gcc in Release (compile only) and in RelWithDebInfo, warnings being errors
# in all three, runs a subset of the tests cross-built for Armv8 under
# qemu (scripts/test-arm.sh --ci), and runs every test of the gcc
# RelWithDebInfo build with ctest.  ctest's summary is the last thing it prints.
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
echo "== build (clang, Release, -Werror) =="
cmake -S . -B build-clang -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=Release -DCLOF_WERROR=ON >/dev/null
build build-clang
echo "== fuzz corpora (clang: libFuzzer, ASan+UBSan) =="
if ! out=$(ctest --test-dir build-clang -L fuzz --output-on-failure 2>&1); then
  echo "$out"
  exit 1
fi
echo "$out" | grep "tests passed"
echo "== build (gcc, Release, -Werror) =="
cmake -S . -B build-gcc-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCLOF_WERROR=ON >/dev/null
build build-gcc-release
echo "== build (gcc, RelWithDebInfo, -Werror) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLOF_WERROR=ON >/dev/null
build build
# Armv8 under qemu-aarch64, both atomics flavours: the CI subset of
# scripts/test-arm.sh (which runs everything; docs/arm.md), before the native
# tests so that ctest's summary stays the last output
arm_status=0
scripts/test-arm.sh --ci || arm_status=$?
if [ $arm_status -ne 0 ]; then
  echo "== Arm subset FAILED (above); the native tests follow =="
fi
# the genmc label must run in CI, never skip (tests/genmc); so must the Open
# POSIX suite (tests/posix)
export CLOF_REQUIRE_GENMC=1
export CLOF_REQUIRE_POSIX=1
echo "== tests =="
ctest --test-dir build -j "$jobs" --output-on-failure --timeout 600 "$@"
exit $arm_status
