#!/usr/bin/env bash
# `make check-riscv64`: pesbench on a second real PMU driver, Linux's riscv_pmu_sbi over
# OpenSBI's SBI PMU extension. Installs what it needs (Debian packages only), checks every
# workload's RV64 truth instruction by instruction under qemu-riscv64 (tests/riscv64/
# trace_truth.py), builds build-riscv64/pesbench (`make cross-riscv64`), builds or reuses the
# guest kernel (scripts/riscv64-kernel.sh, cached outside the clone), boots it
# (scripts/riscv64-guest.sh: -cpu rv64,sscofpmf=true, one hart, -icount shift=0) with pesbench,
# tests/riscv64/pmu_probe.c and tests/riscv64/guest-cmds, and checks the results on the host
# (tests/riscv64/check_results.py). The last line is the verdict; the exit status is non-zero
# when anything failed or could not run (nothing is skipped silently).
# Usage: scripts/check-riscv64.sh   (env: RISCV64_BUILD=build-riscv64, JOBS, PB_KERNEL_CACHE)
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
build=${RISCV64_BUILD:-build-riscv64}
work=$build-guest
failures=()
fail() { failures+=("$*"); echo "check-riscv64: FAIL: $*" >&2; }
stamp() { echo "check-riscv64: $1 after $(( $(date +%s) - started )) s"; }
verdict() {
	local secs=$(( $(date +%s) - started ))
	if [ ${#failures[@]} -eq 0 ]; then
		echo "check-riscv64: PASS in $secs s"
		exit 0
	fi
	echo "check-riscv64: FAIL (${#failures[@]} problems) in $secs s:"
	printf '  %s\n' "${failures[@]}"
	exit 1
}

echo "=== check-riscv64: make cross-riscv64 (the libraries from Debian's sources, cached)"
built=0
if ! make --no-print-directory cross-riscv64 RISCV64_BUILD="$build"; then
	fail "make cross-riscv64 failed"
elif [ ! -x "$build/pesbench" ]; then
	fail "make cross-riscv64 left no $build/pesbench"
else
	built=1
fi
stamp "pesbench built"

echo "=== check-riscv64: the RV64 workloads' declared truth, traced under qemu-riscv64"
. scripts/lib/debian-packages.sh
pb_install_missing check-riscv64 qemu-user-static binutils-riscv64-linux-gnu ||
	fail "cannot install qemu-user-static or binutils-riscv64-linux-gnu"
mkdir -p "$work"
if riscv64-linux-gnu-gcc -O2 -static -std=c11 -D_GNU_SOURCE -Wall -Werror -I src \
	-ffunction-sections -fdata-sections -Wl,--gc-sections -o "$work/trace_truth" \
	tests/riscv64/trace_truth.c src/workloads/workloads.c src/workloads/wl_*.c \
	src/workloads/wl_*.S src/util/*.c; then
	python3 tests/riscv64/trace_truth.py "$work/trace_truth" ||
		fail "a workload's declared RV64 truth disagrees with what qemu-riscv64 executes"
else
	fail "cannot cross-compile tests/riscv64/trace_truth.c"
fi
stamp "truth traced"

echo "=== check-riscv64: the guest kernel (built once, then cached)"
bash scripts/riscv64-kernel.sh >/dev/null || { fail "cannot build the riscv64 guest kernel"; verdict; }
stamp "kernel ready"

stage=$work/stage
rm -rf "$stage" "$work/results"
mkdir -p "$stage"
riscv64-linux-gnu-gcc -O2 -static -Wall -Werror -o "$stage/pmu_probe" tests/riscv64/pmu_probe.c ||
	fail "cannot cross-compile tests/riscv64/pmu_probe.c"
# a stale pesbench from an earlier build is never tested in place of a failed one
[ $built = 1 ] && cp "$build/pesbench" "$stage/"

echo "=== check-riscv64: the guest"
bash scripts/riscv64-guest.sh --timeout 900 "$stage" tests/riscv64/guest-cmds "$work/results"
case $? in
0) ;;
125) fail "the guest gave no verdict (panic, hang or timeout: console above)" ;;
*) fail "some of the guest's commands did not exit as expected (output above)" ;;
esac
stamp "guest done"

echo "=== check-riscv64: host checks of the guest's results ($work/results)"
python3 tests/riscv64/check_results.py "$work/results" || fail "host checks of the guest's results failed"

# One table for the machines make check has met: this one, the arm64 guest (when check-arm64 ran
# before, as in make check) and this guest.
guests=()
arm64_results=${PB_GUEST_CACHE_ARM64:-$PWD/build-arm64-guest}/results
[ -d "$arm64_results" ] && guests+=("$arm64_results")
guests+=("$work/results")
echo "=== check-riscv64: this machine's run and the guests', compared (tests/fleet/machines-compare.sh)"
if [ -x "${BUILD:-build}/pesbench" ]; then
	bash tests/fleet/machines-compare.sh "${BUILD:-build}/pesbench" "${guests[@]}" ||
		fail "compare of this machine's results and the guests' failed"
else
	fail "no host pesbench at ${BUILD:-build}/pesbench to compare the machines with (make build)"
fi
verdict
