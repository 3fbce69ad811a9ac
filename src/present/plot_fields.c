/* What the plot choosers read from a point, and how they name it: a point's figures with their
 * spread over runs, and the axis labels of metrics and parameters with their units. */
#include "present/plot_fields.h"

#include "io/result_traits.h"
#include "io/results.h"
#include "util/kit.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

/* A named text of a set, "" when it has none. */
const char *pb_plot_text(const struct pb_rset *s, const char *k)
{
	return text_or_empty(pb_rset_get_text(s, k));
}

/* A field of a point by its name in results.json: the point's identity or a parameter. */
const struct pb_rvalue *pb_plot_field_of(point_t p, const char *k, struct pb_rvalue *scratch)
{
	const char *identity = !strcmp(k, "experiment") ? p->experiment
			       : !strcmp(k, "facility") ? p->facility
			       : !strcmp(k, "workload") ? p->workload : NULL;
	if (!identity)
		return pb_rset_get(&p->params, k);
	*scratch = (struct pb_rvalue){.kind = PB_RV_TEXT, .as.text = (char *)identity};
	return scratch;
}

/* A number of a summary, or of a table of one written without a confidence interval. */
bool pb_plot_summary_number(const struct pb_rvalue *v, const char *k, double *out)
{
	if (v && v->kind == PB_RV_SUMMARY) {
		const struct pb_rsummary *s = &v->as.sum;
		*out = !strcmp(k, "mean") ? s->mean : !strcmp(k, "min") ? s->min
		       : !strcmp(k, "max") ? s->max : !strcmp(k, "median") ? s->median
		       : !strcmp(k, "stdev") ? s->stdev : !strcmp(k, "ci95") ? s->ci95 : (double)s->n;
		return true;
	}
	bool ok = false;
	*out = v && v->kind == PB_RV_SET ? pb_rset_get_number(v->as.set, k, &ok) : 0;
	return ok;
}

bool pb_plot_is_table(const struct pb_rvalue *v)
{
	return v && (v->kind == PB_RV_SUMMARY || v->kind == PB_RV_SET);
}

size_t pb_plot_nruns(point_t p)
{
	return pb_rlist_size(&p->runs);
}

const struct pb_rset *pb_plot_run_at(point_t p, size_t r)
{
	return pb_rlist_set_at(&p->runs, r);
}

bool pb_plot_is_interval(const char *name)
{
	return strstr(name, "ci95") != NULL;
}

/* A half-width at key: a number, finite and not negative. */
static bool half_width_at(const struct pb_rset *metrics, const char *key, double *ci)
{
	const struct pb_rvalue *v = pb_rset_get(metrics, key);
	if (!pb_rvalue_is_number(v) || !isfinite(pb_rvalue_number(v)) || pb_rvalue_number(v) < 0)
		return false;
	*ci = pb_rvalue_number(v);
	return true;
}

bool pb_plot_sibling_ci(const struct pb_rset *metrics, const char *name, double *ci)
{
	char key[96];
	size_t len = strlen(name);
	pb_format(key, sizeof key, "%s_ci95", name);
	if (half_width_at(metrics, key, ci))
		return true;
	/* a percentage's in points: measured_slowdown_pct, measured_slowdown_ci95_pp */
	if (len > 4 && !strcmp(name + len - 4, "_pct")) {
		pb_format(key, sizeof key, "%.*s_ci95_pp", (int)(len - 4), name);
		if (half_width_at(metrics, key, ci))
			return true;
	}
	/* a fit's slope */
	return !strcmp(name, "ns_per_sample") && half_width_at(metrics, "ci95_ns", ci);
}

