# Sourced by the CLI tests: what this machine's facilities are worth, asked from pesbench's own
# self-test (`pesbench probe --json`), so that no test assumes a facility works.
#   facility_verdict NAME   works, inert, inexact, refused or absent
#   facility_works NAME     true when its self-test passed
#   skip_checks N REASON    prints "SKIPPED N checks: REASON" (make check sums these lines)
#   inert_injected          true when the test runs with breakpoints made inert on purpose
facility_verdict() {
	"$PB_BIN" probe --json | python3 -c 'import json,sys
d=json.load(sys.stdin)
print([f["verdict"] for f in d["facilities"] if f["name"]==sys.argv[1]][0])' "$1"
}
facility_works() { [ "$(facility_verdict "$1")" = works ]; }
skip_checks() {
	local n=$1
	shift
	echo "SKIPPED $n checks: $*"
}
inert_injected() { [ "${PB_INJECT:-}" = inert-breakpoints ]; }
