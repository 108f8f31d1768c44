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
#   --weaken=SPEC (repeatable): weaken the memory order of the accesses SPEC
#     names (verify/genmc/weaken.py: site=FILE:LINE, fn=, via=, in=, loc=,
#     kind=, from=, to=) in the LLVM IR that GenMC is handed.  The client is
#     then compiled here (clang-14 -S -emit-llvm -g, GenMC's own flags), every
#     function inlined (opt-14; GenMC inlines them all anyway), weakened, and
#     given to GenMC as IR.  A SPEC that matches nothing is an error (exit 2).
#   --ir-out=FILE: keep that inlined, unweakened IR (GenMC still runs);
#   --ir-in=FILE: start from such a file instead of compiling (FILE, TABLE,
#     CLIENT and CFLAGS are then only the names printed)
#
# GenMC is $CLOF_GENMC, else `genmc` on PATH (find_genmc.sh).  Without it
# the check is skipped (exit 77) with a line saying how to get it, unless
# the user sets CLOF_REQUIRE_GENMC=1: then it fails.
# GENMC_T0: thread 0's acquisitions (default 1: one per thread); GENMC_T2:
# thread 2's tries first (default 0; vc's client: GENMC_T0=2 GENMC_T2=1).
# GENMC_TOPO_DIR: the folder of the generated genmc_topo.h (the build's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
expect=ok pattern=
weaken=() ir_in= ir_out= ir=0
while [ $# -gt 0 ]; do
  case $1 in
    --expect-error) expect=error; shift ;;
    --expect-error=*) expect=error; pattern=${1#--expect-error=}; shift ;;
    --weaken=*) weaken+=(--spec "${1#--weaken=}"); ir=1; shift ;;
    --ir-in=*) ir_in=${1#--ir-in=}; ir=1; shift ;;
    --ir-out=*) ir_out=${1#--ir-out=}; ir=1; shift ;;
    --*) echo "$0: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 4 ] || { echo "usage: $0 [--expect-error[=TEXT]] [--weaken=SPEC]... [--ir-out=F|--ir-in=F] rc11|imm FILE TABLE CLIENT [CFLAGS...]" >&2; exit 2; }
model=$1 file=$2 table=$3 client=$4
shift 4
case $model in rc11|imm) ;; *) echo "$0: model '$model': expected rc11 or imm" >&2; exit 2 ;; esac

# shellcheck source=find_genmc.sh
. "$src/verify/genmc/find_genmc.sh"
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
        -DVC_T0_ACQUISITIONS=${GENMC_T0:-1} -DVC_T2_TRIES=${GENMC_T2:-0}
        "-DGENMC_CLIENTS=${q}$file${q}" "-DGENMC_TABLE=$table" "-DGENMC_CLIENT=${q}$client${q}" "$@")
start=$(date +%s.%N)
if [ $ir = 1 ]; then
  # the IR path: compile as GenMC does (its flags, main.cpp), inline every
  # function (GenMC's FunctionInlinerPass inlines them all too) and drop the
  # branches of the backend's memory-order switches that constants rule out
  # (sccp), so each access is one instruction with its own order and its
  # call chain; the exploration is the same (mcs 438, clh 306, hmcs3 938
  # executions either way); then weaken
  clang=${CLOF_GENMC_CLANG:-clang-14} opt=${CLOF_GENMC_OPT:-opt-14}
  for t in "$clang" "$opt"; do
    command -v "$t" >/dev/null || { echo "FAIL: $t not found (the LLVM 14 tools: apt-get install clang-14 llvm-14; scripts/deps.sh)"; exit 1; }
  done
  if [ ${#weaken[@]} -gt 0 ]; then python3 "$here/weaken.py" --check "${weaken[@]}" || exit 2; fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/clof-genmc-ir.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  if [ -n "$ir_in" ]; then
    [ -r "$ir_in" ] || { echo "$0: --ir-in=$ir_in: no such file" >&2; exit 2; }
    cp "$ir_in" "$tmp/client.ll"
  else
    cflags_ir=()
    for f in "${cflags[@]}"; do cflags_ir+=("${f//\\\"/\"}"); done
    if ! "$clang" -fno-discard-value-names -Xclang -disable-O0-optnone -g \
         "${cflags_ir[@]}" -D__CONFIG_GENMC_INODE_DATA_SIZE=64 -S -emit-llvm \
         -o "$tmp/raw.ll" "$here/client.c" > "$tmp/cc.txt" 2>&1; then
      tail -30 "$tmp/cc.txt"; echo "FAIL: $clang could not compile the client"; exit 1
    fi
    # noinline (clang -O0, CLOF_SLOW) becomes alwaysinline for the inliner
    sed -E '/^attributes #/ s/\bnoinline\b/alwaysinline/' "$tmp/raw.ll" > "$tmp/ai.ll"
    if ! "$opt" -S -passes=always-inline,mem2reg,sccp "$tmp/ai.ll" -o "$tmp/client.ll" > "$tmp/opt.txt" 2>&1; then
      tail -30 "$tmp/opt.txt"; echo "FAIL: $opt could not inline the client"; exit 1
    fi
  fi
  if [ -n "$ir_out" ]; then cp "$tmp/client.ll" "$ir_out" || exit 2; fi
  input=$tmp/client.ll
  if [ ${#weaken[@]} -gt 0 ]; then
    python3 "$here/weaken.py" --name "client $client" "${weaken[@]}" "$tmp/client.ll" "$tmp/weak.ll" || exit 2
    input=$tmp/weak.ll
  fi
  out=$(cd "${TMPDIR:-/tmp}" && "$genmc" "${flags[@]}" -input-from-bitcode-file "$input" 2>&1)
  rc=$?
else
  out=$(cd "${TMPDIR:-/tmp}" && "$genmc" "${flags[@]}" -- "${cflags[@]}" "$here/client.c" 2>&1)
  rc=$?
fi
secs=$(printf "%.1f" "$(echo "$(date +%s.%N) - $start" | bc)")
# CPU seconds of GenMC (compilation included): steadier than wall time on a
# shared machine (bash's `times`: the children's user and system time)
tf=$(mktemp); times > "$tf" # in this shell: a $(...) subshell has no children
cpu=$(tail -1 "$tf" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$tf"
execs=$(echo "$out" | sed -n 's/^Number of complete executions explored: //p')
verdict=$(echo "$out" | grep -m1 -E '^Error:|No errors were detected' || true)
wk=; [ ${#weaken[@]} -gt 0 ] && wk=" weakened:$(printf ' %s' "${weaken[@]}" | sed 's/ --spec / /g')"
echo "genmc -$model $client $*$wk: ${verdict:-no verdict (exit $rc)}; ${execs:-?} executions; $secs s; cpu $cpu s"
if [ $rc -ne 0 ] && [ $rc -ne 42 ]; then
  echo "$out" | tail -30; echo "FAIL: GenMC could not run the client (exit $rc)"; exit 1
fi
if [ $expect = ok ] && [ $rc -ne 0 ]; then echo "$out" | grep -v "Rna (\.str\|Rna (vc_clients" | tail -70; echo "FAIL: GenMC reports an error"; exit 1; fi
if [ $expect = error ] && [ $rc -ne 42 ]; then echo "FAIL: the seeded bug was not caught"; exit 1; fi
if [ $expect = error ] && [ -n "$pattern" ] && ! echo "$verdict" | grep -q -- "$pattern"; then
  echo "$out" | tail -40; echo "FAIL: GenMC reports another error than '$pattern'"; exit 1
fi
exit 0
