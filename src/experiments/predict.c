#include "experiments/predict.h"

#include "ring/ring.h"
#include "session/process.h"
#include "util/kit.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double pb_predict_time_ns(double baseline_ns, double ns_per_sample, double samples,
			  unsigned threads)
{
	return baseline_ns + ns_per_sample * samples / (threads ? threads : 1);
}

double pb_prediction_error_pct(double measured_ns, double predicted_ns)
{
	return predicted_ns > 0 ? (measured_ns - predicted_ns) / predicted_ns * 100.0 : NAN;
}

int pb_period_for_budget_on_line(struct pb_slowdown_model *m, const struct pb_rate_model *rm,
				 double budget_pct, struct pb_budget_period *out, double *ci95)
{
	struct pb_slowdown_model line = *m;
	struct pb_budget_period at = *out;
	double ci = NAN;
	for (int step = 0; step < 4; step++) {
		line.ns_per_sample = pb_rate_model_at(rm, at.period, &ci);
		if (!(line.ns_per_sample > 0) || !isfinite(ci) ||
		    pb_period_for_budget(&line, budget_pct, &at, NULL))
			return -1;
	}
	/* the cost said is the one at the period it gave */
	line.ns_per_sample = pb_rate_model_at(rm, at.period, &ci);
	if (!(line.ns_per_sample > 0))
		return -1;
	*m = line;
	*out = at;
	if (ci95)
		*ci95 = ci;
	return 0;
}

double pb_slowdown_samples(const struct pb_slowdown_model *m, uint64_t period)
{
	if (!period)
		return -1;
	if (m->time_based) {
		double p = (double)period;
		return p > m->ns_per_sample ? m->baseline_ns / (p - m->ns_per_sample) : -1;
	}
	return m->events / (double)period;
}

double pb_model_time_ns(const struct pb_slowdown_model *m, uint64_t period)
{
	double n = pb_slowdown_samples(m, period);
	if (n < 0)
		return -1;
	double events = m->time_based ? 0 : m->events;
	return m->baseline_ns + m->ns_per_event * events + m->ns_per_sample * n;
}

double pb_slowdown_overhead_pct(const struct pb_slowdown_model *m, uint64_t period)
{
	double t = pb_model_time_ns(m, period);
	if (t < 0 || m->baseline_ns <= 0)
		return -1;
	return (t - m->baseline_ns) / m->baseline_ns * 100.0;
}

double pb_slowdown_overhead_ci95_pp(const struct pb_slowdown_model *m, uint64_t period)
{
	double ci = m->ns_per_sample_ci95;
	if (!isfinite(ci))
		return NAN;
	if (ci == 0)
		return 0;
	struct pb_slowdown_model lo = *m, hi = *m;
	lo.ns_per_sample -= ci;
	hi.ns_per_sample += ci;
	double a = pb_slowdown_overhead_pct(&lo, period), b = pb_slowdown_overhead_pct(&hi, period);
	/* the dearer end may leave no samples at this period (a timer's cost above it) */
	return a >= 0 && b >= 0 ? (b - a) / 2 : NAN;
}

