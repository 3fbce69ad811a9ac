#!/usr/bin/env bash
# Fetches the npm package speedscope (pinned) into a cache folder of the project, for the export
# tests' judges: its published file-format schema (dist/release/file-format-schema.json) and its
# offline page (dist/release/index.html), which a headless Chromium opens. Idempotent: a cache
# that already holds the version is kept.
# Usage: scripts/fetch-speedscope.sh [CACHE_DIR]  (default: .cache/speedscope beside scripts/)
# Prints the package folder on stdout; exits 3 when npm is missing or the fetch fails (what to
# do goes to stderr).
set -euo pipefail
version=1.20.0
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-${PB_SPEEDSCOPE_CACHE:-$root/.cache/speedscope}}
pkg=$cache/node_modules/speedscope
if [ -f "$pkg/package.json" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json"; then
	echo "$pkg"
	exit 0
fi
command -v npm >/dev/null || {
	echo "fetch-speedscope: npm is missing (scripts/install-deps.sh --test installs it)" >&2
	exit 3
}
mkdir -p "$cache"
if ! npm install --prefix "$cache" --no-audit --no-fund --no-save --ignore-scripts \
	--loglevel=error "speedscope@$version" >"$cache/npm.log" 2>&1; then
	echo "fetch-speedscope: npm install speedscope@$version failed:" >&2
	tail -5 "$cache/npm.log" >&2
	exit 3
fi
[ -f "$pkg/dist/release/file-format-schema.json" ] || {
	echo "fetch-speedscope: the package has no dist/release/file-format-schema.json" >&2
	exit 3
}
echo "$pkg"
