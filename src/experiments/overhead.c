/* Overhead (main study, V-D and V-E): what a user feels when a facility samples their program.
 * The facility samples its natural workload at one period (the accuracy experiment's, or the
 * first --period) under every delivery mode — none (samples wait in a ring sized for the run),
 * signal (a real-time signal per wakeup, one wakeup per sample), sigtrap (a synchronous SIGTRAP
 * per sample) and drain (a collector thread drains the rings, like perf record) — on each thread
 * count of the suite, next to a baseline run of the same workload without perf. Every run is a
 * forked child so that its peak RSS (wait4's ru_maxrss) is the measured process's own, and the
 * runs of one thread count are interleaved (baseline, none, signal, sigtrap, drain, baseline,
 * ...) so that drift in the machine falls on every mode alike. Reported per point: the median
 * wall time (CLOCK_MONOTONIC) and its overhead over the baseline's median, the measured
 * threads' CPU time (summed) and its overhead — what sampling costs them without the time they
 * waited for a CPU other programs held —, the median peak RSS and its overhead, samples,
 * signals and losses, and the cost per sample per thread ((sampled - baseline) / samples per
 * thread, wall) and per sample on CPU time — for trapping facilities (breakpoints, uprobes)
 * that cost includes the trap every event pays, sampled or not. */
#include "experiments/child.h"
#include "experiments/experiment.h"
#include "experiments/plan.h"

#include "analysis/stats.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

#define NCONFIGS 5 /* baseline + four delivery modes */

static const enum pb_delivery modes[] = {PB_DELIVERY_NONE, PB_DELIVERY_SIGNAL,
					 PB_DELIVERY_SIGTRAP, PB_DELIVERY_DRAIN};

static unsigned overhead_plan(const struct pb_suite_options *o, const char *facility)
{
	(void)facility;
	return o->nthreads * NCONFIGS * o->runs;
}

struct config_runs {
	struct pb_child_point runs[256];
	unsigned n;
};

enum figure { WALL, RSS, CPU };

static double median_of(const struct config_runs *c, enum figure which)
{
	double v[256];
	for (unsigned i = 0; i < c->n; i++)
		v[i] = which == RSS ? (double)c->runs[i].maxrss_kib
		       : which == CPU ? (double)c->runs[i].cpu_ns : (double)c->runs[i].wall_ns;
	return pb_median(v, c->n);
}

static void summary_into(json_t *metrics, const char *name, const struct config_runs *c,
			 int which)
{
	double v[256];
	for (unsigned i = 0; i < c->n; i++) {
		const struct pb_child_point *r = &c->runs[i];
		v[i] = which == 0 ? (double)r->wall_ns : which == 1 ? (double)r->maxrss_kib
				  : which == 2 ? (double)r->observed : which == 3 ? (double)r->signals
				  : (double)r->cpu_ns;
	}
	struct pb_summary s;
	pb_summarize(v, c->n, &s);
	json_object_set_new(metrics, name,
			    json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "n", (int)s.n, "mean",
				      s.mean, "stdev", s.stdev, "min", s.min, "max", s.max, "median",
				      s.median, "ci95", s.ci95));
}

static json_t *config_point(struct pb_results *res, const char *facility, const char *workload,
			    const struct pb_point_request *req, bool baseline,
			    const struct config_runs *c, const struct config_runs *base)
{
	json_t *p = pb_results_point(res, "overhead", facility, workload);
	json_object_set_new(p, "role", json_string(baseline ? "baseline" : "sampled"));
	json_object_set_new(p, "period", json_integer(baseline ? 0 : (json_int_t)req->period));
	json_object_set_new(p, "threads", json_integer(req->threads));
	json_object_set_new(p, "iterations", json_integer((json_int_t)req->iterations));
	json_object_set_new(p, "delivery",
			    json_string(baseline ? "-" : pb_delivery_name(req->delivery)));
	json_t *runs = json_object_get(p, "runs");
	uint64_t lost = 0, throttles = 0;
	for (unsigned i = 0; i < c->n; i++) {
		const struct pb_child_point *r = &c->runs[i];
		json_t *run = json_pack("{s:i, s:I, s:I, s:I}", "run", (int)i, "wall_ns",
					(json_int_t)r->wall_ns, "cpu_ns", (json_int_t)r->cpu_ns,
					"maxrss_kib", (json_int_t)r->maxrss_kib);
		if (!baseline) {
			json_object_set_new(run, "observed", json_integer((json_int_t)r->observed));
			json_object_set_new(run, "expected", json_real(r->expected));
			json_object_set_new(run, "count", json_integer((json_int_t)r->count));
			json_object_set_new(run, "signals", json_integer((json_int_t)r->signals));
			json_object_set_new(run, "throttles",
					    json_integer((json_int_t)r->throttles));
			json_object_set_new(run, "ring_pages",
					    json_integer((json_int_t)r->ring_pages));
		}
		json_object_set_new(run, "lost", json_integer((json_int_t)r->lost));
		lost += r->lost;
		throttles += r->throttles;
		json_array_append_new(runs, run);
	}
	json_t *m = json_object_get(p, "metrics");
	summary_into(m, "wall_ns", c, 0);
	summary_into(m, "cpu_ns", c, 4);
	summary_into(m, "maxrss_kib", c, 1);
	json_object_set_new(m, "lost_total", json_integer((json_int_t)lost));
	json_object_set_new(m, "throttles_total", json_integer((json_int_t)throttles));
	if (baseline || !c->n)
		return p;
	summary_into(m, "samples", c, 2);
	summary_into(m, "signals", c, 3);
	double t0 = median_of(base, WALL), t = median_of(c, WALL);
	double m0 = median_of(base, RSS), mem = median_of(c, RSS);
	double c0 = median_of(base, CPU), cpu = median_of(c, CPU);
	json_object_set_new(m, "time_overhead_pct", json_real(t0 > 0 ? (t - t0) / t0 * 100 : 0));
	/* The measured threads' CPU time: what sampling costs them, without the time they waited
	 * for a CPU that other programs held (wall time carries that on a shared machine). */
	json_object_set_new(m, "cpu_overhead_pct", json_real(c0 > 0 ? (cpu - c0) / c0 * 100 : 0));
	json_object_set_new(m, "memory_overhead_pct",
			    json_real(m0 > 0 ? (mem - m0) / m0 * 100 : 0));
	json_object_set_new(m, "rss_added_kib", json_real(mem - m0));
	double samples[256];
	for (unsigned i = 0; i < c->n; i++)
		samples[i] = (double)c->runs[i].observed;
	double per_thread = pb_median(samples, c->n) / (req->threads ? req->threads : 1);
	json_object_set_new(m, "ns_per_sample_per_thread",
			    per_thread > 0 ? json_real((t - t0) / per_thread) : json_null());
	/* CPU time adds up over threads, so its cost per sample divides by all samples. */
	double all = pb_median(samples, c->n);
	json_object_set_new(m, "cpu_ns_per_sample", all > 0 ? json_real((cpu - c0) / all)
							    : json_null());
	return p;
}

