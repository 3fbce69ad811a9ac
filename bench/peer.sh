#!/usr/bin/env bash
# Peer comparison (a benchmark, not a test): one workload, one facility and period, sampled by
# pesbench in each delivery mode (none, signal, sigtrap, drain) and by `perf record`, next to a
# run without sampling. The configurations are interleaved and the round repeated, so that drift
# in the machine falls on all of them alike. Every run is timed the same way: the workload's
# measured region, as `pesbench measure --json` reports it (wall_ns) — under perf record too,
# where pesbench runs the workload with --facility none inside perf.
#
# usage: bash bench/peer.sh [PESBENCH]    (make bench-peer)
# env:   FACILITY (timer:cpu-clock)  PERIOD (100000)  WORKLOAD (busy)  ITERATIONS (30000000)
#        REPEAT (5)  PERF_EVENT (cpu-clock: the perf event matching FACILITY)
# prints per configuration: median wall time, its ratio to the baseline, samples, and the
# added time per sample.
set -euo pipefail
PB_BIN=${1:-${PB_BIN:-./build/pesbench}}
FACILITY=${FACILITY:-timer:cpu-clock}
PERIOD=${PERIOD:-100000}
WORKLOAD=${WORKLOAD:-busy}
ITERATIONS=${ITERATIONS:-30000000}
REPEAT=${REPEAT:-5}
PERF_EVENT=${PERF_EVENT:-cpu-clock}

command -v jq >/dev/null || { echo "peer.sh: needs jq (scripts/install-deps.sh installs it)" >&2; exit 2; }
[ -x "$PB_BIN" ] || { echo "peer.sh: no pesbench at $PB_BIN (make build)" >&2; exit 2; }
have_perf=1
command -v perf >/dev/null || { have_perf=0; echo "peer.sh: perf not found: perf record column skipped" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=(baseline none signal sigtrap drain)
[ $have_perf = 1 ] && configs+=(perf-record)

common=(--workload "$WORKLOAD" --iterations "$ITERATIONS" --json)
run_one() { # config -> "wall_ns samples" on stdout
	local c=$1 out=$work/out.json
	case $c in
	baseline) "$PB_BIN" measure --facility none "${common[@]}" >"$out" ;;
	perf-record)
		perf record -q -e "$PERF_EVENT" -c "$PERIOD" -o "$work/perf.data" -- \
			"$PB_BIN" measure --facility none "${common[@]}" >"$out" 2>"$work/perf.err"
		# perf samples the whole process (startup included): a slight overcount.
		local n
		n=$(perf script -i "$work/perf.data" -F ip 2>/dev/null | wc -l)
		echo "$(jq -r .wall_ns "$out") $n"
		return ;;
	*) "$PB_BIN" measure --facility "$FACILITY" --period "$PERIOD" --delivery "$c" \
		"${common[@]}" >"$out" ;;
	esac
	echo "$(jq -r .wall_ns "$out") $(jq -r '.events[0].observed // 0' "$out")"
}

echo "peer comparison: $FACILITY period $PERIOD on $WORKLOAD ($ITERATIONS iterations), $REPEAT interleaved rounds"
for ((r = 1; r <= REPEAT; r++)); do
	for c in "${configs[@]}"; do
		run_one "$c" >>"$work/$c.txt"
	done
done

median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
base=$(cut -d' ' -f1 "$work/baseline.txt" | median)
printf '%-12s %12s %8s %10s %14s\n' config "wall ms" ratio samples "ns/sample"
for c in "${configs[@]}"; do
	wall=$(cut -d' ' -f1 "$work/$c.txt" | median)
	samples=$(cut -d' ' -f2 "$work/$c.txt" | median)
	awk -v c="$c" -v w="$wall" -v b="$base" -v s="$samples" 'BEGIN {
		per = s > 0 ? sprintf("%.0f", (w - b) / s) : "-"
		printf "%-12s %12.3f %8.3f %10d %14s\n", c, w / 1e6, w / b, s, per }'
done
