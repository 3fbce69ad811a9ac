/* `pesbench plan`: choose a period (and a ring) for an overhead budget. The command's run time
 * without perf is measured, its event rate with a counting event on it (a timer's rate is
 * 1/period by definition, so the run time is all it needs), and the cost of one sample is taken
 * from a short cost sweep on the spot or from a results.json of `pesbench run cost`. The
 * model (experiments/predict.h) then gives the smallest period whose predicted overhead fits
 * the budget; --check runs the command at that period and prints predicted vs measured. */
#include "analysis/stats.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/predict.h"
#include "facilities/facility.h"
#include "io/results.h"
#include "util/kit.h"
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
	bool budget_given, check;
	uint64_t ring, runs;
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

#define ARG(field, type) PB_AT(struct plan_args, field, type)

static const struct pb_opt plan_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_STRING, .at = ARG(facility, const char *),
	 .required = "--facility is required (e.g. --facility timer:cpu-clock)",
	 .help = "a facility that can sample a whole program: timer:cpu-clock, timer:task-clock, "
		 "sw:EVENT, hw:EVENT, pebs:..., ibs-op, ..."},
	{.name = "budget", .arg = "PCT", .kind = PB_OPT_CALL, .parse = set_budget, .example = "5",
	 .given_at = PB_GIVEN(struct plan_args, budget_given),
	 .required = "--budget is required: the allowed time overhead in percent, e.g. --budget 5",
	 .help = "allowed time overhead in percent (> 0), e.g. 5"},
	{.name = "ring", .arg = "PAGES", .kind = PB_OPT_CALL, .parse = set_ring, .example = "8",
	 .help = "data pages per ring for the check run (default: recommended)"},
	{.name = "check", .kind = PB_OPT_FLAG, .at = ARG(check, bool),
	 .help = "run CMD at the recommended period; print predicted vs measured"},
	{.name = "costs", .arg = "FILE", .kind = PB_OPT_STRING, .at = ARG(costs, const char *),
	 .help = "take the cost of one sample from a results.json written by `pesbench run cost` "
		 "(its delivery-none fit for this facility) instead of measuring it now (a ~2 s "
		 "sweep, longer when the machine is noisy; plan fails when the cost does not "
		 "resolve)"},
	{.name = "runs", .arg = "N", .kind = PB_OPT_U64, .at = ARG(runs, uint64_t), .min = 1,
	 .max = 64, .help = "runs of CMD per measurement, median taken (default 3)"},
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
	.options = plan_options,
	.args_size = sizeof(struct plan_args),
	.positional = no_operand,
	.takes_command = true,
	.epilogue =
		"CMD runs as given with its output discarded; it must exit 0. Only its main thread\n"
		"is counted and sampled (no inherit).\n",
};

/* Median wall time (and samples, lost, count) of runs of argv. */
static int measure_median(char *const *argv, const struct pb_spec *spec, uint64_t period,
			  unsigned ring, unsigned runs, struct pb_program_figures *med,
			  struct pb_error *err)
{
	double wall[64], cpu[64], samples[64], lost[64], count[64];
	for (unsigned r = 0; r < runs; r++) {
		struct pb_program_figures f;
		if (pb_program_measure(argv, spec, period, ring, &f, err))
			return -1;
		wall[r] = (double)f.wall_ns;
		cpu[r] = (double)f.cpu_ns;
		samples[r] = (double)f.samples;
		lost[r] = (double)f.lost;
		count[r] = (double)f.count;
	}
	memset(med, 0, sizeof *med);
	med->wall_ns = (uint64_t)pb_median(wall, runs);
	med->cpu_ns = (uint64_t)pb_median(cpu, runs);
	med->samples = (uint64_t)pb_median(samples, runs);
	med->lost = (uint64_t)pb_median(lost, runs);
	med->count = (uint64_t)pb_median(count, runs);
	return 0;
}

