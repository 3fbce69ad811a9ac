#!/usr/bin/env bash
# `pesbench run` as a user drives it: results written and loadable, losses and multiplexing
# in every row, exact facilities exact, interruption leaves valid partial results, bad input
# gets its documented exit code.
set -u
bin=${PB_BIN:?run through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { if "$@"; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAILED: $*" >&2; fi; }
expect_exit() { # code, then the command
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" = "$want" ]; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAILED: exit $got, wanted $want: $*" >&2; cat "$tmp/err" >&2; fi
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }

source "$(dirname "$0")/lib/verdict.sh"

# The exact facility the suite runs on: breakpoints where they work, else uprobes. Breakpoints
# that the kernel accepts and never fires (one of our VM kinds, or injected) must be skipped
# with their verdict, never measured.
bp_verdict=$(facility_verdict bp)
if inert_injected; then
  check test "$bp_verdict" = inert
fi
if [ "$bp_verdict" = works ]; then
  ex=bp:w
else
  ex=uprobe
  facility_works uprobe || { echo "SKIPPED: no exact facility works here (bp $bp_verdict, uprobe $(facility_verdict uprobe))" >&2; exit 77; }
  # the suite on bp: skipped with the verdict, no point measured on it
  expect_exit 3 "$bin" run accuracy --facility bp:w --runs 1 --threads 1 --target-ms 10 --out "$tmp/inert" --quiet
  check grep -q "skipping bp:w: self-test $bp_verdict" "$tmp/err"
  check json "$tmp/inert/results.json" "
assert not [p for p in d['points'] if p.get('facility')=='bp:w']
s=[x for x in d['skipped'] if x['facility']=='bp:w']
assert s and 'self-test $bp_verdict' in s[0]['reason'], d['skipped']
assert [f for f in d['machine']['facilities'] if f['name']=='bp'][0]['verdict']=='$bp_verdict'
"
  expect_exit 3 "$bin" measure --facility bp:w
  check grep -q "bp:w: self-test $bp_verdict" "$tmp/err"
fi

# a small real suite
expect_exit 0 "$bin" run accuracy bias multi --facility $ex --runs 2 --threads 1 --target-ms 15 --out "$tmp/a" --quiet
check test -s "$tmp/a/results.json"
check test -s "$tmp/a/results.csv"
check json "$tmp/a/results.json" "assert d['schema']=='pesbench-results/2' and d['complete'] is True"
# what else the machine did while the suite ran, each figure with its interval (docs/results.md)
check json "$tmp/a/results.json" "assert d['other_load_cpus']>=0 and d['other_load_cpus_ci95']>0 and d['load_cpus']>0 and 0<=d['steal_pct']<=100 and d['steal_ci95_pp']>0, d"
# how fast the CPUs ran: a probe on each CPU at the start and after each of the 3 experiments
# (src/runner/cpu_speed.h), the slowest ratio no less than 1, and the sentence the summary shows
check json "$tmp/a/results.json" "
import os
n=len(os.sched_getaffinity(0))
assert d['cpu_speed_probes']==4*n and 0<=d['cpu_speed_slower_probes']<=d['cpu_speed_probes'], d
assert d['cpu_speed_slowest_ratio']>=1 and d['units']['cpu_speed_slowest_ratio']=='ratio', d
assert d['cpu_speed_note'].startswith('A fixed loop'), d"
# every figure with a unit says it in the document: the units object, by field name
check json "$tmp/a/results.json" "assert d['units']['accuracy']=='%' and d['units']['wall_ns']=='ns' and d['units']['running_ratio']=='ratio' and d['units']['lost_total']=='samples' and 'period' not in d['units']"
# every measured point: accuracy 100 for the exact facility, loss and multiplexing present per run
check json "$tmp/a/results.json" "
pts=[p for p in d['points'] if 'runs' in p and p['experiment']=='accuracy']
assert pts
for p in pts:
    assert abs(p['metrics']['accuracy']['mean']-100)<1e-9, p['metrics']
    for r in p['runs']:
        for e in r['events']:
            assert 'lost' in e and 'lost_format' in e and 'multiplexed' in e and 'running_ratio' in e
"
# multi: the fifth debug register cannot be scheduled and says so
if [ "$ex" = bp:w ]; then
check json "$tmp/a/results.json" "
m=[p for p in d['points'] if p['experiment']=='multi']
assert m[-1]['events_opened_together']==5 and m[-1]['events_scheduled']==4, m[-1]
e=m[-1]['runs'][0]['events'][4]
assert e['opened'] is False and 'No space' in e['open_error']
"
# bias at period 4 over 4 accesses per iteration puts every sample on one load
check json "$tmp/a/results.json" "
b=[p for p in d['points'] if p['experiment']=='bias' and p['period']==4 and p['variant']=='plain']
assert b and abs(b[0]['metrics']['max_deviation']-75)<1e-6, b[0]['metrics']
"
else
  skip_checks 2 "bp: self-test $bp_verdict (the fifth debug register and bias aliasing need breakpoints)"
  # multi on uprobes: every copy opened and scheduled
  check json "$tmp/a/results.json" "
m=[p for p in d['points'] if p['experiment']=='multi']
assert m and all(p['events_scheduled']==p['events_opened_together'] for p in m), m
"
fi
# one CSV row per run
rows=$(($(wc -l <"$tmp/a/results.csv") - 1))
runs=$(json "$tmp/a/results.json" "print(sum(len(p.get('runs',[])) for p in d['points']))")
check test "$rows" = "$runs"

# the end of a run: the scorecard first, at most 100 columns, no per-point table; in one log of
# stdout and stderr (as `make run >log 2>&1` writes) it stays whole, the closing line comes
# after it, even when stdout's buffer (64 bytes here) is far shorter, and the last line names
# report.html
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  stdbuf -o64 "$bin" run accuracy --facility $ex --runs 1 --threads 1 --target-ms 10 \
  --out "$tmp/b" >"$tmp/log" 2>&1
code=$?
check test "$code" = 0
family=${ex%%:*}
check grep -q "^Scorecard" "$tmp/log"
check grep -q "^$family .*works" "$tmp/log"
check test "$(grep -v '^skipping ' "$tmp/log" | LC_ALL=C.UTF-8 wc -L)" -le 100
check awk '/^Scorecard/ { card = 1; next }
  card && /^suite done/ { done = 1; next }
  card && !done && /^accuracy / { bad = 1 }
  END { exit !(card && done && !bad) }' "$tmp/log"
check test "$(tail -n1 "$tmp/log")" = "report: $tmp/b/report.html (every experiment's figures and plots)"
check json "$tmp/b/results.json" "
c=[e for e in d['scorecard'] if e['facility']=='$family']
assert c and c[0]['measured'] is True and c[0]['summary'], d['scorecard']
w=c[0]['accuracy_worst']
assert set(w) >= {'value','lo','hi','unit','resolved'}, w
"
# a second run into the same folder is refused and leaves the first run's files alone
before=$(md5sum <"$tmp/b/results.json")
expect_exit 4 "$bin" run accuracy --facility $ex --runs 1 --threads 1 --target-ms 10 --out "$tmp/b"
check grep -q "already holds results" "$tmp/err"
check test "$(md5sum <"$tmp/b/results.json")" = "$before"

# interrupted mid-suite: exit 130, valid partial results marked incomplete
"$bin" run --facility uprobe --facility sw:page-faults --runs 5 --target-ms 200 --out "$tmp/c" --quiet &
pid=$!
sleep 4
kill -INT $pid
wait $pid; code=$?
check test "$code" = 130
check json "$tmp/c/results.json" "assert d['complete'] is False and d['schema']=='pesbench-results/2'"
check test -z "$(find "$tmp/c" -name '*.tmp.*')"

# An experiment that fails on a facility: with samples whose signals cannot be routed to a
# thread (tests/preload/no_signal_routing.c), the timer passes its self-test and fails the one
# --delivery signal runs again. The run goes on, says each failure on stderr (under --quiet too:
# a batch job's log is where it is looked for), writes it as the point's error, and exits 1 with
# its results complete: every point was tried, two were not measured.
no_signals=(env "LD_PRELOAD=$PB_BUILD_DIR/libpb_no_signal_routing.so${LD_PRELOAD:+ $LD_PRELOAD}"
  "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
failing=(run accuracy overhead --facility timer --delivery signal --runs 1 --threads 1
  --target-ms 10)
expect_exit 1 "${no_signals[@]}" "$bin" "${failing[@]}" --out "$tmp/f" --quiet
check test ! -s "$tmp/out"
for x in accuracy overhead; do
  check grep -q "^pesbench run: $x on timer failed: timer: self-test refused: cannot route" \
    "$tmp/err"
done
check json "$tmp/f/results.json" "
assert d['complete'] is True, d['complete']
assert d['exit_code'] == 1, d.get('exit_code')
got=sorted((p['experiment'], 'cannot route signals' in p.get('error', '')) for p in d['points'])
assert got==[('accuracy', True), ('overhead', True)], got"
check python3 -c "
import json, sys
done = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert done['record']=='done' and done['exit_code']==1 and done['complete'] is True, done
" "$tmp/f/results.jsonl"
# and a fleet's comparison of the two runs' records says so of each, as does one of the folder
# (its results.json's exit_code) beside the records
expect_exit 0 "$bin" compare "$tmp/f/results.jsonl" "$tmp/f/results.jsonl"
check test "$(grep -c ', exit 1 (a point FAILED)$' "$tmp/out")" = 2
expect_exit 0 "$bin" compare "$tmp/f" "$tmp/f/results.jsonl"
check test "$(grep -c ', exit 1 (a point FAILED)$' "$tmp/out")" = 2
# without --quiet the closing line counts them
expect_exit 1 "${no_signals[@]}" "$bin" "${failing[@]}" --out "$tmp/g"
check grep -q "^suite done in [0-9.]* s, 2 points FAILED (above); results in $tmp/g/" "$tmp/err"
# the failures wrapped at 100 columns (the closing lines hold the folder's path, as long as it is)
check test "$(grep -v '^suite done\|^report: ' "$tmp/err" | LC_ALL=C.UTF-8 wc -L)" -le 100

# bad input
expect_exit 2 "$bin" run --runs 0 --out "$tmp/d"
check grep -q "too small" "$tmp/err"
expect_exit 2 "$bin" run nosuchexperiment --out "$tmp/d"
check grep -q "unknown experiment" "$tmp/err"
expect_exit 2 "$bin" run --facility nosuch:thing --out "$tmp/d"
check grep -q "unknown facility" "$tmp/err"
expect_exit 2 "$bin" run --period -5 --out "$tmp/d"
expect_exit 2 "$bin" run --threads 999 --out "$tmp/d"
check grep -q "CPUs" "$tmp/err"
expect_exit 3 "$bin" run accuracy --facility spe --out "$tmp/e"
check grep -qi "not available\|none of the chosen" "$tmp/err"
touch "$tmp/file"
expect_exit 4 "$bin" run accuracy --facility $ex --out "$tmp/file/sub"
expect_exit 2 "$bin" measure --facility bp:w --workload nosuch
expect_exit 2 "$bin" measure
check grep -q "facility is required" "$tmp/err"

# measure --json: drain mode reports its collector thread's CPU time (the engine's own cost,
# which bench/peer.sh compares with perf record's); the modes without a collector do not
expect_exit 0 "$bin" measure --facility timer:cpu-clock --period 100000 --delivery drain \
  --workload busy --iterations 20000000 --json
check json "$tmp/out" "assert d['delivery']=='drain' and d['collector_cpu_ns'] > 0, d"
expect_exit 0 "$bin" measure --facility timer:cpu-clock --period 100000 --delivery none \
  --workload busy --iterations 20000000 --json
check json "$tmp/out" "assert d['delivery']=='none' and 'collector_cpu_ns' not in d, d"

echo "cli_run: $passed passed, $failed failed"
[ "$failed" = 0 ]
