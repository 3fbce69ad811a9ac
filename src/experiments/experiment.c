#include "experiments/experiment.h"

#include "analysis/stats.h"
#include "facilities/machine.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct pb_experiment *const experiments[] = {
	&pb_experiment_accuracy, &pb_experiment_interval, &pb_experiment_bias,
	&pb_experiment_multi,    &pb_experiment_mode,     &pb_experiment_overhead,
	&pb_experiment_cost,     &pb_experiment_buffer,   &pb_experiment_shadow,
	NULL,
};

const struct pb_experiment *const *pb_experiment_list(void)
{
	return experiments;
}

const struct pb_experiment *pb_experiment_find(const char *name)
{
	for (const struct pb_experiment *const *e = experiments; *e; e++)
		if (!strcmp((*e)->name, name))
			return *e;
	return NULL;
}

const char *pb_experiment_summary(const char *name)
{
	const struct pb_experiment *e = pb_experiment_find(name);
	return e ? e->summary : NULL;
}

void pb_suite_options_defaults(struct pb_suite_options *o)
{
	memset(o, 0, sizeof *o);
	o->runs = 5;
	o->threads[o->nthreads++] = 1;
	unsigned ncpus = pb_machine_live()->ncpus;
	if (ncpus > 1)
		o->threads[o->nthreads++] = ncpus;
	o->target_ms = 60;
	o->delivery = PB_DELIVERY_NONE;
}

bool pb_suite_interrupted(const struct pb_suite_options *o, struct pb_error *err)
{
	if (o->interrupted && *o->interrupted) {
		pb_fail(err, PB_EXIT_INTERRUPTED, 0, "interrupted");
		return true;
	}
	return false;
}

void pb_suite_more_runs(const struct pb_suite_options *o, int runs)
{
	if (o && o->progress_more && runs)
		o->progress_more(o->progress_ctx, runs);
}

/* The thread's CPU time of one run of the template request (one thread, sampling as it
 * will). Not its wall time: on a busy machine a short run's thread waited for its CPU several
 * times longer than it ran (0.15 ms of CPU in 5.1 ms of wall beside make check, kind B), and
 * calibrating on that wall time made every run of the point 30 times too short for an
 * accuracy. The CPU time is what the samples and the events come from. */
static int time_once(const struct pb_point_request *template, uint64_t iterations,
		     pb_point_measure_fn measure, uint64_t *ns, struct pb_error *err)
{
	struct pb_point_request req = *template;
	req.iterations = iterations;
	req.threads = 1;
	req.attribute = false;
	struct pb_point pt;
	if (measure(&req, &pt, err))
		return -1;
	*ns = pt.cpu_ns[0];
	pb_point_free(&pt);
	return 0;
}

/* Times the template request until a run lasts at least 5 ms, then scales the iterations to
 * target_ms. The fastest of three timings counts: a cold first run or a busy neighbour only
 * ever adds time, and would shrink every run after. The growth stops only when that fastest
 * run is still long (2.5 ms): a single slow run (a vCPU the host paused, which the guest
 * counts as the thread's time) once stopped it at a few hundred iterations, where cold misses
 * and the first samples' cost made an iteration look up to 800 times dearer, and every run of
 * the point came out too short to give an accuracy. */
uint64_t pb_calibrate_with(const struct pb_point_request *template, uint64_t target_ms,
			   pb_point_measure_fn measure, struct pb_error *err)
{
	uint64_t iterations = 500, ns;
	for (;;) {
		if (time_once(template, iterations, measure, &ns, err))
			return 0;
		bool last = iterations >= (1ull << 40);
		if (ns >= 5000000 || last) {
			for (int again = 0; again < 2; again++) {
				uint64_t more;
				if (time_once(template, iterations, measure, &more, err))
					return 0;
				if (more < ns)
					ns = more;
			}
			if (ns >= 2500000 || last)
				break;
		}
		iterations *= ns < 500000 ? 8 : 2;
	}
	double per_iteration = (double)(ns ? ns : 1) / (double)iterations;
	double want = (double)target_ms * 1e6 / per_iteration;
	return want < 100 ? 100 : want > 0x1p40 ? 1ull << 40 : (uint64_t)want;
}

static uint64_t calibrate(const struct pb_point_request *template, uint64_t target_ms,
			  struct pb_error *err)
{
	return pb_calibrate_with(template, target_ms, pb_point_measure, err);
}

uint64_t pb_calibrate_iterations(const struct pb_workload_choice *w, const struct pb_spec *spec,
				 uint64_t target_ms, struct pb_error *err)
{
	struct pb_point_request req;
	pb_point_request_defaults(&req);
	req.workload = *w;
	if (spec) {
		/* counting only: traps are included, sampling costs are not */
		req.events[0].spec = *spec;
		req.nevents = 1;
		req.exclude_kernel = false;
	} else {
		req.no_perf = true;
	}
	return calibrate(&req, target_ms, err);
}

