/* Plots are chosen from the data: an experiment's points differ in some parameters (period,
 * workload, threads, events opened, ...); the one with the most distinct values within a
 * facility becomes the x axis, the others (unless they follow from x) split the points into
 * series, and every summary metric of the points is a y axis. So an experiment added later
 * gets plots without a change here. Experiments whose figures are not "a metric against a
 * parameter" (bias shares per load, multi per event, mode per privilege level) have their
 * own plots as well. */
#include "present/plot_figure.h"

#include "facilities/facility.h"
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

#define MAX_CANDIDATES 32

typedef const struct pb_result_point *point_t;

static const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

/* A named text of a set, "" when it has none. */
static const char *str(const struct pb_rset *s, const char *k)
{
	return text_or_empty(pb_rset_get_text(s, k));
}

/* A field of a point by its name in results.json: the point's identity or a parameter. */
static const struct pb_rvalue *field_of(point_t p, const char *k, struct pb_rvalue *scratch)
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
static bool summary_number(const struct pb_rvalue *v, const char *k, double *out)
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

static bool is_table(const struct pb_rvalue *v)
{
	return v && (v->kind == PB_RV_SUMMARY || v->kind == PB_RV_SET);
}

static size_t nruns(point_t p)
{
	return pb_rlist_size(&p->runs);
}

static const struct pb_rset *run_at(point_t p, size_t r)
{
	return pb_rlist_set_at(&p->runs, r);
}

static bool metric_value(point_t p, const struct pb_rset *metrics, const char *name,
			 struct pb_spread *out)
{
	const struct pb_rvalue *m = pb_rset_get(metrics, name);
	memset(out, 0, sizeof *out);
	double mean;
	if (is_table(m) && summary_number(m, "mean", &mean)) {
		out->mean = mean;
		if (!summary_number(m, "min", &out->min))
			out->min = out->mean;
		if (!summary_number(m, "max", &out->max))
			out->max = out->mean;
		const struct pb_rvalue *n =
			m->kind == PB_RV_SET ? pb_rset_get(m->as.set, "n") : NULL;
		out->n = m->kind == PB_RV_SUMMARY ? m->as.sum.n
			 : n && n->kind == PB_RV_INT ? (unsigned)n->as.i : (unsigned)nruns(p);
		return true;
	}
	if (!pb_rvalue_is_number(m))
		return false;
	for (size_t r = 0; r < nruns(p); r++) {
		const struct pb_rvalue *v = pb_rset_get(run_at(p, r), name);
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

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static void humanize(const char *name, char *buf, size_t len)
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
static enum pb_unit metric_unit(pb_plot_points pts, size_t n, const char *name, int e)
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
static enum pb_unit param_unit(pb_plot_points pts, size_t n, const char *name)
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

static void metric_label(const char *name, enum pb_unit unit, char *buf, size_t len)
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
	humanize(name, words, sizeof words);
	/* "wall_ns" reads "wall (ns)", not "wall ns (ns)" */
	size_t restated = unit_suffix(name, unit);
	if (restated && strlen(words) == strlen(name))
		words[strlen(name) - restated] = '\0';
	pb_format(buf, len, "%s (%s)", words, unit_words(unit) ? unit_words(unit) : "value");
}

static bool facility_is_timer(const char *facility)
{
	const struct pb_facility *f = pb_facility_of(facility);
	return f && f->time_based;
}

static void field_label(const char *field, enum pb_unit unit, const char *facility, char *buf,
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
		if (facility && facility_is_timer(facility))
			pb_format(buf, len, "sampling period (ns of CPU time per sample)");
		else if (facility)
			pb_format(buf, len, "sampling period (events per sample)");
		else
			pb_format(buf, len, "sampling period (events per sample; ns for timers)");
	} else if (label) {
		pb_format(buf, len, "%s", label);
	} else {
		bool of_workload = !strncmp(field, "workload.", 9);
		char words[96];
		humanize(of_workload ? field + 9 : field, words, sizeof words);
		pb_format(buf, len, "%s%s (%s)", of_workload ? "workload " : "", words,
			  unit_words(unit) ? unit_words(unit) : "value");
	}
}

/* ---------- the varying parameters of a set of points ---------- */

/* A point's parameter as text (and number when numeric): a scalar field of the point, or
 * "workload.K" for a parameter of its workload ("accuracy:ratio=20" → workload.ratio = 20).
 * Returns 0 absent, 1 text, 2 number. Real-valued fields are results, not parameters. */
static int param(point_t p, const char *field, char *text, size_t len, double *num)
{
	if (!strncmp(field, "workload.", 9)) {
		const char *w = p->workload, *colon = strchr(w, ':');
		size_t klen = strlen(field + 9);
		for (const char *s = colon; s && *s;) {
			s++;
			if (!strncmp(s, field + 9, klen) && s[klen] == '=') {
				const char *v = s + klen + 1;
				size_t vlen = strcspn(v, ",");
				pb_format(text, len, "%.*s", (int)vlen, v);
				char *end;
				*num = strtod(text, &end);
				return end != text && !*end ? 2 : 1;
			}
			s = strchr(s, ',');
		}
		return 0;
	}
	struct pb_rvalue scratch;
	const struct pb_rvalue *v = field_of(p, field, &scratch);
	if (v && v->kind == PB_RV_TEXT) {
		pb_format(text, len, "%s", v->as.text);
		return 1;
	}
	if (v && v->kind == PB_RV_INT) {
		*num = (double)v->as.i;
		pb_format(text, len, "%lld", (long long)v->as.i);
		return 2;
	}
	if (v && v->kind == PB_RV_BOOL) {
		pb_format(text, len, "%s", v->as.b ? "yes" : "no");
		return 1;
	}
	return 0;
}

static bool excluded_field(const char *k)
{
	static const char *const not_parameters[] = {
		"experiment", "facility", "iterations", "not_applicable", "error", "ip_kind",
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(not_parameters); i++)
		if (!strcmp(k, not_parameters[i]))
			return true;
	return false;
}

