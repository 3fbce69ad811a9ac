/* `pesbench run`: the suite. Every chosen experiment on every chosen facility (default: all
 * experiments, every facility this machine has), results written atomically to --out, a
 * progress bar on a terminal, a compact table at the end. Ctrl-C stops after the current run
 * and writes what was measured, marked incomplete. */
#include "cli/commands.h"
#include "cli/options.h"
#include "scorecard/scorecard.h"
#include "experiments/experiment.h"
#include "experiments/suite.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "io/results.h"
#include "io/run_files.h"
#include "present/report.h"
#include "present/summary.h"
#include "util/progress.h"
#include "util/suggest.h"
#include "util/text.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct run_args {
	struct pb_suite_options o;
	struct pb_suite suite;
	/* parsed once, here: perf's names read as specs (cycles: hw:cycles) */
	struct pb_spec specs[PB_MAX_LIST];
	unsigned nfacilities;
	const char *out_dir;
	bool json, quiet;
	unsigned period_units;
};

static int add_experiment(void *args, const char *value, struct pb_error *err)
{
	struct run_args *a = args;
	const struct pb_experiment *e = pb_experiment_find(value);
	if (!e) {
		struct pb_suggest near;
		pb_suggest_init(&near, value);
		for (const struct pb_experiment *const *x = pb_experiment_list(); *x; x++)
			pb_suggest_consider(&near, (*x)->name);
		return pb_suggest_fail(err, &near, "", "experiment", "`pesbench run --help`");
	}
	if (a->suite.nexperiments < PB_SUITE_MAX_EXPERIMENTS)
		a->suite.experiments[a->suite.nexperiments++] = e;
	return 0;
}

static int add_facility(void *args, const char *value, struct pb_error *err)
{
	struct run_args *a = args;
	struct pb_spec spec;
	if (pb_spec_parse(value, &spec, err))
		return -1;
	if (a->nfacilities == PB_MAX_LIST)
		return pb_fail(err, PB_EXIT_USAGE, 0, "at most %d facilities", PB_MAX_LIST);
	a->specs[a->nfacilities++] = spec;
	return 0;
}

static int set_threads(void *args, const char *value, struct pb_error *err)
{
	struct run_args *a = args;
	uint64_t list[PB_MAX_LIST];
	if (pb_parse_u64_list("--threads", value, 1, 4096, list, PB_MAX_LIST, &a->o.nthreads, err))
		return -1;
	for (unsigned i = 0; i < a->o.nthreads; i++) {
		char text[32];
		snprintf(text, sizeof text, "%llu", (unsigned long long)list[i]);
		if (pb_parse_threads("--threads", text, &list[i], err))
			return -1;
		a->o.threads[i] = (unsigned)list[i];
	}
	return 0;
}

static int set_runs(void *args, const char *value, struct pb_error *err)
{
	uint64_t runs;
	if (pb_parse_u64("--runs", value, 1, 1000, &runs, err))
		return -1;
	((struct run_args *)args)->o.runs = (unsigned)runs;
	return 0;
}

static int set_delivery(void *args, const char *value, struct pb_error *err)
{
	return pb_delivery_parse(value, &((struct run_args *)args)->o.delivery, err);
}

static void list_experiments(FILE *out)
{
	fprintf(out, "experiments:\n");
	for (const struct pb_experiment *const *e = pb_experiment_list(); *e; e++)
		pb_text_entry(out, 2, (*e)->name, 9, (*e)->summary);
}

#define ARG(field, type) PB_AT(struct run_args, field, type)

