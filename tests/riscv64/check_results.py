#!/usr/bin/env python3
"""Host-side checks of what pesbench and tests/riscv64/pmu_probe.c measured in the riscv64
guest (tests/riscv64/guest-cmds) on Linux's riscv_pmu_sbi driver under qemu-system-riscv64
-icount shift=0 (cycles == instructions, exact). pmu_probe says which emulator defects are
present; pesbench must then report each of them itself: a defect present and not reported is a
failure, as is a result that is missing (never a skip).
Usage: check_results.py RESULTS_DIR   (exit 0 when every check passed)"""
import json
import os
import re
import sys

results = sys.argv[1]
checks = failures = 0


def check(what, ok, detail=""):
    global checks, failures
    checks += 1
    failures += not ok
    print(f"  {'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}")
    return ok


def text(name):
    path = os.path.join(results, name)
    return open(path, errors="replace").read() if os.path.exists(path) else None


def load(name):
    """NAME/results.json, NAME.out or NAME.json as JSON, or None (a failed check)."""
    for path in (os.path.join(results, name, "results.json"), os.path.join(results, name + ".out"),
                 os.path.join(results, name.replace("_json", ".json"))):
        if os.path.exists(path):
            try:
                return json.load(open(path))
            except ValueError as e:
                check(f"{name}: JSON", False, f"{path}: {e}")
                return None
    rc = text(name + ".rc")
    check(f"{name}: result present", False, f"exit {rc.strip()}" if rc else "did not run")
    return None


def events(doc, experiment=None):
    for point in (doc or {}).get("points", []):
        if experiment and point.get("experiment") != experiment:
            continue
        for run in point.get("runs", []):
            for ev in run.get("events", []):
                yield point, run, ev


print(f"check-riscv64 results in {results}")

# --- the driver as pmu_probe sees it: which defects are present here
probe_raw = load("pmu_probe_json") or {}
check("pmu_probe: every measurement made", probe_raw.get("complete") is True,
      (text("pmu_probe.out") or "")[-300:])
check("pmu_probe: the hart has Sscofpmf", probe_raw.get("sscofpmf") is True, probe_raw.get("isa", ""))
counting = probe_raw.get("counting", {})
for name in ("instructions", "cycles"):
    c = counting.get(name, {})
    check(f"pmu_probe: {name} counted exactly: c(2N) - c(N) == 4N (least of 9 pairs)",
          c.get("difference") == 4 * counting.get("iterations", -1),
          f"{c.get('difference')} for 4N = {4 * counting.get('iterations', 0)}")
group = counting.get("group", {})
# Not judged: in one group the second counter starts and stops in SBI calls of its own, whose
# M-mode instructions the first one counts (a constant ~2.9 k here).
print(f"  info: one group: cycles {group.get('cycles')}, instructions {group.get('instructions')}")
starved = probe_raw.get("starved", {})
alone, after = starved.get("alone", {}), starved.get("after_counting", {})
starved_present = after.get("expected", 0) > 0 and after.get("samples", 0) < after["expected"] // 2
check("pmu_probe: a sampling event alone gets floor(count/P) samples",
      alone.get("expected", 0) > 0 and alone.get("samples") == alone.get("expected"),
      f"{alone.get('samples')} of {alone.get('expected')}")
silent = probe_raw.get("silent", {})
silent_present = silent.get("zero_full_running", 0) > 0
mode_raw = probe_raw.get("mode", {})
filter_ignored = mode_raw.get("kernel_ips", 0) > 0
print(f"  defects present: starved after counting {starved_present} "
      f"({after.get('samples')} of {after.get('expected')} samples); silent zeros {silent_present} "
      f"({silent.get('zero_full_running')} of 8 events); privilege filter ignored {filter_ignored} "
      f"({mode_raw.get('kernel_ips')} of {mode_raw.get('samples')} exclude_kernel samples in the kernel)")

