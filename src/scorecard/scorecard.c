/* The scorecard of a results document; docs/scorecard.md says what each figure is, where it
 * comes from, and how each threshold of the "use it for / not for" line is derived. */
#include "scorecard/scorecard.h"
#include "scorecard/scorecard_parts.h"
#include "analysis/stats.h"

#include "io/rate_model.h"
#include "io/result_traits.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pb_scorecard_figures[] = {
	"accuracy_median", "accuracy_worst", "bias_max_deviation", "skid", "loss",
	"throttles", "running_share_min", "wrong_level_samples", "ns_per_sample", "ns_per_event",
	"ns_per_counted_event", "program_ns_per_sample", "ns_per_sample_later", "overhead_1khz",
	"overhead_10khz", "sampling_rate_hz", NULL};

double pb_scorecard_overhead_pct(double ns_per_sample, double rate_hz)
{
	return ns_per_sample * rate_hz / 1e9 * 100;
}

/* The z with P(|Z| > z) = p for a standard normal Z, by bisection on erfc (p in (0, 1)). */
static double two_sided_z(double p)
{
	double lo = 0, hi = 40;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid / sqrt(2)) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double pb_scorecard_share_noise_pp(double n, unsigned k)
{
	if (!(n > 0) || !k)
		return NAN;
	double p = 1.0 / k;
	return two_sided_z(0.05 / k) * sqrt(p * (1 - p) / n) * 100;
}

/* ---------- reading points ---------- */

static void family_of(const char *spec, char *out, size_t len)
{
	size_t n = strcspn(spec ? spec : "", ":");
	pb_format(out, len, "%.*s", (int)n, spec ? spec : "");
}

bool pb_scorecard_in_family(const struct pb_result_point *p, const char *family)
{
	char f[64];
	family_of(p->facility, f, sizeof f);
	return !strcmp(f, family);
}

/* A point that carries figures: not a not-applicable or failed one, and not one its experiment
 * marked as resting on too few samples to mean anything. */
static bool too_few_samples(const struct pb_rset *s)
{
	/* the marker may be a flag or the reason itself */
	const struct pb_rvalue *v = pb_rset_get(s, "too_few_samples");
	return v && v->kind != PB_RV_NULL && (v->kind != PB_RV_BOOL || v->as.b);
}

static bool usable(const struct pb_result_point *p)
{
	if (pb_rset_get(&p->params, "not_applicable") || pb_rset_get(&p->params, "error"))
		return false;
	return !too_few_samples(&p->params) && !too_few_samples(&p->metrics);
}

bool pb_scorecard_is_experiment(const struct pb_result_point *p, const char *name)
{
	return p->experiment && !strcmp(p->experiment, name);
}

static const struct pb_rset *first_event(const struct pb_result_point *p)
{
	return pb_rlist_set_at(pb_rset_get_list(pb_rlist_set_at(&p->runs, 0), "events"), 0);
}

/* "events" or "ns": what a point's period counts, by its traits (the build that measured it
 * says; the fallback of io/result_traits.h for a file without them). The event's "basis" is
 * what its expectation rests on, not the period's unit. */
const char *pb_scorecard_period_unit(const struct pb_result_point *p)
{
	return pb_result_time_based(p) ? "ns" : "events";
}

/* What a facility's accuracy figures can mean, by its traits: one that sees every event counts
 * them exactly; a sampler of events estimates a count from samples × period; a time-based one
 * estimates time and counts nothing, so "exact counts" is never a use of it. */
/* A facility with no traits at all (a name neither its file nor this build's registry knows)
 * is judged as the weakest that counts events: count estimates, never exact counts. */
enum counting { COUNTS_EXACT, COUNTS_ESTIMATED, TIME_ESTIMATED, TRAITS_UNKNOWN };

static enum counting counting_of(const struct pb_result_point *p)
{
	if (pb_result_time_based(p))
		return TIME_ESTIMATED;
	struct pb_rset scratch = {0};
	const struct pb_rset *traits = pb_result_traits(p, &scratch);
	enum counting c = COUNTS_ESTIMATED;
	if (!pb_rset_get(traits, "exact"))
		c = TRAITS_UNKNOWN;
	else if (pb_rset_is_true(traits, "exact"))
		c = COUNTS_EXACT;
	pb_rset_clear(&scratch);
	return c;
}

