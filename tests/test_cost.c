/* The cost model: the fit on constructed data, the prediction and planner arithmetic on a
 * constructed cost and rate, and a smoke run of the cost and buffer experiments whose figures
 * must add up exactly for an exact facility (bp:w). No timing is asserted. */
#include "analysis/stats.h"
#include "check.h"
#include "fixture.h"
#include "results_json.h"
#include "experiments/cost_parts.h"
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "experiments/predict.h"
#include "facilities/facility.h"
#include "io/rate_model.h"
#include "io/result_model.h"
#include "io/results.h"
#include "present/report_parts.h"
#include "sys/sys.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void test_fit(void)
{
	/* 5 periods x 2 runs: 250 ns per sample over a 2 ms run, with +-1 us of alternating
	 * noise that averages out at every x. */
	double x[10], y[10];
	for (int i = 0; i < 10; i++) {
		x[i] = 1000.0 * (i / 2 + 1);
		y[i] = 2e6 + 250.0 * x[i] + (i % 2 ? 1000.0 : -1000.0);
	}
	struct pb_fit f;
	CHECK(pb_linear_fit(x, y, 10, &f) == 0);
	CHECK(near(f.slope, 250, 1e-6));
	CHECK(near(f.intercept, 2e6, 1e-3));
	CHECK(f.r2 > 0.999 && f.r2 <= 1.0);
	CHECK(f.slope_ci95 > 0 && f.slope_ci95 < 5);
	double same[3] = {7, 7, 7};
	CHECK(pb_linear_fit(same, y, 3, &f) == -1);
}

/* A run of the sweep that failed keeps its error's message whole: a timer that failed its
 * self-test mid-run three times (a busy machine) said so in ~400 characters, which the fit's
 * 256 cut (test_cost under load, 2026-11-29, kind B: "1 text(s) cut short"). */
static void test_fit_failed_message(void)
{
	char attempts[641];
	memset(attempts, 'x', sizeof attempts - 1);
	attempts[sizeof attempts - 1] = '\0';
	struct pb_error err = {0};
	pb_fail(&err, PB_EXIT_UNAVAILABLE, 0, "timer:cpu-clock: self-test inexact: %.360s",
		attempts);
	struct cost_fit cf = {0};
	unsigned long cuts = pb_text_cuts;
	pb_cost_fit_failed(&cf, err.msg);
	CHECK_EQ_U64(pb_text_cuts, cuts);
	CHECK_MSG(!strcmp(cf.error, err.msg), "%zu of %zu characters kept", strlen(cf.error),
		  strlen(err.msg));
	CHECK(!pb_cost_fit_usable(&cf));
}

static void test_fit_resolved(void)
{
	/* A clean line: 250 ns per sample, +-1 us of noise over 2 ms runs. */
	double x[10], y[10];
	for (int i = 0; i < 10; i++) {
		x[i] = 1000.0 * (i / 2 + 1);
		y[i] = 2e6 + 250.0 * x[i] + (i % 2 ? 1000.0 : -1000.0);
	}
	struct pb_fit f;
	CHECK(pb_linear_fit(x, y, 10, &f) == 0);
	CHECK(pb_fit_resolved(&f));
	/* The same slope under noise of 400 us, alternating with the period: R² and the CI
	 * both fail. */
	for (int i = 0; i < 10; i++)
		y[i] = 2e6 + 250.0 * x[i] + ((i / 2) % 2 ? 4e5 : -4e5);
	CHECK(pb_linear_fit(x, y, 10, &f) == 0);
	CHECK(f.slope_ci95 > 0.10 * f.slope);
	CHECK(!pb_fit_resolved(&f));
	/* The rule's edges (CI within 10 % of a positive slope), on constructed fits: each
	 * condition alone refuses. */
	struct pb_fit ok = {.n = 5, .slope = 1000, .slope_ci95 = 100, .r2 = 0.99};
	CHECK(pb_fit_resolved(&ok));
	struct pb_fit wide = ok;
	wide.slope_ci95 = 101; /* CI just over 10 % of the slope, R² high */
	wide.r2 = 0.999;
	CHECK(!pb_fit_resolved(&wide));
	/* R² is no part of the rule (issue 27): a CI within 10 % is a known cost whatever the
	 * spread of the design's samples makes R² */
	struct pb_fit low_r2 = ok;
	low_r2.r2 = 0.5;
	CHECK(pb_fit_resolved(&low_r2));
	struct pb_fit negative = ok;
	negative.slope = -1000; /* bp:w's -16247 +- 178006 is of this kind */
	negative.slope_ci95 = 10;
	negative.r2 = 0.99;
	CHECK(!pb_fit_resolved(&negative));
	struct pb_fit zero = {0};
	CHECK(!pb_fit_resolved(&zero));
	struct pb_fit nan_fit = ok;
	nan_fit.slope_ci95 = NAN;
	CHECK(!pb_fit_resolved(&nan_fit));
}

/* Runs of three periods in no order, as interleaved rounds or a retry leave them: the fastest
 * run of each period is kept, whatever its position. */
static void test_fastest_per_period(void)
{
	const struct pb_xy runs[] = {
		{.x = 10, .y = 500, .period = 64},  {.x = 40, .y = 900, .period = 4},
		{.x = 10, .y = 450, .period = 64},  {.x = 20, .y = 700, .period = 16},
		{.x = 41, .y = 800, .period = 4},   {.x = 20, .y = 750, .period = 16},
		{.x = 40, .y = 1000, .period = 4},  {.x = 21, .y = 650, .period = 16},
		{.x = 11, .y = 470, .period = 64},
	};
	struct pb_xy out[9];
	size_t n = pb_fastest_per_period(runs, 9, out);
	CHECK_EQ_U64(n, 3);
	bool seen[3] = {false};
	for (size_t i = 0; i < n; i++) {
		if (out[i].period == 64) {
			seen[0] = true;
			CHECK(out[i].y == 450 && out[i].x == 10);
		} else if (out[i].period == 16) {
			seen[1] = true;
			CHECK(out[i].y == 650 && out[i].x == 21);
		} else if (out[i].period == 4) {
			seen[2] = true;
			CHECK(out[i].y == 800 && out[i].x == 41);
		} else {
			CHECK(!"a period that was not in the runs");
		}
	}
	CHECK(seen[0] && seen[1] && seen[2]);
	CHECK_EQ_U64(pb_fastest_per_period(runs, 0, out), 0);
	/* One period only: one point, its fastest run. */
	CHECK_EQ_U64(pb_fastest_per_period(runs + 1, 1, out), 1);
	CHECK(out[0].period == 4 && out[0].y == 900);
}

/* A sweep pair whose run lost samples for want of room in the ring: the fit counts every
 * sample taken, and the row says what was kept and what was lost, adding up to the expected
 * count as every other row does (it once wrote kept + lost as observed, so that a loss under
 * load counted twice and an exact facility's row no longer added up). */
static void test_pair_row(void)
{
	struct pb_cost_pair pr = {.period = 4, .observed = 9000, .lost = 1000, .events = 40000,
				  .expected = 10000, .cpu = 3e6, .base_cpu = 2e6, .wall = 3.1e6,
				  .base_wall = 2.1e6};
	CHECK(pb_cost_pair_samples(&pr) == 10000);
	struct pb_rset row = {0};
	pb_cost_pair_record(&row, &pr, 2);
	CHECK_EQ_U64(pb_rset_get_int(&row, "observed"), 9000);
	CHECK_EQ_U64(pb_rset_get_int(&row, "lost"), 1000);
	bool ok = false;
	double expected = pb_rset_get_number(&row, "expected", &ok);
	CHECK(ok);
	CHECK_EQ_U64((uint64_t)(pb_rset_get_int(&row, "observed") + pb_rset_get_int(&row, "lost")),
		     (uint64_t)expected);
	CHECK_EQ_U64(pb_rset_get_int(&row, "run"), 2);
	pb_rset_clear(&row);
}

static void test_predict(void)
{
	/* 1 s baseline, 10 us per sample, 20000 samples on 2 threads: 1.1 s */
	CHECK(near(pb_predict_time_ns(1e9, 10000, 20000, 2), 1.1e9, 1e-3));
	CHECK(near(pb_predict_time_ns(1e9, 10000, 20000, 1), 1.2e9, 1e-3));
	CHECK(near(pb_prediction_error_pct(1.21e9, 1.1e9), 10.0, 1e-9));
	CHECK(near(pb_prediction_error_pct(0.99e9, 1.1e9), -10.0, 1e-9));
	CHECK(isnan(pb_prediction_error_pct(1, 0)));
}

static void test_plan(void)
{
	struct pb_error err = {0};
	struct pb_budget_period r;
	/* Timer: c / (P - c) <= b. c = 10 us, b = 10 % -> P = 110 us exactly. */
	struct pb_slowdown_model timer = {.baseline_ns = 1e9, .time_based = true,
				      .ns_per_sample = 10000, .min_period = 10000,
				      .record_bytes = 48};
	CHECK(pb_period_for_budget(&timer, 10, &r, &err) == 0);
	CHECK_EQ_U64(r.period, 110000);
	CHECK(near(r.overhead_pct, 10.0, 1e-9));
	CHECK(pb_slowdown_overhead_pct(&timer, 109999) > 10.0);
	CHECK(near(r.samples, 1e9 / 100000.0, 1e-6));
	CHECK(near(r.predicted_ns, 1.1e9, 1e-3));
	/* 10000 samples in 1.1 s -> 909 in 100 ms x 48 bytes = 43632 bytes -> 16 pages */
	CHECK_EQ_U64(r.ring_pages, 16);
	CHECK(pb_slowdown_overhead_pct(&timer, 10000) < 0); /* never ends */

	/* Events: c E / (P T0) <= b. 1e8 events in 1 s, 500 ns per sample, 5 % -> P = 1000. */
	struct pb_slowdown_model ev = {.baseline_ns = 1e9, .events = 1e8, .ns_per_sample = 500,
				   .min_period = 1, .record_bytes = 48};
	CHECK(pb_period_for_budget(&ev, 5, &r, &err) == 0);
	CHECK_EQ_U64(r.period, 1000);
	CHECK(near(r.samples, 1e5, 1e-6));
	CHECK(near(r.overhead_pct, 5.0, 1e-9));
	CHECK(pb_slowdown_overhead_pct(&ev, 999) > 5.0);
	/* 1e5 samples in 1.05 s -> 9524 per 100 ms x 48 bytes = 457 kB -> 128 pages */
	CHECK_EQ_U64(r.ring_pages, 128);
	/* A program with few events: the ring floor of 8 pages. */
	ev.events = 1e3;
	CHECK(pb_period_for_budget(&ev, 5, &r, &err) == 0);
	CHECK_EQ_U64(r.period, 1);
	CHECK_EQ_U64(r.ring_pages, 8);
	ev.events = 1e8;
	/* A generous budget is clamped to the facility's minimum period. */
	ev.min_period = 50000;
	CHECK(pb_period_for_budget(&ev, 5, &r, &err) == 0);
	CHECK_EQ_U64(r.period, 50000);
	/* Bad input */
	CHECK(pb_period_for_budget(&ev, 0, &r, &err) == -1 && err.code == PB_EXIT_USAGE);
	CHECK(pb_period_for_budget(&ev, -3, &r, &err) == -1 && err.code == PB_EXIT_USAGE);
	ev.ns_per_sample = 0;
	CHECK(pb_period_for_budget(&ev, 5, &r, &err) == -1 && err.code == PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "cost of one sample");

	/* A trapping facility: 1e6 events in 1 s at 20 ns each are 2 % before any sample, so a
	 * 5 % budget leaves 3 % for samples of 500 ns: P >= 500 x 1e6 / (0.03 x 1e9) = 16.7 ->
	 * 17; the model's time at that period holds both terms. */
	struct pb_slowdown_model trap = {.baseline_ns = 1e9, .events = 1e6, .ns_per_sample = 500,
				     .ns_per_event = 20, .min_period = 1, .record_bytes = 48};
	CHECK(near(pb_model_time_ns(&trap, 10), 1e9 + 2e7 + 5e7, 1e-3));
	CHECK(pb_period_for_budget(&trap, 5, &r, &err) == 0);
	CHECK_EQ_U64(r.period, 17);
	CHECK(r.overhead_pct <= 5.0 && pb_slowdown_overhead_pct(&trap, 16) > 5.0);
	CHECK(near(r.predicted_ns, 1e9 + 2e7 + 500 * 1e6 / 17, 1e-3));
	/* the events alone over the budget: no period helps, and plan says why */
	CHECK(pb_period_for_budget(&trap, 2, &r, &err) == -1 && err.code == PB_EXIT_FAILURE);
	CHECK_STR_CONTAINS(err.msg, "the events alone cost");
	/* a timer: the event term never applies, n = T0 / (P - c) */
	struct pb_slowdown_model t2 = timer;
	t2.events = 1e6;
	t2.ns_per_event = 20;
	CHECK(near(pb_model_time_ns(&t2, 110000), 1.1e9, 1e-3));
	CHECK(pb_model_time_ns(&t2, 10000) < 0);
}

/* The design's arithmetic on constructed figures: a two-end design, 1 ms of noise per run, a
 * pilot of 10 us per sample. */
static void test_design(void)
{
	const double x[4] = {0, 0, 1000, 1000};
	const double pair_s[4] = {0.1, 0.1, 0.1, 0.1};
	struct pb_cost_design_input in = {
		.noise_ns = 1e6, .ns_per_sample = 10000, .run_ns = 1e9, .x = x,
		.pair_s = pair_s, .nslots = 4, .seconds_left = 1e6, .min_rounds = 1,
	};
	struct pb_cost_design d;
	pb_cost_design_size(&in, &d);
	/* The weighted Sxx of a round = 4 x 500^2 / ((1 + s)^2 + 0.31) with s = 0 and 1 %: about
	 * 1e6 / 1.32; the CI is t x 1e6 / sqrt(R Sxx) <= 5 % of 10 us, so R is about (1.99 x 1e6
	 * / 500)^2 x 1.32 / 1e6 = 21 */
	CHECK(d.rounds_needed >= 19 && d.rounds_needed <= 25);
	CHECK_EQ_U64(d.rounds, d.rounds_needed);
	CHECK(d.expected_rel_ci <= PB_DESIGN_REL_CI + 1e-9);
	CHECK(near(d.round_s, 0.4, 1e-12));
	/* Where the samples slow the runs, the long runs' pairs weigh less: slots at s = 0, 1 and
	 * 2 (x = 0, 1e5, 2e5 samples of a 1 s run) weigh 1 / 1.31, 1 / 4.31 and 1 / 9.31, their
	 * weighted mean x is 40519 and Sxx 4.81e9 a round; over the design's rounds the
	 * expected CI is t x 1e8 (the noise) / sqrt(R Sxx), relative to 10 us. */
	{
		const double xs[3] = {0, 1e5, 2e5}, ps[3] = {0.1, 0.1, 0.1};
		struct pb_cost_design_input slow = in;
		struct pb_cost_design sd;
		slow.x = xs;
		slow.pair_s = ps;
		slow.nslots = 3;
		slow.noise_ns = 1e8;
		pb_cost_design_size(&slow, &sd);
		double w[3] = {1 / 1.31, 1 / 4.31, 1 / 9.31}, sw = 0, swx = 0, sxx = 0;
		for (int i = 0; i < 3; i++) {
			sw += w[i];
			swx += w[i] * xs[i];
		}
		for (int i = 0; i < 3; i++)
			sxx += w[i] * (xs[i] - swx / sw) * (xs[i] - swx / sw);
		double want = pb_t95(3 * sd.rounds - 2) * 1e8 / sqrt(sd.rounds * sxx) / 1e4;
		CHECK_MSG(sd.rounds > 1 && near(sd.expected_rel_ci, want, 1e-9 * want),
			  "%u rounds, expected ±%.6f, by hand ±%.6f", sd.rounds, sd.expected_rel_ci,
			  want);
		/* a trapping facility's baseline, a sliver of its runs, adds no noise */
		slow.baseline_ns = 1e6;
		struct pb_cost_design trap;
		pb_cost_design_size(&slow, &trap);
		CHECK(trap.rounds_needed < sd.rounds_needed);
	}
	/* twice the noise: four times the rounds (to within the t's change and rounding) */
	unsigned quiet = d.rounds_needed;
	in.noise_ns = 2e6;
	pb_cost_design_size(&in, &d);
	CHECK(d.rounds_needed >= 4 * quiet - 4 && d.rounds_needed <= 4 * quiet + 1);
	/* a budget of 2 s holds 5 rounds of 0.4 s: the design stops there, and says what it
	 * expects instead of the target */
	in.seconds_left = 2;
	pb_cost_design_size(&in, &d);
	CHECK_EQ_U64(d.rounds, 5);
	CHECK(d.expected_rel_ci > PB_DESIGN_REL_CI);
	/* the pilot saw no cost: the budget's rounds, and no need can be stated */
	in.ns_per_sample = -50;
	pb_cost_design_size(&in, &d);
	CHECK_EQ_U64(d.rounds_needed, UINT_MAX);
	CHECK_EQ_U64(d.rounds, 5);
	CHECK(isnan(d.expected_rel_ci));
	/* at least min_rounds, at most max_rounds */
	in.seconds_left = 0;
	in.min_rounds = 2;
	pb_cost_design_size(&in, &d);
	CHECK_EQ_U64(d.rounds, 2);
	in.ns_per_sample = 10000;
	in.seconds_left = 1e6;
	in.max_rounds = 3;
	pb_cost_design_size(&in, &d);
	CHECK_EQ_U64(d.rounds, 3);
	/* a per-event facility also sizes for its intercept: a small events' cost needs more */
	in.max_rounds = 0;
	in.noise_ns = 1e6;
	pb_cost_design_size(&in, &d);
	unsigned slope_only = d.rounds;
	in.events_cost_ns = 1e5;
	pb_cost_design_size(&in, &d);
	CHECK(d.rounds > slope_only);

	/* A second design from a first's fit (4 rounds of 8 pairs at ±11 %, a round 0.25 s):
	 * ±5 % needs about (11 / 5)^2 = 4.84 times the rounds, fewer by t's fall with the df. */
	struct pb_cost_redesign rd;
	pb_cost_redesign_size(0.11, 4, 8, 0.25, 1e6, 1, 0, &rd);
	CHECK(rd.rounds_needed >= 16 && rd.rounds_needed <= 20);
	CHECK_EQ_U64(rd.rounds, rd.rounds_needed);
	CHECK(rd.expected_rel_ci <= PB_DESIGN_REL_CI + 1e-9);
	CHECK(!rd.budget_limited);
	/* 3.7 s left (a plan's 5 s after 1.3 s, 2026-11-27) hold 14 rounds: expected within
	 * ±10 %, so measured, and limited by the budget */
	pb_cost_redesign_size(0.11, 4, 8, 0.25, 3.7, 1, 0, &rd);
	CHECK_EQ_U64(rd.rounds, 14);
	CHECK(rd.budget_limited);
	CHECK(rd.expected_rel_ci > PB_DESIGN_REL_CI && rd.expected_rel_ci < PB_FIT_MAX_REL_CI);
	/* 1.2 s hold 4 rounds, no narrower than the first: none, the budget being the limit */
	struct pb_cost_redesign held = rd;
	pb_cost_redesign_size(0.11, 4, 8, 0.25, 1.2, 1, 0, &rd);
	CHECK_EQ_U64(rd.rounds, 0);
	CHECK(rd.budget_limited);
	/* the suite's pool goes to a second design the fit's own budget cannot hold and the pool
	 * can, though short of the 5 % aim (14 rounds, budget-limited: a suite's sw fit at ±12 %
	 * drew nothing when the rule asked for a design not limited by the budget) */
	CHECK(pb_cost_pool_makes_redesign(&rd, &held));
	CHECK(!pb_cost_pool_makes_redesign(&held, &held));
	CHECK(!pb_cost_pool_makes_redesign(&rd, &rd));
	/* at most max_rounds (the pairs the sweep has room for) */
	pb_cost_redesign_size(0.11, 4, 8, 0.25, 1e6, 1, 15, &rd);
	CHECK_EQ_U64(rd.rounds, 15);
	CHECK(rd.budget_limited);
	/* a first within ±10 % needs no second (what failed it is not its width) */
	pb_cost_redesign_size(0.09, 4, 8, 0.25, 1e6, 1, 0, &rd);
	CHECK_EQ_U64(rd.rounds, 0);
	CHECK(!rd.budget_limited);

	/* the time a sweep would need: the CI narrows as 1/sqrt(time) */
	bool lower;
	struct pb_fit f = {.slope = 1000, .slope_ci95 = 300};
	CHECK(near(pb_cost_seconds_to_resolve(&f, 4, &lower), 4 * 9, 1e-9));
	CHECK(!lower);
	f.slope = -100; /* sized for the CI's upper end, 200 ns: at least that long */
	CHECK(near(pb_cost_seconds_to_resolve(&f, 4, &lower), 4 * 225, 1e-9));
	CHECK(lower);
	f.slope = -400;
	CHECK(isnan(pb_cost_seconds_to_resolve(&f, 4, &lower)));
}

