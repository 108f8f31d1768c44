#!/usr/bin/env bash
# device run 3, 2026-11-27: T = 32 on 16 cpus (2 threads per cpu), cr:mcs/cr:hmcs with the active set capped (CLOF_CR_ACTIVE), CLOF_STATS=1.
set -u
cd "$(dirname "$0")/.."
D=devrun
exec > >(tee -a "$OUT/log3.txt") 2>&1
echo "== $(date -u +%T) $(cat /proc/loadavg)"
for r in 1 2 3; do for T in 32; do
 for v in glibc hmcs cr:mcs cr:mcs/12 cr:mcs/8 cr:mcs/4 cr:hmcs cr:hmcs/8 cr:hmcs/4; do
  l=${v%/*}; a=""; [ "$v" != "$l" ] && a="CLOF_CR_ACTIVE=${v#*/}"
  if [ $l = glibc ]; then res=$($D/pl_mutexbench --threads $T --duration 1 2>&1)
  else res=$(env $a CLOF_STATS=1 LD_PRELOAD=$PWD/$D/grow.so CLOF_LOCK=$l $D/pl_mutexbench --threads $T --duration 1 2>&1); fi
  echo "r=$r T=$T $v $(echo "$res" | grep -o '"ops_per_s":[0-9.]*') $(echo "$res" | grep -o '"share_min":[0-9.]*,"share_max":[0-9.]*') $(echo "$res" | grep -o 'contended=.*trylock_busy')"
 done; done; done
echo "== done $(date -u +%T)"