int pb_period_for_budget(const struct pb_slowdown_model *m, double budget_pct, struct pb_budget_period *out,
		   struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	if (!(budget_pct > 0))
		return pb_fail(err, PB_EXIT_USAGE, 0, "the overhead budget must be above 0 %%");
	if (!(m->baseline_ns > 0))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "the command's run time without sampling is unknown or 0");
	if (!(m->ns_per_sample > 0))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "the cost of one sample is unknown or not positive (%.1f ns): "
			       "measure it with `pesbench run cost`", m->ns_per_sample);
	double b = budget_pct / 100.0, c = m->ns_per_sample, want;
	double event_share = m->time_based ? 0 : m->ns_per_event * m->events / m->baseline_ns;
	if (event_share >= b)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "no period fits a %.3g %% budget: the events alone cost %.3g %% (every "
			       "event traps, sampled or not)", budget_pct, event_share * 100);
	if (m->time_based)
		/* c / (P - c) <= b  <=>  P >= c (1 + b) / b */
		want = c * (1.0 + b) / b;
	else
		/* (e E + c E / P) / T0 <= b  <=>  P >= c E / ((b - e E / T0) T0) */
		want = c * m->events / ((b - event_share) * m->baseline_ns);
	/* Relative slack for rounding: the bound's float value (and the overhead computed back
	 * from a period) can differ from the exact one in the last bits, and with FMA
	 * contraction at -O2 they do; a period that meets the budget to 1e-9 meets it. */
	const double slack = 1e-9;
	uint64_t period = want >= 9.2e18 ? UINT64_MAX / 2 : (uint64_t)ceil(want * (1 - slack));
	if (period < m->min_period)
		period = m->min_period;
	if (period < 1)
		period = 1;
	/* ceil() of a float can land one below the exact bound: step up until it holds. */
	while (pb_slowdown_overhead_pct(m, period) > budget_pct * (1 + slack) ||
	       pb_slowdown_overhead_pct(m, period) < 0)
		period++;
	out->period = period;
	out->samples = pb_slowdown_samples(m, period);
	out->overhead_pct = pb_slowdown_overhead_pct(m, period);
	out->predicted_ns = pb_model_time_ns(m, period);
	double per_100ms = out->predicted_ns > 0 ? out->samples * 1e8 / out->predicted_ns : 0;
	unsigned bytes = m->record_bytes ? m->record_bytes : 64;
	out->ring_pages = pb_ring_pages_for((uint64_t)(per_100ms * bytes), 4096);
	if (out->ring_pages < 8)
		out->ring_pages = 8;
	return 0;
}

int pb_site_cost_pick(const struct pb_site_cost *fits, size_t n, const char *target_class,
		      const char *target_site, const char *target_insn, char *why,
		      size_t why_len)
{
	if (why && why_len)
		why[0] = 0;
	if (!n) {
		pb_format(why, why_len, "not predicted: no cost fit was measured");
		return -1;
	}
	if (!target_class)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (fits[i].site_class && !strcmp(fits[i].site_class, target_class))
			return (int)i;
	pb_format(why, why_len, "not predicted: the per-event cost was measured on ");
	for (size_t i = 0; i < n; i++)
		pb_append(why, why_len, "%s%s %s (%s: %s)", i ? (i + 1 < n ? ", " : " and ") : "",
			  fits[i].site_class && fits[i].site_class[0] == 'e' ? "an" : "a",
			  fits[i].site_class ? fits[i].site_class : "unclassified", fits[i].site,
			  fits[i].insn);
	pb_append(why, why_len, " site; the target's site %s (%s) is %s, and a per-event cost "
		  "belongs to the probed instruction's class", target_site, target_insn,
		  target_class);
	return -1;
}

int pb_site_cost_sample_source(const struct pb_site_cost *fits, size_t n, int k)
{
	if (k < 0 || (size_t)k >= n)
		return -1;
	if (fits[k].resolved && (!fits[k].per_event || fits[k].event_resolved))
		return k;
	/* fits[0]'s per-event cost is not used, only its per-sample cost */
	if (k > 0 && fits[k].per_event && fits[k].event_resolved && fits[0].resolved)
		return 0;
	if (fits[k].per_event && fits[k].event_resolved && fits[k].sample_bounded)
		return k;
	return -1;
}

double pb_cost_pair_samples(const struct pb_cost_pair *p)
{
	return p->observed + p->lost;
}

unsigned pb_cost_sweep_periods(const struct pb_facility *f, uint64_t *out)
{
	const uint64_t *set = f->periods->cost;
	unsigned n = 0;
	if (!f->traps_every_event) {
		for (unsigned i = 0; i < PB_ARRAY_SIZE(f->periods->cost); i++)
			out[n++] = set[i];
		return n;
	}
	uint64_t least = f->min_period ? f->min_period : 1;
	const uint64_t ends[] = {set[0], set[1], 2 * least, least};
	for (unsigned i = 0; i < PB_ARRAY_SIZE(ends); i++)
		if (!n || ends[i] < out[n - 1])
			out[n++] = ends[i];
	return n;
}