/* A machine of known cost and noise behind the sweep's measure hook: a 30 ms run, 10 us per
 * sample (a sample every period of CPU time), and Gaussian noise of 10 us per run for the
 * first quiet_runs runs (the noise and pilot pairs: 16 runs), noise_ns after them, and
 * louder_ns after louder_from runs. Deterministic: its own generator, its own seed. */
static struct {
	unsigned calls, quiet_runs, louder_from;
	double noise_ns, louder_ns;
	uint64_t state;
	/* a facility that traps on every event: events a run, each costing event_ns, the
	 * period counting events, and sample_ns a sample on top (0 events: the timer above) */
	unsigned events;
	double event_ns, sample_ns;
	/* the machine's own clock: each run takes the CPU time it reports */
	uint64_t clock_ns;
	/* a disturbance: burst_ns more in the first sampled run from call burst_call on (0:
	 * none) */
	unsigned burst_call;
	double burst_ns;
	/* the noise in proportion to a run's length (its noise-free CPU time over 30 ms), where
	 * a sampled run twice as long is twice as noisy; the same for every run otherwise */
	bool proportional;
} noisy;

static uint64_t noisy_now(void)
{
	return noisy.clock_ns;
}

static double noisy_gauss(void)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		noisy.state = noisy.state * 6364136223846793005ull + 1442695040888963407ull;
		u[i] = ((double)(noisy.state >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

static int noisy_measure(const struct pb_point_request *q, struct pb_point *out,
			 struct pb_error *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	unsigned n = noisy.calls++;
	double noise = n < noisy.quiet_runs	? 1e4
		       : n < noisy.louder_from ? noisy.noise_ns
					       : noisy.louder_ns;
	double cpu = 30e6, gauss = noisy_gauss();
	if (noisy.burst_call && n >= noisy.burst_call && !q->no_perf && q->nevents) {
		cpu += noisy.burst_ns;
		noisy.burst_call = 0;
	}
	if (!q->no_perf && q->nevents && noisy.events) {
		double samples = floor(noisy.events / (double)q->events[0].period);
		cpu += noisy.event_ns * noisy.events + noisy.sample_ns * samples;
		out->ev[0].observed = (uint64_t)samples;
		out->ev[0].expected = samples;
		out->ev[0].count = noisy.events;
	} else if (!q->no_perf && q->nevents) {
		double samples = floor(30e6 / (double)q->events[0].period);
		cpu += 1e4 * samples;
		out->ev[0].observed = (uint64_t)samples;
		out->ev[0].expected = samples;
	}
	cpu += noise * gauss * (noisy.proportional ? cpu / 30e6 : 1);
	if (!q->no_perf && q->nevents && !noisy.events)
		out->ev[0].count = (uint64_t)cpu; /* the CPU clock counts its time */
	out->cpu_ns[0] = (uint64_t)cpu;
	out->wall_ns = (uint64_t)cpu;
	noisy.clock_ns += (uint64_t)cpu;
	return 0;
}

/* whether the noisy sweep is a facility's cost site, which may draw on the suite's pool */
static bool noisy_draws_spare = true;
/* the noisy machine's seed for the next sweep */
static uint64_t noisy_seed = 20261127;
/* the sweep's points, each period's rows in it (NULL: none made) */
static struct pb_result_point *(*noisy_new_point)(void *ctx, uint64_t period,
						   enum pb_delivery mode);

/* budget_ns 0: 60 s, never the limit (the fake runs take no time); spare: the suite's pool
 * of unused cost budget (NULL: none) */
static void noisy_sweep_within(unsigned louder_from, double louder_ns, uint64_t budget_ns,
			       struct pb_cost_spare *spare, enum pb_delivery mode,
			       struct cost_fit *cf)
{
	noisy.events = 0;
	noisy.calls = 0;
	noisy.quiet_runs = 2 * NOISE_PAIRS + 4 * PILOT_PAIRS;
	noisy.noise_ns = 2e6;
	noisy.louder_from = louder_from;
	noisy.louder_ns = louder_ns;
	noisy.state = noisy_seed;
	struct pb_error err = {0};
	/* set up (its workload calibrated for real) once: the noisy machine's runs take what it
	 * says whatever their iterations, and 800 calibrations were 16 of test_cost's 55 s */
	static struct pb_spec spec;
	static struct sweep_setup fresh;
	static bool set_up;
	if (!set_up) {
		CHECK(pb_spec_parse("timer:cpu-clock", &spec, NULL) == 0);
		CHECK(pb_cost_setup_sweep(&fresh, "timer:cpu-clock", &spec, NULL, 5, &err) == 0);
		set_up = true;
	}
	struct sweep_setup su = fresh;
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	su.np = pb_cost_periods(&o, &spec, su.periods);
	su.min_rounds = 1;
	su.budget_ns = budget_ns ? budget_ns : 60ull * 1000000000ull;
	su.design_periods = true;
	su.measure = noisy_measure;
	o.cost_spare = spare;
	su.o = spare ? &o : NULL;
	su.draws_spare = noisy_draws_spare;
	su.now_ns = noisy_now;
	su.new_point = noisy_new_point;
	CHECK_MSG(pb_cost_sweep_mode(&su, mode, cf, &err) == 0, "%s", err.msg);
}

static void noisy_sweep(unsigned louder_from, double louder_ns, struct cost_fit *cf)
{
	noisy_sweep_within(louder_from, louder_ns, 0, NULL, PB_DELIVERY_NONE, cf);
}

/* The results document the rows of a noisy sweep go to. */
static struct pb_results *rows_doc;

static struct pb_result_point *rows_point(void *ctx, uint64_t period, enum pb_delivery mode)
{
	(void)ctx;
	struct pb_result_point *p = pb_results_point(rows_doc, "cost", "timer:cpu-clock", "busy");
	pb_rset_text(&p->params, "kind", "sweep");
	pb_rset_text(&p->params, "delivery", pb_delivery_name(mode));
	pb_rset_int(&p->params, "period", PB_UNIT_NONE, (int64_t)period);
	return p;
}

/* The fit again from its sweep's rows and its point alone: the pairs of its design in the
 * order they ran (their "pair"), each sampled run against the median of its partner's and the
 * two partners' either side (in that order, every pair's), the pairs the point lists as left
 * out dropped, least squares on x = observed + lost weighted by the inverse of run^2 + 0.31
 * baseline^2, the run its baseline plus the unweighted line. False when a pair of the design
 * has no row. */
static bool rebuilt_fit(const struct pb_results *doc, const struct pb_result_point *fit,
			int64_t design, struct pb_fit *out)
{
	static double cpu[MAX_PAIRS], base[MAX_PAIRS], x[MAX_PAIRS], xs[MAX_PAIRS], ys[MAX_PAIRS],
		local[MAX_PAIRS], scale[MAX_PAIRS];
	static bool have[MAX_PAIRS], dropped[MAX_PAIRS];
	memset(have, 0, sizeof have);
	memset(dropped, 0, sizeof dropped);
	size_t n = 0;
	for (size_t i = 0; i < doc->npoints; i++) {
		const struct pb_result_point *p = doc->points[i];
		const char *kind = pb_rset_get_text(&p->params, "kind");
		if (!kind || strcmp(kind, "sweep"))
			continue;
		for (size_t r = 0; r < pb_rlist_size(&p->runs); r++) {
			const struct pb_rset *row = pb_rlist_set_at(&p->runs, r);
			int64_t k = pb_rset_get_int(row, "pair");
			if (pb_rset_get_int(row, "design") != design || k < 0 || k >= MAX_PAIRS)
				continue;
			cpu[k] = pb_rset_get_number(row, "cpu_ns", NULL);
			base[k] = pb_rset_get_number(row, "baseline_cpu_ns", NULL);
			x[k] = pb_rset_get_number(row, "observed", NULL) +
			       pb_rset_get_number(row, "lost", NULL);
			have[k] = true;
			n = (size_t)k + 1 > n ? (size_t)k + 1 : n;
		}
	}
	for (size_t k = 0; k < n; k++)
		if (!have[k])
			return false;
	const struct pb_rlist *left_out = pb_rset_get_list(&fit->metrics, "left_out_pair_index");
	for (size_t j = 0; j < pb_rlist_size(left_out); j++)
		dropped[pb_rlist_at(left_out, j)->as.i] = true;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		if (dropped[k])
			continue;
		xs[m] = x[k];
		local[m] = pb_window_median(base, n, k, 2);
		ys[m] = cpu[k] - local[m];
		m++;
	}
	struct pb_fit line;
	if (pb_linear_fit(xs, ys, m, &line))
		return false;
	for (size_t k = 0; k < m; k++) {
		double run = local[k] + line.intercept + line.slope * xs[k];
		scale[k] = sqrt(run * run + 0.31 * local[k] * local[k]);
	}
	return pb_weighted_linear_fit(xs, ys, scale, m, out) == 0;
}

/* A cost fit can be rebuilt from results.json: each row of a sweep says where its pair stands
 * in its design's order, which the fit's baselines follow, and the fit point lists every pair
 * it left out. Checked on a first design with a pair a burst of 20 ms moved (left out), and on
 * a second design (its pairs alone fitted, the first's rows kept beside them). */
static void test_fit_rebuilt_from_rows(void)
{
	for (int second = 0; second <= 1; second++) {
		struct pb_results res;
		char dir[] = "/tmp/pb-test-cost-XXXXXX";
		pb_test_results_in_tmp(dir, &res, "test_cost");
		rows_doc = &res;
		noisy_new_point = rows_point;
		struct cost_fit cf;
		struct pb_cost_spare spare = {60ull * 1000000000ull, false};
		if (second) {
			/* as test_spare_budget's: a second design on the pool */
			noisy_sweep_within(0, 2e6, 2500000000ull, &spare, PB_DELIVERY_NONE, &cf);
		} else {
			noisy.burst_call = 2 * NOISE_PAIRS + 4 * PILOT_PAIRS + 9;
			noisy.burst_ns = 20e6;
			noisy_sweep_within(0, 2e5, 0, NULL, PB_DELIVERY_NONE, &cf);
			noisy.burst_call = 0;
		}
		noisy_new_point = NULL;
		CHECK(cf.redesigned == (second == 1));
		CHECK(second || cf.left_out == 1);
		struct pb_result_point *fit = pb_cost_fit_point(&res, "timer:cpu-clock", "busy",
								PB_DELIVERY_NONE, &cf, NULL);
		CHECK_EQ_U64(pb_rlist_size(pb_rset_get_list(&fit->metrics, "left_out_pair_index")),
			     cf.left_out);
		struct pb_fit again;
		CHECK(rebuilt_fit(&res, fit, second ? 2 : 1, &again));
		CHECK_MSG(near(again.slope, cf.cpu.slope, 1e-9 * fabs(cf.cpu.slope)) &&
			  near(again.slope_ci95, cf.cpu.slope_ci95, 1e-9 * cf.cpu.slope_ci95),
			  "rebuilt %.3f ± %.3f ns against the fit's %.3f ± %.3f", again.slope,
			  again.slope_ci95, cf.cpu.slope, cf.cpu.slope_ci95);
		CHECK_EQ_U64(again.n, cf.pairs - cf.left_out);
		pb_test_check_units(&res);
		pb_test_results_remove(&res, dir);
	}
}

/* The fit's interval says what it claims: on a machine whose runs' CPU time has Gaussian noise
 * of known size and a sample costs exactly 10 µs, the interval of a designed sweep holds
 * 10 µs in 95 % of sweeps, whether every run's noise is the same or in proportion to the run
 * (a sampled run twice as long, twice the noise: the design's model, and the real machine's
 * bursts grow with the run). 400 sweeps of each (their own seeds, a budget of 4.2 s as the
 * suite's, noise of 3.3 % of a 30 ms run): the count outside is binomial (400, 0.05), 20 ±
 * 4.36, so anything from 6 to 34 (±3.29 standard deviations: a false alarm in 1000) passes.
 * Unweighted least squares left 38 of 400 outside with noise in proportion to the run
 * (2026-11-28). */
static void test_fit_interval_coverage(void)
{
	for (int proportional = 0; proportional <= 1; proportional++) {
		unsigned fits = 0, outside = 0;
		noisy.proportional = proportional;
		for (unsigned seed = 1; seed <= 400; seed++) {
			struct cost_fit cf;
			noisy_seed = 1000 + seed * 7919ull;
			noisy_sweep_within(0, 1e6, 4200000000ull, NULL, PB_DELIVERY_NONE, &cf);
			if (!cf.fitted)
				continue;
			fits++;
			outside += fabs(cf.cpu.slope - 1e4) > cf.cpu.slope_ci95;
			CHECK(cf.weighted);
		}
		printf("fit interval: %u of %u sweeps outside, noise of 1 ms a 30 ms run%s\n",
		       outside, fits, proportional ? ", in proportion to the run" : "");
		CHECK_EQ_U64(fits, 400);
		CHECK_MSG(outside >= 6 && outside <= 34, "%u of 400 outside", outside);
	}
	noisy.proportional = false;
	noisy_seed = 20261127;
}

/* The suite's pool of unused cost budget: a fit of mode none whose own budget is too small
 * for its second design draws on it when that sizes the design to resolve, and gives back
 * what it does not use; a fit that finishes early adds what it left; a delivery mode's fit
 * never draws. (A uprobe fit of 2026-11-27 stopped at ±14 % after 3.7 s of its 4.2 s, "7 s
 * would resolve it", where the timer's and sw's fits before it had left 4.7 s of theirs
 * unused.) */
static void test_spare_budget(void)
{
	struct cost_fit cf;
	const uint64_t pool = 60ull * 1000000000ull;
	/* the noise loud from the first run (2 ms a run of 30 ms, on the fake machine's own
	 * clock): a first design of 1.15 s comes out at ±21 %, and 2.5 s of budget hold no
	 * second design that would resolve it */
	noisy_sweep_within(0, 2e6, 2500000000ull, NULL, PB_DELIVERY_NONE, &cf);
	CHECK(!cf.resolved && !cf.redesigned && cf.budget_limited && cf.spare_drawn_s == 0);
	CHECK_MSG(!strstr(cf.why, "left unused"), "no pool, none named: %s", cf.why);
	/* with the pool it draws its own budget again (not the pool's 60 s), redesigns and
	 * resolves, and gives back what it left */
	struct pb_cost_spare spare = {pool, false};
	noisy_sweep_within(0, 2e6, 2500000000ull, &spare, PB_DELIVERY_NONE, &cf);
	CHECK_MSG(cf.resolved, "%.0f ± %.0f ns: %s", cf.cpu.slope, cf.cpu.slope_ci95, cf.why);
	CHECK(cf.redesigned);
	CHECK(near(cf.spare_drawn_s, 2.5, 1e-9) && near(cf.budget_seconds, 5, 1e-9));
	CHECK_MSG(near((double)spare.ns / 1e9, 60 - 2.5 + (5 - cf.seconds), 1e-6), "%.3f s",
		  (double)spare.ns / 1e9);
	/* one fit a suite draws: the next that could, does not */
	CHECK(spare.drawn);
	noisy_sweep_within(0, 2e6, 2500000000ull, &spare, PB_DELIVERY_NONE, &cf);
	CHECK(!cf.resolved && cf.spare_drawn_s == 0);
	/* and says so, where a reader would ask why the suite's unused budget did not help */
	CHECK_STR_CONTAINS(cf.why, "held no second design; the budget the suite's earlier fits "
			   "left unused had gone to another fit (one fit a suite draws)");
	/* another site's fit (the uprobe's single-stepped one) keeps to its budget, and what it
	 * left goes in */
	spare = (struct pb_cost_spare){pool, false};
	noisy_draws_spare = false;
	noisy_sweep_within(0, 2e6, 2500000000ull, &spare, PB_DELIVERY_NONE, &cf);
	noisy_draws_spare = true;
	CHECK(!cf.resolved && cf.spare_drawn_s == 0);
	CHECK(near((double)spare.ns / 1e9, 60 + 2.5 - cf.seconds, 1e-6));
	/* a delivery mode's fit never draws */
	spare = (struct pb_cost_spare){pool, false};
	noisy_sweep_within(0, 2e6, 2500000000ull, &spare, PB_DELIVERY_SIGNAL, &cf);
	CHECK(cf.spare_drawn_s == 0);
	/* 1 s: twice that holds no second design either, so nothing is drawn; the first design
	 * ran over its budget (1.15 s), and that is spent from the pool */
	spare = (struct pb_cost_spare){pool, false};
	noisy_sweep_within(0, 2e6, 1000000000ull, &spare, PB_DELIVERY_NONE, &cf);
	CHECK(!cf.resolved && cf.spare_drawn_s == 0 && cf.seconds > 1);
	/* the pool was asked and offered its own budget again, which did not hold one */
	CHECK_STR_CONTAINS(cf.why, "no budget was left for a second design; with the 1.0 s the "
			   "suite's earlier fits left unused, it held none either");
	CHECK(near((double)spare.ns / 1e9, 60 - (cf.seconds - 1), 1e-6));
}

/* The noise rises between the pilot and the design (10 us to 2 ms): the design, sized for
 * ±5 % on the quiet runs, comes out wide, and a second, sized from its fit, resolves it; only
 * the second's pairs are fitted. On 2026-11-27 a plan's sweep stopped so at ±11 % after 1.3 s
 * of its 5 s and gave up. */
/* An unresolved fit's reason never prints a figure that is no number: a design whose pilot
 * gave no slope expects no interval, and the reason then leaves it out (it read "sized for
 * ±nan % at 46.4 µs of noise a run" in report.html, a CI of 2026-11-28 on kind A). */
static void test_unresolved_reason(void)
{
	struct cost_fit *cf = calloc(1, sizeof *cf);
	CHECK(cf != NULL);
	if (!cf)
		return;
	for (int k = 0; k < 3; k++) {
		memset(cf, 0, sizeof *cf);
		cf->fitted = true;
		cf->cpu.slope = 1000;
		cf->cpu.slope_ci95 = 210;
		cf->pairs = 27;
		cf->seconds = cf->budget_seconds = 0.2;
		cf->setup_s = 0.05;
		cf->design_rounds = 3;
		cf->redesign_left_s = NAN;
		cf->design_noise_ns = 46400;
		cf->run_noise_ns = 60000;
		cf->budget_limited = k != 2;
		cf->expected_rel_ci = k ? NAN : 0.044;
		pb_cost_explain_unresolved(cf);
		CHECK_MSG(!strstr(cf->why, "nan") && !strstr(cf->why, "inf"), "%d: %s", k, cf->why);
		if (k == 0)
			CHECK_STR_CONTAINS(cf->why, "the design was sized for ±4.4 % at 46.4 µs of noise "
					   "a run, and its runs without perf varied by 60 µs");
		else
			CHECK_STR_CONTAINS(cf->why, "the design was sized at 46.4 µs of noise a run");
		if (k == 2)
			CHECK_STR_CONTAINS(cf->why, "the design had the 3 rounds it was sized for: the "
					   "noise rose as it ran");
	}
	free(cf);
}

static void test_redesign(void)
{
	struct cost_fit cf;
	noisy_sweep(UINT_MAX, 0, &cf);
	CHECK(cf.redesigned);
	CHECK(cf.first.slope_ci95 > PB_FIT_MAX_REL_CI * cf.first.slope);
	CHECK(cf.first_pairs > 0);
	CHECK_EQ_U64(cf.pairs, cf.design_pairs);
	CHECK_EQ_U64(cf.rounds, cf.first_fitted_round + cf.design_rounds);
	CHECK(cf.design_rounds > cf.first_pairs / (cf.design_pairs / cf.design_rounds));
	CHECK(cf.expected_rel_ci <= PB_DESIGN_REL_CI + 1e-9);
	CHECK(!cf.budget_limited);
	CHECK_MSG(cf.resolved, "%.0f ± %.0f ns: %s", cf.cpu.slope, cf.cpu.slope_ci95, cf.why);
	CHECK(near(cf.cpu.slope, 1e4, 3 * cf.cpu.slope_ci95));
	/* the first design's runs and the second's, no others */
	CHECK_EQ_U64(noisy.calls, 2 * NOISE_PAIRS + 4 * PILOT_PAIRS + 2 * (cf.first_pairs + cf.pairs));
	CHECK(cf.setup_s >= 0 && cf.setup_s <= cf.seconds);
	/* one run's noise, read from the fit's pairs' runs without perf: the 2 ms the design's
	 * runs had, where the noise pairs before it saw the quiet 10 us (the scorecard's timing
	 * noise) */
	CHECK(near(cf.noise_ns, 1e4, 5e3));
	CHECK_EQ_U64(cf.run_noise_df, cf.cpu.n - 1);
	CHECK_MSG(cf.run_noise_ns > 1.5e6 && cf.run_noise_ns < 2.5e6, "%.0f ns at %zu df",
		  cf.run_noise_ns, cf.run_noise_df);
	fprintf(stderr, "redesign: a first design of %zu pairs at ±%.0f %%, a second of %zu at "
		"±%.1f %%\n", cf.first_pairs, 100 * cf.first.slope_ci95 / cf.first.slope, cf.pairs,
		100 * cf.cpu.slope_ci95 / cf.cpu.slope);

	/* the fit's point keeps the first design's figures and says why there were two */
	struct pb_results res;
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	pb_test_results_in_tmp(dir, &res, "test_cost");
	struct pb_result_point *fp = pb_cost_fit_point(&res, "timer:cpu-clock", "busy",
						       PB_DELIVERY_NONE, &cf, NULL);
	CHECK(fp != NULL);
	if (fp) {
		bool has;
		CHECK(near(pb_rset_get_number(&fp->metrics, "first_design_ci95_ns", &has),
			   cf.first.slope_ci95, 1e-6));
		CHECK(has);
		CHECK_EQ_U64((uint64_t)pb_rset_get_number(&fp->params, "fitted_from_run", &has),
			     cf.first_fitted_round);
		CHECK_STR_CONTAINS(pb_rset_get_text(&fp->params, "note"),
				   "a second design resolved it");
		CHECK_STR_CONTAINS(pb_rset_get_text(&fp->params, "stopping_rule"),
				   "from a first design's fit");
		CHECK(near(pb_rset_get_number(&fp->metrics, "run_noise_ns", &has),
			   cf.run_noise_ns, 1e-6));
		CHECK(has && pb_rset_get_int(&fp->metrics, "run_noise_df") ==
				     (int64_t)cf.run_noise_df);
	}
	pb_test_check_units(&res);
	pb_test_results_remove(&res, dir);

	/* louder again in the second design (10 ms): it had the rounds it was sized for, so no
	 * longer sweep is offered; the noise rose, and the reason says so */
	size_t first_pairs = cf.first_pairs;
	noisy_sweep(2 * NOISE_PAIRS + 4 * PILOT_PAIRS + 2 * (unsigned)first_pairs, 1e7, &cf);
	CHECK(cf.redesigned);
	CHECK_EQ_U64(cf.first_pairs, first_pairs);
	CHECK(!cf.resolved);
	CHECK(!cf.budget_limited);
	CHECK(isnan(cf.to_resolve_s));
	CHECK_STR_CONTAINS(cf.why, "a second design replaced a first of");
	CHECK_STR_CONTAINS(cf.why, "the noise rose as it ran");
	CHECK(isnan(cf.redesign_left_s));

	/* the same rise with no budget left for a second design: the reason gives the noise the
	 * design was sized for beside the noise its runs had, and that no second design fitted
	 * (a suite's sw fit, 2026-11-27, said only "designed pairs of 3 s would resolve it" after
	 * 3.1 s of its 4.2 s, sized for 403 us of noise where its runs had 688 us) */
	noisy_sweep_within(UINT_MAX, 0, 1, NULL, PB_DELIVERY_NONE, &cf);
	CHECK(!cf.resolved && !cf.redesigned && cf.budget_limited);
	CHECK(cf.redesign_left_s < 0);
	CHECK(near(cf.design_noise_ns, 1e4, 5e3));
	CHECK_STR_CONTAINS(cf.why, "µs of noise a run, and its runs without perf varied by");
	CHECK_STR_CONTAINS(cf.why, "; no budget was left for a second design");
	fprintf(stderr, "budget-limited: %s\n", cf.why);
	CHECK_STR_CONTAINS(cf.why, "would resolve it at this noise");
}

/* A breakpoint's sample beside its trap: 2000 events a run at 14 us each, 200 ns a sample,
 * 2 ms of noise a run. The traps' cost resolves and the sample's cannot; the reason says what
 * the sample is beside the trap (bp:w's fit said only that 1219 s would resolve it). */
static void test_sample_beside_trap(void)
{
	noisy.calls = 0;
	noisy.quiet_runs = 4 * PILOT_PAIRS;
	noisy.noise_ns = 2e6;
	noisy.louder_from = UINT_MAX;
	noisy.state = 20261127;
	noisy.events = 2000;
	noisy.event_ns = 14000;
	noisy.sample_ns = 200;
	struct pb_spec timer, bp;
	struct pb_error err = {0};
	struct sweep_setup su;
	CHECK(pb_spec_parse("timer:cpu-clock", &timer, NULL) == 0);
	CHECK(pb_spec_parse("bp:w", &bp, NULL) == 0);
	/* set up on the timer (its calibration runs here whatever the breakpoints do), then
	 * made the trapping facility the fake machine plays */
	CHECK(pb_cost_setup_sweep(&su, "bp:w", &timer, NULL, 5, &err) == 0);
	su.per_event = true;
	su.time_based = false;
	su.min_period = 1;
	su.sampled.events[0].spec = bp;
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	su.np = pb_cost_periods(&o, &bp, su.periods);
	su.min_rounds = 1;
	su.budget_ns = 60ull * 1000000000ull;
	su.design_periods = true;
	su.measure = noisy_measure;
	struct cost_fit cf;
	CHECK_MSG(pb_cost_sweep_mode(&su, PB_DELIVERY_NONE, &cf, &err) == 0, "%s", err.msg);
	CHECK_MSG(cf.event_resolved && near(cf.event_ns, 14000, 3 * cf.event_ci95),
		  "%.0f ± %.0f ns an event", cf.event_ns, cf.event_ci95);
	CHECK_MSG(!cf.resolved, "%.0f ± %.0f ns a sample", cf.cpu.slope, cf.cpu.slope_ci95);
	char want[160];
	snprintf(want, sizeof want, "a sample adds at most %.0f ns (the CI's upper end) to the "
		 "%.0f ns trap every event pays, sampled or not: %.1f %% of it",
		 cf.cpu.slope + cf.cpu.slope_ci95, cf.event_ns,
		 100 * (cf.cpu.slope + cf.cpu.slope_ci95) / cf.event_ns);
	CHECK_STR_CONTAINS(cf.why, want);
	fprintf(stderr, "sample beside trap: %s\n", cf.why);
	noisy.events = 0;
}

/* Predictions are judged on the slowdown (issue 27). python3 at 100 us once predicted 14.3 %
 * against a measured 24.5 % and read "+9.0 %" on the run time. */
/* plan's refusal of a cost measured on the spot says why, and offers a longer sweep only where
 * one helps: a wide interval (the time it needs), not estimators that disagree inside a narrow
 * one (the pairs bend; once offered "a sweep of 1 s would resolve it" for a fit at ±6 %). */
static void test_plan_cost_refusal(void)
{
	struct pb_error err = {0};
	struct pb_cost wide = {.fit = {.slope = 2000, .slope_ci95 = 600, .r2 = 0.8},
			       .seconds = 4, .seconds_to_resolve = 36, .noise_ns = 5000};
	snprintf(wide.why, sizeof wide.why, "the 95 %% CI is ±30 %% of the slope");
	CHECK(pb_plan_cost_refused(&wide, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "the 95 % CI is ±30 % of the slope");
	CHECK_STR_CONTAINS(err.msg, "A sweep of 36 s would resolve it: --cost-seconds 44");
	err = (struct pb_error){0};
	/* an estimate under what the failed sweep took (its design part alone, 4 s, once asked
	 * for the --cost-seconds 5 given): more than the 4.3 s spent is asked, whatever it says */
	struct pb_cost short_estimate = {.fit = {.slope = 17085, .slope_ci95 = 1782, .r2 = 0.886},
					 .seconds = 4.3, .seconds_to_resolve = 3.6,
					 .noise_ns = 508993};
	CHECK(pb_plan_cost_refused(&short_estimate, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "would resolve it: --cost-seconds 5");
	short_estimate.seconds = 5.1;
	err = (struct pb_error){0};
	CHECK(pb_plan_cost_refused(&short_estimate, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "would resolve it: --cost-seconds 6");
	/* a sweep that stopped early, under its budget, must not offer less than the budget
	 * (a plan's 5 s sweep took 1.3 s and offered --cost-seconds 2, 2026-11-27) */
	struct pb_cost early = {.fit = {.slope = 17103, .slope_ci95 = 1899.6, .r2 = 0.982},
				.seconds = 1.3, .budget_seconds = 5, .seconds_to_resolve = 1.4,
				.noise_ns = 74480};
	err = (struct pb_error){0};
	CHECK(pb_plan_cost_refused(&early, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "would resolve it: --cost-seconds 6");
	/* the design had its rounds and still came out wide: no time offered, the noise rose */
	early.seconds_to_resolve = NAN;
	err = (struct pb_error){0};
	CHECK(pb_plan_cost_refused(&early, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "the noise rose as it ran");
	CHECK(strstr(err.msg, "--cost-seconds") == NULL);
	err = (struct pb_error){0};
	struct pb_cost bent = {.fit = {.slope = 21165, .slope_ci95 = 1281, .r2 = 0.958},
			       .seconds = 4.3, .seconds_to_resolve = NAN, .noise_ns = 116967};
	snprintf(bent.why, sizeof bent.why, "least squares (21165 ± 1281 ns) and Theil–Sen "
		 "(23020 ns) disagree");
	CHECK(pb_plan_cost_refused(&bent, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "Theil–Sen (23020 ns) disagree");
	CHECK_STR_CONTAINS(err.msg, "a longer sweep does not mend");
	CHECK(strstr(err.msg, "would resolve it") == NULL);
	/* a reason as long as a fit's can be keeps the advice whole, the reason cut (the CI of
	 * 2026-11-27 lost the advice: cli_plan_inert_bp found no way to go on in it) */
	memset(bent.why, 0, sizeof bent.why);
	for (size_t k = 0; k + 3 < sizeof bent.why; k += 2)
		memcpy(bent.why + k, "±", 2); /* two bytes a character: a cut must not split one */
	err = (struct pb_error){0};
	CHECK(pb_plan_cost_refused(&bent, "timer:cpu-clock", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "which a longer sweep does not mend: measure again later, or "
			   "on a quieter machine");
	/* the start whole, the cut in the reason, the advice after it whole */
	CHECK_STR_CONTAINS(err.msg, "the cost of one timer:cpu-clock sample could not be measured "
			   "precisely enough on this machine in 4.3 s: 21165.0 ± 1281.0 ns per "
			   "sample (95 % CI), R² 0.958 (run-to-run noise 116967 ns): ±±");
	CHECK_STR_CONTAINS(err.msg, "±± ... ±");
	CHECK(strstr(strstr(err.msg, " ... ") + 5, " ... ") == NULL); /* one cut */
	CHECK_STR_CONTAINS(err.msg, "±. The interval is narrow enough, but the cost");
	size_t end = strlen(err.msg), tail = strlen("on a quieter machine");
	CHECK(end >= tail && !strcmp(err.msg + end - tail, "on a quieter machine"));
	err = (struct pb_error){0};
	struct pb_cost none = {.fit = {.slope = -50, .slope_ci95 = 400, .r2 = 0.01},
			       .seconds = 4, .seconds_to_resolve = NAN};
	CHECK(pb_plan_cost_refused(&none, "bp:w", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "No cost was seen above the noise");
}

/* One slowdown for the suite's predictions and plan --check: the mean difference over the mean
 * baseline (plan took the mean of the rounds' own ratios until 2026-11-27), its CI by the
 * delta method; rounds that are no number, or have no baseline, left out. */
static void test_paired_slowdown(void)
{
	double pct, ci;
	const double diff[] = {2e6, 4e6, 6e6, NAN, 1e6}, base[] = {100e6, 100e6, 100e6, 90e6, 0};
	CHECK(pb_paired_slowdown(diff, base, 5, &pct, &ci) == 3);
	/* 4 % ± t(2) × (2 ms / √3) / 100 ms: the baselines are alike, only the differences vary */
	CHECK(near(pct, 4, 1e-12));
	CHECK(near(ci, pb_t95(2) * 2 / sqrt(3), 1e-9));
	/* a short baseline against the mean ones: the ratio of means, not the mean of ratios */
	const double d2[] = {10e6, 10e6}, b2[] = {50e6, 150e6};
	CHECK(pb_paired_slowdown(d2, b2, 2, &pct, &ci) == 2);
	CHECK(near(pct, 10, 1e-12));
	CHECK(pct < (20.0 + 10.0 / 1.5) / 2);
	/* the baselines' spread widens the interval: t(1) × 10 % × (70.7 ms / √2) / 100 ms */
	CHECK(near(ci, pb_t95(1) * 10 * 50e6 / 100e6, 1e-6));
	CHECK(pb_paired_slowdown(diff, base, 1, &pct, &ci) == 1);
	CHECK(near(pct, 2, 1e-12) && isnan(ci));
	CHECK(pb_paired_slowdown(diff + 3, base + 3, 2, &pct, &ci) == 0);
	CHECK(isnan(pct) && isnan(ci));
}

/* The buffer experiment's slowdown: its baseline runs come before the sampled ones, so the
 * means are set against each other, each mean's error in the interval, t with Welch's df. */
static void test_unpaired_slowdown(void)
{
	double pct, ci;
	/* means 120 over 100; the ratio's variance 200 / 2 / 100² + 120² × 2 / 2 / 100⁴ =
	 * 0.010144, Welch's df 1.03, so 1 */
	const double sampled[] = {110, 130}, base[] = {99, 101};
	pb_unpaired_slowdown(sampled, 2, base, 2, &pct, &ci);
	CHECK(near(pct, 20, 1e-12));
	CHECK(near(ci, pb_t95(1) * sqrt(0.010144) * 100, 1e-6));
	/* a baseline without spread: the sampled runs' df, n - 1 = 2 */
	const double s3[] = {10, 12, 14}, flat[] = {10, 10, 10, 10, 10};
	pb_unpaired_slowdown(s3, 3, flat, 5, &pct, &ci);
	CHECK(near(pct, 20, 1e-12));
	CHECK(near(ci, pb_t95(2) * sqrt(4.0 / 3 / 100) * 100, 1e-6));
	/* one run on a side: the figure without its interval; none, or no baseline: neither */
	pb_unpaired_slowdown(s3, 1, flat, 5, &pct, &ci);
	CHECK(near(pct, 0, 1e-12) && isnan(ci));
	pb_unpaired_slowdown(s3, 3, flat, 0, &pct, &ci);
	CHECK(isnan(pct) && isnan(ci));
	const double zero[] = {0, 0};
	pb_unpaired_slowdown(s3, 3, zero, 2, &pct, &ci);
	CHECK(isnan(pct) && isnan(ci));
}

/* An undecided verdict says how many rounds would decide it: the interval must come inside the
 * gap between the error and the tolerance, narrowing as 1 / sqrt(rounds). */
static void test_rounds_to_decide(void)
{
	/* 3 % predicted, 4.71 ± 0.74 measured over 8 rounds: 1.71 pp off a 1 pp tolerance, a gap
	 * of 0.71: 8 x (0.74 / 0.71)^2 = 8.69, so 9 */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(3, 0, 4.71, 0.74, 8), 9);
	/* decided either way, or without an interval: nothing to say */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(3, 0, 3.2, 0.3, 8), 0);
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(3, 0, 6, 0.5, 8), 0);
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(3, 0, 4.71, NAN, 1), 0);
	/* the tolerance moves with the interval's ends: 10.26 ± 0.76 % against 10 % predicted is
	 * undecided at 8 rounds (0.26 + 0.76 > the 1 pp at its near end), and the gap to the
	 * tolerance at the estimate (1.026 pp) asked for 8, the rounds already done; the verdict's
	 * own rule decides at ± 0.74: 8 x (0.76 / 0.74)^2 = 8.4, so 9 (the default suite of
	 * 2026-11-27 19:48, kind A, said "8") */
	CHECK(!strcmp(pb_slowdown_verdict(10, 0, 10.26, 0.76), "undecided"));
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(10, 0, 10.26, 0.76, 8), 9);
	/* whatever it says decides: the interval narrowed to that many rounds does */
	for (double meas = 2; meas < 40; meas += 0.37) {
		unsigned need = pb_slowdown_rounds_to_decide(10, 0, meas, 1.5, 8);
		if (!need || need == UINT_MAX)
			continue;
		CHECK_MSG(need > 8, "%.2f: %u", meas, need);
		CHECK_MSG(strcmp(pb_slowdown_verdict(10, 0, meas, 1.5 * sqrt(8.0 / need)), "undecided"),
			  "%.2f: %u rounds still undecided", meas, need);
	}
	/* the error on the tolerance itself: no number of rounds decides */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(3, 0, 4, 0.5, 8), UINT_MAX);
	/* the prediction's interval stays as it is while the rounds narrow the measured one: 3 ±
	 * 0.3 against 4.71 ± 0.74 decides once hypot(m, 0.3) < 0.71, m < 0.6435: 8 x (0.74 /
	 * 0.6435)^2 = 10.6, so 11 (9 with an exact prediction, above) */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(3, 0.3, 4.71, 0.74, 8), 11);
	/* and when it alone spans the gap, no number of rounds decides: 0.2 + 1.5 > 1 */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(10, 1.5, 10.2, 0.5, 8), UINT_MAX);
	/* which the verdict's note says, and why */
	char why[320];
	CHECK_STR_CONTAINS(pb_slowdown_undecided_why(10, 1.5, 10.2, why, sizeof why),
			   "no number of rounds decides it: its error (0.20 pp) lies within the "
			   "prediction's own interval (±1.50 pp");
	CHECK_STR_CONTAINS(pb_slowdown_undecided_why(3, 0, 4, why, sizeof why),
			   "its error sits on the tolerance");
	/* a prediction without an upper end (a cost whose interval reaches a timer's period)
	 * decides nothing, whatever the rounds, and says so rather than "±inf pp" */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(20, INFINITY, 40, 2, 8), UINT_MAX);
	CHECK_STR_CONTAINS(pb_slowdown_undecided_why(20, INFINITY, 40, why, sizeof why),
			   "the cost's interval reaches the period, where a sample would leave the "
			   "program no time, so the prediction has no upper end");
	CHECK(!strstr(why, "inf"));
	/* nor does one without an interval, which is not an error on the tolerance */
	CHECK_EQ_U64(pb_slowdown_rounds_to_decide(20, NAN, 40, 2, 8), UINT_MAX);
	CHECK_STR_CONTAINS(pb_slowdown_undecided_why(20, NAN, 40, why, sizeof why),
			   "the cost it is predicted with has no interval, so neither has the "
			   "prediction");
	/* plan's note says it, with the --runs to give, or that --runs cannot reach it */
	struct pb_plan_checks all = {.n = 1, .stopped = "undecided"};
	all.step[0] = (struct pb_plan_check){.rounds = 8, .predicted_pct = 3, .measured_pct = 4.71,
					     .measured_ci95_pp = 0.74};
	char words[320];
	CHECK_STR_CONTAINS(pb_plan_stopped_why(&all, words, sizeof words),
			   "about 9 rounds would decide it (--runs 9)");
	/* where rounds would decide it, no reason why none would */
	CHECK(!strstr(words, "no number of rounds"));
	all.step[0].measured_ci95_pp = 0.7 * 3;  /* 8 x 3^2 = 72 rounds */
	all.step[0].measured_pct = 4.7;
	CHECK_STR_CONTAINS(pb_plan_stopped_why(&all, words, sizeof words),
			   "about 72 rounds would decide it, more than --runs allows (64)");
	all.step[0].measured_pct = 4;
	CHECK_STR_CONTAINS(pb_plan_stopped_why(&all, words, sizeof words),
			   "no number of rounds decides it: its error sits on the tolerance");
	/* the cost's interval, not the rounds, keeps it undecided: said, with what would decide;
	 * the second is xz's check of 2026-11-28 06:43 (kind A): 5.00 ± 0.15 % against 6.05 ±
	 * 3.96, its error 1.05 pp against 1.00 allowed: outside on the estimates, but within 0.15
	 * of it */
	static const struct {
		double predicted, predicted_ci, measured, measured_ci;
		const char *says;
	} spanned[] = {
		{10, 1.5, 10.2, 0.5, "no number of rounds decides it: its error (0.20 pp) lies within "
		 "the prediction's own interval (±1.50 pp, from the cost's) of the ±1.02 pp allowed; "
		 "a cost known more precisely would decide it"},
		{5, 0.15, 6.05, 3.96, "the check cannot tell the prediction from its tolerance at "
		 "this noise; no number of rounds decides it: its error (1.05 pp) lies within the "
		 "prediction's own interval (±0.15 pp, from the cost's) of the ±1.00 pp allowed"},
	};
	for (size_t k = 0; k < PB_ARRAY_SIZE(spanned); k++) {
		all.step[0] = (struct pb_plan_check){.rounds = 8,
			.predicted_pct = spanned[k].predicted,
			.predicted_ci95_pp = spanned[k].predicted_ci,
			.measured_pct = spanned[k].measured,
			.measured_ci95_pp = spanned[k].measured_ci};
		CHECK_STR_CONTAINS(pb_plan_stopped_why(&all, words, sizeof words), spanned[k].says);
	}
}

