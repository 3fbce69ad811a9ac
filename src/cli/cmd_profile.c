/* `pesbench profile`: how far is the sampled profile of a program from the truth? CMD runs
 * twice: once sampled (pesbench's own session or a user's perf.data), once under callgrind for
 * the exact count of every instruction it executes. Both are reduced to shares — a unit's share
 * of the samples against its share of the instructions — at instruction, basic-block and
 * function level, and compared with Nowak et al.'s metric. Timer sampling weighs code by time,
 * not by instructions; the comparison of shares says how well time stands for instructions. */
#include "analysis/demangle.h"
#include "analysis/periods.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/point.h"
#include "experiments/suite_defaults.h"
#include "facilities/facility.h"
#include "runner/profile_run.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MAX_EXPORTS 8

struct options {
	const char *facility, *perf_data, *record;
	uint64_t period, seed, top;
	bool period_given, json, call_graph;
	unsigned period_units;
	enum pb_period_method method;
	char **argv;
	struct pb_export_request exports[MAX_EXPORTS];
	size_t nexports;
};

static int add_export(void *args, const char *value, struct pb_error *err)
{
	struct options *o = args;
	return pb_export_add(o->exports, &o->nexports, MAX_EXPORTS, value, err);
}

static int set_method(void *args, const char *value, struct pb_error *err)
{
	return pb_period_method_parse(value, &((struct options *)args)->method, err);
}

static int no_operand(void *args, const char *value, struct pb_error *err)
{
	(void)args;
	return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s' (the command goes after --)",
		       value);
}

#define ARG(field, type) PB_AT(struct options, field, type)

static const struct pb_opt profile_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_STRING, .at = ARG(facility, const char *),
	 .help = "default timer:cpu-clock (`pesbench probe` lists the others)"},
	{.name = "period", .arg = "P", .kind = PB_OPT_PERIOD, .at = ARG(period, uint64_t),
	 .given_at = PB_GIVEN(struct options, period_given), .min = 1, .max = UINT64_MAX >> 2,
	 .units_at = PB_UNITS(struct options, period_units),
	 .help = "events per sample (10000, 10k), or for a timer a time (1ms, 100us; plain: "
		 "ns); default: the facility's"},
	{.name = "period-method", .arg = "M", .kind = PB_OPT_CALL, .parse = set_method,
	 .example = "prime",
	 .help = "round (P as given, default), prime (the next prime >= P), random (a new period "
		 "uniformly in [P/2, 3P/2] after each sample)"},
	{.name = "seed", .arg = "N", .kind = PB_OPT_U64, .at = ARG(seed, uint64_t), .min = 0,
	 .max = UINT64_MAX, .help = "seed of the random periods (default 1)"},
	{.name = "perf-data", .arg = "FILE", .kind = PB_OPT_STRING,
	 .at = ARG(perf_data, const char *),
	 .help = "take the samples from a `perf record` file of CMD instead"},
	{.name = "top", .arg = "N", .kind = PB_OPT_U64, .at = ARG(top, uint64_t), .min = 1,
	 .max = 100000, .help = "functions in the table (default 10)"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "one JSON object on stdout instead of the tables"},
	{.name = "record", .arg = "FILE", .kind = PB_OPT_STRING, .at = ARG(record, const char *),
	 .help = "also write the samples as a perf.data (mappings and build-ids included: perf "
		 "script and perf report name them); not with --perf-data"},
	{.name = "call-graph", .short_name = 'g', .kind = PB_OPT_FLAG, .at = ARG(call_graph, bool),
	 .help = "record each sample's call chain (PERF_SAMPLE_CALLCHAIN, frame pointers) for "
		 "--export; the comparison stays per instruction, block and function"},
	{.name = "export", .arg = "FORMAT:FILE", .kind = PB_OPT_CALL, .parse = add_export,
	 .repeatable = true, .example = "folded:profile.folded",
	 .help = "the sampled and the exact profile in one symbol space: pprof (two files, FILE "
		 "and FILE's name with .exact before the extension, for pprof -diff_base), "
		 "speedscope (both in one file), folded (two files)"},
	{0},
};

