#!/usr/bin/env python3
"""Checks every workload's declared RV64 truth against what qemu-riscv64 executes.

For each workload choice, runs tests/riscv64/trace_truth (the riscv64 build) under
`qemu-riscv64 -singlestep -d nochain,exec` (one log line per executed instruction) at N and 2N
iterations, keeps the instructions inside the workload's code range, classifies each by its
mnemonic (objdump) and compares, per iteration (2N run minus N run, over N) and once per call
(N run minus N iterations), with the truth that pesbench itself declares (pb_workload_truth,
printed by the program). Each label must execute per_iteration x N (+ once) times.
Usage: trace_truth.py BINARY [QEMU]     exit 0: all agree; 1: a disagreement (printed)."""
import json
import re
import subprocess
import sys
import tempfile

CHOICES = ["busy", "accuracy", "accuracy:ratio=5", "accuracy:ratio=1000", "bias",
           "bias:variant=lfence", "bias:variant=miss", "mix", "mode", "mode:kernel=fault",
           "mode:kernel=touch", "shadow", "shadow:gap=7", "shadow:kind=branches,gap=3",
           "shadow:kind=misses", "latency-biased", "call-chain"]
N = 40
KEYS = ["instructions", "loads", "stores", "branches", "taken", "calls", "returns", "locked",
        "syscalls"]


def disassembly(binary):
    out = subprocess.run(["riscv64-linux-gnu-objdump", "-d", "--no-show-raw-insn", "-M",
                          "no-aliases", binary], capture_output=True, text=True, check=True)
    insns = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if m:
            insns[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return insns


def classify(mnemonic, operands):
    kinds = set()
    if re.fullmatch(r"l[bhwd]u?|lr\..*|amo.*", mnemonic):
        kinds.add("loads")
    if re.fullmatch(r"s[bhwd]|sc\..*|amo.*", mnemonic):
        kinds.add("stores")
    if re.fullmatch(r"amo.*|lr\..*|sc\..*", mnemonic):
        kinds.add("locked")
    if mnemonic.startswith("b") or mnemonic in ("jal", "jalr"):
        kinds.add("branches")
    rd = operands.split(",")[0].strip()
    if mnemonic in ("jal", "jalr") and rd == "ra":
        kinds.add("calls")
    if mnemonic == "jalr" and rd == "zero" and re.search(r"\bra\b", operands.split(",", 1)[1]):
        kinds.add("returns")
    if mnemonic == "ecall":
        kinds.add("syscalls")
    return kinds


def trace(qemu, binary, choice, n):
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        run = subprocess.run([qemu, "-singlestep", "-d", "nochain,exec", "-D", log.name, binary,
                              choice, str(n)], capture_output=True, text=True)
        truth = json.loads(run.stdout.splitlines()[0])
        if run.returncode == 3:
            return truth, None
        if run.returncode != 0:
            raise SystemExit(f"trace_truth {choice} {n}: exit {run.returncode}: {run.stderr}")
        pcs = [int(m.group(1), 16) for m in
               re.finditer(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/", open(log.name).read(),
                           re.M)]
    return truth, pcs


def taken(mnemonic, operands, next_pc):
    """A jump always is (even to the next instruction); a conditional branch when the next
    instruction executed is its target (none of the loops branches to pc + 4)."""
    if mnemonic in ("jal", "jalr"):
        return True
    target = re.search(r"([0-9a-f]+) <", operands)
    return next_pc is not None and target is not None and next_pc == int(target.group(1), 16)


def tally(pcs, truth, insns):
    begin, end = truth["code"]
    counts = dict.fromkeys(KEYS, 0)
    at = {}
    for i, pc in enumerate(pcs):
        if not begin <= pc < end:
            continue
        at[pc] = at.get(pc, 0) + 1
        counts["instructions"] += 1
        mnemonic, operands = insns[pc]
        kinds = classify(mnemonic, operands)
        for k in kinds:
            counts[k] += 1
        if "branches" in kinds and taken(mnemonic, operands, pcs[i + 1] if i + 1 < len(pcs)
                                         else None):
            counts["taken"] += 1
    return counts, at


def main():
    binary = sys.argv[1]
    qemu = sys.argv[2] if len(sys.argv) > 2 else "qemu-riscv64-static"
    insns = disassembly(binary)
    bad = 0
    for choice in CHOICES:
        truth, pcs1 = trace(qemu, binary, choice, N)
        if pcs1 is None:
            print(f"{choice:28} absent: {truth['absent']}")
            continue
        _, pcs2 = trace(qemu, binary, choice, 2 * N)
        c1, at1 = tally(pcs1, truth, insns)
        c2, _ = tally(pcs2, truth, insns)
        problems = []
        for k in KEYS:
            per = (c2[k] - c1[k]) / N
            if per != truth[k]:
                problems.append(f"{k}: traced {per:g}/iteration, declared {truth[k]}")
        once = c1["instructions"] - N * truth["instructions"]
        if once != truth["once"]:
            problems.append(f"once: traced {once}, declared {truth['once']}")
        for label in truth["labels"]:
            want = label["per"] * N + label["once"]
            got = at1.get(label["addr"], 0)
            if got != want:
                problems.append(f"label {label['name']}: executed {got} times, declared {want}")
        line = ", ".join(f"{k} {truth[k]}" for k in KEYS if truth[k]) + f", once {truth['once']}"
        if problems:
            bad += 1
            print(f"{choice:28} MISMATCH ({line})")
            for p in problems:
                print(f"    {p}")
        else:
            print(f"{choice:28} agrees: {line} per iteration, {len(truth['labels'])} labels")
    print(f"trace_truth: {len(CHOICES) - bad} agree, {bad} disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
