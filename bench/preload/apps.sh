#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The real programs over libclof-preload.so, each lock against glibc,
# interleaved: LevelDB (our readrandom driver), Kyoto Cabinet (kccachetest
# and kcgrasstest wicked) and memcached (under memcaslap), at T = 1..4.
#
# For each repeat, each T and each program, glibc and every lock run once
# in an order shuffled per (seed, repeat, T, program).  Figures (higher is
# better):
#   leveldb      Gets/s of pl_leveldb_readrandom (--keys 100000, T threads,
#                --duration D; every value checked, a wrong one fails the run)
#   kccachetest  records/s: rnum*T / the "time:" it reports
#                (kccachetest wicked -th T -it 1 $((1000000/T)); must print ok)
#   kcgrasstest  likewise (kcgrasstest wicked -th T -it 1 $((100000/T)))
#   memcached    TPS of memcaslap -T 2 -c 32 -t Ds against memcached -t T
#                (T worker threads, 127.0.0.1), then a pl_mc_check of 2000
#                keys (a mismatch fails the run)
# Writes JSON lines to BUILD/results/preload-apps-<date>.jsonl and prints
# bench/preload/summarize.py's tables (saved next to it, .md; with 6 repeats
# or more, each ratio's 90% interval too: summarize.py --ci).
#
# usage: bench/preload/apps.sh [--bin DIR] [--lib FILE] [--threads "1 2 3 4"]
#          [--repeats 5] [--duration 2] [--locks "mcs clh ticket hemlock tas"]
#          [--programs "leveldb kccachetest kcgrasstest memcached"] [--seed 1] [--out FILE]
#          [--emulate SHAPE] [--rwlock NAME] [--lib-b FILE]
# --emulate SHAPE runs the clof locks over an emulated hierarchy
# (CLOF_EMULATE=SHAPE, e.g. numa:2,cache:2,core:2: threads are spread over
# its virtual cpus, so the hierarchical locks take their cohort paths on this
# flat machine); glibc runs as it is.  Recorded in the meta line.
# --rwlock NAME: the programs' pthread rwlocks in the clof runs
# (CLOF_RWLOCK; default glibc, so that a run differs from glibc's by its
# mutexes only -- the library's own default, `auto`, picks rw:hmcs on an
# emulated machine of two nodes, which Kyoto Cabinet's rwlocks then use).
# Recorded in the meta line.
# --lib-b FILE: a second build of the library, for an A/B of two builds in
# one interleaved run; a lock named NAME@b in --locks runs NAME under it
# (e.g. --locks "cr:mcs cr:mcs@b" --lib-b /tmp/other/lib/libclof-preload.so),
# as bench/preload/oversub.sh --lib-b.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cmdline="$0"; for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
bin="$root/build/bin"; lib="$root/build/lib/libclof-preload.so"
threads="1 2 3 4"; repeats=5; duration=2; seed=1; out=""; emulate=""; rwlock=glibc; libb=""
locks="mcs clh ticket hemlock tas"
programs="leveldb kccachetest kcgrasstest memcached"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --programs) programs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --emulate) emulate="$2"; shift 2 ;;
    --rwlock) rwlock="$2"; shift 2 ;;
    --lib-b) libb="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "apps.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -f "$lib" ] || { echo "apps.sh: $lib not found (build first)" >&2; exit 2; }
lib="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"
case " $locks " in
  *@b\ *) [ -n "$libb" ] || { echo "apps.sh: a lock NAME@b needs --lib-b FILE" >&2; exit 2; } ;;
esac
# shellcheck source=bench/preload/canon.sh
. "$root/bench/preload/canon.sh"
canon_locks apps.sh "$bin" "$locks"
if [ -n "$libb" ]; then
  [ -f "$libb" ] || { echo "apps.sh: --lib-b $libb not found" >&2; exit 2; }
  libb="$(cd "$(dirname "$libb")" && pwd)/$(basename "$libb")"
fi
for p in $programs; do
  case "$p" in
    leveldb) [ -x "$bin/pl_leveldb_readrandom" ] || { echo "apps.sh: $bin/pl_leveldb_readrandom missing" >&2; exit 2; } ;;
    kccachetest|kcgrasstest|memcached) command -v "$p" >/dev/null || { echo "apps.sh: $p missing (scripts/deps.sh)" >&2; exit 2; } ;;
    *) echo "apps.sh: unknown program $p" >&2; exit 2 ;;
  esac
