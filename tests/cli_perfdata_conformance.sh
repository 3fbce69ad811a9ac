#!/usr/bin/env bash
# `pesbench perfdata` against perf itself, on files recorded here with `perf record`:
#   software  cpu-clock sampling of a pesbench workload (kernel and user IPs)
#   bp        a write breakpoint (mem:ADDR:w, period 1) on a global of a small non-PIE program
#             compiled here, whose address nm gives
#   faults    page-faults at period 1 with the data address (-d)
#   memory    page-faults with -d -W: the data source and weight the kernel fills in
#   kernel    cpu-clock on dd: the kernel functions its samples are named by, as perf names them
# For each, pesbench's per-sample dump must hold the same samples as `perf script`: the same
# count, the same IPs (as a multiset) and, where recorded, the same data addresses; and the
# per-event count must match `perf report --stats`. The same for a pipe-mode recording
# (perf record -o -). Then the error paths: truncated files exit 6 with a message naming the
# problem.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
work=$(mktemp -d /tmp/pb_perfdata_conf.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$PB_SOURCE_DIR/tests/lib/perf_home.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Samples as "ip" or "ip addr" lines (lower-case hex, no 0x), sorted.
perf_samples() { # file fields
	perf script -i "$1" -F "$2" 2>/dev/null |
		awk -v want="$2" '{ if (want == "ip") print tolower($1); else print tolower($2), tolower($1) }' |
		sed -E 's/(^| )0+([0-9a-f])/\1\2/g' | sort
}
pesbench_samples() { # file fields
	"$PB_BIN" perfdata "$1" --dump | awk -v want="$2" '
		/^sample / {
			ip = ""; addr = ""
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^ip=/) ip = substr($i, 4)
				if ($i ~ /^addr=/) addr = substr($i, 6)
			}
			sub(/^0x/, "", ip); sub(/^0x/, "", addr)
			if (ip == "") ip = "0"; if (addr == "") addr = "0"
			if (want == "ip") print ip; else print ip, addr
		}' | sort
}

compare() { # name file fields
	local name=$1 file=$2 fields=$3
	perf_samples "$file" "$fields" >"$work/$name.perf"
	pesbench_samples "$file" "$fields" >"$work/$name.pb"
	local np nb
	np=$(wc -l <"$work/$name.perf")
	nb=$(wc -l <"$work/$name.pb")
	local stats
	stats=$(perf report --stats -i "$file" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	local summary
	summary=$("$PB_BIN" perfdata "$file" --json | awk -F'[:,]' '/"samples"/ {gsub(/ /, "", $2); print $2; exit}')
	echo "$name: perf script $np samples, perf report --stats ${stats:-?}, pesbench dump $nb, pesbench summary ${summary:-?}"
	[ "$np" -gt 0 ] || fail "$name: perf script shows no samples"
	[ "$np" = "$nb" ] || fail "$name: sample counts differ (perf $np, pesbench $nb)"
	[ "${stats:-x}" = "$nb" ] || fail "$name: perf report --stats says ${stats:-nothing}, pesbench $nb"
	[ "${summary:-x}" = "$nb" ] || fail "$name: pesbench summary says ${summary:-nothing}, dump $nb"
	if ! cmp -s "$work/$name.perf" "$work/$name.pb"; then
		fail "$name: the samples differ ($fields), first differences:"
		diff "$work/$name.perf" "$work/$name.pb" | head -10
	fi
}

# --- software: cpu-clock on a pesbench workload ---
if perf record -q -e cpu-clock -c 100000 -o "$work/sw.data" -- \
	"$PB_BIN" measure --facility none --workload bias --iterations 300000000 >/dev/null 2>"$work/sw.err"; then
	compare software "$work/sw.data" ip
else
	fail "perf record -e cpu-clock failed: $(head -3 "$work/sw.err")"
fi

# --- kernel symbols: cpu-clock on dd, most of whose time is the kernel's ---
# pesbench names the kernel's addresses from /proc/kallsyms when the recording's kernel is this
# one (its build id, its load address); perf names them from the same file here. Each kernel IP
# perf names must get the same function from pesbench's histogram. Reading /dev/urandom as well
# often lands in memcpy or memset, which kallsyms lists under three names each: perf names an
# address by the last of them (a run on 2026-11-29 failed on __pi_memcpy when pesbench took the
# first).
kernel_work='dd if=/dev/zero of=/dev/null bs=1M count=3000 &&
	dd if=/dev/urandom of=/dev/null bs=64k count=2000'
if perf record -q -e cpu-clock -c 50000 -o "$work/k.data" -- sh -c "$kernel_work" \
	2>"$work/k.err"; then
	perf script -i "$work/k.data" -F ip,sym 2>/dev/null |
		awk 'length($1) == 16 && $1 ~ /^f/ && $2 != "" && $2 != "[unknown]" {
			sub(/^0+/, "", $1); print tolower($1), $2 }' | sort -u >"$work/k.perf"
	"$PB_BIN" perfdata "$work/k.data" --histogram --top 4294967296 --json >"$work/k.json"
	/usr/bin/python3 - "$work/k.json" >"$work/k.pb" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("#", d.get("kernel_symbols"), d.get("kernel_symbols_note", ""))
