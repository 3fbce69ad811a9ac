/* Predictions from a cost fit: a workload of the suite and real programs run as given, each at
 * three periods against baselines interleaved with the sampled runs. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/rng.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* One measured run of a prediction: CPU and wall time, samples and events. */
struct predict_run {
	double cpu, wall, samples, events, expected, lost;
};

/* A target's rounds: per round its run without perf (bcpu, bwall) and a run per period. */
struct prediction_rounds_done {
	const struct pb_spec *spec;
	const struct cost_fit *none;
	unsigned threads, rounds;
	const uint64_t *periods;
	const double *aimed_pct;     /* per period, the slowdown it was chosen for (NaN: none) */
	unsigned nperiods;
	struct predict_run runs[3][MAX_RUNS];
	double bcpu[MAX_RUNS], bwall[MAX_RUNS];
	double warmup_cpu;  /* the run before the rounds, left out of them */
	/* The cost workload beside the target (NULL: none): per round its run without perf and
	 * a sampled run at the target's shortest period (the last). */
	const struct pb_cost_reference *ref;
	struct predict_run ref_base[MAX_RUNS], ref_sampled[MAX_RUNS];
};

/* The model's time for a run of period i in round r, against that round's baseline, with a
 * sample costing ns_per_sample (the fit's, or the reference's for the rebased figure). */
static double predicted_cpu_at(const struct prediction_rounds_done *d, unsigned i, unsigned r,
			       double ns_per_sample)
{
	const struct predict_run *pr = &d->runs[i][r];
	/* Events per thread for the model: a timer's come from the period, not from the run
	 * being predicted. */
	struct pb_slowdown_model m = model_for(d->spec, d->none, d->bcpu[r] / d->threads,
					       pr->events / d->threads, d->periods[i]);
	m.ns_per_sample = ns_per_sample;
	return pb_model_time_ns(&m, d->periods[i]) * d->threads;
}

static double predicted_cpu(const struct prediction_rounds_done *d, unsigned i, unsigned r)
{
	return predicted_cpu_at(d, i, r, pb_cost_at_period(d->none, d->periods[i], NULL));
}

/* What a sample cost the cost workload beside the target at period i, each sampled run against
 * the same round's run without perf (NaN without a reference, at another period than the
 * shortest, or without two rounds that sampled). */
struct reference_figures {
	double ns, ci95;
	unsigned n;
};

static struct reference_figures reference_of(const struct prediction_rounds_done *d, unsigned i)
{
	struct reference_figures f = {NAN, NAN, 0};
	if (!d->ref || i + 1 != d->nperiods)
		return f;
	double extra[MAX_RUNS], samples[MAX_RUNS];
	for (unsigned r = 0; r < d->rounds; r++) {
		extra[r] = d->ref_sampled[r].cpu - d->ref_base[r].cpu;
		samples[r] = d->ref_sampled[r].samples;
	}
	f.n = pb_paired_sample_cost(extra, samples, d->rounds, &f.ns, &f.ci95);
	return f;
}

