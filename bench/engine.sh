#!/usr/bin/env bash
# The engine benchmark (make bench-engine): for one facility and period, the per-sample
# overhead of pesbench's delivery modes none/signal/sigtrap/drain and of perf record on the
# same workload, as ratios to a run without sampling. It is the peer comparison with fewer
# rounds; FACILITY, PERIOD, WORKLOAD, ITERATIONS and REPEAT (default 3) override, see peer.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPEAT=${REPEAT:-3} exec bash "$here/peer.sh" "${1:-./build/pesbench}"