# --- probe: the ISA string, Sscofpmf, the SBI PMU, hw works, bp/pebs/ibs/spe absent with reasons
probe = load("probe")
if probe:
    m = probe.get("machine", {})
    check("probe: RISC-V with its ISA string", m.get("riscv") is True and
          m.get("riscv_isa", "").startswith("rv64"), m.get("riscv_isa", ""))
    check("probe: Sscofpmf read from the ISA string", m.get("riscv_sscofpmf") is True)
    check("probe: core PMU cpu, counters from the riscv-pmu-sbi log line",
          m.get("core_pmu") == "cpu" and m.get("pmu_counters", 0) > 0 and m.get("riscv_fw_counters", 0) > 0,
          f"core {m.get('core_pmu')}, {m.get('pmu_counters')} hardware, {m.get('riscv_fw_counters')} firmware counters")
    fac = {f["name"]: f for f in probe.get("facilities", [])}
    hw = fac.get("hw", {})
    st = hw.get("self_test") or {}
    check("probe: hw available, self-test works", hw.get("available") and hw.get("verdict") == "works",
          f"{hw.get('verdict')}: {st.get('text')}")
    # The defect is intermittent under emulation: pmu_probe's one trial and the self-test's
    # one trial can differ. So: seen by pmu_probe => named by the self-test; and named => the
    # self-test's own evidence shows it (its first sampling test starved, below half its due,
    # an identical second one not), whatever pmu_probe's trial saw.
    st_text = st.get("text", "")
    named = "STARVED" in st_text
    ev = re.search(r"STARVED after counting: the first sampling test right after the counting "
                   r"one got (\d+) samples, an identical second (\d+) \((\d+) due\)", st_text)
    first, second, due = (int(g) for g in ev.groups()) if ev else (None, None, None)
    evidence = ev is not None and due > 0 and first < due // 2 and second >= due // 2
    check("probe: the starved sampling event named by hw's self-test when pmu_probe sees it, "
          "and named only with its own evidence",
          (named or not starved_present) and (not named or evidence),
          f"pmu_probe says present={starved_present}; self-test: {st_text}")
    up = fac.get("uprobe", {})
    check("probe: uprobe works", up.get("verdict") == "works", str(up.get("self_test")))
    bp = fac.get("bp", {})
    check("probe: bp absent, saying RISC-V has no breakpoint PMU",
          not bp.get("available") and "RISC-V" in bp.get("reason", ""), bp.get("reason", ""))
    for prefix in ("pebs", "ibs", "spe"):
        fs = [f for n, f in fac.items() if n.startswith(prefix)]
        check(f"probe: {prefix} absent with a reason",
              fs and all(not f.get("available") and f.get("reason") for f in fs))

# --- sampling accuracy: samples == floor(count / period) at >= 3 periods, both events
for name in ("cycles", "instructions"):
    doc = load(name)
    exact, skids = set(), set()
    for point, run, ev in events(doc):
        if ev.get("facility") != f"hw:{name}" or not ev.get("period"):
            continue
        p = ev["period"]
        want = ev["count"] // p
        tag = f"{point['experiment']} P={p}"
        if ev.get("no_samples"):
            check(f"{name} {tag}: a run without samples is flagged, never a 0 % accuracy",
                  ev.get("accuracy") is None, f"accuracy {ev.get('accuracy')}")
            continue
        if ev.get("multiplexed"):
            # descheduled and rescheduled: its period restarts around each switch, so the
            # samples need not be floor(count/period); what must be there is the ratio
            check(f"{name} {tag}: multiplexed, its running ratio reported",
                  0 < ev.get("running_ratio", 0) < 1,
                  f"running_ratio {ev.get('running_ratio')}, samples {ev['observed']} of "
                  f"floor(count/period) {want}")
            continue
        # The privilege filter is ignored here (the mode experiment shows it), so the count goes
        # on through the kernel's disable path after the workload: a boundary crossed in that
        # tail (count mod period below the most events a counter ran past an overflow before
        # its sample, the skid's max) has no sample to give. Such a run is one short, said so.
        sk = ev.get("skid") or {}
        tail = ev["count"] % p
        in_tail = ev["observed"] == want - 1 and sk.get("max") is not None and tail < sk["max"]
        ok = (ev["observed"] == want or in_tail) and ev["lost"] == 0
        check(f"{name} {tag}: samples == floor(count/period)"
              + (" but for a boundary in the kernel's tail" if in_tail else ""), ok,
              f"observed {ev['observed']}, floor({ev['count']}/{p}) = {want}, lost {ev['lost']}, "
              f"count mod period {tail}, skid max {sk.get('max')}")
        if ok and want >= 1:
            exact.add(p)
        if sk.get("samples"):
            skids.add((sk.get("median"), sk.get("max")))
        if name == "cycles" and point["experiment"] == "interval":
            acc = ev.get("accuracy")
            check(f"cycles {tag}: accuracy 100.000 %", acc is not None and f"{acc:.3f}" == "100.000",
                  f"{acc} (basis {ev.get('basis')})")
    check(f"{name}: samples == floor(count/period) at >= 3 periods", len(exact) >= 3, f"periods {sorted(exact)}")
    # Under icount the overflow is taken before the next instruction; the counter then keeps
    # counting the kernel's own interrupt path (the privilege filter is ignored) until it is
    # read: a constant number of events at the median of every point; more when the overflow
    # falls inside a kernel section with interrupts off (a timer tick's).
    medians = {m for m, _ in skids}
    check(f"{name}: skid median one value at every unmultiplexed point",
          len(medians) == 1, f"(median, max) per point: {sorted(skids, key=str)}")
    print(f"  info: {name}: skid median {sorted(medians, key=str)} events, max "
          f"{max((x for _, x in skids), default=None)}")

