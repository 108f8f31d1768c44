#!/bin/sh
# Python threads + sqlite3 under the preload library's locks: 4 threads on
# this machine's cpus, each querying its own in-memory database (sqlite3
# releases the interpreter's lock around each query), 5 interleaved repeats;
# seconds of wall time per run (lower is better).  Run from the source root
# after a build:  docs/data/gil-sqlite-20261128/run.sh > OUT
set -eu
here=$(dirname "$0")
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cpus, $(python3 --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in 1 2 3 4 5; do
  for lock in glibc mcs cr:mcs ticket cna tas hmcs cr:hmcs; do
    s=$(timeout 120 build/bin/clof run --lock "$lock" -- python3 "$here/gil_sqlite.py" 1000 2>/dev/null | tail -1)
    echo "$r $lock ${s:-timeout}"
  done
done
echo "# end $(date -u +%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
