#!/usr/bin/env bash
# device run 3, 2026-11-27: native clof-bench, CLH with the free mark after a free acquisition only (new) against 2b09b10 (old),
# interleaved, 16 cpus: the contended hand-over (the release now reads the tail before it writes the node).
set -u
cd "$(dirname "$0")/.."
exec > >(tee -a "$OUT/native.txt") 2>&1
echo "== machine $(date -u +%T) $(nproc) cpus $(grep -m1 'model name' /proc/cpuinfo) $(cat /proc/loadavg)"
for r in 1 2 3 4 5; do for T in 1 2 8 16; do for v in new old; do
  x=$(devrun/clof-bench-$v --lock clh --threads $T --duration 1 --json 2>/dev/null | grep -o '"ops_per_s":[0-9.e+]*' | head -1 | cut -d: -f2)
  echo "$r $T $v $x"
done; done; done
echo "== done $(date -u +%T)"
