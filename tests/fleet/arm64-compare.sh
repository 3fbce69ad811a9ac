#!/bin/bash
# The last step of `make check-arm64` (scripts/check-arm64.sh): this machine's run and the arm64
# guest's run side by side, as a fleet sees two machines. Runs a short suite here, compares it
# with the guest's results folder, and checks: two runs of two CPU models, each with figures in
# the tables; the guest's results.jsonl ends with its done record; and the two results.jsonl
# files concatenated give the same comparison as the two folders.
# Usage: tests/fleet/arm64-compare.sh GUEST_RESULTS_DIR HOST_PESBENCH
# GUEST_RESULTS_DIR is check-arm64's results folder; the first sub-folder with results.json
# (a `pesbench run --out` of the guest) is used. Prints the comparison; exits 1 on a failure.
set -u
guest_root=${1:?usage: arm64-compare.sh GUEST_RESULTS_DIR HOST_PESBENCH}
pb=${2:?usage: arm64-compare.sh GUEST_RESULTS_DIR HOST_PESBENCH}
failures=0
fail() { echo "arm64-compare: FAIL: $*" >&2; failures=$((failures + 1)); }
[ -x "$pb" ] || { echo "arm64-compare: FAIL: no host pesbench at $pb (make build)" >&2; exit 1; }
guest=
for d in "$guest_root"/*/; do
	[ -s "$d/results.json" ] && { guest=${d%/}; break; }
done
[ -n "$guest" ] || { echo "arm64-compare: FAIL: the guest left no results folder in $guest_root" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$pb" run accuracy interval --facility timer --runs 2 --threads 1 --target-ms 20 --quiet \
	--out "$work/host" </dev/null || fail "the host run failed (exit $?)"
[ -s "$guest/results.jsonl" ] || fail "the guest's pesbench wrote no results.jsonl in $guest"
tail -n 1 "$guest/results.jsonl" 2>/dev/null | grep -q '"record":"done"' ||
	fail "the guest's results.jsonl does not end with its done record"

"$pb" compare "$work/host" "$guest" | tee "$work/compare.txt" || fail "compare of the folders failed"
"$pb" compare "$work/host" "$guest" --json >"$work/folders.json" || fail "compare --json failed"
cat "$work/host/results.jsonl" "$guest/results.jsonl" >"$work/both.jsonl" 2>/dev/null
"$pb" compare "$work/both.jsonl" --json >"$work/jsonl.json" || fail "compare of the JSONL failed"
python3 - "$work/folders.json" "$work/jsonl.json" <<'PY' || fail "the comparison checks failed (above)"
import json, sys
folders, jsonl = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
runs = folders["runs"]
if len(runs) != 2:
    bad.append(f"{len(runs)} runs, expected 2")
if len({r["cpu_group"] for r in runs}) != 2:
    bad.append("the two machines are not told apart by CPU model: "
               + ", ".join(r["cpu_group"] for r in runs))
for i, r in enumerate(runs):
    cells = [row["cells"][i] for t in folders["tables"] for row in t["rows"]]
    if not any(cells):
        bad.append(f"run {r['name']} ({r['label']}, {r['cpu_group']}) has no figure in any table")
for d in (folders, jsonl):
    for r in d["runs"]:
        r.pop("source", None)
if folders != jsonl:
    bad.append("the concatenated results.jsonl files do not compare as the folders do")
for b in bad:
    print("arm64-compare:", b)
sys.exit(1 if bad else 0)
PY
if [ "$failures" -eq 0 ]; then
	echo "arm64-compare: ok: this machine and the guest compared, JSONL and folders agree"
fi
[ "$failures" -eq 0 ]
