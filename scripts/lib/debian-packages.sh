# Sourced by the scripts that install Debian packages (install-deps.sh, cross-arm64.sh,
# arm64-guest.sh, the riscv64 scripts): which of a list of packages are not installed.
#
# A name without an architecture means the machine's own (or an Architecture: all package).
# `dpkg-query -W NAME` alone matches any architecture, so once `make cross-arm64` had installed
# libjansson-dev:arm64, a fresh machine counted libjansson-dev as present and the native build
# failed in cmake with "Package 'jansson' ... not found".

# pb_missing_packages NAME...: prints the names that are not installed, one per line
pb_missing_packages() {
	local native p
	native=$(dpkg --print-architecture)
	for p in "$@"; do
		if [[ $p == *:* ]]; then
			pb_package_installed "$p" || echo "$p"
		else
			pb_package_installed "$p:$native" || pb_package_installed "$p:all" || echo "$p"
		fi
	done
}

pb_package_installed() { # NAME:ARCH
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# pb_install_missing WHO NAME...: installs (apt, as root or through sudo) the named packages
# that are not installed, saying so as WHO; returns apt's status.
pb_install_missing() {
	local who=$1 sudo="" missing
	shift
	mapfile -t missing < <(pb_missing_packages "$@")
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "$who: installing missing Debian packages: ${missing[*]}" >&2
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
			--no-install-recommends "${missing[@]}" >/dev/null
}
