#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/preload/soak.sh -- run the preload library's conformance tests and
# real programs over and over, under many locks, for a set time, to catch
# rare hangs, crashes and wrong results that one ctest run can miss.
#
#   tests/preload/soak.sh [--build DIR] [--minutes M | --runs N]
#       [--locks all|LIST] [--programs LIST] [--jobs J] [--timeout S]
#       [--emulate SHAPE] [--no-migrate] [--no-fifo] [--out DIR] [TEST...]
#
#   --locks     all (default): every basic lock, every NUMA and cohort lock,
#               a CLoF composition (clof:*, a random one of the 80 each run),
#               an asl: lock (asl:*, over a random lock each run) and a
#               concurrency-restricted one (cr:*, over a random lock each
#               run); or a comma-separated list of CLOF_LOCK names (clof:*,
#               asl:* and cr:* allowed).  --lock NAME is --locks NAME.  Withdrawn locks
#               (a-c-bo-clh, docs/reliability.md) are included: the soak
#               sets CLOF_ALLOW_WITHDRAWN=1.
#   --programs  comma-separated, default all of:
#                 conform   tests/preload/pl_conform TEST (the TESTs given,
#                           or a mix of mutual exclusion, trylock, timed,
#                           condvar, cancellation, fork, SCHED_FIFO tests)
#                 forkexec  tests/preload/pl_forkexec: fork + exec and
#                           posix_spawn from a threaded program
#                 leveldb, kyoto, memcached   tests/preload/run_app.sh
#                           (each checks its data; skipped when missing)
#                 hostile   pl_forkexec under a hostile environment value
#                           (garbage CLOF_LOCK, CLOF_STATS, CLOF_EMULATE,
#                           CLOF_TOPOLOGY=/dev/zero, ...): must still pass
#                 rwlock    tests/preload/pl_conform_rwlock (a mix of its
#                           tests) under a random CLOF_RWLOCK (the records'
#                           lock column names the rwlock)
#   Every run (but hostile ones) also takes a random CLOF_RWLOCK (glibc's or
#   one of clof's RW locks: Kyoto Cabinet and LevelDB take rwlocks too), and
#   one run in four profiles (CLOF_PROFILE, docs/profile.md).
#   --minutes M run for M minutes (runs in progress finish); --runs N: stop
#               after N runs (default 200 when neither is given)
#   --jobs J    J runs at a time (default 1)
#   --table F   only print the table of the records file F of an earlier
#               soak (soak-STAMP.tsv)
#   --timeout S a run still going after S seconds (default 180) is a hang:
#               every thread's stack of every process of the run (gdb, or
#               eu-stack) goes to --out with its output, the run is killed,
#               the soak goes on
#   While a run goes, its threads are moved between cpus (taskset, every
#   0.25 s; --no-migrate: not), and one of its threads at a time runs
#   SCHED_FIFO (priority 1) in conform, forkexec, leveldb and hostile runs
#   (--no-fifo: not; skipped with a message where SCHED_FIFO is not
#   permitted; never for Kyoto Cabinet and memcached, whose own spin loops
#   -- KC's inline spin locks, memcached's trylock loops -- livelock under
#   SCHED_FIFO with any lock, glibc's included).
#
# Each run is recorded (lock, program, result, seconds, acquisitions from
# CLOF_STATS=1 -- mutex and rwlock acquisitions through clof --, what ran,
# the rwlock, "profile" when profiled) in --out/soak-STAMP.tsv; at the end a table lock x program
# (runs, hours, acquisitions, hangs, wrong results, skipped) is printed and
# saved as --out/soak-STAMP.md.  A run that fails (exit not 0 or 77) is a
# wrong result, its output saved under --out.  Exit status 1 if any run
# hung or failed.  Not a ctest test (it runs for as long as asked); see
# docs/reliability.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=build
minutes=0
runs=0
locks_arg=all
programs_arg=conform,forkexec,leveldb,kyoto,memcached,hostile,rwlock
timeout_s=180
jobs=1
out=
emulate=numa:2,cache:2,core:2
migrate=1
fifo=1
tests=()
table_of=
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --lock | --locks) locks_arg=$2; shift 2 ;;
    --programs) programs_arg=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --emulate) emulate=$2; shift 2 ;;
    --no-migrate) migrate=0; shift ;;
    --no-fifo) fifo=0; shift ;;
    --table) table_of=$2; shift 2 ;;
    -h | --help) sed -n '2,49p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "soak.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) tests+=("$1"); shift ;;
    esac