/* Period i's predicted slowdown (mean over the rounds) with a sample costing ns_per_sample. */
static double predicted_slowdown_at(const struct prediction_rounds_done *d, unsigned i,
				    double ns_per_sample)
{
	double sum = 0;
	unsigned n = 0;
	for (unsigned r = 0; r < d->rounds; r++) {
		double p = (predicted_cpu_at(d, i, r, ns_per_sample) - d->bcpu[r]) / d->bcpu[r] * 100;
		if (isfinite(p) && d->bcpu[r] > 0) {
			sum += p;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

/* Period i's slowdowns over the rounds done: predicted (mean), measured and the measured
 * figure's 95 % CI (pb_paired_slowdown), and what a sample cost. */
struct slowdown_figures {
	double predicted, measured, ci95, per_sample_ns, per_sample_ci95;
	unsigned n;
};

static struct slowdown_figures slowdown_of(const struct prediction_rounds_done *d, unsigned i)
{
	double pred[MAX_RUNS], diff[MAX_RUNS], base[MAX_RUNS], samples[MAX_RUNS];
	unsigned n = 0;
	for (unsigned r = 0; r < d->rounds; r++) {
		const struct predict_run *pr = &d->runs[i][r];
		double p = (predicted_cpu(d, i, r) - d->bcpu[r]) / d->bcpu[r] * 100;
		double dr = pr->cpu - d->bcpu[r];
		if (!isfinite(p) || !isfinite(dr) || !(d->bcpu[r] > 0))
			continue;
		pred[n] = p;
		diff[n] = dr;
		/* a trapping facility's extra time is its events' too: no per-sample figure */
		samples[n] = d->none->per_event ? 0 : pr->samples;
		base[n++] = d->bcpu[r];
	}
	struct slowdown_figures f = {NAN, NAN, NAN, NAN, NAN, n};
	if (!n)
		return f;
	struct pb_summary sp;
	pb_summarize(pred, n, &sp);
	f.predicted = sp.mean;
	pb_paired_slowdown(diff, base, n, &f.measured, &f.ci95);
	pb_paired_sample_cost(diff, samples, n, &f.per_sample_ns, &f.per_sample_ci95);
	return f;
}

/* The reference beside the target at period i: its cost now and at this rate against the
 * fit's (the interval from both), the target's own cost against it, and the prediction made
 * again with it (rebased: what is left of its error is the target's own difference). */
static void reference_metrics(struct pb_result_point *p, const struct prediction_rounds_done *d,
			      unsigned i, const struct slowdown_figures *f)
{
	if (!d->ref || i + 1 != d->nperiods)
		return;
	struct reference_figures rf = reference_of(d, i);
	struct pb_rset *m = &p->metrics;
	/* the rounds whose reference run sampled: fewer than two give no figure */
	pb_rset_int(m, "reference_rounds", PB_UNIT_NONE, rf.n);
	if (!isfinite(rf.ns))
		return;
	double fit_ci, fit = pb_cost_at_period(d->none, d->periods[i], &fit_ci);
	pb_rset_real(m, "reference_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, rf.ns);
	pb_rset_real(m, "reference_ns_per_sample_ci95", PB_UNIT_NS_PER_SAMPLE, rf.ci95);
	if (fit > 0) {
		pb_rset_real(m, "reference_vs_fit_pct", PB_UNIT_PERCENT, (rf.ns - fit) / fit * 100);
		pb_rset_real(m, "reference_vs_fit_ci95_pp", PB_UNIT_PERCENT_POINTS,
			     sqrt(rf.ci95 * rf.ci95 + fit_ci * fit_ci) / fit * 100);
	}
	if (isfinite(f->per_sample_ns))
		pb_rset_real(m, "own_vs_reference_pct", PB_UNIT_PERCENT,
			     (f->per_sample_ns - rf.ns) / rf.ns * 100);
	double rebased = predicted_slowdown_at(d, i, rf.ns);
	if (!isfinite(rebased) || !isfinite(f->measured))
		return;
	pb_rset_real(m, "rebased_predicted_slowdown_pct", PB_UNIT_PERCENT, rebased);
	pb_rset_real(m, "rebased_slowdown_error_pp", PB_UNIT_PERCENT_POINTS, rebased - f->measured);
	pb_rset_bool(m, "rebased_slowdown_within", pb_slowdown_within(rebased, f->measured));
	pb_rset_text(m, "rebased_slowdown_verdict",
		     pb_slowdown_verdict(rebased, f->measured, f->ci95));
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
	double calibrated = predicted_slowdown_at(d, i, at.per_sample_ns);
	if (!isfinite(calibrated))
		return;
	struct pb_rset *m = &p->metrics;
	pb_rset_int(m, "calibrated_from_period", PB_UNIT_NONE,
		    (int64_t)d->periods[CALIBRATION_PERIOD]);
	pb_rset_real(m, "calibrated_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, at.per_sample_ns);
	if (isfinite(at.per_sample_ci95))
		pb_rset_real(m, "calibrated_ns_per_sample_ci95", PB_UNIT_NS_PER_SAMPLE,
			     at.per_sample_ci95);
	pb_rset_real(m, "calibrated_predicted_slowdown_pct", PB_UNIT_PERCENT, calibrated);
	pb_rset_real(m, "calibrated_slowdown_error_pp", PB_UNIT_PERCENT_POINTS,
		     calibrated - f->measured);
	pb_rset_bool(m, "calibrated_slowdown_within", pb_slowdown_within(calibrated, f->measured));
	pb_rset_text(m, "calibrated_slowdown_verdict",
		     pb_slowdown_verdict(calibrated, f->measured, f->ci95));
}

static void prediction_point_fill(struct pb_result_point *p, const struct prediction_rounds_done *d,
				  unsigned i, double base_cpu, double base_wall)
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
		e[ne] = err_cpu;
		ew[ne++] = err_wall;
		struct pb_rset *run = pb_rlist_set(&p->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
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
		}
	}
	struct pb_rset *m = &p->metrics;
	pb_rset_int(m, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
	error_metrics(m, "error_pct", e, ne);
	error_metrics(m, "wall_error_pct", ew, ne);
	/* Judged on the slowdown (issue 27), each round's run against its own baseline */
	struct slowdown_figures f = slowdown_of(d, i);
	pb_rset_int(m, "rounds", PB_UNIT_NONE, n);
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
	if (isfinite(f.predicted) && isfinite(f.measured)) {
		pb_rset_real(m, "slowdown_error_pp", PB_UNIT_PERCENT_POINTS, f.predicted - f.measured);
		pb_rset_real(m, "slowdown_tolerance_pp", PB_UNIT_PERCENT_POINTS,
			     pb_slowdown_tolerance_pp(f.measured));
		pb_rset_bool(m, "slowdown_within", pb_slowdown_within(f.predicted, f.measured));
		pb_rset_text(m, "slowdown_verdict",
			     pb_slowdown_verdict(f.predicted, f.measured, f.ci95));
		/* an undecided verdict says what would decide it: the rounds at this noise (none
		 * when the error sits on the tolerance) */
		unsigned need = pb_slowdown_rounds_to_decide(f.predicted, f.measured, f.ci95, f.n);
		if (need && need != UINT_MAX)
			pb_rset_int(m, "rounds_to_decide", PB_UNIT_COUNT, need);
	}
	reference_metrics(p, d, i, &f);
	calibrated_metrics(p, d, i, &f);
	pb_rset_text(par, "criterion", "|predicted - measured slowdown| <= max(10 % of the "
		     "measured slowdown, 1 percentage point of run time)");
}

/* The baseline point of a prediction's target (a workload of the suite or a real program);
 * its medians come with the predictions. */
static struct pb_result_point *prediction_baseline_point(struct pb_results *res,
							 const char *facility, const char *name,
							 unsigned threads)
{
	struct pb_result_point *bp = pb_results_point(res, "cost", facility, name);
	pb_rset_text(&bp->params, "kind", "prediction-baseline");
	pb_rset_int(&bp->params, "period", PB_UNIT_NONE, 0);
	pb_rset_int(&bp->params, "threads", PB_UNIT_THREADS, threads);
	return bp;
}

/* The rounds done: the baselines' medians on bp, and a prediction point per period. */
static void prediction_points(struct pb_results *res, const char *facility, const char *name,
			      struct pb_result_point *bp, const struct prediction_rounds_done *d)
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
	for (unsigned i = 0; i < d->nperiods; i++) {
		struct pb_result_point *p = pb_results_point(res, "cost", facility, name);
		prediction_point_fill(p, d, i, base_cpu, base_wall);
	}
}

/* One run of a prediction's target: period 0 without perf, else sampled at period. Returns 0,
 * -1 (err: the suite stops) or 1 (the target is skipped; the run left its reason). */
typedef int prediction_measure_fn(void *ctx, uint64_t period, unsigned round,
				  struct predict_run *out, struct pb_error *err);

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
static int prediction_rounds(const struct pb_suite_options *o, const char *what,
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
				 struct pb_results *res, struct pb_error *err)
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
					     .nperiods = nperiods, .ref = ref};
	char what[256];
	pb_format(what, sizeof what, "cost %s predict %s, %u thread(s)", facility, workload,
		  threads);
	if (prediction_rounds(o, what, workload_run, &w, d, err)) {
		free(d);
		return -1;
	}
	struct pb_result_point *bp = prediction_baseline_point(res, facility, workload, threads);
	prediction_points(res, facility, workload, bp, d);
	free(d);
	return 0;
}

/* A compressible file of pseudo-words, the same every time: xz's input. */
static int make_input(char *path, size_t len, size_t bytes, struct pb_error *err)
{
	pb_format(path, len, "/tmp/pesbench-cost-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "cannot create a scratch file in /tmp");
	FILE *f = fdopen(fd, "w");
	static const char *const words[] = {"sample", "period", "event", "buffer", "signal",
					    "thread", "kernel", "ring", "cost", "trap",
					    "uprobe", "timer", "loss", "overhead", "skid"};
	struct pb_rng rng;
	pb_rng_seed(&rng, 88172645463325252ull);
	for (size_t written = 0; f && written < bytes;) {
		uint64_t x = pb_rng_next(&rng);
		int n = fprintf(f, "%s%c", words[x % 15], (x >> 20) % 11 ? ' ' : '\n');
		if (n < 0)
			break;
		written += (size_t)n;
	}
	if (!f || fclose(f)) {
		unlink(path);
		return pb_fail(err, PB_EXIT_FAILURE, 0, "cannot write the scratch file %s", path);
	}
	return 0;
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	for (const char *p = path; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		pb_format(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
		if (!access(buf, X_OK))
			return true;
		p = colon ? colon + 1 : NULL;
	}
	return false;
}

struct program_target {
	char *const *argv;
	const struct pb_spec *spec;
	struct pb_result_point *bp;   /* the baseline point: its runs, or the error */
};

static int program_run(void *ctx, uint64_t period, unsigned round, struct predict_run *out,
		       struct pb_error *err)
{
	(void)err;
	struct program_target *p = ctx;
	struct pb_program_figures f;
	struct pb_error run_err = {0};
	if (pb_program_measure(p->argv, period ? p->spec : NULL, period, 0, &f, &run_err)) {
		pb_rset_text(&p->bp->params, "error", run_err.msg);
		return 1;
	}
	if (!period && round != UINT_MAX) {
		/* the warm-up run (round UINT_MAX) is left out of the rounds */
		struct pb_rset *run = pb_rlist_set(&p->bp->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, round);
		pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)f.cpu_ns);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)f.wall_ns);
		pb_rset_int(run, "maxrss_kib", PB_UNIT_KIB, (int64_t)f.maxrss_kib);
	}
	*out = (struct predict_run){
		.cpu = (double)f.cpu_ns,
		.wall = (double)f.wall_ns,
		.samples = (double)f.samples,
		.events = (double)f.count,
		.expected = (double)f.samples + (double)f.lost,
		.lost = (double)f.lost,
	};
	return 0;
}

