#!/usr/bin/env bash
# tests/lib/inert_bp_variant.sh, which runs every `_inert_bp` copy: it skips the copy only when
# pesbench's self-test, run without the preload, says the breakpoints are inert; on any other
# verdict, a failing pesbench or unreadable output, it runs the test and passes its exit status
# on. Each outcome is made with a stand-in pesbench, so the machine's kind does not matter.
set -u
root=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
wrapper=$root/tests/lib/inert_bp_variant.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# stand_in VERDICT|--garbage|--fails: a pesbench whose probe says that, recording what it saw
stand_in() {
	cat >"$work/pesbench" <<EOF
#!/usr/bin/env bash
echo "LD_PRELOAD=\${LD_PRELOAD:-} PB_INJECT=\${PB_INJECT:-} args=\$*" >"$work/seen"
case "$1" in
--garbage) echo "not json" ;;
--fails) exit 1 ;;
*) printf '{"facilities": [{"name": "timer", "verdict": "works"},'
   printf ' {"name": "bp", "verdict": "%s"}]}\n' "$1" ;;
esac
EOF
	chmod +x "$work/pesbench"
}
# run_copy: the wrapper around a test that leaves a mark and exits 5
run_copy() {
	rm -f "$work/ran" "$work/seen"
	PB_BIN=$work/pesbench LD_PRELOAD=/nonexistent/libpb_inert_breakpoints.so \
		PB_INJECT=inert-breakpoints bash "$wrapper" bash -c "touch '$work/ran'; exit 5" \
		>"$work/out" 2>/dev/null
}

stand_in inert
run_copy
rc=$?
[ "$rc" = 77 ] || fail "bp inert without the preload: exit $rc, expected 77 (skipped)"
[ ! -e "$work/ran" ] || fail "bp inert without the preload: the test ran"
grep -q "^SKIPPED TEST: .*breakpoints are inert" "$work/out" ||
	fail "the skip says why: $(cat "$work/out")"
grep -q "^LD_PRELOAD= PB_INJECT= args=probe --json$" "$work/seen" ||
	fail "the self-test runs without the preload: $(cat "$work/seen" 2>/dev/null)"

for answer in works refused absent --garbage --fails; do
	stand_in "$answer"
	run_copy
	rc=$?
	[ "$rc" = 5 ] || fail "bp $answer: exit $rc, expected the test's own 5"
	[ -e "$work/ran" ] || fail "bp $answer: the test did not run"
	! grep -q SKIPPED "$work/out" || fail "bp $answer: a skip was printed: $(cat "$work/out")"
done

echo "source_inert_bp_variant: $((4 + 5 * 3 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
