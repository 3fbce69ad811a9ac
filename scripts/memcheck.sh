#!/usr/bin/env bash
# Runs the unit tests (BUILD/test_*) under valgrind memcheck: any memory error or definitely
# lost block fails the test (exit 9). One line per test; the log of a failing test is shown.
# JOBS tests at a time (default: the CPUs).
# Usage: scripts/memcheck.sh BUILD [TIMEOUT_SECONDS_PER_TEST]
#
# Left out, with the reason (their memory use is covered by ASan in `make test-asan`):
#   test_callgrind, test_profile, test_verify  run valgrind (callgrind) themselves
#   test_session_real, test_overhead, test_perfdata
#     sample real code with uprobes, breakpoints or timers and assert on the figures: under
#     valgrind the code that runs is valgrind's translation, so uprobes on the program's
#     instructions never fire and breakpoints count valgrind's own accesses too
#   test_cost  a timed period sweep: more than 5 minutes under valgrind
#   test_selftest  judges the facilities on the real kernel: under valgrind the self-tests'
#     loops are valgrind's translation (uprobes never fire, faults and breakpoints count
#     valgrind's own work), so the verdicts are not the machine's
#   test_numbers  measures timer and breakpoint points on the real kernel behind their
#     self-tests: under valgrind the timer's samples land in valgrind's translation, never
#     inside the workload's loop, and the self-test rightly fails it
set -uo pipefail
build=$(cd "${1:?usage: memcheck.sh BUILD [TIMEOUT]}" && pwd)
limit=${2:-240}
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "memcheck: valgrind is not installed" >&2; exit 1; }

excluded=" test_callgrind test_profile test_verify test_session_real test_overhead test_perfdata \
test_cost test_selftest test_numbers "
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
export PB_BIN="$build/pesbench" PB_SOURCE_DIR="$root" PB_BUILD_DIR="$build"
jobs=${JOBS:-$(nproc)}

# the lines of valgrind's log that say what went wrong and where
valgrind_errors='^==[0-9]+== (Invalid|Conditional|Use of|Mismatched|[0-9,]+ bytes in|ERROR SUMMARY'
valgrind_errors+='|   (at|by) )'

# memcheck_one TEST: its lines in $logs/NAME.report, its outcome (clean, skipped, failed) and
# the checks it skipped inside in $logs/NAME.outcome
memcheck_one() {
	local test=$1 name start rc secs n why
	name=$(basename "$test")
	start=$(date +%s)
	(cd "$build" && timeout "$limit" valgrind --tool=memcheck --leak-check=full \
		--errors-for-leak-kinds=definite --error-exitcode=9 --track-fds=no \
		--log-file="$logs/$name.log" "$test" >"$logs/$name.out" 2>&1)
	rc=$?
	secs=$(($(date +%s) - start))
	local outcome=failed skipped_here=0
	{
		case $rc in
		0) echo "memcheck: $name clean (${secs}s)"; outcome=clean
		   # checks the test could not make under valgrind: shown and counted, never hidden
		   while read -r n why; do
			echo "memcheck: $name: SKIPPED $n checks: $why"
			skipped_here=$((skipped_here + n))
		   done < <(sed -nE 's/^SKIPPED ([0-9]+) checks: (.*)/\1 \2/p' "$logs/$name.out") ;;
		77) echo "memcheck: $name skipped by the test itself (${secs}s)"; outcome=skipped ;;
		9) echo "memcheck: $name MEMORY ERRORS OR LEAKS (${secs}s):"
		   grep -E "$valgrind_errors" "$logs/$name.log" | head -60 ;;
		124) echo "memcheck: $name TIMED OUT after ${limit}s" ;;
		*) echo "memcheck: $name FAILED under valgrind (exit $rc, ${secs}s):"
		   tail -20 "$logs/$name.out" ;;
		esac
	} >"$logs/$name.report"
	echo "$outcome $skipped_here" >"$logs/$name.outcome"
}

# JOBS tests at a time (valgrind runs a program's threads one at a time, on one CPU), the
# longest first by CTest's last timings where the build has them (test_plot took 72 s of 110
# under valgrind, and started last of two CPUs' work it was the stage's length); the reports
# are printed in the tests' order once all are done
names=()
shopt -s nullglob
for test in "$build"/test_*; do
	[ -x "$test" ] && [ -f "$test" ] || continue
	name=$(basename "$test")
	case $excluded in *" $name "*) continue ;; esac
	names+=("$name")
done
timings=$build/Testing/Temporary/CTestCostData.txt
longest_first=$(for name in "${names[@]}"; do
	echo "$name $(awk -v n="$name" '$1 == n { print $3; exit }' "$timings" 2>/dev/null)"
done | sort -k2,2gr -k1,1 | cut -d' ' -f1)
for name in $longest_first; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	memcheck_one "$build/$name" &
done
wait
ran=0 failed=0 skipped=0 skipped_checks=0
for name in "${names[@]}"; do
	cat "$logs/$name.report" 2>/dev/null
	read -r outcome n 2>/dev/null <"$logs/$name.outcome" || { outcome=failed n=0
		echo "memcheck: $name left no outcome"; }
	case $outcome in
	clean) ran=$((ran + 1)); skipped_checks=$((skipped_checks + n)) ;;
	skipped) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done
echo "memcheck: $ran clean, $skipped skipped, $failed failed; $skipped_checks checks skipped" \
	"inside clean tests, $jobs at a time"
[ "$failed" -eq 0 ] && [ "$ran" -gt 0 ]
