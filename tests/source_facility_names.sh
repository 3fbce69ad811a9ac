#!/usr/bin/env bash
# Nothing outside src/facilities/ branches on a facility's name: a facility's model lives in its
# descriptor, so adding a PMU is one file plus one registry line. The names come from the
# descriptors themselves (.name = "..."); a comparison of any of them, or of a spec text
# starting with one, anywhere else in src/ fails this test. The check is first run on a planted
# violation, so a broken pattern cannot pass by finding nothing.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
names=$(grep -ho '^	\.name = "[^"]*"' "$src"/facilities/*.c | sed -E 's/.*"(.*)"/\1/' | sort -u)
[ -n "$names" ] || { echo "FAIL: no facility names found in $src/facilities"; exit 1; }
alternatives=$(echo "$names" | paste -sd'|')
# a comparison function on the same line as a quoted facility name, whole or as a prefix
# (the second form is the issue's own: any comparison with a string starting like a facility or
# a family of them, "ibs" among them)
pattern="(strn?(case)?cmp|strn?casestr|strstr|memcmp)[[:space:]]*\(.*\"(${alternatives})[\":]|(strn?(case)?cmp|memcmp)[[:space:]]*\(.*\"(ibs|pebs|spe|timer|bp|uprobe|sw|hw)"

violations() { # files...
	grep -nE "$pattern" "$@" 2>/dev/null
}

planted=$(mktemp /tmp/pb_names.XXXXXX.c)
trap 'rm -f "$planted"' EXIT
first=$(echo "$names" | head -1)
printf 'if (!strcmp(spec->facility->name, "%s"))\n\treturn 1;\nif (!strncmp(text, "%s", 3))\n' \
	"$first" "$first" >"$planted"
if [ "$(violations "$planted" | wc -l)" -ne 2 ]; then
	echo "FAIL: the check does not find the two comparisons planted in a test file"
	exit 1
fi

found=$(find "$src" -name '*.[ch]' -not -path "$src/facilities/*" -print0 |
	xargs -0 grep -nE "$pattern" 2>/dev/null)
# The session opens what the facilities describe: it includes no facility's own header.
found+=$(grep -nE '#include "facilities/(spe|ibs|pebs|bp|uprobe|timer|sw|hw)[a-z_]*\.h"' \
	"$src"/session/*.[ch] 2>/dev/null)
if [ -n "$found" ]; then
	echo "FAIL: code outside src/facilities/ branches on a facility's name (facilities:" \
		"$(echo "$names" | paste -sd' ')); ask the facility's descriptor instead:"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$names" | wc -l) facility names, no comparison outside src/facilities/"
