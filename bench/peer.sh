#!/usr/bin/env bash
# Peer comparison (a benchmark, not a test): one workload, one facility and period, sampled by
# pesbench in each delivery mode (none, signal, sigtrap, drain) and by `perf record`, next to a
# run without sampling. Each round runs every configuration once, in an order that rotates from
# round to round, so that drift in the machine falls on all of them alike.
#
# Every run is measured the same way: the workload's measured region, as `pesbench measure
# --json` reports it — under perf record too, where pesbench runs the workload with --facility
# none inside perf. The cost of a sample is what the sampled thread pays: its CPU time over the
# median of the runs without sampling (CLOCK_THREAD_CPUTIME_ID across the region: the interrupts
# and signal handlers it takes, not the time it waits for a CPU other programs hold), divided
# by the samples taken inside the region. perf's samples are counted in the region by their
# symbol (the workload's code), and it samples user mode only (cpu-clock:u), as pesbench does.
# Wall time per sample is printed beside it: on a shared machine it also carries other
# programs' time. A collector (drain mode, perf record) runs on another CPU; its own CPU time
# is not in these figures.
#
# usage: bash bench/peer.sh [PESBENCH]    (make bench-peer)
# env:   FACILITY (timer:cpu-clock)  PERIOD (100000)  WORKLOAD (busy)  ITERATIONS (30000000)
#        REPEAT (5)  PERF_EVENT (cpu-clock:u: the perf event matching FACILITY)
# prints per configuration: samples, CPU ns per sample (min / median / max over the rounds),
# wall ns per sample, and per pesbench mode its CPU cost per sample as a multiple of perf
# record's in the same round (min / median / max).
set -euo pipefail
PB_BIN=${1:-${PB_BIN:-./build/pesbench}}
FACILITY=${FACILITY:-timer:cpu-clock}
PERIOD=${PERIOD:-100000}
WORKLOAD=${WORKLOAD:-busy}
ITERATIONS=${ITERATIONS:-30000000}
REPEAT=${REPEAT:-5}
PERF_EVENT=${PERF_EVENT:-cpu-clock:u}

command -v jq >/dev/null || { echo "peer.sh: needs jq (scripts/install-deps.sh installs it)" >&2; exit 2; }
[ -x "$PB_BIN" ] || { echo "peer.sh: no pesbench at $PB_BIN (make build)" >&2; exit 2; }
have_perf=1
command -v perf >/dev/null || { have_perf=0; echo "peer.sh: perf not found: perf record column skipped" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=(baseline none signal sigtrap drain)
[ $have_perf = 1 ] && configs+=(perf-record)

common=(--workload "$WORKLOAD" --iterations "$ITERATIONS" --json)
run_one() { # config round -> "round wall_ns cpu_ns samples" on stdout
	local c=$1 r=$2 out=$work/out.json
	case $c in
	baseline) "$PB_BIN" measure --facility none "${common[@]}" >"$out" ;;
	perf-record)
		perf record -q -e "$PERF_EVENT" -c "$PERIOD" -o "$work/perf.data" -- \
			"$PB_BIN" measure --facility none "${common[@]}" >"$out" 2>"$work/perf.err"
		# perf samples the whole process: count those in the workload's code only, the
		# region pesbench's modes sample.
		local n
		n=$(perf script -i "$work/perf.data" -F ip,sym 2>/dev/null | grep -c "pb_wl_${WORKLOAD}_" || true)
		echo "$r $(jq -r '.wall_ns' "$out") $(jq -r '.cpu_ns[0]' "$out") $n"
		return ;;
	*) "$PB_BIN" measure --facility "$FACILITY" --period "$PERIOD" --delivery "$c" \
		"${common[@]}" >"$out" ;;
	esac
	echo "$r $(jq -r '.wall_ns' "$out") $(jq -r '.cpu_ns[0]' "$out") $(jq -r '.events[0].observed // 0' "$out")"
}

echo "peer comparison: $FACILITY period $PERIOD on $WORKLOAD ($ITERATIONS iterations), $REPEAT interleaved rounds"
n=${#configs[@]}
for ((r = 1; r <= REPEAT; r++)); do
	for ((k = 0; k < n; k++)); do
		c=${configs[$(((k + r - 1) % n))]}
		run_one "$c" "$r" >>"$work/$c.txt"
	done
done

# Per round and configuration: ns per sample on CPU time and on wall time against the median of
# every round's baseline (the same work's CPU time varies ~1 % from run to run with the
# machine's load, not with time: one baseline per round put that noise into every round's
# figure); then min / median / max over the rounds, and each mode's ratio to perf record's in
# the same round.
stats() { sort -g | awk '{v[NR] = $1} END {
	if (!NR) { printf "%s", "-"; exit }
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%s / %s / %s", v[1], m, v[NR] }'; }
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
base_wall=$(cut -d' ' -f2 "$work/baseline.txt" | median)
base_cpu=$(cut -d' ' -f3 "$work/baseline.txt" | median)
for c in "${configs[@]}"; do
	[ "$c" = baseline ] && continue
	awk -v bw="$base_wall" -v bc="$base_cpu" '{
		s = $4; cpu = 0; wall = 0
		if (s > 0) { cpu = ($3 - bc) / s; wall = ($2 - bw) / s }
		printf "%d %.0f %.0f %d\n", $1, cpu, wall, s }' "$work/$c.txt" >"$work/$c.per"
done
printf '%-12s %9s  %-28s  %-28s  %s\n' config samples "CPU ns/sample min/med/max" \
	"wall ns/sample min/med/max" "CPU cost / perf record's, min/med/max"
for c in "${configs[@]}"; do
	if [ "$c" = baseline ]; then
		printf '%-12s %9s  %-28s  %-28s  %s\n' baseline 0 \
			"$(awk '{printf "%.3f\n", $3 / 1e6}' "$work/baseline.txt" | stats) ms CPU" \
			"$(awk '{printf "%.3f\n", $2 / 1e6}' "$work/baseline.txt" | stats) ms" -
		continue
	fi
	ratio=-
	if [ $have_perf = 1 ] && [ "$c" != perf-record ]; then
		ratio=$(join <(sort -k1,1 "$work/$c.per") <(sort -k1,1 "$work/perf-record.per") |
			awk '$5 > 0 {printf "%.2f\n", $2 / $5}' | stats)
	fi
	printf '%-12s %9s  %-28s  %-28s  %s\n' "$c" \
		"$(cut -d' ' -f4 "$work/$c.per" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')" \
		"$(cut -d' ' -f2 "$work/$c.per" | stats)" "$(cut -d' ' -f3 "$work/$c.per" | stats)" \
		"$ratio"
done
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
