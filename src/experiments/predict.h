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
	double ns_per_sample_ci95; /* its 95 % half-width, which a prediction carries (0: taken
				    * as exact; no number: unknown) */
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
/* Its 95 % half-width in points from ns_per_sample_ci95: half the distance between the
 * overheads at the cost's two ends (near linear in it); no number when either is not one. */
double pb_slowdown_overhead_ci95_pp(const struct pb_slowdown_model *m, uint64_t period);
/* The smallest period (>= min_period) whose predicted overhead is within budget_pct, and a
 * ring that holds 100 ms of samples at that rate (at least 8 pages, at most 4096) so a reader
 * polling every 10 ms never lets it fill. Fails (PB_EXIT_USAGE) for budget <= 0 or a model
 * without cost or baseline. */
int pb_period_for_budget(const struct pb_slowdown_model *m, double budget_pct, struct pb_budget_period *out,
		   struct pb_error *err);
/* The same with a sample's cost read from rm's line at the period: from the period m's own
 * cost gives (out), a few steps settle on the one whose cost on the line gives the budget (the
 * cost moves by a few % over a decade of the period). Returns 0 with m->ns_per_sample the
 * line's cost at out->period and ci95 (may be NULL) its half-width; -1, m and out as they
 * were, when the line gives no positive cost or that cost no period. */
int pb_period_for_budget_on_line(struct pb_slowdown_model *m, const struct pb_rate_model *rm,
				 double budget_pct, struct pb_budget_period *out, double *ci95);

/* A cost per event fitted on one probe site, and the class of that site (the facility's
 * event_cost_class hook: a uprobe's hit on an instruction the kernel emulates costs ~0.5 us,
 * on one it single-steps ~10 us). */
struct pb_site_cost {
	const char *site_class;  /* NULL: the facility's cost per event is the same everywhere */
	const char *site;        /* the label the fit was measured on */
	const char *insn;        /* the instruction there */
	bool resolved;           /* the fit's per-sample cost resolved (and no run failed) */
	bool event_resolved;     /* its per-event cost resolved (positive, CI within ±10 %) */
	bool per_event;          /* the facility pays a cost per event: a fit predicts only
				  * when that resolved too */
	bool sample_bounded;     /* per_event, the per-event cost resolved and the per-sample
				  * one not, but its CI's upper end within PB_SAMPLE_TERM_MAX_SHARE
				  * of the per-event cost */
};
/* The most of a prediction's slowdown an unresolved per-sample cost may be, at its CI's upper
 * end, for a facility that pays a cost per event to predict without it: half the criterion's
 * relative tolerance (10 % of the slowdown), as a measured slowdown is precise enough at half
 * the tolerance (pb_slowdown_precise). With n = E / P samples (P >= 1 events) the term is at
 * most c_s / (c_e P + c_s) <= c_s / c_e of the slowdown: a breakpoint's sample, 555 ns at
 * most, beside its 14.6 µs trap is 3.8 %. */
#define PB_SAMPLE_TERM_MAX_SHARE 0.05
/* Which of n fits predicts a target site of target_class: the index of the first fit of the
 * same class, 0 when the target has no class (target_class NULL), and -1 with the reason in
 * why when no fit of that class was measured: a cost per event is never carried over to a
 * site the kernel treats differently. */
int pb_site_cost_pick(const struct pb_site_cost *fits, size_t n, const char *target_class,
		      const char *target_site, const char *target_insn, char *why,
		      size_t why_len);
/* Which fit gives the per-sample cost of a prediction from fits[k] (pb_site_cost_pick's
 * answer): k when its fit resolved (per-event facilities: both of its costs); 0 when k is
 * another site whose per-event cost resolved but whose per-sample cost did not (a
 * single-stepped site's ~10 us traps bury what a sample adds) and fits[0]'s did: a sample is
 * the facility's record of the hit, written the same way whatever the kernel did with the
 * instruction; k again when its per-sample cost is only bounded (sample_bounded: the
 * prediction leaves it out and says by how much it may be off); -1 when none may be used. */