done
# the table of a records file: clof:* and asl:* runs count under their family
soak_table() { # records title
    echo "$2"
    echo
    echo "| lock | program | runs | hours | acquisitions | hangs | wrong results | skipped |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    # (acquisitions with %.0f: mawk's %d stops at 2^31 - 1)
    awk -F'\t' '
        { l = $1; if (l ~ /^clof:/) l = "clof:*"; else if (l ~ /^asl:/) l = "asl:*"
          else if (l ~ /^cr:/) l = "cr:*"
          k = l SUBSEP $2; if (!(k in n)) order[++no] = k
          n[k]++; s[k] += $4; a[k] += $5
          if ($3 == "hang") h[k]++; if ($3 == "wrong") w[k]++; if ($3 == "skip") sk[k]++
          tn++; ts += $4; ta += $5; th += ($3 == "hang"); tw += ($3 == "wrong") }
        END { for (i = 1; i <= no; i++) { k = order[i]; split(k, p, SUBSEP)
                printf "| %s | %s | %d | %.3f | %.0f | %d | %d | %d |\n", p[1], p[2], n[k], s[k] / 3600, a[k], h[k], w[k], sk[k] }
              printf "| **all** | | %d | %.3f | %.0f | %d | %d | |\n", tn, ts / 3600, ta, th, tw }' "$1" |
        sort -t'|' -k2,2 -k3,3 -s | awk '/\*\*all\*\*/ {last = $0; next} {print} END {print last}'
    echo
    echo "Compositions, asl: and cr: locks run: $(cut -f1 "$1" | grep -E '^(clof|asl|cr):' | sort -u | tr '\n' ' ')"
    echo
    echo "RW locks (CLOF_RWLOCK) the runs took: $(cut -f7 "$1" | grep -v '^$' | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')"
    echo
    echo "Runs profiled (CLOF_PROFILE): $(awk -F'\t' '$8 == "profile"' "$1" | wc -l)"
    echo
    echo "Hours: the runs' own wall time summed (with --jobs J, about J times the soak's duration)."
}
if [ -n "$table_of" ]; then # --table RECORDS: the table of an earlier soak
    soak_table "$table_of" "# soak.sh: $(wc -l <"$table_of") runs ($table_of)"
    ! grep -qE $'\t(hang|wrong)\t' "$table_of"
    exit
fi
[ "$minutes" != 0 ] || [ "$runs" != 0 ] || runs=200
[ ${#tests[@]} -gt 0 ] || tests=(mutex_init mixed timedlock threads_10k mutex_static
    handoverhand trylock cond_pc cond_signal cond_timed cond_cancel fork sched_fifo
    recursive errorcheck oblivious)
build=$(cd "$build" 2>/dev/null && pwd) || { echo "soak.sh: no build directory" >&2; exit 2; }
lib=$build/lib/libclof-preload.so
bin=$build/bin
for f in "$lib" "$bin/pl_conform" "$bin/pl_forkexec" "$bin/pl_conform_rwlock" "$bin/clof-lockname"; do
    [ -e "$f" ] || { echo "soak.sh: $f not found (build first, or pass --build DIR)" >&2; exit 2; }
done
asl_topo=$here/asl-3level.topo

IFS=, read -r -a progs <<<"$programs_arg"
for p in "${progs[@]}"; do
    case "$p" in conform | forkexec | leveldb | kyoto | memcached | hostile | rwlock) ;;
    *) echo "soak.sh: unknown program '$p' (conform forkexec leveldb kyoto memcached hostile rwlock)" >&2; exit 2 ;;
    esac
done
# the basic locks of the registry (include/clof/lock/list.h)
mapfile -t basic < <("$bin/clof-lockname" names --family basic)
numa=(hmcs cna c-bo-mcs c-tkt-tkt c-ptl-tkt a-c-bo-bo a-c-bo-clh)
if [ "$locks_arg" = all ]; then
    locks=("${basic[@]}" "${numa[@]}" 'clof:*' 'asl:*' 'cr:*')
