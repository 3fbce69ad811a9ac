#!/usr/bin/env bash
# Writes every deterministic output of a pesbench binary into OUTDIR, from fixed inputs only
# (the committed fixtures, results files, capture bundles and perf.data files of a source
# tree), so that two binaries' snapshots can be compared byte for byte (output-compare.sh).
# docs/outputs.md lists what is snapshotted, what is left out and why, and the filter.
#
# usage: scripts/output-snapshot.sh [--source DIR] [--tests BUILD_DIR] BIN OUTDIR
#   --source DIR      the tree whose committed inputs are used (default: the tree holding this
#                     script); give both binaries the same one
#   --tests BUILD_DIR also the fake-kernel results: the run records and points of the test
#                     programs there that compute results under the constructed kernel
# Exit 0 when written, 2 for bad usage (OUTDIR not empty, BIN not runnable, no inputs).
set -u
export LC_ALL=C TZ=UTC
unset PB_GNUPLOT

usage() {
	echo "usage: scripts/output-snapshot.sh [--source DIR] [--tests BUILD_DIR] BIN OUTDIR" >&2
	exit 2
}
src=$(cd "$(dirname "$0")/.." && pwd -P)
tests=""
while [ $# -gt 0 ]; do
	case $1 in
	--source) [ $# -ge 2 ] || usage; src=$(cd "$2" 2>/dev/null && pwd -P) ||
		{ echo "output-snapshot: no source tree $2" >&2; exit 2; }; shift 2 ;;
	--tests) [ $# -ge 2 ] || usage; tests=$(cd "$2" 2>/dev/null && pwd -P) ||
		{ echo "output-snapshot: no build folder $2" >&2; exit 2; }; shift 2 ;;
	-h | --help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
bin=$1
out=$2
[ -x "$bin" ] && "$bin" --version >/dev/null 2>&1 ||
	{ echo "output-snapshot: $bin is not a runnable pesbench binary" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd -P)/$(basename "$bin")
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	echo "output-snapshot: $out is not empty; give a new folder" >&2
	exit 2
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd -P)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pb-snapshot.XXXXXX")
scratch=$(cd "$scratch" && pwd -P)
trap 'rm -rf "$scratch"' EXIT
start=$(date +%s.%N)