int pb_program_measure(char *const *argv, char *const *env_set, const struct pb_spec *spec,
		       uint64_t period, unsigned ring_pages, int cpu,
		       struct pb_program_figures *out, struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	struct pb_process_config cfg = {
		.argv = argv,
		.env_set = env_set,
		.quiet = true,
		.ring_pages = ring_pages,
		.pin = cpu >= 0,
		.cpu = cpu >= 0 ? (unsigned)cpu : 0,
	};
	if (spec) {
		cfg.nevents = 1;
		cfg.events[0].spec = *spec;
		cfg.events[0].period = period;
		/* A timer over the whole program: its count is then its CPU time. */
		cfg.events[0].exclude_kernel = false;
	}
	struct pb_process_result *r = calloc(1, sizeof *r);
	if (!r)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	int rc = pb_process_run(&cfg, r, err);
	if (!rc) {
		out->wall_ns = r->wall_ns;
		out->cpu_ns = (uint64_t)r->rusage.ru_utime.tv_sec * 1000000000ull +
			      (uint64_t)r->rusage.ru_utime.tv_usec * 1000ull +
			      (uint64_t)r->rusage.ru_stime.tv_sec * 1000000000ull +
			      (uint64_t)r->rusage.ru_stime.tv_usec * 1000ull;
		out->main_cpu_ns = r->main_thread_cpu_ns;
		out->maxrss_kib = (uint64_t)r->rusage.ru_maxrss;
		out->exit_code = r->exit_code;
		out->signaled = r->signaled;
		out->unpinned = r->unpinned;
		out->unpinned_errno = r->unpinned_errno;
		if (spec) {
			out->samples = r->events[0].samples;
			out->lost = pb_event_lost(&r->events[0]);
			out->count = r->events[0].count;
		}
		if (r->signaled)
			rc = pb_fail(err, PB_EXIT_FAILURE, 0, "'%s' was killed by signal %d (%s)",
				     argv[0], r->term_signal, strsignal(r->term_signal));
		else if (r->exit_code)
			rc = pb_fail(err, PB_EXIT_FAILURE, 0,
				     "'%s' exited with status %d: a command must succeed to be "
				     "measured (run it by hand to see why)", argv[0], r->exit_code);
	}
	free(r);
	return rc;
}

/* The weight the fit gives slot i's pairs, the inverse of its extra time's variance in that
 * of a run of run_ns: a sampled run slowed by s is that much longer and (noise in proportion
 * to the run) that much noisier, and its baseline is a median of five partners (cost_fit.c). */
static double design_weight(const struct pb_cost_design_input *in, unsigned i)
{
	double s = in->run_ns > 0 && in->ns_per_sample > 0
			   ? fmax(0, in->ns_per_sample * (in->x[i] - in->run_x) / in->run_ns)
			   : 0;
	double base = in->baseline_ns > 0 && in->run_ns > 0 ? in->baseline_ns / in->run_ns : 1;
	return 1 / ((1 + s) * (1 + s) + PB_LOCAL_BASELINE_VARIANCE * base * base);
}

