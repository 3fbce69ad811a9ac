/* The plots of experiments whose figures are more than "a metric against a parameter": bias
 * (share per load, largest deviation), multi (per event), shadow (per padding) and mode (per
 * privilege level). */
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
	const char *variant = pb_plot_text(&p->params, "variant");
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
	const char *own = pb_plot_text(&p->metrics, "attribution");
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
					for (size_t r = 0; r < pb_plot_nruns(q); r++) {
						const struct pb_rset *a =
							pb_rset_get_set(pb_plot_run_at(q, r), "attribution");
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
					int cat = pb_fig_cat(f, load_name(pb_plot_text(share, "label")));
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
			  "bias experiment (%s, period %lld %s): share of samples on each identical "
			  "load",
			  fac, period, pb_plot_period_unit(p, period));
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
			pb_format(series, sizeof series, "%s, period %lld %s, %s", p->facility,
				  period_of(p), pb_plot_period_unit(p, period_of(p)),
				  attributions[k].words);
			struct pb_spread v = {0};
			for (size_t r = 0; r < pb_plot_nruns(p); r++) {
				bool ok;
				double d = pb_rset_get_number(pb_plot_run_at(p, r), attributions[k].deviation,
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
		if (!pb_plot_first_of_facility(pts, i))
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
				const struct pb_rlist *evs = pb_rset_get_list(pb_plot_run_at(q, 0), "events");
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
					if (!pb_plot_metric_value(q, m, what[w].metric, &v))
						continue;
					pb_fig_add(f, pb_fig_series(f, series), k, v.mean, v.min, v.max, v.n);
				}
			}
			pb_plot_metric_label(what[w].metric, pb_plot_metric_unit(pts, n, what[w].metric, 0), f->ylabel,
				     sizeof f->ylabel);
			pb_plot_field_label("events_opened_together",
				    pb_plot_param_unit(pts, n, "events_opened_together"), pts[i], f->xlabel,
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
		if (!has_shares(pts[i]) || !pb_plot_first_of_facility(pts, i))
			continue;
		const char *fac = pts[i]->facility;
		const struct pb_rset *m0 = &pts[i]->metrics;
		bool before = !strcmp(pb_plot_text(m0, "attribution"), "before_ip");
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
				for (size_t r = 0; r < pb_plot_nruns(q); r++) {
					const struct pb_rset *a =
						pb_rset_get_set(pb_plot_run_at(q, r), "attribution");
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
			for (size_t r = 0; r < pb_plot_nruns(q); r++) {
				const struct pb_rset *a = pb_rset_get_set(pb_plot_run_at(q, r), "attribution");
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
		const char *note = pb_plot_text(&pts[i]->params, "note");
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
		if (!pb_plot_first_of_facility(pts, i))
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
			for (size_t r = 0; r < pb_plot_nruns(q); r++) {
				const struct pb_rset *ev =
					pb_rlist_set_at(pb_rset_get_list(pb_plot_run_at(q, r), "events"), 0);
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
			const char *levels = *pb_plot_text(&q->params, "levels") ? pb_plot_text(&q->params, "levels")
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

/* Cost: per facility, each target's measured slowdown with its 95 % CI beside the slowdown the
 * cost fit predicted (dashed, in the target's colour), by period: whether the predictions meet
 * the criterion is one look, where the generic plots showed a slowdown error without its
 * interval ("one value per point") and the CI and the tolerance as plots of their own. */
void pb_plot_cost_predictions(struct pb_plot_ctx *c, pb_plot_points pts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!pb_rset_get(&pts[i]->metrics, "predicted_slowdown_pct"))
			continue;
		const char *fac = pts[i]->facility;
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(pts[j]->facility, fac) ||
				!pb_rset_get(&pts[j]->metrics, "predicted_slowdown_pct");
		if (!first)
			continue;
		char stem[160];
		pb_format(stem, sizeof stem, "cost-predictions-%s", fac);
		struct pb_figure *f = pb_fig_new(c, "cost", stem);
		if (!f)
			return;
		bool time_based = pb_result_time_based(pts[i]);
		/* periods chosen for slowdowns of 3, 10 and 30 %: a factor of ~3 apart */
		f->logx = true;
		for (size_t j = i; j < n; j++) {
			point_t p = pts[j];
			const struct pb_rset *m = &p->metrics;
			bool ok, has_ci;
			double measured = pb_rset_get_number(m, "measured_slowdown_pct", &ok);
			double predicted = pb_rset_get_number(m, "predicted_slowdown_pct", NULL);
			double ci = pb_rset_get_number(m, "measured_slowdown_ci95_pp", &has_ci);
			if (strcmp(p->facility, fac) || !ok)
				continue;
			double x = (double)period_of(p) / (time_based ? 1000 : 1);
			char target[160], title[192];
			int64_t threads = pb_rset_get_int(&p->params, "threads");
			pb_format(target, sizeof target, "%s", p->workload);
			if (threads > 1)
				pb_append(target, sizeof target, ", %lld threads", (long long)threads);
			pb_format(title, sizeof title, "%s: measured", target);
			int s_measured = pb_fig_series(f, title);
			pb_format(title, sizeof title, "%s: predicted", target);
			int s_predicted = pb_fig_series(f, title);
			if (s_measured < 0 || s_predicted < 0)
				continue;
			/* series come in pairs: the target's number picks its colour, so the first
			 * targets get the palette's first, most distinct, colours */
			f->series[s_measured].colour = s_measured / 2;
			f->series[s_predicted].colour = s_measured / 2;
			f->series[s_predicted].dashed = true;
			has_ci = has_ci && isfinite(ci);
			pb_fig_add(f, s_measured, x, measured, measured - (has_ci ? ci : 0),
				   measured + (has_ci ? ci : 0), has_ci ? 2 : 1);
			pb_fig_add(f, s_predicted, x, predicted, predicted, predicted, 1);
		}
		pb_format(f->title, sizeof f->title,
			  "cost experiment (%s): slowdown predicted and measured, by period", fac);
		pb_format(f->xlabel, sizeof f->xlabel, "sampling period (%s)",
			  time_based ? "µs of CPU time per sample" : "events per sample");
		pb_format(f->ylabel, sizeof f->ylabel,
			  "slowdown (%% of the run without perf)");
		pb_format(f->runs_note, sizeof f->runs_note,
			  "bars: the measured 95 %% CI; dashed: predicted");
		pb_format(f->caption, sizeof f->caption,
			  "Each target's slowdown measured at the periods chosen for it (paired rounds: "
			  "a run without perf, then sampled ones), with the slowdown the cost fit "
			  "predicted there, dashed in its colour. A prediction meets the criterion when "
			  "|predicted - measured| <= max(10 %% of the measured slowdown, 1 point).");
		pb_fig_finish(c, f);
	}
}
