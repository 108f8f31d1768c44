#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs what bench/preload/apps.sh and oversub.sh run into one folder that
# travels to another x86-64 Linux machine without the Debian packages
# (a lent benchmark machine, a colleague's box): this build's
# libclof-preload.so and benchmark drivers, kccachetest, kcgrasstest,
# memcached, memcaslap, and every shared library they load except glibc's
# own (the target's glibc must be at least this machine's).  Programs with
# bundled libraries are run through a small wrapper that sets
# LD_LIBRARY_PATH for that program alone, so nothing else on the target
# (its python3, say) sees the bundled copies.
#
# usage: bench/preload/bundle.sh [--build DIR] OUTDIR
# then, on the target, from a checkout of the same commit:
#   . OUTDIR/env.sh
#   bench/preload/apps.sh --bin OUTDIR/bin --lib OUTDIR/lib/libclof-preload.so ...
#   bench/preload/oversub.sh --bin OUTDIR/bin --lib OUTDIR/lib/libclof-preload.so ...
# OUTDIR/VERSIONS records the clof commit and the packages' versions
# (apps.sh puts them in its meta line when --bin is a bundle).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$root/build"
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "bundle.sh: unknown argument: $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: bench/preload/bundle.sh [--build DIR] OUTDIR" >&2; exit 2; }
out="$1"
drivers="pl_leveldb_readrandom pl_mc_check pl_mutexbench pl_lockloop clof-topology clof-lockname"
programs="kccachetest kcgrasstest memcached memcaslap"
[ -f "$build/lib/libclof-preload.so" ] || { echo "bundle.sh: $build/lib/libclof-preload.so not found (build first)" >&2; exit 2; }
for d in $drivers; do
  [ -x "$build/bin/$d" ] || { echo "bundle.sh: $build/bin/$d not found (build first)" >&2; exit 2; }
done
for p in $programs; do
  command -v "$p" >/dev/null || { echo "bundle.sh: $p missing (scripts/deps.sh)" >&2; exit 2; }
done
rm -rf "$out"; mkdir -p "$out/bin" "$out/real" "$out/lib"
out="$(cd "$out" && pwd)"
cp "$build/lib/libclof-preload.so" "$out/lib/"
# deps FILE: the shared libraries FILE loads, glibc's own left out.
deps() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux[^/]*)\.so' || true
}
for f in $(for d in $drivers; do echo "$build/bin/$d"; done) $(for p in $programs; do command -v "$p"; done); do
  name="$(basename "$f")"
  libs="$(deps "$f")"
  if [ -z "$libs" ]; then cp "$f" "$out/bin/$name"; continue; fi
  cp "$f" "$out/real/$name"
  for l in $libs; do cp -L -n "$l" "$out/lib/"; done
  cat >"$out/bin/$name" <<WRAP
#!/bin/sh
d="\$(cd "\$(dirname "\$0")/.." && pwd)"
LD_LIBRARY_PATH="\$d/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$d/real/$name" "\$@"
WRAP
  chmod +x "$out/bin/$name"
done
cat >"$out/env.sh" <<'ENV'
# . OUTDIR/env.sh: puts the bundle's programs first on PATH.
PATH="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)/bin:$PATH"; export PATH
ENV
{
  echo "clof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo '+changes')"
  echo "built on $(uname -sr) / glibc $(ldd --version 2>&1 | awk 'NR == 1 { print $NF }')"
  for pkg in libleveldb-dev kyotocabinet-utils memcached libmemcached-tools; do
    echo "$pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo ?)"
  done
} >"$out/VERSIONS"
echo "bundle.sh: $(du -sh "$out" | cut -f1) in $out" >&2
