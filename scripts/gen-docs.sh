#!/usr/bin/env bash
# Regenerates the documentation blocks that come from the code: between
#   <!-- generated: pesbench facilities --markdown -->  and  <!-- end generated -->
# in README.md and docs/facilities.md. With --check, changes nothing and exits 1 when a block
# differs from what the code says (tests/cli_generated_docs.sh runs it).
# usage: scripts/gen-docs.sh PESBENCH_BINARY [--check]
set -eu
bin=${1:?usage: scripts/gen-docs.sh PESBENCH_BINARY [--check]}
check=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
begin='<!-- generated: pesbench facilities --markdown -->'
end='<!-- end generated -->'
table=$(mktemp)
trap 'rm -f "$table" "$table.new"' EXIT
"$bin" facilities --markdown >"$table"
status=0
for doc in "$root/README.md" "$root/docs/facilities.md"; do
	grep -qF -- "$begin" "$doc" || { echo "$doc: no generated block ($begin)"; exit 1; }
	awk -v begin="$begin" -v end="$end" -v table="$table" '
		$0 == begin { print; while ((getline line < table) > 0) print line; skip = 1; next }
		$0 == end { skip = 0 }
		!skip { print }' "$doc" >"$table.new"
	if ! cmp -s "$doc" "$table.new"; then
		if [ "$check" = --check ]; then
			echo "$doc: the facility table differs from \`pesbench facilities --markdown\`;" \
				"run: make docs"
			diff "$doc" "$table.new" || true
			status=1
		else
			cp "$table.new" "$doc"
			echo "updated $doc"
		fi
	fi
done
exit $status
