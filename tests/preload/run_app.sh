#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integration test: a real program over libclof-preload.so.
#
#   run_app.sh PROGRAM LOCK PRELOAD_LIB BINDIR
#
# PROGRAM is one of
#   leveldb    bench/preload's readrandom driver against Debian's libleveldb:
#              fill 50,000 keys, 4 threads of random Gets for 2 s, every value
#              checked (the driver exits 1 on any wrong or missing value)
#   kyoto      Kyoto Cabinet's own multi-threaded tests, which check their
#              data and end with "ok": kccachetest wicked, kcgrasstest wicked
#   memcached  memcached on 127.0.0.1 (4 worker threads) under memcaslap load,
#              with pl_mc_check writing 20,000 values and reading every one
#              back, during the load and after it
# Each run also checks, from CLOF_STATS=1 or the driver's own report, that the
# program really ran on LOCK.  Every step is bounded by a timeout: a hang is
# a failure.  Exit 0 pass, 1 fail, 77 skipped (program not installed:
# scripts/deps.sh installs it).  CLOF_APP_TIMEOUT: the bound of each step in
# seconds (default 60; tests/preload/soak.sh raises it and keeps its own
# watchdog, which saves the stacks of a hung run).
set -uo pipefail
T="${CLOF_APP_TIMEOUT:-60}"
prog="$1"; lock="$2"; lib="$3"; bindir="$4"
# the name the library prints: the canonical one, a composition without
# `clof:` (docs/locks.md)
canon="${lock//clof:/}"
tmp="$(mktemp -d)"
mcpid=""
cleanup() {
  if [ -n "$mcpid" ] && kill -0 "$mcpid" 2>/dev/null; then kill -KILL "$mcpid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL app_$prog ($lock): $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || { echo "SKIP: $1 is not installed (run scripts/deps.sh)"; exit 77; }; }
[ -f "$lib" ] || fail "no preload library at $lib"

# the statistics line of a run: lock=LOCK and some acquisitions
check_stats() { # file
  local line
  line="$(grep -E '^clof-preload\[[0-9]+\]: lock=' "$1" | tail -1)"
  [ -n "$line" ] || fail "no clof-preload statistics in $(basename "$1"): not preloaded?"
  case "$line" in *"lock=$canon "*) ;; *) fail "ran on the wrong lock: $line" ;; esac
  local acq
  acq="$(sed -n 's/.* acquisitions=\([0-9]*\).*/\1/p' <<<"$line")"
  [ "${acq:-0}" -gt 0 ] || fail "no acquisitions through clof: $line"
  echo "  $line"
}

case "$prog" in
leveldb)
  drv="$bindir/pl_leveldb_readrandom"
  [ -x "$drv" ] || { echo "SKIP: $drv not built (LevelDB missing: scripts/deps.sh)"; exit 77; }
  out="$(LD_PRELOAD="$lib" CLOF_LOCK="$lock" timeout "$T" "$drv" --db "$tmp/db" --keys 50000 \
           --threads 4 --duration 2 --label test 2>"$tmp/err")"
  rc=$?
  cat "$tmp/err" >&2
  [ $rc -eq 124 ] && fail "hung (timeout)"
  [ $rc -eq 0 ] || fail "driver failed (rc $rc): $out"
  echo "  $out"
  grep -q "\"lock\":\"$canon\"" <<<"$out" || fail "ran on the wrong lock: $out"
  grep -q '"errors":0' <<<"$out" || fail "wrong values: $out"
  ;;
kyoto)
  need kccachetest; need kcgrasstest
  for t in "kccachetest wicked -th 4 -it 1 100000" "kcgrasstest wicked -th 4 -it 1 25000"; do
    LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_STATS=1 timeout "$T" $t >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 124 ] && fail "$t hung (timeout)"
    [ $rc -eq 0 ] || { tail -5 "$tmp/out" "$tmp/err" >&2; fail "$t failed (rc $rc)"; }
    [ "$(grep -v '^$' "$tmp/out" | tail -1)" = "ok" ] || { tail -5 "$tmp/out" >&2; fail "$t did not end with ok"; }
    echo "  $t: ok ($(grep '^time:' "$tmp/out" | tail -1))"
    check_stats "$tmp/err"
  done
  ;;
memcached)
  need memcached; need memcaslap
  chk="$bindir/pl_mc_check"
  [ -x "$chk" ] || fail "$chk not built"
  user=(); [ "$(id -u)" -eq 0 ] && user=(-u nobody)
  for attempt in 1 2 3 4 5; do
    port=$((20000 + (RANDOM * 7 + $$ + attempt * 131) % 40000))
    LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_STATS=1 \
      memcached "${user[@]}" -l 127.0.0.1 -p "$port" -U 0 -t 4 -m 256 >"$tmp/mc.out" 2>"$tmp/mc.err" &
    mcpid=$!
    up=0
    for _ in $(seq 1 100); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then up=1; break; fi
      kill -0 "$mcpid" 2>/dev/null || break
      sleep 0.05
    done
    [ $up -eq 1 ] && break
    kill -KILL "$mcpid" 2>/dev/null; wait "$mcpid" 2>/dev/null; mcpid=""
  done
  [ -n "$mcpid" ] || { cat "$tmp/mc.err" >&2; fail "memcached did not start"; }
  timeout "$T" memcaslap -s "127.0.0.1:$port" -T 2 -c 32 -t 2s >"$tmp/slap" 2>&1 &
  slap=$!
  timeout "$T" "$chk" 127.0.0.1 "$port" --keys 20000 --threads 4 --seed 1 >"$tmp/chk1" 2>&1
  rc1=$?
  wait $slap; rcs=$?
  timeout "$T" "$chk" 127.0.0.1 "$port" --keys 20000 --threads 4 --seed 2 >"$tmp/chk2" 2>&1
  rc2=$?
  kill -TERM "$mcpid"
  for _ in $(seq 1 200); do kill -0 "$mcpid" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$mcpid" 2>/dev/null; then fail "memcached did not stop on SIGTERM (hung)"; fi
  wait "$mcpid"; mcpid=""
  cat "$tmp/chk1" "$tmp/chk2"
  [ $rc1 -eq 0 ] || fail "set/get check under load failed (rc $rc1)"
  [ $rc2 -eq 0 ] || fail "set/get check after load failed (rc $rc2)"
  [ $rcs -eq 0 ] || { cat "$tmp/slap" >&2; fail "memcaslap failed (rc $rcs)"; }
  tps="$(grep -o 'TPS: [0-9]*' "$tmp/slap" | tail -1)"
  [ -n "$tps" ] || { cat "$tmp/slap" >&2; fail "memcaslap printed no TPS"; }
  echo "  memcaslap: $tps"
  check_stats "$tmp/mc.err"
  ;;
*)
  echo "usage: $0 leveldb|kyoto|memcached LOCK PRELOAD_LIB BINDIR" >&2; exit 2 ;;
esac
echo "PASS app_$prog ($lock)"
