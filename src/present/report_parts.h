/* The parts of report.html, each in its own file: report.c lays out the page, the tables of
 * the experiments are report_tables.c's, the scorecard report_scorecard.c's. */
#ifndef PB_REPORT_PARTS_H
#define PB_REPORT_PARTS_H

#include "io/result_model.h"

#include <stdbool.h>
#include <stdio.h>

/* s with <, >, &, " and ' escaped. */
void pb_html_esc(FILE *f, const char *s);
/* The same, with a line-break opportunity after each comma: a workload's parameters
 * ("accuracy:ratio=20,factor=4,seed=1") are one word to a browser and widened their column
 * past the page. */
void pb_html_esc_breakable(FILE *f, const char *s);
/* A figure's cell: its one line-break opportunity is before its interval ("29.38 ±0.48 ms"
 * may stack as "29.38" over "±0.48 ms"), so a table too wide for the window narrows there,
 * never between a number and its unit, and never clips its last columns (lost, throttles). */
void pb_html_esc_figure(FILE *f, const char *s);

/* The experiment's table: the columns its points have figures in. */
void pb_report_experiment_table(FILE *f, const struct pb_results *doc, const char *experiment);

/* A cost prediction's cell: the slowdown predicted and measured with its verdict, then the
 * total CPU time's error, what a sample cost the target, the cost workload beside it and the
 * target's own cost carried to the period (report_cost.c). time_periods: the facility's
 * periods are ns. */
void pb_report_prediction_text(const struct pb_result_point *p, bool time_periods, char *b,
			       size_t n);
/* A cost fit's costs by period ("by period: 18.9 ± 0.4 µs at 38 µs, ...") from rows, and its
 * line by rate where one cost could not be told from it. */
void pb_report_by_period_text(const struct pb_result_point *p, const struct pb_rlist *rows,
			      bool time_periods, char *b, size_t n);

/* The scorecard section (id "scorecard"); a document without one says so. */
void pb_report_scorecard(FILE *f, const struct pb_results *doc);

#endif
