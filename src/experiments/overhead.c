/* Overhead (main study, V-D and V-E): what a user feels when a facility samples their program.
 * The facility samples its natural workload at one period (the accuracy experiment's, or the
 * first --period) under every delivery mode — none (samples wait in a ring sized for the run),
 * signal (a real-time signal per wakeup, one wakeup per sample), sigtrap (a synchronous SIGTRAP
 * per sample) and drain (a collector thread drains the rings, like perf record) — on each thread
 * count of the suite, next to a baseline run of the same workload without perf. Every run is a
 * forked child so that its peak RSS (wait4's ru_maxrss) is the measured process's own, and the
 * runs of one thread count are interleaved (baseline, none, signal, sigtrap, drain, baseline,
 * ...) so that drift in the machine falls on every mode alike. Reported per point: the median
 * wall time (CLOCK_MONOTONIC) and its overhead over the baseline, the measured threads' CPU
 * time (summed) and its overhead — what sampling costs them without the time they waited for a
 * CPU other programs held —, the median peak RSS and its overhead (each overhead over rounds
 * paired with the baseline's, with its 95 % CI), samples, signals and losses, and the cost per
 * sample per thread ((sampled - baseline) / samples per thread, wall) and per sample on CPU
 * time — for a facility that traps on every event that cost includes the trap every event
 * pays, sampled or not. */
#include "experiments/overhead.h"

#include "experiments/experiment.h"
#include "experiments/predict.h"
#include "experiments/suite_defaults.h"

#include "analysis/stats.h"
#include "util/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NCONFIGS 5 /* baseline + four delivery modes */

static const enum pb_delivery modes[] = {PB_DELIVERY_NONE, PB_DELIVERY_SIGNAL,
					 PB_DELIVERY_SIGTRAP, PB_DELIVERY_DRAIN};

static unsigned overhead_count_runs(const struct pb_suite_options *o,
				    const struct pb_spec *spec)
{
	(void)spec;
	return o->nthreads * NCONFIGS * o->runs;
}

enum figure { WALL, RSS, CPU };

static double figure_of(const struct pb_child_point *r, enum figure which)
{
	return which == RSS ? (double)r->maxrss_kib
	       : which == CPU ? (double)r->cpu_ns : (double)r->wall_ns;
}

static double median_of(const struct pb_overhead_runs *c, enum figure which)
{
	double v[PB_OVERHEAD_MAX_RUNS];
	for (unsigned i = 0; i < c->n; i++)
		v[i] = figure_of(&c->runs[i], which);
	return pb_median(v, c->n);
}

static void summary_into(struct pb_rset *metrics, const char *name, enum pb_unit unit,
			 const struct pb_overhead_runs *c, int which)
{
	double v[PB_OVERHEAD_MAX_RUNS];
	for (unsigned i = 0; i < c->n; i++) {
		const struct pb_child_point *r = &c->runs[i];
		v[i] = which == 0 ? (double)r->wall_ns : which == 1 ? (double)r->maxrss_kib
				  : which == 2 ? (double)r->observed : which == 3 ? (double)r->signals
				  : (double)r->cpu_ns;
	}
	pb_rset_summarize(metrics, name, unit, v, c->n);
}

static void real_or_null(struct pb_rset *m, const char *name, enum pb_unit unit, bool known,
			 double v)
{
	if (known)
		pb_rset_real(m, name, unit, v);
	else
		pb_rset_null(m, name, unit);
}

/* The rounds a mode pairs with the baseline: as many as both ran (a mode that failed part-way
 * pairs the rounds it ran). */
static unsigned paired_rounds(const struct pb_overhead_runs *c, const struct pb_overhead_runs *base)
{
	return c->n < base->n ? c->n : base->n;
}

/* NAME_pct and NAME_ci95_pp: the sampled runs' overhead over the baseline, each round's run
 * paired with the baseline of its round (the runs of a thread count are interleaved, so drift
 * falls on both), as the mean paired difference over the mean baseline with its t interval
 * (pb_paired_slowdown, as the cost experiment's predictions judge it), over the rounds not
 * left out (left_out, NULL for none). The interval is null with a single round. */
