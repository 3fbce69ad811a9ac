/* The scorecard's cost: what a sample costs a facility, what it cost the suite's programs, the
 * overhead at 1 and 10 kHz, and the rate whose cost the machine's timing noise hides, with the
 * noise it is held against (docs/scorecard.md, "Sampling rate"). */
#include "scorecard/scorecard.h"
#include "scorecard/scorecard_parts.h"
#include "analysis/stats.h"

#include "io/rate_model.h"
#include "io/result_traits.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A point of the cost experiment of this kind ("fit", "prediction"). */
static bool cost_point(const struct pb_result_point *p, const char *kind)
{
	const char *k = pb_rset_get_text(&p->params, "kind");
	return pb_scorecard_is_experiment(p, "cost") && k && !strcmp(k, kind);
}

/* A cost fit in delivery mode none, or one that names no delivery. */
static bool none_fit(const struct pb_result_point *p)
{
	const char *delivery = pb_rset_get_text(&p->params, "delivery");
	return cost_point(p, "fit") && (!delivery || !strcmp(delivery, "none"));
}

/* The cost fit of delivery mode none for the family: the first resolved one (a facility with
 * several sites or specs has several), else the first. */
static const struct pb_result_point *cost_fit(const struct pb_results *r, const char *family)
{
	const struct pb_result_point *first = NULL;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (!pb_scorecard_in_family(p, family) || !none_fit(p) ||
		    !pb_rset_get(&p->metrics, "ns_per_sample"))
			continue;
		if (pb_rset_is_true(&p->metrics, "resolved"))
			return p;
		if (!first)
			first = p;
	}
	return first;
}

/* The run-to-run spread of an unsampled run's CPU time (the overhead experiment's baselines),
 * as a fraction: the smallest relative 95 % interval, the finest change this machine showed it
 * can see. NaN when there is none. */
static double timing_noise(const struct pb_results *r, const char *family)
{
	double best = NAN;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		const char *role = pb_rset_get_text(&p->params, "role");
		const struct pb_rsummary *cpu = pb_rset_get_summary(&p->metrics, "cpu_ns");
		if (!pb_scorecard_in_family(p, family) || !pb_scorecard_is_experiment(p, "overhead") ||
		    !role || strcmp(role, "baseline") || !cpu || cpu->n < 2 || !(cpu->mean > 0))
			continue;
		double rel = cpu->ci95 / cpu->mean;
		if (isnan(best) || rel < best)
			best = rel;
	}
	return best;
}

/* A point's period in words: "70 µs" for a time-based facility, "7 events" for another. */
static void period_words(const struct pb_result_point *p, char *buf, size_t len)
{
	long long period = (long long)pb_rset_get_int(&p->params, "period");
	char v[PB_NUM_LEN];
	if (pb_result_time_based(p))
		pb_format(buf, len, "%s µs", pb_num(v, "%.3g", (double)period / 1000));
	else
		pb_format(buf, len, "%lld events", period);
}

/* What a sample cost the suite's programs (the cost experiment's prediction targets), each at
 * a period where its own cost resolved to the fit's standard: the fit's cost is a register-only
 * loop's, and a program pays more or less (its caches refilled, the interrupt path cold or
 * warm: 10.8 to 20.5 µs against the fit's 16.2 on kind C). The figure is their median, lo and
 * hi their extremes, the note names both ends. */
static void program_cost_part(struct pb_rset *e, const struct pb_results *r, const char *family)
{
	double costs[64], lo = INFINITY, hi = -INFINITY;
	const struct pb_result_point *low = NULL, *high = NULL;
	size_t n = 0, seen = 0;
	for (size_t i = 0; i < r->npoints && n < PB_ARRAY_SIZE(costs); i++) {
		const struct pb_result_point *p = r->points[i];
		bool ok, ci_ok;
		double ns = pb_rset_get_number(&p->metrics, "measured_ns_per_sample", &ok);
		double ci = pb_rset_get_number(&p->metrics, "measured_ns_per_sample_ci95", &ci_ok);
		if (!pb_scorecard_in_family(p, family) || !cost_point(p, "prediction") || !ok)
			continue;
		seen++;
		if (!ci_ok || !pb_cost_resolved(ns, ci))
			continue;
		if (ns < lo)
			lo = ns, low = p;
		if (ns > hi)
			hi = ns, high = p;
		costs[n++] = ns;
	}
	if (!n)
		return;
	char note[400], at_low[48], at_high[48];
	period_words(low, at_low, sizeof at_low);
	period_words(high, at_high, sizeof at_high);
	char a[PB_NUM_LEN], z[PB_NUM_LEN];
	pb_format(note, sizeof note, "what a sample cost the suite's programs, %zu of %zu points "
		  "resolved to ±10 %%: %s µs (%s at %s) to %s µs (%s at %s)", n, seen,
		  pb_num(a, "%.3g", lo / 1000), low->workload, at_low, pb_num(z, "%.3g", hi / 1000),
		  high->workload, at_high);
	pb_scorecard_figure(e, "program_ns_per_sample", pb_median(costs, n), lo, hi, "ns/sample",
			    true, note);
}