const struct pb_cmd_spec pb_cmd_profile_spec = {
	.name = "profile",
	.summary = "how far a sampled profile of a program is from callgrind's exact one",
	.trailing = "-- CMD ARGS",
	.description =
		"Samples CMD, runs it again under callgrind for the exact count of every\n"
		"instruction, and prints how far the sampled profile is from the exact one at\n"
		"instruction, basic-block and function level (Nowak et al.'s metric: the sum over\n"
		"units of |sampled share - exact share|), with the top functions side by side.\n",
	.options = profile_options,
	.args_size = sizeof(struct options),
	.positional = no_operand,
	.takes_command = true,
	.epilogue =
		"CMD must be an ELF executable (for a script, profile its interpreter) that exits 0\n"
		"and does the same work on every run. User-level samples only.\n",
};

/* Shares from fewer samples than an accuracy needs (experiments/point.h) are no measurement:
 * one sample is more than 10 points of a share. */
static bool too_few_samples(const struct pb_profile_report *r)
{
	return r->samples < PB_MIN_EXPECTED_SAMPLES;
}

static double pct(double fraction)
{
	return 100.0 * fraction;
}

static void print_text(const struct options *opt, bool time_based,
		       const struct pb_profile_outcome *out)
{
	const char *spec = out->spec_text;
	const struct pb_period_setup *setup = &out->setup;
	const struct pb_process_result *res = &out->process;
	const struct pb_profile_report *r = &out->report;
	printf("pesbench profile:");
	for (char **a = opt->argv; *a; a++)
		printf(" %s", *a);
	printf("\n");
	/* the header lines wrap at the terminal's 100 columns: a random method's words, or large
	 * counts, took them past it */
	char line[PATH_MAX + 256];
	if (opt->perf_data)
		pb_format(line, sizeof line, "%s (%llu user samples)", opt->perf_data,
			  (unsigned long long)r->samples);
	else
		pb_format(line, sizeof line,
			  "%s, period %llu (%s%s), %llu user samples, run %.3f s", spec,
			  (unsigned long long)setup->initial,
			  pb_period_method_name(setup->method),
			  setup->ioctl_each_sample ? ": new period in [P/2, 3P/2] after each sample"
			  : setup->facility_random ? ": the facility's own randomisation"
			  : "",
			  (unsigned long long)r->samples, (double)res->wall_ns / 1e9);
	pb_text_wrapped(stdout, "samples: ", line, 9);
	if (setup->ioctl_each_sample && !opt->perf_data)
		printf("         period changes: %llu applied, %llu refused\n",
		       (unsigned long long)res->period_changes,
		       (unsigned long long)res->period_errors);
	printf("         %llu kernel samples left out (callgrind counts user code only); of the "
	       "rest\n         %llu outside any file mapping, %llu at addresses callgrind never "
	       "executed\n",
	       (unsigned long long)r->kernel_samples, (unsigned long long)r->unmapped_samples,
	       (unsigned long long)r->unexecuted_samples);
	pb_format(line, sizeof line,
		  "callgrind, %llu instructions in %zu objects, %zu executed instructions, %zu "
		  "basic blocks",
		  (unsigned long long)r->total_ir, r->nobjects, r->ninsns, r->nblocks);
	pb_text_wrapped(stdout, "exact:   ", line, 9);
	if (time_based)
		printf("note:    compared are shares: a unit's share of the samples against its "
		       "share of the\n         instructions executed. Timer samples weigh code by "
		       "time, not instructions.\n");
	printf("\nerror (Nowak et al.: sum over units of |sampled share - exact share|)\n");
	if (too_few_samples(r)) {
		printf("  not given: too few samples, %llu where an error needs %d (one sample is\n"
		       "  %.0f points of a share); profile a longer run or use a shorter --period\n\n",
		       (unsigned long long)r->samples, PB_MIN_EXPECTED_SAMPLES,
		       r->samples ? 100.0 / (double)r->samples : 100.0);
	} else {
		printf("  %-12s %8.2f %%   largest difference %.2f pp\n", "instruction",
		       pct(r->insn.error), pct(r->insn.max_abs));
		printf("  %-12s %8.2f %%   largest difference %.2f pp\n", "basic block",
		       pct(r->block.error), pct(r->block.max_abs));
		printf("  %-12s %8.2f %%   largest difference %.2f pp\n\n", "function",
		       pct(r->func.error), pct(r->func.max_abs));
	}
	/* The function last and whole, as perf report has its symbol: a C++ name runs long. */
	size_t shown = r->nfuncs < opt->top ? r->nfuncs : opt->top;
	int wobject = (int)strlen("object"), wsource = (int)strlen("source");
	bool mangled = false;
	for (size_t i = 0; i < shown; i++) {
		const struct pb_profile_func *f = &r->funcs[i];
		int wo = (int)strlen(f->object), ws = f->source[0] ? (int)strlen(f->source) : 1;
		wobject = wo > wobject ? wo : wobject;
		wsource = ws > wsource ? ws : wsource;
		mangled |= !strncmp(f->name, "_Z", 2);
	}
	/* "± pp" spelled out: printf pads bytes, and '±' is two bytes in one column */
	printf("%8s %9s    ± pp %8s  %-*s %-*s %s\n", "exact %", "sampled %", "diff pp", wobject,
	       "object", wsource, "source", "function");
	for (size_t i = 0; i < shown; i++) {
		const struct pb_profile_func *f = &r->funcs[i];
		printf("%8.2f %9.2f %7.2f %+8.2f  %-*s %-*s %s\n", pct(f->exact_share),
		       pct(f->sampled_share), pct(f->sampled_share_ci95),
		       pct(f->sampled_share - f->exact_share), wobject, f->object, wsource,
		       f->source[0] ? f->source : "-", f->name);
	}
	if (r->share_batches)
		printf("± pp:    95 %% interval of the sampled share, from %d batches of the samples "
		       "in the order\n         taken (a slow spell of the machine bunches samples); "
		       "a program's own phases\n         count in it too, so it is wider than "
		       "reruns differ where work comes in phases\n",
		       r->share_batches);
	else
		printf("± pp:    95 %% interval of the sampled share, binomial: too few samples "
		       "to cut into %d\n         batches of %d, so samples bunched by a slow "
		       "spell are not accounted for\n",
		       PB_SHARE_BATCHES, PB_SHARE_BATCH_MIN);
	if (mangled && !pb_demangler_available())
		printf("note:    C++ names are shown as linked: %s\n", pb_demangler_name());
}

