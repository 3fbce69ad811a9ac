#!/usr/bin/env bash
# What one timer sample costs a workload at each of several periods (a benchmark: figures
# printed, not a timed test). The cost fit pools its sweep's periods into one slope, and the
# suite's predictions carry one target's cost to its other periods; both assume a sample costs
# the same at every rate. This measures that assumption directly, per workload: paired rounds
# (`pesbench measure --facility none`, then the same workload sampled at period P in mode none),
# the periods in a rotating order, and per period the mean over rounds of (sampled run's CPU
# time - its partner's) / samples taken (kept + lost), with its t interval (rounds - 1 df).
#
# usage: bench/cost-by-rate.sh PESBENCH [ROUNDS]   (env: WORKLOADS, PERIODS in ns, RUN_MS)
set -eu
bin=${1:?usage: bench/cost-by-rate.sh PESBENCH [ROUNDS]}
rounds=${2:-10}
read -r -a workloads <<<"${WORKLOADS:-busy accuracy}"
read -r -a periods <<<"${PERIODS:-25000 40000 70000 100000 120000 200000 500000}"
run_ms=${RUN_MS:-50}
command -v jq >/dev/null || { echo "cost-by-rate: jq is needed (make deps)" >&2; exit 2; }
[ "$rounds" -ge 2 ] || { echo "cost-by-rate: two rounds or more give an interval" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpu_of() { jq -r '.cpu_ns[0]' "$1"; }
echo "what one timer:cpu-clock sample costs, by period ($rounds paired rounds, runs of ~$run_ms ms)"
echo "(machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs;" \
	"load average at the start: $(cut -d' ' -f1-3 /proc/loadavg))"
for w in "${workloads[@]}"; do
	# iterations for a run of ~run_ms, from a probe run of a known count
	"$bin" measure --facility none --workload "$w" --iterations 1000000 --json >"$work/probe.json"
	probe=$(cpu_of "$work/probe.json")
	iterations=$(awk -v c="$probe" -v ms="$run_ms" 'BEGIN { n = 1e6 * ms * 1e6 / c;
		printf "%d", n < 1000 ? 1000 : n }')
	for p in "${periods[@]}"; do : >"$work/$w.$p"; done
	for ((r = 0; r < rounds; r++)); do
		for ((k = 0; k < ${#periods[@]}; k++)); do
			p=${periods[$(((k + r) % ${#periods[@]}))]}
			"$bin" measure --facility none --workload "$w" --iterations "$iterations" \
				--json >"$work/base.json"
			"$bin" measure --facility timer:cpu-clock --period "$p" --delivery none \
				--workload "$w" --iterations "$iterations" --json >"$work/sampled.json"
			echo "$(cpu_of "$work/base.json") $(jq -r \
				'"\(.cpu_ns[0]) \(.events[0].observed + .events[0].lost)"' \
				"$work/sampled.json")" >>"$work/$w.$p"
		done
	done
	for p in "${periods[@]}"; do
		awk -v w="$w" -v p="$p" '
		BEGIN { split("12.71 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 " \
			      "2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ") }
		$3 > 0 { c = ($2 - $1) / $3; s += c; ss += c * c; n++; base += $1 }
		END {
			if (n < 2) { printf "%-10s %8.1f µs  fewer than two rounds sampled\n", w, p / 1000; exit }
			m = s / n; sd = sqrt((ss - n * m * m) / (n - 1)); df = n - 1
			tq = df <= 20 ? t[df] : 1.96
			printf "%-10s %8.1f µs  %7.2f ± %5.2f µs a sample  (%d rounds, runs %.1f ms)\n",
				w, p / 1000, m / 1000, tq * sd / sqrt(n) / 1000, n, base / n / 1e6
		}' "$work/$w.$p"
	done
done
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