int pb_site_cost_sample_source(const struct pb_site_cost *fits, size_t n, int k);
/* The design of a cost sweep, fixed before any of its pairs is measured (issue 21: a fit that
 * is re-checked after every pair and stopped at the first pass states a 95 % CI that covers
 * less than 95 %). What it is sized from was measured first and is not in the fit: the
 * machine's noise (pairs of runs without perf) and a pilot of the per-sample cost (pairs at
 * both ends of the sweep). A round visits each slot once (the ends several times); the rounds
 * are as many as the expected CI of the slope needs to come within PB_DESIGN_REL_CI of the
 * pilot's slope, and no more than the budget holds. The aim is half the 10 % rule: the noise
 * comes from 4 pairs (its SD known to about ±35 %) and the pilot's slope from 4 more, so a
 * design aimed at 10 % would miss it about half the time; aimed at 5 % (4 times the pairs), the
 * realised CI passes 10 % only when the noise was underestimated twofold. */
#define PB_DESIGN_REL_CI 0.05
/* The variance a sampled run's baseline adds to its extra time, in units of one unsampled
 * run's: the baseline is the median of five neighbouring partners (cost_fit.c), and the
 * median of five Gaussian draws has pi / (2 x 5) of one draw's variance. The design sizes its
 * pairs with it and the fit weighs them with it. */
#define PB_LOCAL_BASELINE_VARIANCE 0.31
struct pb_cost_design_input {
	double noise_ns;          /* SD of one run's CPU time from run to run */
	double run_ns, run_x;     /* the CPU time and samples of the runs the noise was measured
				   * on; a run with more samples is longer by the pilot's cost,
				   * and its noise grows in proportion */
	double baseline_ns;       /* the CPU time of a run without perf, five of which give a
				   * pair's baseline (0: run_ns); a trapping facility's is a
				   * sliver of its sampled runs and adds none of their noise */
	double ns_per_sample;     /* the pilot's slope (<= 0 or NaN: none seen above the noise) */
	double events_cost_ns;    /* per-event facilities: the pilot's intercept (the events'
				   * cost per run); 0 otherwise, and then the intercept is not
				   * sized for */
	const double *x;          /* expected samples per run at each slot of a round */
	const double *pair_s;     /* expected seconds of a pair at each slot */
	unsigned nslots;
	double seconds_left;      /* the budget still unspent */
	unsigned min_rounds, max_rounds;
};
struct pb_cost_design {
	unsigned rounds;          /* the rounds to measure */
	unsigned rounds_needed;   /* the rounds the expected CI needs (UINT_MAX: the pilot saw no
				   * cost above the noise) */
	double round_s;           /* expected seconds of a round */
	double expected_rel_ci;   /* the expected CI of the slope over `rounds`, relative to the
				   * pilot's slope (NaN without a pilot slope) */
};
void pb_cost_design_size(const struct pb_cost_design_input *in, struct pb_cost_design *out);
/* A second design, after one whose fit did not resolve for its interval's width alone (a
 * positive slope, its CI over PB_FIT_MAX_REL_CI): the first was sized from four noise pairs and
 * a pilot, and the noise its own pairs show can be twice that (a sweep of 1.3 s that aimed at
 * ±5 % ended at ±11 %, 2026-11-27). The second is sized from the first's fit instead — its
 * relative CI rel_ci over `rounds` rounds of nslots pairs, the CI narrowing as
 * t(df) / sqrt(rounds) — to PB_DESIGN_REL_CI, within the budget left at the first's measured
 * round_s. Its pairs alone are fitted, so its size does not depend on them and the fixed-size
 * interval holds, as for the first. rounds is 0 when the budget left cannot hold a design
 * expected within PB_FIT_MAX_REL_CI (which, the first being wider, is one of more rounds than
 * the first's): then a longer budget is what would resolve it. */
