# Sourced by tests/fleet/*.sh after `set -u`: $src (the source tree), the counters failures and
# checks, fail and check as in tests/lib/cli.sh, and fleet_install WHAT: installs the fleet
# packages (scripts/install-deps.sh --fleet) or exits 77 saying WHAT could not be installed.
src=${PB_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); if ! eval "$1"; then fail "$2"; fi; }
fleet_install() { # WHAT
	local log
	log=$(mktemp)
	if ! bash "$src/scripts/install-deps.sh" --fleet >"$log" 2>&1; then
		echo "SKIP: cannot install $1: $(tail -3 "$log")"
		rm -f "$log"
		exit 77
	fi
	rm -f "$log"
}
# the closing line: counts, and the exit status
fleet_verdict() {
	echo "$checks checks, $failures failures"
	[ "$failures" -eq 0 ]
}
