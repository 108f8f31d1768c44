#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: the CLoF workflow on this machine (docs/workflow.md).
#   1. install what is missing, build (build/, or $CLOF_BUILD_DIR; a folder
#      configured before keeps its generator and build type);
#   2. show the machine's hierarchy (clof topology);
#   3. clof select: the scripted benchmark of every composition of ticket, MCS,
#      CLH and Hemlock over the hierarchy's levels plus the baselines (MCS, HMCS,
#      CNA, C-BO-MCS, glibc), interleaved runs, progress and ETA; the HC-best,
#      LC-best and worst locks; clof_best.h, libclof-best.so, the hierarchy file;
#      the report (Markdown + HTML) with the beam plot, fairness, P99 latency,
#      handover locality, the heatmap, the machine and the parameters.
# glibc's mutex competes like every candidate: the first line of the result
# is the verdict ("use LOCK" only when its interval against glibc clears 1,
# else "keep glibc's locks" and no clof_best.h / libclof-best.so).
# On a machine that shows one level (no NUMA: this 2-vCPU VM) clof select says
# so and measures the locks that make sense on its real cpus (basic locks,
# cr:, glibc); the compositions over an emulated machine are a demonstration
# (clof select --emulate numa:2,cache:2,core:2) that writes no artifact.
# Options go to clof select, e.g.
#   scripts/run.sh --threads 1,2,4,8,16 --runs 5 --duration 0.5
#   scripts/run.sh --topology my.topo --levels cache,numa
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
build="${CLOF_BUILD_DIR:-build}"
scripts/deps.sh
echo "clof: building in $build/ (a first build takes 8-10 minutes on 2 vCPUs)"
if [ -f "$build/CMakeCache.txt" ]; then
  # a folder the README's build (or an earlier run) configured: keep its
  # generator and build type
  cmake -S . -B "$build" >/dev/null
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j "$(nproc)" >/dev/null
echo "clof: built in $(( $(date +%s) - t0 )) s"
echo "clof: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cpus;" \
     "this machine's hierarchy:"
"$build/bin/clof" topology --quiet | sed 's/^/  /'
out="${CLOF_RESULTS:-$build/results}/select-$(date +%Y%m%d-%H%M%S)"
t1=$(date +%s)
rc=0
"$build/bin/clof" select --out "$out" "$@" || rc=$?
t2=$(date +%s)
echo
echo "clof: the workflow took $(( t2 - t1 )) s (build and setup $(( t1 - t0 )) s); load average now $(cut -d' ' -f1 /proc/loadavg)"
if [ -f "$out/ranking.txt" ]; then
  echo "clof: $(head -1 "$out/ranking.txt")"
fi
if [ -f "$out/report.md" ]; then
  echo "clof: report:    $out/report.md  (self-contained: $out/report.html)"
fi
if [ -f "$out/clof_best.h" ]; then
  echo "clof: artifacts: $out/clof_best.h  $out/hierarchy.topo  $( [ -f "$out/libclof-best.so" ] && echo "$out/libclof-best.so" || echo "(libclof-best.so: see the report)")"
  echo "clof: run a program over the selected lock: $build/bin/clof run --select $out -- PROGRAM ARGS"
elif [ -f "$out/clof-best.env" ]; then
  echo "clof: no clof_best.h or libclof-best.so: the verdict keeps glibc's locks ($out/clof-best.env says why)"
fi
exit $rc