for e in d["events"]:
    for r in e.get("top_ips", []):
        s = r.get("symbol", "")
        if s.endswith(" ([kernel.kallsyms])"):
            print(r["ip"][2:], s.rsplit("+0x", 1)[0])
PY
	kernel_named=$(head -1 "$work/k.pb")
	sort -u <(tail -n +2 "$work/k.pb") >"$work/k.pb.sorted"
	np=$(wc -l <"$work/k.perf")
	nb=$(wc -l <"$work/k.pb.sorted")
	echo "kernel: perf script names $np kernel IPs, pesbench $nb; pesbench: ${kernel_named#\# }"
	if [ "$np" = 0 ]; then
		skip_checks 2 "kernel: perf named no kernel address" \
			"(no kernel samples, or kallsyms hidden)"
	else
		case $kernel_named in
		"# True "*) ;;
		*) fail "kernel: perf names kernel addresses, pesbench does not: $kernel_named" ;;
		esac
		missing=$(comm -23 "$work/k.perf" "$work/k.pb.sorted" | head -5)
		[ -z "$missing" ] ||
			fail "kernel: named otherwise or not at all by pesbench: $missing"
	fi
else
	fail "perf record -e cpu-clock of dd failed: $(head -3 "$work/k.err")"
fi

# --- breakpoint: every write to a global of a non-PIE program ---
cat >"$work/bp.c" <<'EOF'
volatile long pb_watched;
int main(void)
{
	for (long i = 0; i < 5000; i++)
		pb_watched = i;
	return 0;
}
EOF
source "$PB_SOURCE_DIR/tests/lib/verdict.sh"
bp_verdict=$(facility_verdict bp)
if [ "$bp_verdict" != works ]; then
	skip_checks 3 "bp: self-test $bp_verdict (perf records no breakpoint samples either)"
elif cc -O1 -no-pie -fno-pie -o "$work/bp" "$work/bp.c" 2>"$work/cc.err"; then
	addr=$(nm "$work/bp" | awk '$3 == "pb_watched" {print $1}')
	if perf record -q -e "mem:0x$addr:w" -c 1 -d -o "$work/bp.data" -- "$work/bp" 2>"$work/bp.err"; then
		compare breakpoint "$work/bp.data" ip,addr
		n=$(pesbench_samples "$work/bp.data" ip,addr | awk -v a="$addr" '{ sub(/^0+/, "", a); if ($2 == a) n++ } END { print n + 0 }')
		[ "$n" -ge 5000 ] || fail "breakpoint: $n samples carry the watched address 0x$addr, expected >= 5000"
	else
		echo "breakpoint part skipped: perf record -e mem: failed: $(head -2 "$work/bp.err")"
	fi
else
	echo "breakpoint part skipped: cc -no-pie failed: $(head -2 "$work/cc.err")"
fi

