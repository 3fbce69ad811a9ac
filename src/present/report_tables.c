/* report.html's table per experiment: each experiment shows the figures it measured (cost its
 * fit, overhead its delivery mode and overheads, buffer its ring and losses, ...), with a
 * column only when some row has a value in it. A point that failed or does not apply spans
 * the row with its reason. */
#include "present/report_parts.h"

#include "analysis/stats.h"
#include "io/figures.h"
#include "io/result_traits.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A cell's text (HTML-escaped later), "" when the point has no such figure. */
typedef void cell_fn(const struct pb_result_point *p, char *buf, size_t len);

/* A column: a function that writes the cell, or a field of the point's parameters or
 * metrics, written by fmt as a figure (a summary with its interval) or as text (fmt NULL). */
struct column {
	const char *head;
	cell_fn *cell;
	bool in_params;
	const char *field, *fmt;
	bool number;
	bool prose;             /* sentences: a column wide enough to read them */
};

static const struct pb_rset *par(const struct pb_result_point *p)
{
	return &p->params;
}

static const struct pb_rset *met(const struct pb_result_point *p)
{
	return &p->metrics;
}

static void text_of(const struct pb_rset *s, const char *k, char *buf, size_t len)
{
	const char *t = pb_rset_get_text(s, k);
	pb_format(buf, len, "%s", t && strcmp(t, "-") ? t : "");
}

/* A number, or the mean (and its interval) of a summary; "" when absent. */
static void figure(const struct pb_rset *s, const char *k, const char *fmt, char *buf,
		   size_t len)
{
	const struct pb_rvalue *v = pb_rset_get(s, k);
	*buf = '\0';
	if (!v)
		return;
	if (v->kind == PB_RV_SUMMARY) {
		pb_format_value_ci(buf, len, fmt, v->as.sum.mean,
				   v->as.sum.n > 1 ? v->as.sum.ci95 : NAN);
	} else if (v->kind == PB_RV_SET) {
		bool ok;
		double x = pb_rset_get_number(v->as.set, "median", &ok);
		if (ok)
			pb_format_number(buf, len, fmt, x);
	} else if (pb_rvalue_is_number(v)) {
		pb_format_number(buf, len, fmt, pb_rvalue_number(v));
	}
}

/* value ± its 95 % half-width, both real fields */
static void with_ci(const struct pb_rset *s, const char *k, const char *ci, char *buf, size_t len)
{
	bool ok, ok_ci;
	double v = pb_rset_get_number(s, k, &ok), c = pb_rset_get_number(s, ci, &ok_ci);
	*buf = '\0';
	if (!ok)
		return;
	pb_format_value_ci(buf, len, "%.4g", v, ok_ci ? c : NAN);
}

/* The document the table is drawn from: a point whose runs do not say what its period counts
 * (overhead, buffer and cost record no basis) learns it from another point of its facility. */
static const struct pb_results *table_doc;

/* A figure with the interval its record gives: "v ±h" when the interval is centred on it,
 * "v (lo–hi)" when not (a Wilson interval; an overhead of a ratio of medians from before the
 * experiments gave one, whose propagated interval is centred on the ratio of means). */
static void interval_cell(const struct pb_figure_interval *f, const char *fmt, char *b, size_t n)
{
	double half = (f->hi - f->lo) / 2;
	if (!f->has_interval ||
	    fabs((f->lo + f->hi) / 2 - f->value) <= 1e-9 * fmax(1, fabs(f->value))) {
		pb_format_value_ci(b, n, fmt, f->value, f->has_interval ? half : NAN);
		return;
	}
	char v[PB_NUM_LEN], lo[PB_NUM_LEN], hi[PB_NUM_LEN];
	pb_format(b, n, "%s (%s–%s)", pb_num(v, fmt, f->value), pb_num(lo, "%.2g", f->lo),
		  pb_num(hi, "%.2g", f->hi));
}

