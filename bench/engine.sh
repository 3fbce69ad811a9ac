#!/usr/bin/env bash
# The engine benchmark (make bench-engine): for one facility and period, what a sample costs the
# sampled thread (CPU ns per sample over runs without sampling) under pesbench's delivery modes
# none/signal/sigtrap/drain and under perf record on the same workload, and each mode's cost as
# a multiple of perf record's in the same round: min / median / max over interleaved rounds
# (7 by default). It is the peer comparison (peer.sh) with longer runs; FACILITY, PERIOD,
# WORKLOAD, ITERATIONS and REPEAT override.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# runs of ~0.3 s of CPU: long enough that ~3000 samples stand above run-to-run noise
ITERATIONS=${ITERATIONS:-600000000} REPEAT=${REPEAT:-7} exec bash "$here/peer.sh" "${1:-./build/pesbench}"
