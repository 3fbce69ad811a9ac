/* `pesbench plan` below the CLI: the command measured alone and counted, the cost of one sample
 * (a results document's, or a sweep on the spot), the period the model (predict.h) gives for
 * the budget, and the check run that sets the prediction against a measurement. The CLI parses
 * and prints; the figures come from here. */
#ifndef PB_PLAN_H
#define PB_PLAN_H

#include "experiments/predict.h"
#include "machine/load.h"
#include "runner/cpu_speed.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The cost of one sample, its 95 % half-width and its rate model (rate: not fitted in a file
 * from before it), from a results.json of `pesbench run cost`. */
int pb_plan_cost_from_file(const char *path, const char *facility, double *cost, double *ci95,
			   struct pb_rate_model *rate, size_t *pairs, size_t *left_out,
			   struct pb_error *err);
/* The cost of one sample from a sweep on the spot of at most `seconds`, designed to resolve
 * within them; a cost that does not resolve fails with its interval and the time a sweep
 * that resolves it would need. */
/* The refusal of a cost that did not resolve: its estimate, the reason, and what would resolve
 * it (a longer sweep, or, when its interval is narrow but its estimators disagree, nothing a
 * longer sweep could do). Returns -1 with err. */
int pb_plan_cost_refused(const struct pb_cost *c, const char *facility, struct pb_error *err);
/* pairs and left_out (may be NULL): the sweep's pairs and those its fit left out as disturbed. */
int pb_plan_cost_now(const struct pb_spec *spec, const char *facility, uint64_t seconds,
		     double *cost, double *ci95, struct pb_rate_model *rate, size_t *pairs,
		     size_t *left_out, struct pb_error *err);

/* plan->period: the period the budget gives. Where the cost's rate model is dependent
 * (predict.h), a sample's cost is the model's at the period it gives, settled in a few steps
 * (the cost moves by a few % over a decade of the period): model.ns_per_sample and
 * cost_ci95_ns become that cost and its CI, and cost_at_period says so. */
struct pb_plan;
int pb_plan_period(struct pb_plan *plan, struct pb_error *err);

/* plan->period_lo and period_hi: the periods the budget gives at the two ends of the cost's
 * 95 % interval (0 where a cost's end gives none), and overhead_lo_pct, overhead_hi_pct: the
 * planned period's overhead at those ends (NaN without them): how far the plan is known. */
struct pb_plan;
void pb_plan_period_range(struct pb_plan *plan);

/* A plan: the model of the command and facility, and the period it gives for the budget. */
struct pb_plan {
	struct pb_slowdown_model model;     /* as planned (pb_plan_check moves its baseline) */
	struct pb_program_figures base;     /* the command alone: medians */
	const char *cost_source;            /* where ns_per_sample came from */
	double cost_ci95_ns;                /* its 95 % half-width */
	struct pb_rate_model cost_rate;     /* the cost by period, where it was fitted */
	bool cost_at_period;                /* ns_per_sample is cost_rate's at the period */
	size_t cost_pairs, cost_pairs_left_out; /* a sweep's: its pairs, and the disturbed ones
						 * its fit left out */
	double budget_pct;
	struct pb_budget_period period;
	/* the periods the budget gives at the two ends of the cost's interval (0: none) */
	uint64_t period_lo, period_hi;
	double overhead_lo_pct, overhead_hi_pct;
	unsigned ring_pages;                /* the ring asked for, or the recommended one */
	struct pb_machine_load load;        /* what else the machine did while planning */
	struct pb_speed_summary speed;      /* how fast its CPUs ran meanwhile */
	struct pb_load_watch load_watch;
	struct pb_speed_watch speed_watch;  /* started_ns 0: not watched */
};

/* Watching the machine while planning: what else it did (plan->load) and how fast its CPUs ran
 * (plan->speed). A vCPU that runs slower for a while moves the cost a sweep measures, and the
 * period with it (runner/cpu_speed.h). Start before the first step, probe after each (a probe
 * is ~3 ms a CPU; pb_plan_check_and_correct probes after each check itself); end sums both up. */
void pb_plan_watch_start(struct pb_plan *plan);
void pb_plan_watch_probe(struct pb_plan *plan);
void pb_plan_watch_end(struct pb_plan *plan);

/* The check: the command at a period against the model. Rounds pair a run without perf with
 * a sampled one (so a machine that got busier or quieter moves both alike); they go on past
 * --runs, up to PB_PREDICT_MAX_ROUNDS, while the slowdown's CI is wider than half its
 * tolerance (pb_slowdown_precise, as the suite's predictions do). */