struct candidate {
	char name[64];
	bool numeric;           /* numeric on every point that has it */
	bool everywhere;        /* present on every point */
	size_t distinct;        /* most distinct values within one facility */
	bool varies;
};

static void add_candidate(struct candidate *c, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(c[i].name, name))
			return;
	if (*n < MAX_CANDIDATES)
		pb_format(c[(*n)++].name, sizeof c[0].name, "%s", name);
}

static size_t distinct_in_facility(pb_plot_points pts, size_t n, const char *facility,
				   const char *field)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(pts[i]->facility, facility))
			continue;
		char a[128] = "";
		double d;
		param(pts[i], field, a, sizeof a, &d);
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			if (strcmp(pts[j]->facility, facility))
				continue;
			char b[128] = "";
			param(pts[j], field, b, sizeof b, &d);
			seen = !strcmp(a, b);
		}
		count += !seen;
	}
	return count;
}

/* Whether field's value follows from x's (within a facility) and each of its values goes
 * with a single x: then a series per value would be one point each, and it adds nothing
 * (workload.ratio beside workload). A field that groups several x values (round vs prime
 * periods) still makes series. */
static bool x_values_of(pb_plot_points pts, size_t n, const char *field, const char *x, size_t i)
{
	/* true when point i's field value goes with another x value too */
	char fi[128] = "", xi[128] = "";
	double d;
	param(pts[i], field, fi, sizeof fi, &d);
	param(pts[i], x, xi, sizeof xi, &d);
	for (size_t j = 0; j < n; j++) {
		if (strcmp(pts[i]->facility, pts[j]->facility))
			continue;
		char fj[128] = "", xj[128] = "";
		param(pts[j], field, fj, sizeof fj, &d);
		param(pts[j], x, xj, sizeof xj, &d);
		if (!strcmp(fi, fj) && strcmp(xi, xj))
			return true;
	}
	return false;
}

static bool follows_from(pb_plot_points pts, size_t n, const char *field, const char *x)
{
	bool groups = true;
	for (size_t i = 0; i < n && groups; i++)
		groups = x_values_of(pts, n, field, x, i);
	if (groups)
		return false;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			if (strcmp(pts[i]->facility, pts[j]->facility))
				continue;
			char xi[128] = "", xj[128] = "", fi[128] = "", fj[128] = "";
			double d;
			param(pts[i], x, xi, sizeof xi, &d);
			param(pts[j], x, xj, sizeof xj, &d);
			if (strcmp(xi, xj))
				continue;
			param(pts[i], field, fi, sizeof fi, &d);
			param(pts[j], field, fj, sizeof fj, &d);
			if (strcmp(fi, fj))
				return false;
		}
	return true;
}

static void candidates_of(pb_plot_points pts, size_t n, struct candidate *c, size_t *nc)
{
	*nc = 0;
	for (size_t i = 0; i < n; i++) {
		/* the point's fields in the order results.json holds them: its workload, then its
		 * parameters */
		add_candidate(c, nc, "workload");
		const struct pb_rset *par = &pts[i]->params;
		for (size_t f = 0; f < par->n; f++) {
			enum pb_rkind kind = par->f[f].v.kind;
			if (excluded_field(par->f[f].name) ||
			    !(kind == PB_RV_TEXT || kind == PB_RV_INT || kind == PB_RV_BOOL))
				continue;
			add_candidate(c, nc, par->f[f].name);
		}
		const char *w = pts[i]->workload, *colon = strchr(w, ':');
		for (const char *s = colon; s && *s;) {
			s++;
			size_t klen = strcspn(s, "=,");
			if (klen && s[klen] == '=') {
				char name[64];
				pb_format(name, sizeof name, "workload.%.*s", (int)klen, s);
				add_candidate(c, nc, name);
			}
			s = strchr(s, ',');
		}
	}
	for (size_t k = 0; k < *nc; k++) {
		c[k].numeric = c[k].everywhere = true;
		c[k].distinct = 0;
		for (size_t i = 0; i < n; i++) {
			char t[128];
			double d;
			int kind = param(pts[i], c[k].name, t, sizeof t, &d);
			if (!kind)
				c[k].everywhere = false;
			if (kind != 2)
				c[k].numeric = false;
			size_t dist = distinct_in_facility(pts, n, pts[i]->facility, c[k].name);
			if (dist > c[k].distinct)
				c[k].distinct = dist;
		}
		c[k].varies = c[k].distinct > 1;
	}
}

/* Whether candidate k makes series of its own: it varies, is not x, does not follow from x,
 * and does not merely restate an earlier splitting candidate (workload.ratio beside the
 * workload it is part of). */
static bool splits_series(pb_plot_points pts, size_t n, const struct candidate *c, size_t nc,
			  size_t k, const struct candidate *x)
{
	(void)nc;
	if (!c[k].varies || (x && !strcmp(c[k].name, x->name)) ||
	    (x && follows_from(pts, n, c[k].name, x->name)))
		return false;
	for (size_t j = 0; j < k; j++)
		if (c[j].varies && (!x || strcmp(c[j].name, x->name)) &&
		    !(x && follows_from(pts, n, c[j].name, x->name)) &&
		    follows_from(pts, n, c[k].name, c[j].name))
			return false;
	return true;
}

/* The x axis: the parameter with the most distinct values within a facility; numbers before
 * text, a named parameter before the whole workload string. NULL when nothing varies. */
static const struct candidate *choose_x(const struct candidate *c, size_t nc)
{
	const struct candidate *best = NULL;
	for (size_t k = 0; k < nc; k++) {
		if (!c[k].varies || !c[k].everywhere)
			continue;
		if (!best || c[k].distinct > best->distinct) {
			best = &c[k];
			continue;
		}
		if (c[k].distinct < best->distinct)
			continue;
		if (c[k].numeric != best->numeric) {
			if (c[k].numeric)
				best = &c[k];
			continue;
		}
		if (!strcmp(best->name, "workload"))
			best = &c[k];
	}
	return best;
}

