/* The cost fit of one sweep: least squares of the sampled runs' extra CPU time on their samples,
 * weighted by the design's noise model, Theil–Sen beside it, the per-event cost of a trapping
 * facility from the intercept, and the fit's result point. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The baseline a sampled run is set against: the median of its partner's and the partners of
 * the LOCAL_PAIRS pairs measured before and after it. The CPU time of the same work varies by
 * ~1 % from run to run here, with the machine's load rather than with time, so one partner
 * alone doubles that noise in every difference; the median of five keeps most of it out while
 * still following a machine that drifts over the sweep. */
#define LOCAL_PAIRS 2

static double local_baseline(const double *base, size_t n, size_t i)
{
	return pb_window_median(base, n, i, LOCAL_PAIRS);
}

/* One run's noise from the sweep's runs without perf: the noise pairs' figure again, from
 * every pair's partner run in the order they ran, as the mean square of successive
 * differences over two (a drift over the sweep moves it by the square of a step only), at
 * n - 1 degrees of freedom; the pairs left out as disturbed are left out here too. Four noise
 * pairs gave 0.16 to 8.0 % of a run in six default suites of one afternoon (kind A,
 * 2026-11-27): one disturbed pair of four carries that figure. The fit's residuals would
 * hold the sampled runs' own noise too (in one suite sw's gave 1.8 % of a run, where its four
 * noise pairs gave 0.5). */
static void run_noise_of(const double *base, const bool *left_out, size_t n, struct cost_fit *cf)
{
	cf->run_noise_ns = NAN;
	cf->run_noise_df = 0;
	double sum = 0, last = NAN;
	size_t steps = 0;
	for (size_t i = 0; i < n; i++) {
		if (left_out[i] || !(base[i] > 0))
			continue;
		if (!isnan(last)) {
			sum += (base[i] - last) * (base[i] - last);
			steps++;
		}
		last = base[i];
	}
	if (steps < 2)
		return;
	cf->run_noise_ns = sqrt(sum / (2.0 * (double)steps));
	cf->run_noise_df = steps;
}

/* The cost at each period of the sweep, shortest period first, from its pairs' x (samples) and
 * y (extra CPU time). */
static void costs_by_period(const struct sweep *sw, const double *x, const double *y,
			    const bool *left_out, struct cost_fit *cf)
{
	cf->nby_period = 0;
	/* a trapping facility's extra time holds every event's trap: y / x is no cost of a sample */
	if (cf->per_event)
		return;
	double *extra = malloc(sw->n * sizeof *extra), *samples = malloc(sw->n * sizeof *samples);
	for (size_t i = 0; extra && samples && i < sw->n; i++) {
		uint64_t period = sw->p[i].period;
		unsigned at = 0;
		while (at < cf->nby_period && cf->by_period[at].period < period)
			at++;
		if ((at < cf->nby_period && cf->by_period[at].period == period) ||
		    cf->nby_period == PB_ARRAY_SIZE(cf->by_period))
			continue;
		unsigned n = 0;
		double sum_samples = 0;
		for (size_t j = i; j < sw->n; j++) {
			if (sw->p[j].period != period || left_out[j])
				continue;
			extra[n] = y[j];
			samples[n++] = x[j];
			sum_samples += x[j];
		}
		if (!n)
			continue;
		memmove(&cf->by_period[at + 1], &cf->by_period[at],
			(cf->nby_period++ - at) * sizeof cf->by_period[0]);
		struct pb_period_cost *b = &cf->by_period[at];
		b->period = period;
		b->samples = sum_samples / n;
		b->pairs = pb_paired_sample_cost(extra, samples, n, &b->ns, &b->ci95);
	}
	free(extra);
	free(samples);
}

/* The size of each pair's noise, up to a common factor, as the design sizes it
 * (pb_cost_design_size): a run's noise is in proportion to its length, so a sampled run
 * twice as long as its baseline is twice as noisy, and its baseline, the median of five
 * partners, adds PB_LOCAL_BASELINE_VARIANCE of a baseline run's variance. The sampled run's
 * expected length is its local baseline plus the extra time the unweighted line gives it.
 * Unweighted least squares takes every pair's noise as the same, and its interval held the
 * cost in 90.5 % of 400 simulated sweeps with noise of the design's shape, where this weighting
 * holds it in 95 % (test_fit_interval_coverage). Returns false, scale unset, when the line
 * cannot be fitted or a run's expected length is not above 0. */
