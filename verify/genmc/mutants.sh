#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/genmc/mutants.sh -- vc's mutation table rerun under GenMC.
#
#   mutants.sh [--table FILE] [--imm] [--imm-limit S] [--limit S] [--only RE]
#
# The table is clof-verify's (`clof-verify --mutate --lock basic --lock hmcs3
# --model c11 --markdown`, run here unless --table gives a saved one): each
# row is an access (lock-level source position and function), a weakening
# (kind, order -> order) and vc's C11 verdict.  Each row becomes a weaken.py
# SPEC (site=FILE:LINE,fn=FUNCTION,kind=KIND,from=ORIGINAL,to=ORDER: from is
# the access's order in the source, since vc's second row of an access
# weakens the source's order further) and runs under GenMC RC11 (and with
# --imm under IMM too, LIMIT seconds each); prints a Markdown table: row,
# vc's verdict, GenMC's, agree?, and the counts.
#
# vc names an access of a function it reached by a tail call by its caller's
# call site (its return address): such a row's site= matches no access in
# the IR, and the row is rerun as via=FILE:LINE (the accesses of the
# callees inlined at that line, of that kind and order), marked "via".
#
# The client is vc's but with one acquisition per thread (GENMC_T0=1) and
# thread 2 trying first (GENMC_T2=1), set here: vc's T0 twice costs GenMC
# minutes per row (ttas: over 5 minutes unmutated).  --limit: seconds per
# RC11 run (default 600); --imm-limit: per IMM run (default 120; a run past
# it is "no verdict", not counted).  --only RE: rows whose client or
# access matches RE.  GENMC_TOPO_DIR, CLOF_GENMC as for run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
table= imm=0 limit=600 ilimit=120 only=
while [ $# -gt 0 ]; do
  case $1 in
    --table) table=$2; shift 2 ;;
    --imm) imm=1; shift ;;
    --limit) limit=$2; shift 2 ;;
    --imm-limit) ilimit=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "usage: $0 [--table FILE] [--imm] [--limit S] [--imm-limit S] [--only RE]" >&2; exit 2 ;;
  esac
done
export GENMC_T0=${GENMC_T0:-1} GENMC_T2=${GENMC_T2:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clof-mutants.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "$table" ]; then
  vc=${CLOF_VERIFY:-$src/build/bin/clof-verify}
  [ -x "$vc" ] || { echo "$0: $vc not found (build clof-verify, or --table FILE)" >&2; exit 2; }
  "$vc" --mutate --lock basic --lock hmcs3 --model c11 --markdown > "$tmp/table.md"
  table=$tmp/table.md
fi
[ -r "$table" ] || { echo "$0: $table: no such file" >&2; exit 2; }

client_of() { # lock -> FILE TABLE CLIENT [FLAGS]
  case $1 in
    clh.first-outside) echo "clients_basic.c vc_clients_clh_outside clh.first-outside" ;;
    hmcs3) echo "clients_hmcs.c vc_clients_hmcs hmcs3" ;;
    *) echo "clients_basic.c vc_clients_basic $1" ;;
  esac
}
verdict() { # run.sh's output -> "Error: ..." | "No errors..." | "no verdict"
  local l; l=$(grep -m1 "^genmc -" <<< "$1")
  sed -n 's/.*: \(Error: [^;]*\|No errors[^;]*\|no verdict[^;]*\);.*/\1/p' <<< "$l"
}
execs() { grep -m1 "^genmc -" <<< "$1" | sed -n 's/.*; \([0-9?]*\) executions;.*/\1/p'; }
cpu() { grep -m1 "^genmc -" <<< "$1" | sed -n 's/.*; cpu \([0-9.]*\) s$/\1/p'; }
# run MODEL LIMIT CLIENTSPEC SPEC -> sets out, rc
run() {
  local ir=$tmp/ir-$3.ll
  read -r -a c <<< "$(client_of "$3")"
  out=$(timeout "$2" "$here/run.sh" --ir-in="$ir" "--weaken=$4" "$1" "${c[@]}" 2>&1); rc=$?
}

