#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/genmc/sweep.sh -- one client of verify/clients*.c under GenMC and vc,
# side by side, as Markdown table rows (docs/genmc.md): the sets too slow for
# the `genmc` label, and the agreement of the two checkers.
#
#   sweep.sh [--vc BIN] [LIST]
#     LIST  lines "FILE TABLE CLIENT MODELS [CFLAGS...]" (# comments); default:
#           the slow set below.  MODELS: rc11, imm or rc11,imm.
#     BIN   clof-verify (default build/bin/clof-verify); its C11 verdict of
#           the same client (quick mode: its own, larger client: T0 twice,
#           T2 trying first -- docs/genmc.md)
# Prints | client | model | GenMC verdict | executions | wall s | cpu s | vc C11 |
# GENMC_TOPO_DIR, CLOF_GENMC as for run.sh.  Each GenMC run may take minutes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
vc=$src/build/bin/clof-verify
[ "${1:-}" = --vc ] && { vc=$2; shift 2; }
list=${1:-}
default_list() {
  cat <<'EOF'
clients_numa.c vc_clients_numa c-ptl-tkt rc11,imm
clients_numa.c vc_clients_numa c-tkt-tkt rc11,imm
clients_numa.c vc_clients_numa clof.tkt3 rc11,imm
clients_numa.c vc_clients_numa clof.tkt3.leaf rc11
clients_numa.c vc_clients_numa clof.mcs+ticket rc11
clients_hmcs.c vc_clients_hmcs hmcs2 rc11
clients_timed.c vc_clients_timed a-c-bo-clh.timed.fast rc11
clients_rw.c vc_clients_rw rw.central.wp rc11 -DGENMC_THREADS=2
clients_rw.c vc_clients_rw rw.bravo.central rc11 -DGENMC_THREADS=2
clients_numa.c vc_clients_numa c-tkt-tkt imm -DGENMC_PARK_MODE -DGENMC_THREADS=2 -DVC_MIN_ACQUIRED=2
clients_numa.c vc_clients_numa c-tkt-tkt rc11 -DGENMC_PARK_MODE -DGENMC_THREADS=2 -DVC_MIN_ACQUIRED=2 -DGENMC_MUTANT_PARK_WAITERS_RLX
clients_numa.c vc_clients_numa c-bo-mcs imm
clients_numa.c vc_clients_numa cna imm
clients_hmcs.c vc_clients_hmcs hmcs3 imm
clients_hmcs.c vc_clients_hmcs_fast hmcs3.fast imm -DVC_HMCS_FAST=1
clients_cr.c vc_clients_cr cr.mcs.mirror rc11 -O1
clients_cr.c vc_clients_cr cr.mirror rc11 -O1
clients_cr.c vc_clients_cr cr.clof.mcs+ticket rc11 -O1
clients_asl.c vc_clients_asl asl.clof.mcs+ticket rc11
clients_rw.c vc_clients_rw rw.central rc11 -DVC_RW_T0_WRITES=1 -DVC_RW_T1_WRITES=0 -DVC_RW_T2_TRIES=0
clients_numa.c vc_clients_numa a-c-bo-clh rc11 -DGENMC_THREADS=2 -DVC_MIN_ACQUIRED=2
EOF
  for l in tas ttas bo ticket ptl clh hemlock hemlock_ctr; do
    echo "clients_numa.c vc_clients_numa clof.$l+ticket rc11"
  done
}
echo "| client | model | GenMC verdict | executions | wall s | cpu s | vc C11 (quick) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
{ if [ -n "$list" ]; then cat "$list"; else default_list; fi; } |
while read -r file table client models flags; do
  case $file in ''|\#*) continue ;; esac
  v="--"
  if [ -x "$vc" ]; then
    v=$("$vc" --client "$client" --model c11 --quick 2>/dev/null |
        awk -v c="$client" '$1 == c { print $3 " / " $4 " / " $6 " s"; exit }')
  fi
  for m in ${models//,/ }; do
    # shellcheck disable=SC2086
    line=$("$here/run.sh" "$m" "$file" "$table" "$client" $flags </dev/null | head -1)
    verdict=$(echo "$line" | sed -n 's/^[^:]*: \([^;]*\);.*/\1/p')
    execs=$(echo "$line" | sed -n 's/.*; \([0-9?]*\) executions;.*/\1/p')
    wall=$(echo "$line" | sed -n 's/.*executions; \([0-9.]*\) s;.*/\1/p')
    cpu=$(echo "$line" | sed -n 's/.*; cpu \([0-9.]*\) s$/\1/p')
    echo "| $client | $m | ${verdict:-$line} | ${execs:-?} | ${wall:-?} | ${cpu:-?} | ${v:---} |"
  done
done
