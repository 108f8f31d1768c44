#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/registry/example_lock.sh SRC WORK -- docs/adding-a-lock.md's walk, run.
#
# Copies the source tree SRC to WORK/tree and adds a basic lock as the walk
# says: one header and one row of include/clof/lock/list.h, nothing else.
# The lock is the walk's example, TWA, under a name that nothing else in the
# tree mentions (twademo, composition part twd): its header is
# include/clof/lock/twa.h renamed, its row the one docs/adding-a-lock.md
# shows, renamed.  Then it builds the copy (clof-bench with fewer
# compositions, to save time) and checks that every place that lists the basic locks
# knows the new one: `clof locks`, `clof bench --lock`, CLOF_LOCK under the
# preload library, `clof verify --lock`, the composition grammar (a
# composition with the new lock as a part, verified and benchmarked), and
# the ctest lists (its lock.* and preload.* tests, two of them run).
set -euo pipefail
src=$(cd "$1" && pwd)
work=$2
fail() { echo "example_lock: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

rm -rf "$work"
mkdir -p "$work/tree"
tree=$work/tree
step "copy $src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  # the working tree as git sees it: tracked and untracked-but-not-ignored
  (cd "$src" && git ls-files -co --exclude-standard -z |
     tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -C "$tree" -xf -
else
  (cd "$src" && tar --exclude='./build*' -cf - .) | tar -C "$tree" -xf -
fi
[ -f "$tree/include/clof/lock/list.h" ] || fail "the copy has no include/clof/lock/list.h"
# nothing but this test and the page it runs may know the name
known=$(grep -rlw twademo "$tree" | grep -v -e "^$tree/docs/" -e "^$tree/tests/registry/" || true)
[ -z "$known" ] || fail "the tree already mentions twademo: $known"

step "add the lock: include/clof/lock/twademo.h and its row"
python3 - "$tree" <<'PY'
import re, sys
tree = sys.argv[1]
def ren(s):
    return s.replace("twa", "twademo").replace("TWA", "TWADEMO")
# the header: TWA's, renamed
with open(tree + "/include/clof/lock/twa.h") as f:
    h = f.read()
with open(tree + "/include/clof/lock/twademo.h", "w") as f:
    f.write(ren(h))
# the row: the one the walk shows, renamed (part "twa" becomes "twd")
with open(tree + "/docs/adding-a-lock.md") as f:
    doc = f.read()
m = re.search(r'^    R\(X, twa, TWA,.*?"\)[ \\]*$', doc, re.M | re.S)
if not m:
    sys.exit("docs/adding-a-lock.md shows no row R(X, twa, TWA, ...)")
row = ren(m.group(0)).replace('"twademo"', '"twd"', 1)
lines = [l.rstrip(" \\") for l in row.split("\n")]
p = tree + "/include/clof/lock/list.h"
with open(p) as f:
    s = f.read()
incs = list(re.finditer(r'^#include <clof/lock/\w+\.h>\n', s, re.M))
s = s[:incs[-1].end()] + "#include <clof/lock/twademo.h>\n" + s[incs[-1].end():]
# the registry's last row: continue it, then the new row
end = s.index("\n\n", s.index("#define CLOF_LOCK_REGISTRY(R, X)"))
last = s[:end].rstrip()
s = last + " \\\n" + " \\\n".join(lines) + s[end:]
with open(p, "w") as f:
    f.write(s)
PY
grep -n "twademo" "$tree/include/clof/lock/list.h"

step "build the copy"
b=$tree/build
cmake -S "$tree" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCLOF_BENCH_COMPOSITION_LOCKS=tkt,mcs,clh -DCLOF_BENCH_COMPOSITION_LEVELS=3 \
      -DCLOF_BENCH_COMPOSITION_PAIRS=twd -DCLOF_PRELOAD_COMPOSITIONS=tkt:2 \
      > "$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; fail "cmake"; }
cmake --build "$b" -j "${CLOF_TEST_JOBS:-2}" --target clof-lockname clof-bench clof-verify \
      clof_preload test_locks pl_conform > "$work/build.log" 2>&1 ||
  { grep -m20 -E "error|Error" "$work/build.log"; fail "the build"; }
clof=$b/bin/clof

step "clof locks"
"$clof" locks | grep -E '^ *twademo ' || fail "clof locks does not list twademo"
"$clof" locks | grep -E '^ *part twd ' || fail "clof locks does not list the part twd"

step "clof bench --lock twademo, cr:twademo, twd-tkt, tkt-twd"
for l in twademo cr:twademo twd-tkt tkt-twd; do
  out=$("$clof" bench --lock "$l" --threads 2 --duration 0.2) || fail "clof bench --lock $l"
  echo "$out" | grep -q "Mops/s" || fail "clof bench --lock $l printed no throughput: $out"
  echo "$out" | tail -1
done

step "CLOF_LOCK=twademo and cr:twademo under the preload library"
for l in twademo cr:twademo; do
  out=$(CLOF_LOCK=$l CLOF_STATS=1 LD_PRELOAD=$b/lib/libclof-preload.so \
        "$b/bin/pl_conform" mutex_static 2>&1) || fail "pl_conform under CLOF_LOCK=$l: $out"
  echo "$out" | grep -q "lock=$l " || fail "the preload library did not run $l: $out"
  echo "$out" | grep "lock=$l " | cut -c1-100
done

step "clof verify --lock twademo (sc, tso, c11) and the composition tkt-twd"
"$clof" verify --lock twademo | tail -1 | grep -q "twademo: verified under sc, tso, c11" ||
  fail "clof verify --lock twademo did not verify"
"$clof" verify --lock tkt-twd --model c11 | tail -1 |
  grep -q "tkt-twd: verified under c11.*twademo" || fail "clof verify --lock tkt-twd"
"$clof" verify --lock tkt-twd --model c11 | tail -1

step "the ctest lists"
n=$(ctest --test-dir "$b" -N | grep -cE ' (lock|preload)\.twademo\.') || true
[ "$n" -ge 20 ] || fail "ctest lists $n lock.twademo.* and preload.twademo.* tests (want 20 or more)"
echo "$n tests lock.twademo.* and preload.twademo.*"
ctest --test-dir "$b" -R '^(lock\.twademo\.fifo|preload\.twademo\.mutex_static)$' \
      --output-on-failure | tail -3
ctest --test-dir "$b" -R '^(lock\.twademo\.fifo|preload\.twademo\.mutex_static)$' -N |
  grep -q "Total Tests: 2" || fail "lock.twademo.fifo or preload.twademo.mutex_static missing"
echo "example_lock: OK: twademo is known everywhere a basic lock is listed"
