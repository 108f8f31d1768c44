#!/usr/bin/env bash
# device run 2, 2026-11-27: the cr: layer's quiet growth (grow.so) against 8c6d248 (old.so), 16 cpus.
set -u
cd "$(dirname "$0")/.."
D=devrun; export LD_LIBRARY_PATH=$PWD/$D/lib
exec > >(tee -a "$OUT/log2.txt") 2>&1
echo "== stats $(date -u +%T) $(cat /proc/loadavg)"
for T in 16 64; do for l in cr:mcs cr:cna cr:hmcs; do for so in grow old; do
  res=$(CLOF_STATS=1 LD_PRELOAD=$PWD/$D/$so.so CLOF_LOCK=$l $D/pl_mutexbench --threads $T --duration 1 2>&1)
  echo "T=$T $l $so $(echo "$res" | grep -o '"ops_per_s":[0-9.]*') $(echo "$res" | grep -o 'contended=.*trylock_busy')"
done; done; done
echo "== oversub $(date -u +%T)"
bench/preload/oversub.sh --bin $D --lib $D/grow.so --lib-b $D/old.so --threads "16 32 64" --repeats 3 --duration 1 \
  --locks "mcs cr:mcs cr:mcs@b cna cr:cna cr:cna@b hmcs cr:hmcs cr:hmcs@b cr:clh cr:clh@b" --out $OUT/oversub2.jsonl | tail -24
echo "== LevelDB $(date -u +%T)"
bench/preload/apps.sh --bin $D --lib $D/grow.so --lib-b $D/old.so --programs leveldb --threads "16 64" --repeats 2 --duration 2 \
  --locks "cr:mcs cr:mcs@b cr:hmcs cr:hmcs@b" --out $OUT/apps2.jsonl | tail -14
echo "== done $(date -u +%T)"
