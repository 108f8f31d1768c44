#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the profiling mode of libclof-preload.so (CLOF_PROFILE, `clof
# profile`, docs/profile.md) costs a real program: LevelDB readrandom
# (bench/preload's driver, every value checked) three ways, interleaved:
#   plain     the program alone (glibc's mutexes, nothing preloaded)
#   preload   under libclof-preload.so with CLOF_LOCK=glibc (not profiling)
#   profile   under it with CLOF_PROFILE set (what `clof profile` runs)
# Each repeat runs the three once, in a shuffled order; prints each run's
# Gets/s and the medians, and the ratio profile/plain (goal >= 0.9).
#
# usage: bench/preload/profile_overhead.sh [--bin DIR] [--lib FILE] [--threads N]
#          [--repeats N] [--duration S] [--keys N] [--lock NAME] [--out FILE]
#   --lock NAME  profile over this lock instead of glibc's (the "preload" and
#                "profile" runs take CLOF_LOCK=NAME)
#   --order      a fourth run, "order": the profile with lock-order tracking
#                (CLOF_PROFILE_ORDER=1, `clof profile --lock-order`; goal >= 0.8)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"; lib="$root/build/lib/libclof-preload.so"
threads=4; repeats=7; duration=2; keys=100000; lock=glibc; out=""; modes="plain preload profile"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --keys) keys="$2"; shift 2 ;;
    --lock) lock="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --order) modes="$modes order"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "profile_overhead.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
drv="$bin/pl_leveldb_readrandom"
[ -x "$drv" ] || { echo "profile_overhead.sh: $drv not built (LevelDB: scripts/deps.sh)" >&2; exit 2; }
[ -f "$lib" ] || { echo "profile_overhead.sh: $lib not found (build first)" >&2; exit 2; }
[ -n "$out" ] || { res="${CLOF_RESULTS:-$(dirname "$bin")/results}"; mkdir -p "$res"; out="$res/profile-overhead-$(date +%Y%m%d-%H%M%S).csv"; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
machine="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr)"
echo "mode,repeat,ops_per_s,lock,threads,keys,duration,machine" >"$out"
run() { # mode repeat
  local envs=()
  case "$1" in
    preload) envs=(LD_PRELOAD="$lib" CLOF_LOCK="$lock") ;;
    profile) envs=(LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_PROFILE="$tmp/prof") ;;
    order) envs=(LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_PROFILE="$tmp/prof" CLOF_PROFILE_ORDER=1) ;;
  esac
  rm -rf "$tmp/db" "$tmp"/prof.*
  local o
  o="$(env ${envs[@]+"${envs[@]}"} "$drv" --db "$tmp/db" --keys "$keys" --threads "$threads" \
        --duration "$duration" --label "$1")"
  grep -q '"errors":0' <<<"$o" || { echo "profile_overhead.sh: wrong values in the $1 run: $o" >&2; exit 1; }
  if [ "$1" = profile -o "$1" = order ] && ! ls "$tmp"/prof.* >/dev/null 2>&1; then
    echo "profile_overhead.sh: the profile run wrote no profile" >&2; exit 1
  fi
  local ops; ops="$(sed -n 's/.*"ops_per_s":\([0-9.]*\).*/\1/p' <<<"$o")"
  echo "$1,$2,$ops,$lock,$threads,$keys,$duration,\"$machine\"" >>"$out"
  printf '  repeat %d %-8s %12.0f Gets/s\n' "$2" "$1" "$ops"
}
echo "LevelDB readrandom, $threads threads, $keys keys, ${duration}s per run, lock $lock, $repeats repeats ($machine)"
for r in $(seq 1 "$repeats"); do
  for m in $(printf '%s\n' $modes | shuf --random-source=<(yes "$r")); do run "$m" "$r"; done
done
python3 - "$out" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
modes = [m for m in ("plain", "preload", "profile", "order") if any(r["mode"] == m for r in rows)]
med = {m: statistics.median(float(r["ops_per_s"]) for r in rows if r["mode"] == m)
       for m in modes}
print()
print("| run | median Gets/s | vs plain |")
print("|---|---:|---:|")
for m in modes:
    print("| %s | %.0f | %.3f |" % (m, med[m], med[m] / med["plain"]))
print()
print("profile / plain = %.3f (goal >= 0.9)" % (med["profile"] / med["plain"]))
if "order" in med:
    print("order / plain = %.3f (goal >= 0.8)" % (med["order"] / med["plain"]))
print("Raw numbers: " + sys.argv[1])
PY
