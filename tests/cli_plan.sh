#!/bin/bash
# `pesbench plan` as a user runs it: every bad input gets a clear message and its exit code
# (util/error.h), and with a constructed cost (a results.json holding a cost fit of 10000 ns
# per timer sample) the recommended period is exactly what the model gives: for a 10 % budget
# c (1 + b) / b = 110000 ns. The --check run is asserted for its output, never its timing.
set -u
. "$(dirname "$0")/lib/cli.sh"

loop=(sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done')
T=timer:cpu-clock

# --- bad input ---
expect_exit 2 "no command" "$PB_BIN" plan --facility $T --budget 5
check "grep -q 'no command to plan for' '$work/err'" "says the command is missing"
expect_exit 2 "no command after --" "$PB_BIN" plan --facility $T --budget 5 --
expect_exit 2 "budget 0" "$PB_BIN" plan --facility $T --budget 0 -- true
check "grep -q 'above 0' '$work/err'" "budget 0 explained"
expect_exit 2 "negative budget" "$PB_BIN" plan --facility $T --budget -3 -- true
expect_exit 2 "budget not a number" "$PB_BIN" plan --facility $T --budget lots -- true
expect_exit 2 "no budget" "$PB_BIN" plan --facility $T -- true
check "grep -q -- '--budget is required' '$work/err'" "missing budget explained"
expect_exit 2 "no facility" "$PB_BIN" plan --budget 5 -- true
expect_exit 2 "unknown facility" "$PB_BIN" plan --facility nosuch --budget 5 -- true
expect_exit 2 "bp needs an address" "$PB_BIN" plan --facility bp:w --budget 5 -- true
check "grep -q 'needs an address' '$work/err'" "bp refusal explained"
# The facilities plan takes are the registry's: --help lists the same names the refusal offers,
# bp (which needs an address) is not among them, and the help names no facility elsewhere.
offered=$(sed -n 's/.*samples a whole program (\(.*\)).*/\1/p' "$work/err")
"$PB_BIN" plan --help >"$work/plan_help" 2>&1
listed=$(sed -n '/^facilities that can sample a whole program:/,/^$/p' "$work/plan_help" |
	sed 's/^facilities that can sample a whole program://' | tr -s ' \n' ' ' | sed 's/^ //;s/ $//')
check "[ -n '$offered' ] && [ '$offered' = '$listed' ]" \
	"plan --help lists the facilities the refusal offers ('$listed' / '$offered')"
check "! grep -qw 'bp' <<<'$listed'" "plan --help leaves out a facility that needs an address"
check "[ \"\$(grep -v '^facilities that can sample\|^  [a-z]' '$work/plan_help' |
	grep -cE '(timer|pebs|ibs|spe)[:-]')\" -eq 0 ]" "plan --help names no facility outside the list"
expect_exit 2 "ring not a power of two" "$PB_BIN" plan --facility $T --budget 5 --ring 3 -- true
expect_exit 2 "command not found" "$PB_BIN" plan --facility $T --budget 5 -- /nonexistent/cmd
check "grep -q 'cannot run' '$work/err'" "not found explained"
check "! grep -q 'PATH' '$work/err'" "a path given is not said to be missing from PATH"
expect_exit 1 "command fails" "$PB_BIN" plan --facility $T --budget 5 -- false
check "grep -q 'exited with status 1' '$work/err'" "non-zero exit explained"

# --- costs from a results file ---
cat >"$work/costs.json" <<JSON
{"schema": "pesbench-results/1", "points": [
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "signal",
  "metrics": {"ns_per_sample": 99999, "ci95_ns": 10, "resolved": true}},
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "none",
  "metrics": {"ns_per_sample": 10000, "ci95_ns": 500, "r2": 0.8, "resolved": true}}]}
JSON
# A results folder, as compare and report take it.
mkdir -p "$work/folder" && cp "$work/costs.json" "$work/folder/results.json"
# A bare cost with nothing to check it by (issue 21 2e: it was taken as is).
cat >"$work/bare.json" <<JSON
{"schema": "pesbench-results/1", "points": [
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "none",
  "metrics": {"ns_per_sample": 10000}}]}