/* The use the accuracy experiments decide, for each way of counting. */
static const char *counting_use(enum counting c)
{
	return c == COUNTS_EXACT ? "exact counts" : c == TIME_ESTIMATED ? "time estimates"
									 : "count estimates";
}

/* The clause that opens a measured facility's line: which counting use applies to it. */
static const char *counting_clause(enum counting c)
{
	switch (c) {
	case COUNTS_EXACT:
		return "sees every event (exact counts apply)";
	case TIME_ESTIMATED:
		return "time-based (time estimates apply, counts do not)";
	case TRAITS_UNKNOWN:
		return "no traits known (judged for count estimates, never exact counts)";
	case COUNTS_ESTIMATED:
		break;
	}
	return "samples events (count estimates apply, exact counts do not)";
}

static void describe_row(const struct pb_result_point *p, char *buf, size_t len)
{
	pb_format(buf, len, "%s %s, period %lld %s, %lld thread%s", p->facility, p->workload,
		  (long long)pb_rset_get_int(&p->params, "period"), pb_scorecard_period_unit(p),
		  (long long)pb_rset_get_int(&p->params, "threads"),
		  pb_rset_get_int(&p->params, "threads") == 1 ? "" : "s");
}

struct pb_rset *pb_scorecard_figure(struct pb_rset *entry, const char *name, double value,
				    double lo, double hi, const char *unit, bool resolved,
				    const char *note)
{
	struct pb_rset *f = pb_rset_set(entry, name);
	pb_rset_real_or_null(f, "value", PB_UNIT_NONE, value);
	pb_rset_real_or_null(f, "lo", PB_UNIT_NONE, lo);
	pb_rset_real_or_null(f, "hi", PB_UNIT_NONE, hi);
	pb_rset_text(f, "unit", unit);
	pb_rset_bool(f, "resolved", resolved);
	if (note && *note)
		pb_rset_text(f, "note", note);
	return f;
}

/* ---------- the parts of one entry ---------- */

void pb_scorecard_add_part(char *buf, size_t len, const char *text)
{
	pb_append(buf, len, "%s%s", *buf ? ", " : "", text);
}

struct acc_row {
	double mean, ci95;
	const struct pb_result_point *p;
};

static int by_mean(const void *a, const void *b)
{
	double x = ((const struct acc_row *)a)->mean, y = ((const struct acc_row *)b)->mean;
	return (x > y) - (x < y);
}

/* Count accuracy over the accuracy and interval points: the median row and the worst. Counts
 * are exact when every run of every row counted exactly; unbiased to the runs' resolution when
 * 100 % lies inside the worst row's 95 % interval; otherwise off by the worst row's shortfall.
 * How far an estimate may be off is the far end of the intervals: the largest shortfall any
 * row's 95 % interval allows. The worst row's half-width alone understated it (98.6 ± 2.8 %
 * read "to ±2.8 %", where the interval allows 4.2 % off), and a facility judged biased for a
 * shortfall of 0.16 ± 0.05 % was offered no bound at all while one whose interval allowed
 * 4.2 % was offered ±2.8 %: the narrower measurement read as the worse facility. */