static void test_slowdown_criterion(void)
{
	CHECK(!pb_slowdown_within(14.3, 24.5));
	CHECK(pb_slowdown_within(23.0, 24.5));        /* 1.5 pp of a 2.45 pp band */
	CHECK(!pb_slowdown_within(0, 5));             /* no cost at all: 5 pp off */
	CHECK(pb_slowdown_within(0.5, 1.2));          /* 1 pp floor for small slowdowns */
	CHECK(!pb_slowdown_within(3.0, 1.9));
	CHECK(near(pb_slowdown_tolerance_pp(40), 4, 1e-12));
	CHECK(near(pb_slowdown_tolerance_pp(-3), 1, 1e-12));
	CHECK(!pb_slowdown_within(NAN, 5));
	/* The verdict with the measured slowdown's CI: within only when the CI's far end is,
	 * outside only when its near end is, else undecided. */
	CHECK(!strcmp(pb_slowdown_verdict(10, 0, 10.2, 0.5), "within"));
	CHECK(!strcmp(pb_slowdown_verdict(10, 0, 10.2, 0.9), "undecided")); /* 0.2 + 0.9 > 1.0x */
	CHECK(!strcmp(pb_slowdown_verdict(10, 0, 14, 1), "outside"));      /* 4 - 1 > 1.5 */
	CHECK(!strcmp(pb_slowdown_verdict(10, 0, 12, 1), "undecided"));
	CHECK(!strcmp(pb_slowdown_verdict(3, 0, 2.8, NAN), "undecided"));  /* one round: no CI */
	CHECK(!strcmp(pb_slowdown_verdict(30, 0, 24.5, 2), "outside"));
	/* The prediction's own interval widens the error's: python3 at 30 %, predicted with its
	 * own cost at 10 % (17582 ± 3590 ns, 2026-11-28 04:25, kind A), 44.47 ± 9.08 against a
	 * measured 34.28 ± 3.37 was "outside" on the measured interval alone (10.19 - 3.37 >
	 * 3.77); with both (hypot 9.69) it is not known to be */
	CHECK(!strcmp(pb_slowdown_verdict(44.47, 0, 34.28, 3.37), "outside"));
	CHECK(!strcmp(pb_slowdown_verdict(44.47, 9.08, 34.28, 3.37), "undecided"));
	/* within needs both narrow: 0.2 + hypot(0.5, 0.5) <= 1, 0.2 + hypot(0.5, 0.9) is not */
	CHECK(!strcmp(pb_slowdown_verdict(10, 0.5, 10.2, 0.5), "within"));
	CHECK(!strcmp(pb_slowdown_verdict(10, 0.9, 10.2, 0.5), "undecided"));
	/* far outside stays outside, and a prediction of unknown interval is not judged */
	CHECK(!strcmp(pb_slowdown_verdict(10, 1, 14, 1), "outside"));     /* 4 - 1.41 > 1.5 */
	CHECK(!strcmp(pb_slowdown_verdict(10, NAN, 10.1, 0.1), "undecided"));
	/* the model's interval from its cost's: a timer's overhead at period P is c / (P - c) */
	struct pb_slowdown_model tm = {.baseline_ns = 1e8, .time_based = true,
				       .ns_per_sample = 10000, .ns_per_sample_ci95 = 1000};
	double lo = 9000.0 / (100000 - 9000) * 100, hi = 11000.0 / (100000 - 11000) * 100;
	CHECK(near(pb_slowdown_overhead_ci95_pp(&tm, 100000), (hi - lo) / 2, 1e-9));
	tm.ns_per_sample_ci95 = 0;
	CHECK(pb_slowdown_overhead_ci95_pp(&tm, 100000) == 0);
	tm.ns_per_sample_ci95 = NAN;
	CHECK(isnan(pb_slowdown_overhead_ci95_pp(&tm, 100000)));
	tm.ns_per_sample_ci95 = 95000;   /* its dear end leaves no samples at this period */
	CHECK(isnan(pb_slowdown_overhead_ci95_pp(&tm, 100000)));
	CHECK(!strcmp(pb_slowdown_verdict(10, INFINITY, 10.1, 0.1), "undecided"));
	/* Precise enough to stop: the CI half-width within half the planned tolerance. */
	CHECK(pb_slowdown_precise(30, 1.5));
	CHECK(!pb_slowdown_precise(30, 1.6));
	CHECK(pb_slowdown_precise(3, 0.5));
	CHECK(!pb_slowdown_precise(3, 0.51));
	CHECK(!pb_slowdown_precise(3, NAN));
	char buf[160];
	pb_cost_estimate_text(buf, sizeof buf, 2100, 1700, false, NULL);
	CHECK_STR_CONTAINS(buf, "~2.1 µs, 95 % CI 0.4–3.8 µs, not resolved to ±10 %");
	pb_cost_estimate_text(buf, sizeof buf, 412, 20, true, NULL);
	CHECK_STR_CONTAINS(buf, "~412 ns, 95 % CI 392–432 ns, resolved to ±10 %");
	/* a CI within 10 % that did not resolve says why */
	pb_cost_estimate_text(buf, sizeof buf, 25500, 400, false, "Theil–Sen outside the CI");
	CHECK_STR_CONTAINS(buf, "~25.5 µs, 95 % CI 25.1–25.9 µs, not resolved: Theil–Sen outside");
}

