#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The LibASL benchmarks of docs/asl.md (Fig. 8b analogue): throughput and P99
# epoch latency per core type for MCS, TAS, SHFL-PB10 and ASL over an SLO
# sweep, with `clof asl-profile` (table + PNG).  Every figure is labelled
# emulated or simulated by the tool.
#
#   bench/asl_fig8b.sh [--build DIR] [--reps N] MODE...
#
# MODE:
#   sim-m1     simulated M1-like 4 big + 4 little (sim/profiles/m1.profile),
#              Bench-1, 4+4 threads                -> BUILD/results/asl-sim-m1/
#   emulated   this machine, emulated big.LITTLE (little work x1.8), Bench-1,
#              2+2 threads (over-subscribed on a 2-cpu VM) -> BUILD/results/asl-emulated/
#   emulated-2t  the same with 1 big + 1 little thread (not over-subscribed
#              by our own threads), --non-cs 300 --cs-work 300 -> BUILD/results/asl-emulated-2t/
#   sim-numa   simulated NUMA big.LITTLE: 2 nodes x (4 big + 4 little), ASL
#              over the CLoF composition ticket-over-MCS (asl:mcs_tkt) next
#              to flat MCS, the composition alone and ASL over flat MCS,
#              8+8 threads                         -> BUILD/results/asl-sim-numa/
#   sim-m1-pct995  as sim-m1, ASL points only, with CLOF_ASL_PCT=99.5
#                                                  -> BUILD/results/asl-sim-m1-pct995/
#   sim-bases  simulated m1, Bench-1, SLO 200us, ASL over ticket, TAS, the
#              composition and the blocking variant  -> BUILD/results/asl-sim-m1-bases/
#   bench6     emulated, over-subscribed (4+4 threads on this machine's cpus):
#              the blocking variant over glibc's mutex (aslb:pthread, the
#              paper's Bench-6) and over MCS, next to pthread and MCS
#                                                  -> BUILD/results/asl-emulated-bench6/
#   bench5     simulated m1, Bench-5 (one lock, 2 lines) over the contention
#              levels, ASL without SLO vs MCS, TAS and MCS on the 4 big cores
#                                                  -> BUILD/results/asl-sim-m1-bench5/
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="$here/build"
reps=3
modes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2;;
    --reps) reps="$2"; shift 2;;
    -h|--help) sed -n '2,24p' "$0"; exit 0;;
    sim-m1|sim-m1-pct995|sim-bases|emulated|emulated-2t|bench6|sim-numa|bench5) modes+=("$1"); shift;;
    *) echo "asl_fig8b.sh: unknown argument '$1' (expected --build DIR, --reps N, or a mode: sim-m1 sim-m1-pct995 sim-bases emulated emulated-2t bench6 sim-numa bench5)" >&2; exit 2;;
  esac
done
[ ${#modes[@]} -gt 0 ] || modes=(sim-m1 sim-m1-pct995 sim-bases sim-numa bench5 emulated emulated-2t bench6)
clof="$build/bin/clof"
[ -x "$clof" ] && [ -x "$build/bin/clof-asl-bench" ] || {
  echo "asl_fig8b.sh: $build/bin/clof or clof-asl-bench missing: build first (cmake --build $build)" >&2; exit 2; }
res="${CLOF_RESULTS:-$build/results}"

for m in "${modes[@]}"; do
  case "$m" in
    sim-m1)
      "$clof" asl-profile --simulate m1 --big 4 --little 4 --non-cs 2us --duration 0.2 \
        --reps "$reps" --slos 0,50us,100us,150us,200us,300us,500us,1ms --out "$res/asl-sim-m1";;
    sim-m1-pct995)
      CLOF_ASL_PCT=99.5 "$clof" asl-profile --simulate m1 --big 4 --little 4 --non-cs 2us \
        --duration 0.2 --reps "$reps" --baselines mcs --no-max \
        --slos 50us,100us,150us,200us,300us,500us,1ms --out "$res/asl-sim-m1-pct995";;
    sim-bases)
      out="$res/asl-sim-m1-bases"; mkdir -p "$out"; : > "$out/profile.jsonl"
      for l in asl:mcs asl:ticket asl:tas asl:mcs_tkt aslb:mcs; do
        for r in $(seq 1 "$reps"); do
          "$build/bin/clof-asl-bench" --simulate m1 --big 4 --little 4 --non-cs 2000 \
            --duration 0.2 --lock "$l" --slo 200us --seed "$r" --json >> "$out/profile.jsonl"
        done
      done
      "$clof" asl-profile --from "$out/profile.jsonl" --baselines "" --no-plot;;
    emulated-2t)
      "$clof" asl-profile --big 1 --little 1 --non-cs 300 --cs-work 300 --duration 1.5 \
        --reps "$reps" --slos 0,50us,200us,1ms --out "$res/asl-emulated-2t";;
    bench6)
      "$clof" asl-profile --lock aslb:pthread --baselines pthread,mcs,aslb:mcs --big 4 --little 4 \
        --non-cs 200 --cs-work 100 --duration 2 --reps "$reps" --slos 200us,1ms \
        --out "$res/asl-emulated-bench6";;
    emulated)
      "$clof" asl-profile --big 2 --little 2 --non-cs 200 --cs-work 100 --duration 2 \
        --reps "$reps" --slos 0,50us,100us,200us,500us,1ms --out "$res/asl-emulated";;
    sim-numa)
      out="$res/asl-sim-numa"; mkdir -p "$out"
      cat > "$out/numa-biglittle.topo" <<'TOPO'