bool pb_plot_metric_value(point_t p, const struct pb_rset *metrics, const char *name,
			 struct pb_spread *out)
{
	const struct pb_rvalue *m = pb_rset_get(metrics, name);
	memset(out, 0, sizeof *out);
	double mean;
	if (pb_plot_is_table(m) && pb_plot_summary_number(m, "mean", &mean)) {
		out->mean = mean;
		if (!pb_plot_summary_number(m, "min", &out->min))
			out->min = out->mean;
		if (!pb_plot_summary_number(m, "max", &out->max))
			out->max = out->mean;
		const struct pb_rvalue *n =
			m->kind == PB_RV_SET ? pb_rset_get(m->as.set, "n") : NULL;
		out->n = m->kind == PB_RV_SUMMARY ? m->as.sum.n
			 : n && n->kind == PB_RV_INT ? (unsigned)n->as.i : (unsigned)pb_plot_nruns(p);
		return true;
	}
	if (!pb_rvalue_is_number(m))
		return false;
	double ci;
	if (pb_plot_sibling_ci(metrics, name, &ci)) {
		/* a figure with its interval beside it: the interval is what it is known to */
		out->mean = pb_rvalue_number(m);
		out->min = out->mean - ci;
		out->max = out->mean + ci;
		out->n = 2;
		out->ci = true;
		return true;
	}
	for (size_t r = 0; r < pb_plot_nruns(p); r++) {
		const struct pb_rvalue *v = pb_rset_get(pb_plot_run_at(p, r), name);
		if (pb_rvalue_is_number(v))
			pb_spread_add(out, pb_rvalue_number(v));
	}
	if (out->n < 2) {
		out->mean = out->min = out->max = pb_rvalue_number(m);
		out->n = 1;
	} else {
		/* the point's own figure is what the tables show; the runs give the range */
		out->mean = pb_rvalue_number(m);
	}
	return true;
}

/* ---------- labels and units ---------- */

void pb_plot_trim(char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

void pb_plot_humanize(const char *name, char *buf, size_t len)
{
	pb_format(buf, len, "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '_' || *p == '.')
			*p = ' ';
}

/* How a unit reads on an axis. */
static const char *unit_words(enum pb_unit unit)
{
	return unit == PB_UNIT_NONE ? NULL : pb_unit_name(unit);
}

/* The length of the end of name that restates its unit ("_ns" of "wall_ns" in ns, "_pct" of
 * "loss_pct" in %): the label says the unit once, in brackets. 0 when there is none. */
static size_t unit_suffix(const char *name, enum pb_unit unit)
{
	static const struct {
		enum pb_unit unit;
		const char *spelling;
	} spellings[] = {
		{PB_UNIT_NS, "ns"},      {PB_UNIT_US, "us"},       {PB_UNIT_S, "s"},
		{PB_UNIT_S, "seconds"},  {PB_UNIT_PERCENT, "pct"}, {PB_UNIT_PERCENT, "percent"},
		{PB_UNIT_PERCENT_POINTS, "pp"}, {PB_UNIT_KIB, "kib"}, {PB_UNIT_BYTES, "bytes"},
		{PB_UNIT_PAGES, "pages"}, {PB_UNIT_RATIO, "ratio"}, {PB_UNIT_INSTRUCTIONS, "nops"},
		{PB_UNIT_TSC, "cycles"},
	};
	size_t n = strlen(name);
	for (size_t i = 0; i < PB_ARRAY_SIZE(spellings); i++) {
		size_t k = strlen(spellings[i].spelling);
		if (spellings[i].unit == unit && n > k + 1 && name[n - k - 1] == '_' &&
		    !strcmp(name + n - k, spellings[i].spelling))
			return k + 1;
	}
	return 0;
}

/* The unit of the first value of that name among the points' metrics (or of event e's
 * metrics, e >= 0). */
enum pb_unit pb_plot_metric_unit(pb_plot_points pts, size_t n, const char *name, int e)
{
	for (size_t i = 0; i < n; i++) {
		const struct pb_rset *m = &pts[i]->metrics;
		if (e >= 0) {
			char key[32];
			snprintf(key, sizeof key, "event%d", e);
			m = pb_rset_get_set(m, key);
		}
		const struct pb_rvalue *v = pb_rset_get(m, name);
		if (v)
			return v->unit;
	}
	return PB_UNIT_NONE;
}

/* The unit of the first parameter of that name among the points. */
enum pb_unit pb_plot_param_unit(pb_plot_points pts, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		const struct pb_rvalue *v = pb_rset_get(&pts[i]->params, name);
		if (v)
			return v->unit;
	}
	return PB_UNIT_NONE;
}

/* Names whose axis label is written out rather than made from the name and its unit. */
struct known_label {
	const char *name, *label;
};

static const char *known_label(const struct known_label *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, table[i].name))
			return table[i].label;
	return NULL;
}

