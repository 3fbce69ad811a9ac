#!/bin/bash
# `pesbench compare` as a user runs it, on real runs of this machine and the /1 fixture of
# another machine (an AMD guest):
#  - every experiment's key figure is compared (accuracy, bias deviation, cost, overhead) with
#    a delta per cell; the /1 fixture's "timer" rows meet this run's "timer:cpu-clock" rows;
#  - two runs differing only in --delivery line up on the rest and say how they differ;
#  - results.jsonl: its last record is "done"; two folders concatenated as JSONL compare exactly
#    as the folders (text and JSON), and so do three;
#  - a point marked too_few_samples gives no figure; a scorecard in results.json is shown, its
#    absence tolerated;
#  - text ≤ 100 columns, JSON parses, the HTML page has a plot per figure; bad JSONL is exit 6
#    naming the line.
set -u
. "$(dirname "$0")/lib/cli.sh"
FIX=${PB_SOURCE_DIR:?}/tests/fixtures
# 25 ms of wall time a run: runs are sized on wall time, so on a loaded machine a run gets less
# CPU time (3.7 ms of 10 beside three busy loops, 37 samples at the timer's 100 us); at 10 ms
# a machine loaded further gave a row fewer than the 10 samples an accuracy needs, and no figure
short=(--facility timer --runs 2 --threads 1 --target-ms 25 --quiet)

. "$(dirname "$0")/lib/suite_run.sh"
ran() { # WHAT: the run suite_run made
	local got=$?
	check "[ $got = 0 ]" "$1: exit $got, expected 0 ($(head -c 600 "$work/err"))"
}
three=(accuracy bias overhead "${short[@]}")
suite_run "$work/out" "$work/err" "$work/a" "$PB_BIN" run "${three[@]}" --out "$work/a"
ran "run A"
suite_run "$work/out" "$work/err" "$work/b" "$PB_BIN" run "${three[@]}" --delivery signal \
	--out "$work/b"
ran "run B (--delivery signal)"
check "[ ! -s '$work/out' ]" "--quiet printed nothing on stdout: $(head -c 200 "$work/out")"
check "[ ! -s '$work/err' ]" "--quiet printed nothing on stderr: $(head -c 200 "$work/err")"
check "[ -s '$work/a/results.jsonl' ]" "run writes results.jsonl"
check "tail -1 '$work/a/results.jsonl' | grep -q '\"record\":\"done\".*\"exit_code\":0.*\"complete\":true'" \
	"results.jsonl ends with a done record (exit 0, complete)"

# a run stopped by SIGTERM (a batch system's time limit): its done record says so
"$PB_BIN" run accuracy --facility timer --runs 3 --threads 1 --target-ms 400 --quiet \
	--out "$work/term" </dev/null >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -e "$work/term" ] && break; sleep 0.1; done
# the folder exists once the self-tests are done; the handler is set just after
sleep 2
kill -TERM "$pid"
wait "$pid"
got=$?
check "[ $got = 130 ]" "SIGTERM: exit $got, expected 130"
check "tail -1 '$work/term/results.jsonl' | grep -q '\"record\":\"done\".*\"exit_code\":130.*\"complete\":false'" \
	"SIGTERM: results.jsonl ends with a done record of exit 130, incomplete"

# --- runs differing only in --delivery line up ---
expect_exit 0 "compare A B" "$PB_BIN" compare "$work/a" "$work/b"
cp "$work/out" "$work/ab.txt"
# What each run gave, for a failure's message: a CI on kind B (2026-11-28) failed the three
# checks below together, once in some 50 runs, and its log said nothing more.
evidence() {
	python3 - "$work/a" "$work/b" "$work/ab.txt" <<-'PY' 2>&1 | head -c 1500
	import collections, json, sys
	for run in sys.argv[1:3]:
	    figures = collections.Counter()
	    settings = collections.defaultdict(set)
	    for line in open(run + "/results.jsonl"):
	        r = json.loads(line)
	        if r.get("record") != "figure":
	            continue
	        figures[r["experiment"]] += 1
	        for k, v in r.get("settings", {}).items():
	            settings[k].add(json.dumps(v))
	    print(run.rsplit("/", 1)[1], r.get("run_id"), dict(figures),
	          {k: sorted(v) for k, v in settings.items()})
	    for p in json.load(open(run + "/results.json"))["points"]:
	        m = p.get("metrics", {})
	        if p["experiment"] in ("accuracy", "bias") and "accuracy" not in m:
	            print("  no accuracy:", p["workload"], p.get("note"), p.get("error"),
	                  {k: v for k, v in m.items() if k.endswith("_runs") and v})
	rows = ("timer:cpu-clock accuracy", "timer:cpu-clock bias")
	print("".join(l for l in open(sys.argv[3]) if "differ" in l or l.startswith(rows)))
	PY
}
check_explained "grep -q 'runs differ in delivery: A none B signal' '$work/ab.txt'" \
	"the delivery difference is named" evidence
