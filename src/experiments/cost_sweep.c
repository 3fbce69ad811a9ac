/* The sweep of a cost fit: paired runs (a sampled run and one without perf next to it) over the
 * design's periods, in an order that changes from round to round. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t pb_cost_sum_cpu(const struct pb_point *pt, unsigned threads)
{
	uint64_t s = 0;
	for (unsigned t = 0; t < threads && t < PB_MAX_THREADS; t++)
		s += pt->cpu_ns[t];
	return s;
}

/* The sweep's clock: the machine's, or a test machine's own. */
static uint64_t sweep_now(const struct sweep_setup *su)
{
	return su->now_ns ? su->now_ns() : pb_now_ns();
}

static int measure_run(const struct sweep_setup *su, const struct pb_point_request *q,
		       struct pb_point *out, struct pb_error *err)
{
	return su->measure ? su->measure(q, out, err) : pb_point_measure(q, out, err);
}

static int measure_pair(const struct sweep_setup *su, const struct pb_point_request *req,
			bool base_first, struct pb_cost_pair *out, struct pb_error *err)
{
	struct pb_point sp, bp;
	const struct pb_point_request *first = base_first ? &su->base : req;
	const struct pb_point_request *second = base_first ? req : &su->base;
	struct pb_point *p1 = base_first ? &bp : &sp, *p2 = base_first ? &sp : &bp;
	if (measure_run(su, first, p1, err))
		return -1;
	if (measure_run(su, second, p2, err)) {
		pb_point_free(p1);
		return -1;
	}
	*out = (struct pb_cost_pair){
		.period = req->events[0].period,
		.observed = (double)sp.ev[0].observed,
		.events = (double)sp.ev[0].count,
		.expected = sp.ev[0].expected,
		.lost = (double)sp.ev[0].lost,
		.cpu = (double)pb_cost_sum_cpu(&sp, req->threads),
		.base_cpu = (double)pb_cost_sum_cpu(&bp, su->base.threads),
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

/* NOISE_PAIRS measure the machine's noise before a facility's sweep, PILOT_PAIRS at each end
 * give the pilot's per-sample cost. Neither is in the fit: the design they size is fixed
 * before its first pair. Four pairs give the noise to about ±35 % (chi-square, 4 degrees of
 * freedom), which moves the rounds the design asks for by about a factor of two either way;
 * more would spend on sizing what they could measure. */
/* Visits of each end of the sweep per round (each middle period gets one): the slope's
 * variance falls with the spread of the samples per run, which the ends carry; the middle
 * periods stay so that Theil–Sen can see a bend. */
#define END_VISITS 3
/* The design is cut short past this multiple of its budget (a machine that slowed down after
 * the design was sized), once its fewest rounds are measured, and the fit says so. */
#define BUDGET_HARD_CAP 2

static double pair_y(const struct pb_cost_pair *p)
{
	return p->cpu - p->base_cpu;
}

/* One pair begins: the progress line says which (a pair is one step of the progress bar). */
static void pair_step(const struct sweep_setup *su, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void pair_step(const struct sweep_setup *su, const char *fmt, ...)
{
	if (!su->o || !su->o->progress)
		return;
	char which[200], what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(which, sizeof which, fmt, ap);
	va_end(ap);
	pb_format(what, sizeof what, "cost %s %s", su->facility, which);
	su->o->progress(su->o->progress_ctx, what);
}

/* Noise: the CPU time of one run without perf from run to run, from NOISE_PAIRS pairs of such
 * runs (the RMS of their differences / sqrt 2), measured once per setup (it is the machine's,
 * whatever the mode). Not for a facility that traps on every event: its unsampled run (a
 * uprobe's busy loop: 30 us) says nothing of its sampled runs, which are its traps (30 ms),
 * and a pair of sampled runs costs it two opens and closes of ~0.3 s each; its noise is the
 * pilot's (the residuals of its pairs). */
static int measure_noise(struct sweep_setup *su, struct pb_error *err)
{
	const struct pb_point_request q = su->base;
	double d2 = 0, run = 0;
	for (unsigned i = 0; i < NOISE_PAIRS; i++) {
		struct pb_point a, b;
		if (su->o && pb_suite_interrupted(su->o, err))
			return -1;
		pair_step(su, "noise: pair %u/%u of runs without perf", i + 1, NOISE_PAIRS);
		if (measure_run(su, &q, &a, err))
			return -1;
		if (measure_run(su, &q, &b, err)) {
			pb_point_free(&a);
			return -1;
		}
		double ca = (double)pb_cost_sum_cpu(&a, 1), cb = (double)pb_cost_sum_cpu(&b, 1);
		d2 += (ca - cb) * (ca - cb);
		run += (ca + cb) / (2.0 * NOISE_PAIRS);
		pb_point_free(&a);
		pb_point_free(&b);
	}
	su->noise_ns = sqrt(d2 / NOISE_PAIRS) / sqrt(2.0);
	su->base_cpu_ns = run;
	su->noise_pairs = NOISE_PAIRS;
	return 0;
}

/* The short end of the design: the period (>= the facility's smallest) at which the samples
 * cost as much as the rest of a sampled run (the run at the long end, its events' traps
 * included), i.e. a 100 % slowdown from the samples. The slope's CI per second of budget
 * narrows as s / sqrt(2 + s) with the samples' slowdown s at the short end: 4.5 times from the
 * 8 % of a 4 us timer sample at 50 us to 100 %, and only 1.4 times more from there to 400 %,
 * where the kernel's sample-rate throttle comes near and a signal-mode uprobe at a sample per
 * hit ran 36 times longer than its traps (1.1 s of CPU per run, 5-10 s of wall time under
 * load). Timers: n = T0 / (P - c), so c n = T0 at P = 2c; events: c E / P = T_long at
 * P = c E / T_long. 0 when the pilot saw no cost. */
static uint64_t short_end(const struct sweep_setup *su, double c, double events, double t_long)
{
	if (!(c > 0) || !(t_long > 0))
		return 0;
	double p = su->time_based ? 2 * c : c * events / t_long;
	uint64_t least = su->min_period ? su->min_period : 1;
	return p < (double)least ? least : (uint64_t)ceil(p);
}

/* Samples per run the pilot expects at period. */
static double expected_samples(const struct sweep_setup *su, uint64_t period, double c,
			       double events)
{
	if (su->time_based)
		return (double)period > c && c >= 0 ? su->base_cpu_ns / ((double)period - c)
						   : su->base_cpu_ns / (double)period;
	return events / (double)period;
}

/* The pilot: what the design is sized from, never fitted. */
struct pilot {
	double c, events_cost, events;
	double t_long;              /* CPU time of a sampled run at the long end */
	double x_long, x_short;     /* its samples per run at the two ends it measured */
	double s_long, s_short;     /* seconds of a pair there */
	uint64_t short_period;      /* the short end it settled on */
	double residual_ns;         /* SD of its residuals */
	size_t pairs;
};

static int pilot_pair(struct sweep_setup *su, struct pb_point_request *req, uint64_t period,
		      bool base_first, struct pb_cost_pair *pr, double *seconds,
		      struct pb_error *err)
{
	if (su->o && pb_suite_interrupted(su->o, err))
		return -1;
	pair_step(su, "%s, pilot pair at period %llu", pb_delivery_name(req->delivery),
		  (unsigned long long)period);
	uint64_t t0 = sweep_now(su);
	if (pb_point_request_set_period(req, period, err) ||
	    measure_pair(su, req, base_first, pr, err))
		return -1;
	*seconds = (double)(sweep_now(su) - t0) / 1e9;
	return 0;
}

/* PILOT_PAIRS pairs at each end of the sweep. The first pair at the short end decides it: when
 * the samples there slow a run by more than the short_end rule allows (a signal per hit of a
 * trapping facility), the short end moves up to the rule's period (su->design_periods only),
 * and the remaining pairs go there; the slope is the least-squares one over the pilot's pairs. */
static int measure_pilot(struct sweep_setup *su, struct pb_point_request *req, struct pilot *pl,
			 struct pb_error *err)
{
	struct pb_cost_pair pr[2 * PILOT_PAIRS];
	double x[2 * PILOT_PAIRS], y[2 * PILOT_PAIRS], secs[2 * PILOT_PAIRS];
	uint64_t longp = su->periods[0];
	pl->short_period = su->periods[su->np - 1];
	double t_long = 0, events = 0, s_long = 0, s_short = 0, x_long = 0, x_short = 0;
	for (unsigned k = 0; k < 2 * PILOT_PAIRS; k++) {
		bool at_long = k % 2 == 0;
		if (pilot_pair(su, req, at_long ? longp : pl->short_period, (k / 2) % 2 == 0, &pr[k],
			       &secs[k], err))
			return -1;
		x[k] = pb_cost_pair_samples(&pr[k]);
		y[k] = pair_y(&pr[k]);
		events += pr[k].events / (2 * PILOT_PAIRS);
		if (at_long)
			t_long += pr[k].cpu / PILOT_PAIRS;
		if (k == 1 && su->design_periods && x[1] > x[0]) {
			double c = (y[1] - y[0]) / (x[1] - x[0]);
			uint64_t p = short_end(su, c, pr[0].events, pr[0].cpu);
			if (p > pl->short_period && p < longp)
				pl->short_period = p;
		}
	}
	for (unsigned k = 0; k < 2 * PILOT_PAIRS; k++) {
		bool at_long = k % 2 == 0;
		/* the last pair at the short end stands for it (the first may be at the set's) */
		if (at_long) {
			s_long += secs[k] / PILOT_PAIRS;
			x_long += x[k] / PILOT_PAIRS;
		} else {
			s_short = secs[k];
			x_short = x[k];
		}
	}
	struct pb_fit f;
	pl->pairs = 2 * PILOT_PAIRS;
	pl->events = events;
	pl->t_long = t_long;
	pl->x_long = x_long;
	pl->x_short = x_short;
	pl->s_long = s_long;
	pl->s_short = s_short;
	pl->c = pb_linear_fit(x, y, 2 * PILOT_PAIRS, &f) ? NAN : f.slope;
	pl->events_cost = su->per_event && isfinite(pl->c) ? f.intercept : 0;
	/* the mode's own noise, from the pilot's residuals (2 degrees of freedom): a delivery
	 * mode can add noise of its own (drain's reader competing for the CPUs) */
	double rss = 0;
	for (unsigned k = 0; isfinite(pl->c) && k < 2 * PILOT_PAIRS; k++) {
		double r = y[k] - f.intercept - f.slope * x[k];
		rss += r * r;
	}
	pl->residual_ns = isfinite(pl->c) ? sqrt(rss / (2 * PILOT_PAIRS - 2)) : 0;
	return 0;
}

/* The seconds of a pair with x samples: the pilot's pair times, linear in the samples. */
static double pair_seconds(const struct pilot *pl, double x)
{
	if (!(pl->x_short > pl->x_long))
		return fmax(pl->s_long, pl->s_short);
	double s = pl->s_long + (pl->s_short - pl->s_long) * (x - pl->x_long) /
					(pl->x_short - pl->x_long);
	return fmax(s, pl->s_long);
}

static struct pb_result_point *period_point(struct sweep_setup *su,
					    struct pb_result_point **points, unsigned i,
					    uint64_t period, enum pb_delivery mode)
{
	if (!points[i] && su->new_point)
		points[i] = su->new_point(su->point_ctx, period, mode);
	return points[i];
}

/* The rounds of the designs of one mode, and where they stand. */
struct design_run {
	struct sweep_setup *su;
	struct pb_point_request *req;
	enum pb_delivery mode;
	struct sweep *sw;
	const uint64_t *periods;
	const unsigned *slot_period;
	unsigned nslots;
	uint64_t start;
	unsigned min_rounds;
	unsigned last;                       /* the previous round's last slot */
	unsigned round;                      /* rounds measured, over every design */
	unsigned design;                     /* the design being measured: 1, or 2 for a second */
	double design_start_s;               /* when the latest design began, after start */
	bool cut;
	struct pb_result_point *points[PB_MAX_LIST];
};

/* rounds more rounds of the slots; each pair goes into dr->sw and under its period's point,
 * numbered on from the rounds before. Cut short (dr->cut) past BUDGET_HARD_CAP times the
 * budget once this design's fewest rounds are done. */
static int measure_design(struct design_run *dr, unsigned rounds, const char *which,
			  struct pb_error *err)
{
	struct sweep_setup *su = dr->su;
	dr->design_start_s = (double)(sweep_now(dr->su) - dr->start) / 1e9;
	/* the progress bar counts this design's pairs, less those a cut leaves out */
	unsigned pairs = rounds * dr->nslots, begun = 0;
	pb_suite_more_runs(su->o, (int)pairs);
	for (unsigned r = 0; r < rounds; r++, dr->round++) {
		/* Each round visits the slots in a new order, and the order inside the pairs
		 * alternates: in a fixed order a machine that warms up or quiets down would read
		 * as a per-sample cost. */
		unsigned order[PB_MAX_LIST * END_VISITS];
		pb_round_order(order, dr->nslots, dr->round, &dr->last);
		for (unsigned k = 0; k < dr->nslots; k++) {
			unsigned i = dr->slot_period[order[k]];
			if (su->o && pb_suite_interrupted(su->o, err))
				return -1;
			if (r >= dr->min_rounds &&
			    sweep_now(su) - dr->start >= BUDGET_HARD_CAP * su->budget_ns) {
				dr->cut = true;
				pb_suite_more_runs(su->o, -(int)(pairs - begun));
				return 0;
			}
			begun++;
			pair_step(su, "%s, period %llu, %sround %u/%u", pb_delivery_name(dr->mode),
				  (unsigned long long)dr->periods[i], which, r + 1, rounds);
			struct pb_cost_pair pr;
			if (pb_point_request_set_period(dr->req, dr->periods[i], err) ||
			    measure_pair(su, dr->req, (dr->round + k) % 2 == 0, &pr, err))
				return -1;
			dr->sw->p[dr->sw->n++] = pr;
			struct pb_result_point *pt = period_point(su, dr->points, i, dr->periods[i],
								  dr->mode);
			/* a pair whose expectation is no number has no row (as /1 had it); a row says
			 * where its pair stands among its design's, in the order they ran, which the
			 * fit's baselines follow (local_baseline, cost_fit.c): the fit can be rebuilt
			 * from the rows */
			if (pt && isfinite(pr.expected)) {
				struct pb_rset *row = pb_rlist_set(&pt->runs);
				pb_cost_pair_record(row, &pr, dr->round);
				pb_rset_int(row, "pair", PB_UNIT_NONE, (int64_t)(dr->sw->n - 1));
				pb_rset_int(row, "design", PB_UNIT_NONE, dr->design);
			}
		}
	}
	return 0;
}

/* The suite's pool of the time its cost fits so far left of their budgets (NULL: none, as
 * for plan's sweep). */
static struct pb_cost_spare *spare_of(const struct sweep_setup *su)
{
	return su->o ? su->o->cost_spare : NULL;
}

/* Whether a fit of this mode is one that draws on the suite's pool, when there is one: mode
 * none's fit at the facility's cost site is the cost every prediction, plan and scorecard
 * figure rests on; the delivery modes' fits are compared with it, and another site's fit adds
 * its class's cost: they keep to their own budgets. */
static bool draws_on_pool(const struct sweep_setup *su, enum pb_delivery mode)
{
	return su->draws_spare && mode == PB_DELIVERY_NONE && spare_of(su);
}

/* Whether it may draw now: one fit a suite draws, so that a suite takes at most one budget
 * more than its fits' own. */
static bool may_draw(const struct sweep_setup *su, enum pb_delivery mode)
{
	return draws_on_pool(su, mode) && !spare_of(su)->drawn && spare_of(su)->ns > 0;
}

/* What a fit may draw: the pool, up to its own budget again. A fit then takes at most twice
 * its budget, as a design cut short does (BUDGET_HARD_CAP): drawing the whole pool, a fit
 * took 13.4 s and the suite 145.9 s, near the 150 s a default suite keeps to (kind C's took
 * 141.5 s without it). */
static uint64_t spare_to_draw(const struct sweep_setup *su)
{
	uint64_t pool = spare_of(su)->ns;
	return pool < su->budget_ns ? pool : su->budget_ns;
}

/* That into this fit's budget; the sweep gives back what it leaves unused. */
static void draw_spare(struct sweep_setup *su, struct cost_fit *cf)
{
	struct pb_cost_spare *spare = spare_of(su);
	uint64_t draw = spare_to_draw(su);
	spare->ns -= draw;
	spare->drawn = true;
	su->budget_ns += draw;
	cf->spare_drawn_s += (double)draw / 1e9;
}

/* A second design from the first's fit, over seconds_left of budget. */
static void size_second_design(const struct design_run *dr, const struct cost_fit *cf,
			       double round_s, double seconds_left, struct pb_cost_redesign *out)
{
	pb_cost_redesign_size(cf->cpu.slope_ci95 / cf->cpu.slope, cf->design_rounds, dr->nslots,
			      round_s, seconds_left, dr->min_rounds, MAX_PAIRS / dr->nslots, out);
}

/* A fit too wide to resolve, after a design that kept to its budget: a second design sized
 * from it (pb_cost_redesign_size) when the budget left holds one expected to resolve, whose
 * pairs alone are then fitted. Only a second design draws on the suite's pool: a first is
 * sized from four noise pairs and a pilot, which saw up to 3.6 times less noise than the
 * design's own runs had in suites of 2026-11-27; when first designs drew, two fits drew 4.8
 * and 5.1 s and resolved neither, and the suite took 139.8 s where three before it took 118
 * to 129 s (docs/overhead.md, "The suite's unused budget"). */
static int redesign(struct design_run *dr, struct cost_fit *cf, double setup_s,
		    struct pb_error *err)
{
	const struct pb_fit *f = &cf->cpu;
	if (cf->resolved || !cf->fitted || !(f->slope > 0) || pb_fit_resolved(f) ||
	    cf->design_rounds < 1)
		return 0;
	double now = (double)(sweep_now(dr->su) - dr->start) / 1e9;
	double round_s = (now - setup_s) / cf->design_rounds;
	struct pb_cost_redesign rd;
	size_second_design(dr, cf, round_s, (double)dr->su->budget_ns / 1e9 - now, &rd);
	if (!rd.rounds && may_draw(dr->su, dr->mode)) {
		/* the suite's unused budget, when it holds a second design expected to resolve
		 * (its rounds: up to those the design's aim needs, PB_DESIGN_REL_CI) */
		struct pb_cost_redesign more;
		size_second_design(dr, cf, round_s,
				   (double)(dr->su->budget_ns + spare_to_draw(dr->su)) / 1e9 - now,
				   &more);
		if (pb_cost_pool_makes_redesign(&rd, &more)) {
			draw_spare(dr->su, cf);
			rd = more;
		} else {
			cf->spare_offered_s = (double)spare_to_draw(dr->su) / 1e9;
		}
	} else if (!rd.rounds && draws_on_pool(dr->su, dr->mode) && spare_of(dr->su)->drawn) {
		cf->spare_gone = true;
	}
	cf->budget_limited = rd.budget_limited;
	if (!rd.rounds) {
		cf->redesign_left_s = (double)dr->su->budget_ns / 1e9 - now;
		return 0;
	}
	/* the first's fit, before the second's takes its place in cf */
	const struct pb_fit first = *f;
	const size_t first_pairs = dr->sw->n;
	const unsigned fitted_from = dr->round;
	dr->sw->n = 0;
	dr->design = 2;
	int rc = measure_design(dr, rd.rounds, "second design, ", err);
	pb_cost_fit_sweep(dr->sw, dr->su->per_event, cf);
	cf->redesigned = true;
	cf->first = first;
	cf->first_pairs = first_pairs;
	cf->first_fitted_round = fitted_from;
	cf->design_rounds = rd.rounds;
	cf->design_rounds_needed = rd.rounds_needed;
	cf->design_pairs = (size_t)rd.rounds * dr->nslots;
	cf->expected_rel_ci = rd.expected_rel_ci;
	return rc;
}

/* lead, "±4.4 %" (the CI the design expected) and tail, or nothing where its pilot gave no
 * slope to size one for (expected_rel_ci is no number then: it read "±nan %" in report.html,
 * CI of 2026-11-28 on kind A). */
static void append_expected_ci(char *why, size_t len, const char *lead, double rel_ci,
			       const char *tail)
{
	if (isfinite(rel_ci))
		pb_append(why, len, "%s±%.1f %%%s", lead, 100 * rel_ci, tail);
}

void pb_cost_explain_unresolved(struct cost_fit *cf)
{
	double design_s = cf->seconds - cf->setup_s;
	const struct pb_fit *f = &cf->cpu;
	bool too_wide = cf->fitted && !pb_fit_resolved(f);
	/* A longer sweep narrows the interval; it does not reconcile estimators that disagree
	 * within a narrow one (the pairs bend): no time is offered for that. */
	cf->to_resolve_s = too_wide && (cf->budget_limited || cf->cut_short || !(f->slope > 0))
				   ? pb_cost_seconds_to_resolve(f, design_s, &cf->to_resolve_lower)
				   : NAN;
	pb_append(cf->why, sizeof cf->why, " after %zu pairs in %.1f s (budget %.1f s", cf->pairs,
		  cf->seconds, cf->budget_seconds);
	if (cf->spare_drawn_s > 0)
		pb_append(cf->why, sizeof cf->why, ", %.1f s of it left unused by the suite's "
			  "fits before", cf->spare_drawn_s);
	pb_append(cf->why, sizeof cf->why, ")");
	/* a design sized on quieter runs than its own: the noise it was sized for beside the
	 * noise its runs without perf had (a trapping facility's noise is measured on sampled
	 * runs, and has no such figure) */
	char sized[PB_NUM_LEN], had[PB_NUM_LEN];
	if (!cf->redesigned && cf->design_noise_ns > 0 && cf->run_noise_ns > cf->design_noise_ns) {
		pb_append(cf->why, sizeof cf->why, "; the design was sized");
		append_expected_ci(cf->why, sizeof cf->why, " for ", cf->expected_rel_ci, "");
		pb_append(cf->why, sizeof cf->why, " at %s µs of noise a run, and its runs without "
			  "perf varied by %s µs", pb_num(sized, "%.3g", cf->design_noise_ns / 1e3),
			  pb_num(had, "%.3g", cf->run_noise_ns / 1e3));
	}
	if (cf->redesign_left_s >= 0.05)
		pb_append(cf->why, sizeof cf->why, "; the %.1f s left of the budget held no second "
			  "design", cf->redesign_left_s);
	else if (!isnan(cf->redesign_left_s))
		pb_append(cf->why, sizeof cf->why, "; no budget was left for a second design");
	/* the suite's unused budget: why it did not make one */
	if (!isnan(cf->redesign_left_s) && cf->spare_offered_s > 0)
		pb_append(cf->why, sizeof cf->why, "; with the %.1f s the suite's earlier fits "
			  "left unused, it held none either", cf->spare_offered_s);
	else if (!isnan(cf->redesign_left_s) && cf->spare_gone)
		pb_append(cf->why, sizeof cf->why, "; the budget the suite's earlier fits left "
			  "unused had gone to another fit (one fit a suite draws)");
	if (cf->redesigned)
		pb_append(cf->why, sizeof cf->why, "; a second design replaced a first of %zu "
			  "pairs, whose %.0f ± %.0f ns was ±%.0f %%", cf->first_pairs,
			  cf->first.slope, cf->first.slope_ci95,
			  100 * cf->first.slope_ci95 / cf->first.slope);
	if (cf->cut_short)
		pb_append(cf->why, sizeof cf->why, "; cut short at %zu of the design's %zu "
			  "pairs (over twice its budget)", cf->pairs, cf->design_pairs);
	/* what the sample is beside the trap every event pays: why it hides in the noise */
	if (too_wide && cf->per_event && cf->event_resolved && cf->event_ns > 0 &&
	    f->slope + f->slope_ci95 > 0)
		pb_append(cf->why, sizeof cf->why, "; a sample adds at most %.0f ns (the CI's upper "
			  "end) to the %.0f ns trap every event pays, sampled or not: %.1f %% of it",
			  f->slope + f->slope_ci95, cf->event_ns,
			  100 * (f->slope + f->slope_ci95) / cf->event_ns);
	if (isfinite(cf->to_resolve_s))
		/* the design's part only: its noise and pilot runs come on top (a uprobe's took
		 * 8 s where the design needed 1) */
		pb_append(cf->why, sizeof cf->why, "; designed pairs of %s%.0f s (after %.1f s of "
			  "%s) would resolve %s", cf->to_resolve_lower ? "more than " : "",
			  cf->to_resolve_s, cf->setup_s,
			  cf->redesigned ? "noise, pilot and first-design runs" : "noise and pilot runs",
			  cf->to_resolve_lower ? "a cost at the CI's upper end" : "it at this noise");
	else if (too_wide && f->slope > 0) {
		pb_append(cf->why, sizeof cf->why, "; the design had the %u rounds it was sized for",
			  cf->design_rounds);
		append_expected_ci(cf->why, sizeof cf->why, " (expected ", cf->expected_rel_ci, ")");
		pb_append(cf->why, sizeof cf->why, ": the noise rose as it ran, which a longer "
			  "budget does not mend");
	}
}

/* One delivery mode: the noise (once per setup), the pilot, the design sized from them, its
 * rounds measured in full, and the fit over the design's pairs alone. */
int pb_cost_sweep_mode(struct sweep_setup *su, enum pb_delivery mode, struct cost_fit *cf,
		       struct pb_error *err)
{
	memset(cf, 0, sizeof *cf);
	cf->redesign_left_s = NAN;
	struct sweep *sw = calloc(1, sizeof *sw);
	if (!sw)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	struct pb_point_request req = su->sampled;
	req.delivery = mode;
	uint64_t start = sweep_now(su);
	int rc = 0;
	struct pilot pl = {0};
	if ((!su->noise_pairs && !su->per_event && measure_noise(su, err)) ||
	    measure_pilot(su, &req, &pl, err)) {
		free(sw);
		return -1;
	}
	/* The design's periods: the set's down to the pilot's short end, and (su->design_periods)
	 * the short_end rule's period below the set when the samples are cheap there. */
	uint64_t periods[PB_MAX_LIST];
	unsigned np = 0;
	for (unsigned i = 0; i < su->np; i++)
		if (su->periods[i] > pl.short_period || i == 0)
			periods[np++] = su->periods[i];
	if (periods[np - 1] != pl.short_period && np < PB_MAX_LIST)
		periods[np++] = pl.short_period;
	uint64_t hi = su->design_periods ? short_end(su, pl.c, pl.events, pl.t_long) : 0;
	if (hi && hi < periods[np - 1] && np < PB_MAX_LIST)
		periods[np++] = hi;
	/* a round: each end END_VISITS times, each middle period once */
	unsigned slot_period[PB_MAX_LIST * END_VISITS], nslots = 0;
	double x[PB_MAX_LIST * END_VISITS], pair_s[PB_MAX_LIST * END_VISITS];
	for (unsigned i = 0; i < np; i++)
		for (unsigned v = 0; v < (i == 0 || i == np - 1 ? END_VISITS : 1u); v++)
			slot_period[nslots++] = i;
	for (unsigned k = 0; k < nslots; k++) {
		x[k] = expected_samples(su, periods[slot_period[k]], pl.c, pl.events);
		pair_s[k] = pair_seconds(&pl, x[k]);
	}
	double spent = (double)(sweep_now(su) - start) / 1e9;
	struct pb_cost_design_input in = {
		/* the larger of the machine's noise and the mode's, each as one run's (a pilot
		 * pair's residual holds its baseline's noise too) */
		.noise_ns = fmax(su->noise_ns,
				 pl.residual_ns / sqrt(1 + PB_LOCAL_BASELINE_VARIANCE)),
		.ns_per_sample = pl.c,
		.events_cost_ns = su->per_event && pl.events_cost > 0 ? pl.events_cost : 0,
		/* the runs the noise was measured on: without perf, or the pilot's long end */
		.run_ns = su->per_event ? pl.t_long : su->base_cpu_ns,
		.baseline_ns = su->base_cpu_ns,
		.run_x = su->per_event ? pl.x_long : 0,
		.x = x,
		.pair_s = pair_s,
		.nslots = nslots,
		.seconds_left = (double)su->budget_ns / 1e9 - spent,
		.min_rounds = su->min_rounds ? su->min_rounds : 1,
		.max_rounds = MAX_PAIRS / nslots,
	};
	struct pb_cost_design d;
	pb_cost_design_size(&in, &d);
	const uint64_t own_budget_ns = su->budget_ns;
	struct design_run dr = {
		.su = su, .req = &req, .mode = mode, .sw = sw, .periods = periods,
		.slot_period = slot_period, .nslots = nslots, .start = start,
		.min_rounds = in.min_rounds, .last = nslots, .design = 1,
	};
	/* count_runs counted a design of its own: this one replaces it on the progress bar */
	pb_suite_more_runs(su->o, -(int)pb_cost_design_pairs_counted(su->np, mode));
	rc = measure_design(&dr, d.rounds, "", err);
	pb_cost_fit_sweep(sw, su->per_event, cf);
	cf->design_rounds = d.rounds;
	cf->design_rounds_needed = d.rounds_needed;
	cf->design_pairs = (size_t)d.rounds * nslots;
	cf->expected_rel_ci = d.expected_rel_ci;
	cf->design_noise_ns = in.noise_ns;
	cf->budget_limited = d.rounds < d.rounds_needed;
	if (!rc && !dr.cut)
		rc = redesign(&dr, cf, spent, err);
	cf->rounds = dr.round;
	uint64_t used_ns = sweep_now(su) - start;
	cf->seconds = (double)used_ns / 1e9;
	cf->budget_seconds = (double)su->budget_ns / 1e9;
	/* what this fit left of its budget goes to the pool; an overrun (up to BUDGET_HARD_CAP)
	 * spends from it */
	struct pb_cost_spare *spare = spare_of(su);
	if (spare && used_ns <= su->budget_ns) {
		spare->ns += su->budget_ns - used_ns;
	} else if (spare) {
		uint64_t over = used_ns - su->budget_ns;
		spare->ns = spare->ns > over ? spare->ns - over : 0;
	}
	su->budget_ns = own_budget_ns;
	cf->noise_ns = su->noise_ns;
	cf->pilot_residual_ns = pl.residual_ns;
	cf->noise_pairs = su->noise_pairs;
	cf->pilot_ns = pl.c;
	cf->pilot_pairs = pl.pairs;
	cf->high_period = periods[np - 1];
	cf->time_based = su->time_based;
	cf->cut_short = dr.cut;
	/* what came before the fitted design's pairs: the noise, the pilot, and a first design
	 * that a second replaced */
	cf->setup_s = cf->redesigned ? dr.design_start_s : spent;
	if (!rc && !cf->resolved)
		pb_cost_explain_unresolved(cf);
	free(sw);
	return rc;
}

/* The probe site of a request (its label, or the workload's first event label) and the class
 * the facility's cost per event there belongs to; NULL when that cost does not depend on the
 * site (or the facility sits on no instruction). */
const char *pb_cost_site_of(const struct pb_point_request *req, const struct pb_spec *spec,
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

int pb_cost_setup_sweep(struct sweep_setup *su, const char *facility, const struct pb_spec *spec,
		       const struct pb_machine *machine, uint64_t target_ms, struct pb_error *err)
{
	memset(su, 0, sizeof *su);
	su->facility = facility;
	su->per_event = spec->facility->traps_every_event;
	if (pb_suite_request(&su->sampled, spec, pb_cost_workload(spec), 0, 1, PB_DELIVERY_NONE,
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
	su->time_based = spec->facility->time_based;
	su->min_period = spec->facility->min_period;
	return 0;
}
