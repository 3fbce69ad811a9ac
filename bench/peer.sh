#!/usr/bin/env bash
# Peer comparison (a benchmark, not a test): one workload, one facility and period, sampled by
# pesbench in each delivery mode (none, signal, sigtrap, drain) and by `perf record`, next to a
# run without sampling. Each round runs every configuration once, in an order that rotates from
# round to round, so that drift in the machine falls on all of them alike.
#
# What the sampled thread pays. Every run is measured the same way: the workload's measured
# region, as `pesbench measure --json` reports it — under perf record too, where pesbench runs
# the workload with --facility none inside perf. The cost of a sample is the sampled thread's
# CPU time over the median of the runs without sampling (CLOCK_THREAD_CPUTIME_ID across the
# region: the interrupts and signal handlers it takes, not the time it waits for a CPU other
# programs hold), divided by the samples taken inside the region. perf's samples are counted in
# the region by their symbol (the workload's code), and it samples user mode only
# (cpu-clock:u). Wall time per sample is printed beside it: on a shared machine it also carries
# other programs' time. Each pesbench mode's cost is a multiple of perf record's in the same
# round; the median of those ratios comes with a distribution-free confidence interval (order
# statistics of the rounds: the interval between the k-th smallest and k-th largest ratio
# covers the median ratio with the binomial probability printed, >= 95 %; fewer than 6 rounds
# cannot give one).
#
# What the engine itself pays, where it has a reader of its own: drain mode's collector thread
# (`collector_cpu_ns`, its whole life, fixed costs included) and the perf record process (its
# own CPU time from `perf stat --no-inherit`, which leaves out the workload it starts), less
# perf record's fixed cost: the median of perf record runs at a period 1000 times as long
# (perf-few), which take a few samples, so that perf's work for the files they hit (build
# ids) is in the fixed cost as well. Each per sample the reader handled (perf: every sample
# in its file; for perf-few's fixed cost, beyond its own few).
#
# usage: bash bench/peer.sh [PESBENCH]    (make bench-peer)
# env:   FACILITY (timer:cpu-clock)  PERIOD (100000)  WORKLOAD (busy)  ITERATIONS (30000000)
#        REPEAT (5)  PERF_EVENT (cpu-clock:u: the perf event matching FACILITY)
#        MODES (none signal sigtrap drain: the pesbench delivery modes to run)
#        READERS (1; 0 leaves out the engine's own reader and its perf-few runs)
#        KEEP (a directory: each configuration's raw runs are copied there, CONFIG.txt)
# Fails (exit 1) if any run lost or throttled samples, or if the kernel's
# perf_event_max_sample_rate changed during the benchmark (the kernel lowers it on its own
# when sample interrupts take too long): a figure taken at another rate is not this period's.
set -euo pipefail
PB_BIN=${1:-${PB_BIN:-./build/pesbench}}
FACILITY=${FACILITY:-timer:cpu-clock}
PERIOD=${PERIOD:-100000}
WORKLOAD=${WORKLOAD:-busy}
ITERATIONS=${ITERATIONS:-30000000}
REPEAT=${REPEAT:-5}
PERF_EVENT=${PERF_EVENT:-cpu-clock:u}
MODES=${MODES:-none signal sigtrap drain}
FEW_PERIOD=$((PERIOD * 1000))

command -v jq >/dev/null || { echo "peer.sh: needs jq (scripts/install-deps.sh installs it)" >&2; exit 2; }
[ -x "$PB_BIN" ] || { echo "peer.sh: no pesbench at $PB_BIN (make build)" >&2; exit 2; }
have_perf=1
command -v perf >/dev/null || { have_perf=0; echo "peer.sh: perf not found: perf record column skipped" >&2; }
rate_file=/proc/sys/kernel/perf_event_max_sample_rate
rate_before=$(cat "$rate_file" 2>/dev/null || echo "?")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read -ra modes <<<"$MODES"
configs=(baseline "${modes[@]}")
READERS=${READERS:-1}
[ $have_perf = 1 ] && configs+=(perf-record)
[ $have_perf = 1 ] && [ "$READERS" = 1 ] && configs+=(perf-few)

