#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/genmc/run.sh -- check one client of verify/clients*.c under GenMC.
#
#   run.sh [--expect-error] MODEL FILE TABLE CLIENT [CFLAGS...]
#     MODEL   rc11 | imm
#     FILE    the clients' source in verify/ (clients_basic.c ...)
#     TABLE   its table (vc_clients_basic ...), CLIENT a name in it (mcs ...)
#     CFLAGS  more flags for the client (-DGENMC_PARK_MODE, -DCLOF_HMCS_FENCES ...)
#   --expect-error[=TEXT]: a seeded bug; pass when GenMC reports an error
#     (exit 42) whose line contains TEXT ("Liveness", "Safety", "race" ...)
#
# GenMC is the one of $CLOF_GENMC, else the bundle that
# ../shared/vendor/genmc/install.sh installs (run once if need be).  Without
# either the check is skipped (exit 77) with a line saying how to get it,
# unless CLOF_REQUIRE_GENMC=1 (CI): then it fails.
# GENMC_T0: thread 0's acquisitions (default 1: one per thread).
# GENMC_TOPO_DIR: the folder of the generated genmc_topo.h (the build's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
expect=ok pattern=
case ${1:-} in
  --expect-error) expect=error; shift ;;
  --expect-error=*) expect=error; pattern=${1#--expect-error=}; shift ;;
esac
[ $# -ge 4 ] || { echo "usage: $0 [--expect-error] rc11|imm FILE TABLE CLIENT [CFLAGS...]" >&2; exit 2; }
model=$1 file=$2 table=$3 client=$4
shift 4
case $model in rc11|imm) ;; *) echo "$0: model '$model': expected rc11 or imm" >&2; exit 2 ;; esac

genmc=${CLOF_GENMC:-}
default=$HOME/.cache/genmc-0.10.3/bin/genmc
installer=$src/../shared/vendor/genmc/install.sh
if [ -z "$genmc" ] && [ -x "$default" ]; then genmc=$default; fi
if [ -z "$genmc" ] && [ -x "$installer" ]; then
  # one install however many tests start at once
  genmc=$(flock "${TMPDIR:-/tmp}/clof-genmc-install.lock" "$installer" 2>/dev/null | tail -1)
fi
if [ -z "$genmc" ] || [ ! -x "$genmc" ]; then
  msg="GenMC not found: set CLOF_GENMC=/path/to/genmc, or install GenMC 0.10.3 (https://github.com/MPI-SWS/genmc) -- skipped"
  if [ "${CLOF_REQUIRE_GENMC:-0}" = 1 ]; then echo "FAIL: $msg (CLOF_REQUIRE_GENMC=1)"; exit 1; fi
  echo "$msg"; exit 77
fi
ginc=$(cd "$(dirname "$genmc")/../include" 2>/dev/null && pwd)
topo=$(cd "${GENMC_TOPO_DIR:-$src/build/verify/genmc}" 2>/dev/null && pwd || echo "${GENMC_TOPO_DIR:-$src/build/verify/genmc}")
[ -f "$topo/genmc_topo.h" ] || { echo "$0: $topo/genmc_topo.h missing (build the target clof-genmc-topo-h, or set GENMC_TOPO_DIR)" >&2; exit 2; }

# the spin-assume, load-annotation and loop-jump-threading passes stop at
# clof's loops (backend_genmc.h); the backend annotates its awaits itself.
# Instruction caching is off: GenMC 0.10.3 replays cached stack allocations
# with their old addresses without advancing its address allocator, so a
# later allocation of the same thread can get the address of a live one and
# its return "frees" it -- false "Attempt to access freed memory" reports on
# the compositions' fast path (docs/genmc.md, "Freed memory that was not").
flags=(-"$model" -check-liveness -disable-spin-assume -disable-load-annotation
       -disable-loop-jump-threading -disable-estimation -disable-instruction-caching)
q='\"' # GenMC hands its clang flags through a shell
cflags=(${ginc:+-I"$ginc"} -I"$src/include" -I"$src/verify" -I"$here" -I"$topo"
        "-DCLOF_BACKEND_HEADER=${q}backend_genmc.h${q}" -include vc_genmc.h
        -DVC_T0_ACQUISITIONS=${GENMC_T0:-1} -DVC_T2_TRIES=0
        "-DGENMC_CLIENTS=${q}$file${q}" "-DGENMC_TABLE=$table" "-DGENMC_CLIENT=${q}$client${q}" "$@")
start=$(date +%s.%N)
out=$(cd "${TMPDIR:-/tmp}" && "$genmc" "${flags[@]}" -- "${cflags[@]}" "$here/client.c" 2>&1)
rc=$?
secs=$(printf "%.1f" "$(echo "$(date +%s.%N) - $start" | bc)")
# CPU seconds of GenMC (compilation included): steadier than wall time on a
# shared machine (bash's `times`: the children's user and system time)
tf=$(mktemp); times > "$tf" # in this shell: a $(...) subshell has no children
cpu=$(tail -1 "$tf" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$tf"
execs=$(echo "$out" | sed -n 's/^Number of complete executions explored: //p')
verdict=$(echo "$out" | grep -m1 -E '^Error:|No errors were detected' || true)
echo "genmc -$model $client $*: ${verdict:-no verdict (exit $rc)}; ${execs:-?} executions; $secs s; cpu $cpu s"
if [ $rc -ne 0 ] && [ $rc -ne 42 ]; then
  echo "$out" | tail -30; echo "FAIL: GenMC could not run the client (exit $rc)"; exit 1
fi
if [ $expect = ok ] && [ $rc -ne 0 ]; then echo "$out" | grep -v "Rna (\.str\|Rna (vc_clients" | tail -70; echo "FAIL: GenMC reports an error"; exit 1; fi
if [ $expect = error ] && [ $rc -ne 42 ]; then echo "FAIL: the seeded bug was not caught"; exit 1; fi
if [ $expect = error ] && [ -n "$pattern" ] && ! echo "$verdict" | grep -q -- "$pattern"; then
  echo "$out" | tail -40; echo "FAIL: GenMC reports another error than '$pattern'"; exit 1
fi
exit 0
