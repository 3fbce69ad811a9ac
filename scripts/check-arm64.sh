#!/usr/bin/env bash
# `make check-arm64`: the cross-built pesbench on a real PMU driver. Installs what it needs
# (Debian packages only), builds build-arm64/pesbench (`make cross-arm64`), boots an arm64
# kernel under QEMU (scripts/arm64-guest.sh: cortex-a57, one CPU, -icount shift=0) with
# pesbench and tests/arm64/guest-tests.sh in its initramfs, brings the guest's results back and
# checks them on the host (tests/arm64/check_results.py). The last line is the verdict; the exit
# status is non-zero when anything failed or could not run (nothing is skipped silently).
# Usage: scripts/check-arm64.sh   (env: ARM64_BUILD=build-arm64, PB_GUEST_CACHE, JOBS)
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
build=${ARM64_BUILD:-build-arm64}
cache=${PB_GUEST_CACHE:-$PWD/build-arm64-guest}
export PB_GUEST_CACHE=$cache
failures=()
fail() { failures+=("$*"); echo "check-arm64: FAIL: $*" >&2; }
verdict() {
	local secs=$(( $(date +%s) - started ))
	if [ ${#failures[@]} -eq 0 ]; then
		echo "check-arm64: PASS in $secs s"
		exit 0
	fi
	echo "check-arm64: FAIL (${#failures[@]} problems) in $secs s:"
	printf '  %s\n' "${failures[@]}"
	exit 1
}

echo "=== check-arm64: make cross-arm64"
built=0
if ! make -n cross-arm64 >/dev/null 2>&1; then
	fail "the Makefile has no cross-arm64 target (it comes from branch a64build): no arm64 pesbench to test"
elif ! make --no-print-directory cross-arm64; then
	fail "make cross-arm64 failed"
elif [ ! -x "$build/pesbench" ]; then
	fail "make cross-arm64 left no $build/pesbench"
else
	built=1
fi

echo "=== check-arm64: QEMU, the arm64 kernel and busybox"
bash scripts/arm64-guest.sh --install || { fail "cannot install QEMU or the guest kernel"; verdict; }

# the guest's files: the test script, a tiny PMU check run before pesbench, pesbench itself
stage=$cache/stage
overlay=$cache/overlay
rm -rf "$stage" "$overlay" "$cache/results" "$cache/results.tar.gz"
mkdir -p "$stage" "$overlay" "$cache/results"
cp tests/arm64/guest-tests.sh "$stage/"
if ! command -v aarch64-linux-gnu-gcc >/dev/null || [ ! -e /usr/aarch64-linux-gnu/include/linux/perf_event.h ]; then
	# normally installed by make cross-arm64; here for when that could not run
	echo "check-arm64: installing the cross compiler"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
		--no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null
fi
aarch64-linux-gnu-gcc -O2 -static -Wall -Werror -o "$stage/pmu_smoke" tests/arm64/pmu_smoke.c ||
	fail "cannot cross-compile tests/arm64/pmu_smoke.c"

# A dynamically linked pesbench takes its shared objects and loader along, from the arm64
# multiarch directories, at the paths its ELF names.
ship_shared_objects() { # ELF
	local todo=("$1") seen=" " f lib path interp
	interp=$(readelf -l "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	[ -n "$interp" ] || return 0
	mkdir -p "$overlay$(dirname "$interp")" "$overlay/lib/aarch64-linux-gnu"
	cp -L "/usr/aarch64-linux-gnu/lib/$(basename "$interp")" "$overlay$interp" || return 1
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen="$seen$lib "
			path=""
			for d in /usr/aarch64-linux-gnu/lib /usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu; do
				[ -e "$d/$lib" ] && { path=$d/$lib; break; }
			done
			[ -n "$path" ] || { echo "check-arm64: $lib (needed by $f) not found" >&2; return 1; }
			cp -L "$path" "$overlay/lib/aarch64-linux-gnu/$lib"
			todo+=("$path")
		done
	done
	echo "check-arm64: pesbench is dynamically linked; shipped: $seen"
}
# a stale pesbench from an earlier build is never tested in place of a failed one
if [ $built = 1 ]; then
	cp "$build/pesbench" "$stage/"
	ship_shared_objects "$build/pesbench" || fail "cannot ship pesbench's shared objects"
fi

echo "=== check-arm64: the guest"
bash scripts/arm64-guest.sh --results "$cache/results.tar.gz" --overlay "$overlay" --timeout "${PB_GUEST_TIMEOUT:-400}" \
	"$stage" -- sh guest-tests.sh
rc=$?
if [ -s "$cache/results.tar.gz" ]; then
	tar -C "$cache/results" -xzf "$cache/results.tar.gz"
fi
case $rc in
0) ;;
125) fail "the guest gave no verdict (panic, hang or timeout: console above)" ;;
*) fail "the guest's own tests failed (exit $rc, output above)" ;;
esac

echo "=== check-arm64: host checks of the guest's results ($cache/results)"
python3 tests/arm64/check_results.py "$cache/results" || fail "host checks of the guest's results failed"

# The guest's capture bundle, replayed by this machine's build: identical results from
# another machine and instruction set (tests/captures/ keeps one; docs/capture.md)
if [ -f "$cache/results/capture/bundle.json" ]; then
	if [ -x build/pesbench ]; then
		build/pesbench replay "$cache/results/capture" || fail "the guest's bundle does not replay identically here"
	fi
	echo "check-arm64: the guest's bundle: $cache/results/capture (check it in with:"
	echo "  rm -rf tests/captures/arm64-qemu && cp -r $cache/results/capture tests/captures/arm64-qemu)"
else
	fail "the guest wrote no capture bundle"
fi
echo "=== check-arm64: this machine's run and the guest's, compared (tests/fleet/machines-compare.sh)"
bash tests/fleet/machines-compare.sh "${BUILD:-build}/pesbench" "$cache/results" ||
	fail "compare of this machine's results and the guest's failed"
verdict