static void series_part(const char *field, const char *value, char *buf, size_t len)
{
	if (!strcmp(field, "threads"))
		pb_format(buf, len, "%s thread%s", value, strcmp(value, "1") ? "s" : "");
	else if (!strcmp(field, "period"))
		pb_format(buf, len, "period %s", value);
	else if (!strcmp(field, "period_kind") || !strcmp(field, "variant") ||
		 !strcmp(field, "levels") || !strcmp(field, "workload"))
		pb_format(buf, len, "%s%s", value, !strcmp(field, "period_kind") ? " period" : "");
	else
		pb_format(buf, len, "%s=%s", !strncmp(field, "workload.", 9) ? field + 9 : field,
			  value);
}

/* Workload labels without the parameters every category shares ("factor=4,seed=1"). */
static void shorten_workload_categories(struct pb_figure *f)
{
	char kept[PB_PLOT_MAX_CATS][96];
	for (size_t i = 0; i < f->ncats; i++) {
		char *colon = strchr(f->cats[i], ':');
		if (!colon) {
			pb_format(kept[i], sizeof kept[i], "%s", f->cats[i]);
			continue;
		}
		char out[96];
		pb_format(out, sizeof out, "%.*s", (int)(colon - f->cats[i]), f->cats[i]);
		char params[96];
		pb_format(params, sizeof params, "%s", colon + 1);
		bool first = true;
		for (char *save = NULL, *kv = strtok_r(params, ",", &save); kv;
		     kv = strtok_r(NULL, ",", &save)) {
			/* shared by every category of the same workload, and there are several */
			size_t name_len = (size_t)(colon - f->cats[i]), same = 0;
			bool everywhere = true;
			for (size_t j = 0; j < f->ncats && everywhere; j++) {
				const char *other = strchr(f->cats[j], ':');
				if (!other || (size_t)(other - f->cats[j]) != name_len ||
				    strncmp(f->cats[j], f->cats[i], name_len))
					continue;
				same++;
				char needle[100];
				pb_format(needle, sizeof needle, "%s", kv);
				bool found = false;
				for (const char *s = other; s && *s && !found;) {
					s++;
					size_t l = strcspn(s, ",");
					found = l == strlen(needle) && !strncmp(s, needle, l);
					s = strchr(s, ',');
				}
				everywhere = found;
			}
			if (everywhere && same > 1)
				continue;
			size_t used = strlen(out);
			pb_format(out + used, sizeof out - used, "%s%s", first ? ":" : ",", kv);
			first = false;
		}
		pb_format(kept[i], sizeof kept[i], "%s", out);
	}
	memcpy(f->cats, kept, sizeof kept[0] * f->ncats);
}

/* ---------- plots ---------- */

bool pb_plot_plottable(point_t p)
{
	return !pb_rset_get(&p->params, "not_applicable") && p->metrics.n > 0 && nruns(p) > 0;
}

/* Whether pts[i] is the first plottable point of its facility: a figure drawn once per
 * facility is drawn at it. */
static bool first_of_facility(pb_plot_points pts, size_t i)
{
	if (!pb_plot_plottable(pts[i]))
		return false;
	for (size_t j = 0; j < i; j++)
		if (pb_plot_plottable(pts[j]) && !strcmp(pts[j]->facility, pts[i]->facility))
			return false;
	return true;
}


/* Which metrics of these points a generic plot shows: summaries (except the raw sample
 * counts, and the running ratio unless something was multiplexed), then numbers that vary. */
static size_t plain_metrics(pb_plot_points pts, size_t n, const char *const *only,
			    char names[][64], size_t max)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pb_rset *metrics = &pts[i]->metrics;
		for (size_t f = 0; f < metrics->n; f++) {
			const char *k = metrics->f[f].name;
			const struct pb_rvalue *v = &metrics->f[f].v;
			double mean;
			bool wanted = true;
			bool leave_out = only && only[0] && only[0][0] == '!';
			if (only && !leave_out) {
				wanted = false;
				for (const char *const *o = only; *o; o++)
					wanted |= !strcmp(*o, k);
			} else if (is_table(v)) {
				wanted = summary_number(v, "mean", &mean) && strcmp(k, "observed") &&
					 strcmp(k, "expected");
				if (wanted && !strcmp(k, "running_ratio")) {
					wanted = false;
					for (size_t j = 0; j < n; j++) {
						double min = 0;
						if (!summary_number(pb_rset_get(&pts[j]->metrics, k),
								    "min", &min))
							min = 0;
						wanted |= min < 0.999;
					}
				}
			} else if (pb_rvalue_is_number(v)) {
				wanted = false;
				for (size_t j = 0; j < n && !wanted; j++) {
					const struct pb_rvalue *o = pb_rset_get(&pts[j]->metrics, k);
					wanted = pb_rvalue_is_number(o) &&
						 pb_rvalue_number(o) != pb_rvalue_number(v);
				}
			} else {
				wanted = false;
			}
			for (const char *const *o = leave_out ? only : NULL; o && *o; o++)
				wanted &= strcmp(*o + 1, k) != 0;
			for (size_t j = 0; j < count && wanted; j++)
				wanted = strcmp(names[j], k);
			if (wanted && count < max)
				pb_format(names[count++], 64, "%s", k);
		}
	}
	return count;
}

/* Nanoseconds in the millions read better as milliseconds. */
static void rescale_time(struct pb_figure *f, enum pb_unit unit)
{
	char *at = strstr(f->ylabel, "(ns)");
	if (unit != PB_UNIT_NS || !at)
		return;
	double top = 0;
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++)
			top = fmax(top, fabs(f->series[s].d[i].y));
	double scale = top >= 1e6 ? 1e6 : top >= 1e4 ? 1e3 : 1;
	if (scale == 1)
		return;
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++) {
			struct pb_plot_datum *d = &f->series[s].d[i];
			d->y /= scale;
			d->lo /= scale;
			d->hi /= scale;
		}
	char rest[160];
	pb_format(rest, sizeof rest, "%s", at + 4);
	pb_format(at, sizeof f->ylabel - (size_t)(at - f->ylabel), "(%s)%s",
		  scale == 1e6 ? "ms" : "µs", rest);
}

