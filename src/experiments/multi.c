/* Multi-event monitoring (main study, IV-F): open k = 1, 2, ... copies of the facility's event
 * together on its natural workload and measure each one's accuracy and its share of running
 * time (time_running / time_enabled): a PMU with fewer counters than events multiplexes, and
 * the samples of the time an event was descheduled are simply never taken. Events that cannot
 * be scheduled at all (a fifth debug register) are reported as such, with the kernel's error. */
#include "experiments/experiment.h"
#include "experiments/suite_defaults.h"

#include <string.h>

static unsigned max_events(const struct pb_spec *spec)
{
	return spec->facility->multi_events ? spec->facility->multi_events : 4;
}

unsigned pb_multi_scheduled(const struct pb_rlist *events)
{
	/* An event the kernel accepted may still never get on the PMU (pinned or exclusive
	 * events holding every counter): it opened but never ran, and counts as not scheduled. */
	unsigned scheduled = 0;
	for (size_t e = 0; e < pb_rlist_size(events); e++) {
		const struct pb_rset *ev = pb_rlist_set_at(events, e);
		scheduled += pb_rset_is_true(ev, "opened") && pb_rset_get_int(ev, "time_running") > 0;
	}
	return scheduled;
}

static unsigned multi_count_runs(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	return max_events(spec) * o->runs;
}

static int multi_run(const struct pb_suite_options *o, const struct pb_spec *facility,
		     struct pb_results *res, struct pb_error *err)
{
	unsigned kmax = max_events(facility);
	const struct pb_spec spec = *facility;
	uint64_t period = o->nperiods ? o->periods[0] : pb_suite_accuracy_period(&spec);
	struct pb_point_request req;
	if (pb_suite_request(&req, &spec, NULL, period, 1, o->delivery, err))
		return -1;
	req.run_with_unopened = true;
	if (pb_calibrate_request(o, &req, err))
		return -1;
	for (unsigned k = 1; k <= kmax; k++) {
		req.nevents = k;
		for (unsigned e = 1; e < k; e++)
			req.events[e] = req.events[0];
		struct pb_result_point *point = pb_measure_runs(o, "multi", &req, res, err);
		if (!point)
			return -1;
		pb_rset_int(&point->params, "events_opened_together", PB_UNIT_COUNT, k);
		/* per event: did it run, and for how much of the time */
		const struct pb_rset *first = pb_rlist_set_at(&point->runs, 0);
		unsigned scheduled = pb_multi_scheduled(pb_rset_get_list(first, "events"));
		pb_rset_int(&point->params, "events_scheduled", PB_UNIT_COUNT, scheduled);
		if (scheduled < k)
			break; /* more events cannot fit either */
	}
	return 0;
}

const struct pb_experiment pb_experiment_multi = {
	.name = "multi",
	.summary = "k events opened together: per-event accuracy and running time share",
	.run = multi_run,
	.count_runs = multi_count_runs,
};
