#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/genmc/weaken_errors.sh -- run.sh --weaken with a bad SPEC fails
# clearly: a SPEC that matches no access (exit 2, "matches no atomic
# access", with the accesses of the file it named listed) and a malformed
# one (exit 2, "unknown clause").  Skipped (77) where run.sh skips.
set -u
run=$(cd "$(dirname "$0")/../../verify/genmc" && pwd)/run.sh
fail=0
check() { # WANT-TEXT SPEC
  out=$("$run" "--weaken=$2" rc11 clients_basic.c vc_clients_basic mcs 2>&1)
  rc=$?
  [ $rc -eq 77 ] && { echo "$out"; exit 77; }
  if [ $rc -ne 2 ] || ! grep -q -- "$1" <<< "$out"; then
    echo "$out" | tail -20
    echo "FAIL: --weaken=$2: exit $rc (want 2) and no '$1' in the output"
    fail=1
  else
    grep -m2 -- "$1" <<< "$out"
  fi
}
# line 1 of mcs.h is its licence: no access there; its accesses get listed
check "matches no atomic access" "site=lock/mcs.h:1,kind=store,to=rlx"
check "lock/mcs.h:98 clof_mcs_release cmpxchg rel" "site=lock/mcs.h:1,kind=store,to=rlx"
check "unknown clause" "line=lock/mcs.h:98,to=rlx"
check "unknown memory order" "site=lock/mcs.h:98,to=weak"
[ $fail = 0 ] && echo "ok: bad SPECs are refused with a clear error"
exit $fail
