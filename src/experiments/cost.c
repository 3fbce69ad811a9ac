/* Cost of one sample (Akiyama & Hirofuchi, 4.2) and prediction (4.4-4.5), measured so that noise
 * cannot pose as cost.
 *
 * The facility samples a workload with (almost) no data traffic — the register-only busy loop —
 * single-threaded, separately per delivery mode, over a sweep of periods. Every sampled run is
 * paired with a run of the same iterations without perf, next to it in time (the order inside a
 * pair alternates, and so does the direction of the sweep), and the pair gives one point:
 * x = samples taken, y = the sampled run's extra CPU time over its partner's. CPU time is the
 * measured thread's own (CLOCK_THREAD_CPUTIME_ID: user + kernel, and the interrupts and traps
 * taken while it ran), so the time it spent waiting for a CPU that other programs held does not
 * count; the same fit on wall time is reported beside it. The least-squares slope is the cost
 * of one sample (ns), with R², its 95 % CI and the intercept's; Theil–Sen's slope on the same
 * points stands beside it, and the fit is flagged when it falls outside the least-squares CI.
 * Rounds over the sweep repeat until the fit meets the standard (slope > 0, R² >= 0.99, CI
 * within ±10 %) or the mode's time budget is spent; a fit that does not meet it is marked
 * unresolved with the reason.
 *
 * Facilities that trap on every event, sampled or not (breakpoints, uprobes:
 * traps_every_event), pay a cost per event on top of the cost per sample. The partner run
 * without perf pays neither, the events per run are fixed by the iterations, so the intercept
 * is the events' cost: intercept / events is the cost per event, the slope the cost per sample
 * on top of its event's trap.
 *
 * Mode none's slope is the kernel's floor (taking the sample and writing the record); each
 * other mode's excess over it is what its delivery adds.
 *
 * Prediction then checks the model on other programs: predicted time = baseline + cost per
 * event x events + cost per sample x samples, the samples following from the period (a timer:
 * n = T0 / (P - c), it counts its own cost; events: E / P), against the measured time, at three
 * periods, on 1 and N threads, for another workload of the suite and — for the timer, which can
 * sample any program — for real programs run as given (xz compressing a generated file, python3
 * running a loop), with E = (measured - predicted) / predicted on CPU time (and on wall time
 * beside it). Baselines are interleaved with the sampled runs. */
#include "experiments/experiment.h"
#include "experiments/suite_defaults.h"
#include "experiments/predict.h"

#include "analysis/stats.h"
#include "workloads/workload.h"
#include "util/kit.h"
#include "util/rng.h"
#include "util/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PAIRS 512
#define MAX_RUNS 64

/* The time a mode's sweep may take before it stops unresolved, in multiples of --target-ms
 * (60 ms by default: 4.2 s for mode none, 1.5 s for each other mode). Mode none gets more: it
 * is the floor every other figure and the prediction stand on. */
#define BUDGET_NONE_TARGETS 70
#define BUDGET_MODE_TARGETS 25

static const enum pb_delivery modes[] = {PB_DELIVERY_NONE, PB_DELIVERY_SIGNAL,
					 PB_DELIVERY_SIGTRAP, PB_DELIVERY_DRAIN};
#define NMODES (PB_ARRAY_SIZE(modes))

static bool is_timer(const struct pb_spec *s)
{
	return s->facility->time_based;
}

static const char *cost_workload(const struct pb_spec *s)
{
	return pb_spec_workload(s, PB_ROLE_COST, NULL);
}

/* Another workload for the prediction; NULL when only the cost workload has the events. */
static const char *predict_workload(const struct pb_spec *s)
{
	return pb_spec_workload(s, PB_ROLE_PREDICT, NULL);
}

static unsigned cost_periods(const struct pb_suite_options *o, const struct pb_spec *s,
			     uint64_t *p)
{
	if (o->nperiods) {
		memcpy(p, o->periods, o->nperiods * sizeof *p);
		return o->nperiods;
	}
	return pb_cost_sweep_periods(s->facility, p);
}

/* Rounds a mode makes before its fit may stop it: two for mode none, the floor every other
 * figure and the prediction stand on (each period measured twice, so that a lucky first round
 * cannot resolve it alone), one for the others; --runs 1 asks for one. After them the fit is
 * checked after every pair, so a facility whose runs are slow to set up (a uprobe's open and
 * close take ~0.3 s each in the kernel here) stops close to its budget. */
static unsigned min_rounds(const struct pb_suite_options *o, enum pb_delivery mode)
{
	return mode == PB_DELIVERY_NONE && o->runs >= 2 ? 2 : 1;
}

/* R² below this after two rounds stops a sweep early: R² measures the noise against the
 * spread of the samples, and more pairs estimate it better but do not raise it. */
#define FUTILE_R2 0.9

/* Prediction rounds: every round is a baseline and one run per period. Three, so that the
 * median a prediction is judged by is a run's, not the mean of a pair that one disturbed run
 * can carry (a uprobe run at period 1 once took 80 ms where its partner took 67: +25 % and
 * +4.5 %, judged +14.7 %). */
#define PREDICTION_ROUNDS 3

static unsigned predict_rounds(const struct pb_suite_options *o)
{
	return o->runs < PREDICTION_ROUNDS ? o->runs : PREDICTION_ROUNDS;
}


/* How many classes of probe site besides the first the cost workload offers a facility whose
 * cost per event depends on the site (each gets a sweep in mode none); 0 for the others. */