static void overhead(const struct pb_result_point *p, enum pb_figure_overhead which, char *b,
		     size_t n)
{
	struct pb_figure_interval f;
	*b = '\0';
	if (pb_figure_overhead_interval(table_doc, p, which, &f))
		interval_cell(&f, "%.4g", b, n);
}

static void c_time_overhead(const struct pb_result_point *p, char *b, size_t n)
{
	overhead(p, PB_OVERHEAD_TIME, b, n);
}

static void c_cpu_overhead(const struct pb_result_point *p, char *b, size_t n)
{
	overhead(p, PB_OVERHEAD_CPU, b, n);
}

static void c_memory_overhead(const struct pb_result_point *p, char *b, size_t n)
{
	overhead(p, PB_OVERHEAD_MEMORY, b, n);
}

/* A bias deviation with the interval its figure record gives (io/figures.h) */
static void deviation(const struct pb_result_point *p, const char *field, char *b, size_t n)
{
	struct pb_figure_interval f;
	*b = '\0';
	if (pb_figure_bias_interval(p, field, &f))
		interval_cell(&f, "%.2f", b, n);
}

static void c_deviation(const struct pb_result_point *p, char *b, size_t n)
{
	deviation(p, "max_deviation", b, n);
}

static void c_deviation_at_ip(const struct pb_result_point *p, char *b, size_t n)
{
	deviation(p, "max_deviation_at_ip", b, n);
}

static void c_deviation_before_ip(const struct pb_result_point *p, char *b, size_t n)
{
	deviation(p, "max_deviation_before_ip", b, n);
}

/* lost / (kept + lost) with its Wilson interval, which is not symmetric */
static void c_loss(const struct pb_result_point *p, char *b, size_t n)
{
	struct pb_figure_interval f;
	*b = '\0';
	if (pb_figure_loss_interval(p, &f))
		interval_cell(&f, "%.3g", b, n);
}

static const char *basis_of(const struct pb_result_point *p)
{
	const struct pb_rset *ev = pb_rlist_set_at(
		pb_rset_get_list(pb_rlist_set_at(&p->runs, 0), "events"), 0);
	return pb_rset_get_text(ev, "basis");
}

static const char *period_unit(const struct pb_result_point *p)
{
	/* the facility's traits say it (a results file of /2, or the registry's for /1) */
	struct pb_rset scratch = {0};
	const char *unit = pb_rset_get_text(pb_result_traits(p, &scratch), "period_unit");
	const char *traits_unit = !unit ? NULL : !strcmp(unit, "ns") ? " ns" : " events";
	pb_rset_clear(&scratch);
	if (traits_unit)
		return traits_unit;
	const char *basis = basis_of(p);
	for (size_t i = 0; !basis && table_doc && i < table_doc->npoints; i++)
		if (!strcmp(table_doc->points[i]->facility, p->facility))
			basis = basis_of(table_doc->points[i]);
	if (basis)
		return !strcmp(basis, "time") ? " ns" : " events";
	return "";
}

static void c_period(const struct pb_result_point *p, char *b, size_t n)
{
	bool ok;
	double v = pb_rset_get_number(par(p), "period", &ok);
	*b = '\0';
	if (!(ok && v > 0))
		return;
	const char *unit = period_unit(p);
	/* a time as a reader says it, 100 µs rather than 100000 ns */
	if (!strcmp(unit, " ns"))
		pb_format_duration_ci(b, n, v, NAN);
	else
		pb_format(b, n, "%.0f%s", v, unit);
}

static void c_runs(const struct pb_result_point *p, char *b, size_t n)
{
	size_t runs = pb_rlist_size(&p->runs);
	if (runs)
		pb_format(b, n, "%zu", runs);
	else
		b[0] = '\0';
}

static void c_min_max(const struct pb_result_point *p, char *b, size_t n)
{
	const struct pb_rsummary *s = pb_rset_get_summary(met(p), "accuracy");
	*b = '\0';
	if (s && s->n > 1)
		pb_format(b, n, "%.3f–%.3f", s->min, s->max);
}

