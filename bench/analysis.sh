#!/usr/bin/env bash
# Benchmark (not a test): how fast and how lean pesbench reads a large perf.data compared with
# perf's own tools and with the read floor.
#   1. Records a page-fault loop with `perf record -e page-faults -c 1` (every fault is a sample)
#      until the file holds at least PB_BENCH_SAMPLES samples (default 5 M). The loop faults from
#      PB_BENCH_SITES different instructions, so the histogram has that many distinct IPs.
#      PB_BENCH_FILE=path reuses a recording instead (it is not deleted).
#   2. Warms the page cache with the file, then runs PB_BENCH_ROUNDS interleaved rounds (default
#      5) of, each timed by wall clock (bash EPOCHREALTIME around /usr/bin/time, which also gives
#      the peak RSS):
#        floor: read(2) of the whole file into one 1 MiB buffer (bench/readfloor.c), nothing else
#        pesbench perfdata FILE --histogram
#        perf script -F ip | sort | uniq -c
#        perf report --stdio --sort sym
#        pesbench perfdata FILE --export folded:F, and --export pprof:F (issue 24: an export costs
#        at most ~2x --histogram, its memory grows with distinct stacks, not samples)
#      and prints min-median-max of each tool's seconds, and of the per-round ratios: pesbench's
#      time as a multiple of the floor, each perf tool's time as a multiple of pesbench's. Ratios
#      are paired within a round, so a slow moment of the machine moves both sides.
# Usage: bench/analysis.sh PESBENCH_BINARY   (or `make bench-analysis`)
set -euo pipefail
pb=${1:?usage: bench/analysis.sh PESBENCH_BINARY}
samples=${PB_BENCH_SAMPLES:-5000000}
sites=${PB_BENCH_SITES:-64}
rounds=${PB_BENCH_ROUNDS:-5}
here=$(cd "$(dirname "$0")" && pwd)
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
cc -O2 -o "$work/readfloor" "$here/readfloor.c"

if [ -n "${PB_BENCH_FILE:-}" ]; then
	data=$PB_BENCH_FILE
else
	data=$work/big.data
	echo "recording $samples page faults (perf record -e page-faults -c 1) ..."
	# 2 % more faults than samples wanted: a few faults of the loop are not sampled (about 0.04 %
	# were missing from a 5 M run here).
	perf record -q -e page-faults -c 1 -o "$data" -- "$work/faults" $((samples * 51 / 50)) 2>"$work/record.err" ||
		{ cat "$work/record.err"; exit 1; }