static unsigned other_site_classes(const struct pb_spec *s, const struct pb_machine *m)
{
	if (!s->facility->event_cost_class || !pb_spec_sits_on_instruction(s))
		return 0;
	struct pb_workload_choice wc;
	struct pb_truth *t = calloc(1, sizeof *t);
	const char *seen[PB_WL_MAX_LABELS];
	unsigned nseen = 0;
	if (t && !pb_workload_parse(cost_workload(s), &wc, NULL) &&
	    !pb_workload_truth(&wc, 1, t, NULL)) {
		int first = pb_truth_default_label(t);
		for (unsigned l = 0; l < t->nlabels; l++) {
			if (!t->labels[l].per_iteration && (int)l != first)
				continue;
			char insn[96];
			const char *cls = pb_spec_event_cost_class(m, s, t->labels[l].addr, insn,
								   sizeof insn);
			bool known = !cls || !strcmp(cls, PB_SITE_REFUSED);
			for (unsigned i = 0; i < nseen && !known; i++)
				known = !strcmp(seen[i], cls);
			if (!known)
				seen[nseen++] = cls;
		}
	}
	free(t);
	return nseen > 1 ? nseen - 1 : 0;
}

static unsigned cost_count_runs(const struct pb_suite_options *o, const char *facility)
{
	struct pb_spec s;
	if (pb_spec_parse(facility, &s, NULL))
		return 0;
	uint64_t p[PB_MAX_LIST];
	unsigned np = cost_periods(o, &s, p);
	/* The minimum rounds, one progress step per pair of runs; the adaptive rounds are not
	 * known in advance (the progress line's total grows when they come). */
	unsigned n = 0;
	for (unsigned m = 0; m < NMODES; m++)
		n += min_rounds(o, modes[m]) * np;
	n += other_site_classes(&s, o->machine) * min_rounds(o, PB_DELIVERY_NONE) * np;
	if (predict_workload(&s))
		n += 2 * predict_rounds(o) * 4;
	if (is_timer(&s))
		n += 2 * predict_rounds(o) * 4;
	return n;
}

static uint64_t sum_cpu(const struct pb_point *pt, unsigned threads)
{
	uint64_t s = 0;
	for (unsigned t = 0; t < threads && t < PB_MAX_THREADS; t++)
		s += pt->cpu_ns[t];
	return s;
}

struct sweep {
	struct pb_cost_pair p[MAX_PAIRS];
	size_t n;
};

/* A mode's fit and what it took. */
struct cost_fit {
	bool fitted, resolved, wall_fitted, disagree, per_event;
	bool event_resolved;         /* per_event: event_ns positive, CI within ±10 % */
	/* A prediction's model whose per-sample cost was taken from another site's fit (the
	 * site's own did not resolve): that site's label; "" otherwise. */
	char sample_cost_from[64];
	struct pb_fit cpu, wall;
	double ts_slope, ts_intercept;
	double events;               /* mean events per sampled run */
	double event_ns, event_ci95; /* per_event: intercept / events */
	double baseline_cpu, baseline_wall;  /* medians of the partner runs */
	size_t pairs;
	unsigned rounds;
	double seconds, budget_seconds;
	char why[320];               /* unresolved: the reason */
	/* Facilities whose cost per event depends on the probed instruction (event_cost_class):
	 * the label the sweep sat on, the instruction there and its class. */
	const char *site_class;
	char site[64], site_insn[96];
};

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

static void fit_sweep(const struct sweep *sw, bool per_event, struct cost_fit *cf)
{
	double *x = malloc(sw->n * sizeof *x), *y = malloc(sw->n * sizeof *y),
	       *yw = malloc(sw->n * sizeof *yw), *b = malloc(sw->n * sizeof *b),
	       *bw = malloc(sw->n * sizeof *bw);
	cf->fitted = cf->resolved = cf->wall_fitted = cf->disagree = false;
	cf->per_event = per_event;
	cf->pairs = sw->n;
	cf->why[0] = 0;
	if (!x || !y || !yw || !b || !bw || sw->n == 0) {
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
		y[i] = sw->p[i].cpu - local_baseline(b, sw->n, i);
		yw[i] = sw->p[i].wall - local_baseline(bw, sw->n, i);
		events += sw->p[i].events;
	}
	cf->events = events / (double)sw->n;
	cf->baseline_cpu = pb_median(b, sw->n);
	cf->baseline_wall = pb_median(bw, sw->n);
	if (pb_linear_fit(x, y, sw->n, &cf->cpu)) {
		pb_format(cf->why, sizeof cf->why,
			  "no fit: fewer than 3 pairs or the same number of samples in every run");
		goto out;
	}
	cf->fitted = true;
	cf->wall_fitted = !pb_linear_fit(x, yw, sw->n, &cf->wall);
	if (pb_theil_sen(x, y, sw->n, &cf->ts_slope, &cf->ts_intercept))
		cf->ts_slope = cf->ts_intercept = NAN;
	cf->disagree = pb_fit_disagrees(&cf->cpu, cf->ts_slope);
	if (per_event && cf->events > 0) {
		cf->event_ns = cf->cpu.intercept / cf->events;
		cf->event_ci95 = cf->cpu.intercept_ci95 / cf->events;
		/* the per-event cost to the standard the slope is held to: positive, and its 95 %
		 * CI within PB_FIT_MAX_REL_CI of it */
		cf->event_resolved = cf->event_ns > 0 &&
				     cf->event_ci95 <= PB_FIT_MAX_REL_CI * cf->event_ns;
	}
	cf->resolved = pb_fit_resolved(&cf->cpu) && !cf->disagree;
	if (cf->resolved)
		goto out;
	const struct pb_fit *f = &cf->cpu;
	if (!(f->slope > 0))
		pb_format(cf->why, sizeof cf->why, "the slope is not positive (%.0f ± %.0f ns)",
			  f->slope, f->slope_ci95);
	else if (!(f->r2 >= PB_FIT_MIN_R2) && !(f->slope_ci95 <= PB_FIT_MAX_REL_CI * f->slope))
		pb_format(cf->why, sizeof cf->why,
			  "R² %.3f < %.2f and the 95 %% CI is ±%.0f %% of the slope (> ±%.0f %%)",
			  f->r2, PB_FIT_MIN_R2, 100 * f->slope_ci95 / f->slope,
			  PB_FIT_MAX_REL_CI * 100);
	else if (!(f->r2 >= PB_FIT_MIN_R2))
		pb_format(cf->why, sizeof cf->why, "R² %.3f < %.2f", f->r2, PB_FIT_MIN_R2);
	else if (!(f->slope_ci95 <= PB_FIT_MAX_REL_CI * f->slope))
		pb_format(cf->why, sizeof cf->why,
			  "the 95 %% CI is ±%.0f %% of the slope (> ±%.0f %%)",
			  100 * f->slope_ci95 / f->slope, PB_FIT_MAX_REL_CI * 100);
	else
		pb_format(cf->why, sizeof cf->why,
			  "least squares (%.0f ± %.0f ns) and Theil–Sen (%.0f ns) disagree",
			  f->slope, f->slope_ci95, cf->ts_slope);
out:
	free(x);
	free(y);
	free(yw);
	free(b);
	free(bw);
}