static void accuracy_part(struct pb_rset *e, const struct pb_results *r, const char *family,
			  enum counting counting, struct verdict_parts *v)
{
	struct acc_row *rows = calloc(r->npoints ? r->npoints : 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; rows && i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (!pb_scorecard_in_family(p, family) || !usable(p) ||
		    !(pb_scorecard_is_experiment(p, "accuracy") ||
		      pb_scorecard_is_experiment(p, "interval")))
			continue;
		const struct pb_rsummary *acc = pb_rset_get_summary(&p->metrics, "accuracy");
		if (!acc || !acc->n)
			continue;
		rows[n++] = (struct acc_row){acc->mean, acc->n > 1 ? acc->ci95 : NAN, p};
	}
	if (!n) {
		free(rows);
		return;
	}
	qsort(rows, n, sizeof *rows, by_mean);
	char row[256];
	const struct acc_row *med = &rows[(n - 1) / 2], *worst = &rows[0];
	describe_row(med->p, row, sizeof row);
	pb_scorecard_figure(e, "accuracy_median", med->mean, med->mean - med->ci95,
			    med->mean + med->ci95, "%", !isnan(med->ci95), row);
	describe_row(worst->p, row, sizeof row);
	pb_scorecard_figure(e, "accuracy_worst", worst->mean, worst->mean - worst->ci95,
			    worst->mean + worst->ci95, "%", !isnan(worst->ci95), row);
	pb_rset_text(e, "basis", pb_rset_get_text(first_event(worst->p), "basis"));
	char text[96], num[32];
	bool every_run_exact = true;
	for (size_t i = 0; i < n; i++) {
		const struct pb_rsummary *acc = pb_rset_get_summary(&rows[i].p->metrics, "accuracy");
		every_run_exact &= acc->min >= 100;
	}
	bool unbiased = !isnan(worst->ci95) && worst->mean + worst->ci95 >= 100;
	/* no bound where a row has no interval (one run): its far end is not known */
	double far = 0;
	bool bounded = true;
	for (size_t i = 0; i < n; i++) {
		bounded &= !isnan(rows[i].ci95);
		far = fmax(far, 100 - rows[i].mean + rows[i].ci95);
	}
	/* exact-capable facilities are judged for exact counts, the others for estimates, and
	 * for bias only, never for exactness */
	bool exact = counting == COUNTS_EXACT;
	const char *use = exact ? "counts" : counting_use(counting);
	if (every_run_exact) {
		if (exact)
			pb_format(text, sizeof text, "exact counts");
		else
			pb_format(text, sizeof text, "%s (no run off)", use);
		pb_scorecard_add_part(v->use, sizeof v->use, text);
	} else if (bounded) {
		pb_format_number(num, sizeof num, "%.2g", far);
		pb_format(text, sizeof text, "%s to ±%s %%", use, num);
		pb_scorecard_add_part(v->use, sizeof v->use, text);
	}
	if (!every_run_exact && !unbiased) {
		/* a shortfall the intervals show, however small: said beside the bound */
		pb_format_number(num, sizeof num, "%.2g", 100 - worst->mean);
		pb_format(text, sizeof text, "%s%s (off by up to %s %%)", exact ? "" : "unbiased ",
			  exact ? "exact counts" : use, num);
		pb_scorecard_add_part(v->not_for, sizeof v->not_for, text);
	}
	free(rows);
}

/* Whether a bias point's period can lock onto one of k loads: a count period sharing a factor
 * with k can; a time period cannot. */
static bool coprime_period(const struct pb_result_point *p, unsigned k)
{
	if (!strcmp(pb_scorecard_period_unit(p), "ns"))
		return true;
	unsigned long long a = (unsigned long long)pb_rset_get_int(&p->params, "period"), b = k;
	while (b) {
		unsigned long long t = a % b;
		a = b;
		b = t;
	}
	return a == 1;
}

/* Attribution: the IP relation the facility declares, the bias experiment's largest deviation
 * from the equal share at a coprime period against the noise bound of its samples, and skid
 * where a counter measured it. */