static const struct pb_opt run_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_CALL, .parse = add_facility,
	 .repeatable = true, .example = "sw:page-faults",
	 .help = "a facility to run on, repeatable (default: every facility this machine has); "
		 "`pesbench probe` lists them"},
	{.name = "period", .arg = "LIST", .kind = PB_OPT_PERIOD_LIST,
	 .at = ARG(o.periods[0], uint64_t), .count_at = PB_COUNT(struct run_args, o.nperiods),
	 .units_at = PB_UNITS(struct run_args, period_units), .min = 1, .max = UINT64_MAX >> 1,
	 .max_n = PB_MAX_LIST, .help = "periods to use instead of each experiment's own, e.g. "
	 "10000,100000 or 10k,100k; for timers also 1ms,100us (plain: ns)"},
	{.name = "runs", .arg = "N", .kind = PB_OPT_CALL, .parse = set_runs,
	 .example = "1", .help = "repetitions of every point (default 5): mean, stdev, min, max"},
	{.name = "threads", .arg = "LIST", .kind = PB_OPT_CALL, .parse = set_threads,
	 .example = "1", .help = "thread counts, e.g. 1,2 (default: 1 and the number of CPUs)"},
	{.name = "delivery", .arg = "MODE", .kind = PB_OPT_CALL, .parse = set_delivery,
	 .example = "none", .help = "none (default), signal, sigtrap, drain"},
	{.name = "out", .arg = "DIR", .kind = PB_OPT_STRING, .at = ARG(out_dir, const char *),
	 .help = "results folder (default: results/<UTC time>)"},
	{.name = "target-ms", .arg = "MS", .kind = PB_OPT_U64, .at = ARG(o.target_ms, uint64_t),
	 .min = 1, .max = 3600000, .help = "CPU time each run aims for (default 60)"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "print results.json on stdout when done"},
	{.name = "quiet", .kind = PB_OPT_FLAG, .at = ARG(quiet, bool),
	 .help = "no progress bar, no table"},
	{0},
};

const struct pb_cmd_spec pb_cmd_run_spec = {
	.name = "run",
	.summary = "run the experiments (default: the whole suite) and write results",
	.operands = "[EXPERIMENT...]",
	.description =
		"Runs experiments (default: all) on facilities (default: every facility this\n"
		"machine has; the others are listed as skipped, with the reason).\n",
	.extra = list_experiments,
	.options = run_options,
	.args_size = sizeof(struct run_args),
	.positional = add_experiment,
	.epilogue =
		"Writes DIR/results.json and DIR/results.csv (schema in docs/results.md), and\n"
		"DIR/results.jsonl: one record per key figure, ending with a \"done\" record\n"
		"(docs/fleet.md). --quiet prints nothing but errors and never waits for a\n"
		"terminal. Exit 0 when every point was measured, 1 when one failed (said on\n"
		"stderr and in its \"error\"), 130 when interrupted (partial results written,\n"
		"marked incomplete), 2 for bad usage, 3 when no chosen facility is available\n"
		"here, 4 when DIR cannot be written or holds an earlier run's results. Ends with\n"
		"the scorecard (docs/scorecard.md); every figure is in DIR/report.html.\n",
};

struct progress {
	unsigned failures; /* experiments that failed on a facility */
	struct pb_progress line;
};

static void show_progress(void *ctx, const char *what)
{
	struct progress *p = ctx;
	pb_progress_step(&p->line, what);
}

static void more_runs(void *ctx, int runs)
{
	struct progress *p = ctx;
	pb_progress_more(&p->line, runs);
}

static void report_failure(void *ctx, const char *experiment, const char *facility,
			   const char *message)
{
	struct progress *p = ctx;
	p->failures++;
	pb_progress_clear(&p->line);
	char first[160];
	snprintf(first, sizeof first, "pesbench run: %s on %s failed:", experiment, facility);
	pb_text_wrapped(stderr, first, message, 2);
}

