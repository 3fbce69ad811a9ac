#!/usr/bin/env bash
# Installs the Debian packages pesbench needs, only those missing. Idempotent.
# `--test` adds what only the tests need (clang for the fuzzers, chromium for the report test).
# `--fleet` installs only what the fleet tests need (tests/fleet/: Slurm, munge, ansible-core,
# node and npm for the Kubernetes manifests' schema check).
set -euo pipefail
packages=(build-essential cmake pkg-config
          libpfm4-dev libcapstone-dev libelf-dev libdw-dev libjansson-dev zlib1g-dev
          gnuplot-nox valgrind linux-perf bzip2 xz-utils sqlite3 python3)
if [ "${1:-}" = "--test" ]; then
  # chromium: only tests/cli_report_chromium.sh (~120 MB download, ~30 s here)
  packages+=(clang libclang-rt-14-dev jq chromium)
  # judges of the profile exports (tests/cli_export*.sh): Google's profile.proto decoded by
  # protoc, speedscope's schema checked by python3-jsonschema (npm fetches speedscope itself)
  packages+=(protobuf-compiler golang-github-google-pprof-dev python3-jsonschema)
  # npm fetches the speedscope package; a Node.js install of its own (nodesource's nodejs
  # carries npm and conflicts with Debian's npm) does as well
  command -v npm >/dev/null || packages+=(npm)
fi
if [ "${1:-}" = "--fleet" ]; then
  packages=(slurm-wlm munge ansible-core nodejs)
  # Debian's nodejs comes without npm; a nodejs that ships its own npm needs no other
  command -v npm >/dev/null || packages+=(npm)
fi
. "$(dirname "$0")/lib/debian-packages.sh"
mapfile -t missing < <(pb_missing_packages "${packages[@]}")
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "pesbench: installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "pesbench: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}"
