#!/bin/bash
# contrib/slurm on a real Slurm: installs Debian's slurm-wlm and munge (scripts/install-deps.sh
# --fleet), starts munged, slurmctld and slurmd on this machine as a one-node cluster whose
# configuration lives in a temporary folder (ports 16917/16918, nothing under /etc touched),
# submits a two-task array with a short experiment selection through contrib/slurm/submit.sh,
# waits for the merge job and checks the merged comparison: every task's run and host named,
# the same tables as comparing the task folders themselves, every task's done record. The
# daemons are stopped at the end whatever happens (trap). Exit 77 only when the packages
# cannot be installed.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
. "$(dirname "$0")/lib.sh"

fleet_install "slurm-wlm and munge"
for tool in munged slurmctld slurmd sbatch squeue scontrol; do
	command -v $tool >/dev/null || { echo "SKIP: $tool missing after install"; exit 77; }
done

work=$(mktemp -d /tmp/pb-slurm.XXXXXX)
chmod 700 "$work"
pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	if [ "$failures" -ne 0 ] || [ "${PB_KEEP:-}" = 1 ]; then
		echo "--- slurmctld log (tail)"; tail -20 "$work/slurmctld.log" 2>/dev/null
		echo "--- slurmd log (tail)"; tail -20 "$work/slurmd.log" 2>/dev/null
		echo "--- job output"; cat "$work"/shared/*.out 2>/dev/null | tail -30
	fi
	rm -rf "$work"
}
trap stop_all EXIT
trap 'exit 1' INT TERM

node=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/shared" "$work/munge"
chmod 700 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
sock=$work/munge/munge.sock
munged --foreground --force --socket="$sock" --key-file="$work/munge/munge.key" \
	--log-file="$work/munge/munged.log" --pid-file="$work/munge/munged.pid" \
	--seed-file="$work/munge/munged.seed" >"$work/munge/munged.out" 2>&1 &
pids+=($!)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
cat >"$work/slurm.conf" <<CONF
ClusterName=pbtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16917
SlurmdPort=16918
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
PlugStackConfig=$work/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=pb Nodes=$node Default=YES MaxTime=30 State=UP
CONF
: >"$work/plugstack.conf"
export SLURM_CONF=$work/slurm.conf
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
check "[ -S '$sock' ]" "munged started ($(tail -3 "$work/munge/munged.log" 2>/dev/null))"
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" >"$work/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 100); do
	if sinfo -h -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; then up=1; break; fi
	sleep 0.2
done
check "[ $up = 1 ]" "the node came up idle ($(sinfo -h 2>&1 | head -2))"
if [ $up != 1 ]; then
	cat "$work/slurmctld.out" "$work/slurmd.out" >&2
	echo "$checks checks, $failures failures"
	exit 1
fi

# --- submit: two tasks of a short selection, then the merge ---
export PESBENCH=$PB_BIN
started=$(date +%s)
bash "$src/contrib/slurm/submit.sh" 2 "$work/shared" --time=5 -- accuracy bias \
	--facility timer --runs 2 --threads 1 --target-ms 10 >"$work/submit.out" 2>&1
check "grep -q '^array [0-9]' '$work/submit.out' && grep -q '^merge [0-9]' '$work/submit.out'" \
	"submit.sh queued the array and the merge ($(cat "$work/submit.out"))"
array=$(sed -n 's/^array //p' "$work/submit.out")
merge=$(sed -n 's/^merge //p' "$work/submit.out")
for _ in $(seq 600); do
	[ -n "$merge" ] || break
	squeue -h -j "$merge" 2>/dev/null | grep -q . || break
	sleep 0.2
done
echo "slurm: array $array and merge $merge done in $(( $(date +%s) - started )) s"
state=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
check "[ '$state' = COMPLETED ]" "the merge job completed (state '$state')"

tasks=("$work/shared/$node-$array-0" "$work/shared/$node-$array-1")
for t in "${tasks[@]}"; do
	check "tail -1 '$t/results.jsonl' 2>/dev/null | grep -q '\"record\":\"done\".*\"exit_code\":0'" \
		"task $(basename "$t") wrote results and its done record"
done
merged="$work/shared/compare-$array.txt"
check "[ -s '$merged' ] && [ -s '$work/shared/compare-$array.json' ] && [ -s '$work/shared/compare-$array.html' ]" \
	"the merge wrote the comparison as text, JSON and HTML"
for t in "${tasks[@]}"; do
	id=$(sed -n '1s/.*"run_id":"\([^"]*\)".*/\1/p' "$t/results.jsonl")
	check "[ -n '$id' ] && grep -q '\"run_id\": \"$id\"' '$work/shared/compare-$array.json'" \
		"the merged comparison has task $(basename "$t")'s run ($id)"
done
host=$(hostname)   # as pesbench records it (gethostname), perhaps longer than the node name
check "[ \$(grep -cF \"  $host, kernel\" '$merged') = 2 ]" \
	"the merged text names each task's host ($host)"
# the merged comparison is the comparison of the task folders themselves
"$PB_BIN" compare "${tasks[@]}" --json >"$work/folders.json" 2>&1
check "python3 '$src/tests/fleet/same_comparison.py' '$work/folders.json' '$work/shared/compare-$array.json' 2" \
	"the merged comparison matches comparing the task folders"
check "[ ! -s '$work/shared/incomplete-$array.txt' ]" "no task left incomplete"

fleet_verdict
