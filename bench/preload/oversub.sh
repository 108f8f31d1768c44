#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Oversubscribed pthread_mutex microbenchmark through libclof-preload.so,
# against glibc in the same run, interleaved.
#
# pl_mutexbench: T threads lock one PTHREAD_MUTEX_INITIALIZER mutex in a
# loop (critical section: K shared cache lines; outside: ~NS ns of work).
# For each repeat and each T, every lock and glibc run once, in an order
# shuffled per (seed, repeat, T), so each lock/glibc ratio compares runs
# made seconds apart.  Writes JSON lines to BUILD/results/preload-oversub-<date>.jsonl
# and prints bench/preload/summarize.py's tables (saved next to it, .md; with
# 6 repeats or more, each ratio's 90% interval too: summarize.py --ci).
#
# usage: bench/preload/oversub.sh [--bin DIR] [--lib FILE] [--threads "2 4 8 16"]
#          [--repeats 5] [--duration 1] [--cs-lines 2] [--non-cs 100]
#          [--locks "tas ttas .."] [--seed 1] [--out FILE] [--lib-b FILE]
#          [--driver pl_mutexbench|pl_lockloop|pl_hotloop] [--iters N] [--work N]
#          [--spin-per-ns X]
# The work outside the critical section is the same in every run of a
# series: pl_mutexbench's loop rate is measured once, before the first run
# (the median of 5 measurements, pl_mutexbench --calibrate; in the record's
# meta line as spin_per_ns), and every run is given it; --spin-per-ns X
# gives it instead (to repeat a series with the work of another).  Measured
# in each run instead, the rate moved 1.3-3.0 iterations/ns between runs a
# second apart on a 2-vCPU VM, and the work outside with it.
# --driver pl_lockloop: the second harness instead (bench/preload/pl_lockloop.c:
# a fixed number of pairs per thread, --iters N, default 100000; nothing
# outside the critical section, so --non-cs does not apply; the value is
# still pairs/s: T x N over the time to the last thread's last unlock).
# --driver pl_hotloop: the third (bench/preload/pl_hotloop.c: the hottest
# oversubscribed shape: a static mutex, two increments inside, three of four
# iterations straight back to the lock, the fourth first doing --work N
# steps of private work, default 64; --duration applies, --cs-lines and
# --non-cs do not).
# --lib-b FILE: a second build of the library, for A/B in one run; a lock
# named NAME@b in --locks runs NAME under it (e.g. --locks "cr:mcs cr:mcs@b"
# with --lib-b build-other/lib/libclof-preload.so).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cmdline="$0"; for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
bin="$root/build/bin"; lib="$root/build/lib/libclof-preload.so"
threads="2 4 8 16"; repeats=5; duration=1; cs=2; noncs=100; seed=1; out=""; libb=""
driver=pl_mutexbench; iters=100000; rate=""; work=64
locks=""  # default: the basic locks of the registry (clof-lockname names)
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --lib-b) libb="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --cs-lines) cs="$2"; shift 2 ;;
    --non-cs) noncs="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --driver) driver="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --spin-per-ns) rate="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "oversub.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$driver" in
  pl_mutexbench|pl_lockloop|pl_hotloop) ;;
  *) echo "oversub.sh: --driver $driver: expected pl_mutexbench, pl_lockloop or pl_hotloop" >&2; exit 2 ;;
esac
drv="$bin/$driver"
[ -x "$drv" ] || { echo "oversub.sh: $drv not found (build first)" >&2; exit 2; }
[ -f "$lib" ] || { echo "oversub.sh: $lib not found (build first)" >&2; exit 2; }
lib="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"
if [ -n "$libb" ]; then
  [ -f "$libb" ] || { echo "oversub.sh: $libb not found (build first)" >&2; exit 2; }
  libb="$(cd "$(dirname "$libb")" && pwd)/$(basename "$libb")"
fi
[ -n "$locks" ] || locks="$("$bin/clof-lockname" names --family basic | tr '\n' ' ')"
case " $locks " in
  *@b\ *) [ -n "$libb" ] || { echo "oversub.sh: a lock NAME@b needs --lib-b FILE" >&2; exit 2; } ;;
esac
# shellcheck source=bench/preload/canon.sh
. "$root/bench/preload/canon.sh"
canon_locks oversub.sh "$bin" "$locks"
if [ "$driver" = pl_mutexbench ]; then
  if [ -n "$rate" ]; then
    "$drv" --spin-per-ns "$rate" --calibrate >/dev/null 2>&1 || { echo "oversub.sh: --spin-per-ns $rate: expected a positive number" >&2; exit 2; }
  else
    rate="$(for _ in 1 2 3 4 5; do "$drv" --calibrate; done | sort -g | sed -n 3p)"
    [ -n "$rate" ] || { echo "oversub.sh: $drv --calibrate printed nothing" >&2; exit 2; }
  fi
