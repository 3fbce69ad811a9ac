#!/usr/bin/env bash
# Runs every built fuzz target for N seconds from its seed corpus, JOBS targets at a time (one
# CPU each: libFuzzer runs one process), and fails when any target crashed, naming each with
# the end of its log.
# Usage: scripts/fuzz.sh BUILD_DIR SECONDS (JOBS from the environment, default: the CPUs)
set -euo pipefail
build=$1 seconds=$2 jobs=${JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

fuzz_one() { # TARGET: its verdict in $results/NAME.ok or NAME.failed
	local target=$1 name work seeds
	name=$(basename "$target")
	name=${name#fuzz_}
	work=$(mktemp -d)
	seeds=$root/fuzz/corpus/$name
	[ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null || true
	if "$target" -max_total_time="$seconds" -print_final_stats=1 "$work" 2>"$work.log"; then
		grep -E "stat::number_of_executed_units" "$work.log" | sed "s/^/fuzz: $name: /" \
			>"$results/$name.ok" || true
	else
		tail -40 "$work.log" >"$results/$name.failed"
	fi
	rm -rf "$work" "$work.log"
}

ran=0
for target in "$build"/fuzz_*; do
	[ -x "$target" ] || continue
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	echo "fuzz: $(basename "$target") for ${seconds}s"
	fuzz_one "$target" &
	ran=$((ran + 1))
done
wait
cat "$results"/*.ok 2>/dev/null || true
failed=0
for log in "$results"/*.failed; do
	name=$(basename "$log" .failed)
	cat "$log"
	echo "fuzz: $name FAILED"
	failed=$((failed + 1))
done
finished=$(ls "$results" | wc -l)
if [ "$finished" -ne "$ran" ]; then
	echo "fuzz: $((ran - finished)) of $ran targets left no verdict"
	exit 1
fi
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: $ran targets ran clean, $jobs at a time"
[ "$ran" -gt 0 ]
