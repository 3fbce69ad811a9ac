#include "analysis/stats.h"
#include "check.h"
#include "util/kit.h"
#include "util/rng.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* A standard normal draw: Box-Muller from two uniforms, the first in (0, 1] */
static double std_normal(struct pb_rng *rng)
{
	double u1 = ((double)(pb_rng_next(rng) >> 11) + 1) / 9007199254740992.0;
	double u2 = (double)(pb_rng_next(rng) >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * acos(-1.0) * u2);
}

int main(void)
{
	const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct pb_summary s;
	pb_summarize(v, 8, &s);
	CHECK(near(s.mean, 5, 1e-12));
	CHECK(near(s.stdev, sqrt(32.0 / 7), 1e-12)); /* sample stdev */
	CHECK(near(s.median, 4.5, 1e-12));
	CHECK(s.min == 2 && s.max == 9);
	CHECK(near(s.ci95, 2.365 * sqrt(32.0 / 7) / sqrt(8), 1e-9));
	CHECK(near(s.rel_stdev, 100 * sqrt(32.0 / 7) / 5, 1e-9));

	const double odd[] = {9, 1, 5};
	CHECK(near(pb_median(odd, 3), 5, 0));
	/* A window of 2 on each side, clipped at both ends; an outlier in the window (90) does
	 * not move it. */
	const double run[] = {10, 12, 90, 11, 13, 14, 30};
	CHECK(near(pb_window_median(run, 7, 0, 2), 12, 0));      /* 10 12 90 */
	CHECK(near(pb_window_median(run, 7, 2, 2), 12, 0));      /* 10 12 90 11 13 */
	CHECK(near(pb_window_median(run, 7, 4, 2), 14, 0));      /* 90 11 13 14 30 */
	CHECK(near(pb_window_median(run, 7, 6, 2), 14, 0));      /* 13 14 30 */
	CHECK(near(pb_window_median(run, 7, 3, 0), 11, 0));      /* itself */
	CHECK(near(pb_window_median(run, 7, 3, 100), 13, 0));    /* all seven */
	pb_summarize(odd, 0, &s);
	CHECK(s.n == 0 && s.mean == 0);
	pb_summarize(odd, 1, &s);
	CHECK(s.stdev == 0 && s.ci95 == 0 && s.mean == 9);

	/* exact line: slope 250 ns per sample over 2 ms base */
	double x[] = {0, 1000, 2000, 4000, 8000}, y[5];
	for (int i = 0; i < 5; i++)
		y[i] = 2e6 + 250 * x[i];
	struct pb_fit f;
	CHECK(pb_linear_fit(x, y, 5, &f) == 0);
	CHECK(near(f.slope, 250, 1e-9) && near(f.intercept, 2e6, 1e-3));
	CHECK(near(f.r2, 1, 1e-12) && f.slope_ci95 < 1e-6);
	/* noisy line: CI grows and contains the true slope */
	double yn[] = {2e6 + 3000, 2e6 + 250e3 - 4000, 2e6 + 500e3 + 2000, 2e6 + 1e6 - 1000,
		       2e6 + 2e6 + 500};
	CHECK(pb_linear_fit(x, yn, 5, &f) == 0);
	CHECK(f.slope_ci95 > 0 && fabs(f.slope - 250) < f.slope_ci95 && f.r2 < 1 && f.r2 > 0.99);
	double same[] = {1, 1, 1};
	CHECK(pb_linear_fit(same, y, 3, &f) == -1);
	CHECK(pb_linear_fit(x, y, 2, &f) == -1);
	/* The intercept's CI: exact line 0, noisy line positive and holding the true 2 ms. */
	CHECK(pb_linear_fit(x, yn, 5, &f) == 0);
	CHECK(f.intercept_ci95 > 0 && fabs(f.intercept - 2e6) < f.intercept_ci95);

	/* Theil–Sen on the exact line gives it back; with two of eight runs slowed by another
	 * program (+3 ms, +5 ms) least squares moves off 250 ns by far more than its CI allows
	 * and Theil–Sen stays on it — the disagreement the cost experiment flags. */
	double ts, ti;
	CHECK(pb_theil_sen(x, y, 5, &ts, &ti) == 0);
	CHECK(near(ts, 250, 1e-9) && near(ti, 2e6, 1e-6));
	double xo[8], yo[8];
	for (int i = 0; i < 8; i++) {
		xo[i] = 1000.0 * (i + 1);
		yo[i] = 2e6 + 250 * xo[i] + (i % 2 ? 300 : -300);
	}
	yo[6] += 3e6;
	yo[7] += 5e6;
	CHECK(pb_linear_fit(xo, yo, 8, &f) == 0);
	CHECK(pb_theil_sen(xo, yo, 8, &ts, &ti) == 0);
	CHECK(fabs(ts - 250) < 5 && fabs(f.slope - 250) > 100);
	CHECK(pb_fit_disagrees(&f, ts));
	CHECK(!pb_fit_disagrees(&f, f.slope));
	CHECK(pb_fit_disagrees(&f, NAN));
	/* resolved whichever estimator is believed: the CI plus Theil–Sen's distance within
	 * ±10 %. The outliers above move least squares by far more. */
	CHECK(!pb_fit_robustly_resolved(&f, ts));
	struct pb_fit tight = {.slope = 15857, .slope_ci95 = 157};
	CHECK(pb_fit_disagrees(&tight, 16029));          /* outside a ±1 % CI, flagged ... */
	CHECK(pb_fit_robustly_resolved(&tight, 16029));  /* ... but known to ±2.1 % */
	struct pb_fit bent = {.slope = 21165, .slope_ci95 = 1281};
	CHECK(!pb_fit_robustly_resolved(&bent, 23020));  /* 6 % + 8.8 %: pairs that bend */
	/* inside the ±6.05 % CI as before; just outside it, the two summed pass ±10 % */
	CHECK(pb_fit_robustly_resolved(&bent, 21165 + 0.06 * 21165));
	CHECK(!pb_fit_robustly_resolved(&bent, 21165 + 0.061 * 21165));
	/* outside the ±0.99 % CI: up to 9 % off, the two summed stay within ±10 % */
	CHECK(pb_fit_robustly_resolved(&tight, 15857 * 1.09));
	CHECK(!pb_fit_robustly_resolved(&tight, 15857 * 1.091));
	CHECK(!pb_fit_robustly_resolved(&tight, NAN));
	/* inside a CI near the standard (238 ± 22 ns, Theil–Sen 236: suite of 01:49): resolved,
	 * as the rule always had it, though the two summed pass ±10 % */
	struct pb_fit near_edge = {.slope = 238.4, .slope_ci95 = 22.07};
	CHECK(pb_fit_robustly_resolved(&near_edge, 236.36));
	struct pb_fit wide = {.slope = 2000, .slope_ci95 = 600};
	CHECK(!pb_fit_robustly_resolved(&wide, 2000));
	CHECK(pb_theil_sen(same, y, 3, &ts, &ti) == -1 && isnan(ts));
	CHECK(pb_theil_sen(x, y, 1, &ts, &ti) == -1);
	/* two points: the one slope, and the intercept from both */
	CHECK(pb_theil_sen(x + 1, y + 1, 2, &ts, &ti) == 0 && near(ts, 250, 1e-9) &&
	      near(ti, 2e6, 1e-6));

	/* Round orders: each a permutation, never the previous round's last setting first, the
	 * same for the same round, and over 60 rounds every setting in every position (from 3
	 * settings on: with 2, the first is always the one the last round did not end with). */
	for (unsigned n = 1; n <= 7; n++) {
		unsigned last = n, seen_at[7][7] = {{0}};
		for (unsigned r = 0; r < 60; r++) {
			unsigned order[7], again[7], prev = last, last2 = prev;
			pb_round_order(order, n, r, &last);
			pb_round_order(again, n, r, &last2);
			CHECK(memcmp(order, again, n * sizeof *order) == 0);
			unsigned hits[7] = {0};
			for (unsigned k = 0; k < n; k++) {
				CHECK(order[k] < n);
				hits[order[k] < n ? order[k] : 0]++;
				seen_at[order[k] < n ? order[k] : 0][k]++;
			}
			for (unsigned k = 0; k < n; k++)
				CHECK(hits[k] == 1);
			CHECK(n == 1 || order[0] != prev);
			CHECK(last == order[n - 1]);
		}
		for (unsigned i = 0; i < n && n >= 3; i++)
			for (unsigned k = 0; k < n; k++)
				CHECK(seen_at[i][k] > 0);
	}

	CHECK(near(pb_accuracy(200081, 200040), 100 - 41.0 / 200040 * 100, 1e-9));
	CHECK(near(pb_accuracy(215689, 200040), 92.177, 1e-3)); /* the main study's IBS op figure */
	CHECK(pb_accuracy(0, 0) == 100 && pb_accuracy(5, 0) == 0);
	/* a standard deviation's interval against the printed chi-square quantiles (2.5 and
	 * 97.5 %): within 0.5 % from df = 10, 2.5 % at df = 5 */
	static const struct { size_t df; double q025, q975, tol; } chi2[] = {
		{5, 0.8312, 12.833, 0.025}, {10, 3.247, 20.483, 0.005},
		{20, 9.591, 34.170, 0.005}, {100, 74.222, 129.561, 0.005},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(chi2); i++) {
		double lo, hi, df = (double)chi2[i].df;
		pb_stdev_ci95(2.0, chi2[i].df, &lo, &hi);
		CHECK(fabs(lo / (2 * sqrt(df / chi2[i].q975)) - 1) < chi2[i].tol);
		CHECK(fabs(hi / (2 * sqrt(df / chi2[i].q025)) - 1) < chi2[i].tol);
	}
	{
		double lo, hi;
		pb_stdev_ci95(1.0, 1, &lo, &hi); /* one degree of freedom: no upper end */
		CHECK(lo > 0 && lo < 1 && hi > 1);
	}
	CHECK(near(pb_t95(4), 2.776, 0) && near(pb_t95(30), 2.042, 0));
	/* beyond 30: interpolated in 1/df between the printed anchors, not stepped */
	CHECK(pb_t95(35) > 2.021 && pb_t95(35) < 2.042);
	CHECK(pb_t95(50) > 2.000 && pb_t95(50) < 2.021);
	CHECK(near(pb_t95(40), 2.021, 1e-12) && near(pb_t95(60), 2.000, 1e-12));
	CHECK(near(pb_t95(120), 1.980, 1e-12));
	CHECK(near(pb_t95(1000), 1.962, 0.003) && pb_t95(1000) > 1.96);
	CHECK(near(pb_t95(80), 1.990, 0.001)); /* the exact value is 1.9901 */
	CHECK(pb_t95(SIZE_MAX) >= 1.96 && pb_t95(SIZE_MAX) < 1.9601);
	unsigned increases = 0;
	for (size_t df = 1; df < 2000; df++)
		increases += pb_t95(df + 1) > pb_t95(df);
	CHECK_EQ_U64(increases, 0);
	/* Student t at any level: the printed 95 % values, df = 1 (Cauchy: tan(0.975 pi / 2))
	 * and 2 (exact: 4.303), the 99 % ones, and the normal's at large df */
	for (size_t df = 1; df <= 30; df++)
		CHECK_MSG(near(pb_t_two_sided_quantile(0.95, df), pb_t95(df), 0.0015), "df %zu: %.4f",
			  df, pb_t_two_sided_quantile(0.95, df));
	CHECK(near(pb_t_two_sided_quantile(0.99, 10), 3.169, 0.001));
	CHECK(near(pb_t_two_sided_quantile(0.99, 13), 3.012, 0.001));
	CHECK(near(pb_t_two_sided_quantile(0.999, 5), 6.869, 0.002));
	CHECK(near(pb_t_two_sided_quantile(0.95, 100000), 1.960, 0.001));
	CHECK(near(pb_t_two_sided_cdf(2.160, 13), 0.95, 0.0005));
	CHECK(near(pb_t_two_sided_cdf(0, 7), 0, 1e-15));
	CHECK(isnan(pb_t_two_sided_quantile(1, 5)) && isnan(pb_t_two_sided_cdf(1, 0)));

	/* A disturbed pair on a noisy line: 16 points, y = 100 + 2x with +-1 alternating noise,
	 * and one 40 above it; the least-squares line's 95 % CI widens 5-fold with it in. */
	{
		double x[16], y[16];
		bool out[16];
		for (size_t i = 0; i < 16; i++) {
			x[i] = (double)(i % 4) * 10;
			y[i] = 100 + 2 * x[i] + ((i / 4) % 2 ? 1.0 : -1.0) * (i % 3 ? 1 : 0.5);
		}
		y[9] += 40;
		CHECK(pb_fit_outliers(x, y, NULL, 16, 0.01, 2, PB_OUTLIERS_BOTH, out) == 1);
		CHECK(out[9]);
		for (size_t i = 0; i < 16; i++)
			CHECK(out[i] == (i == 9));
		/* none left out at max_out 0; none from fewer than 4 points */
		CHECK(pb_fit_outliers(x, y, NULL, 16, 0.01, 0, PB_OUTLIERS_BOTH, out) == 0 && !out[9]);
		CHECK(pb_fit_outliers(x, y, NULL, 3, 0.01, 1, PB_OUTLIERS_BOTH, out) == 0);
		/* the same line without the disturbance: nothing left out */
		y[9] -= 40;
		CHECK(pb_fit_outliers(x, y, NULL, 16, 0.01, 2, PB_OUTLIERS_BOTH, out) == 0);
		/* two disturbances, at most two left out, most distant first */
		y[3] += 60;
		y[12] -= 45;
		CHECK(pb_fit_outliers(x, y, NULL, 16, 0.01, 2, PB_OUTLIERS_BOTH, out) == 2 && out[3] && out[12]);
		CHECK(pb_fit_outliers(x, y, NULL, 16, 0.01, 1, PB_OUTLIERS_BOTH, out) == 1 && out[3] &&
		      !out[12]);
		/* above the line only: the pair below it stays */
		CHECK(pb_fit_outliers(x, y, NULL, 16, 0.01, 2, PB_OUTLIERS_ABOVE, out) == 1 &&
		      out[3] && !out[12]);
	}
	/* Gaussian noise alone: over 400 fits of 16 points, a pair is left out in about alpha of
	 * them (1 %: at most 12 of 400 is more than 3 binomial SDs above 4) */
	{
		struct pb_rng rng;
		pb_rng_seed(&rng, 12345);
		size_t fits_with_one = 0;
		for (int f = 0; f < 400; f++) {
			double x[16], y[16];
			bool out[16];
			for (size_t i = 0; i < 16; i++) {
				x[i] = (double)(i % 5);
				y[i] = 3 * x[i] + std_normal(&rng);
			}
			fits_with_one += pb_fit_outliers(x, y, NULL, 16, 0.01, 2, PB_OUTLIERS_BOTH, out) > 0;
		}
		CHECK_MSG(fits_with_one <= 12, "%zu of 400 fits of pure noise left a point out",
			  fits_with_one);
	}
	/* Noise in proportion to the run, the runs twice as long at one end as at the other (the
	 * timer's sweep: 30 ms of work, 16 µs a sample, 30 to 1925 samples): weighted by the
	 * runs' lengths, still about alpha (a simulation of 2000 such sweeps: 1.05 %; unweighted,
	 * 5.9 %: the long runs' larger residuals passed for disturbances) */
	{
		static const double xs[20] = {1925, 1925, 1925, 1925, 1925, 1925, 30, 30, 30, 30,
					      30,   30,   900,  900,  363,  363,  166, 166, 63, 63};
		struct pb_rng rng;
		pb_rng_seed(&rng, 777);
		size_t weighted = 0, above = 0;
		for (int f = 0; f < 400; f++) {
			double y[20], run[20];
			bool out[20];
			for (size_t i = 0; i < 20; i++) {
				run[i] = 30e6 + 16000 * xs[i];
				y[i] = 16000 * xs[i] +
				       0.01 * run[i] * std_normal(&rng);
			}
			weighted += pb_fit_outliers(xs, y, run, 20, 0.01, 2, PB_OUTLIERS_BOTH, out) > 0;
			above += pb_fit_outliers(xs, y, run, 20, 0.01, 2, PB_OUTLIERS_ABOVE, out) > 0;
		}
		CHECK_MSG(weighted <= 12, "%zu of 400 weighted fits of noise left a point out",
			  weighted);
		CHECK_MSG(above <= 12, "%zu of 400 fits left a point above out", above);
		/* a scale not above 0 tests nothing */
		double y[20], bad[20];
		bool out[20];
		for (size_t i = 0; i < 20; i++) {
			y[i] = xs[i] + (i == 4 ? 1e6 : 0);
			bad[i] = i == 7 ? 0 : 1;
		}
		CHECK(pb_fit_outliers(xs, y, bad, 20, 0.01, 2, PB_OUTLIERS_BOTH, out) == 0);
		CHECK(pb_fit_outliers(xs, y, NULL, 20, 0.01, 2, PB_OUTLIERS_BOTH, out) == 1 && out[4]);
	}
	/* Without x: runs that should take the same time (a prediction's eight baselines). One a
	 * burst made 20 % longer is left out, and only it; worked by hand: the other seven's mean
	 * is 100 and their SD 1.0408, so t = 20 / (1.0408 x sqrt(1 + 1/7)) = 18.0 against the
	 * one-sided 1 - 0.01 / 8 quantile at 6 df, 4.98 */
	{
		double y[8] = {99, 101, 100, 98.5, 101.5, 100, 120, 100};
		bool out[8];
		CHECK(pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_ABOVE, out) == 1 &&
		      out[6]);
		for (size_t i = 0; i < 8; i++)
			CHECK(out[i] == (i == 6));
		/* a run as far below is the noise's (above only), or a disturbance (both sides) */
		y[6] = 80;
		CHECK(pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_ABOVE, out) == 0);
		CHECK(pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_BOTH, out) == 1 && out[6]);
		/* the same runs without it, and a constant of two points: nothing to test */
		y[6] = 100;
		CHECK(pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_ABOVE, out) == 0);
		CHECK(pb_fit_outliers(NULL, (const double[]){1, 100}, NULL, 2, 0.01, 1,
				      PB_OUTLIERS_BOTH, out) == 0);
		/* the threshold the hand-worked t is held against, and t itself just under it: kept */
		double level = pb_t_two_sided_quantile(1 - 2 * 0.01 / 8, 6);
		CHECK(near(level, 4.98, 0.01));
		double sd7 = 1.0408329997330663, at = level * sd7 * sqrt(1 + 1.0 / 7);
		y[6] = 100 + at * 0.999;
		CHECK(pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_ABOVE, out) == 0);
		y[6] = 100 + at * 1.001;
		CHECK(pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_ABOVE, out) == 1);
	}
	/* Gaussian runs alone: over 2000 sets of 8, one is left out in at most alpha of them
	 * (1 %: 20 expected; 35 is more than 3 binomial SDs above) */
	{
		struct pb_rng rng;
		pb_rng_seed(&rng, 4242);
		size_t sets_with_one = 0;
		for (int f = 0; f < 2000; f++) {
			double y[8];
			bool out[8];
			for (size_t i = 0; i < 8; i++) {
				y[i] = 30e6 * (1 + 0.02 * std_normal(&rng));
			}
			sets_with_one +=
				pb_fit_outliers(NULL, y, NULL, 8, 0.01, 1, PB_OUTLIERS_ABOVE, out) > 0;
		}
		CHECK_MSG(sets_with_one <= 35, "%zu of 2000 sets of noise left a run out",
			  sets_with_one);
	}

	/* Two regressors (the cost's rate model: samples, and samples times the decades of the
	 * period). An exact plane comes back exactly; against the same fit made the other way
	 * (the uncentred normal equations solved by Gauss-Jordan below) the coefficients and their
	 * covariance agree on noisy data; and on 1000 noisy samples of a known plane the 95 % CI
	 * of a combination holds the truth 95 % of the time (binomial: 1000 draws at 0.95 have a
	 * standard deviation of 0.69 points, so 92.9-97.1 % is three of them). */
	{
		double x1[12], x2[12], y[12];
		for (int i = 0; i < 12; i++) {
			x1[i] = 500.0 * (i % 4 + 1) * (i / 4 + 1);
			x2[i] = x1[i] * (i / 4);
			y[i] = 3e5 + 14000 * x1[i] + 2500 * x2[i];
		}
		struct pb_fit2 g;
		CHECK(pb_linear_fit2(x1, x2, y, 12, &g) == 0);
		CHECK(near(g.coef[1], 14000, 1e-6) && near(g.coef[2], 2500, 1e-6) &&
		      near(g.coef[0], 3e5, 1e-2));
		double at[3] = {0, 1, 0.5}, ci;
		CHECK(near(pb_fit2_at(&g, at, &ci), 15250, 1e-6) && ci < 1e-3);
		CHECK(pb_linear_fit2(x1, x2, y, 3, &g) == -1);
		CHECK(pb_linear_fit2(x1, x1, y, 12, &g) == -1); /* collinear */

		struct pb_rng rng;
		pb_rng_seed(&rng, 4242);
		unsigned covered = 0;
		for (int f = 0; f < 1000; f++) {
			for (int i = 0; i < 12; i++) {
				y[i] = 3e5 + 14000 * x1[i] + 2500 * x2[i] +
				       4e5 * std_normal(&rng);
			}
			CHECK(pb_linear_fit2(x1, x2, y, 12, &g) == 0);
			double v = pb_fit2_at(&g, at, &ci);
			covered += fabs(v - 15250) <= ci;
			if (f)
				continue;
			/* the other way: [X'X | I | X'y] reduced to [I | (X'X)^-1 | b] */
			double m[3][7] = {{0}};
			for (int i = 0; i < 12; i++) {
				double row[3] = {1, x1[i], x2[i]};
				for (int j = 0; j < 3; j++) {
					for (int k = 0; k < 3; k++)
						m[j][k] += row[j] * row[k];
					m[j][6] += row[j] * y[i];
				}
			}
			for (int j = 0; j < 3; j++)
				m[j][3 + j] = 1;
			for (int j = 0; j < 3; j++) {
				double d = m[j][j];
				for (int k = 0; k < 7; k++)
					m[j][k] /= d;
				for (int r = 0; r < 3; r++) {
					double t = m[r][j];
					for (int k = 0; r != j && k < 7; k++)
						m[r][k] -= t * m[j][k];
				}
			}
			double rss = 0;
			for (int i = 0; i < 12; i++) {
				double e = y[i] - m[0][6] - m[1][6] * x1[i] - m[2][6] * x2[i];
				rss += e * e;
			}
			for (int j = 0; j < 3; j++) {
				CHECK_MSG(near(g.coef[j], m[j][6], 1e-6 * fabs(m[j][6]) + 1e-6),
					  "coefficient %d: %g, the other way %g", j, g.coef[j], m[j][6]);
				for (int k = 0; k < 3; k++) {
					double c = rss / 9 * m[j][3 + k];
					CHECK_MSG(near(g.cov[j][k], c, 1e-6 * fabs(c)),
						  "cov[%d][%d]: %g, the other way %g", j, k,
						  g.cov[j][k], c);
				}
			}
		}
		CHECK_MSG(covered >= 929 && covered <= 971,
			  "the 95 %% CI held the truth in %u of 1000 fits", covered);
	}

	/* Weighted least squares. Scales all alike are unweighted least squares; a point of a huge
	 * scale pulls nothing; a scale not above 0 or not finite fits nothing. */
	{
		double x[8], y[8], same[8], huge[8];
		for (int i = 0; i < 8; i++) {
			x[i] = 100.0 * i;
			y[i] = 5000 + 12 * x[i] + ((i * 37) % 11 - 5) * 40.0;
			same[i] = 7;
			huge[i] = i == 5 ? 1e9 : 1;
		}
		struct pb_fit u, w, rest;
		CHECK(pb_linear_fit(x, y, 8, &u) == 0);
		CHECK(pb_weighted_linear_fit(x, y, same, 8, &w) == 0);
		CHECK(near(w.slope, u.slope, 1e-9 * fabs(u.slope)) &&
		      near(w.slope_ci95, u.slope_ci95, 1e-9 * u.slope_ci95) &&
		      near(w.intercept, u.intercept, 1e-9 * fabs(u.intercept)) &&
		      near(w.intercept_ci95, u.intercept_ci95, 1e-9 * u.intercept_ci95) &&
		      near(w.r2, u.r2, 1e-12));
		y[5] += 1e5;
		CHECK(pb_weighted_linear_fit(x, y, huge, 8, &w) == 0);
		double xr[7], yr[7];
		for (int i = 0, k = 0; i < 8; i++)
			if (i != 5) {
				xr[k] = x[i];
				yr[k++] = y[i];
			}
		CHECK(pb_linear_fit(xr, yr, 7, &rest) == 0);
		CHECK_MSG(near(w.slope, rest.slope, 1e-6 * fabs(rest.slope)) &&
			  near(w.intercept, rest.intercept, 1e-6 * fabs(rest.intercept)),
			  "weighted %g + %g x, without the point %g + %g x", w.intercept, w.slope,
			  rest.intercept, rest.slope);
		huge[2] = 0;
		CHECK(pb_weighted_linear_fit(x, y, huge, 8, &w) == -1);
		huge[2] = NAN;
		CHECK(pb_weighted_linear_fit(x, y, huge, 8, &w) == -1);

		struct pb_fit2 g, h;
		double x2[8];
		for (int i = 0; i < 8; i++)
			x2[i] = x[i] * (i % 3);
		CHECK(pb_linear_fit2(x, x2, y, 8, &g) == 0);
		CHECK(pb_weighted_linear_fit2(x, x2, y, same, 8, &h) == 0);
		for (int j = 0; j < 3; j++) {
			CHECK(near(h.coef[j], g.coef[j], 1e-9 * fabs(g.coef[j]) + 1e-9));
			for (int k = 0; k < 3; k++)
				CHECK(near(h.cov[j][k], g.cov[j][k],
					   1e-9 * fabs(g.cov[j][k]) + 1e-9));
		}
	}
	/* Noise whose size grows with x, as a sampled run's grows with its samples (here from 1 to
	 * 91 times, as 1 + x^2 / 4): over 1000 fits of a known line the weighted interval holds the
	 * slope 95 % of the time (929 to 971, as above), and the unweighted one, which takes every
	 * point's noise as the same, holds it less often than that (seen: 870 of 1000, where
	 * noise from 1 to 20 times gave 931): the noisy points are the ones far out in x that set
	 * the slope. The plane's b1 as the line's slope. */
	{
		struct pb_rng rng;
		pb_rng_seed(&rng, 9090);
		unsigned weighted = 0, unweighted = 0, plane = 0;
		double x[20], x2[20], y[20], scale[20];
		for (int i = 0; i < 20; i++) {
			x[i] = i;
			x2[i] = i * (i % 4);
			scale[i] = 1 + 0.25 * i * i;
		}
		for (int f = 0; f < 1000; f++) {
			for (int i = 0; i < 20; i++) {
				y[i] = 50 + 3 * x[i] + x2[i] +
				       scale[i] * std_normal(&rng);
			}
			struct pb_fit w, u;
			struct pb_fit2 g;
			CHECK(pb_weighted_linear_fit2(x, x2, y, scale, 20, &g) == 0);
			/* the line's slope is 3 plus what x2 adds along x: fit y - x2 */
			double yl[20];
			for (int i = 0; i < 20; i++)
				yl[i] = y[i] - x2[i];
			CHECK(pb_weighted_linear_fit(x, yl, scale, 20, &w) == 0);
			CHECK(pb_linear_fit(x, yl, 20, &u) == 0);
			weighted += fabs(w.slope - 3) <= w.slope_ci95;
			unweighted += fabs(u.slope - 3) <= u.slope_ci95;
			const double b1[3] = {0, 1, 0};
			double ci, v = pb_fit2_at(&g, b1, &ci);
			plane += fabs(v - 3) <= ci;
		}
		printf("weighted: the slope in %u of 1000 intervals, unweighted %u; the plane's b1 "
		       "in %u\n", weighted, unweighted, plane);
		CHECK_MSG(weighted >= 929 && weighted <= 971, "weighted held it in %u of 1000",
			  weighted);
		CHECK_MSG(plane >= 929 && plane <= 971, "the plane's held it in %u of 1000", plane);
		CHECK_MSG(unweighted < 929, "unweighted held it in %u of 1000: the noise's shape "
			  "does not tell the estimators apart", unweighted);
	}

	return pb_check_done("stats");
}