static void overhead_into(struct pb_rset *m, const char *name, const struct pb_overhead_runs *c,
			  const struct pb_overhead_runs *base, enum figure which,
			  const bool *left_out)
{
	double diff[PB_OVERHEAD_MAX_RUNS], base_of_round[PB_OVERHEAD_MAX_RUNS], pct, ci95;
	unsigned n = paired_rounds(c, base);
	for (unsigned i = 0; i < n; i++) {
		base_of_round[i] = figure_of(&base->runs[i], which);
		diff[i] = left_out && left_out[i] ? NAN
			  : figure_of(&c->runs[i], which) - base_of_round[i];
	}
	pb_paired_slowdown(diff, base_of_round, n, &pct, &ci95);
	char key[64];
	pb_format(key, sizeof key, "%s_pct", name);
	pb_rset_real_or_null(m, key, PB_UNIT_PERCENT, pct);
	pb_format(key, sizeof key, "%s_ci95_pp", name);
	pb_rset_real_or_null(m, key, PB_UNIT_PERCENT_POINTS, ci95);
}

/* The rounds a disturbance moved (pb_paired_disturbed, the rule the cost experiment's
 * predictions are held to), tested on the measured threads' CPU time, which a burst of other
 * work on the machine adds to as it does to the wall time: marked in out and base_out
 * (whose baseline it was), in neither time overhead; the memory overhead keeps every round
 * (a burst does not move a peak RSS). At most one round in PB_DISTURBED_MAX_SHARE for each
 * of the rule's two tests, none of fewer than that many rounds (the default five). */
static unsigned disturbed_rounds(const struct pb_overhead_runs *c,
				 const struct pb_overhead_runs *base, bool *out, bool *base_out,
				 bool *far_above)
{
	double diff[PB_OVERHEAD_MAX_RUNS], base_of_round[PB_OVERHEAD_MAX_RUNS];
	unsigned n = paired_rounds(c, base);
	for (unsigned i = 0; i < n; i++) {
		base_of_round[i] = figure_of(&base->runs[i], CPU);
		diff[i] = figure_of(&c->runs[i], CPU) - base_of_round[i];
	}
	return pb_paired_disturbed(diff, base_of_round, n, out, base_out, far_above);
}

