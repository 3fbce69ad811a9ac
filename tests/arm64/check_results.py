#!/usr/bin/env python3
"""Host-side checks of what pesbench measured in the arm64 guest (tests/arm64/guest-tests.sh)
on a real armv8_pmuv3 PMU driver under QEMU -icount shift=0, where cycles equal instructions
exactly. Each check states what issue 13 asks for; a result that is missing (the command did not
run, another branch's part is absent) is a failure, never a skip.
Usage: check_results.py RESULTS_DIR   (exit 0 when every check passed)"""
import json
import math
import os
import re
import subprocess
import sys

results = sys.argv[1]
checks = failures = 0


def check(what, ok, detail=""):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
    print(f"  {'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}")
    return ok


def load(name):
    """A command's JSON output (NAME.out) or results folder (NAME/results.json), or None."""
    for path in (os.path.join(results, name, "results.json"), os.path.join(results, name + ".out")):
        if os.path.exists(path):
            try:
                with open(path) as f:
                    return json.load(f)
            except ValueError as e:
                check(f"{name}: JSON output", False, f"{path}: {e}")
                return None
    rc = os.path.join(results, name + ".rc")
    why = f"exit {open(rc).read().strip()}" if os.path.exists(rc) else "the command did not run"
    check(f"{name}: result present", False, why)
    return None


