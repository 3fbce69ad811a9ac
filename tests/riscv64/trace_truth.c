/* The declared truth of one workload choice, checked against a trace of what runs: prints the
 * truth (pb_workload_truth, the code pesbench itself uses) as one JSON line on stdout, then
 * runs the workload's loop once, so that `qemu-riscv64 -singlestep -d nochain,exec` logs every
 * instruction it executes. tests/riscv64/trace_truth.py runs it at N and 2N iterations and
 * compares. Built for riscv64 only (scripts/check-riscv64.sh), statically, with the workload
 * layer and what it needs; the machine description is a stub (no probe under qemu-user).
 * Usage: trace_truth CHOICE ITERATIONS   (exit 3: the choice does not exist here, and why) */
#include "facilities/machine.h"
#include "workloads/workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The workload layer asks the machine only for its L1D size (the ring of `accuracy`). */
const struct pb_machine *pb_machine_live(void)
{
	static struct pb_machine m;
	m.l1d_size = 32 * 1024;
	m.l1d_source = "";
	return &m;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: trace_truth CHOICE ITERATIONS\n");
		return 2;
	}
	struct pb_workload_choice c;
	struct pb_error err = {0};
	uint64_t n = strtoull(argv[2], NULL, 10);
	if (pb_workload_parse(argv[1], &c, &err)) {
		fprintf(stderr, "trace_truth: %s\n", err.msg);
		return 2;
	}
	static struct pb_truth t;
	if (pb_workload_truth(&c, n, &t, &err)) {
		printf("{\"absent\": \"%s\"}\n", err.msg);
		return 3;
	}
	printf("{\"instructions\": %" PRIu64 ", \"once\": %" PRIu64 ", \"loads\": %" PRIu64
	       ", \"stores\": %" PRIu64 ", \"branches\": %" PRIu64 ", \"taken\": %" PRIu64
	       ", \"calls\": %" PRIu64 ", \"returns\": %" PRIu64 ", \"locked\": %" PRIu64
	       ", \"syscalls\": %" PRIu64 ", \"code\": [%" PRIu64 ", %" PRIu64 "], \"labels\": [",
	       t.instructions, t.once_instructions, t.loads, t.stores, t.branches,
	       t.taken_branches, t.calls, t.returns, t.locked, t.syscalls, t.code_begin,
	       t.code_end);
	for (unsigned i = 0; i < t.nlabels; i++)
		printf("%s{\"name\": \"%s\", \"addr\": %" PRIu64 ", \"kinds\": %u, \"per\": %" PRIu64
		       ", \"once\": %" PRIu64 "}",
		       i ? ", " : "", t.labels[i].name, t.labels[i].addr, t.labels[i].kinds,
		       t.labels[i].per_iteration, t.labels[i].once);
	printf("]}\n");
	fflush(stdout);
	const struct pb_workload *w = c.workload;
	void *state = calloc(1, w->state_size ? w->state_size : 1);
	struct pb_target target;
	memset(&target, 0, sizeof target);
	if (!state || (w->setup && w->setup(state, c.params, &target, &err))) {
		fprintf(stderr, "trace_truth: setup: %s\n", err.msg);
		return 1;
	}
	w->run(state, c.params, n);
	if (w->teardown)
		w->teardown(state);
	free(state);
	return 0;
}