common=(--workload "$WORKLOAD" --iterations "$ITERATIONS" --json)
# Each run appends one line to its configuration's file (the order of runs is kept):
#   round wall_ns cpu_ns region_samples reader_cpu_ns reader_samples lost throttles
perf_run() { # period -> the perf figures after the region's: "reader_ns all_samples lost throttles"
	perf stat --no-inherit -x, -e task-clock -o "$work/stat.txt" -- \
		perf record -q -e "$PERF_EVENT" -c "$1" -o "$work/perf.data" -- \
		"$PB_BIN" measure --facility none "${common[@]}" >"$work/out.json" 2>"$work/perf.err"
	# perf stat -x: msec,unit,event,...; the perf record process alone (no inherit)
	awk -F, '$3 ~ /^task-clock/ {printf "%.0f ", $1 * 1e6}' "$work/stat.txt"
	perf report --stats -i "$work/perf.data" 2>/dev/null | awk '
		/^ *SAMPLE events:/ && !s {s = $3} /^ *LOST events:/ && !l {l = $3}
		/^ *THROTTLE events:/ && !t {t = $3} END {printf "%d %d %d", s, l, t}'
}
run_one() { # config round -> one line on stdout
	local c=$1 r=$2 out=$work/out.json n engine
	case $c in
	baseline)
		"$PB_BIN" measure --facility none "${common[@]}" >"$out"
		echo "$r $(jq -r '"\(.wall_ns) \(.cpu_ns[0])"' "$out") 0 0 0 0 0" ;;
	perf-record)
		engine=$(perf_run "$PERIOD")
		# perf samples the whole process: count those in the workload's code only, the
		# region pesbench's modes sample.
		n=$(perf script -i "$work/perf.data" -F ip,sym 2>/dev/null | grep -c "pb_wl_${WORKLOAD}_" || true)
		echo "$r $(jq -r '"\(.wall_ns) \(.cpu_ns[0])"' "$out") $n $engine" ;;
	perf-few)
		engine=$(perf_run "$FEW_PERIOD")
		echo "$r $(jq -r '"\(.wall_ns) \(.cpu_ns[0])"' "$out") 0 $engine" ;;
	*)
		"$PB_BIN" measure --facility "$FACILITY" --period "$PERIOD" --delivery "$c" \
			"${common[@]}" >"$out"
		jq -r --arg r "$r" '.events[0] as $e | "\($r) \(.wall_ns) \(.cpu_ns[0]) \($e.observed)" +
			" \(.collector_cpu_ns // 0) \($e.observed) \($e.lost) \($e.throttles)"' "$out" ;;
	esac
}

echo "peer comparison: $FACILITY period $PERIOD on $WORKLOAD ($ITERATIONS iterations), $REPEAT interleaved rounds"
echo "(load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); perf_event_max_sample_rate $rate_before)"
n=${#configs[@]}
for ((r = 1; r <= REPEAT; r++)); do
	for ((k = 0; k < n; k++)); do
		c=${configs[$(((k + r - 1) % n))]}
		run_one "$c" "$r" >>"$work/$c.txt"
	done
done
rate_after=$(cat "$rate_file" 2>/dev/null || echo "?")
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	for c in "${configs[@]}"; do cp "$work/$c.txt" "$KEEP/"; done
fi

# Per round and configuration: ns per sample on CPU time and on wall time against the median of
# every round's baseline (the same work's CPU time varies ~1 % from run to run with the
# machine's load, not with time: one baseline per round put that noise into every round's
# figure); then min / median / max over the rounds, and each mode's ratio to perf record's in
# the same round.
stats() { sort -g | awk '{v[NR] = $1} END {
	if (!NR) { printf "%s", "-"; exit }
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%s / %s / %s", v[1], m, v[NR] }'; }
. "$(dirname "$0")/median.sh"
base_wall=$(cut -d' ' -f2 "$work/baseline.txt" | median)
base_cpu=$(cut -d' ' -f3 "$work/baseline.txt" | median)
for c in "${configs[@]}"; do
	case $c in baseline | perf-few) continue ;; esac
	awk -v bw="$base_wall" -v bc="$base_cpu" '{
		s = $4; cpu = 0; wall = 0; reader = 0
		if (s > 0) { cpu = ($3 - bc) / s; wall = ($2 - bw) / s }
		printf "%d %.0f %.0f %d %s %s\n", $1, cpu, wall, s, $5, $6 }' "$work/$c.txt" >"$work/$c.per"
