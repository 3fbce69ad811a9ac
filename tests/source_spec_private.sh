#!/usr/bin/env bash
# A spec's facility-private fields (struct pb_spec's `priv`: the precise level asked for, a
# breakpoint's access type, an ibs-op subset) belong to facilities/: nothing else in src/ reads
# or writes them, it asks through pb_spec_precise_requested, pb_spec_has_subset and
# pb_spec_drop_subset (issue 22: the descriptor owns its private spec fields). The check is
# first run on a planted violation, so a broken pattern cannot pass by finding nothing.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
pattern='(\.|->)priv\b'

planted=$(mktemp /tmp/pb_spec_private.XXXXXX.c)
trap 'rm -f "$planted"' EXIT
printf 'int f(const struct pb_spec *s) { return s->priv.precise; }\n' >"$planted"
if [ "$(grep -cE "$pattern" "$planted")" -ne 1 ]; then
	echo "FAIL: the check does not find the use planted in a test file"
	exit 1
fi

files=$(cd "$src" && find . -type f \( -name '*.c' -o -name '*.h' \) ! -path './facilities/*' |
	sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no sources found under $src"; exit 1; }
found=$(cd "$src" && grep -nE "$pattern" $files)
if [ -n "$found" ]; then
	echo "FAIL: a file outside src/facilities/ uses a spec's facility-private fields (ask"
	echo "through pb_spec_precise_requested / pb_spec_has_subset / pb_spec_drop_subset):"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$files" | wc -l) files outside facilities/ leave the spec's private fields alone"
