/* `pesbench plan`: choose a period (and a ring) for an overhead budget. The command's run time
 * without perf is measured, its event rate with a counting event on it (a timer's rate is
 * 1/period by definition, so the run time is all it needs), and the cost of one sample is taken
 * from a short cost sweep on the spot or from a results.json of `pesbench run cost`. The
 * model (experiments/predict.h) then gives the smallest period whose predicted overhead fits
 * the budget; --check runs the command at that period and prints predicted vs measured, and
 * corrects the period from the command's own cost while the check decides against it. */
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/plan.h"
#include "experiments/point.h"
#include "facilities/facility.h"
#include "present/report.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_budget(const char *text, double *out, struct pb_error *err)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || errno || !(v > 0) || !isfinite(v))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "--budget '%s': give the allowed overhead as a percentage above 0, "
			       "e.g. --budget 5", text);
	*out = v;
	return 0;
}

struct plan_args {
	const char *facility, *costs;
	double budget;
	bool budget_given, check, json;
	uint64_t ring, runs, cost_seconds;
};

static int set_budget(void *args, const char *value, struct pb_error *err)
{
	struct plan_args *a = args;
	if (parse_budget(value, &a->budget, err))
		return -1;
	a->budget_given = true;
	return 0;
}

static int set_ring(void *args, const char *value, struct pb_error *err)
{
	uint64_t *ring = &((struct plan_args *)args)->ring;
	if (pb_parse_u64("--ring", value, 1, 1u << 20, ring, err))
		return -1;
	if (*ring & (*ring - 1))
		return pb_fail(err, PB_EXIT_USAGE, 0, "--ring %llu: the kernel needs a power of two",
			       (unsigned long long)*ring);
	return 0;
}

static int no_operand(void *args, const char *value, struct pb_error *err)
{
	(void)args;
	return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s': put the command after --, "
		       "e.g. pesbench plan ... -- xz -9 file", value);
}

/* The facilities plan takes, asked of the registry. */
static void list_facilities(FILE *out)
{
	char names[256];
	pb_plan_facilities(names, sizeof names);
	fputs("facilities that can sample a whole program:", out);
	pb_put_wrapped(out, names, 43, 2);
}

#define ARG(field, type) PB_AT(struct plan_args, field, type)

static const struct pb_opt plan_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_STRING, .at = ARG(facility, const char *),
	 .required = "--facility is required (e.g. --facility timer:cpu-clock)",
	 .help = "a facility that can sample a whole program (listed above)"},
	{.name = "budget", .arg = "PCT", .kind = PB_OPT_CALL, .parse = set_budget, .example = "5",
	 .given_at = PB_GIVEN(struct plan_args, budget_given),
	 .required = "--budget is required: the allowed time overhead in percent, e.g. --budget 5",
	 .help = "allowed time overhead in percent (> 0), e.g. 5"},
	{.name = "ring", .arg = "PAGES", .kind = PB_OPT_CALL, .parse = set_ring, .example = "8",
	 .help = "data pages per ring for the check run (default: recommended)"},
	{.name = "check", .kind = PB_OPT_FLAG, .at = ARG(check, bool),
	 .help = "run CMD at the recommended period in paired rounds; print predicted vs measured "
		 "with intervals, and when the check decides against the plan, check the period "
		 "CMD's own cost per sample gives (up to 3 times)"},
	{.name = "costs", .arg = "PATH", .kind = PB_OPT_STRING, .at = ARG(costs, const char *),
	 .help = "take the cost of one sample from a results folder (or its results.json) written "
		 "by `pesbench run cost` (its delivery-none fit for this facility, refused unless it "
		 "resolved) instead of measuring it now"},
	{.name = "cost-seconds", .arg = "S", .kind = PB_OPT_U64, .at = ARG(cost_seconds, uint64_t),
	 .min = 1, .max = 3600,
	 .help = "time the cost sweep on the spot may take (default 5); when the cost does not "
		 "resolve, plan says how long a sweep that resolves it would need"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "print the plan (and the check) as one JSON object"},
	{.name = "runs", .arg = "N", .kind = PB_OPT_U64, .at = ARG(runs, uint64_t), .min = 1,
	 .max = PB_PLAN_MAX_RUNS, .help = "runs of CMD per measurement, median taken (default 3); a check's "
		 "rounds: at least N, up to 8 while its interval is wide"},
	{0},
};