JSON
# A sweep whose run failed, with resolved: true beside the error (what a failed run left
# before issue 21 2b): the error wins.
cat >"$work/failed.json" <<JSON
{"schema": "pesbench-results/1", "points": [
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "none",
  "error": "perf_event_open failed: Input/output error",
  "metrics": {"ns_per_sample": 10000, "ci95_ns": 500, "resolved": true}}]}
JSON
# Unresolved, with the time a sweep would need to resolve it.
cat >"$work/slow.json" <<JSON
{"schema": "pesbench-results/1", "points": [
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "none",
  "metrics": {"ns_per_sample": 2100, "ci95_ns": 1700, "r2": 0.3, "resolved": false,
   "seconds_to_resolve": 250}}]}
JSON
# A fit the cost experiment marked unresolved (bp:w's kind of figures): plan refuses it.
cat >"$work/unresolved.json" <<JSON
{"schema": "pesbench-results/1", "points": [
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "none",
  "metrics": {"ns_per_sample": -16247, "ci95_ns": 178006, "r2": 0.027, "resolved": false}}]}
JSON
# Marked resolved by an older, looser rule (CI < slope) but 60 % wide: refused as well.
cat >"$work/loose.json" <<JSON
{"schema": "pesbench-results/1", "points": [
 {"experiment": "cost", "facility": "$T", "kind": "fit", "delivery": "none",
  "metrics": {"ns_per_sample": 10000, "ci95_ns": 6000, "r2": 0.95, "resolved": true}}]}
JSON
echo '{"schema": "pesbench-results/1", "points": []}' >"$work/empty.json"
echo '{"schema": "pesbench-res' >"$work/cut.json"
expect_exit 6 "no fit in costs file" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/empty.json" -- true
check "grep -q 'no cost fit' '$work/err'" "missing fit explained"
expect_exit 6 "corrupt costs file" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/cut.json" -- true

expect_exit 1 "unresolved fit in costs file" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/unresolved.json" -- true
check "grep -q 'did not resolve (-16247.0 ± 178006.0 ns per sample, R² 0.027' '$work/err'" "unresolved fit refused with its figures"
check "grep -q 'not measured precisely enough' '$work/err'" "unresolved fit: says it is not precise enough"
check "[ ! -s '$work/out' ]" "no plan printed from an unresolved fit"
expect_exit 1 "fit wider than 25 % in costs file" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/loose.json" -- true
check "grep -q 'did not resolve (10000.0 ± 6000.0 ns per sample, R² 0.950' '$work/err'" "a 60 % CI is refused"
expect_exit 6 "bare cost in costs file" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/bare.json" -- true
check "grep -q 'no resolution figures' '$work/err'" "a bare cost is refused, saying what is missing"
expect_exit 1 "failed sweep in costs file" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/failed.json" -- true
check "grep -q 'failed (perf_event_open failed: Input/output error)' '$work/err'" "the sweep's error is shown"
check "[ ! -s '$work/out' ]" "no plan printed from a failed sweep"
expect_exit 1 "unresolved with time to resolve" "$PB_BIN" plan --facility $T --budget 5 --costs "$work/slow.json" -- true
check "grep -q '~2.1 µs, 95 % CI 0.4–3.8 µs, not resolved to ±10 %' '$work/err'" "the estimate with its interval"
check "grep -q 'a cost sweep of about 250 s would resolve it' '$work/err'" "how long a sweep would need"

# --- the cost measured on the spot: either it resolves and there is a plan, or plan says it
# could not measure it precisely enough, with the figures. The machine decides which.
"$PB_BIN" plan --facility $T --budget 10 --runs 1 -- "${loop[@]}" >"$work/out" 2>"$work/err"
rc=$?
checks=$((checks + 1))
case $rc in
0)
	# a sweep of three periods or more gives the cost at the period, from its line by rate
	grep -Eq 'cost of a sample: *[0-9.]* ± [0-9.]* ns \(95 % CI; from a sweep just now\)' "$work/out" ||
		fail "sweep resolved but the plan does not give its cost"
	grep -q '^period: *[0-9]* ns' "$work/out" || fail "sweep resolved but no period"
	;;
