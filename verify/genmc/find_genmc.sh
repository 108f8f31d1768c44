# SPDX-License-Identifier: MIT
# Sourced by run.sh and litmus.sh (with $src the checkout's root): sets
# $genmc to GenMC's program -- $CLOF_GENMC, else the bundle's earlier
# install, else ../shared/vendor/genmc/install.sh's (one install however
# many tests start at once) -- and $ginc to its include folder.  Without
# GenMC it exits 77 with one line saying how to get it, or 1 under
# CLOF_REQUIRE_GENMC=1 (CI).
genmc=${CLOF_GENMC:-}
default=$HOME/.cache/genmc-0.10.3/bin/genmc
installer=$src/../shared/vendor/genmc/install.sh
if [ -z "$genmc" ] && [ -x "$default" ]; then genmc=$default; fi
if [ -z "$genmc" ] && [ -x "$installer" ]; then
  genmc=$(flock "${TMPDIR:-/tmp}/clof-genmc-install.lock" "$installer" 2>/dev/null | tail -1)
fi
if [ -z "$genmc" ] || [ ! -x "$genmc" ]; then
  msg="GenMC not found: set CLOF_GENMC=/path/to/genmc, or install GenMC 0.10.3 (https://github.com/MPI-SWS/genmc) -- skipped"
  if [ "${CLOF_REQUIRE_GENMC:-0}" = 1 ]; then echo "FAIL: $msg (CLOF_REQUIRE_GENMC=1)"; exit 1; fi
  echo "$msg"; exit 77
fi
ginc=$(cd "$(dirname "$genmc")/../include" 2>/dev/null && pwd)