def qemu_version():
    try:
        out = subprocess.run(["qemu-system-aarch64", "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version (\d+)\.(\d+)", out)
        return (int(m.group(1)), int(m.group(2))) if m else None
    except OSError:
        return None


def events(point):
    for run in point.get("runs", []):
        for e, ev in enumerate(run.get("events", [])):
            yield run, e, ev


print(f"check-arm64 results in {results}")
smoke = os.path.join(results, "pmu_smoke.out")
check("pmu_smoke: cycles == instructions on the guest PMU (icount)",
      os.path.exists(smoke) and "PASS" in open(smoke).read(),
      open(smoke).read().strip() if os.path.exists(smoke) else "did not run")

# The declared truth on arm64, as the cross-built pesbench states it.
def workload_key(w):
    """The workload as results name it: "accuracy:ratio=20,factor=4,seed=1"."""
    params = ",".join(f"{p['name']}={p['value']}" for p in w.get("params", []))
    return f"{w['name']}:{params}" if params else w["name"]


workloads = {}
for w in (load("workloads") or []) + (load("workloads_accuracy") or []):
    workloads[workload_key(w)] = w


def declared_instructions(run):
    name = run.get("workload", "")
    w = workloads.get(f"{name}:{run['params']}" if run.get("params") else name)
    if not w:
        return None
    return (run["iterations"] * w["per_iteration"]["instructions"] + w.get("once_instructions", 0)) \
        * run.get("threads", 1)


# --- probe: hw works on armv8_pmuv3 with 7 counters; pebs/ibs/spe absent with reasons
general_broken = None  # what probe's hw self-test says of general-purpose counter sampling
probe = load("probe")
if probe:
    m = probe.get("machine", {})
    pmus = [p.get("name", "") for p in m.get("pmus", [])]
    check("probe: an armv8_pmuv3 PMU", any(p.startswith("armv8_pmuv3") for p in pmus), f"pmus {pmus}")
    # riscv_* fields belong to RISC-V (its SBI firmware counters), 0 elsewhere
    counters = [v for k, v in m.items()
                if "counter" in k and isinstance(v, int) and not k.startswith("riscv_")]
    check("probe: 7 counters (6 general-purpose + the cycle counter)", counters == [7],
          f"machine fields naming counters: {[(k, v) for k, v in m.items() if 'counter' in k]}")
    fac = {f["name"]: f for f in probe.get("facilities", [])}
    hw = [f for n, f in fac.items() if n == "hw" or n.startswith("hw:")]
    check("probe: hw available, self-test passes",
          hw and all(f.get("available") and f.get("verdict") == "works" for f in hw),
          "; ".join(f"{f['name']}: {f.get('verdict')} {f.get('reason', '')}" for f in hw) or "no hw facility")
    for f in hw:
        st = f.get("self_test") or {}
        text = st.get("text", "")
        # issue 21: the count's offset measured, not tolerated: the loop counted at n and 2n
        # iterations differs by exactly its instructions, the rest a fixed offset >= 0
        cnt = re.search(r"instructions: (\d+) instructions, (\d+) counted, and (\d+), (\d+) counted: "
                        r"the loop exact, (\d+) more at the enable/disable boundaries", text)
        check("probe: hw self-test: the loop counted exactly at two lengths, the boundary offset measured",
              cnt is not None and int(cnt.group(4)) - int(cnt.group(2)) == int(cnt.group(3)) - int(cnt.group(1))
              and int(cnt.group(2)) - int(cnt.group(1)) == int(cnt.group(5)),
              text[:300])
        if cnt:
            print(f"  info: hw self-test boundary offset {cnt.group(5)} instructions "
                  f"(counts {cnt.group(2)} and {cnt.group(4)})")
        # issue 21: a verdict per kind of counter; the cycle counter samples under icount
        cyc = re.search(r"cycle counter sampled: (\d+) samples \((\d+) \+- \d+ due\), (\d+) inside", text)
        check("probe: hw self-test: the cycle counter samples the loop, every sample inside",
              cyc is not None and int(cyc.group(1)) > 0 and cyc.group(1) == cyc.group(3),
              text[:300])
        gen = re.search(r"general counters sampled( \(BROKEN[^)]*\))?: ([^;]*)", text)
        check("probe: hw self-test judges the general-purpose counters separately, with figures",
              gen is not None and re.search(r"\d+ samples", gen.group(2) or "") is not None,
              text[:400])
        if gen:
            general_broken = gen.group(1) is not None
            # a finding, not a requirement: QEMU may fix it (pass either way)
            print(f"  note finding: QEMU {qemu_version()}: general-counter sampling "
                  f"{'BROKEN' if general_broken else 'works'}: {gen.group(2)[:200]}")
        check("probe: hw self-test keeps every retry (attempts, earlier_attempts)",
              isinstance(st.get("attempts"), int) and st.get("attempts") >= 1 and
              (st.get("attempts") == 1) == (st.get("earlier_attempts") == ""),
              f"attempts {st.get('attempts')}, earlier {st.get('earlier_attempts')!r}")
    bp = fac.get("bp", {})
    check("probe: bp's ip column from the arm64 model (exact)", bp.get("ip") == "exact",
          f"ip {bp.get('ip')!r}")
    up = fac.get("uprobe", {})
    check("probe: uprobe's cost line is not x86's", "5-byte" not in up.get("detail", "") +
          up.get("reason", ""), up.get("detail") or up.get("reason"))
    for prefix in ("pebs", "ibs"):
        fs = [f for n, f in fac.items() if n.startswith(prefix)]
        check(f"probe: {prefix} absent with a reason",
              fs and all(not f.get("available") and f.get("reason") for f in fs),
              "; ".join(f"{f['name']}: {f.get('reason')!r}" for f in fs) or f"no {prefix} facility listed")
    spe = [f for n, f in fac.items() if n.startswith("spe")]
    check("probe: spe absent (\"no arm_spe PMU\")",
          spe and all(not f.get("available") and "no arm_spe" in f.get("reason", "") for f in spe),
          "; ".join(f"{f['name']}: {f.get('reason')!r}" for f in spe) or "no spe facility listed")

# --- accuracy and interval on hw:cycles: samples = floor(count / period), 100.000 %
cycles = load("cycles")
if cycles:
    periods = set()
    for point in cycles.get("points", []):
        if point.get("facility") != "hw:cycles":
            continue
        for run, e, ev in events(point):
            if ev.get("facility") != "hw:cycles":
                continue  # a companion counting event (the accuracy experiment's L1 misses)
            p = ev["period"]
            tag = f"{point['experiment']} P={p} {run.get('workload')}"
            check(f"cycles {tag}: the cycles event counted and sampled",
                  ev.get("count", 0) > 0 and ev.get("observed", 0) >= 1 and ev.get("opened"),
                  f"count {ev.get('count')}, samples {ev.get('observed')}, time_enabled "
                  f"{ev.get('time_enabled')}; other events of the run: "
                  f"{[(o.get('facility'), o.get('opened')) for o in run['events'] if o is not ev]}")
            want = ev["count"] // p if p else 0
            exact = ev["observed"] == want and ev["lost"] == 0
            check(f"cycles {tag}: samples == floor(count/period)", exact,
                  f"observed {ev['observed']}, floor({ev['count']}/{p}) = {want}, lost {ev['lost']}")
            acc = ev.get("accuracy")
            check(f"cycles {tag}: accuracy 100.000 %",
                  acc is not None and f"{acc:.3f}" == "100.000",
                  f"{acc if acc is None else f'{acc:.3f}'} % (basis {ev.get('basis')}, expected {ev.get('expected')})")
            decl = declared_instructions(run)
            if decl is not None:
                # cycles == instructions under icount: the count is the declared loop plus
                # the few instructions between enabling the counter and entering the loop
                check(f"cycles {tag}: count == declared instructions (+ < 0.01 % harness)",
                      decl <= ev["count"] <= decl * 1.0001 + 1000,
                      f"count {ev['count']}, declared {decl}")
            else:
                check(f"cycles {tag}: declared truth of {run.get('workload')}", False, "not in workloads --json")
            # Skid in events: each sample's count (PERF_SAMPLE_READ) less k x period. Under
            # icount the emulator raises the overflow interrupt before the next instruction.
            sk = ev.get("skid")
            check(f"cycles {tag}: skid 0 events at every sample (median and max)",
                  sk is not None and sk.get("unit") == "events" and
                  sk.get("samples") == ev["observed"] and ev["observed"] >= 1 and
                  sk.get("median") == 0 and sk.get("max") == 0 and sk.get("out_of_step") == 0,
                  f"skid {sk}" if sk is not None else "no skid figures in the result")
            if exact and ev["observed"] >= 1:
                periods.add(p)
    check("cycles: exact at >= 3 periods", len(periods) >= 3, f"periods {sorted(periods)}")

# --- multi: more events than counters, multiplexed, scaled counts within 0.5 %
multi = load("multi")
if multi:
    seen_over = False
    for point in multi.get("points", []):
        k = point.get("events_opened_together", 0)
        if k <= 7:
            continue
        seen_over = True
        check(f"multi k={k}: every event scheduled", point.get("events_scheduled") == k,
              f"{point.get('events_scheduled')} of {k}")
        for run, e, ev in events(point):
            ratio = ev["time_running"] / ev["time_enabled"] if ev["time_enabled"] else None
            check(f"multi k={k} event {e}: run/enabled < 1, reported",
                  ratio is not None and ratio < 1 and ev.get("multiplexed") is True and
                  abs(ev.get("running_ratio", 2) - ratio) < 1e-9,
                  f"running_ratio {ev.get('running_ratio')}")
            decl = declared_instructions(run)
            scaled = ev["count"] * ev["time_enabled"] / ev["time_running"] if ev["time_running"] else 0
            check(f"multi k={k} event {e}: scaled count within 0.5 % of the declared instructions",
                  decl is not None and abs(scaled - decl) <= 0.005 * decl,
                  f"scaled {scaled:.0f}, declared {decl}, "
                  f"{(scaled - decl) / decl * 100 if decl else float('nan'):+.3f} %")
    check("multi: a point with more events than the 7 counters", seen_over,
          f"k = {[p.get('events_opened_together') for p in multi.get('points', [])]}")


def measured(name):
    d = load(name)
    if not d:
        return None, None
    evs = d.get("events") or [{}]
    return d, evs[0]


# --- throttling at a short period: THROTTLE/UNTHROTTLE counted, every event accounted
d, ev = measured("throttle")
if d:
    check("throttle: THROTTLE and UNTHROTTLE records counted", ev.get("throttles", 0) > 0 and
          ev.get("unthrottles", 0) > 0, f"throttles {ev.get('throttles')}, unthrottles {ev.get('unthrottles')}")
    # A throttled event is stopped until the next tick: its count leaves out what ran
    # meanwhile, so declared = count + throttled, and samples + lost = floor(count / period)
    # up to one partial period per throttle.
    run = d
    decl = declared_instructions(run)
    p, c = ev.get("period", 0), ev.get("count", 0)
    taken = ev.get("observed", 0) + ev.get("lost", 0)
    if decl and p:
        throttled = (decl - c) / p
        check("throttle: samples + lost + throttled accounted for (declared / period)",
              throttled > 0 and abs(taken - c // p) <= ev.get("throttles", 0) + 1,
              f"samples {ev.get('observed')} + lost {ev.get('lost')} = {taken}, "
              f"not taken while throttled {throttled:.0f}, sum {taken + throttled:.0f} "
              f"of {decl / p:.0f} declared/period; floor(count/period) {c // p}")
    else:
        check("throttle: declared truth for the accounting", False, f"workload {run.get('workload')}")

# --- signal and sigtrap delivery: one signal per sample, to the sampled thread. Each run's
# self-test delivered signals the same way first (issue 21): a measured result means it passed.
for mode in ("signal", "sigtrap", "timer_signal", "sw_sigtrap"):
    d, ev = measured(mode)
    if d:
        check(f"{mode}: one signal per sample", ev.get("observed", 0) > 0 and
              ev.get("signals") == ev.get("observed") and ev.get("signals_wrong_thread") == 0,
              f"samples {ev.get('observed')}, signals {ev.get('signals')}, "
              f"wrong thread {ev.get('signals_wrong_thread')}")

# --- hw:instructions sampling: QEMU's general-purpose counter defect, a finding (issue 21).
# hw:instructions lands on a general-purpose counter: measured where its kind's self-test
# passes, refused with the figures where it does not. Either is right as long as it agrees with
# probe; the check fails only if a measured count is wrong.
rc_path = os.path.join(results, "instructions.measure_rc")
measure_rc = open(rc_path).read().strip() if os.path.exists(rc_path) else None
ver = qemu_version()
err_path = os.path.join(results, "instructions.err")
err_text = open(err_path).read() if os.path.exists(err_path) else ""
if measure_rc == "3":
    print(f"  note finding: QEMU {ver}: hw:instructions refused: {err_text.strip()[:300]}")
    check("instructions: refused because its kind failed the self-test, figures in the reason",
          "general counters sampled" in err_text and re.search(r"\d+ samples where \d+", err_text)
          is not None and (probe is None or general_broken is True),
          f"probe says general counters broken: {general_broken}; {err_text.strip()[:300]}")
elif measure_rc == "0":
    d, ev = measured("instructions")
    if d:
        print(f"  note finding: QEMU {ver}: hw:instructions measured, accuracy {ev.get('accuracy')} "
              f"%, samples {ev.get('observed')} of {ev.get('expected')} expected")
        check("instructions: measured only where probe says general counters work",
              probe is None or general_broken is False, f"general counters broken: {general_broken}")
        check("instructions: the count itself is exact (declared)",
              ev.get("count") is not None and ev.get("declared_events") and
              0 <= ev["count"] - ev["declared_events"] <= 1000,
              f"count {ev.get('count')}, declared {ev.get('declared_events')}")
else:
    check("instructions: measured or refused (exit 0 or 3)", False, f"exit {measure_rc}: {err_text[-300:]}")

# --- bp:r works (its self-test reads the watched word), exactly
d, ev = measured("bp_r")
if d:
    check("bp_r: read watchpoints measured, count == declared, 100.000 %",
          ev.get("count") == ev.get("declared_events") and ev.get("count", 0) > 0 and
          ev.get("accuracy") is not None and f"{ev['accuracy']:.3f}" == "100.000",
          f"count {ev.get('count')}, declared {ev.get('declared_events')}, accuracy {ev.get('accuracy')}")

# --- a breakpoint with signal delivery: its self-test delivers signals as the measurement
# does; an over-count is refused with its direction, or the measurement shows its direction
rc_path = os.path.join(results, "bp_signal.measure_rc")
bp_rc = open(rc_path).read().strip() if os.path.exists(rc_path) else None
err_path = os.path.join(results, "bp_signal.err")
bp_err = open(err_path).read() if os.path.exists(err_path) else ""
if bp_rc == "3":
    print(f"  note finding: QEMU {ver}: bp:x with signal delivery refused: {bp_err.strip()[:300]}")
    check("bp_signal: refused by its signal-delivering self-test, the miscount with its direction",
          re.search(r"miscount with a signal per sample: \d+ executions, \d+ counted \((over|under) by \d+\)",
                    bp_err) is not None, bp_err.strip()[:300])
elif bp_rc == "0":
    d, ev = measured("bp_signal")
    if d:
        obs, exp = ev.get("observed", 0), ev.get("expected", 0)
        want = "over" if obs > exp else "under" if obs < exp else "exact"
        check("bp_signal: the accuracy's direction and signed error match the figures",
              ev.get("direction") == want and ev.get("signed_error") is not None and
              (ev["signed_error"] > 0) == (want == "over") and (ev["signed_error"] < 0) == (want == "under"),
              f"observed {obs}, expected {exp}, direction {ev.get('direction')}, "
              f"signed_error {ev.get('signed_error')}")
        print(f"  note finding: QEMU {ver}: bp:x with signal delivery counted {ev.get('count')} of "
              f"{ev.get('declared_events')} declared, {obs} samples of {exp} expected ({ev.get('direction')})")
else:
    check("bp_signal: measured or refused (exit 0 or 3)", False, f"exit {bp_rc}: {bp_err[-300:]}")

# --- mode: wrong-level samples flagged; a level without declared truth has no accuracy
mode = load("mode")
if mode:
    seen_kernel_only = False
    for point in mode.get("points", []):
        if point.get("experiment") != "mode" or not point.get("runs"):
            continue
        for run, e, ev in events(point):
            tag = f"mode {point.get('facility')} {point.get('levels')} event {e}"
            flagged = ev.get("wrong_level_samples")
            by_ip = ev.get("kernel_ip_samples", 0) if point.get("exclude_kernel") else 0
            check(f"{tag}: wrong-level samples flagged (at least those at a kernel IP)",
                  flagged is not None and flagged >= by_ip, f"wrong_level_samples {flagged}, "
                  f"kernel_ip_samples {ev.get('kernel_ip_samples')}")
            if point.get("levels") == "kernel" and ev.get("basis") in ("declared", "undeclared"):
                seen_kernel_only = True
                check(f"{tag}: no declared truth for the kernel level, no accuracy",
                      ev.get("accuracy") is None and ev.get("accuracy_withheld"),
                      f"basis {ev.get('basis')}, accuracy {ev.get('accuracy')}")
    skipped = {s.get("facility"): s.get("reason") for s in mode.get("skipped", [])}
    check("mode: hw:instructions' kernel-only point has no accuracy, or the spec was refused",
          seen_kernel_only or "hw:instructions" in skipped, f"skipped {skipped}")

# --- verify: every arm64 workload passes its oracles
rc = os.path.join(results, "verify.rc")
check("verify: every arm64 workload matches its oracles",
      os.path.exists(rc) and open(rc).read().strip() == "0",
      (open(rc).read().strip() if os.path.exists(rc) else "did not run") + " " +
      (open(os.path.join(results, "verify.err")).read()[-300:] if os.path.exists(os.path.join(results, "verify.err")) else ""))



def verify_rows(path):
    """The rows of `pesbench verify`'s table: columns are separated by two or more spaces."""
    rows, inside = [], False
    for line in open(path):
        cols = re.split(r"\s{2,}", line.strip())
        if cols[:3] == ["workload", "params", "oracle"]:
            inside = True
        elif re.match(r"\d+ checks, \d+ mismatches", line):
            inside = False
        elif inside and len(cols) >= 7:
            rows.append({"workload": cols[0], "params": cols[1], "oracle": cols[2],
                         "what": cols[3], "declared": cols[4], "measured": cols[5],
                         "status": cols[6], "note": " ".join(cols[7:])})
    return rows


# --- verify: the PMU's user-mode instruction count as an oracle (2N less N iterations, exact
# under icount), for every arm64 workload
out = os.path.join(results, "verify.out")
if os.path.exists(out):
    rows = [r for r in verify_rows(out) if r["oracle"] == "hw:instructions"]
    for name in sorted({w["name"] for w in workloads.values()}):
        mine = [r for r in rows if r["workload"] == name]
        # ok means measured == declared; a row retried says "exact on run N": under icount
        # every count is exact on its first run
        bad = [r for r in mine if r["status"] != "ok" or "on run" in r["note"]]
        check(f"verify: hw:instructions agrees with the declared instructions of {name}",
              mine and not bad,
              f"{len(mine)} rows; " + ("; ".join(f"{r['params']}: declared {r['declared']}, "
                                                  f"measured {r['measured']} {r['status']} {r['note']}"
                                                  for r in bad[:4]) if mine else "no hw:instructions row"))
    # one row per arm64 workload instance verify runs (issue 21: all 21 of them)
    check("verify: all 21 hw:instructions rows present", len(rows) == 21,
          "none; not run here: " + open(out).read().split("not run here:")[-1][:300] if not rows else f"{len(rows)} rows")
else:
    check("verify: hw:instructions rows", False, "verify did not run")

print(f"check-arm64 host checks: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
