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

/* R² below this after two rounds stops a sweep early: R² measures the noise against the
 * spread of the samples, and more pairs estimate it better but do not raise it. */
#define FUTILE_R2 0.9

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

/* Rounds over the sweep in one delivery mode until the fit resolves or the budget is spent.
 * period_points[i] (may be NULL) receives the runs of periods[i]. */
int pb_cost_sweep_mode(struct sweep_setup *su, enum pb_delivery mode,
		      struct pb_result_point **period_points,
		      struct cost_fit *cf, struct pb_error *err)
{
	struct sweep *sw = calloc(1, sizeof *sw);
	if (!sw)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	struct pb_point_request req = su->sampled;
	req.delivery = mode;
	uint64_t start = pb_now_ns();
	unsigned round = 0;
	int rc = 0;
	bool done = false, futile = false;
	unsigned last = su->np;
	memset(cf, 0, sizeof *cf);
	for (;; round++) {
		/* Each round visits the periods in a new order, and the order inside the pairs
		 * alternates: in a fixed order a machine that warms up or quiets down would read
		 * as a per-sample cost, and with a reversing one the period at the turn ran twice
		 * in a row, so one burst of load on the machine landed on it twice. */
		unsigned order[PB_MAX_LIST];
		pb_round_order(order, su->np, round, &last);
		for (unsigned k = 0; k < su->np && !rc; k++) {
			unsigned i = order[k];
			if (su->o && pb_suite_interrupted(su->o, err)) {
				rc = -1;
				break;
			}
			if (su->o && su->o->progress) {
				char what[256];
				pb_format(what, sizeof what, "cost %s %s, period %llu, round %u",
					  su->facility, pb_delivery_name(mode),
					  (unsigned long long)su->periods[i], round + 1);
				su->o->progress(su->o->progress_ctx, what);
			}
			req.period = req.events[0].period = su->periods[i];
			struct pb_cost_pair pr;
			if (measure_pair(su, &req, (round + k) % 2 == 0, &pr, err)) {
				rc = -1;
				break;
			}
			if (sw->n < MAX_PAIRS)
				sw->p[sw->n++] = pr;
			/* a pair whose expectation is no number has no row (as /1 had it) */
			if (period_points && period_points[i] && isfinite(pr.expected))
				pb_cost_pair_record(pb_rlist_set(&period_points[i]->runs), &pr, round);
			if (round + 1 < su->min_rounds || (round + 1 == su->min_rounds &&
							   k + 1 < su->np))
				continue;
			pb_cost_fit_sweep(sw, su->per_event, cf);
			futile = cf->fitted && sw->n >= 2 * su->np && !(cf->cpu.r2 >= FUTILE_R2);
			if (pb_cost_sweep_done(cf->resolved, futile, su->per_event, cf->event_resolved) ||
			    pb_now_ns() - start >= su->budget_ns || sw->n >= MAX_PAIRS) {
				done = true;
				break;
			}
		}
		if (rc || done)
			break;
	}
	cf->rounds = round + 1;
	cf->seconds = (double)(pb_now_ns() - start) / 1e9;
	cf->budget_seconds = (double)su->budget_ns / 1e9;
	if (!rc && !cf->resolved && cf->why[0]) {
		size_t n = strlen(cf->why);
		pb_format(cf->why + n, sizeof cf->why - n,
			  " after %zu pairs in %.1f s (budget %.1f s)%s", cf->pairs, cf->seconds,
			  cf->budget_seconds,
			  futile && pb_cost_sweep_done(false, true, su->per_event, cf->event_resolved)
				  ? "; stopped early: R² below 0.9 after two rounds, and more pairs "
				   "do not raise it, only less noise does" : "");
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
	return 0;
}
