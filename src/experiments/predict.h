/* Predicting a sampled run time from the cost of one sample (Akiyama & Hirofuchi, 4.4-4.5), and
 * planning a period for an overhead budget from the same model:
 *
 *     sampled time = baseline time + cost per event x events + cost per sample x samples
 *
 * per thread (threads on their own CPUs pay for their samples in parallel). The baseline is the
 * run without perf; the cost per event is 0 except for facilities that trap on every event
 * (breakpoints, uprobes); the samples follow from the period: E / P for events, and for a timer,
 * which counts the time spent taking its own samples, n = T0 / (P - c). Real programs are run
 * as given, in a child whose events are opened before it execs (session/process.h). */
#ifndef PB_PREDICT_H
#define PB_PREDICT_H

#include "analysis/stats.h"
#include "facilities/facility.h"
#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>

double pb_predict_time_ns(double baseline_ns, double ns_per_sample, double samples,
			  unsigned threads);
/* Akiyama & Hirofuchi's E: (measured - predicted) / predicted x 100. */
double pb_prediction_error_pct(double measured_ns, double predicted_ns);

/* What the planner knows about a command and a facility. */
struct pb_slowdown_model {
	double baseline_ns;      /* the command's run time without sampling */
	bool time_based;         /* timers: the period is ns of the command's own (sampled) time */
	double events;           /* event-based facilities: events per thread in one run */
	double ns_per_sample;    /* measured cost of one sample */
	double ns_per_event;     /* measured cost of an event, sampled or not (trapping
				  * facilities; 0 otherwise) */
	uint64_t min_period;     /* the facility's smallest period */
	unsigned record_bytes;   /* one sample record, for ring sizing */
};

struct pb_budget_period {
	uint64_t period;
	double samples;          /* per thread, predicted */
	double predicted_ns;
	double overhead_pct;     /* predicted */
	unsigned ring_pages;     /* recommended data pages */
};

/* Samples per thread the model predicts at period. A timer counts the time spent taking its
 * own samples, so its samples satisfy n = (baseline + cost x n) / period, i.e.
 * n = baseline / (period - cost); it returns -1 when period <= cost (the run never ends). */
double pb_slowdown_samples(const struct pb_slowdown_model *m, uint64_t period);
/* The model's sampled time at period: baseline + ns_per_event x events (event-based) +
 * ns_per_sample x pb_slowdown_samples; -1 when the samples are -1. */
double pb_model_time_ns(const struct pb_slowdown_model *m, uint64_t period);
/* The predicted overhead in percent at period (-1 as above). */
double pb_slowdown_overhead_pct(const struct pb_slowdown_model *m, uint64_t period);
/* The smallest period (>= min_period) whose predicted overhead is within budget_pct, and a
 * ring that holds 100 ms of samples at that rate (at least 8 pages, at most 4096) so a reader
 * polling every 10 ms never lets it fill. Fails (PB_EXIT_USAGE) for budget <= 0 or a model
 * without cost or baseline. */
int pb_period_for_budget(const struct pb_slowdown_model *m, double budget_pct, struct pb_budget_period *out,
		   struct pb_error *err);

/* A cost per event fitted on one probe site, and the class of that site (the facility's
 * event_cost_class hook: a uprobe's hit on an instruction the kernel emulates costs ~0.5 us,
 * on one it single-steps ~10 us). */
struct pb_site_cost {
	const char *site_class;  /* NULL: the facility's cost per event is the same everywhere */
	const char *site;        /* the label the fit was measured on */
	const char *insn;        /* the instruction there */
	bool resolved;           /* the fit's per-sample cost resolved */
	bool event_resolved;     /* its per-event cost resolved (positive, CI within ±10 %) */
};
/* Which of n fits predicts a target site of target_class: the index of the first fit of the
 * same class, 0 when the target has no class (target_class NULL), and -1 with the reason in
 * why when no fit of that class was measured: a cost per event is never carried over to a
 * site the kernel treats differently. */
int pb_site_cost_pick(const struct pb_site_cost *fits, size_t n, const char *target_class,
		      const char *target_site, const char *target_insn, char *why,
		      size_t why_len);
