/* Experiments: each module reads like the methodology paragraph of a paper — what it runs,
 * what it varies, what it compares with — and appends result points; none prints or plots. */
#ifndef PB_EXPERIMENT_H
#define PB_EXPERIMENT_H

#include "experiments/point.h"
#include "io/result_model.h"

#include <signal.h>

#define PB_MAX_LIST 16

/* The time a suite's cost fits so far left of their budgets, and whether a fit has drawn on
 * it: one fit a suite may (cost_sweep.c). */
struct pb_cost_spare {
	uint64_t ns;
	bool drawn;
};

struct pb_suite_options {
	uint64_t periods[PB_MAX_LIST];      /* --period: overrides each experiment's periods */
	unsigned nperiods;
	unsigned runs;                      /* --runs, >= 1 (default 5) */
	unsigned threads[PB_MAX_LIST];      /* --threads: thread counts (default 1 and ncpus) */
	unsigned nthreads;
	uint64_t target_ms;                 /* wall time one run aims for (default 60) */
	enum pb_delivery delivery;
	const struct pb_machine *machine;   /* NULL: this machine */
	/* Progress: called before each run with a short description. */
	void (*progress)(void *ctx, const char *what);
	/* The runs an experiment now knows it will make beyond its count_runs (a design sized
	 * from what it measured, rounds added until a figure is precise), or short of it when
	 * negative: the progress bar's total follows, so that its estimate of the time left
	 * does not stop at 0:00 with runs still to come. NULL: nobody counts. */
	void (*progress_more)(void *ctx, int runs);
	void *progress_ctx;
	volatile sig_atomic_t *interrupted; /* set by SIGINT/SIGTERM: stop after the current run */
	/* The time the suite's cost fits so far left of their budgets (NULL: none kept; the
	 * suite keeps one): a fit of mode none draws on it when that turns a design too small to
	 * resolve its cost into one sized to, and gives back what it did not use (cost_sweep.c). */
	struct pb_cost_spare *cost_spare;
};

struct pb_experiment {
	const char *name;
	const char *summary;
	/* Runs the experiment for one facility spec, parsed by the caller; appends points to res
	 * (named by spec->text). Returns 0, or -1 with err for a failure that ends the suite
	 * (interruption, output). A facility the experiment cannot use is recorded as a point
	 * with "not_applicable" and a reason, not an error. */
	int (*run)(const struct pb_suite_options *o, const struct pb_spec *spec,
		   struct pb_results *res, struct pb_error *err);
	/* Number of runs it will make for this spec (for the progress bar). */
	unsigned (*count_runs)(const struct pb_suite_options *o, const struct pb_spec *spec);
};

/* NULL-terminated, in suite order. */
const struct pb_experiment *const *pb_experiment_list(void);
const struct pb_experiment *pb_experiment_find(const char *name);
/* An experiment's summary by name, NULL when unknown: what plots and the report print. */
const char *pb_experiment_summary(const char *name);
void pb_suite_options_defaults(struct pb_suite_options *o);

extern const struct pb_experiment pb_experiment_accuracy, pb_experiment_interval,
	pb_experiment_bias, pb_experiment_multi, pb_experiment_mode;
extern const struct pb_experiment pb_experiment_overhead, pb_experiment_cost, pb_experiment_buffer;
extern const struct pb_experiment pb_experiment_shadow;

/* ---- shared by experiment modules (experiment.c) ---- */

/* Iterations of a workload that take about target_ms per thread here, measured by a short
 * run without perf; the facility's per-event cost is added for exact facilities that trap
 * on every event (breakpoints, uprobes). */
uint64_t pb_calibrate_iterations(const struct pb_workload_choice *w, const struct pb_spec *spec,
				 uint64_t target_ms, struct pb_error *err);
/* The same for a request: its workload, first event and machine (fixtures, fake kernel). */
uint64_t pb_calibrate_for(const struct pb_point_request *req, uint64_t target_ms,
			  struct pb_error *err);
/* What pb_calibrate_with times runs with: pb_point_measure, or a test's stand-in. */
typedef int (*pb_point_measure_fn)(const struct pb_point_request *req, struct pb_point *pt,
				   struct pb_error *err);
/* pb_calibrate_for's search, each run timed by measure: the iterations whose thread takes
 * about target_ms of CPU time (the wall time on a quiet machine). 0 with err on failure. */
uint64_t pb_calibrate_with(const struct pb_point_request *req, uint64_t target_ms,
			   pb_point_measure_fn measure, struct pb_error *err);
/* The step every experiment's request takes before it is measured: req runs on the suite's
 * machine, for the iterations pb_calibrate_for finds for o->target_ms (so the flags that change
 * sampling must be set first). -1 with err when calibration failed. */
int pb_calibrate_request(const struct pb_suite_options *o, struct pb_point_request *req,
			 struct pb_error *err);

/* Measures req o->runs times and appends one point holding every run's figures and the
 * summaries of accuracy (and of running ratio, losses). Returns the point (borrowed) or NULL
 * with err when even the first run failed to open; a partial failure is recorded in the
 * point. */
struct pb_result_point *pb_measure_runs(const struct pb_suite_options *o, const char *experiment,
					const struct pb_point_request *req,
					struct pb_results *res, struct pb_error *err);
/* The same, calling hook after each run with the measured point and its run record, so an
 * experiment can add what only it computes (attribution shares, ...). */
typedef void (*pb_run_hook)(void *ctx, const struct pb_point *pt, struct pb_rset *run);
struct pb_result_point *pb_measure_runs_with(const struct pb_suite_options *o,
					     const char *experiment,
					     const struct pb_point_request *req,
					     struct pb_results *res, pb_run_hook hook, void *ctx,
					     struct pb_error *err);
/* The point's per-run accuracy summary into its metrics (also used by tests). */
void pb_point_metrics(struct pb_result_point *point);

/* multi: events of one run's "events" list that opened and ran (time_running > 0). */
unsigned pb_multi_scheduled(const struct pb_rlist *events);
/* bias: the mean share per load and mean largest deviation into the point's metrics, over the
 * runs whose attribution has samples (runs_with_shares / runs_without_shares say how many);
 * when none has, a note and no shares. kind picks the facility's own attribution. */
void pb_bias_metrics(struct pb_result_point *point, enum pb_ip_kind kind);

/* Records that an experiment does not apply to a facility, and why. */
void pb_not_applicable(struct pb_results *res, const char *experiment, const char *facility,
		       const char *why);
bool pb_suite_interrupted(const struct pb_suite_options *o, struct pb_error *err);
/* Tells o's progress_more, if any, of runs beyond (or short of) the experiment's count_runs. */
void pb_suite_more_runs(const struct pb_suite_options *o, int runs);

#endif
