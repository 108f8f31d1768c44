#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Uncontended cost of every lock, deterministic: callgrind instructions per
# acquire+release pair on one thread.
#
# For each lock, clof-uncontended runs under `valgrind --tool=callgrind`
# with N = 0 and N = ITERS pairs; instructions per pair = (Ir(N) - Ir(0)) / N
# (so program start-up and exit cancel out; the loop's own increment,
# compare and branch, about 3 instructions, stay in every lock's figure).
# Prints a Markdown table, with the ratio to Concurrency Kit's same lock
# where one exists (mcs/ck-mcs, clh/ck-clh, ticket/ck-ticket, tas/ck-fas)
# and to libvsync's (vsync-mcs, vsync-ticket, vsync-clh, vsync-hemlock,
# vsync-ttas, vsync-cna, vsync-hmcs; where clof-uncontended was built with
# libvsync, see docs/peers.md; cna and hmcs on the process topology, e.g.
# CLOF_EMULATE=SHAPE for an emulated one), and writes the raw numbers to
# BUILD/results/callgrind-<date>.csv.
#
# With --rw: the reader-writer locks instead (clof-uncontended --list-rw),
# a read and a write pair each (--rw-op read|write), with the ratio to
# glibc's rwlock (pthread-rwlock); CSV BUILD/results/callgrind-rw-<date>.csv.
#
# usage: bench/callgrind.sh [--rw] [--bin DIR] [--iters N] [--locks "a b .."] [--out FILE]
#   --bin DIR    where clof-uncontended is (default: build/bin, or $CLOF_BIN)
#   --iters N    pairs in the measured run (default 100000)
#   --locks L    space-separated lock names (default: the basic locks, the
#                peers, and seven CLoF compositions of 2-4 levels)
#   --out FILE   CSV path (default: BUILD/results/callgrind-<date>.csv)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CLOF_BIN:-$root/build/bin}"
iters=100000
locks=""
out=""
rw=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rw) rw=1; shift ;;
    --bin) bin="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "callgrind.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$iters" in ''|*[!0-9]*|0) echo "callgrind.sh: --iters must be a positive integer" >&2; exit 2 ;; esac

prog="$bin/clof-uncontended"
if [ ! -x "$prog" ]; then
  echo "callgrind.sh: $prog not found; build first:" >&2
  echo "  cmake -S $root -B $root/build && cmake --build $root/build -j" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed (scripts/deps.sh)" >&2; exit 2; }

# default: every basic lock and peer, plus CLoF compositions of 2, 3 and 4
# levels next to MCS (all 336 compositions: --locks "$(clof-uncontended --list)")
[ "$rw" = 0 ] || [ -n "$locks" ] || locks="$("$prog" --list-rw | tr '\n' ' ')"
vsync_locks="$("$prog" --list | grep '^vsync-' | tr '\n' ' ' || true)"
[ -n "$locks" ] || locks="$("$prog" --list | grep -v -- - | tr '\n' ' ') $vsync_locks ck-mcs ck-clh ck-ticket ck-fas hmcs cna c-bo-mcs c-tkt-tkt c-ptl-tkt mcs-mcs mcs-mcs-mcs mcs-mcs-mcs-mcs tkt-mcs tkt-mcs-clh hem-hem-mcs-clh clh-tkt-mcs-tkt"
stamp="$(date +%Y%m%d-%H%M%S)"
[ -n "$out" ] || { res="${CLOF_RESULTS:-$(dirname "$bin")/results}"; mkdir -p "$res"; out="$res/callgrind$([ "$rw" = 0 ] || echo -rw)-$stamp.csv"; }
info="$("$prog" --info)"
compiler="$(sed -n 's/^compiler=//p' <<<"$info")"
policy="$(sed -n 's/^wait_policy=//p' <<<"$info")"
vg="$(valgrind --version)"
cpu_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
machine="${cpu_model:-unknown} / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -srm)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# A fixed environment: no inherited variables, no address randomisation, so
# that two runs of the script count the same instructions.
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
ir() { # lock iters [more arguments] -> Ir
  local f="$tmp/cg.${1//[:\/]/_}.$2.${3:-}${4:-}"
  env -i PATH=/usr/bin:/bin LC_ALL=C "${norand[@]}" \
    valgrind --tool=callgrind --callgrind-out-file="$f" \
    "$prog" --lock "$1" --iters "$2" "${@:3}" >/dev/null 2>"$f.log" ||
    { echo "callgrind.sh: valgrind failed for $1 (N=$2):" >&2; cat "$f.log" >&2; exit 1; }
  sed -n 's/^summary: //p' "$f"
}

peer_of() {
  case "$1" in
    mcs) echo ck-mcs ;; clh) echo ck-clh ;; ticket) echo ck-ticket ;; tas) echo ck-fas ;;
    *) echo "" ;;
  esac
}
vsync_peer_of() { # libvsync's same lock, where this build has it
  case "$1" in
    mcs|ticket|clh|hemlock|ttas|cna|hmcs) case " $vsync_locks " in *" vsync-$1 "*) echo "vsync-$1" ;; esac ;;
  esac
}

