#!/usr/bin/env bash
# The cost of one timer sample measured two ways (a benchmark: figures printed and compared,
# not a timed test).
#
# 1. pesbench's own figure: `pesbench run cost --facility timer:cpu-clock`, the delivery-none
#    fit of its designed sweep (experiments/cost_sweep.c): ns per sample with its 95 % CI.
# 2. An independent figure no one here wrote the sampling for: `perf record -e cpu-clock:u -c P`
#    of the same workload (`pesbench measure --facility none`, the busy loop) at two periods,
#    each round next to a run without perf, in an order that rotates from round to round. Per
#    round and period: (the sampled run's thread CPU time - the median of the runs without
#    perf) / the samples perf took in the workload's code (counted by symbol with perf script).
#    The median over the rounds comes with a distribution-free 95 % CI (order statistics, as
#    bench/peer.sh does).
#
# The same runs of pesbench itself at the two periods (`pesbench measure --period P`, mode none),
# in the same rounds, tell a difference of method from a machine that moved between the fit and
# the perf runs (the fit is measured first, in its own minutes).
#
# The fit pools every period of its sweep into one slope; where a sample costs more at one rate
# than at another (kind C, 2026-11-26: 27 µs at a 26 µs period, 32 µs at 100 µs, 40 µs at 1 ms),
# its rate model (a line in the decades of the period, fitted to the same pairs) tells so
# (`rate_dependent`). The fit's figure at perf's period is the line's there, with the CI from its
# coefficients' standard errors and correlation: what the sweep knows of the cost at that period
# (the pooled slope's CI says how well it is known at the fast end, where its samples are). The
# pooled slope is set against perf's figure too: it is what pesbench predicts and plans with
# while the line cannot be told from one cost (experiments/predict.h).
# perf's figure at a period is also set against the sweep's own pairs at that period
# (`ns_per_sample_by_period`, when the sweep had one within 25 % of it, with two pairs or more).
#
# Last, the fit is measured again: two fits whose intervals do not overlap say that the cost
# moved while the benchmark ran, and each says how fast the CPUs ran meanwhile (the suite's
# cpu_speed_note). perf's rounds ran between them, in either state, so each figure is then set
# against the second fit too (kind B, 2026-11-28: the first fit 54.0 µs while a vCPU ran 2.5
# times slower, perf 47.3 µs, the second fit 47.8 µs).
#
# perf's two periods are by default the sweep's shortest and twice it (its longest, if shorter):
# where the fit measured, and where its samples are. A period outside the sweep's range (PERIODS
# given) is measured and shown, but not set against the fit: the fit says nothing there (kind B,
# 2026-11-28: a sample cost 29 µs at a 40 µs period, 47 µs at the sweep's shortest, 94.6 µs).
#
# The two agree at a period when their intervals overlap. perf's record path differs a little
# from pesbench's mode none (perf record asks for ip, tid, time and period, 40 bytes; pesbench
# for 32, and perf's reader runs as another process), so a few percent apart is expected.
#
# usage: bash bench/cost.sh [PESBENCH]    (make bench-cost)
# env:   ITERATIONS (200000000)  ROUNDS (9)  PERIODS (perf's periods, ns: default the sweep's
#        shortest and twice it; "100000 40000" for a fit without a rate model)
#        TARGET_MS (the cost run's --target-ms; default the suite's)
set -euo pipefail
PB_BIN=${1:-${PB_BIN:-./build/pesbench}}
ITERATIONS=${ITERATIONS:-200000000}
ROUNDS=${ROUNDS:-9}
read -ra periods <<<"${PERIODS:-}"
WORKLOAD=busy

command -v jq >/dev/null || { echo "cost.sh: needs jq (scripts/install-deps.sh installs it)" >&2; exit 2; }
command -v perf >/dev/null || { echo "cost.sh: needs perf (scripts/install-deps.sh installs it)" >&2; exit 2; }
[ -x "$PB_BIN" ] || { echo "cost.sh: no pesbench at $PB_BIN (make build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "cost of one timer:cpu-clock sample: pesbench's fit vs perf record"
echo "(machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model\s*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) CPUs;" \
	"load average at the start: $(cut -d' ' -f1-3 /proc/loadavg))"

# --- 1. pesbench's fit ---
"$PB_BIN" run cost --facility timer:cpu-clock ${TARGET_MS:+--target-ms "$TARGET_MS"} \
	--out "$work/run" >"$work/run.log" 2>&1 || {
	echo "cost.sh: pesbench run cost failed:" >&2
	tail -n 5 "$work/run.log" >&2
	exit 1
}
read -r fit_ns fit_ci fit_resolved fit_seconds < <(jq -r '[.points[] | select(.experiment ==
	"cost" and .kind == "fit" and .delivery == "none")][0] | .metrics |
	"\(.ns_per_sample) \(.ci95_ns) \(.resolved) \(.seconds)"' "$work/run/results.json")