done
[[ " $programs " != *" memcached "* ]] || command -v memcaslap >/dev/null ||
  { echo "apps.sh: memcaslap missing (scripts/deps.sh)" >&2; exit 2; }
stamp="$(date +%Y%m%d-%H%M%S)"
[ -n "$out" ] || { res="${CLOF_RESULTS:-$(dirname "$bin")/results}"; mkdir -p "$res"; out="$res/preload-apps-$stamp.jsonl"; }
tmp="$(mktemp -d)"
mcpid=""
trap '[ -n "$mcpid" ] && kill -KILL "$mcpid" 2>/dev/null; rm -rf "$tmp"' EXIT
all="glibc $locks"
machine="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr) / glibc $(ldd --version 2>&1 | awk 'NR == 1 { print $NF }') / clof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo '+changes')"
# a package's version: from the bundle's VERSIONS when --bin is a bundle
# (bench/preload/bundle.sh), else from dpkg
pkgver() {
  local v="" f; f="$(dirname "$bin")/VERSIONS"
  [ -f "$f" ] && v="$(awk -v p="$1" '$1 == p { print $2 " (bundled)"; exit }' "$f")"
  [ -n "$v" ] || v="$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo ?)"
  echo "$v"
}
versions="leveldb $(pkgver libleveldb-dev), kyotocabinet $(pkgver kyotocabinet-utils), memcached $(pkgver memcached), memcaslap $(pkgver libmemcached-tools)"
[ ! -f "$(dirname "$bin")/VERSIONS" ] ||
  versions+=", bundle of $(awk '$1 == "clof" { print $1 " " $2; exit }' "$(dirname "$bin")/VERSIONS")"
python3 - "$cmdline" "$machine" "$versions" "$threads" "$repeats" "$duration" "$seed" "$emulate" "$rwlock" "$lib" "$libb" >"$out" <<'EOF'
import json, sys, time
c, m, v, t, r, d, s, e, rw, lib, libb = sys.argv[1:]
print(json.dumps({"type": "meta", "driver": "bench/preload/apps.sh", "cmdline": c,
                  "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": m, "notes": v,
                  "emulate": e or None, "rwlock": rw, "lib": lib,
                  **({"lib_b": libb} if libb else {}),
                  "threads": [int(x) for x in t.split()], "repeats": int(r),
                  "duration_s": float(d), "seed": int(s), "reference": "glibc",
                  "units": {"leveldb": "Gets/s", "kccachetest": "records/s",
                            "kcgrasstest": "records/s", "memcached": "memcaslap TPS"}}))
EOF
emit() { # program lock T repeat ok value error  (+ the 1-minute load average
          # at the end of the run: other work on the machine, for the record)
  python3 -c 'import json,sys; p,l,t,r,ok,v,e,ld=sys.argv[1:]; d={"program":p,"lock":l,"threads":int(t),"repeat":int(r),"ok":ok=="1","value":float(v),"loadavg_1min":float(ld)}
if e: d["error"]=e
print(json.dumps(d))' "$@" "$(cut -d' ' -f1 /proc/loadavg)" >>"$out"
}
prefix() {
  [ "$1" = glibc ] && { echo ""; return; }
  local l="$1" so="$lib"
  case "$l" in *@b) so="$libb"; l="${l%@b}" ;; esac
  echo "LD_PRELOAD=$so CLOF_LOCK=$l CLOF_RWLOCK=$rwlock${emulate:+ CLOF_EMULATE=$emulate}"
}