void pb_cost_design_size(const struct pb_cost_design_input *in, struct pb_cost_design *out)
{
	memset(out, 0, sizeof *out);
	out->rounds_needed = UINT_MAX;
	out->expected_rel_ci = NAN;
	/* a round's weighted slope has the variance noise^2 / Sxx, Sxx the weighted spread of x
	 * about its weighted mean */
	double sw = 0, swx = 0, sxx = 0;
	for (unsigned i = 0; i < in->nslots; i++) {
		double w = design_weight(in, i);
		out->round_s += in->pair_s[i];
		sw += w;
		swx += w * in->x[i];
	}
	unsigned k = in->nslots;
	double mean_x = k ? swx / sw : 0;
	for (unsigned i = 0; i < k; i++)
		sxx += design_weight(in, i) * (in->x[i] - mean_x) * (in->x[i] - mean_x);
	double sigma_y = k ? in->noise_ns : NAN;
	unsigned budget_rounds = out->round_s > 0 && in->seconds_left > 0
					 ? (unsigned)fmin(in->seconds_left / out->round_s, 1e6)
					 : 0;
	if (in->ns_per_sample > 0 && sxx > 0 && sigma_y >= 0) {
		/* t x sigma_y / sqrt(R Sxx) <= rel c; t of the df the rounds give, solved by a
		 * few steps from t = 2 */
		double want = PB_DESIGN_REL_CI * in->ns_per_sample, r = 1;
		for (int it = 0; it < 4; it++) {
			double t = pb_t95(r * k > 2 ? (size_t)(r * k) - 2 : 1);
			r = ceil(pow(t * sigma_y / want, 2) / sxx);
			if (r < 1)
				r = 1;
		}
		/* the intercept (the events' cost) to the same standard: its variance is
		 * sigma_y^2 (1 / sum w + mean_x^2 / Sxx) a round */
		if (in->events_cost_ns > 0) {
			double t = pb_t95(r * k > 2 ? (size_t)(r * k) - 2 : 1);
			double wi = PB_DESIGN_REL_CI * in->events_cost_ns;
			double ri = ceil(pow(t * sigma_y / wi, 2) *
					 (1.0 / sw + mean_x * mean_x / sxx));
			r = fmax(r, ri);
		}
		out->rounds_needed = r > 1e6 ? UINT_MAX : (unsigned)r;
	}
	unsigned r = out->rounds_needed < budget_rounds ? out->rounds_needed : budget_rounds;
	if (r < in->min_rounds)
		r = in->min_rounds;
	if (in->max_rounds && r > in->max_rounds)
		r = in->max_rounds;
	out->rounds = r ? r : 1;
	if (in->ns_per_sample > 0 && sxx > 0) {
		size_t n = (size_t)out->rounds * k;
		out->expected_rel_ci = pb_t95(n > 2 ? n - 2 : 1) * sigma_y /
				       sqrt(out->rounds * sxx) / in->ns_per_sample;
	}
}

/* How much narrower t makes the CI of rounds2 rounds than of rounds1 (nslots pairs a round,
 * two parameters fitted), beside the 1/sqrt(rounds) of the pairs themselves. */
static double t_ratio(unsigned rounds1, double rounds2, unsigned nslots)
{
	double n1 = (double)rounds1 * nslots, n2 = fmin(rounds2, 1e6) * nslots;
	return pb_t95(n2 > 2 ? (size_t)n2 - 2 : 1) / pb_t95(n1 > 2 ? (size_t)n1 - 2 : 1);
}

static double rel_ci_over(double rel_ci, unsigned rounds1, unsigned rounds2, unsigned nslots)
{
	return rel_ci * sqrt((double)rounds1 / rounds2) * t_ratio(rounds1, rounds2, nslots);
}

void pb_cost_redesign_size(double rel_ci, unsigned rounds, unsigned nslots, double round_s,
			   double seconds_left, unsigned min_rounds, unsigned max_rounds,
			   struct pb_cost_redesign *out)
{
	memset(out, 0, sizeof *out);
	out->expected_rel_ci = NAN;
	if (!(rel_ci > PB_FIT_MAX_REL_CI) || !isfinite(rel_ci) || !rounds || !nslots)
		return;
	/* t falls as the rounds grow: a few steps from the first's t */
	double r = rounds;
	for (int it = 0; it < 4; it++)
		r = ceil(rounds * pow(rel_ci * t_ratio(rounds, r, nslots) / PB_DESIGN_REL_CI, 2));
	out->rounds_needed = r > 1e6 ? UINT_MAX : (unsigned)r;
	unsigned afford = round_s > 0 && seconds_left > 0
				  ? (unsigned)fmin(seconds_left / round_s, 1e6)
				  : 0;
	unsigned n = out->rounds_needed < afford ? out->rounds_needed : afford;
	if (max_rounds && n > max_rounds)
		n = max_rounds;
	out->budget_limited = n < out->rounds_needed;
	if (n < (min_rounds ? min_rounds : 1) ||
	    !(rel_ci_over(rel_ci, rounds, n, nslots) <= PB_FIT_MAX_REL_CI)) {
		unsigned want = out->rounds_needed == UINT_MAX ? 0 : out->rounds_needed;
		out->expected_rel_ci = want ? rel_ci_over(rel_ci, rounds, want, nslots) : NAN;
		out->budget_limited = true;
		return;
	}
	out->rounds = n;
	out->expected_rel_ci = rel_ci_over(rel_ci, rounds, n, nslots);
}

