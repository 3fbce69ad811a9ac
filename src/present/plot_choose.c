/* Plots are chosen from the data: an experiment's points differ in some parameters (period,
 * workload, threads, events opened, ...); the one with the most distinct values within a
 * facility becomes the x axis, the others (unless they follow from x) split the points into
 * series, and every summary metric of the points is a y axis. So an experiment added later
 * gets plots without a change here. Experiments whose figures are not "a metric against a
 * parameter" (bias shares per load, multi per event, mode per privilege level) have their
 * own plots as well. */
#include "present/plot_fields.h"

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
	const struct pb_rvalue *v = pb_plot_field_of(p, field, &scratch);
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
	/* a note explains its point, and never makes a series of it: a prediction that left a
	 * round out was drawn apart, its label the note's words */
	size_t len = strlen(k);
	return !strcmp(k, "note") || (len > 5 && !strcmp(k + len - 5, "_note"));
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

static void series_part(const char *field, const char *value, point_t p, char *buf,
			size_t len)
{
	if (!strcmp(field, "threads"))
		pb_format(buf, len, "%s thread%s", value, strcmp(value, "1") ? "s" : "");
	else if (!strcmp(field, "period"))
		pb_format(buf, len, "period %s %s", value,
			  pb_plot_period_unit(p, strtoll(value, NULL, 10)));
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
			} else if (pb_plot_is_table(v)) {
				wanted = pb_plot_summary_number(v, "mean", &mean) && strcmp(k, "observed") &&
					 strcmp(k, "expected");
				if (wanted && !strcmp(k, "running_ratio")) {
					wanted = false;
					for (size_t j = 0; j < n; j++) {
						double min = 0;
						if (!pb_plot_summary_number(pb_rset_get(&pts[j]->metrics, k),
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
			/* an interval is its figure's bars (pb_plot_sibling_ci), not a figure */
			if (!only || leave_out)
				wanted &= !pb_plot_is_interval(k);
			/* a count of missed timer ticks without the ticks due says nothing on an
			 * axis; the tables show it beside the samples */
			wanted &= strcmp(k, "missed_ticks_total") != 0;
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
	/* the file's name says the unit its axis does: wall_ns drawn in ms is wall_ms */
	for (char *ns = strstr(f->name, "_ns"); ns; ns = strstr(ns + 1, "_ns"))
		if (ns[3] == '\0' || ns[3] == '_' || ns[3] == '-') {
			ns[1] = scale == 1e6 ? 'm' : 'u';
			break;
		}
}

/* One metric against the varying parameter, for the points of one experiment (split per
 * facility when x is a period: periods of different facilities are different units). */
void pb_plot_generic(struct pb_plot_ctx *c, const char *experiment, pb_plot_points all,
		     size_t nall, const char *const *only, const char *accuracy_is)
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
	bool periods_differ = false, period_shown = x && !strcmp(x->name, "period");
	for (size_t i = 1; i < n; i++)
		periods_differ |= pb_rset_get_int(&pts[i]->params, "period") !=
				  pb_rset_get_int(&pts[0]->params, "period");
	for (size_t k = 0; k < ncand; k++)
		period_shown |= !strcmp(cand[k].name, "period") &&
				splits_series(pts, n, cand, ncand, k, x);

	/* facilities, in order */
	const char *facilities[64];
	point_t first_of[64];   /* the first point of each: its traits are the facility's */
	size_t nfac = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t j = 0; j < nfac && !seen; j++)
			seen = !strcmp(facilities[j], pts[i]->facility);
		if (!seen && nfac < 64) {
			first_of[nfac] = pts[i];
			facilities[nfac++] = pts[i]->facility;
		}
	}
	for (size_t m = 0; m < nmetrics; m++) {
		for (size_t g = 0; g < (split ? nfac : 1); g++) {
			const char *only_facility = split ? facilities[g] : NULL;
			/* a metric the experiment means otherwise is named so, in the file too */
			bool renamed = accuracy_is && !strcmp(metrics[m], "accuracy");
			char stem[160];
			pb_format(stem, sizeof stem, "%s-%s%s%s", experiment,
				  renamed ? "share" : metrics[m], only_facility ? "-" : "",
				  only_facility ? only_facility : "");
			struct pb_figure *f = pb_fig_new(c, experiment, stem);
			if (!f)
				break;
			const char *xname = x ? x->name : "facility";
			f->categorical = !x || !x->numeric;
			char mlabel[160], xlabel[160];
			enum pb_unit munit = pb_plot_metric_unit(pts, n, metrics[m], -1);
			pb_plot_metric_label(metrics[m], munit, mlabel, sizeof mlabel);
			if (renamed)
				pb_format(mlabel, sizeof mlabel, "%s", accuracy_is);
			pb_plot_field_label(xname, pb_plot_param_unit(pts, n, xname),
				    only_facility ? first_of[g] : nfac == 1 ? first_of[0] : NULL,
				    xlabel, sizeof xlabel);
			pb_format(f->ylabel, sizeof f->ylabel, "%s", mlabel);
			pb_format(f->xlabel, sizeof f->xlabel, "%s", xlabel);
			/* the labels' words before their units */
			char mshort[160], xshort[160];
			pb_format(mshort, sizeof mshort, "%.*s", (int)strcspn(mlabel, "(:"), mlabel);
			pb_format(xshort, sizeof xshort, "%.*s", (int)strcspn(xlabel, "("), xlabel);
			pb_plot_trim(mshort);
			pb_plot_trim(xshort);
			pb_format(f->title, sizeof f->title, "%s experiment%s%s%s: %.60s by %.60s",
				  experiment, only_facility ? " (" : "",
				  only_facility ? only_facility : "", only_facility ? ")" : "",
				  mshort, xshort);
			if (!strcmp(metrics[m], "running_ratio")) {
				f->fixed_y = true;
				f->ylo = 0;
				f->yhi = 1.1;
			}
			if (!strcmp(metrics[m], "accuracy") && !renamed) {
				f->has_ref = true;
				f->ref = 100;
				pb_format(f->ref_title, sizeof f->ref_title, "exact (100 %%)");
			}
			double xmin = INFINITY, xmax = -INFINITY;
			unsigned ci_points = 0, range_points = 0;
			for (size_t i = 0; i < n; i++) {
				point_t p = pts[i];
				const char *fac = p->facility;
				if (only_facility && strcmp(fac, only_facility))
					continue;
				struct pb_spread v;
				if (!pb_plot_metric_value(p, &p->metrics, metrics[m], &v))
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
					series_part(cand[k].name, value, p, part, sizeof part);
					size_t used = strlen(series);
					pb_format(series + used, sizeof series - used, "%s%s",
						  used ? ", " : "", part);
				}
				if (!*series)
					pb_format(series, sizeof series, "%s", only_facility ? only_facility
											     : "all");
				/* periods that differ between facilities but are neither x nor a series
				 * of their own (100000 ns beside 7 events) are said in the series */
				int64_t period = pb_rset_get_int(&p->params, "period");
				if (periods_differ && !period_shown && period > 0)
					pb_append(series, sizeof series, ", period %lld %s",
						  (long long)period, pb_plot_period_unit(p, period));
				double xv = 0;
				char xt[96] = "";
				if (x) {
					param(p, x->name, xt, sizeof xt, &xv);
				} else {
					pb_format(xt, sizeof xt, "%s", fac);
				}
				if (f->categorical && (!*xt || !strcmp(xt, "-"))) {
					/* no value: the point's role says what it is (a baseline) */
					const char *role = pb_plot_text(&p->params, "role");
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
				ci_points += v.ci;
				range_points += !v.ci && v.n >= 2;
			}
			if (ci_points)
				pb_format(f->runs_note, sizeof f->runs_note, "%s",
					  range_points ? "bars: the figure's 95 % CI where it has one, "
							 "else lowest to highest run"
						       : "bars: each figure's 95 % CI");
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
				pb_plot_humanize(!strncmp(cand[k].name, "workload.", 9) ? cand[k].name + 9
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
