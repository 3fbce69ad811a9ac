/* What the files of the cost experiment share and nobody else needs: cost_sweep.c measures the
 * pairs of a sweep by the design, cost_fit.c fits them and writes the fit's point,
 * cost_predict.c predicts other programs from a fit, cost_plan.c is what `pesbench plan` asks,
 * and cost.c runs the experiment. */
#ifndef PB_COST_PARTS_H
#define PB_COST_PARTS_H

#include "experiments/experiment.h"
#include "experiments/point.h"
#include "experiments/predict.h"
#include "experiments/suite.h"
#include "experiments/suite_defaults.h"

#include "analysis/stats.h"
#include "io/result_model.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_PAIRS 512
/* Before a design (cost_sweep.c): pairs of identical runs for the noise, and pilot pairs at
 * each end of the sweep. */
#define NOISE_PAIRS 4
#define PILOT_PAIRS 2
#define MAX_RUNS 64

/* The time a mode's sweep may take, in multiples of --target-ms (60 ms by default: 4.2 s for
 * mode none, 1.5 s for each other mode). Mode none gets more: it is the floor every other
 * figure and the prediction stand on. */
#define BUDGET_NONE_TARGETS 70
#define BUDGET_MODE_TARGETS 25

struct sweep {
	struct pb_cost_pair p[MAX_PAIRS];
	size_t n;
};

/* A mode's fit and what it took. */
struct cost_fit {
	bool fitted, resolved, wall_fitted, disagree, per_event;
	bool event_resolved;         /* per_event: event_ns positive, CI within ±10 % */
	/* A prediction's model whose per-sample cost was taken from another site's fit (the
	 * site's own did not resolve): that site's label; "" otherwise. */
	char sample_cost_from[64];
	/* A prediction's model that leaves out a per-sample cost that did not resolve, and that
	 * cost's CI's upper end (no less than 0), at most PB_SAMPLE_TERM_MAX_SHARE of the
	 * per-event cost. */
	bool sample_left_out;
	double sample_bound_ns;
	/* cpu and wall: least squares weighted by each pair's noise (weighted: cost_fit.c's
	 * noise_scales); unweighted when a run's expected length was not above 0 */
	struct pb_fit cpu, wall;
	bool weighted;
	double ts_slope, ts_intercept;
	double events;               /* mean events per sampled run */
	double event_ns, event_ci95; /* per_event: intercept / events */
	double baseline_cpu, baseline_wall;  /* medians of the partner runs */
	size_t pairs;
	unsigned rounds;
	double seconds, budget_seconds;
	char why[640];               /* unresolved: the reason */
	/* a run failed: its error's message whole ("" otherwise); the fit is then never
	 * resolved, whatever its figures */
	char error[sizeof ((struct pb_error *)0)->msg];
	/* The design (see pb_cost_design_size): the noise and pilot it was sized from, the
	 * rounds it chose and needed, the expected CI, its short end, whether it was cut short,
	 * and, unresolved, the seconds its designed pairs would need (to_resolve_lower: at least
	 * that), the noise and pilot runs' setup_s coming on top. */
	double noise_ns, pilot_ns, pilot_residual_ns, expected_rel_ci, to_resolve_s, setup_s;
	size_t noise_pairs, pilot_pairs, design_pairs;
	/* One run's noise read from the fit's runs without perf (run_noise_of), at run_noise_df
	 * degrees of freedom: the noise pairs' figure again, from all the fit's pairs. */
	double run_noise_ns;
	size_t run_noise_df;
	/* one run's noise the first design was sized for (the larger of the noise pairs' and the
	 * pilot's), and the seconds of the budget left when a second design was wanted and none
	 * fitted (NaN otherwise) */
	double design_noise_ns, redesign_left_s;
	/* the seconds of the suite's pool of unused cost budget this fit drew on (0: none); when
	 * a second design was wanted and none fitted, the seconds the pool offered, which did not
	 * hold one either (0: not asked), or whether an earlier fit of the suite had drawn it */
	double spare_drawn_s, spare_offered_s;
	bool spare_gone;
	unsigned design_rounds, design_rounds_needed;
	uint64_t high_period;
	bool cut_short, to_resolve_lower;
	/* A second design (pb_cost_redesign_size) replaced the first, whose fit is kept here:
	 * its rounds are recorded before first_fitted_round and are not in the fit. */
	bool redesigned;
	struct pb_fit first;
	size_t first_pairs;
	unsigned first_fitted_round;
	/* unresolved: whether the budget cut the design short of what it was sized for (then a
	 * longer one would resolve it); otherwise the design had its rounds and the noise rose as
	 * it ran, which a longer budget does not mend */
	bool budget_limited;
	/* Pairs a disturbance moved, left out of every figure of the fit (pb_fit_outliers at
	 * PB_DISTURBED_ALPHA, at most one in PB_DISTURBED_MAX_SHARE): their period, samples, how
	 * far above the line of the rest their extra CPU time sat, and that as a share of the run.
	 * Up to 4 are described; left_out counts them all. */
	size_t left_out;
	bool far_above;              /* more than PB_DISTURBED_MAX_SHARE allows were: none left out */
	struct pb_left_out_pair {
		uint64_t period;
		double samples, extra_ns, run_ns; /* its x, y and the sampled run's CPU time */
		double off_ns, share;
	} left_out_pairs[4];
	/* Every pair left out, by its place among the design's pairs (its row's "pair"): at most
	 * one in PB_DISTURBED_MAX_SHARE of them. */
	uint16_t left_out_index[MAX_PAIRS / PB_DISTURBED_MAX_SHARE];
	/* What a sample cost at each period of the sweep (pb_paired_sample_cost over its pairs:
	 * NaN for a period with one pair), beside the slope that pools them: a cost that depends
	 * on the rate shows here (and as an intercept the fit cannot put to zero). */
	struct pb_period_cost {
		uint64_t period;
		double ns, ci95, samples;
		unsigned pairs;
	} by_period[PB_MAX_LIST];
	unsigned nby_period;
	/* The same pairs' rate model (predict.h): not for a trapping facility, whose extra time
	 * holds its events'. */
	struct pb_rate_model rate;
	bool time_based;             /* the periods are ns (else events) */
	/* Facilities whose cost per event depends on the probed instruction (event_cost_class):
	 * the label the sweep sat on, the instruction there and its class. */
	const char *site_class;
	char site[64], site_insn[96];
};