bool pb_cost_pool_makes_redesign(const struct pb_cost_redesign *own,
				 const struct pb_cost_redesign *with_pool)
{
	return !own->rounds && with_pool->rounds;
}

double pb_cost_seconds_to_resolve(const struct pb_fit *f, double seconds_spent, bool *lower_bound)
{
	*lower_bound = !(f->slope > 0);
	double c = f->slope > 0 ? f->slope : f->slope + f->slope_ci95;
	if (!(c > 0) || !(f->slope_ci95 > 0) || !(seconds_spent > 0))
		return NAN;
	double ratio = f->slope_ci95 / (PB_FIT_MAX_REL_CI * c);
	return seconds_spent * ratio * ratio;
}

double pb_slowdown_tolerance_pp(double measured_slowdown_pct)
{
	return fmax(PB_SLOWDOWN_REL_TOL * fabs(measured_slowdown_pct), PB_SLOWDOWN_ABS_TOL_PP);
}

bool pb_slowdown_within(double predicted_pct, double measured_pct)
{
	return fabs(predicted_pct - measured_pct) <= pb_slowdown_tolerance_pp(measured_pct);
}

const char *pb_slowdown_verdict(double predicted_pct, double predicted_ci95_pp,
				double measured_pct, double measured_ci95_pp)
{
	if (!isfinite(predicted_pct) || !isfinite(measured_pct) || !isfinite(measured_ci95_pp) ||
	    !isfinite(predicted_ci95_pp))
		return "undecided";
	double err = fabs(predicted_pct - measured_pct);
	double err_ci95 = hypot(measured_ci95_pp, predicted_ci95_pp);
	/* the tolerance moves with the measured slowdown: judged at both ends of its CI */
	double tol_near = fmin(pb_slowdown_tolerance_pp(measured_pct - measured_ci95_pp),
			       pb_slowdown_tolerance_pp(measured_pct + measured_ci95_pp));
	double tol_far = fmax(pb_slowdown_tolerance_pp(measured_pct - measured_ci95_pp),
			      pb_slowdown_tolerance_pp(measured_pct + measured_ci95_pp));
	if (err + err_ci95 <= tol_near)
		return "within";
	if (err - err_ci95 > tol_far)
		return "outside";
	return "undecided";
}

static bool undecided(double predicted_pct, double predicted_ci95_pp, double measured_pct,
		      double measured_ci95_pp)
{
	return !strcmp(pb_slowdown_verdict(predicted_pct, predicted_ci95_pp, measured_pct,
					   measured_ci95_pp), "undecided");
}

