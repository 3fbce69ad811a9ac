#!/usr/bin/env bash
# No source file of src/ is over 800 lines (issue 22: a file that large holds more than one job
# — perfdata_read.c at 1197 lines read the header, the features and the data section; compare.c
# at 1082 lined figures up and drew them). The check is first run on a planted violation, so a
# broken count cannot pass by finding nothing.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
MAX_LINES=800

too_long() { # DIR: "file: N lines" for each .c/.h of DIR over MAX_LINES
	(cd "$1" && find . -type f \( -name '*.c' -o -name '*.h' \) -print0 | LC_ALL=C sort -z |
		xargs -0 wc -l | awk -v max="$MAX_LINES" '$2 != "total" && $1 > max {
			sub(/^\.\//, "", $2); print $2 ": " $1 " lines (at most " max ")" }')
}

tmp=$(mktemp -d /tmp/pb_file_sizes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/x"
seq "$((MAX_LINES + 1))" >"$tmp/x/long.c"
seq "$MAX_LINES" >"$tmp/x/fits.c"
planted=$(too_long "$tmp")
if [ "$planted" != "x/long.c: $((MAX_LINES + 1)) lines (at most $MAX_LINES)" ]; then
	echo "FAIL: the check does not find exactly the planted long file: '$planted'"
	exit 1
fi

found=$(too_long "$src")
if [ -n "$found" ]; then
	echo "FAIL: source files over $MAX_LINES lines (split them by job):"
	echo "$found"
	exit 1
fi
echo "ok: $(find "$src" -type f \( -name '*.c' -o -name '*.h' \) | wc -l) source files, none over $MAX_LINES lines"