/* Which fit gives the per-sample cost of a prediction from fits[k] (pb_site_cost_pick's
 * answer): k when its fit resolved; 0 when k is another site whose per-event cost resolved
 * but whose per-sample cost did not (a single-stepped site's ~10 us traps bury what a sample
 * adds) and fits[0]'s did: a sample is the facility's record of the hit, written the same
 * way whatever the kernel did with the instruction; -1 when none may be used. */
int pb_site_cost_sample_source(const struct pb_site_cost *fits, size_t n, int k);
/* One pair of a cost sweep: a sampled run and its partner without perf. */
struct pb_cost_pair {
	uint64_t period;
	double observed;  /* samples kept in the ring */
	double lost;      /* samples taken but lost for want of room in the ring */
	double events, expected;
	double cpu, base_cpu, wall, base_wall;
};
/* The samples the pair's sampled run took, kept or lost: the x of the cost fit, since a lost
 * sample cost its interrupt or trap and the overflow handling as one kept did, near enough. */
double pb_cost_pair_samples(const struct pb_cost_pair *p);
struct pb_rset;
/* The pair's row in its period's sweep point: observed is what was kept, so that observed +
 * lost is what was taken, the expected count on an exact facility, as in every other row. */
void pb_cost_pair_record(struct pb_rset *run, const struct pb_cost_pair *p, unsigned round);
/* Whether a cost sweep has what it came for. The per-sample fit is done when it resolved or when
 * it is futile (R² below 0.9 after two rounds: more pairs estimate the noise better but do not
 * raise R²). A facility that traps on every event also needs its per-event cost (the
 * intercept), whose CI narrows with every pair even when the per-sample slope is buried: on a
 * single-stepped uprobe site the futile slope stopped the sweep after 14 pairs with the
 * per-event cost at ±16 %, and its prediction was refused. */
bool pb_cost_sweep_done(bool sample_resolved, bool sample_futile, bool per_event,
			bool event_resolved);

/* The periods of a facility's cost sweep, longest first, into out (room for PB_MAX_LIST); returns
 * how many. A facility that does not trap on every event sweeps its cost set as it is. One that
 * does pays ~10^2-10^4 ns per event and a few hundred per sample: at every 4th event the samples
 * add a few percent to a run the traps fill, about the run-to-run noise, and only down to a
 * sample per event (the facility's smallest period) do they add tens of percent. Its noise is
 * white and proportional to the run's time, so R² and the CI are set by the spread of the
 * samples per run x against that noise, and more pairs do not raise R². The sweep therefore
 * puts its points at the ends, two near no samples (the set's two longest periods) and two near
 * a sample per event (twice the smallest period, and the smallest): SD(x) is 0.41 of the events
 * per run against 0.34 for the whole set followed by those two (1000, 64, 16, 8, 4, 2, 1 on an
 * exact facility), which cuts 1 - R² and the CI's width by about a fifth at the same noise and
 * pairs, while the point at half the events keeps a bend visible to Theil-Sen. */
unsigned pb_cost_sweep_periods(const struct pb_facility *f, uint64_t *out);

/* The cost of one sample of a facility in delivery mode none, by experiments/cost.c's method:
 * paired runs (sampled, and without perf) over a period sweep, CPU time against samples, at
 * least min_rounds rounds and then more until the fit resolves or budget_ms is spent;
 * target_ms per run. */
struct pb_cost {
	struct pb_fit fit;        /* least squares on thread CPU time */
	bool resolved;            /* pb_fit_resolved, and Theil–Sen inside the CI */
	double theil_sen;         /* Theil–Sen slope on the same pairs */
	double ns_per_event;      /* trapping facilities: the intercept / events per run */
	char why[320];            /* unresolved: why */
};
int pb_cost_measure(const char *facility, unsigned min_rounds, uint64_t target_ms,
		    uint64_t budget_ms, struct pb_cost *cost, struct pb_error *err);

/* One run of a real program: argv executed as given (output discarded), sampled with spec at
 * period (spec NULL: no perf at all; period 0: counting only), user and kernel level. */
struct pb_program_figures {
	uint64_t wall_ns;        /* exec to reap */
	uint64_t cpu_ns;         /* the program's user + system time (wait4) */
	uint64_t samples, lost, count;
	uint64_t maxrss_kib;     /* the program's peak RSS */
	int exit_code;
	bool signaled;
};
int pb_program_measure(char *const *argv, const struct pb_spec *spec, uint64_t period,
		       unsigned ring_pages, struct pb_program_figures *out, struct pb_error *err);

#endif
