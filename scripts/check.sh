#!/usr/bin/env bash
# `make check`: every stage runs, whatever an earlier one did, and the last line sums them up:
# tests passed / failed / skipped (CTest, plain and under ASan+UBSan) and the checks that tests
# skipped, per reason (the "SKIPPED <n> checks: <reason>" lines tests print). The exit status is
# non-zero when any stage failed; a skip never turns a failure into a pass.
# Usage: scripts/check.sh (from the Makefile, which passes BUILD, ASAN_BUILD, JOBS, FUZZ_SECONDS)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build} asan=${ASAN_BUILD:-build-asan} jobs=${JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed_stages=()
started=$(date +%s)

stage() { # NAME COMMAND...: runs it, its output shown and kept
	local name=$1
	shift
	echo "=== make check: $name"
	local began=$(date +%s)
	"$@" 2>&1 | tee "$logs/$name.log"
	local rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || failed_stages+=("$name (exit $rc)")
	echo "$name $(( $(date +%s) - began ))" >> "$logs/stage-seconds"
}

ctest_stage() { # NAME BUILD_DIR [ENV...]
	local name=$1 dir=$2
	shift 2
	stage "$name" env "$@" ctest --test-dir "$dir" --output-on-failure -j "$jobs"
	# the full output of every test, passed or not, for the skip lines
	cp "$dir/Testing/Temporary/LastTest.log" "$logs/$name.tests.log" 2>/dev/null
}

stage build make --no-print-directory build
ctest_stage tests "$build"
stage build-asan make --no-print-directory build-asan
ctest_stage tests-asan "$asan" ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
stage memcheck bash scripts/memcheck.sh "$build"
stage fuzz make --no-print-directory fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-10}"
stage release-builds bash scripts/release-builds.sh
stage check-arm64 bash scripts/check-arm64.sh
stage check-riscv64 bash scripts/check-riscv64.sh

python3 - "$logs" "$(( $(date +%s) - started ))" "${failed_stages[@]+"${failed_stages[@]}"}" <<'PY'
import collections, glob, os, re, sys
logs, seconds, failed_stages = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
passed = failed = skipped = 0
for name in ("tests", "tests-asan"):
    path = os.path.join(logs, name + ".log")
    if not os.path.exists(path):
        continue
    text = open(path, errors="replace").read()
    m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", text)
    if m:
        total, bad = int(m.group(3)), int(m.group(2))
        skip = len(re.findall(r"\*\*\*Skipped|Not Run|\bSkipped\b.*sec", text))
        failed += bad
        skipped += skip
        passed += total - bad - skip
# where the time went, so a stage or test that grew on a slower machine kind is named
stage_seconds = [line.split() for line in open(os.path.join(logs, "stage-seconds"))]
print("\n  stage seconds: " + ", ".join(f"{name} {sec}" for name, sec in stage_seconds))
test_seconds = []
for name in ("tests", "tests-asan"):
    path = os.path.join(logs, name + ".log")
    for line in open(path, errors="replace") if os.path.exists(path) else ():
        m = re.search(r"Test +#\d+: (\S+) .*?([\d.]+) sec", line)
        if m:
            suffix = " (asan)" if name == "tests-asan" else ""
            test_seconds.append((float(m.group(2)), m.group(1) + suffix))
test_seconds.sort(reverse=True)
print("  slowest tests: " + ", ".join(f"{n} {s:.0f} s" for s, n in test_seconds[:8]))
reasons = collections.Counter()
test_reasons = collections.Counter()
reruns = collections.Counter()
for path in glob.glob(os.path.join(logs, "*.tests.log")):
    for line in open(path, errors="replace"):
        m = re.match(r"\s*SKIPPED (\d+) checks: (.*)", line)
        if m:
            reasons[m.group(2).strip()] += int(m.group(1))
        m = re.match(r"\s*SKIPPED TEST: (.*)", line)
        if m:
            test_reasons[m.group(1).strip()] += 1
        # a measured run a test ran once more (tests/lib/suite_run.sh): shown, never hidden
        m = re.match(r"\s*RERUN: (.*)", line)
        if m:
            reruns[m.group(1).strip()] += 1
print()
for reason, n in sorted(test_reasons.items(), key=lambda kv: -kv[1]):
    print(f"  tests skipped: {n:5d}  {reason}")
for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
    print(f"  checks skipped: {n:5d}  {reason}")
for reason, n in sorted(reruns.items(), key=lambda kv: -kv[1]):
    print(f"  run again:      {n:5d}  {reason}")
for s in failed_stages:
    print(f"  stage failed: {s}")
line = f"make check: {passed} passed, {failed} failed, {skipped} skipped"
line += f"; {sum(reasons.values())} checks skipped for {len(reasons)} reasons"
line += f"; {len(failed_stages)} stages failed; {seconds} s"
print(line)
PY
[ ${#failed_stages[@]} -eq 0 ]
