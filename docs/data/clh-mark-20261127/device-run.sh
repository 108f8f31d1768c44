#!/usr/bin/env bash
# device run, 2026-11-27: CLH's free mark (new.so, 0cb9cf8) against 2b09b10 (old.so), 16 cpus.
set -u
cd "$(dirname "$0")/.."
D=devrun; export LD_LIBRARY_PATH=$PWD/$D/lib
exec > >(tee -a "$OUT/log.txt") 2>&1
echo "== machine $(date -u +%T) $(nproc) cpus $(grep -m1 'model name' /proc/cpuinfo) $(cat /proc/loadavg)"
echo "== oversub $(date -u +%T)"
bench/preload/oversub.sh --bin $D --lib $D/new.so --lib-b $D/old.so --threads "2 16 32 64" --repeats 3 --duration 1 \
  --locks "clh clh@b cr:clh cr:clh@b mcs cr:mcs" --out $OUT/oversub.jsonl | tail -30
echo "== LevelDB $(date -u +%T)"
bench/preload/apps.sh --bin $D --lib $D/new.so --lib-b $D/old.so --programs leveldb --threads "16 64" --repeats 3 --duration 2 \
  --locks "clh clh@b cr:clh cr:clh@b cr:mcs" --out $OUT/apps.jsonl | tail -20
echo "== done $(date -u +%T)"
