/* The sweep of a cost fit: paired runs (a sampled run and one without perf next to it) over the
 * design's periods, in an order that changes from round to round. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t pb_cost_sum_cpu(const struct pb_point *pt, unsigned threads)
{
	uint64_t s = 0;
	for (unsigned t = 0; t < threads && t < PB_MAX_THREADS; t++)
		s += pt->cpu_ns[t];
	return s;
}

static int measure_pair(const struct sweep_setup *su, const struct pb_point_request *req,
			bool base_first, struct pb_cost_pair *out, struct pb_error *err)
{
	struct pb_point sp, bp;
	const struct pb_point_request *first = base_first ? &su->base : req;
	const struct pb_point_request *second = base_first ? req : &su->base;
	struct pb_point *p1 = base_first ? &bp : &sp, *p2 = base_first ? &sp : &bp;
	if (pb_point_measure(first, p1, err))
		return -1;
	if (pb_point_measure(second, p2, err)) {
		pb_point_free(p1);
		return -1;
	}
	*out = (struct pb_cost_pair){
		.period = req->period,
		.observed = (double)sp.ev[0].observed,
		.events = (double)sp.ev[0].count,
		.expected = sp.ev[0].expected,
		.lost = (double)sp.ev[0].lost,
		.cpu = (double)pb_cost_sum_cpu(&sp, req->threads),
		.base_cpu = (double)pb_cost_sum_cpu(&bp, su->base.threads),
		.wall = (double)sp.wall_ns,
		.base_wall = (double)bp.wall_ns,
	};
	pb_point_free(&sp);
	pb_point_free(&bp);
	return 0;
}

void pb_cost_pair_record(struct pb_rset *run, const struct pb_cost_pair *p, unsigned round)
{
	pb_rset_int(run, "run", PB_UNIT_NONE, round);
	pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)p->observed);
	pb_rset_real(run, "expected", PB_UNIT_SAMPLES, p->expected);
	pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)p->lost);
	pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)p->events);
	pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)p->cpu);
	pb_rset_int(run, "baseline_cpu_ns", PB_UNIT_NS, (int64_t)p->base_cpu);
	pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)p->wall);
	pb_rset_int(run, "baseline_wall_ns", PB_UNIT_NS, (int64_t)p->base_wall);
}

/* Pairs of runs without perf that measure the machine's noise before a facility's sweep,
 * and sampled pairs at each end of the sweep that give the pilot's per-sample cost. Neither is
 * in the fit: the design they size is fixed before its first pair. Four pairs give the noise
 * to about ±35 % (chi-square, 4 degrees of freedom), which moves the rounds the design asks
 * for by about a factor of two either way; more would spend on sizing what they could measure. */
#define NOISE_PAIRS 4
#define PILOT_PAIRS 2
/* Visits of each end of the sweep per round (each middle period gets one): the slope's
 * variance falls with the spread of the samples per run, which the ends carry; the middle
 * periods stay so that Theil–Sen can see a bend. */
#define END_VISITS 3
/* The design is cut short past this multiple of its budget (a machine that slowed down after
 * the design was sized), once its fewest rounds are measured, and the fit says so. */
#define BUDGET_HARD_CAP 2

static double pair_y(const struct pb_cost_pair *p)
{
	return p->cpu - p->base_cpu;
}

/* Noise: the CPU time of one run without perf from run to run, from NOISE_PAIRS pairs of such
 * runs (the RMS of their differences / sqrt 2), and the wall time of one run. Measured once
 * per setup: it is the machine's, whatever the mode. */
