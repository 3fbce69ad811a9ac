/* What `pesbench plan` asks of the cost experiment: a short sweep on the spot. */
#include "experiments/cost_parts.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_cost_measure(const char *facility, unsigned runs, uint64_t target_ms,
		    uint64_t budget_ms, struct pb_cost *cost, struct pb_error *err)
{
	memset(cost, 0, sizeof *cost);
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	struct pb_suite_options o;
	memset(&o, 0, sizeof o);
	o.runs = runs ? runs : 1;
	struct sweep_setup su;
	if (pb_cost_setup_sweep(&su, facility, &spec, NULL, target_ms, err))
		return -1;
	su.np = pb_cost_periods(&o, &spec, su.periods);
	su.min_rounds = o.runs;
	su.budget_ns = budget_ms * 1000000ull;
	struct cost_fit cf;
	if (pb_cost_sweep_mode(&su, PB_DELIVERY_NONE, NULL, &cf, err))
		return -1;
	if (!cf.fitted)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the cost sweep of %s gave no fit: %s",
			       facility, cf.why);
	cost->fit = cf.cpu;
	cost->resolved = cf.resolved;
	cost->ns_per_event = cf.per_event ? cf.event_ns : 0;
	cost->theil_sen = cf.ts_slope;
	pb_format(cost->why, sizeof cost->why, "%s", cf.why);
	return 0;
}