unsigned pb_slowdown_rounds_to_decide(double predicted_pct, double predicted_ci95_pp,
				      double measured_pct, double measured_ci95_pp,
				      unsigned rounds)
{
	double ci = measured_ci95_pp;
	if (!isfinite(ci) || !(ci > 0) || !rounds ||
	    !undecided(predicted_pct, predicted_ci95_pp, measured_pct, ci))
		return 0;
	/* the widest interval that decides, found on the verdict's own rule (whose tolerance moves
	 * with the interval's ends): an error on the tolerance, or a prediction whose own
	 * interval spans it, is undecided at any width */
	double decides = 0, wide = ci;
	if (undecided(predicted_pct, predicted_ci95_pp, measured_pct, ci * 1e-9))
		return UINT_MAX;
	for (int i = 0; i < 60; i++) {
		double mid = (decides + wide) / 2;
		if (undecided(predicted_pct, predicted_ci95_pp, measured_pct, mid))
			wide = mid;
		else
			decides = mid;
	}
	if (!(decides > 0))
		return UINT_MAX;
	double n = ceil(rounds * (ci / decides) * (ci / decides));
	if (n <= rounds)
		n = rounds + 1.0;
	return n >= UINT_MAX ? UINT_MAX : (unsigned)n;
}

const char *pb_slowdown_undecided_why(double predicted_pct, double predicted_ci95_pp,
				      double measured_pct, char *buf, size_t len)
{
	/* the measured slowdown alone would decide it: the cost's interval keeps it undecided */
	if (isinf(predicted_ci95_pp))
		pb_format(buf, len, "no number of rounds decides it: the cost's interval reaches "
			  "the period, where a sample would leave the program no time, so the "
			  "prediction has no upper end; a cost known more precisely would decide "
			  "it");
	else if (isnan(predicted_ci95_pp))
		pb_format(buf, len, "no number of rounds decides it: the cost it is predicted with "
			  "has no interval, so neither has the prediction");
	else if (predicted_ci95_pp > 0 && !undecided(predicted_pct, 0, measured_pct, 0))
		pb_format(buf, len, "no number of rounds decides it: its error (%.2f pp) lies "
			  "within the prediction's own interval (±%.2f pp, from the cost's) of the "
			  "±%.2f pp allowed; a cost known more precisely would decide it",
			  fabs(predicted_pct - measured_pct), predicted_ci95_pp,
			  pb_slowdown_tolerance_pp(measured_pct));
	else
		pb_format(buf, len, "no number of rounds decides it: its error sits on the "
			  "tolerance");
	return buf;
}

bool pb_slowdown_precise(double predicted_pct, double ci95_pp)
{
	return isfinite(ci95_pp) && ci95_pp <= pb_slowdown_tolerance_pp(predicted_pct) / 2;
}

/* Of the rounds where use[r], those whose y sits far above the others' (PB_DISTURBED_ALPHA),
 * marked in out; returns how many, or -1 for more than `most`. */
static int far_above_the_rest(const double *y, const bool *use, unsigned n, unsigned most,
			      bool *out)
{
	double v[PB_PAIRED_MAX_ROUNDS];
	unsigned at[PB_PAIRED_MAX_ROUNDS], m = 0;
	bool marked[PB_PAIRED_MAX_ROUNDS];
	for (unsigned r = 0; r < n && m < PB_PAIRED_MAX_ROUNDS; r++)
		if (use[r]) {
			at[m] = r;
			v[m++] = y[r];
		}
	if (!most)
		return 0;
	/* one more than may be left out: that many far above is the noise's shape */
	size_t found = pb_fit_outliers(NULL, v, NULL, m, PB_DISTURBED_ALPHA, most + 1,
				       PB_OUTLIERS_ABOVE, marked);
	if (found > most)
		return -1;
	for (unsigned k = 0; k < m; k++)
		if (marked[k])
			out[at[k]] = true;
	return (int)found;
}

