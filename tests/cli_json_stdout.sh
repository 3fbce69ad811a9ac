#!/bin/bash
# The --json output of a command either all reaches standard output or the command says it did
# not: with stdout on a full device each exits 4 (output unwritable) and names the failure on
# stderr, instead of exiting 0 with the JSON lost in a buffer. The same commands on a writable
# stdout exit 0 with JSON that parses, so the failure is the device's.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
FIX="$PB_SOURCE_DIR/tests/fixtures"
[ -w /dev/full ] || { echo "no writable /dev/full here"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

commands=(
	"probe --json --root $FIX/sysfs-zen4"
	"facilities --json"
	"workloads --json"
	"attr ibs-op --root $FIX/sysfs-zen4 --json"
	"compare $FIX/results-v1 $FIX/results-v1 --json"
)
for c in "${commands[@]}"; do
	# shellcheck disable=SC2086 # the words of c are the command's arguments
	"$PB_BIN" $c >"$work/out" 2>"$work/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "pesbench $c: exit $rc on a writable stdout ($(head -c 300 "$work/err"))"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/out" 2>/dev/null ||
		fail "pesbench $c: stdout is not JSON"
	# shellcheck disable=SC2086
	"$PB_BIN" $c >/dev/full 2>"$work/err"
	rc=$?
	[ "$rc" -eq 4 ] || fail "pesbench $c >/dev/full: exit $rc, want 4"
	grep -q "cannot write the JSON to standard output" "$work/err" ||
		fail "pesbench $c >/dev/full: stderr does not say so: $(head -c 300 "$work/err")"
done
[ "$failures" -eq 0 ] || exit 1
echo "json to stdout: ${#commands[@]} commands checked"
