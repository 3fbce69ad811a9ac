#!/usr/bin/env bash
# Boots an arm64 Debian kernel under qemu-system-aarch64 (-M virt -cpu cortex-a57 -smp 1
# -icount shift=0: a real armv8_pmuv3 PMU driven by the real kernel driver, cycles ==
# instructions exactly) with DIR's files in /guest, runs CMD there as root, prints the guest's
# output and exits with CMD's exit status. QEMU exits 0 whatever the guest did, so the status
# comes from the guest's own marker line on the console; no marker (panic, hang, timeout) is
# status 125 with the console log shown.
#
# Usage: scripts/arm64-guest.sh [--results FILE.tar.gz] [--overlay DIR2] [--timeout SECONDS] [--cpu MODEL]
#                               DIR -- CMD [ARGS...]
#        scripts/arm64-guest.sh --install        (only installs QEMU, the kernel and busybox)
#   --overlay DIR2: DIR2's tree is copied over the guest's / (shared objects and their loader
#              for a dynamically linked program: /lib/ld-linux-aarch64.so.1, /lib/aarch64-linux-gnu)
#   --results: the guest's /out directory (CMD writes there; $PB_OUT names it) comes back as a
#              gzipped tarball (base64 between console markers).
# In the guest: busybox at /bin, proc/sys/devtmpfs/tracefs/debugfs mounted,
# perf_event_paranoid=-1, kptr_restrict=0, cwd /guest, PATH starts with /guest.
# Downloads (~80 MB, Debian packages only) are cached: installed packages, and the kernel and
# busybox under $PB_GUEST_CACHE (default build-arm64-guest/ in the repository).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/debian-packages.sh"
cache=${PB_GUEST_CACHE:-$root/build-arm64-guest}
results="" overlay="" timeout_s=180 cpu=cortex-a57 install_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--overlay) overlay=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--install) install_only=1; shift ;;
	--) shift; break ;;
	-*) echo "arm64-guest: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $install_only = 0 ]; then
	[ $# -ge 3 ] && [ "$2" = "--" ] || {
		echo "usage: $0 [--results FILE.tar.gz] [--overlay DIR2] [--timeout S] [--cpu MODEL] DIR -- CMD [ARGS...]" >&2
		exit 2
	}
	dir=$1
	shift 2
	[ -d "$dir" ] || { echo "arm64-guest: $dir is not a directory" >&2; exit 2; }
fi