/* plan --costs reads a results document through pb_cost_from_results: only a resolved fit
 * with its figures and no error is taken (issue 21 2e: a bare ns_per_sample was taken as is,
 * and an `error` beside `resolved: true` was ignored). */
static int cost_from_rate(const char *points, double *ns, struct pb_rate_model *rate,
			  struct pb_error *err)
{
	char doc[2048];
	snprintf(doc, sizeof doc, "{\"schema\": \"pesbench-results/1\", \"points\": [%s]}",
		 points);
	struct pb_results r;
	if (pb_results_load_buffer(doc, strlen(doc), "costs.json", &r, err))
		return -2;
	double ci;
	int rc = pb_cost_from_results(&r, "costs.json", "timer:cpu-clock", ns, &ci, rate, err);
	pb_results_free(&r);
	return rc;
}

static int cost_from(const char *points, double *ns, struct pb_error *err)
{
	return cost_from_rate(points, ns, NULL, err);
}

#define FIT "{\"experiment\": \"cost\", \"facility\": \"timer:cpu-clock\", \"kind\": " \
	    "\"fit\", \"delivery\": \"none\", "

static void test_cost_from_results(void)
{
	double ns = 0;
	struct pb_error err = {0};
	CHECK(cost_from(FIT "\"metrics\": {\"ns_per_sample\": 8000, \"ci95_ns\": 400, "
			"\"r2\": 0.7, \"resolved\": true}}", &ns, &err) == 0);
	CHECK(near(ns, 8000, 1e-9));
	/* bare: no figures to check */
	CHECK(cost_from(FIT "\"metrics\": {\"ns_per_sample\": 8000}}", &ns, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "no resolution figures");
	/* an error beside resolved: true (the JSON today's code wrote after a failed run) */
	CHECK(cost_from(FIT "\"error\": \"perf_event_open: EIO\", \"metrics\": "
			"{\"ns_per_sample\": 8000, \"ci95_ns\": 400, \"resolved\": true}}", &ns,
			&err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_FAILURE);
	CHECK_STR_CONTAINS(err.msg, "failed (perf_event_open: EIO)");
	/* unresolved: refused with the estimate and the time a sweep would need */
	CHECK(cost_from(FIT "\"metrics\": {\"ns_per_sample\": 2100, \"ci95_ns\": 1700, "
			"\"r2\": 0.3, \"resolved\": false, \"seconds_to_resolve\": 250}}", &ns,
			&err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_FAILURE);
	CHECK_STR_CONTAINS(err.msg, "~2.1 µs, 95 % CI 0.4–3.8 µs, not resolved");
	CHECK_STR_CONTAINS(err.msg, "a cost sweep of about 250 s would resolve it");
	/* marked resolved, but its CI says otherwise */
	CHECK(cost_from(FIT "\"metrics\": {\"ns_per_sample\": 8000, \"ci95_ns\": 900, "
			"\"resolved\": true}}", &ns, &err) == -1);
	/* the per-event cost did not resolve (issue 21 2a: bp:w's -0.099 ± 0.144 ns/event) */
	CHECK(cost_from(FIT "\"metrics\": {\"ns_per_sample\": 8000, \"ci95_ns\": 400, "
			"\"resolved\": true, \"ns_per_event\": -0.099, \"event_resolved\": false}}",
			&ns, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "per-event cost");
	CHECK(cost_from("", &ns, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);

	/* the rate model comes with the cost: at 100 µs, half a decade and a bit above its 26 µs
	 * reference, 12600 + 0.585 x 2500 ns, CI t sqrt(se1^2 + u^2 se2^2 + 2 u r se1 se2) */
	struct pb_rate_model rate;
#define RATE "\"ns_per_sample\": 13000, \"ci95_ns\": 100, \"resolved\": true, " \
	     "\"rate_dependent\": true, \"rate_ref_period\": 26000, \"rate_top_period\": " \
	     "1000000, \"rate_ns_at_ref\": 12600, \"rate_ns_at_ref_se\": 50, " \
	     "\"rate_ns_per_decade\": 2500, \"rate_ns_per_decade_se\": 400, \"rate_t95\": 2.1, "
	CHECK(cost_from_rate(FIT "\"metrics\": {" RATE "\"rate_correlation\": -0.5}}", &ns, &rate,
			     &err) == 0);
	CHECK(rate.fitted && rate.dependent && rate.ref_period == 26000);
	double u = log10(100.0 / 26), ci, at = pb_rate_model_at(&rate, 100000, &ci);
	CHECK_MSG(near(at, 12600 + 2500 * u, 1e-6), "%.3f", at);
	CHECK(near(ci, 2.1 * sqrt(2500 + u * u * 160000 - 2 * u * 0.5 * 50 * 400), 1e-6));
	/* held to the sweep's range */
	CHECK(near(pb_rate_model_at(&rate, 5000000, NULL), 12600 + 2500 * log10(1000.0 / 26),
		   1e-6));
	/* a correlation that is no correlation, or a figure missing: no rate model, the cost
	 * itself still taken (a file from before the rate model has none) */
	CHECK(cost_from_rate(FIT "\"metrics\": {" RATE "\"rate_correlation\": 1.5}}", &ns, &rate,
			     &err) == 0);
	CHECK(!rate.fitted && isnan(pb_rate_model_at(&rate, 100000, NULL)));
	/* periods no integer holds (a cast of 1e300 is undefined), or below 1 */
	CHECK(cost_from_rate(FIT "\"metrics\": {" RATE "\"rate_correlation\": 0, \"rate_top_period\": "
			     "1e300}}", &ns, &rate, &err) == 0);
	CHECK(!rate.fitted);
	CHECK(cost_from_rate(FIT "\"metrics\": {" RATE "\"rate_correlation\": 0, \"rate_ref_period\": "
			     "0.5}}", &ns, &rate, &err) == 0);
	CHECK(!rate.fitted);
	CHECK(cost_from_rate(FIT "\"metrics\": {\"ns_per_sample\": 8000, \"ci95_ns\": 400, "
			     "\"resolved\": true}}", &ns, &rate, &err) == 0);
	CHECK(!rate.fitted && near(ns, 8000, 0));
#undef RATE

	/* plan: the period whose own cost gives the budget, the cost said at it */
	struct pb_plan plan = {.budget_pct = 5, .cost_ci95_ns = 100, .cost_rate = rate};
	plan.model = (struct pb_slowdown_model){.baseline_ns = 50e6, .time_based = true,
						.ns_per_sample = 13000, .min_period = 10000};
	CHECK(pb_plan_period(&plan, &err) == 0);
	CHECK(!plan.cost_at_period && near(plan.model.ns_per_sample, 13000, 0));
	uint64_t pooled = plan.period.period;
	CHECK(cost_from_rate(FIT "\"metrics\": {\"ns_per_sample\": 13000, \"ci95_ns\": 100, "
			     "\"resolved\": true, \"rate_dependent\": true, \"rate_ref_period\": "
			     "26000, \"rate_top_period\": 1000000, \"rate_ns_at_ref\": 12600, "
			     "\"rate_ns_at_ref_se\": 50, \"rate_ns_per_decade\": 2500, "
			     "\"rate_ns_per_decade_se\": 400, \"rate_t95\": 2.1, "
			     "\"rate_correlation\": -0.5}}", &ns, &plan.cost_rate, &err) == 0);
	plan.model.ns_per_sample = 13000;
	CHECK(pb_plan_period(&plan, &err) == 0);
	CHECK(plan.cost_at_period);
	double own = pb_rate_model_at(&plan.cost_rate, plan.period.period, &ci);
	CHECK(near(plan.model.ns_per_sample, own, 0) && near(plan.cost_ci95_ns, ci, 0));
	CHECK_MSG(plan.period.period > pooled && fabs(plan.period.overhead_pct - 5) < 0.05,
		  "%llu ns (pooled %llu) at %.3f %%", (unsigned long long)plan.period.period,
		  (unsigned long long)pooled, plan.period.overhead_pct);
}

static json_t *find(json_t *points, const char *exp, const char *key, const char *value,
		    size_t *from)
{
	for (size_t i = *from; i < json_array_size(points); i++) {
		json_t *p = json_array_get(points, i);
		const char *e = json_string_value(json_object_get(p, "experiment"));
		const char *v = json_string_value(json_object_get(p, key));
		if (e && v && !strcmp(e, exp) && !strcmp(v, value)) {
			*from = i + 1;
			return p;
		}
	}
	return NULL;
}

/* Every run of the point: observed + lost == expected, exactly. */
/* The spread of samples per run over a sweep, as a fraction of a run's events: SD(1/P) x min P. */
static double sample_spread(const uint64_t *p, unsigned n)
{
	double sum = 0, sq = 0;
	for (unsigned i = 0; i < n; i++) {
		double x = (double)p[n - 1] / (double)p[i];
		sum += x;
		sq += x * x;
	}
	double mean = sum / n;
	return sqrt(sq / n - mean * mean);
}

static void test_sweep_periods(void)
{
	for (const struct pb_facility *const *fp = pb_facility_list(); *fp; fp++) {
		const struct pb_facility *f = *fp;
		uint64_t p[PB_MAX_LIST];
		unsigned n = pb_cost_sweep_periods(f, p);
		const uint64_t *set = f->periods->cost;
		CHECK_MSG(n >= 3 && n <= PB_MAX_LIST, "%s: %u cost periods", f->name, n);
		CHECK_EQ_U64(p[0], set[0]);
		for (unsigned i = 1; i < n; i++)
			CHECK_MSG(p[i] < p[i - 1], "%s cost periods not longest first", f->name);
		if (!f->traps_every_event) {
			/* the timer's and the counters' sweeps are their sets as they are */
			CHECK_EQ_U64(n, PB_ARRAY_SIZE(f->periods->cost));
			for (unsigned i = 0; i < n && i < PB_ARRAY_SIZE(f->periods->cost); i++)
				CHECK_EQ_U64(p[i], set[i]);
			continue;
		}
		/* down to a sample per event, and the samples per run spread toward the ends more
		 * than the whole set followed by the two shortest periods (SD 0.34 of the events
		 * on an exact facility) */
		uint64_t least = f->min_period ? f->min_period : 1;
		CHECK_EQ_U64(p[n - 1], least);
		uint64_t whole[PB_MAX_LIST];
		unsigned nw = 0;
		for (unsigned i = 0; i < PB_ARRAY_SIZE(f->periods->cost); i++)
			whole[nw++] = set[i];
		if (2 * least < whole[nw - 1])
			whole[nw++] = 2 * least;
		whole[nw++] = least;
		double spread = sample_spread(p, n), whole_spread = sample_spread(whole, nw);
		CHECK_MSG(spread >= 0.4 && spread > whole_spread + 0.05,
			  "%s: samples per run spread %.3f of the events (whole set %.3f)", f->name,
			  spread, whole_spread);
		/* a point between the ends, for Theil-Sen to see a bend */
		bool middle = false;
		for (unsigned i = 0; i < n; i++)
			middle |= (double)least / (double)p[i] > 0.25 &&
				  (double)least / (double)p[i] < 0.75;
		CHECK_MSG(middle, "%s: no cost period near half a sample per event", f->name);
	}
}

static void check_adds_up(json_t *p)
{
	json_t *runs = json_object_get(p, "runs"), *run;
	size_t i;
	CHECK(json_array_size(runs) >= 1);
	json_array_foreach(runs, i, run) {
		json_t *ex = json_object_get(run, "expected");
		CHECK(json_is_number(ex));
		uint64_t observed = (uint64_t)json_integer_value(json_object_get(run, "observed"));
		uint64_t lost = (uint64_t)json_integer_value(json_object_get(run, "lost"));
		CHECK_EQ_U64(observed + lost, (uint64_t)json_number_value(ex));
	}
}

/* The cost workload measured beside a prediction's target at its shortest period: only for a
 * fit without a per-event term (whose model is its per-sample cost alone); its figures against
 * the fit's, and the prediction made again with its cost moving the same way. */
static void check_reference(json_t *p, bool without)
{
	json_t *pm = json_object_get(p, "metrics");
	json_t *rounds = json_object_get(pm, "reference_rounds");
	if (without)
		CHECK(rounds == NULL);
	if (!rounds || json_integer_value(rounds) < 2)
		return;
	CHECK(json_integer_value(rounds) <= json_integer_value(json_object_get(pm, "rounds")));
	double ref = json_number_value(json_object_get(pm, "reference_ns_per_sample"));
	double ci = json_number_value(json_object_get(pm, "reference_ns_per_sample_ci95"));
	double fit = json_number_value(json_object_get(p, "ns_per_sample"));
	double vs_fit = json_number_value(json_object_get(pm, "reference_vs_fit_pct"));
	CHECK(ci >= 0);
	CHECK_MSG(near(vs_fit, (ref - fit) / fit * 100, 1e-6 * fabs(vs_fit) + 1e-9),
		  "reference %.1f ns against the fit's %.1f: %.3f %%", ref, fit, vs_fit);
	json_t *own = json_object_get(pm, "measured_ns_per_sample");
	if (own) {
		double o = json_number_value(own);
		CHECK(near(json_number_value(json_object_get(pm, "own_vs_reference_pct")),
			   (o - ref) / ref * 100, 1e-6 * fabs(o - ref) / fabs(ref) * 100 + 1e-9));
	}
	double predicted = json_number_value(json_object_get(pm, "predicted_slowdown_pct"));
	json_t *rebased_json = json_object_get(pm, "rebased_predicted_slowdown_pct");
	if (!rebased_json) {
		/* with a slowdown measured, only a reference's sample that costs a timer's whole
		 * period predicts none: it leaves the program no time */
		if (json_object_get(pm, "measured_slowdown_pct"))
			CHECK_MSG(ref >= (double)json_integer_value(json_object_get(p, "period")),
				  "no prediction with the reference's %.0f ns", ref);
		CHECK(!json_object_get(pm, "rebased_slowdown_verdict"));
		return;
	}
	double rebased = json_number_value(rebased_json);
	/* a dearer sample predicts a larger slowdown: rebased moves with the reference */
	if (fabs(ref - fit) > 1e-6 * fit && predicted > 0)
		CHECK_MSG((rebased > predicted) == (ref > fit),
			  "rebased %.3f %% vs %.3f %% with %.0f ns vs the fit's %.0f", rebased,
			  predicted, ref, fit);
	/* the figure is the mean of the rounds' own reference pairs, each in the point's rows */
	double sum = 0;
	unsigned n = 0;
	json_t *row;
	size_t k;
	json_array_foreach(json_object_get(p, "runs"), k, row) {
		double s = json_number_value(json_object_get(row, "reference_observed"));
		CHECK(json_is_integer(json_object_get(row, "reference_cpu_ns")));
		/* a pair the disturbance rule left out is marked, and is not in the figure */
		if (s > 0 && !json_object_get(row, "reference_left_out")) {
			sum += (json_number_value(json_object_get(row, "reference_cpu_ns")) -
				json_number_value(json_object_get(row, "reference_baseline_cpu_ns"))) / s;
			n++;
		}
	}
	CHECK_EQ_U64(n, json_integer_value(rounds));
	CHECK_MSG(n && near(sum / n, ref, 1.0), "rows give %.1f ns, the point %.1f", n ? sum / n : 0,
		  ref);
	const char *verdict = json_string_value(json_object_get(pm, "rebased_slowdown_verdict"));
	CHECK(verdict && (!strcmp(verdict, "within") || !strcmp(verdict, "outside") ||
			  !strcmp(verdict, "undecided")));
}

/* A point's runs' wall times, as written. */
static size_t wall_times(const json_t *p, double *out, size_t max)
{
	const json_t *runs = json_object_get(p, "runs");
	size_t n = 0;
	for (size_t r = 0; r < json_array_size(runs) && n < max; r++)
		out[n++] = (double)json_integer_value(json_object_get(json_array_get(runs, r),
								      "wall_ns"));
	return n;
}

struct run_count {
	unsigned runs;
	long more;
};

static void count_run(void *ctx, const char *what)
{
	if (getenv("PB_TEST_SHOW_RUNS"))
		fprintf(stderr, "run: %s\n", what);
	((struct run_count *)ctx)->runs++;
}

static void count_more(void *ctx, int runs)
{
	if (getenv("PB_TEST_SHOW_RUNS"))
		fprintf(stderr, "more: %d\n", runs);
	((struct run_count *)ctx)->more += runs;
}

static void test_smoke_on(const char *facility)
{
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	struct pb_error err = {0};
	pb_test_results_in_tmp(dir, &res, "test_cost");
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	/* three: the fewest rounds of a prediction (of two, one disturbed run would carry the
	 * mean) */
	o.runs = 3;
	o.target_ms = 5;
	o.nthreads = 1;
	o.periods[0] = 64;
	o.periods[1] = 4;
	o.periods[2] = 1;
	o.nperiods = 3;
	struct run_count counted = {0};
	o.progress = count_run;
	o.progress_more = count_more;
	o.progress_ctx = &counted;
	CHECK(pb_experiment_cost.run(&o, pb_test_spec(facility), &res, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "cost: %s\n", err.msg);
	/* the progress bar's total, corrected as the designs and rounds were sized, is the runs
	 * there were */
	long total = (long)pb_experiment_cost.count_runs(&o, pb_test_spec(facility)) +
		     counted.more;
	CHECK_MSG(total == (long)counted.runs, "cost %s: %u runs; count_runs and its corrections "
		  "said %ld", facility, counted.runs, total);
	size_t at = 0;
	json_t *fit;
	unsigned fits = 0, other_sites = 0;
	json_t *points = pb_test_points_json(&res);
	struct pb_spec spec;
	CHECK(pb_spec_parse(facility, &spec, NULL) == 0);
	/* the site of the first fit: a facility whose cost per event belongs to the probed
	 * instruction's class (uprobe) fits mode none once more on a site of each other class */
	json_t *first = find(points, "cost", "kind", "fit", &(size_t){0});
	CHECK(first != NULL);
	const char *main_site = first ? json_string_value(json_object_get(first, "site")) : NULL;
	const char *main_class = first ? json_string_value(json_object_get(first, "site_class"))
				       : NULL;
	json_t *first_m = first ? json_object_get(first, "metrics") : NULL;
	bool floor_usable = json_is_true(json_object_get(first_m, "resolved")) &&
			    (!spec.facility->traps_every_event ||
			     json_is_true(json_object_get(first_m, "event_resolved")));
	while ((fit = find(points, "cost", "kind", "fit", &at))) {
		fits++;
		/* a run that failed ends its sweep early: said here, not as a count further on */
		const char *fit_err = json_string_value(json_object_get(fit, "error"));
		CHECK_MSG(!fit_err, "cost %s %s: %s", facility,
			  json_string_value(json_object_get(fit, "delivery")), fit_err ? fit_err : "");
		json_t *m = json_object_get(fit, "metrics");
		CHECK(json_is_number(json_object_get(m, "ns_per_sample")));
		CHECK(json_is_number(json_object_get(m, "r2")));
		CHECK(json_is_number(json_object_get(m, "ci95_ns")));
		CHECK(json_is_number(json_object_get(m, "baseline_ns")));
		CHECK(json_is_boolean(json_object_get(m, "estimators_disagree")));
		/* bp traps on every event: the per-event cost is separated from the sample's */
		CHECK(json_is_number(json_object_get(m, "ns_per_event")) ==
		      spec.facility->traps_every_event);
		const char *site = json_string_value(json_object_get(fit, "site"));
		CHECK(!site == !main_site);
		bool other = site && main_site && strcmp(site, main_site);
		if (other) {
			/* mode none only, on a class of its own, never one the kernel refuses */
			other_sites++;
			const char *cls = json_string_value(json_object_get(fit, "site_class"));
			CHECK(cls && strcmp(cls, main_class) && strcmp(cls, PB_SITE_REFUSED));
			CHECK(!strcmp(json_string_value(json_object_get(fit, "delivery")), "none"));
		}
		/* every other mode is set against mode none's floor, when that resolved (issue 21
		 * 2d: an excess over an unresolved floor is a figure from noise) */
		bool is_none = !strcmp(json_string_value(json_object_get(fit, "delivery")), "none");
		CHECK(json_is_number(json_object_get(m, "excess_over_floor_ns")) ==
		      (!is_none && floor_usable));
		CHECK(!json_object_get(fit, "excess_note") == (is_none || floor_usable));
		/* the estimate with its interval, whether or not it resolved, and how the
		 * sweep was designed (issue 27) */
		CHECK(json_is_string(json_object_get(fit, "estimate")));
		CHECK(json_is_string(json_object_get(fit, "stopping_rule")));
		/* the noise: measured on runs without perf, or (trapping facilities) taken from
		 * the pilot's residuals, saying so */
		CHECK(json_is_number(json_object_get(m, "noise_ns")) ==
		      !spec.facility->traps_every_event);
		CHECK(json_is_string(json_object_get(fit, "noise_from")) ==
		      spec.facility->traps_every_event);
		CHECK(json_is_number(json_object_get(m, "pilot_residual_ns")));
		CHECK(json_is_boolean(json_object_get(m, "resolved")));
		if (!json_is_true(json_object_get(m, "cut_short")))
			CHECK_EQ_U64(json_integer_value(json_object_get(m, "design_pairs")),
				     json_integer_value(json_object_get(m, "points")));
		/* the fit is over every pair of the mode's sweep points on its site, one round at
		 * least */
		const char *mode = json_string_value(json_object_get(fit, "delivery"));
		size_t sat = 0, pairs = 0;
		json_t *sp;
		while ((sp = find(points, "cost", "kind", "sweep", &sat))) {
			const char *ss = json_string_value(json_object_get(sp, "site"));
			if (!strcmp(json_string_value(json_object_get(sp, "delivery")), mode) &&
			    (!ss == !site) && (!ss || !strcmp(ss, site)))
				pairs += json_array_size(json_object_get(sp, "runs"));
		}
		CHECK(pairs >= 3);
		/* a redesigned sweep keeps its first design's runs under the same points, out of
		 * its fit (they once failed this under load: 112 fitted of 140) */
		json_int_t first = json_is_true(json_object_get(m, "redesigned"))
					   ? json_integer_value(json_object_get(m, "first_design_pairs"))
					   : 0;
		CHECK(!json_is_true(json_object_get(m, "redesigned")) || first > 0);
		CHECK_EQ_U64(json_integer_value(json_object_get(m, "points")) + first, pairs);
	}
	CHECK_EQ_U64(fits, 4 + other_sites); /* one per delivery mode, and the other sites */
	at = 0;
	json_t *p;
	unsigned sweeps = 0;
	while ((p = find(points, "cost", "kind", "sweep", &at))) {
		sweeps++;
		check_adds_up(p);
		/* each run is a pair: the sampled run's CPU time and its partner's */
		json_t *run = json_array_get(json_object_get(p, "runs"), 0);
		CHECK(json_is_integer(json_object_get(run, "cpu_ns")));
		CHECK(json_is_integer(json_object_get(run, "baseline_cpu_ns")));
	}
	CHECK_EQ_U64(sweeps, 12 + 3 * other_sites);
	/* The target site's class picks the fit (a facility without classes: mode none's on the
	 * one site). None of its class: refused, saying so. Resolved (or, on another site than
	 * the first, its per-event cost resolved and the first site's per-sample cost): 3
	 * predictions. Otherwise (a per-sample cost below the noise, as bp:w's usually is): one
	 * refused prediction carrying the fit's figures. */
	const char *target_class = NULL;
	{
		struct pb_workload_choice wc;
		static struct pb_truth tt;
		const char *tw = pb_spec_workload(&spec, PB_ROLE_PREDICT, NULL);
		CHECK(tw && pb_workload_parse(tw, &wc, NULL) == 0 &&
		      pb_workload_truth(&wc, 10, &tt, NULL) == 0);
		char insn[96];
		int l = pb_truth_default_label(&tt);
		if (l >= 0 && pb_spec_sits_on_instruction(&spec))
			target_class = pb_spec_event_cost_class(o.machine, &spec, tt.labels[l].addr,
								insn, sizeof insn);
	}
	at = 0;
	json_t *use = NULL, *main_none = NULL;
	while ((fit = find(points, "cost", "kind", "fit", &at))) {
		if (strcmp(json_string_value(json_object_get(fit, "delivery")), "none"))
			continue;
		const char *cls = json_string_value(json_object_get(fit, "site_class"));
		if (!main_none)
			main_none = fit;
		if (!use && (!target_class || (cls && !strcmp(cls, target_class))))
			use = fit;
	}
	CHECK(main_none != NULL);
	json_t *um = use ? json_object_get(use, "metrics") : NULL;
	bool main_resolved = main_none && json_is_true(json_object_get(
						  json_object_get(main_none, "metrics"), "resolved"));
	/* issue 21 2a: a facility that pays per event predicts only when that cost resolved
	 * too (this test once computed it from `resolved` alone, as the code did) */
	bool per_event = spec.facility->traps_every_event;
	bool event_ok = !per_event || json_is_true(json_object_get(um, "event_resolved"));
	bool own_ok = json_is_true(json_object_get(um, "resolved")) && event_ok;
	bool borrowed = use && use != main_none && !own_ok && per_event &&
			json_is_true(json_object_get(um, "event_resolved")) && main_resolved;
	/* a per-sample cost only bounded beside the per-event one: predicted without it */
	double hi = json_number_value(json_object_get(um, "ns_per_sample")) +
		    json_number_value(json_object_get(um, "ci95_ns"));
	bool bounded = use && per_event && !own_ok && !borrowed &&
		       json_is_true(json_object_get(um, "event_resolved")) &&
		       json_object_get(use, "error") == NULL &&
		       hi <= PB_SAMPLE_TERM_MAX_SHARE *
				     json_number_value(json_object_get(um, "ns_per_event"));
	bool predictable = use && (own_ok || borrowed || bounded);
	at = 0;
	unsigned predictions = 0, refused = 0;
	while ((p = find(points, "cost", "kind", "prediction", &at))) {
		if (json_object_get(p, "not_applicable")) {
			refused++;
			const char *note = json_string_value(json_object_get(p, "note"));
			CHECK(note != NULL);
			bool says = note && (use ? (strstr(note, "not predicted: the per-sample cost "
							       "fit (mode none) did not resolve (~") ||
						    strstr(note, "not predicted: the per-event cost "
								 "(mode none) did not resolve"))
						 : strstr(note, "not predicted: the per-event cost was "
								"measured on") != NULL);
			CHECK_MSG(says, "refusal note: %s", note ? note : "(none)");
			CHECK(json_is_string(json_object_get(p, "not_applicable")));
			CHECK_EQ_U64(json_array_size(json_object_get(p, "runs")), 0);
			CHECK(json_object_get(p, "ns_per_sample") == NULL);
			continue;
		}
		predictions++;
		if (target_class) {
			CHECK(!strcmp(json_string_value(json_object_get(p, "site_class")),
				      target_class));
			CHECK(!borrowed == !json_object_get(p, "ns_per_sample_from"));
		}
		/* a bounded per-sample cost is left out, and the point says how far that may
		 * move it */
		CHECK(!bounded == !json_object_get(p, "ns_per_sample_bound"));
		if (bounded) {
			CHECK(json_number_value(json_object_get(p, "ns_per_sample")) == 0);
			CHECK_STR_CONTAINS(json_string_value(json_object_get(p, "note")),
					   "the per-sample cost did not resolve and is left out");
		}
		/* the fewest rounds, more while a measured slowdown is not precise enough to
		 * judge, never more than the most */
		json_t *pm = json_object_get(p, "metrics");
		size_t nruns = json_array_size(json_object_get(p, "runs"));
		CHECK(nruns >= PB_PREDICT_MIN_ROUNDS && nruns <= PB_PREDICT_MAX_ROUNDS);
		CHECK_EQ_U64(json_integer_value(json_object_get(pm, "rounds")), nruns);
		/* each run's slowdown is against its own round's baseline, and the point's is
		 * the mean difference over the mean baseline of the rounds no disturbance moved
		 * (their rows marked, as many as the point says) */
		double sum_diff = 0, sum_base = 0;
		size_t marked = 0;
		for (size_t r = 0; r < nruns; r++) {
			json_t *rr = json_array_get(json_object_get(p, "runs"), r);
			double base = json_number_value(json_object_get(rr, "baseline_cpu_ns"));
			double cpu = json_number_value(json_object_get(rr, "cpu_ns"));
			double s_r = json_number_value(json_object_get(rr, "measured_slowdown_pct"));
			CHECK(base > 0 && near(s_r, (cpu - base) / base * 100, 1e-6 * fabs(s_r) + 1e-6));
			if (json_object_get(rr, "left_out")) {
				marked++;
				continue;
			}
			sum_diff += cpu - base;
			sum_base += base;
		}
		CHECK_EQ_U64(json_integer_value(json_object_get(pm, "rounds_left_out")), marked);
		CHECK(marked <= nruns / PB_DISTURBED_MAX_SHARE * 2);
		double measured = json_number_value(json_object_get(pm, "measured_slowdown_pct"));
		/* cpu_ns and baseline_cpu_ns are written as integers: 1 ns each per run */
		CHECK(near(measured, sum_diff / sum_base * 100,
			   1e-6 * fabs(measured) + 200.0 * (double)nruns / sum_base * 100));
		double ci = json_number_value(json_object_get(pm, "measured_slowdown_ci95_pp"));
		CHECK(ci >= 0);
		const char *verdict = json_string_value(json_object_get(pm, "slowdown_verdict"));
		CHECK(verdict && (!strcmp(verdict, "within") || !strcmp(verdict, "outside") ||
				  !strcmp(verdict, "undecided")));
		json_t *run = json_array_get(json_object_get(p, "runs"), 0);
		CHECK(json_is_number(json_object_get(run, "predicted_ns")));
		CHECK(json_is_number(json_object_get(run, "error_pct")));
		CHECK(json_is_number(json_object_get(json_object_get(json_object_get(p, "metrics"),
								     "error_pct"), "median")));
		/* judged on the slowdown (issue 27) */
		CHECK(json_is_number(json_object_get(pm, "slowdown_error_pp")));
		CHECK(json_is_number(json_object_get(pm, "slowdown_tolerance_pp")));
		CHECK(json_is_boolean(json_object_get(pm, "slowdown_within")));
		CHECK(json_is_string(json_object_get(p, "criterion")));
		/* a timer's periods were chosen for a slowdown, which the point names (compare
		 * lines runs up on it); an event-based facility's are its sweep's */
		json_t *aimed = json_object_get(p, "aimed_slowdown_pct");
		if (spec.facility->time_based && !per_event) {
			double a = json_number_value(aimed);
			double predicted = json_number_value(json_object_get(pm,
									 "predicted_slowdown_pct"));
			/* the period held at the facility's shortest predicts less than its aim (a
			 * sample of ~2 µs would, on a machine of that kind) */
			bool held = (uint64_t)json_integer_value(json_object_get(p, "period")) <=
				    spec.facility->min_period;
			CHECK_MSG(a == 3 || a == 10 || a == 30, "%g", a);
			CHECK_MSG(near(predicted, a, 0.05 * a) || (held && predicted < a) ||
					  json_object_get(p, "ns_per_sample_from"),
				  "aimed at %g %%, predicted %g %%", a, predicted);
		} else {
			CHECK(aimed == NULL);
		}
		check_adds_up(p);
		check_reference(p, per_event || json_object_get(p, "ns_per_sample_from"));
	}
	if (predictable) {
		CHECK_EQ_U64(predictions, 3); /* 3 periods, 1 thread count */
		CHECK_EQ_U64(refused, 0);
	} else {
		fprintf(stderr, "cost %s: %s, the prediction is refused\n", facility,
			use ? "its fit did not resolve" : "no fit of the target site's class");
		CHECK_EQ_U64(predictions, 0);
		CHECK_EQ_U64(refused, 1);
	}

	/* buffer: a baseline and 3 ring sizes x 4 reader settings; kept + lost add up. */
	o.nperiods = 0;
	CHECK(pb_experiment_buffer.run(&o, pb_test_spec(facility), &res, &err) == 0);
	json_decref(points);
	points = pb_test_points_json(&res);
	at = 0;
	json_t *buffer_base = find(points, "buffer", "role", "baseline", &at);
	CHECK(buffer_base != NULL);
	unsigned buffers = 0;
	while ((p = find(points, "buffer", "role", "sampled", &at))) {
		buffers++;
		CHECK(json_object_get(p, "error") == NULL);
		CHECK(json_is_integer(json_object_get(p, "ring_pages")));
		json_t *m = json_object_get(p, "metrics");
		/* its overhead from the runs as written: unpaired, the baseline's runs came first */
		double sampled[16], base[16], want, want_ci;
		size_t ns = wall_times(p, sampled, 16), nb = wall_times(buffer_base, base, 16);
		pb_unpaired_slowdown(sampled, (unsigned)ns, base, (unsigned)nb, &want, &want_ci);
		CHECK(near(json_number_value(json_object_get(m, "time_overhead_pct")), want, 1e-9));
		if (ns > 1 && nb > 1)
			CHECK(near(json_number_value(json_object_get(m, "time_overhead_ci95_pp")),
				   want_ci, 1e-9));
		else
			CHECK(json_is_null(json_object_get(m, "time_overhead_ci95_pp")));
		CHECK(json_is_number(json_object_get(m, "loss_pct")));
		check_adds_up(p);
	}
	CHECK_EQ_U64(buffers, 12);
	json_decref(points);
	pb_test_check_units(&res);
	pb_test_results_remove(&res, dir);
}

/* A fake kernel in front of the real one (the sys seam): perf_event_open fails (EIO) at the
 * period fault_period, or, with fault_other_site, for a uprobe at another offset than the first
 * one opened. */
static uint64_t fault_period;
static bool fault_other_site, have_site;
static uint64_t first_site;

static int faulty_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		       unsigned long flags)
{
	if (fault_period && attr->sample_period == fault_period) {
		errno = EIO;
		return -1;
	}
	if (fault_other_site && attr->type >= PERF_TYPE_MAX) {
		if (!have_site) {
			have_site = true;
			first_site = attr->config2;
		} else if (attr->config2 != first_site) {
			errno = EIO;
			return -1;
		}
	}
	return pb_sys_linux.perf_event_open(attr, pid, cpu, group_fd, flags);
}

static json_t *faulty_cost_run(const char *facility, struct pb_results *res, char *dir)
{
	pb_test_results_in_tmp(dir, res, "test_cost");
	struct pb_error err = {0};
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	o.runs = 2;
	o.target_ms = 5;
	o.nthreads = 1;
	static struct pb_sys faulty;
	faulty = pb_sys_linux;
	faulty.perf_event_open = faulty_open;
	have_site = false;
	const struct pb_sys *before = pb_sys_install(&faulty);
	CHECK(pb_experiment_cost.run(&o, pb_test_spec(facility), res, &err) == 0);
	pb_sys_install(before);
	fault_period = 0;
	fault_other_site = false;
	return pb_test_points_json(res);
}

/* Issue 21 2b: a run failing mid-sweep left `resolved: true` beside its `error` (the point was
 * written before the failure cleared it). Now: resolved false with the reason, no prediction
 * (each refused, saying the sweep failed), and plan --costs refuses the file. */
static void test_fault_mid_sweep_on(const char *facility)
{
	struct pb_results res;
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	/* every run at a middle period of the sweep fails: the noise and pilot (at the ends)
	 * pass, and the design fails at its first visit there */
	struct pb_spec spec;
	CHECK(pb_spec_parse(facility, &spec, NULL) == 0);
	uint64_t set[PB_MAX_LIST];
	CHECK(pb_cost_sweep_periods(spec.facility, set) >= 3);
	fault_period = set[1];
	json_t *points = faulty_cost_run(facility, &res, dir);
	size_t at = 0;
	json_t *fit = find(points, "cost", "kind", "fit", &at);
	CHECK(fit != NULL);
	json_t *m = json_object_get(fit, "metrics");
	/* mid-sweep: the design was sized (its noise and pilot measured), and fewer of its pairs
	 * were measured than it asked for */
	CHECK_MSG(json_integer_value(json_object_get(m, "design_pairs")) > 0, "%s: %s", facility,
		  json_string_value(json_object_get(fit, "error")));
	CHECK(json_integer_value(json_object_get(m, "points")) <
	      json_integer_value(json_object_get(m, "design_pairs")));
	CHECK(json_is_string(json_object_get(fit, "error")));
	CHECK(json_is_false(json_object_get(m, "resolved")));
	if (json_object_get(m, "event_resolved"))
		CHECK(json_is_false(json_object_get(m, "event_resolved")));
	CHECK_STR_CONTAINS(json_string_value(json_object_get(fit, "note")), "a run failed");
	at = 0;
	json_t *p;
	unsigned refused = 0;
	while ((p = find(points, "cost", "kind", "prediction", &at))) {
		CHECK(json_object_get(p, "not_applicable") != NULL);
		CHECK_STR_CONTAINS(json_string_value(json_object_get(p, "note")),
				   "not predicted: a run of the cost sweep (mode none) failed");
		CHECK_EQ_U64(json_array_size(json_object_get(p, "runs")), 0);
		refused++;
	}
	CHECK(refused >= 1);
	double ns;
	struct pb_error err = {0};
	double ci;
	CHECK(pb_cost_from_results(&res, "r", facility, &ns, &ci, NULL, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_FAILURE);
	CHECK_STR_CONTAINS(err.msg, "failed");
	json_decref(points);
	pb_test_results_remove(&res, dir);
}

static void test_fault_mid_sweep(void)
{
	pb_test_on_exact_facilities(test_fault_mid_sweep_on);
}

/* Issue 21 2c: a failing extra-site sweep kept its event_resolved and lent its per-event cost
 * to a prediction. Now its fit says resolved and event_resolved false with the error, and a
 * target of its class is not predicted. */
static void test_fault_extra_site(void)
{
	char why[512];
	if (!pb_test_facility_works("uprobe", why, sizeof why)) {
		pb_skip_checks(1, "%s", why);
		return;
	}
	struct pb_results res;
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	fault_other_site = true;
	json_t *points = faulty_cost_run("uprobe", &res, dir);
	size_t at = 0;
	json_t *fit, *main_fit = NULL;
	unsigned failed_sites = 0;
	const char *failed_class = NULL;
	while ((fit = find(points, "cost", "kind", "fit", &at))) {
		if (!main_fit) {
			main_fit = fit;
			continue;
		}
		const char *site = json_string_value(json_object_get(fit, "site"));
		if (!site || !strcmp(site, json_string_value(json_object_get(main_fit, "site"))))
			continue;
		failed_sites++;
		failed_class = json_string_value(json_object_get(fit, "site_class"));
		json_t *m = json_object_get(fit, "metrics");
		CHECK(json_is_string(json_object_get(fit, "error")));
		CHECK(json_is_false(json_object_get(m, "resolved")));
		CHECK(!json_is_true(json_object_get(m, "event_resolved")));
	}
	if (!failed_sites) {
		pb_skip_checks(1, "uprobe's cost workload has one site class here");
	} else {
		at = 0;
		json_t *p;
		while ((p = find(points, "cost", "kind", "prediction", &at))) {
			const char *cls = json_string_value(json_object_get(p, "site_class"));
			if (cls && failed_class && !strcmp(cls, failed_class)) {
				CHECK(json_object_get(p, "not_applicable") != NULL);
				CHECK_EQ_U64(json_array_size(json_object_get(p, "runs")), 0);
			}
		}
	}
	json_decref(points);
	pb_test_results_remove(&res, dir);
}

/* A program's environment: this process's, with the entries asked for in place of those of the
 * same names (python3's hash seed, cost_programs.c), once each; this process's own unchanged. */
static void test_program_env(void)
{
	setenv("PB_TEST_SET", "one", 1);
	unsetenv("PB_TEST_NEW");
	char *argv[] = {"sh", "-c", "[ \"$PB_TEST_SET\" = two ] && [ \"$PB_TEST_NEW\" = 3 ] && "
			"[ -n \"$PATH\" ] && [ \"$(env | grep -c '^PB_TEST_SET=')\" = 1 ]", NULL};
	char *set[] = {"PB_TEST_SET=two", "PB_TEST_NEW=3", NULL};
	struct pb_program_figures f;
	struct pb_error err = {0};
	CHECK_MSG(pb_program_measure(argv, set, NULL, 0, 0, -1, &f, &err) == 0, "%s", err.msg);
	CHECK(!strcmp(getenv("PB_TEST_SET"), "one") && !getenv("PB_TEST_NEW"));
	/* without them the same test fails, and says how */
	err = (struct pb_error){0};
	CHECK(pb_program_measure(argv, NULL, NULL, 0, 0, -1, &f, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "exited with status 1");
	char *none[] = {NULL};
	CHECK(pb_program_measure(argv, none, NULL, 0, 0, -1, &f, &err) != 0);
	unsetenv("PB_TEST_SET");
}

/* A program asked onto one CPU runs there alone, and what it starts with it: on a guest whose
 * vCPUs run at different speeds, a program left to the scheduler lands on either and its runs
 * split in two (cost_programs.c). The last CPU online, so that a pin that did nothing (which
 * leaves every CPU allowed) cannot pass on a machine of two or more. */
static void test_program_pinned(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = ncpus > 1 ? (int)ncpus - 1 : 0;
	char want[16];
	snprintf(want, sizeof want, "%d", cpu);
	char *argv[] = {"sh", "-c", "[ \"$(grep Cpus_allowed_list /proc/self/status | cut -f2)\" "
			"= \"$0\" ]", want, NULL};
	struct pb_program_figures f;
	struct pb_error err = {0};
	CHECK_MSG(pb_program_measure(argv, NULL, NULL, 0, 0, cpu, &f, &err) == 0, "%s", err.msg);
	CHECK(!f.unpinned);
	if (ncpus < 2) {
		pb_skip_checks(2, "one CPU online: an unpinned run is allowed only CPU 0 too");
		return;
	}
	/* the same check without the pin fails: every CPU is allowed */
	err = (struct pb_error){0};
	CHECK(pb_program_measure(argv, NULL, NULL, 0, 0, -1, &f, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "exited with status 1");
}

/* A real program's CPU time comes from wait4 (user + system), and a timer over the whole
 * program counts that same CPU time: a shell loop of builtins (no child processes) keeps the
 * two within each other, where a wrapper that forks helpers would not. */
static void test_program_cpu(void)
{
	char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", NULL};
	struct pb_program_figures f;
	struct pb_error err = {0};
	CHECK(pb_program_measure(argv, NULL, NULL, 0, 0, -1, &f, &err) == 0);
	CHECK(f.cpu_ns > 0);
	CHECK(f.cpu_ns <= f.wall_ns + 10000000);
	struct pb_spec spec;
	CHECK(pb_spec_parse("timer:cpu-clock", &spec, &err) == 0);
	if (pb_program_measure(argv, NULL, &spec, 1000000, 0, -1, &f, &err)) {
		fprintf(stderr, "program_cpu: the timer cannot sample a child here: %s\n", err.msg);
		return;
	}
	CHECK(f.cpu_ns > 0);
	/* the timer starts at exec, rusage a little earlier (fork): the count is within it */
	CHECK(f.count <= f.cpu_ns + 1000000);
	CHECK(f.count >= f.cpu_ns / 2);
	printf("program: %llu ns CPU (wait4), %llu ns counted by the timer\n",
	       (unsigned long long)f.cpu_ns, (unsigned long long)f.count);
}

/* What a task event without inherit samples is the main thread's CPU time (plan's model): on
 * a program of one thread it is the whole of wait4's figure (the kernel derives one from the
 * other; what the exit path runs after the read is microseconds), and a program whose work is
 * done by a child it forks has little of its own (a pyenv shim's helpers made a plan for
 * python3 miss by 40 % of its CPU time). */
static void test_main_thread_cpu(void)
{
	char *alone[] = {"sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", NULL};
	char *forked[] = {"sh", "-c", "(i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done); :",
			  NULL};
	struct pb_program_figures f;
	struct pb_error err = {0};
	CHECK(pb_program_measure(alone, NULL, NULL, 0, 0, -1, &f, &err) == 0);
	if (!f.main_cpu_ns) {
		pb_skip_checks(2, "no /proc/PID/schedstat here (CONFIG_SCHED_INFO)");
		return;
	}
	printf("main thread: %llu of %llu ns CPU alone\n", (unsigned long long)f.main_cpu_ns,
	       (unsigned long long)f.cpu_ns);
	CHECK(llabs((long long)f.main_cpu_ns - (long long)f.cpu_ns) <=
	      100000 + (long long)(f.cpu_ns / 100));
	CHECK(pb_program_measure(forked, NULL, NULL, 0, 0, -1, &f, &err) == 0);
	printf("main thread: %llu of %llu ns CPU with a child doing the work\n",
	       (unsigned long long)f.main_cpu_ns, (unsigned long long)f.cpu_ns);
	CHECK(f.main_cpu_ns > 0 && f.main_cpu_ns < f.cpu_ns / 2);
}

/* A plan corrected from its check: the period the budget gives with the cost the command
 * itself paid, on the baseline measured beside it; and the check's overhead against the
 * budget with its interval. */
static void test_plan_correction(void)
{
	struct pb_error err = {0};
	struct pb_slowdown_model planned = {.baseline_ns = 50e6, .time_based = true,
					    .ns_per_sample = 16000, .min_period = 10000,
					    .record_bytes = 48},
				 corrected;
	struct pb_plan_check c = {.baseline_ns = 48e6, .own_ns_per_sample = 20000,
				  .own_ci95_ns = 1000, .measured_pct = 39, .measured_ci95_pp = 2.7,
				  .rounds = 8};
	struct pb_budget_period r;
	/* timer: c (1 + b) / b = 20000 x 1.3 / 0.3 = 86667 (rounded up to meet the budget) */
	CHECK(pb_plan_corrected_period(&planned, &c, 30, &corrected, &r, &err) == 0);
	CHECK(near(corrected.ns_per_sample, 20000, 1e-9) && near(corrected.baseline_ns, 48e6, 1e-3));
	CHECK(corrected.time_based && corrected.min_period == 10000);
	CHECK_EQ_U64(r.period, 86667);
	CHECK(r.overhead_pct <= 30 && pb_slowdown_overhead_pct(&corrected, 86666) > 30);
	/* no cost measured (no round with samples): nothing to correct with */
	c.own_ns_per_sample = NAN;
	CHECK(pb_plan_corrected_period(&planned, &c, 30, &corrected, &r, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "no cost per sample");
	c.own_ns_per_sample = -5;
	CHECK(pb_plan_corrected_period(&planned, &c, 30, &corrected, &r, &err) == -1);
	/* a cost is planned with only when resolved, as a fit is: its CI within 10 % of it */
	c.own_ns_per_sample = 20000;
	c.own_ci95_ns = 2000;
	CHECK(pb_plan_own_cost_resolved(&c));
	CHECK(pb_plan_corrected_period(&planned, &c, 30, &corrected, &r, &err) == 0);
	c.own_ci95_ns = 2001;
	CHECK(!pb_plan_own_cost_resolved(&c));
	pb_error_clear(&err);
	CHECK(pb_plan_corrected_period(&planned, &c, 30, &corrected, &r, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "20000 ± 2001 ns, did not resolve to ±10 %");
	/* the rounds that would: 8 x (2001 / 2000)^2 = 8.008, so 9; a second check of kind B
	 * (2026-11-29): 94603 ± 28259 ns over 8 rounds, 8 x 2.987^2 = 71.4, so 72 */
	CHECK_EQ_U64(pb_plan_rounds_to_resolve(&c), 9);
	c.own_ns_per_sample = 94603;
	c.own_ci95_ns = 28259;
	CHECK_EQ_U64(pb_plan_rounds_to_resolve(&c), 72);
	c.own_ns_per_sample = NAN;
	CHECK(!pb_plan_own_cost_resolved(&c));
	CHECK_EQ_U64(pb_plan_rounds_to_resolve(&c), UINT_MAX);
	/* plan's note says why it stopped, and what would resolve the cost */
	struct pb_plan_checks all = {.n = 1, .stopped = "cost unresolved"};
	all.step[0] = (struct pb_plan_check){.rounds = 8, .own_ns_per_sample = 94603,
					     .own_ci95_ns = 28259};
	char words[320];
	CHECK_STR_CONTAINS(pb_plan_stopped_why(&all, words, sizeof words),
			   "the check's own cost of a sample, 94.6 ± 28.3 µs, did not resolve to "
			   "±10 %, and a cost that did not is not planned with: about 72 rounds "
			   "would resolve it, more than --runs allows (64)");
	all.step[0].own_ci95_ns = 12000;  /* 8 x 1.268^2 = 12.9 */
	CHECK_STR_CONTAINS(pb_plan_stopped_why(&all, words, sizeof words),
			   "about 13 rounds would resolve it (--runs 13)");
	/* the budget against the interval: all of it over, all of it within, or holding it; an
	 * interval that holds both no overhead and twice the budget judges nothing (a plan --check
	 * of 2026-11-27 read 182.81 ± 214.06 % against a 30 % budget, "its interval holds the 30 %
	 * budget"); one round (no interval) is judged on the estimate */
	static const struct {
		double pct, ci95;
		const char *verdict;
	} budget_cases[] = {
		{31.84, 1.92, "at"}, {27, 2.9, "within"}, {27, 3.1, "at"}, {33, 2.9, "OVER"},
		{182.81, 214.06, "unjudged"}, {30, 30, "unjudged"}, {30, 29.9, "at"},
		{30, NAN, "within"}, {30.5, NAN, "OVER"},
	};
	CHECK(!strcmp(pb_plan_budget_verdict(&c, 30), "OVER"));
	for (size_t i = 0; i < PB_ARRAY_SIZE(budget_cases); i++) {
		c.measured_pct = budget_cases[i].pct, c.measured_ci95_pp = budget_cases[i].ci95;
		CHECK_MSG(!strcmp(pb_plan_budget_verdict(&c, 30), budget_cases[i].verdict),
			  "%.2f ± %.2f %%: %s, not %s", budget_cases[i].pct, budget_cases[i].ci95,
			  pb_plan_budget_verdict(&c, 30), budget_cases[i].verdict);
	}
}

static void test_paired_sample_cost(void)
{
	/* 20, 22 and 18 ns a sample; the round without samples and the one whose figure is no
	 * number are left out */
	double extra[] = {2000, 2200, 1800, 500, NAN}, samples[] = {100, 100, 100, 0, 10};
	double ns, ci;
	CHECK_EQ_U64(pb_paired_sample_cost(extra, samples, 5, &ns, &ci), 3);
	CHECK(near(ns, 20, 1e-9));
	CHECK(near(ci, 4.303 * 2 / sqrt(3), 1e-9));
	/* each round's own cost, then their mean (10 and 20 ns: 15), not the pooled 5000/300 */
	double extra2[] = {1000, 4000}, samples2[] = {100, 200};
	CHECK_EQ_U64(pb_paired_sample_cost(extra2, samples2, 2, &ns, &ci), 2);
	CHECK(near(ns, 15, 1e-9));
	CHECK(near(ci, 12.706 * sqrt(50) / sqrt(2), 1e-6));
	/* one round: no figure */
	CHECK_EQ_U64(pb_paired_sample_cost(extra, samples, 1, &ns, &ci), 1);
	CHECK(isnan(ns) && isnan(ci));
}

/* The cost at each period of a sweep, beside the pooled slope: each period's mean of its
 * pairs' own costs, and a note when the intercept says a sample is not one cost over the sweep
 * (500 µs a run here: 20.5 µs a sample at 10 µs, 25 µs at 100 µs). */
static void test_cost_by_period(void)
{
	static const double noise[] = {1000, -1000, 2000, -2000};
	struct sweep *sw = calloc(1, sizeof *sw);
	struct cost_fit *cf = calloc(1, sizeof *cf);
	CHECK(sw && cf);
	if (!sw || !cf)
		return;
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	pb_test_results_in_tmp(dir, &res, "test_cost");
	for (int with_intercept = 0; with_intercept < 2; with_intercept++) {
		sw->n = 0;
		for (unsigned k = 0; k < 8; k++) {
			uint64_t period = k % 2 ? 100000 : 10000;
			double samples = k % 2 ? 100 : 1000;
			sw->p[sw->n++] = (struct pb_cost_pair){
				.period = period, .observed = samples, .expected = samples,
				.base_cpu = 1e7, .base_wall = 1e7,
				.cpu = 1e7 + (with_intercept ? 500000 : 0) + 20000 * samples +
				       noise[k / 2],
				.wall = 1e7};
		}
		memset(cf, 0, sizeof *cf);
		cf->time_based = true;
		pb_cost_fit_sweep(sw, false, cf);
		CHECK_EQ_U64(cf->nby_period, 2);
		double at10 = with_intercept ? 20500 : 20000, at100 = with_intercept ? 25000 : 20000;
		for (unsigned k = 0; k < cf->nby_period; k++) {
			const struct pb_period_cost *b = &cf->by_period[k];
			bool short_one = b->period == 10000;
			CHECK_EQ_U64(b->pairs, 4);
			CHECK(near(b->samples, short_one ? 1000 : 100, 1e-9));
			CHECK_MSG(near(b->ns, short_one ? at10 : at100, 1e-6), "%.3f ns at %llu", b->ns,
				  (unsigned long long)b->period);
			/* the noise of 1 and 2 µs over each period's samples, t with 3 df */
			double sd = sqrt((2 * 1e6 + 2 * 4e6) / 3) / (short_one ? 1000 : 100);
			CHECK(near(b->ci95, 3.182 * sd / 2, 1e-6));
		}
		struct pb_result_point *p = pb_cost_fit_point(&res, "timer:cpu-clock", "busy",
							      PB_DELIVERY_NONE, cf, NULL);
		const char *note = pb_rset_get_text(&p->params, "rate_note");
		CHECK_MSG(!note == !with_intercept, "rate note: %s", note ? note : "(none)");
		if (note) {
			CHECK_MSG(strstr(note, "20.5 µs at 10 µs, 25 µs at 100 µs") != NULL, "%s", note);
			CHECK(!strstr(note, "counted event"));
		}
		const struct pb_rlist *rows = pb_rset_get_list(&p->metrics,
							       "ns_per_sample_by_period");
		CHECK(rows && pb_rlist_size(rows) == 2);
		/* the same runs counting 5000 events each, the period in events (a page fault's
		 * count): the intercept is also said per counted event, 500 µs / 5000 = 100 ns */
		for (unsigned k = 0; k < sw->n; k++)
			sw->p[k].events = 5000;
		memset(cf, 0, sizeof *cf);
		pb_cost_fit_sweep(sw, false, cf);
		p = pb_cost_fit_point(&res, "sw:page-faults", "mode:kernel=touch", PB_DELIVERY_NONE,
				      cf, NULL);
		note = pb_rset_get_text(&p->params, "rate_note");
		CHECK_MSG(!note == !with_intercept, "rate note: %s", note ? note : "(none)");
		if (note)
			CHECK_MSG(strstr(note, "or each counted event's cost: 100 ± ") &&
					  strstr(note, " ns an event over the 5000 a run); by period:"),
				  "%s", note);
		/* and in figures of their own, with the intercept's interval over the events */
		double counted = pb_rset_get_number(&p->metrics, "ns_per_counted_event", NULL);
		CHECK_MSG(near(counted, with_intercept ? 100 : 0, 1e-6), "%.6f ns", counted);
		CHECK(near(pb_rset_get_number(&p->metrics, "ns_per_counted_event_ci95", NULL),
			   cf->cpu.intercept_ci95 / 5000, 1e-9));
		CHECK(near(pb_rset_get_number(&p->metrics, "events_per_run", NULL), 5000, 0));
		CHECK(pb_rset_is_true(&p->metrics, "counted_event_resolved") ==
		      (with_intercept && cf->cpu.intercept_ci95 <= 0.1 * 500000));
		/* a facility that traps on every event: its extra time holds the traps, no
		 * per-period cost of a sample */
		memset(cf, 0, sizeof *cf);
		pb_cost_fit_sweep(sw, true, cf);
		CHECK_EQ_U64(cf->nby_period, 0);
	}
	pb_test_results_remove(&res, dir);
	free(sw);
	free(cf);
}

/* A sample dearer at long periods (kind A, 2026-11-27: 13.3 µs at 26 µs, 14.3 at 100 µs, 17.4
 * at 1 ms; perf record at 100 µs disagreed with the pooled slope): the rate model finds the
 * line, the cost at a period is read from it (held to the sweep's range), and the prediction
 * periods are the ones whose own cost gives the budgets. A flat cost keeps the pooled slope;
 * a trapping facility has no rate model. */
static void test_rate_model(void)
{
	static const uint64_t periods[] = {26000, 50000, 100000, 200000, 500000, 1000000};
	/* Gaussian-free, deterministic noise of ±0.3 % of a 60 ms run, alternating by round */
	static const double noise[] = {180e3, -120e3, 60e3, -180e3, 120e3, -60e3};
	struct sweep *sw = calloc(1, sizeof *sw);
	struct cost_fit *cf = calloc(1, sizeof *cf);
	CHECK(sw && cf);
	if (!sw || !cf)
		return;
	for (int dependent = 1; dependent >= 0; dependent--) {
		sw->n = 0;
		for (unsigned round = 0; round < 4; round++)
			for (unsigned k = 0; k < 6; k++) {
				double samples = 60e6 / (double)periods[k];
				double ns = 13000 + (dependent ? 2500 : 0) *
							    log10((double)periods[k] / 26000);
				sw->p[sw->n++] = (struct pb_cost_pair){
					.period = periods[k], .observed = samples,
					.expected = samples, .base_cpu = 60e6, .base_wall = 60e6,
					.cpu = 60e6 + ns * samples + noise[(k + round) % 6],
					.wall = 60e6};
			}
		memset(cf, 0, sizeof *cf);
		cf->time_based = true;
		pb_cost_fit_sweep(sw, false, cf);
		CHECK(cf->fitted && cf->rate.fitted);
		CHECK_EQ_U64(cf->rate.ref_period, 26000);
		CHECK_EQ_U64(cf->rate.top_period, 1000000);
		CHECK_MSG(cf->rate.dependent == dependent, "%g ± %g ns a decade",
			  cf->rate.fit.coef[2], cf->rate.fit.t95 * sqrt(cf->rate.fit.cov[2][2]));
		double ci, at100 = pb_cost_at_period(cf, 100000, &ci);
		if (!dependent) {
			/* one cost: predictions keep the pooled slope; the line finds the cost too,
			 * and knows it less well away from the fast end where the samples are */
			CHECK(at100 == cf->cpu.slope && ci == cf->cpu.slope_ci95);
			double line = pb_rate_model_at(&cf->rate, 100000, &ci);
			CHECK_MSG(fabs(line - 13000) <= ci && ci >= cf->cpu.slope_ci95,
				  "%.0f ± %.0f ns at 100 µs (pooled ± %.0f)", line, ci,
				  cf->cpu.slope_ci95);
			char dir[] = "/tmp/pb-test-cost-XXXXXX";
			struct pb_results res;
			pb_test_results_in_tmp(dir, &res, "test_cost");
			struct pb_result_point *p = pb_cost_fit_point(&res, "timer:cpu-clock", "busy",
								      PB_DELIVERY_NONE, cf, NULL);
			CHECK(!pb_rset_get_text(&p->params, "rate_note"));
			CHECK(!pb_rset_is_true(&p->metrics, "rate_dependent"));
			pb_test_results_remove(&res, dir);
			continue;
		}
		double truth = 13000 + 2500 * log10(100.0 / 26);
		CHECK_MSG(fabs(at100 - truth) <= ci && ci < 0.05 * truth, "%.0f ± %.0f ns at 100 µs",
			  at100, ci);
		/* the pooled slope, weighted to the fast end, misses it by more than its CI: the
		 * disagreement perf record showed */
		CHECK_MSG(fabs(cf->cpu.slope - truth) > cf->cpu.slope_ci95, "%.0f ± %.0f",
			  cf->cpu.slope, cf->cpu.slope_ci95);
		/* held to the measured range at both ends */
		CHECK(near(pb_cost_at_period(cf, 5000, NULL), pb_cost_at_period(cf, 26000, NULL), 0));
		CHECK(near(pb_cost_at_period(cf, 9000000, NULL),
			   pb_cost_at_period(cf, 1000000, NULL), 0));
		double top = pb_cost_at_period(cf, 1000000, &ci);
		CHECK_MSG(fabs(top - (13000 + 2500 * log10(1000.0 / 26))) <= ci,
			  "%.0f ± %.0f ns at 1 ms", top, ci);
		/* what the fit's point says of it */
		char dir[] = "/tmp/pb-test-cost-XXXXXX";
		struct pb_results res;
		pb_test_results_in_tmp(dir, &res, "test_cost");
		struct pb_result_point *p = pb_cost_fit_point(&res, "timer:cpu-clock", "busy",
							      PB_DELIVERY_NONE, cf, NULL);
		const char *note = pb_rset_get_text(&p->params, "rate_note");
		CHECK_MSG(note && strstr(note, "a sample's cost moves with the rate: +2.") &&
				  strstr(note, "for each tenfold longer period, from 13 µs at 26 µs; "
					       "predictions use the cost at their period; by "
					       "period: 13 µs at 26 µs, 13.7 µs at 50 µs"),
			  "%s", note ? note : "(no note)");
		const struct pb_fit2 *g = &cf->rate.fit;
		CHECK_MSG(fabs(g->coef[2] - 2500) <= g->t95 * sqrt(g->cov[2][2]), "%g ± %g a decade",
			  g->coef[2], g->t95 * sqrt(g->cov[2][2]));
		CHECK(pb_rset_is_true(&p->metrics, "rate_dependent"));
		/* read back as plan --costs and the scorecard read it: the same line */
		struct pb_rate_model back;
		CHECK(pb_rate_model_read(&p->metrics, &back) && back.dependent);
		for (uint64_t at = 10000; at <= 2000000; at *= 3) {
			double ci_back, ci_fit;
			double v_back = pb_rate_model_at(&back, at, &ci_back);
			double v_fit = pb_rate_model_at(&cf->rate, at, &ci_fit);
			CHECK_MSG(near(v_back, v_fit, 1e-6 * v_fit) && near(ci_back, ci_fit, 1e-6 * ci_fit),
				  "at %llu: %.3f ± %.3f read back, %.3f ± %.3f fitted",
				  (unsigned long long)at, v_back, ci_back, v_fit, ci_fit);
		}
		CHECK(near(pb_rset_get_number(&p->metrics, "rate_ns_per_decade", NULL),
			   cf->rate.fit.coef[2], 0));
		const struct pb_rlist *rows = pb_rset_get_list(&p->metrics,
							       "ns_per_sample_by_period");
		CHECK(rows && pb_rlist_size(rows) == 6);
		pb_test_results_remove(&res, dir);
		/* the prediction periods: each one's own cost gives its budget (3, 10, 30 %) */
		struct pb_spec spec;
		CHECK(pb_spec_parse("timer:cpu-clock", &spec, NULL) == 0);
		uint64_t pp[3];
		double aimed[3];
		unsigned npp = pb_cost_prediction_periods(&spec, cf, periods, 6, pp, aimed);
		CHECK_EQ_U64(npp, 3);
		static const double budgets[] = {3, 10, 30};
		for (unsigned k = 0; k < npp; k++)
			CHECK(aimed[k] == budgets[k]);
		/* a sample of 2 µs: the 30 % period, 8.67 µs, is held at the timer's shortest
		 * (10 µs) and keeps its aim; an event-based facility's periods aim at none */
		struct cost_fit cheap = {.cpu = {.slope = 2000}};
		npp = pb_cost_prediction_periods(&spec, &cheap, periods, 6, pp, aimed);
		CHECK_EQ_U64(npp, 3);
		CHECK(pp[2] == spec.facility->min_period && aimed[2] == 30 && aimed[0] == 3);
		struct pb_spec sw_spec;
		CHECK(pb_spec_parse("sw:page-faults", &sw_spec, NULL) == 0);
		npp = pb_cost_prediction_periods(&sw_spec, &cheap, periods, 6, pp, aimed);
		CHECK(npp == 3 && isnan(aimed[0]) && isnan(aimed[2]) && pp[0] == periods[0]);
		npp = pb_cost_prediction_periods(&spec, cf, periods, 6, pp, NULL);
		for (unsigned k = 0; k < npp; k++) {
			struct pb_slowdown_model m = {.baseline_ns = 1e9, .time_based = true,
						      .ns_per_sample =
							      pb_cost_at_period(cf, pp[k], NULL),
						      .min_period = 1};
			double at = pb_slowdown_overhead_pct(&m, pp[k]);
			CHECK_MSG(fabs(at - budgets[k]) < 0.02 * budgets[k],
				  "period %llu: %.2f %% at its own cost, for %.0f %%",
				  (unsigned long long)pp[k], at, budgets[k]);
		}
	}
	/* a trapping facility's extra time holds its events': no rate model */
	memset(cf, 0, sizeof *cf);
	pb_cost_fit_sweep(sw, true, cf);
	CHECK(!cf->rate.fitted && !cf->rate.dependent);
	free(sw);
	free(cf);
}

/* The uprobe's mode-none pairs of a default suite (2026-11-27 11:03, kind C): one run at period
 * 64 took 33.96 ms where its period's other took 30.62: a disturbance, whose pair widened the
 * slope's CI from ±4.0 % to ±10.1 % (not resolved). Left out, the fit resolves, says so, and
 * keeps it out of every figure; the same pairs without it leave nothing out. */
static void test_disturbed_pair(void)
{
	static const struct {
		uint64_t period;
		double samples, cpu;
	} pairs[] = {
		{1000, 75, 30462029},  {1000, 75, 30482206},  {1000, 75, 30471147},
		{1000, 75, 30364657},  {1000, 75, 30299935},  {1000, 75, 30377315},
		{1, 75171, 41019991},  {1, 75171, 40777146},  {1, 75171, 40948728},
		{1, 75171, 41060419},  {1, 75171, 41696748},  {1, 75171, 40904050},
		{64, 1174, 30622440},  {64, 1174, 33963175},  {2, 37585, 36590631},
		{2, 37585, 36467237},
	};
	struct sweep *sw = calloc(1, sizeof *sw);
	struct cost_fit *cf = calloc(1, sizeof *cf);
	CHECK(sw && cf);
	if (!sw || !cf)
		return;
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	pb_test_results_in_tmp(dir, &res, "test_cost");
	for (int with_disturbance = 1; with_disturbance >= 0; with_disturbance--) {
		sw->n = 0;
		for (size_t k = 0; k < PB_ARRAY_SIZE(pairs); k++) {
			if (!with_disturbance && k == 13)
				continue;
			sw->p[sw->n++] = (struct pb_cost_pair){
				.period = pairs[k].period, .observed = pairs[k].samples,
				.expected = pairs[k].samples, .events = 75171, .base_cpu = 28000,
				.base_wall = 30000, .cpu = pairs[k].cpu, .wall = pairs[k].cpu};
		}
		memset(cf, 0, sizeof *cf);
		pb_cost_fit_sweep(sw, true, cf);
		CHECK_EQ_U64(cf->left_out, with_disturbance ? 1 : 0);
		CHECK_EQ_U64(cf->pairs, sw->n);
		/* 142.0 unweighted (before 2026-11-28) */
		CHECK_MSG(near(cf->cpu.slope, 142.9, 0.1), "%.3f ns", cf->cpu.slope);
		CHECK_MSG(cf->cpu.slope_ci95 < 0.05 * cf->cpu.slope, "± %.3f ns",
			  cf->cpu.slope_ci95);
		CHECK(cf->resolved);
		CHECK_EQ_U64(cf->cpu.n, 15);
		struct pb_result_point *p = pb_cost_fit_point(&res, "uprobe", "busy",
							      PB_DELIVERY_NONE, cf, NULL);
		CHECK_EQ_U64((uint64_t)pb_rset_get_int(&p->metrics, "pairs_left_out"),
			     with_disturbance ? 1 : 0);
		const char *note = pb_rset_get_text(&p->params, "left_out_note");
		CHECK(!note == !with_disturbance);
		if (note)
			CHECK_MSG(strstr(note, "1 of 16 pairs left out as disturbed") &&
					  strstr(note, "at period 64 events, 3.318 ms above the "
							 "line of the rest (9.8 % of its run)"),
				  "%s", note);
		const struct pb_rlist *rows = pb_rset_get_list(&p->metrics, "left_out_pairs");
		CHECK(!rows == !with_disturbance);
		if (rows && pb_rlist_size(rows) == 1) {
			const struct pb_rset *row = pb_rlist_set_at(rows, 0);
			CHECK(pb_rset_get_int(row, "period") == 64);
			double off = pb_rset_get_number(row, "off_pct", NULL);
			CHECK_MSG(near(off, 9.77, 0.01), "%.3f", off);
		}
	}
	/* a run faster than the line is no disturbance (one only adds time): kept */
	sw->n = 0;
	for (size_t k = 0; k < PB_ARRAY_SIZE(pairs); k++)
		sw->p[sw->n++] = (struct pb_cost_pair){
			.period = pairs[k].period, .observed = pairs[k].samples,
			.expected = pairs[k].samples, .events = 75171, .base_cpu = 28000,
			.base_wall = 30000, .cpu = pairs[k].cpu - (k == 13 ? 6.7e6 : 0),
			.wall = pairs[k].cpu};
	memset(cf, 0, sizeof *cf);
	pb_cost_fit_sweep(sw, true, cf);
	CHECK_EQ_U64(cf->left_out, 0);
	CHECK(!cf->far_above);
	/* four runs far above of 24, more than one in eight (each seen once the farther are out):
	 * the noise's shape, none left out, said. A line of 200 ns a sample over 30 ms runs,
	 * +-10 µs of noise. */
	sw->n = 0;
	for (unsigned k = 0; k < 24; k++) {
		double samples = 1000.0 * (k % 4 + 1);
		sw->p[sw->n++] = (struct pb_cost_pair){
			.period = 1000 / (k % 4 + 1), .observed = samples, .expected = samples,
			.events = 1e5, .base_cpu = 28000, .base_wall = 30000,
			.cpu = 30e6 + 200 * samples + (k % 3 ? 1e4 : -1e4), .wall = 30e6};
	}
	sw->p[2].cpu += 64e6;
	sw->p[9].cpu += 16e6;
	sw->p[14].cpu += 4e6;
	sw->p[21].cpu += 1e6;
	memset(cf, 0, sizeof *cf);
	pb_cost_fit_sweep(sw, true, cf);
	CHECK_EQ_U64(cf->left_out, 0);
	CHECK(cf->far_above);
	CHECK_EQ_U64(cf->cpu.n, 24);
	struct pb_result_point *p = pb_cost_fit_point(&res, "uprobe", "busy", PB_DELIVERY_NONE, cf,
						      NULL);
	const char *note = pb_rset_get_text(&p->params, "left_out_note");
	CHECK_MSG(note && strstr(note, "none left out: more than one pair in 8 sat far above"),
		  "%s", note ? note : "(none)");
	CHECK(pb_rset_is_true(&p->metrics, "far_above_kept"));
	/* four pairs described and more left out: the note holds them all, whole (bp:w's drain
	 * fit, 2026-11-27, was cut at its 480th byte: "... 8.384 ms above the line of t") */
	memset(cf, 0, sizeof *cf);
	pb_cost_fit_sweep(sw, true, cf);
	cf->left_out = 5;
	cf->far_above = false;
	for (size_t k = 0; k < PB_ARRAY_SIZE(cf->left_out_pairs); k++)
		cf->left_out_pairs[k] = (struct pb_left_out_pair){
			.period = 1000000 + k, .samples = 2, .extra_ns = 9e6, .run_ns = 3e7,
			.off_ns = 8.384e6, .share = 0.2};
	p = pb_cost_fit_point(&res, "bp:w", "mix", PB_DELIVERY_DRAIN, cf, NULL);
	note = pb_rset_get_text(&p->params, "left_out_note");
	CHECK_MSG(note && strstr(note, "5 of 24 pairs left out as disturbed") &&
			  strstr(note, "at period 1000003 events, 8.384 ms above the line of the "
				       "rest (20 % of its run); and 1 more"),
		  "%s", note ? note : "(none)");
	pb_test_results_remove(&res, dir);
	free(sw);
	free(cf);
}

/* The rounds a disturbance moved, by the rule a sweep's pairs are held to (PB_DISTURBED_ALPHA,
 * at most one round in PB_DISTURBED_MAX_SHARE): a baseline far above the others', then a
 * sampled run's extra time far above theirs. */
static void test_paired_disturbed(void)
{
	double diff[8] = {2.0e6, 2.1e6, 1.9e6, 2.05e6, 1.95e6, 2.0e6, 2.02e6, 1.98e6};
	double base[8] = {50e6, 50.5e6, 49.5e6, 50.2e6, 49.8e6, 50e6, 50.1e6, 49.9e6};
	bool out[8], base_out[8], far;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, base_out, &far), 0);
	CHECK(!far);
	/* a sampled run 20 ms longer than the rest: its round, and not for its baseline */
	diff[6] += 20e6;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, base_out, &far), 1);
	for (unsigned r = 0; r < 8; r++)
		CHECK(out[r] == (r == 6) && !base_out[r]);
	/* as far below is the noise's (a disturbance adds time) */
	diff[6] -= 40e6;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, NULL, &far), 0);
	diff[6] = 2.02e6;
	/* a baseline 20 ms longer: its round, for its baseline; its low difference is not tested
	 * again */
	base[2] += 20e6;
	diff[2] -= 20e6;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, base_out, &far), 1);
	for (unsigned r = 0; r < 8; r++)
		CHECK(out[r] == (r == 2) && base_out[r] == (r == 2));
	/* one of each */
	diff[5] += 20e6;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, base_out, &far), 2);
	CHECK(out[2] && base_out[2] && out[5] && !base_out[5] && !far);
	diff[5] -= 20e6;
	/* two sampled runs far above, one much farther: more than one in eight is the noise's
	 * shape, and none is left out */
	diff[0] += 20e6;
	diff[1] += 900e6;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, base_out, &far), 1);
	CHECK(far && out[2] && !out[0] && !out[1]);
	diff[0] = 2.0e6;
	diff[1] = 2.1e6;
	/* seven rounds, or eight with one that is no number: too few to test */
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 7, out, base_out, &far), 0);
	CHECK(!out[2] && !far);
	base[2] -= 20e6;
	diff[2] += 20e6;
	diff[3] = NAN;
	diff[6] += 20e6;
	CHECK_EQ_U64(pb_paired_disturbed(diff, base, 8, out, base_out, &far), 0);
	CHECK(!out[6]);
}

