#include "analysis/stats.h"
#include "util/kit.h"
#include "util/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double pb_median(const double *values, size_t n)
{
	if (!n)
		return 0;
	double stack[64];
	double *sorted = n <= 64 ? stack : malloc(n * sizeof *sorted);
	if (!sorted)
		return NAN;
	memcpy(sorted, values, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, compare_doubles);
	double m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	if (sorted != stack)
		free(sorted);
	return m;
}

double pb_window_median(const double *values, size_t n, size_t i, size_t half)
{
	size_t from = i > half ? i - half : 0;
	size_t to = i + half + 1 < n ? i + half + 1 : n;
	return pb_median(values + from, to - from);
}

double pb_t95(size_t df)
{
	static const double table[] = {
		0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074,  2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	/* Beyond the table, the usual printed anchors (the last is df = infinity): t is nearly
	 * linear in 1/df there, so interpolating in 1/df stays within 0.001 of the exact value. */
	static const struct { double df, t; } anchors[] = {
		{30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {INFINITY, 1.960},
	};
	if (df == 0)
		return INFINITY;
	if (df < PB_ARRAY_SIZE(table))
		return table[df];
	double x = 1.0 / (double)df;
	for (size_t i = 1; i < PB_ARRAY_SIZE(anchors); i++) {
		if ((double)df > anchors[i].df)
			continue;
		double x0 = 1.0 / anchors[i - 1].df, x1 = 1.0 / anchors[i].df;
		return anchors[i].t + (anchors[i - 1].t - anchors[i].t) * (x - x1) / (x0 - x1);
	}
	return anchors[0].t; /* not reached: the last anchor is infinity */
}

void pb_stdev_ci95(double s, size_t df, double *lo, double *hi)
{
	const double z = 1.959964; /* the normal distribution's 97.5 % quantile */
	double k = 2.0 / (9.0 * (double)df);
	double upper = (double)df * pow(1 - k + z * sqrt(k), 3);
	double lower = (double)df * pow(1 - k - z * sqrt(k), 3);
	*lo = s * sqrt((double)df / upper);
	*hi = lower > 0 ? s * sqrt((double)df / lower) : INFINITY;
}

void pb_summarize(const double *values, size_t n, struct pb_summary *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (!n)
		return;
	double sum = 0;
	out->min = out->max = values[0];
	for (size_t i = 0; i < n; i++) {
		sum += values[i];
		if (values[i] < out->min)
			out->min = values[i];
		if (values[i] > out->max)
			out->max = values[i];
	}
	out->mean = sum / (double)n;
	double squares = 0;
	for (size_t i = 0; i < n; i++)
		squares += (values[i] - out->mean) * (values[i] - out->mean);
	out->stdev = n > 1 ? sqrt(squares / (double)(n - 1)) : 0;
	out->median = pb_median(values, n);
	out->ci95 = n > 1 ? pb_t95(n - 1) * out->stdev / sqrt((double)n) : 0;
	out->rel_stdev = out->mean != 0 ? 100 * out->stdev / fabs(out->mean) : 0;
}

/* A point's weight, 1 / scale^2; 1 without scales. */
static double weight_of(const double *scale, size_t i)
{
	return scale ? 1 / (scale[i] * scale[i]) : 1;
}

/* Whether every scale is a size a noise can have: finite and above 0 (or there are none). */
static bool scales_usable(const double *scale, size_t n)
{
	for (size_t i = 0; scale && i < n; i++)
		if (!(scale[i] > 0) || !isfinite(scale[i]))
			return false;
	return true;
}

int pb_linear_fit(const double *x, const double *y, size_t n, struct pb_fit *out)
{
	return pb_weighted_linear_fit(x, y, NULL, n, out);
}

int pb_weighted_linear_fit(const double *x, const double *y, const double *scale, size_t n,
			   struct pb_fit *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (n < 3 || !scales_usable(scale, n))
		return -1;
	double sw = 0, mx = 0, my = 0;
	for (size_t i = 0; i < n; i++) {
		double w = weight_of(scale, i);
		sw += w;
		mx += w * x[i];
		my += w * y[i];
	}
	mx /= sw;
	my /= sw;
	double sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double w = weight_of(scale, i);
		sxx += w * (x[i] - mx) * (x[i] - mx);
		sxy += w * (x[i] - mx) * (y[i] - my);
		syy += w * (y[i] - my) * (y[i] - my);
	}
	if (sxx == 0)
		return -1;
	out->slope = sxy / sxx;
	out->intercept = my - out->slope * mx;
	double residual = 0;
	for (size_t i = 0; i < n; i++) {
		double e = y[i] - (out->intercept + out->slope * x[i]);
		residual += weight_of(scale, i) * e * e;
	}
	out->r2 = syy > 0 ? 1 - residual / syy : 1;
	/* the variance of a point of scale 1: a point's is that times its scale squared */
	double s2 = residual / (double)(n - 2);
	out->slope_se = sqrt(s2 / sxx);
	out->slope_ci95 = pb_t95(n - 2) * out->slope_se;
	out->intercept_ci95 = pb_t95(n - 2) * sqrt(s2 * (1.0 / sw + mx * mx / sxx));
	return 0;
}

int pb_linear_fit2(const double *x1, const double *x2, const double *y, size_t n,
		   struct pb_fit2 *out)
{
	return pb_weighted_linear_fit2(x1, x2, y, NULL, n, out);
}

int pb_weighted_linear_fit2(const double *x1, const double *x2, const double *y,
			    const double *scale, size_t n, struct pb_fit2 *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (n < 4 || !scales_usable(scale, n))
		return -1;
	double sw = 0, m1 = 0, m2 = 0, my = 0;
	for (size_t i = 0; i < n; i++) {
		double w = weight_of(scale, i);
		sw += w;
		m1 += w * x1[i];
		m2 += w * x2[i];
		my += w * y[i];
	}
	m1 /= sw;
	m2 /= sw;
	my /= sw;
	/* centred sums: the constant's column drops out, leaving a 2 x 2 system */
	double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
	for (size_t i = 0; i < n; i++) {
		double w = weight_of(scale, i), d1 = x1[i] - m1, d2 = x2[i] - m2, dy = y[i] - my;
		s11 += w * d1 * d1;
		s12 += w * d1 * d2;
		s22 += w * d2 * d2;
		s1y += w * d1 * dy;
		s2y += w * d2 * dy;
	}
	double det = s11 * s22 - s12 * s12;
	/* collinear to rounding: the relative size of the determinant, as cos^2 of the angle
	 * between the centred columns is 1 - det / (s11 s22) */
	if (!(s11 > 0 && s22 > 0) || !(det > 1e-12 * s11 * s22))
		return -1;
	double i11 = s22 / det, i12 = -s12 / det, i22 = s11 / det;
	double b1 = i11 * s1y + i12 * s2y, b2 = i12 * s1y + i22 * s2y;
	double b0 = my - b1 * m1 - b2 * m2;
	double rss = 0;
	for (size_t i = 0; i < n; i++) {
		double e = y[i] - b0 - b1 * x1[i] - b2 * x2[i];
		rss += weight_of(scale, i) * e * e;
	}
	double s2 = rss / (double)(n - 3);
	out->coef[0] = b0;
	out->coef[1] = b1;
	out->coef[2] = b2;
	out->cov[1][1] = s2 * i11;
	out->cov[2][2] = s2 * i22;
	out->cov[1][2] = out->cov[2][1] = s2 * i12;
	/* b0 = my - m'b: var s^2 / sum w + m' cov m, cov(b0, b) = -cov m */
	out->cov[0][1] = out->cov[1][0] = -(out->cov[1][1] * m1 + out->cov[1][2] * m2);
	out->cov[0][2] = out->cov[2][0] = -(out->cov[2][1] * m1 + out->cov[2][2] * m2);
	out->cov[0][0] = s2 / sw + m1 * m1 * out->cov[1][1] + m2 * m2 * out->cov[2][2] +
			 2 * m1 * m2 * out->cov[1][2];
	out->t95 = pb_t95(n - 3);
	return 0;
}

double pb_fit2_at(const struct pb_fit2 *fit, const double c[3], double *ci95)
{
	double v = 0, var = 0;
	for (int j = 0; j < 3; j++) {
		v += fit->coef[j] * c[j];
		for (int k = 0; k < 3; k++)
			var += c[j] * fit->cov[j][k] * c[k];
	}
	if (ci95)
		*ci95 = fit->t95 * sqrt(var > 0 ? var : 0);
	return v;
}

double pb_rate_model_at(const struct pb_rate_model *rm, uint64_t period, double *ci95)
{
	if (!rm->fitted || !period || !rm->ref_period) {
		if (ci95)
			*ci95 = NAN;
		return NAN;
	}
	double held = fmin(fmax((double)period, (double)rm->ref_period), (double)rm->top_period);
	const double at[3] = {0, 1, log10(held / (double)rm->ref_period)};
	return pb_fit2_at(&rm->fit, at, ci95);
}

double pb_rate_model_per_decade(const struct pb_rate_model *rm, double *ci95)
{
	static const double b2[3] = {0, 0, 1};
	if (!rm->fitted) {
		if (ci95)
			*ci95 = NAN;
		return NAN;
	}
	return pb_fit2_at(&rm->fit, b2, ci95);
}

double pb_t_two_sided_cdf(double t, size_t df)
{
	if (!df || isnan(t))
		return NAN;
	double theta = atan(fabs(t) / sqrt((double)df));
	double c2 = cos(theta) * cos(theta), sum = 1, term = 1;
	if (df % 2) {
		/* odd: (2 / pi) (theta + sin cos (1 + 2/3 c2 + 2.4/3.5 c2^2 + ... c2^((df-3)/2))) */
		for (size_t k = 1; df > 1 && 2 * k + 1 <= df - 2; k++) {
			term *= (2.0 * (double)k) / (2.0 * (double)k + 1) * c2;
			sum += term;
		}
		double series = df > 1 ? sin(theta) * cos(theta) * sum : 0;
		return 2 / acos(-1.0) * (theta + series);
	}
	/* even: sin (1 + 1/2 c2 + 1.3/2.4 c2^2 + ... c2^((df-2)/2)) */
	for (size_t k = 1; 2 * k <= df - 2; k++) {
		term *= (2.0 * (double)k - 1) / (2.0 * (double)k) * c2;
		sum += term;
	}
	return sin(theta) * sum;
}

double pb_t_two_sided_quantile(double p, size_t df)
{
	if (!df || !(p >= 0) || !(p < 1))
		return NAN;
	/* the cdf rises from 0 at t = 0 to 1; halving an interval that holds p, to the doubles'
	 * precision */
	double lo = 0, hi = 1;
	while (pb_t_two_sided_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (pb_t_two_sided_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The externally studentized residual of each kept point (NaN where left out or undefined)
 * into t, in the weighted fit: y / scale on (1 / scale, x / scale), no intercept, which is
 * y on (1, x) when every scale is 1; without x, on 1 / scale alone (a constant). Returns -1
 * when the kept points give no line with a spread left over (fewer than 4, or x all equal;
 * without x, fewer than 3). */
static int studentized(const double *x, const double *y, const double *scale, size_t n,
		       const bool *left_out, double *t)
{
	size_t k = 0;
	double suu = 0, suv = 0, svv = 0, suy = 0, svy = 0;
	for (size_t i = 0; i < n; i++) {
		if (left_out[i])
			continue;
		double s = scale ? scale[i] : 1, u = 1 / s, v = x ? x[i] / s : 0, w = y[i] / s;
		suu += u * u;
		suv += u * v;
		svv += v * v;
		suy += u * w;
		svy += v * w;
		k++;
	}
	/* a constant is the line with b = 0: its leverage u^2 / suu, one parameter fewer */
	const size_t params = x ? 2 : 1;
	double det = x ? suu * svv - suv * suv : suu;
	if (k < params + 2 || !(det > 1e-12 * suu * (x ? svv : 1)))
		return -1;
	double a = x ? (svv * suy - suv * svy) / det : suy / suu;
	double b = x ? (suu * svy - suv * suy) / det : 0, rss = 0;
	for (size_t i = 0; i < n; i++) {
		t[i] = NAN;
		if (left_out[i])
			continue;
		double s = scale ? scale[i] : 1, r = (y[i] - a - b * (x ? x[i] : 0)) / s;
		rss += r * r;
		t[i] = r; /* the residual, until all of them are summed */
	}
	for (size_t i = 0; i < n; i++) {
		if (left_out[i])
			continue;
		double s = scale ? scale[i] : 1, u = 1 / s, v = x ? x[i] / s : 0, r = t[i];
		double h = x ? (svv * u * u - 2 * suv * u * v + suu * v * v) / det : u * u / suu;
		t[i] = NAN;
		if (!(h < 1))
			continue;
		/* the residuals' sum of squares of the fit without point i, over its df */
		double s2 = (rss - r * r / (1 - h)) / (double)(k - params - 1);
		if (s2 > 1e-24 * rss)
			t[i] = r / sqrt(s2 * (1 - h));
		else if (r != 0)
			t[i] = r > 0 ? INFINITY : -INFINITY; /* every other point on one line */
	}
	return 0;
}

size_t pb_fit_outliers(const double *x, const double *y, const double *scale, size_t n,
		       double alpha, size_t max_out, enum pb_outlier_side side, bool *left_out)
{
	const bool above = side == PB_OUTLIERS_ABOVE;
	for (size_t i = 0; i < n; i++)
		left_out[i] = false;
	if (!scales_usable(scale, n))
		return 0;
	double *t = malloc((n ? n : 1) * sizeof *t);
	size_t out = 0;
	while (t && out < max_out && !studentized(x, y, scale, n, left_out, t)) {
		size_t worst = n, kept = n - out;
		for (size_t i = 0; i < n; i++) {
			double d = above ? t[i] : fabs(t[i]);
			if (!isnan(d) && (worst == n || d > (above ? t[worst] : fabs(t[worst]))))
				worst = i;
		}
		/* one-sided at alpha / n is two-sided at 2 alpha / n */
		double level = 1 - (above ? 2 : 1) * alpha / (double)kept;
		double d = worst < n ? (above ? t[worst] : fabs(t[worst])) : NAN;
		if (!(d > pb_t_two_sided_quantile(level, kept - (x ? 3 : 2))))
			break;
		left_out[worst] = true;
		out++;
	}
	free(t);
	return out;
}

int pb_theil_sen(const double *x, const double *y, size_t n, double *slope, double *intercept)
{
	*slope = *intercept = NAN;
	if (n < 2 || n > (SIZE_MAX / sizeof(double)) / n)
		return -1;
	double *slopes = malloc(n * (n - 1) / 2 * sizeof *slopes);
	if (!slopes)
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (x[j] != x[i])
				slopes[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	if (!m) {
		free(slopes);
		return -1;
	}
	*slope = pb_median(slopes, m);
	/* The residuals reuse the buffer: n <= n (n - 1) / 2 once there are 3 points, and with
	 * 2 points m is 1 < n, so size the intercept's array apart in that case. */
	double *rest = n <= n * (n - 1) / 2 ? slopes : malloc(n * sizeof *rest);
	if (!rest) {
		free(slopes);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		rest[i] = y[i] - *slope * x[i];
	*intercept = pb_median(rest, n);
	if (rest != slopes)
		free(rest);
	free(slopes);
	return 0;
}

bool pb_fit_disagrees(const struct pb_fit *fit, double robust_slope)
{
	return !(fabs(robust_slope - fit->slope) <= fit->slope_ci95);
}

bool pb_fit_robustly_resolved(const struct pb_fit *fit, double robust_slope)
{
	return pb_fit_resolved(fit) &&
	       (!pb_fit_disagrees(fit, robust_slope) ||
		fabs(robust_slope - fit->slope) + fit->slope_ci95 <= PB_FIT_MAX_REL_CI * fit->slope);
}

bool pb_cost_resolved(double value, double ci95)
{
	/* Written so that a NaN anywhere fails. */
	return value > 0 && ci95 <= PB_FIT_MAX_REL_CI * value;
}

bool pb_fit_resolved(const struct pb_fit *fit)
{
	return pb_cost_resolved(fit->slope, fit->slope_ci95);
}

size_t pb_fastest_per_period(const struct pb_xy *xy, size_t n, struct pb_xy *out)
{
	size_t nout = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < nout && out[j].period != xy[i].period)
			j++;
		if (j == nout)
			out[nout++] = xy[i];
		else if (xy[i].y < out[j].y)
			out[j] = xy[i];
	}
	return nout;
}

void pb_round_order(unsigned *order, unsigned n, unsigned round, unsigned *last)
{
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	/* seeded by the round (spread by the golden ratio): neighbouring rounds get unrelated
	 * orders */
	struct pb_rng rng;
	pb_rng_seed(&rng, (uint64_t)round * 0x9e3779b97f4a7c15ull);
	for (unsigned i = n; i > 1; i--) {
		uint64_t x = pb_rng_next(&rng);
		unsigned j = (unsigned)(x % i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	if (n > 1 && order[0] == *last) {
		unsigned t = order[0];
		order[0] = order[n - 1];
		order[n - 1] = t;
	}
	*last = n ? order[n - 1] : 0;
}

double pb_accuracy(double observed, double expected)
{
	if (expected == 0)
		return observed == 0 ? 100 : 0;
	return 100 - fabs(observed - expected) / expected * 100;
}

void pb_wilson95(double k, double n, double *lo, double *hi)
{
	const double z = 1.96;
	double phat = k / n, den = 1 + z * z / n;
	double centre = (phat + z * z / (2 * n)) / den;
	double half = z * sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / den;
	*lo = centre - half;
	*hi = centre + half;
}
