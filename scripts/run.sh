#!/usr/bin/env bash
# The main job on this machine: install what is missing, build, and benchmark
# every lock clof knows (plus glibc and Concurrency Kit peers) at several
# thread counts, interleaved and repeated, printing a table of medians and
# ratios to glibc; then the deterministic uncontended cost (callgrind).
# Results go to results/.  Options are passed to bench/oversub.sh, e.g.
#   scripts/run.sh --threads "1 2 4 8 16" --repeats 5 --duration 1
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
cpus=$(nproc)
echo "clof: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $cpus cpus"
echo "clof: benchmarking every lock (about 2 minutes)"
bench/oversub.sh --bin build/bin --threads "1 2 $((cpus * 2)) $((cpus * 4))" --repeats 3 --duration 0.5 "$@"
echo
echo "clof: uncontended cost (callgrind instructions per acquire+release)"
bench/callgrind.sh --bin build/bin
