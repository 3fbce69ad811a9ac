/* `pesbench verify`: checks workload declarations against exact oracles (uprobes,
 * breakpoints, page-fault counts, the PMU's instruction count, callgrind) and prints one row
 * per comparison. */
#include "cli/commands.h"
#include "util/error.h"
#include "workloads/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMED 128
#define DEFAULT_ITERATIONS 2000

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pesbench verify [WORKLOAD[:key=value,...]...] [--iterations N] [--threads N]\n"
		"                       [--no-callgrind] [--no-uprobe] [--no-bp] [--no-hw]\n\n"
		"Runs each workload (default: every workload at its defaults and with each\n"
		"parameter varied alone) under exact oracles and compares what they count with\n"
		"the declared truth:\n"
		"  uprobe     a uprobe on every labelled instruction counts its executions\n"
		"  bp:w/rw    a data breakpoint counts writes / accesses of the watched data\n"
		"  faults     sw:page-faults, for workloads that declare page faults\n"
		"  hw:instructions\n"
		"             the PMU's user-mode instruction count where the hw facility passes\n"
		"             its self-test: a run of 2N iterations less a run of N, against N x\n"
		"             the declared instructions per iteration (exact under QEMU -icount;\n"
		"             --no-hw where the PMU's count is not exact)\n"
		"  callgrind  valgrind's per-instruction counts: every label and the whole loop\n"
		"Oracles that cannot run here are listed with the reason. Iterations default to\n"
		"%d (each uprobe or breakpoint hit traps: ~10 us in a VM). Exit 5 on a mismatch,\n"
		"naming the instruction and both numbers.\n",
		DEFAULT_ITERATIONS);
}

static int parse_count(const char *opt, const char *value, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = value ? strtoull(value, &end, 10) : 0;
	if (!value || !*value || *end || errno || v < 1 || v > max || value[0] == '-') {
		fprintf(stderr, "pesbench verify: %s needs an integer within 1..%" PRIu64 "\n", opt,
			max);
		return -1;
	}
	*out = v;
	return 0;
}

int pb_cmd_verify(int argc, char **argv)
{
	struct pb_verify_options o = {.iterations = DEFAULT_ITERATIONS, .threads = 1,
				      .uprobe = true, .bp = true, .faults = true, .callgrind = true,
				      .hw = true};
	static struct pb_workload_choice choices[MAX_NAMED];
	size_t n = 0;
	bool run_once = false;
	struct pb_error err = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t v;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return PB_EXIT_OK;
		} else if (!strcmp(a, "--iterations")) {
			if (parse_count(a, i + 1 < argc ? argv[++i] : NULL, UINT64_C(1) << 40,
					&o.iterations))
				return PB_EXIT_USAGE;
		} else if (!strcmp(a, "--threads")) {
			if (parse_count(a, i + 1 < argc ? argv[++i] : NULL, PB_MAX_THREADS, &v))
				return PB_EXIT_USAGE;
			o.threads = (unsigned)v;
		} else if (!strcmp(a, "--no-callgrind")) {
			o.callgrind = false;
		} else if (!strcmp(a, "--no-uprobe")) {
			o.uprobe = false;
		} else if (!strcmp(a, "--no-bp")) {
			o.bp = false;
		} else if (!strcmp(a, "--no-hw")) {
			o.hw = false;
		} else if (!strcmp(a, "--run-once")) {
			run_once = true; /* hidden: what callgrind runs */
		} else if (a[0] == '-') {
			fprintf(stderr, "pesbench verify: unknown option '%s'\n", a);
			usage(stderr);
			return PB_EXIT_USAGE;
		} else if (n == MAX_NAMED) {
			fprintf(stderr, "pesbench verify: at most %d workloads at once\n", MAX_NAMED);
			return PB_EXIT_USAGE;
		} else if (pb_workload_parse(a, &choices[n++], &err)) {
			return pb_cli_report("verify", &err);
		}
	}
	if (run_once) {
		if (pb_verify_run_once(choices, n, o.iterations, o.threads, stdout, &err))
			return pb_cli_report("verify", &err);
		return PB_EXIT_OK;
	}
	if (!n)
		n = pb_verify_default_choices(choices, MAX_NAMED);

	static struct pb_truth truths[MAX_NAMED];
	struct pb_verify_report rep = {0};
	int rc = 0;
	for (size_t k = 0; !rc && k < n; k++) {
		struct pb_instance in;
		rc = pb_instance_init(&in, &choices[k], o.iterations, o.threads, &err);
		if (!rc) {
			truths[k] = in.truth;
			rc = pb_verify_instance(&in, &o, &rep, &err);
			pb_instance_free(&in);
		}
	}
	if (!rc && o.callgrind)
		rc = pb_verify_callgrind(choices, truths, n, &o, &rep, &err);
	pb_verify_print(&rep, stdout);
	fflush(stdout);
	if (!rc && rep.mismatches) {
		pb_verify_mismatch_error(&rep, &err);
		rc = -1;
	}
	pb_verify_report_free(&rep);
	return rc ? pb_cli_report("verify", &err) : PB_EXIT_OK;
}
