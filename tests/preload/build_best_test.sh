#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test of src/preload/build-best.sh (ctest preload.build_best):
#   build_best_test.sh SOURCE_DIR BUILD_DIR C_COMPILER PL_CONFORM
# Builds a library with clof:tkt-mcs over a 3-level hierarchy file compiled
# in as the defaults, then checks that a program under it runs that lock over
# that hierarchy with CLOF_LOCK/CLOF_TOPOLOGY unset, that both variables
# still override, and that bad input fails with one clear message and
# writes nothing.
set -uo pipefail
src="$1"; build="$2"; cc="$3"; conform="$4"
bb="$src/src/preload/build-best.sh"
topo="$src/examples/topology/epyc7352-3level.topo"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL build_best: $*" >&2; exit 1; }
clean() { env -u CLOF_LOCK -u CLOF_RWLOCK -u CLOF_TOPOLOGY -u CLOF_EMULATE -u CLOF_SYSFS_ROOT -u CLOF_STATS "$@"; }

# bad input first (fails before compiling anything)
out="$tmp/bad/libclof-best.so"
clean "$bb" --lock mcss --out "$out" --build "$build" --cc "$cc" >"$tmp/o" 2>&1; rc=$?
cat "$tmp/o"
[ "$rc" = 2 ] || fail "an unknown lock: exit $rc, not 2 (bad input)"
grep -q "unknown lock 'mcss'; did you mean mcs" "$tmp/o" || fail "no 'unknown lock ... did you mean' line"
clean "$bb" --lock hmcs --topology "$tmp/none.topo" --out "$out" --build "$build" --cc "$cc" >"$tmp/o" 2>&1 && fail "a missing hierarchy file was accepted"
grep -q "none.topo" "$tmp/o" || fail "the missing file is not named: $(cat "$tmp/o")"
printf 'clof-topology 1\ncpus 0-3\nlevel cache\ngroup 0-1\ngroup 1-3\n' >"$tmp/bad.topo"
clean "$bb" --lock hmcs --topology "$tmp/bad.topo" --out "$out" --build "$build" --cc "$cc" >"$tmp/o" 2>&1 && fail "a bad hierarchy file was accepted"
cat "$tmp/o"
grep -q "bad.topo:" "$tmp/o" || fail "the bad file's line is not named"
clean "$bb" --out "$out" >"$tmp/o" 2>&1 && fail "no --lock was accepted"
clean "$bb" --lock mcs --rwlock rw:nosuch --out "$out" --build "$build" --cc "$cc" >"$tmp/o" 2>&1 \
  && fail "an unknown rwlock was accepted"
cat "$tmp/o"
grep -q "unknown lock 'rw:nosuch'" "$tmp/o" || fail "no 'unknown lock' message for the rwlock"
[ ! -e "$out" ] || fail "a failed build wrote $out"

# everything compiled here (as from a checkout without a build): asl:mcs
out2="$tmp/best2/libclof-best.so"
clean "$bb" --lock asl:mcs --out "$out2" --build "$build" --cc "$cc" --no-reuse >"$tmp/o" 2>&1 \
  || { cat "$tmp/o"; fail "build-best.sh --no-reuse failed"; }
cat "$tmp/o"
grep -q "from $build" "$tmp/o" && fail "--no-reuse reused the build tree"
clean CLOF_STATS=1 LD_PRELOAD="$out2" "$conform" default_child 2>"$tmp/e" || fail "default_child: $(cat "$tmp/e")"
grep -q " lock=asl:mcs " "$tmp/e" || fail "the default lock is not asl:mcs: $(cat "$tmp/e")"

# a library with clof:tkt-mcs over the 3-level EPYC hierarchy and the
# rwlock rw-central (the build tree is fresh: only pl_core.c and
# pl_rwlock.c are compiled); its own check ran an rwlock with CLOF_RWLOCK
# unset and reports rw-central
out="$tmp/best/libclof-best.so"
clean "$bb" --lock clof:ticket-mcs --rwlock rw-central --topology "$topo" --out "$out" --build "$build" \
  --cc "$cc" >"$tmp/o" 2>&1 || { cat "$tmp/o"; fail "build-best.sh failed"; }
cat "$tmp/o"
grep -q "rwlock=rw-central rdlocks=[1-9]" "$tmp/o" || fail "the default rwlock is not rw-central"
[ -f "$out" ] || fail "no $out"
# written without its debug info (build-best.sh strips it): no DWARF
# section, and far below the 42 MB of a library built with -g
for lib in "$out" "$out2"; do
  ! readelf -S -W "$lib" | grep -q '\.debug_info' || fail "$lib has .debug_info: not stripped"
  sz=$(stat -c %s "$lib")
  [ "$sz" -le 10000000 ] || fail "$lib is $sz bytes, more than 10 MB"
  echo "  $lib: $sz bytes, no debug info"
done

# the defaults: that lock, that hierarchy
clean CLOF_STATS=1 LD_PRELOAD="$out" "$conform" default_child 2>"$tmp/e" || fail "default_child: $(cat "$tmp/e")"
cat "$tmp/e"
grep -q " lock=tkt-mcs " "$tmp/e" || fail "the default lock is not tkt-mcs (clof:tkt-mcs spelled canonically)"
grep -q " topology=file:$topo " "$tmp/e" || fail "the default hierarchy is not $topo"
clean CLOF_LOCK=clof:tkt-mcs CLOF_STATS=1 LD_PRELOAD="$out" "$conform" mutex_static 2>"$tmp/e" \
  || fail "mutex_static: $(cat "$tmp/e")"
grep -q " topology=file:$topo " "$tmp/e" || fail "mutex_static did not run over $topo: $(cat "$tmp/e")"
# the environment still overrides both
clean CLOF_LOCK=ticket CLOF_STATS=1 LD_PRELOAD="$out" "$conform" mutex_static 2>"$tmp/e" \
  || fail "CLOF_LOCK=ticket: $(cat "$tmp/e")"
grep -q " lock=ticket " "$tmp/e" || fail "CLOF_LOCK=ticket did not override"
clean CLOF_LOCK=clof:tkt-mcs CLOF_EMULATE=numa:2,core:2 CLOF_STATS=1 LD_PRELOAD="$out" \
  "$conform" mutex_static 2>"$tmp/e" || fail "CLOF_EMULATE: $(cat "$tmp/e")"
grep -q " topology=emulated:numa:2,core:2" "$tmp/e" || fail "CLOF_EMULATE did not override: $(cat "$tmp/e")"
echo "PASS build_best"