/* One metric against the varying parameter, for the points of one experiment (split per
 * facility when x is a period: periods of different facilities are different units). */
void pb_plot_generic(struct pb_plot_ctx *c, const char *experiment, pb_plot_points all,
		     size_t nall, const char *const *only)
{
	point_t *pts = calloc(nall ? nall : 1, sizeof *pts);
	if (!pts)
		return;
	size_t n = 0;
	for (size_t i = 0; i < nall; i++)
		if (pb_plot_plottable(all[i]))
			pts[n++] = all[i];
	struct candidate cand[MAX_CANDIDATES];
	size_t ncand;
	candidates_of(pts, n, cand, &ncand);
	const struct candidate *x = choose_x(cand, ncand);
	bool split = x && x->numeric && strstr(x->name, "period");
	char metrics[16][64];
	size_t nmetrics = plain_metrics(pts, n, only, metrics, 16);
	const char *summary = c->summary ? c->summary(experiment) : NULL;

	/* facilities, in order */
	const char *facilities[64];
	size_t nfac = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < nfac && !seen; j++)
			seen = !strcmp(facilities[j], pts[i]->facility);
		if (!seen && nfac < 64)
			facilities[nfac++] = pts[i]->facility;
	}
	for (size_t m = 0; m < nmetrics; m++) {
		for (size_t g = 0; g < (split ? nfac : 1); g++) {
			const char *only_facility = split ? facilities[g] : NULL;
			char stem[160];
			pb_format(stem, sizeof stem, "%s-%s%s%s", experiment, metrics[m],
				  only_facility ? "-" : "", only_facility ? only_facility : "");
			struct pb_figure *f = pb_fig_new(c, experiment, stem);
			if (!f)
				break;
			const char *xname = x ? x->name : "facility";
			f->categorical = !x || !x->numeric;
			char mlabel[160], xlabel[160];
			enum pb_unit munit = metric_unit(pts, n, metrics[m], -1);
			metric_label(metrics[m], munit, mlabel, sizeof mlabel);
			field_label(xname, param_unit(pts, n, xname),
				    only_facility ? only_facility : nfac == 1 ? facilities[0] : NULL,
				    xlabel, sizeof xlabel);
			pb_format(f->ylabel, sizeof f->ylabel, "%s", mlabel);
			pb_format(f->xlabel, sizeof f->xlabel, "%s", xlabel);
			char mshort[64], xshort[64];
			pb_format(mshort, sizeof mshort, "%s", mlabel);
			mshort[strcspn(mshort, "(:")] = '\0';
			pb_format(xshort, sizeof xshort, "%s", xlabel);
			xshort[strcspn(xshort, "(")] = '\0';
			trim(mshort);
			trim(xshort);
			pb_format(f->title, sizeof f->title, "%s experiment%s%s%s: %.60s by %.60s",
				  experiment, only_facility ? " (" : "",
				  only_facility ? only_facility : "", only_facility ? ")" : "",
				  mshort, xshort);
			if (!strcmp(metrics[m], "running_ratio")) {
				f->fixed_y = true;
				f->ylo = 0;
				f->yhi = 1.1;
			}
			if (!strcmp(metrics[m], "accuracy")) {
				f->has_ref = true;
				f->ref = 100;
				pb_format(f->ref_title, sizeof f->ref_title, "exact (100 %%)");
			}
			double xmin = INFINITY, xmax = -INFINITY;
			for (size_t i = 0; i < n; i++) {
				point_t p = pts[i];
				const char *fac = p->facility;
				if (only_facility && strcmp(fac, only_facility))
					continue;
				struct pb_spread v;
				if (!metric_value(p, &p->metrics, metrics[m], &v))
					continue;
				char series[160] = "";
				if (!only_facility)
					pb_format(series, sizeof series, "%s", fac);
				for (size_t k = 0; k < ncand; k++) {
					if (!splits_series(pts, n, cand, ncand, k, x))
						continue;
					char value[96] = "", part[128];
					double d;
					if (!param(p, cand[k].name, value, sizeof value, &d))
						continue;
					series_part(cand[k].name, value, part, sizeof part);
					size_t used = strlen(series);
					pb_format(series + used, sizeof series - used, "%s%s",
						  used ? ", " : "", part);
				}
				if (!*series)
					pb_format(series, sizeof series, "%s", only_facility ? only_facility
											     : "all");
				double xv = 0;
				char xt[96] = "";
				if (x) {
					param(p, x->name, xt, sizeof xt, &xv);
				} else {
					pb_format(xt, sizeof xt, "%s", fac);
				}
				if (f->categorical && (!*xt || !strcmp(xt, "-"))) {
					/* no value: the point's role says what it is (a baseline) */
					const char *role = str(&p->params, "role");
					pb_format(xt, sizeof xt, "%s", *role ? role : "(none)");
				}
				if (f->categorical) {
					int cat = pb_fig_cat(f, xt);
					if (cat < 0)
						continue;
					xv = cat;
				} else {
					if (xv < xmin)
						xmin = xv;
					if (xv > xmax)
						xmax = xv;
				}
				pb_fig_add(f, pb_fig_series(f, series), xv, v.mean, v.min, v.max, v.n);
			}
			rescale_time(f, munit);
			if (f->categorical && x && !strcmp(x->name, "workload"))
				shorten_workload_categories(f);
			f->logx = !f->categorical && xmin > 0 && xmax / xmin >= 20;
			char per[160] = "";
			if (!only_facility)
				pb_format(per, sizeof per, "facility");
			for (size_t k = 0; k < ncand; k++) {
				if (!splits_series(pts, n, cand, ncand, k, x))
					continue;
				char words[64];
				humanize(!strncmp(cand[k].name, "workload.", 9) ? cand[k].name + 9
										 : cand[k].name,
					 words, sizeof words);
				size_t used = strlen(per);
				pb_format(per + used, sizeof per - used, "%s%s", used ? ", " : "",
					  !strcmp(cand[k].name, "threads") ? "thread count" : words);
			}
			pb_format(f->caption, sizeof f->caption,
				  "%s%s%c%s against %s%s; one series per %s. A point is the mean over "
				  "the runs of that setting, its bar spans the lowest to the highest "
				  "run.",
				  summary ? summary : "", summary ? ". " : "",
				  mshort[0] ? toupper((unsigned char)mshort[0]) : '-',
				  mshort[0] ? mshort + 1 : "", xshort,
				  f->logx ? " (log scale)" : "", *per ? per : "setting");
			pb_fig_finish(c, f);
		}
	}
	free(pts);
}