/* What a sweep needs: the sampled request (its period and delivery set per run), its partner
 * without perf, the periods, and when to stop. */
struct sweep_setup {
	const struct pb_suite_options *o;   /* progress and interruption; may be NULL */
	const char *facility;
	struct pb_point_request sampled, base;
	uint64_t periods[PB_MAX_LIST];
	unsigned np;
	unsigned min_rounds;
	uint64_t budget_ns;
	bool per_event, time_based;
	/* the design may move the short end of the set: up where the samples there would slow
	 * a run by more than 100 %, down (to min_period) where they are cheap (not when the user
	 * gave the periods) */
	bool design_periods;
	uint64_t min_period;
	/* whether this sweep's fit of mode none may draw on the suite's pool of unused cost
	 * budget (cost_sweep.c): the facility's cost site, which its predictions rest on; not
	 * another site of a facility that traps (a single-stepped site drew 12.2 s in a suite and
	 * did not resolve: docs/overhead.md, "The suite's unused budget") */
	bool draws_spare;
	/* the machine's noise, measured by the first sweep of a setup and kept for the others */
	double noise_ns, base_cpu_ns;
	size_t noise_pairs;
	/* makes the sweep point of a period (its rows: the pairs); may be NULL */
	struct pb_result_point *(*new_point)(void *ctx, uint64_t period, enum pb_delivery mode);
	void *point_ctx;
	/* measures one run (NULL: pb_point_measure): a test's machine of known noise and cost
	 * stands in here, as a fake kernel does at the sys seam */
	int (*measure)(const struct pb_point_request *q, struct pb_point *out,
		       struct pb_error *err);
	/* the clock the budget is kept by (NULL: pb_now_ns): that test machine keeps its own
	 * time, its runs taking what they report */
	uint64_t (*now_ns)(void);
};

const char *pb_cost_workload(const struct pb_spec *s);
unsigned pb_cost_periods(const struct pb_suite_options *o, const struct pb_spec *s,
			 uint64_t *p);
unsigned pb_cost_predict_rounds(const struct pb_suite_options *o);
/* The most prediction rounds a target may take while its measured slowdowns are not yet
 * precise enough to judge the predictions (PB_PREDICT_MAX_ROUNDS; --runs below the fewest
 * caps it). */
