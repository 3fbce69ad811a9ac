#!/usr/bin/env bash
# Checks the include graph of src/ against the declared layers (DESIGN.md, "Layers"):
#  - an #include "..." may point to a file of its own layer or of a lower rank, never upward
#    and never sideways into a different layer of the same rank;
#  - no file includes itself back through a chain of includes (an include cycle);
#  - every file of src/ belongs to a declared layer, and every layer is a folder (a path
#    ending in /), so a file's layer is where it lives;
#  - a header that names one facility (facilities/ibs_*.h, pebs*.h, spe_*.h, uprobe*.h, ...) is
#    included only inside facilities/ and by the public API's wrappers (api/): everything
#    else asks through facility.h (DESIGN.md: nothing outside facilities/ knows a facility).
# Usage: scripts/check-layers.sh [SRC_DIR]   (default: the src/ beside this script)
# Prints one line per violation, file:line first, and exits 1 if there is any.
set -u

# The layers, lowest first: rank, name, and the folders under src/ that make the layer. A file
# belongs to the layer of the folder it is in. Layers of one rank are siblings: neither may include the
# other.
LAYERS='
1  util         util/
2  sys          sys/
3  ring         ring/
3  machine      machine/
4  perfdata     perfdata/
5  model        facilities/ workloads/
6  session      session/
7  analysis     analysis/
8  formats      io/
8  export       export/
9  runner       runner/
9  scorecard    scorecard/
10 experiments  experiments/
10 present      present/
10 api          api/
11 bundle       bundle/
12 cli          cli/
'
# a test may check another table (tests/source_layers.sh)
LAYERS=${PB_CHECK_LAYERS:-$LAYERS}
# Notes on the order, read from the code:
#  machine   what the machine says (procfs, sysfs, the kernel log), read from a root so a saved
#            tree describes a machine too; no facility: each facility's own facts are its
#            descriptor's (facilities/machine.c asks them).
#  perfdata  the perf.data reader and writer need records (ring) and nothing above: it is the
#            part a profiling tool would reuse. IBS's view of a perf.data file lives with IBS.
#  model     facilities and workloads are one layer: a facility's model says what it should
#            count on a workload's declared truth (workload.h), and a workload names the
#            facilities it suits (facility.h).
#  formats   the results document and probe JSON; probe JSON writes what facilities report.
#  export    profiles for pprof, speedscope and flame graphs: a model, one file per format, and
#            the converters from a perf.data walk and from `profile`'s samples and callgrind.
#  runner    running a workload instance under a session, and checking a workload's declared
#            truth under callgrind (analysis).
#  api       the public library's wrappers (include/pesbench/) over the reusable layers below;
#            nothing inside pesbench includes them.
#  scorecard the verdict per facility: analysis of the typed results document, so above
#            formats; present, compare and run show it.
#  bundle    capture bundles: runs points and keeps their records (experiments), reads them
#            back through the perf.data reader and sums them as a live point does.
#  present   plots and the HTML report read the results document only, never the experiments
#            that wrote it: a results.json from another build or machine must do.

# Known exceptions: "file -> included file", each with the issue that will remove it.
EXCEPTIONS='
'

src=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
[ -d "$src" ] || { echo "check-layers: no such directory: $src" >&2; exit 2; }

# file<TAB>line<TAB>included path, for every quoted include of every source file
files=$(cd "$src" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \) |
	sed 's|^\./||' | LC_ALL=C sort)
edges=$(cd "$src" && [ -n "$files" ] && tr '\n' '\0' <<<"$files" |
	xargs -0 grep -nHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' |
	sed -E 's|^([^:]+):([0-9]+):[^"]*"([^"]+)".*|\1\t\2\t\3|')