static int measure_noise(struct sweep_setup *su, struct pb_error *err)
{
	double d2 = 0;
	uint64_t t0 = pb_now_ns();
	for (unsigned i = 0; i < NOISE_PAIRS; i++) {
		struct pb_point a, b;
		if (pb_point_measure(&su->base, &a, err))
			return -1;
		if (pb_point_measure(&su->base, &b, err)) {
			pb_point_free(&a);
			return -1;
		}
		double d = (double)pb_cost_sum_cpu(&a, 1) - (double)pb_cost_sum_cpu(&b, 1);
		d2 += d * d;
		su->base_cpu_ns += ((double)pb_cost_sum_cpu(&a, 1) + (double)pb_cost_sum_cpu(&b, 1)) /
				   (2.0 * NOISE_PAIRS);
		pb_point_free(&a);
		pb_point_free(&b);
	}
	su->noise_ns = sqrt(d2 / NOISE_PAIRS) / sqrt(2.0);
	su->run_s = (double)(pb_now_ns() - t0) / 1e9 / (2.0 * NOISE_PAIRS);
	su->noise_pairs = NOISE_PAIRS;
	return 0;
}

/* The shortest period (>= the facility's smallest) at which the pilot's cost slows a run by at
 * most 100 %: the slope's CI per second of budget narrows as the slowdown s at the short end
 * grows (as s / sqrt(2 + s)), 4.5 times from the 8 % of the timer's 50 us to 100 %, and only
 * 1.4 times more from there to 400 %, where the kernel's sample-rate throttle comes near. 0
 * when the pilot saw no cost. */
static uint64_t high_end(const struct sweep_setup *su, double c, double events)
{
	if (!(c > 0) || !(su->base_cpu_ns > 0))
		return 0;
	double p = su->time_based ? 2 * c : c * events / su->base_cpu_ns;
	uint64_t least = su->min_period ? su->min_period : 1;
	return p < (double)least ? least : (uint64_t)ceil(p);
}

/* Samples per run the pilot expects at period. */
static double expected_samples(const struct sweep_setup *su, uint64_t period, double c,
			       double events)
{
	if (su->time_based)
		return (double)period > c && c >= 0 ? su->base_cpu_ns / ((double)period - c)
						   : su->base_cpu_ns / (double)period;
	return events / (double)period;
}

struct pilot {
	double c, events_cost, events;
	size_t pairs;
};

static int measure_pilot(struct sweep_setup *su, struct pb_point_request *req, struct pilot *pl,
			 struct pb_error *err)
{
	double x[2] = {0}, y[2] = {0}, events = 0;
	const uint64_t ends[2] = {su->periods[0], su->periods[su->np - 1]};
	for (unsigned k = 0; k < 2 * PILOT_PAIRS; k++) {
		unsigned e = k % 2;
		req->period = req->events[0].period = ends[e];
		struct pb_cost_pair pr;
		if (measure_pair(su, req, (k / 2) % 2 == 0, &pr, err))
			return -1;
		x[e] += pb_cost_pair_samples(&pr) / PILOT_PAIRS;
		y[e] += pair_y(&pr) / PILOT_PAIRS;
		events += pr.events / (2 * PILOT_PAIRS);
	}
	pl->pairs = 2 * PILOT_PAIRS;
	pl->events = events;
	pl->c = x[1] > x[0] ? (y[1] - y[0]) / (x[1] - x[0]) : NAN;
	pl->events_cost = su->per_event && isfinite(pl->c) ? y[0] - pl->c * x[0] : 0;
	return 0;
}

static struct pb_result_point *period_point(struct sweep_setup *su,
					    struct pb_result_point **points, unsigned i,
					    uint64_t period, enum pb_delivery mode)
{
	if (!points[i] && su->new_point)
		points[i] = su->new_point(su->point_ctx, period, mode);
	return points[i];
}

/* One delivery mode: the noise (once per setup), the pilot, the design sized from them, its
 * rounds measured in full, and the fit over the design's pairs alone. */
