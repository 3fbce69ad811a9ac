/* Accuracy (main study, IV-A): each facility samples the workload whose truth declares the
 * events it counts — the pointer chase at load:instruction ratios 1/20 ... 1/100 where the
 * facility is not tied to another — on 1 and N threads; every point is run --runs times.
 * Observed samples are compared with the samples the declaration implies (events / period),
 * accuracy = 100 - |observed - expected| / expected x 100, per thread and in total. */
#include "experiments/experiment.h"
#include "util/text.h"
#include "experiments/suite_defaults.h"
#include "facilities/machine.h"
#include "util/kit.h"

#include <stdio.h>
#include <string.h>

static const unsigned ratios[] = {20, 40, 60, 80, 100};

/* The chase's loads miss L1 by construction — an assumption no VM can check. Where the
 * machine has a core PMU, a counting L1D read-miss event (pb_l1_miss_counter) rides along and
 * the point records declared vs counted misses. */

static void add_l1_check(const struct pb_suite_options *o, struct pb_point_request *req,
			 char *why, size_t why_len)
{
	struct pb_spec spec;
	const struct pb_machine *m = o->machine ? o->machine : pb_machine_live();
	why[0] = 0;
	if (strcmp(req->workload.workload->name, "accuracy"))
		return;
	const char *counter = pb_l1_miss_counter();
	if (!counter) {
		pb_format(why, why_len, "no facility counts L1 data-cache misses");
		return;
	}
	if (pb_spec_counting_here(m, counter, &spec, why, why_len))
		return;
	req->events[req->nevents].spec = spec;
	req->events[req->nevents].period = 0;
	req->events[req->nevents].optional = true;
	req->nevents++;
}

static void record_l1_check(struct pb_result_point *point, const char *why)
{
	struct pb_rset *check = pb_rset_set(&point->params, "l1_miss_assumption");
	if (why[0]) {
		pb_rset_bool(check, "checked", false);
		pb_rset_text(check, "why_not", why);
		return;
	}
	const struct pb_rset *run = pb_rlist_set_at(&point->runs, 0);
	const struct pb_rset *ev = pb_rlist_set_at(pb_rset_get_list(run, "events"), 1);
	const struct pb_rvalue *error = pb_rset_get(run, "error");
	if (!pb_rset_is_true(ev, "opened") || error) {
		pb_rset_bool(check, "checked", false);
		if (error)
			pb_rset_put(check, "why_not", error);
		else
			pb_rset_text(check, "why_not", "the counting event did not open");
		return;
	}
	pb_rset_bool(check, "checked", true);
	const char *copied[][2] = {{"declared_per_thread", "declared_events"},
				   {"counted", "count"},
				   {"accuracy", "accuracy"}};
	for (size_t i = 0; i < PB_ARRAY_SIZE(copied); i++) {
		const struct pb_rvalue *v = pb_rset_get(ev, copied[i][1]);
		if (v)
			pb_rset_put(check, copied[i][0], v);
	}
}

#define NRATIOS (PB_ARRAY_SIZE(ratios))

static unsigned workloads_for(const struct pb_spec *spec, char names[][48])
{
	const char *natural = pb_natural_workload(spec);
	if (strcmp(natural, "accuracy")) {
		snprintf(names[0], 48, "%s", natural);
		return 1;
	}
	for (unsigned i = 0; i < NRATIOS; i++)
		snprintf(names[i], 48, "accuracy:ratio=%u", ratios[i]);
	return NRATIOS;
}

static unsigned accuracy_count_runs(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	char names[NRATIOS][48];
	unsigned periods = o->nperiods ? o->nperiods : 1;
	return workloads_for(spec, names) * o->nthreads * periods * o->runs;
}

static int accuracy_run(const struct pb_suite_options *o, const struct pb_spec *spec,
			struct pb_results *res, struct pb_error *err)
{
	char names[NRATIOS][48];
	unsigned nworkloads = workloads_for(spec, names);
	uint64_t default_period = pb_suite_accuracy_period(spec);
	const uint64_t *periods = o->nperiods ? o->periods : &default_period;
	unsigned nperiods = o->nperiods ? o->nperiods : 1;

	for (unsigned w = 0; w < nworkloads; w++) {
		struct pb_point_request req;
		if (pb_suite_request(&req, spec, names[w], periods[0], 1, o->delivery, err))
			return -1;
		req.measure_skid = true;
		if (pb_calibrate_request(o, &req, err))
			return -1;
		char l1_why[256];
		add_l1_check(o, &req, l1_why, sizeof l1_why);
		for (unsigned t = 0; t < o->nthreads; t++) {
			for (unsigned p = 0; p < nperiods; p++) {
				req.threads = o->threads[t];
				if (pb_point_request_set_period(&req, periods[p], err))
					return -1;
				struct pb_result_point *point =
					pb_measure_runs(o, "accuracy", &req, res, err);
				if (!point)
					return -1;
				record_l1_check(point, l1_why);
			}
		}
	}
	return 0;
}

const struct pb_experiment pb_experiment_accuracy = {
	.name = "accuracy",
	.summary = "observed vs expected samples on workloads of declared truth, 1..N threads",
	.run = accuracy_run,
	.count_runs = accuracy_count_runs,
};
