#!/bin/bash
# contrib/ansible/pesbench.yml as a fleet operator runs it, on this machine as its inventory
# (`ansible-playbook -i localhost, -c local`, Debian's ansible-core installed by
# scripts/install-deps.sh --fleet): two short runs on the one host, fetched and merged on the
# controller. Checks the merged comparison names each run and its host and equals comparing
# the fetched folders themselves. Exit 77 only when the packages cannot be installed.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
src=${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); if ! eval "$1"; then fail "$2"; fi; }

if ! bash "$src/scripts/install-deps.sh" --fleet >/dev/null 2>"${TMPDIR:-/tmp}/pb-fleet-install.err"; then
	echo "SKIP: cannot install ansible-core: $(tail -3 "${TMPDIR:-/tmp}/pb-fleet-install.err")"
	exit 77
fi
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
check "[ \$(grep -c \"^    [A-Z] *$host,\" '$work/fleet/compare.txt') = 2 ]" \
	"the merged text names both runs' host ($host)"
"$PB_BIN" compare "${runs[@]}" --json >"$work/folders.json" 2>&1
check "python3 - '$work/folders.json' '$work/fleet/compare.json' <<'PY'
import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:3]]
for d in docs:
    for r in d['runs']:
        r.pop('source', None)
sys.exit(0 if docs[0] == docs[1] and len(docs[0]['runs']) == 2 and docs[0]['tables'] else 1)
PY" "the merged comparison matches comparing the fetched folders"
check "[ ! -s '$work/fleet/incomplete.txt' ]" "no run incomplete"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
