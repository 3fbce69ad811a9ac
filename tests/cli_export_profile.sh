#!/usr/bin/env bash
# `pesbench profile -g --export ...`: the sampled profile and callgrind's exact one, in one
# symbol space, in every format, checked by judges no one here wrote:
# - protoc with Google's profile.proto decodes both pprof files; the exact one's instructions per
#   function equal callgrind_annotate's (valgrind's own reader of the same kind of run) for the
#   program's four functions; both files share their value types (what pprof -diff_base needs)
#   and the sampled file's leaf addresses in leaf_a are addresses the exact file holds;
# - the speedscope file holds both profiles and validates against speedscope's schema;
# - the sampled folded stacks carry the call chains (main;outer;middle;leaf_a), the exact
#   ones name the same functions.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 77; }
command -v callgrind_annotate >/dev/null || { echo "callgrind_annotate is not installed"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
work=$(mktemp -d /tmp/pb_export_profile.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
. "$root/tests/lib/export_judges.sh"
why=$(pprof_judge_missing)
[ -z "$why" ] || { echo "the pprof judge cannot run: $why"; exit 77; }
source "$root/tests/lib/verdict.sh"
[ "$(facility_verdict timer)" = works ] || { echo "timer sampling does not work here"; exit 77; }

cc -O0 -g -fno-omit-frame-pointer -o "$work/chains" "$root/tests/programs/chains.c" || { echo "cannot compile"; exit 77; }

"$PB_BIN" profile -g --period 100000 --json --export "pprof:$work/p.pb.gz" \
	--export "speedscope:$work/p.json" --export "folded:$work/p.folded" -- "$work/chains" 1000000 \
	>"$work/profile.json" 2>"$work/profile.err" ||
	{ fail "profile --export failed: $(tail -3 "$work/profile.err")"; exit 1; }
for f in p.pb.gz p.exact.pb.gz p.json p.folded p.exact.folded; do
	[ -s "$work/$f" ] || fail "profile --export wrote no $f"
	grep -q "wrote $work/$f" "$work/profile.err" || fail "profile does not say it wrote $f"
done

for name in p p.exact; do
	pprof_decode "$work/$name.pb.gz" "$work/$name.txt" ||
		{ fail "$name: protoc cannot decode it: $(head -2 "$work/$name.txt.err")"; continue; }
	judge_py pprof-check "$work/$name.txt" >"$work/$name.bad" || fail "$name: $(head -2 "$work/$name.bad")"
done

# the value types of both files, as protoc prints them resolved through the string table
types() { /usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[2]); import profile_judge as j
p, s, _ = j.pprof(sys.argv[1])
print(" ".join(s[j.first(t, "type")] + "/" + s[j.first(t, "unit")] for t in p["sample_type"]))' "$1" "$root/tests/lib"; }
ts=$(types "$work/p.txt")
te=$(types "$work/p.exact.txt")
echo "value types: sampled [$ts], exact [$te]"
[ "$ts" = "$te" ] || fail "the two pprof files have different value types: pprof -diff_base refuses them"

# exact instructions per function against callgrind_annotate on a run of its own
valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$work/chains" 1000000 >/dev/null 2>&1 ||
	fail "valgrind --tool=callgrind failed"
callgrind_annotate --threshold=100 "$work/cg.out" 2>/dev/null |
	sed -nE 's/^ *([0-9,]+) +\( *[0-9.]+%\) +[^ ]*:(leaf_a|leaf_b|middle|outer) \[.*/\2 \1/p' | tr -d , |
	sort >"$work/annotate.ir"
judge_py pprof-folded "$work/p.exact.txt" 1 |
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n } END { for (x in s) print x, s[x] }' |
	grep -E '^(leaf_a|leaf_b|middle|outer) ' | sort >"$work/exact.ir"
echo "callgrind_annotate: $(tr '\n' ' ' <"$work/annotate.ir")"
echo "exact pprof:        $(tr '\n' ' ' <"$work/exact.ir")"
[ "$(wc -l <"$work/annotate.ir")" = 4 ] || fail "callgrind_annotate did not list the four functions"
cmp -s "$work/annotate.ir" "$work/exact.ir" ||
	fail "the exact profile's instructions per function differ from callgrind_annotate's"

# one symbol space: the sampled leaf addresses of leaf_a are executed addresses of the exact file
/usr/bin/python3 - "$work/p.txt" "$work/p.exact.txt" "$root/tests/lib" >"$work/space" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import profile_judge as j
def leaf_locs(path):
    p, s, locs = j.pprof(path)
    maps = {j.first(m, "id"): s[j.first(m, "filename")] for m in p["mapping"]}
    mapping = {j.first(l, "id"): maps.get(j.first(l, "mapping_id"), "") for l in p["location"]}
    return {(mapping[i], a) for i, (a, names) in locs.items() if names == ["leaf_a"]}
sampled, exact = leaf_locs(sys.argv[1]), leaf_locs(sys.argv[2])
print(len(sampled), len(sampled - exact), len(exact))
PY
read -r ns nout ne <"$work/space"
echo "leaf_a: $ns sampled addresses, $nout of them not executed per the exact file ($ne executed)"
[ "${ns:-0}" -gt 0 ] && [ "${nout:-1}" = 0 ] || fail "the sampled and exact files do not share their addresses"

if spd=$(bash "$root/scripts/fetch-speedscope.sh" 2>"$work/fetch.err"); then
	judge_py speedscope-validate "$work/p.json" "$spd/dist/release/file-format-schema.json" \
		2>"$work/schema.err" || fail "speedscope: schema: $(tail -2 "$work/schema.err")"
	n=$(/usr/bin/python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["profiles"]))' "$work/p.json")
	[ "$n" = 2 ] || fail "speedscope: $n profiles, expected the sampled and the exact one"
	judge_py speedscope-folded "$work/p.json" 0 >"$work/spd.folded"
	sort "$work/p.folded" | cmp -s - "$work/spd.folded" ||
		fail "speedscope's sampled profile and the folded file differ"
else
	skip_checks 3 "speedscope: $(tail -1 "$work/fetch.err")"
fi
grep -q '^__libc_start_call_main;main;outer;middle;leaf_a [0-9]' "$work/p.folded" ||
	fail "the sampled folded stacks lack main;outer;middle;leaf_a: $(head -3 "$work/p.folded")"
grep -q '^leaf_a [0-9]' "$work/p.exact.folded" || fail "the exact folded stacks lack leaf_a"

[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "all profile export checks passed"
