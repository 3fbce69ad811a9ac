#!/usr/bin/env bash
# Regenerates the documentation that comes from the code:
# - every block between  <!-- generated: pesbench ARGS -->  and  <!-- end generated -->  in
#   README.md and docs/*.md becomes the output of `pesbench ARGS` (the command table is
#   `pesbench help --commands`; the facility table, `pesbench facilities --markdown`);
# - completion/pesbench.bash is `pesbench help --completion`, generated from the option tables.
# With --check, changes nothing and exits 1 when anything differs from what the code says
# (tests/cli_generated_docs.sh runs it).
# usage: scripts/gen-docs.sh PESBENCH_BINARY [--check]
set -eu
bin=${1:?usage: scripts/gen-docs.sh PESBENCH_BINARY [--check]}
check=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
end='<!-- end generated -->'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# update FILE NEW: FILE becomes NEW, or with --check the difference is reported
update() {
	if cmp -s "$1" "$2"; then
		return
	fi
	if [ "$check" = --check ]; then
		echo "$1: differs from what the code generates; run: make docs"
		diff "$1" "$2" || true
		status=1
	else
		mkdir -p "$(dirname "$1")"
		cp "$2" "$1"
		echo "updated $1"
	fi
}

found=0
for doc in "$root/README.md" "$root"/docs/*.md; do
	[ -f "$doc" ] || continue
	grep -q '^<!-- generated: pesbench ' "$doc" || continue
	found=$((found + 1))
	# each block's command, run once
	n=0
	while IFS= read -r marker; do
		args=${marker#'<!-- generated: pesbench '}
		args=${args%' -->'}
		n=$((n + 1))
		# shellcheck disable=SC2086 # the marker's words are the arguments
		"$bin" $args >"$tmp/block.$n" || { echo "$doc: \`pesbench $args\` failed"; exit 1; }
	done < <(grep '^<!-- generated: pesbench .* -->$' "$doc")
	awk -v end="$end" -v dir="$tmp" '
		/^<!-- generated: pesbench .* -->$/ {
			print; n++; file = dir "/block." n
			while ((getline line < file) > 0) print line
			skip = 1; next }
		$0 == end { skip = 0 }
		!skip { print }' "$doc" >"$tmp/doc.new"
	update "$doc" "$tmp/doc.new"
done
[ "$found" -gt 0 ] || { echo "no generated block in README.md or docs/*.md"; exit 1; }

"$bin" help --completion >"$tmp/completion"
update "$root/completion/pesbench.bash" "$tmp/completion"
exit $status