done
ratio_of() { # config column(2: sampled thread) -> one ratio per round to perf record's
	join <(sort -k1,1 "$work/$1.per") <(sort -k1,1 "$work/perf-record.per") |
		awk -v c="$2" '$(c + 5) > 0 {printf "%.3f\n", $c / $(c + 5)}'
}
ci_text() { # ratios on stdin -> "[lo, hi] (cover %), below/spans/above 1"
	local ci; ci=$(median_ci)
	set -- $ci
	[ "$1" = - ] && { printf '%s' "no CI under 6 rounds"; return; }
	local where="spans 1"
	awk -v h="$2" 'BEGIN {exit !(h < 1)}' && where="below 1"
	awk -v l="$1" 'BEGIN {exit !(l > 1)}' && where="above 1"
	printf '[%s, %s] (%s %%), %s' "$1" "$2" "$3" "$where"
}
printf '%-12s %7s  %-26s  %-26s  %-20s  %s\n' config samples "CPU ns/sample min/med/max" \
	"wall ns/sample min/med/max" "x perf record min/med/max" "95% CI of the median"
for c in "${configs[@]}"; do
	if [ "$c" = baseline ]; then
		printf '%-12s %7s  %-26s  %-26s\n' baseline 0 \
			"$(awk '{printf "%.2f\n", $3 / 1e6}' "$work/baseline.txt" | stats) ms" \
			"$(awk '{printf "%.2f\n", $2 / 1e6}' "$work/baseline.txt" | stats) ms"
		continue
	fi
	[ "$c" = perf-few ] && continue
	ratio=- ci=
	if [ $have_perf = 1 ] && [ "$c" != perf-record ]; then
		ratio=$(ratio_of "$c" 2 | stats)
		ci=$(ratio_of "$c" 2 | ci_text)
	fi
	printf '%-12s %7s  %-26s  %-26s  %-20s  %s\n' "$c" \
		"$(cut -d' ' -f4 "$work/$c.per" | median)" \
		"$(cut -d' ' -f2 "$work/$c.per" | stats)" "$(cut -d' ' -f3 "$work/$c.per" | stats)" \
		"$ratio" "$ci"
done

# The engine's own reader, per sample it handled.
engine_rows=()
if [ "$READERS" = 1 ]; then
	[[ " ${modes[*]} " == *" drain "* ]] && engine_rows+=(drain)
	[ $have_perf = 1 ] && engine_rows+=(perf-record)
fi
if [ ${#engine_rows[@]} -gt 0 ]; then
	fixed_ns=0 fixed_samples=0
	if [ $have_perf = 1 ]; then
		fixed_ns=$(cut -d' ' -f5 "$work/perf-few.txt" | median)
		fixed_samples=$(cut -d' ' -f6 "$work/perf-few.txt" | median)
	fi
	echo
	echo "the engine's own reader (not the sampled thread): CPU ns per sample it handled,"
	echo "min / median / max and the median's 95% CI"
	[ $have_perf = 1 ] && printf '  perf record fixed cost (perf-few, period %s, %s samples): %s ms CPU\n' \
		"$FEW_PERIOD" "$fixed_samples" "$(awk '{printf "%.2f\n", $5 / 1e6}' "$work/perf-few.txt" | stats)"
	for c in "${engine_rows[@]}"; do
		f=0 fs=0 what="collector thread, its whole life"
		[ "$c" = perf-record ] && f=$fixed_ns fs=$fixed_samples what="perf process less perf-few's median"
		awk -v f="$f" -v fs="$fs" '$6 > fs {printf "%d %.0f\n", $1, ($5 - f) / ($6 - fs)}' \
			"$work/$c.txt" >"$work/$c.eng"
		printf '  %-12s %-22s  %-28s  (%s)\n' "$c" "$(cut -d' ' -f2 "$work/$c.eng" | stats)" \
			"$(cut -d' ' -f2 "$work/$c.eng" | ci_text | sed 's/, [a-z]* 1$//')" "$what"
	done
fi

echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); perf_event_max_sample_rate $rate_after)"
bad=0
for c in "${configs[@]}"; do
	awk -v c="$c" '$7 + $8 > 0 {printf "peer.sh: %s round %d lost %d and throttled %d samples\n",
		c, $1, $7, $8; bad = 1} END {exit bad}' "$work/$c.txt" >&2 || bad=1
done
if [ "$rate_before" != "$rate_after" ]; then
	echo "peer.sh: perf_event_max_sample_rate changed from $rate_before to $rate_after during the run" >&2
	bad=1
fi
exit $bad
