#!/bin/bash
# scripts/output-snapshot.sh and output-compare.sh --dirs, on a small source tree made of a few
# committed inputs (one machine tree, two results files, two perf.data files) and this build's
# fake-kernel tests: the same binary snapshotted twice is identical (so the filter covers paths,
# in-process addresses and the workload's measured times), no absolute path is left, every
# command's help is there, and a binary whose output differs in one command, a changed PNG, a
# missing and an extra file are each reported, exit 1.
set -u
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
: "${PB_BUILD_DIR:?PB_BUILD_DIR must name the build folder}"
source "$PB_SOURCE_DIR/tests/lib/cli.sh"
export TMPDIR=$work # the scratch folders and the full diffs go where the test cleans up
snapshot=$PB_SOURCE_DIR/scripts/output-snapshot.sh
compare=$PB_SOURCE_DIR/scripts/output-compare.sh
for tool in python3 timeout; do
	command -v "$tool" >/dev/null || { echo "$tool is not installed: cannot snapshot"; exit 77; }
done

tree=$work/src
for f in tests/fixtures/sysfs-zen4 tests/fixtures/results-v1/results.json \
	fuzz/corpus/report/suite.json fuzz/corpus/perfdata/perf61_cpu_clock.data \
	fuzz/corpus/perfdata/ibs_op_fetch_fam25.data fuzz/corpus/figures_jsonl/two_machines.jsonl; do
	mkdir -p "$tree/$(dirname "$f")"
	cp -r "$PB_SOURCE_DIR/$f" "$tree/$f"
done

expect_exit 0 "snapshot a" bash "$snapshot" --source "$tree" --tests "$PB_BUILD_DIR" "$PB_BIN" \
	"$work/a"
check "grep -qE '^output-snapshot: [0-9]+ commands, [0-9]+ files in .* s\)$' '$work/out'" \
	"the snapshot says what it wrote and how long it took: $(cat "$work/out")"
expect_exit 0 "snapshot b" bash "$snapshot" --source "$tree" --tests "$PB_BUILD_DIR" "$PB_BIN" \
	"$work/b"
expect_exit 0 "compare a b" bash "$compare" --dirs "$work/a" "$work/b"
# what differed, when something did (once seen under ASan in CI with nothing kept to say what)
check "grep -qE '^all [0-9]+ files identical$' '$work/out'" \
	"the same binary twice is identical: $(grep -v '^output-compare:' "$work/out" | head -c 1500)"

# what the snapshot holds
for g in help models probe attr perfdata report compare fake; do
	check "[ -n \"\$(ls -A '$work/a/$g' 2>/dev/null)\" ]" "the snapshot has outputs of $g"
done
for c in $("$PB_BIN" help --commands | sed -n 's/^| `pesbench \([a-z-]*\)` |.*/\1/p'); do
	check "grep -q '^--- exit 0$' '$work/a/help/$c--help.txt'" "$c --help is in the snapshot"
done
check "ls '$work/a/report/tests_fixtures_results-v1_results/plots/'*.png >/dev/null" \
	"the report's plots are in the snapshot"
check "[ -s '$work/a/report/tests_fixtures_results-v1_results/report.html' ]" "report.html is in"
check "grep -q '<ADDR>' '$work/a/attr/tests_fixtures_sysfs-zen4/bp--json.txt'" \
	"bp's watched address is filtered"
fake=$work/a/fake/test_experiments_fake.txt
check "grep -q '\"what\": \"run\"' '$fake' && grep -q '\"wall_ns\": \"<TIME>\"' '$fake'" \
	"the fake-kernel runs are in, their measured times filtered"
check "grep -q '\"what\": \"point\"' '$fake' && grep -q '^--- exit 0$' '$fake'" \
	"the fake-kernel points are in, and the test passed"
