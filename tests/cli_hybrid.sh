#!/bin/bash
# `pesbench probe` on the hybrid machines of tests/fixtures (an Alder Lake, an Arm big.LITTLE
# board): every core PMU is listed with the CPUs it covers, in text and in --json.
set -u
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
source "$PB_SOURCE_DIR/tests/lib/cli.sh"
FIX="$PB_SOURCE_DIR/tests/fixtures"

expect_exit 0 "probe of the Alder Lake" "$PB_BIN" probe --root "$FIX/sysfs-adl"
check 'grep -qE "^  core PMUs +cpu_atom \(type 8\), CPUs 16-23$" "$work/out"' \
	"the Alder Lake's cpu_atom and its CPUs: $(grep -A3 'core PMU' "$work/out")"
check 'grep -qE "^ +cpu_core \(type 4\), CPUs 0-15, 12 counters" "$work/out"' \
	"the Alder Lake's cpu_core and its CPUs: $(grep -A3 'core PMU' "$work/out")"
check '! grep -A3 "core PMUs" "$work/out" | awk "length > 100" | grep -q .' \
	"core PMU lines wider than 100 columns"
expect_exit 0 "probe --json of the Alder Lake" "$PB_BIN" probe --json --root "$FIX/sysfs-adl"
check 'python3 -c "
import json, sys
pmus = {p[\"name\"]: p for p in json.load(open(sys.argv[1]))[\"machine\"][\"core_pmus\"]}
assert set(pmus) == {\"cpu_core\", \"cpu_atom\"}, pmus
assert pmus[\"cpu_core\"][\"cpus\"] == \"0-15\" and pmus[\"cpu_atom\"][\"cpus\"] == \"16-23\", pmus
assert pmus[\"cpu_atom\"][\"max_precise\"] == 3 and pmus[\"cpu_atom\"][\"precise_opened\"] is None
" "$work/out"' "probe --json core_pmus of the Alder Lake: $(head -c 300 "$work/err")"

expect_exit 0 "probe of the big.LITTLE board" "$PB_BIN" probe --root "$FIX/sysfs-biglittle"
check 'grep -qE "^  core PMUs +armv8_cortex_a55 \(type 8\), CPUs 0-3, 7 counters" "$work/out"' \
	"the little cores' PMU: $(grep -A2 'core PMU' "$work/out")"
check 'grep -qE "^ +armv8_cortex_a76 \(type 9\), CPUs 4-7$" "$work/out"' \
	"the big cores' PMU: $(grep -A2 'core PMU' "$work/out")"

# one core PMU: listed alone, as before
expect_exit 0 "probe of the Skylake" "$PB_BIN" probe --root "$FIX/sysfs-skl"
check 'grep -qE "^  core PMU +cpu \(type 4\)" "$work/out" && ! grep -q "core PMUs" "$work/out"' \
	"the Skylake's one core PMU: $(grep -A1 'core PMU' "$work/out")"

echo "cli_hybrid: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