const struct pb_cmd_spec pb_cmd_plan_spec = {
	.name = "plan",
	.summary = "recommend a period and ring for an overhead budget on a command",
	.trailing = "-- CMD [ARGS...]",
	.description =
		"Recommends the smallest sampling period (and a ring size) that keeps the predicted\n"
		"time overhead of sampling CMD under PCT percent, from CMD's run time, its event\n"
		"rate (a counting run) and the measured cost of one sample.\n",
	.extra = list_facilities,
	.options = plan_options,
	.args_size = sizeof(struct plan_args),
	.positional = no_operand,
	.takes_command = true,
	.epilogue =
		"CMD runs as given with its output discarded; it must exit 0. Only its main thread\n"
		"is counted and sampled (no inherit).\n",
};

static void print_plan(const struct pb_plan_request *req, const struct pb_plan *plan,
		       bool ring_given, bool checked)
{
	const struct pb_slowdown_model *model = &plan->model;
	/* the whole command: plans for two inputs of one program are told apart */
	char command[81]; /* after the 20 columns of its label: 100 in all */
	pb_command_text(command, sizeof command, req->argv);
	printf("command:            %s\n", command);
	printf("CPU time, no perf:  %.3f ms (median of %u; wall %.3f ms)\n",
	       model->baseline_ns / 1e6, req->runs, (double)plan->base.wall_ns / 1e6);
	/* rusage and schedstat agree to the microsecond on one thread */
	double others = (double)plan->base.cpu_ns - model->baseline_ns;
	if (others > 1e3)
		printf("  not sampled       %.3f ms CPU of other threads and processes (only the "
		       "main thread\n                    is sampled; the plan is for it alone)\n",
		       others / 1e6);
	if (model->time_based)
		printf("event rate:         1 per period of the command's CPU time (timer)\n");
	else
		printf("events:             %.0f (%.3g per second)\n", model->events,
		       model->events / (model->baseline_ns / 1e9));
	printf("cost of a sample:   %.1f ± %.1f ns (95 %% CI; from %s)\n", model->ns_per_sample,
	       plan->cost_ci95_ns, plan->cost_source);
	if (plan->cost_at_period) {
		char line[240];
		double ci, per_decade = pb_rate_model_per_decade(&plan->cost_rate, &ci);
		pb_format(line, sizeof line, "at this period, on the sweep's line by rate: %.1f ns "
			  "at %llu %s, %+.1f ± %.1f ns for each tenfold longer period",
			  plan->cost_rate.fit.coef[1], (unsigned long long)plan->cost_rate.ref_period,
			  model->time_based ? "ns" : "events", per_decade, ci);
		printf("%-20s", "  by rate");
		pb_put_wrapped(stdout, line, 20, 20);
	}
	if (plan->cost_pairs_left_out)
		printf("  left out          %zu of the sweep's %zu pairs, whose runs a disturbance "
		       "slowed\n                    (docs/overhead.md, \"Disturbed pairs\")\n",
		       plan->cost_pairs_left_out, plan->cost_pairs);
	printf("budget:             %.3g %%\n", plan->budget_pct);
	const char *unit = model->time_based ? " ns" : " events";
	printf("period:             %llu%s", (unsigned long long)plan->period.period, unit);
	if (plan->period_lo && plan->period_hi)
		printf(" (%llu to %llu over the cost's interval)",
		       (unsigned long long)plan->period_lo, (unsigned long long)plan->period_hi);
	printf("\n");
	printf("predicted:          %.0f samples, %.3f ms, overhead %.2f %%", plan->period.samples,
	       plan->period.predicted_ns / 1e6, plan->period.overhead_pct);
	if (isfinite(plan->overhead_lo_pct) && isfinite(plan->overhead_hi_pct))
		printf(" (%.2f to %.2f %%)", plan->overhead_lo_pct,
		       plan->overhead_hi_pct);
	printf("\n");
	/* the budget is met, but a profile of so few samples measures nothing (one sample is
	 * more than 10 points of a share: experiments/point.h) */
	if (plan->period.samples < PB_MIN_EXPECTED_SAMPLES) {
		char words[240];
		snprintf(words, sizeof words, "%.0f samples are fewer than the %d a share needs (one "
			 "sample is more than 10 points of it): a longer run of the command, or a "
			 "larger budget", plan->period.samples, PB_MIN_EXPECTED_SAMPLES);
		printf("%-20s", "  note");
		pb_put_wrapped(stdout, words, 20, 20);
	}
	printf("ring:               %u data pages%s\n", plan->ring_pages,
	       ring_given ? " (--ring)" : " (100 ms of samples)");
	/* the ranges above are the cost's interval alone; what a sample costs this command is
	 * not in them (xz paid 16.8 µs a sample where the sweep's loop paid 12.9, and measured
	 * 6.64 % at a 5 % plan: docs/overhead.md, "Kind A") */
	if (!checked) {
		printf("%-20s", "  note");
		pb_put_wrapped(stdout, "the ranges are over the cost a sample had in pesbench's "
			       "cost workload; this command may pay more or less (its caches refill "
			       "after each interrupt, at its own rate): --check runs it at this "
			       "period and measures its own", 20, 20);
	}
}