/* A real program: CPU time is the program's (user + system from wait4). A run that fails leaves
 * its error on the baseline point, and the program is skipped. */
static int program_runs(const struct pb_suite_options *o, const char *facility,
			const struct pb_spec *spec, char *const *argv, const char *name,
			const uint64_t *periods, const double *aimed_pct, unsigned nperiods,
			const struct cost_fit *none,
			struct pb_results *res, struct pb_error *err)
{
	struct prediction_rounds_done *d = calloc(1, sizeof *d);
	if (!d)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	*d = (struct prediction_rounds_done){.spec = spec, .none = none, .threads = 1,
					     .periods = periods, .aimed_pct = aimed_pct,
					     .nperiods = nperiods};
	/* made first: a run that fails leaves its error here */
	struct program_target p = {argv, spec, prediction_baseline_point(res, facility, name, 1)};
	char what[256];
	pb_format(what, sizeof what, "cost %s %s", facility, name);
	int rc = prediction_rounds(o, what, program_run, &p, d, err);
	if (!rc)
		prediction_points(res, facility, name, p.bp, d);
	free(d);
	return rc < 0 ? -1 : 0;
}

/* The interpreter python3 runs, not a wrapper in front of it: a pyenv shim is a shell script
 * that forks helpers before it execs the interpreter, and their CPU time would be in the
 * baseline (wait4 counts waited-for children) but never sampled (the timer follows the one
 * process). Falls back to "python3" when python3 cannot say. */