hdr="| # | client | access | weakening | vc C11 | GenMC RC11 | execs | cpu s | agree |"
sep="| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
[ $imm = 1 ] && { hdr="$hdr GenMC IMM | agree (IMM) |"; sep="$sep --- | --- |"; }
echo "GenMC's client: T0 acquires $GENMC_T0 time(s), T2 tries first: $GENMC_T2 (vc: 2, 1)"
echo
echo "$hdr"; echo "$sep"
n=0 agree=0 differ=0 caught=0 safe=0 iagree=0 idiffer=0 inone=0 via=0
declare -A orig
while IFS='|' read -r _ lock model access weak result execs _; do
  lock=$(echo $lock) model=$(echo $model)
  [ "$model" = c11 ] || continue
  access=$(echo $access | tr -d '`') weak=$(echo $weak) result=$(echo $result)
  [ -n "$only" ] && ! grep -qE -- "$only" <<< "$lock $access" && continue
  read -r pos fn <<< "$access"
  read -r kind from _ to <<< "$weak"
  key="$lock $pos $fn $kind"
  # the access's order in the source: the first row's from
  [ -z "${orig[$key]:-}" ] && orig[$key]=$from
  # first sight of a client: its inlined IR, and the unweakened verdict
  if [ ! -f "$tmp/ir-$lock.ll" ]; then
    read -r -a c <<< "$(client_of "$lock")"
    base=$("$here/run.sh" --ir-out="$tmp/ir-$lock.ll" rc11 "${c[@]}" 2>&1 < /dev/null)
    echo "unweakened: $(grep -m1 '^genmc -' <<< "$base")" >&2
  fi
  n=$((n + 1))
  to_=$to; [ "$to" = removed ] && to_=none
  spec="site=$pos,fn=$fn,kind=$kind,from=${orig[$key]},to=$to_"
  run rc11 "$limit" "$lock" "$spec"
  mark=
  if [ $rc -eq 2 ] && grep -q "matches no atomic access" <<< "$out"; then
    spec="via=$pos,kind=$kind,from=${orig[$key]},to=$to_"
    run rc11 "$limit" "$lock" "$spec"
    mark=" (via)"; via=$((via + 1))
  fi
  g=$(verdict "$out"); [ -z "$g" ] && g="no verdict (exit $rc)"
  case $result in safe*) vcv=safe; safe=$((safe + 1)) ;; *) vcv=caught; caught=$((caught + 1)) ;; esac
  case $g in Error:*) gv=caught ;; No*) gv=safe ;; *) gv=none ;; esac
  if [ $gv = $vcv ]; then a=yes; agree=$((agree + 1)); else a="**no**"; differ=$((differ + 1)); fi
  row="| $n | $lock | \`$access\`$mark | $kind ${orig[$key]} -> $to | $result | $g | $(execs "$out") | $(cpu "$out") | $a |"
  if [ $imm = 1 ]; then
    run imm "$ilimit" "$lock" "$spec"
    gi=$(verdict "$out")
    case $gi in Error:*) iv=caught ;; No*) iv=safe ;; *) iv=none; gi="no verdict in ${ilimit} s" ;; esac
    if [ $iv = none ]; then ia="--"; inone=$((inone + 1))
    elif [ $iv = $vcv ]; then ia=yes; iagree=$((iagree + 1))
    else ia="**no**"; idiffer=$((idiffer + 1)); fi
    row="$row $gi | $ia |"
  fi
  echo "$row"
done < <(grep '^| ' "$table" | grep -v '^| lock |')
echo
echo "RC11: $n rows (vc: $caught caught, $safe safe); GenMC agrees on $agree, differs on $differ; $via rows matched by via= (vc's tail-call naming)"
[ $imm = 1 ] && echo "IMM: agrees on $iagree, differs on $idiffer, no verdict within ${ilimit} s on $inone"
exit 0
