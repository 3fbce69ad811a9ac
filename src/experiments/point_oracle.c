/* The declared-events oracle: how many events a workload's truth says a run makes, and what
 * that implies for samples and accuracy. */
#include "experiments/point_parts.h"

#include "analysis/stats.h"

#include <math.h>
#include <stdio.h>
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

double pb_point_accuracy(struct pb_point_figures *f, uint64_t period, unsigned threads,
			 bool run_failed)
{
	/* Nothing expected (a count of 0, a period longer than the run) is not 100 %. */
	if (run_failed || !f->opened_all || !strcmp(f->basis, "undeclared") || f->no_samples)
		return NAN;
	if (period && f->expected < PB_MIN_EXPECTED_SAMPLES) {
		f->too_few_samples = true;
		char step[48] = "";
		if (f->expected > 0)
			snprintf(step, sizeof step, ", where one sample is %.0f points", 100 / f->expected);
		snprintf(f->withheld, sizeof f->withheld,
			 "too few samples: %.1f expected, an accuracy needs %d%s; run longer or "
			 "sample more often", f->expected, PB_MIN_EXPECTED_SAMPLES, step);
		return NAN;
	}
	if (period)
		return pb_accuracy((double)f->observed, f->expected);
	/* Counting only: the count against the declaration, when there is one. */
	if (!strcmp(f->basis, "declared") && f->declared)
		return pb_accuracy((double)f->count, (double)f->declared * threads);
	return NAN;
}

double pb_point_signed_error(const struct pb_point_figures *f, uint64_t period,
			     unsigned threads)
{
	if (isnan(f->accuracy))
		return NAN;
	double want = period ? f->expected : (double)f->declared * threads;
	double got = period ? (double)f->observed : (double)f->count;
	return want > 0 ? (got - want) / want * 100 : NAN;
}

uint64_t pb_point_iterations_for_samples(const struct pb_point_request *req,
					 uint64_t iterations, unsigned min_samples)
{
	if (req->no_perf || !req->nevents || !req->events[0].period || !iterations)
		return iterations;
	struct pb_truth truth;
	if (pb_workload_truth(&req->workload, iterations, &truth, NULL))
		return iterations;
	uint64_t declared = 0;
	int label = pb_spec_sits_on_instruction(&req->events[0].spec)
			    ? pb_point_find_label(&truth, req->label, NULL) : -1;
	if (label == -2 ||
	    strcmp(pb_declared_events(&req->events[0].spec, &truth, label, iterations, &declared),
		   "declared") || !declared)
		return iterations;
	double per_run = (double)declared * req->threads / (double)req->events[0].period;
	if (per_run >= min_samples)
		return iterations;
	/* one more period's worth per thread covers the floor of the overflow count */
	double scale = (min_samples + 1) / per_run;
	return (uint64_t)ceil((double)iterations * scale);
}
