#!/usr/bin/env bash
# Every command's option table (`pesbench help --options`) is the one source of its options:
# each option in it is accepted by the command and described in its --help and in pesbench(1),
# those list no option the table lacks, an option outside the table is refused, and every
# option the repository's scripts and documents give a command is in that command's table (a
# parsed option missing from the table would show there). Each check is also run on a doctored
# copy (a help text removed, an option dropped from the table, from the man page, one too many
# in --help) and must fail there.
set -u
shopt -s extglob
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
source_dir=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
pb=$PB_BIN
work=$(mktemp -d /tmp/pb_options.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Spellings the tests use on purpose to check that an unknown option is refused.
deliberately_wrong="--frobnicate --bogus --no-such-option --facilty"

# The options section of a --help text: "  --name ARG  help", "  -h, --help  help" and
# "  -f, -e, --facility SPEC" lines between "options:" and the next blank line; prints the long
# names.
help_options() {
	awk '/^options:$/ {on = 1; next} on && /^$/ {exit}
	     on && match($0, /^  (-[A-Za-z], )*--[a-z0-9][a-z0-9-]*/) {
	       s = substr($0, RSTART, RLENGTH); sub(/^.*--/, "--", s); print s }' "$1" | sort -u
}

# The options of one command's section of the man page (.TP tags).
man_options() {
	awk -v c="$2" '/^\.SS / {on = ($0 == ".SS \"pesbench " c "\""); next}
	     /^\.SH / {on = 0}
	     on && tag { t = $0; gsub(/\\-/, "-", t);
	                 if (match(t, /--[a-z0-9][a-z0-9-]*/)) print substr(t, RSTART, RLENGTH) }
	     { tag = on && $0 == ".TP" }' "$1" | sort -u
}

table_options() { # DUMP CMD [all|shown]
	awk -F'\t' -v c="$2" -v which="${3:-shown}" \
		'$1 == c && (which == "all" || $5 !~ /hidden/) {print $2}' "$1" | sort -u
}

# Options given to `pesbench CMD` on command lines in the repository (before a "--" that
# starts a target command, and before a pipe or redirection).
repo_options() {
	# the repository is the same for the real outputs and every doctored copy: read it once
	local memo=$work/repo_options.$1
	[ -f "$memo" ] || (cd "$source_dir" && grep -rhoE \
		"(pesbench|\\\$pb|PB_BIN\"?|\\\$bin) $1( [^|;&>#]*)?" \
		tests/*.sh scripts/*.sh README.md docs/*.md Makefile .ci 2>/dev/null) |
		sed 's/ -- .*//' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u >"$memo"
	cat "$memo"
}

# check_tables DUMP HELPDIR MAN: prints a line per failure; the number of failures is the
# count of lines.
check_tables() {
	local dump=$1 helpdir=$2 man=$3 c o
	local commands
	commands=$(awk -F'\t' '{print $1}' "$dump" | sort -u)
	[ -n "$commands" ] || echo "the table dump lists no command"
	[ "$commands" = "$(sort -u "$helpdir/_commands")" ] ||
		echo "the commands of the tables ($(echo $commands)) are not those of pesbench --help"
	for c in $commands; do
		local help=$helpdir/$c flat
		flat=$(tr -s ' \n' '  ' <"$help")
		# every row: a help text, shown in --help unless hidden
		while IFS=$'\t' read -r cmd name arg example flags text; do
			[ "$cmd" = "$c" ] || continue
			[ -n "$text" ] || echo "$c $name: no help text in its table entry"
			case $flags in *hidden*) continue ;; esac
			# as `tr -s ' \n' '  '` made $flat, in the shell: two processes a row, for
			# every row of five copies, were a third of this test's time on kind B
			local norm=${text//$'\n'/ }
			norm=${norm//+( )/ }
			[ -n "$text" ] && [[ $flat != *"$norm"* ]] &&
				echo "$c --help does not show the help of $name ($text)"
		done <"$dump"
		# --help and the man page list exactly the table's options
		local shown in_help in_man
		shown=$(table_options "$dump" "$c")
		in_help=$(help_options "$help")
		in_man=$(man_options "$man" "$c")
		[ "$shown" = "$in_help" ] ||
			echo "$c --help lists [$(echo $in_help)], its table [$(echo $shown)]"
		[ "$shown" = "$in_man" ] ||
			echo "pesbench(1) lists for $c [$(echo $in_man)], its table [$(echo $shown)]"
		# what the repository gives the command is in its table
		local all used
		all=$(table_options "$dump" "$c" all)
		used=$(repo_options "$c")
		for o in $used; do
			case " $deliberately_wrong " in *" $o "*) continue ;; esac
			grep -qxF -- "$o" <<<"$all" ||
				echo "the repository gives '$c $o' but $c's table has no $o"
		done
	done
}

# The program's own tables, help texts and man page.
"$pb" help --options >"$work/dump" || fail "pesbench help --options failed"
mkdir -p "$work/help"
"$pb" --help | awk '/^commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}' \
	>"$work/help/_commands"
for c in $(cat "$work/help/_commands"); do
	"$pb" "$c" --help >"$work/help/$c" || fail "$c --help exits $?"
done
"$pb" help --man >"$work/man" || fail "pesbench help --man failed"
# what a person reads keeps to a terminal of 100 columns: every command's help and the two
# listings (facilities' costs and options, workloads' counts ran to 140 before)
mkdir -p "$work/listings"
"$pb" facilities >"$work/listings/facilities" || fail "pesbench facilities failed"
"$pb" workloads >"$work/listings/workloads" || fail "pesbench workloads failed"
wide=$(python3 -c 'import sys
for path in sys.argv[1:]:
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if len(line.rstrip("\n")) > 100:
            print("%s:%d (%d)" % (path.rsplit("/", 1)[1], n, len(line.rstrip("\n"))))
' "$work"/help/* "$work"/listings/*)
[ -z "$wide" ] || fail "lines wider than 100 columns: $(echo $wide | head -c 300)"
[ "$(wc -l <"$work/dump")" -ge 30 ] || fail "the table dump is short: $(wc -l <"$work/dump") options"

check_tables "$work/dump" "$work/help" "$work/man" >"$work/problems"
while read -r line; do fail "$line"; done <"$work/problems"

# The parser: every option of every table accepted (with its example value, then --help,
# which stops before any work), an option outside the table refused with exit 2.
accepted=0
while IFS=$'\t' read -r c name arg example flags text; do
	if [ "$name" = --help ]; then
		args=(--help)
	elif [ "$arg" = - ]; then
		args=("$name" --help)
	else
		args=("$name" "$example" --help)
	fi
	"$pb" "$c" "${args[@]}" >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc -eq 0 ] && head -1 "$work/out" | grep -q "^usage: pesbench $c"; then
		accepted=$((accepted + 1))
	else
		fail "pesbench $c ${args[*]}: exit $rc, $(head -c 200 "$work/err")"
	fi
done <"$work/dump"
for c in $(cat "$work/help/_commands"); do
	for bad in --not-in-any-table -Z; do
		"$pb" "$c" "$bad" --help >"$work/out" 2>"$work/err"
		rc=$?
		[ $rc -eq 2 ] || fail "pesbench $c $bad: exit $rc, expected 2"
		grep -qF -- "unknown option $bad" "$work/err" ||
			fail "pesbench $c $bad: '$(head -c 200 "$work/err")' does not call it unknown"
	done
	"$pb" "$c" -h >"$work/out" 2>&1 && cmp -s "$work/out" "$work/help/$c" ||
		fail "pesbench $c -h is not its --help"
done
# Short options: the conventional letters (-f/-e facility, -c period, -o out, -w workload,
# -t threads, -r runs, -q quiet) wherever the long option exists, shown in --help and the man
# page, and parsed as the long one: the same --help output, the same error for a bad value.
short_of() { # CMD LONG: the short letters --help shows for --LONG
	awk -v l="--$2" '/^options:$/ {on = 1; next} on && /^$/ {exit}
	     on { n = split($1 " " $2 " " $3, w, " "); for (i = 1; i <= n; i++) if (w[i] == l) {
	          for (k = 1; k < i; k++) { s = w[k]; sub(/,$/, "", s); print s } } }' \
		"$work/help/$1"
}
for pair in run:facility:-f run:facility:-e run:period:-c run:out:-o run:threads:-t \
	run:runs:-r run:quiet:-q measure:facility:-f measure:workload:-w measure:period:-c \
	profile:facility:-e attr:workload:-w; do
	IFS=: read -r c long letter <<<"$pair"
	short_of "$c" "$long" | grep -qxF -- "$letter" ||
		fail "pesbench $c --help does not show $letter for --$long"
	man_has=$(awk -v c="$c" '/^\.SS / {on = ($0 == ".SS \"pesbench " c "\""); next}
		on && /^\.TP$/ {getline; print}' "$work/man" | grep -F -- "\\fB\\-${letter#-}\\fR, " |
		grep -cF -- "\\-\\-$long")
	[ "$man_has" -ge 1 ] || fail "pesbench(1) does not show $letter for $c --$long"
done
# parsed as the long option: a bad value gets the long option's message
"$pb" measure -c 5q >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--period '5q'" "$work/err" || fail "measure -c 5q: $(cat "$work/err")"
"$pb" run -r 0 >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--runs" "$work/err" || fail "run -r 0: $(cat "$work/err")"
"$pb" measure -e frob >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "unknown facility 'frob'" "$work/err" || fail "measure -e frob: $(cat "$work/err")"
# a letter a command has no option for is refused, not taken for another option
"$pb" compare -f x --help >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "unknown option -f" "$work/err" || fail "compare -f accepted"
# the same attr, spelled the perf way and the long way. On a saved machine, which runs no
# self-test: a live one may find the facility failing under load in one of the two runs (the
# timer did beside a busy core), and these are about spelling.
vm=$source_dir/tests/fixtures/sysfs-vm
"$pb" attr page-faults -c 5k -w accuracy --root "$vm" --json >"$work/short.json" 2>&1
"$pb" attr sw:page-faults --period 5000 --workload accuracy --root "$vm" --json \
	>"$work/long.json" 2>&1
cmp -s "$work/short.json" "$work/long.json" && grep -q '"sample_period": 5000' "$work/short.json" ||
	fail "attr page-faults -c 5k -w accuracy differs from its long spelling"
# a hardware event's alias names the full spec, available here or not
"$pb" attr cycles >"$work/a.out" 2>&1
grep -q "hw:cycles" "$work/a.out" || fail "attr cycles does not name hw:cycles: $(head -c 200 "$work/a.out")"
# perf's generic event names read as specs: the attr of the alias is that of the full spec
for alias in cpu-clock:timer:cpu-clock task-clock:timer:task-clock page-faults:sw:page-faults \
	context-switches:sw:context-switches; do
	name=${alias%%:*} full=${alias#*:}
	"$pb" attr "$name" --root "$vm" --json >"$work/a.json" 2>&1
	"$pb" attr "$full" --root "$vm" --json >"$work/b.json" 2>&1
	cmp -s "$work/a.json" "$work/b.json" || fail "attr $name is not attr $full"
	grep -q "\"spec\": \"$full\"" "$work/a.json" || fail "attr $name does not name $full"
done
# periods with units: a time in ns for a timer, a count suffix for an event facility
"$pb" attr timer --period 250us --root "$vm" --json | grep -q '"sample_period": 250000' ||
	fail "attr timer --period 250us is not 250000 ns"
"$pb" attr timer --period 2ms --root "$vm" --json | grep -q '"sample_period": 2000000' ||
	fail "attr timer --period 2ms is not 2000000 ns"
"$pb" attr timer --period 1s --root "$vm" --json | grep -q '"sample_period": 1000000000' ||
	fail "attr timer --period 1s is not 1e9 ns"
"$pb" attr sw:page-faults --period 5k --root "$vm" --json | grep -q '"sample_period": 5000' ||
	fail "attr sw:page-faults --period 5k is not 5000"

# `version` and `--version`: the version the build was made with, the same twice
v1=$("$pb" version) && v2=$("$pb" --version) || fail "pesbench version failed"
[ "$v1" = "$v2" ] || fail "version ($v1) and --version ($v2) differ"
grep -qE '^pesbench [0-9]+\.[0-9]+\.[0-9]+$' <<<"$v1" || fail "version prints '$v1'"
"$pb" version --json | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["version"], d' ||
	fail "version --json"
"$pb" vrsion >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "did you mean version?" "$work/err" || fail "pesbench vrsion: $(cat "$work/err")"

# a value-less option given a value, a value option without one
"$pb" run --quiet=yes >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "option --quiet takes no value" "$work/err" || fail "--quiet=yes accepted"
"$pb" measure --facility >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "option --facility needs a value" "$work/err" ||
	fail "--facility without a value: $(cat "$work/err")"

# The checks catch what they are for, on doctored copies.
doctored() { # NAME: a fresh copy of the real outputs in $work/NAME
	rm -rf "${work:?}/$1"
	mkdir -p "$work/$1"
	cp -r "$work/help" "$work/dump" "$work/man" "$work/$1/"
}
expect_caught() { # WHAT PATTERN
	check_tables "$work/d/dump" "$work/d/help" "$work/d/man" >"$work/d/problems"
	grep -qF -- "$2" "$work/d/problems" || fail "a doctored copy ($1) passed the checks"
}
# a table entry whose help is removed
doctored d
awk -F'\t' -v OFS='\t' '$1 == "run" && $2 == "--target-ms" {$6 = ""} {print}' "$work/dump" \
	>"$work/d/dump"
expect_caught "help of run --target-ms removed" "run --target-ms: no help text"
# an option the command parses, missing from its table (and so from --help and the man page)
doctored d
grep -v $'^run\t--target-ms\t' "$work/dump" >"$work/d/dump"
grep -v -- '--target-ms MS' "$work/help/run" | sed 's/ \[--target-ms MS\]//' >"$work/d/help/run"
awk '/^\.TP$/ {held = $0; next}
     held != "" { if ($0 !~ /target\\-ms/) print held "\n" $0; else skip = 1; held = ""; next }
     skip { skip = 0; next } {print}' "$work/man" | sed 's/ \[\\-\\-target\\-ms MS\]//' >"$work/d/man"
! grep -q 'target\\-ms' "$work/d/man" || fail "the doctored man page still has --target-ms"
expect_caught "run --target-ms missing from the table" "gives 'run --target-ms' but run's table"
# an option missing from the man page
doctored d
awk '/^\.TP$/ {held = $0; next}
     held != "" { if ($0 !~ /\\-\\-no\\-plots/) print held "\n" $0; else skip = 1; held = ""; next }
     skip { skip = 0; next } {print}' "$work/man" >"$work/d/man"
expect_caught "report --no-plots missing from the man page" "pesbench(1) lists for report"
# --help listing an option the table lacks
doctored d
sed 's/^options:$/options:\n  --extra       not in the table/' "$work/help/compare" >"$work/d/help/compare"
expect_caught "compare --help with an extra option" "compare --help lists"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: $(wc -l <"$work/dump") table options of $(wc -l <"$work/help/_commands") commands accepted ($accepted), in --help and pesbench(1); unknown options refused; 4 doctored copies caught"
