/* Buffer (Akiyama & Hirofuchi, 4.3 and 4.6): the ring buffer trades interruptions against
 * memory. The facility samples its natural workload at a dense period (timers 100 µs, exact
 * facilities every second event) with rings of 1, 8 and 64 data pages (powers of two, as the
 * kernel requires), single-threaded, in two modes. In signal mode the wakeup watermark decides
 * how often the kernel wakes the task and sends it a signal (after every sample, or when half
 * the ring is full); the session's handler counts the signal and does not read the ring, which
 * is drained after the run, so the ring must hold the whole run: this row isolates the price
 * of wakeups and shows the loss of a ring too small to hold what nobody reads. In drain mode a
 * collector thread on another CPU polls the ring (every 1 ms or 10 ms; the kernel also wakes it
 * when half the ring is full), as perf record does: a small ring or a lazy reader loses samples,
 * an eager reader costs time. Reported per point: wall time and its overhead over a run without
 * perf, samples, and every loss (kernel PERF_FORMAT_LOST, LOST records), so that kept + lost can
 * be checked against the samples the workload's truth implies. */
#include "experiments/experiment.h"
#include "experiments/predict.h"
#include "experiments/suite_defaults.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

static const unsigned ring_sizes[] = {1, 8, 64};
#define NSIZES (PB_ARRAY_SIZE(ring_sizes))

struct knob {
	enum pb_delivery mode;
	const char *name;        /* what the second axis means for this mode */
	unsigned value;          /* signal: 0 = a wakeup per sample, 1 = half the ring;
				  * drain: the poll interval in µs */
};
static const struct knob knobs[] = {
	{PB_DELIVERY_SIGNAL, "wakeup", 0},
	{PB_DELIVERY_SIGNAL, "wakeup", 1},
	{PB_DELIVERY_DRAIN, "poll_us", 1000},
	{PB_DELIVERY_DRAIN, "poll_us", 10000},
};
#define NKNOBS (PB_ARRAY_SIZE(knobs))

static unsigned buffer_repeats(const struct pb_suite_options *o)
{
	return o->runs < 3 ? o->runs : 3;
}

static unsigned buffer_count_runs(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	(void)spec;
	return (1 + NSIZES * NKNOBS) * buffer_repeats(o);
}

static uint64_t buffer_period(const struct pb_suite_options *o, const struct pb_spec *s)
{
	if (o->nperiods)
		return o->periods[0];
	return s->facility->periods->buffer;
}

struct figures {
	uint64_t wall_ns, samples, lost, lost_format, lost_records, signals, throttles, count;
	bool ok;
};

/* One session with the ring and wakeup settings the point request cannot express. */
static int measure(const struct pb_point_request *req, unsigned pages, const struct knob *k,
		   struct figures *out, struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	struct pb_instance in;
	if (pb_instance_init(&in, &req->workload, req->iterations, 1, err))
		return -1;
	in.code_label = pb_truth_default_label(&in.truth);
	struct pb_session_config cfg = {
		.nevents = 1,
		.delivery = k->mode,
		.machine = req->machine,
		.ring_pages = pages,
	};
	cfg.events[0].spec = req->events[0].spec;
	cfg.events[0].period = req->events[0].period;
	cfg.events[0].exclude_kernel = req->exclude_kernel;
	if (k->mode == PB_DELIVERY_SIGNAL && k->value)
		cfg.wakeup_watermark = (uint32_t)(pages * 4096u / 2);
	if (k->mode == PB_DELIVERY_DRAIN)
		cfg.drain_interval_us = k->value;
	pb_instance_session(&in, &cfg);
	struct pb_session_result *sr = calloc(1, sizeof *sr);
	if (!sr) {
		pb_instance_free(&in);
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	}
	int rc = pb_session_run(&cfg, sr, err);
	if (!rc) {
		const struct pb_event_result *er = &sr->thread[0].events[0];
		out->wall_ns = sr->wall_ns;
		out->samples = er->samples;
		out->lost = pb_event_lost(er);
		out->lost_format = er->lost_format;
		out->lost_records = er->ring.lost;
		out->signals = er->signals;
		out->throttles = er->ring.throttles;
		out->count = er->count;
		out->ok = true;
	}
	free(sr);
	pb_instance_free(&in);
	return rc;
}

