#!/usr/bin/env bash
# The CLI holds no logic and no formats (issue 22): no file of src/cli/ is over 300 lines, and
# none but src/cli/output.c calls jansson (a --json document is made below the CLI, or in
# output.c when it needs a layer above io/). The check is first run on planted violations, so
# a broken pattern cannot pass by finding nothing.
# Files still waiting for their own split are listed in WAITING with the reason; each entry
# is a known gap, and the lead removes it when the file meets the rules.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
MAX_LINES=300
WAITING='
'

# violations DIR: "file: reason" for each file of DIR (a src/ tree) breaking a rule
violations() {
	local dir=$1 f rel n
	for f in "$dir"/cli/*.[ch]; do
		[ -e "$f" ] || continue
		rel=${f#"$dir"/}
		grep -qxF "$rel" <<<"$WAITING" && continue
		n=$(wc -l <"$f")
		[ "$n" -gt "$MAX_LINES" ] && echo "$rel: $n lines (at most $MAX_LINES)"
		[ "$rel" = cli/output.c ] && continue
		grep -nE '\bjson_[a-z_]*[[:space:]]*\(' "$f" |
			sed "s|^|$rel:|;s|\$|  (only cli/output.c calls jansson)|"
	done
}

tmp=$(mktemp -d /tmp/pb_cli_thin.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cli"
printf 'int f(void)\n{\n\treturn json_dumpf(doc, stdout, 0);\n}\n' >"$tmp/cli/cmd_a.c"
for i in $(seq 1 $((MAX_LINES + 1))); do echo "/* $i */"; done >"$tmp/cli/cmd_b.c"
printf '#include <jansson.h>\nint g(void) { return json_object_size(o); }\n' >"$tmp/cli/output.c"
planted=$(violations "$tmp")
if [ "$(grep -c . <<<"$planted")" -ne 2 ] || ! grep -q 'cmd_a.c:3:' <<<"$planted" ||
	! grep -q 'cmd_b.c: 301 lines' <<<"$planted"; then
	echo "FAIL: the check does not find the two violations planted in a test tree:"
	echo "$planted"
	exit 1
fi

found=$(violations "$src")
if [ -n "$found" ]; then
	echo "FAIL: src/cli/ holds logic or formats:"
	echo "$found"
	exit 1
fi
echo "ok: $(ls "$src"/cli/*.[ch] | wc -l) cli files, none over $MAX_LINES lines, jansson only in" \
	"cli/output.c (waiting: $(echo $WAITING))"
