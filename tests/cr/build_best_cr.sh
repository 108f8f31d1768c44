#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test of src/preload/build-best.sh with a cr: pick (ctest cr.build_best):
#   build_best_cr.sh SOURCE_DIR BUILD_DIR C_COMPILER
# `clof select` hands out libclof-best.so with a cr: composition as
# CLOF_LOCK=cr:clof:X (docs/cr.md, docs/workflow.md); this builds one, with
# cr:clof:tkt-mcs compiled in as the default, and runs a small program under
# it with CLOF_LOCK unset: its CLOF_STATS=1 line must name the lock
# (lock=cr:clof:tkt-mcs) and carry the layer's counts (cr_passive=, cr_limits=,
# cr_granted=, cr_opens=, cr_grows=), and its 4 threads' increments must all
# be there.
set -uo pipefail
src="$1"; build="$2"; cc="$3"
bb="$src/src/preload/build-best.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL cr.build_best: $*" >&2; exit 1; }
clean() { env -u CLOF_LOCK -u CLOF_TOPOLOGY -u CLOF_EMULATE -u CLOF_SYSFS_ROOT -u CLOF_STATS -u CLOF_CR_ACTIVE "$@"; }

out="$tmp/best/libclof-best.so"
clean "$bb" --lock cr:clof:tkt-mcs --out "$out" --build "$build" --cc "$cc" >"$tmp/o" 2>&1 \
  || { cat "$tmp/o"; fail "build-best.sh --lock cr:clof:tkt-mcs failed"; }
cat "$tmp/o"
[ -f "$out" ] || fail "no $out"

cat >"$tmp/prog.c" <<'PROG'
#include <pthread.h>
#include <stdio.h>
#define T 4
#define N 20000
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long n;
static void *run(void *a)
{
    (void)a;
    for (int i = 0; i < N; i++) {
        pthread_mutex_lock(&m);
        n = n + 1;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}
int main(void)
{
    pthread_t t[T];
    for (int i = 0; i < T; i++)
        pthread_create(&t[i], NULL, run, NULL);
    for (int i = 0; i < T; i++)
        pthread_join(t[i], NULL);
    printf("n=%ld\n", n);
    return n == (long)T * N ? 0 : 1;
}
PROG
"$cc" -O1 -o "$tmp/prog" "$tmp/prog.c" -lpthread || fail "cannot compile the program"

# the default lock, active set 1 (every contended acquisition may go passive);
# 2 emulated nodes, so that the passive queue is NUMA-aware
clean CLOF_STATS=1 CLOF_CR_ACTIVE=1 CLOF_EMULATE=numa:2,core:2 LD_PRELOAD="$out" "$tmp/prog" \
  >"$tmp/so" 2>"$tmp/e" || fail "the program failed under $out: $(cat "$tmp/so" "$tmp/e")"
cat "$tmp/so" "$tmp/e"
grep -q " lock=cr:tkt-mcs " "$tmp/e" || fail "CLOF_STATS does not name lock=cr:tkt-mcs: $(cat "$tmp/e")"
grep -Eq " cr_passive=[0-9]+ cr_granted=[0-9]+ cr_limits=[0-9]+ cr_opens=[0-9]+ cr_grows=[0-9]+" "$tmp/e" || fail "no cr_passive/cr_granted/cr_limits/cr_opens/cr_grows counts: $(cat "$tmp/e")"
# and CLOF_LOCK still overrides the cr: default
clean CLOF_LOCK=mcs CLOF_STATS=1 LD_PRELOAD="$out" "$tmp/prog" >"$tmp/so" 2>"$tmp/e" \
  || fail "CLOF_LOCK=mcs: $(cat "$tmp/so" "$tmp/e")"
grep -q " lock=mcs " "$tmp/e" || fail "CLOF_LOCK=mcs did not override: $(cat "$tmp/e")"
grep -q "cr_passive=" "$tmp/e" && fail "a plain mcs line carries cr counts: $(cat "$tmp/e")"
echo "PASS cr.build_best"
