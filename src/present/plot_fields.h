/* Internal to the plot choosers (plot_choose.c, plot_special.c, plot_driver.c): reading a
 * point's figures and naming them on an axis (plot_fields.c). */
#ifndef PB_PLOT_FIELDS_H
#define PB_PLOT_FIELDS_H

#include "present/plot_figure.h"

typedef const struct pb_result_point *point_t;

/* A named text of a set, "" when it has none. */
const char *pb_plot_text(const struct pb_rset *s, const char *k);
/* A field of a point by its name in results.json: the point's identity or a parameter. */
const struct pb_rvalue *pb_plot_field_of(point_t p, const char *k, struct pb_rvalue *scratch);
/* A number of a summary, or of a table of one written without a confidence interval. */
bool pb_plot_summary_number(const struct pb_rvalue *v, const char *k, double *out);
/* A summary, or a set standing for one. */
bool pb_plot_is_table(const struct pb_rvalue *v);
size_t pb_plot_nruns(point_t p);
const struct pb_rset *pb_plot_run_at(point_t p, size_t r);
/* A metric of the point: its figure and the spread of its runs. */
/* Whether a metric is an interval (its name holds "ci95"): drawn as its figure's bars, never
 * as a figure of its own. */
bool pb_plot_is_interval(const char *name);
/* The 95 % half-width beside a metric NAME: NAME_ci95, NAME's "_pct" as "_ci95_pp", or a fit's
 * ci95_ns beside ns_per_sample. */
bool pb_plot_sibling_ci(const struct pb_rset *metrics, const char *name, double *ci);
bool pb_plot_metric_value(point_t p, const struct pb_rset *metrics, const char *name,
			  struct pb_spread *out);
void pb_plot_trim(char *s);
void pb_plot_humanize(const char *name, char *buf, size_t len);
/* The unit of the first value of that name among the points' metrics (or event e's). */
enum pb_unit pb_plot_metric_unit(pb_plot_points pts, size_t n, const char *name, int e);
/* The unit of the first parameter of that name among the points. */
enum pb_unit pb_plot_param_unit(pb_plot_points pts, size_t n, const char *name);
/* Axis labels of a metric and of a parameter, with the unit; a period says what it counts. */
void pb_plot_metric_label(const char *name, enum pb_unit unit, char *buf, size_t len);
/* of: a point of the one facility the axis is about (its traits say what its period counts),
 * NULL when the axis spans facilities. */
void pb_plot_field_label(const char *field, enum pb_unit unit, point_t of, char *buf,
			 size_t len);
/* Whether pts[i] is the first plottable point of its facility. */
bool pb_plot_first_of_facility(pb_plot_points pts, size_t i);
/* What a period of p's facility counts ("ns", "event" or "events", from its traits): every
 * period shown carries it. */
const char *pb_plot_period_unit(point_t p, long long period);

#endif
