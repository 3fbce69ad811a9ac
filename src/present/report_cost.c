/* The cost experiment's sentences in report.html's table: a prediction's cell and a fit's costs
 * by period. */
#include "present/report_parts.h"

#include "util/text.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* "<lead> 14.1 ± 1.2 µs": a cost in ns and its half-width (key_ci95), the half-width left out
 * where the point has none; false, with nothing appended, where it has no cost. */
static bool append_cost_us(char *b, size_t n, const struct pb_rset *m, const char *lead,
			   const char *key)
{
	bool ok;
	double ns = pb_rset_get_number(m, key, &ok);
	if (!ok)
		return false;
	char t[PB_NUM_LEN], ci_key[64];
	pb_append(b, n, "%s %s", lead, pb_num(t, "%.3g", ns / 1000));
	pb_format(ci_key, sizeof ci_key, "%s_ci95", key);
	double ci = pb_rset_get_number(m, ci_key, &ok);
	if (ok)
		pb_append(b, n, " ± %s", pb_num(t, "%.2g", ci / 1000));
	pb_append(b, n, " µs");
	return true;
}

/* "30 % ± 0.55 pp": a slowdown in % and its half-width in points (key) where the point has
 * one, as the measured slowdown is written; where it has none for want of an upper end
 * (key_unbounded), that said. */
static void append_pct_pp(char *b, size_t n, double pct, const struct pb_rset *m,
			  const char *key)
{
	bool ok;
	double ci = pb_rset_get_number(m, key, &ok);
	char t[PB_NUM_LEN];
	pb_append(b, n, "%s %%", pb_num(t, "%.3g", pct));
	char unbounded[96];
	pb_format(unbounded, sizeof unbounded, "%s_unbounded", key);
	if (ok)
		pb_append(b, n, " ± %s pp", pb_num(t, "%.2g", ci));
	else if (pb_rset_is_true(m, unbounded))
		pb_append(b, n, " (no upper end: the cost's interval reaches the period)");
}

void pb_report_prediction_text(const struct pb_result_point *p, bool time_periods, char *b,
			       size_t n)
{
	const struct pb_rvalue *v = pb_rset_get(&p->metrics, "error_pct");
	*b = '\0';
	if (!v)
		return;
	/* files of version 1 wrote it as a summary without its interval: a table of figures */
	double e = v->kind == PB_RV_SET ? pb_rset_get_number(v->as.set, "median", NULL)
		 : v->kind == PB_RV_SUMMARY ? v->as.sum.median : pb_rvalue_number(v);
	bool ok;
	double predicted = pb_rset_get_number(&p->metrics, "predicted_slowdown_pct", &ok);
	if (!ok) {
		/* a file from before the slowdown was judged: its total CPU time's error */
		char t[PB_NUM_LEN];
		pb_format(b, n, "%s %%", pb_num(t, "%+.3g", e));
		return;
	}
	/* the slowdown first, as it is judged (the total CPU time's error reads small when the
	 * slowdown is: +9.0 % for a slowdown predicted 14.3 % and measured 24.5 %) */
	char t[3][PB_NUM_LEN];
	double measured = pb_rset_get_number(&p->metrics, "measured_slowdown_pct", &ok);
	/* the prediction carries its cost's interval, which its verdict weighs */
	pb_format(b, n, "slowdown predicted ");
	append_pct_pp(b, n, predicted, &p->metrics, "predicted_slowdown_ci95_pp");
	pb_append(b, n, ", ");
	/* every round left out (its figures no number): nothing measured, not a 0 */
	if (ok)
		pb_append(b, n, "measured %s %%", pb_num(t[1], "%.3g", measured));
	else
		pb_append(b, n, "not measured (no round gave a figure)");
	double ci = pb_rset_get_number(&p->metrics, "measured_slowdown_ci95_pp", &ok);
	if (ok)
		pb_append(b, n, " ± %s pp", pb_num(t[0], "%.2g", ci));
	const char *verdict = pb_rset_get_text(&p->metrics, "slowdown_verdict");
	if (verdict)
		pb_append(b, n, ": %s", verdict);
	/* an undecided verdict with its error and tolerance: an error that sits on the tolerance
	 * is why it may take 119204 rounds to decide (2026-11-27, kind A: 2.73 pp against 2.73) */
	bool has_error, has_tolerance;
	double error = pb_rset_get_number(&p->metrics, "slowdown_error_pp", &has_error);
	double tolerance = pb_rset_get_number(&p->metrics, "slowdown_tolerance_pp", &has_tolerance);
	if (verdict && !strcmp(verdict, "undecided") && has_error && has_tolerance)
		pb_append(b, n, " (error %s pp, ±%s pp allowed)", pb_num(t[0], "%.2g", fabs(error)),
			  pb_num(t[2], "%.2g", tolerance));
	int64_t need = pb_rset_get_int(&p->metrics, "rounds_to_decide");
	if (need > 0)
		pb_append(b, n, ", about %lld rounds would decide it", (long long)need);
	/* or why none would: the prediction's own interval, or an error on the tolerance */
	const char *never = pb_rset_get_text(&p->metrics, "undecided_why");
	if (never)
		pb_append(b, n, ", %s", never);
	/* rounds a disturbance moved are in no figure of the cell: said, with the rounds done */
	int64_t disturbed = pb_rset_get_int(&p->metrics, "rounds_left_out");
	if (disturbed > 0)
		pb_append(b, n, ", %lld of %lld rounds left out as disturbed", (long long)disturbed,
			  (long long)pb_rset_get_int(&p->metrics, "rounds"));
	pb_append(b, n, " (total CPU time %s %%", pb_num(t[0], "%+.3g", e));
	if (append_cost_us(b, n, &p->metrics, "; a sample cost", "measured_ns_per_sample"))
		pb_append(b, n, " here");
	/* the cost workload beside it at the same period: how far the machine's cost was from
	 * the fit's, and what is left to the target itself */
	if (append_cost_us(b, n, &p->metrics, "; the cost workload beside it",
			   "reference_ns_per_sample")) {
		/* none where the fit gave no cost at the period (its line by rate can end there) */
		double vs_fit = pb_rset_get_number(&p->metrics, "reference_vs_fit_pct", &ok);
		if (ok)
			pb_append(b, n, " (fit %+.0f %%)", vs_fit);
		double rebased = pb_rset_get_number(&p->metrics, "rebased_predicted_slowdown_pct", &ok);
		const char *rv = pb_rset_get_text(&p->metrics, "rebased_slowdown_verdict");
		if (ok && rv) {
			pb_append(b, n, ", predicted with it ");
			append_pct_pp(b, n, rebased, &p->metrics,
				      "rebased_predicted_slowdown_ci95_pp");
			pb_append(b, n, ": %s", rv);
		}
	}
	/* the target's own cost at the calibration period, carried to this one */
	double calibrated = pb_rset_get_number(&p->metrics, "calibrated_predicted_slowdown_pct", &ok);
	const char *cv = pb_rset_get_text(&p->metrics, "calibrated_slowdown_verdict");
	if (ok && cv) {
		double from = pb_rset_get_number(&p->metrics, "calibrated_from_period", NULL);
		pb_append(b, n, "; with its own cost at %s %s, %s µs a sample: ",
			  pb_num(t[0], "%.3g", time_periods ? from / 1000 : from),
			  time_periods ? "µs" : "events",
			  pb_num(t[1], "%.3g",
				 pb_rset_get_number(&p->metrics, "calibrated_ns_per_sample", NULL) / 1000));
		append_pct_pp(b, n, calibrated, &p->metrics, "calibrated_predicted_slowdown_ci95_pp");
		pb_append(b, n, ", %s", cv);
	}
	pb_append(b, n, ")");
}

