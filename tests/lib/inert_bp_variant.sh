#!/usr/bin/env bash
# Runs a test's `_inert_bp` copy: the test with breakpoints made inert on purpose (LD_PRELOAD of
# pb_inert_breakpoints, PB_INJECT=inert-breakpoints), so that a machine whose breakpoints fire
# proves pesbench's behaviour on the VM kind whose breakpoints never do.
# On that kind itself the test's plain run already is the inert run, on the real thing, and
# the copy would repeat it (37 copies, ~44 % of the tests' time): it is skipped with that
# reason, which make check counts. Skipped only when pesbench's own self-test, run without the
# preload, says "inert"; any other answer, or none, runs the copy.
# Usage: inert_bp_variant.sh COMMAND [ARGS...]
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
. "$(dirname "$0")/verdict.sh"
# facility_verdict prints nothing when pesbench fails or its JSON does not parse
native=$(unset LD_PRELOAD PB_INJECT; facility_verdict bp 2>/dev/null)
if [ "$native" = inert ]; then
	echo "SKIPPED TEST: this machine's breakpoints are inert (pesbench probe, no preload):" \
		"the test's plain run is the inert run"
	exit 77
fi
exec "$@"
