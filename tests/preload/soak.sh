#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/preload/soak.sh -- run preload conformance tests over and over under
# one lock, to catch rare hangs and crashes that one ctest run can miss.
#
#   tests/preload/soak.sh [--build DIR] [--lock NAME] [--emulate SHAPE]
#                         [--runs N] [--timeout S] [--jobs J] [--out DIR] TEST...
#
# Each run is `LD_PRELOAD=DIR/lib/libclof-preload.so CLOF_LOCK=NAME
# CLOF_EMULATE=SHAPE DIR/bin/pl_conform TEST` (the tests of
# tests/preload/pl_conform.c, cycled in the order given), J runs at a time.
# A run still going after S seconds is a hang: its threads' stacks (gdb, when
# installed) and its output are saved under --out, the process is killed and
# the soak stops with exit status 1.  A run that fails is saved the same way.
# Prints one line per 100 runs and a summary: runs, failures, hangs, load.
# Not a ctest test (it runs for as long as asked); see docs/preload.md.
set -u
build=build
lock=a-c-bo-clh
emulate=numa:2,cache:2,core:2
runs=200
timeout_s=120
jobs=2
out=
tests=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --lock) lock=$2; shift 2 ;;
    --emulate) emulate=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "soak.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) tests+=("$1"); shift ;;
    esac
done
[ ${#tests[@]} -gt 0 ] || tests=(mutex_init)
lib=$build/lib/libclof-preload.so
bin=$build/bin/pl_conform
for f in "$lib" "$bin"; do
    [ -e "$f" ] || { echo "soak.sh: $f not found (build first, or pass --build DIR)" >&2; exit 2; }
done
[ -n "$out" ] || out="${CLOF_RESULTS:-$build/results}/soak"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one run in the background; prints "rc" into $tmp/rc.$slot when done
start_run() {
    local slot=$1 t=$2
    (
        LD_PRELOAD=$lib CLOF_LOCK=$lock CLOF_EMULATE=$emulate "$bin" "$t" \
            >"$tmp/out.$slot" 2>&1 &
        echo $! >"$tmp/pid.$slot"
        wait $!
        echo $? >"$tmp/rc.$slot.w" # written whole, then renamed:
        mv "$tmp/rc.$slot.w" "$tmp/rc.$slot" # never read half-written
    ) &
}

save() { # slot test what
    local stamp
    stamp=$(date -u +%Y%m%d-%H%M%S)
    local f="$out/$lock-$3-$2-$stamp.txt"
    {
        echo "# soak.sh: $3 of pl_conform $2 under CLOF_LOCK=$lock CLOF_EMULATE=$emulate"
        echo "# run $done_runs of $runs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
        echo "## output"
        cat "$tmp/out.$1"
    } >"$f"
    echo "$f"
}

declare -A slot_test slot_start
done_runs=0 started=0 fails=0 hangs=0 k=0
while [ $done_runs -lt "$runs" ]; do
    for ((s = 0; s < jobs; s++)); do
        if [ -z "${slot_test[$s]:-}" ] && [ $started -lt "$runs" ]; then
            t=${tests[$((k % ${#tests[@]}))]}
            k=$((k + 1))
            rm -f "$tmp/rc.$s" "$tmp/pid.$s"
            start_run $s "$t"
            slot_test[$s]=$t
            slot_start[$s]=$SECONDS
            started=$((started + 1))
        fi
    done
    sleep 0.2
    for ((s = 0; s < jobs; s++)); do
        t=${slot_test[$s]:-}
        [ -n "$t" ] || continue
        if [ -e "$tmp/rc.$s" ]; then
            rc=$(cat "$tmp/rc.$s")
            done_runs=$((done_runs + 1))
            slot_test[$s]=
            if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
                fails=$((fails + 1))
                echo "FAIL (exit $rc): pl_conform $t, saved in $(save $s "$t" fail)"
            fi
            [ $((done_runs % 100)) -eq 0 ] &&
                echo "$done_runs runs, $fails failed, $hangs hung (load $(cut -d' ' -f1 /proc/loadavg))"
        elif [ $((SECONDS - ${slot_start[$s]})) -ge "$timeout_s" ] && [ -e "$tmp/pid.$s" ]; then
            pid=$(cat "$tmp/pid.$s")
            hangs=$((hangs + 1))
            f=$(save $s "$t" hang)
            if command -v gdb >/dev/null; then
                echo "## stacks" >>"$f"
                gdb -p "$pid" -batch -ex "thread apply all bt" >>"$f" 2>&1
            fi
            kill -9 "$pid" 2>/dev/null
            echo "HANG: pl_conform $t still running after ${timeout_s}s, stacks in $f"
            wait
            echo "soak: $done_runs runs, $fails failed, $hangs hung"
            exit 1
        fi
    done
done
wait
echo "soak: $done_runs runs of ${tests[*]} under $lock ($emulate): $fails failed, $hangs hung; load $(cut -d' ' -f1-3 /proc/loadavg)"
[ $fails -eq 0 ]
