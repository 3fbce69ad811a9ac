#!/usr/bin/env bash
# Builds (once) the riscv64 guest kernel of `make check-riscv64`: Debian 12 ships no riscv64
# kernel, so it is cross-built from Debian's linux-source-6.1 with `make tinyconfig` plus
# tests/riscv64/kernel.config. The Image is cached under the fragment's and the source
# package's hash, outside the clone ($PB_KERNEL_CACHE, default /var/cache/pesbench), so a second
# run, or another clone, reuses it. Prints the Image's path on its last line.
# Usage: scripts/riscv64-kernel.sh   (env: PB_KERNEL_CACHE, JOBS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/debian-packages.sh"
fragment=$root/tests/riscv64/kernel.config
log() { echo "riscv64-kernel: $*" >&2; }

packages=(linux-source-6.1 gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu make flex bison bc
          libssl-dev libelf-dev cpio xz-utils)
pb_install_missing riscv64-kernel "${packages[@]}"

tarball=$(ls /usr/src/linux-source-6.1.tar.xz)
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { cat "$fragment"; echo "$version"; } | sha256sum | cut -c1-16)
cache=${PB_KERNEL_CACHE:-/var/cache/pesbench}/riscv64-kernel-$key
if [ -s "$cache/Image" ]; then
	log "cached: $cache/Image (fragment and linux-source $version hash $key)"
	echo "$cache/Image"
	exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/../riscv64-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
log "building from linux-source $version (fragment hash $key), a few minutes on 2 cores"
tar -C "$work" -xJf "$tarball"
src=$(ls -d "$work"/linux-source-6.1)
kmake() { make -C "$src" ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- -s "$@"; }
kmake tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" "$fragment" >/dev/null
kmake olddefconfig >/dev/null
# every option the fragment asks for must have survived olddefconfig (a dependency missing
# silently drops one: PERF_EVENTS without it would boot a kernel with nothing to measure)
bad=0
while IFS= read -r line; do
	case $line in CONFIG_*=y) grep -qx "$line" "$src/.config" || { log "not set in .config: $line"; bad=1; } ;; esac
done <"$fragment"
[ $bad = 0 ] || { log "the fragment does not hold on this source"; exit 1; }
kmake -j "${JOBS:-$(nproc)}" Image
cp "$src/arch/riscv/boot/Image" "$cache/Image.tmp"
cp "$src/.config" "$cache/config"
cp "$src/usr/gen_init_cpio" "$cache/gen_init_cpio"
mv "$cache/Image.tmp" "$cache/Image"
log "built in $(( $(date +%s) - started )) s: $cache/Image"
echo "$cache/Image"