/* What a sweep needs: the sampled request (its period and delivery set per run), its partner
 * without perf, the periods, and when to stop. */
struct sweep_setup {
	const struct pb_suite_options *o;   /* progress and interruption; may be NULL */
	const char *facility;
	struct pb_point_request sampled, base;
	uint64_t periods[PB_MAX_LIST];
	unsigned np;
	unsigned min_rounds;
	uint64_t budget_ns;
	bool per_event;
};

static int measure_pair(const struct sweep_setup *su, const struct pb_point_request *req,
			bool base_first, struct pb_cost_pair *out, struct pb_error *err)
{
	struct pb_point sp, bp;
	const struct pb_point_request *first = base_first ? &su->base : req;
	const struct pb_point_request *second = base_first ? req : &su->base;
	struct pb_point *p1 = base_first ? &bp : &sp, *p2 = base_first ? &sp : &bp;
	if (pb_point_measure(first, p1, err))
		return -1;
	if (pb_point_measure(second, p2, err)) {
		pb_point_free(p1);
		return -1;
	}
	*out = (struct pb_cost_pair){
		.period = req->period,
		.observed = (double)sp.ev[0].observed,
		.events = (double)sp.ev[0].count,
		.expected = sp.ev[0].expected,
		.lost = (double)sp.ev[0].lost,
		.cpu = (double)sum_cpu(&sp, req->threads),
		.base_cpu = (double)sum_cpu(&bp, su->base.threads),
		.wall = (double)sp.wall_ns,
		.base_wall = (double)bp.wall_ns,
	};
	pb_point_free(&sp);
	pb_point_free(&bp);
	return 0;
}

void pb_cost_pair_record(struct pb_rset *run, const struct pb_cost_pair *p, unsigned round)
{
	pb_rset_int(run, "run", PB_UNIT_NONE, round);
	pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)p->observed);
	pb_rset_real(run, "expected", PB_UNIT_SAMPLES, p->expected);
	pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)p->lost);
	pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)p->events);
	pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)p->cpu);
	pb_rset_int(run, "baseline_cpu_ns", PB_UNIT_NS, (int64_t)p->base_cpu);
	pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)p->wall);
	pb_rset_int(run, "baseline_wall_ns", PB_UNIT_NS, (int64_t)p->base_wall);
}

/* Rounds over the sweep in one delivery mode until the fit resolves or the budget is spent.
 * period_points[i] (may be NULL) receives the runs of periods[i]. */
static int sweep_mode(struct sweep_setup *su, enum pb_delivery mode,
		      struct pb_result_point **period_points,
		      struct cost_fit *cf, struct pb_error *err)
{
	struct sweep *sw = calloc(1, sizeof *sw);
	if (!sw)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	struct pb_point_request req = su->sampled;
	req.delivery = mode;
	uint64_t start = pb_now_ns();
	unsigned round = 0;
	int rc = 0;
	bool done = false, futile = false;
	unsigned last = su->np;
	memset(cf, 0, sizeof *cf);
	for (;; round++) {
		/* Each round visits the periods in a new order, and the order inside the pairs
		 * alternates: in a fixed order a machine that warms up or quiets down would read
		 * as a per-sample cost, and with a reversing one the period at the turn ran twice
		 * in a row, so one burst of load on the machine landed on it twice. */
		unsigned order[PB_MAX_LIST];
		pb_round_order(order, su->np, round, &last);
		for (unsigned k = 0; k < su->np && !rc; k++) {
			unsigned i = order[k];
			if (su->o && pb_suite_interrupted(su->o, err)) {
				rc = -1;
				break;
			}
			if (su->o && su->o->progress) {
				char what[256];
				pb_format(what, sizeof what, "cost %s %s, period %llu, round %u",
					  su->facility, pb_delivery_name(mode),
					  (unsigned long long)su->periods[i], round + 1);
				su->o->progress(su->o->progress_ctx, what);
			}
			req.period = req.events[0].period = su->periods[i];
			struct pb_cost_pair pr;
			if (measure_pair(su, &req, (round + k) % 2 == 0, &pr, err)) {
				rc = -1;
				break;
			}
			if (sw->n < MAX_PAIRS)
				sw->p[sw->n++] = pr;
			/* a pair whose expectation is no number has no row (as /1 had it) */
			if (period_points && period_points[i] && isfinite(pr.expected))
				pb_cost_pair_record(pb_rlist_set(&period_points[i]->runs), &pr, round);
			if (round + 1 < su->min_rounds || (round + 1 == su->min_rounds &&
							   k + 1 < su->np))
				continue;
			fit_sweep(sw, su->per_event, cf);
			futile = cf->fitted && sw->n >= 2 * su->np && !(cf->cpu.r2 >= FUTILE_R2);
			if (pb_cost_sweep_done(cf->resolved, futile, su->per_event, cf->event_resolved) ||
			    pb_now_ns() - start >= su->budget_ns || sw->n >= MAX_PAIRS) {
				done = true;
				break;
			}
		}
		if (rc || done)
			break;
	}
	cf->rounds = round + 1;
	cf->seconds = (double)(pb_now_ns() - start) / 1e9;
	cf->budget_seconds = (double)su->budget_ns / 1e9;
	if (!rc && !cf->resolved && cf->why[0]) {
		size_t n = strlen(cf->why);
		pb_format(cf->why + n, sizeof cf->why - n,
			  " after %zu pairs in %.1f s (budget %.1f s)%s", cf->pairs, cf->seconds,
			  cf->budget_seconds,
			  futile && pb_cost_sweep_done(false, true, su->per_event, cf->event_resolved)
				  ? "; stopped early: R² below 0.9 after two rounds, and more pairs "
				   "do not raise it, only less noise does" : "");
	}
	free(sw);
	return rc;
}

