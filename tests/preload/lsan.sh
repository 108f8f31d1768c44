#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/preload/lsan.sh -- the preload tests once under LeakSanitizer.
#
#   tests/preload/lsan.sh [--build DIR] [--jobs J] [REGEX]
#
# Runs every ctest test of the label `preload` (or those matching REGEX)
# whose command runs one of the test programs under the library (pl_conform,
# pl_leak, pl_forkexec), with the programs rebuilt with -fsanitize=leak (in
# DIR/lsan-bin): every process that exits through exit() checks that nothing
# allocated -- by the program or by the library (trees, A-C-BO-CLH queue
# nodes) -- became unreachable.
# The library's own pools (contexts, lock blocks, the table of retired trees)
# are mmap'd: the table registers itself as a root region, so retired trees
# count as reachable.  The real programs (LevelDB, Kyoto Cabinet, memcached)
# and build_best are left out: their leaks would be theirs.  So are the fork
# tests (pl_conform fork, pl_forkexec): with gcc 12's LeakSanitizer a child
# forked while other threads run hangs in LSan's own thread registry when it
# joins a thread (pthread_join -> __lsan::ThreadJoin; LSan installs no
# pthread_atfork handlers before LLVM's change #75281, December 2023).  Prints one line
# per failing test and a summary; exit 1 if any test failed or leaked.
# Leaks made only of lock trees (allocated by a lock's build function) are
# counted apart: they are the trees of mutexes the test never destroyed
# (the conformance tests leave stack mutexes undestroyed, as glibc allows;
# under a tree lock that keeps the tree, docs/preload.md "Memory") -- except
# in the leak tests, which destroy every mutex they make.
set -u
build=build
jobs=2
regex=
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) regex=$1; shift ;;
    esac
done
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the test programs again, linked with LeakSanitizer's runtime (preloading
# liblsan instead leaves its interceptors unset until its first malloc)
lbin=$build/lsan-bin
mkdir -p "$lbin"
cc=${CC:-cc}
for p in pl_conform pl_leak pl_forkexec; do
    extra=()
    [ $p = pl_conform ] && extra=(-L"$build/lib" -lpl_oldabi -Wl,-rpath,"$build/lib")
    $cc -std=gnu11 -O1 -g -fsanitize=leak -I"$src/include" -I"$src/src/preload" \
        "$src/tests/preload/$p.c" -o "$lbin/$p" "${extra[@]}" -lpthread -ldl ||
        { echo "lsan.sh: cannot build $p with -fsanitize=leak" >&2; exit 2; }
done
# name<TAB>command, from ctest's listing
ctest --test-dir "$build" -N -V -L preload ${regex:+-R "$regex"} 2>/dev/null | awk '
    /^ *[0-9]+: Test command:/ { sub(/^ *[0-9]+: Test command: /, ""); cmd = $0 }
    /^ *Test +#[0-9]+: / { sub(/^ *Test +#[0-9]+: /, ""); print $0 "\t" cmd }' |
    grep -E 'pl_conform|pl_leak|pl_forkexec' |
    awk -F'\t' '$1 !~ /(not_loaded_is_caught|build_best|\.fork|\.forkexec)$/' >"$tmp/list"
n=$(wc -l <"$tmp/list")
echo "lsan.sh: $n tests, programs built with -fsanitize=leak in $lbin"
run() { # line
    local name=${1%%$'\t'*} cmd=${1#*$'\t'}
    # the programs with LeakSanitizer instead of the build's
    cmd=$(sed "s|$build/bin/pl_conform|$lbin/pl_conform|; s|$build/bin/pl_leak|$lbin/pl_leak|; s|$build/bin/pl_forkexec|$lbin/pl_forkexec|" <<<"$cmd")
    local out=$tmp/$name.out
    LSAN_OPTIONS=exitcode=23:report_objects=1 timeout 600 bash -c "$cmd" >"$out" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
        echo "ok $name" >>"$tmp/results"
    elif grep -q 'LeakSanitizer: detected memory leaks' "$out"; then
        # where the leaked objects were allocated (the frame above malloc)
        local sites other
        sites=$(grep -A2 -E '^(Direct|Indirect) leak of' "$out" | sed -n 's/^ *#1 0x[0-9a-f]* in \([^ ]*\).*/\1/p' | sort -u)
        other=$(grep -vE '_build_$|^clof_compose_tree_new_$' <<<"$sites")
        if [ -z "$other" ]; then
            # every object is part of a lock's tree: the trees of mutexes
            # the test never destroyed (documented: docs/preload.md, Memory)
            echo "TREES $name $(sed -n 's/^SUMMARY: LeakSanitizer: \([0-9]*\) byte.*in \([0-9]*\) alloc.*/\1 \2/p' "$out" | awk '{b += $1; n += $2} END {print b + 0, n + 0}')" >>"$tmp/results"
        else
            echo "LEAK $name" >>"$tmp/results"
            echo "LEAK: $name (allocated in: $(tr '\n' ' ' <<<"$sites"))"
            grep -A12 'ERROR: LeakSanitizer' "$out" | head -30
        fi
    else
        echo "FAIL $name (rc $rc)" >>"$tmp/results"
        echo "FAIL (rc $rc): $name"; tail -5 "$out"
    fi
}
export -f run
export tmp build lbin
tr '\n' '\0' <"$tmp/list" | xargs -0 -P "$jobs" -I{} bash -c 'run "$1"' _ {}
ok=$(grep -c '^ok' "$tmp/results")
leaks=$(grep -c '^LEAK' "$tmp/results")
fails=$(grep -c '^FAIL' "$tmp/results")
trees=$(grep -c '^TREES' "$tmp/results")
echo "lsan.sh: $n tests: $ok without a leak, $trees with only the trees of mutexes they never destroyed" \
    "($(awk '/^TREES/ {b += $3; n += $4} END {print n + 0 " objects, " b + 0 " bytes"}' "$tmp/results") in all)," \
    "$leaks with other leaks, $fails failed"
grep '^TREES' "$tmp/results" | awk '{print $2}' | sed 's/^preload\.//; s/\.[^.]*$//' | sort | uniq -c |
    awk '{printf "%s%s: %d", (NR > 1 ? ", " : "  undestroyed trees by lock: "), $2, $1} END {if (NR) print ""}'
# the leak tests destroy everything they make: a tree there is a real leak
if grep -E '^TREES preload\.[^ ]*\.leak ' "$tmp/results"; then
    echo "lsan.sh: a leak test (pl_leak destroys every mutex) leaked trees"
    leaks=$((leaks + 1))
fi
[ "$leaks" -eq 0 ] && [ "$fails" -eq 0 ]