struct pb_cost_redesign {
	unsigned rounds;          /* to measure (0: none) */
	unsigned rounds_needed;   /* for PB_DESIGN_REL_CI */
	double expected_rel_ci;   /* over `rounds` (over rounds_needed when rounds is 0) */
	bool budget_limited;      /* rounds < rounds_needed, or none for want of time */
};
void pb_cost_redesign_size(double rel_ci, unsigned rounds, unsigned nslots, double round_s,
			   double seconds_left, unsigned min_rounds, unsigned max_rounds,
			   struct pb_cost_redesign *out);
/* Whether the suite's unused budget should go to a second design: the fit's own budget held
 * none (own->rounds 0) and the budget with the pool holds one expected to resolve
 * (with_pool->rounds > 0), though perhaps short of the design's aim (budget_limited). */
bool pb_cost_pool_makes_redesign(const struct pb_cost_redesign *own,
				 const struct pb_cost_redesign *with_pool);
/* The seconds a sweep of the same design would need for its slope's 95 % CI to come within
 * PB_FIT_MAX_REL_CI (the CI narrows as 1/sqrt(pairs)), from the fit of one that took
 * seconds_spent. A slope <= 0 is sized for the CI's upper end instead, and *lower_bound says
 * so (a smaller cost needs longer); NaN when even that is <= 0 (nothing to size for). */
double pb_cost_seconds_to_resolve(const struct pb_fit *f, double seconds_spent,
				  bool *lower_bound);
/* Whether a prediction's slowdown is right: |predicted - measured| <= max(10 % of the
 * measured slowdown, 1 percentage point of run time). On the run time itself a 10 % band
 * would pass a prediction of no cost at all wherever the slowdown is under 10 %. */
#define PB_SLOWDOWN_REL_TOL 0.10
#define PB_SLOWDOWN_ABS_TOL_PP 1.0
double pb_slowdown_tolerance_pp(double measured_slowdown_pct);
bool pb_slowdown_within(double predicted_pct, double measured_pct);

/* A pair of a cost sweep whose run a disturbance (another program, the host) slowed is left
 * out of the fit (cost_fit.c) when its studentized residual, weighted by its run's length, says
 * so at PB_DISTURBED_ALPHA, above the line only (a disturbance adds time; a run faster than
 * the line is the noise's): with Gaussian noise in proportion to the runs and no disturbance,
 * a fit leaves a pair out 1 time in 100 at most. One pair of 16 whose run a burst made 11 %
 * longer than its period's other (uprobe, 2026-11-27, kind C) widened the slope's CI from
 * ±4.0 % to ±10.1 %. More than one pair in PB_DISTURBED_MAX_SHARE far above is the noise's own
 * shape, not a disturbance: none is left out then, and the fit says so. Fewer than
 * PB_DISTURBED_MAX_SHARE pairs are not tested. */
#define PB_DISTURBED_ALPHA 0.01
#define PB_DISTURBED_MAX_SHARE 8
/* The rounds of a paired measurement (a run without perf and a sampled run each) that a
 * disturbance moved, by the same rule: first a baseline far above the other rounds' (it would
 * lower the round's slowdown at every period), then, of the rounds left, a sampled run whose
 * extra time over its baseline sits far above the others' — runs of one length, so a constant
 * (pb_fit_outliers without x), above only, at PB_DISTURBED_ALPHA, at most one round in
 * PB_DISTURBED_MAX_SHARE of those usable (figures that are numbers, a baseline above 0) for
 * each test; more far above is the noise's shape (*far_above) and leaves none out of that
 * test. Fewer than PB_DISTURBED_MAX_SHARE usable rounds are not tested. A burst of 28 ms in
 * one python3 run of ~67 ms (2026-11-28, kind A) moved its slowdown from 34.7 to 41.2 % and
 * its interval from ±3.0 to ±15.7 points. Marks left_out (n) and, where not NULL, base_out
 * (the rounds whose baseline it was); returns how many were left out. Rounds past
 * PB_PAIRED_MAX_ROUNDS are kept untested. */
#define PB_PAIRED_MAX_ROUNDS 64u
unsigned pb_paired_disturbed(const double *diff_ns, const double *base_ns, unsigned n,
			     bool *left_out, bool *base_out, bool *far_above);