1)
	echo "cli_plan: the sweep did not resolve here ($(tail -n 1 "$work/err" | head -c 200))"
	grep -q 'could not be measured precisely enough on this machine' "$work/err" ||
		fail "unresolved sweep: message missing ($(head -c 300 "$work/err"))"
	grep -Eq -- '-?[0-9.]+ ± [0-9.]+ ns per sample \(95 % CI\), R² -?[0-9.]+' "$work/err" ||
		fail "unresolved sweep: figures missing ($(head -c 300 "$work/err"))"
	# each way a refusal can end: a time to offer, more time than --cost-seconds allows, no
	# cost to size for, or a sweep that a longer one does not mend (the machine decides which)
	grep -Eq 'would resolve it: --cost-seconds [0-9]+|more than --cost-seconds allows|No cost was seen above the noise|a longer sweep does not mend' \
		"$work/err" || fail "unresolved sweep: no time to resolve ($(head -c 400 "$work/err"))"
	# what it offers is more than the 5 s it ran with (it once offered the 5 s back)
	offered=$(grep -o -- '--cost-seconds [0-9]*' "$work/err" | grep -o '[0-9]*$')
	[ -z "$offered" ] || [ "$offered" -gt 5 ] ||
		fail "unresolved sweep: offered --cost-seconds $offered, not more than the 5 s it had"
	[ -s "$work/out" ] && fail "unresolved sweep printed a plan"
	;;
*)
	fail "plan with a sweep: exit $rc, expected 0 or 1 ($(head -c 300 "$work/err"))"
	;;
esac

expect_exit 0 "plan" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --costs "$work/costs.json" -- "${loop[@]}"
check "grep -q '^period: *110000 ns' '$work/out'" "period = c (1+b)/b = 110000 ns ($(grep period "$work/out"))"
check "grep -q 'cost of a sample: *10000.0 ± 500.0 ns' '$work/out'" "the delivery-none fit is used, with its interval"
check "! grep -q '^  by rate' '$work/out'" "a fit without a rate model says nothing of one"
# the whole command, quoted as a shell takes it back (it said "sh ...")
check "grep -qF \"command:            sh -c 'i=0; while [ \\\$i -lt 30000 ]; do i=\\\$((i+1)); done'\" '$work/out'" "the whole command is shown ($(grep '^command' "$work/out"))"
check "grep -q 'overhead 10.00 %' '$work/out'" "predicted overhead is the budget"
# the plan's interval from the cost's: c (1+b)/b at c = 9500 and 10500; c / (P - c) at P = 110000
check "grep -q '^period: *110000 ns (104500 to 115500 over the cost.s interval)' '$work/out'" "the period's range over the cost's interval ($(grep period "$work/out"))"
check "grep -q 'overhead 10.00 % (9.45 to 10.55 %)$' '$work/out'" "the overhead's range over the cost's interval ($(grep predicted "$work/out"))"
# how fast the CPUs ran while planning: timed at the start, after the command alone, after the
# cost and at the end (runner/cpu_speed.h, whose sentences test_cpu_speed holds)
check "grep -Eq '^CPU speed: +A fixed loop(, timed [0-9]+ times on [0-9]+ CPUs?,)? took' '$work/out'" \
	"the plan says how fast its CPUs ran ($(grep -A1 '^CPU speed' "$work/out" | tr '\n' ' '))"
check "! grep -q '^check:' '$work/out'" "no check without --check"
# the ranges are the cost's interval alone: without --check the plan says what they leave out
check "tr -s ' \\n' ' ' <'$work/out' | grep -q -- 'note the ranges are over the cost a sample had in pesbench.s cost workload; .* --check runs it at this period and measures its own'" "without --check, the note on what the ranges leave out"
check "! grep -q 'a share needs' '$work/out'" "a plan of hundreds of samples has no few-samples note"
check "! grep -q 'left out' '$work/out'" "a fit that left nothing out says nothing of it"
# a fit that left a disturbed pair out: the plan says so, with the file's figures
sed 's/"r2": 0.8, "resolved": true/"r2": 0.8, "resolved": true, "points": 16, "pairs_left_out": 1/' \
	"$work/costs.json" >"$work/disturbed.json"
