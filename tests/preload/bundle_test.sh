#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/preload/bundle.sh makes a folder whose programs run on their own:
#   bundle_test.sh SOURCE_DIR BUILD_DIR
# Checks that every bundled program resolves its shared libraries (glibc's
# aside) inside the bundle, that the wrappers pass LD_PRELOAD through (a
# bundled Kyoto Cabinet test and the LevelDB driver run on the bundled
# library, CLOF_STATS=1 / the driver's report say so), and that the bundle
# records its versions.  Exit 77 (skipped) where the programs are not
# installed (scripts/deps.sh).
set -uo pipefail
src="$1"; build="$2"
for p in kccachetest kcgrasstest memcached memcaslap; do
  command -v "$p" >/dev/null || { echo "SKIP: $p is not installed (run scripts/deps.sh)"; exit 77; }
done
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL bundle: $*" >&2; exit 1; }
b="$tmp/bundle"
"$src/bench/preload/bundle.sh" --build "$build" "$b" || fail "bundle.sh failed"
[ -f "$b/lib/libclof-preload.so" ] || fail "no libclof-preload.so in the bundle"
grep -q '^clof ' "$b/VERSIONS" || fail "VERSIONS has no clof line"
grep -q '^memcached ' "$b/VERSIONS" || fail "VERSIONS has no memcached line"
# every program's libraries: from the bundle, or glibc's own
# (a wrapped program, real/NAME, with the LD_LIBRARY_PATH its wrapper sets)
for f in "$b"/bin/*; do
  name="$(basename "$f")"
  if [ -f "$b/real/$name" ]; then
    grep -q "real/$name" "$f" || fail "bin/$name does not run real/$name"
    trace="$(LD_LIBRARY_PATH="$b/lib" LD_TRACE_LOADED_OBJECTS=1 "$b/real/$name" 2>&1)"
  else
    trace="$(LD_TRACE_LOADED_OBJECTS=1 "$f" 2>&1)"
  fi || fail "$name: the loader could not list its libraries: $trace"
  if grep -q 'not found' <<<"$trace"; then fail "$name: a library is not found: $trace"; fi
  outside="$(awk '$2 == "=>" && $3 ~ /^\// { print $3 }' <<<"$trace" | grep -v "^$b/lib/" |
             grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*)\.so' || true)"
  [ -z "$outside" ] || fail "$name loads libraries from outside the bundle: $outside"
done
grep -q "$b/lib/libkyotocabinet" <<<"$(LD_LIBRARY_PATH="$b/lib" LD_TRACE_LOADED_OBJECTS=1 "$b/real/kcgrasstest" 2>&1)" ||
  fail "kcgrasstest does not load the bundle's libkyotocabinet"
# the wrappers keep LD_PRELOAD: the programs run on the bundle's library
out="$(cd "$tmp" && LD_PRELOAD="$b/lib/libclof-preload.so" CLOF_LOCK=cr:mcs CLOF_STATS=1 \
        timeout 60 "$b/bin/kcgrasstest" wicked -th 2 -it 1 2000 2>"$tmp/err")" || fail "bundled kcgrasstest failed: $(tail -c 300 "$tmp/err")"
[ "$(grep -v '^$' <<<"$out" | tail -1)" = ok ] || fail "bundled kcgrasstest did not end with ok"
grep -q '^clof-preload\[[0-9]*\]: lock=cr:mcs ' "$tmp/err" || fail "bundled kcgrasstest did not run on cr:mcs: $(tail -c 300 "$tmp/err")"
res="$(LD_PRELOAD="$b/lib/libclof-preload.so" CLOF_LOCK=mcs timeout 60 "$b/bin/pl_leveldb_readrandom" \
        --db "$tmp/db" --keys 2000 --threads 2 --duration 0.2)" || fail "bundled pl_leveldb_readrandom failed"
grep -q '"lock":"mcs"' <<<"$res" && grep -q '"errors":0' <<<"$res" || fail "bundled LevelDB driver: $res"
echo "bundle ok: $(ls "$b/bin" | wc -l) programs, $(ls "$b/lib" | wc -l) libraries"