/* A timer's prediction rounds to fill, made with a fit of 13079 ± 167 ns a sample (a default
 * suite's, 2026-11-28, kind A); false, with nothing allocated, when out of memory. */
static bool timer_rounds_new(struct pb_spec *spec, struct cost_fit **none,
			     struct prediction_rounds_done **d)
{
	CHECK(pb_spec_parse("timer:cpu-clock", spec, NULL) == 0);
	*none = calloc(1, sizeof **none);
	*d = calloc(1, sizeof **d);
	CHECK(*none && *d);
	if (!*none || !*d) {
		free(*none);
		free(*d);
		return false;
	}
	(*none)->fitted = (*none)->resolved = true;
	(*none)->cpu.slope = 13079;
	(*none)->cpu.slope_ci95 = 167;
	return true;
}

/* python3's rounds at 143867 ns in a default suite (2026-11-28 03:43, kind A): round 6's sampled
 * run took 76.44 ms where the others took 54.5 to 57.9, a burst of ~20 ms that took its
 * slowdown to 54.8 % against 5 to 15 % and the point's to 16.39 ± 12.75 %. Left out, the point
 * is the other seven's, says so, and marks the row; the same rounds without it leave none out. */
static void test_disturbed_round(void)
{
	static const double bcpu[8] = {49.92e6, 50.18e6, 50.50e6, 50.36e6,
				       52.77e6, 51.76e6, 49.38e6, 49.72e6};
	static const double cpu[8] = {55.57e6, 56.52e6, 57.92e6, 56.94e6,
				      55.49e6, 56.58e6, 76.44e6, 55.47e6};
	static const double samples[8] = {377, 383, 392, 386, 376, 383, 521, 375};
	struct pb_spec spec;
	struct cost_fit *none;
	struct prediction_rounds_done *d;
	if (!timer_rounds_new(&spec, &none, &d))
		return;
	static const uint64_t period = 143867;
	/* only its presence is read when judging */
	const struct pb_cost_reference reference = {0};
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	pb_test_results_in_tmp(dir, &res, "test_cost");
	for (int disturbed = 1; disturbed >= 0; disturbed--) {
		*d = (struct prediction_rounds_done){.spec = &spec, .none = none, .threads = 1,
						     .rounds = 8, .periods = &period, .nperiods = 1,
						     .ref = &reference};
		for (unsigned r = 0; r < 8; r++) {
			/* the cost workload beside it: 30 ms, 13 µs a sample, round 3's sampled run
			 * disturbed by 5 ms where the target's is */
			d->ref_base[r] = (struct predict_run){.cpu = 30e6 + 1e4 * r};
			d->ref_sampled[r] = (struct predict_run){
				.cpu = 30e6 + 1e4 * r + 200 * 13000.0 + 2e4 * (r % 3) +
				       (r == 3 && disturbed ? 5e6 : 0),
				.samples = 200};
			d->bcpu[r] = d->bwall[r] = bcpu[r];
			double c = r == 6 && !disturbed ? 56.0e6 : cpu[r];
			d->runs[0][r] = (struct predict_run){.cpu = c, .wall = c,
				.samples = r == 6 && !disturbed ? 380 : samples[r],
				.expected = samples[r]};
		}
		struct pb_result_point *bp = pb_cost_prediction_baseline_point(&res, "timer:cpu-clock",
									       "program:python3", 1);
		pb_cost_prediction_points(&res, "timer:cpu-clock", "program:python3", bp, d);
		struct pb_result_point *p = res.points[res.npoints - 1];
		CHECK_EQ_U64((uint64_t)pb_rset_get_int(&p->metrics, "rounds_left_out"),
			     disturbed ? 1 : 0);
		CHECK_EQ_U64((uint64_t)pb_rset_get_int(&p->metrics, "rounds"), 8);
		const char *note = pb_rset_get_text(&p->params, "left_out_note");
		CHECK(!note == !disturbed);
		if (note)
			CHECK_MSG(strstr(note, "1 of 8 rounds left out as disturbed (0 for a "
					       "baseline far above the other rounds', 1 for a sampled "
					       "run"), "%s", note);
		/* the seven others: the mean difference over the mean baseline */
		double sd = 0, sb = 0;
		for (unsigned r = 0; r < 8; r++)
			if (r != 6 || !disturbed) {
				sd += d->runs[0][r].cpu - bcpu[r];
				sb += bcpu[r];
			}
		double measured = pb_rset_get_number(&p->metrics, "measured_slowdown_pct", NULL);
		CHECK_MSG(near(measured, sd / sb * 100, 1e-9), "%.4f vs %.4f", measured,
			  sd / sb * 100);
		double ci = pb_rset_get_number(&p->metrics, "measured_slowdown_ci95_pp", NULL);
		CHECK_MSG(ci < 3.5, "± %.2f pp", ci);
		/* the prediction carries the fit's interval: a timer's slowdown with a cost c at
		 * period P is c / (P - c), here at 13079 ± 167 ns */
		double P = (double)period, lo = 13079 - 167, hi = 13079 + 167;
		double want = (hi / (P - hi) - lo / (P - lo)) / 2 * 100;
		double pred_ci = pb_rset_get_number(&p->metrics, "predicted_slowdown_ci95_pp", NULL);
		CHECK_MSG(near(pred_ci, want, 1e-9), "± %.6f pp vs %.6f", pred_ci, want);
		/* the row stays, marked; only that one */
		size_t marked = 0;
		for (size_t k = 0; k < p->runs.n; k++) {
			const struct pb_rset *row = pb_rlist_set_at(&p->runs, k);
			const char *why = pb_rset_get_text(row, "left_out");
			if (why) {
				marked++;
				CHECK(pb_rset_get_int(row, "run") == 6);
				CHECK(!strcmp(why, "disturbed: its sampled run"));
			}
		}
		CHECK_EQ_U64(p->runs.n, 8);
		CHECK_EQ_U64(marked, disturbed ? 1 : 0);
		/* the reference's rounds by the same rule: its cost from the seven others */
		CHECK_EQ_U64((uint64_t)pb_rset_get_int(&p->metrics, "reference_rounds_left_out"),
			     disturbed ? 1 : 0);
		CHECK_EQ_U64((uint64_t)pb_rset_get_int(&p->metrics, "reference_rounds"),
			     disturbed ? 7 : 8);
		double ref = pb_rset_get_number(&p->metrics, "reference_ns_per_sample", NULL);
		CHECK_MSG(near(ref, 13000 + 2e4 * (disturbed ? 1.0 : 7.0 / 8) / 200, 1e-6),
			  "%.3f ns", ref);
		size_t ref_marked = 0;
		for (size_t k = 0; k < p->runs.n; k++) {
			const struct pb_rset *row = pb_rlist_set_at(&p->runs, k);
			if (pb_rset_get_text(row, "reference_left_out")) {
				ref_marked++;
				CHECK(pb_rset_get_int(row, "run") == 3);
			}
		}
		CHECK_EQ_U64(ref_marked, disturbed ? 1 : 0);
	}
	pb_test_results_remove(&res, dir);
	free(none);
	free(d);
}