# any of the accuracy rows: on kind B (2026-11-28) a calibration at times made a workload's
# runs too short for an accuracy, which both runs then say instead (a thread waiting for its
# CPU, now left out of calibration, or a vCPU pause the guest cannot see, which is not)
both='^timer:cpu-clock accuracy:ratio=[0-9]+[^|]*\| [0-9.]+±[0-9.]+ +\| [0-9.]+±[0-9.]+ Δ[-+]'
check_explained "grep -Eq '$both' '$work/ab.txt'" \
	"an accuracy row has both runs' figures and a delta" evidence
check "sed -n '/^== bias/,/^==/p' '$work/ab.txt' | grep -q 'bias_deviation'" \
	"the bias table compares the deviation"
check "grep -q 'overhead_time_pct' '$work/ab.txt'" "the overhead table compares overhead"
narrow() { # FILE: no line wider than 100 characters (UTF-8: ± and Δ are one column)
	python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$1"
}
speed='^       a fixed loop took up to [0-9.]* times its fastest time ([0-9]* of [0-9]* probes'
check "[ \$(grep -c '$speed' '$work/ab.txt') = 2 ]" \
	"each run says how fast its CPUs ran ($(grep -A3 '^    [AB] ' "$work/ab.txt"))"
check "narrow '$work/ab.txt'" "text no wider than 100 columns"
check "! grep -q ' $' '$work/ab.txt'" "no line ends in spaces"
# six runs (the same two folders three times: each naming is a run of its own) are split
"$PB_BIN" compare "$work/a" "$work/b" "$work/a" "$work/b" "$work/a" "$work/b" >"$work/six.txt" \
	2>"$work/six.err"
six_exit=$?
check "narrow '$work/six.txt'" "six runs: text no wider than 100 columns"
check "grep -q '^    F ' '$work/six.txt' && grep -Eq '^facility +\| [C-F] ' '$work/six.txt'" \
	"six runs are six columns, split into tables that fit (exit $six_exit: $(head -c 300 \
		"$work/six.err"); $(grep -E '^facility|^    [A-F] ' "$work/six.txt" | head -c 600))"

# --- the /1 fixture (\"timer\") against this run (\"timer:cpu-clock\") ---
expect_exit 0 "compare fixture A" "$PB_BIN" compare "$FIX/results-v1" "$work/a"
check "grep -Eq '^timer:cpu-clock accuracy:ratio=40[^|]*\| [0-9.]+±\? +\| [0-9.]+±[0-9.]+ Δ' '$work/out'" \
	"the fixture's timer rows meet timer:cpu-clock rows ($(grep -m2 'ratio=40' "$work/out"); A's point: $(python3 -c 'import json,sys; print([ (p.get("too_few_samples"), p.get("metrics", {}).get("too_few_samples_runs"), p.get("note")) for p in json.load(open(sys.argv[1]))["points"] if p["experiment"] == "accuracy" and p["workload"].startswith("accuracy:ratio=40")])' "$work/a/results.json" 2>&1 | head -c 400))"
check "grep -q 'AuthenticAMD 26/2' '$work/out' && grep -q 'GenuineIntel\|AuthenticAMD\|midr' '$work/out'" \
	"runs are grouped by CPU model"

# --- JSONL concatenated compares as the folders ---
"$PB_BIN" compare --records "$FIX/results-v1" >"$work/fix.jsonl" 2>"$work/err"
check "[ -s '$work/fix.jsonl' ]" "compare --records turns a folder into JSONL"
cat "$work/fix.jsonl" "$work/a/results.jsonl" >"$work/two.jsonl"
"$PB_BIN" compare "$FIX/results-v1" "$work/a" --json >"$work/folders.json"
"$PB_BIN" compare "$work/two.jsonl" --json >"$work/jsonl.json"
same_json() { python3 "$PB_SOURCE_DIR/tests/fleet/same_comparison.py" "$1" "$2"; }
check "same_json '$work/folders.json' '$work/jsonl.json'" \
	"two folders and their concatenated JSONL give the same comparison"
cat "$work/fix.jsonl" "$work/a/results.jsonl" "$work/b/results.jsonl" >"$work/three.jsonl"
"$PB_BIN" compare "$FIX/results-v1" "$work/a" "$work/b" --json >"$work/f3.json"
"$PB_BIN" compare "$work/three.jsonl" --json >"$work/j3.json"
check "same_json '$work/f3.json' '$work/j3.json'" "three folders and their JSONL agree"
check "python3 -c 'import json,sys; d=json.load(open(\"$work/f3.json\")); sys.exit(0 if len(d[\"runs\"])==3 and all(len(r[\"cells\"])==3 for t in d[\"tables\"] for r in t[\"rows\"]) else 1)'" \
	"three runs give three columns in every table"

