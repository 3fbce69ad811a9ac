# Sourced by the scripts that install Debian packages (install-deps.sh, cross-arm64.sh,
# arm64-guest.sh): which of a list of packages are not installed.
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