/* The cost workload measured again later in the suite, beside a prediction target at its
 * shortest period (docs/overhead.md, "The cost workload beside each target"): the first point
 * of the family that carries it with its distance from the fit, NULL without one. */
static const struct pb_result_point *later_cost_point(const struct pb_results *r,
						      const char *family)
{
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (pb_scorecard_in_family(p, family) && cost_point(p, "prediction") &&
		    pb_rset_get(&p->metrics, "reference_ns_per_sample") &&
		    pb_rset_get(&p->metrics, "reference_ns_per_sample_ci95") &&
		    pb_rset_get(&p->metrics, "reference_vs_fit_pct") &&
		    pb_rset_get(&p->metrics, "reference_vs_fit_ci95_pp"))
			return p;
	}
	return NULL;
}

/* Where the cost lies once measured again, relative to the fit's: the middle and half-width of
 * the span that holds both intervals when the cost moved; 1 and 0 when it held or nothing
 * measured it again. */
struct cost_span {
	double mid, half;
};

/* The cost measured again later as a figure, and whether the cost moved from the fit's while
 * the suite ran: the two differ by more than both intervals in quadrature, which a cost that
 * held would show in 1 suite in 20. It did in 9 of 39 default suites (kind A, 2026-11-27 and
 * 28; docs/overhead.md, "Kind A, a ninth time"): the fit's interval is its
 * sweep's, and the machine's cost moves over a suite by more. The figures the cost sizes then
 * hold both measurements (*span). */
static void later_cost_part(struct pb_rset *e, const struct pb_results *r, const char *family,
			    struct verdict_parts *v, struct cost_span *span)
{
	*span = (struct cost_span){.mid = 1, .half = 0};
	const struct pb_result_point *p = later_cost_point(r, family);
	if (!p)
		return;
	const struct pb_rset *m = &p->metrics;
	double ns = pb_rset_get_number(m, "reference_ns_per_sample", NULL);
	double ci = pb_rset_get_number(m, "reference_ns_per_sample_ci95", NULL);
	double vs_fit = pb_rset_get_number(m, "reference_vs_fit_pct", NULL);
	double vs_fit_ci = pb_rset_get_number(m, "reference_vs_fit_ci95_pp", NULL);
	if (!(ns > 0) || !(ci >= 0) || !isfinite(vs_fit) || !(vs_fit_ci >= 0) || !(vs_fit > -100))
		return;
	bool moved = fabs(vs_fit) > vs_fit_ci;
	char period[48], note[400], a[PB_NUM_LEN], h[PB_NUM_LEN], d[PB_NUM_LEN], dh[PB_NUM_LEN];
	period_words(p, period, sizeof period);
	pb_format(note, sizeof note, "the cost workload measured again beside %s at %s, after the "
		  "fit: %s ± %s %% from the fit's cost there, %s", p->workload, period,
		  pb_num(d, "%+.2g", vs_fit), pb_num(dh, "%.2g", vs_fit_ci),
		  moved ? "beyond both intervals: the cost moved while the suite ran"
			: "within both intervals: the cost held");
	struct pb_rset *f = pb_scorecard_figure(e, "ns_per_sample_later", ns, ns - ci, ns + ci,
						"ns/sample", pb_cost_resolved(ns, ci), note);
	pb_rset_bool(f, "moved", moved);
	if (!moved)
		return;
	/* both intervals relative to the fit's cost there: the distance's interval is the two
	 * half-widths in quadrature, so the fit's own is what the later one leaves of it */
	double fit_there = ns / (1 + vs_fit / 100);
	double later = ns / fit_there, later_half = ci / fit_there;
	double both = vs_fit_ci / 100;
	double fit_half = sqrt(fmax(both * both - later_half * later_half, 0));
	double lo = fmin(1 - fit_half, later - later_half);
	double hi = fmax(1 + fit_half, later + later_half);
	*span = (struct cost_span){.mid = (lo + hi) / 2, .half = (hi - lo) / 2};
	char text[240];
	pb_format(text, sizeof text, "the cost moved while the suite ran (%s ± %s µs a sample "
		  "later, %s %% from the fit): the rates and overheads hold both",
		  pb_num(a, "%.3g", ns / 1000), pb_num(h, "%.2g", ci / 1000),
		  pb_num(d, "%+.2g", vs_fit));
	pb_scorecard_add_part(v->besides, sizeof v->besides, text);
}

