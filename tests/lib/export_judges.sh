# Judges of pesbench's profile exports, sourced by tests/cli_export*.sh and
# tests/cli_perfdata_conformance.sh. Each judge is a program no one here wrote: protoc with
# Google's profile.proto (Debian's golang-github-google-pprof-dev), speedscope's published schema
# (npm package speedscope) with python3-jsonschema, perf's own tools. tests/lib/profile_judge.py
# only reorders what those decoders print.
# Needs: PB_BIN, work (a scratch folder), fail (a function).

judge_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
judge_py() { /usr/bin/python3 "$judge_dir/profile_judge.py" "$@"; }

# The profile.proto Debian ships, "" when it is not installed.
pprof_proto() {
	dpkg -L golang-github-google-pprof-dev 2>/dev/null | grep '/proto/profile.proto$' | head -1
}

# Why the pprof judge cannot run, "" when it can.
pprof_judge_missing() {
	command -v protoc >/dev/null || { echo "protoc is missing (scripts/install-deps.sh --test)"; return; }
	[ -n "$(pprof_proto)" ] || { echo "Debian's profile.proto is missing (golang-github-google-pprof-dev, scripts/install-deps.sh --test)"; return; }
	[ -x /usr/bin/python3 ] || echo "/usr/bin/python3 is missing"
}

# Decodes a pprof file into protoc's text form at $2; fails when protoc rejects it.
pprof_decode() { # file.pb.gz out.txt
	local proto
	proto=$(pprof_proto)
	zcat "$1" | protoc --decode perftools.profiles.Profile -I "$(dirname "$proto")" \
		"$(dirname "$proto")/profile.proto" >"$2" 2>"$2.err"
}

# Sample counts per IP as a sorted multiset, from perf script.
perf_ip_counts() { # perf.data
	perf script -i "$1" -F ip 2>/dev/null | awk '{ n[tolower($1)]++ } END { for (k in n) print n[k] }' |
		sort -n
}

# The pprof export of a recording: protoc decodes it, the invariants hold, and the samples of
# its leaf locations equal pesbench's histogram and perf script's counts per IP, as multisets
# (a location is a link-time address, an IP a run-time one). That holds for recordings whose
# processes share one address layout, as the conformance files' do (a forked child included:
# it inherits its parent's mappings, FORK records say so); two processes that loaded one file
# at different addresses would give two IPs for one location.
check_pprof_totals() { # name perf.data
	local name=$1 data=$2
	"$PB_BIN" perfdata "$data" --export "pprof:$work/$name.pb.gz" >/dev/null 2>"$work/$name.export.err" ||
		{ fail "$name: pesbench perfdata --export pprof failed: $(head -2 "$work/$name.export.err")"; return; }
	pprof_decode "$work/$name.pb.gz" "$work/$name.pb.txt" ||
		{ fail "$name: protoc cannot decode the pprof file: $(head -2 "$work/$name.pb.txt.err")"; return; }
	judge_py pprof-check "$work/$name.pb.txt" >"$work/$name.pb.bad" ||
		fail "$name: pprof file breaks the format: $(head -3 "$work/$name.pb.bad")"
	judge_py pprof-leaves "$work/$name.pb.txt" 0 | awk '{print $3}' | sort -n >"$work/$name.pb.counts"
	"$PB_BIN" perfdata "$data" --histogram --top 4294967296 --json |
		/usr/bin/python3 -c 'import json,sys
for e in json.load(sys.stdin)["events"]:
    for r in e.get("top_ips", []): print(r["samples"])' | sort -n >"$work/$name.hist.counts"
	perf_ip_counts "$data" >"$work/$name.perf.counts"
	local np nh nx
	np=$(awk '{s += $1} END {print s + 0}' "$work/$name.perf.counts")
	nh=$(awk '{s += $1} END {print s + 0}' "$work/$name.hist.counts")
	nx=$(awk '{s += $1} END {print s + 0}' "$work/$name.pb.counts")
	echo "$name: pprof export: $nx samples in $(wc -l <"$work/$name.pb.counts") leaf locations;" \
		"histogram $nh in $(wc -l <"$work/$name.hist.counts") IPs;" \
		"perf script $np in $(wc -l <"$work/$name.perf.counts") IPs"
	[ "$np" -gt 0 ] || fail "$name: perf script shows no samples"
	cmp -s "$work/$name.pb.counts" "$work/$name.hist.counts" ||
		fail "$name: pprof totals per location differ from pesbench's histogram per IP" \
			"(counts only in one: $(diff "$work/$name.pb.counts" "$work/$name.hist.counts" |
				grep '^[<>]' | head -6 | tr '\n' ' '); samples per IP and file, perf script:" \
			"$(perf script -i "$data" -F ip,dso 2>/dev/null | sort | uniq -c | sort -k2 |
				awk '{ n[$2]++; l[$2] = l[$2] " " $0 } END { for (k in n) if (n[k] > 1) print l[k] }' |
				head -3 | tr '\n' ' '))"
	cmp -s "$work/$name.pb.counts" "$work/$name.perf.counts" ||
		fail "$name: pprof totals per location differ from perf script's counts per IP"
}
