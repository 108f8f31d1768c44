#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The preload library's lock functions are opaque to the compiler
# (src/preload/pl_opaque.h, PL_LOCKFN): in tests/preload/opaque_lock.c,
# compiled to assembly at -O2 with the build's C compiler, no reference to
# the lock-protected static `pool` may come before the call that takes the
# lock.  The same file with a plain `static noinline` lock function is
# compiled too and reported (GCC 12 reads `pool` before the call there: the
# compiler behaviour PL_LOCKFN guards against; not a failure either way).
#   opaque_lock.sh CC SRCDIR
set -euo pipefail
cc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-O2 -S -I "$src/src/preload")
# GCC: address every static by its own name (no section anchors)
if "$cc" -fno-section-anchors -x c -c /dev/null -o "$tmp/probe.o" 2>/dev/null; then
  flags+=(-fno-section-anchors)
fi
# order: "before" if the first reference to `pool` in give_back precedes
# the call of acq, "after" otherwise
order() {
  awk '/^give_back:/ { f = 1; next }
       f && /^[ \t]*\.size[ \t]+give_back/ { exit }
       f && call == 0 && /(bl|callq?|jmpq?|b)[ \t]+acq/ { call = NR }
       f && ref == 0 && /[^a-z_]pool([^a-z_]|$)/ { ref = NR }
       END { if (!call || !ref) print "unknown"; else if (ref < call) print "before"; else print "after" }' "$1"
}
"$cc" "${flags[@]}" "$src/tests/preload/opaque_lock.c" -o "$tmp/opaque.s"
"$cc" "${flags[@]}" '-DLOCKFN=static __attribute__((noinline))' \
      "$src/tests/preload/opaque_lock.c" -o "$tmp/plain.s"
plain=$(order "$tmp/plain.s")
opaque=$(order "$tmp/opaque.s")
echo "$($cc --version | head -1): a plain static noinline lock function: pool read $plain the lock call"
echo "with PL_LOCKFN: pool read $opaque the lock call"
if [ "$opaque" != after ]; then
  echo "FAIL: with PL_LOCKFN the lock-protected static is read $opaque the call that takes the lock"
  grep -n -A40 '^give_back:' "$tmp/opaque.s" | head -60
  exit 1
fi
echo "PASS"