/* One run's 95 % band of CPU time on this machine, as a fraction: t times one run's noise
 * over the run, the noise of unsampled runs of the cost workload at the suite's run length. The
 * same for every facility: each one's own overhead baselines are runs of its own length (a
 * uprobe's 0.16 ms showed 13-30 %, a breakpoint's 30 µs 0.3 % by chance), so rates from them
 * disagreed by 1000 where the costs differ by 25. The noise is read from the fits' runs
 * without perf (run_noise_ns at run_noise_df degrees of freedom, cost_fit.c), pooled over the
 * fits that carry it: variance over the run weighted by degrees of freedom, t at their sum.
 * Four noise pairs before a sweep (noise_ns), used where no fit carries it (a file of an older
 * build), gave bands of 0.52 to 12 % in four suites of one afternoon (kind A, 2026-11-27),
 * and the "sampling up to" rate moved by a factor of 20 with them. NaN without either (the
 * overhead baselines then). *pooled_df: the degrees of freedom pooled, 0 without them. */
static double machine_noise(const struct pb_results *r, size_t *pooled_df)
{
	double bands[64], pooled = 0;
	size_t n = 0, df = 0;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		double base = pb_rset_get_number(&p->metrics, "baseline_ns", NULL);
		double run = pb_rset_get_number(&p->metrics, "run_noise_ns", NULL);
		int64_t run_df = pb_rset_get_int(&p->metrics, "run_noise_df");
		if (!none_fit(p) || !(base > 0))
			continue;
		if (run > 0 && run_df > 0) {
			pooled += (double)run_df * (run / base) * (run / base);
			df += (size_t)run_df;
			continue;
		}
		double noise = pb_rset_get_number(&p->metrics, "noise_ns", NULL);
		int64_t pairs = pb_rset_get_int(&p->metrics, "noise_pairs");
		if (noise > 0 && pairs >= 2 && n < PB_ARRAY_SIZE(bands))
			bands[n++] = pb_t95((size_t)pairs) * noise / base;
	}
	*pooled_df = df;
	if (df)
		return pb_t95(df) * sqrt(pooled / (double)df);
	return n ? pb_median(bands, n) : NAN;
}

/* A facility that counts events without trapping still pays for each count, sampled or not
 * (a page fault's, ~50-65 ns on kind C): the sampling rate above leaves it out, so it is said
 * beside it, with its interval, whenever the fit's intercept over the events is above zero. */
static void counted_event_part(struct pb_rset *e, const struct pb_rset *m,
			       struct verdict_parts *v)
{
	if (!pb_rset_get(m, "ns_per_counted_event"))
		return;
	double ns = pb_rset_get_number(m, "ns_per_counted_event", NULL);
	double ci = pb_rset_get_number(m, "ns_per_counted_event_ci95", NULL);
	bool resolved = pb_rset_is_true(m, "counted_event_resolved");
	pb_scorecard_figure(e, "ns_per_counted_event", ns, ns - ci, ns + ci, "ns/event", resolved,
			    "each event the kernel counts, sampled or not: the fit's intercept over "
			    "a run's events (it also holds what a run pays once, so at most this)");
	if (!(ns - ci > 0))
		return;
	char text[160], a[PB_NUM_LEN], h[PB_NUM_LEN];
	pb_format(text, sizeof text, "counting alone costs %s ± %s ns an event, sampled or not%s",
		  pb_num(a, "%.3g", ns), pb_num(h, "%.2g", ci), resolved ? "" : " (not resolved)");
	pb_scorecard_add_part(v->besides, sizeof v->besides, text);
}

