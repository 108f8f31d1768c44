#!/usr/bin/env bash
# device run, 2026-11-27: 16-cpu machine. Writes into $OUT.
set -u
cd "$(dirname "$0")/.."
D=devrun; export LD_LIBRARY_PATH=$PWD/$D/lib
log=$OUT/log.txt; diag=$OUT/diag.txt
exec > >(tee -a "$log") 2>&1
echo "== facts $(date -u +%FT%TZ) clof $(cat $D/commit)"
{ nproc; lscpu | grep -E 'Model name|Thread|Core|Socket|NUMA|L3|L2'; uname -r; ldd --version | head -1; cat /proc/loadavg;
  for c in 0 1 8; do echo "cpu$c siblings: $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null) core_id $(cat /sys/devices/system/cpu/cpu$c/topology/core_id 2>/dev/null)"; done
  $D/clof-topology; } > "$diag" 2>&1
cat "$diag"
echo "== 1. cr:cna diagnosis: T=16 and 64, 1 s each, CLOF_STATS=1 (flat = CLOF_EMULATE=core:16)" | tee -a "$diag"
for r in 1 2 3; do
  for T in 16 64; do
  for v in glibc cna cr:cna cna+flat cr:cna+flat mcs cr:mcs; do
    l=${v%+flat}; env=""
    [ "$v" != "$l" ] && env="CLOF_EMULATE=core:16"
    if [ "$l" = glibc ]; then res=$($D/pl_mutexbench --threads $T --duration 1 2>&1)
    else res=$(env $env CLOF_STATS=1 LD_PRELOAD=$PWD/$D/new.so CLOF_LOCK=$l $D/pl_mutexbench --threads $T --duration 1 2>&1); fi
    ops=$(echo "$res" | grep -o '"ops_per_s":[0-9.]*' | cut -d: -f2)
    fair=$(echo "$res" | grep -o '"share_min":[0-9.]*,"share_max":[0-9.]*')
    st=$(echo "$res" | grep -o 'contended=.*trylock_busy' )
    echo "r=$r T=$T $v ops/s=$ops $fair $st" | tee -a "$diag"
  done; done
done
echo "== 2. preload oversub $(date -u +%T)"
bench/preload/oversub.sh --bin $D --lib $D/new.so --threads "16 32 64" --repeats 3 --duration 1 \
  --locks "mcs cr:mcs cna cr:cna clh cr:clh hmcs cr:hmcs ticket cr:ticket cr:clof:tkt-mcs" --out $OUT/oversub.jsonl | tail -40
echo "== 3. LevelDB $(date -u +%T)"
bench/preload/apps.sh --bin $D --lib $D/new.so --programs leveldb --threads "16 64" --repeats 3 --duration 2 \
  --locks "mcs cr:mcs hmcs cr:hmcs cna cr:cna clh cr:clh" --out $OUT/apps.jsonl | tail -40
echo "== 4. native clof-bench, new vs old (b197c8a^: cr state sharing the inner lock's line) $(date -u +%T)"
for r in 1 2 3; do for T in 16 64; do
  for v in mcs cr:mcs cr:mcs@old cna cr:cna cr:cna@old hmcs cr:hmcs cr:hmcs@old; do
    b=$D/clof-bench; l=${v%@old}; [ "$v" != "$l" ] && b=$D/clof-bench-old
    echo "r=$r T=$T $v $($b --lock $l --threads $T --duration 1 2>&1 | tail -1)"
  done; done; done | tee $OUT/native.txt
echo "== done $(date -u +%T)"
