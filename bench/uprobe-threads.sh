#!/bin/sh
# The pesbench side of bench/uprobe-threads.c: CPU cost per uprobe hit on 1 and 2 threads of one
# process, single-stepped site (pb_wl_busy_add) and emulated one (pb_wl_busy_back), at a period
# of 10^9 (no samples) and 1, with the busy loop's own cost (--facility none) each round; the
# order is fixed within a round, 1 and 2 threads next to each other. One row per run on stdout:
#   round site threads period iterations cpu_ns... | count observed lost unpinned_threads
# Usage: sh bench/uprobe-threads.sh [ROUNDS] [PESBENCH]  (run from the source tree)
R=${1:-12}
B=${2:-./build/pesbench}
for r in $(seq 1 "$R"); do
	for cfg in "add 1 1000000000" "add 2 1000000000" "add 1 1" "add 2 1" \
		"back 1 1000000000" "back 2 1000000000" "back 1 1" "back 2 1"; do
		set -- $cfg
		if [ "$1" = add ]; then it=10000; else it=200000; fi
		"$B" measure --facility uprobe --workload busy --label "pb_wl_busy_$1" --threads "$2" \
			--period "$3" --iterations "$it" --json |
			python3 -c 'import json,sys; d=json.load(sys.stdin); e=d["events"][0]; print(" ".join(map(str, d["cpu_ns"])), "|", e["count"], e["observed"], e["lost"], d["unpinned_threads"])' |
			sed "s/^/$r\t$1\t$2\t$3\t$it\t/"
	done
	for t in 1 2; do
		"$B" measure --facility none --workload busy --threads "$t" --iterations 200000 --json |
			python3 -c 'import json,sys; print(" ".join(map(str, json.load(sys.stdin)["cpu_ns"])))' |
			sed "s/^/$r\tnone\t$t\t0\t200000\t/"
	done
done