/* The probe site of a request (its label, or the workload's first event label) and the class
 * the facility's cost per event there belongs to; NULL when that cost does not depend on the
 * site (or the facility sits on no instruction). */
static const char *site_of(const struct pb_point_request *req, const struct pb_spec *spec,
			   char *label, size_t label_len, char *insn, size_t insn_len)
{
	label[0] = insn[0] = 0;
	if (!pb_spec_sits_on_instruction(spec))
		return NULL;
	struct pb_truth *t = calloc(1, sizeof *t);
	const char *cls = NULL;
	if (t && !pb_workload_truth(&req->workload, req->iterations ? req->iterations : 1, t,
				    NULL)) {
		int l = req->label[0] ? pb_truth_label(t, req->label) : pb_truth_default_label(t);
		if (l >= 0) {
			pb_format(label, label_len, "%s", t->labels[l].name);
			cls = pb_spec_event_cost_class(req->machine, spec, t->labels[l].addr, insn,
						       insn_len);
		}
	}
	free(t);
	return cls;
}

static void fit_site(struct cost_fit *cf, const char *cls, const char *label, const char *insn)
{
	cf->site_class = cls;
	pb_format(cf->site, sizeof cf->site, "%s", label);
	pb_format(cf->site_insn, sizeof cf->site_insn, "%s", insn);
}

static int setup_sweep(struct sweep_setup *su, const char *facility, const struct pb_spec *spec,
		       const struct pb_machine *machine, uint64_t target_ms, struct pb_error *err)
{
	memset(su, 0, sizeof *su);
	su->facility = facility;
	su->per_event = spec->facility->traps_every_event;
	if (pb_suite_request(&su->sampled, facility, cost_workload(spec), 0, 1, PB_DELIVERY_NONE,
			    err))
		return -1;
	su->sampled.machine = machine;
	su->sampled.iterations = pb_calibrate_iterations(&su->sampled.workload,
							 &su->sampled.events[0].spec,
							 target_ms ? target_ms : 1, err);
	if (!su->sampled.iterations)
		return -1;
	su->base = su->sampled;
	su->base.no_perf = true;
	su->base.nevents = 0;
	return 0;
}

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

/* The fit point of one delivery mode. floor: mode none's fit, NULL for mode none itself. */
static struct pb_result_point *fit_point(struct pb_results *res, const char *facility,
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
	if (!cf->fitted) {
		pb_rset_text(par, "error", cf->why);
		return p;
	}
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
	if (floor && floor->fitted) {
		pb_rset_real(m, "floor_ns", PB_UNIT_NS_PER_SAMPLE, floor->cpu.slope);
		pb_rset_real(m, "excess_over_floor_ns", PB_UNIT_NS_PER_SAMPLE,
			     f->slope - floor->cpu.slope);
		pb_rset_real(m, "excess_ci95_ns", PB_UNIT_NS_PER_SAMPLE,
			     hypot(f->slope_ci95, floor->cpu.slope_ci95));
	}
	pb_rset_bool(m, "resolved", cf->resolved);
	if (!cf->resolved) {
		char note[480];
		pb_format(note, sizeof note,
			  "per-sample cost not resolved (needs slope > 0, R² >= %.2g, a 95 %% CI "
			  "within %.0f %% of the slope and Theil–Sen inside it): %s",
			  PB_FIT_MIN_R2, PB_FIT_MAX_REL_CI * 100, cf->why);
		pb_rset_text(par, "note", note);
	}
	return p;
}

/* The prediction that an unresolved cost of mode none cannot make: a point saying so, with the
 * fit's figures, instead of predicted times that would only restate the noise. */
static void refuse_prediction(struct pb_results *res, const char *facility, const char *workload,
			      const struct cost_fit *cf, const struct cost_fit *first)
{
	char note[480];
	pb_format(note, sizeof note,
		  "not predicted: the per-sample cost fit (mode none) did not resolve (R² %.3f, "
		  "slope %.0f ± %.0f ns)", cf->cpu.r2, cf->cpu.slope, cf->cpu.slope_ci95);
	if (cf->site_class)
		pb_append(note, sizeof note, " on the %s site %s (%s)", cf->site_class, cf->site,
			  cf->site_insn);
	if (cf->per_event && !cf->event_resolved)
		pb_append(note, sizeof note, ", nor did its per-event cost (%.0f ± %.0f ns)",
			  cf->event_ns, cf->event_ci95);
	else if (first && first != cf && !first->resolved)
		/* its per-event cost alone would do, with the first site's per-sample cost */
		pb_append(note, sizeof note, ", and neither did the per-sample cost on the first site "
			  "%s (R² %.3f, slope %.0f ± %.0f ns)", first->site, first->cpu.r2,
			  first->cpu.slope, first->cpu.slope_ci95);
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	pb_rset_text(&p->params, "kind", "prediction");
	/* A string, as every not-applicable point carries its reason there. */
	pb_rset_text(&p->params, "not_applicable", note);
	pb_rset_text(&p->params, "note", note);
}

/* The cost model of mode none for a workload's baseline and events. */
static struct pb_slowdown_model model_for(const struct pb_spec *spec, const struct cost_fit *none,
				      double baseline_ns, double events)
{
	return (struct pb_slowdown_model){
		.baseline_ns = baseline_ns,
		.time_based = spec->facility->time_based,
		.events = events,
		.ns_per_sample = none->cpu.slope,
		.ns_per_event = none->per_event ? none->event_ns : 0,
		.min_period = 1,
	};
}

