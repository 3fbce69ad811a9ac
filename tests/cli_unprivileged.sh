#!/bin/bash
# pesbench as an ordinary user at perf_event_paranoid 2 (the default of most distributions):
# a real non-root account (pesbench-test, created if absent) runs a copy of the binary with
# `runuser`. Checks the documented behaviour: probe says timer, sw and bp are available and
# uprobe is not (CAP_SYS_ADMIN); the suite runs on bp:w and timer:cpu-clock with results;
# sw:page-faults counts the user-mode faults of mode:kernel=touch; a kernel-level request and
# a uprobe are refused with exit 3 and the rule that refused them. Needs root to create the
# user and set paranoid (restored on exit); skips (77) otherwise.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"
user=pesbench-test
paranoid_file=/proc/sys/kernel/perf_event_paranoid

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: not root: this test creates the user $user and sets perf_event_paranoid"
	exit 77
fi
for tool in runuser useradd python3; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
if ! id "$user" >/dev/null 2>&1; then
	useradd -M -s /bin/bash "$user" || { echo "FAIL: cannot create user $user" >&2; exit 1; }
fi

failures=0
checks=0
work=$(mktemp -d)
chmod 755 "$work"
old_paranoid=$(cat "$paranoid_file" 2>/dev/null || echo "")
restore() {
	if [ -n "$old_paranoid" ] && [ "$(cat "$paranoid_file")" != "$old_paranoid" ]; then
		echo "$old_paranoid" >"$paranoid_file"
	fi
	rm -rf "$work"
}
trap restore EXIT
trap 'exit 130' INT TERM

if [ "$old_paranoid" != 2 ]; then
	echo 2 >"$paranoid_file" 2>/dev/null ||
		{ echo "SKIP: cannot set perf_event_paranoid to 2 (read-only /proc/sys?)"; exit 77; }
fi

# The build folder may be under /root, which the user cannot enter: run a copy.
cp "$PB_BIN" "$work/pesbench"
chmod 755 "$work/pesbench"
out="$work/out"
source "${PB_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib/verdict.sh"
# Breakpoints may be inert here (a VM kind, or the test-only injection): root's self-test says.
bp_verdict=$(facility_verdict bp)
ex=bp:w
[ "$bp_verdict" = works ] || ex=sw:page-faults
mkdir "$out"
chown "$user" "$out"

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); if ! eval "$1"; then fail "$2"; fi; }
# as_user CODE DESCRIPTION ARGS...: pesbench ARGS as the user, from a folder it may read;
# stdout in $work/stdout, stderr in $work/stderr.
as_user() {
	local want=$1 what=$2
	shift 2
	(cd "$out" && runuser -u "$user" -- "$work/pesbench" "$@") >"$work/stdout" 2>"$work/stderr"
	local got=$?
	checks=$((checks + 1))
	[ "$got" = "$want" ] ||
		fail "$what: exit $got, expected $want ($(head -c 400 "$work/stderr"))"
}

check "[ \"\$(runuser -u $user -- id -u)\" != 0 ]" "$user is not root"

# --- probe: what works and what needs what ---
as_user 0 "probe --json as $user" probe --json
check "python3 - '$work/stdout' <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
m = d['machine']
assert m['is_root'] is False and m['paranoid'] == 2, m
f = {x['name']: x for x in d['facilities']}
for name in ('timer', 'sw'):
    assert f[name]['available'], (name, f[name]['reason'])
# breakpoints are available exactly where their self-test passes (root's probe says whether)
assert f['bp']['verdict'] == '$bp_verdict', (f['bp'], '$bp_verdict')
assert f['bp']['available'] == ('$bp_verdict' == 'works'), f['bp']
assert not f['uprobe']['available']
assert 'CAP_SYS_ADMIN' in f['uprobe']['reason'], f['uprobe']['reason']
EOF" "probe as $user: timer/sw/bp available, uprobe unavailable for want of CAP_SYS_ADMIN"
as_user 0 "probe (text) as $user" probe
check "grep -q 'uprobe.*CAP_SYS_ADMIN' '$work/stdout'" "the text probe gives the uprobe reason"

# --- the suite on what works: results with accuracy figures ---
for facility in $ex timer:cpu-clock; do
	dir="$out/run-${facility%%:*}"
	as_user 0 "run accuracy --facility $facility" run accuracy --facility "$facility" \
		--runs 1 --threads 1 --target-ms 20 --quiet --out "$dir"
	check "python3 - '$dir/results.json' '$facility' <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['complete'] is True and d['schema'] == 'pesbench-results/2'
pts = [p for p in d['points'] if p['facility'] == sys.argv[2] and 'error' not in p]
assert pts, 'no points for ' + sys.argv[2]
events = [r['events'][0] for p in pts for r in p['runs']]
# an accuracy, or none with the reason said (a run calibrated too short: kind B, 2026-11-28,
# once in six runs, '3.0 expected, an accuracy needs 10'; mostly a thread waiting for its CPU,
# which calibration now leaves out, but a vCPU pause the guest cannot see still counts)
assert all(ev['opened'] for ev in events), events
assert all(0 <= ev['accuracy'] <= 100 if ev['accuracy'] is not None
           else ev['too_few_samples'] and ev['accuracy_withheld'] for ev in events), events
assert any(ev['observed'] > 0 and (ev['accuracy'] or 0) > 0 for ev in events), events
EOF" "run accuracy --facility $facility as $user: points with samples and accuracy"
done

# --- sw:page-faults on user-mode faults: exact, at paranoid 2 ---
as_user 0 "measure sw:page-faults on mode:kernel=touch" measure --facility sw:page-faults \
	--workload mode:kernel=touch --iterations 20000 --json
check "python3 - '$work/stdout' <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['events'][0]
assert ev['count'] == 20000 and ev['declared_events'] == 20000, ev
assert ev['user_samples'] == 20000 and ev['kernel_samples'] == 0, ev
EOF" "sw:page-faults counts exactly one user-mode fault per iteration as $user"

# --- refusals: exit 3 with the rule ---
as_user 3 "kernel-level page faults (mode:kernel=fault)" measure --facility sw:page-faults \
	--workload mode:kernel=fault --iterations 1000
check "grep -q 'exclude_kernel=0' '$work/stderr' && grep -q 'perf_event_paranoid' '$work/stderr' \
	&& grep -q 'CAP_PERFMON' '$work/stderr' && grep -q '(it is 2)' '$work/stderr'" \
	"a kernel-level request names paranoid 2 and CAP_PERFMON ($(head -c 300 "$work/stderr"))"
as_user 3 "measure --facility uprobe" measure --facility uprobe --iterations 1000
check "grep -q 'CAP_SYS_ADMIN' '$work/stderr'" "a uprobe is refused for want of CAP_SYS_ADMIN"
as_user 3 "run --facility uprobe" run accuracy --facility uprobe --runs 1 --quiet \
	--out "$out/run-uprobe"
check "grep -q 'uprobe.*CAP_SYS_ADMIN' '$work/stderr'" "run skips uprobe with the reason"
check "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); \
assert d[\"skipped\"][0][\"facility\"]==\"uprobe\"' '$out/run-uprobe/results.json'" \
	"the skipped facility is recorded in results.json"

echo "$checks checks, $failures failures (as $user, perf_event_paranoid 2)"
[ "$failures" -eq 0 ]
