/* How the suite points a facility at a workload: which workload declares the events it
 * counts, which privilege levels it samples, and its default period per experiment. */
#ifndef PB_SUITE_DEFAULTS_H
#define PB_SUITE_DEFAULTS_H

#include "experiments/point.h"

/* Fills req for spec on its natural workload (or `workload` if non-NULL) with period, checked
 * against the facility. */
int pb_suite_request(struct pb_point_request *req, const struct pb_spec *spec,
		     const char *workload, uint64_t period, unsigned threads,
		     enum pb_delivery delivery, struct pb_error *err);
/* The period the accuracy experiment uses when the user gives none: the main study's 100000
 * for hardware events, a prime small enough for exact facilities to give thousands of samples
 * in a short run, and 100 us for timers. */
uint64_t pb_suite_accuracy_period(const struct pb_spec *spec);
/* Round and prime periods for the interval sweep, largest first; returns how many. */
unsigned pb_suite_interval_periods(const struct pb_spec *spec, uint64_t *round, uint64_t *prime,
				  unsigned max);

#endif
