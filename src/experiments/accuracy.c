/* Accuracy (main study, IV-A): each facility samples the workload whose truth declares the
 * events it counts — the pointer chase at load:instruction ratios 1/20 ... 1/100 where the
 * facility is not tied to another — on 1 and N threads; every point is run --runs times.
 * Observed samples are compared with the samples the declaration implies (events / period),
 * accuracy = 100 - |observed - expected| / expected x 100, per thread and in total. */
#include "experiments/experiment.h"
#include "experiments/plan.h"

#include <stdio.h>
#include <string.h>

static const unsigned ratios[] = {20, 40, 60, 80, 100};
#define NRATIOS (sizeof ratios / sizeof ratios[0])

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
		for (unsigned t = 0; t < o->nthreads; t++) {
			for (unsigned p = 0; p < nperiods; p++) {
				req.threads = o->threads[t];
				req.period = req.events[0].period = periods[p];
				if (!pb_measure_runs(o, "accuracy", &req, res, err))
					return -1;
			}
		}
	}
	return 0;
}

const struct pb_experiment pb_experiment_accuracy = {
	.name = "accuracy",
	.summary = "observed vs expected samples on workloads of declared truth, 1..N threads",
	.run = accuracy_run,
	.plan = accuracy_plan,
};