unsigned pb_cost_predict_max_rounds(const struct pb_suite_options *o);

uint64_t pb_cost_sum_cpu(const struct pb_point *pt, unsigned threads);
int pb_cost_setup_sweep(struct sweep_setup *su, const char *facility, const struct pb_spec *spec,
			const struct pb_machine *machine, uint64_t target_ms, struct pb_error *err);
/* The pairs count_runs counts for one mode's design before it is sized (one at each of the np
 * periods a round, two rounds for mode none; a pair is one step of the progress bar): the
 * sweep replaces them by its design's own. */
unsigned pb_cost_design_pairs_counted(unsigned np, enum pb_delivery mode);
/* Measures a mode's sweep by its design; su->new_point makes the point of each period. */
int pb_cost_sweep_mode(struct sweep_setup *su, enum pb_delivery mode, struct cost_fit *cf,
		       struct pb_error *err);
const char *pb_cost_site_of(const struct pb_point_request *req, const struct pb_spec *spec,
			    char *label, size_t label_len, char *insn, size_t insn_len);

void pb_cost_fit_sweep(const struct sweep *sw, bool per_event, struct cost_fit *cf);
/* What a sample costs at period for a prediction, with the half-width of its 95 % CI (ci95 may
 * be NULL): the rate model's line where it is dependent (predict.h), read at the period held
 * to the sweep's range; the slope that pools the sweep otherwise. */
double pb_cost_at_period(const struct cost_fit *cf, uint64_t period, double *ci95);

/* A run of the sweep failed: the fit keeps its figures but resolves nothing (neither cost). */
void pb_cost_fit_failed(struct cost_fit *cf, const char *msg);

/* Why a fit did not resolve, appended to cf->why after cost_fit's reason: what the sweep took,
 * what a design replaced, and what would resolve it — a longer sweep when the budget was the
 * limit; when the design had its rounds the noise rose as it ran, which a longer budget does
 * not mend. Sets cf->to_resolve_s. */
void pb_cost_explain_unresolved(struct cost_fit *cf);
/* Whether a fit may predict on its own: resolved, no run failed, and (per-event facilities)
 * its per-event cost resolved too. */
bool pb_cost_fit_usable(const struct cost_fit *cf);
/* Why a fit whose interval alone says nothing against it is not resolved, for
 * pb_cost_estimate_text: "a run failed", "Theil–Sen too far off", or NULL (the interval says
 * it, or the fit resolved). */
const char *pb_cost_fit_reason(const struct cost_fit *cf);
/* "~2.1 µs, 95 % CI 0.4–3.8 µs, not resolved to ±10 %": a cost with its interval, in words;
 * reason (may be NULL) replaces "to ±10 %" where the CI is not why. */
void pb_cost_estimate_text(char *buf, size_t len, double ns, double ci95, bool resolved,
			   const char *reason);
void pb_cost_fit_site(struct cost_fit *cf, const char *cls, const char *label, const char *insn);
struct pb_result_point *pb_cost_fit_point(struct pb_results *res, const char *facility,
					  const char *workload, enum pb_delivery mode,
					  const struct cost_fit *cf, const struct cost_fit *floor);

/* The cost workload measured again beside a prediction's rounds (mode none, at the target's
 * shortest period, every sampled run set against a run without perf of the same round): what a
 * sample costs on the workload the fit was measured on, now and at the target's fastest rate.
 * It splits a prediction's error in two: the machine's cost at that rate differing from the
 * fit's (the reference against the fit: drift, or a cost that depends on the rate), and the
 * target paying otherwise than the cost workload (the target's own cost against the
 * reference). Only for a fit with no per-event term, whose model is its per-sample cost. */
struct pb_cost_reference {
	struct pb_point_request sampled, base;
};

/* One measured run of a prediction: CPU and wall time, samples and events. */
struct predict_run {
	double cpu, wall, samples, events, expected, lost;
};