expect_exit 0 "plan --costs of a fit that left a pair out" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --costs "$work/disturbed.json" -- "${loop[@]}"
check "grep -q '^  left out *1 of the sweep.s 16 pairs, whose runs a disturbance slowed' '$work/out'" "the left-out pair is named ($(grep -A1 'left out' "$work/out" | tr '\n' ' '))"
# `true` (a few ms of CPU at most, on any machine) at a 0.1 % budget, a period of 10 ms: the
# budget is met with fewer samples than a share needs (experiments/point.h), and plan says so
expect_exit 0 "plan of a short command" "$PB_BIN" plan --facility $T --budget 0.1 --runs 1 --costs "$work/costs.json" -- true
check "grep -Eq '^  note +[0-9] samples are fewer than the 10 a share needs' '$work/out'" "too few samples are named ($(grep -A2 '^predicted' "$work/out" | tr '\n' ' '))"
expect_exit 0 "plan --json of a short command" "$PB_BIN" plan --facility $T --budget 0.1 --runs 1 --json --costs "$work/costs.json" -- true
check "jq -e '.too_few_samples == true' '$work/out' >/dev/null" "--json: too_few_samples"
# a fit with its rate model (cost_fit.c): the cost at the period it gives, 10000 + 2000 x
# log10(P / 26000) ns, settles where P = 11 c(P), at about 125 µs and 11.36 µs
jq '.points[1].metrics += {"rate_dependent": true, "rate_ref_period": 26000,
	"rate_top_period": 1000000, "rate_ns_at_ref": 10000, "rate_ns_at_ref_se": 50,
	"rate_ns_per_decade": 2000, "rate_ns_per_decade_se": 200, "rate_correlation": 0,
	"rate_t95": 2.1}' "$work/costs.json" >"$work/rated.json"
expect_exit 0 "plan --costs of a fit with a rate model" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --costs "$work/rated.json" -- "${loop[@]}"
check "grep -Eq '^cost of a sample: *113[0-9][0-9].[0-9] ± [0-9.]+ ns \(95 % CI; from .*rated.json\)' '$work/out'" "the cost at the period ($(grep '^cost' "$work/out"))"
check "tr -s ' \n' ' ' <'$work/out' | grep -q -- 'by rate at this period, on the sweep.s line by rate: 10000.0 ns at 26000 ns, +2000.0 ± 420.0 ns for each tenfold longer period'" "from the line, said with it ($(grep -A1 'by rate' "$work/out" | tr '\n' ' '))"
check "grep -Eq '^period: *12[45][0-9]{3} ns' '$work/out'" "the period its own cost gives ($(grep '^period' "$work/out"))"
check "grep -q 'overhead 10.00 %' '$work/out'" "at the budget, with the cost at the period"
# the same line not told from one cost: the plan keeps the pooled slope (experiments/predict.h)
jq '.points[1].metrics.rate_dependent = false' "$work/rated.json" >"$work/flat.json"
expect_exit 0 "plan --costs of a fit whose line is not told from one cost" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --costs "$work/flat.json" -- "${loop[@]}"
check "grep -q '^period: *110000 ns' '$work/out' && ! grep -q '^  by rate' '$work/out'" "the pooled slope, no line ($(grep -E '^period|by rate' "$work/out" | tr '\n' ' '))"
expect_exit 0 "plan --json --costs of a fit with a rate model" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --json --costs "$work/rated.json" -- "${loop[@]}"
check "jq -e '.ns_per_sample_at_period == true and .ns_per_sample > 11300 and .ns_per_sample < 11400' '$work/out' >/dev/null" "--json: the cost at the period, said so"
expect_exit 0 "plan --costs FOLDER" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --costs "$work/folder" -- "${loop[@]}"
check "grep -q '^period: *110000 ns' '$work/out'" "a results folder is read as its results.json"
expect_exit 0 "plan --json" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --json --check --costs "$work/costs.json" -- "${loop[@]}"
check "jq -e '.period == 110000 and .period_unit == \"ns\" and .ns_per_sample == 10000 and .ns_per_sample_at_period == false' '$work/out' >/dev/null" "--json: the plan as one object"
check "jq -e '.command == \"sh\" and .argv[0] == \"sh\" and .argv[1] == \"-c\" and (.argv | length) == 3' '$work/out' >/dev/null" "--json: the whole command in argv"
check "jq -e '.too_few_samples == false and .ns_per_sample_ci95 == 500 and .period_lo == 104500 and .period_hi == 115500 and (.predicted_overhead_lo_pct * 100 | round) == 945 and (.predicted_overhead_hi_pct * 100 | round) == 1055' '$work/out' >/dev/null" "--json: the plan's intervals"
check "jq -e '(.check.slowdown_error_pp | type) == \"number\" and (.check.slowdown_within | type) == \"boolean\" and (.check.slowdown_verdict | type) == \"string\"' '$work/out' >/dev/null" "--json --check: judged on the slowdown"
expect_exit 0 "plan --check" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --ring 16 --check --costs "$work/costs.json" -- "${loop[@]}"
check "grep -q '^ring: *16 data pages (--ring)' '$work/out'" "--ring is used"
check "! grep -q 'the ranges are over the cost' '$work/out'" "with --check, no note sending the user to it"
check "grep -q '^check: *[0-9]* samples, [0-9]* lost' '$work/out'" "check prints samples and losses"
check "grep -q 'prediction error' '$work/out'" "check prints the prediction error"
check "grep -Eq 'slowdown +predicted [0-9.]+ ± [0-9.]+ %, measured' '$work/out'" \
	"the check's prediction carries its cost's interval"
