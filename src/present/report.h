/* report.html: one self-contained page per results folder — the machine, what could not run
 * and why, a table per experiment with the figures of the terminal summary (losses and
 * multiplexing included), the bias shares, and every plot (PNG inline, SVG linked). */
#ifndef PB_REPORT_H
#define PB_REPORT_H

#include "present/plot.h"
#include "util/error.h"

#include <stdbool.h>
#include <stdio.h>

/* The page as text (malloc'd), NULL when out of memory; plots may be NULL. summary gives each
 * experiment's one-line description (pb_plot.h), NULL for none. */
char *pb_report_html(const struct pb_results *results, const struct pb_plot_set *plots, pb_summary_fn *summary,
		     size_t *len);
/* Writes DIR/report.html atomically. plots may be NULL (no plots section). */
int pb_report_write(const struct pb_results *results, const char *dir, const struct pb_plot_set *plots,
		    pb_summary_fn *summary, struct pb_error *err);

/* Plots (unless no_plots: then only the images already there are shown) and the report for
 * a results folder; the plotting warning, if any, is printed once on warn. */
int pb_report_folder(const struct pb_results *results, const char *dir, bool no_plots, pb_summary_fn *summary,
		     FILE *warn, size_t *nplots, struct pb_error *err);

/* A results folder or a results.json named on the command line → the JSON file and its
 * folder (where plots/ and report.html go). */
void pb_results_locate(const char *arg, char *json_path, size_t json_len, char *dir,
		       size_t dir_len);

#endif