/* Shares from 0 to at least twice the ideal: a 0.3-point wobble around 25 % must not fill
 * the plot and look like a bias. */
static void share_range(struct pb_figure *f, double ideal)
{
	double top = 2 * ideal;
	for (size_t s = 0; s < f->nseries; s++)
		for (size_t i = 0; i < f->series[s].n; i++)
			top = fmax(top, f->series[s].d[i].bars ? f->series[s].d[i].hi
							       : f->series[s].d[i].y);
	f->fixed_y = true;
	f->ylo = 0;
	f->yhi = ceil(top * 1.08 / 5) * 5;
}

static const char *load_name(const char *label)
{
	/* "pb_wl_bias_plain_load3" → "load3": the position is what compares across variants */
	const char *u = strrchr(label, '_');
	return u ? u + 1 : label;
}

/* Bias: the share of samples on each of the identical loads, per variant, with the facility's
 * own attribution (both for skid, which has no right one), against the ideal share. */
static bool has_shares(point_t p)
{
	return pb_rset_get(&p->metrics, "shares") != NULL;
}

static long long period_of(point_t p)
{
	return (long long)pb_rset_get_int(&p->params, "period");
}

/* The bias-loop variant a point measured (its workload when it names none). */
static const char *variant_of(point_t p)
{
	const char *variant = str(&p->params, "variant");
	return *variant ? variant : p->workload;
}

/* The two ways a bias sample is put on a load, with the metrics the figures read for each. */
static const struct {
	const char *key, *words, *share, *deviation;
} attributions[] = {
	{"at_ip", "at the IP", "share_at_ip", "max_deviation_at_ip"},
	{"before_ip", "IP+1-corrected", "share_before_ip", "max_deviation_before_ip"},
};

/* Whether a bias figure shows point p under attribution k: under its facility's own
 * attribution, or under both for skid, which has no right one. */
static bool shows_attribution(point_t p, size_t k)
{
	const char *own = str(&p->metrics, "attribution");
	bool skid = strcmp(own, "at_ip") && strcmp(own, "before_ip");
	return skid || !strcmp(own, attributions[k].key);
}

void pb_plot_bias_shares(struct pb_plot_ctx *c, pb_plot_points pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		point_t p = pts[i];
		if (!has_shares(p))
			continue;
		/* one figure per facility and period, made at its first point */
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = !(has_shares(pts[j]) && !strcmp(pts[j]->facility, p->facility) &&
				  period_of(pts[j]) == period_of(p));
		if (!first)
			continue;
		const char *fac = p->facility;
		long long period = period_of(p);
		char stem[160];
		pb_format(stem, sizeof stem, "bias-shares-%s-period%lld", fac, period);
		struct pb_figure *f = pb_fig_new(c, "bias", stem);
		if (!f)
			return;
		f->categorical = true;
		double ideal = 0;
		for (size_t j = i; j < n; j++) {
			point_t q = pts[j];
			const struct pb_rset *m = &q->metrics;
			if (!has_shares(q) || strcmp(q->facility, fac) || period_of(q) != period)
				continue;
			const char *variant = variant_of(q);
			const struct pb_rlist *shares = pb_rset_get_list(m, "shares");
			for (size_t k = 0; k < PB_ARRAY_SIZE(attributions); k++) {
				if (!shows_attribution(q, k))
					continue;
				const char *field = attributions[k].share;
				char series[160];
				pb_format(series, sizeof series, "%s, %s", variant,
					  attributions[k].words);
				int s = pb_fig_series(f, series);
				for (size_t l = 0; l < pb_rlist_size(shares); l++) {
					const struct pb_rset *share = pb_rlist_set_at(shares, l);
					struct pb_spread v = {0};
					for (size_t r = 0; r < nruns(q); r++) {
						const struct pb_rset *a =
							pb_rset_get_set(run_at(q, r), "attribution");
						const struct pb_rvalue *lab =
							pb_rlist_at(pb_rset_get_list(a, "loads"), l);
						if (lab)
							pb_spread_add(&v, lab->kind == PB_RV_SET
									? pb_rset_get_number(
										lab->as.set,
										field, NULL)
									: 0);
						bool ok;
						double share_of_one =
							pb_rset_get_number(a, "ideal_share", &ok);
						if (ok)
							ideal = share_of_one;
					}
					int cat = pb_fig_cat(f, load_name(str(share, "label")));
					if (cat < 0)
						continue;
					double mean = pb_rset_get_number(share, field, NULL);
					pb_fig_add(f, s, cat, mean, v.n ? v.min : mean, v.n ? v.max : mean,
						   v.n);
				}
			}
		}
		if (ideal > 0) {
			f->has_ref = true;
			f->ref = ideal;
			pb_format(f->ref_title, sizeof f->ref_title, "ideal share (%.4g %%)", ideal);
			share_range(f, ideal);
		}
		pb_format(f->title, sizeof f->title,
			  "bias experiment (%s, period %lld): share of samples on each identical load", fac, period);
		pb_format(f->xlabel, sizeof f->xlabel,
			  "identical load in the loop (position, in program order)");
		pb_format(f->ylabel, sizeof f->ylabel, "share of all samples (%%)");
		pb_format(f->caption, sizeof f->caption,
			  "An unbiased facility puts the ideal share on every load (dashed line). "
			  "'At the IP' counts a sample on the instruction its IP names; "
			  "'IP+1-corrected' on the instruction before it (right for facilities that "
			  "report the next instruction). Shares do not add up to 100 %% when samples "
			  "land elsewhere in the loop.");
		pb_fig_finish(c, f);
	}
}

