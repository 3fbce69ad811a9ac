#!/bin/bash
# contrib/ansible/pesbench.yml as a fleet operator runs it, on this machine as its inventory
# (`ansible-playbook -i localhost, -c local`, Debian's ansible-core installed by
# scripts/install-deps.sh --fleet): two short runs on the one host, fetched and merged on the
# controller. Checks the merged comparison names each run and its host and equals comparing
# the fetched folders themselves. Exit 77 only when the packages cannot be installed.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
. "$(dirname "$0")/lib.sh"

fleet_install "ansible-core"
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook missing after install"; exit 77; }
work=$(mktemp -d /tmp/pb-ansible.XXXXXX)
trap 'rm -rf "$work"' EXIT
export ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ANSIBLE_REMOTE_TEMP=$work/ansible-tmp \
	ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0

started=$(date +%s)
ansible-playbook -i localhost, -c local "$src/contrib/ansible/pesbench.yml" \
	-e pesbench_binary="$PB_BIN" -e pesbench_remote_dir="$work/remote" \
	-e pesbench_fetch_dir="$work/fleet" -e pesbench_repeats=2 \
	-e 'pesbench_run_args="accuracy bias --facility timer --runs 2 --threads 1 --target-ms 10"' \
	>"$work/playbook.out" 2>&1
rc=$?
echo "ansible: playbook exit $rc in $(( $(date +%s) - started )) s"
check "[ $rc = 0 ]" "the playbook succeeded: $(tail -30 "$work/playbook.out")"
check "grep -q 'failed=0' '$work/playbook.out'" "no task failed"

runs=("$work"/fleet/localhost-*-0 "$work"/fleet/localhost-*-1)
for r in "${runs[@]}"; do
	check "tail -1 '$r/results.jsonl' 2>/dev/null | grep -q '\"record\":\"done\".*\"exit_code\":0'" \
		"run $(basename "$r") fetched with its done record"
done
check "[ -s '$work/fleet/compare.txt' ] && [ -s '$work/fleet/compare.json' ] && [ -s '$work/fleet/compare.html' ]" \
	"the controller wrote the comparison as text, JSON and HTML"
host=$(hostname)
check "[ \$(grep -cF \"  $host, kernel\" '$work/fleet/compare.txt') = 2 ]" \
	"the merged text names both runs' host ($host)"
"$PB_BIN" compare "${runs[@]}" --json >"$work/folders.json" 2>&1
check "python3 '$src/tests/fleet/same_comparison.py' '$work/folders.json' '$work/fleet/compare.json' 2" \
	"the merged comparison matches comparing the fetched folders"
check "[ ! -s '$work/fleet/incomplete.txt' ]" "no run incomplete"

fleet_verdict
