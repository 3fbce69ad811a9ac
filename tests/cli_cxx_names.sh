#!/usr/bin/env bash
# C++ names, demangled wherever pesbench shows a function (src/analysis/demangle.h), held to
# judges no one here wrote, on a real C++ program (tests/programs/cxx_names.cc, two
# instantiations of one template):
# - c++filt (binutils) gives the names expected for the two symbols nm lists;
# - `pesbench profile`: its table shows each name whole, its --json gives the name and the
#   symbol as linked; callgrind_annotate names the two functions the same way;
# - the pprof exports (sampled and exact), decoded by protoc with Google's profile.proto, carry
#   the name and the symbol as linked (system_name); speedscope and folded show the name;
# - `pesbench perfdata --histogram` of perf's own recording names them as perf report does
#   (perf shows the name without its return type and parameters: ours holds perf's).
# A build without a demangler is held to the symbols as linked and a note saying so.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v c++ >/dev/null || { echo "no C++ compiler (Debian: build-essential)"; exit 77; }
for tool in nm c++filt; do
	command -v $tool >/dev/null || { echo "$tool is missing (Debian: binutils)"; exit 77; }
done
work=$(mktemp -d /tmp/pb_cxx_names.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0 skipped=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "SKIPPED $1 checks: $2"; skipped=$((skipped + $1)); }
. "$root/tests/lib/export_judges.sh"
source "$root/tests/lib/verdict.sh"
[ "$(facility_verdict timer)" = works ] || { echo "timer sampling does not work here"; exit 77; }

prog=$work/cxx_names
c++ -O1 -g -fno-omit-frame-pointer -o "$prog" "$root/tests/programs/cxx_names.cc" ||
	{ echo "cannot compile tests/programs/cxx_names.cc"; exit 77; }

# The two symbols, as linked and as c++filt shows them: "SYMBOL<TAB>NAME" per line
nm --defined-only "$prog" | awk '$3 ~ /^_ZN13pesbench_test4spin/ { print $3 }' | sort >"$work/symbols"
[ "$(wc -l <"$work/symbols")" = 2 ] || { fail "nm lists $(wc -l <"$work/symbols") spin symbols, not 2"; exit 1; }
while read -r sym; do printf '%s\t%s\n' "$sym" "$(c++filt "$sym")"; done <"$work/symbols" >"$work/expected"
if "$PB_BIN" version --json | grep -q '"demangler": "none'; then
	demangles=false
	awk -F'\t' '{ print $1 "\t" $1 }' "$work/expected" >"$work/shown"
else
	demangles=true
	cp "$work/expected" "$work/shown"
fi
echo "expected (demangler: $demangles):"
sed 's/^/  /' "$work/shown"
grep -q $'\tunsigned long pesbench_test::spin<unsigned long>(unsigned long)$' "$work/expected" ||
	fail "c++filt's name for spin<unsigned long> is not the one this test was written against"

# profile, text: each name whole, in the last column
"$PB_BIN" profile --top 4 -- "$prog" >"$work/profile.txt" 2>"$work/profile.err" ||
	{ fail "profile failed: $(tail -3 "$work/profile.err")"; exit 1; }
cut -f2 "$work/shown" | while read -r name; do
	grep -qF -- " $name" "$work/profile.txt" || echo "the table does not show \"$name\" whole"
done >"$work/text.bad"
[ -s "$work/text.bad" ] && fail "$(cat "$work/text.bad")"
head -1 <(grep -E '^ +exact %' "$work/profile.txt") | grep -qE 'source +function$' ||
	fail "the table's last column is not the function: $(grep -E '^ +exact %' "$work/profile.txt")"
if $demangles; then
	grep -q '^note: *C++ names are shown as linked' "$work/profile.txt" &&
		fail "a build with a demangler says C++ names are shown as linked"
else
	grep -q '^note: *C++ names are shown as linked' "$work/profile.txt" ||
		fail "a build without a demangler does not say that C++ names are shown as linked"
fi

# profile --json and the exports of one run
"$PB_BIN" profile --json --export "pprof:$work/p.pb.gz" --export "speedscope:$work/p.json" \
	--export "folded:$work/p.folded" -- "$prog" >"$work/profile.json" 2>"$work/profile.err" ||
	{ fail "profile --json --export failed: $(tail -3 "$work/profile.err")"; exit 1; }
