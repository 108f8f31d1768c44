#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Oversubscribed throughput of every lock against glibc pthread_mutex,
# interleaved: for each repeat, for each thread count, every lock runs once
# in a shuffled order (seeded), so that each lock/pthread ratio compares runs
# made seconds apart.  Writes one JSON line per run (clof-bench --json, plus
# a first "meta" line with the command line) to BUILD/results/oversub-<date>.jsonl
# and prints the summary of bench/summarize.py (also saved next to it, .md).
#
# usage: bench/oversub.sh [options] [-- extra clof-bench flags]
#   --bin DIR        where clof-bench is (default: build/bin, or $CLOF_BIN)
#   --threads "T.."  thread counts (default "2 4 8 16")
#   --repeats R      repeats (default 5)
#   --duration S     seconds per run (default 1)
#   --cs-lines K     shared lines in the critical section (default 2)
#   --non-cs NS      mean non-critical work in ns (default 100)
#   --locks "L.."    locks (default: every lock of clof-bench --list;
#                    pthread is always added: it is the reference)
#                    the peers are locks like the others: e.g. --locks
#                    "clh ck-clh vsync-clh mcs ck-mcs vsync-mcs" (vsync-*
#                    where clof-bench was built with libvsync, docs/peers.md;
#                    "cna vsync-cna hmcs vsync-hmcs" on the same topology,
#                    e.g. -- --emulate numa:2,cpu:2 for an emulated one)
#   --seed S         seed of the order shuffle and of clof-bench (default 1)
#   --out FILE       JSON-lines output (default BUILD/results/oversub-<date>.jsonl)
# Default: 14 locks x 4 thread counts x 5 repeats x 1 s, about 5 minutes.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmdline="$0"; for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
bin="${CLOF_BIN:-$root/build/bin}"
threads="2 4 8 16"
repeats=5
duration=1
cs_lines=2
non_cs=100
locks=""
seed=1
out=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --cs-lines) cs_lines="$2"; shift 2 ;;
    --non-cs) non_cs="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "oversub.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$repeats" in ''|*[!0-9]*|0) echo "oversub.sh: --repeats must be a positive integer" >&2; exit 2 ;; esac

bench="$bin/clof-bench"
if [ ! -x "$bench" ]; then
  echo "oversub.sh: $bench not found; build first:" >&2
  echo "  cmake -S $root -B $root/build && cmake --build $root/build -j" >&2
  exit 2
fi
known="$("$bench" --list)"
[ -n "$locks" ] || locks="$(tr '\n' ' ' <<<"$known")"
case " $locks " in *" pthread "*) ;; *) locks="$locks pthread" ;; esac
# (grep on a here-string: `--list | grep -q` under pipefail failed at
# random when grep's early exit cut the listing with SIGPIPE)
for l in $locks; do
  grep -qx -- "$l" <<<"$known" || { echo "oversub.sh: unknown lock: $l" >&2; exit 2; }
done
stamp="$(date +%Y%m%d-%H%M%S)"
[ -n "$out" ] || { res="${CLOF_RESULTS:-$(dirname "$bin")/results}"; mkdir -p "$res"; out="$res/oversub-$stamp.jsonl"; }

nlocks=$(wc -w <<<"$locks"); nt=$(wc -w <<<"$threads")
est=$(awk -v a="$nlocks" -v b="$nt" -v r="$repeats" -v d="$duration" 'BEGIN{printf "%.0f", a*b*r*(d+0.05)}')
echo "oversub: $nlocks locks x T={$threads} x $repeats repeats x ${duration}s, about ${est}s -> ${out#$root/}" >&2

export OVERSUB_CMDLINE="$cmdline" OVERSUB_LOCKS="$locks" OVERSUB_THREADS="$threads" \
  OVERSUB_REPEATS="$repeats" OVERSUB_DURATION="$duration" OVERSUB_CS="$cs_lines" \
  OVERSUB_NONCS="$non_cs" OVERSUB_SEED="$seed" OVERSUB_EXTRA="${extra[*]:-}"
python3 - >"$out" <<'EOF'
import json, os, time
e = os.environ
print(json.dumps({"type": "meta", "driver": "bench/oversub.sh",
                  "cmdline": e["OVERSUB_CMDLINE"],
                  "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  "locks": e["OVERSUB_LOCKS"].split(),
                  "threads": [int(t) for t in e["OVERSUB_THREADS"].split()],
                  "repeats": int(e["OVERSUB_REPEATS"]),
                  "duration_s": float(e["OVERSUB_DURATION"]),
                  "cs_lines": int(e["OVERSUB_CS"]),
                  "non_cs_ns": float(e["OVERSUB_NONCS"]),
                  "seed": int(e["OVERSUB_SEED"]),
                  "extra_flags": e["OVERSUB_EXTRA"].split(),
                  "reference": "pthread"}))
EOF

# The run order of (repeat, T): the locks shuffled by a PRNG seeded with
# (seed, repeat, T), so every lock runs early and late in a round.
order() {
  python3 -c 'import random,sys; s,r,t=sys.argv[1:4]; l=sys.argv[4:]; random.Random(f"{s}/{r}/{t}").shuffle(l); print(" ".join(l))' \
    "$seed" "$1" "$2" $locks
}

tmp="$(mktemp)"; trap 'rm -f "$tmp"' EXIT
limit=$(awk -v d="$duration" 'BEGIN{printf "%d", d + 60}')
fails=0
for r in $(seq 1 "$repeats"); do
  for t in $threads; do
    for l in $(order "$r" "$t"); do
      rc=0
      timeout "$limit" "$bench" --lock "$l" --threads "$t" --duration "$duration" \
        --cs-lines "$cs_lines" --non-cs "$non_cs" --seed "$seed" --json \
        --label "oversub repeat=$r" "${extra[@]}" >>"$out" 2>"$tmp" || rc=$?
      if [ "$rc" -ne 0 ]; then
        fails=$((fails + 1))
        echo "oversub: $l T=$t repeat $r failed (rc $rc): $(head -c 300 "$tmp")" >&2
        python3 -c 'import json,sys; print(json.dumps({"lock":sys.argv[1],"threads":int(sys.argv[2]),"label":"oversub repeat="+sys.argv[3],"failed":True,"rc":int(sys.argv[4]),"stderr":open(sys.argv[5]).read()[:2000]}))' \
          "$l" "$t" "$r" "$rc" "$tmp" >>"$out"
      fi
    done
  done
  echo "oversub: repeat $r/$repeats done" >&2
done

md="${out%.jsonl}.md"
python3 "$root/bench/summarize.py" "$out" | tee "$md"
echo "(summary saved to ${md#$root/})" >&2
[ "$fails" -eq 0 ] || { echo "oversub: $fails failed runs (see the summary)" >&2; exit 1; }
