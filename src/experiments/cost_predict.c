/* Predictions from a cost fit: a workload of the suite (and the real programs of
 * cost_programs.c), each at three periods against baselines interleaved with the sampled runs,
 * and how each prediction is judged. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void error_metrics(struct pb_rset *metrics, const char *name, const double *e, size_t n)
{
	double abs_max = 0;
	for (size_t i = 0; i < n; i++)
		abs_max = fmax(abs_max, fabs(e[i]));
	pb_rset_summarize(metrics, name, PB_UNIT_PERCENT, e, n);
	char key[64];
	pb_format(key, sizeof key, "abs_%s_max", name);
	pb_rset_real(metrics, key, PB_UNIT_PERCENT, abs_max);
}


/* The prediction that an unresolved cost of mode none cannot make: a point saying so, with the
 * fit's figures, instead of predicted times that would only restate the noise. */
void pb_cost_refuse_prediction(struct pb_results *res, const char *facility, const char *workload,
			      const struct cost_fit *cf, const struct cost_fit *first)
{
	char note[720], estimate[160];
	/* (a failed run's note is its error; the estimate is for the others) */
	pb_cost_estimate_text(estimate, sizeof estimate, cf->cpu.slope, cf->cpu.slope_ci95,
			      cf->resolved, pb_cost_fit_reason(cf));
	if (cf->error[0])
		pb_format(note, sizeof note, "not predicted: a run of the cost sweep (mode none) "
			  "failed: %s", cf->error);
	else if (!cf->resolved)
		pb_format(note, sizeof note, "not predicted: the per-sample cost fit (mode none) did "
			  "not resolve (%s; R² %.3f)", estimate, cf->cpu.r2);
	else
		pb_format(note, sizeof note, "not predicted: the per-event cost (mode none) did not "
			  "resolve (%.1f ± %.1f ns per event)", cf->event_ns, cf->event_ci95);
	if (cf->site_class)
		pb_append(note, sizeof note, " on the %s site %s (%s)", cf->site_class, cf->site,
			  cf->site_insn);
	if (!cf->error[0] && !cf->resolved && cf->per_event && !cf->event_resolved)
		pb_append(note, sizeof note, ", nor did its per-event cost (%.0f ± %.0f ns)",
			  cf->event_ns, cf->event_ci95);
	else if (first && first != cf && !first->resolved)
		/* its per-event cost alone would do, with the first site's per-sample cost */
		pb_append(note, sizeof note, ", and neither did the per-sample cost on the first site "
			  "%s (R² %.3f, slope %.0f ± %.0f ns)", first->site, first->cpu.r2,
			  first->cpu.slope, first->cpu.slope_ci95);
	/* the quicker way to a prediction: when this site's per-event cost resolved, the first
	 * site's per-sample cost is all that is missing */
	const struct cost_fit *sizer = first && first != cf && !first->resolved && cf->per_event &&
						       cf->event_resolved
					       ? first : cf;
	bool sized = !cf->error[0] && !sizer->resolved && isfinite(sizer->to_resolve_s);
	if (sized)
		pb_append(note, sizeof note, "; a cost sweep of %s%.0f s would resolve %s",
			  sizer->to_resolve_lower ? "more than " : "", sizer->to_resolve_s,
			  sizer == cf ? "it" : "the first site's");
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	pb_rset_text(&p->params, "kind", "prediction");
	/* A string, as every not-applicable point carries its reason there. */
	pb_rset_text(&p->params, "not_applicable", note);
	pb_rset_text(&p->params, "note", note);
	if (sized)
		pb_rset_real(&p->metrics, "seconds_to_resolve", PB_UNIT_S, sizer->to_resolve_s);
}

unsigned pb_cost_prediction_periods(const struct pb_spec *spec, const struct cost_fit *fit,
				    const uint64_t *sweep, unsigned np, uint64_t *out,
				    double *aimed_pct)
{
	if (!spec->facility->time_based || !(fit->cpu.slope > 0)) {
		unsigned n = np < 3 ? np : 3;
		if (np < 3) {
			memcpy(out, sweep, np * sizeof *out);
		} else {
			out[0] = sweep[0];
			out[1] = sweep[np / 2];
			out[2] = sweep[np - 1];
		}
		for (unsigned i = 0; aimed_pct && i < n; i++)
			aimed_pct[i] = NAN;
		return n;
	}
	static const double budgets_pct[] = {3, 10, 30};
	struct pb_slowdown_model m = {.baseline_ns = 1e9, .time_based = true,
				      .ns_per_sample = fit->cpu.slope,
				      .min_period = spec->facility->min_period};
	unsigned n = 0;
	for (unsigned i = 0; i < PB_ARRAY_SIZE(budgets_pct); i++) {
		struct pb_budget_period bp;
		m.ns_per_sample = fit->cpu.slope;
		if (pb_period_for_budget(&m, budgets_pct[i], &bp, NULL))
			continue;
		/* a cost that moves with the rate: the period whose own cost gives the budget (the
		 * pooled slope's where the line gives none) */
		if (fit->rate.dependent)
			pb_period_for_budget_on_line(&m, &fit->rate, budgets_pct[i], &bp, NULL);
		if (!n || bp.period < out[n - 1]) {
			if (aimed_pct)
				aimed_pct[n] = budgets_pct[i];
			out[n++] = bp.period;
		}
	}
	return n;
}

