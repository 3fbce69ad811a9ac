/* Checks a workload's declared truth against exact oracles no one here wrote:
 *   uprobe     a uprobe on every labelled instruction counts its executions;
 *   bp:w/bp:rw a data breakpoint on the watched data counts its writes / accesses;
 *   faults     sw:page-faults, all modes and user mode only (workloads that declare faults);
 *   hw:instructions
 *              the PMU's user-mode instruction count, where the hw facility passes its
 *              self-test: a run of 2N iterations less a run of N is N loops, whatever the
 *              code around the loop costs per run; compared with N x instructions;
 *   callgrind  valgrind's per-instruction counts: every label, and all instructions of the
 *              workload's code (iterations x instructions + once_instructions).
 * Every comparison becomes a row; a row that disagrees is a mismatch (exit 5). A count that
 * disagrees is measured again (3 runs in all) before it is called a mismatch: a data
 * breakpoint in a VM can lose a trap, a wrong declaration is wrong every time. */
#ifndef PB_VERIFY_H
#define PB_VERIFY_H

#include "runner/runner.h"

#include <stdio.h>

struct pb_verify_options {
	uint64_t iterations;
	unsigned threads;
	/* the oracles to run: a label's hits, the watched data's writes and accesses, page
	 * faults, callgrind's counts, the loop's instructions */
	bool label_hits, data_watch, page_faults, callgrind, instructions;
	/* The machine the oracles' facilities are checked and opened on; NULL = this machine.
	 * Tests give a fixture with a PMU and answer through the fake kernel. */
	const struct pb_machine *machine;
	/* A pesbench binary for callgrind to run (`verify --run-once`); NULL = /proc/self/exe. */
	const char *self_exe;
	/* Where callgrind's files go; NULL = $TMPDIR or /tmp. */
	const char *tmpdir;
};

struct pb_verify_row {
	char workload[32];
	char params[96];
	char oracle[24];
	char what[80];               /* the instruction (label) or total checked */
	uint64_t addr;               /* the label's address, 0 for totals */
	unsigned thread;             /* the thread of `measured` (the first that disagreed) */
	uint64_t declared, measured;
	bool ok;
	bool refused;                /* the oracle cannot observe this instruction (see note) */
	char note[96];
};

struct pb_verify_report {
	struct pb_verify_row *rows;
	size_t n, cap;
	size_t mismatches;
	char skipped[1024];          /* oracles that could not run here, and why */
};

/* The default set: every workload at its defaults, then each parameter varied alone over
 * its choices (or its minimum and maximum). Returns how many were written (at most max). */
size_t pb_verify_default_choices(struct pb_workload_choice *out, size_t max);

/* Checks one instance's declared truth (in->truth, which a caller may have edited) with the
 * uprobe, bp, faults and hw:instructions oracles. */
int pb_verify_instance(struct pb_instance *in, const struct pb_verify_options *o,
		       struct pb_verify_report *rep, struct pb_error *err);
/* Whether the callgrind oracle can run: valgrind is installed, and this pesbench is not built
 * with AddressSanitizer (which cannot run under valgrind). When not, says why. */
bool pb_verify_callgrind_possible(char *why, size_t len);
/* Checks declared truths against callgrind: runs the choices (at most one per workload per
 * valgrind run, so their code never overlaps) under callgrind and compares. truths[i] is
 * the declaration of choices[i]. */
int pb_verify_callgrind(const struct pb_workload_choice *choices, const struct pb_truth *truths,
			size_t n, const struct pb_verify_options *o, struct pb_verify_report *rep,
			struct pb_error *err);
/* The hidden `verify --run-once`: prints each choice's code range and label addresses as
 * link-time addresses, the way callgrind names instructions ("pb-range", "pb-label" lines),
 * on out, then runs the choices in order. */
int pb_verify_run_once(const struct pb_workload_choice *choices, size_t n, uint64_t iterations,
		       unsigned threads, FILE *out, struct pb_error *err);

void pb_verify_print(const struct pb_verify_report *rep, FILE *out);
/* The first mismatch as an error message naming the instruction and both numbers. */
void pb_verify_mismatch_error(const struct pb_verify_report *rep, struct pb_error *err);
void pb_verify_report_free(struct pb_verify_report *rep);

#endif