static bool noise_scales(const double *x, const double *y, const double *baseline, size_t n,
			 double *scale)
{
	struct pb_fit line;
	if (pb_linear_fit(x, y, n, &line))
		return false;
	for (size_t i = 0; i < n; i++) {
		double run = baseline[i] + line.intercept + line.slope * x[i];
		if (!(run > 0) || !isfinite(run))
			return false;
		scale[i] = sqrt(run * run + PB_LOCAL_BASELINE_VARIANCE * baseline[i] * baseline[i]);
	}
	return true;
}

/* Leaves out of the fit the pairs a disturbance moved (PB_DISTURBED_ALPHA; at most one in
 * PB_DISTURBED_MAX_SHARE), noting them in cf; returns the pairs kept. How far off they sat is
 * measured from the fit of the rest once it is made (place_left_out). scale: room for sw->n
 * noise scales, overwritten. */
static size_t leave_out_disturbed(const struct sweep *sw, const double *x, const double *y,
				  const double *local, double *scale, bool *left_out,
				  struct cost_fit *cf)
{
	/* each pair's test is scaled by its noise as the line of all pairs expects it (the
	 * design's model, as the fit weighs it) */
	bool scaled = noise_scales(x, y, local, sw->n, scale);
	/* one more than may be left out: that many far above is the noise's shape */
	const size_t most = sw->n / PB_DISTURBED_MAX_SHARE;
	cf->left_out = most ? pb_fit_outliers(x, y, scaled ? scale : NULL, sw->n,
					      PB_DISTURBED_ALPHA, most + 1, PB_OUTLIERS_ABOVE,
					      left_out)
			    : 0;
	cf->far_above = cf->left_out > most;
	if (cf->far_above) {
		for (size_t i = 0; i < sw->n; i++)
			left_out[i] = false;
		cf->left_out = 0;
	}
	for (size_t i = 0, k = 0; i < sw->n && k < PB_ARRAY_SIZE(cf->left_out_index); i++)
		if (left_out[i])
			cf->left_out_index[k++] = (uint16_t)i;
	size_t d = 0;
	for (size_t i = 0; i < sw->n && d < PB_ARRAY_SIZE(cf->left_out_pairs); i++)
		if (left_out[i])
			cf->left_out_pairs[d++] = (struct pb_left_out_pair){
				.period = sw->p[i].period, .samples = x[i], .extra_ns = y[i],
				.run_ns = sw->p[i].cpu, .off_ns = NAN, .share = NAN};
	return sw->n - cf->left_out;
}

/* How far the left-out pairs sat from the fit of the rest, which is cf->cpu. */
static void place_left_out(struct cost_fit *cf)
{
	for (size_t d = 0; d < cf->left_out && d < PB_ARRAY_SIZE(cf->left_out_pairs); d++) {
		struct pb_left_out_pair *o = &cf->left_out_pairs[d];
		o->off_ns = o->extra_ns - cf->cpu.intercept - cf->cpu.slope * o->samples;
		o->share = o->run_ns > 0 ? o->off_ns / o->run_ns : NAN;
	}
}

/* The rate model (struct pb_rate_model) of the kept pairs: x samples, y extra CPU time,
 * period each pair's period, scale its noise's (NULL: unweighted). */
static void fit_rate_model(const double *x, const double *y, const double *period,
			   const double *scale, size_t n, struct cost_fit *cf)
{
	struct pb_rate_model *rm = &cf->rate;
	memset(rm, 0, sizeof *rm);
	if (cf->per_event || !n)
		return;
	double lo = period[0], hi = period[0];
	for (size_t i = 1; i < n; i++) {
		lo = fmin(lo, period[i]);
		hi = fmax(hi, period[i]);
	}
	unsigned distinct = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < i && period[j] != period[i])
			j++;
		distinct += j == i;
	}
	double *x2 = malloc(n * sizeof *x2);
	if (!x2 || distinct < 3 || !(lo > 0)) {
		free(x2);
		return;
	}
	for (size_t i = 0; i < n; i++)
		x2[i] = x[i] * log10(period[i] / lo);
	rm->fitted = !pb_weighted_linear_fit2(x, x2, y, scale, n, &rm->fit);
	free(x2);
	if (!rm->fitted)
		return;
	rm->ref_period = (uint64_t)lo;
	rm->top_period = (uint64_t)hi;
	double ci, per_decade = pb_rate_model_per_decade(rm, &ci);
	rm->dependent = fabs(per_decade) > ci;
}

double pb_cost_at_period(const struct cost_fit *cf, uint64_t period, double *ci95)
{
	if (!cf->rate.dependent || !period) {
		if (ci95)
			*ci95 = cf->cpu.slope_ci95;
		return cf->cpu.slope;
	}
	return pb_rate_model_at(&cf->rate, period, ci95);
}

/* v's kept entries moved to its front, in order */
static void compact(double *v, const bool *left_out, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!left_out[i])
			v[k++] = v[i];
}

