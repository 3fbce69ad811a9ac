#!/bin/sh
# Runs in the arm64 guest (busybox sh, cwd /guest, results to $PB_OUT): pesbench as a user runs
# it. Every command's stdout, stderr and exit status are kept in $PB_OUT as NAME.out, NAME.err
# and NAME.rc for tests/arm64/check_results.py on the host; this script's own verdict (its
# exit status) is only whether each command exited as expected.
out=${PB_OUT:-/out}
failed=0

# run NAME WANT CMD...: runs CMD, keeps its output, checks its exit status
run() {
	name=$1 want=$2
	shift 2
	start=$(date +%s)
	"$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
	rc=$?
	echo "$rc" >"$out/$name.rc"
	echo "$*" >"$out/$name.cmd"
	secs=$(($(date +%s) - start))
	if [ "$rc" = "$want" ]; then
		echo "guest: ok   $name (exit $rc, ${secs} s)"
	else
		echo "guest: FAIL $name: exit $rc, expected $want (${secs} s): $*"
		tail -n 5 "$out/$name.err" | sed 's/^/guest:      /'
		failed=$((failed + 1))
	fi
}

# row NAME WANT PATTERN CMD...: a bad input, as in tests/cli_badinput.sh: the exit status and
# a distinctive part of the message (fixed text, stderr)
row() {
	rname=$1 rwant=$2 pattern=$3
	shift 3
	run "$rname" "$rwant" "$@"
	if ! grep -qF -- "$pattern" "$out/$rname.err"; then
		echo "guest: FAIL $rname: message lacks '$pattern': $(head -c 300 "$out/$rname.err")"
		failed=$((failed + 1))
	fi
}

uname -a >"$out/uname.txt"
cat /proc/cpuinfo >"$out/cpuinfo.txt"
dmesg >"$out/dmesg.txt"
run pmu_smoke 0 ./pmu_smoke
cat "$out/pmu_smoke.out"

if [ ! -x ./pesbench ]; then
	echo "guest: FAIL no pesbench in the guest (make cross-arm64 gave no build-arm64/pesbench)"
	exit 1
fi
export PB_BIN=/guest/pesbench

run probe 0 ./pesbench probe --json
run workloads 0 ./pesbench workloads --json
# the accuracy experiment's load:instruction ratios, each with its own declared truth
run workloads_accuracy 0 ./pesbench workloads accuracy:ratio=20 accuracy:ratio=40 \
	accuracy:ratio=60 accuracy:ratio=80 accuracy:ratio=100 --json
# accuracy and interval on the cycle counter at three periods: under icount samples are
# floor(count / period) exactly
run cycles 0 ./pesbench run accuracy interval --facility hw:cycles --period 20011,100003,1000003 \
	--runs 1 --threads 1 --target-ms 20 --out "$out/cycles" --quiet
# more events than the PMU's 7 counters: multiplexed
# 100 ms: the kernel rotates the events every 4 ms tick, so each of 8 is off for some of them
run multi 0 ./pesbench run multi --facility hw:cycles --runs 1 --threads 1 --target-ms 100 --out "$out/multi" --quiet
# a short period: the kernel's sample-rate limit throttles
run throttle 0 ./pesbench measure --facility hw:cycles --period 3001 --iterations 2000000 --json
run signal 0 ./pesbench measure --facility hw:cycles --period 100003 --delivery signal --json
run sigtrap 0 ./pesbench measure --facility hw:cycles --period 100003 --delivery sigtrap --json
# issue 21: every facility's self-test delivers signals as its measurement will (a timer with
# a real-time signal per wakeup, an exact software event with attr.sigtrap's SIGTRAP)
run timer_signal 0 ./pesbench measure --facility timer:cpu-clock --period 100000 --delivery signal --json
run sw_sigtrap 0 ./pesbench measure --facility sw:page-faults --iterations 2000 --delivery sigtrap --json
# the emulator's defect on general-purpose counters: hw:instructions lands on one, so it is
# measured where its self-test passes and refused (exit 3, the figures in the reason) where it
# does not; the host compares that with probe's verdict for the kind. The exit status is kept.
run instructions 0 sh -c './pesbench measure --facility hw:instructions --period 100003 --json;
	rc=$?; echo $rc >"$0"; [ $rc = 0 ] || [ $rc = 3 ]' "$out/instructions.measure_rc"
# issue 21: read watchpoints work (their self-test reads the watched word)
run bp_r 0 ./pesbench measure --facility bp:r --period 7 --iterations 2000 --json
# a breakpoint with signal delivery: its self-test delivers signals too, so a count that
# changes with them is refused with its direction (exit 3), else measured with its direction
run bp_signal 0 sh -c './pesbench measure --facility bp:x --period 100 --delivery signal \
	--iterations 10000 --json; rc=$?; echo $rc >"$0"; [ $rc = 0 ] || [ $rc = 3 ]' \
	"$out/bp_signal.measure_rc"
# privilege levels on the cycle counter: wrong-level samples flagged, and the kernel-only
# point carries no accuracy (the workload declares user-level events only)
run mode 0 ./pesbench run mode --facility hw:cycles --facility hw:instructions --runs 1 \
	--threads 1 --target-ms 20 --out "$out/mode" --quiet
run verify 0 ./pesbench verify --no-callgrind

# the bad-input rows that make sense on arm64
row bad_pebs 3 "PEBS" ./pesbench measure --facility pebs:cycles
row bad_ibs 3 "ibs" ./pesbench measure --facility ibs-op
row bad_spe 3 "no arm_spe" ./pesbench measure --facility spe
row bad_event 2 "no_such_event" ./pesbench measure --facility hw:no_such_event
row bad_precise 2 "precise" ./pesbench measure --facility hw:cycles:precise=2
row bad_period 2 "must not be negative" ./pesbench measure --facility hw:cycles --period -5
row bad_workload 2 "unknown workload" ./pesbench measure --facility hw:cycles --workload nosuch
row bad_experiment 2 "unknown experiment" ./pesbench run nosuchexp
row bad_root 2 "is not a directory" ./pesbench probe --root /nonexistent

# a capture bundle of the real armv8_pmuv3 driver (counter overflow, multiplexing), replayed
# on the host by scripts/check-arm64.sh and checked in under tests/captures/
run capture 0 ./pesbench capture --quiet --facility hw --facility sw --facility timer "$out/capture"
run replay_guest 0 ./pesbench replay "$out/capture"

dmesg >"$out/dmesg-after.txt"
echo "guest: $failed commands failed"
[ "$failed" = 0 ]