/* A timer's predicted slowdown at period P with a cost c a sample, in %: c / (P - c). Half the
 * distance between it at c ± h, the interval a prediction made with c ± h carries. */
static double timer_slowdown_half(double P, double c, double h)
{
	return ((c + h) / (P - c - h) - (c - h) / (P - c + h)) / 2 * 100;
}

/* The cost workload measured again beside the first target: where it lies beyond both
 * intervals from the fit (the cost moved while the suite ran: 9 of 39 suites on kind A), the
 * prediction's cost is the fit's ± the span to the far end of the reference's interval, it says
 * so, and a later target without a reference carries the same; where it held, the fit's own
 * interval, and nothing said. */
static void test_cost_moved(void)
{
	struct pb_spec spec;
	struct cost_fit *none;
	struct prediction_rounds_done *d;
	if (!timer_rounds_new(&spec, &none, &d))
		return;
	static const uint64_t period = 143867;
	const double P = (double)period;
	const struct pb_cost_reference reference = {0};
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	pb_test_results_in_tmp(dir, &res, "test_cost");
	double moved_half = 0;
	for (int moved = 1; moved >= 0; moved--) {
		*d = (struct prediction_rounds_done){.spec = &spec, .none = none, .threads = 1,
						     .rounds = 8, .periods = &period, .nperiods = 1,
						     .ref = &reference};
		/* the cost workload beside it: 14.5 µs a sample (moved) or 13.1 (held) */
		double ref_ns = moved ? 14500 : 13100;
		for (unsigned r = 0; r < 8; r++) {
			d->ref_base[r] = (struct predict_run){.cpu = 30e6 + 1e4 * r};
			d->ref_sampled[r] = (struct predict_run){
				.cpu = 30e6 + 1e4 * r + 200 * ref_ns + 2e4 * (r % 3), .samples = 200};
			d->bcpu[r] = d->bwall[r] = 50e6 + 1e5 * (r % 2);
			double c = d->bcpu[r] + 350 * 13500.0;
			d->runs[0][r] = (struct predict_run){.cpu = c, .wall = c, .samples = 350,
							     .expected = 350};
		}
		struct pb_result_point *bp = pb_cost_prediction_baseline_point(
			&res, "timer:cpu-clock", "accuracy:ratio=20", 1);
		double returned = pb_cost_prediction_points(&res, "timer:cpu-clock",
							    "accuracy:ratio=20", bp, d);
		struct pb_result_point *p = res.points[res.npoints - 1];
		double ref = pb_rset_get_number(&p->metrics, "reference_ns_per_sample", NULL);
		double ref_ci = pb_rset_get_number(&p->metrics, "reference_ns_per_sample_ci95", NULL);
		double pred_ci = pb_rset_get_number(&p->metrics, "predicted_slowdown_ci95_pp", NULL);
		double half = pb_cost_moved_half(d);
		/* what the targets after this one are given */
		CHECK(returned == half);
		if (moved) {
			moved_half = (fabs(ref - 13079) + ref_ci) / 13079;
			CHECK_MSG(near(half, moved_half, 1e-12), "%.6f vs %.6f", half, moved_half);
			CHECK(near(pb_rset_get_number(&p->metrics, "cost_moved_ci95_pct", NULL),
				   100 * moved_half, 1e-9));
			double want = timer_slowdown_half(P, 13079, moved_half * 13079);
			CHECK_MSG(near(pred_ci, want, 1e-9), "± %.6f pp vs %.6f", pred_ci, want);
			const char *note = pb_rset_get_text(&p->params, "cost_moved_note");
			CHECK(note && strstr(note, "the cost moved while the suite ran"));
		} else {
			CHECK_EQ_U64(half, 0);
			CHECK(!pb_rset_get(&p->metrics, "cost_moved_ci95_pct"));
			CHECK(!pb_rset_get_text(&p->params, "cost_moved_note"));
			CHECK(near(pred_ci, timer_slowdown_half(P, 13079, 167), 1e-9));
		}
	}
	/* a later target: no reference, the earlier one's span carried; with a reference that
	 * held, still the earlier one's */
	CHECK(moved_half > 0.1);
	d->cost_moved = moved_half;
	CHECK(near(pb_cost_moved_half(d), moved_half, 1e-12));
	d->ref = NULL;
	CHECK(near(pb_cost_moved_half(d), moved_half, 1e-12));
	struct pb_result_point *bp = pb_cost_prediction_baseline_point(&res, "timer:cpu-clock",
								       "program:xz", 1);
	pb_cost_prediction_points(&res, "timer:cpu-clock", "program:xz", bp, d);
	struct pb_result_point *p = res.points[res.npoints - 1];
	CHECK(near(pb_rset_get_number(&p->metrics, "predicted_slowdown_ci95_pp", NULL),
		   timer_slowdown_half(P, 13079, moved_half * 13079), 1e-9));
	CHECK(pb_rset_get_text(&p->params, "cost_moved_note") != NULL);
	pb_test_check_units(&res);
	pb_test_results_remove(&res, dir);
	free(none);
	free(d);
}