uint64_t pb_calibrate_for(const struct pb_point_request *req, uint64_t target_ms,
			  struct pb_error *err)
{
	/* Sampling as the request will, so the sampling cost is in the calibration (and
	 * facilities that can only sample, never count alone, can be calibrated at all). */
	return calibrate(req, target_ms, err);
}

int pb_calibrate_request(const struct pb_suite_options *o, struct pb_point_request *req,
			 struct pb_error *err)
{
	req->machine = o->machine;
	req->iterations = pb_calibrate_for(req, o->target_ms, err);
	if (!req->iterations)
		return -1;
	/* A run too short for an accuracy is made longer: by its declared events, or for a
	 * clock by the time the run aims for. */
	req->iterations = pb_point_iterations_for_samples(req, req->iterations,
							  PB_MIN_EXPECTED_SAMPLES);
	if (!req->no_perf && req->nevents && req->events[0].period &&
	    req->events[0].spec.facility->time_based && o->target_ms) {
		double due = (double)o->target_ms * 1e6 / (double)req->events[0].period;
		if (due < PB_MIN_EXPECTED_SAMPLES)
			req->iterations = (uint64_t)ceil((double)req->iterations *
							 (PB_MIN_EXPECTED_SAMPLES + 1) / due);
	}
	return 0;
}

void pb_not_applicable(struct pb_results *res, const char *experiment, const char *facility,
		       const char *why)
{
	struct pb_result_point *p = pb_results_point(res, experiment, facility, NULL);
	pb_rset_text(&p->params, "not_applicable", why);
}

static const struct pb_rset *event_of_run(const struct pb_result_point *point, size_t run,
					  size_t e)
{
	return pb_rlist_set_at(pb_rset_get_list(pb_rlist_set_at(&point->runs, run), "events"), e);
}

