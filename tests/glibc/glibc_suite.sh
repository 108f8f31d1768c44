#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# glibc_suite.sh -- glibc's own pthread tests (nptl/ and sysdeps/pthread/ of
# Debian's glibc-source package, the version of the installed libc), built
# outside glibc's tree against the installed libc and run under glibc and
# under libclof-preload.so with each lock setting (docs/glibc-suite.md).
# Nothing of glibc is copied into clof: the package's tarball is unpacked
# into the build folder when the suite is built.
#
#   glibc_suite.sh build  OUT CC            unpack, build glibc's support/
#                                           library and every test into OUT/bin
#   glibc_suite.sh run    OUT LIB SETTING [-j N] [TEST...]
#                                           run the tests under SETTING; one
#                                           line per test; OUT/res/SETTING
#   glibc_suite.sh check  OUT LIB SETTING [-j N]
#                                           the ctest step: run, then compare
#                                           with the baseline's run (glibc)
#   glibc_suite.sh table  OUT               the table of docs/glibc-suite.md
#   glibc_suite.sh left-out OUT             the tests not built, and why
#   glibc_suite.sh all    OUT CC LIB        build, every setting, the table
#   glibc_suite.sh settings                 the settings and their environment
#   glibc_suite.sh tarball                  the tarball's path; exit 77 if missing
#
# The tarball is $GLIBC_SOURCE, else /usr/src/glibc/glibc-VERSION.tar.xz
# for the installed libc's VERSION.  Missing, `build` prints one line and
# exits 77 (ctest: skipped); scripts/deps.sh installs glibc-source.
#
# A test's result is its exit status (glibc's support/test-driver.c): 0
# PASS, 77 UNSUPPORTED, 1 FAIL; killed after GLIBC_LIMIT seconds (default
# 120) a HANG, by a signal a CRASH.  The driver's own time limit is the
# test's TIMEOUT times TIMEOUTFACTOR (default 4 here: 2 vCPUs, ten tests at
# once).  `check` fails when a test that PASSes under glibc does not PASS
# under the setting (a second run alone decides, as in posix_suite.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
SUITE=glibc_suite.sh USAGE_LINES=3,22
# shellcheck source=../preload/suite_lib.sh
. "$here/../preload/suite_lib.sh"
LIMIT=${GLIBC_LIMIT:-120}
export LIMIT
export TIMEOUTFACTOR=${TIMEOUTFACTOR:-4}

# the test families the suite takes (nptl/ and sysdeps/pthread/)
FAMILIES="tst-mutex tst-cond tst-rwlock tst-spin tst-once tst-robust tst-mutexpi tst-cancel"
BASELINES="glibc wpref:glibc"
# CI's settings: FIFO queue locks, NUMA locks on an emulated two-node
# machine (hmcs, a composition, cna), the layers (cr:, asl:), a
# test-and-set, hemlock, NUMA rwlocks, writer preference
SETTINGS="mcs hmcs clof:tkt-mcs-clh cna cr:mcs asl:mcs tas hemlock rw:hmcs bravo:rw:c-bo-mcs
wpref:rw:c-bo-mcs"
MORE_SETTINGS="ticket clh ttas bo ptl hemlock_ctr twa recip fissile mutexee array glibc-adaptive c-bo-mcs c-tkt-tkt c-ptl-tkt a-c-bo-bo
clof:clh-hem clof:mcs-mcs-tkt cr:hmcs cr:cna cr:clof:tkt-mcs-clh asl:clof:tkt-mcs-clh rw-central
rw:mcs rw:tas bravo:rw:hmcs bravo:rw-central wpref:rw:hmcs wpref:bravo:rw:c-bo-mcs"

# the tests a setting runs: a mutex setting all but the rwlock tests, an
# rwlock setting the rwlock tests
setting_tests() {
  case $1 in
    glibc) cat "$out/list" ;;
    rw-central|rw:*|bravo:*|wpref:*) grep '^tst-rwlock' "$out/list" ;;
    *) grep -v '^tst-rwlock' "$out/list" ;;
  esac | heavy_filter "$1"
}
# The stress tests: each runs for a fixed time (10-60 s here) and takes 2-18
# s of cpu, together 80 of the suite's 85 s of cpu under glibc.  `all` runs
# them under every setting; ctest (GLIBC_HEAVY_SETTINGS) under a few.
HEAVY="tst-mutex10 tst-robust-fork tst-cond16 tst-cond17 tst-cond18 tst-rwlock-pwn
tst-rwlock-tryrdlock-stall tst-rwlock-trywrlock-stall"
HEAVY_SETTINGS=${GLIBC_HEAVY_SETTINGS:-all}
# the program that shows the library runs the setting's lock (cmd_check)
suite_probe() {
  case $setting in
    rw-central|rw:*|bravo:*|wpref:*) probe=tst-rwlock1 want="rwlock=${setting#wpref:} " ;;
    *) probe=tst-mutex1 want=$(mutex_want "$setting") ;;
  esac
}