static void c_running(const struct pb_result_point *p, char *b, size_t n)
{
	const struct pb_rsummary *s = pb_rset_get_summary(met(p), "running_ratio");
	*b = '\0';
	if (s)
		pb_format(b, n, "%.3f%s", s->min, pb_rset_is_true(met(p), "multiplexed") ? " (multiplexed)" : "");
}

/* The figures the facility of event 0 counts on its own (named in its runs' "facility_figures"
 * list), each as its range over the runs with its unit, its name in words: "<name> 812–840
 * samples". */
static void c_own(const struct pb_result_point *p, char *b, size_t n)
{
	*b = '\0';
	const struct pb_rset *first = pb_rlist_set_at(
		pb_rset_get_list(pb_rlist_set_at(&p->runs, 0), "events"), 0);
	const struct pb_rlist *names = pb_rset_get_list(first, "facility_figures");
	for (size_t i = 0; i < pb_rlist_size(names); i++) {
		const struct pb_rvalue *name = pb_rlist_at(names, i);
		if (name->kind != PB_RV_TEXT)
			continue;
		double lo = INFINITY, hi = -INFINITY;
		enum pb_unit unit = PB_UNIT_NONE;
		for (size_t r = 0; r < pb_rlist_size(&p->runs); r++) {
			const struct pb_rset *ev = pb_rlist_set_at(
				pb_rset_get_list(pb_rlist_set_at(&p->runs, r), "events"), 0);
			const struct pb_rvalue *v = pb_rset_get(ev, name->as.text);
			if (!v || !pb_rvalue_is_number(v))
				continue;
			lo = fmin(lo, pb_rvalue_number(v));
			hi = fmax(hi, pb_rvalue_number(v));
			unit = v->unit;
		}
		if (lo > hi)
			continue;
		char words[96];
		pb_format(words, sizeof words, "%s", name->as.text);
		for (char *c = words; *c; c++)
			*c = *c == '_' ? ' ' : *c;
		pb_append(b, n, "%s%s %.0f", *b ? "; " : "", words, lo);
		if (hi > lo)
			pb_append(b, n, "–%.0f", hi);
		if (*pb_unit_name(unit))
			pb_append(b, n, " %s", pb_unit_name(unit));
	}
}

/* a baseline row's delivery is that there is no perf: a column of its own ("role") took the
 * width that the overhead table's loss columns then lacked */
static void c_delivery_or_baseline(const struct pb_result_point *p, char *b, size_t n)
{
	const char *role = pb_rset_get_text(par(p), "role");
	if (role && !strcmp(role, "baseline"))
		pb_format(b, n, "no perf");
	else
		text_of(par(p), "delivery", b, n);
}

/* where a trapping facility was put (cost), with the kind of instruction there */
static void c_site(const struct pb_result_point *p, char *b, size_t n)
{
	text_of(par(p), "site", b, n);
	const char *class = pb_rset_get_text(par(p), "site_class");
	if (*b && class)
		pb_append(b, n, " (%s)", class);
}

/* A run's time in the unit of its size: a trapping facility's 30 µs baseline and its 30 ms sampled
 * run share the column. */
static void c_wall_time(const struct pb_result_point *p, char *b, size_t n)
{
	const struct pb_rsummary *s = pb_rset_get_summary(met(p), "wall_ns");
	bool ok;
	double median = pb_rset_get_number(met(p), "wall_ns_median", &ok);
	*b = '\0';
	if (s) {
		pb_format_duration_ci(b, n, s->mean, s->n > 1 ? s->ci95 : NAN);
	} else if (ok) {
		pb_format_duration_ci(b, n, median, NAN);
	} else if (pb_rlist_size(&p->runs)) {
		double v[256];
		size_t k = 0;
		for (size_t r = 0; r < pb_rlist_size(&p->runs) && k < 256; r++)
			v[k++] = pb_rset_get_number(pb_rlist_set_at(&p->runs, r), "wall_ns", &ok);
		if (ok)
			pb_format_duration_ci(b, n, pb_median(v, k), NAN);
	}
}