void pb_cost_fit_sweep(const struct sweep *sw, bool per_event, struct cost_fit *cf)
{
	double *x = malloc(sw->n * sizeof *x), *y = malloc(sw->n * sizeof *y),
	       *yw = malloc(sw->n * sizeof *yw), *b = malloc(sw->n * sizeof *b),
	       *bw = malloc(sw->n * sizeof *bw), *period = malloc(sw->n * sizeof *period),
	       *local = malloc(sw->n * sizeof *local), *scale = malloc(sw->n * sizeof *scale);
	bool *left_out = calloc(sw->n ? sw->n : 1, sizeof *left_out);
	cf->fitted = cf->resolved = cf->wall_fitted = cf->disagree = cf->weighted = false;
	cf->per_event = per_event;
	cf->pairs = sw->n;
	cf->left_out = 0;
	cf->far_above = false;
	cf->why[0] = 0;
	memset(&cf->rate, 0, sizeof cf->rate);
	if (!x || !y || !yw || !b || !bw || !period || !local || !scale || !left_out ||
	    sw->n == 0) {
		pb_format(cf->why, sizeof cf->why, "no pairs measured");
		goto out;
	}
	double events = 0;
	for (size_t i = 0; i < sw->n; i++) {
		b[i] = sw->p[i].base_cpu;
		bw[i] = sw->p[i].base_wall;
	}
	for (size_t i = 0; i < sw->n; i++) {
		x[i] = pb_cost_pair_samples(&sw->p[i]);
		local[i] = local_baseline(b, sw->n, i);
		y[i] = sw->p[i].cpu - local[i];
		yw[i] = sw->p[i].wall - local_baseline(bw, sw->n, i);
	}
	cf->baseline_cpu = pb_median(b, sw->n);
	cf->baseline_wall = pb_median(bw, sw->n);
	size_t kept = leave_out_disturbed(sw, x, y, local, scale, left_out, cf);
	for (size_t i = 0; i < sw->n; i++)
		events += left_out[i] ? 0 : sw->p[i].events;
	cf->events = events / (double)kept;
	costs_by_period(sw, x, y, left_out, cf);
	for (size_t i = 0; i < sw->n; i++)
		period[i] = (double)sw->p[i].period;
	compact(x, left_out, sw->n);
	compact(y, left_out, sw->n);
	compact(yw, left_out, sw->n);
	compact(period, left_out, sw->n);
	compact(local, left_out, sw->n);
	cf->weighted = noise_scales(x, y, local, kept, scale);
	const double *weights = cf->weighted ? scale : NULL;
	if (pb_weighted_linear_fit(x, y, weights, kept, &cf->cpu)) {
		pb_format(cf->why, sizeof cf->why,
			  "no fit: fewer than 3 pairs or the same number of samples in every run");
		goto out;
	}
	cf->fitted = true;
	run_noise_of(b, left_out, sw->n, cf);
	place_left_out(cf);
	fit_rate_model(x, y, period, weights, kept, cf);
	/* the wall time's noise scales with the same runs */
	cf->wall_fitted = !pb_weighted_linear_fit(x, yw, weights, kept, &cf->wall);
	if (pb_theil_sen(x, y, kept, &cf->ts_slope, &cf->ts_intercept))
		cf->ts_slope = cf->ts_intercept = NAN;
	cf->disagree = pb_fit_disagrees(&cf->cpu, cf->ts_slope);
	if (per_event && cf->events > 0) {
		cf->event_ns = cf->cpu.intercept / cf->events;
		cf->event_ci95 = cf->cpu.intercept_ci95 / cf->events;
		/* the per-event cost to the standard the slope is held to: positive, and its 95 %
		 * CI within PB_FIT_MAX_REL_CI of it */
		cf->event_resolved = pb_cost_resolved(cf->event_ns, cf->event_ci95);
	}
	/* the flag (Theil–Sen outside the CI) is kept; the cost stands when the two estimators
	 * together still know it to ±10 % */
	cf->resolved = pb_fit_robustly_resolved(&cf->cpu, cf->ts_slope);
	if (cf->resolved)
		goto out;
	const struct pb_fit *f = &cf->cpu;
	if (!(f->slope > 0))
		pb_format(cf->why, sizeof cf->why, "the slope is not positive (%.0f ± %.0f ns)",
			  f->slope, f->slope_ci95);
	else if (!(f->slope_ci95 <= PB_FIT_MAX_REL_CI * f->slope))
		pb_format(cf->why, sizeof cf->why,
			  "the 95 %% CI is ±%.0f %% of the slope (> ±%.0f %%; R² %.3f)",
			  100 * f->slope_ci95 / f->slope, PB_FIT_MAX_REL_CI * 100, f->r2);
	else
		pb_format(cf->why, sizeof cf->why,
			  "least squares (%.0f ± %.0f ns) and Theil–Sen (%.0f ns) disagree by more "
			  "than the ±%.0f %% standard allows",
			  f->slope, f->slope_ci95, cf->ts_slope, PB_FIT_MAX_REL_CI * 100);
out:
	free(x);
	free(y);
	free(yw);
	free(b);
	free(bw);
	free(period);
	free(local);
	free(scale);
	free(left_out);
}

