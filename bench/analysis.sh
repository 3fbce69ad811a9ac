#!/usr/bin/env bash
# Benchmark (not a test): how fast and how lean pesbench reads a large perf.data compared with
# perf's own tools, from one run of each.
#   1. Records a page-fault loop with `perf record -e page-faults -c 1` (every fault is a sample)
#      until the file holds at least PB_BENCH_SAMPLES samples (default 5 M). The loop faults from
#      PB_BENCH_SITES different instructions, so the histogram has that many distinct IPs.
#   2. Times, with /usr/bin/time -v (wall clock and peak RSS):
#        pesbench perfdata FILE --histogram
#        perf script -F ip | sort | uniq -c
#        perf report --stdio --sort sym
#      and prints each figure and the ratios against pesbench.
# Usage: bench/analysis.sh PESBENCH_BINARY   (or `make bench-analysis`)
set -euo pipefail
pb=${1:?usage: bench/analysis.sh PESBENCH_BINARY}
samples=${PB_BENCH_SAMPLES:-5000000}
sites=${PB_BENCH_SITES:-64}
command -v perf >/dev/null || { echo "bench-analysis needs perf (linux-perf)"; exit 3; }
[ -x /usr/bin/time ] || { echo "bench-analysis needs /usr/bin/time (package time)"; exit 3; }
work=$(mktemp -d /tmp/pb_bench_analysis.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A loop that touches each page of a region from one of `sites` distinct instructions (a
# switch over generated cases), then gives the pages back with MADV_DONTNEED so the next lap
# faults again.
{
	echo '#include <stdlib.h>'
	echo '#include <sys/mman.h>'
	echo 'int main(int argc, char **argv) {'
	echo '  long faults = atol(argv[1]); long pages = 4096; char *m;'
	echo '  m = mmap(0, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);'
	echo '  if (m == MAP_FAILED) return 1;'
	echo '  for (long done = 0; done < faults;) {'
	echo '    for (long p = 0; p < pages && done < faults; p++, done++) {'
	echo '      volatile char *at = m + p * 4096;'
	echo "      switch (p % $sites) {"
	for ((i = 0; i < sites; i++)); do echo "      case $i: *at = $i; break;"; done
	echo '      }'
	echo '    }'
	echo '    madvise(m, pages * 4096, MADV_DONTNEED);'
	echo '  }'
	echo '  return 0;'
	echo '}'
} >"$work/faults.c"
cc -O1 -o "$work/faults" "$work/faults.c"

echo "recording $samples page faults (perf record -e page-faults -c 1) ..."
# 2 % more faults than samples wanted: a few faults of the loop are not sampled (about 0.04 %
# were missing from a 5 M run here).
perf record -q -e page-faults -c 1 -o "$work/big.data" -- "$work/faults" $((samples * 51 / 50)) 2>"$work/record.err" ||
	{ cat "$work/record.err"; exit 1; }
got=$(perf report --stats -i "$work/big.data" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
echo "perf.data: $(du -h "$work/big.data" | cut -f1), $got samples"

# Runs "$@" under /usr/bin/time -v; prints "seconds peak_kb".
measure() {
	local name=$1
	shift
	/usr/bin/time -v -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
		{ echo "$name failed:"; tail -5 "$work/$name.err"; exit 1; }
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/$name.time" |
		awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/$name.time")
	echo "$wall $rss"
}

read -r pb_s pb_kb < <(measure pesbench "$pb" perfdata "$work/big.data" --histogram)
read -r ps_s ps_kb < <(measure perf_script bash -c \
	"perf script -i '$work/big.data' -F ip 2>/dev/null | sort | uniq -c")
read -r pr_s pr_kb < <(measure perf_report perf report --stdio --sort sym -i "$work/big.data")

pb_samples=$(awk '/^ +[0-9]+ +[a-z-]+ +[a-z]+ +[0-9]+/ {print $4; exit}' "$work/pesbench.out")
distinct=$(awk '/distinct IPs/ {print $(NF-2); exit}' "$work/pesbench.out")
uniq_rows=$(wc -l <"$work/perf_script.out")
echo "pesbench counted $pb_samples samples over $distinct distinct IPs; perf script | uniq -c: $uniq_rows rows"
# perf script's peak RSS is that of its own process: GNU time measures the bash pipeline's
# largest child (perf script or sort, whichever peaked higher).
printf '\n%-40s %10s %12s %12s %12s\n' "tool" "seconds" "peak RSS MB" "time ratio" "RSS ratio"
row() { awk -v n="$1" -v s="$2" -v k="$3" -v bs="$pb_s" -v bk="$pb_kb" \
	'BEGIN { printf "%-40s %10.2f %12.1f %11.1fx %11.1fx\n", n, s, k / 1024, s / (bs > 0 ? bs : 0.01), k / bk }'; }
row "pesbench perfdata --histogram" "$pb_s" "$pb_kb"
row "perf script -F ip | sort | uniq -c" "$ps_s" "$ps_kb"
row "perf report --stdio --sort sym" "$pr_s" "$pr_kb"
echo "(ratios: the tool's figure divided by pesbench's; one run each)"
