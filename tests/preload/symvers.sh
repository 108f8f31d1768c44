#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The symbol versions of libclof-preload.so against the target's glibc:
# for every function the library interposes on, the versions it exports
# (name@VERSION, name@@VERSION for the default) must be exactly glibc's
# (libc.so.6 of the target: x86-64's start at GLIBC_2.2.5, aarch64's at
# GLIBC_2.17), and every GLIBC_* version the library defines must be one
# glibc defines.  Reads both version tables with readelf (the target's, for
# a cross build).
#   symvers.sh READELF LIBCLOF_PRELOAD LIBC
set -euo pipefail
readelf=$1 lib=$2 libc=$3
fns='pthread_mutex_(lock|unlock|init|destroy|trylock|timedlock|clocklock)|__pthread_mutex_(lock|unlock|init|destroy|trylock)|pthread_cond_(init|destroy|wait|timedwait|signal|broadcast|clockwait)|pthread_rwlock_(init|destroy|rdlock|wrlock|tryrdlock|trywrlock|timedrdlock|timedwrlock|clockrdlock|clockwrlock|unlock)|__pthread_rwlock_(init|destroy|rdlock|wrlock|tryrdlock|trywrlock|unlock)'
# defined (not UND) dynamic symbols name@[@]VERSION of the functions
syms() {
  "$readelf" --dyn-syms -W "$1" |
    awk -v re="^($fns)@" '$7 != "UND" && $8 ~ re { sub(/ \([0-9]+\)$/, "", $8); print $8 }' |
    sort -u
}
want=$(syms "$libc")
have=$(syms "$lib")
[ -n "$want" ] || { echo "symvers: no pthread symbols read from $libc" >&2; exit 1; }
status=0
if [ "$want" != "$have" ]; then
  echo "symvers: $lib does not export glibc's versions ($libc):" >&2
  diff <(echo "$want") <(echo "$have") | sed 's/^</  missing:/; s/^>/  extra:  /' | grep -E 'missing|extra' >&2
  status=1
fi
# version definitions (readelf -V, .gnu.version_d): every GLIBC_* of ours is glibc's
defs() {
  "$readelf" -V -W "$1" | sed -n '/\.gnu\.version_d/,/\.gnu\.version_r/p' |
    grep -o 'Name: GLIBC_[0-9][0-9.]*' | sed 's/Name: //' | sort -u
}
extra=$(comm -13 <(defs "$libc") <(defs "$lib"))
if [ -n "$extra" ]; then
  echo "symvers: $lib defines versions glibc does not: $extra" >&2
  status=1
fi
base=$(defs "$libc" | sort -V | head -1)
echo "symvers: $(echo "$have" | wc -l) versioned symbols, as glibc's ($libc, first version $base):"
echo "$have" | tr '\n' ' '
echo
exit $status
