#!/usr/bin/env bash
# Builds an aarch64 pesbench on this (x86-64 Debian) machine: build-arm64/pesbench, linked
# statically so that a bare initramfs or an Arm server without the -dev libraries can run it.
# Installs the Debian packages it needs (the cross compiler and the multiarch arm64 -dev
# packages of pesbench's libraries), only those missing. Idempotent, as scripts/install-deps.sh.
# Usage: scripts/cross-arm64.sh [BUILD_DIR]   (default build-arm64; BUILD_TYPE, JOBS from env)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-arm64}
# The static archives libdw.a needs (its Requires.private/Libs.private) come with zlib, lzma, bz2;
# libstdc++ is for its demangler (src/analysis/demangle.h).
packages=(cmake pkg-config make gcc-aarch64-linux-gnu libc6-dev-arm64-cross
          libstdc++-12-dev-arm64-cross
          libjansson-dev:arm64 libcapstone-dev:arm64 libelf-dev:arm64 libdw-dev:arm64
          libpfm4-dev:arm64 zlib1g-dev:arm64 liblzma-dev:arm64 libbz2-dev:arm64)
. scripts/lib/debian-packages.sh
mapfile -t missing < <(pb_missing_packages "${packages[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  echo "pesbench: installing missing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "pesbench: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  if [ "$(dpkg --print-architecture)" != arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi
cmake -S . -B "$out" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DPB_STATIC=ON -DPB_WERROR=ON
# Only the program: the tests run natively (make check) or in the guest (make check-arm64).
cmake --build "$out" -j "${JOBS:-$(nproc)}" --target pesbench
file "$out/pesbench" 2>/dev/null || true
