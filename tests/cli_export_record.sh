#!/usr/bin/env bash
# pesbench's own samples as a perf.data (measure --record, profile --record), read by perf:
# - perf script prints as many samples as pesbench counted (measure's observed, profile's
#   samples), perf report --stats agrees, and perf names them (the busy loop in pesbench);
# - perf buildid-list reads back the build-id of pesbench's binary as readelf gives it;
# - a profile -g recording carries its call chains: perf's own stackcollapse shows
#   main;outer;middle;leaf_a, and pesbench perfdata --export folded of the file equals it;
# - an unwritable --record path exits 4 and leaves nothing.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
source "$root/tests/lib/verdict.sh"
[ "$(facility_verdict timer)" = works ] || { echo "timer sampling does not work here"; exit 77; }
work=$(mktemp -d /tmp/pb_export_record.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$root/tests/lib/perf_home.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --- measure --record, two threads ---
"$PB_BIN" measure --facility timer:cpu-clock --workload busy --iterations 30000000 --threads 2 \
	--record "$work/m.data" --json >"$work/m.json" 2>"$work/m.err" ||
	{ fail "measure --record failed: $(head -3 "$work/m.err")"; exit 1; }
observed=$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["events"][0]["observed"])' "$work/m.json" 2>/dev/null)
perf script -i "$work/m.data" -F tid,ip,sym,dso >"$work/m.script" 2>"$work/m.script.err"
nscript=$(wc -l <"$work/m.script")
nstats=$(perf report --stats -i "$work/m.data" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
# the loop's first instruction carries two symbols (pb_wl_busy_loop, pb_wl_busy_code_begin):
# perf picks either
named=$(grep -c 'pb_wl_busy_' "$work/m.script")
threads=$(awk '{print $1}' "$work/m.script" | sort -u | wc -l)
echo "measure --record: pesbench observed ${observed:-?}; perf script $nscript samples" \
	"($named in pb_wl_busy_*, $threads threads); perf report --stats ${nstats:-?}"
[ "${observed:-0}" -gt 0 ] || fail "measure observed no samples"
[ "$nscript" = "${observed:-x}" ] || fail "perf script shows $nscript samples, pesbench counted ${observed:-?}"
[ "${nstats:-x}" = "${observed:-y}" ] || fail "perf report --stats says ${nstats:-nothing}"
# the busy loop is most of the sampled region (the threads' start and end, where a tick may land
# on a loaded machine, are the rest); no sample in pesbench's binary goes unnamed
unnamed=$(awk -v f="($(readlink -f "$PB_BIN"))" '$NF == f && $3 ~ /^\[unknown\]/' "$work/m.script" | wc -l)
[ $((named * 2)) -gt "$nscript" ] || fail "perf names only $named of $nscript samples pb_wl_busy_*"
[ "$unnamed" = 0 ] || fail "perf names no symbol for $unnamed samples in pesbench's binary"
[ "$threads" = 2 ] || fail "perf script shows $threads threads, expected 2"
bin=$(readlink -f "$PB_BIN")
want=$(readelf -n "$bin" 2>/dev/null | awk '/Build ID/ {print $3; exit}')
got=$(perf buildid-list -i "$work/m.data" 2>/dev/null | awk -v f="$bin" '$2 == f {print $1}')
echo "build-id of $bin: readelf ${want:-none}, perf buildid-list ${got:-none}"
[ -n "$want" ] && [ "$got" = "$want" ] || fail "perf reads no or the wrong build-id for pesbench"

# --- profile -g --record ---
cc -O0 -g -fno-omit-frame-pointer -o "$work/chains" "$root/tests/programs/chains.c" || { echo "cannot compile"; exit 77; }
"$PB_BIN" profile -g --period 200000 --json --record "$work/p.data" -- "$work/chains" 1000000 \
	>"$work/p.json" 2>"$work/p.err" || fail "profile --record failed: $(tail -2 "$work/p.err")"
grep -q "wrote $work/p.data" "$work/p.err" || fail "profile does not say it wrote the perf.data"
counted=$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["samples"] + d["kernel_samples"])' "$work/p.json" 2>/dev/null)
nscript=$(perf script -i "$work/p.data" -F period 2>/dev/null | wc -l)
echo "profile --record: pesbench counted ${counted:-?} samples, perf script $nscript"
[ "$nscript" = "${counted:-x}" ] || fail "perf script shows $nscript samples, profile counted ${counted:-?}"
perf script report stackcollapse -i "$work/p.data" -- --no-comm 2>/dev/null | sort >"$work/p.perf"
grep -q '^__libc_start_call_main;main;outer;middle;leaf_a [0-9]' "$work/p.perf" ||
	fail "perf's stackcollapse of the recording lacks main;outer;middle;leaf_a: $(head -2 "$work/p.perf")"
"$PB_BIN" perfdata "$work/p.data" --export "folded:$work/p.folded" >/dev/null 2>&1 ||
	fail "perfdata --export of pesbench's own recording failed"
if ! sort "$work/p.folded" | cmp -s - "$work/p.perf"; then
	sort "$work/p.folded" | diff - "$work/p.perf" | head -20
	fail "perfdata --export folded of the recording differs from perf's stackcollapse"
fi

# --- an unwritable path ---
"$PB_BIN" measure --facility timer:cpu-clock --workload busy --iterations 1000000 \
	--record "$work/no/such/m.data" >/dev/null 2>"$work/e1"
rc=$?
[ "$rc" = 4 ] || fail "an unwritable --record path: exit $rc ($(head -1 "$work/e1")), expected 4"
[ -e "$work/no" ] && fail "an unwritable --record path left something"
"$PB_BIN" profile --record "$work/x.data" --perf-data "$work/p.data" -- "$work/chains" 1000000 \
	>/dev/null 2>"$work/e2"
rc=$?
[ "$rc" = 2 ] || fail "--record with --perf-data: exit $rc ($(head -1 "$work/e2")), expected 2"

[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "all --record checks passed"
