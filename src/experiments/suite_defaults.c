#include "experiments/suite_defaults.h"

#include <stdio.h>
#include <string.h>

int pb_suite_request(struct pb_point_request *req, const char *facility, const char *workload,
		    uint64_t period, unsigned threads, enum pb_delivery delivery,
		    struct pb_error *err)
{
	pb_point_request_defaults(req);
	/* first: the request's facility is judged with the delivery it will be measured with */
	req->delivery = delivery;
	/* before the request is set, which checks the period it is given against the facility */
	req->period = period;
	if (pb_point_request_set(req, facility, workload, NULL, true, err))
		return -1;
	req->threads = threads;
	return 0;
}

uint64_t pb_suite_accuracy_period(const struct pb_spec *spec)
{
	return spec->facility->periods->accuracy;
}

unsigned pb_suite_interval_periods(const struct pb_spec *spec, uint64_t *round, uint64_t *prime,
				  unsigned max)
{
	const struct pb_period_sets *sets = spec->facility->periods;
	unsigned n = max < 4 ? max : 4;
	for (unsigned i = 0; i < n; i++) {
		round[i] = sets->round[i];
		prime[i] = sets->prime[i];
	}
	return n;
}

const char *pb_suite_spread_facility(const char *facility, char *buf, size_t len,
				    const char **why)
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, NULL)) {
		*why = "the facility spec does not parse";
		return NULL;
	}
	return pb_spec_spread(&spec, buf, len, why);
}
