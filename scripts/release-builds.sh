#!/usr/bin/env bash
# The builds a user runs: Release and Debug, with gcc and with clang, warnings as errors (our
# own setting; a user's plain build only warns). Only the library and the pesbench binary, to
# keep `make check` short.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
for cc in gcc clang; do
	command -v "$cc" >/dev/null || { echo "release-builds: $cc is not installed" >&2; rc=1; continue; }
	for type in Release Debug; do
		dir=build-$type-$cc
		mkdir -p "$dir"
		if CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DPB_WERROR=ON >"$dir/build.log" 2>&1 &&
			cmake --build "$dir" -j "${JOBS:-$(nproc)}" --target pesbench >>"$dir/build.log" 2>&1; then
			echo "release-builds: $type with $cc: ok"
		else
			echo "release-builds: $type with $cc FAILED:" >&2
			grep -E "error|warning" "$dir/build.log" | head -20 >&2
			rc=1
		fi
	done
done
exit $rc