/* One measured run of a prediction: CPU and wall time, samples and events. */
struct predict_run {
	double cpu, wall, samples, events, expected, lost;
};

static void prediction_point_fill(struct pb_result_point *p, const struct pb_spec *spec,
				  const struct cost_fit *none, uint64_t period, unsigned threads,
				  const struct predict_run *runs, unsigned n, double base_cpu,
				  double base_wall)
{
	struct pb_rset *par = &p->params;
	pb_rset_text(par, "kind", "prediction");
	pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)period);
	pb_rset_int(par, "threads", PB_UNIT_THREADS, threads);
	pb_rset_real(par, "baseline_ns", PB_UNIT_NS, base_cpu);
	pb_rset_real(par, "baseline_wall_ns", PB_UNIT_NS, base_wall);
	pb_rset_real(par, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, none->cpu.slope);
	if (none->site_class) {
		/* the fit was chosen for the target site's class: the two are the same */
		pb_rset_text(par, "cost_site", none->site);
		pb_rset_text(par, "site_class", none->site_class);
		if (none->sample_cost_from[0])
			pb_rset_text(par, "ns_per_sample_from", none->sample_cost_from);
	}
	if (none->per_event)
		pb_rset_real(par, "ns_per_event", PB_UNIT_NS_PER_EVENT, none->event_ns);
	pb_rset_text(par, "time_basis",
		     "CPU time of the measured threads (summed); wall time beside it");
	double e[MAX_RUNS], ew[MAX_RUNS], pred_s[MAX_RUNS], meas_s[MAX_RUNS];
	uint64_t lost = 0;
	for (unsigned r = 0; r < n; r++) {
		const struct predict_run *pr = &runs[r];
		/* Events per thread for the model: a timer's come from the period, not from
		 * the run being predicted. */
		struct pb_slowdown_model m = model_for(spec, none, base_cpu / threads,
						   pr->events / threads);
		double predicted = pb_model_time_ns(&m, period) * threads;
		struct pb_slowdown_model mw = model_for(spec, none, base_wall, pr->events / threads);
		double predicted_wall = pb_model_time_ns(&mw, period);
		e[r] = pb_prediction_error_pct(pr->cpu, predicted);
		ew[r] = pb_prediction_error_pct(pr->wall, predicted_wall);
		pred_s[r] = (predicted - base_cpu) / base_cpu * 100;
		meas_s[r] = (pr->cpu - base_cpu) / base_cpu * 100;
		lost += (uint64_t)pr->lost;
		/* a run with a figure that is no number has no row (as the /1 writer had it) */
		if (!isfinite(pr->expected) || !isfinite(predicted) || !isfinite(predicted_wall) ||
		    !isfinite(e[r]) || !isfinite(ew[r]) || !isfinite(meas_s[r]))
			continue;
		struct pb_rset *run = pb_rlist_set(&p->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
		pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)pr->cpu);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)pr->wall);
		pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)pr->samples);
		pb_rset_real(run, "expected", PB_UNIT_SAMPLES, pr->expected);
		pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)pr->lost);
		pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)pr->events);
		pb_rset_real(run, "predicted_ns", PB_UNIT_NS, predicted);
		pb_rset_real(run, "predicted_wall_ns", PB_UNIT_NS, predicted_wall);
		pb_rset_real(run, "error_pct", PB_UNIT_PERCENT, e[r]);
		pb_rset_real(run, "wall_error_pct", PB_UNIT_PERCENT, ew[r]);
		pb_rset_real(run, "measured_slowdown_pct", PB_UNIT_PERCENT, meas_s[r]);
	}
	struct pb_rset *m = &p->metrics;
	pb_rset_int(m, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
	error_metrics(m, "error_pct", e, n);
	error_metrics(m, "wall_error_pct", ew, n);
	pb_rset_real(m, "predicted_slowdown_pct", PB_UNIT_PERCENT, pb_median(pred_s, n));
	pb_rset_real(m, "measured_slowdown_pct", PB_UNIT_PERCENT, pb_median(meas_s, n));
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

/* The rounds done: the baselines' medians on bp, which every period's prediction is set
 * against, and a prediction point per period. */
static void prediction_points(struct pb_results *res, const char *facility, const char *name,
			      struct pb_result_point *bp, const struct pb_spec *spec,
			      const struct cost_fit *none, const uint64_t *periods,
			      unsigned nperiods, unsigned threads,
			      struct predict_run runs[][MAX_RUNS], unsigned rounds,
			      const double *bcpu, const double *bwall)
{
	double base_cpu = pb_median(bcpu, rounds), base_wall = pb_median(bwall, rounds);
	pb_rset_real(&bp->metrics, "cpu_ns_median", PB_UNIT_NS, base_cpu);
	pb_rset_real(&bp->metrics, "wall_ns_median", PB_UNIT_NS, base_wall);
	for (unsigned i = 0; i < nperiods; i++) {
		struct pb_result_point *p = pb_results_point(res, "cost", facility, name);
		prediction_point_fill(p, spec, none, periods[i], threads, runs[i], rounds, base_cpu,
				      base_wall);
	}
}

/* Another workload of the suite: rounds of a run without perf and one sampled run per period
 * (mode none), in rotating order; predicted from the median baseline. */
static int predict_workload_runs(const struct pb_suite_options *o, const char *facility,
				 const struct pb_spec *spec, const char *workload,
				 unsigned threads, const uint64_t *periods, unsigned nperiods,
				 const struct cost_fit *none, struct pb_results *res,
				 struct pb_error *err)
{
	struct pb_point_request req, base;
	if (pb_suite_request(&req, facility, workload, 0, threads, PB_DELIVERY_NONE, err))
		return -1;
	req.machine = o->machine;
	req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec, o->target_ms,
						 err);
	if (!req.iterations)
		return -1;
	base = req;
	base.no_perf = true;
	base.nevents = 0;
	unsigned rounds = predict_rounds(o);
	struct predict_run runs[3][MAX_RUNS];
	double bcpu[MAX_RUNS], bwall[MAX_RUNS];
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned k = 0; k <= nperiods; k++) {
			/* slot 0 is the baseline; its place in the round rotates */
			unsigned slot = (k + r) % (nperiods + 1);
			if (pb_suite_interrupted(o, err))
				return -1;
			if (o->progress) {
				char what[256];
				pb_format(what, sizeof what, "cost %s predict %s, %u thread(s), %s, "
					  "round %u/%u", facility, workload, threads,
					  slot ? "sampled" : "baseline", r + 1, rounds);
				o->progress(o->progress_ctx, what);
			}
			struct pb_point pt;
			const struct pb_point_request *q = &base;
			if (slot) {
				req.period = req.events[0].period = periods[slot - 1];
				q = &req;
			}
			if (pb_point_measure(q, &pt, err))
				return -1;
			if (!slot) {
				bcpu[r] = (double)sum_cpu(&pt, threads);
				bwall[r] = (double)pt.wall_ns;
			} else {
				runs[slot - 1][r] = (struct predict_run){
					.cpu = (double)sum_cpu(&pt, threads),
					.wall = (double)pt.wall_ns,
					.samples = (double)pt.ev[0].observed,
					.events = (double)pt.ev[0].count,
					.expected = pt.ev[0].expected,
					.lost = (double)pt.ev[0].lost,
				};
			}
			pb_point_free(&pt);
		}
	}
	struct pb_result_point *bp = prediction_baseline_point(res, facility, workload, threads);
	prediction_points(res, facility, workload, bp, spec, none, periods, nperiods, threads, runs,
			  rounds, bcpu, bwall);
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
					    "uprobe", "timer", "loss", "overhead", "pebs"};
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

