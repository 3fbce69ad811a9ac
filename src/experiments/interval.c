/* Interval sensitivity (main study, IV-B; Nowak et al.'s prime periods): one facility on its
 * natural workload, swept over periods from sparse to dense, each round period next to a prime
 * one of the same size, single-threaded. A period that divides the loop's structure can lock
 * the samples onto a few instructions; a prime one cannot. Accuracy per period, over runs. */
#include "experiments/experiment.h"
#include "experiments/suite_defaults.h"

static unsigned interval_count_runs(const struct pb_suite_options *o,
				    const struct pb_spec *spec)
{
	(void)spec;
	return (o->nperiods ? o->nperiods : 8) * o->runs;
}

static int interval_run(const struct pb_suite_options *o, const struct pb_spec *spec,
			struct pb_results *res, struct pb_error *err)
{
	uint64_t round[4], prime[4], periods[PB_MAX_LIST];
	const char *kinds[PB_MAX_LIST];
	unsigned n = 0;
	if (o->nperiods) {
		for (unsigned i = 0; i < o->nperiods; i++) {
			periods[n] = o->periods[i];
			kinds[n++] = "given";
		}
	} else {
		unsigned m = pb_suite_interval_periods(spec, round, prime, 4);
		for (unsigned i = 0; i < m; i++) {
			periods[n] = round[i];
			kinds[n++] = "round";
			periods[n] = prime[i];
			kinds[n++] = "prime";
		}
	}
	/* sized for the longest period, so every period's runs expect enough samples */
	uint64_t longest = 0;
	for (unsigned i = 0; i < n; i++)
		longest = periods[i] > longest ? periods[i] : longest;
	struct pb_point_request req;
	if (pb_suite_request(&req, spec, NULL, longest, 1, o->delivery, err))
		return -1;
	req.measure_skid = true;
	if (pb_calibrate_request(o, &req, err))
		return -1;
	for (unsigned i = 0; i < n; i++) {
		if (pb_point_request_set_period(&req, periods[i], err))
			return -1;
		struct pb_result_point *point = pb_measure_runs(o, "interval", &req, res, err);
		if (!point)
			return -1;
		pb_rset_text(&point->params, "period_kind", kinds[i]);
	}
	return 0;
}

const struct pb_experiment pb_experiment_interval = {
	.name = "interval",
	.summary = "accuracy per sampling period, round vs prime periods",
	.run = interval_run,
	.count_runs = interval_count_runs,
};
