# SPDX-License-Identifier: MIT
# Sourced by run.sh and litmus.sh (with $src the checkout's root): sets
# $genmc to GenMC's program -- $CLOF_GENMC, else `genmc` on PATH -- and
# $ginc to its include folder.  GenMC is optional (no registry serves it;
# docs/genmc.md says how to install it): without it this exits 77 (ctest:
# skipped) with one line saying so, or 1 where a user asks for it with
# CLOF_REQUIRE_GENMC=1.
genmc=${CLOF_GENMC:-}
if [ -z "$genmc" ]; then genmc=$(command -v genmc 2>/dev/null || true); fi
if [ -z "$genmc" ] || [ ! -x "$genmc" ]; then
  msg="GenMC not installed: set CLOF_GENMC=/path/to/genmc or put genmc on PATH (docs/genmc.md) -- skipped"
  if [ -n "${CLOF_GENMC:-}" ]; then msg="CLOF_GENMC=$CLOF_GENMC is not an executable program -- skipped"; fi
  if [ "${CLOF_REQUIRE_GENMC:-0}" = 1 ]; then echo "FAIL: $msg (CLOF_REQUIRE_GENMC=1)"; exit 1; fi
  echo "$msg"; exit 77
fi
ginc=$(cd "$(dirname "$genmc")/../include" 2>/dev/null && pwd)
