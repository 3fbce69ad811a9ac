/* Small statistics used by every experiment: summaries over runs, and least squares for the
 * per-sample cost. */
#ifndef PB_STATS_H
#define PB_STATS_H

#include <stddef.h>

struct pb_summary {
	size_t n;
	double mean, stdev, min, max, median;
	double ci95;        /* half-width of the 95 % confidence interval of the mean (Student t) */
	double rel_stdev;   /* stdev / |mean| in percent; 0 when mean is 0 */
};

/* Summarises n values (n may be 0: everything 0). stdev is the sample stdev (n - 1). */
void pb_summarize(const double *values, size_t n, struct pb_summary *out);
double pb_median(const double *values, size_t n);

/* Two-sided 95 % Student t critical value for df degrees of freedom. */
double pb_t95(size_t df);

struct pb_fit {
	size_t n;
	double slope, intercept;
	double r2;
	double slope_ci95;  /* half-width of the 95 % confidence interval of the slope */
	double slope_se;
};

/* Least squares y = intercept + slope * x. Needs n >= 3 and x not all equal; returns -1
 * otherwise. */
int pb_linear_fit(const double *x, const double *y, size_t n, struct pb_fit *out);

/* The main study's accuracy: 100 - |observed - expected| / expected * 100 (may be negative when
 * observed is over twice expected). expected 0: 100 if observed is 0, else 0. */
double pb_accuracy(double observed, double expected);

#endif