fit_text=$(jq -r '[.points[] | select(.experiment == "cost" and .kind == "fit" and
	.delivery == "none")][0] | .estimate // "-"' "$work/run/results.json")
printf 'pesbench fit (mode none):   %s (%.1f s)\n' "$fit_text" "$fit_seconds"
# how fast the CPUs ran during a cost run (the suite's cpu_speed_note), under its figure
print_speed() {
	local note
	note=$(jq -r '.cpu_speed_note // empty' "$1")
	[ -z "$note" ] || echo "$note" | fold -s -w 68 |
		awk 'NR == 1 { print "  while it ran:             " $0; next }
		     { print "                            " $0 }'
}
print_speed "$work/run/results.json"
# The sweep's own cost at each of its periods (a sample need not cost one figure at every rate:
# the fit pools them): "period ns ci95 pairs" per line, shortest period first.
jq -r '[.points[] | select(.experiment == "cost" and .kind == "fit" and .delivery == "none")][0]
	| .metrics.ns_per_sample_by_period // [] | .[] | select(.ns_per_sample != null and
	.ci95_ns != null) | "\(.period) \(.ns_per_sample) \(.ci95_ns) \(.pairs)"' \
	"$work/run/results.json" >"$work/by_period.txt"
# the rate model: "dependent ref_period top_period ns_at_ref se per_decade se correlation t95"
read -r rate_dep rate_ref rate_top rate_a rate_sa rate_b rate_sb rate_r rate_t < <(jq -r '[.points[]
	| select(.experiment == "cost" and .kind == "fit" and .delivery == "none")][0] | .metrics
	| [.rate_dependent, .rate_ref_period, .rate_top_period, .rate_ns_at_ref, .rate_ns_at_ref_se,
	.rate_ns_per_decade, .rate_ns_per_decade_se, .rate_correlation, .rate_t95]
	| map(tostring) | join(" ")' "$work/run/results.json")
if [ "$rate_ref" != null ]; then
	awk -v a="$rate_a" -v b="$rate_b" -v sb="$rate_sb" -v t="$rate_t" -v ref="$rate_ref" \
		-v d="$rate_dep" 'BEGIN {printf "  its rate model:           %.1f µs at %.1f µs, %+.2f ± %.2f µs for each " \
		"tenfold longer period (%s)\n", a / 1000, ref / 1000, b / 1000, t * sb / 1000,
		d == "true" ? "the cost moves with the rate" : "not told from one cost"}'