void pb_cost_fit_failed(struct cost_fit *cf, const char *msg)
{
	pb_format(cf->error, sizeof cf->error, "%s", msg && msg[0] ? msg : "a run failed");
	cf->resolved = cf->event_resolved = false;
}

bool pb_cost_fit_usable(const struct cost_fit *cf)
{
	return cf->fitted && cf->resolved && !cf->error[0] &&
	       (!cf->per_event || cf->event_resolved);
}

const char *pb_cost_fit_reason(const struct cost_fit *cf)
{
	if (cf->error[0])
		return "a run failed";
	return !cf->resolved && pb_fit_resolved(&cf->cpu) ? "Theil–Sen too far off" : NULL;
}

void pb_cost_estimate_text(char *buf, size_t len, double ns, double ci95, bool resolved,
			   const char *reason)
{
	double lo = ns - ci95, hi = ns + ci95;
	bool us = fabs(ns) >= 1000 || fabs(hi) >= 1000;
	double k = us ? 1e-3 : 1;
	const char *unit = us ? "µs" : "ns";
	int prec = us ? 1 : 0;
	pb_format(buf, len, "~%.*f %s, 95 %% CI %.*f–%.*f %s, ", prec, ns * k, unit, prec, lo * k,
		  prec, hi * k, unit);
	if (!resolved && reason)
		pb_append(buf, len, "not resolved: %s", reason);
	else
		pb_append(buf, len, "%s to ±%.0f %%", resolved ? "resolved" : "not resolved",
			  PB_FIT_MAX_REL_CI * 100);
}

