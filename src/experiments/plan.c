/* `pesbench plan`'s measurements: the command alone and counted, the cost of one sample, and
 * the check of a plan against a run at its period. */
#include "experiments/plan.h"

#include "analysis/stats.h"
#include "facilities/machine.h"
#include "io/results.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pb_plan_facilities(char *out, size_t len)
{
	out[0] = '\0';
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++)
		if (!(*f)->needs_address)
			pb_append(out, len, "%s%s", out[0] ? ", " : "", (*f)->name);
}

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

int pb_plan_measure(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		    struct pb_program_figures *base, struct pb_error *err)
{
	const struct pb_facility *facility = req->spec->facility;
	if (facility->needs_address) {
		char whole[160];
		pb_plan_facilities(whole, sizeof whole);
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s needs an address inside the command, "
			       "which plan cannot choose; plan a facility that samples a whole "
			       "program (%s)", req->facility, whole);
	}
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), req->spec, NULL, &av, NULL);
	if (!av.available)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s is not available here: %s",
			       req->facility, av.reason);
	/* The command alone, then its event count (timers need none). */
	if (measure_median(req->argv, NULL, 0, 0, req->runs, base, err))
		return -1;
	/* CPU time: the cost is measured in the command's CPU time, and other programs' load
	 * on the machine does not move it. */
	*model = (struct pb_slowdown_model){
		.baseline_ns = (double)base->cpu_ns,
		.time_based = facility->time_based,
		.min_period = facility->min_period,
		.record_bytes = 48, /* header, ip, pid/tid, time (32), with room to spare */
	};
	if (!model->time_based) {
		struct pb_program_figures counted;
		if (measure_median(req->argv, req->spec, 0, 0, req->runs, &counted, err))
			return -1;
		model->events = (double)counted.count;
	}
	return 0;
}

int pb_plan_cost_from_file(const char *path, const char *facility, double *cost,
			   struct pb_error *err)
{
	struct pb_results doc;
	if (pb_results_load(path, &doc, err))
		return -1;
	int rc = pb_cost_from_results(&doc, path, facility, cost, err);
	pb_results_free(&doc);
	return rc;
}

/* The noise and a pilot measured first size the sweep; a cost that does not resolve fails
 * rather than plan on noise. */
int pb_plan_cost_now(const struct pb_spec *spec, const char *facility, uint64_t seconds,
		     double *cost, struct pb_error *err)
{
	struct pb_cost c;
	if (pb_cost_measure(spec, 1, 30, seconds * 1000, &c, err))
		return -1;
	if (c.resolved) {
		*cost = c.fit.slope;
		return 0;
	}
	return pb_plan_cost_refused(&c, facility, err);
}

int pb_plan_cost_refused(const struct pb_cost *c, const char *facility, struct pb_error *err)
{
	char estimate[160];
	pb_format(estimate, sizeof estimate, "%.1f ± %.1f ns per sample (95 %% CI), R² %.3f",
		  c->fit.slope, c->fit.slope_ci95, c->fit.r2);
	pb_fail(err, PB_EXIT_FAILURE, 0,
		"the cost of one %s sample could not be measured precisely enough on this machine "
		"in %.1f s: %s (run-to-run noise %.0f ns): %s", facility, c->seconds, estimate,
		c->noise_ns, c->why[0] ? c->why : "not resolved");
	/* 20 % over the estimate: it comes from a CI that is itself an estimate */
	double ask = ceil(c->seconds_to_resolve * 1.2);
	if (isfinite(c->seconds_to_resolve) && ask <= 3600)
		pb_append(err->msg, sizeof err->msg, ". A sweep of %s%.0f s would resolve it: "
			  "--cost-seconds %.0f", c->to_resolve_lower ? "more than " : "",
			  c->seconds_to_resolve, ask);
	else if (isfinite(c->seconds_to_resolve))
		pb_append(err->msg, sizeof err->msg, ". A sweep of %s%.0f s would resolve it, more "
			  "than --cost-seconds allows (3600): measure on a quieter machine",
			  c->to_resolve_lower ? "more than " : "", c->seconds_to_resolve);
	else if (pb_fit_resolved(&c->fit))
		/* narrow enough, but the two estimators disagree: the pairs bend */
		pb_append(err->msg, sizeof err->msg, ". The interval is narrow enough, but the cost "
			  "of a sample differs between the sweep's periods on this machine now, which "
			  "a longer sweep does not mend: measure again later, or on a quieter machine");
	else
		pb_append(err->msg, sizeof err->msg, ". No cost was seen above the noise to size a "
			  "longer sweep for: measure on a quieter machine");
	return -1;
}

/* The check re-measures the baseline, interleaved with the sampled runs, so that a machine that
 * got busier or quieter since the plan moves both alike. */
int pb_plan_check(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		  uint64_t period, unsigned ring_pages, struct pb_plan_check *out,
		  struct pb_error *err)
{
	double cpus[64], bases[64], samples[64], lost[64];
	unsigned runs = req->runs;
	for (unsigned i = 0; i < runs; i++) {
		struct pb_program_figures b, f;
		if (pb_program_measure(req->argv, NULL, 0, 0, &b, err) ||
		    pb_program_measure(req->argv, req->spec, period, ring_pages, &f, err))
			return -1;
		bases[i] = (double)b.cpu_ns;
		cpus[i] = (double)f.cpu_ns;
		samples[i] = (double)f.samples;
		lost[i] = (double)f.lost;
	}
	memset(out, 0, sizeof *out);
	out->sampled.cpu_ns = (uint64_t)pb_median(cpus, runs);
	out->sampled.samples = (uint64_t)pb_median(samples, runs);
	out->sampled.lost = (uint64_t)pb_median(lost, runs);
	model->baseline_ns = out->baseline_ns = pb_median(bases, runs);
	/* The same model as the plan: samples from the period, not from the run. */
	out->predicted_ns = pb_model_time_ns(model, period);
	out->predicted_pct = (out->predicted_ns - model->baseline_ns) / model->baseline_ns * 100.0;
	out->measured_pct = ((double)out->sampled.cpu_ns - model->baseline_ns) /
			    model->baseline_ns * 100.0;
	out->within = pb_slowdown_within(out->predicted_pct, out->measured_pct);
	return 0;
}