void pb_plot_metric_label(const char *name, enum pb_unit unit, char *buf, size_t len)
{
	static const struct known_label known[] = {
		{"accuracy", "accuracy (%): 100 - |observed - expected| / expected x 100"},
		{"running_ratio", "time running / time enabled (ratio; 1 = never multiplexed)"},
		{"max_deviation", "largest deviation from the ideal share (percentage points)"},
		{"max_deviation_at_ip", "largest deviation from the ideal share, at the IP (percentage points)"},
		{"max_deviation_before_ip",
		 "largest deviation from the ideal share, IP+1-corrected (percentage points)"},
		{"lost_total", "samples lost, all runs (count)"},
		{"throttles_total", "throttle events, all runs (count)"},
		{"observed", "samples observed (count)"},
		{"expected", "samples expected (count)"},
		{"samples_total", "samples (count)"},
		{"wall_ns", "wall time (ns)"},
		{"maxrss_kib", "peak resident memory (KiB)"},
	};
	const char *label = known_label(known, PB_ARRAY_SIZE(known), name);
	if (label) {
		pb_format(buf, len, "%s", label);
		return;
	}
	char words[128];
	pb_plot_humanize(name, words, sizeof words);
	/* "wall_ns" reads "wall (ns)", not "wall ns (ns)" */
	size_t restated = unit_suffix(name, unit);
	if (restated && strlen(words) == strlen(name))
		words[strlen(name) - restated] = '\0';
	pb_format(buf, len, "%s (%s)", words, unit_words(unit) ? unit_words(unit) : "value");
}

void pb_plot_field_label(const char *field, enum pb_unit unit, point_t of, char *buf,
			size_t len)
{
	static const struct known_label known[] = {
		{"threads", "threads (count)"},
		{"events_opened_together", "events opened together (count)"},
		{"workload", "workload (name:parameters)"},
		{"variant", "bias-loop variant (category)"},
		{"levels", "privilege levels sampled (category)"},
		{"facility", "facility (spec)"},
		{"delivery", "sample delivery to user space (mode)"},
		{"ring_pages", "ring buffer size (pages)"},
		{"padding", "padding after each event (nop instructions)"},
		{"workload.gap", "padding after each event (nop instructions)"},
		{"kind", "event kind (category)"},
	};
	const char *label = known_label(known, PB_ARRAY_SIZE(known), field);
	if (!strcmp(field, "period")) {
		if (of && pb_result_time_based(of))
			pb_format(buf, len, "sampling period (ns of CPU time per sample)");
		else if (of)
			pb_format(buf, len, "sampling period (events per sample)");
		else
			pb_format(buf, len, "sampling period (events per sample; ns for timers)");
	} else if (label) {
		pb_format(buf, len, "%s", label);
	} else {
		bool of_workload = !strncmp(field, "workload.", 9);
		char words[96];
		pb_plot_humanize(of_workload ? field + 9 : field, words, sizeof words);
		pb_format(buf, len, "%s%s (%s)", of_workload ? "workload " : "", words,
			  unit_words(unit) ? unit_words(unit) : "value");
	}
}

/* ---------- plots ---------- */

bool pb_plot_plottable(point_t p)
{
	return !pb_rset_get(&p->params, "not_applicable") && p->metrics.n > 0 && pb_plot_nruns(p) > 0;
}

/* Whether pts[i] is the first plottable point of its facility: a figure drawn once per
 * facility is drawn at it. */
bool pb_plot_first_of_facility(pb_plot_points pts, size_t i)
{
	if (!pb_plot_plottable(pts[i]))
		return false;
	for (size_t j = 0; j < i; j++)
		if (pb_plot_plottable(pts[j]) && !strcmp(pts[j]->facility, pts[i]->facility))
			return false;
	return true;
}

const char *pb_plot_period_unit(point_t p, long long period)
{
	return pb_result_time_based(p) ? "ns" : period == 1 ? "event" : "events";
}
