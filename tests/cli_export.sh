#!/usr/bin/env bash
# `pesbench perfdata FILE --export FORMAT:FILE` against judges no one here wrote, on recordings
# made here with `perf record`:
#   chains   cpu-clock:u with call chains (-g) of a small program with four functions
#   faults   page-faults at period 1, no chains: every fault a sample, of a process and its
#            forked child
# - folded stacks of the chain recording equal perf's own `perf script report stackcollapse`
#   line for line (sorted), from the file and from a pipe (perf record -o - | perfdata -);
# - the pprof file decodes with protoc and Google's profile.proto, holds the same stacks, and its
#   totals per leaf location equal pesbench's histogram and perf script's counts per IP;
# - the speedscope file validates against speedscope's published schema, holds the same stacks,
#   and speedscope's offline page in headless Chromium loads it and lists the functions;
# - bad requests exit with their documented codes and leave no file behind.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
work=$(mktemp -d /tmp/pb_export.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$root/tests/lib/perf_home.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
. "$root/tests/lib/export_judges.sh"
. "$root/tests/lib/verdict.sh"

why=$(pprof_judge_missing)
[ -z "$why" ] || { echo "the pprof judge cannot run: $why"; exit 77; }
perf script report stackcollapse -h >/dev/null 2>&1 || {
	perf script -l 2>/dev/null | grep -q stackcollapse ||
		{ echo "this perf has no stackcollapse script (linux-perf built without python)"; exit 77; }
}

cc -O0 -g -fno-omit-frame-pointer -o "$work/chains" "$root/tests/programs/chains.c" ||
	{ echo "cannot compile the test program"; exit 77; }

perf record -q -g -e cpu-clock:u -c 200000 -o "$work/chains.data" -- "$work/chains" 2>"$work/rec.err" ||
	{ fail "perf record -g failed: $(head -3 "$work/rec.err")"; exit 1; }

# perf's folded stacks without the command name as root (pesbench's have none)
perf_folded() { perf script report stackcollapse -i "$1" -- --no-comm 2>/dev/null | sort; }

folded_equal() { # name ours perf's
	if cmp -s "$2" "$3"; then
		echo "$1: $(wc -l <"$2") stacks, $(awk '{s += $NF} END {print s + 0}' "$2") samples, equal to perf's"
	else
		fail "$1: the stacks differ from perf's stackcollapse (< pesbench, > perf):"
		diff "$2" "$3" | head -8
	fi
}

"$PB_BIN" perfdata "$work/chains.data" --export "folded:$work/chains.folded" \
	--export "pprof:$work/chains.pb.gz" --export "speedscope:$work/chains.json" >/dev/null \
	2>"$work/export.err" || fail "perfdata --export failed: $(head -3 "$work/export.err")"
perf_folded "$work/chains.data" >"$work/chains.perf"
grep -q 'main;outer;middle;leaf_a' "$work/chains.perf" ||
	fail "perf's own stacks lack main;outer;middle;leaf_a: the recording has no call chains?"
sort "$work/chains.folded" >"$work/chains.folded.sorted"
folded_equal "folded" "$work/chains.folded.sorted" "$work/chains.perf"

# pprof: Google's schema decodes it; its stacks are perf's
if pprof_decode "$work/chains.pb.gz" "$work/chains.pb.txt"; then
	judge_py pprof-check "$work/chains.pb.txt" >"$work/chains.bad" ||
		fail "pprof: $(head -3 "$work/chains.bad")"
	judge_py pprof-folded "$work/chains.pb.txt" 0 >"$work/chains.pb.folded"
	folded_equal "pprof (protoc)" "$work/chains.pb.folded" "$work/chains.perf"
	grep -q 'comment' "$work/chains.pb.txt" || fail "pprof: no comment states the losses"
else
	fail "protoc cannot decode the pprof file: $(head -3 "$work/chains.pb.txt.err")"
fi

# speedscope: its schema, its stacks, its own page
if spd=$(bash "$root/scripts/fetch-speedscope.sh" 2>"$work/fetch.err"); then
	if judge_py speedscope-validate "$work/chains.json" "$spd/dist/release/file-format-schema.json" \
		2>"$work/schema.err"; then
		echo "speedscope: valid against speedscope's file-format-schema.json"
	else
		fail "speedscope: schema: $(tail -3 "$work/schema.err")"
	fi
	judge_py speedscope-folded "$work/chains.json" 0 >"$work/chains.spd.folded"
	folded_equal "speedscope" "$work/chains.spd.folded" "$work/chains.perf"
	if command -v chromium >/dev/null; then
		# speedscope's offline page loads a profile from a script it is given in the URL
		# (what its own CLI does); the sandwich view lists the functions as text
		printf 'speedscope.loadFileFromBase64("chains.json", "%s")\n' \
			"$(base64 -w0 "$work/chains.json")" >"$work/load.js"
		timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$(mktemp -d "$work/chrome.XXXXXX")" --virtual-time-budget=15000 \
			--dump-dom "file://$spd/dist/release/index.html#localProfilePath=$work/load.js&view=sandwich" \
			>"$work/dom.html" 2>"$work/chromium.err"
		shown=0
		for fn in leaf_a leaf_b middle outer main; do
			grep -q ">$fn<" "$work/dom.html" && shown=$((shown + 1))
		done
		echo "speedscope in Chromium: $shown of 5 functions listed"
		[ "$shown" = 5 ] || fail "speedscope's page did not list the functions ($(wc -c <"$work/dom.html") bytes of DOM)"
	else
		skip_checks 1 "speedscope render: chromium is not installed (scripts/install-deps.sh --test)"
	fi
else
	skip_checks 3 "speedscope: $(tail -1 "$work/fetch.err")"
fi

# a pipe: perf record -o - straight into pesbench, and perf's view of the same bytes
perf record -q -g -e cpu-clock:u -c 200000 -o - -- "$work/chains" 2>/dev/null |
	tee "$work/pipe.data" | "$PB_BIN" perfdata - --export "folded:$work/pipe.folded" \
	>"$work/pipe.out" 2>&1 || fail "perfdata - failed: $(head -3 "$work/pipe.out")"
grep -q "standard input" "$work/pipe.out" || fail "perfdata - does not name standard input"
sort "$work/pipe.folded" >"$work/pipe.sorted" 2>/dev/null
perf_folded "$work/pipe.data" >"$work/pipe.perf"
folded_equal "pipe" "$work/pipe.sorted" "$work/pipe.perf"

# totals per location, on a recording without chains of two processes: the child of a fork
# has no MMAP record of its own, only its parent's (the FORK record says whose)
cat >"$work/faults.c" <<'EOF'
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) { pid_t child = fork();
  for (int r = 0; r < 4; r++) { char *m = mmap(0, 256 << 12, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (int p = 0; p < 256; p++) m[p << 12] = (char)(p & 1 ? 1 : 2); munmap(m, 256 << 12); }
  if (child > 0) waitpid(child, NULL, 0); return 0; }
EOF
cc -O1 -o "$work/faults" "$work/faults.c" &&
	perf record -q -e page-faults -c 1 -o "$work/faults.data" -- "$work/faults" 2>/dev/null &&
	check_pprof_totals faults "$work/faults.data" || fail "page-fault recording failed"

# bad requests
"$PB_BIN" perfdata "$work/chains.data" --export "svg:$work/x.svg" >/dev/null 2>"$work/e1"
rc=$?
[ "$rc" = 2 ] && grep -q "unknown format 'svg'" "$work/e1" ||
	fail "an unknown format: exit $rc, $(head -1 "$work/e1")"
"$PB_BIN" perfdata "$work/chains.data" --export "pprof:$work/no/such/dir/p.pb.gz" >/dev/null 2>"$work/e2"
rc=$?
[ "$rc" = 4 ] && grep -q "cannot write" "$work/e2" || fail "an unwritable path: exit $rc, $(head -1 "$work/e2")"
ls "$work"/no 2>/dev/null && fail "a file was left for an unwritable path"
head -c 3000 "$work/chains.data" >"$work/cut.data"
"$PB_BIN" perfdata "$work/cut.data" --export "folded:$work/cut.folded" >/dev/null 2>"$work/e3"
rc=$?
[ "$rc" = 6 ] || fail "a truncated file: exit $rc, $(head -1 "$work/e3")"
ls "$work"/cut.folded* 2>/dev/null && fail "a truncated file left an export behind"
"$PB_BIN" perfdata - </dev/null >/dev/null 2>"$work/e4"
rc=$?
[ "$rc" = 6 ] || fail "empty standard input: exit $rc, $(head -1 "$work/e4")"

[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "all export checks passed"