else
    IFS=, read -r -a locks <<<"$locks_arg"
fi
rwlocks=(glibc rw-central rw:tas rw:mcs rw:c-bo-mcs rw:hmcs rw:mcs-mcs-tkt bravo:rw-central
    bravo:rw:tas bravo:rw:mcs bravo:rw:c-bo-mcs bravo:rw:hmcs)
rwtests=(mix readers errors recursive wpref lifetimes oldabi)
parts=(tkt mcs clh hem)
comps=()
for a in "${parts[@]}"; do for b in "${parts[@]}"; do
    comps+=("clof:$a-$b")
    for c in "${parts[@]}"; do comps+=("clof:$a-$b-$c"); done
done; done

if [ $fifo = 1 ] && ! chrt -f 1 true 2>/dev/null; then
    echo "soak.sh: SCHED_FIFO is not permitted here (chrt -f 1 failed): no SCHED_FIFO mix"
    fifo=0
fi
have_stack=
command -v gdb >/dev/null && have_stack=gdb
[ -z "$have_stack" ] && command -v eu-stack >/dev/null && have_stack=eu-stack
[ -n "$have_stack" ] || echo "soak.sh: neither gdb nor eu-stack: hangs are reported without stacks"
ncpu=$(nproc)

[ -n "$out" ] || out="${CLOF_RESULTS:-$build/results}/soak"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stamp=$(date -u +%Y%m%d-%H%M%S)
recs=$out/soak-$stamp.tsv
summary=$out/soak-$stamp.md
: >"$recs"
tmp=$(mktemp -d)
start_s=$(date +%s)
end_s=$((start_s + minutes * 60))
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')
cleanup() {
    for f in "$tmp"/running.*; do
        [ -e "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "soak.sh: interrupted"; exit 130' INT TERM

# the hostile environment of hostile run k: VAR=VALUE (CLOF_LOCK replaces the lock)
hostile_env() {
    local long
    long=$(printf 'a%.0s' $(seq 1 5000))
    local envs=(
        "CLOF_LOCK=$long" $'CLOF_LOCK=mcs\x01' "CLOF_LOCK=clof:" "CLOF_LOCK=asl:asl:mcs"
        "CLOF_LOCK=clof:clh-clh-clh-clh" "CLOF_LOCK=" "CLOF_LOCK=-" "CLOF_LOCK=mcs,clh"
        $'CLOF_STATS=1\n' "CLOF_STATS=yes please" "CLOF_STATS=99999999999999999999"
        "CLOF_EMULATE=numa:0" "CLOF_EMULATE=numa:99999999,core:99999999" "CLOF_EMULATE=numa:2,,,"
        "CLOF_EMULATE=$long" "CLOF_TOPOLOGY=/dev/zero" "CLOF_TOPOLOGY=/" "CLOF_TOPOLOGY=/proc/self/environ"
        "CLOF_TOPOLOGY=/nonexistent" "CLOF_SYSFS_ROOT=/tmp" "CLOF_SYSFS_ROOT=/nonexistent"
        "CLOF_ASL_PCT=-5" "CLOF_ASL_PCT=1e309" "CLOF_ASL_MAX_WINDOW=abc"
        "CLOF_ASL_FREE_WINDOW=99999999999999s" "CLOF_ASL_INIT_WINDOW=-1ms"
    )
    echo "${envs[$(($1 % ${#envs[@]}))]}"
}

# the processes of session $1 (setsid made the run's first process its leader)
session_pids() { ps -e -o pid=,sid= | awk -v s="$1" '$2 == s {print $1}'; }

save_stacks() { # sid file
    local p
    for p in $(session_pids "$1"); do
        echo "## process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-300)"
        case $have_stack in
        gdb) timeout 60 gdb -p "$p" -batch -ex "thread apply all bt" 2>&1 | grep -v '^\[New LWP' ;;
        eu-stack) timeout 60 eu-stack -p "$p" 2>&1 ;;
        esac
    done >>"$2"
}