# every fake-kernel test passed: a test failing alike in both snapshots compares equal, which
# hid test_numbers failing two checks under inert breakpoints
for f in "$work"/a/fake/*.txt; do
	check "grep -q '^--- exit 0$' '$f'" \
		"$(basename "$f" .txt) passed in the snapshot: $(grep -E '^--- exit|CHECK failed' "$f" | head -4)"
done
check "! grep -rqF -e '$work' -e '$PB_SOURCE_DIR' '$work/a'" "no absolute path is left"
check "grep -q '<SRC>/tests/fixtures/sysfs-zen4' '$work/a/probe/tests_fixtures_sysfs-zen4.txt'" \
	"paths of inputs read <SRC>"

# a binary that prints one more line in `workloads`, and a fake-kernel test that fails a check
# after writing the same results: those two files, and only they, differ, and the failed check
# is shown (a CI run once showed only "exit 1" of a test that failed inside the snapshot)
cat >"$work/changed-pesbench" <<EOF
#!/bin/bash
"$PB_BIN" "\$@"
rc=\$?
[ "\$*" = workloads ] && echo "one more line"
exit \$rc
EOF
chmod +x "$work/changed-pesbench"
mkdir "$work/tests-c"
ln -s "$PB_BUILD_DIR"/test_* "$work/tests-c/"
rm "$work/tests-c/test_numbers"
cat >"$work/tests-c/test_numbers" <<EOF
#!/bin/bash
"$PB_BUILD_DIR/test_numbers"
echo "$PB_SOURCE_DIR/tests/test_numbers.c:9: CHECK failed: planted" >&2
exit 1
EOF
chmod +x "$work/tests-c/test_numbers"
expect_exit 0 "snapshot of a changed binary" bash "$snapshot" --source "$tree" \
	--tests "$work/tests-c" "$work/changed-pesbench" "$work/c"
expect_exit 1 "compare a c" bash "$compare" --dirs "$work/a" "$work/c"
check "grep -qE '^2 of [0-9]+ files differ' '$work/out'" "two files differ: $(head -20 "$work/out")"
check "grep -q '^  models/workloads.txt$' '$work/out'" "the changed output is named"
check "grep -q '^    +one more line$' '$work/out'" "its first difference is shown"
check "grep -q '^  fake/test_numbers.txt$' '$work/out'" "the failed test's output is named"
check "grep -q '^    +test_numbers.c:9: CHECK failed: planted$' '$work/out'" \
	"the check that failed is shown, without the source folder: $(grep -A4 fake/ "$work/out")"
check "awk 'length > 100 { bad = 1 } END { exit bad }' '$work/out'" "the summary fits 100 columns"

# a changed PNG, a missing and an extra file
rm -rf "$work/d" && cp -r "$work/b" "$work/d"
png=$(cd "$work/d" && ls report/*/plots/*.png | head -1)
printf x >>"$work/d/$png"
rm "$work/d/help/version.txt"
echo x >"$work/d/help/extra.txt"
expect_exit 1 "compare b d" bash "$compare" --dirs "$work/b" "$work/d"
check "grep -qE '^3 of [0-9]+ files differ' '$work/out'" "three files differ: $(head -20 "$work/out")"
check "grep -q 'binary files differ' '$work/out'" "a changed PNG is found"
check "grep -q '^  help/version.txt: only in a$' '$work/out'" "a missing file is named"
check "grep -q '^  help/extra.txt: only in b$' '$work/out'" "an extra file is named"

# bad usage
expect_exit 2 "snapshot into a folder not empty" bash "$snapshot" --source "$tree" "$PB_BIN" "$work/a"
check "grep -q 'not empty' '$work/err'" "says the folder is not empty"
expect_exit 2 "snapshot of no binary" bash "$snapshot" --source "$tree" "$work/none" "$work/e"
expect_exit 2 "compare of no revision" bash "$compare" --out "$work/f" no-such-revision-x22
check "grep -q 'neither a pesbench binary nor a revision' '$work/err'" "names the bad revision"

echo "cli_output_snapshot: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