static void attribution_part(struct pb_rset *e, const struct pb_results *r, const char *family,
			     const char *ip, struct verdict_parts *v)
{
	double worst = -1, bound = NAN;
	const struct pb_result_point *at = NULL;
	double skid_med_lo = INFINITY, skid_med_hi = -1, skid_max = -1;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (!pb_scorecard_in_family(p, family) || !usable(p))
			continue;
		for (size_t run = 0; run < pb_rlist_size(&p->runs); run++) {
			const struct pb_rset *ev = pb_rlist_set_at(
				pb_rset_get_list(pb_rlist_set_at(&p->runs, run), "events"), 0);
			const struct pb_rset *skid = pb_rset_get_set(ev, "skid");
			if (!skid || pb_rset_get_int(skid, "samples") <= 0)
				continue;
			double med = pb_rset_get_number(skid, "median", NULL);
			skid_med_lo = fmin(skid_med_lo, med);
			skid_med_hi = fmax(skid_med_hi, med);
			skid_max = fmax(skid_max, pb_rset_get_number(skid, "max", NULL));
		}
		const struct pb_rlist *shares = pb_rset_get_list(&p->metrics, "shares");
		bool dev_ok;
		double dev = pb_rset_get_number(&p->metrics, "max_deviation", &dev_ok);
		unsigned k = (unsigned)pb_rlist_size(shares);
		if (!pb_scorecard_is_experiment(p, "bias") || !dev_ok || !k || !coprime_period(p, k))
			continue;
		double samples = 0;
		for (size_t run = 0; run < pb_rlist_size(&p->runs); run++)
			samples += pb_rset_get_number(
				pb_rset_get_set(pb_rlist_set_at(&p->runs, run), "attribution"),
				"samples", NULL);
		if (dev > worst) {
			worst = dev;
			at = p;
			bound = pb_scorecard_share_noise_pp(samples, k);
		}
	}
	if (at) {
		char note[320];
		pb_format(note, sizeof note, "%s %s, period %lld %s; ", at->facility, at->workload,
			  (long long)pb_rset_get_int(&at->params, "period"),
			  pb_scorecard_period_unit(at));
		if (isnan(bound))
			pb_append(note, sizeof note, "the runs name no sample count, so how far chance "
						     "alone reaches is not known");
		else
			pb_append(note, sizeof note, "chance alone reaches %.2g pp with these samples",
				  bound);
		pb_scorecard_figure(e, "bias_max_deviation", worst, fmax(0, worst - bound),
				    worst + bound, "pp", !isnan(bound), note);
		bool ip_names_insn = ip && (!strcmp(ip, "exact") || !strcmp(ip, "next-insn"));
		char text[128];
		if (ip_names_insn && !isnan(bound) && worst <= bound) {
			pb_scorecard_add_part(v->use, sizeof v->use, "instruction-level attribution");
		} else {
			pb_format(text, sizeof text, "instruction-level attribution (%s%.0f pp off)",
				  ip_names_insn ? "" : "IP skids; ", worst);
			pb_scorecard_add_part(v->not_for, sizeof v->not_for, text);
			pb_scorecard_add_part(v->use, sizeof v->use, "function-level profiles");
		}
	}
	if (skid_max >= 0)
		pb_scorecard_figure(e, "skid", skid_med_hi, skid_med_lo, skid_max, "events", true,
				    "value: the largest per-run median; lo: the smallest; hi: the "
				    "largest skid seen");
}

/* Losses, throttling and multiplexing at the suite's default ring: the buffer experiment,
 * which shrinks the ring on purpose, is left out (its own table shows its losses). */
static void delivery_part(struct pb_rset *e, const struct pb_results *r, const char *family,
			  struct verdict_parts *v)
{
	double lost = 0, kept = 0, throttles = 0, wrong_level = 0, share = INFINITY;
	bool any = false;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (!pb_scorecard_in_family(p, family) || !usable(p) ||
		    pb_rset_get(&p->params, "ring_pages") || !pb_rlist_size(&p->runs))
			continue;
		any = true;
		lost += (double)pb_rset_get_int(&p->metrics, "lost_total");
		throttles += (double)pb_rset_get_int(&p->metrics, "throttles_total");
		wrong_level += (double)pb_rset_get_int(&p->metrics, "wrong_level_samples_total");
		for (size_t run = 0; run < pb_rlist_size(&p->runs); run++)
			kept += pb_rset_get_number(pb_rlist_set_at(&p->runs, run), "observed", NULL);
		const struct pb_rsummary *ratio = pb_rset_get_summary(&p->metrics, "running_ratio");
		/* multi opens more events than counters on purpose: its own table says so */
		if (ratio && !pb_scorecard_is_experiment(p, "multi"))
			share = fmin(share, ratio->min * 100);
	}
	if (!any)
		return;
	double pct = lost + kept > 0 ? lost / (lost + kept) * 100 : 0;
	char note[128], text[128];
	pb_format(note, sizeof note, "%.0f samples lost, %.0f kept", lost, kept);
	pb_scorecard_figure(e, "loss", pct, pct, pct, "%", true, note);
	pb_scorecard_figure(e, "throttles", throttles, throttles, throttles, "count", true, NULL);
	pb_scorecard_figure(e, "wrong_level_samples", wrong_level, wrong_level, wrong_level,
			    "samples", true,
			    "samples at a privilege level the run excluded (by record flag or IP)");
	if (isfinite(share))
		pb_scorecard_figure(e, "running_share_min", share, share, share, "%", true,
				    "the least time an event was on its counter, outside the multi "
				    "experiment");
	if (lost > 0) {
		char num[32];
		pb_format_number(num, sizeof num, "%.2g", pct);
		pb_format(text, sizeof text, "lossless capture (%s %% lost)", num);
		pb_scorecard_add_part(v->not_for, sizeof v->not_for, text);
	}
	if (throttles > 0) {
		pb_format(text, sizeof text, "high rates (throttled %.0f times)", throttles);
		pb_scorecard_add_part(v->not_for, sizeof v->not_for, text);
	}
	/* an excluded level is a promise about every sample: one sample breaks it */
	if (wrong_level > 0) {
		pb_format(text, sizeof text, "privilege-level filtering (%.0f samples at an excluded "
			  "level)", wrong_level);
		pb_scorecard_add_part(v->not_for, sizeof v->not_for, text);
	}
	if (isfinite(share) && share < 100) {
		pb_format(text, sizeof text, "unshared counters (multiplexed, %.0f %% on)", share);
		pb_scorecard_add_part(v->not_for, sizeof v->not_for, text);
	}
}