# one run: lock program k(worker-local counter) worker
run_one() {
    local lock=$1 prog=$2 k=$3 w=$4 what cmd=() fifo_ok=0 envx=()
    case "$lock" in
    'clof:*') lock=${comps[$((RANDOM % ${#comps[@]}))]} ;;
    'asl:*')
        local pool=("${basic[@]}" hmcs cna c-bo-mcs c-tkt-tkt c-ptl-tkt a-c-bo-bo "${comps[$((RANDOM % ${#comps[@]}))]}")
        lock=asl:${pool[$((RANDOM % ${#pool[@]}))]} ;;
    'cr:*')
        local pool=("${basic[@]}" hmcs cna c-bo-mcs c-tkt-tkt c-ptl-tkt a-c-bo-bo "${comps[$((RANDOM % ${#comps[@]}))]}")
        lock=cr:${pool[$((RANDOM % ${#pool[@]}))]} ;;
    esac
    # the run's rwlock, and one run in four profiled
    local rwl=${rwlocks[$((RANDOM % ${#rwlocks[@]}))]} prof=
    [ $((RANDOM % 4)) -eq 0 ] && prof=profile
    local emu=$emulate
    case "$lock" in asl:*) emu=$asl_topo ;; esac
    # withdrawn locks (docs/reliability.md) run here on purpose
    local allow=CLOF_ALLOW_WITHDRAWN=1
    case "$prog" in
    conform)
        what=${tests[$((k % ${#tests[@]}))]}
        cmd=("$bin/pl_conform" "$what")
        envx=(LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_EMULATE="$emu" CLOF_STATS=1 "$allow")
        fifo_ok=1 ;;
    forkexec)
        what=4
        cmd=("$bin/pl_forkexec" 4)
        envx=(LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_EMULATE="$emu" CLOF_STATS=1 "$allow")
        fifo_ok=1 ;;
    hostile)
        local h
        h=$(hostile_env "$k")
        what=$(printf '%q' "$h" | cut -c1-60)
        envx=(LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_EMULATE="$emu" CLOF_STATS=1 "$allow" "$h")
        cmd=("$bin/pl_forkexec" 2)
        fifo_ok=1 ;;
    leveldb | kyoto | memcached)
        what=$prog
        envx=(CLOF_EMULATE="$emu" CLOF_STATS=1 "$allow" CLOF_APP_TIMEOUT=$((timeout_s * 2)))
        cmd=("$here/run_app.sh" "$prog" "$lock" "$lib" "$bin")
        [ "$prog" = leveldb ] && fifo_ok=1 ;;
    rwlock)
        what=${rwtests[$((k % ${#rwtests[@]}))]}
        # bravo's readers pass a waiting writer: no writer-preference test
        case "$rwl:$what" in bravo:*:wpref) what=mix ;; esac
        cmd=("$bin/pl_conform_rwlock" "$what")
        envx=(LD_PRELOAD="$lib" CLOF_LOCK="$lock" CLOF_EMULATE="$emu" CLOF_STATS=1 "$allow")
        fifo_ok=1 ;;
    esac
    if [ "$prog" != hostile ]; then
        envx+=(CLOF_RWLOCK="$rwl")
        [ -n "$prof" ] && envx+=(CLOF_PROFILE="$tmp/prof.$w")
    else
        prof= rwl=
    fi
    local o=$tmp/out.$w t0 t1
    t0=$(date +%s.%N)
    env "${envx[@]}" setsid "${cmd[@]}" >"$o" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$tmp/running.$w"
    local ticks=0 hung=0 limit=$((timeout_s * 4))
    while kill -0 "$pid" 2>/dev/null; do
        sleep 0.25
        ticks=$((ticks + 1))
        if [ $ticks -ge $limit ]; then hung=1; break; fi
        if [ $migrate = 1 ] || { [ $fifo = 1 ] && [ $fifo_ok = 1 ]; }; then
            local tids=() p t
            for p in $(session_pids "$pid"); do
                for t in /proc/"$p"/task/*; do tids+=("${t##*/}"); done
            done
            [ ${#tids[@]} -gt 0 ] || continue
            if [ $migrate = 1 ]; then
                for t in "${tids[@]}"; do
                    local c=$((RANDOM % (ncpu + 1)))
                    if [ $c -eq "$ncpu" ]; then c=0-$((ncpu - 1)); fi
                    taskset -p -c "$c" "$t" >/dev/null 2>&1
                done
            fi
            if [ $fifo = 1 ] && [ $fifo_ok = 1 ] && [ $((ticks % 4)) -eq 0 ]; then
                # one thread at a time: the previous one back to SCHED_OTHER
                [ -n "${fifo_tid:-}" ] && chrt -o -p 0 "$fifo_tid" >/dev/null 2>&1
                fifo_tid=${tids[$((RANDOM % ${#tids[@]}))]}
                chrt -f -p 1 "$fifo_tid" >/dev/null 2>&1
            fi
        fi
    done
    fifo_tid=
    local status rc=
    if [ $hung = 1 ]; then
        status=hang
        local f=$out/hang-$stamp-$w-$k.txt
        {
            echo "# soak.sh: hang of $prog ($what) under CLOF_LOCK=$lock, still running after ${timeout_s}s"
            echo "# commit $commit, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
            echo "# env: ${envx[*]}" | cut -c1-600
            echo "## output (last 200 lines)"
            tail -200 "$o"
            echo "## stacks"
        } >"$f"
        save_stacks "$pid" "$f"
        kill -KILL -- "-$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        echo "HANG: $prog ($what) under $lock, stacks in $f"
    else
        wait "$pid"
        rc=$?
        case $rc in
        0) status=ok ;;
        77) status=skip ;;
        *)
            status=wrong
            local f=$out/fail-$stamp-$w-$k.txt
            {
                echo "# soak.sh: $prog ($what) under CLOF_LOCK=$lock failed with exit $rc"
                echo "# commit $commit, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
                echo "# env: ${envx[*]}" | cut -c1-600
                cat "$o"
            } >"$f"
            echo "FAIL (exit $rc): $prog ($what) under $lock, output in $f" ;;
        esac
    fi
    rm -f "$tmp/running.$w"
    t1=$(date +%s.%N)
    local acq
    acq=$( {
        sed -n 's/^ *clof-preload\[[0-9]*\]: lock=.* acquisitions=\([0-9]*\).*/\1/p' "$o"
        sed -n 's/^ *clof-preload\[[0-9]*\]: rwlock=.* rdlocks=\([0-9]*\) wrlocks=\([0-9]*\).*/\1 \2/p' "$o"
    } | awk '{s += $1 + $2} END {print s + 0}')
    rm -f "$tmp/prof.$w".*
    local reclock=$lock
    [ "$prog" = rwlock ] && reclock=$rwl
    printf '%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\n' "$reclock" "$prog" "$status" \
        "$(echo "$t1 - $t0" | bc)" "$acq" "$(echo "$what" | tr '\t\n' '  ')" "$rwl" "$prof" >>"$recs"
}

worker() { # w
    local w=$1 k=0 nl=${#locks[@]} np=${#progs[@]} idx
    while :; do
        if [ "$minutes" != 0 ] && [ "$(date +%s)" -ge $end_s ]; then break; fi
        if [ "$runs" != 0 ] && [ "$(wc -l <"$recs")" -ge "$runs" ]; then break; fi
        idx=$((w + k * jobs))
        run_one "${locks[$((idx % nl))]}" "${progs[$(((idx / nl) % np))]}" "$k" "$w"
        k=$((k + 1))
        local n
        n=$(wc -l <"$recs")
        [ $((n % 50)) -eq 0 ] && echo "$(date -u +%H:%M:%S) $n runs, $(grep -c $'\thang\t' "$recs") hung, $(grep -c $'\twrong\t' "$recs") wrong (load $(cut -d' ' -f1 /proc/loadavg))"
    done
}

echo "soak.sh: $(date -u +%FT%TZ), commit $commit, locks: ${locks[*]}, programs: ${progs[*]}," \
    "$([ "$minutes" != 0 ] && echo "$minutes min" || echo "$runs runs"), $jobs at a time," \
    "migration $([ $migrate = 1 ] && echo on || echo off), SCHED_FIFO mix $([ $fifo = 1 ] && echo on || echo off)"
for ((w = 0; w < jobs; w++)); do worker $w & done
wait
elapsed=$(($(date +%s) - start_s))

soak_table "$recs" "# soak.sh $stamp: $(wc -l <"$recs") runs in $((elapsed / 60)) min $((elapsed % 60)) s, commit $commit, $jobs at a time, $(nproc) cpus" >"$summary"
cat "$summary"
echo "records: $recs"
! grep -qE $'\t(hang|wrong)\t' "$recs"