# --- page faults with data addresses ---
if perf record -q -e page-faults -c 1 -d -o "$work/pf.data" -- \
	"$PB_BIN" measure --facility none --workload bias --iterations 1000 >/dev/null 2>"$work/pf.err"; then
	compare page-faults "$work/pf.data" ip,addr
	# The recorded pesbench forks a child that runs the workload: the IPs it reaches first
	# are named by the mappings it inherited, in the histogram as in perf script.
	unnamed_perf=$(perf script -i "$work/pf.data" -F ip,dso 2>/dev/null |
		awk '$2 == "([unknown])" { print $1 }' | sort -u | wc -l)
	unnamed_pb=$("$PB_BIN" perfdata "$work/pf.data" --histogram --top 4294967296 --json |
		/usr/bin/python3 -c 'import json,sys
print(sum(1 for e in json.load(sys.stdin)["events"] for r in e.get("top_ips", [])
          if not r.get("symbol")))')
	echo "page-faults: IPs without a mapping: perf script $unnamed_perf, pesbench histogram $unnamed_pb"
	[ "$unnamed_pb" -le "$unnamed_perf" ] ||
		fail "page-faults: pesbench's histogram leaves $unnamed_pb IPs unnamed, perf script $unnamed_perf"
else
	fail "perf record -e page-faults failed: $(head -3 "$work/pf.err")"
fi

# --- memory fields: with -d -W this perf samples DATA_SRC and WEIGHT_STRUCT, which the kernel
# fills for page faults (data_src PERF_MEM_NA in every field, weight 0): the weight and the
# decoded data source of every sample must read the same in both (ip addr weight data_src text,
# tab-separated, hex without 0x or leading zeros). Constructed PEBS values: test_pebs_memory.
if perf record -q -e page-faults -c 1 -d -W -o "$work/mem.data" -- \
	"$PB_BIN" measure --facility none --workload bias --iterations 1000 >/dev/null 2>"$work/mem.err"; then
	# perf 6.1: addr "%16lx", data_src "%16lx" right after it, " ", the text padded, weight, ip
	perf script -i "$work/mem.data" -F ip,addr,weight,data_src 2>/dev/null | awk '
		function hex(s) { gsub(/ /, "", s); s = tolower(s); sub(/^0+/, "", s); return s == "" ? "0" : s }
		{
			addr = substr($0, 1, 16); ds = substr($0, 17, 16); text = substr($0, 34)
			n = split(text, f, " "); ip = f[n]; w = f[n - 1]
			sub(/ +[^ ]+ +[^ ]+ *$/, "", text)
			printf "%s\t%s\t%s\t%s\t%s\n", hex(ip), hex(addr), w, hex(ds), text
		}' | sort >"$work/mem.perf"
	"$PB_BIN" perfdata "$work/mem.data" --dump | awk '
		function hex(s) { sub(/^0x/, "", s); sub(/^0+/, "", s); return s == "" ? "0" : s }
		/^sample / {
			ip = ""; addr = ""; w = ""; ds = ""
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^ip=/) ip = substr($i, 4)
				if ($i ~ /^addr=/) addr = substr($i, 6)
				if ($i ~ /^weight=/) w = substr($i, 8)
				if ($i ~ /^data_src=/) { ds = substr($i, 10); break }
			}
			text = $0; sub(/^.* data_src=0x[0-9a-f]+ /, "", text)
			printf "%s\t%s\t%s\t%s\t%s\n", hex(ip), hex(addr), w, hex(ds), text
		}' | sort >"$work/mem.pb"
	np=$(wc -l <"$work/mem.perf")
	nb=$(wc -l <"$work/mem.pb")
	echo "memory fields: perf script $np samples, pesbench dump $nb; first: $(head -1 "$work/mem.pb")"
	[ "$np" -gt 0 ] || fail "memory fields: perf script shows no samples"
	grep -q '|OP N/A|LVL ' "$work/mem.pb" || fail "memory fields: pesbench prints no decoded data source"
	if ! cmp -s "$work/mem.perf" "$work/mem.pb"; then
		fail "memory fields: ip, addr, weight or data source differ, first differences:"
		diff "$work/mem.perf" "$work/mem.pb" | head -10
	fi
	"$PB_BIN" perfdata "$work/mem.data" | grep -q "samples per data source, event 0 (page-faults): $nb samples" ||
		fail "memory fields: the summary has no data source table of $nb samples"
else
	fail "perf record -e page-faults -d -W failed: $(head -3 "$work/mem.err")"
fi

