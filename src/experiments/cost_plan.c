/* What `pesbench plan` asks of the cost experiment: a short sweep on the spot, or the cost a
 * results document holds, refused unless it was measured well enough. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "io/rate_model.h"
#include "io/result_model.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_cost_measure(const struct pb_spec *asked, unsigned runs, uint64_t target_ms,
		    uint64_t budget_ms, struct pb_cost *cost, struct pb_error *err)
{
	memset(cost, 0, sizeof *cost);
	const char *facility = asked->text;
	const struct pb_spec spec = *asked;
	struct pb_suite_options o;
	memset(&o, 0, sizeof o);
	o.runs = runs ? runs : 1;
	struct sweep_setup su;
	if (pb_cost_setup_sweep(&su, facility, &spec, NULL, target_ms, err))
		return -1;
	su.np = pb_cost_periods(&o, &spec, su.periods);
	su.min_rounds = o.runs;
	su.budget_ns = budget_ms * 1000000ull;
	su.design_periods = true;
	struct cost_fit cf;
	if (pb_cost_sweep_mode(&su, PB_DELIVERY_NONE, &cf, err))
		return -1;
	if (!cf.fitted)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the cost sweep of %s gave no fit: %s",
			       facility, cf.why);
	cost->fit = cf.cpu;
	cost->resolved = pb_cost_fit_usable(&cf);
	cost->ns_per_event = cf.per_event ? cf.event_ns : 0;
	cost->theil_sen = cf.ts_slope;
	cost->noise_ns = cf.noise_ns;
	cost->seconds = cf.seconds;
	cost->budget_seconds = cf.budget_seconds;
	/* the whole sweep's: its noise and pilot runs come again before the designed pairs */
	cost->seconds_to_resolve = cf.resolved ? 0 : cf.to_resolve_s + cf.setup_s;
	cost->to_resolve_lower = cf.to_resolve_lower;
	cost->pairs = cf.pairs;
	cost->pairs_left_out = cf.left_out;
	cost->rate = cf.rate;
	pb_format(cost->why, sizeof cost->why, "%s", cf.why);
	return 0;
}

static const struct pb_result_point *none_fit(const struct pb_results *doc, const char *facility)
{
	for (size_t i = 0; i < doc->npoints; i++) {
		const struct pb_result_point *p = doc->points[i];
		const char *kind = pb_rset_get_text(&p->params, "kind");
		const char *del = pb_rset_get_text(&p->params, "delivery");
		if (kind && del && !strcmp(p->experiment, "cost") &&
		    !strcmp(p->facility, facility) && !strcmp(kind, "fit") && !strcmp(del, "none"))
			return p;
	}
	return NULL;
}

static bool get_bool(const struct pb_rset *s, const char *name, bool *value)
{
	const struct pb_rvalue *v = pb_rset_get(s, name);
	if (!v || v->kind != PB_RV_BOOL)
		return false;
	*value = v->as.b;
	return true;
}

void pb_cost_fit_pairs(const struct pb_results *doc, const char *facility, size_t *pairs,
		       size_t *left_out)
{
	const struct pb_result_point *p = none_fit(doc, facility);
	int64_t n = p ? pb_rset_get_int(&p->metrics, "points") : 0;
	int64_t out = p ? pb_rset_get_int(&p->metrics, "pairs_left_out") : 0;
	*pairs = n > 0 ? (size_t)n : 0;
	*left_out = out > 0 ? (size_t)out : 0;
}

int pb_cost_from_results(const struct pb_results *doc, const char *path, const char *facility,
			 double *ns_per_sample, double *ci95_ns, struct pb_rate_model *rate,
			 struct pb_error *err)
{
	const struct pb_result_point *p = none_fit(doc, facility);
	if (!p)
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s has no cost fit for %s in delivery mode none: run `pesbench run "
			       "cost --facility %s` first", path, facility, facility);
	const struct pb_rset *m = &p->metrics;
	bool has_slope, has_ci, has_r2, resolved, event_resolved;
	double slope = pb_rset_get_number(m, "ns_per_sample", &has_slope);
	double ci = pb_rset_get_number(m, "ci95_ns", &has_ci);
	double r2 = pb_rset_get_number(m, "r2", &has_r2);
	const char *error = pb_rset_get_text(&p->params, "error");
	if (error)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "%s: the cost sweep of %s there failed (%s): its figures are not a "
			       "cost; measure it again or leave --costs out", path, facility, error);
	if (!has_slope || !has_ci || !get_bool(m, "resolved", &resolved))
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s: the cost fit of %s there has no resolution figures (ns_per_sample, "
			       "ci95_ns and resolved are needed): it cannot be checked; measure it "
			       "with `pesbench run cost --facility %s`", path, facility, facility);
	/* The file's verdict, and the rule again (a file written under an older, looser rule). */
	struct pb_fit fit = {.slope = slope, .slope_ci95 = ci, .r2 = has_r2 ? r2 : NAN};
	if (!resolved || !pb_fit_resolved(&fit)) {
		char estimate[160], advice[320];
		pb_cost_estimate_text(estimate, sizeof estimate, slope, ci, false, NULL);
		bool has_s;
		double s = pb_rset_get_number(m, "seconds_to_resolve", &has_s);
		if (has_s && isfinite(s))
			pb_format(advice, sizeof advice, "; a cost sweep of about %.0f s would "
				  "resolve it (`pesbench run cost --facility %s --target-ms ...`)", s,
				  facility);
		else
			pb_format(advice, sizeof advice, "; measure it again or leave --costs out");
		return pb_fail_advice(err, PB_EXIT_FAILURE, 0, advice,
				      "%s: the cost of one %s sample there did not resolve (%.1f ± "
				      "%.1f ns per sample, R² %.3f: %s): it was not measured precisely "
				      "enough to plan with", path, facility, slope, ci,
				      has_r2 ? r2 : NAN, estimate);
	}
	if (get_bool(m, "event_resolved", &event_resolved) && !event_resolved) {
		bool has_e;
		double e = pb_rset_get_number(m, "ns_per_event", &has_e);
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "%s: the per-event cost of %s there did not resolve (%.1f ns per "
			       "event): a plan needs both of its costs", path, facility,
			       has_e ? e : NAN);
	}
	*ns_per_sample = slope;
	*ci95_ns = ci;
	if (rate)
		pb_rate_model_read(m, rate);
	return 0;
}
