#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify/genmc/bugs.sh -- the named memory-order bugs of verify/bugs.h under
# GenMC: each bug's weakening written as a weaken.py SPEC (the accesses vc
# weakens by call site, found here by their source location in the IR), run
# with run.sh --expect-error=TEXT: GenMC must report the error.
#
#   bugs.sh NAME MODEL    one bug (the ctests genmc.bug.NAME.MODEL)
#   bugs.sh [--all]       every bug under every model of its row, as Markdown
#                         rows | bug | model | GenMC | executions | cpu s |
#                         (--all: with the slow one, bravo-rbias-relaxed)
#   bugs.sh --list        the rows of the table below
#
# Besides bugs.h's bugs, clh-release-cas-rlx: a row of vc's mutation table
# (clh.h's release CAS relaxed), caught by both.  Not here: cr-passive-rlx
# (GenMC does not run the cr: clients, docs/genmc.md).  bravo-rbias-relaxed
# needs the RW client's third thread (a fast reader after the slow one):
# GenMC finds it after about 36,000 executions (over a minute of CPU), so
# it is not in CI; the other RW bugs run the 2-thread client of CI.
# GENMC_TOPO_DIR, CLOF_GENMC as for run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# name | models | file table client | extra flags | SPEC | error text
rows() {
  cat <<'EOF'
hmcs-status-acquire|rc11|clients_hmcs.c vc_clients_hmcs hmcs3||loc=status,kind=load,from=acq,to=rlx|race
mcs-handoff-release|rc11 imm|clients_basic.c vc_clients_basic mcs||in=clof_mcs_release,kind=store,from=rel,to=rlx|race
ticket-release-rlx|rc11 imm|clients_basic.c vc_clients_basic ticket||in=clof_ticket_release,kind=write,from=rel|acq_rel|seq_cst,to=rlx|race
acohort-fast-take-acquire|rc11|clients_timed.c vc_clients_timed a-c-bo-bo.timed.fast||in=clof_compose_fast_take_until_,kind=cmpxchg,from=acq,to=rlx|race
mcs-link-relaxed|rc11 imm|clients_basic.c vc_clients_basic mcs||in=clof_mcs_enqueue_,kind=store,from=rel,to=rlx|Liveness
rw-wactive-release|rc11|clients_rw.c vc_clients_rw rw.cohort.wp|-DGENMC_THREADS=2|in=clof_rw_writer_enter_until_,kind=store,from=seq_cst,to=rel|race
bravo-rbias-relaxed|rc11|clients_rw.c vc_clients_rw rw.bravo.cohort.rp||in=clof_bravo_read_slow_done_,kind=store,from=rel,to=rlx|
rw-central-read-add-relaxed|rc11|clients_rw.c vc_clients_rw rw.central|-DGENMC_THREADS=2|in=clof_rw_central_arrive_,kind=fetch_add,from=acq,to=rlx|race
clh-release-cas-rlx|rc11 imm|clients_basic.c vc_clients_basic clh||site=lock/clh.h:323,kind=cmpxchg,from=rel,to=rlx|race
EOF
}
one() { # NAME MODEL: run.sh's line and exit status
  local row models fc flags spec text
  row=$(rows | grep "^$1|") || { echo "bugs.sh: unknown bug '$1'; known: $(rows | cut -d'|' -f1 | tr '\n' ' ')" >&2; return 2; }
  IFS='|' read -r _ models fc flags spec text <<< "$row"
  # SPEC may hold '|' (from=rel|acq_rel|seq_cst): the text is the last field
  spec=$(cut -d'|' -f5- <<< "$row"); spec=${spec%|*}
  text=${row##*|}
  # IMM has no data races as errors (no catch-fire): the lock's failure
  # shows as the client's mutual-exclusion assert instead
  [ "$2" = imm ] && [ "$text" = race ] && text=Safety
  case " $models " in *" $2 "*) ;; *) echo "bugs.sh: $1 runs under: $models" >&2; return 2 ;; esac
  # shellcheck disable=SC2086 # fc and flags are word lists
  "$here/run.sh" "--expect-error${text:+=$text}" "--weaken=$spec" "$2" $fc $flags
}
if [ $# -ge 2 ]; then one "$1" "$2"; exit $?; fi
if [ "${1:-}" = --list ]; then rows; exit 0; fi
slow=" bravo-rbias-relaxed "
[ "${1:-}" = --all ] && slow=
echo "| bug | model | GenMC | executions | cpu s |"
echo "| --- | --- | --- | --- | --- |"
rows | while IFS='|' read -r name models _; do
  [[ $slow == *" $name "* ]] && continue
  for m in $models; do
    out=$(one "$name" "$m" 2>&1); rc=$?
    line=$(grep -m1 "^genmc -" <<< "$out")
    verdict=$(sed -n 's/.*: \(Error: [^;]*\|No errors[^;]*\|no verdict[^;]*\);.*/\1/p' <<< "$line")
    execs=$(sed -n 's/.*; \([0-9?]*\) executions;.*/\1/p' <<< "$line")
    cpu=$(sed -n 's/.*cpu \([0-9.]*\) s.*/\1/p' <<< "$line")
    [ $rc -eq 0 ] && v="caught: ${verdict:-?}" || v="**not caught** (${verdict:-exit $rc})"
    echo "| $name | $m | $v | ${execs:-?} | ${cpu:-?} |"
  done
done