/* A real program: rounds of a run without perf and one sampled run per period, in rotating
 * order; CPU time is the program's (user + system from wait4). */
static int program_runs(const struct pb_suite_options *o, const char *facility,
			const struct pb_spec *spec, char *const *argv, const char *name,
			const uint64_t *periods, unsigned nperiods, const struct cost_fit *none,
			struct pb_results *res, struct pb_error *err)
{
	unsigned rounds = predict_rounds(o);
	struct predict_run runs[3][MAX_RUNS];
	double bcpu[MAX_RUNS], bwall[MAX_RUNS];
	/* made first: a run that fails leaves its error here, and the program is skipped */
	struct pb_result_point *bp = prediction_baseline_point(res, facility, name, 1);
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned k = 0; k <= nperiods; k++) {
			unsigned slot = (k + r) % (nperiods + 1);
			if (pb_suite_interrupted(o, err))
				return -1;
			if (o->progress) {
				char what[256];
				pb_format(what, sizeof what, "cost %s %s %s, round %u/%u", facility,
					  name, slot ? "sampled" : "baseline", r + 1, rounds);
				o->progress(o->progress_ctx, what);
			}
			struct pb_program_figures f;
			struct pb_error run_err = {0};
			if (pb_program_measure(argv, slot ? spec : NULL,
					       slot ? periods[slot - 1] : 0, 0, &f, &run_err)) {
				pb_rset_text(&bp->params, "error", run_err.msg);
				return 0;
			}
			if (!slot) {
				bcpu[r] = (double)f.cpu_ns;
				bwall[r] = (double)f.wall_ns;
				struct pb_rset *run = pb_rlist_set(&bp->runs);
				pb_rset_int(run, "run", PB_UNIT_NONE, r);
				pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)f.cpu_ns);
				pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)f.wall_ns);
				pb_rset_int(run, "maxrss_kib", PB_UNIT_KIB, (int64_t)f.maxrss_kib);
			} else {
				runs[slot - 1][r] = (struct predict_run){
					.cpu = (double)f.cpu_ns,
					.wall = (double)f.wall_ns,
					.samples = (double)f.samples,
					.events = (double)f.count,
					.expected = (double)f.samples + (double)f.lost,
					.lost = (double)f.lost,
				};
			}
		}
	}
	prediction_points(res, facility, name, bp, spec, none, periods, nperiods, 1, runs, rounds,
			  bcpu, bwall);
	return 0;
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

static const char *const program_names[] = {"program:xz -4 -T1 (256 KiB text)",
					     "program:python3 loop 3e5"};

static int real_programs(const struct pb_suite_options *o, const char *facility,
			 const struct pb_spec *spec, const struct cost_fit *none,
			 struct pb_results *res, struct pb_error *err)
{
	static const uint64_t periods[] = {1000000, 200000, 100000};
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
	} progs[] = {{xz, program_names[0]}, {py, program_names[1]}};
	int rc = 0;
	for (size_t i = 0; i < 2 && !rc; i++) {
		if (progs[i].argv[0][0] != '/' && !in_path(progs[i].argv[0])) {
			char why[160];
			pb_format(why, sizeof why, "%s is not installed (scripts/install-deps.sh "
				  "installs it)", progs[i].argv[0]);
			pb_not_applicable(res, "cost", facility, why);
			continue;
		}
		rc = program_runs(o, facility, spec, progs[i].argv, progs[i].name, periods, 3,
				  none, res, err);
	}
	unlink(input);
	return rc;
}

/* Most site classes a facility's cost workload is swept on (uprobes: emulated,
 * single-stepped, optimized). */
#define MAX_SITE_CLASSES 4

static bool class_fitted(const struct cost_fit *fits, size_t n, const char *cls)
{
	for (size_t i = 0; i < n; i++)
		if (fits[i].site_class && !strcmp(fits[i].site_class, cls))
			return true;
	return false;
}

/* For a facility whose cost per event depends on the probe site's class: a sweep in mode none
 * on one more label of the cost workload for each class the first site did not cover, so that
 * a target of that class is predicted from a cost measured on its own class. The kernel's
 * refusals are skipped (nothing to measure there). */
