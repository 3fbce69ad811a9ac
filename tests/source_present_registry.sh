#!/usr/bin/env bash
# Readers of results never consult the facility registry: report, plots, the terminal summary,
# the scorecard and compare (src/present/, src/scorecard/, cli/cmd_report.c, cli/cmd_compare.c)
# read each point's facility traits from the results document, so a file means what it meant to
# the build that wrote it. The fallbacks, for files without traits or without a machine facts
# list, are io/result_traits.c and io/result_facts.c.
# So none of those files may include a header of src/facilities/. The check is first run on a
# planted violation, so a broken pattern cannot pass by finding nothing.
set -u
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/src
pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*"facilities/'

planted=$(mktemp /tmp/pb_present.XXXXXX.c)
trap 'rm -f "$planted"' EXIT
printf '#include "present/plot.h"\n#include "facilities/facility.h"\n' >"$planted"
if [ "$(grep -cE "$pattern" "$planted")" -ne 1 ]; then
	echo "FAIL: the check does not find the include planted in a test file"
	exit 1
fi

files=$(ls "$src"/present/*.[ch] "$src"/scorecard/*.[ch] "$src"/cli/cmd_report.c \
	"$src"/cli/cmd_compare.c 2>/dev/null)
[ -n "$files" ] || { echo "FAIL: no reader sources found under $src"; exit 1; }
found=$(grep -nE "$pattern" $files)
if [ -n "$found" ]; then
	echo "FAIL: a reader of results includes the facility registry (read the point's traits"
	echo "through io/result_traits.h instead):"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$files" | wc -l) reader files include no facilities/ header"
