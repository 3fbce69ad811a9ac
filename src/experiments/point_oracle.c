/* The declared-events oracle: how many events a workload's truth says a run makes, and what
 * that implies for samples and accuracy. */
#include "experiments/point_parts.h"

#include "analysis/stats.h"

#include <math.h>
#include <string.h>

const char *pb_declared_events(const struct pb_spec *spec, const struct pb_truth *truth,
			       int label, uint64_t iterations, uint64_t *events)
{
	return pb_spec_declare(spec, truth, label, iterations, events);
}

double pb_point_expected_samples(const char *basis, bool subset, bool ticks_from_enable,
				 uint64_t declared, uint64_t count, uint64_t period)
{
	/* A counter that overflows every period events takes floor(N / period) samples of N
	 * events, exact facility or not; so does a clock whose ticks sit on a grid from enable
	 * (the facility says so). A clock not aligned to its start is not floored; nor is a
	 * subset's share of the samples of every op (a mean, not a count). */
	if (!period)
		return 0;
	if (!strcmp(basis, "declared") && subset)
		return (double)declared / (double)period;
	if (!strcmp(basis, "declared"))
		return (double)(declared / period);
	if (!strcmp(basis, "count") || (!strcmp(basis, "time") && ticks_from_enable))
		return (double)(count / period);
	return (double)count / (double)period;
}

double pb_point_accuracy(const struct pb_point_figures *f, uint64_t period, unsigned threads,
			 bool run_failed)
{
	/* Nothing expected (a count of 0, a period longer than the run) is not 100 %. */
	if (run_failed || !f->opened_all || !strcmp(f->basis, "undeclared") || f->no_samples ||
	    (period && f->expected <= 0))
		return NAN;
	if (period)
		return pb_accuracy((double)f->observed, f->expected);
	/* Counting only: the count against the declaration, when there is one. */
	if (!strcmp(f->basis, "declared"))
		return pb_accuracy((double)f->count, (double)f->declared * threads);
	return NAN;
}
