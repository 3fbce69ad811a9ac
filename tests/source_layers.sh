#!/usr/bin/env bash
# The include graph of src/ follows the declared layers (scripts/check-layers.sh, DESIGN.md).
# The check is first run on constructed trees that break each rule, so a broken script cannot
# pass by finding nothing; then on the tree itself, which must pass.
set -u
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
check=$root/scripts/check-layers.sh
fail=0

tmp=$(mktemp -d /tmp/pb_layers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# expect NAME STATUS PATTERN: the check on $tmp/NAME exits STATUS and, when PATTERN is given,
# prints a line matching it
expect() {
	local out rc
	out=$(bash "$check" "$tmp/$1" 2>&1)
	rc=$?
	if [ "$rc" -ne "$2" ]; then
		echo "FAIL: $1: the check exited $rc, not $2:"
		echo "$out"
		fail=1
	elif [ -n "${3:-}" ] && ! grep -qE "$3" <<<"$out"; then
		echo "FAIL: $1: no line matching /$3/ in:"
		echo "$out"
		fail=1
	fi
}

# tree NAME: a small tree that keeps the rules, to plant one violation in
tree() {
	mkdir -p "$tmp/$1"/{util,ring,session,experiments,present}
	printf '#include "util/error.h"\n' >"$tmp/$1/ring/ring.h"
	printf '' >"$tmp/$1/util/error.h"
	printf '#include "ring/ring.h"\n#include "util/error.h"\n' >"$tmp/$1/session/session.h"
	printf '#include "session/session.h"\n' >"$tmp/$1/experiments/experiment.c"
	printf '#include "util/error.h"\n' >"$tmp/$1/present/report.c"
}

tree good
expect good 0 "ok: 5 includes"

# an include that points up a layer: the ring reaching into the session
tree up
printf '#include "util/error.h"\n\n#include "session/session.h"\n' >"$tmp/up/ring/ring.c"
expect up 1 "up/ring/ring\.c:3: includes session/session\.h: layer ring \(3\) points up to layer session \(6\)"

# sideways between siblings: presentation reading the experiments
tree side
printf '#include "experiments/experiment.h"\n' >"$tmp/side/present/report.c"
printf '' >"$tmp/side/experiments/experiment.h"
expect side 1 "layer present \(10\) reaches sideways into its sibling layer experiments \(10\)"

# a circle of includes inside one layer
tree cycle
printf '#include "util/b.h"\n' >"$tmp/cycle/util/a.h"
printf '#include "util/c.h"\n' >"$tmp/cycle/util/b.h"
printf '#include "util/a.h"\n' >"$tmp/cycle/util/c.h"
expect cycle 1 "util/a\.h:1 -> util/b\.h:1 -> util/c\.h:1 -> util/a\.h: include cycle"

# a file outside every declared layer
tree stray
mkdir -p "$tmp/stray/misc"
printf '' >"$tmp/stray/misc/x.c"
expect stray 1 "misc/x\.c: belongs to no declared layer"

# a header of one facility outside facilities/: presentation reading IBS's raw layout
tree facility_header
mkdir -p "$tmp/facility_header/facilities"
printf '' >"$tmp/facility_header/facilities/ibs_raw.h"
printf '#include "facilities/ibs_raw.h"\n' >"$tmp/facility_header/present/report.c"
expect facility_header 1 "present/report\.c:1: includes facilities/ibs_raw\.h: a header of one facility"

# a layer declared as a prefix of file names, not a folder
tree prefix
PB_CHECK_LAYERS='
1 util util/
3 ring ring/
6 session session/
10 experiments experiments/
10 present present/report
' expect prefix 1 "layer present declares present/report, not a folder"

# the tree itself
out=$(bash "$check" "$root/src" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -ne 0 ]; then
	echo "FAIL: src/ breaks the declared layers"
	fail=1
fi
exit $fail
