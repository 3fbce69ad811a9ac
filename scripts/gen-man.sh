#!/usr/bin/env bash
# Writes the man page pesbench(1): `pesbench help --man` prints it from the command list and
# every command's option table, the same tables the parser accepts and --help prints, so the
# page cannot say what the program does not. Run by the build (CMakeLists.txt, target
# pesbench_man). VERSION, when given, must be the program's own (a stale binary is refused).
# Usage: scripts/gen-man.sh PESBENCH OUT [VERSION]
set -euo pipefail
bin=$1
out=$2
if [ $# -ge 3 ]; then
  have=$("$bin" --version | awk '{print $2}')
  [ "$have" = "$3" ] || { echo "gen-man: $bin is version $have, not $3" >&2; exit 1; }
fi
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$bin" help --man >"$tmp"
grep -q '^\.SH COMMANDS' "$tmp" || { echo "gen-man: '$bin help --man' printed no commands" >&2; exit 1; }
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
