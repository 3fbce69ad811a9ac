#!/bin/bash
# The last step of `make check-arm64` and `make check-riscv64`: this machine's run and the
# guests' runs side by side, as a fleet sees several machines. Runs a short suite here, compares
# it with each guest's results folder, and checks: one run per machine, each of its own CPU
# model, each with figures in the tables; each guest's results.jsonl ends with its done record;
# and the results.jsonl files concatenated give the same comparison as the folders.
# Usage: tests/fleet/machines-compare.sh HOST_PESBENCH GUEST_RESULTS_DIR...
# Each GUEST_RESULTS_DIR is a guest check's results folder; its first sub-folder with
# results.json (a `pesbench run --out` of the guest) is used. Prints the comparison; exits 1 on
# a failure.
set -u
pb=${1:?usage: machines-compare.sh HOST_PESBENCH GUEST_RESULTS_DIR...}
shift
[ $# -ge 1 ] || { echo "usage: machines-compare.sh HOST_PESBENCH GUEST_RESULTS_DIR..." >&2; exit 2; }
failures=0
fail() { echo "machines-compare: FAIL: $*" >&2; failures=$((failures + 1)); }
[ -x "$pb" ] || { echo "machines-compare: FAIL: no host pesbench at $pb (make build)" >&2; exit 1; }
guests=()
for root in "$@"; do
	guest=
	for d in "$root"/*/; do
		[ -s "$d/results.json" ] && { guest=${d%/}; break; }
	done
	[ -n "$guest" ] || { echo "machines-compare: FAIL: the guest left no results folder in $root" >&2; exit 1; }
	guests+=("$guest")
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$pb" run accuracy interval --facility timer --runs 2 --threads 1 --target-ms 20 --quiet \
	--out "$work/host" </dev/null || fail "the host run failed (exit $?)"
jsonl=("$work/host/results.jsonl")
for guest in "${guests[@]}"; do
	[ -s "$guest/results.jsonl" ] || fail "the guest's pesbench wrote no results.jsonl in $guest"
	tail -n 1 "$guest/results.jsonl" 2>/dev/null | grep -q '"record":"done"' ||
		fail "the guest's results.jsonl in $guest does not end with its done record"
	jsonl+=("$guest/results.jsonl")
done

"$pb" compare "$work/host" "${guests[@]}" | tee "$work/compare.txt" || fail "compare of the folders failed"
"$pb" compare "$work/host" "${guests[@]}" --json >"$work/folders.json" || fail "compare --json failed"
cat "${jsonl[@]}" >"$work/all.jsonl" 2>/dev/null
"$pb" compare "$work/all.jsonl" --json >"$work/jsonl.json" || fail "compare of the JSONL failed"
python3 - "$work/folders.json" "$work/jsonl.json" "$((1 + ${#guests[@]}))" <<'PY' || fail "the comparison checks failed (above)"
import json, sys
folders, jsonl = (json.load(open(p)) for p in sys.argv[1:3])
machines = int(sys.argv[3])
bad = []
runs = folders["runs"]
if len(runs) != machines:
    bad.append(f"{len(runs)} runs, expected {machines}")
if len({r["cpu_group"] for r in runs}) != machines:
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
    print("machines-compare:", b)
sys.exit(1 if bad else 0)
PY
if [ "$failures" -eq 0 ]; then
	echo "machines-compare: ok: this machine and ${#guests[@]} guest(s) compared, JSONL and folders agree"
fi
[ "$failures" -eq 0 ]