/* A measured slowdown is the mean over rounds of (sampled run - the same round's run without
 * perf) / that run, with a 95 % CI (t, rounds - 1 df). Rounds go on past the fewest while some
 * period's CI half-width is over half its tolerance (planned from the predicted slowdown, known
 * before measuring, so the rule looks at the spread only, never at how the prediction fares:
 * stopping on precision leaves the CI's coverage as stated), up to the most. */
#define PB_PREDICT_MIN_ROUNDS 3
#define PB_PREDICT_MAX_ROUNDS 8
/* Whether the measurement can judge a prediction at all: "within" when even the error's far
 * end is within the tolerance, "outside" when even its near end is outside, else "undecided"
 * (the slowdowns are not known well enough to say). The error's 95 % half-width is the
 * measured and the predicted slowdowns' in quadrature: a prediction made with a cost known to
 * ±20 % (python3's own at 10 %, 2026-11-28, kind A) is that uncertain too, and judged
 * "outside" on its estimate alone 10 times in 26 suites. A predicted_ci95_pp of 0 is a
 * prediction taken as exact; one that is no number (a cost without an interval) is undecided. */
const char *pb_slowdown_verdict(double predicted_pct, double predicted_ci95_pp,
				double measured_pct, double measured_ci95_pp);
/* The rounds that would decide an undecided verdict at the noise seen: the measured interval
 * must come down to the widest one pb_slowdown_verdict decides with (inside the gap between
 * the error and the tolerance at the interval's ends, the prediction's own interval kept as it
 * is), and it narrows as 1 / sqrt(rounds), so rounds x (ci95 / that width)^2, rounded up, and
 * more than the rounds done (t kept at the rounds' own, so an over-estimate). 0 when the
 * verdict is decided or there is no interval; UINT_MAX when no number of rounds decides: the
 * error sits on the tolerance, or the prediction's interval alone spans it. */
unsigned pb_slowdown_rounds_to_decide(double predicted_pct, double predicted_ci95_pp,
				      double measured_pct, double measured_ci95_pp,
				      unsigned rounds);
/* Why no number of rounds decides a verdict that pb_slowdown_rounds_to_decide gave UINT_MAX,
 * in words written to buf ("no number of rounds decides it: ..."): its error lies within the
 * prediction's own interval of the tolerance (more rounds narrow only the measured one; a
 * cost known more precisely would decide it), or on the tolerance itself; an infinite
 * predicted_ci95_pp is a prediction without an upper end, NaN one without an interval.
 * Returns buf. */
const char *pb_slowdown_undecided_why(double predicted_pct, double predicted_ci95_pp,
				      double measured_pct, char *buf, size_t len);
/* Whether a CI half-width is small enough to stop measuring (half the planned tolerance). */
bool pb_slowdown_precise(double predicted_pct, double ci95_pp);
/* The slowdown of paired rounds, in %: the mean of each round's difference (its sampled run
 * minus its own run without perf) over the mean run without perf, and its 95 % CI in points
 * (t, n - 1 df, the delta method over the difference's and the baseline's standard errors;
 * NaN with one round). Pairing takes a drifting machine out of the difference; the mean
 * baseline keeps a short baseline's noise out of the ratio (a uprobe target runs 30 µs without
 * its traps: one round's own baseline, 10 % off, moved its slowdown of 27000 % by 2700
 * points). The suite's predictions and plan --check judge by it alike. Rounds whose figures
 * are no number, or whose baseline is not above 0, are left out; returns the rounds used
 * (none: both NaN). */
unsigned pb_paired_slowdown(const double *diff_ns, const double *base_ns, unsigned n,
			    double *pct, double *ci95_pp);
/* The slowdown of sampled runs over runs without perf measured apart (not in rounds), in %:
 * the means' difference over the baseline's mean, and its 95 % CI in points (the delta method
 * over both means' standard errors, t with Welch-Satterthwaite's df rounded down). NaN for
 * both without a run on either side, the interval NaN with fewer than two on a side. */
