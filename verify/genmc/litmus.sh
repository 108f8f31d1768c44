#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/genmc/litmus.sh -- vc's litmus catalogue (verify/litmus.c,
# vc_catalogue: the classic shapes with their published SC/TSO/RC11
# verdicts) under GenMC, each program interpreted by litmus.c's own code
# (verify/genmc/litmus_client.c).
#
#   litmus.sh [--models "rc11 imm"] [--only RE] [--markdown]
#
# GenMC reports an error exactly when it finds the program's outcome
# (the final check asserts it was not observed): 'A', else 'F'.  Under RC11
# it must give the catalogue's RC11 column.  The catalogue has no IMM
# column: IMM's expected verdict is RC11's except for the programs listed
# below (imm_allows), the load-buffering shapes IMM allows (docs/genmc.md
# "The litmus catalogue"); a verdict that differs from the expected one
# fails the script (exit 1).  --only RE: programs whose name matches RE.
# Prints one line per program and model, or with --markdown a table.
# CLOF_GENMC as for run.sh; the client is compiled once (clang-14) and each
# program's index set in the IR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
models="rc11 imm" only= md=0
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --markdown) md=1; shift ;;
    *) echo "usage: $0 [--models \"rc11 imm\"] [--only RE] [--markdown]" >&2; exit 2 ;;
  esac
done
for m in $models; do
  case $m in rc11|imm) ;; *) echo "$0: model '$m': expected rc11 or imm" >&2; exit 2 ;; esac
done
# IMM has no po u rf acyclicity (RC11's "no thin air" axiom): a cycle of
# program order and reads-from without dependencies is allowed, as on
# Armv8/POWER (Podkopaev, Lahav, Vafeiadis, POPL'19).  Each of these is such
# a cycle; nothing else of the catalogue depends on that axiom.
imm_allows=" LB+rlx LB+rmw 2+2W+rmw "

# shellcheck source=find_genmc.sh
. "$src/verify/genmc/find_genmc.sh"
clang=${CLOF_GENMC_CLANG:-clang-14}
command -v "$clang" >/dev/null || { echo "FAIL: $clang not found (apt-get install clang-14)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clof-litmus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the catalogue: index, name, expected SC/TSO/RC11, from litmus.c's table
python3 - "$src/verify/litmus.c" > "$tmp/cat.txt" <<'EOF' || exit 2
import re, sys
text = open(sys.argv[1]).read()
body = text[text.index("const vc_catalogue_t vc_catalogue[] = {"):]
body = body[:body.index("{NULL, NULL, NULL, NULL, NULL}")]
rows = re.findall(r'^\s*\{"([^"]+)", "[^"]*", "[^"]*", "([AF]{3})",', body, re.M)
for i, (name, exp) in enumerate(rows):
    print(i, name, exp)
EOF
[ -s "$tmp/cat.txt" ] || { echo "$0: no catalogue found in verify/litmus.c" >&2; exit 2; }

# compiled once, as GenMC compiles (its flags, src/main.cpp)
if ! "$clang" -fno-discard-value-names -Xclang -disable-O0-optnone -g \
     ${ginc:+-I"$ginc"} -I"$src/include" -I"$src/verify" -I"$here" \
     -DCLOF_BACKEND_HEADER='"backend_genmc.h"' -include vc_genmc.h \
     -D__CONFIG_GENMC_INODE_DATA_SIZE=64 -S -emit-llvm -o "$tmp/client.ll" \
     "$here/litmus_client.c" > "$tmp/cc.txt" 2>&1; then
  tail -20 "$tmp/cc.txt"; echo "FAIL: $clang could not compile litmus_client.c"; exit 1
fi
grep -q '^@litmus_index = .*global i32 0' "$tmp/client.ll" ||
  { echo "FAIL: litmus_index not found in the IR"; exit 1; }

flags=(-check-liveness -disable-spin-assume -disable-load-annotation
       -disable-loop-jump-threading -disable-estimation -disable-instruction-caching)
[ $md = 1 ] && { echo "| # | program | expected SC/TSO/RC11 | $(for m in $models; do printf 'GenMC %s | ' "${m^^}"; done)"; echo "| --- | --- | --- |$(for m in $models; do printf ' --- |'; done)"; }
bad=0 n=0 start=$(date +%s)
declare -A ok=() tot=()
while read -r i name exp; do
  [ -n "$only" ] && ! grep -qE -- "$only" <<< "$name" && continue
  n=$((n + 1))
  sed "s/^\(@litmus_index = .*global i32\) 0/\1 $i/" "$tmp/client.ll" > "$tmp/p.ll"
  cells=
  for m in $models; do
    out=$(cd "$tmp" && "$genmc" -"$m" "${flags[@]}" -input-from-bitcode-file "$tmp/p.ll" 2>&1 < /dev/null)
    rc=$?
    execs=$(sed -n 's/^Number of complete executions explored: //p' <<< "$out")
    if [ $rc -eq 42 ] && grep -q 'the outcome was observed' <<< "$out"; then got=A
    elif [ $rc -eq 0 ]; then got=F
    else got="error (exit $rc: $(grep -m1 -E '^Error|ERROR' <<< "$out"))"; fi
    want=${exp:2:1}
    if [ $m = imm ] && [[ $imm_allows == *" $name "* ]]; then want=A; fi
    tot[$m]=$(( ${tot[$m]:-0} + 1 ))
    if [ "$got" = "$want" ]; then ok[$m]=$(( ${ok[$m]:-0} + 1 )); mark=
    else bad=1; mark=" **differs** (expected $want)"; fi
    if [ $md = 1 ]; then cells="$cells $got ($execs)$mark |"
    else echo "$name $m: $got ($execs executions)${mark:+ -- differs: expected $want}"; fi
  done
  [ $md = 1 ] && echo "| $i | $name | $exp |$cells"
done < "$tmp/cat.txt"
echo
for m in $models; do
  echo "$m: ${ok[$m]:-0} of ${tot[$m]:-0} programs as expected"
done
echo "($n programs, $(( $(date +%s) - start )) s of wall time)"
exit $bad
