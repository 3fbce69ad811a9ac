#!/bin/bash
# Measures NODES nodes with pesbench through Slurm and merges the results:
#
#   contrib/slurm/submit.sh NODES SHARED_DIR [sbatch options...] [-- RUN ARGS...]
#
# e.g. submit.sh 16 /shared/pesbench --partition=compute --constraint=perf -- --runs 3
# Queues a job array of NODES node-exclusive tasks (pesbench-array.sbatch) and a merge job that
# runs when all have ended (pesbench-merge.sbatch). Prints "array JOBID" and "merge JOBID";
# the comparison lands in SHARED_DIR/compare-JOBID.{txt,json,html}. SHARED_DIR must be on a
# file system every node and the merge job see. $PESBENCH is passed on to the jobs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nodes=${1:?usage: submit.sh NODES SHARED_DIR [sbatch options...] [-- RUN ARGS...]}
shared=${2:?usage: submit.sh NODES SHARED_DIR [sbatch options...] [-- RUN ARGS...]}
shift 2
sbatch_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	sbatch_opts+=("$1")
	shift
done
[ "${1:-}" = "--" ] && shift
case $nodes in ''|*[!0-9]*|0) echo "submit.sh: NODES must be a positive number, not '$nodes'" >&2; exit 2 ;; esac
mkdir -p "$shared"
shared=$(cd "$shared" && pwd)
array=$(sbatch --parsable --export=ALL --array=0-$((nodes - 1)) --chdir="$shared" \
	"${sbatch_opts[@]}" "$here/pesbench-array.sbatch" "$shared" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --dependency=afterany:"$array" --chdir="$shared" \
	"${sbatch_opts[@]}" "$here/pesbench-merge.sbatch" "$shared" "$array")
merge=${merge%%;*}
echo "array $array"
echo "merge $merge"