int pb_cost_sweep_mode(struct sweep_setup *su, enum pb_delivery mode, struct cost_fit *cf,
		       struct pb_error *err)
{
	memset(cf, 0, sizeof *cf);
	struct sweep *sw = calloc(1, sizeof *sw);
	if (!sw)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	struct pb_point_request req = su->sampled;
	req.delivery = mode;
	uint64_t start = pb_now_ns();
	int rc = 0;
	struct pilot pl = {0};
	if ((!su->noise_pairs && measure_noise(su, err)) || measure_pilot(su, &req, &pl, err)) {
		free(sw);
		return -1;
	}
	uint64_t periods[PB_MAX_LIST];
	unsigned np = su->np;
	memcpy(periods, su->periods, np * sizeof *periods);
	uint64_t hi = su->extend_high ? high_end(su, pl.c, pl.events) : 0;
	if (hi && hi < periods[np - 1] && np < PB_MAX_LIST)
		periods[np++] = hi;
	/* a round: each end END_VISITS times, each middle period once */
	unsigned slot_period[PB_MAX_LIST * END_VISITS], nslots = 0;
	double x[PB_MAX_LIST * END_VISITS], pair_s[PB_MAX_LIST * END_VISITS];
	for (unsigned i = 0; i < np; i++)
		for (unsigned v = 0; v < (i == 0 || i == np - 1 ? END_VISITS : 1u); v++)
			slot_period[nslots++] = i;
	for (unsigned k = 0; k < nslots; k++) {
		x[k] = expected_samples(su, periods[slot_period[k]], pl.c, pl.events);
		double s = su->base_cpu_ns > 0 && pl.c > 0
				   ? (pl.c * x[k] + pl.events_cost) / su->base_cpu_ns : 0;
		pair_s[k] = su->run_s * (2 + s);
	}
	double spent = (double)(pb_now_ns() - start) / 1e9;
	struct pb_cost_design_input in = {
		.noise_ns = su->noise_ns,
		.ns_per_sample = pl.c,
		.events_cost_ns = su->per_event && pl.events_cost > 0 ? pl.events_cost : 0,
		.baseline_ns = su->base_cpu_ns,
		.x = x,
		.pair_s = pair_s,
		.nslots = nslots,
		.seconds_left = (double)su->budget_ns / 1e9 - spent,
		.min_rounds = su->min_rounds ? su->min_rounds : 1,
		.max_rounds = MAX_PAIRS / nslots,
	};
	struct pb_cost_design d;
	pb_cost_design_size(&in, &d);
	struct pb_result_point *points[PB_MAX_LIST] = {0};
	unsigned last = nslots, round = 0;
	bool cut = false;
	for (; round < d.rounds && !rc && !cut; round++) {
		/* Each round visits the slots in a new order, and the order inside the pairs
		 * alternates: in a fixed order a machine that warms up or quiets down would read
		 * as a per-sample cost. */
		unsigned order[PB_MAX_LIST * END_VISITS];
		pb_round_order(order, nslots, round, &last);
		for (unsigned k = 0; k < nslots; k++) {
			unsigned i = slot_period[order[k]];
			if (su->o && pb_suite_interrupted(su->o, err)) {
				rc = -1;
				break;
			}
			if (round >= in.min_rounds &&
			    pb_now_ns() - start >= BUDGET_HARD_CAP * su->budget_ns) {
				cut = true;
				break;
			}
			if (su->o && su->o->progress) {
				char what[256];
				pb_format(what, sizeof what, "cost %s %s, period %llu, round %u/%u",
					  su->facility, pb_delivery_name(mode),
					  (unsigned long long)periods[i], round + 1, d.rounds);
				su->o->progress(su->o->progress_ctx, what);
			}
			req.period = req.events[0].period = periods[i];
			struct pb_cost_pair pr;
			if (measure_pair(su, &req, (round + k) % 2 == 0, &pr, err)) {
				rc = -1;
				break;
			}
			sw->p[sw->n++] = pr;
			struct pb_result_point *pt = period_point(su, points, i, periods[i], mode);
			/* a pair whose expectation is no number has no row (as /1 had it) */
			if (pt && isfinite(pr.expected))
				pb_cost_pair_record(pb_rlist_set(&pt->runs), &pr, round);
		}
	}
	pb_cost_fit_sweep(sw, su->per_event, cf);
	cf->rounds = round;
	cf->seconds = (double)(pb_now_ns() - start) / 1e9;
	cf->budget_seconds = (double)su->budget_ns / 1e9;
	cf->noise_ns = su->noise_ns;
	cf->noise_pairs = su->noise_pairs;
	cf->pilot_ns = pl.c;
	cf->pilot_pairs = pl.pairs;
	cf->design_rounds = d.rounds;
	cf->design_rounds_needed = d.rounds_needed;
	cf->design_pairs = (size_t)d.rounds * nslots;
	cf->expected_rel_ci = d.expected_rel_ci;
	cf->high_period = periods[np - 1];
	cf->cut_short = cut;
	if (!rc && !cf->resolved) {
		double design_s = cf->seconds - spent;
		cf->to_resolve_s = cf->fitted ? pb_cost_seconds_to_resolve(&cf->cpu, design_s,
									  &cf->to_resolve_lower)
					      : NAN;
		size_t n = strlen(cf->why);
		pb_format(cf->why + n, sizeof cf->why - n, " after %zu pairs in %.1f s (budget %.1f s)",
			  cf->pairs, cf->seconds, cf->budget_seconds);
		if (cut)
			pb_append(cf->why, sizeof cf->why, "; cut short at %zu of the design's %zu "
				  "pairs (over twice its budget)", cf->pairs, cf->design_pairs);
		if (isfinite(cf->to_resolve_s))
			pb_append(cf->why, sizeof cf->why, "; a sweep of %s%.0f s would resolve %s",
				  cf->to_resolve_lower ? "more than " : "", cf->to_resolve_s,
				  cf->to_resolve_lower ? "a cost at the CI's upper end"
						       : "it at this noise");
	}
	free(sw);
	return rc;
}