# run_one LIB SETTING TEST: prints "TEST RESULT SECONDS"
run_one() {
  local lib=$1 setting=$2 t=$3 env rc t0 t1 res pre
  run_env "$lib" "$setting"
  local log="$out/log/$t.${setting//[:\/]/_}.out" dir="$out/run/$t.${setting//[:\/]/_}" args=()
  # what glibc's build gives a test: its folder as the working directory
  # (tst-cancel4 and the tests that include it read the Makefile there), and
  # the arguments nptl/Makefile names (tst-cancel7: the command that runs it)
  mkdir -p "$dir"
  ln -sf "$out/src/nptl/Makefile" "$dir/Makefile"
  case $t in tst-cancel7|tst-cancelx7) args=(--command "exec $out/bin/$t") ;; esac
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  (cd "$dir" && env $env "${pre[@]}" \
     timeout -k 5 "$LIMIT" "$out/bin/$t" "${args[@]}") >"$log" 2>&1 </dev/null
  rc=$?
  t1=$(date +%s.%N)
  case $rc in
    0) res=PASS ;; 1) res=FAIL ;; 77) res=UNSUPPORTED ;;
    *) res=$(rc_result "$rc") ;;
  esac
  printf '%s %s %.1f\n' "$t" "$res" "$(echo "$t1 - $t0" | bc)"
}

# the tarball of the installed libc's version
glibc_tarball() {
  local v
  v=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
  echo "${GLIBC_SOURCE:-/usr/src/glibc/glibc-$v.tar.xz}"
}

# support/ files that are programs of glibc's own test harness, not library
# (and files that other support/ files include)
SUPPORT_PROGRAMS="test-container echo-container shell-container true-container links-dso-program
links-dso-program-c support_test_main_wrapper test-driver support_quote_blob_main
support_test_compare_string_main support_paths"