/* ---------- the entries ---------- */

static const struct pb_rset *probe_of(const struct pb_results *r, const char *family)
{
	const struct pb_rlist *fs = pb_rset_get_list(&r->machine, "facilities");
	for (size_t i = 0; i < pb_rlist_size(fs); i++) {
		const struct pb_rset *f = pb_rlist_set_at(fs, i);
		const char *name = pb_rset_get_text(f, "name");
		if (name && !strcmp(name, family))
			return f;
	}
	return NULL;
}

static const char *skip_reason(const struct pb_results *r, const char *family)
{
	for (size_t i = 0; i < pb_rlist_size(&r->skipped); i++) {
		const struct pb_rset *s = pb_rlist_set_at(&r->skipped, i);
		char f[64];
		family_of(pb_rset_get_text(s, "facility"), f, sizeof f);
		if (!strcmp(f, family))
			return pb_rset_get_text(s, "reason");
	}
	return NULL;
}

/* The family's first point with runs, NULL when none was measured. */
static const struct pb_result_point *first_measured(const struct pb_results *r,
						     const char *family)
{
	for (size_t i = 0; i < r->npoints; i++)
		if (pb_scorecard_in_family(r->points[i], family) && pb_rlist_size(&r->points[i]->runs))
			return r->points[i];
	return NULL;
}

/* The family's experiments that failed on it (the suite's point of one: its error, no runs):
 * how many, and the first in *first. */
static unsigned failed_experiments(const struct pb_results *r, const char *family,
				   const struct pb_result_point **first)
{
	unsigned n = 0;
	*first = NULL;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (!pb_scorecard_in_family(p, family) || pb_rlist_size(&p->runs) ||
		    !pb_rset_get_text(&p->params, "error"))
			continue;
		if (!n++)
			*first = p;
	}
	return n;
}

/* Every use the entry's line can decide for a facility that counts this way, in the order the
 * parts below decide them; a use not listed is neither offered nor judged. */
static void uses(struct pb_rset *e, enum counting counting)
{
	static const char *const judged_for_all[] = {
		"instruction-level attribution", "function-level profiles", "lossless capture",
		"high rates", "privilege-level filtering", "unshared counters", "sampling rate"};
	struct pb_rlist *names = pb_rset_list(e, "uses");
	pb_rlist_text(names, counting_use(counting));
	for (size_t i = 0; i < PB_ARRAY_SIZE(judged_for_all); i++)
		pb_rlist_text(names, judged_for_all[i]);
}