fi
# The fit's cost at a period: "ns ci95 how" (the rate model's line at the period held to the
# sweep's range; the pooled slope from a fit without one).
fit_at() {
	if [ "$rate_ref" = null ]; then
		echo "$fit_ns $fit_ci pooled"
		return
	fi
	awk -v p="$1" -v ref="$rate_ref" -v top="$rate_top" -v a="$rate_a" -v sa="$rate_sa" \
		-v b="$rate_b" -v sb="$rate_sb" -v r="$rate_r" -v t="$rate_t" 'BEGIN {
		if (p < ref) p = ref; if (p > top) p = top
		u = log(p / ref) / log(10); v = sa * sa + u * u * sb * sb + 2 * u * r * sa * sb
		printf "%.0f %.0f rate\n", a + b * u, t * sqrt(v > 0 ? v : 0) }'
}
# perf's periods: the sweep's shortest and twice it, held to its range
if [ ${#periods[@]} -eq 0 ]; then
	if [ "$rate_ref" != null ]; then
		read -ra periods < <(awk -v ref="$rate_ref" -v top="$rate_top" 'BEGIN {
			p = 2 * ref; if (p > top) p = top
			if (p > ref) printf "%d %d\n", ref, p; else printf "%d\n", ref }')
		how="the sweep's shortest and twice it"
	else
		periods=(100000 40000)
		how="the defaults: the fit has no rate model to say its range"
	fi
else
	how="PERIODS"
fi
printf "perf's periods:             %s ns (%s%s)\n" "${periods[*]}" "$how" \
	"$([ "$rate_ref" = null ] || echo "; the sweep measured $rate_ref to $rate_top ns")"
# whether the sweep measured at a period (a fit without a rate model: its whole range is unknown)
inside_sweep() {
	[ "$rate_ref" = null ] || awk -v p="$1" -v ref="$rate_ref" -v top="$rate_top" \
		'BEGIN {exit !(p >= ref && p <= top)}'
}
rate_note=$(jq -r '[.points[] | select(.experiment == "cost" and .kind == "fit" and
	.delivery == "none")][0] | .rate_note // empty' "$work/run/results.json")
[ -z "$rate_note" ] || echo "  the fit says: $rate_note"

# --- 2. perf record at two periods ---
common=(--workload "$WORKLOAD" --iterations "$ITERATIONS" --json)
run_one() { # config round -> "round cpu_ns samples"
	local c=$1 r=$2 out=$work/out.json n
	if [ "$c" = base ]; then
		"$PB_BIN" measure --facility none "${common[@]}" >"$out"
		echo "$r $(jq -r '.cpu_ns[0]' "$out") 0"
		return
	fi
	if [ "${c#pb}" != "$c" ]; then # pesbench itself at the same period, mode none
		"$PB_BIN" measure --facility timer:cpu-clock --period "${c#pb}" --delivery none \
			"${common[@]}" >"$out"
		echo "$r $(jq -r '"\(.cpu_ns[0]) \(.events[0].observed + .events[0].lost)"' "$out")"
		return
	fi
	perf record -q -e cpu-clock:u -c "$c" -o "$work/perf.data" -- \
		"$PB_BIN" measure --facility none "${common[@]}" >"$out" 2>"$work/perf.err"
	n=$(perf script -i "$work/perf.data" -F ip,sym 2>/dev/null | grep -c "pb_wl_${WORKLOAD}_" || true)
	echo "$r $(jq -r '.cpu_ns[0]' "$out") $n"
}
configs=(base)
for p in "${periods[@]}"; do configs+=("$p" "pb$p"); done
nc=${#configs[@]}
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < nc; k++)); do
		c=${configs[$(((k + r - 1) % nc))]}
		run_one "$c" "$r" >>"$work/$c.txt"
	done
done
. "$(dirname "$0")/median.sh"
base=$(cut -d' ' -f2 "$work/base.txt" | median)
printf 'runs without perf:          median %.2f ms CPU over %d rounds (min %.2f, max %.2f)\n' \
	"$(awk -v b="$base" 'BEGIN {print b / 1e6}')" "$ROUNDS" \
	"$(cut -d' ' -f2 "$work/base.txt" | sort -g | head -1 | awk '{print $1 / 1e6}')" \
	"$(cut -d' ' -f2 "$work/base.txt" | sort -g | tail -1 | awk '{print $1 / 1e6}')"
