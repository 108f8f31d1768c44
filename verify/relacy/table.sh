#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/relacy/table.sh -- the cross-check table of docs/verification.md
# ("Cross-check with Relacy"): every client of clof-verify, and the named
# bugs, checked under C11 by vc (quick: preemption bound 2; full: no bound,
# FULL_LIMIT_S seconds) and by Relacy (clof-relacy, context bound K,
# RELACY_LIMIT_S seconds), with the verdicts compared.
#
#   verify/relacy/table.sh [BUILD_DIR] [FULL_LIMIT_S] [RELACY_LIMIT_S] [K]
#
# Writes relacy-<date>.md under BUILD/results (or $CLOF_RESULTS) (machine, load average, the table) and
# prints it.  Exit 1 if a verdict disagrees.  Times are single-threaded wall
# times on whatever else the machine runs (the load average is recorded).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
vlimit=${2:-10}
rlimit=${3:-30}
k=${4:-2}
v=$build/bin/clof-verify
r=$build/bin/clof-relacy
for b in "$v" "$r"; do
  [ -x "$b" ] || { echo "table.sh: $b not found (build first; clof-relacy needs relacy-dev)" >&2; exit 2; }
done
mkdir -p "${CLOF_RESULTS:-$build/results}"
out=${CLOF_RESULTS:-$build/results}/relacy-$(date -u +%F).md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
disagree=0
{
  echo "# vc vs Relacy under C11 ($(date -u +%FT%TZ))"
  echo
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') (plus uncommitted changes: $(git -C "$root" status --porcelain 2>/dev/null | wc -l) files)"
  echo "machine: $(uname -srm), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs share the machine)"
  echo "command: verify/relacy/table.sh $build $vlimit $rlimit $k"
  echo
  echo "| client | must | vc C11 quick (bound 2) | vc C11 full (no bound, ${vlimit} s limit) | Relacy (context bound $k, ${rlimit} s limit) | agree |"
  echo "|---|---|---|---|---|---|"
} > "$tmp"

vc_cell() { # the vc output line -> "verdict, search, execs, time"
  awk '{ v=$3; e=$4; t=$6; s="";
         for (i=8;i<=NF;i++) s=s (s==""?"":" ") $i;
         sub(/ \(expected: known bug\)/,"",s);
         sub(/ \(NOT the expected failure\)/,"",s);
         sub(/ \([0-9]+ alternatives cut\)/,"",s);
         if (v=="VIOLATED") { p=s; sub(/^counterexample in execution [0-9]+; /,"",p); printf "**violated** (%s), exec %s, %s s", p, e, t }
         else printf "%s, %s, %s execs, %s s", v, s, e, t }'
}
rl_cell() { # the clof-relacy output line -> "verdict, iterations, time"
  sed -E 's/^relacy +[^ ]+ +//; s/ \(expected: known bug\)//; s/, context bound [0-9]+//; s/^VIOLATION: (.*), ([0-9]+) iterations/**violated** (\1), iteration \2/'
}
# bad: a violation; ok: none, search complete for its bound; open: none, but
# the search was stopped by a time limit before it finished (inconclusive)
verdict_of() {
  case "$1" in
    *violated*) echo bad ;;
    *"stopped by"*) echo open ;;
    *) echo ok ;;
  esac
}

for c in $("$r" --list | awk '$2 != "bug" && $2 != "litmus" {print $1}'); do
  must=ok; "$r" --list | awk -v c="$c" '$1==c' | grep -q 'known bug' && must=fails
  q=$("$v" --lock "$c" --model c11 2>/dev/null | grep -E "^$(printf '%s' "$c" | sed 's/[.+]/\\&/g') +c11 " | vc_cell || true)
  f=$("$v" --lock "$c" --model c11 --full --time-limit "$vlimit" 2>/dev/null | grep -E "^$(printf '%s' "$c" | sed 's/[.+]/\\&/g') +c11 " | vc_cell || true)
  x=$("$r" --lock "$c" --bound "$k" --time-limit "$rlimit" 2>/dev/null | grep '^relacy ' | rl_cell || true)
  # the conclusive verdicts must all be the same; an inconclusive (stopped)
  # search agrees with anything and is named
  a=yes; ref=""; open=""
  for cell in "$q" "$f" "$x"; do
    [ -n "$cell" ] || { a="NO (no result)"; continue; }
    vd=$(verdict_of "$cell")
    if [ "$vd" = open ]; then open=" (a search stopped by its limit: inconclusive)"; continue; fi
    [ -z "$ref" ] && ref=$vd
    [ "$vd" = "$ref" ] || a=NO
  done
  [ "$a" = yes ] && a="yes$open"
  case "$a" in yes*) ;; *) disagree=1 ;; esac
  echo "| $c | $must | $q | $f | $x | $a |" >> "$tmp"
done
for b in $("$r" --list | awk '$2 == "bug" {print $1}'); do
  q=$("$v" --bug "$b" --model c11 2>/dev/null | grep '^bug ' | sed -E 's/^.* under c11: //; s/^VIOLATED: ([^,]*), ([0-9]+) execs, ([0-9.]+) s.*/**violated** (\1), exec \2, \3 s/' || true)
  x=$("$r" --bug "$b" --bound "$k" --time-limit "$rlimit" 2>/dev/null | grep '^relacy ' | rl_cell || true)
  a=yes
  [ "$(verdict_of "$q")" = bad ] && [ "$(verdict_of "$x")" = bad ] || { a=NO; disagree=1; }
  echo "| bug $b | fails | $q | (quick only) | $x | $a |" >> "$tmp"
done
{
  echo
  echo "vc's self-test programs (verify/litmus.c), C11: vc \`clof-verify --selftest --model c11\` (exhaustive) vs \`clof-relacy --family litmus\` (context bound $k)"
  echo
  echo "| program | vc C11 (exhaustive) | Relacy (context bound $k) | agree |"
  echo "|---|---|---|---|"
} >> "$tmp"
"$v" --selftest --model c11 2>/dev/null | awk '$2 == "c11" {print}' > "$tmp.vc" || true
"$r" --family litmus --bound "$k" --time-limit "$rlimit" 2>/dev/null | grep '^relacy ' > "$tmp.rl" || true
while read -r name model verdict rest; do
  if [ "$verdict" = VIOLATED ]; then
    prop=$(printf '%s' "$rest" | sed -E 's/ +[0-9]+ execs.*//')
    q="**violated** ($prop)"
  else
    q="verified"
  fi
  q="$q, $(printf '%s' "$rest" | grep -oE '[0-9]+ execs' | head -1)"
  x=$(grep -E "^relacy +litmus\.$(printf '%s' "$name" | sed 's/[.+]/\\&/g') " "$tmp.rl" | rl_cell || true)
  a=yes
  [ -n "$x" ] && [ "$(verdict_of "$q")" = "$(verdict_of "$x")" ] || { a=NO; disagree=1; }
  echo "| $name | $q | $x | $a |" >> "$tmp"
done < "$tmp.vc"
rm -f "$tmp.vc" "$tmp.rl"
echo >> "$tmp"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$tmp"
cp "$tmp" "$out"
cat "$out"
echo "(written to $out)" >&2
exit "$disagree"