struct pb_result_point *pb_overhead_config_point(struct pb_results *res, const char *facility,
						 const char *workload,
						 const struct pb_point_request *req, bool baseline,
						 const struct pb_overhead_runs *c,
						 const struct pb_overhead_runs *base)
{
	struct pb_result_point *p = pb_results_point(res, "overhead", facility, workload);
	struct pb_rset *par = &p->params;
	pb_rset_text(par, "role", baseline ? "baseline" : "sampled");
	pb_rset_int(par, "period", PB_UNIT_NONE, baseline ? 0 : (int64_t)req->events[0].period);
	pb_rset_int(par, "threads", PB_UNIT_THREADS, req->threads);
	pb_rset_int(par, "iterations", PB_UNIT_ITERATIONS, (int64_t)req->iterations);
	pb_rset_text(par, "delivery", baseline ? "-" : pb_delivery_name(req->delivery));
	bool out[PB_OVERHEAD_MAX_RUNS] = {false}, base_out[PB_OVERHEAD_MAX_RUNS] = {false};
	bool far_above = false;
	unsigned left_out = baseline ? 0 : disturbed_rounds(c, base, out, base_out, &far_above);
	uint64_t lost = 0, throttles = 0;
	for (unsigned i = 0; i < c->n; i++) {
		const struct pb_child_point *r = &c->runs[i];
		struct pb_rset *run = pb_rlist_set(&p->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, i);
		/* a disturbed round keeps its row, marked, and is in neither time overhead */
		if (out[i])
			pb_rset_text(run, "left_out", base_out[i] ? "disturbed: its baseline"
				     : "disturbed: its sampled run");
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)r->wall_ns);
		pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)r->cpu_ns);
		pb_rset_int(run, "maxrss_kib", PB_UNIT_KIB, (int64_t)r->maxrss_kib);
		if (!baseline) {
			pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)r->observed);
			pb_rset_real(run, "expected", PB_UNIT_SAMPLES, r->expected);
			pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)r->count);
			pb_rset_int(run, "signals", PB_UNIT_SIGNALS, (int64_t)r->signals);
			pb_rset_int(run, "throttles", PB_UNIT_COUNT, (int64_t)r->throttles);
			pb_rset_int(run, "ring_pages", PB_UNIT_PAGES, (int64_t)r->ring_pages);
		}
		pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)r->lost);
		lost += r->lost;
		throttles += r->throttles;
	}
	struct pb_rset *m = &p->metrics;
	summary_into(m, "wall_ns", PB_UNIT_NS, c, 0);
	summary_into(m, "cpu_ns", PB_UNIT_NS, c, 4);
	summary_into(m, "maxrss_kib", PB_UNIT_KIB, c, 1);
	pb_rset_int(m, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
	pb_rset_int(m, "throttles_total", PB_UNIT_COUNT, (int64_t)throttles);
	if (baseline || !c->n)
		return p;
	summary_into(m, "samples", PB_UNIT_SAMPLES, c, 2);
	summary_into(m, "signals", PB_UNIT_SIGNALS, c, 3);
	double t0 = median_of(base, WALL), t = median_of(c, WALL);
	double m0 = median_of(base, RSS), mem = median_of(c, RSS);
	double c0 = median_of(base, CPU), cpu = median_of(c, CPU);
	pb_rset_int(m, "rounds_left_out", PB_UNIT_COUNT, left_out);
	if (far_above)
		pb_rset_bool(m, "far_above_kept", true);
	if (left_out) {
		char note[240];
		pb_format(note, sizeof note, "%u of %u rounds left out of the time overheads as "
			  "disturbed (a run far above the other rounds', pb_paired_disturbed); "
			  "results.json marks their rows left_out", left_out,
			  paired_rounds(c, base));
		pb_rset_text(par, "left_out_note", note);
	}
	overhead_into(m, "time_overhead", c, base, WALL, out);
	/* The measured threads' CPU time: what sampling costs them, without the time they waited
	 * for a CPU that other programs held (wall time carries that on a shared machine). */
	overhead_into(m, "cpu_overhead", c, base, CPU, out);
	overhead_into(m, "memory_overhead", c, base, RSS, NULL);
	pb_rset_real(m, "rss_added_kib", PB_UNIT_KIB, mem - m0);
	double samples[PB_OVERHEAD_MAX_RUNS];
	for (unsigned i = 0; i < c->n; i++)
		samples[i] = (double)c->runs[i].observed;
	double per_thread = pb_median(samples, c->n) / (req->threads ? req->threads : 1);
	real_or_null(m, "ns_per_sample_per_thread", PB_UNIT_NS_PER_SAMPLE, per_thread > 0,
		     (t - t0) / per_thread);
	/* CPU time adds up over threads, so its cost per sample divides by all samples. */
	double all = pb_median(samples, c->n);
	real_or_null(m, "cpu_ns_per_sample", PB_UNIT_NS_PER_SAMPLE, all > 0, (cpu - c0) / all);
	return p;
}

static int overhead_run(const struct pb_suite_options *o, const struct pb_spec *asked,
			struct pb_results *res, struct pb_error *err)
{
	const char *facility = asked->text;
	const struct pb_spec spec = *asked;
	uint64_t period = o->nperiods ? o->periods[0] : pb_suite_accuracy_period(&spec);
	struct pb_point_request req[NCONFIGS];
	for (unsigned c = 0; c < NCONFIGS; c++) {
		if (pb_suite_request(&req[c], &spec, NULL, period, 1,
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

	struct pb_overhead_runs *runs = calloc(NCONFIGS, sizeof *runs);
	if (!runs)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	unsigned nruns = o->runs < PB_OVERHEAD_MAX_RUNS ? o->runs : PB_OVERHEAD_MAX_RUNS;
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
			struct pb_result_point *p =
				pb_overhead_config_point(res, facility, workload, &req[c], c == 0,
							 &runs[c], &runs[0]);
			if (failed[c][0])
				pb_rset_text(&p->params, "error", failed[c]);
		}
	}
	free(runs);
	return rc;
}

const struct pb_experiment pb_experiment_overhead = {
	.name = "overhead",
	.summary = "wall time and peak RSS vs no perf, per delivery mode and thread count",
	.run = overhead_run,
	.count_runs = overhead_count_runs,
};