awk -F'\t' -v layers="$LAYERS" -v exceptions="$EXCEPTIONS" -v files="$files" -v src="$src" '
function layer_of(f,    i, best, bl) {
	best = ""; bl = 0
	for (i = 1; i <= npat; i++)
		if (index(f, pat[i]) == 1 && length(pat[i]) > bl) {
			bl = length(pat[i]); best = patlayer[i]
		}
	return best
}
# depth-first search for include cycles; state 1: on the path, 2: done
function visit(f,    k, g) {
	state[f] = 1
	path[++depth] = f
	for (k = 1; k <= nout[f]; k++) {
		g = out[f, k]
		if (state[g] == 1) {
			report_cycle(g)
		} else if (!state[g]) {
			visit(g)
		}
	}
	depth--
	state[f] = 2
}
function report_cycle(g,    i, start, s) {
	for (i = 1; i <= depth; i++)
		if (path[i] == g)
			start = i
	s = ""
	for (i = start; i <= depth; i++)
		s = s path[i] ":" outline[path[i], (i < depth ? path[i + 1] : g)] " -> "
	print s g ": include cycle"
	bad++
}
BEGIN {
	n = split(layers, line, "\n")
	for (i = 1; i <= n; i++) {
		m = split(line[i], w, /[ \t]+/)
		if (m < 3)
			continue
		rank[w[2]] = w[1] + 0
		for (j = 3; j <= m; j++) {
			pat[++npat] = w[j]; patlayer[npat] = w[2]
			if (w[j] !~ /\/$/) {
				print "check-layers: layer " w[2] " declares " w[j] ", not a folder: a " \
				      "layer is a folder of src/ (end it in /)"
				bad++
			}
		}
	}
	n = split(exceptions, line, "\n")
	for (i = 1; i <= n; i++) {
		gsub(/^[ \t]+|[ \t]+$/, "", line[i])
		if (line[i] != "" && line[i] !~ /^#/)
			allowed[line[i]] = 1
	}
	n = split(files, fl, "\n")
	for (i = 1; i <= n; i++) {
		if (fl[i] == "")
			continue
		exists[fl[i]] = 1
		if (layer_of(fl[i]) == "") {
			print src "/" fl[i] ": belongs to no declared layer"
			bad++
		}
	}
}
{
	f = $1; ln = $2; inc = $3
	if (!exists[inc]) {
		# a file beside the includer ("asm.h" from a .S file) or not a source of src/
		dir = f; sub(/[^\/]*$/, "", dir)
		if (exists[dir inc])
			inc = dir inc
		else
			next
	}
	if (!((f, inc) in outline)) {
		out[f, ++nout[f]] = inc
		outline[f, inc] = ln
	}
	if (inc ~ /^facilities\/(ibs|pebs|spe|uprobe|bp|hw|timer|sw)[_.a-z]*\.h$/ &&
	    f !~ /^(facilities|api)\//) {
		if ((f " -> " inc) in allowed) {
			used[f " -> " inc] = 1
		} else {
			printf "%s/%s:%s: includes %s: a header of one facility, outside facilities/ " \
			       "(ask through facilities/facility.h)\n", src, f, ln, inc
			bad++
		}
	}
	a = layer_of(f); b = layer_of(inc)
	if (a == "" || b == "" || a == b)
		next
	if (rank[b] < rank[a])
		next
	if ((f " -> " inc) in allowed) {
		used[f " -> " inc] = 1
		next
	}
	printf "%s/%s:%s: includes %s: layer %s (%d) %s layer %s (%d)\n", src, f, ln, inc, a,
		rank[a], rank[b] == rank[a] ? "reaches sideways into its sibling" : "points up to",
		b, rank[b]
	bad++
}
END {
	for (i = 1; i <= nf_sorted(); i++)
		if (sorted[i] != "" && !state[sorted[i]])
			visit(sorted[i])
	# an exception whose file is not in this tree (a small tree of a test) is not judged
	for (e in allowed)
		if (!used[e] && split(e, ends, " -> ") == 2 && exists[ends[1]]) {
			print "check-layers: the exception \"" e "\" is no longer needed: remove it"
			bad++
		}
	if (bad) {
		print "check-layers: " bad " violation(s) of the declared layers"
		exit 1
	}
	print "check-layers: ok: " nedges() " includes, no upward include, no include cycle"
}
function nf_sorted(    i, n) {
	n = split(files, sorted, "\n")
	return n
}
function nedges(    k, t) {
	t = 0
	for (k in nout)
		t += nout[k]
	return t
}
' <<<"$edges"