static int cost_from_file(const char *path, const char *facility, double *cost,
			  struct pb_error *err)
{
	struct pb_results doc;
	if (pb_results_load(path, &doc, err))
		return -1;
	int rc = pb_fail(err, PB_EXIT_BAD_FILE, 0,
			 "%s has no cost fit for %s in delivery mode none: run `pesbench run cost "
			 "--facility %s` first", path, facility, facility);
	for (size_t i = 0; i < doc.npoints; i++) {
		const struct pb_result_point *p = doc.points[i];
		const char *kind = pb_rset_get_text(&p->params, "kind");
		const char *del = pb_rset_get_text(&p->params, "delivery");
		const struct pb_rset *m = &p->metrics;
		bool is_cost;
		double slope = pb_rset_get_number(m, "ns_per_sample", &is_cost);
		if (kind && del && !strcmp(p->experiment, "cost") && !strcmp(p->facility, facility) &&
		    !strcmp(kind, "fit") && !strcmp(del, "none") && is_cost) {
			*cost = slope;
			pb_error_clear(err);
			rc = 0;
			/* The file's verdict, and the rule again where its figures are there (a
			 * file written under an older, looser rule); a bare cost is taken as is. */
			bool has_ci, has_r2;
			double ci = pb_rset_get_number(m, "ci95_ns", &has_ci);
			double r2 = pb_rset_get_number(m, "r2", &has_r2);
			struct pb_fit fit = {.slope = *cost, .slope_ci95 = ci, .r2 = r2};
			const struct pb_rvalue *resolved = pb_rset_get(m, "resolved");
			bool said_unresolved = resolved && resolved->kind == PB_RV_BOOL &&
					       !resolved->as.b;
			if (said_unresolved || (has_ci && has_r2 && !pb_fit_resolved(&fit)))
				rc = pb_fail(err, PB_EXIT_FAILURE, 0,
					     "%s: the cost of one %s sample there did not resolve "
					     "(%.1f ± %.1f ns per sample, R² %.3f): it was not measured "
					     "precisely enough to plan with; measure it again (`pesbench "
					     "run cost` with more --runs or --target-ms) or leave --costs "
					     "out", path, facility, *cost, has_ci ? ci : NAN,
					     has_r2 ? r2 : NAN);
			break;
		}
	}
	pb_results_free(&doc);
	return rc;
}

/* The cost of one sample from a sweep on the spot, used only when its fit resolves: a short
 * sweep, then once a longer one (more runs, longer runs) when the machine is too noisy for it.
 * A cost that still does not resolve fails rather than plan on noise. */
static int measure_cost(const char *facility, double *cost, struct pb_error *err)
{
	/* The cost experiment's method (paired runs, CPU time, rounds until the fit resolves),
	 * with a short budget, then once a longer one with longer runs. */
	static const struct {
		unsigned rounds;
		uint64_t target_ms, budget_ms;
	} tries[] = {{2, 30, 3000}, {3, 100, 10000}};
	struct pb_cost c;
	struct pb_fit fit = {0};
	for (size_t t = 0; t < PB_ARRAY_SIZE(tries); t++) {
		fflush(stdout);
		fprintf(stderr, "measuring the cost of one %s sample (%s sweep: paired runs of "
			"%llu ms, up to %.0f s)...\n", facility, t ? "longer" : "short",
			(unsigned long long)tries[t].target_ms, tries[t].budget_ms / 1e3);
		if (pb_cost_measure(facility, tries[t].rounds, tries[t].target_ms,
				    tries[t].budget_ms, &c, err))
			return -1;
		fit = c.fit;
		if (c.resolved) {
			*cost = fit.slope;
			return 0;
		}
		fprintf(stderr, "the cost did not resolve: %s\n", c.why);
	}
	return pb_fail(err, PB_EXIT_FAILURE, 0,
		       "the cost of one %s sample could not be measured precisely enough on this "
		       "machine: %.1f ± %.1f ns per sample (95 %% CI), R² %.3f; a plan needs slope "
		       "> 0, R² >= %.2g and a CI within %.0f %% of the slope. Measure it on a quieter "
		       "machine or with `pesbench run cost` and pass --costs", facility, fit.slope,
		       fit.slope_ci95, fit.r2, PB_FIT_MIN_R2, PB_FIT_MAX_REL_CI * 100);
}