static void entry(struct pb_results *r, const char *family)
{
	struct pb_rset *e = pb_rlist_set(&r->scorecard);
	const struct pb_rset *probe = probe_of(r, family);
	const char *verdict = pb_rset_get_text(probe, "verdict");
	if (!verdict)
		verdict = pb_rset_get_text(pb_rset_get_set(probe, "self_test"), "verdict");
	const char *ip = pb_rset_get_text(probe, "ip");
	pb_rset_text(e, "facility", family);
	pb_rset_text(e, "verdict", verdict ? verdict : "not tested");
	pb_rset_text(e, "ip", ip ? ip : "unknown");
	const struct pb_result_point *first = first_measured(r, family), *failed_first;
	pb_rset_bool(e, "measured", first != NULL);
	/* chosen, and failed: said, never taken for a facility the run left out */
	unsigned failed = failed_experiments(r, family, &failed_first);
	char failures[700] = "";
	if (failed) {
		pb_rset_int(e, "experiments_failed", PB_UNIT_COUNT, failed);
		pb_format(failures, sizeof failures, "%u experiment%s FAILED on it (%s: %s)",
			  failed, failed == 1 ? "" : "s", failed_first->experiment,
			  pb_rset_get_text(&failed_first->params, "error"));
	}
	if (!first) {
		const char *why = failed ? failures : skip_reason(r, family);
		if (!why && probe && !pb_rset_is_true(probe, "available"))
			why = pb_rset_get_text(probe, "reason");
		pb_rset_text(e, "why", why && *why ? why : "not chosen for this run");
		pb_rset_text(e, "summary", "not measured here");
		return;
	}
	/* a family is one facility: its first measured point's traits speak for it */
	enum counting counting = counting_of(first);
	pb_rset_text(e, "period_unit", pb_scorecard_period_unit(first));
	uses(e, counting);
	struct verdict_parts v = {"", "", ""};
	accuracy_part(e, r, family, counting, &v);
	attribution_part(e, r, family, ip, &v);
	delivery_part(e, r, family, &v);
	pb_scorecard_cost_part(e, r, family, &v);
	char summary[900] = "";
	if (verdict && strcmp(verdict, "works"))
		pb_format(summary, sizeof summary, "self-test %s: check it before relying on it; ",
			  verdict);
	pb_append(summary, sizeof summary, "%s: ", counting_clause(counting));
	if (*v.use)
		pb_append(summary, sizeof summary, "use for %s", v.use);
	if (*v.not_for)
		pb_append(summary, sizeof summary, "%snot for %s", *v.use ? "; " : "", v.not_for);
	if (!*v.use && !*v.not_for)
		pb_append(summary, sizeof summary, "measured, but no experiment here decides a use");
	if (*v.besides)
		pb_append(summary, sizeof summary, "; %s", v.besides);
	/* what its measured experiments say is not all: the others failed */
	if (failed)
		pb_append(summary, sizeof summary, "; %s", failures);
	pb_rset_text(e, "summary", summary);
	pb_rset_text(e, "use_for", v.use);
	pb_rset_text(e, "not_for", v.not_for);
}

static bool listed(const struct pb_rlist *l, const char *family)
{
	for (size_t i = 0; i < pb_rlist_size(l); i++) {
		const char *f = pb_rset_get_text(pb_rlist_set_at(l, i), "facility");
		if (f && !strcmp(f, family))
			return true;
	}
	return false;
}

void pb_scorecard_fill(struct pb_results *r)
{
	pb_rlist_clear(&r->scorecard);
	const struct pb_rlist *fs = pb_rset_get_list(&r->machine, "facilities");
	for (size_t i = 0; i < pb_rlist_size(fs); i++) {
		const char *name = pb_rset_get_text(pb_rlist_set_at(fs, i), "name");
		if (name && !listed(&r->scorecard, name))
			entry(r, name);
	}
	for (size_t i = 0; i < r->npoints; i++) {
		char f[64];
		family_of(r->points[i]->facility, f, sizeof f);
		if (*f && !listed(&r->scorecard, f))
			entry(r, f);
	}
	for (size_t i = 0; i < pb_rlist_size(&r->skipped); i++) {
		char f[64];
		family_of(pb_rset_get_text(pb_rlist_set_at(&r->skipped, i), "facility"), f, sizeof f);
		if (*f && !listed(&r->scorecard, f))
			entry(r, f);
	}
}