# --- too few samples, scorecard ---
python3 - "$work/a/results.json" "$work/c/results.json" "$work/n/results.json" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
# a copy as an older build wrote it: no scorecard
old = dict(d, run_id="no-scorecard")
old.pop("scorecard", None)
os.makedirs(os.path.dirname(sys.argv[3]), exist_ok=True)
json.dump(old, open(sys.argv[3], "w"))
for p in d["points"]:
    if p["experiment"] == "accuracy" and p["workload"].startswith("accuracy:ratio=40"):
        p["too_few_samples"] = True
d["scorecard"] = [{"facility": "timer", "verdict": "works", "measured": True,
                   "summary": "use it for time profiles; not for instruction attribution"}]
d["run_id"] = "edited-copy"
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_exit 0 "compare with a scorecard" "$PB_BIN" compare "$work/a" "$work/c"
check "grep -q 'use it for time profiles' '$work/out'" "the scorecard is shown per machine"
check "grep -Eq '^timer:cpu-clock accuracy:ratio=40[^|]*\| [0-9.]+±[0-9.]+ +\| -( |$)' '$work/out'" \
	"a too-few-samples point gives no figure"
# a scorecard's summary is shown whole, wrapped under its column (cut at 75 characters, the
# timer's stopped at "use for time estimates to"); labels wider than the label column go on a
# line of their own, wrapped, and the runs' cells stay side by side
python3 - "$work/a/results.json" "$work/la/results.json" "$work/lc/results.json" <<'EOF2'
import json, os, sys
for out, run_id in ((sys.argv[2], "long-a"), (sys.argv[3], "long-c")):
    d = json.load(open(sys.argv[1]))
    for p in d["points"]:
        if p["workload"].startswith("accuracy:ratio=20"):
            p["workload"] = "program:xz -4 -T1 (256 KiB text of pseudo-words, the same every " \
                            "time) at a period long enough to need two lines " + p["workload"]
    d["scorecard"] = [{"facility": "timer", "verdict": "works", "measured": True,
                       "summary": "time-based (time estimates apply, counts do not): use for "
                       "time estimates to ±1.8 %, function-level profiles, sampling up to "
                       "2.41 kHz (cost below the 3.2 % timing noise); not for the-last-words"}]
    d["run_id"] = run_id
    os.makedirs(os.path.dirname(out), exist_ok=True)
    json.dump(d, open(out, "w"))
EOF2
expect_exit 0 "compare with long labels and summaries" "$PB_BIN" compare "$work/la" "$work/lc" \
	"$work/la"
check "grep -q 'not for the-last-words' '$work/out' && narrow '$work/out'" \
	"a long scorecard summary is whole, and no line is wider than 100 columns"
check "grep -Eq '^facility[^|]*\| A +\| B +\| C' '$work/out' &&
       ! grep -Eq '^facility[^|]*\| [BC] ' '$work/out'" \
	"three runs' cells stay side by side in every table (the label column gives way)"
expect_exit 0 "compare with a run that has no scorecard" "$PB_BIN" compare "$work/c" "$work/n"
check "grep -q 'no scorecard in its results' '$work/out'" "a run without scorecard is said so"

# --- HTML ---
expect_exit 0 "compare --html" "$PB_BIN" compare "$work/a" "$work/b" --html "$work/cmp.html"
check "[ \$(grep -c '<svg' '$work/cmp.html') -ge 3 ]" "the page has a plot per figure"
check "grep -q 'bias_deviation' '$work/cmp.html'" "the page has the bias table"

expect_exit 4 "compare --html into a missing folder" "$PB_BIN" compare "$work/a" "$work/b" \
	--html "$work/no/such/folder/cmp.html"
check "[ ! -s '$work/out' ]" "no comparison printed when the page cannot be written"

# --- bad input ---
printf '%s\n' "$(head -1 "$work/a/results.jsonl")" 'not json' >"$work/bad.jsonl"
expect_exit 6 "bad JSONL" "$PB_BIN" compare "$work/bad.jsonl" "$work/a"
check "grep -q 'line 2 is not a JSON object' '$work/err'" "the bad line is named"
echo '{"schema":"other/1","record":"figure"}' >"$work/other.jsonl"
expect_exit 6 "JSONL of another schema" "$PB_BIN" compare "$work/other.jsonl" "$work/a"
expect_exit 2 "one run" "$PB_BIN" compare "$work/a/results.jsonl"
check "grep -q 'two or more runs' '$work/err'" "one run explained"
expect_exit 6 "missing input" "$PB_BIN" compare "$work/nowhere.jsonl" "$work/a"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