static void c_cpu_time(const struct pb_result_point *p, char *b, size_t n)
{
	const struct pb_rsummary *s = pb_rset_get_summary(met(p), "cpu_ns");
	bool ok;
	double median = pb_rset_get_number(met(p), "cpu_ns_median", &ok);
	*b = '\0';
	if (s)
		pb_format_duration_ci(b, n, s->mean, s->n > 1 ? s->ci95 : NAN);
	else if (ok)
		pb_format_duration_ci(b, n, median, NAN);
}

static void c_samples(const struct pb_result_point *p, char *b, size_t n)
{
	figure(met(p), pb_rset_get(met(p), "samples_total") ? "samples_total" : "samples", "%.0f",
	       b, n);
}

static void c_wakeup(const struct pb_result_point *p, char *b, size_t n)
{
	bool ok;
	double poll = pb_rset_get_number(par(p), "poll_us", &ok);
	if (ok)
		pb_format(b, n, "drained every %.0f µs", poll);
	else
		text_of(par(p), "wakeup", b, n);
}

static void c_ns_sample(const struct pb_result_point *p, char *b, size_t n)
{
	if (!strcmp(pb_rset_get_text(par(p), "kind") ? pb_rset_get_text(par(p), "kind") : "", "fit"))
		with_ci(met(p), "ns_per_sample", "ci95_ns", b, n);
	else
		*b = '\0';
}

static void c_resolved(const struct pb_result_point *p, char *b, size_t n)
{
	*b = '\0';
	if (!pb_rset_get(met(p), "resolved"))
		return;
	/* the reason is the notes' column: two columns of prose made the table wider than the
	 * page */
	pb_format(b, n, pb_rset_is_true(met(p), "resolved") ? "yes" : "no");
}

static void c_excess(const struct pb_result_point *p, char *b, size_t n)
{
	with_ci(met(p), "excess_over_floor_ns", "excess_ci95_ns", b, n);
}

static void c_ns_event(const struct pb_result_point *p, char *b, size_t n)
{
	with_ci(met(p), "ns_per_event", "ns_per_event_ci95", b, n);
}

static void c_prediction(const struct pb_result_point *p, char *b, size_t n)
{
	pb_report_prediction_text(p, !strcmp(period_unit(p), " ns"), b, n);
}


