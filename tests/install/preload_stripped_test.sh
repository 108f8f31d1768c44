#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cmake --install leaves libclof-preload.so without debug info (at most
# 10 MB; built with -g it is about 42 MB) and, unless the build was
# configured with -DCLOF_INSTALL_DEBUG=OFF, its debug info in
# <libdir>/.debug/libclof-preload.so.debug, named by the library's
# .gnu_debuglink (src/preload/CMakeLists.txt).
set -euo pipefail
build="$1"
fail() { echo "FAIL install.preload_stripped: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/log" || { cat "$tmp/log"; fail "cmake --install failed"; }
lib=$(ls "$tmp"/prefix/lib*/libclof-preload.so 2>/dev/null | head -1)
[ -n "$lib" ] || fail "no libclof-preload.so under $tmp/prefix/lib*"
built="$build/lib/libclof-preload.so"
! readelf -S -W "$lib" | grep -q '\.debug_info' || fail "$lib has a .debug_info section: not stripped"
sz=$(stat -c %s "$lib")
[ "$sz" -le 10000000 ] || fail "$lib is $sz bytes, more than 10 MB"
echo "installed libclof-preload.so: $sz bytes (the build's: $(stat -c %s "$built") bytes)"
if grep -q '^CLOF_INSTALL_DEBUG:BOOL=OFF' "$build/CMakeCache.txt"; then
  echo "PASS install.preload_stripped (CLOF_INSTALL_DEBUG=OFF: no .debug file)"
  exit 0
fi
dbg="$(dirname "$lib")/.debug/libclof-preload.so.debug"
[ -f "$dbg" ] || fail "no $dbg"
readelf -S -W "$dbg" | grep -q '\.debug_info' || fail "$dbg has no .debug_info"
readelf -p .gnu_debuglink "$lib" 2>/dev/null | grep -q 'libclof-preload.so.debug' \
  || fail "$lib has no .gnu_debuglink naming libclof-preload.so.debug"
# the same build: the .debug file's build id is the library's
id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
[ -z "$(id "$lib")" ] || [ "$(id "$lib")" = "$(id "$dbg")" ] || fail "build ids differ: $lib vs $dbg"
echo "  debug info: $dbg, $(stat -c %s "$dbg") bytes"
echo "PASS install.preload_stripped"
