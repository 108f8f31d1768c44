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
# the man pages (tools/man.cmake): `man clof-select` and one page per
# subcommand, each naming itself; clof-preload(7); the installed clof
# finds its programs and its version
man_root="$tmp/prefix/share/man"
for sub in $("$tmp/prefix/bin/clof" --help | sed -n '/^subcommands:/,/^$/p' | awk 'NF > 1 {print $1}'); do
  [ -f "$man_root/man1/clof-$sub.1" ] || { echo "FAIL install: no man page clof-$sub.1"; exit 1; }
done
MANPATH="$man_root" MANWIDTH=80 man clof-select 2>&1 | grep -q "clof select" \
  || { echo "FAIL install: man clof-select: $(MANPATH="$man_root" man clof-select 2>&1 | head -5)"; exit 1; }
MANPATH="$man_root" man 7 clof-preload 2>&1 | grep -q "CLOF_LOCK" \
  || { echo "FAIL install: man 7 clof-preload"; exit 1; }
"$tmp/prefix/bin/clof" --version | grep -q "^clof [0-9]" || { echo "FAIL install: clof --version"; exit 1; }
[ "$("$tmp/prefix/bin/clof" locks --canon clof:TKT-mcs)" = tkt-mcs ] \
  || { echo "FAIL install: the installed clof locks --canon"; exit 1; }
# clof bench (and with it clof select) from the prefix: the programs it runs
# are installed beside it; --simulate where the simulator is built
out=$("$tmp/prefix/bin/clof" bench --lock mcs --threads 1 --duration 0.01 --json 2>&1) \
  && case "$out" in *'"lock":"mcs"'*) ;; *) false ;; esac \
  || { echo "FAIL install: the installed clof bench: $out"; exit 1; }
if [ -x "$build/bin/clof-bench-sim" ]; then
  out=$("$tmp/prefix/bin/clof" bench --simulate m1 --lock mcs --threads 2 --json 2>&1) \
    && case "$out" in *'"simulated":true'*) ;; *) false ;; esac \
    || { echo "FAIL install: the installed clof bench --simulate: $out"; exit 1; }
fi
echo "PASS install: find_package(clof), pkg-config clof, man pages, clof --version, clof bench"
