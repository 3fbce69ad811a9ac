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
#include "present/report.h"
#include "util/kit.h"
#include "util/text.h"

#include <errno.h>
#include <jansson.h>
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

static int cost_from_file(const char *arg, const char *facility, double *cost,
			  struct pb_error *err)
{
	char path[4200], dir[4200];
	pb_results_locate(arg, path, sizeof path, dir, sizeof dir);
	struct pb_results doc;
	if (pb_results_load(path, &doc, err))
		return -1;
	int rc = pb_cost_from_results(&doc, path, facility, cost, err);
	pb_results_free(&doc);
	return rc;
}

/* The cost of one sample from a sweep on the spot, designed to resolve within seconds (the
 * noise and a pilot measured first size it); a cost that does not resolve fails rather than
 * plan on noise, with its interval and the time a sweep that resolves it would need. */
static int measure_cost(const char *facility, const struct pb_spec *spec, uint64_t seconds,
			double *cost, struct pb_error *err)
{
	fflush(stdout);
	fprintf(stderr, "measuring the cost of one %s sample (noise, pilot, then a sweep sized to "
		"resolve it, up to %llu s)...\n", facility, (unsigned long long)seconds);
	struct pb_cost c;
	if (pb_cost_measure(spec, 1, 30, seconds * 1000, &c, err))
		return -1;
	if (c.resolved) {
		*cost = c.fit.slope;
		return 0;
	}
	char estimate[160];
	pb_format(estimate, sizeof estimate, "%.1f ± %.1f ns per sample (95 %% CI), R² %.3f",
		  c.fit.slope, c.fit.slope_ci95, c.fit.r2);
	pb_fail(err, PB_EXIT_FAILURE, 0,
		"the cost of one %s sample could not be measured precisely enough on this machine "
		"in %.1f s: %s (run-to-run noise %.0f ns); a plan needs slope > 0 and a CI within "
		"%.0f %% of it", facility, c.seconds, estimate, c.noise_ns, PB_FIT_MAX_REL_CI * 100);
	/* 20 % over the estimate: it comes from a CI that is itself an estimate */
	double ask = ceil(c.seconds_to_resolve * 1.2);
	if (isfinite(c.seconds_to_resolve) && ask <= 3600)
		pb_append(err->msg, sizeof err->msg, ". A sweep of %s%.0f s would resolve it: "
			  "--cost-seconds %.0f", c.to_resolve_lower ? "more than " : "",
			  c.seconds_to_resolve, ask);
	else if (isfinite(c.seconds_to_resolve))
		pb_append(err->msg, sizeof err->msg, ". A sweep of %s%.0f s would resolve it, more "
			  "than --cost-seconds allows (3600): measure on a quieter machine",
			  c.to_resolve_lower ? "more than " : "", c.seconds_to_resolve);
	else
		pb_append(err->msg, sizeof err->msg, ". No cost was seen above the noise to size a "
			  "longer sweep for: measure on a quieter machine");
	return -1;
}

int pb_cmd_plan(int argc, char **argv)
{
	struct plan_args a = {.runs = 3, .cost_seconds = 5};
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
		if (measure_cost(facility, &spec, a.cost_seconds, &model.ns_per_sample, &err))
			return pb_cli_report("plan", &err);
		cost_source = "a sweep just now";
	}
	struct pb_budget_period plan;
	if (pb_period_for_budget(&model, budget, &plan, &err))
		return pb_cli_report("plan", &err);
	unsigned ring_pages = ring ? (unsigned)ring : plan.ring_pages;

	json_t *doc = json_pack("{s:s, s:s, s:f, s:I, s:f, s:f, s:s, s:f, s:I, s:s, s:f, s:f, s:f, "
				"s:i}",
				"command", cmd[0], "facility", facility,
				"baseline_cpu_ns", model.baseline_ns, "runs", (json_int_t)runs,
				"events", model.time_based ? 0.0 : model.events,
				"ns_per_sample", model.ns_per_sample, "cost_source", cost_source,
				"budget_pct", budget, "period", (json_int_t)plan.period,
				"period_unit", model.time_based ? "ns" : "events",
				"predicted_samples", plan.samples, "predicted_ns", plan.predicted_ns,
				"predicted_overhead_pct", plan.overhead_pct, "ring_pages",
				(int)ring_pages);
	if (!a.json) {
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
	}
	if (!check)
		return a.json ? pb_cli_print_json("plan", doc, 2) : (json_decref(doc), PB_EXIT_OK);

	/* The check re-measures the baseline, interleaved with the sampled runs, so that a
	 * machine that got busier or quieter since the plan moves both alike. */
	double cpus[64], bases[64], samples[64], lost[64];
	for (unsigned i = 0; i < runs; i++) {
		struct pb_program_figures b, f;
		if (pb_program_measure(cmd, NULL, 0, 0, &b, &err) ||
		    pb_program_measure(cmd, &spec, plan.period, ring_pages, &f, &err)) {
			json_decref(doc);
			return pb_cli_report("plan", &err);
		}
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
	double predicted_pct = (predicted - model.baseline_ns) / model.baseline_ns * 100.0;
	double measured_pct = ((double)sampled.cpu_ns - model.baseline_ns) / model.baseline_ns *
			      100.0;
	bool within = pb_slowdown_within(predicted_pct, measured_pct);
	if (a.json) {
		json_object_set_new(doc, "check", json_pack(
			"{s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:b}",
			"samples", (json_int_t)sampled.samples, "lost", (json_int_t)sampled.lost,
			"baseline_cpu_ns", model.baseline_ns, "predicted_ns", predicted,
			"measured_ns", (double)sampled.cpu_ns, "predicted_slowdown_pct",
			predicted_pct, "measured_slowdown_pct", measured_pct, "slowdown_error_pp",
			predicted_pct - measured_pct, "slowdown_tolerance_pp",
			pb_slowdown_tolerance_pp(measured_pct), "slowdown_within", within,
			"within_budget", measured_pct <= budget));
		return pb_cli_print_json("plan", doc, 2);
	}
	json_decref(doc);
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
	printf("  slowdown          predicted %.2f %%, measured %.2f %%: %+.2f pp (%s ±%.2f pp)\n",
	       predicted_pct, measured_pct, predicted_pct - measured_pct,
	       within ? "within" : "outside", pb_slowdown_tolerance_pp(measured_pct));
	return PB_EXIT_OK;
}
