/* The overhead experiment's point of one configuration (the baseline or a delivery mode) from
 * its runs and the baseline's: apart from running them, so that tests can construct the runs. */
#ifndef PB_EXPERIMENTS_OVERHEAD_H
#define PB_EXPERIMENTS_OVERHEAD_H

#include "experiments/child.h"
#include "experiments/point.h"
#include "io/results.h"

#include <stdbool.h>

#define PB_OVERHEAD_MAX_RUNS 256

struct pb_overhead_runs {
	struct pb_child_point runs[PB_OVERHEAD_MAX_RUNS];
	unsigned n;
};

/* The point's rows, summaries and overheads over the baseline, rounds paired, with the rounds a
 * disturbance moved marked and left out of the time overheads. */
struct pb_result_point *pb_overhead_config_point(struct pb_results *res, const char *facility,
						 const char *workload,
						 const struct pb_point_request *req, bool baseline,
						 const struct pb_overhead_runs *c,
						 const struct pb_overhead_runs *base);

#endif
