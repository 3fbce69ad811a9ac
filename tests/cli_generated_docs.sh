#!/usr/bin/env bash
# The facility tables in README.md and docs/facilities.md are `pesbench facilities --markdown`
# as the code says it now; a stale block fails with the diff. The check itself is shown to
# catch a stale block on a copy.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bash "$PB_SOURCE_DIR/scripts/gen-docs.sh" "$PB_BIN" --check || fail "a generated block is stale"

# on a copy with one cell changed the check must fail, and regenerating must repair it
work=$(mktemp -d /tmp/pb_gendocs.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/docs"
cp "$PB_SOURCE_DIR/scripts/gen-docs.sh" "$work/scripts/"
cp "$PB_SOURCE_DIR/README.md" "$work/"
cp "$PB_SOURCE_DIR/docs/facilities.md" "$work/docs/"
sed -i 's/| `timer` | `timer:cpu-clock` | `accuracy` | time |/| `timer` | `timer:cpu-clock` | `accuracy` | declared |/' "$work/docs/facilities.md"
bash "$work/scripts/gen-docs.sh" "$PB_BIN" --check >/dev/null && fail "a stale block passed the check"
bash "$work/scripts/gen-docs.sh" "$PB_BIN" >/dev/null
bash "$work/scripts/gen-docs.sh" "$PB_BIN" --check >/dev/null || fail "regenerating did not repair it"

# the command itself
"$PB_BIN" facilities --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
names = [r["facility"] for r in rows]
assert "timer" in names and "ibs-op" in names, names
t = next(r for r in rows if r["facility"] == "timer")
assert t["basis"] == "time" and t["time_based"], t
o = next(r for r in rows if r["facility"] == "ibs-op")
assert o["basis"] == "declared" and "multiples of 16" in o["periods"], o
' || fail "facilities --json"
"$PB_BIN" facilities --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown option must exit 2"
"$PB_BIN" facilities --json --markdown >/dev/null 2>&1; [ $? -eq 2 ] || fail "--json --markdown must exit 2"
[ $fails -eq 0 ] && echo "ok: generated docs current" || exit 1
