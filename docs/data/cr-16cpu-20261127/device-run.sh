#!/bin/bash
# The device run of 2026-11-27 (copied to docs/data with its results).
# usage: devrun/run.sh DEADLINE_S [SCALE]   (SCALE=small: a quick local try)
set -u
R="$(cd "$(dirname "$0")/.." && pwd)"; B="$R/devrun/b"
. "$B/env.sh"
deadline=$(( $(date +%s) + $1 )); scale="${2:-full}"
OUT="${OUT:-/tmp/devout}"; mkdir -p "$OUT"; W=/tmp/devwork; rm -rf "$W"; mkdir -p "$W"
exec > >(tee "$OUT/log.txt") 2>&1
left() { echo $(( deadline - $(date +%s) )); }
pack() { tar czf "$OUT/results.tgz.tmp" -C "$W" . && mv "$OUT/results.tgz.tmp" "$OUT/results.tgz"; }
lib="$B/lib/libclof-preload.so"
echo "== $(date -u +%FT%TZ) start, deadline in $(left) s, scale $scale"; cat "$B/VERSIONS"
{ echo "nproc $(nproc)"; lscpu; echo; head -3 /proc/meminfo; uname -a; ldd --version | head -1; head -2 /etc/os-release
  for c in 0 1 2 3 8; do echo "cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null) core $(cat /sys/devices/system/cpu/cpu$c/topology/core_id 2>/dev/null)"; done
  echo "nodes $(cat /sys/devices/system/node/online 2>/dev/null)"; echo; "$B/bin/clof-topology" 2>&1 | head -40; } >"$W/machine.txt" 2>&1
cat "$W/machine.txt" | head -30
echo "== smoke"
ok=1
"$B/bin/pl_leveldb_readrandom" --db /tmp/smk --keys 1000 --threads 2 --duration 0.2 || ok=0
LD_PRELOAD=$lib CLOF_LOCK=cr:mcs CLOF_STATS=1 kcgrasstest wicked -th 2 -it 1 1000 | tail -1 || ok=0
LD_PRELOAD=$lib CLOF_LOCK=cr:mcs "$B/bin/pl_mutexbench" --threads 4 --duration 0.2 || ok=0
command -v memcached memcaslap kccachetest || ok=0
[ $ok = 1 ] || { echo "SMOKE FAILED"; pack; exit 3; }
pack
if [ "$scale" = small ]; then th="2 4"; rep=1; dur=0.3; pairs="0,1"; apps_th="4"; reps2=1
else th="1 2 4 8 16 32 64"; rep=3; dur=0.3; apps_th="8 16"; reps2=1
  pairs="0,1 2,3 4,5 6,7 8,9 10,11"
fi
crl="cr:mcs cr:ticket cr:clh cr:hmcs cr:cna cr:clof:tkt-mcs"
echo "== phase 1: the real programs on 2 cpus, one instance per cpu pair: $pairs ($(left) s left)"
i=0; pids=""
for p in $pairs; do i=$((i + 1))
  timeout -k 5 210 taskset -c "$p" "$R/bench/preload/apps.sh" --bin "$B/bin" --lib "$lib" \
    --threads "$apps_th" --repeats $reps2 --duration 1 --seed $i --locks "$crl mcs clh hmcs" \
    --out "$W/apps2cpu-$i.jsonl" >"$W/apps2cpu-$i.out" 2>&1 & pids+=" $!"
done
wait $pids; pkill -KILL -x memcached 2>/dev/null; pack; tail -3 "$W"/apps2cpu-*.out
echo "== phase 2: pl_mutexbench scaling on every cpu ($(left) s left)"
timeout -k 5 130 "$R/bench/preload/oversub.sh" --bin "$B/bin" --lib "$lib" --threads "$th" --repeats $rep \
  --duration $dur --locks "mcs cr:mcs clh cr:clh ticket cr:ticket hmcs cr:hmcs" --out "$W/oversub.jsonl" >"$W/oversub.out" 2>&1
pack; tail -40 "$W/oversub.out"
echo "== phase 3: the real programs on every cpu ($(left) s left)"
timeout $(( $(left) > 10 ? $(left) - 5 : 5 )) "$R/bench/preload/apps.sh" --bin "$B/bin" --lib "$lib" --threads "$apps_th" --repeats 2 \
  --duration 1 --seed 9 --locks "$crl mcs clh hmcs" --out "$W/apps16cpu.jsonl" >"$W/apps16cpu.out" 2>&1
pack; tail -30 "$W/apps16cpu.out"
echo "== $(date -u +%FT%TZ) done ($(left) s left)"