/* The rate whose overhead at a cost of ns per sample stays inside the noise (a fraction of a
 * run), on the line by rate when there is one: there each rate pays its own period's cost, at
 * its upper bound (of the span that holds a cost that moved), so a few steps settle it. */
static double rate_within_noise(double noise, double ns, const struct pb_rate_model *line,
				const struct cost_span *span)
{
	double hz = noise / (ns * 1e-9);
	for (int step = 0; line && step < 4 && hz > 0; step++) {
		double ci, at = pb_rate_model_at(line, (uint64_t)fmin(1e9 / hz, 1e18), &ci);
		ci = fmax(ci, span->half * at);
		at *= span->mid;
		if (!(at + ci > 0))
			break;
		hz = noise / ((at + ci) * 1e-9);
	}
	return hz;
}

/* A rate in words, each unit from where its three digits would round up to the next one's 1. */
static const char *rate_words(char *buf, size_t len, double hz)
{
	if (hz < 999.5)
		pb_format(buf, len, "%.0f Hz", hz);
	else if (hz < 999.5e3)
		pb_format(buf, len, "%.3g kHz", hz / 1e3);
	else
		pb_format(buf, len, "%.3g MHz", hz / 1e6);
	return buf;
}

void pb_scorecard_cost_part(struct pb_rset *e, const struct pb_results *r, const char *family,
			    struct verdict_parts *v)
{
	const struct pb_result_point *p = cost_fit(r, family);
	if (!p)
		return;
	const struct pb_rset *m = &p->metrics;
	double ns = pb_rset_get_number(m, "ns_per_sample", NULL);
	double ci = pb_rset_get_number(m, "ci95_ns", NULL);
	bool resolved = pb_rset_is_true(m, "resolved");
	char note[320], a[PB_NUM_LEN], h[PB_NUM_LEN];
	if (resolved)
		pb_format(note, sizeof note, "%s, R² %.3f", p->facility,
			  pb_rset_get_number(m, "r2", NULL));
	else
		pb_format(note, sizeof note, "not resolved: estimate %s ± %s ns, R² %.2f (%s)",
			  pb_num(a, "%.3g", ns), pb_num(h, "%.2g", ci),
			  pb_rset_get_number(m, "r2", NULL), p->facility);
	pb_scorecard_figure(e, "ns_per_sample", ns, ns - ci, ns + ci, "ns/sample", resolved, note);
	program_cost_part(e, r, family);
	struct cost_span span;
	later_cost_part(e, r, family, v, &span);
	/* A facility that traps on every event pays its trap whether the event is sampled or not:
	 * at the 1 and 10 kHz below, every event is a sample (period 1), each costing trap +
	 * sample. The sum's half-width is the sum of the two (the fit's slope and intercept are
	 * correlated; the sum of their errors bounds the error of the sum whatever the sign), and
	 * the sum is resolved by the fit's rule, even where the small per-sample part is not: a
	 * breakpoint's 14 µs trap with a 265 ± 98 ns sample is 14.3 ± 0.16 µs an event. */
	bool traps = pb_rset_get(m, "ns_per_event") != NULL;
	double cost = ns, cost_ci = ci;
	bool cost_resolved = resolved;
	if (traps) {
		double ev = pb_rset_get_number(m, "ns_per_event", NULL);
		double evci = pb_rset_get_number(m, "ns_per_event_ci95", NULL);
		bool ev_resolved = pb_rset_is_true(m, "event_resolved");
		pb_scorecard_figure(e, "ns_per_event", ev, ev - evci, ev + evci, "ns/event",
				    ev_resolved, "the trap every event pays, sampled or not");
		cost = ev + ns;
		cost_ci = evci + ci;
		cost_resolved = ev_resolved && pb_cost_resolved(cost, cost_ci);
	}
	/* a cost that moved while the suite ran: the span that holds both measurements, resolved
	 * by the fit's rule on it (a span past ±10 % leaves the figures unresolved); it measured
	 * a sample's cost, so not a trap's */
	if (traps)
		span = (struct cost_span){.mid = 1, .half = 0};
	if (span.half > 0) {
		cost_ci = fmax(cost_ci, span.half * cost);
		cost *= span.mid;
		cost_resolved = cost_resolved && pb_cost_resolved(cost, cost_ci);
	}
	/* a sample dearer at slow rates (the fit's line by rate, where it tells the cost from one
	 * figure: io/rate_model.h): each rate's own cost, the line's at its period, with the
	 * line's interval there, resolved by the fit's rule */
	struct pb_rate_model line;
	bool by_rate = !traps && !strcmp(pb_scorecard_period_unit(p), "ns") &&
		       pb_rate_model_read(m, &line) && line.dependent;
	const double rates[] = {1e3, 1e4};
	const char *names[] = {"overhead_1khz", "overhead_10khz"};
	for (size_t i = 0; i < 2; i++) {
		double c = cost, c_ci = cost_ci;
		bool c_resolved = cost_resolved;
		if (by_rate) {
			c = pb_rate_model_at(&line, (uint64_t)(1e9 / rates[i]), &c_ci);
			c_ci = fmax(c_ci, span.half * c);
			c *= span.mid;
			c_resolved = resolved && pb_cost_resolved(c, c_ci);
		}
		char how[200];
		pb_format(how, sizeof how, "%s%s",
			  traps ? "(trap per event + sample) × rate, every event sampled (period 1)"
			  : by_rate ? "per-sample cost at the rate's period, on the fit's line by "
				      "rate, × rate"
				    : "per-sample cost × rate",
			  span.half > 0 ? "; the cost moved while the suite ran: its interval the "
					  "span of the fit's and the later measurement's"
					: "");
		pb_scorecard_figure(e, names[i], pb_scorecard_overhead_pct(c, rates[i]),
				    pb_scorecard_overhead_pct(c - c_ci, rates[i]),
				    pb_scorecard_overhead_pct(c + c_ci, rates[i]), "%", c_resolved, how);
	}
	size_t noise_df = 0;
	double noise = machine_noise(r, &noise_df);
	if (isnan(noise))
		noise = timing_noise(r, family);
	if (cost_resolved && cost + cost_ci > 0 && !isnan(noise)) {
		const struct pb_rate_model *rate_line = by_rate ? &line : NULL;
		double hz = rate_within_noise(noise, cost + cost_ci, rate_line, &span);
		/* how well the rate is known: the noise's interval (a standard deviation's, at the
		 * pooled degrees of freedom), the cost held at its upper bound as above */
		double lo = NAN, hi = NAN;
		if (noise_df) {
			double s_lo, s_hi;
			pb_stdev_ci95(1.0, noise_df, &s_lo, &s_hi);
			lo = rate_within_noise(noise * s_lo, cost + cost_ci, rate_line,
					       &span);
			hi = rate_within_noise(noise * s_hi, cost + cost_ci, rate_line,
					       &span);
		}
		char rate[48], text[224], a[48], b[48], nz[PB_NUM_LEN];
		rate_words(rate, sizeof rate, hz);
		if (traps)
			pb_format(text, sizeof text, "events up to %s, each a trap, sampled or not",
				  rate);
		else
			pb_format(text, sizeof text, "sampling up to %s", rate);
		pb_append(text, sizeof text, " (");
		if (isfinite(lo) && isfinite(hi))
			pb_append(text, sizeof text, "%s to %s over the noise's interval; ",
				  rate_words(a, sizeof a, lo), rate_words(b, sizeof b, hi));
		pb_append(text, sizeof text, "cost below the %s %% timing noise)",
			  pb_num(nz, "%.2g", noise * 100));
		pb_scorecard_figure(e, "sampling_rate_hz", hz, lo, hi, "Hz", true,
				    noise_df ? "the rate whose overhead, at the cost's upper bound, "
					       "stays inside one run's 95 % band of CPU time; its "
					       "interval is the band's"
					     : "the rate whose overhead, at the cost's upper bound, "
					       "stays inside one run's 95 % band of CPU time (a band "
					       "without degrees of freedom: no interval)");
		pb_scorecard_add_part(v->use, sizeof v->use, text);
	}
	counted_event_part(e, m, v);
}
