# SPDX-License-Identifier: MIT
# Sourced by bench/preload/oversub.sh and apps.sh: the canonical spelling
# of each lock a run is given (docs/locks.md), the name the preload library
# reports in its record, so that `clof:tkt-mcs` or `MCS` is checked against
# `tkt-mcs` or `mcs`.  An unknown name stops the script before the first
# run, with the closest known names (clof-lockname's message).
#
#   canon_locks TOOL BIN "LOCK..."   fills the array canon[LOCK] (LOCK as
#                                    given, NAME@b included) or exits 2
declare -A canon
canon_locks() {
  local tool="$1" bin="$2" l base c
  for l in $3; do
    base="${l%@b}"
    if [ "$base" = glibc ]; then
      canon[$l]=glibc
    elif [ -x "$bin/clof-lockname" ]; then
      c="$("$bin/clof-lockname" canon --tool "$tool" "$base")" || exit 2
      canon[$l]="$c"
    else
      canon[$l]="$base" # a build without the tool: as given
    fi
  done
}
