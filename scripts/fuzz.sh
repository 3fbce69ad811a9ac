#!/usr/bin/env bash
# Runs every built fuzz target for N seconds from its seed corpus; fails on the first crash.
set -euo pipefail
build=$1 seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
ran=0
for target in "$build"/fuzz_*; do
  [ -x "$target" ] || continue
  name=$(basename "$target"); name=${name#fuzz_}
  seeds="$root/fuzz/corpus/$name"
  work=$(mktemp -d)
  [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/ 2>/dev/null || true
  echo "fuzz: $name for ${seconds}s"
  "$target" -max_total_time="$seconds" -print_final_stats=1 "$work" 2>"$work.log" || {
    tail -40 "$work.log"; echo "fuzz: $name FAILED"; exit 1; }
  grep -E "stat::number_of_executed_units" "$work.log" || true
  rm -rf "$work" "$work.log"
  ran=$((ran + 1))
done
echo "fuzz: $ran targets ran clean"
[ "$ran" -gt 0 ]
