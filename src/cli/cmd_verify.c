/* `pesbench verify`: checks workload declarations against exact oracles (uprobes,
 * breakpoints, page-fault counts, the PMU's instruction count, callgrind) and prints one row
 * per comparison. */
#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"
#include "runner/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMED 128
#define DEFAULT_ITERATIONS 2000
#define STR(x) #x
#define TEXT(x) STR(x)

struct verify_args {
	struct pb_workload_choice choices[MAX_NAMED];
	size_t n;
	uint64_t iterations, threads;
	bool no_callgrind, no_uprobe, no_bp, no_hw, run_once, json;
};

static int add_workload(void *args, const char *value, struct pb_error *err)
{
	struct verify_args *a = args;
	if (a->n == MAX_NAMED)
		return pb_fail(err, PB_EXIT_USAGE, 0, "at most %d workloads at once", MAX_NAMED);
	return pb_workload_parse(value, &a->choices[a->n++], err);
}

#define ARG(field, type) PB_AT(struct verify_args, field, type)

static const struct pb_opt verify_options[] = {
	{.name = "iterations", .arg = "N", .kind = PB_OPT_U64, .at = ARG(iterations, uint64_t),
	 .min = 1, .max = UINT64_C(1) << 40,
	 .help = "loop iterations (default " TEXT(DEFAULT_ITERATIONS) ": each uprobe or "
		 "breakpoint hit traps, ~10 us in a VM)"},
	{.name = "threads", .arg = "N", .kind = PB_OPT_U64, .at = ARG(threads, uint64_t), .min = 1,
	 .max = PB_MAX_THREADS, .help = "threads running the workload (default 1)"},
	{.name = "no-callgrind", .kind = PB_OPT_FLAG, .at = ARG(no_callgrind, bool),
	 .help = "leave out the callgrind oracle"},
	{.name = "no-uprobe", .kind = PB_OPT_FLAG, .at = ARG(no_uprobe, bool),
	 .help = "leave out the uprobe oracle"},
	{.name = "no-bp", .kind = PB_OPT_FLAG, .at = ARG(no_bp, bool),
	 .help = "leave out the breakpoint oracle"},
	{.name = "no-hw", .kind = PB_OPT_FLAG, .at = ARG(no_hw, bool),
	 .help = "leave out the hw:instructions oracle (where the PMU's count is not exact)"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "print the checks as one JSON object on stdout instead of the table"},
	/* what callgrind runs: the workloads once, nothing counted */
	{.name = "run-once", .kind = PB_OPT_FLAG, .at = ARG(run_once, bool), .hidden = true,
	 .help = "run the named workloads once, for callgrind"},
	{0},
};

const struct pb_cmd_spec pb_cmd_verify_spec = {
	.name = "verify",
	.summary = "check workload declarations against exact oracles",
	.operands = "[WORKLOAD[:key=value,...]...]",
	.description =
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
		"Oracles that cannot run here are listed with the reason.\n",
	.options = verify_options,
	.args_size = sizeof(struct verify_args),
	.positional = add_workload,
	.epilogue =
		"Exit 5 on a mismatch, naming the instruction and both numbers.\n"
		"--json: {\"checks\", \"mismatches\", \"rows\": [{\"workload\", \"params\", \"oracle\",\n"
		"\"what\", \"address\" (hex, null for totals), \"thread\", \"declared\", \"measured\"\n"
		"(null where the oracle cannot observe it), \"ok\", \"refused\", \"note\"}],\n"
		"\"not_run\": [why, ...]}.\n",
};

int pb_cmd_verify(int argc, char **argv)
{
	static struct verify_args a;
	memset(&a, 0, sizeof a);
	a.iterations = DEFAULT_ITERATIONS;
	a.threads = 1;
	int rest, rc0 = pb_options_run(&pb_cmd_verify_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	struct pb_verify_options o = {.iterations = a.iterations, .threads = (unsigned)a.threads,
				      .label_hits = !a.no_uprobe, .data_watch = !a.no_bp, .page_faults = true,
				      .callgrind = !a.no_callgrind, .instructions = !a.no_hw};
	struct pb_workload_choice *choices = a.choices;
	size_t n = a.n;
	bool run_once = a.run_once;
	struct pb_error err = {0};
	if (run_once) {
		if (pb_verify_run_once(choices, n, o.iterations, o.threads, stdout, &err))
			return pb_cli_report("verify", &err);
		return PB_EXIT_OK;
	}
	bool defaults = !n;
	if (!n)
		n = pb_verify_default_choices(choices, MAX_NAMED);

	static struct pb_truth truths[MAX_NAMED];
	struct pb_verify_report rep = {0};
	int rc = 0;
	for (size_t k = 0; !rc && k < n; k++) {
		struct pb_instance in;
		rc = pb_instance_init(&in, &choices[k], o.iterations, o.threads, &err);
		if (rc && defaults && err.code == PB_EXIT_UNAVAILABLE) {
			/* a variant this architecture does not have (RV64: the cache misses) */
			char params[160];
			printf("not verified: %s:%s does not exist here: %s\n",
			       choices[k].workload->name,
			       pb_workload_params_text(&choices[k], params, sizeof params), err.msg);
			memmove(&choices[k], &choices[k + 1], (n - k - 1) * sizeof *choices);
			n--;
			k--;
			rc = 0;
			pb_error_clear(&err);
			continue;
		}
		if (!rc) {
			truths[k] = in.truth;
			rc = pb_verify_instance(&in, &o, &rep, &err);
			pb_instance_free(&in);
		}
	}
	if (!rc && o.callgrind)
		rc = pb_verify_callgrind(choices, truths, n, &o, &rep, &err);
	int printed = PB_EXIT_OK;
	if (a.json && !rc)
		printed = pb_cli_print_verify(&rep);
	else
		pb_verify_print(&rep, stdout);
	fflush(stdout);
	if (!rc && rep.mismatches) {
		pb_verify_mismatch_error(&rep, &err);
		rc = -1;
	}
	pb_verify_report_free(&rep);
	return rc ? pb_cli_report("verify", &err) : printed;
}
