/* Small statistics used by every experiment: summaries over runs, and least squares for the
 * per-sample cost. */
#ifndef PB_STATS_H
#define PB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_summary {
	size_t n;
	double mean, stdev, min, max, median;
	double ci95;        /* half-width of the 95 % confidence interval of the mean (Student t) */
	double rel_stdev;   /* stdev / |mean| in percent; 0 when mean is 0 */
};

/* Summarises n values (n may be 0: everything 0). stdev is the sample stdev (n - 1). */
void pb_summarize(const double *values, size_t n, struct pb_summary *out);
double pb_median(const double *values, size_t n);
/* The median of values[i - half .. i + half], clipped to 0 .. n - 1 (n > i). */
double pb_window_median(const double *values, size_t n, size_t i, size_t half);

/* Two-sided 95 % Student t critical value for df degrees of freedom. */
double pb_t95(size_t df);
/* The 95 % interval of a standard deviation s estimated at df degrees of freedom (df > 0), from
 * the chi-square distribution: s * sqrt(df / chi2(0.975, df)) to s * sqrt(df / chi2(0.025, df)).
 * The quantiles are Wilson and Hilferty's cube-root approximation, within 1 % of the tabulated
 * chi-square quantiles from df = 10 (the ends move by half that) and within 4 % at df = 5 (the
 * ends by 2.1 %). */
void pb_stdev_ci95(double s, size_t df, double *lo, double *hi);
/* Wilson's 95 % score interval (z = 1.96) of the proportion k / n, n > 0, into lo and hi. */
void pb_wilson95(double k, double n, double *lo, double *hi);

struct pb_fit {
	size_t n;
	double slope, intercept;
	double r2;
	double slope_ci95;  /* half-width of the 95 % confidence interval of the slope */
	double slope_se;
	double intercept_ci95; /* half-width of the 95 % confidence interval of the intercept */
};

/* Least squares y = intercept + slope * x. Needs n >= 3 and x not all equal; returns -1
 * otherwise. */
int pb_linear_fit(const double *x, const double *y, size_t n, struct pb_fit *out);
/* The same, weighted: point i's noise is scale[i] times a common size (NULL: all alike), so
 * it weighs 1 / scale[i]^2, and the intervals are those of that model (the common variance
 * from the weighted residuals at n - 2 degrees of freedom), where unweighted least squares
 * takes every point's noise as the same and, when the noisy points are the ones far out in
 * x, states a slope's interval narrower than it is. r2 is the weighted R². Also -1 when a
 * scale is not finite and above 0. */
int pb_weighted_linear_fit(const double *x, const double *y, const double *scale, size_t n,
			   struct pb_fit *out);

/* Least squares y = b0 + b1 x1 + b2 x2, with the coefficients' covariance s^2 (X'X)^-1 (s^2
 * the residual variance at n - 3 degrees of freedom) and Student t's 95 % quantile there: the
 * 95 % CI of any combination c'b is t95 sqrt(c' cov c) (pb_fit2_at). Needs n >= 4 and x1, x2
 * not collinear with the constant; returns -1 otherwise. */
struct pb_fit2 {
	size_t n;
	double coef[3];
	double cov[3][3];
	double t95;
};
int pb_linear_fit2(const double *x1, const double *x2, const double *y, size_t n,
		   struct pb_fit2 *out);
/* The same, weighted by 1 / scale[i]^2 as pb_weighted_linear_fit (scale NULL: all alike). */
int pb_weighted_linear_fit2(const double *x1, const double *x2, const double *y,
			    const double *scale, size_t n, struct pb_fit2 *out);
/* b0 c[0] + b1 c[1] + b2 c[2] and the half-width of its 95 % CI. */
double pb_fit2_at(const struct pb_fit2 *fit, const double c[3], double *ci95);

/* A sample's cost as a line in the decades of the period, fitted to a cost sweep's pairs
 * (experiments/cost_fit.c): y = b0 + b1 x + b2 x log10(period / ref_period), x a run's
 * samples and y its extra CPU time, so b1 is the cost at the sweep's shortest period and b2
 * what a tenfold longer period adds. Fitted when the pairs hold three periods or more;
 * dependent when b2's 95 % CI leaves out zero: the sweep tells the cost from one figure.
 *
 * The slope that pools the sweep is the cost where its samples are, at its fast end; at a
 * longer period it holds only if b2 is zero, and its CI does not say how well that is known:
 * the line's CI does (a b2 of 465 ± 1427 ns a decade, kind A, 2026-11-27, leaves the cost at
 * 100 µs ±0.9 µs where the pooled CI says ±0.1). What a prediction or a plan uses at a period
 * is the line only where it is dependent: a b2 that cannot be told from zero moves the cost at
 * the slow end by as much as its noise (-3 ± 2185 ns a decade in a default suite of the same
 * machine: ±2.7 µs of 13.5 at a 462 µs period, most of a prediction's 1-point tolerance at
 * 3 %), where one cost moves it by nothing. */
struct pb_rate_model {
	bool fitted, dependent;
	uint64_t ref_period, top_period;
	struct pb_fit2 fit;
};
/* The line at period, held to [ref_period, top_period] (a line measured over the sweep is not
 * carried past it), with the half-width of its 95 % CI (ci95 may be NULL); NaN when not
 * fitted, dependent or not. */
