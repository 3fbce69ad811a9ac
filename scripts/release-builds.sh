#!/usr/bin/env bash
# The builds a user runs: Release and Debug, with gcc and with clang, warnings as errors (our
# own setting; a user's plain build only warns). Only the library and the pesbench binary, to
# keep `make check` short; the tests' sources are checked by clang without being built (every
# other build of `make check` is gcc's, or leaves the tests out: a clang -Wsign-compare error sat
# in test_cost.c unseen until 2026-11-28).
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
for cc in gcc clang; do
	command -v "$cc" >/dev/null || { echo "release-builds: $cc is not installed" >&2; rc=1; continue; }
	for type in Release Debug; do
		dir=build-$type-$cc
		mkdir -p "$dir"
		if CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DPB_WERROR=ON \
			-DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$dir/build.log" 2>&1 &&
			cmake --build "$dir" -j "${JOBS:-$(nproc)}" --target pesbench >>"$dir/build.log" 2>&1; then
			echo "release-builds: $type with $cc: ok"
		else
			echo "release-builds: $type with $cc FAILED:" >&2
			grep -E "error|warning" "$dir/build.log" | head -20 >&2
			rc=1
		fi
	done
done
# every test source through clang -fsyntax-only with its build's own flags (about 9 s)
if [ -f build-Debug-clang/compile_commands.json ]; then
	python3 - build-Debug-clang/compile_commands.json "${JOBS:-$(nproc)}" <<'PY' || rc=1
import concurrent.futures, json, shlex, subprocess, sys
entries = [e for e in json.load(open(sys.argv[1])) if "/tests/" in e["file"]]
def check(entry):
    args = shlex.split(entry["command"])
    out = args.index("-o")
    del args[out:out + 2]
    done = subprocess.run(args[:1] + ["-fsyntax-only"] + args[1:], cwd=entry["directory"],
                          capture_output=True, text=True)
    return entry["file"], done.returncode, done.stderr
with concurrent.futures.ThreadPoolExecutor(int(sys.argv[2])) as pool:
    bad = [r for r in pool.map(check, entries) if r[1]]
for path, _, err in bad:
    print(f"release-builds: {path} fails clang's check:\n{err[:1500]}", file=sys.stderr)
print(f"release-builds: {len(entries)} test sources checked by clang: "
      + (f"{len(bad)} FAILED" if bad else "ok"))
sys.exit(1 if bad or not entries else 0)
PY
fi
exit $rc