# The filter (docs/outputs.md): absolute paths that depend on where the snapshot, the
# binary, the inputs or the scratch folder live become <OUT>, <BIN>, <SRC>, <TMP>. Nothing
# else is rewritten; whatever else differs between two runs is a difference.
# A path is replaced only as a whole (not followed by a name character), longest first, so
# that a path that begins like another (OUTDIR /x/c, binary /x/changed) is not cut.
quote() { printf '%s' "$1" | sed 's/[][\.*^$|+?(){}#]/\\&/g'; }
filter_args=()
while IFS= read -r line; do
	line=${line#* }
	filter_args+=(-e "s#$(quote "${line#* }")([^A-Za-z0-9._-]|\$)#${line%% *}\\1#g")
done < <(for p in "<OUT> $out" "<TMP> $scratch" "<BIN> $bin" "<SRC> $src" \
	${tests:+"<TESTS> $tests"}; do
	echo "${#p} $p"
done | sort -rn)
commands=0
cd "$scratch" || exit 2
# snap FILE CMD... : run CMD and write into OUTDIR/FILE its command line, standard output,
# standard error and exit code (filtered at the end, all files at once: it is the cheap way).
snap() {
	local file=$out/$1 rc
	shift
	{
		printf '$ %s\n' "$*"
		timeout 120 "$@" 2>"$scratch/.stderr"
		rc=$?
		echo "--- stderr"
		cat "$scratch/.stderr"
		echo "--- exit $rc"
	} >"$file"
	commands=$((commands + 1))
}
# Every text file of the snapshot (command outputs, report.html, plot scripts and data, SVG,
# JSON exports) goes through the filter; binary files (PNG, gzipped pprof) stay as written.
normalise_tree() {
	grep -rIlZ '' "$1" | xargs -0 -r sed -i -E "${filter_args[@]}"
	# Addresses inside the pesbench process that `attr` shows: bp's watched datum (config1 =
	# bp_addr) and uprobe's path pointer (config1) change with ASLR from run to run; uprobe's
	# probed offset in the binary (config2) changes with the build's layout. They become <ADDR>.
	local addr='s/^( *"?(config1|bp_addr)"?:? +)(0x)?[0-9a-f]+/\1<ADDR>/'
	find "$1/attr" -name 'bp*' -print0 | xargs -0 -r sed -i -E "$addr"
	find "$1/attr" -name 'uprobe*' -print0 |
		xargs -0 -r sed -i -E -e "$addr" -e "${addr/config1|bp_addr/config2}"
}
# the committed files of the source tree matching a pattern (all files when not in git)
inputs() {
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$src" ls-files -- "$@" | sort
	else
		(cd "$src" && for p in "$@"; do find . -path "./$p" -type f; done | sed 's|^\./||' | sort)
	fi
}
# the test programs whose results come from the fake kernel through tests/lib/results_json.c
fake_tests=(test_experiments_fake test_skid_fake test_spe_session test_ibs_subset test_numbers)
flat() { printf '%s' "$1" | tr '/' '_'; }

mkdir -p "$out"/{help,models,probe,perfdata,report,compare,replay}

# ---- help: every command's --help, the manual page, completion, examples, option list
snap help/pesbench--help.txt "$bin" --help
snap help/version.txt "$bin" version
for what in --man --completion --examples --options --commands; do
	snap "help/help$what.txt" "$bin" help "$what"
done
mapfile -t cmds < <("$bin" help --commands | sed -n 's/^| `pesbench \([a-z-]*\)` |.*/\1/p')
for c in "${cmds[@]}"; do
	snap "help/$c--help.txt" "$bin" "$c" --help
done

# ---- the models: facilities and workloads
snap models/facilities.txt "$bin" facilities
snap models/facilities--json.txt "$bin" facilities --json
snap models/facilities--markdown.txt "$bin" facilities --markdown
snap models/workloads.txt "$bin" workloads
snap models/workloads--json.txt "$bin" workloads --json

# ---- probe and attr on every machine tree: the fixtures and the capture bundles' machines
mapfile -t trees < <(cd "$src" && ls -d tests/fixtures/sysfs-* tests/captures/*/machine 2>/dev/null)
# every facility, each of its spec words (parametric ones with one legal value), and periods
# below the minimum, off the multiple and ordinary, so that validation is covered too
mapfile -t facilities < <("$bin" facilities --json |
	python3 -c 'import json,sys; [print(f["facility"]) for f in json.load(sys.stdin)]')
mapfile -t specs < <("$bin" facilities --json | python3 -c '
import json, sys
examples = {"pp": "2", "precise": "1", "pmu": "skl", "ldlat": "256", "subset": "load",
            "min_latency": "64", "event_filter": "0x2"}
for f in json.load(sys.stdin):
    for w in f["spec_words"]:
        word = w["word"]
        if "=" in word:
            key = word.split("=")[0]
            if key not in examples:
                continue
            word = key + "=" + examples[key]
        print(f["facility"] + ":" + word)')
periods=(1 3 5k 1ms)
for t in "${trees[@]}"; do
	name=$(flat "${t%/machine}")
	mkdir -p "$out/attr/$name"
	snap "probe/$name.txt" "$bin" probe --root "$src/$t"
	snap "probe/$name--json.txt" "$bin" probe --root "$src/$t" --json
	for f in "${facilities[@]}"; do
		snap "attr/$name/$f.txt" "$bin" attr "$f" --root "$src/$t"
		snap "attr/$name/$f--json.txt" "$bin" attr "$f" --root "$src/$t" --json
		for p in "${periods[@]}"; do
			snap "attr/$name/$f-c$p--json.txt" "$bin" attr "$f" -c "$p" --root "$src/$t" --json
		done
	done
	for s in "${specs[@]}"; do
		snap "attr/$name/$s--json.txt" "$bin" attr "$s" --root "$src/$t" --json
	done
done

# ---- perfdata on every committed perf.data: conformance recordings, fuzz seeds, bundles
mapfile -t datas < <(inputs '*.data')
for d in "${datas[@]}"; do
	name=perfdata/$(flat "$d")
	snap "$name.txt" "$bin" perfdata "$src/$d"
	snap "$name--dump.txt" "$bin" perfdata "$src/$d" --dump
	snap "$name--json.txt" "$bin" perfdata "$src/$d" --json
	snap "$name--histogram.txt" "$bin" perfdata "$src/$d" --histogram
	snap "$name--histogram-top5--json.txt" "$bin" perfdata "$src/$d" --histogram --top 5 --json
	for fmt in folded speedscope pprof; do
		snap "$name--export-$fmt.txt" "$bin" perfdata "$src/$d" --export "$fmt:$out/$name.$fmt"
	done
done

# ---- report (report.html, plots) and compare from the committed results files
mapfile -t results < <(inputs 'tests/fixtures/*/results.json' 'fuzz/corpus/report/*.json' \
	'fuzz/corpus/results/*.json')
good=()
for r in "${results[@]}"; do
	name=$(flat "${r%.json}")
	dir=$out/report/$name
	mkdir "$dir"
	cp "$src/$r" "$dir/results.json"
	snap "report/$name.txt" "$bin" report "$dir"
	snap "report/$name--json.txt" "$bin" report "$dir" --json --no-plots
	grep -q '^--- exit 0$' "$out/report/$name.txt" && good+=("$dir")
done
mapfile -t jsonl < <(inputs 'fuzz/corpus/figures_jsonl/*.jsonl')
snap compare/all.txt "$bin" compare "${good[@]}"
snap compare/all--json.txt "$bin" compare --json "${good[@]}"
snap compare/all--records.txt "$bin" compare --records "${good[@]}"
snap compare/all--html.txt "$bin" compare --html "$out/compare/all.html" "${good[@]}"
for ((i = 1; i < ${#good[@]}; i++)); do
	snap "compare/$(basename "${good[i - 1]}")+$(basename "${good[i]}").txt" \
		"$bin" compare "${good[i - 1]}" "${good[i]}"
done
for j in "${jsonl[@]}"; do
	[ ${#good[@]} -gt 0 ] || break
	snap "compare/$(flat "$j").txt" "$bin" compare "$src/$j" "${good[0]}"
done

# ---- replay: every capture bundle recomputed offline from its records
for b in $(cd "$src" && ls -d tests/captures/*/ 2>/dev/null); do
	snap "replay/$(basename "$b").txt" "$bin" replay "$src/$b"
done

# ---- fake-kernel results: what the test programs compute under the constructed kernel
# (tests/lib/output_snapshot.h), one JSON document per run record or point, keys sorted; the
# measured times of the workload itself (cpu_ns, elapsed_ns, wall_ns) become "<TIME>".
if [ -n "$tests" ]; then
	mkdir -p "$out/fake"
	for t in "${fake_tests[@]}"; do
		if [ ! -x "$tests/$t" ]; then
			echo "$t: not built in <TESTS>" >"$out/fake/$t.txt"
			continue
		fi
		# the fixtures a test reads are its own tree's (compiled in), as when ctest runs it;
		# a test without the hook leaves the file empty
		: >"$scratch/$t.jsonl"
		env -u PB_SOURCE_DIR PB_OUTPUT_SNAPSHOT="$scratch/$t.jsonl" PB_BIN="$bin" \
			timeout 300 "$tests/$t" >"$scratch/$t.log" 2>&1
		echo "--- exit $?" >"$scratch/$t.exit"
		python3 -c '
import json, sys
timed = {"cpu_ns", "elapsed_ns", "wall_ns"}
def scrub(v):
    if isinstance(v, dict):
        return {k: "<TIME>" if k in timed else scrub(x) for k, x in v.items()}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v
for line in open(sys.argv[1]):
    print(json.dumps(scrub(json.loads(line)), indent=1, sort_keys=True))
' "$scratch/$t.jsonl" >"$out/fake/$t.txt"
		cat "$scratch/$t.exit" >>"$out/fake/$t.txt"
		# a failed test says which checks failed, so that a comparison shows them (the
		# results alone are the same when a check fails on something they do not hold)
		sed -nE 's|^[^:]*/([^/:]+:[0-9]+: CHECK failed)|\1|p' "$scratch/$t.log" \
			>>"$out/fake/$t.txt"
		commands=$((commands + 1))
	done
fi

normalise_tree "$out"
nfiles=$(find "$out" -type f | wc -l)
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
if [ "$commands" -lt 100 ] || [ ${#datas[@]} -eq 0 ] || [ ${#good[@]} -eq 0 ]; then
	echo "output-snapshot: only $commands commands, ${#datas[@]} perf.data files and" \
		"${#good[@]} results files found under $src: not a source tree?" >&2
	exit 2
fi
printf 'output-snapshot: %d commands, %d files in %s (%.1f s)\n' "$commands" "$nfiles" "$out" "$secs"
