#!/usr/bin/env bash
# Builds a riscv64 pesbench on this (x86-64 Debian 12) machine: build-riscv64/pesbench, linked
# statically so that the bare initramfs of `make check-riscv64` (or a board without the -dev
# libraries) runs it. Debian 12 has no riscv64 architecture, so its libraries come from
# scripts/riscv64-deps.sh (cross-built from Debian's own sources, cached); the cross compiler
# is Debian's gcc-riscv64-linux-gnu, installed when missing.
# Usage: scripts/cross-riscv64.sh [BUILD_DIR]   (default build-riscv64; BUILD_TYPE, JOBS from env)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-riscv64}
# libstdc++ for its demangler (src/analysis/demangle.h)
packages=(cmake pkg-config make gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
          libstdc++-12-dev-riscv64-cross)
. scripts/lib/debian-packages.sh
pb_install_missing cross-riscv64 "${packages[@]}"
sysroot=$(bash scripts/riscv64-deps.sh | tail -1)
# pkg-config's answers are cached in the build: another sysroot needs a fresh configure
if [ -f "$out/CMakeCache.txt" ] && ! grep -qx "PB_RISCV64_SYSROOT:[A-Z]*=$sysroot" "$out/CMakeCache.txt"; then
	rm -rf "$out"
fi
cmake -S . -B "$out" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/riscv64-linux-gnu.cmake" \
	-DPB_RISCV64_SYSROOT="$sysroot" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
	-DPB_STATIC=ON -DPB_WERROR=ON
# Only the program: the tests run natively (make check) or in the guest (make check-riscv64).
cmake --build "$out" -j "${JOBS:-$(nproc)}" --target pesbench
file "$out/pesbench" 2>/dev/null || true