double pb_rate_model_at(const struct pb_rate_model *rm, uint64_t period, double *ci95);
/* b2, what a tenfold longer period adds, with the half-width of its 95 % CI (ci95 may be
 * NULL); NaN when not fitted. */
double pb_rate_model_per_decade(const struct pb_rate_model *rm, double *ci95);

/* P(|T| < t) for Student's t with df >= 1 degrees of freedom, exact for integer df (the finite
 * series of Abramowitz & Stegun 26.7.3-4), and the t it reaches p at (0 <= p < 1): the critical
 * value of a two-sided test at 1 - p, where pb_t95 has only p = 0.95. */
double pb_t_two_sided_cdf(double t, size_t df);
double pb_t_two_sided_quantile(double p, size_t df);

/* Points of a line y = a + b x that a disturbance moved, one at a time, most distant first: a
 * point is left out when its externally studentized residual (its residual over the spread of
 * the line fitted without it) exceeds Student t's two-sided 1 - alpha / n quantile at n - 3
 * degrees of freedom, n the points still in. The line is fitted by least squares weighted by
 * 1 / scale^2, scale[i] the size of point i's noise up to a constant (NULL: all alike): noise
 * in proportion to a run's length is scale = the run's length. Under Gaussian noise of that
 * shape each such t is exactly Student t, so a line of undisturbed points leaves one out with
 * a chance of at most alpha (Bonferroni). At most max_out are left out; none with fewer than
 * 4 points or a scale not above 0. Marks them in left_out (n, false where kept) and returns
 * how many. x NULL: the points of a constant y = a (runs that should take the same time), at
 * n - 2 degrees of freedom, none left out of fewer than 3. */
enum pb_outlier_side {
	PB_OUTLIERS_BOTH,  /* either side of the line */
	PB_OUTLIERS_ABOVE, /* above it only, at the one-sided 1 - alpha / n quantile: what can
			    * only add (a disturbance adds time to a run, never takes some) */
};
size_t pb_fit_outliers(const double *x, const double *y, const double *scale, size_t n,
		       double alpha, size_t max_out, enum pb_outlier_side side, bool *left_out);

/* Theil–Sen: the median of the slopes of all pairs of points with different x, and the median
 * of y - slope x as intercept. Up to 29 % of the points can be arbitrary without moving it,
 * where one run slowed by another program moves a least-squares slope. Needs two different
 * x; returns -1 otherwise (or when out of memory). */
int pb_theil_sen(const double *x, const double *y, size_t n, double *slope, double *intercept);

/* Whether a robust slope contradicts a least-squares fit: it lies outside the fit's 95 % CI.
 * NaN anywhere counts as a contradiction. */
bool pb_fit_disagrees(const struct pb_fit *fit, double robust_slope);
/* Whether the slope is known to the resolution standard whichever estimator is believed: the
 * fit resolved (pb_fit_resolved), and the robust slope inside its CI or, outside it, the CI
 * and the robust slope's distance summed within PB_FIT_MAX_REL_CI of the slope. A robust slope
 * outside a CI much tighter than the standard (±1 % with Theil–Sen 1.1 % off) still knows the
 * cost to ±10 %; one 8.8 % off a ±6 % CI (pairs that bend with the rate) does not; one inside
 * a ±9.3 % CI is as before. NaN anywhere fails. */
bool pb_fit_robustly_resolved(const struct pb_fit *fit, double robust_slope);

/* A fitted per-sample cost is only a cost when it stands clear of the noise: slope > 0 and
 * the 95 % CI half-width within PB_FIT_MAX_REL_CI of the slope. R² is no part of it (issue
 * 27): it measures the design's spread of samples against the noise, and falls as pairs are
 * added at the same spread while the CI narrows. A cost fit that fails this is reported but
 * never used to predict or plan. */
#define PB_FIT_MAX_REL_CI 0.10
bool pb_fit_resolved(const struct pb_fit *fit);
/* The same rule for any cost and its 95 % half-width (a per-event cost, a target's own cost, a
 * cost moved by its span): value > 0 and ci95 within PB_FIT_MAX_REL_CI of it; a NaN fails. */
bool pb_cost_resolved(double value, double ci95);

/* The order in which round `round` of a repeated sweep visits its n settings: a shuffle fixed
 * by the round (the same in every run of the program), whose first setting is not *last, the
 * one the previous round ended with (n > 1; start with *last = n); *last is set to this
 * round's last. A fixed or reversing order lets drift or a burst of load on the machine
 * follow the settings. */
void pb_round_order(unsigned *order, unsigned n, unsigned round, unsigned *last);

/* One run of a sweep: x samples taken, y elapsed ns, at period. */
struct pb_xy {
	double x, y;
	uint64_t period;
};

/* The fastest run (smallest y) of each distinct period among n runs in any order, into out
 * (room for n), in the order the periods first appear; returns how many. */
size_t pb_fastest_per_period(const struct pb_xy *xy, size_t n, struct pb_xy *out);

/* The main study's accuracy: 100 - |observed - expected| / expected * 100 (may be negative when
 * observed is over twice expected). expected 0: 100 if observed is 0, else 0. */
double pb_accuracy(double observed, double expected);

#endif