check "grep -Eq 'its error +[-+][0-9.]+ pp: (within|outside|undecided) \(±[0-9.]+ pp allowed\)' '$work/out'" \
	"check judges the slowdown"
check "grep -Eq '(within|OVER) the 10 % budget|its interval holds the 10 % budget' '$work/out'" \
	"check compares with the budget"

# --- the check corrects a plan it decides against: a constructed cost of 2 µs per timer sample,
# below what a timer sample costs on any machine seen (a few to ~50 µs), puts the plan's period
# too short. Where the check decides so (outside its tolerance, or its whole interval over the
# budget), the next period comes from the command's own cost and is longer, each corrected
# period predicts the budget, and the last period checked is recommended; where it cannot
# decide, nothing is corrected. The machine decides which; the output is asserted, not timing.
sed 's/"ns_per_sample": 10000, "ci95_ns": 500/"ns_per_sample": 2000, "ci95_ns": 100/' \
	"$work/costs.json" >"$work/cheap.json"
expect_exit 0 "plan --check --json corrects" "$PB_BIN" plan --facility $T --budget 10 --runs 3 \
	--check --json --costs "$work/cheap.json" -- "${loop[@]}"
cp "$work/out" "$work/corrected.json"
check "jq -e '.load.other_cpus >= 0 and .load.other_cpus_ci95 > 0 and .load.cpus > 0 and .load.steal_pct >= 0' '$work/corrected.json' >/dev/null" "--json: the load beside the plan"
# four probes of every CPU besides one after each check: start, the command alone, the cost, end
check "jq -e '.cpu_speed.probes >= 5 and .cpu_speed.slower_probes >= 0 and .cpu_speed.slower_probes < .cpu_speed.probes and .cpu_speed.slowest_ratio >= 1 and (.cpu_speed.note | startswith(\"A fixed loop\"))' '$work/corrected.json' >/dev/null" \
	"--json: how fast the CPUs ran while planning ($(jq -c .cpu_speed "$work/corrected.json"))"
check "jq -e '.period == 22000 and .check.period == 22000 and .check.rounds >= 3' '$work/corrected.json' >/dev/null" \
	"the plan's own period is checked first, in at least --runs rounds"
# the rounds a disturbance moved are counted, never more than one in eight for each of the rule's
# two tests (predict.h, pb_paired_disturbed)
check "jq -e '.check.rounds_left_out >= 0 and .check.rounds_left_out <= (.check.rounds / 8 | floor) * 2' '$work/corrected.json' >/dev/null" \
	"the check counts the rounds it left out as disturbed"
check "jq -e '.check.measured_slowdown_ci95_pp > 0 and .check.own_ns_per_sample > 0 and .check.own_ns_per_sample_ci95 > 0' '$work/corrected.json' >/dev/null" \
	"the check's slowdown and the command's own cost carry intervals"
# the prediction carries the cost's interval: 2000 ± 100 ns at 22000 ns, c / (P - c) from
# 1900 / 20100 = 9.453 % to 2100 / 19900 = 10.553 %, half of which is 0.550 points
check "jq -e '.check.predicted_slowdown_ci95_pp > 0.549 and .check.predicted_slowdown_ci95_pp < 0.551' '$work/corrected.json' >/dev/null" \
	"the check's prediction carries its cost's interval ($(jq -c .check.predicted_slowdown_ci95_pp "$work/corrected.json"))"