static int sweep_other_sites(const struct pb_suite_options *o, const char *facility,
			     const struct pb_spec *spec, const struct sweep_setup *first,
			     const char *wl, struct pb_results *res, struct cost_fit *site_fits,
			     size_t *nsite, struct pb_error *err)
{
	struct pb_truth *t = calloc(1, sizeof *t);
	if (!t)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	int rc = 0;
	if (pb_workload_truth(&first->sampled.workload, first->sampled.iterations, t, NULL))
		goto out;
	for (unsigned l = 0; l < t->nlabels && *nsite < MAX_SITE_CLASSES && !rc; l++) {
		if (!t->labels[l].per_iteration)
			continue;
		struct sweep_setup su = *first;
		pb_format(su.sampled.label, sizeof su.sampled.label, "%s", t->labels[l].name);
		char label[64], insn[96];
		const char *cls = site_of(&su.sampled, spec, label, sizeof label, insn, sizeof insn);
		if (!cls || !strcmp(cls, PB_SITE_REFUSED) || class_fitted(site_fits, *nsite, cls))
			continue;
		/* Calibrated on this site: its traps may cost 20 times the first site's. */
		struct pb_error cal_err = {0};
		su.sampled.period = su.sampled.events[0].period = su.periods[su.np - 1];
		su.sampled.iterations = pb_calibrate_for(&su.sampled, o->target_ms / 2 ? o->target_ms / 2
									: 1, &cal_err);
		struct cost_fit *cf = &site_fits[*nsite];
		struct pb_result_point *pp[PB_MAX_LIST];
		for (unsigned i = 0; i < su.np; i++) {
			pp[i] = pb_results_point(res, "cost", facility, wl);
			struct pb_rset *par = &pp[i]->params;
			pb_rset_text(par, "kind", "sweep");
			pb_rset_text(par, "delivery", pb_delivery_name(PB_DELIVERY_NONE));
			pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)su.periods[i]);
			pb_rset_int(par, "threads", PB_UNIT_THREADS, 1);
			pb_rset_int(par, "iterations", PB_UNIT_ITERATIONS,
				    (int64_t)su.sampled.iterations);
			pb_rset_text(par, "site", label);
		}
		struct pb_error mode_err = {0};
		int mrc = -1;
		if (su.sampled.iterations) {
			su.base = su.sampled;
			su.base.no_perf = true;
			su.base.nevents = 0;
			su.budget_ns = (uint64_t)BUDGET_NONE_TARGETS * o->target_ms * 1000000ull;
			su.min_rounds = min_rounds(o, PB_DELIVERY_NONE);
			mrc = sweep_mode(&su, PB_DELIVERY_NONE, pp, cf, &mode_err);
		} else {
			memset(cf, 0, sizeof *cf);
			mode_err = cal_err;
		}
		if (mrc && mode_err.code == PB_EXIT_INTERRUPTED) {
			*err = mode_err;
			rc = -1;
			break;
		}
		fit_site(cf, cls, label, insn);
		struct pb_result_point *fp = fit_point(res, facility, wl, PB_DELIVERY_NONE, cf, NULL);
		if (mrc) {
			pb_rset_text(&fp->params, "error",
				     mode_err.msg[0] ? mode_err.msg : "a run failed");
			cf->fitted = cf->resolved = false;
		}
		(*nsite)++;
	}
out:
	free(t);
	return rc;
}

/* The fit a target site's prediction uses: the one measured on a site of the target's class.
 * NULL, with a refused prediction point saying why, when there is none. */
static const struct cost_fit *fit_for_target(const struct pb_suite_options *o,
					     const char *facility, const struct pb_spec *spec,
					     const char *workload, const struct cost_fit *fits,
					     size_t n, struct pb_results *res,
					     struct pb_point_request *target, char *label,
					     char *insn, const char **cls)
{
	*cls = NULL;
	label[0] = insn[0] = 0;
	if (!fits[0].site_class)
		return &fits[0];
	if (pb_suite_request(target, facility, workload, 0, 1, PB_DELIVERY_NONE, NULL))
		return &fits[0];
	target->machine = o->machine;
	*cls = site_of(target, spec, label, 64, insn, 96);
	struct pb_site_cost sc[MAX_SITE_CLASSES];
	for (size_t i = 0; i < n; i++)
		sc[i] = (struct pb_site_cost){fits[i].site_class, fits[i].site, fits[i].site_insn,
					      fits[i].resolved, fits[i].event_resolved};
	char why[480];
	int k = pb_site_cost_pick(sc, n, *cls, label, insn, why, sizeof why);
	if (k >= 0)
		return &fits[k];
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	pb_rset_text(&p->params, "kind", "prediction");
	pb_rset_text(&p->params, "not_applicable", why);
	pb_rset_text(&p->params, "note", why);
	pb_rset_text(&p->params, "site", label);
	pb_rset_text(&p->params, "site_insn", insn);
	pb_rset_text(&p->params, "site_class", *cls);
	return NULL;
}