/usr/bin/python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["top_functions"]:
    if f["symbol"].startswith("_ZN13pesbench_test4spin"):
        print(f["symbol"] + "\t" + f["function"])' "$work/profile.json" | sort >"$work/json.got"
cmp -s "$work/json.got" "$work/shown" ||
	fail "profile --json's functions: $(cat "$work/json.got"), want $(cat "$work/shown")"

# callgrind_annotate, valgrind's own reader, names the functions as c++filt does
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$prog" 2 >/dev/null 2>&1 ||
		fail "valgrind --tool=callgrind failed"
	callgrind_annotate --threshold=100 "$work/cg.out" 2>/dev/null |
		sed -nE 's/^ *[0-9,]+ +\( *[0-9.]+%\) +[^:]*:(.*spin<.*\)) \[.*/\1/p' | sort -u >"$work/annotate"
	cut -f2 "$work/expected" | sort >"$work/expected.names"
	cmp -s "$work/annotate" "$work/expected.names" ||
		fail "callgrind_annotate names them $(tr '\n' ';' <"$work/annotate"), c++filt $(tr '\n' ';' <"$work/expected.names")"
else
	skip 1 "valgrind's callgrind_annotate is not installed"
fi

# pprof: the name shown and the symbol as linked (system_name), sampled and exact
why=$(pprof_judge_missing)
if [ -z "$why" ]; then
	for name in p p.exact; do
		pprof_decode "$work/$name.pb.gz" "$work/$name.txt" ||
			{ fail "$name: protoc cannot decode it: $(head -2 "$work/$name.txt.err")"; continue; }
		judge_py pprof-functions "$work/$name.txt" | grep '^_ZN13pesbench_test4spin' >"$work/$name.fn"
		cmp -s "$work/$name.fn" "$work/shown" ||
			fail "$name.pb.gz's functions: $(cat "$work/$name.fn"), want $(cat "$work/shown")"
	done
else
	skip 2 "the pprof judge cannot run: $why"
fi

# speedscope and folded: the name shown
cut -f2 "$work/shown" | while read -r name; do
	/usr/bin/python3 -c 'import json, sys
names = {f["name"] for f in json.load(open(sys.argv[1]))["shared"]["frames"]}
sys.exit(sys.argv[2] not in names)' "$work/p.json" "$name" || echo "speedscope has no frame \"$name\""
	grep -qF -- "$name " "$work/p.folded" || echo "the folded stacks do not name \"$name\""
done >"$work/views.bad"
[ -s "$work/views.bad" ] && fail "$(cat "$work/views.bad")"

# perf's own recording, read by pesbench perfdata and by perf report
if perf record -q -e cpu-clock -o "$work/perf.data" "$prog" >/dev/null 2>"$work/perf.err"; then
	"$PB_BIN" perfdata --histogram --json "$work/perf.data" >"$work/perfdata.json" 2>"$work/perfdata.err" ||
		fail "perfdata --histogram failed: $(tail -2 "$work/perfdata.err")"
	perf report -i "$work/perf.data" --stdio --sort sym 2>/dev/null |
		sed -nE 's/.*\[\.\] (.*spin<.*>) *$/\1/p' | sort -u >"$work/perf.names"
	[ "$(wc -l <"$work/perf.names")" = 2 ] ||
		fail "perf report names $(wc -l <"$work/perf.names") spin functions: $(tr '\n' ';' <"$work/perf.names")"
	/usr/bin/python3 - "$work/perfdata.json" "$work/perf.names" "$work/shown" <<'PY' >"$work/perfdata.bad"
import json, sys
symbols = {row["symbol"].rsplit("+0x", 1)[0] for ev in json.load(open(sys.argv[1]))["events"]
           for row in ev["top_ips"]}
for line in open(sys.argv[3]):
    name = line.rstrip("\n").split("\t")[1]
    if name not in symbols:
        print("perfdata --histogram does not name %r (it names %s)" % (name, sorted(symbols)))
if "\t_Z" not in open(sys.argv[3]).read():
    for perf_name in open(sys.argv[2]).read().split("\n"):
        if perf_name and not any(perf_name in s for s in symbols):
            print("perf report's %r is in no name of perfdata's" % perf_name)
PY
	[ -s "$work/perfdata.bad" ] && fail "$(cat "$work/perfdata.bad")"
else
	skip 2 "perf record -e cpu-clock failed here: $(tail -1 "$work/perf.err")"
fi

echo "cli_cxx_names: $fails failed, $skipped checks skipped"
[ "$fails" = 0 ]