int pb_cmd_run(int argc, char **argv)
{
	static struct run_args a;
	memset(&a, 0, sizeof a);
	pb_suite_options_defaults(&a.o);
	int rest, rc = pb_options_run(&pb_cmd_run_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	struct pb_error err = {0};
	/* checked before anything is written: a unit suits facilities of one kind of period */
	if (a.period_units && !a.nfacilities) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "--period with a unit needs --facility: the default "
			"facilities count some periods in ns and others in events");
		return pb_cli_report("run", &err);
	}
	for (unsigned i = 0; i < a.nfacilities; i++) {
		if (pb_period_check("--period", a.period_units, a.specs[i].text, &err))
			return pb_cli_report("run", &err);
	}
	/* as measure does: a period the facility refuses is a usage error before any run */
	if (pb_suite_check_periods(a.specs, a.nfacilities, &a.o, &err))
		return pb_cli_report("run", &err);

	char default_dir[64];
	if (!a.out_dir)
		a.out_dir = pb_run_files_default_dir(default_dir, sizeof default_dir);
	struct pb_results res;
	if (pb_run_files_check_new(a.out_dir, &err) ||
	    pb_results_open(&res, a.out_dir, argc, argv, &err))
		return pb_cli_report("run", &err);
	const struct pb_machine *m = pb_machine_live();
	pb_run_files_identify(&res, m);

	/* Which facilities run: the asked ones must be available; by default, those that are. */
	struct pb_suite *suite = &a.suite;
	pb_suite_choose(suite, m, a.specs, a.nfacilities, &a.o, &res);
	/* with nothing to run, the reasons are the whole answer, --quiet or not */
	if (!a.quiet || !suite->nrunnable)
		for (unsigned i = 0; i < suite->nskipped; i++) {
			char first[128];
			snprintf(first, sizeof first, "skipping %s:", suite->skipped[i].facility);
			pb_text_wrapped(stderr, first, suite->skipped[i].reason, 2);
		}
	if (!suite->nrunnable) {
		struct pb_error ignored = {0};
		pb_results_write(&res, true, PB_EXIT_UNAVAILABLE, NULL);
		pb_run_files_write_records(&res, PB_EXIT_UNAVAILABLE, &ignored);
		pb_results_close(&res);
		pb_fail(&err, PB_EXIT_UNAVAILABLE, 0,
			"none of the chosen facilities is available here (reasons above; `pesbench "
			"probe` says more)");
		return pb_cli_report("run", &err);
	}

	struct progress progress = {0};
	pb_progress_start(&progress.line, stderr, !a.quiet && isatty(STDERR_FILENO),
			  suite->total_runs);
	a.o.progress = show_progress;
	a.o.progress_more = more_runs;
	a.o.progress_ctx = &progress;
	a.o.interrupted = &interrupted;

	struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	double seconds = 0;
	rc = pb_suite_run(suite, &a.o, &res, report_failure, &progress, &seconds);
	bool complete = rc == PB_EXIT_OK;
	(complete ? pb_progress_finish : pb_progress_clear)(&progress.line);
	/* every experiment ran, but a point that failed was not measured: not a success */
	if (complete && progress.failures)
		rc = PB_EXIT_FAILURE;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	pb_scorecard_fill(&res);
	if (pb_results_write(&res, complete, rc, &err) ||
	    pb_run_files_write_records(&res, rc, &err)) {
		pb_results_close(&res);
		return pb_cli_report("run", &err);
	}
	/* plots and report.html; the results are written, so a failure here is only a warning */
	bool reported = !pb_report_folder(&res, a.out_dir, false, pb_experiment_summary,
					  a.quiet ? NULL : stderr, NULL, &err);
	if (!reported)
		fprintf(stderr, "pesbench run: warning: no report: %s\n", err.msg);
	if (a.json) {
		int printed = pb_cli_print_json("run", pb_results_json(&res), 1);
		if (rc == PB_EXIT_OK)
			rc = printed;
	} else if (!a.quiet) {
		pb_summary_print(stdout, &res);
		/* out whole before the closing line on stderr: in one log (make run >log 2>&1) a
		 * table longer than stdout's buffer had that line in the middle of a row */
		fflush(stdout);
	}
	if (!a.quiet) {
		char failed[64] = "";
		if (complete && progress.failures)
			snprintf(failed, sizeof failed, ", %u point%s FAILED (above)",
				 progress.failures, progress.failures == 1 ? "" : "s");
		fprintf(stderr, "%s in %.1f s%s; results in %s/results.json and results.csv\n",
			complete ? "suite done" : "suite INTERRUPTED, partial results", seconds,
			failed, a.out_dir);
		if (reported)
			fprintf(stderr, "report: %s/report.html (every experiment's figures and "
				"plots)\n", a.out_dir);
	}
	pb_results_close(&res);
	return rc;
}