decided=$(jq -r '.check | (.slowdown_verdict == "outside" or .budget_verdict == "OVER")' "$work/corrected.json")
# a check's own cost is planned with only when resolved (its CI within 10 % of it), as a fit is
resolved=$(jq -r '.check | (.own_ns_per_sample > 0 and .own_ns_per_sample_ci95 <= 0.1 * .own_ns_per_sample)' "$work/corrected.json")
steps='[.check.period, .check.measured_slowdown_pct, .check.own_ns_per_sample, .check.own_ns_per_sample_ci95, [.corrections[] | [.period, .from_ns_per_sample, .corrected_overhead_pct, .own_ns_per_sample, .own_ns_per_sample_ci95, .slowdown_verdict, .budget_verdict]], .stopped]'
if [ "$decided" = true ] && [ "$resolved" = true ]; then
	check "jq -e '(.corrections | length) >= 1 and .corrections[0].period > 22000' '$work/corrected.json' >/dev/null" \
		"decided against: a longer period is checked ($(jq -c "$steps" "$work/corrected.json"))"
	check_explained "jq -e '.corrections[0].from_ns_per_sample == .check.own_ns_per_sample and ([.corrections[].corrected_overhead_pct | . > 9.99 and . <= 10] | all)' '$work/corrected.json' >/dev/null" \
		"each correction is the budget's period from the check before it" "jq -c '$steps' '$work/corrected.json'"
	# each step on from the check before it only where that check's own cost resolved
	check_explained "jq -e '[range(1; .corrections | length) as \$i | .corrections[\$i - 1] | .own_ns_per_sample_ci95 <= 0.1 * .own_ns_per_sample] | all' '$work/corrected.json' >/dev/null" \
		"no correction from a check whose own cost did not resolve" "jq -c '$steps' '$work/corrected.json'"
	check "jq -e '.recommended_period == .corrections[-1].period' '$work/corrected.json' >/dev/null" \
		"the last period checked is recommended"
elif [ "$decided" = true ]; then
	echo "cli_plan: the check decided against the plan, but its own cost did not resolve: $(jq -c "$steps" "$work/corrected.json")"
	check "jq -e '(.corrections | length) == 0 and .recommended_period == 22000 and .stopped == \"cost unresolved\"' '$work/corrected.json' >/dev/null" \
		"decided, but its own cost did not resolve: nothing corrected ($(jq -c "$steps" "$work/corrected.json"))"
else
	echo "cli_plan: the check did not decide against the plan here: $(jq -c .check "$work/corrected.json" | head -c 300)"
	check "jq -e '(.corrections | length) == 0 and .recommended_period == 22000 and (.stopped == \"held\" or .stopped == \"undecided\")' '$work/corrected.json' >/dev/null" \
		"not decided: nothing corrected, the plan's period recommended"
fi
expect_exit 0 "plan --check corrects, in words" "$PB_BIN" plan --facility $T --budget 10 --runs 3 \
	--check --costs "$work/cheap.json" -- "${loop[@]}"
check "grep -Eq '^recommended: +[0-9]+ ns: overhead -?[0-9.]+ ± [0-9.]+ %' '$work/out'" "the recommendation with its interval ($(grep '^recommended:' "$work/out"))"
check "awk 'length > 100 { bad = 1 } END { exit bad }' '$work/out'" "plan --check fits 100 columns"
# what else the machine did while the plan measured, with its interval (on a run of rounds: a
# plan of one short run may end before a tick has moved, and then says nothing of it)
check "grep -Eq '^beside the plan: +other work kept [0-9.]+ ±[0-9.]+ of the [0-9]+ CPUs busy' '$work/out'" "the plan says what else the machine did ($(grep -A1 '^beside' "$work/out" | tr '\n' ' '))"
if grep -q '^corrected period:' "$work/out"; then
	check "grep -Eq '^corrected period: +[0-9]+ ns: this command.s own cost, [0-9.]+ µs a sample, predicts 10.00 %' '$work/out'" \
		"a corrected period says where it comes from"
fi
expect_exit 0 "plan --check --runs 1" "$PB_BIN" plan --facility $T --budget 10 --runs 1 --check \
	--costs "$work/cheap.json" -- "${loop[@]}"
check "! grep -q '^corrected period:' '$work/out' && grep -q 'one round gives no interval' '$work/out'" \
	"one round decides and corrects nothing, and says so"
check "! grep -q 'nan' '$work/out'" "no interval printed as nan"

echo "cli_plan: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
