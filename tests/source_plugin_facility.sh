#!/usr/bin/env bash
# The test facilities of tests/test_plugin_*.c are known to no source file: what they show
# (issue 22: a facility is one file and one registry line) holds only while nothing in src/ or
# include/ names them, for a source file that did could make a hook look like it works. Their
# names come from their descriptors (.name = "..."); the search is first run on a planted file
# naming one, so a broken search cannot pass by finding nothing.
set -u
top=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
names=$(grep -ho '^	\.name = "[^"]*"' "$top"/tests/test_plugin_*.c | sed -E 's/.*"(.*)"/\1/' |
	sort -u)
[ -n "$names" ] || { echo "FAIL: no facility names found in tests/test_plugin_*.c"; exit 1; }
pattern="\"($(echo "$names" | paste -sd'|'))[\":@]"

planted=$(mktemp -d /tmp/pb_plugin_names.XXXXXX)
trap 'rm -rf "$planted"' EXIT
printf 'static const char *known = "%s";\n' "$(echo "$names" | head -1)" >"$planted/planted.c"
if [ "$(grep -rlE "$pattern" "$planted" | wc -l)" -ne 1 ]; then
	echo "FAIL: the search does not find the facility name planted in $planted/planted.c"
	exit 1
fi

found=$(grep -rnE "$pattern" "$top/src" "$top/include" 2>/dev/null)
if [ -n "$found" ]; then
	echo "FAIL: a source file names a facility defined only in tests/test_plugin_*.c" \
		"($(echo "$names" | paste -sd' ')): the test must show it works without that:"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$names" | wc -l) test facilities, named by no file of src/ or include/"