static int overhead_run(const struct pb_suite_options *o, const char *facility,
			struct pb_results *res, struct pb_error *err)
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	uint64_t period = o->nperiods ? o->periods[0] : pb_plan_accuracy_period(&spec);
	struct pb_point_request req[NCONFIGS];
	for (unsigned c = 0; c < NCONFIGS; c++) {
		if (pb_plan_request(&req[c], facility, NULL, period, 1,
				    c ? modes[c - 1] : PB_DELIVERY_NONE, err))
			return -1;
		req[c].machine = o->machine;
	}
	req[0].no_perf = true;
	req[0].nevents = 0;
	/* Half the suite's run time: every run here is a fork, five configurations per thread
	 * count. */
	uint64_t target = o->target_ms / 2 ? o->target_ms / 2 : 1;
	uint64_t iterations = pb_calibrate_iterations(&req[1].workload, &req[1].events[0].spec,
						      target, err);
	if (!iterations)
		return -1;
	char workload[320], params[256];
	pb_workload_params_text(&req[1].workload, params, sizeof params);
	pb_format(workload, sizeof workload, "%s%s%s", req[1].workload.workload->name,
		  params[0] && strcmp(params, "-") ? ":" : "",
		  params[0] && strcmp(params, "-") ? params : "");

	struct config_runs *runs = calloc(NCONFIGS, sizeof *runs);
	if (!runs)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	unsigned nruns = o->runs < 256 ? o->runs : 256;
	int rc = 0;
	char failed[NCONFIGS][512];
	for (unsigned t = 0; t < o->nthreads && !rc; t++) {
		for (unsigned c = 0; c < NCONFIGS; c++) {
			req[c].threads = o->threads[t];
			req[c].iterations = iterations;
			runs[c].n = 0;
			failed[c][0] = 0;
		}
		for (unsigned r = 0; r < nruns && !rc; r++) {
			for (unsigned c = 0; c < NCONFIGS; c++) {
				if (pb_suite_interrupted(o, err)) {
					rc = -1;
					break;
				}
				if (o->progress) {
					char what[256];
					pb_format(what, sizeof what,
						  "overhead %s %s, %s, %u thread(s), run %u/%u",
						  facility, workload,
						  c ? pb_delivery_name(modes[c - 1]) : "baseline",
						  o->threads[t], r + 1, nruns);
					o->progress(o->progress_ctx, what);
				}
				if (failed[c][0])
					continue;
				struct pb_error run_err = {0};
				if (pb_child_measure_point(&req[c], &runs[c].runs[runs[c].n],
							   &run_err)) {
					/* A mode the facility refuses is a result; a baseline
					 * that cannot run is the end of the experiment. */
					if (c == 0) {
						if (err)
							*err = run_err;
						rc = -1;
						break;
					}
					pb_format(failed[c], sizeof failed[c], "%s", run_err.msg);
					continue;
				}
				runs[c].n++;
			}
		}
		if (rc)
			break;
		for (unsigned c = 0; c < NCONFIGS; c++) {
			json_t *p = config_point(res, facility, workload, &req[c], c == 0, &runs[c],
						 &runs[0]);
			if (failed[c][0])
				json_object_set_new(p, "error", json_string(failed[c]));
		}
	}
	free(runs);
	return rc;
}

const struct pb_experiment pb_experiment_overhead = {
	.name = "overhead",
	.summary = "wall time and peak RSS vs no perf, per delivery mode and thread count",
	.run = overhead_run,
	.plan = overhead_plan,
};
