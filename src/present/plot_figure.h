/* Internal to the plotting code: a figure (series of points with error ranges, on a numeric
 * or categorical x axis) as the choosers build it and the driver writes and draws it. */
#ifndef PB_PLOT_FIGURE_H
#define PB_PLOT_FIGURE_H

#include "present/plot.h"

#include <stdbool.h>
#include <stddef.h>

#define PB_PLOT_MAX_SERIES 24
/* distinct colours readable on white (plot.c): a figure with more series is split */
#define PB_PLOT_COLOURS 12
#define PB_PLOT_MAX_CATS 48

struct pb_plot_datum {
	double x, y, lo, hi;
	bool bars;              /* lo/hi are the runs' min and max */
};

struct pb_plot_series {
	char title[160];
	int colour;             /* the palette's entry (pb_fig_series: the series' own index) */
	bool dashed;            /* a model's line beside the measured series of its colour */
	struct pb_plot_datum *d;
	size_t n, cap;
};

struct pb_figure {
	char name[128], experiment[64], title[256], xlabel[160], ylabel[160], caption[512];
	bool categorical, logx;
	bool dodge;             /* numeric x in steps of 1: series side by side like categories */
	char cats[PB_PLOT_MAX_CATS][96];
	size_t ncats;
	struct pb_plot_series series[PB_PLOT_MAX_SERIES];
	size_t nseries;
	bool has_ref;
	double ref;
	char ref_title[64];
	bool fixed_y;           /* a quantity with known bounds: y from ylo to yhi */
	double ylo, yhi;
	unsigned max_runs;      /* the most runs behind one point, for the subtitle */
	char runs_note[96];     /* what a point and a bar are, when not "mean; min-max" */
	struct {
		double x;
		char text[128];
	} notes[8];             /* remarks written on the plot at x, near the bottom */
	size_t nnotes;
};

struct pb_plot_ctx {
	const struct pb_results *results;
	char plots_dir[4200];
	bool write_files;
	const char *gnuplot;    /* NULL: not found */
	char machine[256];
	pb_summary_fn *summary; /* NULL: no experiment summaries in the captions */
	struct pb_plot_set *set;
	unsigned failed;
	char first_failure[256];
	struct pb_error *err;
	int error;
};

/* Values over runs: mean and the min-max range. */
struct pb_spread {
	double mean, min, max;
	unsigned n;
	bool ci;                /* min and max are the figure's 95 % CI, not its runs' range */
};

/* plot.c: building a figure, then writing its data and script and drawing it */
struct pb_figure *pb_fig_new(struct pb_plot_ctx *c, const char *experiment, const char *stem);
/* index of the series (or category) of that title, added if new; -1 when full */
int pb_fig_series(struct pb_figure *f, const char *title);
int pb_fig_cat(struct pb_figure *f, const char *label);
/* a point of series s: mean y and the range of the runs (drawn as a bar when runs >= 2) */
void pb_fig_add(struct pb_figure *f, int s, double x, double y, double lo, double hi,
		unsigned runs);
void pb_spread_add(struct pb_spread *s, double v);
/* writes NAME.dat and NAME.gp, runs gnuplot, records the plot in the set; frees f */
void pb_fig_finish(struct pb_plot_ctx *c, struct pb_figure *f);
/* $PB_GNUPLOT, else "gnuplot" on PATH (the path built in buf); NULL when not found */
const char *pb_gnuplot_find(char *buf, size_t len);

/* what to plot: the generic plots (plot_choose.c), the special ones (plot_special.c); the
 * driver over a results document is pb_plots_make (plot_driver.c) */
typedef const struct pb_result_point *const pb_plot_points[];
bool pb_plot_plottable(const struct pb_result_point *p);
/* every metric against the varying parameter; only: NULL for all, or a NULL-terminated list
 * of the metric names to plot, or of names each prefixed with '!' to leave out; accuracy_is:
 * NULL, or the axis label of "accuracy" where the experiment's accuracy is another quantity
 * (a share, not a count's accuracy) */
void pb_plot_generic(struct pb_plot_ctx *c, const char *experiment, pb_plot_points pts,
		     size_t n, const char *const *only, const char *accuracy_is);
void pb_plot_bias_shares(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
void pb_plot_bias_deviation(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
void pb_plot_multi(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
void pb_plot_mode(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
void pb_plot_shadow(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);
void pb_plot_cost_predictions(struct pb_plot_ctx *c, pb_plot_points pts, size_t n);

#endif