/* A target's rounds: per round its run without perf (bcpu, bwall) and a run per period. */
struct prediction_rounds_done {
	const struct pb_spec *spec;
	const struct cost_fit *none;
	unsigned threads, rounds;
	const uint64_t *periods;
	const double *aimed_pct;     /* per period, the slowdown it was chosen for (NaN: none) */
	unsigned nperiods;
	struct predict_run runs[3][MAX_RUNS];
	double bcpu[MAX_RUNS], bwall[MAX_RUNS];
	double warmup_cpu;  /* the run before the rounds, left out of them */
	/* The cost workload beside the target (NULL: none): per round its run without perf and
	 * a sampled run at the target's shortest period (the last). */
	const struct pb_cost_reference *ref;
	struct predict_run ref_base[MAX_RUNS], ref_sampled[MAX_RUNS];
	/* The half-width, as a share of the fit's cost, that the prediction's cost takes when the
	 * cost workload measured again beside an earlier target lay beyond both intervals from
	 * the fit (pb_cost_moved_half); 0: it held, or nothing measured it again. */
	double cost_moved;
};

/* The share of the fit's cost that holds both the fit's interval and that of the cost workload
 * measured beside this target (its reference, at the shortest period) when the two lie beyond
 * both intervals in quadrature: the cost moved while the suite ran (9 of 39 default suites on
 * kind A, docs/overhead.md, "Kind A, a ninth time"), and a prediction made with the fit's cost
 * carries the span around it. d->cost_moved, from an earlier target, when this one has no
 * reference or its own held. */
double pb_cost_moved_half(const struct prediction_rounds_done *d);

/* One run of a prediction's target: period 0 without perf, else sampled at period. Returns 0,
 * -1 (err: the suite stops) or 1 (the target is skipped; the run left its reason). */
typedef int prediction_measure_fn(void *ctx, uint64_t period, unsigned round,
				  struct predict_run *out, struct pb_error *err);

/* The baseline point of a prediction's target (a workload of the suite or a real program);
 * its medians come with the predictions. */
struct pb_result_point *pb_cost_prediction_baseline_point(struct pb_results *res,
							  const char *facility, const char *name,
							  unsigned threads);
/* The rounds done: the baselines' medians on bp, and a prediction point per period. Returns
 * the pb_cost_moved_half they were made with, for the targets after this one. */
double pb_cost_prediction_points(struct pb_results *res, const char *facility, const char *name,
				 struct pb_result_point *bp,
				 const struct prediction_rounds_done *d);
/* A run without perf first, left out, then rounds of a run without perf and one sampled run
 * per period until the fewest are done and every measured slowdown is precise enough, or the
 * most are; `what` names the target in the progress line. 0, -1 (err: the suite stops) or 1
 * (the target is skipped). */
int pb_cost_prediction_rounds(const struct pb_suite_options *o, const char *what,
			      prediction_measure_fn *measure, void *ctx,
			      struct prediction_rounds_done *d, struct pb_error *err);
void pb_cost_refuse_prediction(struct pb_results *res, const char *facility,
			       const char *workload, const struct cost_fit *cf,
			       const struct cost_fit *first);
/* cost_moved: in, pb_cost_moved_half of the targets before this one; out, this one's (a
 * target with a reference measures it again). */
int pb_cost_predict_workload(const struct pb_suite_options *o, const char *facility,
			     const struct pb_spec *spec, const char *workload, unsigned threads,
			     const uint64_t *periods, const double *aimed_pct, unsigned nperiods,
			     const struct cost_fit *none, const struct pb_cost_reference *ref,
			     double *cost_moved, struct pb_results *res, struct pb_error *err);
/* The periods a target is predicted at (up to 3, shortest last). A timer's come from the fit:
 * those whose predicted slowdown is 30, 10 and 3 % (the first over the 10 % that the slowdown
 * criterion needs on one period at least), no shorter than the facility allows; an event-based
 * facility's are its sweep's ends and middle (its events per run are not known yet).
 * aimed_pct (NULL: not wanted) gets each period's aimed slowdown, NaN for an event-based
 * facility's: what a comparison lines predictions up on, as a timer's periods move with its
 * fit from run to run. */
unsigned pb_cost_prediction_periods(const struct pb_spec *spec, const struct cost_fit *fit,
				    const uint64_t *sweep, unsigned np, uint64_t *out,
				    double *aimed_pct);
extern const char *const pb_cost_program_names[2];
/* cost_moved: pb_cost_moved_half of the targets before them. */
int pb_cost_real_programs(const struct pb_suite_options *o, const char *facility,
			  const struct pb_spec *spec, const struct cost_fit *none,
			  double cost_moved, struct pb_results *res, struct pb_error *err);

#endif
