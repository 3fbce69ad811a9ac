#include "experiments/plan.h"

#include <stdio.h>
#include <string.h>

int pb_plan_request(struct pb_point_request *req, const char *facility, const char *workload,
		    uint64_t period, unsigned threads, enum pb_delivery delivery,
		    struct pb_error *err)
{
	pb_point_request_defaults(req);
	if (pb_point_request_set(req, facility, workload, NULL, true, err))
		return -1;
	req->period = period;
	req->events[0].period = period;
	req->threads = threads;
	req->delivery = delivery;
	return 0;
}

uint64_t pb_plan_accuracy_period(const struct pb_spec *spec)
{
	if (!strcmp(spec->facility->name, "timer"))
		return 100000;
	if (spec->facility->exact)
		return 7;
	if (!strcmp(spec->facility->name, "ibs-op") || !strcmp(spec->facility->name, "ibs-fetch"))
		return 100000 & ~(uint64_t)15;
	return 100000;
}

unsigned pb_plan_interval_periods(const struct pb_spec *spec, uint64_t *round, uint64_t *prime,
				  unsigned max)
{
	static const uint64_t timer_round[] = {1000000, 100000, 50000, 20000};
	static const uint64_t timer_prime[] = {999983, 99991, 49999, 19997};
	static const uint64_t exact_round[] = {1000, 100, 10, 2};
	static const uint64_t exact_prime[] = {997, 101, 11, 3};
	static const uint64_t hw_round[] = {1000000, 100000, 10000, 1000};
	static const uint64_t hw_prime[] = {999983, 100003, 10007, 1009};
	/* IBS periods must be multiples of 16: "prime" there means an odd multiple of 16. */
	static const uint64_t ibs_round[] = {1048560 & ~15ull, 100000, 10000, 1024};
	static const uint64_t ibs_prime[] = {999984, 100016, 10000 + 16 * 7, 1040};
	const uint64_t *r = hw_round, *p = hw_prime;
	if (!strcmp(spec->facility->name, "timer"))
		r = timer_round, p = timer_prime;
	else if (spec->facility->exact)
		r = exact_round, p = exact_prime;
	else if (!strncmp(spec->facility->name, "ibs", 3))
		r = ibs_round, p = ibs_prime;
	unsigned n = max < 4 ? max : 4;
	for (unsigned i = 0; i < n; i++) {
		round[i] = r[i];
		prime[i] = p[i];
	}
	return n;
}

const char *pb_plan_spread_facility(const char *facility, char *buf, size_t len,
				    const char **why)
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, NULL)) {
		*why = "the facility spec does not parse";
		return NULL;
	}
	const char *f = spec.facility->name;
	if (!strcmp(f, "uprobe")) {
		*why = "a uprobe samples exactly the instruction it sits on: there is no spread "
		       "over instructions (and no shadow) to measure";
		return NULL;
	}
	if (!strcmp(f, "sw")) {
		*why = "software events of the kernel do not occur in the load loops";
		return NULL;
	}
	snprintf(buf, len, "%s", !strcmp(f, "bp") ? "bp:rw" : facility);
	return buf;
}
