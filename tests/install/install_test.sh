#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the build tree into a temporary prefix, then build and run a
# consumer with find_package(clof) (examples/find_package) and one with
# pkg-config.
set -euo pipefail
build="$1"; src="$2" # src: the source tree
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/examples/find_package" -B "$tmp/cb" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cb" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/cb/consumer_cmake"
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH="$libdir"
cc $(pkg-config --cflags clof) "$src/examples/find_package/main.c" -o "$tmp/consumer_pc" $(pkg-config --libs clof)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$tmp/consumer_pc"
echo "PASS install: find_package(clof) and pkg-config clof"