/* How the sweep was designed, beside the fit (see pb_cost_design_size). */
static void design_metrics(struct pb_result_point *p, const struct cost_fit *cf)
{
	struct pb_rset *m = &p->metrics;
	if (!cf->pilot_pairs)
		return;
	if (cf->noise_pairs) {
		pb_rset_real(m, "noise_ns", PB_UNIT_NS, cf->noise_ns);
		pb_rset_int(m, "noise_pairs", PB_UNIT_COUNT, (int64_t)cf->noise_pairs);
		if (cf->run_noise_df) {
			pb_rset_real(m, "run_noise_ns", PB_UNIT_NS, cf->run_noise_ns);
			pb_rset_int(m, "run_noise_df", PB_UNIT_COUNT, (int64_t)cf->run_noise_df);
		}
	} else {
		pb_rset_text(&p->params, "noise_from", "the pilot's residuals (a facility that traps "
			     "on every event: its runs without perf hold none of its noise)");
	}
	pb_rset_real_or_null(m, "pilot_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, cf->pilot_ns);
	pb_rset_int(m, "pilot_pairs", PB_UNIT_COUNT, (int64_t)cf->pilot_pairs);
	pb_rset_real_or_null(m, "pilot_residual_ns", PB_UNIT_NS, cf->pilot_residual_ns);
	pb_rset_int(m, "design_pairs", PB_UNIT_COUNT, (int64_t)cf->design_pairs);
	pb_rset_int(m, "design_rounds", PB_UNIT_COUNT, cf->design_rounds);
	if (cf->design_rounds_needed != UINT_MAX)
		pb_rset_int(m, "design_rounds_needed", PB_UNIT_COUNT, cf->design_rounds_needed);
	pb_rset_real_or_null(m, "design_expected_ci_pct", PB_UNIT_PERCENT,
			     cf->expected_rel_ci * 100);
	pb_rset_int(&p->params, "design_short_period", PB_UNIT_NONE, (int64_t)cf->high_period);
	pb_rset_bool(m, "cut_short", cf->cut_short);
	pb_rset_text(&p->params, "stopping_rule",
		     cf->redesigned
			     ? "fixed design: rounds sized before the first pair from a first "
			       "design's fit (too wide to resolve), whose pairs are not in the fit; "
			       "the interval is the fixed-size one"
			     : "fixed design: rounds sized before the first pair from the noise and "
			       "pilot pairs, which are not in the fit; the interval is the "
			       "fixed-size one");
	pb_rset_bool(m, "redesigned", cf->redesigned);
	if (cf->redesigned) {
		/* the first design's runs are kept under the periods' points, numbered below
		 * fitted_from_run */
		pb_rset_real(m, "first_design_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, cf->first.slope);
		pb_rset_real(m, "first_design_ci95_ns", PB_UNIT_NS_PER_SAMPLE,
			     cf->first.slope_ci95);
		pb_rset_int(m, "first_design_pairs", PB_UNIT_COUNT, (int64_t)cf->first_pairs);
		pb_rset_int(&p->params, "fitted_from_run", PB_UNIT_NONE, cf->first_fitted_round);
	}
	if (!cf->resolved)
		pb_rset_bool(m, "budget_limited", cf->budget_limited);
	if (!cf->resolved && isfinite(cf->to_resolve_s)) {
		pb_rset_real(m, "seconds_to_resolve", PB_UNIT_S, cf->to_resolve_s);
		pb_rset_bool(m, "seconds_to_resolve_is_lower_bound", cf->to_resolve_lower);
	}
}

/* An event the kernel counts in software costs CPU sampled or not, without a trap: the
 * intercept of sw:page-faults was 0.8-1.1 ms over the 16062 faults of a run in every default
 * suite of 2026-11-27 (kind C), where the timer's was 0 within ±0.1-0.5 ms. Its cost per
 * counted event and the CI, the intercept's over a run's events; false when the sweep counts
 * none or the facility traps (its intercept is its traps, event_ns). The intercept also holds
 * whatever a run pays once, so this is the count's cost at most. */
static bool counted_event_cost(const struct cost_fit *cf, double *ns, double *ci95)
{
	if (cf->per_event || cf->time_based || !(cf->events > 0))
		return false;
	*ns = cf->cpu.intercept / cf->events;
	*ci95 = cf->cpu.intercept_ci95 / cf->events;
	return true;
}

/* The pairs a disturbance moved, which no figure of the fit holds: named, with how far off
 * they sat, in the point's figures and its note. */
static void left_out_metrics(struct pb_result_point *p, const struct cost_fit *cf)
{
	pb_rset_int(&p->metrics, "pairs_left_out", PB_UNIT_COUNT, (int64_t)cf->left_out);
	if (cf->far_above) {
		pb_rset_bool(&p->metrics, "far_above_kept", true);
		char kept[200];
		pb_format(kept, sizeof kept, "none left out: more than one pair in %d sat far "
			  "above the line of the rest, which is the noise's own shape, not a "
			  "disturbance", PB_DISTURBED_MAX_SHARE);
		pb_rset_text(&p->params, "left_out_note", kept);
	}
	if (!cf->left_out)
		return;
	/* every pair left out, by its row's "pair": with the rows, the fit rebuilt */
	struct pb_rlist *index = pb_rset_list(&p->metrics, "left_out_pair_index");
	for (size_t k = 0; k < cf->left_out && k < PB_ARRAY_SIZE(cf->left_out_index); k++)
		pb_rlist_int(index, PB_UNIT_NONE, cf->left_out_index[k]);
	struct pb_rlist *rows = pb_rset_list(&p->metrics, "left_out_pairs");
	/* the head (~230 bytes), four pairs of up to ~110 each and the count of the rest: 480
	 * cut the fourth pair */
	char note[1024];
	pb_format(note, sizeof note, "%zu of %zu pairs left out as disturbed (a studentized "
		  "residual above the line past Student t's one-sided 1 - %.2g / n level, which "
		  "leaves a pair out of at most 1 fit in %.0f when no run is disturbed):",
		  cf->left_out, cf->pairs, PB_DISTURBED_ALPHA, 1 / PB_DISTURBED_ALPHA);
	size_t shown = cf->left_out < PB_ARRAY_SIZE(cf->left_out_pairs)
			       ? cf->left_out
			       : PB_ARRAY_SIZE(cf->left_out_pairs);
	for (size_t k = 0; k < shown; k++) {
		const struct pb_left_out_pair *o = &cf->left_out_pairs[k];
		struct pb_rset *row = pb_rlist_set(rows);
		pb_rset_int(row, "period", PB_UNIT_NONE, (int64_t)o->period);
		pb_rset_real(row, "samples", PB_UNIT_SAMPLES, o->samples);
		pb_rset_real_or_null(row, "off_ns", PB_UNIT_NS, o->off_ns);
		pb_rset_real_or_null(row, "off_pct", PB_UNIT_PERCENT, o->share * 100);
		if (!isfinite(o->off_ns))
			continue;
		char off[48];
		pb_format_duration_ci(off, sizeof off, o->off_ns, NAN);
		pb_append(note, sizeof note, "%s at period %llu %s, %s %s the line of the rest "
			  "(%.2g %% of its run)", k ? ";" : "", (unsigned long long)o->period,
			  cf->time_based ? "ns" : "events", off, o->off_ns >= 0 ? "above" : "below",
			  fabs(o->share * 100));
	}
	if (cf->left_out > shown)
		pb_append(note, sizeof note, "; and %zu more", cf->left_out - shown);
	pb_rset_text(&p->params, "left_out_note", note);
}

static void append_costs_by_period(char *note, size_t len, const struct cost_fit *cf)
{
	for (unsigned k = 0; k < cf->nby_period; k++) {
		const struct pb_period_cost *b = &cf->by_period[k];
		if (isfinite(b->ns))
			pb_append(note, len, "%s %.3g µs at %.4g %s", k ? "," : "", b->ns / 1000,
				  (double)b->period / (cf->time_based ? 1000 : 1),
				  cf->time_based ? "µs" : "events");
	}
}

/* The rate model's line (struct pb_rate_model), whole: its coefficients' standard errors and
 * correlation give the CI at any period (bench/cost.sh reads it at perf's). */
static void rate_model_metrics(struct pb_result_point *p, const struct cost_fit *cf)
{
	const struct pb_rate_model *rm = &cf->rate;
	if (!rm->fitted)
		return;
	struct pb_rset *m = &p->metrics;
	const struct pb_fit2 *g = &rm->fit;
	double se1 = sqrt(g->cov[1][1]), se2 = sqrt(g->cov[2][2]);
	pb_rset_bool(m, "rate_dependent", rm->dependent);
	pb_rset_int(m, "rate_ref_period", PB_UNIT_NONE, (int64_t)rm->ref_period);
	pb_rset_int(m, "rate_top_period", PB_UNIT_NONE, (int64_t)rm->top_period);
	pb_rset_real(m, "rate_ns_at_ref", PB_UNIT_NS_PER_SAMPLE, g->coef[1]);
	pb_rset_real(m, "rate_ns_at_ref_se", PB_UNIT_NS_PER_SAMPLE, se1);
	double ci, per_decade = pb_rate_model_per_decade(rm, &ci);
	pb_rset_real(m, "rate_ns_per_decade", PB_UNIT_NS_PER_SAMPLE, per_decade);
	pb_rset_real(m, "rate_ns_per_decade_se", PB_UNIT_NS_PER_SAMPLE, se2);
	pb_rset_real(m, "rate_ns_per_decade_ci95", PB_UNIT_NS_PER_SAMPLE, ci);
	pb_rset_real(m, "rate_correlation", PB_UNIT_NONE,
		     se1 > 0 && se2 > 0 ? g->cov[1][2] / (se1 * se2) : 0);
	pb_rset_real(m, "rate_t95", PB_UNIT_NONE, g->t95);
}

/* The cost at each period with the rate model's line there, and, when the line tells a cost
 * that moves with the rate, or else the fit's intercept is not zero within its CI (only a
 * facility that pays nothing per event has costs by period), what that says: a sample does not
 * cost one figure over the sweep (a cost per run, or a sample dearer at some rates). */
static void by_period_metrics(struct pb_result_point *p, const struct cost_fit *cf)
{
	if (!cf->nby_period)
		return;
	struct pb_rlist *rows = pb_rset_list(&p->metrics, "ns_per_sample_by_period");
	for (unsigned k = 0; k < cf->nby_period; k++) {
		const struct pb_period_cost *b = &cf->by_period[k];
		struct pb_rset *row = pb_rlist_set(rows);
		pb_rset_int(row, "period", PB_UNIT_NONE, (int64_t)b->period);
		pb_rset_real(row, "samples", PB_UNIT_SAMPLES, b->samples);
		pb_rset_int(row, "pairs", PB_UNIT_COUNT, b->pairs);
		pb_rset_real_or_null(row, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, b->ns);
		pb_rset_real_or_null(row, "ci95_ns", PB_UNIT_NS_PER_SAMPLE, b->ci95);
		if (!cf->rate.fitted)
			continue;
		double ci, ns = pb_rate_model_at(&cf->rate, b->period, &ci);
		pb_rset_real(row, "model_ns", PB_UNIT_NS_PER_SAMPLE, ns);
		pb_rset_real(row, "model_ci95_ns", PB_UNIT_NS_PER_SAMPLE, ci);
	}
	rate_model_metrics(p, cf);
	const struct pb_fit *f = &cf->cpu;
	if (!cf->fitted || !(fabs(f->intercept) > f->intercept_ci95 || cf->rate.dependent))
		return;
	char note[640];
	if (cf->rate.dependent) {
		double unit = cf->time_based ? 1000 : 1, ci;
		double per_decade = pb_rate_model_per_decade(&cf->rate, &ci);
		pb_format(note, sizeof note, "a sample's cost moves with the rate: %+.3g ± %.2g µs "
			  "for each tenfold longer period, from %.3g µs at %.4g %s; predictions use "
			  "the cost at their period; by period:", per_decade / 1000, ci / 1000,
			  cf->rate.fit.coef[1] / 1000,
			  (double)cf->rate.ref_period / unit, cf->time_based ? "µs" : "events");
		append_costs_by_period(note, sizeof note, cf);
		pb_rset_text(&p->params, "rate_note", note);
		return;
	}
	pb_format(note, sizeof note, "a sample is not one cost over this sweep: the fit's "
		  "intercept is %.0f ± %.0f µs, not zero (a cost per run, or a sample %s at long "
		  "periods", f->intercept / 1000, f->intercept_ci95 / 1000,
		  f->intercept > 0 ? "dearer" : "cheaper");
	double counted, counted_ci;
	if (f->intercept > 0 && counted_event_cost(cf, &counted, &counted_ci))
		pb_append(note, sizeof note, ", or each counted event's cost: %.3g ± %.2g ns an "
			  "event over the %.0f a run", counted, counted_ci, cf->events);
	pb_append(note, sizeof note, "); by period:");
	append_costs_by_period(note, sizeof note, cf);
	pb_rset_text(&p->params, "rate_note", note);
}

void pb_cost_fit_site(struct cost_fit *cf, const char *cls, const char *label, const char *insn)
{
	cf->site_class = cls;
	pb_format(cf->site, sizeof cf->site, "%s", label);
	pb_format(cf->site_insn, sizeof cf->site_insn, "%s", insn);
}

/* The fit point of one delivery mode. floor: mode none's fit, NULL for mode none itself. */
struct pb_result_point *pb_cost_fit_point(struct pb_results *res, const char *facility,
					 const char *workload, enum pb_delivery mode,
					 const struct cost_fit *cf, const struct cost_fit *floor)
{
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	struct pb_rset *par = &p->params;
	pb_rset_text(par, "kind", "fit");
	pb_rset_text(par, "delivery", pb_delivery_name(mode));
	pb_rset_int(par, "threads", PB_UNIT_THREADS, 1);
	if (cf->site_class) {
		pb_rset_text(par, "site", cf->site);
		pb_rset_text(par, "site_insn", cf->site_insn);
		pb_rset_text(par, "site_class", cf->site_class);
	}
	pb_rset_text(par, "fit_on", "pairs: a sampled run and a run without perf next to it; "
				    "y = the sampled run's extra CPU time (thread CPU clock), x = "
				    "its samples");
	struct pb_rset *m = &p->metrics;
	pb_rset_real(m, "baseline_ns", PB_UNIT_NS, cf->baseline_cpu);
	pb_rset_real(m, "baseline_wall_ns", PB_UNIT_NS, cf->baseline_wall);
	pb_rset_int(m, "points", PB_UNIT_COUNT, (int64_t)cf->pairs);
	pb_rset_int(m, "rounds", PB_UNIT_COUNT, cf->rounds);
	pb_rset_real(m, "seconds", PB_UNIT_S, cf->seconds);
	pb_rset_real(m, "budget_seconds", PB_UNIT_S, cf->budget_seconds);
	if (cf->spare_drawn_s > 0)
		/* of budget_seconds: what the suite's earlier fits left unused */
		pb_rset_real(m, "budget_drawn_from_earlier_fits_s", PB_UNIT_S, cf->spare_drawn_s);
	design_metrics(p, cf);
	if (cf->error[0])
		pb_rset_text(par, "error", cf->error);
	if (!cf->fitted) {
		char note[720];
		if (cf->error[0])
			pb_format(note, sizeof note, "no fit: a run failed (%s)", cf->error);
		else
			pb_format(note, sizeof note, "no fit: %s", cf->why);
		if (!cf->error[0])
			pb_rset_text(par, "error", cf->why);
		pb_rset_bool(m, "resolved", false);
		pb_rset_text(par, "note", note);
		return p;
	}
	char weights[320] = "none: a run's expected length was not above 0, so every pair's "
			    "noise is taken as the same";
	if (cf->weighted)
		pb_format(weights, sizeof weights,
			  "1 / (run² + %.2f baseline²): a pair's noise in proportion to its "
			  "sampled run's expected length (its local baseline plus the unweighted "
			  "line's extra time), and its baseline's, the median of five partners; as "
			  "the design sizes it", PB_LOCAL_BASELINE_VARIANCE);
	pb_rset_text(par, "fit_weights", weights);
	const struct pb_fit *f = &cf->cpu;
	pb_rset_real(m, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, f->slope);
	pb_rset_real(m, "ci95_ns", PB_UNIT_NS_PER_SAMPLE, f->slope_ci95);
	pb_rset_real(m, "r2", PB_UNIT_NONE, f->r2);
	pb_rset_real(m, "intercept_ns", PB_UNIT_NS, f->intercept);
	pb_rset_real(m, "intercept_ci95_ns", PB_UNIT_NS, f->intercept_ci95);
	pb_rset_real_or_null(m, "theil_sen_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, cf->ts_slope);
	pb_rset_bool(m, "estimators_disagree", cf->disagree);
	if (cf->wall_fitted) {
		pb_rset_real(m, "wall_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, cf->wall.slope);
		pb_rset_real(m, "wall_ci95_ns", PB_UNIT_NS_PER_SAMPLE, cf->wall.slope_ci95);
		pb_rset_real(m, "wall_r2", PB_UNIT_NONE, cf->wall.r2);
	}
	if (cf->per_event) {
		pb_rset_real(m, "events_per_run", PB_UNIT_EVENTS, cf->events);
		pb_rset_real(m, "ns_per_event", PB_UNIT_NS_PER_EVENT, cf->event_ns);
		pb_rset_real(m, "ns_per_event_ci95", PB_UNIT_NS_PER_EVENT, cf->event_ci95);
		pb_rset_bool(m, "event_resolved", cf->event_resolved);
		pb_rset_text(par, "cost_terms",
			     "ns_per_event: the trap every event pays, sampled or not (the "
			     "intercept / events per run); ns_per_sample: what a sample adds on top "
			     "of its event's trap");
	} else {
		pb_rset_text(par, "cost_terms",
			     "ns_per_sample: the whole cost of a sample; no cost per event (the "
			     "facility does not trap on events)");
	}
	double ns, ci;
	if (counted_event_cost(cf, &ns, &ci)) {
		pb_rset_real(m, "events_per_run", PB_UNIT_EVENTS, cf->events);
		pb_rset_real(m, "ns_per_counted_event", PB_UNIT_NS_PER_EVENT, ns);
		pb_rset_real(m, "ns_per_counted_event_ci95", PB_UNIT_NS_PER_EVENT, ci);
		pb_rset_bool(m, "counted_event_resolved", pb_cost_resolved(ns, ci));
	}
	/* An excess over a floor that did not resolve would be a figure from noise. */
	if (floor && !pb_cost_fit_usable(floor)) {
		pb_rset_text(par, "excess_note", "no excess over the floor: mode none's cost did not "
			     "resolve");
	} else if (floor) {
		pb_rset_real(m, "floor_ns", PB_UNIT_NS_PER_SAMPLE, floor->cpu.slope);
		pb_rset_real(m, "excess_over_floor_ns", PB_UNIT_NS_PER_SAMPLE,
			     f->slope - floor->cpu.slope);
		pb_rset_real(m, "excess_ci95_ns", PB_UNIT_NS_PER_SAMPLE,
			     hypot(f->slope_ci95, floor->cpu.slope_ci95));
	}
	by_period_metrics(p, cf);
	left_out_metrics(p, cf);
	pb_rset_bool(m, "resolved", cf->resolved);
	char estimate[160];
	pb_cost_estimate_text(estimate, sizeof estimate, f->slope, f->slope_ci95, cf->resolved,
			      pb_cost_fit_reason(cf));
	pb_rset_text(par, "estimate", estimate);
	if (!cf->resolved) {
		char note[900];
		if (cf->error[0])
			pb_format(note, sizeof note, "per-sample cost not resolved: a run failed (%s)",
				  cf->error);
		else
			pb_format(note, sizeof note,
				  "per-sample cost not resolved (needs slope > 0, its 95 %% CI within "
				  "%.0f %% of the slope, and Theil–Sen inside it or the two summed "
				  "within that): %s",
				  PB_FIT_MAX_REL_CI * 100, cf->why);
		pb_rset_text(par, "note", note);
	} else if (cf->redesigned) {
		char note[320];
		pb_format(note, sizeof note, "a second design resolved it, sized from a first of %zu "
			  "pairs whose %.0f ± %.0f ns (±%.0f %%) was too wide: the sampled runs were "
			  "noisier than the runs the first was sized from", cf->first_pairs,
			  cf->first.slope, cf->first.slope_ci95,
			  100 * cf->first.slope_ci95 / cf->first.slope);
		pb_rset_text(par, "note", note);
	}
	return p;
}
