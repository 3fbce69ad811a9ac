#!/usr/bin/env bash
# Boots the riscv64 guest: the kernel of scripts/riscv64-kernel.sh (Debian's linux-source-6.1,
# tinyconfig + tests/riscv64/kernel.config, cached) on qemu-system-riscv64 -M virt
# -cpu rv64,sscofpmf=true -smp 1 -icount shift=0 with QEMU's bundled OpenSBI (the real
# riscv_pmu_sbi driver over the SBI PMU extension; cycles == instructions, exact), an
# initramfs holding DIR's files in /guest and tests/riscv64/guest_init.c (cross-built) as
# /init, which runs each line of CMDS. Prints the guest's console between its markers, puts
# the files the guest wrote in /out into RESULTS, and exits with the number of commands that
# failed; 125 when the guest gave no verdict (panic, hang, timeout: the console is shown).
# Usage: scripts/riscv64-guest.sh [--timeout S] [--cpu CPU] DIR CMDS RESULTS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/debian-packages.sh"
timeout_s=300 cpu="rv64,sscofpmf=true"
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout_s=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	-*) echo "riscv64-guest: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 3 ] || { echo "usage: $0 [--timeout S] [--cpu CPU] DIR CMDS RESULTS" >&2; exit 2; }
dir=$1 cmds=$2 results=$3
[ -d "$dir" ] || { echo "riscv64-guest: $dir is not a directory" >&2; exit 2; }
[ -f "$cmds" ] || { echo "riscv64-guest: $cmds is not a file" >&2; exit 2; }
log() { echo "riscv64-guest: $*" >&2; }

pb_install_missing riscv64-guest qemu-system-misc gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
image=$("$root/scripts/riscv64-kernel.sh" | tail -1)
kdir=$(dirname "$image")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
riscv64-linux-gnu-gcc -O2 -static -Wall -Werror -o "$work/init" "$root/tests/riscv64/guest_init.c"
# gen_init_cpio (the kernel's own) writes /dev/console into the archive without root's mknod
{
	for d in /dev /proc /sys /tmp /out /etc /guest; do echo "dir $d 0755 0 0"; done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /init $work/init 0755 0 0"
	echo "file /etc/guest-cmds $(realpath "$cmds") 0644 0 0"
	(cd "$dir" && find . -mindepth 1 | sort) | while read -r f; do
		if [ -d "$dir/$f" ]; then echo "dir /guest/${f#./} 0755 0 0"
		else echo "file /guest/${f#./} $(realpath "$dir/$f") 0755 0 0"; fi
	done
} >"$work/list"
"$kdir/gen_init_cpio" "$work/list" | gzip -1 >"$work/initramfs.gz"

console=$work/console.log
start=$(date +%s%N)
rc=0
timeout -k 5 "$timeout_s" qemu-system-riscv64 -M virt -cpu "$cpu" -smp 1 -m 512 \
	-icount shift=0 -bios default -display none -monitor none -nic none \
	-serial "file:$console" -no-reboot -kernel "$image" -initrd "$work/initramfs.gz" \
	-append "console=ttyS0 quiet panic=-1" </dev/null || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
tr -d '\r' <"$console" >"$console.txt"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	log "guest timed out after $timeout_s s"
elif [ $rc != 0 ]; then
	log "qemu-system-riscv64 exited $rc"
fi
if ! grep -q '^=== PB-GUEST EXIT [0-9]*$' "$console.txt"; then
	log "the guest gave no verdict; console log:"
	tail -n 60 "$console.txt" >&2
	exit 125
fi
sed -n '/^=== PB-GUEST BEGIN/,/^=== PB-GUEST EXIT/p' "$console.txt" |
	sed '/^=== PB-GUEST FILE /,/^=== PB-GUEST FILE END/d'
mkdir -p "$results"
python3 - "$console.txt" "$results" <<'PY'
import base64, os, sys
out, name, chunks = sys.argv[2], None, []
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    if line == "=== PB-GUEST FILE END" and name:
        path = os.path.join(out, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "wb").write(base64.b64decode("".join(chunks)))
        name = None
    elif line.startswith("=== PB-GUEST FILE "):
        name, chunks = line[len("=== PB-GUEST FILE "):], []
    elif name:
        chunks.append(line)
PY
guest_rc=$(sed -n 's/^=== PB-GUEST EXIT \([0-9]*\)$/\1/p' "$console.txt")
log "kernel $(sed -n 's/^=== PB-GUEST BEGIN \(.*\)/\1/p' "$console.txt"), $(qemu-system-riscv64 --version | head -1), -cpu $cpu: $guest_rc commands failed, $((ms / 1000)).$((ms % 1000 / 100)) s boot to power-off"
exit "$guest_rc"
