/* Plots of a results folder: for every experiment in results.json, data files and a gnuplot
 * script per plot in DIR/plots/, rendered to PNG and SVG by the gnuplot the machine has.
 * Plotting is driven by the data, not by a list of experiments: each experiment's points are
 * plotted as every summary metric against the parameter that varies between them, with the
 * runs' min-max as error bars; a few experiments (bias, multi, mode) get plots that say more
 * than that. Without gnuplot the data and scripts are still written, and the caller is told
 * once, so a report can be made anyway. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include "io/result_model.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>

/* An experiment's one-line summary by its name in the results, NULL when unknown. The caller
 * passes its catalogue (pb_experiment_summary): presentation reads the results document and
 * nothing of the experiments that wrote it. NULL: no summaries. */
typedef const char *pb_summary_fn(const char *experiment);

struct pb_plot {
	char name[128];        /* file stem in DIR/plots: NAME.dat, NAME.gp, NAME.png, NAME.svg */
	char experiment[64];
	char title[256];       /* first line of the plot's title */
	char caption[1024];    /* what the plot shows and how to read it, for the report */
	bool rendered;         /* gnuplot drew NAME.png and NAME.svg (this time or before) */
	/* not "" when a plot would carry no information (every series constant): the sentence
	 * that says what it would show, in its place; no files are written for it */
	char sentence[512];
};

struct pb_plot_set {
	struct pb_plot *plots;
	size_t n, cap;
	bool gnuplot_missing;  /* no gnuplot: scripts written, nothing drawn */
	char warning[640];     /* "" or one message for the user (missing gnuplot, failed plots) */
};

/* Chooses every plot of results. write_files: writes DIR/plots/NAME.{dat,gp} and runs gnuplot;
 * otherwise only chooses them, marking as rendered the plots whose images already exist (for a
 * report made without redrawing). gnuplot is looked up as $PB_GNUPLOT, else "gnuplot" on
 * PATH. Returns 0 (a missing or failing gnuplot is a warning in set), -1 with err when
 * DIR/plots cannot be written. */
int pb_plots_make(const struct pb_results *results, const char *dir, bool write_files, pb_summary_fn *summary,
		  struct pb_plot_set *set, struct pb_error *err);
void pb_plot_set_free(struct pb_plot_set *set);

/* "GenuineIntel Intel(R) Xeon(R) ... , kernel 6.18.4" from results.machine, for titles. */
void pb_results_machine_label(const struct pb_results *results, char *buf, size_t len);
/* What else the machine did during the suite, from its closing fields (experiments/suite.c):
 * "Beside the suite, other work kept 1.00 ±0.02 of the 2 CPUs busy, and the hypervisor
 * withheld 0.3 ±0.1 % of CPU time (steal)." False, buf "", for a document without them (an
 * older build, or a saved machine tree). */
bool pb_results_load_label(const struct pb_results *results, char *buf, size_t len);
/* How fast the CPUs ran a fixed loop over the suite (runner/cpu_speed.h): the suite's sentence,
 * "A fixed loop took up to 2.8 times its fastest time, on CPU 1 (...)"; false when the document
 * holds none (a suite before it, or run on a saved tree). */
bool pb_results_speed_label(const struct pb_results *results, char *buf, size_t len);

#endif
