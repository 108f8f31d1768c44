#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Uncontended pthread_mutex_lock + pthread_mutex_unlock through
# libclof-preload.so against glibc's own, in callgrind instructions.
#
# pl_uncontended runs N lock+unlock pairs on one mutex from one thread,
# calling through the PLT like any program.  Under `valgrind --tool=callgrind`
# with N = 0 and N = ITERS, instructions per pair = (Ir(N) - Ir(0)) / N: the
# program's start-up, the library's start-up and the first (slow-path) pair
# cancel out; the loop's own instructions (call, PLT jump, increment, branch:
# about 9 per pair) are in every figure, glibc's included.  Deterministic:
# no inherited environment, no address randomisation.
#
# usage: bench/preload/callgrind.sh [--bin DIR] [--lib FILE] [--iters N]
#                                   [--locks "a b .."] [--mutex static|init] [--out FILE]
#   --bin DIR      where pl_uncontended is (default build/bin)
#   --lib FILE     the preload library (default build/lib/libclof-preload.so)
#   --iters N      pairs in the measured run (default 100000)
#   --locks L      locks (default: the nine basic locks)
#   --mutex KIND   PTHREAD_MUTEX_INITIALIZER (static, default) or pthread_mutex_init
#   --emulate S    run the clof side with CLOF_EMULATE=S.  Under valgrind glibc
#                  cannot register rseq, so clof_current_cpu() (read by the
#                  hierarchical locks at every acquisition) falls back to
#                  sched_getcpu() (~50 instructions); with an emulated
#                  topology it reads the thread's virtual cpu instead (a
#                  thread-local load, like the native rseq read)
#   --env VAR=VAL  run the clof side with this in its environment too (may be
#                  repeated), e.g. --env CLOF_PROFILE=/tmp/p for the profiling
#                  mode of docs/profile.md (lock "glibc": glibc's mutexes under
#                  the preload library)
#   --out FILE     CSV (default BUILD/results/preload-callgrind-<date>.csv)
# Prints a Markdown table with each lock's ratio to glibc (goal: <= 1.2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"; lib="$root/build/lib/libclof-preload.so"
iters=100000; locks=""; kind=static; out=""; emulate=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --mutex) kind="$2"; shift 2 ;;
    --emulate) emulate="$2"; shift 2 ;;
    --env) case "$2" in *=*) extra+=("$2") ;; *) echo "callgrind.sh: --env VAR=VALUE" >&2; exit 2 ;; esac; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "callgrind.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$iters" in ''|*[!0-9]*|0) echo "callgrind.sh: --iters must be a positive integer" >&2; exit 2 ;; esac
case "$kind" in static|init) ;; *) echo "callgrind.sh: --mutex static|init" >&2; exit 2 ;; esac
prog="$bin/pl_uncontended"
[ -x "$prog" ] || { echo "callgrind.sh: $prog not found (build first)" >&2; exit 2; }
[ -f "$lib" ] || { echo "callgrind.sh: $lib not found (build first)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind missing (scripts/deps.sh)" >&2; exit 2; }
lib="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"

stamp="$(date +%Y%m%d-%H%M%S)"
[ -n "$out" ] || { res="${CLOF_RESULTS:-$(dirname "$bin")/results}"; mkdir -p "$res"; out="$res/preload-callgrind-$stamp.csv"; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
norand=(); if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
ir() { # lock n -> Ir   (lock "glibc": no preload; "preload:glibc": glibc's under it)
  local f="$tmp/cg.$1.$2" envs=(PATH=/usr/bin:/bin LC_ALL=C)
  [ "$1" = glibc ] || envs+=(LD_PRELOAD="$lib" CLOF_LOCK="${1#preload:}" ${extra[@]+"${extra[@]}"})
  [ "$1" = glibc ] || [ -z "$emulate" ] || envs+=(CLOF_EMULATE="$emulate")
  env -i "${envs[@]}" "${norand[@]}" valgrind --tool=callgrind --callgrind-out-file="$f" \
    "$prog" "$2" "$kind" >/dev/null 2>"$f.log" ||
    { echo "callgrind.sh: valgrind failed for $1 (N=$2):" >&2; cat "$f.log" >&2; exit 1; }
  sed -n 's/^summary: //p' "$f"
}
per_pair() { awk -v a="$1" -v b="$2" -v n="$iters" 'BEGIN{printf "%.2f", (b-a)/n}'; }

g0="$(ir glibc 0)"; gn="$(ir glibc "$iters")"; gp="$(per_pair "$g0" "$gn")"
# the compiler of the library's own code (a clang build also carries the
# "GCC:" note of the C runtime's start files)
strings -a "$lib" >"$tmp/strings"
cc="$(grep -m1 'clang version' "$tmp/strings" || grep -m1 '^GCC: ' "$tmp/strings" || true)"
machine="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr)"
glibc="$(ldd --version 2>&1 | awk 'NR == 1 { print $NF }')"
echo "lock,ir_0,ir_n,iters,instr_per_pair,glibc_instr_per_pair,ratio,mutex,emulate,compiler,valgrind,glibc,machine" >"$out"
echo "lock+unlock through libclof-preload.so vs glibc $glibc: callgrind instructions per pair"
echo "((Ir(N) - Ir(0)) / N, N = $iters, one thread, $kind mutex${emulate:+, CLOF_EMULATE=$emulate}${extra[*]+, ${extra[*]}}, library built by $cc,"
echo "$(valgrind --version), $machine)"
echo
echo "| lock | instr/pair | glibc instr/pair | ratio | goal <= 1.2 |"
echo "|---|---:|---:|---:|---|"
echo "glibc,$g0,$gn,$iters,$gp,$gp,1.00,$kind,,\"$cc\",$(valgrind --version),$glibc,\"$machine\"" >>"$out"
[ -n "$locks" ] || locks="$("$bin/clof-lockname" names --family basic | tr '\n' ' ')"  # the registry's
for l in $locks; do
  a="$(ir "$l" 0)"; b="$(ir "$l" "$iters")"; p="$(per_pair "$a" "$b")"
  r="$(awk -v x="$p" -v y="$gp" 'BEGIN{printf "%.3f", x/y}')"
  ok="$(awk -v x="$p" -v y="$gp" 'BEGIN{print (x <= 1.2 * y) ? "met" : "missed"}')"
  echo "| $l | $p | $gp | $r | $ok |"
  echo "$l${extra[*]+ (${extra[*]})},$a,$b,$iters,$p,$gp,$r,$kind,$emulate,\"$cc\",$(valgrind --version),$glibc,\"$machine\"" >>"$out"
done
echo
echo "Raw numbers: ${out#$root/}"