struct pb_plan_check {
	uint64_t period;
	unsigned ring_pages;
	unsigned rounds;
	unsigned rounds_left_out;  /* of them, those a disturbance moved (pb_paired_disturbed):
				    * in no slowdown or cost figure below */
	struct pb_program_figures sampled;  /* medians of the rounds: samples, lost; cpu_ns mean */
	double baseline_ns;        /* mean of the rounds' runs without perf */
	double predicted_ns;       /* the model at the period, on that baseline */
	double predicted_pct;      /* slowdowns: the model's, and pb_paired_slowdown's */
	double predicted_ci95_pp;  /* the model's, from its cost's interval */
	double measured_pct, measured_ci95_pp;
	double own_ns_per_sample, own_ci95_ns; /* what a sample cost this command here
					       * (pb_paired_sample_cost; NaN: fewer than two
					       * rounds with samples) */
	const char *verdict;       /* pb_slowdown_verdict: within, outside, undecided */
	bool within;               /* pb_slowdown_within, on the estimates */
};
/* model's baseline is replaced by the one measured again. */
int pb_plan_check(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		  uint64_t period, unsigned ring_pages, struct pb_plan_check *out,
		  struct pb_error *err);

/* A sample's cost depends on the program and its rate (docs/overhead.md, "A sample's cost by
 * rate"): a check that decides against the plan (its slowdown outside the tolerance, or its
 * whole interval over the budget) has measured what a sample costs this command at about this
 * rate, and the period that cost gives for the budget is checked in turn. At most
 * PB_PLAN_MAX_CORRECTIONS steps: each is 2 x rounds runs of the command. */
#define PB_PLAN_MAX_CORRECTIONS 3
/* The most runs (--runs) a measurement takes, and so the most rounds of a check. */
#define PB_PLAN_MAX_RUNS 64u
/* Whether a check's own cost of a sample is one to plan with: positive, its 95 % CI within
 * PB_FIT_MAX_REL_CI of it, the rule every cost fit is held to (analysis/stats.h). A check has
 * few rounds, and at a long period few samples: a correction from a cost known to ±30 % would
 * move the period by as much, by noise (2026-11-29 01:16, kind B: a second check's own cost read
 * 94.6 ± 28.3 µs where the first read 50.8 ± 0.9, and was corrected with). */
bool pb_plan_own_cost_resolved(const struct pb_plan_check *check);
/* The rounds that would resolve it at the noise seen (its interval narrows as 1/sqrt(rounds));
 * UINT_MAX without a positive cost. */
unsigned pb_plan_rounds_to_resolve(const struct pb_plan_check *check);
/* The period for budget_pct from check's own cost and baseline (the plan's model otherwise);
 * -1 with err when the check measured no cost to correct with, or one that did not resolve. */
int pb_plan_corrected_period(const struct pb_slowdown_model *planned,
			     const struct pb_plan_check *check, double budget_pct,
			     struct pb_slowdown_model *corrected, struct pb_budget_period *out,
			     struct pb_error *err);
/* Whether a check's measured overhead is within the budget: "within" when its CI's upper end
 * is, "OVER" when its lower end is above it, "unjudged" when the interval holds both no
 * overhead at all and twice the budget (a noise burst in a round: it cannot tell a free period
 * from one that doubles the budget), else "at" (the interval holds the budget). */
const char *pb_plan_budget_verdict(const struct pb_plan_check *check, double budget_pct);

/* Check the plan, then correct it while its check decides against it (the checks in order;
 * steps[0] is the plan's own). ring_given: keep plan->ring_pages at every step, else each
 * corrected period gets the ring its rate needs. progress (may be NULL) is told of each
 * check as it ends (its index in out). */
struct pb_plan_checks {
	struct pb_plan_check step[1 + PB_PLAN_MAX_CORRECTIONS];
	struct pb_budget_period planned[1 + PB_PLAN_MAX_CORRECTIONS]; /* [0]: the plan's */
	unsigned n;
	const char *stopped;       /* why no further step: held, undecided, no change, limit,
				    * no cost, cost unresolved */
};
int pb_plan_check_and_correct(const struct pb_plan_request *req, struct pb_plan *plan,
			      bool ring_given, struct pb_plan_checks *out,
			      void (*progress)(const struct pb_plan_checks *, unsigned, void *),
			      void *ctx,
			      struct pb_error *err);

/* In words (plan_print.c): a check as it ends, on stdout (a pb_plan_check_and_correct
 * progress; plan_arg is the struct pb_plan), then the period the checks recommend, and why they
 * stopped where they did (NULL when the check held; buf holds the words that need figures,
 * such as the rounds that would decide an undecided check). */
void pb_plan_print_step(const struct pb_plan_checks *all, unsigned i, void *plan_arg);
void pb_plan_print_recommended(FILE *out, const struct pb_plan *plan,
			       const struct pb_plan_checks *all);
const char *pb_plan_stopped_why(const struct pb_plan_checks *all, char *buf, size_t len);

#endif
