#include "experiments/suite_defaults.h"

int pb_suite_request(struct pb_point_request *req, const struct pb_spec *spec,
		     const char *workload, uint64_t period, unsigned threads,
		     enum pb_delivery delivery, struct pb_error *err)
{
	pb_point_request_defaults(req);
	/* first: the request's facility is judged with the delivery it will be measured with */
	req->delivery = delivery;
	/* the period goes through the request's check, as measure's --period does */
	if (pb_point_request_set(req, spec, workload, NULL, &period, err))
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
