#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The LibASL tools: clof-asl-bench's input checking and a tiny run, and
# `clof asl-profile` end to end (runs, table, bad input).
#   test_tools.sh BINDIR
set -uo pipefail
bin="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# bad input: exit 2, a message that says what was expected, known locks listed
"$bin/clof-asl-bench" --lock nosuch >"$tmp/o" 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] || fail "unknown lock: exit $rc, expected 2"
grep -q "unknown lock 'nosuch'" "$tmp/e" && grep -q "clof locks" "$tmp/e" || fail "unknown lock: message: $(cat "$tmp/e")"
"$bin/clof-asl-bench" --slo 10parsecs >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "expected a duration" "$tmp/e" || fail "bad --slo: exit $rc: $(cat "$tmp/e")"
"$bin/clof-asl-bench" --big 0 --little 0 >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] || fail "no threads: exit $rc"

# a tiny emulated run: a JSON record with the per-core-type figures
"$bin/clof-asl-bench" --lock asl --slo 100us --big 1 --little 1 --duration 0.05 --json >"$tmp/r" \
  || fail "clof-asl-bench run failed"
for k in '"lock":"asl:mcs"' '"little_p99_ns":' '"big_p99_ns":' '"emulated":true' '"slo_ns":100000'; do
  grep -q "$k" "$tmp/r" || fail "record lacks $k: $(cat "$tmp/r")"
done

# clof asl-profile: runs, writes the table, rereads it
"$bin/clof" asl-profile --big 1 --little 1 --duration 0.05 --reps 1 --slos 0,100us \
  --baselines mcs --no-max --no-plot --out "$tmp/p" >"$tmp/o" 2>"$tmp/e" || fail "asl-profile: $(cat "$tmp/e")"
[ "$(wc -l < "$tmp/p/profile.jsonl")" -eq 3 ] || fail "asl-profile: expected 3 records"
grep -q "asl:mcs slo=100000" "$tmp/p/summary.txt" || fail "asl-profile: summary: $(cat "$tmp/p/summary.txt")"
"$bin/clof" asl-profile --from "$tmp/p/profile.jsonl" --no-plot >"$tmp/o2" 2>&1 || fail "asl-profile --from"
grep -q "asl:mcs slo=0" "$tmp/o2" || fail "asl-profile --from: $(cat "$tmp/o2")"
"$bin/clof" asl-profile --slos 5furlongs >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "not a duration" "$tmp/e" || fail "asl-profile bad --slos: exit $rc $(cat "$tmp/e")"
echo "bad line" > "$tmp/bad.jsonl"
"$bin/clof" asl-profile --from "$tmp/bad.jsonl" >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.jsonl:1: expected a JSON record" "$tmp/e" || fail "asl-profile bad file: exit $rc $(cat "$tmp/e")"
echo "ok tools"