static void python_path(char *buf, size_t len)
{
	pb_format(buf, len, "python3");
	FILE *p = popen("python3 -c 'import sys; print(sys.executable)' 2>/dev/null", "r");
	if (!p)
		return;
	char line[4096];
	if (fgets(line, sizeof line, p)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '/' && !access(line, X_OK))
			pb_format(buf, len, "%s", line);
	}
	pclose(p);
}

const char *const pb_cost_program_names[2] = {"program:xz -4 -T1 (256 KiB text)",
					     "program:python3 loop 3e5"};

int pb_cost_real_programs(const struct pb_suite_options *o, const char *facility,
			 const struct pb_spec *spec, const struct cost_fit *none,
			 struct pb_results *res, struct pb_error *err)
{
	/* from the fit: predicted slowdowns of 3, 10 and 30 % (issue 27: at the fixed 1 ms,
	 * 200 and 100 us most slowdowns were under 10 %, where a 10 % band on the run time passes
	 * a prediction of no cost at all) */
	static const uint64_t fallback[] = {1000000, 200000, 100000};
	uint64_t periods[3];
	double aimed[3];
	unsigned np = pb_cost_prediction_periods(spec, none, fallback, 3, periods, aimed);
	char input[64];
	if (make_input(input, sizeof input, 256u << 10, err))
		return -1;
	char python[4096];
	python_path(python, sizeof python);
	char *xz[] = {"xz", "-4", "-T1", "-c", "-k", input, NULL};
	char *py[] = {python, "-c", "s = 0\nfor i in range(300000): s += i * i\nprint(s)",
		      NULL};
	struct {
		char **argv;
		const char *name;
	} progs[] = {{xz, pb_cost_program_names[0]}, {py, pb_cost_program_names[1]}};
	int rc = 0;
	for (size_t i = 0; i < 2 && !rc; i++) {
		if (progs[i].argv[0][0] != '/' && !in_path(progs[i].argv[0])) {
			char why[160];
			pb_format(why, sizeof why, "%s is not installed (scripts/install-deps.sh "
				  "installs it)", progs[i].argv[0]);
			pb_not_applicable(res, "cost", facility, why);
			/* count_runs counted its fewest rounds of a baseline and three periods */
			pb_suite_more_runs(o, -(int)(pb_cost_predict_rounds(o) * 4));
			continue;
		}
		rc = program_runs(o, facility, spec, progs[i].argv, progs[i].name, periods, aimed,
				  np, none, res, err);
	}
	unlink(input);
	return rc;
}
