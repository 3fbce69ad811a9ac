#!/bin/bash
# `pesbench attr` as a user debugging a facility runs it: on the constructed AMD machines the
# attr and model of ibs-op follow the facility's rules (ops counted by default, cycles on
# request with the kernel's count as basis, swfilt the only way to leave out the kernel).
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
source "$PB_SOURCE_DIR/tests/lib/cli.sh"
FIX="$PB_SOURCE_DIR/tests/fixtures"
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["attr"].get(sys.argv[2], d.get(sys.argv[2])); print(str(v).lower() if isinstance(v,bool) else v)' "$1" "$2"; }

expect_exit 0 "attr ibs-op on zen4" "$PB_BIN" attr ibs-op --root "$FIX/sysfs-zen4" --json
cp "$work/out" "$work/ops.json"
check "[ \$(( \$(field '$work/ops.json' config) >> 19 & 1 )) = 1 ]" "ibs-op sets cnt_ctl (config:19)"
check "[ \"\$(field '$work/ops.json' basis)\" = declared ]" "ibs-op's basis is the declared ops"
check "[ \"\$(field '$work/ops.json' ip)\" = exact ]" "ibs-op's IP is exact"

expect_exit 0 "attr ibs-op:cycles on zen4" "$PB_BIN" attr ibs-op:cycles --root "$FIX/sysfs-zen4" --json
cp "$work/out" "$work/cycles.json"
check "[ \$(( \$(field '$work/cycles.json' config) >> 19 & 1 )) = 0 ]" "ibs-op:cycles leaves cnt_ctl clear"
check "[ \"\$(field '$work/cycles.json' basis)\" = count ]" "ibs-op:cycles' basis is the kernel's count, not instructions"

expect_exit 0 "attr ibs-op:swfilt on zen5" "$PB_BIN" attr ibs-op:swfilt --root "$FIX/sysfs-zen5" --json
cp "$work/out" "$work/swfilt.json"
check "[ \$(( \$(field '$work/swfilt.json' config2) & 1 )) = 1 ]" "ibs-op:swfilt sets swfilt (config2:0)"
check "[ \"\$(field '$work/swfilt.json' exclude_kernel)\" = 1 ]" "ibs-op:swfilt leaves out the kernel"

# the text form names the fields as the kernel header does
expect_exit 0 "attr text" "$PB_BIN" attr ibs-op --root "$FIX/sysfs-zen4"
check "grep -qE '^  config +0x80000$' '$work/out'" "text shows config"
check "grep -qE '^  basis +declared$' '$work/out'" "text shows the basis"

# bad input
expect_exit 2 "attr without a spec" "$PB_BIN" attr
check "grep -q 'give a facility spec' '$work/err'" "names what is missing"
expect_exit 2 "attr on a missing tree" "$PB_BIN" attr ibs-op --root "$work/none"
expect_exit 2 "attr of an unknown facility" "$PB_BIN" attr frob

echo "cli_attr: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