void pb_point_metrics(struct pb_result_point *point)
{
	size_t nruns = pb_rlist_size(&point->runs);
	struct pb_rset *metrics = &point->metrics;
	pb_rset_clear(metrics);
	const struct pb_rset *first = pb_rlist_set_at(&point->runs, 0);
	size_t nevents = pb_rlist_size(pb_rset_get_list(first, "events"));
	double values[256];
	for (size_t e = 0; e < nevents; e++) {
		struct pb_rset per_event = {0};
		const char *fields[] = {"accuracy", "signed_error", "observed", "expected",
					"running_ratio"};
		for (size_t f = 0; f < PB_ARRAY_SIZE(fields); f++) {
			size_t n = 0;
			enum pb_unit unit = PB_UNIT_NONE;
			for (size_t r = 0; r < nruns && n < 256; r++) {
				const struct pb_rvalue *v =
					pb_rset_get(event_of_run(point, r, e), fields[f]);
				if (pb_rvalue_is_number(v)) {
					values[n++] = pb_rvalue_number(v);
					unit = v->unit;
				}
			}
			if (n)
				pb_rset_summarize(&per_event, fields[f], unit, values, n);
		}
		uint64_t lost = 0, throttles = 0, no_samples = 0, dropped = 0, filtered = 0,
			 lowered = 0, missed = 0, silent_zero = 0, too_few = 0, wrong_level = 0;
		bool time_based = false;
		bool multiplexed = false;
		for (size_t r = 0; r < nruns; r++) {
			const struct pb_rset *ev = event_of_run(point, r, e);
			no_samples += pb_rset_is_true(ev, "no_samples");
			silent_zero += pb_rset_is_true(ev, "silent_zero");
			too_few += pb_rset_is_true(ev, "too_few_samples");
			wrong_level += (uint64_t)pb_rset_get_int(ev, "wrong_level_samples");
			lowered += pb_rset_is_true(ev, "precise_lowered");
			dropped += (uint64_t)pb_rset_get_int(ev, "dropped");
			filtered += (uint64_t)pb_rset_get_int(ev, "filtered");
			time_based |= pb_rset_get(ev, "missed_ticks") != NULL;
			missed += (uint64_t)pb_rset_get_int(ev, "missed_ticks");
			lost += (uint64_t)pb_rset_get_int(ev, "lost");
			throttles += (uint64_t)pb_rset_get_int(ev, "throttles");
			multiplexed |= pb_rset_is_true(ev, "multiplexed");
		}
		pb_rset_int(&per_event, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
		pb_rset_int(&per_event, "throttles_total", PB_UNIT_COUNT, (int64_t)throttles);
		pb_rset_bool(&per_event, "multiplexed", multiplexed);
		/* runs that expected samples and got none carry no accuracy: counted, never 0 % */
		pb_rset_int(&per_event, "no_samples_runs", PB_UNIT_RUNS, (int64_t)no_samples);
		/* runs whose counter read 0 for its whole running time: a loss nobody reported */
		pb_rset_int(&per_event, "silent_zero_runs", PB_UNIT_RUNS, (int64_t)silent_zero);
		/* runs that expected too few samples for an accuracy: left out of it, counted */
		pb_rset_int(&per_event, "too_few_samples_runs", PB_UNIT_RUNS, (int64_t)too_few);
		pb_rset_int(&per_event, "wrong_level_samples_total", PB_UNIT_SAMPLES,
			    (int64_t)wrong_level);
		pb_rset_int(&per_event, "dropped_total", PB_UNIT_RECORDS, (int64_t)dropped);
		pb_rset_int(&per_event, "precise_lowered_runs", PB_UNIT_RUNS, (int64_t)lowered);
		pb_rset_int(&per_event, "filtered_total", PB_UNIT_SAMPLES, (int64_t)filtered);
		if (time_based)
			pb_rset_int(&per_event, "missed_ticks_total", PB_UNIT_TICKS, (int64_t)missed);
		const struct pb_rvalue *facility =
			pb_rset_get(pb_rlist_set_at(pb_rset_get_list(first, "events"), e), "facility");
		if (facility)
			pb_rset_put(&per_event, "facility", facility);
		else
			pb_rset_null(&per_event, "facility", PB_UNIT_NONE);
		if (e == 0)
			pb_rset_update(metrics, &per_event);
		char key[32];
		snprintf(key, sizeof key, "event%zu", e);
		pb_rset_update(pb_rset_set(metrics, key), &per_event);
		pb_rset_clear(&per_event);
	}
}

/* The run's event-0 figures, copied up so a CSV row holds them. */
static void flatten_event0(struct pb_rset *run)
{
	const struct pb_rset *ev = pb_rlist_set_at(pb_rset_get_list(run, "events"), 0);
	const char *keys[] = {"expected", "observed", "count", "accuracy", "lost", "lost_format",
			      "lost_records", "throttles", "time_enabled", "time_running",
			      "multiplexed", "signals", "user_samples", "kernel_samples",
			      "signed_error", "wrong_level_samples", "too_few_samples"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(keys); i++) {
		const struct pb_rvalue *v = pb_rset_get(ev, keys[i]);
		if (v)
			pb_rset_put(run, keys[i], v);
	}
}

struct pb_result_point *pb_measure_runs(const struct pb_suite_options *o, const char *experiment,
					const struct pb_point_request *req,
					struct pb_results *res, struct pb_error *err)
{
	return pb_measure_runs_with(o, experiment, req, res, NULL, NULL, err);
}

struct pb_result_point *pb_measure_runs_with(const struct pb_suite_options *o,
					     const char *experiment,
					     const struct pb_point_request *req,
					     struct pb_results *res, pb_run_hook hook, void *ctx,
					     struct pb_error *err)
{
	const char *facility = req->no_perf ? "none" : req->events[0].spec.text;
	char params[256], workload[320];
	pb_workload_params_text(&req->workload, params, sizeof params);
	bool has_params = params[0] && strcmp(params, "-");
	pb_format(workload, sizeof workload, "%s%s%s", req->workload.workload->name,
		  has_params ? ":" : "", has_params ? params : "");
	struct pb_result_point *point = NULL;
	for (unsigned r = 0; r < o->runs; r++) {
		if (pb_suite_interrupted(o, err))
			return NULL;
		if (o->progress) {
			char what[512];
			pb_format(what, sizeof what, "%s %s %s period %llu, %u thread(s), run %u/%u",
				 experiment, facility, workload,
				 (unsigned long long)req->events[0].period, req->threads, r + 1,
				 o->runs);
			o->progress(o->progress_ctx, what);
		}
		struct pb_point pt;
		struct pb_error run_err = {0};
		int rc = pb_point_measure(req, &pt, &run_err);
		/* A failed session still says which events opened; a failure before any session
		 * (bad workload, no memory) leaves nothing to record. */
		bool measured = req->no_perf ? rc == 0 : pt.ev[0].basis != NULL;
		if (!measured) {
			if (err)
				*err = run_err;
			return NULL;
		}
		if (!point) {
			point = pb_results_point(res, experiment, facility, workload);
			struct pb_rset *par = &point->params;
			pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)req->events[0].period);
			pb_rset_int(par, "threads", PB_UNIT_THREADS, req->threads);
			pb_rset_int(par, "iterations", PB_UNIT_ITERATIONS, (int64_t)req->iterations);
			pb_rset_text(par, "delivery", pb_delivery_name(req->delivery));
			pb_rset_bool(par, "exclude_kernel", req->exclude_kernel);
			pb_rset_bool(par, "exclude_user", req->exclude_user);
			pb_point_traits(req, point);  /* x22traits: the facility's traits */
		}
		struct pb_rset *run = pb_rlist_set(&point->runs);
		pb_point_record(req, &pt, run);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
		if (rc)
			pb_rset_text(run, "error", run_err.msg);
		flatten_event0(run);
		if (hook && !rc)
			hook(ctx, &pt, run);
		pb_point_free(&pt);
	}
	if (point)
		pb_point_metrics(point);
	return point;
}