/* The probe site of a request (its label, or the workload's first event label) and the class
 * the facility's cost per event there belongs to; NULL when that cost does not depend on the
 * site (or the facility sits on no instruction). */
const char *pb_cost_site_of(const struct pb_point_request *req, const struct pb_spec *spec,
			   char *label, size_t label_len, char *insn, size_t insn_len)
{
	label[0] = insn[0] = 0;
	if (!pb_spec_sits_on_instruction(spec))
		return NULL;
	struct pb_truth *t = calloc(1, sizeof *t);
	const char *cls = NULL;
	if (t && !pb_workload_truth(&req->workload, req->iterations ? req->iterations : 1, t,
				    NULL)) {
		int l = req->label[0] ? pb_truth_label(t, req->label) : pb_truth_default_label(t);
		if (l >= 0) {
			pb_format(label, label_len, "%s", t->labels[l].name);
			cls = pb_spec_event_cost_class(req->machine, spec, t->labels[l].addr, insn,
						       insn_len);
		}
	}
	free(t);
	return cls;
}

int pb_cost_setup_sweep(struct sweep_setup *su, const char *facility, const struct pb_spec *spec,
		       const struct pb_machine *machine, uint64_t target_ms, struct pb_error *err)
{
	memset(su, 0, sizeof *su);
	su->facility = facility;
	su->per_event = spec->facility->traps_every_event;
	if (pb_suite_request(&su->sampled, facility, pb_cost_workload(spec), 0, 1, PB_DELIVERY_NONE,
			    err))
		return -1;
	su->sampled.machine = machine;
	su->sampled.iterations = pb_calibrate_iterations(&su->sampled.workload,
							 &su->sampled.events[0].spec,
							 target_ms ? target_ms : 1, err);
	if (!su->sampled.iterations)
		return -1;
	su->base = su->sampled;
	su->base.no_perf = true;
	su->base.nevents = 0;
	su->time_based = spec->facility->time_based;
	su->min_period = spec->facility->min_period;
	return 0;
}