/* Bias, in one figure: the largest deviation from the ideal share per variant, under the
 * facility's own attribution (both for skid). */
void pb_plot_bias_deviation(struct pb_plot_ctx *c, pb_plot_points pts, size_t n)
{
	struct pb_figure *f = pb_fig_new(c, "bias", "bias-deviation");
	if (!f)
		return;
	f->categorical = true;
	for (size_t i = 0; i < n; i++) {
		point_t p = pts[i];
		if (!has_shares(p))
			continue;
		const char *variant = variant_of(p);
		for (size_t k = 0; k < PB_ARRAY_SIZE(attributions); k++) {
			if (!shows_attribution(p, k))
				continue;
			char series[192];
			pb_format(series, sizeof series, "%s, period %lld, %s", p->facility,
				  period_of(p), attributions[k].words);
			struct pb_spread v = {0};
			for (size_t r = 0; r < nruns(p); r++) {
				bool ok;
				double d = pb_rset_get_number(run_at(p, r), attributions[k].deviation,
							      &ok);
				if (ok)
					pb_spread_add(&v, d);
			}
			int cat = pb_fig_cat(f, variant);
			if (cat >= 0 && v.n)
				pb_fig_add(f, pb_fig_series(f, series), cat, v.mean, v.min, v.max, v.n);
		}
	}
	pb_format(f->title, sizeof f->title,
		  "bias experiment: largest deviation from the ideal share, by loop variant");
	pb_format(f->xlabel, sizeof f->xlabel, "bias-loop variant (category)");
	pb_format(f->ylabel, sizeof f->ylabel,
		  "largest |share - ideal share| over the loads (percentage points)");
	pb_format(f->caption, sizeof f->caption,
		  "0 is unbiased. Each facility is shown with its own attribution: at the IP for "
		  "exact IPs, IP+1-corrected for facilities that report the next instruction, both "
		  "for skid (timer, classic overflow), which has no right one. A period that divides "
		  "the loop (4 loads) locks periodic sampling onto one load.");
	pb_fig_finish(c, f);
}

/* Multi: each event's accuracy and running-time share against the number opened together. */
void pb_plot_multi(struct pb_plot_ctx *c, pb_plot_points pts, size_t n)
{
	static const struct {
		const char *metric, *stem;
	} what[] = {{"accuracy", "multi-accuracy"}, {"running_ratio", "multi-running"}};
	for (size_t i = 0; i < n; i++) {
		if (!first_of_facility(pts, i))
			continue;
		const char *fac = pts[i]->facility;
		for (size_t w = 0; w < 2; w++) {
			char stem[160];
			pb_format(stem, sizeof stem, "%s-%s", what[w].stem, fac);
			struct pb_figure *f = pb_fig_new(c, "multi", stem);
			if (!f)
				return;
			f->dodge = true;
			for (size_t j = i; j < n; j++) {
				point_t q = pts[j];
				if (!pb_plot_plottable(q) || strcmp(q->facility, fac))
					continue;
				double k = (double)pb_rset_get_int(&q->params, "events_opened_together");
				const struct pb_rlist *evs = pb_rset_get_list(run_at(q, 0), "events");
				unsigned refused = 0;
				for (size_t e = 0; e < pb_rlist_size(evs); e++)
					refused += !pb_rset_is_true(pb_rlist_set_at(evs, e), "opened");
				if (refused && f->nnotes < 8) {
					f->notes[f->nnotes].x = k;
					pb_format(f->notes[f->nnotes++].text, sizeof f->notes[0].text,
						  "%u of %.0f not opened", refused, k);
				}
				for (size_t e = 0; e < pb_rlist_size(evs) && e < PB_PLOT_MAX_SERIES; e++) {
					/* an event the kernel refused has no figures, only its error */
					if (!pb_rset_is_true(pb_rlist_set_at(evs, e), "opened"))
						continue;
					char key[32], series[32];
					snprintf(key, sizeof key, "event%zu", e);
					snprintf(series, sizeof series, "event %zu", e + 1);
					struct pb_spread v;
					const struct pb_rset *m = pb_rset_get_set(&q->metrics, key);
					if (!metric_value(q, m, what[w].metric, &v))
						continue;
					pb_fig_add(f, pb_fig_series(f, series), k, v.mean, v.min, v.max, v.n);
				}
			}
			metric_label(what[w].metric, metric_unit(pts, n, what[w].metric, 0), f->ylabel,
				     sizeof f->ylabel);
			field_label("events_opened_together",
				    param_unit(pts, n, "events_opened_together"), fac, f->xlabel,
				    sizeof f->xlabel);
			if (w == 0) {
				f->has_ref = true;
				f->ref = 100;
				pb_format(f->ref_title, sizeof f->ref_title, "exact (100 %%)");
			} else {
				f->has_ref = true;
				f->ref = 1;
				pb_format(f->ref_title, sizeof f->ref_title, "always running (1)");
				f->fixed_y = true;
				f->ylo = 0;
				f->yhi = 1.1;
			}
			pb_format(f->title, sizeof f->title, "multi experiment (%s): %s of each event by events "
				  "opened together", fac, w == 0 ? "accuracy" : "running-time share");
			pb_format(f->caption, sizeof f->caption,
				  "k copies of the event opened together; one series per event. When "
				  "the PMU has fewer counters than events the kernel multiplexes them "
				  "(running share below 1) and the samples of the descheduled time are "
				  "never taken. Events the kernel refused to open are left out.");
			pb_fig_finish(c, f);
		}
	}
}

/* Mode: share of the samples that fell on a privilege level that was excluded. */
/* Shadow: per padding, where the samples of the adjacent events went, and how far that is
 * from uniform against the experiment's own tolerance. */