/* What else the machine did while the plan measured, and how fast its CPUs ran: a busy
 * neighbour or a slower vCPU is why a check may not decide. */
static void print_machine(const struct pb_plan *plan)
{
	char text[512];
	if (plan->load.valid) {
		pb_machine_load_text(&plan->load, text, sizeof text);
		printf("%-20s", "beside the plan:");
		pb_put_wrapped(stdout, text, 20, 20);
	}
	if (plan->speed.valid) {
		pb_speed_text(&plan->speed, text, sizeof text);
		printf("%-20s", "CPU speed:");
		pb_put_wrapped(stdout, text, 20, 20);
	}
}

/* The cost of one sample: from --costs, or a sweep now. */
static int plan_cost(const struct plan_args *a, const struct pb_spec *spec, struct pb_plan *plan,
		     struct pb_error *err)
{
	plan->cost_source = a->costs;
	if (a->costs) {
		char path[4200], dir[4200];
		pb_results_locate(a->costs, path, sizeof path, dir, sizeof dir);
		return pb_plan_cost_from_file(path, a->facility, &plan->model.ns_per_sample,
					      &plan->cost_ci95_ns, &plan->cost_rate, &plan->cost_pairs,
					      &plan->cost_pairs_left_out, err);
	}
	fflush(stdout);
	fprintf(stderr, "measuring the cost of one %s sample (noise, pilot, then a sweep sized to "
		"resolve it, up to %llu s)...\n", a->facility, (unsigned long long)a->cost_seconds);
	plan->cost_source = "a sweep just now";
	return pb_plan_cost_now(spec, a->facility, a->cost_seconds, &plan->model.ns_per_sample,
				&plan->cost_ci95_ns, &plan->cost_rate, &plan->cost_pairs,
				&plan->cost_pairs_left_out, err);
}

int pb_cmd_plan(int argc, char **argv)
{
	struct plan_args a = {.runs = 3, .cost_seconds = 5};
	int rest, rc0 = pb_options_run(&pb_cmd_plan_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	struct pb_error err = {0};
	if (rest >= argc) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "no command to plan for: give it after --, e.g. "
			"pesbench plan --facility timer:cpu-clock --budget 5 -- xz -9 file");
		return pb_cli_report("plan", &err);
	}
	struct pb_spec spec;
	if (pb_spec_parse(a.facility, &spec, &err))
		return pb_cli_report("plan", &err);
	struct pb_plan_request req = {.argv = argv + rest, .facility = a.facility, .spec = &spec,
				      .runs = (unsigned)a.runs};
	struct pb_plan plan = {.budget_pct = a.budget};
	pb_plan_watch_start(&plan);
	if (pb_plan_measure(&req, &plan.model, &plan.base, &err))
		return pb_cli_report("plan", &err);
	pb_plan_watch_probe(&plan);
	if (plan_cost(&a, &spec, &plan, &err) || pb_plan_period(&plan, &err))
		return pb_cli_report("plan", &err);
	pb_plan_watch_probe(&plan);
	pb_plan_period_range(&plan);
	plan.ring_pages = a.ring ? (unsigned)a.ring : plan.period.ring_pages;
	if (!a.json)
		print_plan(&req, &plan, a.ring != 0, a.check);
	if (!a.check) {
		pb_plan_watch_end(&plan);
		if (a.json)
			return pb_cli_print_plan(&req, &plan, NULL);
		print_machine(&plan);
		return PB_EXIT_OK;
	}
	struct pb_plan_checks checks;
	if (pb_plan_check_and_correct(&req, &plan, a.ring != 0, &checks,
				      a.json ? NULL : pb_plan_print_step, &plan, &err))
		return pb_cli_report("plan", &err);
	pb_plan_watch_end(&plan);
	if (a.json)
		return pb_cli_print_plan(&req, &plan, &checks);
	pb_plan_print_recommended(stdout, &plan, &checks);
	char words[320];
	const char *why = pb_plan_stopped_why(&checks, words, sizeof words);
	if (why) {
		printf("%-20s", "  note");
		pb_put_wrapped(stdout, why, 20, 20);
	}
	print_machine(&plan);
	return PB_EXIT_OK;
}