static void say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "pesbench profile: %s\n", line);
}

int pb_cmd_profile(int argc, char **argv)
{
	struct options opt = {.facility = "timer:cpu-clock", .seed = 1, .top = 10,
			      .method = PB_PERIOD_ROUND};
	struct pb_error err = {0};
	int rest, rc0 = pb_options_run(&pb_cmd_profile_spec, argc, argv, &opt, &rest);
	if (rc0 >= 0)
		return rc0;
	if (pb_period_check("--period", opt.period_units, opt.facility, &err))
		return pb_cli_report("profile", &err);
	if (rest >= argc) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"no command to profile: give it after --, e.g. pesbench profile -- gzip -k FILE");
		return pb_cli_report("profile", &err);
	}
	opt.argv = argv + rest;
	if (pb_profile_check_command(opt.argv[0], &err))
		return pb_cli_report("profile", &err);
	if (opt.record && opt.perf_data) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"--record writes pesbench's own samples; with --perf-data they are already in "
			"%s", opt.perf_data);
		return pb_cli_report("profile", &err);
	}
	struct pb_spec spec;
	if (!opt.perf_data && pb_spec_parse(opt.facility, &spec, &err))
		return pb_cli_report("profile", &err);
	struct pb_profile_job job = {
		.argv = opt.argv, .spec = &spec, .perf_data = opt.perf_data, .method = opt.method,
		.seed = opt.seed, .call_graph = opt.call_graph, .record = opt.record,
		.exports = opt.exports, .nexports = opt.nexports, .announce_callgrind = !opt.json,
		.say = say,
	};
	if (!opt.perf_data)
		job.base_period = opt.period_given ? opt.period : pb_suite_accuracy_period(&spec);
	struct pb_profile_outcome out;
	int rc = pb_profile_run(&job, &out, &err), printed = PB_EXIT_OK;
	bool time_based = opt.perf_data || spec.facility->time_based;
	if (!rc && opt.json)
		printed = pb_cli_print_profile(opt.argv, opt.perf_data, opt.top,
					       too_few_samples(&out.report), &out);
	else if (!rc)
		print_text(&opt, time_based, &out);
	pb_profile_outcome_free(&out);
	return rc ? pb_cli_report("profile", &err) : printed;
}
