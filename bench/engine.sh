#!/usr/bin/env bash
# The engine benchmark (make bench-engine): the peer comparison (peer.sh) with long runs and
# enough rounds for a confidence interval, in two passes.
#
# 1. none and drain against perf record at a short period, 20 us: on a machine where a timer
#    sample costs ~13 us the sampled thread then spends about two thirds of its time on
#    samples, and the run-to-run noise of its CPU time (~1 %) is ~0.5 % of the sampling
#    cost; at 100 us the same noise was ~7 % of it. 11 rounds: the median ratio's
#    interval is the 2nd to 10th of them (98.8 %). 20 us is 50000 samples a second, half the
#    kernel's default perf_event_max_sample_rate, and the runs check that nothing was
#    throttled or lost and that the kernel did not lower the rate.
# 2. every delivery mode at 50 us: a signal costs the sampled thread more than 20 us here,
#    and at a period near its cost the thread hardly advances between samples.
#
# PERIOD, ITERATIONS, REPEAT and MODES override the first pass, SIGNAL_PERIOD and
# SIGNAL_REPEAT the second (SIGNAL_REPEAT=0 skips it); FACILITY and WORKLOAD apply to both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pb=${1:-./build/pesbench}
ITERATIONS=${ITERATIONS:-300000000} PERIOD=${PERIOD:-20000} REPEAT=${REPEAT:-11} \
	MODES=${MODES:-none drain} bash "$here/peer.sh" "$pb"
if [ "${SIGNAL_REPEAT:-7}" -gt 0 ]; then
	echo
	ITERATIONS=${SIGNAL_ITERATIONS:-300000000} PERIOD=${SIGNAL_PERIOD:-50000} \
		REPEAT=${SIGNAL_REPEAT:-7} MODES="none signal sigtrap drain" bash "$here/peer.sh" "$pb"
fi
