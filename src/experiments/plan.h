/* `pesbench plan` below the CLI: the command measured alone and counted, the cost of one sample
 * (a results document's, or a sweep on the spot), the period the model (predict.h) gives for
 * the budget, and the check run that sets the prediction against a measurement. The CLI parses
 * and prints; the figures come from here. */
#ifndef PB_PLAN_H
#define PB_PLAN_H

#include "experiments/predict.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The facilities a plan can take, from the registry: those that sample a whole program (not
 * one address inside it), as "name, name, ...". */
void pb_plan_facilities(char *out, size_t len);

/* What the plan is for. */
struct pb_plan_request {
	char *const *argv;           /* the command */
	const char *facility;        /* the spec as given */
	const struct pb_spec *spec;  /* ... parsed */
	unsigned runs;               /* runs per measurement, the median taken */
};

/* Whether the facility can plan at all (one that needs an address cannot; one not available
 * here cannot), then the command alone and, for an event-based facility, its event count:
 * model's baseline (CPU time), events and the facility's traits; base has the medians of the
 * runs alone. The cost of a sample is still to come (model->ns_per_sample). */
int pb_plan_measure(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		    struct pb_program_figures *base, struct pb_error *err);

/* The cost of one sample from a results.json of `pesbench run cost`. */
int pb_plan_cost_from_file(const char *path, const char *facility, double *cost,
			   struct pb_error *err);
/* The cost of one sample from a sweep on the spot of at most `seconds`, designed to resolve
 * within them; a cost that does not resolve fails with its interval and the time a sweep
 * that resolves it would need. */
/* The refusal of a cost that did not resolve: its estimate, the reason, and what would resolve
 * it (a longer sweep, or, when its interval is narrow but its estimators disagree, nothing a
 * longer sweep could do). Returns -1 with err. */
int pb_plan_cost_refused(const struct pb_cost *c, const char *facility, struct pb_error *err);
int pb_plan_cost_now(const struct pb_spec *spec, const char *facility, uint64_t seconds,
		     double *cost, struct pb_error *err);

/* A plan: the model of the command and facility, and the period it gives for the budget. */
struct pb_plan {
	struct pb_slowdown_model model;     /* as planned (pb_plan_check moves its baseline) */
	struct pb_program_figures base;     /* the command alone: medians */
	const char *cost_source;            /* where ns_per_sample came from */
	double budget_pct;
	struct pb_budget_period period;
	unsigned ring_pages;                /* the ring asked for, or the recommended one */
};

/* The check: the command at the planned period and ring against the model. */
struct pb_plan_check {
	struct pb_program_figures sampled;  /* medians: cpu_ns, samples, lost */
	double baseline_ns;        /* measured again, interleaved with the sampled runs */
	double predicted_ns;       /* the plan's model at the period, on that baseline */
	double predicted_pct, measured_pct; /* slowdowns */
	bool within;               /* pb_slowdown_within */
};
/* model's baseline is replaced by the one measured again. */
int pb_plan_check(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		  uint64_t period, unsigned ring_pages, struct pb_plan_check *out,
		  struct pb_error *err);

#endif
