#include "present/summary.h"

#include "util/text.h"

#include <stdbool.h>
#include <string.h>

/* A figure that is a summary over runs or a bare number (files of older versions wrote some
 * summaries without their confidence interval: those read back as sets). */
static double median_or_value(const struct pb_rvalue *v)
{
	if (v->kind == PB_RV_SUMMARY)
		return v->as.sum.median;
	if (v->kind == PB_RV_SET)
		return pb_rset_get_number(v->as.set, "median", NULL);
	return pb_rvalue_number(v);
}

static void point_row(FILE *out, const struct pb_result_point *p)
{
	const struct pb_rset *par = &p->params;
	char workload[40];
	pb_format(workload, sizeof workload, "%s", *p->workload ? p->workload : "-");
	const struct pb_rvalue *na = pb_rset_get(par, "not_applicable");
	const struct pb_rvalue *error = pb_rset_get(par, "error");
	if (na || error) {
		const struct pb_rvalue *why = na ? na : error;
		fprintf(out, "%-9s %-16s %-28s %s: %.80s\n", p->experiment, p->facility, workload,
			na ? "n/a" : "ERROR", why->kind == PB_RV_TEXT ? why->as.text : "(null)");
		return;
	}
	const struct pb_rset *m = &p->metrics;
	const struct pb_rsummary *acc = pb_rset_get_summary(m, "accuracy");
	const struct pb_rsummary *ratio = pb_rset_get_summary(m, "running_ratio");
	char accuracy[48] = "      -";
	if (acc)
		pb_format(accuracy, sizeof accuracy, "%8.3f %6.3f %8.3f-%-8.3f", acc->mean,
			  acc->stdev, acc->min, acc->max);
	char note[128] = "";
	const struct pb_rvalue *v;
	int64_t empty = pb_rset_get_int(m, "no_samples_runs");
	if (empty) {
		if (!acc)
			pb_format(accuracy, sizeof accuracy, "%-41s", "  NO SAMPLES");
		pb_format(note, sizeof note, "NO SAMPLES in %lld of %zu runs; ", (long long)empty,
			  pb_rlist_size(&p->runs));
	}
	if (pb_rset_get_int(m, "precise_lowered_runs")) {
		const struct pb_rset *ev = pb_rlist_set_at(
			pb_rset_get_list(pb_rlist_set_at(&p->runs, 0), "events"), 0);
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, "pp LOWERED %lld->%lld; ",
			  (long long)pb_rset_get_int(ev, "precise_requested"),
			  (long long)pb_rset_get_int(ev, "precise_granted"));
	}
	int64_t missed = pb_rset_get_int(m, "missed_ticks_total");
	if (missed) {
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, "missed %lld ticks; ", (long long)missed);
	}
	int64_t dropped = pb_rset_get_int(m, "dropped_total");
	if (dropped) {
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, "DROPPED %lld unparseable records; ",
			  (long long)dropped);
	}
	size_t used = strlen(note);
	if ((v = pb_rset_get(m, "max_deviation")))
		pb_format(note + used, sizeof note - used, "max dev %.2f pp (%s)",
			  pb_rvalue_number(v), pb_rset_get_text(m, "attribution"));
	else if ((v = pb_rset_get(m, "wrong_level_by_flag")))
		pb_format(note + used, sizeof note - used, "%s: wrong level %lld flag / %lld ip of %lld",
			  pb_rset_get_text(par, "levels"), (long long)pb_rset_get_int(m,
										"wrong_level_by_flag"),
			  (long long)pb_rset_get_int(m, "wrong_level_by_ip"),
			  (long long)pb_rset_get_int(m, "samples_total"));
	else if ((v = pb_rset_get(par, "events_opened_together")))
		pb_format(note + used, sizeof note - used, "%lld events, %lld scheduled",
			  (long long)pb_rset_get_int(par, "events_opened_together"),
			  (long long)pb_rset_get_int(par, "events_scheduled"));
	else if ((v = pb_rset_get(m, "ns_per_sample")) && pb_rset_get(m, "r2"))
		pb_format(note + used, sizeof note - used, "fit: %.0f ns/sample +-%.0f, R2 %.3f (%s)%s",
			  pb_rvalue_number(v), pb_rset_get_number(m, "ci95_ns", NULL),
			  pb_rset_get_number(m, "r2", NULL), pb_rset_get_text(par, "delivery"),
			  pb_rset_get(m, "resolved") && pb_rset_get(m, "resolved")->kind == PB_RV_BOOL &&
				  !pb_rset_is_true(m, "resolved")
				  ? " NOT RESOLVED" : "");
	else if ((v = pb_rset_get(m, "error_pct")))
		pb_format(note + used, sizeof note - used, "predicted vs measured: %+.1f %%",
			  median_or_value(v));
	else if ((v = pb_rset_get(m, "time_overhead_pct")))
		pb_format(note + used, sizeof note - used, "%s: time %+.1f %%, memory %+.1f %%%s",
			  pb_rset_get_text(par, "delivery"), median_or_value(v),
			  pb_rset_get_number(m, "memory_overhead_pct", NULL),
			  pb_rset_get(m, "loss_pct") ? " (buffer)" : "");
	else if ((v = pb_rset_get(par, "period_kind")))
		pb_format(note + used, sizeof note - used, "%s period",
			  pb_rset_get_text(par, "period_kind"));
	if (pb_rset_get(par, "variant")) {
		size_t n = strlen(note);
		pb_format(note + n, sizeof note - n, " %s", pb_rset_get_text(par, "variant"));
	}
	/* the flags above end in "; " for what follows; nothing may follow */
	size_t end = strlen(note);
	while (end && (note[end - 1] == ' ' || note[end - 1] == ';'))
		note[--end] = '\0';
	fprintf(out, "%-9s %-16s %-28s %9lld %3lld %s %8lld %5.3f %s\n", p->experiment,
		p->facility, workload, (long long)pb_rset_get_int(par, "period"),
		(long long)pb_rset_get_int(par, "threads"), accuracy,
		(long long)pb_rset_get_int(m, "lost_total"), ratio ? ratio->min : 1.0, note);
}