/* What a sample cost at each period of a cost fit's sweep ("by period: 18.9 ± 0.4 µs at 38 µs,
 * ..."): whether a sample is one cost at every rate is one look away from the slope. */
void pb_report_by_period_text(const struct pb_result_point *p, const struct pb_rlist *rows,
			      bool time_periods, char *b, size_t n)
{
	const char *sep = "by period:";
	for (size_t i = 0; i < pb_rlist_size(rows); i++) {
		const struct pb_rset *r = pb_rlist_set_at(rows, i);
		bool ok, ci_ok;
		double ns = pb_rset_get_number(r, "ns_per_sample", &ok);
		double ci = pb_rset_get_number(r, "ci95_ns", &ci_ok);
		double period = pb_rset_get_number(r, "period", NULL);
		if (!ok)
			continue;
		bool us = fabs(ns) >= 1000;
		char t[PB_NUM_LEN];
		pb_append(b, n, "%s %s", sep, pb_num(t, "%.3g", us ? ns / 1000 : ns));
		if (ci_ok)
			pb_append(b, n, " ± %s", pb_num(t, "%.2g", us ? ci / 1000 : ci));
		pb_append(b, n, " %s at %s %s", us ? "µs" : "ns",
			  pb_num(t, "%.4g", time_periods ? period / 1000 : period),
			  time_periods ? "µs" : "events");
		sep = ",";
	}
	if (strcmp(sep, "by period:"))
		pb_append(b, n, "; ");
	/* the line by rate beside them, when it could not be told from one cost (one that can is
	 * the fit's rate note) */
	bool has_b, has_ci;
	double per_decade = pb_rset_get_number(&p->metrics, "rate_ns_per_decade", &has_b);
	double per_decade_ci = pb_rset_get_number(&p->metrics, "rate_ns_per_decade_ci95", &has_ci);
	if (has_b && has_ci && !pb_rset_is_true(&p->metrics, "rate_dependent")) {
		char t[PB_NUM_LEN], u[PB_NUM_LEN];
		/* to the hundredth shown, and never "-0.00" */
		double shown = round(per_decade / 10) / 100;
		pb_append(b, n, "a tenfold longer period adds %s ± %s µs a sample, not told from one "
			  "cost; ", pb_num(t, "%+.2f", shown == 0 ? 0 : shown),
			  pb_num(u, "%.2g", per_decade_ci / 1000));
	}
}