/* Flags and notes that belong to no column: never hidden. */
static void c_notes(const struct pb_result_point *p, char *b, size_t n)
{
	*b = '\0';
	const char *error = pb_rset_get_text(par(p), "error");
	if (error)
		pb_append(b, n, "ERROR: %s; ", error);
	int64_t empty = pb_rset_get_int(met(p), "no_samples_runs");
	if (empty)
		pb_append(b, n, "NO SAMPLES in %lld of %zu runs; ", (long long)empty,
			  pb_rlist_size(&p->runs));
	if (pb_rset_get_int(met(p), "precise_lowered_runs"))
		pb_append(b, n, "precise level LOWERED in %lld runs; ",
			  (long long)pb_rset_get_int(met(p), "precise_lowered_runs"));
	if (pb_rset_get_int(met(p), "dropped_total"))
		pb_append(b, n, "%lld unparseable records DROPPED; ",
			  (long long)pb_rset_get_int(met(p), "dropped_total"));
	const char *rate = pb_rset_get_text(par(p), "rate_note");
	const struct pb_rlist *by_period = pb_rset_get_list(met(p), "ns_per_sample_by_period");
	if (rate)
		pb_append(b, n, "%s; ", rate);
	else if (by_period && !pb_rset_get(met(p), "ns_per_event"))
		/* (a trapping facility's y / x holds its traps: files before 2026-11-26's fifth
		 * session wrote its rows too) */
		pb_report_by_period_text(p, by_period, !strcmp(period_unit(p), " ns"), b, n);
	const char *left_out = pb_rset_get_text(par(p), "left_out_note");
	if (left_out)
		pb_append(b, n, "%s; ", left_out);
	const char *moved = pb_rset_get_text(par(p), "cost_moved_note");
	if (moved)
		pb_append(b, n, "%s; ", moved);
	const char *note = pb_rset_get_text(par(p), "note");
	/* a cost fit's unresolved note restates the rule before its reason: the reason alone */
	const char *why = note && pb_rset_get(met(p), "resolved") &&
				  !pb_rset_is_true(met(p), "resolved")
			  ? strstr(note, "): ")
			  : NULL;
	if (why)
		pb_append(b, n, "not resolved: %s; ", why + 3);
	else if (note)
		pb_append(b, n, "%s; ", note);
	const struct pb_rset *summary = pb_rset_get_set(par(p), "summary");
	for (size_t i = 0; summary && i < summary->n; i++) {
		const struct pb_rvalue *x = &summary->f[i].v;
		if (x->kind == PB_RV_TEXT && strcmp(summary->f[i].name, "note"))
			pb_append(b, n, "%s; ", x->as.text);
	}
	size_t end = strlen(b);
	while (end && (b[end - 1] == ' ' || b[end - 1] == ';'))
		b[--end] = '\0';
}

#define COL(h, f) {h, f, false, NULL, NULL, true, false}
#define TXT(h, f) {h, f, false, NULL, NULL, false, false}
#define PROSE(h, f) {h, f, false, NULL, NULL, false, true}
#define PARAM_FIG(h, k, fmt) {h, NULL, true, k, fmt, true, false}
#define METRIC_FIG(h, k, fmt) {h, NULL, false, k, fmt, true, false}
#define PARAM_TEXT(h, k) {h, NULL, true, k, NULL, false, false}
#define METRIC_TEXT(h, k) {h, NULL, false, k, NULL, false, false}

/* columns more than one experiment shows */
#define PERIOD COL("period", c_period)
#define THREADS PARAM_FIG("threads", "threads", "%.0f")
#define RUNS COL("runs", c_runs)
#define ACCURACY METRIC_FIG("accuracy (%) ± 95 % CI", "accuracy", "%.3f")
#define LOST METRIC_FIG("lost", "lost_total", "%.0f")
#define THROTTLES METRIC_FIG("throttles", "throttles_total", "%.0f")
#define SIGNALS METRIC_FIG("signals", "signals", "%.0f")
#define DELIVERY PARAM_TEXT("delivery", "delivery")
#define ROLE_OR_DELIVERY TXT("delivery", c_delivery_or_baseline)
#define TIME_OVERHEAD COL("time overhead (%)", c_time_overhead)
#define MAX_DEVIATION COL("largest deviation (pp)", c_deviation)
#define NOTES PROSE("notes", c_notes)
#define OWN TXT("the facility's own figures", c_own)

static const struct column accuracy_cols[] = {
	PERIOD, THREADS, RUNS, ACCURACY, COL("min–max (%)", c_min_max), LOST, THROTTLES,
	COL("running / enabled (min)", c_running), OWN, NOTES, {0}};

static const struct column interval_cols[] = {
	PERIOD, PARAM_TEXT("period kind", "period_kind"), THREADS, RUNS, ACCURACY,
	COL("min–max (%)", c_min_max), LOST, THROTTLES, OWN, NOTES, {0}};

static const struct column bias_cols[] = {
	PERIOD, PARAM_TEXT("variant", "variant"), RUNS, METRIC_TEXT("attribution", "attribution"),
	MAX_DEVIATION, COL("at the IP (pp)", c_deviation_at_ip),
	COL("IP+1-corrected (pp)", c_deviation_before_ip), LOST, NOTES, {0}};