fi
stamp="$(date +%Y%m%d-%H%M%S)"
[ -n "$out" ] || { res="${CLOF_RESULTS:-$(dirname "$bin")/results}"; mkdir -p "$res"; out="$res/preload-oversub-$stamp.jsonl"; }
all="glibc $locks"
machine="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr) / glibc $(ldd --version 2>&1 | awk 'NR == 1 { print $NF }') / clof $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo '+changes')"
python3 - "$cmdline" "$machine" "$threads" "$repeats" "$duration" "$cs" "$noncs" "$seed" "$lib" "$libb" "$driver" "$iters" "$rate" "$work" >"$out" <<'EOF'
import json, sys, time
c, m, t, r, d, cs, n, s, lib, libb, drv, it, rate, work = sys.argv[1:]
print(json.dumps({"type": "meta", "driver": "bench/preload/oversub.sh", "cmdline": c,
                  "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": m,
                  "threads": [int(x) for x in t.split()], "repeats": int(r),
                  "duration_s": float(d), "cs_lines": int(cs), "non_cs_ns": int(n), "seed": int(s),
                  "units": {drv: "lock+unlock/s"}, "reference": "glibc",
                  **({"iters_per_thread": int(it)} if drv == "pl_lockloop" else {}),
                  **({"work_steps": int(work), "cs": "two increments",
                      "straight_back": "3 of 4"} if drv == "pl_hotloop" else {}),
                  **({"spin_per_ns": float(rate)} if rate else {}),
                  "lib": lib, **({"lib_b": libb} if libb else {})}))
EOF
order() {
  python3 -c 'import random,sys; s,r,t=sys.argv[1:4]; l=sys.argv[4:]; random.Random(f"{s}/{r}/{t}").shuffle(l); print(" ".join(l))' \
    "$seed" "$1" "$2" $all
}
echo "oversub: $(wc -w <<<"$all") locks x T={$threads} x $repeats x ${duration}s -> ${out#$root/}" >&2
for r in $(seq 1 "$repeats"); do
  for t in $threads; do
    for l in $(order "$r" "$t"); do
      pre=()
      case "$l" in
        glibc) ;;
        *@b) pre=(env LD_PRELOAD="$libb" CLOF_LOCK="${l%@b}") ;;
        *) pre=(env LD_PRELOAD="$lib" CLOF_LOCK="$l") ;;
      esac
      load="$(cut -d' ' -f1 /proc/loadavg)"  # other work on the machine, for the record
      if [ "$driver" = pl_lockloop ]; then
        args=(--iters "$iters" --cs-lines "$cs")
      elif [ "$driver" = pl_hotloop ]; then
        args=(--duration "$duration" --work "$work")
      else
        args=(--duration "$duration" --non-cs "$noncs" --spin-per-ns "$rate" --cs-lines "$cs")
      fi
      res="$(timeout 120 "${pre[@]}" "$drv" --threads "$t" "${args[@]}" \
               --label "repeat=$r" 2>&1)" && rc=0 || rc=$?
      python3 - "$l" "$t" "$r" "$rc" "$res" "$load" "$driver" "${canon[$l]:-glibc}" >>"$out" <<'EOF'
import json, sys
l, t, r, rc, res, load, drv, want = sys.argv[1:]
rec = {"program": drv, "lock": l, "threads": int(t), "repeat": int(r),
       "loadavg_1min": float(load)}
try:
    d = json.loads(res.strip().splitlines()[-1]) if int(rc) == 0 else None
except Exception:
    d = None
ok = bool(d) and d.get("lock") == want  # the canonical name of l (NAME@b: --lib-b)
rec.update({"ok": ok, "value": d["ops_per_s"] if ok else 0.0,
            "fairness_rstd": d.get("fairness_rstd") if d else None})
if not ok:
    rec["error"] = f"rc={rc}: {res[-300:]}"
print(json.dumps(rec))
EOF
    done
  done
  echo "oversub: repeat $r/$repeats done" >&2
done
md="${out%.jsonl}.md"
# the goals of the issues: unfair locks >= 1.0x glibc, FIFO locks >= 0.5x, cr: locks >= 0.8x (issue 19)
# with 6 repeats or more, each ratio's 90% interval too (summarize.py --ci)
ci=(); [ "$repeats" -lt 6 ] || ci=(--ci 0.9)
python3 "$root/bench/preload/summarize.py" "$out" --goals "tas=1.0 ttas=1.0 bo=1.0 cr:*=0.8 *=0.5" "${ci[@]}" | tee "$md"
