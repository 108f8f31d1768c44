#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install what clof needs on a fresh Debian 12 machine (idempotent; quiet when
# everything is there).  Used by scripts/test.sh and scripts/run.sh.
set -euo pipefail
pkgs=(cmake ninja-build gcc g++ clang libclang-rt-14-dev llvm-14 valgrind libck-dev
      hwloc-nox pkg-config python3 python3-matplotlib python3-numpy binutils
      libleveldb-dev libsnappy-dev kyotocabinet-utils libkyotocabinet-dev
      memcached libmemcached-tools spin relacy-dev doxygen
      gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
      gdb-multiarch man-db glibc-source libpython3.11-testsuite stress-ng perl)
# the runtimes of tests/runtimes, where the machine has none of its own
command -v java >/dev/null || pkgs+=(default-jre-headless)
command -v node >/dev/null || pkgs+=(nodejs)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