static int cost_run(const struct pb_suite_options *o, const char *facility,
		    struct pb_results *res, struct pb_error *err)
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	struct sweep_setup su;
	/* Half the suite's run time per run: a pair is two runs, and the sweep repeats. */
	if (setup_sweep(&su, facility, &spec, o->machine, o->target_ms / 2, err))
		return -1;
	su.o = o;
	su.np = cost_periods(o, &spec, su.periods);

	char wl[320], params[256];
	pb_workload_params_text(&su.sampled.workload, params, sizeof params);
	pb_format(wl, sizeof wl, "%s%s%s", su.sampled.workload.workload->name,
		  params[0] && strcmp(params, "-") ? ":" : "",
		  params[0] && strcmp(params, "-") ? params : "");
	char site[64], site_insn[96];
	const char *site_class = site_of(&su.sampled, &spec, site, sizeof site, site_insn,
					 sizeof site_insn);

	struct cost_fit fits[NMODES];
	bool none_ok = false;
	for (unsigned m = 0; m < NMODES; m++) {
		su.budget_ns = (uint64_t)(m ? BUDGET_MODE_TARGETS : BUDGET_NONE_TARGETS) *
			       o->target_ms * 1000000ull;
		su.min_rounds = min_rounds(o, modes[m]);
		struct pb_result_point *pp[PB_MAX_LIST];
		for (unsigned i = 0; i < su.np; i++) {
			pp[i] = pb_results_point(res, "cost", facility, wl);
			struct pb_rset *par = &pp[i]->params;
			pb_rset_text(par, "kind", "sweep");
			pb_rset_text(par, "delivery", pb_delivery_name(modes[m]));
			pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)su.periods[i]);
			pb_rset_int(par, "threads", PB_UNIT_THREADS, 1);
			pb_rset_int(par, "iterations", PB_UNIT_ITERATIONS,
				    (int64_t)su.sampled.iterations);
			if (site_class)
				pb_rset_text(par, "site", site);
		}
		struct pb_error mode_err = {0};
		int rc = sweep_mode(&su, modes[m], pp, &fits[m], &mode_err);
		if (rc && mode_err.code == PB_EXIT_INTERRUPTED) {
			if (err)
				*err = mode_err;
			return -1;
		}
		if (site_class)
			fit_site(&fits[m], site_class, site, site_insn);
		struct pb_result_point *fp =
			fit_point(res, facility, wl, modes[m], &fits[m], m ? &fits[0] : NULL);
		if (rc) {
			/* A mode the facility refuses is a result, not the end of the suite. */
			pb_rset_text(&fp->params, "error",
				     mode_err.msg[0] ? mode_err.msg : "a run failed");
			fits[m].fitted = fits[m].resolved = false;
		}
		if (m == 0)
			none_ok = !rc && fits[0].fitted;
	}
	if (!none_ok)
		return 0;

	/* Mode none on the cost workload's other site classes, for targets of those classes. */
	struct cost_fit *site_fits = calloc(MAX_SITE_CLASSES, sizeof *site_fits);
	if (!site_fits)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	size_t nsite = 1;
	site_fits[0] = fits[0];
	if (site_class &&
	    sweep_other_sites(o, facility, &spec, &su, wl, res, site_fits, &nsite, err)) {
		free(site_fits);
		return -1;
	}

	/* Prediction with the cost of mode none (samples read after the run, as in the fit) of
	 * the target site's class. */
	int rc = 0;
	const char *other = predict_workload(&spec);
	if (other) {
		struct pb_point_request target;
		char label[64], insn[96];
		const char *cls;
		const struct cost_fit *use = fit_for_target(o, facility, &spec, other, site_fits,
							    nsite, res, &target, label, insn, &cls);
		struct cost_fit model;
		int k = use ? (int)(use - site_fits) : -1;
		struct pb_site_cost sc[MAX_SITE_CLASSES];
		for (size_t i = 0; i < nsite; i++)
			sc[i] = (struct pb_site_cost){.resolved = site_fits[i].resolved,
						      .event_resolved = site_fits[i].event_resolved};
		if (use && pb_site_cost_sample_source(sc, nsite, k) == 0 && k != 0) {
			/* The site's cost per event, with the per-sample cost of the first site. */
			model = *use;
			model.cpu.slope = site_fits[0].cpu.slope;
			model.cpu.slope_ci95 = site_fits[0].cpu.slope_ci95;
			pb_format(model.sample_cost_from, sizeof model.sample_cost_from, "%s",
				  site_fits[0].site);
			model.resolved = true;
			use = &model;
		}
		if (use && !use->resolved) {
			refuse_prediction(res, facility, other, use, &site_fits[0]);
		} else if (use) {
			unsigned np = su.np;
			uint64_t pp[3] = {su.periods[0], su.periods[np / 2], su.periods[np - 1]};
			unsigned npp = np >= 3 ? 3 : np;
			if (np < 3)
				memcpy(pp, su.periods, np * sizeof *pp);
			unsigned tc[2] = {1, o->threads[o->nthreads - 1]};
			for (unsigned t = 0; t < (tc[1] > 1 ? 2u : 1u) && !rc; t++)
				rc = predict_workload_runs(o, facility, &spec, other, tc[t], pp, npp,
							   use, res, err);
		}
	}
	if (!rc && is_timer(&spec)) {
		if (!fits[0].resolved)
			for (size_t i = 0; i < 2; i++)
				refuse_prediction(res, facility, program_names[i], &fits[0], NULL);
		else
			rc = real_programs(o, facility, &spec, &fits[0], res, err);
	}
	free(site_fits);
	return rc;
}

int pb_cost_measure(const char *facility, unsigned runs, uint64_t target_ms,
		    uint64_t budget_ms, struct pb_cost *cost, struct pb_error *err)
{
	memset(cost, 0, sizeof *cost);
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	struct pb_suite_options o;
	memset(&o, 0, sizeof o);
	o.runs = runs ? runs : 1;
	struct sweep_setup su;
	if (setup_sweep(&su, facility, &spec, NULL, target_ms, err))
		return -1;
	su.np = cost_periods(&o, &spec, su.periods);
	su.min_rounds = o.runs;
	su.budget_ns = budget_ms * 1000000ull;
	struct cost_fit cf;
	if (sweep_mode(&su, PB_DELIVERY_NONE, NULL, &cf, err))
		return -1;
	if (!cf.fitted)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the cost sweep of %s gave no fit: %s",
			       facility, cf.why);
	cost->fit = cf.cpu;
	cost->resolved = cf.resolved;
	cost->ns_per_event = cf.per_event ? cf.event_ns : 0;
	cost->theil_sen = cf.ts_slope;
	pb_format(cost->why, sizeof cost->why, "%s", cf.why);
	return 0;
}

const struct pb_experiment pb_experiment_cost = {
	.name = "cost",
	.summary = "ns per sample (and per event) from paired runs over a period sweep: slope, "
		   "R², CI, Theil–Sen; predicted vs measured time",
	.run = cost_run,
	.count_runs = cost_count_runs,
};
