#!/usr/bin/env bash
# The engine benchmark (make bench-engine): for one facility and period, the per-sample
# overhead of pesbench's delivery modes none/signal/sigtrap/drain and of perf record on the
# same workload, as ratios to a run without sampling. It is the peer comparison with longer
# runs; FACILITY, PERIOD, WORKLOAD, ITERATIONS and REPEAT (default 5) override, see peer.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# runs of ~0.6 s: long enough that the per-sample costs stand above run-to-run noise
ITERATIONS=${ITERATIONS:-600000000} REPEAT=${REPEAT:-5} exec bash "$here/peer.sh" "${1:-./build/pesbench}"