static const struct column multi_cols[] = {
	PARAM_FIG("events opened", "events_opened_together", "%.0f"),
	PARAM_FIG("scheduled", "events_scheduled", "%.0f"), PERIOD, RUNS, ACCURACY,
	COL("running / enabled (min)", c_running), LOST, NOTES, {0}};

static const struct column mode_cols[] = {
	PARAM_TEXT("levels sampled", "levels"), PERIOD, RUNS, COL("samples", c_samples),
	METRIC_FIG("wrong level, by record flag", "wrong_level_by_flag", "%.0f"),
	METRIC_FIG("wrong level, by IP", "wrong_level_by_ip", "%.0f"),
	METRIC_FIG("samples kept / all events (%)", "accuracy", "%.1f"), LOST, NOTES, {0}};

static const struct column overhead_cols[] = {
	ROLE_OR_DELIVERY, PERIOD, THREADS, RUNS, COL("wall time", c_wall_time),
	COL("CPU time", c_cpu_time), METRIC_FIG("peak RSS (KiB)", "maxrss_kib", "%.0f"),
	TIME_OVERHEAD, COL("CPU overhead (%)", c_cpu_overhead),
	COL("memory overhead (%)", c_memory_overhead), COL("samples", c_samples),
	SIGNALS, LOST, THROTTLES, NOTES, {0}};

static const struct column cost_cols[] = {
	TXT("site", c_site), DELIVERY, PERIOD, THREADS, COL("ns/sample ± 95 % CI", c_ns_sample),
	METRIC_FIG("R²", "r2", "%.3f"),
	METRIC_FIG("Theil–Sen (ns/sample)", "theil_sen_ns_per_sample", "%.4g"),
	TXT("resolved", c_resolved), COL("excess over the floor (ns)", c_excess),
	COL("ns/event ± 95 % CI", c_ns_event), TXT("predicted vs measured", c_prediction),
	COL("CPU time", c_cpu_time), COL("wall time", c_wall_time), LOST, NOTES, {0}};

static const struct column buffer_cols[] = {
	ROLE_OR_DELIVERY, PARAM_FIG("ring pages", "ring_pages", "%.0f"), TXT("wakeup", c_wakeup),
	PERIOD, COL("wall time", c_wall_time), TIME_OVERHEAD, COL("samples", c_samples), LOST,
	COL("loss (%), 95 % interval", c_loss), SIGNALS, NOTES, {0}};

static const struct column shadow_cols[] = {
	PARAM_TEXT("variant", "variant"), PERIOD, RUNS, METRIC_TEXT("attribution", "attribution"),
	MAX_DEVIATION, METRIC_FIG("tolerance (pp)", "tolerance_pp", "%.2f"),
	METRIC_TEXT("verdict", "verdict"), LOST, NOTES, {0}};

static const struct {
	const char *experiment;
	const struct column *columns;
} tables[] = {
	{"accuracy", accuracy_cols}, {"interval", interval_cols}, {"bias", bias_cols},
	{"multi", multi_cols},       {"mode", mode_cols},         {"overhead", overhead_cols},
	{"cost", cost_cols},         {"buffer", buffer_cols},     {"shadow", shadow_cols},
};

static const struct column *columns_of(const char *experiment)
{
	for (size_t i = 0; i < PB_ARRAY_SIZE(tables); i++)
		if (!strcmp(tables[i].experiment, experiment))
			return tables[i].columns;
	return accuracy_cols;
}

/* A cost sweep row is one pair of runs behind a fit: the fit's row and the plots show them.
 * (The kind's name is a constant apart: tests/source_facility_names.sh reads a comparison
 * with a word starting "sw" as a branch on the sw facility.) */
static const char sweep_kind[] = "sweep";

static bool is_sweep(const struct pb_result_point *p)
{
	const char *kind = pb_rset_get_text(par(p), "kind");
	return kind && !strcmp(kind, sweep_kind);
}

