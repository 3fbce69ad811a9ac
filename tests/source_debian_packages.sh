#!/usr/bin/env bash
# scripts/lib/debian-packages.sh decides what the install scripts install. Run against a fake
# dpkg database (dpkg and dpkg-query on PATH): a package installed only for another architecture
# is missing for this one — a fresh machine that ran `make check-arm64` first had
# libjansson-dev:arm64 and no native libjansson-dev, and the native build failed in cmake.
set -u
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d /tmp/pb_debpkg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# the fake database: NAME:ARCH per line, every one "install ok installed"
cat >"$tmp/db" <<'DB'
libjansson-dev:arm64
libcapstone-dev:amd64
libcapstone-dev:arm64
gnuplot-data:all
cpio:amd64
DB
cat >"$tmp/dpkg" <<'SH'
#!/bin/sh
[ "$1" = --print-architecture ] && { echo amd64; exit 0; }
exit 2
SH
cat >"$tmp/dpkg-query" <<SH
#!/bin/sh
# dpkg-query -W -f=FORMAT NAME[:ARCH]: an unqualified name matches any architecture, as dpkg's does
name=\$3
case \$name in
*:*) grep -qx "\$name" "$tmp/db" ;;
*) grep -q "^\$name:" "$tmp/db" ;;
esac || { echo "dpkg-query: no packages found matching \$name" >&2; exit 1; }
printf 'install ok installed'
SH
chmod +x "$tmp/dpkg" "$tmp/dpkg-query"

got=$(PATH="$tmp:$PATH" bash -c ". '$root/scripts/lib/debian-packages.sh'; pb_missing_packages \
	libjansson-dev libcapstone-dev gnuplot-data cpio libjansson-dev:arm64 libpfm4-dev:arm64 \
	qemu-system-arm" | tr '\n' ' ')
want="libjansson-dev libpfm4-dev:arm64 qemu-system-arm "
if [ "$got" != "$want" ]; then
	echo "FAIL: missing packages: got '$got', want '$want'"
	fail=1
fi

# every install script asks the shared rule, none its own dpkg-query
for s in install-deps.sh cross-arm64.sh arm64-guest.sh; do
	if grep -q 'dpkg-query' "$root/scripts/$s"; then
		echo "FAIL: scripts/$s queries dpkg itself instead of pb_missing_packages"
		fail=1
	fi
	grep -q 'pb_missing_packages' "$root/scripts/$s" || {
		echo "FAIL: scripts/$s does not use pb_missing_packages"
		fail=1
	}
done
[ $fail = 0 ] && echo "PASS: an arm64-only package is missing for the native build; Architecture: all counts"
exit $fail