int pb_cmd_plan(int argc, char **argv)
{
	struct plan_args a = {.runs = 3};
	int rest, rc0 = pb_options_run(&pb_cmd_plan_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	const char *facility = a.facility, *costs = a.costs;
	double budget = a.budget;
	bool check = a.check;
	uint64_t ring = a.ring, runs = a.runs;
	struct pb_error err = {0};
	if (rest >= argc) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "no command to plan for: give it after --, e.g. "
			"pesbench plan --facility timer:cpu-clock --budget 5 -- xz -9 file");
		return pb_cli_report("plan", &err);
	}
	char **cmd = argv + rest;

	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, &err))
		return pb_cli_report("plan", &err);
	if (spec.facility->needs_address) {
		char whole[160] = "";
		for (const struct pb_facility *const *f = pb_facility_list(); *f; f++)
			if (!(*f)->needs_address)
				pb_append(whole, sizeof whole, "%s%s", whole[0] ? ", " : "",
					  (*f)->name);
		pb_fail(&err, PB_EXIT_USAGE, 0, "%s needs an address inside the command, which plan "
			"cannot choose; plan a facility that samples a whole program (%s)", facility,
			whole);
		return pb_cli_report("plan", &err);
	}
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), &spec, NULL, &av, NULL);
	if (!av.available) {
		pb_fail(&err, PB_EXIT_UNAVAILABLE, 0, "%s is not available here: %s", facility,
			av.reason);
		return pb_cli_report("plan", &err);
	}

	/* The command alone, then its event count (timers need none). */
	struct pb_program_figures base, counted = {0};
	if (measure_median(cmd, NULL, 0, 0, (unsigned)runs, &base, &err))
		return pb_cli_report("plan", &err);
	/* CPU time: the cost is measured in the command's CPU time, and other programs' load
	 * on the machine does not move it. */
	struct pb_slowdown_model model = {
		.baseline_ns = (double)base.cpu_ns,
		.time_based = spec.facility->time_based,
		.min_period = spec.facility->min_period,
		.record_bytes = 48, /* header, ip, pid/tid, time (32), with room to spare */
	};
	if (!model.time_based) {
		if (measure_median(cmd, &spec, 0, 0, (unsigned)runs, &counted, &err))
			return pb_cli_report("plan", &err);
		model.events = (double)counted.count;
	}
	const char *cost_source = costs;
	if (costs) {
		if (cost_from_file(costs, facility, &model.ns_per_sample, &err))
			return pb_cli_report("plan", &err);
	} else {
		if (measure_cost(facility, &model.ns_per_sample, &err))
			return pb_cli_report("plan", &err);
		cost_source = "a sweep just now";
	}
	struct pb_budget_period plan;
	if (pb_period_for_budget(&model, budget, &plan, &err))
		return pb_cli_report("plan", &err);
	unsigned ring_pages = ring ? (unsigned)ring : plan.ring_pages;

	printf("command:            %s%s\n", cmd[0], cmd[1] ? " ..." : "");
	printf("CPU time, no perf:  %.3f ms (median of %llu; wall %.3f ms)\n",
	       model.baseline_ns / 1e6, (unsigned long long)runs, (double)base.wall_ns / 1e6);
	if (model.time_based)
		printf("event rate:         1 per period of the command's CPU time (timer)\n");
	else
		printf("events:             %.0f (%.3g per second)\n", model.events,
		       model.events / (model.baseline_ns / 1e9));
	printf("cost of a sample:   %.1f ns (from %s)\n", model.ns_per_sample, cost_source);
	printf("budget:             %.3g %%\n", budget);
	printf("period:             %llu%s\n", (unsigned long long)plan.period,
	       model.time_based ? " ns" : " events");
	printf("predicted:          %.0f samples, %.3f ms, overhead %.2f %%\n", plan.samples,
	       plan.predicted_ns / 1e6, plan.overhead_pct);
	printf("ring:               %u data pages%s\n", ring_pages,
	       ring ? " (--ring)" : " (100 ms of samples)");
	if (!check)
		return PB_EXIT_OK;

	/* The check re-measures the baseline, interleaved with the sampled runs, so that a
	 * machine that got busier or quieter since the plan moves both alike. */
	double cpus[64], bases[64], samples[64], lost[64];
	for (unsigned i = 0; i < runs; i++) {
		struct pb_program_figures b, f;
		if (pb_program_measure(cmd, NULL, 0, 0, &b, &err) ||
		    pb_program_measure(cmd, &spec, plan.period, ring_pages, &f, &err))
			return pb_cli_report("plan", &err);
		bases[i] = (double)b.cpu_ns;
		cpus[i] = (double)f.cpu_ns;
		samples[i] = (double)f.samples;
		lost[i] = (double)f.lost;
	}
	struct pb_program_figures sampled = {
		.cpu_ns = (uint64_t)pb_median(cpus, runs),
		.samples = (uint64_t)pb_median(samples, runs),
		.lost = (uint64_t)pb_median(lost, runs),
	};
	model.baseline_ns = pb_median(bases, runs);
	/* The same model as the plan: samples from the period, not from the run. */
	double predicted = pb_model_time_ns(&model, plan.period);
	double measured_pct = ((double)sampled.cpu_ns - model.baseline_ns) / model.baseline_ns *
			      100.0;
	printf("check:              %llu samples, %llu lost (medians of %llu runs)\n",
	       (unsigned long long)sampled.samples, (unsigned long long)sampled.lost,
	       (unsigned long long)runs);
	printf("  baseline again    %.3f ms CPU (interleaved with the sampled runs)\n",
	       model.baseline_ns / 1e6);
	printf("  predicted time    %.3f ms CPU (the plan's model at this period)\n",
	       predicted / 1e6);
	printf("  measured time     %.3f ms CPU, overhead %.2f %% (%s the %.3g %% budget)\n",
	       (double)sampled.cpu_ns / 1e6, measured_pct,
	       measured_pct <= budget ? "within" : "OVER", budget);
	printf("  prediction error  %+.2f %%\n",
	       pb_prediction_error_pct((double)sampled.cpu_ns, predicted));
	return PB_EXIT_OK;
}