unsigned pb_paired_disturbed(const double *diff_ns, const double *base_ns, unsigned n,
			     bool *left_out, bool *base_out, bool *far_above)
{
	bool use[PB_PAIRED_MAX_ROUNDS] = {false}, base[PB_PAIRED_MAX_ROUNDS] = {false};
	for (unsigned r = 0; r < n; r++) {
		left_out[r] = false;
		if (base_out)
			base_out[r] = false;
	}
	if (n > PB_PAIRED_MAX_ROUNDS)
		n = PB_PAIRED_MAX_ROUNDS;
	unsigned usable = 0;
	for (unsigned r = 0; r < n; r++) {
		use[r] = isfinite(diff_ns[r]) && isfinite(base_ns[r]) && base_ns[r] > 0;
		usable += use[r];
	}
	/* the share is of the rounds measured: a baseline left out does not stop the second test */
	const unsigned most = usable / PB_DISTURBED_MAX_SHARE;
	int from_base = far_above_the_rest(base_ns, use, n, most, base);
	*far_above = from_base < 0;
	for (unsigned r = 0; r < n && from_base > 0; r++)
		if (base[r]) {
			left_out[r] = true;
			use[r] = false;
			if (base_out)
				base_out[r] = true;
		}
	int from_diff = far_above_the_rest(diff_ns, use, n, most, left_out);
	*far_above = *far_above || from_diff < 0;
	return (unsigned)((from_base > 0 ? from_base : 0) + (from_diff > 0 ? from_diff : 0));
}

unsigned pb_paired_slowdown(const double *diff_ns, const double *base_ns, unsigned n,
			    double *pct, double *ci95_pp)
{
	double *diff = malloc((n ? n : 1) * sizeof *diff), *base = malloc((n ? n : 1) * sizeof *base);
	unsigned used = 0;
	*pct = *ci95_pp = NAN;
	if (!diff || !base) {
		free(diff);
		free(base);
		return 0;
	}
	for (unsigned r = 0; r < n; r++)
		if (isfinite(diff_ns[r]) && isfinite(base_ns[r]) && base_ns[r] > 0) {
			diff[used] = diff_ns[r];
			base[used++] = base_ns[r];
		}
	if (used) {
		struct pb_summary sd, sb;
		pb_summarize(diff, used, &sd);
		pb_summarize(base, used, &sb);
		*pct = sd.mean / sb.mean * 100;
		if (used > 1) {
			double var_rel = sd.stdev * sd.stdev / used / (sb.mean * sb.mean) +
					 sd.mean * sd.mean * sb.stdev * sb.stdev / used /
						 (sb.mean * sb.mean * sb.mean * sb.mean);
			*ci95_pp = pb_t95(used - 1) * sqrt(var_rel) * 100;
		}
	}
	free(diff);
	free(base);
	return used;
}

void pb_unpaired_slowdown(const double *sampled_ns, unsigned ns, const double *base_ns,
			  unsigned nb, double *pct, double *ci95_pp)
{
	*pct = *ci95_pp = NAN;
	if (!ns || !nb)
		return;
	struct pb_summary s, b;
	pb_summarize(sampled_ns, ns, &s);
	pb_summarize(base_ns, nb, &b);
	if (!(b.mean > 0))
		return;
	*pct = (s.mean - b.mean) / b.mean * 100;
	if (ns < 2 || nb < 2)
		return;
	/* the ratio's variance, one term per mean */
	double from_sampled = s.stdev * s.stdev / ns / (b.mean * b.mean);
	double from_base = s.mean * s.mean * b.stdev * b.stdev / nb / pow(b.mean, 4);
	double var = from_sampled + from_base;
	double denom = from_sampled * from_sampled / (ns - 1) + from_base * from_base / (nb - 1);
	double df = denom > 0 ? var * var / denom : (double)(ns + nb - 2);
	*ci95_pp = pb_t95(df >= 1 ? (size_t)df : 1) * sqrt(var) * 100;
}

unsigned pb_paired_sample_cost(const double *extra_ns, const double *samples, unsigned n,
			       double *ns, double *ci95)
{
	double *cost = malloc((n ? n : 1) * sizeof *cost);
	unsigned used = 0;
	*ns = *ci95 = NAN;
	for (unsigned r = 0; cost && r < n; r++) {
		double c = extra_ns[r] / samples[r];
		if (samples[r] > 0 && isfinite(c))
			cost[used++] = c;
	}
	if (used >= 2) {
		struct pb_summary sum;
		pb_summarize(cost, used, &sum);
		*ns = sum.mean;
		*ci95 = pb_t95(used - 1) * sum.stdev / sqrt(used);
	}
	free(cost);
	return used;
}