pair() { # lock [more arguments] -> instructions per pair
  local a b
  a="$(ir "$1" 0 "${@:2}")"; b="$(ir "$1" "$iters" "${@:2}")"
  awk -v a="$a" -v b="$b" -v n="$iters" 'BEGIN{printf "%.2f", (b-a)/n}'
}

if [ "$rw" = 1 ]; then
  declare -A rd wr
  for l in $locks pthread-rwlock; do
    [ -n "${rd[$l]:-}" ] && continue
    rd[$l]="$(pair "$l" --rw-op read)"; wr[$l]="$(pair "$l" --rw-op write)"
  done
  echo "lock,read_instr_per_pair,write_instr_per_pair,iters,glibc_read,glibc_write,compiler,wait_policy,valgrind,machine" >"$out"
  echo "## Uncontended cost of the RW locks: callgrind instructions per acquire+release pair"
  echo
  echo "Callgrind instruction counts (Ir), not time: (Ir(N) - Ir(0)) / N with N = $iters,"
  echo "one thread, the lock called directly (clof-uncontended --rw-op read|write; no preload"
  echo "library), reader preference, $compiler, waiting policy $policy, $vg, on $machine."
  echo "Ratio = this lock / glibc's pthread_rwlock (pthread-rwlock)."
  echo
  echo "| rwlock | read pair | ratio | write pair | ratio |"
  echo "|---|---:|---:|---:|---:|"
  g_r="${rd[pthread-rwlock]}"; g_w="${wr[pthread-rwlock]}"
  for l in $locks; do
    rr="$(awk -v x="${rd[$l]}" -v y="$g_r" 'BEGIN{ if (y > 0) printf "%.2f", x/y }')"
    rwv="$(awk -v x="${wr[$l]}" -v y="$g_w" 'BEGIN{ if (y > 0) printf "%.2f", x/y }')"
    echo "| $l | ${rd[$l]} | $rr | ${wr[$l]} | $rwv |"
    echo "$l,${rd[$l]},${wr[$l]},$iters,$g_r,$g_w,\"$compiler\",$policy,$vg,\"$machine\"" >>"$out"
  done
  echo
  echo "Raw numbers: ${out#$root/}"
  exit 0
fi

declare -A ipp ir0 irn
for l in $locks; do
  a="$(ir "$l" 0)"; b="$(ir "$l" "$iters")"
  ir0[$l]=$a; irn[$l]=$b
  ipp[$l]="$(awk -v a="$a" -v b="$b" -v n="$iters" 'BEGIN{printf "%.2f", (b-a)/n}')"
done

echo "lock,ir_0,ir_n,iters,instr_per_pair,peer,peer_instr_per_pair,ratio,compiler,wait_policy,valgrind,machine,vsync_peer,vsync_instr_per_pair,vsync_ratio" >"$out"
echo "## Uncontended cost: callgrind instructions per acquire+release pair"
echo
echo "Callgrind instruction counts (Ir), not time: (Ir(N) - Ir(0)) / N with N = $iters,"
echo "one thread, $compiler, waiting policy $policy, $vg, on $machine."
echo "Ratio = this lock / Concurrency Kit's same lock (tas is compared with ck-fas),"
echo "vsync ratio = this lock / libvsync's same lock."
echo
echo "| lock | instr/pair | ck peer | peer instr/pair | ratio | vsync peer | vsync instr/pair | vsync ratio |"
echo "|---|---:|---|---:|---:|---|---:|---:|"
peer_ipp() { # peer -> its instructions per pair (measured once)
  [ -n "${ipp[$1]:-}" ] || ipp[$1]="$(pair "$1")"
}
for l in $locks; do
  p="$(peer_of "$l")"; pv=""; ratio=""
  if [ -n "$p" ]; then
    peer_ipp "$p"; pv="${ipp[$p]}"
    ratio="$(awk -v x="${ipp[$l]}" -v y="$pv" 'BEGIN{ if (y > 0) printf "%.2f", x/y }')"
  fi
  v="$(vsync_peer_of "$l")"; vv=""; vratio=""
  if [ -n "$v" ]; then
    peer_ipp "$v"; vv="${ipp[$v]}"
    vratio="$(awk -v x="${ipp[$l]}" -v y="$vv" 'BEGIN{ if (y > 0) printf "%.2f", x/y }')"
  fi
  echo "| $l | ${ipp[$l]} | ${p:--} | ${pv:--} | ${ratio:--} | ${v:--} | ${vv:--} | ${vratio:--} |"
  echo "$l,${ir0[$l]},${irn[$l]},$iters,${ipp[$l]},$p,$pv,$ratio,\"$compiler\",$policy,$vg,\"$machine\",$v,$vv,$vratio" >>"$out"
done
echo
echo "Raw numbers: ${out#$root/}"