cmd_build() {
  out=$1
  local cc=$2 tarball top
  tarball=$(glibc_tarball)
  if [ ! -f "$tarball" ]; then
    echo "Debian's glibc-source package not installed ($tarball missing; scripts/deps.sh installs it) -- skipped"
    exit 77
  fi
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  top=$(basename "$tarball" .tar.xz)
  # unpack (again only when the tarball is newer than the unpacked tree)
  if [ ! -f "$out/src/.unpacked" ] || [ "$tarball" -nt "$out/src/.unpacked" ]; then
    rm -rf "$out/src"
    mkdir -p "$out/src"
    tar -xJf "$tarball" -C "$out/src" --strip-components=1 \
        "$top/nptl" "$top/sysdeps/pthread" "$top/sysdeps/x86_64/stackinfo.h" \
        "$top/sysdeps/generic/stackinfo.h" "$top/support" "$top/test-skeleton.c" \
        "$top/include/intprops.h" || { echo "$SUITE: cannot unpack $tarball" >&2; exit 1; }
    touch "$out/src/.unpacked"
  fi
  local src=$out/src inc=$out/inc
  # the include folder: clof's stand-ins for two internal headers, and the
  # few of glibc's own files the tests name by an include path
  rm -rf "$inc"
  mkdir -p "$inc" "$out/obj" "$out/bin" "$out/log"
  cp "$here/shim/"*.h "$inc/"
  ln -s "$src/support" "$inc/support"
  ln -s "$src/sysdeps" "$inc/sysdeps"
  ln -s "$src/test-skeleton.c" "$inc/test-skeleton.c"
  ln -s "$src/include/intprops.h" "$inc/intprops.h"
  ln -s "$src/sysdeps/x86_64/stackinfo.h" "$inc/stackinfo.h"
  # (glibc's build gives every file _GNU_SOURCE, <limits.h> and the
  # driver's default TIMEOUTFACTOR; the environment's still scales it)
  local cflags="-std=gnu11 -O1 -g -D_GNU_SOURCE -DTIMEOUTFACTOR=1 -include limits.h -w -I$inc -I$src/support"
  # the support library (the suite's test driver, check macros, x* wrappers)
  # its path constants (support_paths.c) name the installed system
  local paths=("-DSRCDIR_PATH=\"$src\"" "-DOBJDIR_PATH=\"$out\""
               "-DOBJDIR_ELF_LDSO_PATH=\"/lib64/ld-linux-x86-64.so.2\"" "-DINSTDIR_PATH=\"/usr\""
               "-DLIBDIR_PATH=\"/usr/lib/x86_64-linux-gnu\"" "-DBINDIR_PATH=\"/usr/bin\""
               "-DSBINDIR_PATH=\"/usr/sbin\"" "-DSLIBDIR_PATH=\"/lib/x86_64-linux-gnu\""
               "-DROOTSBINDIR_PATH=\"/sbin\"" "-DCOMPLOCALEDIR_PATH=\"/usr/lib/locale\"")
  # shellcheck disable=SC2086
  "$cc" $cflags "${paths[@]}" -c "$src/support/support_paths.c" -o "$out/obj/support_paths.o" \
    >"$out/log/support.support_paths.build" 2>&1 || { echo "$SUITE: support/support_paths.c does not build" >&2; exit 1; }
  local jobs=${GLIBC_JOBS:-$(nproc)}
  export cc cflags src out
  (cd "$src/support" && ls ./*.c) | sed 's|^\./||' | grep -v '^tst-' |
    grep -v -x -F -f <(printf '%s.c\n' $SUPPORT_PROGRAMS) >"$out/support.sources"
  : >"$out/support.bad"
  # shellcheck disable=SC2016
  <"$out/support.sources" xargs -P "$jobs" -I{} bash -c '
    f={}; o="$out/obj/${f%.c}.o"
    [ "$o" -nt "$src/support/$f" ] && exit 0
    "$cc" $cflags -c "$src/support/$f" -o "$o" >"$out/log/support.${f%.c}.build" 2>&1 ||
      { rm -f "$o"; echo "${f%.c}" >>"$out/support.bad"; }'
  rm -f "$out/libsupport.a"
  ar rcs "$out/libsupport.a" "$out"/obj/*.o
  # the tests
  local fam d
  (cd "$src" && for d in nptl sysdeps/pthread; do for fam in $FAMILIES; do
     compgen -G "$d/$fam*.c"; done; done) |
    sort -u >"$out/sources"
  : >"$out/list.new"
  : >"$out/left-out.new"
  # shellcheck disable=SC2016
  <"$out/sources" xargs -P "$jobs" -I{} bash -c '
    f={}; t=$(basename "$f" .c)
    case $t in
      *-common) exit 0 ;;  # included by the tests of its name, not a test
      *-static) echo "$t: statically linked (LD_PRELOAD cannot reach a static program)" >>"$out/left-out.new"; exit 0 ;;
    esac
    if [ "$out/bin/$t" -nt "$src/$f" ] && [ "$out/bin/$t" -nt "$out/libsupport.a" ]; then echo "$t" >>"$out/list.new"; exit 0; fi
    if "$cc" $cflags -I"$src/$(dirname "$f")" -I"$src/nptl" -I"$src/sysdeps/pthread" "$src/$f" -o "$out/bin/$t" \
         "$out/libsupport.a" -lpthread -lrt -ldl -lm >"$out/log/$t.build" 2>&1
    then echo "$t" >>"$out/list.new"
    else
      why=$(grep -m1 -E "error|undefined reference" "$out/log/$t.build" | sed "s|^$src/||; s|^[^ ]*: ||")
      echo "$t: not built outside glibc'"'"'s tree: ${why:-see $out/log/$t.build}" >>"$out/left-out.new"
    fi'
  sort "$out/list.new" >"$out/list"
  sort "$out/left-out.new" >"$out/left-out"
  rm -f "$out/list.new" "$out/left-out.new"
  echo "built $(wc -l <"$out/list") of $(cat "$out/list" "$out/left-out" | wc -l) test programs of glibc $(basename "$top") into $out/bin" \
       "($(wc -l <"$out/left-out") left out: glibc_suite.sh left-out $out; support/: $(wc -l <"$out/support.bad") files not built)"
}

# all OUT CC LIB: build, the baselines, every setting, the table
cmd_all() {
  local cc=$2 lib=$3
  out=$1
  (cmd_build "$out" "$cc") || exit $?
  out=$(cd "$out" && pwd)
  run_all_settings "$lib" 6
}

case ${1:-} in
  build) shift; cmd_build "$@" ;;
  all) shift; cmd_all "$@" ;;
  tarball) t=$(glibc_tarball); echo "$t"; [ -f "$t" ] || exit 77 ;;
  *) suite_command "$@" ;;
esac
