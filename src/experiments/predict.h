/* Predicting a sampled run time from the cost of one sample (Akiyama & Hirofuchi, 4.4-4.5), and
 * planning a period for an overhead budget from the same model:
 *
 *     sampled time = baseline time + cost per sample x samples per thread
 *
 * The baseline is the run without sampling; samples per thread because threads on their own
 * CPUs pay for their samples in parallel. Real programs are run as given, in a child whose
 * events are opened before it execs (session/process.h). */
#ifndef PB_PREDICT_H
#define PB_PREDICT_H

#include "facilities/facility.h"
#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>

double pb_predict_time_ns(double baseline_ns, double ns_per_sample, double samples,
			  unsigned threads);
/* Akiyama & Hirofuchi's E: (measured - predicted) / predicted x 100. */
double pb_prediction_error_pct(double measured_ns, double predicted_ns);

/* What the planner knows about a command and a facility. */
struct pb_plan_model {
	double baseline_ns;      /* the command's run time without sampling */
	bool time_based;         /* timers: the period is ns of the command's own (sampled) time */
	double events;           /* event-based facilities: events per thread in one run */
	double ns_per_sample;    /* measured cost of one sample */
	uint64_t min_period;     /* the facility's smallest period */
	unsigned record_bytes;   /* one sample record, for ring sizing */
};

struct pb_plan_result {
	uint64_t period;
	double samples;          /* per thread, predicted */
	double predicted_ns;
	double overhead_pct;     /* predicted */
	unsigned ring_pages;     /* recommended data pages */
};

/* Samples per thread the model predicts at period. A timer counts the time spent taking its
 * own samples, so its samples satisfy n = (baseline + cost x n) / period, i.e.
 * n = baseline / (period - cost); it returns -1 when period <= cost (the run never ends). */
double pb_plan_samples(const struct pb_plan_model *m, uint64_t period);
/* The predicted overhead in percent at period (-1 as above). */
double pb_plan_overhead_pct(const struct pb_plan_model *m, uint64_t period);
/* The smallest period (>= min_period) whose predicted overhead is within budget_pct, and a
 * ring that holds 100 ms of samples at that rate (at least 8 pages, at most 4096) so a reader
 * polling every 10 ms never lets it fill. Fails (PB_EXIT_USAGE) for budget <= 0 or a model
 * without cost or baseline. */
int pb_plan_period(const struct pb_plan_model *m, double budget_pct, struct pb_plan_result *out,
		   struct pb_error *err);

/* A short cost sweep (experiments/cost.c's method, delivery none, single-threaded): the cost
 * of one sample of facility in ns, with its fit. runs per period >= 1; target_ms per run. */
struct pb_fit;
int pb_cost_measure(const char *facility, unsigned runs, uint64_t target_ms, struct pb_fit *fit,
		    struct pb_error *err);

/* One run of a real program: argv executed as given (output discarded), sampled with spec at
 * period (spec NULL: no perf at all; period 0: counting only), user and kernel level. */
struct pb_program_figures {
	uint64_t wall_ns;        /* exec to reap */
	uint64_t samples, lost, count;
	uint64_t maxrss_kib;     /* the program's peak RSS */
	int exit_code;
	bool signaled;
};
int pb_program_measure(char *const *argv, const struct pb_spec *spec, uint64_t period,
		       unsigned ring_pages, struct pb_program_figures *out, struct pb_error *err);

#endif