fi
got=$(perf report --stats -i "$data" 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
echo "perf.data: $(du -h "$data" | cut -f1), $got samples"

# Runs "$@" under /usr/bin/time; prints "seconds peak_kb cpu_seconds". The wall clock is bash's
# EPOCHREALTIME (microseconds; GNU time's own wall clock has 10 ms steps, a third of the floor);
# CPU seconds (user + system) are what a machine busy with other work disturbs least.
measure() {
	local name=$1
	shift
	local t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -f '%M %U %S' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
		{ echo "$name failed:" >&2; tail -5 "$work/$name.err" >&2; exit 1; }
	t1=$EPOCHREALTIME
	tail -1 "$work/$name.time" | awk -v a="$t0" -v b="$t1" '{ printf "%.4f %d %.2f\n", b - a, $1, $2 + $3 }'
}

cat "$data" >/dev/null # the page cache holds the file for every round, the first too
: >"$work/rounds"
for ((r = 1; r <= rounds; r++)); do
	read -r fl_s fl_kb _ < <(measure floor "$work/readfloor" "$data")
	read -r pb_s pb_kb pb_cpu < <(measure pesbench "$pb" perfdata "$data" --histogram)
	read -r ps_s ps_kb _ < <(measure perf_script bash -c \
		"perf script -i '$data' -F ip 2>/dev/null | sort | uniq -c")
	read -r pr_s pr_kb _ < <(measure perf_report perf report --stdio --sort sym -i "$data")
	read -r ef_s ef_kb ef_cpu < <(measure export_folded "$pb" perfdata "$data" --export "folded:$work/x.folded")
	read -r ep_s ep_kb ep_cpu < <(measure export_pprof "$pb" perfdata "$data" --export "pprof:$work/x.pb.gz")
	echo "$fl_s $fl_kb $pb_s $pb_kb $ps_s $ps_kb $pr_s $pr_kb $ef_s $ef_kb $ep_s $ep_kb" \
		"$pb_cpu $ef_cpu $ep_cpu" >>"$work/rounds"
	echo "round $r: floor $fl_s s, pesbench $pb_s s, perf script $ps_s s, perf report $pr_s s," \
		"export folded $ef_s s, pprof $ep_s s"
done

pb_samples=$(awk '/^ +[0-9]+ +[a-z-]+ +[a-z]+ +[0-9]+/ {print $4; exit}' "$work/pesbench.out")
distinct=$(awk '/distinct IPs/ {print $(NF-2); exit}' "$work/pesbench.out")
uniq_rows=$(wc -l <"$work/perf_script.out")
echo "pesbench counted $pb_samples samples over $distinct distinct IPs; perf script | uniq -c: $uniq_rows rows"
echo "export: $(wc -l <"$work/x.folded") distinct stacks in the folded file" \
	"($(awk '{s += $NF} END {print s}' "$work/x.folded") samples), pprof file $(du -h "$work/x.pb.gz" | cut -f1)"
echo "floor: bench/readfloor.c, read(2) into one 1 MiB buffer; $(nproc) CPUs," \
	"$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
# perf script's peak RSS is that of its own process: GNU time measures the bash pipeline's
# largest child (perf script or sort, whichever peaked higher).
# stats COLUMN: "min median max" of a column of the rounds file (or of an awk expression).
stats() {
	awk "{ print $1 }" "$work/rounds" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.3f %.3f %.3f\n", v[1], m, v[NR] }'
}
printf '\n%-36s %-23s %9s  %-22s\n' "tool" "seconds min-med-max" "peak RSS" "ratio min-med-max"
row() { # name seconds_col kb_col ratio_expr ratio_label
	read -r a b c < <(stats "$2")
	read -r x y z < <(stats "$4")
	local kb
	kb=$(awk "{ print $3 }" "$work/rounds" | sort -n | tail -1)
	printf '%-36s %6.3f %6.3f %6.3f   %6.1f MB  %5.1f %5.1f %5.1fx %s\n' "$1" "$a" "$b" "$c" \
		"$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$x" "$y" "$z" "$5"
}
row "floor (read, 1 MiB buffer)" '$1' '$2' '$1 / $1' ""
row "pesbench perfdata --histogram" '$3' '$4' '$3 / $1' "of the floor"
row "perf script -F ip | sort | uniq -c" '$5' '$6' '$5 / $3' "of pesbench"
row "perf report --stdio --sort sym" '$7' '$8' '$7 / $3' "of pesbench"
row "pesbench perfdata --export folded" '$9' '$10' '$9 / $3' "of --histogram"
row "pesbench perfdata --export pprof" '$11' '$12' '$11 / $3' "of --histogram"
# CPU seconds (GNU time: 10 ms steps) of the exports against --histogram, paired per round
cpu_row() { # name cpu_col
	read -r a b c < <(stats "$2")
	read -r x y z < <(stats "($2) / (\$13 < 0.01 ? 0.01 : \$13)")
	printf '%-36s %6.2f %6.2f %6.2f   CPU s      %5.1f %5.1f %5.1fx of --histogram'"'"'s CPU\n' \
		"$1" "$a" "$b" "$c" "$x" "$y" "$z"
}
read -r a hist_cpu c < <(stats '$13')
printf '%-36s %6.2f %6.2f %6.2f   CPU s\n' "pesbench perfdata --histogram" "$a" "$hist_cpu" "$c"
cpu_row "pesbench perfdata --export folded" '$14'
cpu_row "pesbench perfdata --export pprof" '$15'
[ "$(awk -v b="$hist_cpu" 'BEGIN { print (b < 0.05) }')" = 1 ] &&
	echo "(--histogram's CPU time is under 5 steps of GNU time's 10 ms: the CPU ratios are rough;" \
		"a larger PB_BENCH_SAMPLES measures them)"
echo "($rounds interleaved rounds; ratios paired within a round. Targets (issue 15): pesbench" \
	"<= 3x the floor, perf script >= 20x and perf report >= 10x pesbench; issue 24: an export" \
	"<= ~2x --histogram, its peak RSS near --histogram's: it grows with distinct stacks only)"
