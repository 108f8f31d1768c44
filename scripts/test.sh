#!/usr/bin/env bash
# The test command: installs what is missing, builds with clang (warnings are
# errors) and with gcc, and runs every test with ctest.  ctest's summary is the
# last thing it prints.
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
echo "== tests =="
ctest --test-dir build -j "$jobs" --output-on-failure --timeout 600 "$@"
