#!/usr/bin/env bash
# No file outside src/facilities/ calls a facility hook itself (issue 22: the descriptor owns
# its facility, and the rest of pesbench asks through one API): each hook is reached through its
# pb_spec_* / pb_facility_* function in facilities/, which owns the NULL check and the default
# of a facility that leaves the hook out. The hooks are read from struct pb_facility itself, so
# a hook added later is checked too; any receiver counts (spec->facility->x(, f->x(, (*f)->x().
# The check is first run on planted violations, so a broken pattern cannot pass by finding
# nothing.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
header=$src/facilities/facility.h

# The function-pointer members of struct pb_facility (one tab deep: a hook's own parameters,
# such as aux_deliver's fn, sit deeper).
hooks=$(awk '/^struct pb_facility \{/ {on = 1; next} on && /^\};/ {exit}
	on && /^\t[^\t]/ && match($0, /\(\*[a-z_]+\)\(/) {
		print substr($0, RSTART + 2, RLENGTH - 4) }' "$header" | LC_ALL=C sort -u)
nhooks=$(echo "$hooks" | grep -c .)
if [ "$nhooks" -lt 10 ] || ! echo "$hooks" | grep -qx own_tally_sample; then
	echo "FAIL: found $nhooks hooks in struct pb_facility of $header: the extraction is broken"
	echo "$hooks"
	exit 1
fi
pattern="->($(echo "$hooks" | paste -sd'|'))[[:space:]]*\\("
# Members of other structs that share a hook's name (an option table's parse).
allowed='^cli/options\.c:[0-9]+:.*\bo->parse\('

planted=$(mktemp /tmp/pb_facility_hooks.XXXXXX.c)
trap 'rm -f "$planted"' EXIT
cat >"$planted" <<'C'
int a(const struct pb_spec *s) { return s->facility->can_exclude(s); }
void b(const struct pb_facility *f) { f->availability(0, 0, 0); }
void c(const struct pb_facility *const *f) { (*f)->perf_event_name(0); }
void d(const struct pb_spec *s) { s->facility->own_tally_sample (0, s, 0, 0); }
C
if [ "$(grep -cE -- "$pattern" "$planted")" -ne 4 ]; then
	echo "FAIL: the check does not find the 4 calls planted in a test file"
	exit 1
fi

files=$(cd "$src" && find . -type f \( -name '*.c' -o -name '*.h' \) ! -path './facilities/*' |
	sed 's|^\./||' | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no sources found under $src"; exit 1; }
found=$(cd "$src" && grep -nE -- "$pattern" $files | grep -vE -- "$allowed")
if [ -n "$found" ]; then
	echo "FAIL: a file outside src/facilities/ calls a facility hook itself; call its"
	echo "pb_spec_* / pb_facility_* function (facilities/facility.h), which owns the NULL check"
	echo "and the default:"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$files" | wc -l) files outside facilities/ call none of the $nhooks hooks" \
	"of struct pb_facility"
