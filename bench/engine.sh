#!/usr/bin/env bash
# The engine benchmark (make bench-engine): the peer comparison (peer.sh) in three passes, each
# with enough interleaved rounds for a confidence interval of the median. ~4 minutes.
#
# 1. What a sample costs the sampled thread, none and drain against perf record, at a short
#    period, 20 us: on a machine where a timer sample costs ~13 us the thread then spends about
#    two thirds of its CPU time on samples, so the run-to-run noise of the work itself (~1-4 %
#    of it) is a small part of the figure; at 100 us it was ~7 %. Many short runs (31 rounds
#    of ~0.15 s) beat few long ones: the cost of a sample drifts with the machine from run to
#    run, and a round's runs, close in time, drift alike (on 11 rounds of 1 s runs the
#    interval was 3-7 % wide, on 31 of 0.15 s 1-3 %). 20 us is 50000 samples a second, half
#    the kernel's default perf_event_max_sample_rate; every run is checked for throttled and
#    lost samples, and the rate for a change.
# 2. What the engine's own reader costs per sample: drain's collector thread against the perf
#    record process, in long runs (~65000 samples each), as perf's fixed cost (~120 ms of CPU,
#    a few ms of noise) would otherwise drown its cost per sample.
# 3. Every delivery mode at 50 us: a signal costs the sampled thread more than 20 us here, and
#    at a period near its cost the thread hardly advances between samples.
#
# PERIOD, ITERATIONS, REPEAT override pass 1; READER_ITERATIONS, READER_REPEAT pass 2;
# SIGNAL_PERIOD, SIGNAL_ITERATIONS, SIGNAL_REPEAT pass 3; a *_REPEAT of 0 skips its pass.
# FACILITY and WORKLOAD apply to all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pb=${1:-./build/pesbench}
period=${PERIOD:-20000}
rc=0
if [ "${REPEAT:-31}" -gt 0 ]; then
	echo "== 1. the sampled thread's cost per sample"
	ITERATIONS=${ITERATIONS:-100000000} PERIOD=$period REPEAT=${REPEAT:-31} \
		MODES="none drain" READERS=0 bash "$here/peer.sh" "$pb" || rc=1
fi
if [ "${READER_REPEAT:-9}" -gt 0 ]; then
	echo; echo "== 2. the engine's own reader's cost per sample"
	ITERATIONS=${READER_ITERATIONS:-3000000000} PERIOD=$period REPEAT=${READER_REPEAT:-9} \
		MODES="drain" READERS=1 bash "$here/peer.sh" "$pb" || rc=1
fi
if [ "${SIGNAL_REPEAT:-7}" -gt 0 ]; then
	echo; echo "== 3. every delivery mode"
	ITERATIONS=${SIGNAL_ITERATIONS:-300000000} PERIOD=${SIGNAL_PERIOD:-50000} \
		REPEAT=${SIGNAL_REPEAT:-7} MODES="none signal sigtrap drain" READERS=0 \
		bash "$here/peer.sh" "$pb" || rc=1
fi
exit $rc
