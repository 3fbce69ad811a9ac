#!/bin/bash
# `pesbench workloads` and `pesbench verify` as a user runs them: the listing (text and JSON),
# usage errors, and verify on small iteration counts for every workload with the uprobe,
# breakpoint and callgrind oracles. Skips (77) only when uprobes or valgrind cannot run here.
set -u
. "$(dirname "$0")/lib/cli.sh"

# --- the listing ---
expect_exit 0 "workloads" "$PB_BIN" workloads
for w in accuracy bias mix mode shadow latency-biased call-chain busy; do
	check "grep -q '^$w ' '$work/out'" "workloads lists $w"
done
check "grep -q 'ASSUMPTION: the chasing load misses L1' '$work/out'" "accuracy states its assumption"
check "grep -q 'Sattolo' '$work/out'" "the assumption gives the shuffle"
expect_exit 0 "workloads --json" "$PB_BIN" workloads --json
check "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d)==8; \
assert [w for w in d if w[\"name\"]==\"mix\"][0][\"per_iteration\"][\"locked\"]==2' '$work/out'" \
	"JSON listing parses, 8 workloads, mix declares 2 locked ops"
expect_exit 0 "workloads with parameters" "$PB_BIN" workloads accuracy:ratio=100
check "grep -q 'instructions=100 ' '$work/out'" "ratio=100 declares 100 instructions per iteration"
expect_exit 2 "unknown workload" "$PB_BIN" workloads nosuch
check "grep -q 'known: accuracy' '$work/err'" "unknown workload lists the valid ones"

# --- verify usage ---
expect_exit 2 "verify: ratio below 5" "$PB_BIN" verify accuracy:ratio=4
check "grep -q 'outside 5..1000' '$work/err'" "the range is named"
expect_exit 2 "verify: bad iterations" "$PB_BIN" verify busy --iterations 0
expect_exit 2 "verify: unknown option" "$PB_BIN" verify --frobnicate
expect_exit 0 "verify --help" "$PB_BIN" verify --help
check "grep -q -- '--no-callgrind' '$work/out'" "help names --no-callgrind"

# --- verify itself ---
if ! grep -qx uprobe <(ls /sys/bus/event_source/devices 2>/dev/null); then
	echo "SKIPPED: no uprobe PMU on this kernel"; exit 77
fi
if [ "$(id -u)" != 0 ]; then
	echo "SKIPPED: uprobe perf events need root (CAP_SYS_ADMIN)"; exit 77
fi
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIPPED: valgrind is not installed (apt install valgrind)"; exit 77
fi

expect_exit 0 "verify every workload (default set)" "$PB_BIN" verify --iterations 400
check "grep -q ' 0 mismatches' '$work/out'" "no mismatches"
# A sanitizer build cannot run under valgrind; verify says so and checks the rest.
callgrind=yes
if grep -q 'callgrind: this pesbench is built with AddressSanitizer' "$work/out"; then
	echo "note: callgrind not checked: $PB_BIN is a sanitizer build"
	callgrind=no
fi
for w in accuracy bias mix mode shadow latency-biased call-chain busy; do
	check "grep -q '^$w .* uprobe .* ok\$' '$work/out'" "$w checked by uprobe"
	[ $callgrind = yes ] &&
		check "grep -q '^$w .* callgrind .* ok\$' '$work/out'" "$w checked by callgrind"
done
source "$PB_SOURCE_DIR/tests/lib/verdict.sh"
bp_verdict=$(facility_verdict bp)
if [ "$bp_verdict" = works ]; then
	check "grep -q ' bp:rw .* ok\$' '$work/out'" "breakpoint rows present"
else
	# no breakpoint row, and the oracle is named as not run, with its verdict
	check "! grep -q ' bp:rw .* ok\$' '$work/out'" "no breakpoint rows where bp is $bp_verdict"
	check "grep -q 'bp:w: self-test $bp_verdict' '$work/out'" "verify names the unusable oracle"
	skip_checks 1 "bp: self-test $bp_verdict (breakpoint rows)"
fi
check "grep -q 'page faults in user mode' '$work/out'" "mode checked by page-fault counts"
hw_verdict=$(facility_verdict hw)
if [ "$hw_verdict" = works ]; then
	for w in accuracy bias mix mode shadow latency-biased call-chain busy; do
		check "grep -q '^$w .* hw:instructions .* ok\$' '$work/out'" "$w checked by hw:instructions"
	done
else
	# no PMU here: no instruction-count row, and the oracle is named as not run, with why
	check "! grep -q ' hw:instructions .* ok\$' '$work/out'" "no hw:instructions rows where hw is $hw_verdict"
	check "grep -q '^hw:instructions: ' '$work/out'" "verify names the hw:instructions oracle it could not use"
	skip_checks 8 "hw: $hw_verdict (hw:instructions rows)"
fi

# --json: the same checks as one JSON object, the oracles not run named with why
expect_exit 0 "verify --json" "$PB_BIN" verify accuracy mix --iterations 200 --no-callgrind --json
check "python3 - '$work/out' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['checks'] == len(d['rows']) > 0 and d['mismatches'] == 0, d
rows = {(r['workload'], r['oracle'], r['what']): r for r in d['rows']}
r = rows[('accuracy', 'uprobe', 'pb_wl_accuracy_chase')]
assert r['declared'] == r['measured'] == 200 and r['ok'] and r['address'].startswith('0x'), r
assert all(r['ok'] for r in d['rows']), d
assert isinstance(d['not_run'], list) and all(isinstance(x, str) and x for x in d['not_run']), d
PY" "verify --json: every row, 200 chasing loads counted by the uprobe, not_run a list"

expect_exit 0 "verify on two threads without callgrind" "$PB_BIN" verify mix accuracy:ratio=37 \
	--iterations 300 --threads 2 --no-callgrind
check "! grep -q callgrind '$work/out'" "--no-callgrind runs no callgrind"
expect_exit 0 "verify --no-hw" "$PB_BIN" verify busy --iterations 50 --no-callgrind --no-hw
check "! grep -q 'hw:instructions' '$work/out'" "--no-hw runs no hw:instructions oracle and names none"

# The hidden run-once prints link-time label addresses, then runs the loop.
expect_exit 0 "verify --run-once" "$PB_BIN" verify --run-once busy --iterations 10
check "grep -q '^pb-label 0 pb_wl_busy_back 0x' '$work/out'" "run-once names the labels"

echo "cli_verify: $checks checks, $failures failures"
[ "$failures" = 0 ]
