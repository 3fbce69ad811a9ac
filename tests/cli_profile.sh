#!/bin/bash
# `pesbench profile` as a user runs it: usage errors with their exit codes (no command, a
# script instead of an ELF program, valgrind missing, a bad period method), and one real
# program from a Debian package (gzip on a generated file) with a randomised period, whose
# output must give the three levels and the period changes. Skips (77) when gzip or
# valgrind is missing or sampling is not permitted.
set -u
. "$(dirname "$0")/lib/cli.sh"

# --- usage errors (exit codes of util/error.h: 2 usage, 3 unavailable) ---
expect_exit 2 "no command" "$PB_BIN" profile
check "grep -q 'no command to profile' '$work/err'" "missing command is named"
expect_exit 2 "bad method" "$PB_BIN" profile --period-method fixed -- /bin/true
check "grep -q 'round, prime, random' '$work/err'" "bad method lists the valid ones"
printf '#!/bin/sh\necho hi\n' >"$work/script.sh"
chmod +x "$work/script.sh"
expect_exit 2 "script target" "$PB_BIN" profile -- "$work/script.sh"
check "grep -q 'is not an ELF executable' '$work/err'" "non-ELF target is named"
expect_exit 2 "missing target" "$PB_BIN" profile -- pesbench-no-such-program
check "grep -q 'not found in PATH' '$work/err'" "missing target is named"
gzip_bin=$(command -v gzip || true)
if [ -n "$gzip_bin" ]; then
	# valgrind missing: a PATH without it, the program given by its full path
	expect_exit 3 "valgrind missing" env PATH=/nonexistent "$PB_BIN" profile -- "$gzip_bin" -c /dev/null
	check "grep -q 'valgrind is not on PATH' '$work/err'" "missing valgrind is named"
fi
expect_exit 0 "help" "$PB_BIN" profile --help
check "grep -q 'period-method' '$work/out'" "help names the options"

if [ -z "$gzip_bin" ] || ! command -v valgrind >/dev/null; then
	echo "SKIP: gzip or valgrind missing ($checks checks, $failures failures)"
	[ "$failures" = 0 ] || exit 1
	exit 77
fi

# --- a real program: gzip, randomised timer periods ---
head -c 1500000 /dev/urandom | base64 >"$work/input.txt"
"$PB_BIN" profile --period 50000 --period-method random --seed 7 --top 5 -- \
	gzip -c "$work/input.txt" >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" = 3 ]; then
	echo "SKIP: sampling not permitted here: $(cat "$work/err")"
	exit 77
fi
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "profile gzip: exit $rc ($(head -c 300 "$work/err"))"
cat "$work/out"
for level in instruction 'basic block' function; do
	check "grep -Eq '^  $level +[0-9.]+ %' '$work/out'" "gzip: the $level error is printed"
done
check "tr -s '\n ' '  ' <'$work/out' | grep -q 'random: new period in \[P/2, 3P/2\]'" \
	"the method is stated"
check "! grep -E '^.{101}' '$work/out' | grep -v -e '^ *[0-9.]\+ \+[0-9.]\+ ' -e '^ *exact %'" \
	"no line but the table's wider than 100 columns"
check "grep -Eq 'period changes: [1-9][0-9]* applied, 0 refused' '$work/out'" "periods changed"
check "grep -q 'compared are shares' '$work/out'" "timer comparison of shares is stated"
check "grep -q 'gzip' '$work/out'" "the table names gzip's object"
check "grep -Eq '^ +exact % +sampled % +± pp +diff pp' '$work/out'" \
	"the table has the shares' interval"
check "grep -Eq '^± pp: +95 % interval of the sampled share(, from 20 batches|, binomial: too)' \
'$work/out'" "the table says how the shares' interval is made"

# JSON: the three levels, in range
"$PB_BIN" profile --json --period 100000 --period-method prime -- gzip -c "$work/input.txt" \
	>"$work/json" 2>"$work/err"
checks=$((checks + 1))
[ "$?" = 0 ] || fail "profile --json: $(head -c 300 "$work/err")"
check "python3 -c 'import json,sys; d=json.load(open(\"$work/json\")); \
assert d[\"period\"] == 100003 and d[\"period_method\"] == \"prime\"; \
assert all(0 <= d[k][\"error_percent\"] <= 200 for k in (\"instruction\", \"basic_block\", \"function\")); \
assert d[\"samples\"] > 0 and d[\"exact_instructions\"] > 0'" "JSON has the three levels"
check "python3 -c 'import json; d=json.load(open(\"$work/json\")); \
assert d[\"share_ci95_batches\"] == (20 if d[\"samples\"] >= 200 else 0); \
f = d[\"top_functions\"]; assert f and all(0 < x[\"sampled_share_ci95_pp\"] <= 100 for x in f)'" \
	"JSON: every share has its interval, and the batches it is made from"

# A run too short for shares (issue 21): fewer than 10 samples give no error, and say so
"$PB_BIN" profile --json -- /bin/true >"$work/json" 2>"$work/err"
checks=$((checks + 1))
[ "$?" = 0 ] || fail "profile --json /bin/true: $(head -c 300 "$work/err")"
check "python3 -c 'import json; d=json.load(open(\"$work/json\")); \
assert d[\"too_few_samples\"] == (d[\"samples\"] < 10); \
assert all((d[k] is None) == d[\"too_few_samples\"] for k in (\"instruction\", \"function\")); \
assert d[\"samples\"] >= 200 or d[\"share_ci95_batches\"] == 0'" \
	"too few samples: no error in the JSON, and marked"
"$PB_BIN" profile -- /bin/true >"$work/out" 2>"$work/err"
check "grep -q 'not given: too few samples' '$work/out' || grep -Eq '^  function +[0-9.]+ %' '$work/out'" \
	"too few samples: the text says so instead of an error"
check "! grep -qi 'nan' '$work/out'" "no nan printed"

# A user's own recording: perf record of the same command, read through --perf-data.
if command -v perf >/dev/null && perf record -q -e cpu-clock -c 100000 -o "$work/perf.data" -- \
	gzip -c "$work/input.txt" >/dev/null 2>"$work/err"; then
	expect_exit 0 "profile --perf-data" "$PB_BIN" profile --perf-data "$work/perf.data" -- \
		gzip -c "$work/input.txt"
	check "grep -q 'perf.data ([1-9][0-9]* user samples)' '$work/out'" "perf.data samples are read"
	check "grep -Eq '^  function +[0-9.]+ %' '$work/out'" "perf.data: the function error is printed"
	printf 'not a perf.data file at all, just text' >"$work/bad.data"
	expect_exit 6 "corrupt perf.data" "$PB_BIN" profile --perf-data "$work/bad.data" -- \
		gzip -c "$work/input.txt"
else
	echo "note: perf record cannot run here; --perf-data not exercised"
fi

echo "$checks checks, $failures failures"
[ "$failures" = 0 ]
