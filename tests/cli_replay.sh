#!/bin/bash
# `pesbench replay` on every checked-in bundle (tests/captures/*): each must recompute exactly
# what its capture stored, on whatever machine runs this, so a change to a decoder, to the
# attribution or to the accuracy computation that moves a captured result fails here. Then
# replay's answers to changed and damaged bundles, and a fresh capture of this machine.
set -u
: "${PB_SOURCE_DIR:?PB_SOURCE_DIR must name the source tree}"
source "$PB_SOURCE_DIR/tests/lib/cli.sh"
CAPTURES="$PB_SOURCE_DIR/tests/captures"

nbundles=0
for bundle in "$CAPTURES"/*/; do
	[ -f "$bundle/bundle.json" ] || continue
	nbundles=$((nbundles + 1))
	name=$(basename "$bundle")
	expect_exit 0 "replay of the checked-in bundle $name" "$PB_BIN" replay "$bundle"
	check 'grep -q "^replay: all [0-9]* points, [0-9]* self-test runs and the probe identical" "$work/out"' \
		"replay $name: $(grep -m3 -E 'DIFFERS|^    ' "$work/out")"
	check '! grep -q DIFFERS "$work/out"' "replay $name printed a difference"
done
check '[ "$nbundles" -ge 2 ]' "tests/captures holds $nbundles bundles; the x86 VM's and the arm64 guest's are expected"

# A copy of the x86 bundle whose stored results are changed stands for a computation that
# changed since the capture: replay names the field and exits 5.
x86="$CAPTURES/x86-vm"
if [ -f "$x86/bundle.json" ]; then
	cp -r "$x86" "$work/changed"
	python3 - "$work/changed/bundle.json" <<'EOF'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
point = next(p for p in doc["points"] if p["name"].startswith("accuracy-"))
point["results"]["events"][0]["observed"] += 1
json.dump(doc, open(path, "w"))
EOF
	expect_exit 5 "replay of a bundle whose stored figure was changed" "$PB_BIN" replay "$work/changed"
	check 'grep -q "DIFFERS" "$work/out" && grep -q "results.events\[0\].observed:" "$work/out"' \
		"replay names the changed figure: $(head -c 400 "$work/out")"

	# A self-test run's stored count that no longer matches its records.
	cp -r "$x86" "$work/selftest"
	python3 - "$work/selftest/bundle.json" <<'EOF'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
doc["self_test_runs"][0]["samples_inside"] += 1
json.dump(doc, open(path, "w"))
EOF
	expect_exit 5 "replay of a bundle whose self-test count was changed" "$PB_BIN" replay "$work/selftest"
	check 'grep -q "self-test .* DIFFERS" "$work/out" && grep -q "inside the loop: " "$work/out"' \
		"replay names the self-test run that differs: $(head -c 400 "$work/out")"

	# A changed record (one sample's IP moved by one byte) changes what it decodes to.
	cp -r "$x86" "$work/record"
	python3 - "$work/record" <<'EOF'
import json, struct, sys
root = sys.argv[1]
doc = json.load(open(root + "/bundle.json"))
point = next(p for p in doc["points"] if p["name"].startswith("bias-"))
path = root + "/" + point["events"][0]["threads"][0]["file"]
data = bytearray(open(path, "rb").read())
data_offset, data_size = struct.unpack_from("<QQ", data, 40)
pos = data_offset
while pos < data_offset + data_size:
    rtype, misc, size = struct.unpack_from("<IHH", data, pos)
    if rtype == 9:  # PERF_RECORD_SAMPLE: with PERF_SAMPLE_IP first, the IP follows the header
        ip, = struct.unpack_from("<Q", data, pos + 8)
        struct.pack_into("<Q", data, pos + 8, ip + 1)
        break
    pos += size
open(path, "wb").write(bytes(data))
EOF
	expect_exit 5 "replay of a bundle with one sample's IP moved" "$PB_BIN" replay "$work/record"
	check 'grep -q "results.attribution" "$work/out"' \
		"replay names the attribution that moved: $(head -c 400 "$work/out")"

	# Damaged bundles: outside bytes, refused with the file and field named, exit 6.
	cp -r "$x86" "$work/bad"
	printf '{"schema": "pesbench-capture/1", "points": 3' >"$work/bad/bundle.json"
	expect_exit 6 "replay of a bundle.json cut short" "$PB_BIN" replay "$work/bad"
	check 'grep -q "not JSON" "$work/err"' "cut bundle.json: $(cat "$work/err")"

	cp -r "$x86" "$work/escape"
	sed -i 's|"points/accuracy-sw.t0.e0.perf.data"|"points/../../../etc/passwd"|' "$work/escape/bundle.json"
	expect_exit 6 "replay of a bundle naming a file outside it" "$PB_BIN" replay "$work/escape"
	check 'grep -q "names a file outside the bundle" "$work/err"' "path outside the bundle: $(cat "$work/err")"

	cp -r "$x86" "$work/missing"
	rm "$work/missing/points/accuracy-sw.t0.e0.perf.data"
	expect_exit 6 "replay of a bundle missing a perf.data" "$PB_BIN" replay "$work/missing"
	check 'grep -q "accuracy-sw.t0.e0.perf.data" "$work/err"' "missing perf.data named: $(cat "$work/err")"

	cp -r "$x86" "$work/truncated"
	f="$work/truncated/points/accuracy-sw.t0.e0.perf.data"
	head -c 200 "$f" >"$f.cut" && mv "$f.cut" "$f"
	expect_exit 6 "replay of a bundle with a truncated perf.data" "$PB_BIN" replay "$work/truncated"

	cp -r "$x86" "$work/schema"
	sed -i 's|"pesbench-capture/1"|"pesbench-capture/9"|' "$work/schema/bundle.json"
	expect_exit 6 "replay of a bundle of another schema" "$PB_BIN" replay "$work/schema"
	check 'grep -q "pesbench-capture/9" "$work/err"' "schema named: $(cat "$work/err")"
fi
expect_exit 6 "replay of a folder without a bundle" "$PB_BIN" replay "$work"
expect_exit 2 "replay without DIR" "$PB_BIN" replay

# A fresh capture of this machine's software events replays identically, and capture never
# writes into a folder that holds something.
# The host name it must leave out is a distinctive one where a UTS namespace can give it (a
# short real name such as "vm" also turns up as a word in a perf.data's bytes); else the real
# name, looked for in the text files only.
uniq_host=pbhost-$$-$RANDOM
if unshare --uts sh -c "hostname $uniq_host" 2>/dev/null; then
	expect_exit 0 "capture of sw on this machine" unshare --uts sh -c \
		'hostname "$1" && shift && exec "$@"' sh "$uniq_host" \
		"$PB_BIN" capture --quiet --facility sw "$work/fresh"
	host_grep=(grep -rqF "$uniq_host" "$work/fresh")
else
	expect_exit 0 "capture of sw on this machine" "$PB_BIN" capture --quiet --facility sw "$work/fresh"
	host_grep=(grep -rIqwF "$(hostname)" "$work/fresh")
fi
check '[ -f "$work/fresh/bundle.json" ] && [ -d "$work/fresh/machine/proc" ]' "capture wrote no bundle"
check '! "${host_grep[@]}"' "the bundle holds this machine's host name ($(printf '%q ' "${host_grep[@]}"))"
expect_exit 0 "replay of a fresh capture" "$PB_BIN" replay "$work/fresh"
expect_exit 2 "capture into a non-empty folder" "$PB_BIN" capture --facility sw "$work/fresh"
check 'grep -q "is not empty" "$work/err"' "non-empty DIR: $(cat "$work/err")"
expect_exit 2 "capture of an unknown facility" "$PB_BIN" capture --facility frob "$work/frob"
check 'grep -q "unknown facility .frob.; known: timer, sw" "$work/err"' \
	"an unknown facility is named with the registry's names: $(cat "$work/err")"
expect_exit 2 "capture of a near facility name" "$PB_BIN" capture --facility ibs "$work/ibs"
check 'grep -q "did you mean ibs-op or ibs-fetch" "$work/err"' "a near name: $(cat "$work/err")"

echo "cli_replay: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