# --- the silent zero: pesbench flags it as a loss while present
multi = load("multi")
if multi:
    flagged = [ev for _, _, ev in events(multi) if ev.get("silent_zero")]
    zero_full = [ev for _, _, ev in events(multi) if ev.get("opened") and ev.get("count") == 0 and
                 ev.get("time_enabled", 0) > 0 and ev.get("time_running") == ev.get("time_enabled")]
    check("multi: every counter that read 0 over its whole running time is flagged silent_zero",
          len(flagged) == len(zero_full), f"{len(flagged)} flagged of {len(zero_full)}")
    check("multi: pesbench reports silent zeros while pmu_probe sees them",
          (len(flagged) > 0) == silent_present, f"flagged {len(flagged)}, present {silent_present}")
    for point in multi.get("points", []):
        m = point.get("metrics", {})
        if any(ev.get("silent_zero") for r in point.get("runs", []) for ev in r.get("events", [])):
            check(f"multi k={point.get('events_opened_together')}: silent_zero_runs in the metrics",
                  any(v.get("silent_zero_runs", 0) > 0 for k, v in m.items() if k.startswith("event")))
    for ev in flagged[:1]:
        check("multi: a silent zero carries no accuracy and says why",
              ev.get("accuracy") is None and "a loss" in ev.get("silent_zero_note", ""))

# --- the ignored privilege filter: wrong-level samples in the mode experiment
mode = load("mode")
if mode:
    wrong = [(ev.get("kernel_ip_samples", 0), ev.get("observed", 0)) for _, _, ev in events(mode)
             if ev.get("facility") == "hw:instructions"]
    check("mode: kernel-IP samples on the exclude_kernel hw:instructions event while the filter is ignored",
          wrong and (any(k > 0 for k, _ in wrong)) == filter_ignored, f"(kernel IP, samples) per run: {wrong}")

# --- verify: the oracles that work here pass; the absent variants are named
rc = (text("verify.rc") or "").strip()
out = text("verify.out") or ""
check("verify (uprobe, faults; no callgrind in the guest, hw below): exit 0", rc == "0",
      f"exit {rc}: {(text('verify.err') or '')[-300:]}")
check("verify: the RV64-less variants named, not failed",
      "not verified: bias:variant=miss" in out and "not verified: shadow:kind=misses" in out)
uprobe_rows = [l for l in out.splitlines() if re.search(r"\suprobe\s", l)]
check("verify: uprobe rows for every workload", all(
    any(l.startswith(w) for l in uprobe_rows) for w in
    ("accuracy", "bias", "mix", "mode", "shadow", "latency-biased", "call-chain", "busy")),
      f"{len(uprobe_rows)} rows")
# hw:instructions as an oracle counts the kernel's instructions too here: the mode workloads'
# system calls make its user-mode count wrong, which verify reports
hw_out = text("verify_hw.out") or ""
mode_rows = [l for l in hw_out.splitlines() if l.startswith("mode") and "hw:instructions" in l]
check("verify_hw: the mode workloads' user-mode counts mismatch while the filter is ignored",
      mode_rows and all(("MISMATCH" in l) == filter_ignored for l in mode_rows),
      f"{len(mode_rows)} rows: " + "; ".join(re.sub(r"\s{2,}", " ", l)[:110] for l in mode_rows[:3]))
busy_rows = [l for l in hw_out.splitlines() if l.startswith("busy") and "hw:instructions" in l]
check("verify_hw: busy (no system call) exact", busy_rows and all(" ok" in l for l in busy_rows),
      "; ".join(re.sub(r"\s{2,}", " ", l) for l in busy_rows))

# --- bad input on riscv64
for name, pattern in (("bad_bp", "RISC-V"), ("bad_pebs", "PEBS"), ("bad_spe", "arm_spe"),
                      ("bad_miss", "Zicbom")):
    rc, err = (text(name + ".rc") or "").strip(), text(name + ".err") or ""
    check(f"{name}: exit 3 naming why", rc == "3" and pattern in err, f"exit {rc}: {err[:200]}")

print(f"check-riscv64 host checks: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
