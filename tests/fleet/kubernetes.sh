#!/bin/bash
# contrib/kubernetes/*.yaml against the Kubernetes API schema: the npm package kubernetes-models
# (each kind's OpenAPI schema, checked offline) and yaml, installed by this script into
# $PB_BUILD_DIR/fleet-npm at pinned versions. Also checks what the manifests promise: every
# pod privileged (perf_event_open), results on a hostPath, no host PID namespace, pesbench run
# with --quiet and stdin closed. Nothing is deployed: no cluster here. Exit 77 only when node
# or the npm packages cannot be installed.
set -u
. "$(dirname "$0")/lib.sh"
modules=${PB_BUILD_DIR:-$src/build}/fleet-npm

fleet_install "node and npm"
command -v npm >/dev/null || { echo "SKIP: npm missing after install"; exit 77; }
if [ ! -e "$modules/node_modules/kubernetes-models/package.json" ] ||
	[ ! -e "$modules/node_modules/yaml/package.json" ]; then
	mkdir -p "$modules"
	if ! (cd "$modules" && npm install --no-audit --no-fund --loglevel=error \
		kubernetes-models@5.1.0 yaml@2.9.1 >npm.log 2>&1); then
		echo "SKIP: npm could not install kubernetes-models and yaml: $(tail -3 "$modules/npm.log")"
		exit 77
	fi
fi
manifests=("$src"/contrib/kubernetes/*.yaml)
node "$src/tests/fleet/k8s-validate.mjs" "$modules" "${manifests[@]}" >"$modules/validate.out" 2>&1
rc=$?
cat "$modules/validate.out"
check "[ $rc = 0 ]" "every manifest is valid against the Kubernetes schema"
check "[ \$(grep -c ': valid$' '$modules/validate.out') -ge 3 ]" "the Namespace, the DaemonSet and the Job were checked"
# the validator itself rejects a broken manifest
sed 's/restartPolicy: Never/restartPolicy: Sometimes/' "$src/contrib/kubernetes/pesbench-job.yaml" >"$modules/broken.yaml"
check "! node '$src/tests/fleet/k8s-validate.mjs' '$modules' '$modules/broken.yaml' >/dev/null 2>&1" \
	"a Job with an invalid restartPolicy is refused"
for m in "$src"/contrib/kubernetes/pesbench-*.yaml; do
	check "grep -q 'privileged: true' '$m'" "$(basename "$m"): the pod is privileged"
	check "grep -q 'hostPID: false' '$m'" "$(basename "$m"): host PID not shared"
	check "grep -q 'hostPath' '$m'" "$(basename "$m"): results on the node"
	check "grep -q 'pesbench run --quiet' '$m' && grep -q '</dev/null' '$m'" \
		"$(basename "$m"): pesbench runs quiet with stdin closed"
done
fleet_verdict
