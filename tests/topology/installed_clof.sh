#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed clof command works from its prefix: topology and heatmap.
set -euo pipefail
build=$(cd "$1" && pwd); fixtures=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
clof="$tmp/prefix/bin/clof"
out=$(env -u CLOF_BINDIR "$clof" topology --sysfs "$fixtures/sysfs/kunpeng920")
grep -q "Levels for locks (leaves up): cache(32) numa(4) package(2) system(1)" <<<"$out"
out=$(cd "$tmp" && env -u CLOF_BINDIR "$clof" heatmap --synthetic --sysfs "$fixtures/sysfs/biglittle" \
      --out "$tmp/hm" --no-plot)
grep -q "Proposed levels (leaves up): cache(2), system(1)" <<<"$out"
test -s "$tmp/hm/levels.topo"
echo "PASS installed clof: topology and heatmap from $tmp/prefix"
