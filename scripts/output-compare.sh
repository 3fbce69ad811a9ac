#!/usr/bin/env bash
# Proves that a change keeps every deterministic output of pesbench byte-identical: builds
# BASE (a revision, in a temporary git worktree) and HEAD (default: this working tree as it is,
# committed or not), snapshots both binaries with scripts/output-snapshot.sh on the same inputs
# (this tree's committed fixtures) with each side's fake-kernel tests, and compares the
# snapshots file by file.
#
# usage: scripts/output-compare.sh [--out DIR] BASE [HEAD]
#        scripts/output-compare.sh --dirs SNAPSHOT_A SNAPSHOT_B
#   BASE, HEAD   a git revision (cmake builds pesbench and the fake-kernel test programs) or a
#                pesbench binary (then no fake-kernel results on either side)
#   --out DIR    keep the snapshots and the full diff in DIR (default: a temporary folder,
#                kept when they differ, removed when identical)
#   --dirs A B   only compare two snapshots already written
# Exit 0 when identical, 1 when a file differs or exists on one side only, 2 for bad usage or
# a failed build or snapshot. Builds use $JOBS jobs (default 2) and honour
# CMAKE_C_COMPILER_LAUNCHER=ccache from the environment; docs/outputs.md has the details.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd -P)
src=$(cd "$here/.." && pwd -P)
usage() {
	echo "usage: scripts/output-compare.sh [--out DIR] BASE [HEAD]" >&2
	echo "       scripts/output-compare.sh --dirs SNAPSHOT_A SNAPSHOT_B" >&2
	exit 2
}
say() { echo "output-compare: $*"; }
die() { echo "output-compare: $*" >&2; exit 2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# compare_dirs A B LABEL_A LABEL_B DIFF_FILE: the summary on stdout, the whole diff in
# DIFF_FILE; returns 1 when anything differs
compare_dirs() {
	local a=$1 b=$2 la=$3 lb=$4 full=$5
	(cd "$a" && find . -type f | sed 's|^\./||' | sort) >"$full.a"
	(cd "$b" && find . -type f | sed 's|^\./||' | sort) >"$full.b"
	comm -23 "$full.a" "$full.b" >"$full.only-a"
	comm -13 "$full.a" "$full.b" >"$full.only-b"
	comm -12 "$full.a" "$full.b" >"$full.both"
	: >"$full.differ"
	local f
	while IFS= read -r f; do
		cmp -s "$a/$f" "$b/$f" || echo "$f" >>"$full.differ"
	done <"$full.both"
	printf '%-12s %7s %7s %9s %10s %10s\n' group files same different "only $la" "only $lb"
	local g total=0 bad=0
	for g in $(cat "$full.a" "$full.b" | cut -d/ -f1 | sort -u); do
		local n s d oa ob
		n=$(cat "$full.a" "$full.b" | sort -u | grep -c "^$g/")
		d=$(grep -c "^$g/" "$full.differ")
		oa=$(grep -c "^$g/" "$full.only-a")
		ob=$(grep -c "^$g/" "$full.only-b")
		s=$((n - d - oa - ob))
		printf '%-12s %7d %7d %9d %10d %10d\n' "$g" "$n" "$s" "$d" "$oa" "$ob"
		total=$((total + n))
		bad=$((bad + d + oa + ob))
	done
	: >"$full"
	while IFS= read -r f; do
		diff -u --label "$la/$f" --label "$lb/$f" "$a/$f" "$b/$f" >>"$full"
	done <"$full.differ"
	sed "s|^|only in $la: |" "$full.only-a" >>"$full"
	sed "s|^|only in $lb: |" "$full.only-b" >>"$full"
	if [ "$bad" -eq 0 ]; then
		echo "all $total files identical"
		rm -f "$full" "$full".*
		return 0
	fi
	echo "$bad of $total files differ; the first ones (- $la, + $lb):"
	local shown=0
	while IFS= read -r f && [ $shown -lt 12 ]; do
		shown=$((shown + 1))
		echo "  $f"
		if grep -Iq . "$a/$f" && grep -Iq . "$b/$f"; then
			diff -u "$a/$f" "$b/$f" >"$full.one"
			cmp "$a/$f" "$b/$f" | sed -n 's/.* line \([0-9]*\)$/    first difference at line \1:/p'
			sed -n '4,$p' "$full.one" | grep -m 6 '^[-+]' | sed 's/^/    /' | cut -c1-100
		else
			echo "    binary files differ"
		fi
	done <"$full.differ"
	while IFS= read -r f && [ $shown -lt 16 ]; do
		shown=$((shown + 1))
		echo "  $f: only in $la"
	done <"$full.only-a"
	while IFS= read -r f && [ $shown -lt 20 ]; do
		shown=$((shown + 1))
		echo "  $f: only in $lb"
	done <"$full.only-b"
	[ "$bad" -gt "$shown" ] && echo "  ... and $((bad - shown)) more"
	echo "full diff: $full"
	rm -f "$full".*
	return 1
}

out=""
if [ "${1:-}" = --dirs ]; then
	[ $# -eq 3 ] && [ -d "$2" ] && [ -d "$3" ] || usage
	compare_dirs "$2" "$3" a b "$(mktemp "${TMPDIR:-/tmp}/pb-output-diff.XXXXXX")"
	exit $?
fi
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-h | --help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
base=$1
head=${2:-}
if [ -n "$out" ]; then
	[ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && die "$out is not empty; give a new folder"
	mkdir -p "$out" || die "cannot create $out"
	keep=1
else
	out=$(mktemp -d "${TMPDIR:-/tmp}/pb-output-compare.XXXXXX")
	keep=0
fi
out=$(cd "$out" && pwd -P)
worktrees=()
cleanup() {
	local w
	for w in "${worktrees[@]}"; do git -C "$src" worktree remove --force "$w" 2>/dev/null; done
	rm -rf "$out/src" "$out"/build-*
}
trap cleanup EXIT
started=$(now)

# The base may predate tests/lib/output_snapshot.c, the hook through which the fake-kernel test
# programs hand over their results: add_hook TREE adds it (test code only, no product source),
# the same two calls in tests/lib/results_json.c. Fails when that file no longer has the shape.
add_hook() {
	local tree=$1
	[ -f "$tree/tests/lib/output_snapshot.c" ] && return 0
	cp "$src/tests/lib/output_snapshot.c" "$src/tests/lib/output_snapshot.h" "$tree/tests/lib/" &&
		python3 - "$tree/tests/lib/results_json.c" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
edits = [('#include "check.h"\n', '#include "check.h"\n#include "output_snapshot.h"\n'),
         ('\tjson_decref(points);\n\treturn p;\n',
          '\tjson_decref(points);\n\tpb_test_output_snapshot("point", p);\n\treturn p;\n'),
         ('\tpb_rset_clear(&run);\n\treturn j;\n',
          '\tpb_rset_clear(&run);\n\tpb_test_output_snapshot("run", j);\n\treturn j;\n')]
for old, new in edits:
    if text.count(old) != 1:
        sys.exit(1)
    text = text.replace(old, new)
open(path, "w").write(text)
PY
}

# binary_of WHAT LABEL: sets $binary to WHAT when it is a pesbench binary, else builds the
# revision WHAT (or this working tree when WHAT is empty), with the fake-kernel test programs,
# and sets $binary to its program and $testdir to its build folder ("" when not built)
binary_of() {
	local what=$1 label=$2 tree t targets=(pesbench) p
	testdir=""
	if [ -n "$what" ] && [ -f "$what" ] && [ -x "$what" ]; then
		binary=$(cd "$(dirname "$what")" && pwd -P)/$(basename "$what")
		say "$label: the binary $binary"
		return
	fi
	if [ -z "$what" ]; then
		tree=$src
		say "$label: this working tree ($src, $(git -C "$src" rev-parse --short HEAD 2>/dev/null)" \
			"with its uncommitted changes)"
	else
		git -C "$src" rev-parse --verify -q "$what^{commit}" >/dev/null ||
			die "$what is neither a pesbench binary nor a revision of $src"
		tree=$out/src/$label
		mkdir -p "$out/src"
		git -C "$src" worktree add -q --detach "$tree" "$what" >"$out/$label-build.log" 2>&1 ||
			die "cannot check out $what: $(tail -1 "$out/$label-build.log")"
		worktrees+=("$tree")
		say "$label: $what = $(git -C "$src" log -1 --format='%h %s' "$what" | cut -c1-70)"
		add_hook "$tree" ||
			say "$label: tests/lib/results_json.c has changed shape: no fake-kernel results"
	fi
	if grep -q pb_test_output_snapshot "$tree/tests/lib/results_json.c" 2>/dev/null; then
		for p in "${fake_tests[@]}"; do
			[ -f "$tree/tests/$p.c" ] && targets+=("$p")
		done
	fi
	t=$(now)
	if ! { cmake -S "$tree" -B "$out/build-$label" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
		cmake --build "$out/build-$label" -j "${JOBS:-2}" --target "${targets[@]}"; } \
		>>"$out/$label-build.log" 2>&1; then
		keep=1
		die "the $label build failed; its log: $out/$label-build.log"
	fi
	binary=$out/build-$label/pesbench
	[ ${#targets[@]} -gt 1 ] && testdir=$out/build-$label
	say "$label: built in $(since "$t") s (${#targets[@]} targets)"
}

# the fake-kernel test programs (as output-snapshot.sh lists them)
mapfile -t fake_tests < <(sed -n 's/^fake_tests=(\(.*\))$/\1/p' "$here/output-snapshot.sh" | tr ' ' '\n')
binary_of "$base" base
base_bin=$binary base_tests=$testdir
binary_of "$head" head
head_bin=$binary head_tests=$testdir
fake=()
if [ -n "$base_tests" ] && [ -n "$head_tests" ]; then
	fake=(--tests)
else
	say "fake-kernel results are left out: one side has no test programs with the hook"
fi
# both snapshots at once: each is one process after another, so two cores take both
t=$(now)
pids=()
for side in base head; do
	bin_var=${side}_bin tests_var=${side}_tests
	"$here/output-snapshot.sh" --source "$src" ${fake[@]+"${fake[@]}" "${!tests_var}"} \
		"${!bin_var}" "$out/$side" >"$out/$side.log" 2>&1 &
	pids+=($!)
done
failed=""
wait "${pids[0]}" || failed="base"
wait "${pids[1]}" || failed="$failed head"
if [ -n "$failed" ]; then
	keep=1
	die "the snapshot failed ($failed): $(tail -q -n 3 "$out/base.log" "$out/head.log")"
fi
say "both snapshots ($(sed -n 's/.*: \([0-9]* commands\).*/\1/p' "$out/base.log") each) in" \
	"$(since "$t") s"
compare_dirs "$out/base" "$out/head" base head "$out/diff.txt"
status=$?
say "$(since "$started") s in all"
if [ $status -eq 0 ] && [ $keep -eq 0 ]; then
	rm -rf "$out"
elif [ $status -ne 0 ] || [ $keep -eq 1 ]; then
	say "snapshots kept in $out (base/, head/, diff.txt)"
fi
exit $status