void pb_unpaired_slowdown(const double *sampled_ns, unsigned ns, const double *base_ns,
			  unsigned nb, double *pct, double *ci95_pp);
/* What a sample cost over paired rounds: the mean of each round's extra CPU time over its
 * samples, with the t interval (n - 1 df). Rounds without samples or with a figure that is no
 * number are left out; fewer than two left give NaN for both. Returns the rounds used. */
unsigned pb_paired_sample_cost(const double *extra_ns, const double *samples, unsigned n,
			       double *ns, double *ci95);

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
 * paired runs (sampled, and without perf) over a period sweep, CPU time against samples, the
 * rounds designed from the noise and a pilot to resolve within budget_ms (at least
 * min_rounds); target_ms per run. */
struct pb_cost {
	struct pb_fit fit;        /* least squares on thread CPU time, weighted by the noise
				   * model (cost_fit.c) */
	bool resolved;            /* pb_fit_robustly_resolved */
	double theil_sen;         /* Theil–Sen slope on the same pairs */
	double ns_per_event;      /* trapping facilities: the intercept / events per run */
	double noise_ns;          /* one run's CPU time from run to run, measured first */
	double seconds;           /* the sweep took */
	double budget_seconds;    /* ... and was given */
	double seconds_to_resolve; /* unresolved: a sweep of this long would resolve it, its
				    * noise and pilot runs included (NaN: no cost seen to size it
				    * for) */
	bool to_resolve_lower;    /* ... at least that long */
	size_t pairs, pairs_left_out; /* the sweep's pairs, and those a disturbance moved, which
				       * the fit leaves out (PB_DISTURBED_ALPHA) */
	struct pb_rate_model rate;   /* the cost by period (not for a trapping facility) */
	char why[640];            /* unresolved: why */
};
int pb_cost_measure(const struct pb_spec *spec, unsigned min_rounds, uint64_t target_ms,
		    uint64_t budget_ms, struct pb_cost *cost, struct pb_error *err);

struct pb_results;
/* The cost of one sample of facility (delivery mode none) from a results document written by
 * `pesbench run cost` (path names it in messages), with its 95 % half-width. Refused (PB_EXIT_FAILURE, saying why) when
 * the fit did not resolve, a run of its sweep failed, its per-event cost did not resolve, or it
 * carries no resolution figures to check (PB_EXIT_BAD_FILE, as for no fit at all): a cost that
 * was not measured well enough is never planned with. */
int pb_cost_from_results(const struct pb_results *doc, const char *path, const char *facility,
			 double *ns_per_sample, double *ci95_ns, struct pb_rate_model *rate,
			 struct pb_error *err);
/* That fit's pairs and those it left out as disturbed (0 and 0 without a fit, or in a file
 * from before the rule). */
void pb_cost_fit_pairs(const struct pb_results *doc, const char *facility, size_t *pairs,
		       size_t *left_out);

/* One run of a real program: argv executed as given (output discarded), sampled with spec at
 * period (spec NULL: no perf at all; period 0: counting only), user and kernel level. */
struct pb_program_figures {
	uint64_t wall_ns;        /* exec to reap */
	uint64_t cpu_ns;         /* the program's user + system time (wait4) */
	uint64_t main_cpu_ns;    /* its main thread's alone: what a task event without inherit
				  * samples (0: not readable on this kernel) */
	uint64_t samples, lost, count;
	uint64_t maxrss_kib;     /* the program's peak RSS */
	int exit_code;
	bool signaled;
	bool unpinned;           /* a CPU asked for was refused: it ran where the kernel put it */
	int unpinned_errno;
};
/* One run of argv (env_set: "NAME=value" entries over this process's environment, or NULL),
 * sampled by spec at period, or without perf when spec is NULL; on CPU cpu alone, or where the
 * kernel puts it for cpu < 0. */
int pb_program_measure(char *const *argv, char *const *env_set, const struct pb_spec *spec,
		       uint64_t period, unsigned ring_pages, int cpu,
		       struct pb_program_figures *out, struct pb_error *err);

#endif
