#!/usr/bin/env bash
# device run 4, 2026-11-27: fairness at T = 64 on 16 cpus, 8 s per lock, the library with the quiet growth.
set -u
cd "$(dirname "$0")/.."
D=devrun
for l in glibc cr:mcs cr:hmcs cr:cna; do
  if [ $l = glibc ]; then $D/pl_mutexbench --threads 64 --duration 8 --wait 2>&1 | tail -1
  else CLOF_STATS=1 LD_PRELOAD=$PWD/$D/grow.so CLOF_LOCK=$l $D/pl_mutexbench --threads 64 --duration 8 --wait 2>&1 | tail -2; fi
done | tee $OUT/fair64.txt
