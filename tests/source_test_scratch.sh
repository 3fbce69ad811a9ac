#!/usr/bin/env bash
# A test's scratch folders are its own: no test source names a fixed path under /tmp (only
# mkdtemp/mkstemp templates, "...XXXXXX"). Two copies of one test run at once — ctest -j2 runs
# the output snapshot, which runs the fake-kernel tests, beside those tests and beside the
# snapshot's own inert-breakpoint copy — and a fixed results folder let one copy read the
# other's points (a CI run failed so: test_numbers exited 1 inside cli_output_snapshot). The
# check is first run on a planted violation, so a broken pattern cannot pass by finding nothing.
set -u
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
fixed_paths() { grep -noE '"/tmp/[^"]*"' "$@" | grep -v 'XXXXXX"$'; }

planted=$(mktemp /tmp/pb_test_scratch.XXXXXX.c)
trap 'rm -f "$planted"' EXIT
printf 'char ok[] = "/tmp/pb-x-XXXXXX";\nopen_results("/tmp/pesbench-test-x");\n' >"$planted"
if [ "$(fixed_paths "$planted" | wc -l)" -ne 1 ]; then
	echo "FAIL: the check does not find exactly the fixed path planted in a test file"
	exit 1
fi

files=$(cd "$root" && find tests fuzz -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no test sources found under $root"; exit 1; }
found=$(cd "$root" && fixed_paths $files)
if [ -n "$found" ]; then
	echo "FAIL: a test names a fixed path under /tmp; two copies of it running at once would"
	echo "share it (make the folder with mkdtemp, as pb_test_results_in_tmp does):"
	echo "$found"
	exit 1
fi
echo "ok: $(echo "$files" | wc -w) test sources name no fixed path under /tmp"
