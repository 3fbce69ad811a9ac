#!/usr/bin/env bash
# A spec is parsed once, at the edge (issue 22): by the CLI, which hands a parsed spec down, or
# by the facility layer for specs that arrive by another door (the public API's text, a
# bundle's recorded spec, verify's oracles: facilities/spec_entry.c). No other file of src/
# calls pb_spec_parse. The check is first run on a planted call, so a broken pattern cannot
# pass by finding nothing.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
pattern='\bpb_spec_parse[[:space:]]*\('

planted=$(mktemp /tmp/pb_spec_parse_edge.XXXXXX.c)
trap 'rm -f "$planted"' EXIT
printf 'int f(struct pb_spec *s) { return pb_spec_parse ("timer", s, 0); }\n' >"$planted"
if [ "$(grep -cE "$pattern" "$planted")" -ne 1 ]; then
	echo "FAIL: the check does not find the call planted in a test file"
	exit 1
fi

files=$(cd "$src" && find . -type f \( -name '*.c' -o -name '*.h' \) ! -path './facilities/*' ! -path './cli/*' |
	sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no sources found under $src"; exit 1; }
found=$(cd "$src" && grep -nE "$pattern" $files)
if [ -n "$found" ]; then
	echo "FAIL: a spec is parsed below the CLI outside src/facilities/; take a parsed"
	echo "struct pb_spec, or parse through the facility layer (facilities/spec_entry.c):"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$files" | wc -l) files below the CLI outside facilities/ parse no spec"