clof-topology 1
name NUMA big.LITTLE: 2 nodes x (4 big + 4 little)
cpus 0-15
level numa
group 0-7
group 8-15
level system
big 0-3,8-11
little 4-7,12-15
TOPO
      cat > "$out/numa-biglittle.profile" <<'PROF'
clof-sim-profile 1
# written by bench/asl_fig8b.sh: a hypothetical NUMA big.LITTLE machine (no
# such machine in the papers): 2 NUMA nodes of 4 big + 4 little cores; the
# speed factor of the little cores is m1's (LibASL: 1.8x on NOPs), the
# transfer costs are assumptions (inside a node 25 ns, across 120 ns).
name numa-biglittle
description 2 NUMA nodes x (4 big + 4 little), simulated, assumed costs
source assumptions; little speed 1/1.8 from the LibASL paper (section 6)
hierarchy numa-biglittle.topo
level numa 25
level system 120
cost hit 1
cost rmw 3
cost fence 3
cost pause 1
cost memory 100
speed 0-3,8-11 1.0
speed 4-7,12-15 0.556
jitter 0.05
PROF
      "$clof" asl-profile --simulate "$out/numa-biglittle.profile" --lock asl:mcs_tkt \
        --baselines mcs,mcs_tkt,tas,shfl-pb10 --big 8 --little 8 --non-cs 4us --duration 0.1 \
        --reps "$reps" --slos 0,100us,200us,400us,800us --out "$out"
      # ASL over flat MCS on the same machine, for comparison
      "$clof" asl-profile --simulate "$out/numa-biglittle.profile" --lock asl:mcs \
        --baselines mcs --big 8 --little 8 --non-cs 4us --duration 0.1 \
        --reps "$reps" --slos 200us,400us --out "$out/flat-asl";;
    bench5)
      out="$res/asl-sim-m1-bench5"; mkdir -p "$out"
      : > "$out/bench5.jsonl"
      for r in $(seq 1 "$reps"); do
        for ncs in 0 500 1000 2000 4000 8000 16000; do
          for cfg in "--lock mcs" "--lock tas" "--lock asl --slo none" "--lock mcs --big 4 --little 0"; do
            # shellcheck disable=SC2086
            "$build/bin/clof-asl-bench" --simulate m1 --workload bench5 --big 4 --little 4 \
              $cfg --non-cs "$ncs" --duration 0.05 --seed "$r" --json >> "$out/bench5.jsonl"
          done
        done
      done
      /usr/bin/python3 - "$out/bench5.jsonl" > "$out/summary.txt" <<'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def lab(r):
    n = r["lock"] + ("" if r["little"] else " (4 big only)")
    return n
tab = {}
for r in recs:
    tab.setdefault((r["non_cs_ns"], lab(r)), []).append(r["ops_per_s"])
locks = []
for r in recs:
    if lab(r) not in locks:
        locks.append(lab(r))
print("# Bench-5 (simulated m1, 4 big + 4 little, one lock, 2 lines): medians of "
      "%d seeds, epochs/s; ratio = asl:mcs / lock" % len({r["seed"] for r in recs}))
print("%-8s " % "non-cs" + " ".join("%22s" % l for l in locks) + "   asl/mcs asl/tas asl/mcs-4big")
for ncs in sorted({k[0] for k in tab}):
    m = {l: statistics.median(tab[(ncs, l)]) for l in locks if (ncs, l) in tab}
    a = m.get("asl:mcs")
    print("%-8d " % ncs + " ".join("%22.0f" % m.get(l, 0) for l in locks) +
          "   %7.2f %7.2f %12.2f" % (a / m["mcs"], a / m["tas"], a / m["mcs (4 big only)"]))
PY
      cat "$out/summary.txt";;
  esac
done
