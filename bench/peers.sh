#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# clof beside its peers in one command (docs/peers.md): for every basic lock
# that a peer library also has, clof's, libvsync's (vsync-*), Concurrency
# Kit's (ck-*) and glibc's pthread_mutex:
#   1. callgrind instructions per uncontended acquire+release pair
#      (bench/callgrind.sh: deterministic, one thread);
#   2. clof-bench throughput at T = 1, 2 and an oversubscribed T
#      (bench/oversub.sh: interleaved rounds, the order shuffled per round),
#      summarised by bench/preload/summarize.py --ci 0.9: per lock and T
#      the median of the per-round ratios lock / glibc and its
#      distribution-free 90% interval (6 rounds or more give one).
# Writes BUILD/results/peers-<date>.md (and the raw CSV / JSON lines beside
# it) and prints it.  The machine line (cpu model, cpus, kernel, load
# average before and after) is in the file: a timed figure is only
# meaningful with it.
#
# usage: bench/peers.sh [--bin DIR] [--threads "1 2 8"] [--repeats 6]
#          [--duration 0.5] [--iters 20000]
#          [--locks "tas ttas ticket mcs clh hemlock cna hmcs"]
#          [--no-callgrind] [--no-threads]
# Default: 8 locks and their peers (19 with glibc; cna and hmcs have
# libvsync's, vsync-cna and vsync-hmcs, on the same process topology, so
# CLOF_EMULATE=SHAPE measures both on an emulated machine) x 3 thread
# counts x 6 rounds x 0.5 s, about 4 minutes, plus about a minute of
# callgrind.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmdline="$0"; for a in "$@"; do cmdline+=" $(printf '%q' "$a")"; done
bin="${CLOF_BIN:-$root/build/bin}"
threads="1 2 8"; repeats=6; duration=0.5; iters=20000
locks="tas ttas ticket mcs clh hemlock cna hmcs"
do_cg=1; do_thr=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --locks) locks="$2"; shift 2 ;;
    --no-callgrind) do_cg=0; shift ;;
    --no-threads) do_thr=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "peers.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
bench="$bin/clof-bench"
[ -x "$bench" ] || { echo "peers.sh: $bench not found (build first)" >&2; exit 2; }
known="$("$bench" --list)"
# each clof lock, then the peers of it that this build has
all=""
for l in $locks; do
  grep -qx -- "$l" <<<"$known" || { echo "peers.sh: unknown lock: $l" >&2; exit 2; }
  all="$all $l"
  for p in "vsync-$l" "ck-$l"; do
    if grep -qx -- "$p" <<<"$known"; then all="$all $p"; fi
  done
  [ "$l" != tas ] || ! grep -qx ck-fas <<<"$known" || all="$all ck-fas"
done
res="${CLOF_RESULTS:-$(dirname "$bin")/results}"
mkdir -p "$res"
stamp="$(date +%Y%m%d-%H%M%S)"
md="$res/peers-$stamp.md"
load0="$(cut -d' ' -f1-3 /proc/loadavg)"
{
  echo "# clof beside its peers ($(date +%Y-%m-%d))"
  echo
  echo "- Command: \`$cmdline\`"
  echo "- Machine: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr)"
  echo "- Load average before: $load0"
} >"$md"

if [ "$do_cg" = 1 ]; then
  csv="$res/peers-$stamp-callgrind.csv"
  {
    echo
    bash "$root/bench/callgrind.sh" --bin "$bin" --iters "$iters" --locks "$all pthread" --out "$csv" 2>/dev/null
  } >>"$md"
fi

if [ "$do_thr" = 1 ]; then
  js="$res/peers-$stamp-threads.jsonl"
  bash "$root/bench/oversub.sh" --bin "$bin" --threads "$threads" --repeats "$repeats" \
    --duration "$duration" --locks "$all" --out "$js" >/dev/null
  # clof-bench's records as bench/preload/summarize.py reads them (glibc
  # the reference; the round from the label)
  conv="$res/peers-$stamp-threads-ratios.jsonl"
  machine="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo) / $(getconf _NPROCESSORS_ONLN) cpus / $(uname -sr)"
  python3 - "$js" "$machine" >"$conv" <<'EOF'
import json, re, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "meta":
        print(json.dumps({"type": "meta", "driver": "bench/peers.sh", "reference": "glibc",
                          "cmdline": r.get("cmdline", ""), "date": r.get("date", ""),
                          "machine": sys.argv[2]}))
        continue
    m = re.search(r"repeat=(\d+)", r.get("label") or "")
    ok = not r.get("failed") and "ops_per_s" in r
    print(json.dumps({"program": "clof-bench", "lock": "glibc" if r["lock"] == "pthread" else r["lock"],
                      "threads": r["threads"], "repeat": int(m.group(1)) if m else 0,
                      "value": r.get("ops_per_s", 0.0) if ok else 0.0, "ok": ok}))
EOF
  {
    echo
    echo "## Threads: clof-bench, lock / glibc (median of $repeats interleaved rounds, 90% interval)"
    echo
    python3 "$root/bench/preload/summarize.py" "$conv" --ci 0.9
  } >>"$md"
fi
echo >>"$md"
echo "- Load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$md"
cat "$md"
echo "peers.sh: wrote $md" >&2