static void bias_table(FILE *out, const struct pb_results *r)
{
	bool header = false;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		const struct pb_rvalue *shares = pb_rset_get(&p->metrics, "shares");
		if (!shares)
			continue;
		if (!header) {
			fprintf(out, "\nbias: mean share of samples per load (ideal 25%%), at the IP "
				     "and IP+1-corrected\n");
			header = true;
		}
		fprintf(out, "  %s %s period %lld:\n", p->facility, p->workload,
			(long long)pb_rset_get_int(&p->params, "period"));
		if (shares->kind != PB_RV_LIST)
			continue;
		for (size_t j = 0; j < shares->as.list->n; j++) {
			const struct pb_rset *s = pb_rlist_set_at(shares->as.list, j);
			fprintf(out, "    %-24s %-30s at-ip %6.2f%%  before-ip %6.2f%%\n",
				pb_rset_get_text(s, "label"), pb_rset_get_text(s, "insn"),
				pb_rset_get_number(s, "share_at_ip", NULL),
				pb_rset_get_number(s, "share_before_ip", NULL));
		}
	}
}

void pb_summary_print(FILE *out, const struct pb_results *results)
{
	fprintf(out, "%-9s %-16s %-28s %9s %3s %8s %6s %17s %8s %5s %s\n", "exp", "facility",
		"workload", "period", "thr", "accuracy", "stdev", "min-max", "lost", "run/en",
		"notes");
	for (size_t i = 0; i < results->npoints; i++)
		point_row(out, results->points[i]);
	bias_table(out, results);
	if (pb_rlist_size(&results->skipped)) {
		fprintf(out, "\nnot run here:\n");
		for (size_t i = 0; i < pb_rlist_size(&results->skipped); i++) {
			const struct pb_rset *s = pb_rlist_set_at(&results->skipped, i);
			fprintf(out, "  %-28s %s\n", pb_rset_get_text(s, "facility"),
				pb_rset_get_text(s, "reason"));
		}
	}
	if (!pb_rset_is_true(&results->head, "complete"))
		fprintf(out, "\nINCOMPLETE: the suite was interrupted; the rows above are what was "
			     "measured.\n");
}
