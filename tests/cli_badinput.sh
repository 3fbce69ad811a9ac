#!/bin/bash
# The bad-input table: every way a user can hand pesbench something wrong, run as a user would
# run it, with the exit code and a distinctive part of the message checked. The same rows make
# docs/bad-input.md: `tests/cli_badinput.sh --doc` (with PB_BIN set) prints the table with
# the messages as printed; the test checks that the document lists every row it runs.
#
# Rows that depend on the machine (no hardware PMU, not an AMD CPU, mount allowed, perf.data
# seeds present) are skipped with the reason where the condition does not hold.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
source_dir=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
doc_mode=false
[ "${1:-}" = "--doc" ] && doc_mode=true

failures=0
checks=0
rows=0
work=$(mktemp -d)
mounts=()
cleanup() {
	for m in "${mounts[@]+"${mounts[@]}"}"; do umount "$m" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
doc_inputs=()
doc_lines=()

# How a command reads in the table: the binary as `pesbench`, the scratch folder as DIR.
display() {
	local out="" a
	for a in "$@"; do
		a=${a//$PB_BIN/pesbench}
		a=${a//$work/DIR}
		case $a in
		*[[:space:]\$\']*) a="'$a'" ;;
		esac
		out+="${out:+ }$a"
	done
	printf '%s' "$out"
}

# row INPUT CODE PATTERN COMMAND...: runs COMMAND, checks the exit code and that PATTERN
# (fixed text) is in the message. The message is stderr unless STREAM=stdout or
# STREAM=FILE:path (a file the command writes, e.g. results.json). SHOW overrides the command
# as the table prints it (for environment settings). POST, if set, is a further check
# (a shell condition) with its description in POST_WHAT.
row() {
	local input=$1 want=$2 pattern=$3
	shift 3
	rows=$((rows + 1))
	"$@" >"$work/stdout" 2>"$work/stderr" </dev/null
	local got=$? source="$work/stderr"
	case ${STREAM:-stderr} in
	stdout) source="$work/stdout" ;;
	FILE:*) source=${STREAM#FILE:} ;;
	esac
	checks=$((checks + 2))
	[ "$got" = "$want" ] ||
		fail "$input: exit $got, expected $want ($(head -c 300 "$work/stderr"))"
	grep -qF -- "$pattern" "$source" 2>/dev/null ||
		fail "$input: message lacks '$pattern' (got: $(head -c 300 "$source" 2>/dev/null))"
	if [ -n "${POST:-}" ]; then
		checks=$((checks + 1))
		eval "$POST" || fail "$input: ${POST_WHAT:-post-condition}"
	fi
	local msg
	# the matched line and the lines a wrapped message goes on in (indented two spaces)
	msg=$(awk -v pat="$pattern" 'found && /^  [^ ]/ { sub(/^ +/, ""); printf " %s", $0; next }
		found { exit } index($0, pat) { found = 1; printf "%s", $0 }' "$source" 2>/dev/null)
	[ -n "$msg" ] || msg=$(head -n1 "$source" 2>/dev/null)
	msg=${msg#"${msg%%[![:space:]]*}"}
	msg=${msg//$work/DIR}
	msg=${msg//$PB_BIN/pesbench}
	[ ${#msg} -gt 400 ] && msg="${msg:0:400}…"
	local shown=${SHOW:-$(display "$@")}
	doc_inputs+=("$input")
	doc_lines+=("| $input | \`${shown//|/\\|}\` | ${msg//|/\\|} | $want |")
}

skip_row() {
	echo "SKIP row '$1': $2"
	doc_inputs+=("$1")
	doc_lines+=("| $1 | (not run here: $2) | | |")
}

pb=$PB_BIN
ncpus=$(nproc)
too_many=$((ncpus + 1))
has_pmu=false
[ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ] &&
	has_pmu=true
is_amd=false
grep -q AuthenticAMD /proc/cpuinfo && is_amd=true
is_x86=false
case $(uname -m) in x86_64 | i?86) is_x86=true ;; esac
source "$source_dir/tests/lib/verdict.sh"
bp_verdict=$(facility_verdict bp)
# An exact facility that works here, for rows about something else than the facility.
ex=bp:w
[ "$bp_verdict" = works ] || ex=sw:page-faults

# --- the command line ---
row "unknown subcommand" 2 "unknown command 'frob'" $pb frob
row "mistyped subcommand (did you mean)" 2 "unknown command 'mesure'; did you mean measure?" \
	$pb mesure
row "unknown option" 2 "unknown option --frobnicate" $pb run --frobnicate 1
row "unknown option at the end of the line" 2 "\`pesbench measure --help\` lists them all" \
	$pb measure --frobnicate
row "mistyped option (did you mean)" 2 "unknown option --facilty; did you mean --facility?" \
	$pb run --facilty timer
row "short option of another command" 2 "unknown option -f" $pb report -f timer
row "option missing its value" 2 "option --runs needs a value" $pb run --runs
row "value given to a flag" 2 "option --quiet takes no value" $pb run --quiet=yes
row "stray argument" 2 "unexpected argument 'extra'" $pb measure extra --facility bp:w
row "unknown experiment" 2 "unknown experiment 'frob'; known: accuracy, interval" $pb run frob
row "mistyped experiment (did you mean)" 2 "unknown experiment 'acuracy'; did you mean accuracy?" \
	$pb run acuracy
row "required option missing" 2 "--facility is required" $pb measure
row "--runs 0" 2 "--runs '0' is too small (min 1)" $pb run --runs 0
row "negative period" 2 "must not be negative" $pb measure --facility bp:w --period -5
row "zero period" 2 "--period 0 samples nothing" $pb measure --facility timer:cpu-clock --period 0
row "huge period" 2 "is too large (max 9223372036854775807)" \
	$pb measure --facility bp:w --period 99999999999999999999999
row "period not a number" 2 "unexpected 'e6' after the number" $pb run --period 1e6
row "empty period list" 2 "--period: empty list" $pb run --period ,
row "period with an unknown unit" 2 "--period '5q': unknown unit" \
	$pb measure --facility bp:w --period 5q
row "period as a time on an event facility" 2 "bp:w samples every N events, not after a time" \
	$pb measure --facility bp:w --period 1ms
row "period with a count suffix on a timer" 2 "the period of timer:cpu-clock is a time" \
	$pb measure --facility timer:cpu-clock --period 10k
row "period as a fraction of a unit" 2 "write a time as whole units" \
	$pb measure --facility timer --period 1.5ms
row "period of zero as a time" 2 "--period '0ms' is too short (min 1 ns)" \
	$pb attr timer --period 0ms
row "period as a time too long" 2 "is too long a time" \
	$pb measure --facility timer --period 99999999999s
row "period as a time past 64 bits" 2 "'99999999999999999999ms' is too long a time" \
	$pb measure --facility timer --period 99999999999999999999ms
row "period with a unit and the default facilities" 2 "--period with a unit needs --facility" \
	$pb run accuracy --period 1ms
row "period with a unit on an event facility (run)" 2 "sw:page-faults samples every N events" \
	$pb run accuracy --facility timer --facility sw:page-faults --period 1ms
row "zero iterations" 2 "--iterations '0' is too small (min 1)" \
	$pb measure --facility bp:w --iterations 0
row "timer period below the kernel's floor" 2 "below timer's minimum of 10000" \
	$pb measure --facility timer:cpu-clock --period 1
row "timer period below the kernel's floor (run)" 2 "below timer's minimum of 10000" \
	$pb run accuracy --facility timer:cpu-clock --period 5000 --out $work/floor
row "IBS period not a multiple of 16" 2 "not a multiple of 16" \
	$pb measure --facility ibs-op --period 1000
row "more threads than CPUs (measure)" 2 "this machine has $ncpus CPUs" \
	$pb measure --facility bp:w --threads $too_many
row "more threads than CPUs (run)" 2 "use at most $ncpus" \
	$pb run accuracy --facility bp:w --threads 1,$too_many
row "bad delivery mode" 2 "unknown delivery mode 'smoke'; use none, signal, sigtrap or drain" \
	$pb measure --facility bp:w --delivery smoke
row "ring pages not a power of two" 2 "the kernel needs a power of two" \
	$pb measure --facility bp:w --ring 3

# --- facilities and events ---
row "unknown facility" 2 "unknown facility 'frob'" $pb measure --facility frob
row "facility named in part (did you mean)" 2 \
	"unknown facility 'ibs'; did you mean ibs-op or ibs-fetch? \`pesbench facilities\` lists them all" \
	$pb measure --facility ibs
row "mistyped perf event name (did you mean)" 2 "unknown facility 'cycle'; did you mean cycles?" \
	$pb measure --facility cycle
row "unknown event (closest name first)" 2 "unknown sw event 'page-fault'; did you mean page-faults?" \
	$pb measure --facility sw:page-fault
row "unknown timer clock" 2 "unknown clock 'foo'; use timer:cpu-clock or timer:task-clock" \
	$pb measure --facility timer:foo
row "mistyped timer clock (did you mean)" 2 "unknown clock 'cpu-clok'; did you mean cpu-clock?" \
	$pb measure --facility timer:cpu-clok
row "unknown breakpoint kind" 2 "unknown breakpoint kind 'z'; use bp:w, bp:rw or bp:x" \
	$pb measure --facility bp:z
if $has_pmu; then
	skip_row "facility absent: no hardware PMU" "this machine has a hardware PMU"
	skip_row "facility absent: PEBS" "this machine has a hardware PMU"
	skip_row "suite asked only for absent facilities" "this machine has a hardware PMU"
else
	row "facility absent: no hardware PMU" 3 "no hardware PMU" \
		$pb measure --facility hw:instructions
	# which reason comes first follows the CPU: AMD has no PEBS at all (the messages
	# for every vendor are checked on the fixture trees by cli_probe)
	pebs_why="no hardware PMU"
	$is_amd && pebs_why="PEBS is an Intel facility"
	row "facility absent: PEBS" 3 "$pebs_why" \
		$pb measure --facility pebs:INST_RETIRED:PREC_DIST
	row "suite asked only for absent facilities" 3 \
		"none of the chosen facilities is available here" \
		$pb run accuracy --facility hw:instructions --quiet --out "$work/absent"
fi
if $is_amd; then
	skip_row "facility absent: IBS on a non-AMD CPU" "this is an AMD CPU"
else
	row "facility absent: IBS on a non-AMD CPU" 3 "IBS is an AMD facility" \
		$pb measure --facility ibs-op --period 4096
fi
if $is_x86; then
	row "facility absent: SPE on x86" 3 "SPE is an Arm facility" $pb measure --facility spe
else
	skip_row "facility absent: SPE on x86" "not an x86 machine"
fi
row "IBS period below the minimum" 2 "below ibs-op's minimum of 144" \
	$pb measure --facility ibs-op --period 100
row "precise level above the maximum" 2 "pp must be 1, 2 or 3" \
	$pb measure --facility pebs:INST_RETIRED:PREC_DIST:pp=7
if [ "$bp_verdict" = works ]; then
	STREAM=FILE:$work/multi/results.json \
		row "a fifth breakpoint (recorded in results.json)" 0 \
		"no free debug-register slot: a breakpoint beyond the 4 debug registers" \
		$pb run multi --facility bp:w --runs 1 --target-ms 10 --quiet --out "$work/multi"
else
	skip_row "a fifth breakpoint (recorded in results.json)" "breakpoints are $bp_verdict here"
	$pb run multi --facility $ex --runs 1 --target-ms 10 --quiet --out "$work/multi" \
		>/dev/null 2>&1
fi
# A facility the kernel accepts and that never fires (breakpoints made inert for these rows,
# as on one of our VM kinds) is refused with its self-test's figures, on every machine.
inert=(env LD_PRELOAD="$PB_BUILD_DIR/libpb_inert_breakpoints.so" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0")
if [ -n "${PB_BUILD_DIR:-}" ] && [ -f "$PB_BUILD_DIR/libpb_inert_breakpoints.so" ]; then
	SHOW="pesbench measure --facility bp:w (breakpoints inert)" \
		row "inert facility (measure)" 3 \
		"bp:w: self-test inert: the kernel accepts breakpoints but none fired: 16 writes, 0 counted" \
		"${inert[@]}" $pb measure --facility bp:w
	SHOW="pesbench run accuracy --facility bp:w --facility sw:page-faults (breakpoints inert)" \
	POST="grep -q '\"verdict\": \"inert\"' '$work/inert/results.json' && ! grep -q '\"facility\": \"bp:w\", \"workload\"' '$work/inert/results.json'" \
	POST_WHAT="results.json carries the verdict and no bp point" \
		row "inert facility (run: skipped, the others measured)" 0 \
		"skipping bp:w: self-test inert" \
		"${inert[@]}" $pb run accuracy --facility bp:w --facility sw:page-faults --runs 1 \
		--threads 1 --target-ms 10 --out "$work/inert"
	SHOW="pesbench verify mix --iterations 100 (breakpoints inert)" STREAM=stdout \
		row "inert facility (verify: judged by the oracles that work)" 0 \
		"bp:w: self-test inert" \
		"${inert[@]}" $pb verify mix --iterations 100
else
	for r in "inert facility (measure)" "inert facility (run: skipped, the others measured)" \
		"inert facility (verify: judged by the oracles that work)"; do
		skip_row "$r" "the test-only preload library is not built (run through ctest)"
	done
fi
# A point that fails mid-run (signals that cannot be routed to a thread, for this row: the timer
# passes its self-test and fails the one the overhead experiment's signal delivery runs again)
# is said under --quiet too, and the run exits 1 with its results complete.
if [ -n "${PB_BUILD_DIR:-}" ] && [ -f "$PB_BUILD_DIR/libpb_no_signal_routing.so" ]; then
	SHOW="pesbench run overhead --facility timer --quiet (signals not routable)" \
	POST="grep -q '\"complete\": true' '$work/unroutable/results.json'" \
	POST_WHAT="the run's results are complete" \
		row "a point fails mid-run (the run goes on)" 1 \
		"pesbench run: overhead on timer failed: timer: self-test refused: cannot route" \
		env LD_PRELOAD="$PB_BUILD_DIR/libpb_no_signal_routing.so" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" $pb run overhead \
		--facility timer --runs 1 --threads 1 --target-ms 10 --quiet \
		--out "$work/unroutable"
else
	skip_row "a point fails mid-run (the run goes on)" \
		"the test-only preload library is not built (run through ctest)"
fi
row "probe of a missing fixture tree" 2 "is not a directory" \
	$pb probe --root "$work/no-such-tree"

# --- workloads ---
row "unknown workload" 2 "unknown workload 'nope'; known: accuracy, bias" \
	$pb measure --facility bp:w --workload nope
row "mistyped workload (did you mean)" 2 "unknown workload 'acuracy'; did you mean accuracy?" \
	$pb measure --facility bp:w --workload acuracy
row "unknown workload parameter" 2 "accuracy has no parameter 'foo'; its parameters: ratio" \
	$pb measure --facility bp:w --workload accuracy:foo=1
row "workload parameter out of range" 2 "ratio=100000 is outside 5..1000" \
	$pb measure --facility bp:w --workload accuracy:ratio=100000
row "workload choice not among the variants" 2 "kernel='foo' is not one of: getppid, fault, touch" \
	$pb measure --facility bp:w --workload mode:kernel=foo
row "unknown label for a uprobe" 2 "unknown label 'nolabel'; \`pesbench workloads WORKLOAD\` lists them all" \
	$pb measure --facility uprobe --label nolabel
row "mistyped label (did you mean)" 2 "unknown label 'pb_wl_accuracy_jmp'; did you mean pb_wl_accuracy_jump?" \
	$pb measure --facility uprobe --label pb_wl_accuracy_jmp
row "unknown workload (verify)" 2 "unknown workload 'nope'" $pb verify nope

# --- output folder ---
echo "a file" >"$work/plainfile"
row "output folder under a file" 4 "cannot create output folder" \
	$pb run accuracy --facility $ex --out "$work/plainfile/out"
mkdir -p "$work/earlier"
echo '{"earlier": true}' >"$work/earlier/results.json"
POST="grep -q earlier '$work/earlier/results.json' && [ ! -e '$work/earlier/report.html' ]" \
	POST_WHAT="the earlier run's results.json was changed or a report written beside it" \
	row "output folder holding an earlier run" 4 "already holds results" \
	$pb run accuracy --facility $ex --out "$work/earlier"
mkdir -p "$work/ro" "$work/full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o ro,size=64k tmpfs "$work/ro" 2>/dev/null; then
	mounts+=("$work/ro")
	row "unwritable output folder (read-only file system)" 4 "Read-only file system" \
		$pb run accuracy --facility $ex --out "$work/ro/out"
else
	skip_row "unwritable output folder (read-only file system)" "cannot mount a tmpfs"
fi
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k tmpfs "$work/full" 2>/dev/null; then
	mounts+=("$work/full")
	# leave two pages: room to start writing, not to finish
	dd if=/dev/zero of="$work/full/filler" bs=4k count=14 2>/dev/null
	POST="[ ! -e '$work/full/out/results.json' ] && ! ls '$work/full/out' | grep -q tmp" \
	POST_WHAT="no results.json (nor a temporary file) left in the full folder" \
		row "full output folder" 4 "No space left on device (disk full?)" \
		$pb run accuracy --facility $ex --runs 1 --threads 1 --target-ms 10 --quiet \
		--out "$work/full/out"
else
	skip_row "full output folder" "cannot mount a tmpfs (needs root)"
fi

# --- commands given to plan and profile ---
printf '#!/bin/sh\necho hi\n' >"$work/script.sh"
chmod +x "$work/script.sh"
row "target command missing (plan)" 2 "cannot run '/nonexistent/prog': No such file" \
	$pb plan --facility timer:cpu-clock --budget 5 -- /nonexistent/prog
row "target command missing (profile)" 2 "cannot run '/nonexistent/prog': No such file" \
	$pb profile -- /nonexistent/prog
row "target command exits non-zero (plan)" 1 "exited with status 1" \
	$pb plan --facility timer:cpu-clock --budget 5 -- /bin/false
row "target command exits non-zero (profile)" 1 "exited with status 1" \
	$pb profile -- /bin/false
row "target command crashes (plan)" 1 "was killed by signal 11" \
	$pb plan --facility timer:cpu-clock --budget 5 -- /bin/sh -c 'kill -SEGV $$'
row "target command crashes (profile)" 1 "was killed by signal 11" \
	$pb profile -- /bin/sh -c 'kill -SEGV $$'
row "target command is killed (plan)" 1 "was killed by signal 9" \
	$pb plan --facility timer:cpu-clock --budget 5 -- /bin/sh -c 'kill -KILL $$'
row "non-ELF target for profile" 2 "is not an ELF executable (a script?)" \
	$pb profile -- "$work/script.sh"
row "plan without a command" 2 "no command to plan for" \
	$pb plan --facility timer:cpu-clock --budget 5
row "plan with a zero budget" 2 "give the allowed overhead as a percentage above 0" \
	$pb plan --facility timer:cpu-clock --budget 0 -- /bin/true

# --- input files ---
seed="$source_dir/fuzz/corpus/perfdata/perf61_cpu_clock.data"
if [ -f "$seed" ]; then
	head -c 200 "$seed" >"$work/truncated.data"
	row "truncated perf.data" 6 "the recording was cut short" $pb perfdata "$work/truncated.data"
	python3 - "$seed" "$work/corrupt.data" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
data_offset = struct.unpack_from('<Q', b, 40)[0]
struct.pack_into('<H', b, data_offset + 6, 3)  # first record: size smaller than its header
open(sys.argv[2], 'wb').write(b)
EOF
	row "corrupt perf.data record" 6 "less than its own header: the data section is corrupt" \
		$pb perfdata "$work/corrupt.data"
else
	skip_row "truncated perf.data" "seed $seed missing"
	skip_row "corrupt perf.data record" "seed $seed missing"
fi
head -c 4096 /dev/urandom >"$work/random.data"
row "not a perf.data at all" 6 "no PERFILE2 magic: not a perf.data file" \
	$pb perfdata "$work/random.data"
row "perf.data missing" 2 "cannot open" $pb perfdata "$work/none.data"
row "empty standard input (perfdata -)" 6 "standard input: perf.data: 0 bytes" $pb perfdata -
if [ -f "$seed" ]; then
	cp "$seed" "$work/rec.data"
	row "--export without a file" 2 "give FORMAT:FILE" $pb perfdata "$work/rec.data" --export pprof
	row "--export of an unknown format" 2 "unknown format 'svg'" \
		$pb perfdata "$work/rec.data" --export "svg:$work/x.svg"
	POST='[ ! -e "$work/nodir" ]' POST_WHAT="a file was left behind" \
		row "--export into a missing folder" 4 "cannot write" \
		$pb perfdata "$work/rec.data" --export "pprof:$work/nodir/p.pb.gz"
else
	skip_row "--export without a file" "seed $seed missing"
	skip_row "--export of an unknown format" "seed $seed missing"
	skip_row "--export into a missing folder" "seed $seed missing"
fi
POST='[ ! -e "$work/nodir" ]' POST_WHAT="a file was left behind" \
	row "--record into a missing folder" 4 "cannot create" \
	$pb measure --facility timer:cpu-clock --record "$work/nodir/m.data"
row "profile --record with --perf-data" 2 "with --perf-data they are already in" \
	$pb profile --record "$work/x.data" --perf-data "$work/none.data" -- /bin/true
mkdir -p "$work/v3"
printf '{"schema":"pesbench-results/3","points":[]}\n' >"$work/v3/results.json"
row "results of another schema version (compare)" 6 \
	"has schema 'pesbench-results/3'; this pesbench reads 'pesbench-results/2' and 'pesbench-results/1'" \
	$pb compare "$work/v3/results.json" "$work/v3/results.json"
row "results of another schema version (report)" 6 "has schema 'pesbench-results/3'" \
	$pb report "$work/v3"
mkdir -p "$work/cut"
if [ -f "$work/multi/results.json" ]; then
	head -c 300 "$work/multi/results.json" >"$work/cut/results.json"
else
	printf '{"schema": "pesbench-results/1", "poi' >"$work/cut/results.json"
fi
row "results file cut short" 6 "is not valid JSON" $pb compare "$work/cut" "$work/cut"
row "compare with one file" 2 "compare needs two or more results" $pb compare "$work/cut"
printf '\nnot json\n' >"$work/bad.jsonl"
row "results.jsonl with a line that is not JSON (compare)" 6 "line 2 is not a JSON object" \
	$pb compare "$work/bad.jsonl"
printf '{"schema":"pesbench-results/2"}\n' >"$work/other.jsonl"
row "JSONL of another kind (compare)" 6 "is not a pesbench-figure/1 record" \
	$pb compare "$work/other.jsonl"
row "results folder missing (report)" 6 "$work/none" $pb report "$work/none"

# --- tools missing ---
mkdir -p "$work/bin"
for tool in sh true false; do ln -sf "$(command -v $tool)" "$work/bin/$tool"; done
if "$pb" verify busy --iterations 10 --no-uprobe --no-bp 2>/dev/null |
	grep -q "built with AddressSanitizer"; then
	skip_row "valgrind missing (verify: callgrind listed as not run)" \
		"a sanitizer build never runs callgrind"
else
	SHOW="PATH=<without valgrind> pesbench verify busy --iterations 200" STREAM=stdout \
		row "valgrind missing (verify: callgrind listed as not run)" 0 \
		"callgrind: valgrind is not on PATH" env PATH="$work/bin" $pb verify busy \
		--iterations 200
fi
SHOW="PATH=<without valgrind> pesbench profile -- /bin/true" \
	row "valgrind missing (profile needs its exact reference)" 3 \
	"the exact reference needs callgrind: valgrind is not on PATH" \
	env PATH="$work/bin" $pb profile -- /bin/true
if [ -f "$work/multi/results.json" ]; then
	rm -f "$work/multi/report.html"
	SHOW="PATH=<without gnuplot> pesbench report DIR/multi" \
	POST="[ -s '$work/multi/report.html' ] && [ -s '$work/multi/results.csv' ] && grep -q '^Scorecard' '$work/stdout'" \
	POST_WHAT="report.html, results.csv and the scorecard produced without gnuplot" \
		row "gnuplot missing (report: tables still produced)" 0 "gnuplot not found" \
		env PATH="$work/bin" $pb report "$work/multi"
else
	skip_row "gnuplot missing (report: tables still produced)" "the multi run wrote no results"
fi

# --- interruption ---
rows=$((rows + 1))
"$pb" run --facility $ex --runs 3 --threads 1 --target-ms 200 --quiet --out "$work/int" \
	>"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 50); do
	[ -e "$work/int" ] && break
	sleep 0.1
done
sleep 1
kill -INT "$pid"
wait "$pid"
got=$?
checks=$((checks + 3))
[ "$got" = 130 ] || fail "SIGINT during run: exit $got, expected 130"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["complete"] is False' \
	"$work/int/results.json" 2>/dev/null ||
	fail "SIGINT during run: results.json missing or not marked incomplete"
"$pb" compare "$work/int" "$work/int" >/dev/null 2>"$work/stderr" ||
	fail "the partial results do not load: $(head -c 300 "$work/stderr")"
doc_inputs+=("SIGINT during a suite")
doc_lines+=("| SIGINT during a suite | \`pesbench run --out DIR\` then Ctrl-C | DIR/results.json written with \"complete\": false; \`compare\`/\`report\` load it | 130 |")

if $doc_mode; then
	cat <<EOF
# Bad input: what pesbench says and how it exits

Generated by \`PB_BIN=build/pesbench tests/cli_badinput.sh --doc\`; the test
\`tests/cli_badinput.sh\` runs every row and checks the exit code and the message (CTest
\`cli_badinput\`). Messages are quoted as printed on the machine that generated this file
(a 2-CPU KVM guest without a hardware PMU); DIR is a scratch folder. Exit codes: 0 ok,
1 run-time failure, 2 bad usage or input, 3 facility unavailable or not permitted,
4 output folder unwritable or full, 5 verification mismatch, 6 bad input file,
130 interrupted. The unprivileged rows (perf_event_paranoid 2, no capabilities) are in
\`tests/cli_unprivileged.sh\`, summarised at the end.

| input | command | message (as printed) | exit |
|---|---|---|---|
EOF
	printf '%s\n' "${doc_lines[@]}"
	cat <<'EOF'

## As an unprivileged user (perf_event_paranoid 2)

Checked by `tests/cli_unprivileged.sh` as the real user `pesbench-test`:

| input | command | message (as printed) | exit |
|---|---|---|---|
| uprobe without CAP_SYS_ADMIN | `pesbench probe` | `uprobe … why: uprobe perf events need CAP_SYS_ADMIN since the 2025 revert (ba677dbe77af); run as root or grant CAP_SYS_ADMIN` (timer, sw, bp listed available) | 0 |
| uprobe measured anyway | `pesbench measure --facility uprobe` | `pesbench measure: uprobe, thread 0: perf_event_open(type 8, config 0x0): Permission denied (uprobe events need CAP_SYS_ADMIN: run as root or grant the capability)` | 3 |
| kernel-mode counting | `pesbench measure --facility sw:page-faults --workload mode:kernel=fault` | `pesbench measure: sw:page-faults, thread 0: perf_event_open(type 1, config 0x2): Permission denied (kernel-mode counting, exclude_kernel=0, needs perf_event_paranoid <= 1 (it is 2), CAP_PERFMON or CAP_SYS_ADMIN; or count user mode only)` | 3 |
| only unavailable facilities asked for | `pesbench run accuracy --facility uprobe --quiet` | `skipping uprobe: uprobe perf events need CAP_SYS_ADMIN …` then `pesbench run: none of the chosen facilities is available here (reasons above; …)` | 3 |
| user-mode page faults | `pesbench measure --facility sw:page-faults --workload mode:kernel=touch` | one fault per iteration, all user mode, accuracy 100 % | 0 |

## Capture bundles

Checked by `tests/cli_replay.sh` (bundles copied from `tests/captures/x86-vm` and damaged):

| input | command | message (as printed) | exit |
|---|---|---|---|
| a stored result that changed | `pesbench replay DIR/changed` | `accuracy-timer DIFFERS` then `results.events[0].observed: 208 -> 207` and `replay: 1 of 10 points differ` (stdout) | 5 |
| bundle.json cut short | `pesbench replay DIR/cut` | pesbench replay: DIR/cut/bundle.json: not JSON (line 1: '}' expected near end of file); a bundle's bundle.json is written by `pesbench capture` | 6 |
| a file outside the bundle | `pesbench replay DIR/escape` | pesbench replay: DIR/escape/bundle.json: point accuracy-sw: events[].threads[].file names a file outside the bundle's points/; the bundle is damaged or was not written by `pesbench capture` (pesbench-capture/1) | 6 |
| a perf.data missing | `pesbench replay DIR/missing` | pesbench replay: cannot open DIR/missing/points/accuracy-sw.t0.e0.perf.data: No such file or directory | 6 |
| not a bundle | `pesbench replay DIR` | pesbench replay: cannot read DIR/bundle.json (No such file or directory): is it a bundle written by `pesbench capture`? | 6 |
| capture into a folder that holds files | `pesbench capture --facility sw DIR/fresh` | pesbench capture: DIR/fresh is not empty: capture writes a new bundle and never mixes with files already there; give a new folder | 2 |
| capture of an unknown facility | `pesbench capture --facility frob DIR/frob` | pesbench capture: --facility frob: unknown facility 'frob'; known: timer, sw, bp, uprobe, hw, pebs, ibs-op, ibs-fetch, spe | 2 |
EOF
	exit 0
fi

# The document lists every row this test runs.
docfile="$source_dir/docs/bad-input.md"
checks=$((checks + 1))
if [ -f "$docfile" ]; then
	for input in "${doc_inputs[@]}"; do
		grep -qF -- "| $input |" "$docfile" ||
			fail "docs/bad-input.md lacks the row '$input' (regenerate: tests/cli_badinput.sh --doc)"
	done
else
	fail "docs/bad-input.md is missing (generate it: tests/cli_badinput.sh --doc)"
fi
echo "$rows rows, $checks checks, $failures failures"
[ "$failures" -eq 0 ]
