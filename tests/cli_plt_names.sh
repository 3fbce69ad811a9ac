#!/usr/bin/env bash
# Addresses in PLT stubs are named as perf names them, with perf itself as the judge: every stub
# (as objdump finds them) of a small program, its ld.so and its libc gets an execute breakpoint
# (mem:ADDR:x, four per recording: x86's debug registers; ASLR off, so the run-time addresses
# are known before the run), and so does each PLT's header (which perf names by the sizeless
# symbol before it, an executable's _init), and `perf record` runs the program. For every stub entered,
# pesbench's name (perfdata's histogram, the exports' symbolizer) must be `perf script`'s, and
# `perfdata --export folded` must hold perf's names. One difference is allowed, and counted:
# perf 6.1 also extends the sizeless symbol before an executable's .plt (_init) over the stubs
# and may find that one first, so a stub perf names _init may be NAME@plt in pesbench
# (docs/export.md, Frames). Skipped where breakpoints do not work (pesbench's self-test).
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
command -v setarch >/dev/null || { echo "no setarch to turn ASLR off"; exit 77; }
command -v objdump >/dev/null || { echo "no objdump to find the PLT stubs"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "the stubs' run-time addresses are worked out for x86_64 only"; exit 77; }
work=$(mktemp -d /tmp/pb_plt.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$root/tests/lib/perf_home.sh"
. "$root/tests/lib/verdict.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bp_verdict=$(facility_verdict bp)
[ "$bp_verdict" = works ] || {
	skip_checks 1 "breakpoints are $bp_verdict here: no stub would be sampled"
	exit 77
}

# calls libc through its own PLT; with an argument it prints its mappings instead
cat >"$work/stubs.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	if (argc > 1) {
		FILE *f = fopen("/proc/self/maps", "r");
		char line[4096];
		while (f && fgets(line, sizeof line, f))
			fputs(line, stdout);
		return 0;
	}
	long sum = 0;
	for (int i = 0; i < 3; i++)
		sum += (long)strlen(argv[0]) + labs(-(long)i) + atoi("7");
	return sum == 0;
}
PROG
cc -O1 -fno-builtin -o "$work/stubs" "$work/stubs.c" || { echo "cannot compile the test program"; exit 77; }

# run-time start of each object's first mapping, with ASLR off
setarch -R "$work/stubs" maps >"$work/maps" || { echo "setarch -R cannot run the program"; exit 77; }
base_of() { awk -v p="$1" '$6 == p && $3 ~ /^0+$/ { split($1, r, "-"); print r[1]; exit }' "$work/maps"; }

# Per address of one recording: "ip perf_name pesbench_name samples", from perf script and from
# pesbench's histogram (the symbolizer the exports use).
names_by_ip() { # perf.data
	perf script -i "$1" -F ip,sym 2>/dev/null >"$work/perf.txt"
	"$PB_BIN" perfdata "$1" --histogram --top 100 --json >"$work/pb.json" 2>"$work/pb.err" || return 1
	python3 - "$work/perf.txt" "$work/pb.json" <<'PY'
import collections, json, sys
perf = collections.Counter()
for line in open(sys.argv[1]):
    f = line.split()
    if f:
        perf[(int(f[0], 16), f[1] if len(f) > 1 else "[unknown]")] += 1
ours = {}
for ev in json.load(open(sys.argv[2]))["events"]:
    for e in ev["top_ips"]:
        sym = e["symbol"]
        name = "[unknown]" if sym.startswith("(") else sym.rsplit(" (", 1)[0].rsplit("+", 1)[0]
        ours[int(e["ip"], 16)] = name
for (ip, name), n in sorted(perf.items()):
    print("%x %s %s %d" % (ip, name, ours.get(ip, "(none)"), n))
PY
}

compared=0 as_init=0 silent=0
check_recording() { # object run-time-addresses...
	local object=$1 ev=() a
	shift
	for a in "$@"; do ev+=(-e "mem:$a:x"); done
	perf record -q -o "$work/bp.data" "${ev[@]}" -- setarch -R "$work/stubs" >/dev/null \
		2>"$work/rec.err" || { fail "perf record on $*: $(head -2 "$work/rec.err")"; return; }
	names_by_ip "$work/bp.data" >"$work/names" ||
		{ fail "pesbench perfdata on $*: $(head -2 "$work/pb.err")"; return; }
	silent=$((silent + $# - $(wc -l <"$work/names")))
	local ip theirs ours n init=0
	while read -r ip theirs ours n; do
		compared=$((compared + 1))
		[ "$theirs" = "$ours" ] && continue
		if [ "$theirs" = _init ] && [ "${ours%@plt}" != "$ours" ]; then
			as_init=$((as_init + 1)) init=1
			continue
		fi
		fail "$object at 0x$ip: pesbench names it $ours, perf $theirs ($n samples)"
	done <"$work/names"
	# the folded export says the same, where perf's own names are the stubs'
	[ -s "$work/names" ] && [ "$init" = 0 ] || return
	"$PB_BIN" perfdata "$work/bp.data" --export "folded:$work/bp.folded" >/dev/null 2>&1 ||
		{ fail "--export folded on $*"; return; }
	awk '{n[$2] += $4} END {for (k in n) print k, n[k]}' "$work/names" | sort >"$work/want.folded"
	sort "$work/bp.folded" | cmp -s - "$work/want.folded" ||
		fail "$object: the folded export of $* differs from perf's names: $(sort "$work/bp.folded" | tr '\n' ';')"
}

# every stub of path, four breakpoints (x86's debug registers) per recording
check_object() { # path
	local path=$1 base
	base=$(base_of "$(readlink -f "$path")")
	[ -n "$base" ] || { fail "$path: not among the program's mappings"; return; }
	# the stubs' link-time addresses, as binutils labels them, and the header's (NAME@plt-0x10)
	objdump -d -j .plt "$path" 2>/dev/null |
		sed -n 's/^\([0-9a-f]*\) <.*@plt\(-0x[0-9a-f]*\)\{0,1\}>:$/\1/p' >"$work/stubs.list"
	[ -s "$work/stubs.list" ] || { fail "$path: objdump finds no PLT stub"; return; }
	local addr group=()
	while read -r addr; do
		group+=("$(printf '0x%x' $((0x$base + 0x$addr)))")
		[ "${#group[@]}" -lt 4 ] && continue
		check_recording "$path" "${group[@]}"
		group=()
	done <"$work/stubs.list"
	[ "${#group[@]}" -eq 0 ] || check_recording "$path" "${group[@]}"
}

libc=$(awk '$6 ~ /\/libc[.-]/ { print $6; exit }' "$work/maps")
ldso=$(awk '$6 ~ /\/ld-/ { print $6; exit }' "$work/maps")
for object in "$work/stubs" "$ldso" "$libc"; do
	[ -n "$object" ] && check_object "$object"
done
echo "$compared stubs and headers entered, named as perf names them ($as_init that perf names _init, pesbench NAME@plt)," \
	"$silent never entered"
[ "$compared" -gt 0 ] || fail "no stub entered: the breakpoints pesbench's self-test found working never fired"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