static int buffer_run(const struct pb_suite_options *o, const struct pb_spec *asked,
		      struct pb_results *res, struct pb_error *err)
{
	const char *facility = asked->text;
	const struct pb_spec spec = *asked;
	uint64_t period = buffer_period(o, &spec);
	struct pb_point_request req;
	if (pb_suite_request(&req, &spec, NULL, period, 1, PB_DELIVERY_NONE, err))
		return -1;
	req.machine = o->machine;
	/* A third of the suite's run time: thirteen points, several times slower than the
	 * baseline at these dense periods. */
	req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec,
						 o->target_ms / 3 ? o->target_ms / 3 : 1, err);
	if (!req.iterations)
		return -1;
	char workload[320], params[256];
	pb_workload_params_text(&req.workload, params, sizeof params);
	bool has = params[0] && strcmp(params, "-");
	pb_format(workload, sizeof workload, "%s%s%s", req.workload.workload->name,
		  has ? ":" : "", has ? params : "");
	unsigned nruns = buffer_repeats(o);

	/* The baseline: the same iterations without perf. */
	struct pb_point_request none = req;
	none.no_perf = true;
	none.nevents = 0;
	double base[16];
	struct pb_result_point *bp = pb_results_point(res, "buffer", facility, workload);
	pb_rset_text(&bp->params, "role", "baseline");
	pb_rset_int(&bp->params, "iterations", PB_UNIT_ITERATIONS, (int64_t)req.iterations);
	for (unsigned r = 0; r < nruns; r++) {
		if (pb_suite_interrupted(o, err))
			return -1;
		struct pb_point pt;
		if (pb_point_measure(&none, &pt, err))
			return -1;
		base[r] = (double)pt.wall_ns;
		struct pb_rset *run = pb_rlist_set(&bp->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)pt.wall_ns);
		pb_point_free(&pt);
	}
	double t0 = pb_median(base, nruns);

	/* What the truth implies, for the kept + lost check: exact facilities only. */
	uint64_t declared = 0;
	struct pb_instance in;
	if (!pb_instance_init(&in, &req.workload, req.iterations, 1, NULL)) {
		const char *basis = pb_declared_events(&spec, &in.truth, pb_truth_default_label(&in.truth),
						       req.iterations, &declared);
		if (strcmp(basis, "declared"))
			declared = 0;
		pb_instance_free(&in);
	}

	for (unsigned s = 0; s < NSIZES; s++) {
		for (unsigned k = 0; k < NKNOBS; k++) {
			struct pb_result_point *p = pb_results_point(res, "buffer", facility, workload);
			struct pb_rset *par = &p->params;
			pb_rset_text(par, "role", "sampled");
			pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)period);
			pb_rset_int(par, "threads", PB_UNIT_THREADS, 1);
			pb_rset_int(par, "iterations", PB_UNIT_ITERATIONS, (int64_t)req.iterations);
			pb_rset_text(par, "delivery", pb_delivery_name(knobs[k].mode));
			pb_rset_int(par, "ring_pages", PB_UNIT_PAGES, ring_sizes[s]);
			if (knobs[k].mode == PB_DELIVERY_SIGNAL)
				pb_rset_text(par, knobs[k].name,
					     knobs[k].value ? "half-ring" : "every-sample");
			else
				pb_rset_int(par, knobs[k].name, PB_UNIT_US, knobs[k].value);
			double walls[16];
			unsigned n = 0;
			uint64_t lost = 0, samples = 0;
			for (unsigned r = 0; r < nruns; r++) {
				if (pb_suite_interrupted(o, err))
					return -1;
				if (o->progress) {
					char what[256];
					pb_format(what, sizeof what,
						  "buffer %s %s, %u pages, %s %s=%u, run %u/%u",
						  facility, workload, ring_sizes[s],
						  pb_delivery_name(knobs[k].mode), knobs[k].name,
						  knobs[k].value, r + 1, nruns);
					o->progress(o->progress_ctx, what);
				}
				struct figures f;
				struct pb_error run_err = {0};
				if (measure(&req, ring_sizes[s], &knobs[k], &f, &run_err)) {
					if (run_err.code == PB_EXIT_INTERRUPTED) {
						*err = run_err;
						return -1;
					}
					pb_rset_text(par, "error", run_err.msg);
					break;
				}
				walls[n++] = (double)f.wall_ns;
				lost += f.lost;
				samples += f.samples;
				struct pb_rset *run = pb_rlist_set(&p->runs);
				pb_rset_int(run, "run", PB_UNIT_NONE, r);
				pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)f.wall_ns);
				pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)f.samples);
				pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)f.lost);
				pb_rset_int(run, "lost_format", PB_UNIT_RECORDS, (int64_t)f.lost_format);
				pb_rset_int(run, "lost_records", PB_UNIT_RECORDS,
					    (int64_t)f.lost_records);
				pb_rset_int(run, "signals", PB_UNIT_SIGNALS, (int64_t)f.signals);
				pb_rset_int(run, "throttles", PB_UNIT_COUNT, (int64_t)f.throttles);
				pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)f.count);
				if (declared)
					pb_rset_int(run, "expected", PB_UNIT_SAMPLES,
						    (int64_t)(declared / period));
			}
			struct pb_rset *m = &p->metrics;
			double t = pb_median(walls, n);
			pb_rset_real(m, "wall_ns_median", PB_UNIT_NS, t);
			pb_rset_real(m, "baseline_ns", PB_UNIT_NS, t0);
			/* the baseline's runs came first, not in rounds with these: unpaired */
			double pct, ci95;
			pb_unpaired_slowdown(walls, n, base, nruns, &pct, &ci95);
			pb_rset_real_or_null(m, "time_overhead_pct", PB_UNIT_PERCENT, pct);
			pb_rset_real_or_null(m, "time_overhead_ci95_pp", PB_UNIT_PERCENT_POINTS, ci95);
			pb_rset_int(m, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
			pb_rset_int(m, "samples_total", PB_UNIT_SAMPLES, (int64_t)samples);
			pb_rset_real(m, "loss_pct", PB_UNIT_PERCENT,
				     samples + lost ? (double)lost / (double)(samples + lost) * 100
						    : 0);
		}
	}
	return 0;
}

const struct pb_experiment pb_experiment_buffer = {
	.name = "buffer",
	.summary = "ring size x wakeup watermark / drain interval: time overhead and loss",
	.run = buffer_run,
	.count_runs = buffer_count_runs,
};