static bool spans(const struct pb_result_point *p)
{
	return pb_rset_get(par(p), "not_applicable") ||
	       (pb_rset_get(par(p), "error") && !pb_rlist_size(&p->runs));
}

/* a cell's text: a cost fit's notes join its rate note, up to four pairs left out and its own
 * note, which passed 1 KiB (a fit in delivery mode drain, 2026-11-27) */
#define CELL 4096

static void cell_of(const struct column *c, const struct pb_result_point *p, char *b, size_t n)
{
	if (c->cell)
		c->cell(p, b, n);
	else if (c->fmt)
		figure(c->in_params ? par(p) : met(p), c->field, c->fmt, b, n);
	else
		text_of(c->in_params ? par(p) : met(p), c->field, b, n);
}

/* The point's kind (cost: fit, prediction, ...), "" for none: each kind gets a table of its
 * own, as their figures differ. */
static const char *kind_of(const struct pb_result_point *p)
{
	const char *kind = pb_rset_get_text(par(p), "kind");
	return kind ? kind : "";
}

static bool in_table(const struct pb_result_point *p, const char *experiment, const char *kind)
{
	return !strcmp(p->experiment, experiment) && !is_sweep(p) && !strcmp(kind_of(p), kind);
}

static void table_of_kind(FILE *f, const struct pb_results *doc, const char *experiment,
			  const char *kind)
{
	const struct column *cols = columns_of(experiment);
	size_t ncols = 0;
	while (cols[ncols].head)
		ncols++;
	bool used[32] = {0}, workload = false;
	char buf[CELL];
	for (size_t i = 0; i < doc->npoints; i++) {
		const struct pb_result_point *p = doc->points[i];
		if (!in_table(p, experiment, kind))
			continue;
		workload |= *p->workload != '\0';
		for (size_t c = 0; c < ncols && !spans(p); c++) {
			cell_of(&cols[c], p, buf, sizeof buf);
			used[c] |= *buf != '\0';
		}
	}
	/* prose (the notes) is a row of its own under its row's figures, across them: as a
	 * column it made five experiments' tables wider than the page */
	size_t shown = 0;
	for (size_t c = 0; c < ncols; c++)
		shown += used[c] && !cols[c].prose;
	if (*kind) {
		fputs("<h3>", f);
		pb_html_esc(f, kind);
		fputs("</h3>\n", f);
	}
	/* a facility and workload head the rows that share them, across the table: as two
	 * columns they repeated on every row and took a quarter of the page's width */
	fputs("<div class=\"wide figures\"><table>\n", f);
	if (shown) {
		fputs("<tr>", f);
		for (size_t c = 0; c < ncols; c++)
			if (used[c] && !cols[c].prose)
				fprintf(f, "<th>%s</th>", cols[c].head);
		fputs("</tr>\n", f);
	} else {
		/* every row spans (not applicable, failed): its reason is the one cell */
		shown = 1;
	}
	const struct pb_result_point *group = NULL;
	for (size_t i = 0; i < doc->npoints; i++) {
		const struct pb_result_point *p = doc->points[i];
		if (!in_table(p, experiment, kind))
			continue;
		if (!group || strcmp(group->facility, p->facility) ||
		    strcmp(group->workload, p->workload)) {
			group = p;
			fprintf(f, "<tr class=\"group\"><th colspan=\"%zu\">", shown);
			pb_html_esc(f, p->facility);
			if (workload && *p->workload) {
				fputs(" &middot; ", f);
				pb_html_esc_breakable(f, p->workload);
			}
			fputs("</th></tr>\n", f);
		}
		const struct pb_rvalue *na = pb_rset_get(par(p), "not_applicable");
		const struct pb_rvalue *error = pb_rset_get(par(p), "error");
		fputs(na || error ? "<tr class=\"bad\">" : "<tr>", f);
		if (spans(p)) {
			fprintf(f, "<td colspan=\"%zu\"><div class=\"p\">%s: ", shown,
				na ? "not applicable" : "ERROR");
			const struct pb_rvalue *why = na ? na : error;
			pb_html_esc(f, why->kind == PB_RV_TEXT ? why->as.text : "");
			fputs("</div></td></tr>\n", f);
			continue;
		}
		for (size_t c = 0; c < ncols; c++) {
			if (!used[c] || cols[c].prose)
				continue;
			cell_of(&cols[c], p, buf, sizeof buf);
			if (!*buf) {
				fputs(cols[c].number ? "<td class=\"n\">&ndash;</td>" : "<td>&ndash;</td>", f);
			} else if (cols[c].number) {
				fputs("<td class=\"n\">", f);
				pb_html_esc_figure(f, buf);
				fputs("</td>", f);
			} else {
				/* a sentence in a cell wraps at a reading width, so that it does not
				 * widen the table to the window's */
				fputs("<td><div class=\"t\">", f);
				pb_html_esc(f, buf);
				fputs("</div></td>", f);
			}
		}
		fputs("</tr>\n", f);
		for (size_t c = 0; c < ncols; c++) {
			if (!used[c] || !cols[c].prose)
				continue;
			cell_of(&cols[c], p, buf, sizeof buf);
			if (!*buf)
				continue;
			/* a note wraps at the page's reading width (class p): it never widens a
			 * table past it */
			fprintf(f, "<tr class=\"prose\"><td colspan=\"%zu\"><div class=\"p\">%s: ",
				shown, cols[c].head);
			pb_html_esc(f, buf);
			fputs("</div></td></tr>\n", f);
		}
	}
	fputs("</table></div>\n", f);
}