# whether a measured figure's interval [$lo, $hi] overlaps F ± C
overlaps() {
	awk -v l="$lo" -v h="$hi" -v f="$1" -v c="$2" 'BEGIN {exit !(l <= f + c && h >= f - c)}'
}
disagree=0
measured=() # "who median lo hi" per figure, to set against the fit again
for p in "${periods[@]}" $(printf 'pb%s ' "${periods[@]}"); do
	awk -v b="$base" '$3 > 0 {printf "%.0f\n", ($2 - b) / $3}' "$work/$p.txt" >"$work/$p.per"
	if [ ! -s "$work/$p.per" ]; then
		echo "cost.sh: perf record -c $p took no samples in pb_wl_${WORKLOAD}_* ($(head -c 200 "$work/perf.err"))" >&2
		exit 1
	fi
	med=$(median <"$work/$p.per")
	read -r lo hi cover < <(median_ci <"$work/$p.per")
	samples=$(cut -d' ' -f3 "$work/$p.txt" | median)
	verdict="no CI (too few rounds)"
	pooled_verdict=$verdict
	read -r at_ns at_ci at_how < <(fit_at "${p#pb}")
	inside=false
	if inside_sweep "${p#pb}"; then inside=true; fi
	if ! $inside; then
		verdict="not set against the fit: the sweep measured $rate_ref to $rate_top ns only"
	elif [ "$lo" != - ]; then
		if overlaps "$at_ns" "$at_ci"; then
			verdict="agrees with the fit (the intervals overlap)"
		else
			verdict="DISAGREES with the fit (the intervals do not overlap)"
			disagree=1
		fi
		if overlaps "$fit_ns" "$fit_ci"; then
			pooled_verdict="agrees with it"
		else
			pooled_verdict="DISAGREES with it"
		fi
	fi
	if [ "${p#pb}" != "$p" ]; then
		who="pesbench --period ${p#pb}"
	else
		who="perf record -c $p"
	fi
	printf '%-27s %s ns per sample, 95%% CI [%s, %s] (%s %%), %s samples/run;\n' \
		"$who" "$med" "$lo" "$hi" "$cover" "$samples"
	measured+=("$who|$med|$lo|$hi")
	if [ "$at_how" = rate ] && $inside; then
		printf '                            the fit at %s ns (its rate model): %s ± %s ns\n' \
			"${p#pb}" "$at_ns" "$at_ci"
	fi
	if ! $inside; then
		printf '                            %s\n' "$verdict"
	else
		printf '                            ratio to the fit %s: %s\n' \
			"$(awk -v m="$med" -v f="$at_ns" 'BEGIN {printf "%.3f", m / f}')" "$verdict"
	fi
	if [ "$at_how" = rate ] && $inside; then
		# what predictions use: the pooled slope while the line is not told from one cost
		printf '                            the pooled slope %.0f ± %.0f ns (%s): %s\n' \
			"$fit_ns" "$fit_ci" "$([ "$rate_dep" = true ] && echo "not used: the line is" ||
			echo "predictions' cost")" "$pooled_verdict"
	fi
	# the sweep's own pairs at (within 25 % of) the same period, when it had two or more
	read -r sp sns sci spairs < <(awk -v p="${p#pb}" '{r = $1 / p; if (r < 1) r = 1 / r;
		if (r <= 1.25 && (best == "" || r < best)) {best = r; line = $0}}
		END {print (line == "" ? "- - - -" : line)}' "$work/by_period.txt")
	if [ "$sp" != - ] && [ "$lo" != - ]; then
		if overlaps "$sns" "$sci"; then
			sv="agrees with it"
		else
			sv="DISAGREES with it"
		fi
		printf '                            the sweep at %s ns: %.0f ± %.0f ns (%s pairs): %s\n' \
			"$sp" "$sns" "$sci" "$spairs" "$sv"
	fi
done
# --- 4. the fit again, after perf's runs: a machine whose cost moved meanwhile (kind B,
# 2026-11-28: one vCPU at a time ran 1.7 to 2.8 times slower, for minutes) makes the verdicts
# above compare figures of two machine states, which the two fits then tell apart ---
if "$PB_BIN" run cost --facility timer:cpu-clock ${TARGET_MS:+--target-ms "$TARGET_MS"} \
	--out "$work/again" >"$work/again.log" 2>&1; then
	read -r again_ns again_ci < <(jq -r '[.points[] | select(.experiment == "cost" and
		.kind == "fit" and .delivery == "none")][0] | .metrics |
		"\(.ns_per_sample) \(.ci95_ns)"' "$work/again/results.json")
	again_text=$(jq -r '[.points[] | select(.experiment == "cost" and .kind == "fit" and
		.delivery == "none")][0] | .estimate // "-"' "$work/again/results.json")
	printf 'the fit again, after them:  %s\n' "$again_text"
	if awk -v a="$fit_ns" -v ac="$fit_ci" -v b="$again_ns" -v bc="$again_ci" 'BEGIN {
		d = a - b; if (d < 0) d = -d; exit !(d <= ac + bc) }'; then
		echo "                            the two fits agree: the cost held while perf ran"
	else
		echo "                            the two fits DISAGREE: the cost moved while the" \
			"benchmark ran, and the verdicts above compare figures of two machine states"
		# perf's rounds ran between the two fits, in either state: each figure against the
		# second fit's pooled slope too
		printf '                            each figure against it (%.0f ± %.0f ns):\n' \
			"$again_ns" "$again_ci"
		for m in "${measured[@]}"; do
			IFS='|' read -r who med lo hi <<<"$m"
			[ "$lo" != - ] || continue
			if overlaps "$again_ns" "$again_ci"; then
				v="agrees with it"
			else
				v="DISAGREES with it"
			fi
			printf '%30s%s: %.0f ns [%s, %s]: %s\n' "" "$who" "$med" "$lo" "$hi" "$v"
		done
	fi
	print_speed "$work/again/results.json"
else
	echo "the fit again, after them:  pesbench run cost failed: $(tail -n 1 "$work/again.log")"
fi
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); pesbench's fit resolved:" \
	"$fit_resolved)"
exit 0
