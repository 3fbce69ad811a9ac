/* The suite: chosen experiments on chosen facilities, every point into one results document.
 * What `pesbench run` calls; the command keeps only its options, the terminal (progress bar,
 * Ctrl-C) and the printing. */
#ifndef PB_SUITE_H
#define PB_SUITE_H

#include "experiments/experiment.h"

#define PB_SUITE_MAX_EXPERIMENTS 16

struct pb_suite_skip {
	const char *facility;
	char reason[256];
};

struct pb_suite {
	const struct pb_experiment *experiments[PB_SUITE_MAX_EXPERIMENTS];
	unsigned nexperiments;               /* 0 before pb_suite_choose: every experiment */
	struct pb_spec runnable[PB_MAX_LIST];   /* the facility specs that run, in order */
	unsigned nrunnable;
	struct pb_suite_skip skipped[PB_MAX_LIST]; /* the others, with the reason */
	struct pb_spec skipped_specs[PB_MAX_LIST]; /* what skipped[].facility points into */
	unsigned nskipped;
	unsigned total_runs;                 /* for a progress bar: sum of the experiments' count_runs */
};

/* Picks the facilities: the asked specs, parsed by the caller (nasked > 0) or, by default,
 * each facility's suite spec; keeps those available on m and records the others in res as
 * skipped, with the reason. The experiments default to all. Fills total_runs for o. */
void pb_suite_choose(struct pb_suite *s, const struct pb_machine *m, const struct pb_spec *asked,
		     unsigned nasked, const struct pb_suite_options *o, struct pb_results *res);

/* Every period of o against each of the n specs (pb_spec_check_period): a period a chosen
 * facility refuses is a usage error before anything runs, not a failed point per experiment. */
int pb_suite_check_periods(const struct pb_spec *specs, unsigned n,
			   const struct pb_suite_options *o, struct pb_error *err);

/* Called when one experiment fails on one facility: a result (recorded in res as the point's
 * error), not the end of the suite. */
typedef void (*pb_suite_failure_fn)(void *ctx, const char *experiment, const char *facility,
				    const char *message);

/* Runs every chosen experiment on every runnable facility, facility by facility; records the
 * wall time as suite_seconds in res (and in *seconds), and what else the machine did meanwhile
 * (machine/load.h: other_load_cpus, steal_pct, their half-widths and load_cpus). Returns
 * PB_EXIT_OK, or PB_EXIT_INTERRUPTED when o->interrupted stopped it (the points measured so far
 * are in res). Nothing is written to disk here. */
int pb_suite_run(const struct pb_suite *s, const struct pb_suite_options *o,
		 struct pb_results *res, pb_suite_failure_fn on_failure, void *ctx,
		 double *seconds);

#endif
