#!/usr/bin/env bash
# Cross-builds pesbench's libraries for riscv64 into a sysroot, from Debian 12's own source
# packages: Debian 12 has no riscv64 architecture (it is a port), so the multiarch -dev
# packages cross-arm64.sh installs do not exist for riscv64. The sources come through apt with
# a private deb-src list (the machine's apt configuration is left as it is); the sysroot is
# cached under the hash of this script and the source versions, outside the clone
# ($PB_KERNEL_CACHE, default /var/cache/pesbench), so a second run reuses it.
# Prints the sysroot's path on its last line.  Usage: scripts/riscv64-deps.sh  (env: JOBS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${PB_KERNEL_CACHE:-/var/cache/pesbench}
jobs=${JOBS:-$(nproc)}
log() { echo "riscv64-deps: $*" >&2; }
sources=(zlib jansson libpfm4 capstone elfutils)
. "$root/scripts/lib/debian-packages.sh"
# the cross compiler, and what the builds run on the host (elfutils' libcpu: flex, bison, m4)
pb_install_missing riscv64-deps gcc-riscv64-linux-gnu libc6-dev-riscv64-cross cmake make \
	pkg-config flex bison m4 gawk xz-utils

apt_src=$base/apt-src
mkdir -p "$apt_src"/{etc,lists/partial,cache/archives/partial}
cat >"$apt_src/etc/deb-src.sources" <<'LIST'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
LIST
apt_priv=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt_src/etc"
	-o Dir::State::Lists="$apt_src/lists" -o Dir::Cache="$apt_src/cache" -qq)
if [ -z "$(find "$apt_src/lists" -name '*Sources*' -mmin -10080 2>/dev/null | head -1)" ]; then
	apt-get "${apt_priv[@]}" update
fi
versions=$(for s in "${sources[@]}"; do
	apt-cache "${apt_priv[@]}" showsrc "$s" | sed -n 's/^Version: //p' | sort -V | tail -1
done)
key=$( { cat "$0"; echo "$versions"; } | sha256sum | cut -c1-16)
sysroot=$base/riscv64-sysroot-$key
if [ -e "$sysroot/.complete" ]; then
	log "cached: $sysroot"
	echo "$sysroot"
	exit 0
fi
rm -rf "$sysroot"
mkdir -p "$sysroot"
work=$(mktemp -d "$base/riscv64-deps.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
cd "$work"
downloads=$base/riscv64-src
mkdir -p "$downloads"
for s in "${sources[@]}"; do
	orig=$(ls "$downloads/$s"_*.orig.tar.* 2>/dev/null | head -1 || true)
	if [ -z "$orig" ]; then
		(cd "$downloads" && apt-get "${apt_priv[@]}" source --download-only "$s" >/dev/null 2>&1)
		orig=$(ls "$downloads/$s"_*.orig.tar.* | head -1)
	fi
	mkdir "$s"
	tar -C "$s" --strip-components=1 -xf "$orig"
done
export CC=riscv64-linux-gnu-gcc AR=riscv64-linux-gnu-ar RANLIB=riscv64-linux-gnu-ranlib
export PKG_CONFIG_LIBDIR=$sysroot/lib/pkgconfig
flags="-O2 -fPIC"

log "zlib"
(cd zlib && CFLAGS="$flags" ./configure --static --prefix="$sysroot" >/dev/null &&
	make -s -j "$jobs" libz.a >/dev/null && make -s install >/dev/null)

log "jansson"
(cd jansson && cmake -S . -B build -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=riscv64 \
	-DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$flags" -DCMAKE_INSTALL_PREFIX="$sysroot" \
	-DCMAKE_INSTALL_LIBDIR=lib -DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON \
	-DJANSSON_EXAMPLES=OFF -DJANSSON_BUILD_SHARED_LIBS=OFF >/dev/null &&
	cmake --build build -j "$jobs" >/dev/null && cmake --install build >/dev/null)

log "libpfm4 (4.13 knows no RISC-V PMU: only its generic perf_event tables)"
(cd libpfm4 && make -s -C lib -j "$jobs" ARCH=riscv64 CC="$CC" AR="$AR" CONFIG_PFMLIB_SHARED=n \
	DBG="$flags" >/dev/null && mkdir -p "$sysroot/lib" "$sysroot/include/perfmon" &&
	cp lib/libpfm.a "$sysroot/lib/" && cp include/perfmon/*.h "$sysroot/include/perfmon/")

log "capstone (4.0.2 has no RISC-V decoder; built for its library API only)"
(cd capstone && make -s -j "$jobs" CC="$CC" AR="$AR" RANLIB="$RANLIB" CAPSTONE_SHARED=no \
	CAPSTONE_STATIC=yes CAPSTONE_ARCHS="x86 aarch64" libcapstone.a >/dev/null &&
	mkdir -p "$sysroot/include/capstone" "$sysroot/lib/pkgconfig" &&
	cp libcapstone.a "$sysroot/lib/" && cp include/capstone/*.h "$sysroot/include/capstone/" &&
	printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\nName: capstone\nDescription: capstone\nVersion: 4.0.2\nLibs: -L${libdir} -lcapstone\nCflags: -I${includedir}/capstone\n' \
		"$sysroot" >"$sysroot/lib/pkgconfig/capstone.pc")

log "elfutils (libelf, libdw)"
(cd elfutils && CFLAGS="$flags -Wno-error" CPPFLAGS="-I$sysroot/include" LDFLAGS="-L$sysroot/lib" \
	./configure --host=riscv64-linux-gnu --prefix="$sysroot" --disable-debuginfod \
	--disable-libdebuginfod --without-bzlib --without-lzma --without-zstd --disable-nls \
	--disable-demangler --disable-symbol-versioning >/dev/null &&
	make -s -j "$jobs" -C lib >/dev/null && make -s -j "$jobs" -C libelf libelf.a >/dev/null &&
	for d in libebl libdwelf libdwfl libcpu backends; do make -s -j "$jobs" -C $d >/dev/null || exit 1; done &&
	make -s -j "$jobs" -C libdw libdw.a >/dev/null)
mkdir -p "$sysroot/include/elfutils"
cp elfutils/libelf/libelf.h elfutils/libelf/gelf.h elfutils/libelf/nlist.h "$sysroot/include/"
cp elfutils/libdw/libdw.h elfutils/libdwfl/libdwfl.h elfutils/libdw/dwarf.h \
	elfutils/version.h "$sysroot/include/elfutils/" 2>/dev/null || true
cp elfutils/libelf/libelf.a "$sysroot/lib/"
# libdw.a as Debian ships it holds libdwfl, libebl, the backends and libcpu too
riscv64-linux-gnu-ar -M <<MRI
create $sysroot/lib/libdw.a
addlib elfutils/libdw/libdw.a
addlib elfutils/libdwfl/libdwfl.a
addlib elfutils/libdwelf/libdwelf.a
addlib elfutils/libebl/libebl.a
addlib elfutils/backends/libebl_backends.a
addlib elfutils/libcpu/libcpu.a
addlib elfutils/lib/libeu.a
save
end
MRI
for pc in libelf libdw; do
	printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\nName: %s\nDescription: %s\nVersion: 0.188\nLibs: -L${libdir} -l%s\nLibs.private: -lz\nCflags: -I${includedir}\n' \
		"$sysroot" "$pc" "$pc" "${pc#lib}" >"$sysroot/lib/pkgconfig/$pc.pc"
done
touch "$sysroot/.complete"
log "built in $(( $(date +%s) - started )) s: $sysroot"
echo "$sysroot"
