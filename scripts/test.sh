#!/usr/bin/env bash
# The test command: installs what is missing, builds with clang (warnings are
# errors) and with gcc, runs a subset of the tests cross-built for Armv8
# under qemu (scripts/test-arm.sh --ci), and runs every test with ctest.
# ctest's summary is the last thing it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
echo "== build (clang, -Werror) =="
cmake -S . -B build-clang -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLOF_WERROR=ON >/dev/null
cmake --build build-clang -j "$jobs" >/dev/null
echo "== build (gcc, -Werror) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLOF_WERROR=ON >/dev/null
cmake --build build -j "$jobs" >/dev/null
# Armv8 under qemu-aarch64, both atomics flavours: the CI subset of
# scripts/test-arm.sh (which runs everything; docs/arm.md), before the native
# tests so that ctest's summary stays the last output
arm_status=0
scripts/test-arm.sh --ci || arm_status=$?
if [ $arm_status -ne 0 ]; then
  echo "== Arm subset FAILED (above); the native tests follow =="
fi
echo "== tests =="
ctest --test-dir build -j "$jobs" --output-on-failure --timeout 600 "$@"
exit $arm_status