void pb_plot_shadow(struct pb_plot_ctx *c, pb_plot_points pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!has_shares(pts[i]) || !first_of_facility(pts, i))
			continue;
		const char *fac = pts[i]->facility;
		const struct pb_rset *m0 = &pts[i]->metrics;
		bool before = !strcmp(str(m0, "attribution"), "before_ip");
		const char *how = before ? "IP+1-corrected" : "at the IP";
		char stem[160];
		pb_format(stem, sizeof stem, "shadow-shares-%s", fac);
		struct pb_figure *shares = pb_fig_new(c, "shadow", stem);
		pb_format(stem, sizeof stem, "shadow-deviation-%s", fac);
		struct pb_figure *dev = pb_fig_new(c, "shadow", stem);
		if (!shares || !dev) {
			pb_fig_finish(c, shares);
			pb_fig_finish(c, dev);
			return;
		}
		pb_format(shares->runs_note, sizeof shares->runs_note,
			  "points: runs pooled; bars: lowest to highest run");
		pb_format(dev->runs_note, sizeof dev->runs_note,
			  "bars: lowest to highest run");
		int per_run = pb_fig_series(dev, "largest deviation, each run");
		int pooled = pb_fig_series(dev, "largest deviation of the runs pooled (the verdict)");
		int tolerance = pb_fig_series(dev, "tolerance: uniform at or below");
		double ideal = 0;
		for (size_t j = i; j < n; j++) {
			point_t q = pts[j];
			const struct pb_rset *m = &q->metrics;
			const struct pb_rvalue *pad = pb_rset_get(&q->params, "padding");
			if (!pb_plot_plottable(q) || strcmp(q->facility, fac) || !pad ||
			    pad->kind != PB_RV_INT)
				continue;
			double x = (double)pad->as.i;
			const struct pb_rlist *pooled_shares = pb_rset_get_list(m, "shares");
			size_t nev = pb_rlist_size(pooled_shares);
			if (nev)
				ideal = 100.0 / (double)nev;
			for (size_t e = 0; e < nev && e < PB_PLOT_MAX_SERIES; e++) {
				struct pb_spread v = {0};
				for (size_t r = 0; r < nruns(q); r++) {
					const struct pb_rset *a =
						pb_rset_get_set(run_at(q, r), "attribution");
					const struct pb_rvalue *share = pb_rlist_at(
						pb_rset_get_list(a, before ? "share_before_ip"
									   : "share_at_ip"), e);
					if (pb_rvalue_is_number(share))
						pb_spread_add(&v, pb_rvalue_number(share));
				}
				char series[48];
				snprintf(series, sizeof series, "event %zu", e + 1);
				double y = pb_rset_get_number(pb_rlist_set_at(pooled_shares, e),
							      before ? "share_before_ip"
								     : "share_at_ip", NULL);
				pb_fig_add(shares, pb_fig_series(shares, series), x, y, v.n ? v.min : y,
					   v.n ? v.max : y, v.n);
			}
			struct pb_spread v = {0};
			for (size_t r = 0; r < nruns(q); r++) {
				const struct pb_rset *a = pb_rset_get_set(run_at(q, r), "attribution");
				bool ok;
				double d = pb_rset_get_number(a, before ? "max_deviation_before_ip"
									: "max_deviation_at_ip", &ok);
				if (ok)
					pb_spread_add(&v, d);
			}
			if (v.n)
				pb_fig_add(dev, per_run, x, v.mean, v.min, v.max, v.n);
			bool ok;
			double md = pb_rset_get_number(m, "max_deviation", &ok);
			if (ok)
				pb_fig_add(dev, pooled, x, md, 0, 0, 1);
			double tol = pb_rset_get_number(m, "tolerance_pp", &ok);
			if (ok)
				pb_fig_add(dev, tolerance, x, tol, 0, 0, 1);
		}
		const char *note = str(&pts[i]->params, "note");
		if (ideal > 0) {
			shares->has_ref = true;
			shares->ref = ideal;
			pb_format(shares->ref_title, sizeof shares->ref_title, "uniform (%.4g %%)",
				  ideal);
			share_range(shares, ideal);
		}
		pb_format(shares->title, sizeof shares->title,
			  "shadow experiment (%s): share of samples on each adjacent event, %s", fac,
			  how);
		pb_format(shares->xlabel, sizeof shares->xlabel,
			  "padding after each event (nop instructions)");
		pb_format(shares->ylabel, sizeof shares->ylabel,
			  "share of the samples on the events (%%)");
		pb_format(shares->caption, sizeof shares->caption,
			  "Identical adjacent events separated by a padding of nops; one series per "
			  "event in program order, pooled over the runs (bars: lowest to highest run). "
			  "A facility with a shadow piles samples on the event after the longest gap "
			  "until the padding is longer than the shadow.%s%s",
			  *note ? " Note: " : "", note);
		pb_format(dev->title, sizeof dev->title,
			  "shadow experiment (%s): distance from uniform by padding", fac);
		pb_format(dev->xlabel, sizeof dev->xlabel,
			  "padding after each event (nop instructions)");
		pb_format(dev->ylabel, sizeof dev->ylabel,
			  "largest |share - uniform share| (percentage points)");
		pb_format(dev->caption, sizeof dev->caption,
			  "A padding is uniform when the pooled deviation is at or below the tolerance; "
			  "the shadow length is the smallest padding from which every larger one is "
			  "uniform (see the table).%s%s",
			  *note ? " Note: " : "", note);
		pb_fig_finish(c, shares);
		pb_fig_finish(c, dev);
	}
}

