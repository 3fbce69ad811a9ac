/* Accuracy (main study, IV-A): each facility samples the workload whose truth declares the
 * events it counts — the pointer chase at load:instruction ratios 1/20 ... 1/100 where the
 * facility is not tied to another — on 1 and N threads; every point is run --runs times.
 * Observed samples are compared with the samples the declaration implies (events / period),
 * accuracy = 100 - |observed - expected| / expected x 100, per thread and in total. */
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "facilities/machine.h"
#include "util/kit.h"

#include <stdio.h>
#include <string.h>

static const unsigned ratios[] = {20, 40, 60, 80, 100};

/* The chase's loads miss L1 by construction — an assumption no VM can check. Where the
 * machine has a core PMU, a counting L1D read-miss event rides along and the point records
 * declared vs counted misses. */
#define L1_MISS_CHECK "hw:perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS"

static void add_l1_check(const struct pb_suite_options *o, struct pb_point_request *req,
			 json_t **why)
{
	struct pb_spec spec;
	struct pb_availability av;
	const struct pb_machine *m = o->machine ? o->machine : pb_machine_live();
	*why = NULL;
	if (strcmp(req->workload.workload->name, "accuracy"))
		return;
	if (pb_spec_parse(L1_MISS_CHECK, &spec, NULL)) {
		*why = json_string("the L1D miss event does not encode here");
		return;
	}
	spec.facility->availability(m, &spec, &av);
	if (!av.available) {
		*why = json_string(av.reason);
		return;
	}
	/* an event the PMU cannot encode must not take the accuracy point down with it */
	struct perf_event_attr attr = {0};
	struct pb_error err = {0};
	if (spec.facility->attr(m, &spec, NULL, 0, &attr, &err)) {
		*why = json_string(err.msg);
		return;
	}
	req->events[req->nevents].spec = spec;
	req->events[req->nevents].period = 0;
	req->events[req->nevents].optional = true;
	req->nevents++;
}

static void record_l1_check(json_t *point, json_t *why)
{
	json_t *check = json_object();
	if (why) {
		json_object_set_new(check, "checked", json_false());
		json_object_set_new(check, "why_not", why);
	} else {
		json_t *run = json_array_get(json_object_get(point, "runs"), 0);
		json_t *ev = json_array_get(json_object_get(run, "events"), 1);
		if (!json_is_true(json_object_get(ev, "opened")) || json_object_get(run, "error")) {
			json_t *e = json_object_get(run, "error");
			json_object_set_new(check, "checked", json_false());
			json_object_set_new(check, "why_not",
					    e ? json_copy(e) : json_string("the counting event did not open"));
			json_object_set_new(point, "l1_miss_assumption", check);
			return;
		}
		json_object_set_new(check, "checked", json_true());
		json_object_set(check, "declared_per_thread", json_object_get(ev, "declared_events"));
		json_object_set(check, "counted", json_object_get(ev, "count"));
		json_object_set(check, "accuracy", json_object_get(ev, "accuracy"));
	}
	json_object_set_new(point, "l1_miss_assumption", check);
}
#define NRATIOS (PB_ARRAY_SIZE(ratios))

static unsigned workloads_for(const char *facility, char names[][48])
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, NULL))
		return 0;
	const char *natural = pb_natural_workload(&spec);
	if (strcmp(natural, "accuracy")) {
		snprintf(names[0], 48, "%s", natural);
		return 1;
	}
	for (unsigned i = 0; i < NRATIOS; i++)
		snprintf(names[i], 48, "accuracy:ratio=%u", ratios[i]);
	return NRATIOS;
}

static unsigned accuracy_plan(const struct pb_suite_options *o, const char *facility)
{
	char names[NRATIOS][48];
	unsigned periods = o->nperiods ? o->nperiods : 1;
	return workloads_for(facility, names) * o->nthreads * periods * o->runs;
}

static int accuracy_run(const struct pb_suite_options *o, const char *facility,
			struct pb_results *res, struct pb_error *err)
{
	char names[NRATIOS][48];
	unsigned nworkloads = workloads_for(facility, names);
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	uint64_t default_period = pb_plan_accuracy_period(&spec);
	const uint64_t *periods = o->nperiods ? o->periods : &default_period;
	unsigned nperiods = o->nperiods ? o->nperiods : 1;

	for (unsigned w = 0; w < nworkloads; w++) {
		struct pb_point_request req;
		if (pb_plan_request(&req, facility, names[w], periods[0], 1, o->delivery, err))
			return -1;
		req.machine = o->machine;
		req.iterations = pb_calibrate_for(&req, o->target_ms, err);
		if (!req.iterations)
			return -1;
		json_t *l1_why;
		add_l1_check(o, &req, &l1_why);
		for (unsigned t = 0; t < o->nthreads; t++) {
			for (unsigned p = 0; p < nperiods; p++) {
				req.threads = o->threads[t];
				req.period = req.events[0].period = periods[p];
				json_t *point = pb_measure_runs(o, "accuracy", &req, res, err);
				if (!point) {
					json_decref(l1_why);
					return -1;
				}
				record_l1_check(point, l1_why ? json_incref(l1_why) : NULL);
			}
		}
		json_decref(l1_why);
	}
	return 0;
}

const struct pb_experiment pb_experiment_accuracy = {
	.name = "accuracy",
	.summary = "observed vs expected samples on workloads of declared truth, 1..N threads",
	.run = accuracy_run,
	.plan = accuracy_plan,
};