/* The timer's predictions carry the cost workload measured beside each target (its fit has no
 * per-event term); a fit that did not resolve predicts nothing, and the checks are counted as
 * skipped, saying so. */
/* The prediction of a timer point made again with its target's own cost at the calibration
 * period: that cost is the sibling point's measured_ns_per_sample, and a timer's slowdown with
 * a cost c at period P is c / (P - c) whatever the baseline (n = T0 / (P - c)). The calibrating
 * point itself carries none. Returns whether p carried one. */
static bool check_calibrated(json_t *points, json_t *p)
{
	json_t *m = json_object_get(p, "metrics");
	json_t *from = json_object_get(m, "calibrated_from_period");
	int64_t period = json_integer_value(json_object_get(p, "period"));
	if (!from)
		return false;
	CHECK(json_integer_value(from) != period);
	json_t *q, *source = NULL;
	size_t at = 0;
	while ((q = find(points, "cost", "kind", "prediction", &at)))
		if (!strcmp(json_string_value(json_object_get(q, "workload")),
			    json_string_value(json_object_get(p, "workload"))) &&
		    json_integer_value(json_object_get(q, "threads")) ==
			    json_integer_value(json_object_get(p, "threads")) &&
		    json_integer_value(json_object_get(q, "period")) == json_integer_value(from))
			source = q;
	CHECK(source != NULL);
	if (!source)
		return true;
	json_t *sm = json_object_get(source, "metrics");
	CHECK(json_object_get(sm, "calibrated_from_period") == NULL);
	double c = json_number_value(json_object_get(m, "calibrated_ns_per_sample"));
	CHECK(near(c, json_number_value(json_object_get(sm, "measured_ns_per_sample")), 1e-6));
	double predicted = json_number_value(json_object_get(m, "calibrated_predicted_slowdown_pct"));
	CHECK_MSG(near(predicted, c / ((double)period - c) * 100, 1e-6 * predicted), "%g vs %g",
		  predicted, c / ((double)period - c) * 100);
	double measured = json_number_value(json_object_get(m, "measured_slowdown_pct"));
	CHECK(near(json_number_value(json_object_get(m, "calibrated_slowdown_error_pp")),
		   predicted - measured, 1e-9));
	CHECK(json_is_boolean(json_object_get(m, "calibrated_slowdown_within")));
	const char *verdict = json_string_value(json_object_get(m, "calibrated_slowdown_verdict"));
	CHECK(verdict && (!strcmp(verdict, "within") || !strcmp(verdict, "outside") ||
			  !strcmp(verdict, "undecided")));
	/* it carries the interval of the cost it is made with: the slowdowns at its two ends; a
	 * dear end at or above the period (short runs on a busy machine) gives it no upper end */
	json_t *cci = json_object_get(sm, "measured_ns_per_sample_ci95");
	json_t *pci = json_object_get(m, "calibrated_predicted_slowdown_ci95_pp");
	bool unbounded = cci && c + json_number_value(cci) >= (double)period;
	CHECK(json_is_true(json_object_get(m, "calibrated_predicted_slowdown_ci95_pp_unbounded")) ==
	      unbounded);
	CHECK(!(cci && !unbounded) == !pci);
	if (unbounded)
		CHECK(!strcmp(verdict, "undecided"));
	if (cci && pci) {
		double ci = json_number_value(cci), P = (double)period;
		double want = ((c + ci) / (P - c - ci) - (c - ci) / (P - c + ci)) / 2 * 100;
		CHECK_MSG(near(json_number_value(pci), want, 1e-6 * want + 1e-12), "%g vs %g",
			  json_number_value(pci), want);
	}
	return true;
}