/* The cost model of mode none for a workload's baseline and events at period. */
static struct pb_slowdown_model model_for(const struct pb_spec *spec, const struct cost_fit *none,
				      double baseline_ns, double events, uint64_t period)
{
	return (struct pb_slowdown_model){
		.baseline_ns = baseline_ns,
		.time_based = spec->facility->time_based,
		.events = events,
		.ns_per_sample = pb_cost_at_period(none, period, NULL),
		.ns_per_event = none->per_event ? none->event_ns : 0,
		.min_period = 1,
	};
}

/* The model's time for a run of period i in round r, against that round's baseline, with a
 * sample costing ns_per_sample (the fit's, or the reference's for the rebased figure) and an
 * event ns_per_event (a trapping facility's; 0 for the others). */
static double predicted_cpu_at(const struct prediction_rounds_done *d, unsigned i, unsigned r,
			       double ns_per_sample, double ns_per_event)
{
	const struct predict_run *pr = &d->runs[i][r];
	/* Events per thread for the model: a timer's come from the period, not from the run
	 * being predicted. */
	struct pb_slowdown_model m = model_for(d->spec, d->none, d->bcpu[r] / d->threads,
					       pr->events / d->threads, d->periods[i]);
	m.ns_per_sample = ns_per_sample;
	m.ns_per_event = ns_per_event;
	/* a timer whose sample costs the whole period leaves its program no time: no figure */
	double t = pb_model_time_ns(&m, d->periods[i]);
	return t < 0 ? NAN : t * d->threads;
}

/* The fit's cost of an event: a trapping facility's, 0 for the others (as model_for has it). */
static double fit_event_ns(const struct prediction_rounds_done *d)
{
	return d->none->per_event ? d->none->event_ns : 0;
}

static double predicted_cpu(const struct prediction_rounds_done *d, unsigned i, unsigned r)
{
	return predicted_cpu_at(d, i, r, pb_cost_at_period(d->none, d->periods[i], NULL),
				fit_event_ns(d));
}

/* What a sample cost the cost workload beside the target at period i, each sampled run against
 * the same round's run without perf (NaN without a reference, at another period than the
 * shortest, or without two rounds that sampled). */
struct reference_figures {
	double ns, ci95;
	unsigned n, left_out;        /* rounds in the figure, and those a disturbance moved */
	bool out[MAX_RUNS];          /* by round: left out */
};

static struct reference_figures reference_of(const struct prediction_rounds_done *d, unsigned i)
{
	struct reference_figures f = {.ns = NAN, .ci95 = NAN};
	if (!d->ref || i + 1 != d->nperiods)
		return f;
	double extra[MAX_RUNS], base[MAX_RUNS], samples[MAX_RUNS];
	bool far_above;
	for (unsigned r = 0; r < d->rounds; r++) {
		extra[r] = d->ref_sampled[r].cpu - d->ref_base[r].cpu;
		base[r] = d->ref_base[r].cpu;
		samples[r] = d->ref_sampled[r].samples;
	}
	/* its rounds are held to the target's rule: a disturbed pair is in no figure */
	f.left_out = pb_paired_disturbed(extra, base, d->rounds, f.out, NULL, &far_above);
	for (unsigned r = 0; r < d->rounds; r++)
		if (f.out[r])
			extra[r] = NAN;
	f.n = pb_paired_sample_cost(extra, samples, d->rounds, &f.ns, &f.ci95);
	return f;
}

double pb_cost_moved_half(const struct prediction_rounds_done *d)
{
	if (!d->ref || !d->nperiods)
		return d->cost_moved;
	struct reference_figures rf = reference_of(d, d->nperiods - 1);
	double fit_ci, fit = pb_cost_at_period(d->none, d->periods[d->nperiods - 1], &fit_ci);
	if (!(fit > 0) || !isfinite(rf.ns) || !isfinite(rf.ci95) || !isfinite(fit_ci) ||
	    !(fabs(rf.ns - fit) > hypot(rf.ci95, fit_ci)))
		return d->cost_moved;
	/* around the fit's cost, which the prediction is made with: out to the far end of the
	 * reference's interval */
	return fmax(d->cost_moved, (fabs(rf.ns - fit) + rf.ci95) / fit);
}

/* Period i's slowdowns over the rounds done: predicted (mean), measured and the measured
 * figure's 95 % CI (pb_paired_slowdown), and what a sample cost; the rounds a disturbance moved
 * (pb_paired_disturbed) are in none of them. */
