# Shared by the tests/cli_*.sh scripts that drive pesbench as a user would; source it after
# `set -u`. Gives $work (a scratch folder removed on exit), the counters failures and checks,
# and:
#   fail MESSAGE                     count a failure and say why
#   check 'SHELL CONDITION' MESSAGE  count a check; fail with MESSAGE when the condition is false
#   check_explained COND MESSAGE CMD as check, CMD's output added to MESSAGE on failure only
#   expect_exit CODE WHAT CMD...     run CMD (output in $work/out, $work/err); fail unless it
#                                    exits CODE
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
failures=0
checks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); if ! eval "$1"; then fail "$2"; fi; }
# check_explained 'CONDITION' MESSAGE 'COMMAND': as check, with COMMAND's output after MESSAGE,
# run only when the condition is false (evidence too dear to gather for every passing check)
check_explained() {
	checks=$((checks + 1))
	if ! eval "$1"; then fail "$2: $(eval "$3")"; fi
}
expect_exit() {
	local want=$1 what=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	local got=$?
	checks=$((checks + 1))
	[ "$got" = "$want" ] || fail "$what: exit $got, expected $want ($(head -c 300 "$work/err"))"
}