/* The target's own cost at the calibration period, from short noisy rounds, with an interval
 * whose dear end reaches the shortest period (test_timer_reference's in a CI run, 2026-11-29,
 * kind B): at that end the timer leaves the program no time, so the prediction has no upper
 * end. It says so, is undecided, and the report says it too; it used to take that end's -1 ns
 * for a run time and print ± 38.9 pp there, here ± 32 pp and "outside". */
static void test_prediction_unbounded(void)
{
	struct pb_spec spec;
	struct cost_fit *none;
	struct prediction_rounds_done *d;
	if (!timer_rounds_new(&spec, &none, &d))
		return;
	static const uint64_t periods[3] = {1600000, 510000, 201000};
	/* a sample's cost to the target at 510 µs, round by round: 75 ± 184 µs */
	static const double own_ns[8] = {-225e3, 375e3, -150e3, 300e3, -75e3, 225e3, 0, 150e3};
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	pb_test_results_in_tmp(dir, &res, "test_cost");
	*d = (struct prediction_rounds_done){.spec = &spec, .none = none, .threads = 1,
					     .rounds = 8, .periods = periods, .nperiods = 3};
	for (unsigned r = 0; r < 8; r++) {
		d->bcpu[r] = d->bwall[r] = 50e6 + 1e5 * (r % 2);
		for (unsigned i = 0; i < 3; i++) {
			double samples = d->bcpu[r] / (double)periods[i];
			double c = d->bcpu[r] + samples * (i == 1 ? own_ns[r] : 13500.0);
			d->runs[i][r] = (struct predict_run){.cpu = c, .wall = c,
							     .samples = samples,
							     .expected = samples};
		}
	}
	struct pb_result_point *bp = pb_cost_prediction_baseline_point(&res, "timer:cpu-clock",
								       "program:xz", 1);
	pb_cost_prediction_points(&res, "timer:cpu-clock", "program:xz", bp, d);
	CHECK_EQ_U64(res.npoints, 4);
	const struct pb_rset *own = &res.points[2]->metrics;
	double c = pb_rset_get_number(own, "measured_ns_per_sample", NULL);
	double ci = pb_rset_get_number(own, "measured_ns_per_sample_ci95", NULL);
	CHECK_MSG(near(c, 75e3, 1e-9), "%.1f ns", c);
	CHECK_MSG(c < (double)periods[2] && c + ci >= (double)periods[2], "%.0f ± %.0f ns", c, ci);
	for (unsigned i = 0; i < 3; i += 2) {
		const struct pb_rset *m = &res.points[1 + i]->metrics;
		double P = (double)periods[i];
		double predicted = pb_rset_get_number(m, "calibrated_predicted_slowdown_pct", NULL);
		CHECK_MSG(near(predicted, c / (P - c) * 100, 1e-9), "%g vs %g", predicted,
			  c / (P - c) * 100);
		bool ok;
		double pci = pb_rset_get_number(m, "calibrated_predicted_slowdown_ci95_pp", &ok);
		bool unbounded =
			pb_rset_is_true(m, "calibrated_predicted_slowdown_ci95_pp_unbounded");
		char text[2048];
		pb_report_prediction_text(res.points[1 + i], true, text, sizeof text);
		if (i == 0) {
			/* the longest period: both ends give a slowdown */
			CHECK(ok && !unbounded);
			CHECK(near(pci, timer_slowdown_half(P, c, ci), 1e-9));
			CHECK_MSG(!strstr(text, "no upper end"), "%s", text);
		} else {
			CHECK(!ok && unbounded);
			CHECK(!strcmp(pb_rset_get_text(m, "calibrated_slowdown_verdict"),
				      "undecided"));
			CHECK_MSG(strstr(text, "(no upper end: the cost's interval reaches the "
					       "period), undecided"), "%s", text);
		}
		/* the fit's own prediction at the same period keeps its interval */
		CHECK(near(pb_rset_get_number(m, "predicted_slowdown_ci95_pp", NULL),
			   timer_slowdown_half(P, 13079, 167), 1e-9));
	}
	/* the cost workload beside it at the shortest period, 250 µs a sample: more than the
	 * period, so no prediction is made with it; and the cost moved that far, so the fit's
	 * own prediction there has no upper end either */
	const struct pb_cost_reference reference = {0};
	d->ref = &reference;
	for (unsigned r = 0; r < 8; r++) {
		d->ref_base[r] = (struct predict_run){.cpu = 30e6 + 1e4 * r};
		d->ref_sampled[r] = (struct predict_run){
			.cpu = 30e6 + 1e4 * r + 100 * 250e3 + 2e4 * (r % 3), .samples = 100};
	}
	bp = pb_cost_prediction_baseline_point(&res, "timer:cpu-clock", "program:xz", 1);
	pb_cost_prediction_points(&res, "timer:cpu-clock", "program:xz", bp, d);
	const struct pb_rset *m = &res.points[res.npoints - 1]->metrics;
	CHECK(pb_rset_get_number(m, "reference_ns_per_sample", NULL) > (double)periods[2]);
	CHECK(!pb_rset_get(m, "rebased_predicted_slowdown_pct"));
	CHECK(!pb_rset_get(m, "rebased_slowdown_verdict"));
	CHECK(pb_rset_is_true(m, "predicted_slowdown_ci95_pp_unbounded"));
	CHECK(!strcmp(pb_rset_get_text(m, "slowdown_verdict"), "undecided"));
	CHECK_STR_CONTAINS(pb_rset_get_text(m, "undecided_why"), "no upper end");
	json_t *last = pb_test_point_json(&res, res.npoints - 1);
	check_reference(last, false);
	json_decref(last);
	pb_test_check_units(&res);
	pb_test_results_remove(&res, dir);
	free(none);
	free(d);
}

static void test_timer_reference(void)
{
	char dir[] = "/tmp/pb-test-cost-XXXXXX";
	struct pb_results res;
	struct pb_error err = {0};
	pb_test_results_in_tmp(dir, &res, "test_cost");
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	o.runs = PB_PREDICT_MIN_ROUNDS;
	o.target_ms = 10;
	o.nthreads = 1;
	CHECK(pb_experiment_cost.run(&o, pb_test_spec("timer:cpu-clock"), &res, &err) == 0);
	json_t *points = pb_test_points_json(&res);
	json_t *p;
	size_t at = 0;
	unsigned predictions = 0, referenced = 0, refused = 0, calibrated = 0;
	while ((p = find(points, "cost", "kind", "prediction", &at))) {
		if (json_object_get(p, "not_applicable")) {
			refused++;
			continue;
		}
		predictions++;
		calibrated += check_calibrated(points, p);
		check_reference(p, false);
		if (!json_object_get(json_object_get(p, "metrics"), "reference_rounds"))
			continue;
		referenced++;
		/* at its target's shortest period only */
		const char *wl = json_string_value(json_object_get(p, "workload"));
		int64_t period = json_integer_value(json_object_get(p, "period"));
		json_t *q;
		size_t at_q = 0;
		while ((q = find(points, "cost", "kind", "prediction", &at_q)))
			if (!strcmp(json_string_value(json_object_get(q, "workload")), wl) &&
			    json_integer_value(json_object_get(q, "threads")) ==
				    json_integer_value(json_object_get(p, "threads")))
				CHECK(json_integer_value(json_object_get(q, "period")) >= period);
	}
	if (!predictions) {
		pb_skip_checks(1, "timer predictions: its fit did not resolve here (%u refused)",
			       refused);
	} else {
		/* beside the suite's workload on one thread only, at one of its periods */
		CHECK_EQ_U64(referenced, 1);
		/* two of each target's three periods, from the third's own cost */
		CHECK(calibrated > 0 && calibrated <= predictions * 2 / 3);
		printf("timer: %u predictions, %u with the cost workload beside them, %u calibrated "
		       "on their target's own cost\n", predictions, referenced, calibrated);
		/* python3's runs share one hash seed, and its baseline point says so */
		json_t *b;
		size_t at_b = 0;
		unsigned seeded = 0;
		while ((b = find(points, "cost", "kind", "prediction-baseline", &at_b))) {
			const char *wl = json_string_value(json_object_get(b, "workload"));
			const char *env = json_string_value(json_object_get(b, "environment"));
			if (!strncmp(wl, "program:python3", 15)) {
				CHECK_MSG(env && !strcmp(env, "PYTHONHASHSEED=0"), "%s", env);
				seeded++;
			} else {
				CHECK_MSG(!env, "%s: %s", wl, env);
			}
		}
		if (!seeded)
			pb_skip_checks(1, "python3's hash seed: python3 ran no prediction here");
	}
	json_decref(points);
	/* every field the predictions write has the unit a /1 file's reader implies */
	pb_test_check_units(&res);
	pb_test_results_remove(&res, dir);
}

static void test_smoke(void)
{
	pb_test_on_exact_facilities(test_smoke_on);
}

int main(void)
{
	test_fit();
	test_fit_resolved();
	test_fit_failed_message();
	test_fastest_per_period();
	test_sweep_periods();
	test_pair_row();
	test_predict();
	test_plan();
	test_design();
	test_redesign();
	test_unresolved_reason();
	test_spare_budget();
	test_sample_beside_trap();
	test_paired_slowdown();
	test_unpaired_slowdown();
	test_rounds_to_decide();
	test_paired_disturbed();
	test_disturbed_round();
	test_fit_rebuilt_from_rows();
	test_fit_interval_coverage();
	test_cost_moved();
	test_slowdown_criterion();
	test_paired_sample_cost();
	test_cost_by_period();
	test_rate_model();
	test_disturbed_pair();
	test_plan_cost_refusal();
	test_cost_from_results();
	test_program_cpu();
	test_program_env();
	test_program_pinned();
	test_main_thread_cpu();
	test_plan_correction();
	test_fault_mid_sweep();
	test_fault_extra_site();
	test_smoke();
	test_prediction_unbounded();
	test_timer_reference();
	return pb_check_done("cost");
}