void pb_plot_mode(struct pb_plot_ctx *c, pb_plot_points pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!first_of_facility(pts, i))
			continue;
		const char *fac = pts[i]->facility;
		char stem[160];
		pb_format(stem, sizeof stem, "mode-wrong-level-%s", fac);
		struct pb_figure *f = pb_fig_new(c, "mode", stem);
		if (!f)
			return;
		f->categorical = true;
		int by_flag = pb_fig_series(f, "by the record's privilege flag");
		int by_ip = pb_fig_series(f, "by the IP's address range");
		for (size_t j = i; j < n; j++) {
			point_t q = pts[j];
			if (!pb_plot_plottable(q) || strcmp(q->facility, fac))
				continue;
			bool no_kernel = pb_rset_is_true(&q->params, "exclude_kernel");
			bool no_user = pb_rset_is_true(&q->params, "exclude_user");
			if (!no_kernel && !no_user)
				continue; /* nothing excluded: no sample can be on a wrong level */
			struct pb_spread flag = {0}, ip = {0};
			for (size_t r = 0; r < nruns(q); r++) {
				const struct pb_rset *ev =
					pb_rlist_set_at(pb_rset_get_list(run_at(q, r), "events"), 0);
				double user = (double)pb_rset_get_int(ev, "user_samples");
				double kern = (double)pb_rset_get_int(ev, "kernel_samples");
				double kip = (double)pb_rset_get_int(ev, "kernel_ip_samples");
				double total = user + kern;
				if (total <= 0)
					continue;
				double wrong_flag = (no_kernel ? kern : 0) + (no_user ? user : 0);
				double wrong_ip = (no_kernel ? kip : 0) + (no_user ? total - kip : 0);
				pb_spread_add(&flag, 100 * wrong_flag / total);
				pb_spread_add(&ip, 100 * wrong_ip / total);
			}
			const char *levels = *str(&q->params, "levels") ? str(&q->params, "levels")
									: q->workload;
			int cat = pb_fig_cat(f, levels);
			if (cat < 0 || !flag.n)
				continue;
			pb_fig_add(f, by_flag, cat, flag.mean, flag.min, flag.max, flag.n);
			pb_fig_add(f, by_ip, cat, ip.mean, ip.min, ip.max, ip.n);
		}
		pb_format(f->title, sizeof f->title,
			  "mode experiment (%s): samples on an excluded privilege level", fac);
		pb_format(f->xlabel, sizeof f->xlabel, "privilege levels sampled (category)");
		pb_format(f->ylabel, sizeof f->ylabel, "samples on the wrong level (%% of samples)");
		pb_format(f->caption, sizeof f->caption,
			  "Each sample is checked by the privilege level the kernel wrote in the "
			  "record and by whether its IP lies in the kernel half of the address space; "
			  "0 %% is right. Settings where no sample was taken have no point.");
		pb_fig_finish(c, f);
	}
}

/* ---------- the driver ---------- */

/* Experiments whose figures are more than "each metric against the varying parameter": their
 * own plots first, then the generic ones for the metrics those leave out. Every other
 * experiment, including any added later, gets the generic plots alone. */
struct special {
	const char *experiment;
	void (*own[2])(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
	const char *const *generic;   /* as pb_plot_generic's `only` */
	bool no_generic;
};

static const char *const accuracy_only[] = {"accuracy", NULL};
static const char *const shadow_drawn[] = {"!max_deviation", "!tolerance_pp", "!tv_distance",
					   "!pooled_event_samples", NULL};
static const struct special specials[] = {
	{"bias", {pb_plot_bias_shares, pb_plot_bias_deviation}, accuracy_only, false},
	{"multi", {pb_plot_multi, NULL}, NULL, true},
	{"mode", {pb_plot_mode, NULL}, accuracy_only, false},
	{"shadow", {pb_plot_shadow, NULL}, shadow_drawn, false},
};

static const struct special *special_of(const char *experiment)
{
	for (size_t i = 0; i < PB_ARRAY_SIZE(specials); i++)
		if (!strcmp(specials[i].experiment, experiment))
			return &specials[i];
	return NULL;
}

int pb_plots_make(const struct pb_results *doc, const char *dir, bool write_files,
		  pb_summary_fn *summary, struct pb_plot_set *set, struct pb_error *err)
{
	memset(set, 0, sizeof *set);
	struct pb_plot_ctx c = {.results = doc, .write_files = write_files,
			     .summary = summary, .set = set, .err = err};
	snprintf(c.plots_dir, sizeof c.plots_dir, "%s/plots", dir);
	pb_results_machine_label(doc, c.machine, sizeof c.machine);
	if (write_files && mkdir(c.plots_dir, 0755) && errno != EEXIST)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot create %s: %s", c.plots_dir,
			       strerror(errno));
	char gnuplot_path[4200];
	c.gnuplot = pb_gnuplot_find(gnuplot_path, sizeof gnuplot_path);
	if (write_files && !c.gnuplot) {
		set->gnuplot_missing = true;
		pb_format(set->warning, sizeof set->warning,
			  "gnuplot not found (%s): plot data and scripts are in %s but no images "
			  "were drawn; install gnuplot-nox (scripts/install-deps.sh) and run "
			  "`pesbench report %s`",
			  getenv("PB_GNUPLOT") && *getenv("PB_GNUPLOT") ? getenv("PB_GNUPLOT")
									: "not on PATH",
			  c.plots_dir, dir);
	}

	size_t npoints = doc->npoints;
	point_t *pts = calloc(npoints ? npoints : 1, sizeof *pts);
	if (!pts)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory choosing plots");
	/* experiments in the order they ran */
	for (size_t i = 0; i < npoints && !c.error; i++) {
		const char *e = doc->points[i]->experiment;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(doc->points[j]->experiment, e);
		if (seen || !*e)
			continue;
		size_t n = 0;
		for (size_t j = i; j < npoints; j++)
			if (!strcmp(doc->points[j]->experiment, e))
				pts[n++] = doc->points[j];
		bool any = false;
		for (size_t j = 0; j < n; j++)
			any |= pb_plot_plottable(pts[j]);
		if (!any)
			continue;
		const struct special *sp = special_of(e);
		for (size_t k = 0; sp && k < 2 && sp->own[k]; k++)
			sp->own[k](&c, pts, n);
		if (!sp || !sp->no_generic)
			pb_plot_generic(&c, e, pts, n, sp ? sp->generic : NULL);
	}
	free(pts);
	if (c.error)
		return -1;
	if (c.failed && !set->gnuplot_missing)
		pb_format(set->warning, sizeof set->warning,
			  "gnuplot failed to draw %u of %zu plots; first: %s", c.failed, set->n,
			  c.first_failure);
	return 0;
}