struct slowdown_figures {
	double predicted, measured, ci95, per_sample_ns, per_sample_ci95;
	unsigned n;                  /* rounds in the figures */
	unsigned left_out;           /* rounds left out as disturbed */
	bool far_above;              /* more sat far above than a disturbance: none left out */
	bool out[MAX_RUNS], base_out[MAX_RUNS]; /* by round: left out, and for its baseline */
};

/* Period i's predicted slowdown (mean over the rounds f kept, every round without f) with a
 * sample costing ns_per_sample and an event ns_per_event. */
static double predicted_slowdown_with(const struct prediction_rounds_done *d, unsigned i,
				      double ns_per_sample, double ns_per_event,
				      const struct slowdown_figures *f)
{
	double sum = 0;
	unsigned n = 0;
	for (unsigned r = 0; r < d->rounds; r++) {
		double p = (predicted_cpu_at(d, i, r, ns_per_sample, ns_per_event) - d->bcpu[r]) /
			   d->bcpu[r] * 100;
		if (isfinite(p) && d->bcpu[r] > 0 && !(f && f->out[r])) {
			sum += p;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

/* The same with the fit's cost of an event: a prediction made with another cost of a sample
 * (the reference's, the target's own). */
static double predicted_slowdown_at(const struct prediction_rounds_done *d, unsigned i,
				    double ns_per_sample, const struct slowdown_figures *f)
{
	return predicted_slowdown_with(d, i, ns_per_sample, fit_event_ns(d), f);
}

/* The 95 % half-width of period i's predicted slowdown from the intervals of the costs it is
 * made with: the slowdown is near linear in each, so half the distance between the
 * predictions at a cost's two ends, the two costs' in quadrature (a trapping facility's come
 * from one fit, whose slope and intercept covary: an approximation). No number when a cost
 * has no interval; infinite when the sample cost's dear end reaches a timer's period, where
 * the slowdown has no upper end. */
static double predicted_ci95_at(const struct prediction_rounds_done *d, unsigned i,
				const struct slowdown_figures *f, double ns, double ns_ci95,
				double event_ns, double event_ci95)
{
	double dear = predicted_slowdown_with(d, i, ns + ns_ci95, event_ns, f);
	double cheap = predicted_slowdown_with(d, i, ns - ns_ci95, event_ns, f);
	if (isnan(dear) && isfinite(cheap))
		return INFINITY;
	double sample_part = (dear - cheap) / 2;
	double event_part = event_ci95 > 0
		? (predicted_slowdown_with(d, i, ns, event_ns + event_ci95, f) -
		   predicted_slowdown_with(d, i, ns, event_ns - event_ci95, f)) / 2
		: 0;
	return hypot(sample_part, event_part);
}

/* A predicted slowdown's interval as name: its half-width, or, where it has no upper end
 * (predicted_ci95_at), name_unbounded, which the report says and no reader takes for a width. */
static void slowdown_ci95_metric(struct pb_rset *m, const char *name, double ci95)
{
	if (isfinite(ci95)) {
		pb_rset_real(m, name, PB_UNIT_PERCENT_POINTS, ci95);
	} else if (isinf(ci95)) {
		char unbounded[96];
		pb_format(unbounded, sizeof unbounded, "%s_unbounded", name);
		pb_rset_bool(m, unbounded, true);
	}
}

static struct slowdown_figures slowdown_of(const struct prediction_rounds_done *d, unsigned i)
{
	double pred[MAX_RUNS], diff[MAX_RUNS], samples[MAX_RUNS];
	struct slowdown_figures f = {.predicted = NAN, .measured = NAN, .ci95 = NAN,
				     .per_sample_ns = NAN, .per_sample_ci95 = NAN};
	for (unsigned r = 0; r < d->rounds; r++) {
		const struct predict_run *pr = &d->runs[i][r];
		pred[r] = (predicted_cpu(d, i, r) - d->bcpu[r]) / d->bcpu[r] * 100;
		diff[r] = pr->cpu - d->bcpu[r];
		/* a round without a prediction is no figure; the baseline's test is of bcpu */
		if (!isfinite(pred[r]))
			diff[r] = NAN;
		/* a trapping facility's extra time is its events' too: no per-sample figure */
		samples[r] = d->none->per_event ? 0 : pr->samples;
	}
	f.left_out = pb_paired_disturbed(diff, d->bcpu, d->rounds, f.out, f.base_out,
					 &f.far_above);
	double kept_pred[MAX_RUNS];
	unsigned np = 0;
	for (unsigned r = 0; r < d->rounds; r++) {
		if (f.out[r])
			diff[r] = NAN;
		else if (isfinite(diff[r]) && d->bcpu[r] > 0)
			kept_pred[np++] = pred[r];
	}
	f.n = pb_paired_slowdown(diff, d->bcpu, d->rounds, &f.measured, &f.ci95);
	if (!np)
		return f;
	struct pb_summary sp;
	pb_summarize(kept_pred, np, &sp);
	f.predicted = sp.mean;
	pb_paired_sample_cost(diff, samples, d->rounds, &f.per_sample_ns, &f.per_sample_ci95);
	return f;
}

/* The reference beside the target at period i: its cost now and at this rate against the
 * fit's (the interval from both), the target's own cost against it, and the prediction made
 * again with it (rebased: what is left of its error is the target's own difference). */
static void reference_metrics(struct pb_result_point *p, const struct prediction_rounds_done *d,
			      unsigned i, const struct slowdown_figures *f,
			      const struct reference_figures *rf)
{
	if (!d->ref || i + 1 != d->nperiods)
		return;
	struct pb_rset *m = &p->metrics;
	/* the rounds whose reference run sampled: fewer than two give no figure */
	pb_rset_int(m, "reference_rounds", PB_UNIT_NONE, rf->n);
	pb_rset_int(m, "reference_rounds_left_out", PB_UNIT_COUNT, rf->left_out);
	if (!isfinite(rf->ns))
		return;
	double fit_ci, fit = pb_cost_at_period(d->none, d->periods[i], &fit_ci);
	pb_rset_real(m, "reference_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, rf->ns);
	pb_rset_real(m, "reference_ns_per_sample_ci95", PB_UNIT_NS_PER_SAMPLE, rf->ci95);
	if (fit > 0) {
		pb_rset_real(m, "reference_vs_fit_pct", PB_UNIT_PERCENT, (rf->ns - fit) / fit * 100);
		pb_rset_real(m, "reference_vs_fit_ci95_pp", PB_UNIT_PERCENT_POINTS,
			     sqrt(rf->ci95 * rf->ci95 + fit_ci * fit_ci) / fit * 100);
	}
	if (isfinite(f->per_sample_ns))
		pb_rset_real(m, "own_vs_reference_pct", PB_UNIT_PERCENT,
			     (f->per_sample_ns - rf->ns) / rf->ns * 100);
	double rebased = predicted_slowdown_at(d, i, rf->ns, f);
	if (!isfinite(rebased) || !isfinite(f->measured))
		return;
	double rebased_ci95 = predicted_ci95_at(d, i, f, rf->ns, rf->ci95, fit_event_ns(d), 0);
	pb_rset_real(m, "rebased_predicted_slowdown_pct", PB_UNIT_PERCENT, rebased);
	slowdown_ci95_metric(m, "rebased_predicted_slowdown_ci95_pp", rebased_ci95);
	pb_rset_real(m, "rebased_slowdown_error_pp", PB_UNIT_PERCENT_POINTS, rebased - f->measured);
	pb_rset_bool(m, "rebased_slowdown_within", pb_slowdown_within(rebased, f->measured));
	pb_rset_text(m, "rebased_slowdown_verdict",
		     pb_slowdown_verdict(rebased, rebased_ci95, f->measured, f->ci95));
}

/* The period whose own cost calibrates the others: the middle of three, which sits a factor of
 * ~3 in rate from each end, so that both directions of a rate-dependent cost show. */
#define CALIBRATION_PERIOD 1

/* The prediction of period i made again with what a sample cost the target itself at the
 * calibration period (plan --check's correction, judged): whether a target's own cost, measured
 * once, carries to its other rates. Not at the calibration period itself (it would predict its
 * own measurement), and not for a trapping facility, whose extra time is its events' too. */
static void calibrated_metrics(struct pb_result_point *p, const struct prediction_rounds_done *d,
			       unsigned i, const struct slowdown_figures *f)
{
	if (d->nperiods <= CALIBRATION_PERIOD || i == CALIBRATION_PERIOD || d->none->per_event)
		return;
	struct slowdown_figures at = slowdown_of(d, CALIBRATION_PERIOD);
	if (!(at.per_sample_ns > 0) || !isfinite(f->measured))
		return;
	double calibrated = predicted_slowdown_at(d, i, at.per_sample_ns, f);
	if (!isfinite(calibrated))
		return;
	double calibrated_ci95 = predicted_ci95_at(d, i, f, at.per_sample_ns, at.per_sample_ci95,
						   fit_event_ns(d), 0);
	struct pb_rset *m = &p->metrics;
	pb_rset_int(m, "calibrated_from_period", PB_UNIT_NONE,
		    (int64_t)d->periods[CALIBRATION_PERIOD]);
	pb_rset_real(m, "calibrated_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, at.per_sample_ns);
	if (isfinite(at.per_sample_ci95))
		pb_rset_real(m, "calibrated_ns_per_sample_ci95", PB_UNIT_NS_PER_SAMPLE,
			     at.per_sample_ci95);
	pb_rset_real(m, "calibrated_predicted_slowdown_pct", PB_UNIT_PERCENT, calibrated);
	slowdown_ci95_metric(m, "calibrated_predicted_slowdown_ci95_pp", calibrated_ci95);
	pb_rset_real(m, "calibrated_slowdown_error_pp", PB_UNIT_PERCENT_POINTS,
		     calibrated - f->measured);
	pb_rset_bool(m, "calibrated_slowdown_within", pb_slowdown_within(calibrated, f->measured));
	pb_rset_text(m, "calibrated_slowdown_verdict",
		     pb_slowdown_verdict(calibrated, calibrated_ci95, f->measured, f->ci95));
}

/* The rounds a disturbance moved, which no figure of the point holds: counted, with the rule
 * that left them out and which run it found far above. */
static void disturbed_metrics(struct pb_result_point *p, const struct slowdown_figures *f,
			      unsigned rounds)
{
	pb_rset_int(&p->metrics, "rounds_left_out", PB_UNIT_COUNT, f->left_out);
	if (f->far_above) {
		pb_rset_bool(&p->metrics, "far_above_kept", true);
		char kept[200];
		pb_format(kept, sizeof kept, "none left out: more than one round in %d sat far "
			  "above the rest, which is the noise's own shape, not a disturbance",
			  PB_DISTURBED_MAX_SHARE);
		pb_rset_text(&p->params, "left_out_note", kept);
	}
	if (!f->left_out)
		return;
	unsigned bases = 0;
	for (unsigned r = 0; r < rounds && r < MAX_RUNS; r++)
		bases += f->out[r] && f->base_out[r];
	char note[512];
	pb_format(note, sizeof note, "%u of %u rounds left out as disturbed (%u for a baseline "
		  "far above the other rounds', %u for a sampled run whose extra time sat far "
		  "above theirs: a studentized residual past Student t's one-sided 1 - %.2g / n "
		  "level, which leaves a round out of at most 1 test in %.0f when no run is "
		  "disturbed); results.json marks their rows left_out", f->left_out, rounds, bases,
		  f->left_out - bases, PB_DISTURBED_ALPHA, 1 / PB_DISTURBED_ALPHA);
	pb_rset_text(&p->params, "left_out_note", note);
}

static void prediction_point_fill(struct pb_result_point *p, const struct prediction_rounds_done *d,
				  unsigned i, double base_cpu, double base_wall, double cost_moved)
{
	const struct cost_fit *none = d->none;
	uint64_t period = d->periods[i];
	unsigned threads = d->threads, n = d->rounds;
	struct pb_rset *par = &p->params;
	pb_rset_text(par, "kind", "prediction");
	pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)period);
	if (d->aimed_pct && isfinite(d->aimed_pct[i]))
		pb_rset_real(par, "aimed_slowdown_pct", PB_UNIT_PERCENT, d->aimed_pct[i]);
	pb_rset_int(par, "threads", PB_UNIT_THREADS, threads);
	pb_rset_real(par, "baseline_ns", PB_UNIT_NS, base_cpu);
	pb_rset_real(par, "baseline_wall_ns", PB_UNIT_NS, base_wall);
	pb_rset_real(par, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE,
		     pb_cost_at_period(none, period, NULL));
	if (none->rate.dependent)
		pb_rset_text(par, "ns_per_sample_from", "the fit's rate model, at this period");
	if (none->site_class) {
		/* the fit was chosen for the target site's class: the two are the same */
		pb_rset_text(par, "cost_site", none->site);
		pb_rset_text(par, "site_class", none->site_class);
		if (none->sample_cost_from[0])
			pb_rset_text(par, "ns_per_sample_from", none->sample_cost_from);
	}
	if (none->per_event)
		pb_rset_real(par, "ns_per_event", PB_UNIT_NS_PER_EVENT, none->event_ns);
	if (none->sample_left_out) {
		/* the per-sample cost did not resolve: left out, with how far that may move this
		 * prediction (cost.c, PB_SAMPLE_TERM_MAX_SHARE) */
		double share = none->sample_bound_ns / (none->event_ns * (double)period +
							none->sample_bound_ns);
		char note[320];
		pb_format(note, sizeof note, "the per-sample cost did not resolve and is left out: "
			  "at most %.0f ns (its CI's upper end) beside the %.0f ns every event pays, "
			  "it is at most %.1f %% of this slowdown, under half the criterion's 10 %%",
			  none->sample_bound_ns, none->event_ns, 100 * share);
		pb_rset_text(par, "note", note);
		pb_rset_real(par, "ns_per_sample_bound", PB_UNIT_NS_PER_SAMPLE,
			     none->sample_bound_ns);
	}
	pb_rset_text(par, "time_basis",
		     "CPU time of the measured threads (summed); wall time beside it");
	/* Judged on the slowdown (issue 27), each round's run against its own baseline */
	struct slowdown_figures f = slowdown_of(d, i);
	struct reference_figures rf = reference_of(d, i);
	double e[MAX_RUNS], ew[MAX_RUNS];
	unsigned ne = 0;
	uint64_t lost = 0;
	for (unsigned r = 0; r < n; r++) {
		const struct predict_run *pr = &d->runs[i][r];
		double predicted = predicted_cpu(d, i, r);
		struct pb_slowdown_model mw = model_for(d->spec, none, d->bwall[r],
							pr->events / threads, period);
		double predicted_wall = pb_model_time_ns(&mw, period);
		double err_cpu = pb_prediction_error_pct(pr->cpu, predicted);
		double err_wall = pb_prediction_error_pct(pr->wall, predicted_wall);
		double pred_s = (predicted - d->bcpu[r]) / d->bcpu[r] * 100;
		double meas_s = (pr->cpu - d->bcpu[r]) / d->bcpu[r] * 100;
		lost += (uint64_t)pr->lost;
		/* a run with a figure that is no number has no row (as the /1 writer had it) */
		if (!isfinite(pr->expected) || !isfinite(predicted) || !isfinite(predicted_wall) ||
		    !isfinite(err_cpu) || !isfinite(err_wall) || !isfinite(meas_s))
			continue;
		struct pb_rset *run = pb_rlist_set(&p->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
		/* a disturbed round keeps its row, marked, and is in no figure of the point */
		if (f.out[r]) {
			pb_rset_text(run, "left_out", f.base_out[r] ? "disturbed: its baseline"
				     : "disturbed: its sampled run");
		} else {
			e[ne] = err_cpu;
			ew[ne++] = err_wall;
		}
		pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)pr->cpu);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)pr->wall);
		pb_rset_int(run, "baseline_cpu_ns", PB_UNIT_NS, (int64_t)d->bcpu[r]);
		pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)pr->samples);
		pb_rset_real(run, "expected", PB_UNIT_SAMPLES, pr->expected);
		pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)pr->lost);
		pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)pr->events);
		pb_rset_real(run, "predicted_ns", PB_UNIT_NS, predicted);
		pb_rset_real(run, "predicted_wall_ns", PB_UNIT_NS, predicted_wall);
		pb_rset_real(run, "error_pct", PB_UNIT_PERCENT, err_cpu);
		pb_rset_real(run, "wall_error_pct", PB_UNIT_PERCENT, err_wall);
		pb_rset_real(run, "measured_slowdown_pct", PB_UNIT_PERCENT, meas_s);
		pb_rset_real(run, "predicted_slowdown_pct", PB_UNIT_PERCENT, pred_s);
		if (d->ref && i + 1 == d->nperiods) {
			/* the round's reference pair, the evidence of reference_ns_per_sample */
			pb_rset_int(run, "reference_cpu_ns", PB_UNIT_NS,
				    (int64_t)d->ref_sampled[r].cpu);
			pb_rset_int(run, "reference_baseline_cpu_ns", PB_UNIT_NS,
				    (int64_t)d->ref_base[r].cpu);
			pb_rset_int(run, "reference_observed", PB_UNIT_SAMPLES,
				    (int64_t)d->ref_sampled[r].samples);
			/* a pair the disturbance rule left out of reference_ns_per_sample */
			if (rf.out[r])
				pb_rset_text(run, "reference_left_out", "disturbed");
		}
	}
	struct pb_rset *m = &p->metrics;
	pb_rset_int(m, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
	error_metrics(m, "error_pct", e, ne);
	error_metrics(m, "wall_error_pct", ew, ne);
	pb_rset_int(m, "rounds", PB_UNIT_NONE, n);
	disturbed_metrics(p, &f, n);
	pb_rset_real(m, "predicted_slowdown_pct", PB_UNIT_PERCENT, f.predicted);
	pb_rset_real(m, "measured_slowdown_pct", PB_UNIT_PERCENT, f.measured);
	if (isfinite(f.ci95))
		pb_rset_real(m, "measured_slowdown_ci95_pp", PB_UNIT_PERCENT_POINTS, f.ci95);
	if (isfinite(f.per_sample_ns))
		/* what a sample cost this target, beside the fit's: a target whose own cache and
		 * TLB refills after each interrupt cost more shows it here */
		pb_rset_real(m, "measured_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, f.per_sample_ns);
	if (isfinite(f.per_sample_ci95))
		pb_rset_real(m, "measured_ns_per_sample_ci95", PB_UNIT_NS_PER_SAMPLE,
			     f.per_sample_ci95);
	/* the fit's own interval at the period, which the prediction carries; where the cost
	 * moved while the suite ran, the span that holds the cost measured again too */
	double fit_ci95, fit_ns = pb_cost_at_period(d->none, d->periods[i], &fit_ci95);
	if (cost_moved * fit_ns > fit_ci95) {
		fit_ci95 = cost_moved * fit_ns;
		pb_rset_real(m, "cost_moved_ci95_pct", PB_UNIT_PERCENT, 100 * cost_moved);
		char moved[320];
		pb_format(moved, sizeof moved, "the cost workload, measured again beside the "
			  "suite's workload on one thread, lay beyond both intervals from the fit: "
			  "the cost moved while the suite ran, and this prediction's cost is the "
			  "fit's ± %.1f %%, which holds both", 100 * cost_moved);
		pb_rset_text(par, "cost_moved_note", moved);
	}
	double pred_ci95 = predicted_ci95_at(d, i, &f, fit_ns, fit_ci95, fit_event_ns(d),
					     d->none->per_event ? d->none->event_ci95 : 0);
	slowdown_ci95_metric(m, "predicted_slowdown_ci95_pp", pred_ci95);
	if (isfinite(f.predicted) && isfinite(f.measured)) {
		pb_rset_real(m, "slowdown_error_pp", PB_UNIT_PERCENT_POINTS, f.predicted - f.measured);
		pb_rset_real(m, "slowdown_tolerance_pp", PB_UNIT_PERCENT_POINTS,
			     pb_slowdown_tolerance_pp(f.measured));
		pb_rset_bool(m, "slowdown_within", pb_slowdown_within(f.predicted, f.measured));
		pb_rset_text(m, "slowdown_verdict",
			     pb_slowdown_verdict(f.predicted, pred_ci95, f.measured, f.ci95));
		/* an undecided verdict says what would decide it: the rounds at this noise (none
		 * when the error sits on the tolerance, or the prediction's interval spans it) */
		unsigned need = pb_slowdown_rounds_to_decide(f.predicted, pred_ci95, f.measured,
							     f.ci95, f.n);
		char never[320];
		if (need == UINT_MAX)
			pb_rset_text(m, "undecided_why",
				     pb_slowdown_undecided_why(f.predicted, pred_ci95, f.measured,
							       never, sizeof never));
		else if (need)
			pb_rset_int(m, "rounds_to_decide", PB_UNIT_COUNT, need);
	}
	reference_metrics(p, d, i, &f, &rf);
	calibrated_metrics(p, d, i, &f);
	pb_rset_text(par, "criterion", "|predicted - measured slowdown| <= max(10 % of the "
		     "measured slowdown, 1 percentage point of run time)");
}

struct pb_result_point *pb_cost_prediction_baseline_point(struct pb_results *res,
							  const char *facility, const char *name,
							  unsigned threads)
{
	struct pb_result_point *bp = pb_results_point(res, "cost", facility, name);
	pb_rset_text(&bp->params, "kind", "prediction-baseline");
	pb_rset_int(&bp->params, "period", PB_UNIT_NONE, 0);
	pb_rset_int(&bp->params, "threads", PB_UNIT_THREADS, threads);
	return bp;
}

double pb_cost_prediction_points(struct pb_results *res, const char *facility, const char *name,
				 struct pb_result_point *bp,
				 const struct prediction_rounds_done *d)
{
	double base_cpu = pb_median(d->bcpu, d->rounds), base_wall = pb_median(d->bwall, d->rounds);
	pb_rset_real(&bp->metrics, "cpu_ns_median", PB_UNIT_NS, base_cpu);
	pb_rset_real(&bp->metrics, "wall_ns_median", PB_UNIT_NS, base_wall);
	pb_rset_real(&bp->metrics, "warmup_cpu_ns", PB_UNIT_NS, d->warmup_cpu);
	pb_rset_int(&bp->metrics, "rounds", PB_UNIT_NONE, d->rounds);
	if (d->ref) {
		double ref_base[MAX_RUNS];
		for (unsigned r = 0; r < d->rounds; r++)
			ref_base[r] = d->ref_base[r].cpu;
		pb_rset_real(&bp->metrics, "reference_cpu_ns_median", PB_UNIT_NS,
			     pb_median(ref_base, d->rounds));
	}
	double cost_moved = pb_cost_moved_half(d);
	for (unsigned i = 0; i < d->nperiods; i++) {
		struct pb_result_point *p = pb_results_point(res, "cost", facility, name);
		prediction_point_fill(p, d, i, base_cpu, base_wall, cost_moved);
	}
	return cost_moved;
}

/* A workload of the suite run as a prediction's target, or as the cost workload beside one: its
 * sampled request (the period set per run) and its request without perf. */
struct workload_target {
	struct pb_point_request req, base;
	unsigned threads;
};

static int workload_run(void *ctx, uint64_t period, unsigned round, struct predict_run *out,
			struct pb_error *err)
{
	(void)round;
	struct workload_target *w = ctx;
	const struct pb_point_request *q = &w->base;
	if (period) {
		if (pb_point_request_set_period(&w->req, period, err))
			return -1;
		q = &w->req;
	}
	struct pb_point pt;
	if (pb_point_measure(q, &pt, err))
		return -1;
	*out = (struct predict_run){
		.cpu = (double)pb_cost_sum_cpu(&pt, w->threads),
		.wall = (double)pt.wall_ns,
		.samples = period ? (double)pt.ev[0].observed : 0,
		.events = period ? (double)pt.ev[0].count : 0,
		.expected = period ? pt.ev[0].expected : 0,
		.lost = period ? (double)pt.ev[0].lost : 0,
	};
	pb_point_free(&pt);
	return 0;
}

/* Whether every period's measured slowdown is known well enough to judge its prediction. */
static bool rounds_precise(const struct prediction_rounds_done *d)
{
	for (unsigned i = 0; i < d->nperiods; i++) {
		struct slowdown_figures f = slowdown_of(d, i);
		if (!pb_slowdown_precise(f.predicted, f.ci95))
			return false;
	}
	return true;
}

/* A run without perf first, left out (the first run of a program pays for its page cache and
 * loader: xz's took 43.5 ms where the next two took 41.5 and 40.7), then rounds of a run
 * without perf and one sampled run per period, the baseline's place in the round rotating,
 * until the fewest rounds are done and every measured slowdown is precise enough, or the most
 * are done; `what` names the target in the progress line. */
int pb_cost_prediction_rounds(const struct pb_suite_options *o, const char *what,
			      prediction_measure_fn *measure, void *ctx,
			      struct prediction_rounds_done *d, struct pb_error *err)
{
	unsigned nperiods = d->nperiods;
	/* slots: the baseline, the periods, then the reference's run without perf and its run
	 * sampled at the shortest period (where a one-cost model misses most, and where the
	 * reference's own interval is narrowest; at every period it took the suite past its
	 * 150 s) */
	unsigned nslots = nperiods + 1 + (d->ref ? 2 : 0);
	struct workload_target reference = {0};
	if (d->ref)
		reference = (struct workload_target){.req = d->ref->sampled, .base = d->ref->base,
						     .threads = d->ref->sampled.threads};
	unsigned fewest = pb_cost_predict_rounds(o), most = pb_cost_predict_max_rounds(o);
	struct predict_run warm;
	int rc = measure(ctx, 0, UINT_MAX, &warm, err);
	if (rc)
		return rc;
	d->warmup_cpu = warm.cpu;
	d->rounds = 0;
	/* count_runs counted three periods a round */
	pb_suite_more_runs(o, ((int)nperiods - 3) * (int)fewest);
	for (unsigned r = 0; r < most; r++) {
		if (r >= fewest && rounds_precise(d))
			break;
		/* count_runs counted the fewest rounds */
		if (r >= fewest)
			pb_suite_more_runs(o, (int)nslots);
		for (unsigned k = 0; k < nslots; k++) {
			/* slot 0 is the baseline */
			unsigned slot = (k + r) % nslots;
			if (pb_suite_interrupted(o, err))
				return -1;
			if (o->progress) {
				char line[320];
				pb_format(line, sizeof line, "%s, %s, round %u/%u%s", what,
					  slot > nperiods ? "reference" : slot ? "sampled" : "baseline",
					  r + 1,
					  r < fewest ? fewest : most,
					  r < fewest ? "" : " (until precise)");
				o->progress(o->progress_ctx, line);
			}
			struct predict_run pr;
			if (slot > nperiods) {
				bool sampled = slot == nperiods + 2;
				if (workload_run(&reference, sampled ? d->periods[nperiods - 1] : 0, r,
						 &pr, err))
					return -1;
				*(sampled ? &d->ref_sampled[r] : &d->ref_base[r]) = pr;
				continue;
			}
			rc = measure(ctx, slot ? d->periods[slot - 1] : 0, r, &pr, err);
			if (rc)
				return rc;
			if (!slot) {
				d->bcpu[r] = pr.cpu;
				d->bwall[r] = pr.wall;
			} else {
				d->runs[slot - 1][r] = pr;
			}
		}
		d->rounds = r + 1;
	}
	return 0;
}

/* Another workload of the suite: rounds of a run without perf and one sampled run per period
 * (mode none), in rotating order; predicted from the median baseline. */
int pb_cost_predict_workload(const struct pb_suite_options *o, const char *facility,
				 const struct pb_spec *spec, const char *workload,
				 unsigned threads, const uint64_t *periods, const double *aimed_pct,
				 unsigned nperiods,
				 const struct cost_fit *none, const struct pb_cost_reference *ref,
				 double *cost_moved, struct pb_results *res, struct pb_error *err)
{
	struct workload_target w = {.threads = threads};
	if (pb_suite_request(&w.req, spec, workload, 0, threads, PB_DELIVERY_NONE, err))
		return -1;
	w.req.machine = o->machine;
	w.req.iterations = pb_calibrate_iterations(&w.req.workload, &w.req.events[0].spec,
						   o->target_ms, err);
	if (!w.req.iterations)
		return -1;
	w.base = w.req;
	w.base.no_perf = true;
	w.base.nevents = 0;
	struct prediction_rounds_done *d = calloc(1, sizeof *d);
	if (!d)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	*d = (struct prediction_rounds_done){.spec = spec, .none = none, .threads = threads,
					     .periods = periods, .aimed_pct = aimed_pct,
					     .nperiods = nperiods, .ref = ref,
					     .cost_moved = *cost_moved};
	char what[256];
	pb_format(what, sizeof what, "cost %s predict %s, %u thread(s)", facility, workload,
		  threads);
	if (pb_cost_prediction_rounds(o, what, workload_run, &w, d, err)) {
		free(d);
		return -1;
	}
	struct pb_result_point *bp =
		pb_cost_prediction_baseline_point(res, facility, workload, threads);
	*cost_moved = pb_cost_prediction_points(res, facility, workload, bp, d);
	free(d);
	return 0;
}