run_one() { # program lock T repeat
  local p="$1" l="$2" t="$3" r="$4" pre value ok=0 err="" rc
  pre="$(prefix "$l")"
  case "$p" in
  leveldb)
    res="$(env $pre timeout 120 "$bin/pl_leveldb_readrandom" --db "$tmp/db" --keys 100000 \
             --threads "$t" --duration "$duration" --label "repeat=$r" 2>"$tmp/err")" && rc=0 || rc=$?
    value="$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["ops_per_s"] if d["errors"]==0 and d["lock"]==sys.argv[2] else 0)' "$res" "${canon[$l]}" 2>/dev/null || echo 0)"
    if [ "$rc" -eq 0 ] && [ "$value" != 0 ]; then ok=1; else err="rc=$rc $res $(tail -c 200 "$tmp/err")"; fi ;;
  kccachetest|kcgrasstest)
    local n; [ "$p" = kccachetest ] && n=$((1000000 / t)) || n=$((100000 / t))
    env $pre CLOF_STATS=1 timeout 120 "$p" wicked -th "$t" -it 1 "$n" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
    local secs; secs="$(sed -n 's/^time: //p' "$tmp/out" | tail -1)"
    local last; last="$(grep -v '^$' "$tmp/out" | tail -1)"
    local used="glibc"
    [ "$l" = glibc ] || used="$(sed -n 's/^clof-preload\[[0-9]*\]: lock=\([^ ]*\) .*/\1/p' "$tmp/err" | tail -1)"
    if [ "$rc" -eq 0 ] && [ "$last" = ok ] && [ -n "$secs" ] && [ "$used" = "${l%@b}" ]; then
      ok=1; value="$(awk -v n="$n" -v t="$t" -v s="$secs" 'BEGIN{printf "%.1f", n*t/s}')"
    else value=0; err="rc=$rc last='$last' lock='$used' $(tail -c 200 "$tmp/err")"; fi ;;
  memcached)
    local user=() port up=0
    [ "$(id -u)" -eq 0 ] && user=(-u nobody)
    port=$((20000 + (RANDOM * 7 + r * 131 + t) % 40000))
    env $pre CLOF_STATS=1 memcached "${user[@]}" -l 127.0.0.1 -p "$port" -U 0 -t "$t" -m 256 \
      >/dev/null 2>"$tmp/mc.err" &
    mcpid=$!
    for _ in $(seq 1 100); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
      kill -0 "$mcpid" 2>/dev/null || break; sleep 0.05
    done
    value=0
    if [ $up -eq 1 ]; then
      timeout 120 memcaslap -s "127.0.0.1:$port" -T 2 -c 32 -t "${duration%.*}s" >"$tmp/slap" 2>&1 && rc=0 || rc=$?
      local tps; tps="$(grep -o 'TPS: [0-9]*' "$tmp/slap" | tail -1 | sed 's/TPS: //')"
      timeout 60 "$bin/pl_mc_check" 127.0.0.1 "$port" --keys 2000 --threads 2 --seed "$r" >"$tmp/chk" 2>&1 && crc=0 || crc=$?
      kill -TERM "$mcpid"; wait "$mcpid" 2>/dev/null || true; mcpid=""
      local used="glibc"
      [ "$l" = glibc ] || used="$(sed -n 's/^clof-preload\[[0-9]*\]: lock=\([^ ]*\) .*/\1/p' "$tmp/mc.err" | tail -1)"
      if [ "$rc" -eq 0 ] && [ -n "$tps" ] && [ "$crc" -eq 0 ] && [ "$used" = "${l%@b}" ]; then ok=1; value="$tps"
      else err="memcaslap rc=$rc tps='$tps' check rc=$crc lock='$used' $(tail -c 200 "$tmp/chk")"; fi
    else
      kill -KILL "$mcpid" 2>/dev/null; wait "$mcpid" 2>/dev/null || true; mcpid=""
      err="memcached did not start: $(tail -c 200 "$tmp/mc.err")"
    fi ;;
  esac
  emit "$p" "$l" "$t" "$r" "$ok" "${value:-0}" "$err"
  [ "$ok" = 1 ] || echo "apps: $p $l T=$t repeat $r FAILED: $err" >&2
}

order() {
  python3 -c 'import random,sys; s,r,t,p=sys.argv[1:5]; l=sys.argv[5:]; random.Random(f"{s}/{r}/{t}/{p}").shuffle(l); print(" ".join(l))' \
    "$seed" "$1" "$2" "$3" $all
}
echo "apps: {$programs} x {$all} x T={$threads} x $repeats repeats -> ${out#$root/}" >&2
for r in $(seq 1 "$repeats"); do
  for t in $threads; do
    for p in $programs; do
      for l in $(order "$r" "$t" "$p"); do run_one "$p" "$l" "$t" "$r"; done
    done
  done
  echo "apps: repeat $r/$repeats done ($(date +%H:%M:%S))" >&2
done
md="${out%.jsonl}.md"
# with 6 repeats or more, each ratio's 90% interval too (summarize.py --ci)
ci=(); [ "$repeats" -lt 6 ] || ci=(--ci 0.9)
python3 "$root/bench/preload/summarize.py" "$out" --goal 0.95 "${ci[@]}" | tee "$md"