void pb_report_experiment_table(FILE *f, const struct pb_results *doc, const char *experiment)
{
	table_doc = doc;
	const char *kinds[16];
	size_t nkinds = 0, sweeps = 0, pairs = 0, unweighted = 0;
	bool redesigned = false;
	/* how the fits weigh their pairs: the first weighted fit's words, and how many were not */
	const char *weights = NULL;
	for (size_t i = 0; i < doc->npoints; i++) {
		const struct pb_result_point *p = doc->points[i];
		if (strcmp(p->experiment, experiment))
			continue;
		if (is_sweep(p)) {
			sweeps++;
			pairs += pb_rlist_size(&p->runs);
			continue;
		}
		redesigned |= pb_rset_is_true(met(p), "redesigned");
		const char *w = pb_rset_get_text(par(p), "fit_weights");
		if (w && !strncmp(w, "none", 4))
			unweighted++;
		else if (w && !weights)
			weights = w;
		bool seen = false;
		for (size_t k = 0; k < nkinds && !seen; k++)
			seen = !strcmp(kinds[k], kind_of(p));
		if (!seen && nkinds < PB_ARRAY_SIZE(kinds))
			kinds[nkinds++] = kind_of(p);
	}
	for (size_t k = 0; k < nkinds; k++)
		table_of_kind(f, doc, experiment, kinds[k]);
	if (sweeps)
		fprintf(f, "<p>The fits' data: %zu sweep point%s, %zu pair%s (a sampled run and its "
			   "unsampled partner each)%s, in results.json and the plots below.</p>\n",
			sweeps, sweeps == 1 ? "" : "s", pairs, pairs == 1 ? "" : "s",
			redesigned ? " (a fit with a second design fits its pairs alone: the runs "
				     "numbered below its fitted_from_run sized it)"
				   : "");
	if (!weights && !unweighted)
		return;
	fputs("<p>", f);
	if (weights) {
		fputs("Each fit is least squares weighted by its pairs' noise: ", f);
		pb_html_esc(f, weights);
		fputs(unweighted ? "; " : "", f);
	}
	if (unweighted)
		fprintf(f, "%zu fit%s weighed every pair alike (fit_weights says why)", unweighted,
			unweighted == 1 ? "" : "s");
	fputs(".</p>\n", f);
}