# --- histogram agrees with perf script | sort | uniq -c on the software file ---
if [ -f "$work/sw.data" ]; then
	perf script -i "$work/sw.data" -F ip 2>/dev/null | awk '{print tolower($1)}' | sed -E 's/^0+//' |
		sort | uniq -c | sort -k1,1nr -k2 | head -5 | awk '{print $1, $2}' >"$work/top.perf"
	"$PB_BIN" perfdata "$work/sw.data" --histogram --top 5 |
		awk '/^ +[0-9]+ +[0-9.]+% +0x/ {ip = $3; sub(/^0x/, "", ip); print $1, ip}' >"$work/top.pb"
	if ! cmp -s "$work/top.perf" "$work/top.pb"; then
		# Ties may order differently: compare the counts only.
		if [ "$(cut -d' ' -f1 "$work/top.perf")" != "$(cut -d' ' -f1 "$work/top.pb")" ]; then
			fail "histogram: top 5 differs from perf script | uniq -c"
			paste "$work/top.perf" "$work/top.pb"
		fi
	fi
fi

# --- the histogram names the hottest function as perf report does ---
if [ -f "$work/sw.data" ]; then
	# both demangled (LeakSanitizer's scan at exit, a C++ function, is the hottest under ASan
	# at times): perf report shows a C++ function without its parameters and return type
	# (__lsan::ScanRangeForPointers), pesbench as c++filt does (..., with "(unsigned long, ...")
	top_sym=$(perf report --stdio --sort sym -i "$work/sw.data" 2>/dev/null |
		sed -nE '/%/ s/.*\[\.\] +(.*[^ ]) *$/\1/p' | head -1)
	if [ -n "$top_sym" ]; then
		# elfutils names the sized function enclosing an IP; perf may name a label symbol
		# inside it (the workloads label their instructions pb_wl_<fn>_<label>): either way
		# the function must be the same.
		"$PB_BIN" perfdata "$work/sw.data" --histogram --top 5 |
			sed -nE 's/^ +[0-9]+ +[0-9.]+% +0x[0-9a-f]+ +(.*)\+0x[0-9a-f]+ \(.*\)$/\1/p' |
			sort -u >"$work/top.funcs"
		ok=0
		while read -r f; do
			case $top_sym in "$f" | "$f"_*) ok=1 ;; esac
			case $f in *"$top_sym("*) ok=1 ;; esac
		done <"$work/top.funcs"
		[ $ok = 1 ] || fail "histogram: perf report's hottest symbol $top_sym is in none of pesbench's top-5 functions: $(tr '\n' ';' <"$work/top.funcs")"
		echo "histogram: perf's hottest symbol $top_sym, pesbench's top functions: $(tr '\n' ';' <"$work/top.funcs")"
	fi
fi

# --- error paths ---
if [ -f "$work/sw.data" ]; then
	size=$(stat -c %s "$work/sw.data")
	head -c $((size / 2)) "$work/sw.data" >"$work/cut.data"
	out=$("$PB_BIN" perfdata "$work/cut.data" 2>&1)
	rc=$?
	[ $rc = 6 ] || fail "truncated file: exit $rc, expected 6 ($out)"
	echo "truncated: exit $rc: $out"
fi
# --- pipe mode (perf record -o -): attrs and features arrive as records ---
if perf record -q -e cpu-clock -c 100000 -o - -- \
	"$PB_BIN" measure --facility none --workload bias --iterations 30000000 2>/dev/null >"$work/pipe.data"; then
	compare pipe-mode "$work/pipe.data" ip
	# Cut inside a record: the walk must stop with exit 6, not read past the end.
	size=$(stat -c %s "$work/pipe.data")
	head -c $((size - 5)) "$work/pipe.data" >"$work/pipe_cut.data"
	out=$("$PB_BIN" perfdata "$work/pipe_cut.data" 2>&1)
	rc=$?
	[ $rc = 6 ] || fail "truncated pipe-mode file: exit $rc, expected 6 ($out)"
	echo "truncated pipe mode: exit $rc: $out"
else
	fail "perf record -o - failed"
fi

# --- the same recordings exported as pprof: Google's schema decodes them (protoc), and their
# totals per location equal the histogram's and perf script's counts per IP ---
source "$PB_SOURCE_DIR/tests/lib/export_judges.sh"
why=$(pprof_judge_missing)
if [ -n "$why" ]; then
	skip_checks 3 "pprof exports: $why"
else
	for rec in software:sw page-faults:pf pipe-mode:pipe; do
		[ -s "$work/${rec#*:}.data" ] && check_pprof_totals "${rec%%:*}" "$work/${rec#*:}.data"
	done
fi

if [ $fails -gt 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all perf.data conformance checks passed"
