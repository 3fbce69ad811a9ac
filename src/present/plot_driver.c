/* pb_plots_make: every plot of a results document, experiment by experiment, the special
 * plots first and then the generic ones. */
#include "present/plot_fields.h"

#include "io/results.h"
#include "util/kit.h"
#include "util/text.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- the driver ---------- */

/* Experiments whose figures are more than "each metric against the varying parameter": their
 * own plots first, then the generic ones for the metrics those leave out. Every other
 * experiment, including any added later, gets the generic plots alone. */
struct special {
	const char *experiment;
	void (*own[2])(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
	const char *const *generic;   /* as pb_plot_generic's `only` */
	bool no_generic;
	const char *accuracy_is;      /* as pb_plot_generic's */
};

static const char *const accuracy_only[] = {"accuracy", NULL};
static const char *const shadow_drawn[] = {"!max_deviation", "!tolerance_pp", "!tv_distance",
					   "!pooled_event_samples", NULL};
/* drawn in the predictions' plot; a tolerance without its figure; the calibrating cost, one
 * value carried to a target's outer periods (its interval made it look like a figure) */
static const char *const cost_drawn[] = {"!predicted_slowdown_pct", "!measured_slowdown_pct",
					 "!slowdown_tolerance_pp", "!calibrated_ns_per_sample",
					 NULL};
static const struct special specials[] = {
	{"bias", {pb_plot_bias_shares, pb_plot_bias_deviation}, accuracy_only, false, NULL},
	{"multi", {pb_plot_multi, NULL}, NULL, true, NULL},
	/* with one level excluded, "accuracy" is the share of the events on the level sampled */
	{"mode", {pb_plot_mode, NULL}, accuracy_only, false,
	 "samples recorded / events at every level (%): the share on the levels sampled"},
	{"shadow", {pb_plot_shadow, NULL}, shadow_drawn, false, NULL},
	{"cost", {pb_plot_cost_predictions, NULL}, cost_drawn, false, NULL},
};

static const struct special *special_of(const char *experiment)
{
	for (size_t i = 0; i < PB_ARRAY_SIZE(specials); i++)
		if (!strcmp(specials[i].experiment, experiment))
			return &specials[i];
	return NULL;
}

/* The files of plots this drawing did not make: a plot of an earlier drawing whose figure is
 * gone (a folder measured again, or reported by a newer pesbench) would stay beside the new
 * ones, looking as current as they are. Only a plot's own four kinds of file are removed; a
 * name the set still draws, with files, stays. */
static void remove_stale_plots(const char *plots_dir, const struct pb_plot_set *set)
{
	static const char *const kinds[] = {".dat", ".gp", ".png", ".svg"};
	DIR *d = opendir(plots_dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');
		bool ours = false;
		for (size_t k = 0; dot && k < PB_ARRAY_SIZE(kinds); k++)
			ours |= !strcmp(dot, kinds[k]);
		if (!ours)
			continue;
		size_t stem = (size_t)(dot - e->d_name);
		bool current = false;
		for (size_t i = 0; i < set->n && !current; i++)
			current = !set->plots[i].sentence[0] && strlen(set->plots[i].name) == stem &&
				  !strncmp(set->plots[i].name, e->d_name, stem);
		if (!current) {
			char path[4600];
			pb_format(path, sizeof path, "%s/%s", plots_dir, e->d_name);
			unlink(path);
		}
	}
	closedir(d);
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
			pb_plot_generic(&c, e, pts, n, sp ? sp->generic : NULL,
					sp ? sp->accuracy_is : NULL);
	}
	free(pts);
	if (c.error)
		return -1;
	if (write_files)
		remove_stale_plots(c.plots_dir, set);
	if (c.failed && !set->gnuplot_missing)
		pb_format(set->warning, sizeof set->warning,
			  "gnuplot failed to draw %u of %zu plots; first: %s", c.failed, set->n,
			  c.first_failure);
	return 0;
}