log() { echo "arm64-guest: $*" >&2; }

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
# apt and dpkg wait for a lock another installer holds instead of failing at once
apt_opts=(-o DPkg::Lock::Timeout=300 -o APT::Get::Assume-Yes=true -qq)
export DEBIAN_FRONTEND=noninteractive
updated=0
# Package lists younger than a day that know arm64 are used as they are (another installer,
# e.g. scripts/cross-arm64.sh, has just updated them); a failure with them updates and retries.
lists_fresh() {
	[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*binary-arm64_Packages*' -mmin -1440 2>/dev/null | head -1)" ]
}
apt_update() {
	[ $updated = 1 ] && return
	local i
	for i in 1 2 3 4 5 6; do
		$sudo apt-get "${apt_opts[@]}" update && { updated=1; return; }
		log "apt-get update failed (lock held?), retrying"
		sleep 10
	done
	return 1
}
apt_install() {
	lists_fresh || apt_update
	$sudo apt-get "${apt_opts[@]}" install --no-install-recommends "$@" >/dev/null && return
	[ $updated = 1 ] && return 1
	apt_update
	$sudo apt-get "${apt_opts[@]}" install --no-install-recommends "$@" >/dev/null
}

install_host() {
	local missing=()
	mapfile -t missing < <(pb_missing_packages qemu-system-arm cpio)
	dpkg --print-foreign-architectures | grep -qx arm64 || {
		$sudo dpkg --add-architecture arm64
		updated=0
	}
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing ${missing[*]}"
		apt_install "${missing[@]}"
	fi
}

# The kernel and busybox are unpacked, not installed: they are the guest's, not the host's.
fetch_guest() {
	[ -s "$cache/vmlinuz" ] && [ -x "$cache/busybox" ] && return
	mkdir -p "$cache/deb"
	local kpkg
	kpkg=$(apt-cache depends linux-image-cloud-arm64:arm64 2>/dev/null |
		sed -n 's/.*Depends: \(linux-image-[^ ]*\)/\1/p' | head -1)
	if [ -z "$kpkg" ] || ! lists_fresh; then
		apt_update
		kpkg=$(apt-cache depends linux-image-cloud-arm64:arm64 |
			sed -n 's/.*Depends: \(linux-image-[^ ]*\)/\1/p' | head -1)
	fi
	[ -n "$kpkg" ] || { log "cannot resolve the kernel package of linux-image-cloud-arm64:arm64"; return 1; }
	kpkg=${kpkg%:arm64}
	log "downloading $kpkg:arm64 and busybox-static:arm64"
	(cd "$cache/deb" && rm -f ./*.deb &&
		{ apt-get download "$kpkg:arm64" busybox-static:arm64 ||
			{ apt_update && apt-get download "$kpkg:arm64" busybox-static:arm64; }; })
	local x="$cache/deb/x"
	rm -rf "$x"
	mkdir -p "$x"
	for p in "$cache"/deb/*.deb; do
		dpkg-deb -x "$p" "$x"
	done
	cp "$(ls "$x"/boot/vmlinuz-* | head -1)" "$cache/vmlinuz.tmp"
	cp "$x/bin/busybox" "$cache/busybox"
	echo "$kpkg" >"$cache/kernel-package"
	rm -rf "$x" "$cache"/deb
	mv "$cache/vmlinuz.tmp" "$cache/vmlinuz"
}

install_host
fetch_guest
[ $install_only = 1 ] && exit 0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs=$work/root
mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,out,guest,etc}
cp "$cache/busybox" "$rootfs/bin/busybox"
cp -a "$dir"/. "$rootfs/guest/"
[ -z "$overlay" ] || cp -a "$overlay"/. "$rootfs/"
# the command, quoted for the guest's shell (busybox ash reads bash's %q forms)
printf '%q ' "$@" >"$rootfs/etc/guest-cmd"
echo >>"$rootfs/etc/guest-cmd"
[ -n "$results" ] && touch "$rootfs/etc/guest-results"
cat >"$rootfs/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tmpfs tmp /tmp
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
export PATH=/guest:/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp PB_OUT=/out TMPDIR=/tmp
cd /guest
echo "=== PB-GUEST BEGIN $(uname -r) $(cat /proc/sys/kernel/perf_event_paranoid)"
sh /etc/guest-cmd
rc=$?
echo "=== PB-GUEST EXIT $rc"
if [ -e /etc/guest-results ]; then
	# no kernel message may land inside the base64 block
	echo 1 >/proc/sys/kernel/printk
	echo "=== PB-GUEST RESULTS BEGIN"
	tar -C /out -czf - . | base64
	echo "=== PB-GUEST RESULTS END"
fi
poweroff -f
EOF
chmod +x "$rootfs/init"
(cd "$rootfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

console=$work/console.log
start=$(date +%s%N)
rc=0
timeout -k 5 "$timeout_s" qemu-system-aarch64 -M virt -cpu "$cpu" -smp 1 -m 1024 -icount shift=0 \
	-display none -monitor none -nic none -serial "file:$console" -no-reboot \
	-kernel "$cache/vmlinuz" -initrd "$work/initrd.gz" \
	-append "console=ttyAMA0 quiet panic=-1" </dev/null || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
tr -d '\r' <"$console" >"$console.txt"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	log "guest timed out after $timeout_s s"
elif [ $rc != 0 ]; then
	log "qemu-system-aarch64 exited $rc"
fi
if ! grep -q '^=== PB-GUEST EXIT [0-9]*$' "$console.txt"; then
	log "the guest gave no verdict; console log:"
	tail -n 60 "$console.txt" >&2
	exit 125
fi
sed -n '/^=== PB-GUEST BEGIN/,/^=== PB-GUEST EXIT/p' "$console.txt" | sed '1d;$d'
guest_rc=$(sed -n 's/^=== PB-GUEST EXIT \([0-9]*\)$/\1/p' "$console.txt")
if [ -n "$results" ]; then
	if ! grep -q '^=== PB-GUEST RESULTS END' "$console.txt"; then
		log "the guest's results are incomplete"
		exit 125
	fi
	sed -n '/^=== PB-GUEST RESULTS BEGIN/,/^=== PB-GUEST RESULTS END/p' "$console.txt" |
		sed '1d;$d' | base64 -d >"$results"
fi
log "$(sed -n 's/^=== PB-GUEST BEGIN \(.*\) .*/kernel \1/p' "$console.txt"), $(qemu-system-aarch64 --version | head -1), -cpu $cpu: guest exit $guest_rc, $((ms / 1000)).$((ms % 1000 / 100)) s boot to poweroff"
exit "$guest_rc"
