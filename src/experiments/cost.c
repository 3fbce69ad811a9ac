/* Cost of one sample (Akiyama & Hirofuchi, 4.2) and prediction (4.4-4.5), measured so that noise
 * cannot pose as cost.
 *
 * The facility samples a workload with (almost) no data traffic — the register-only busy loop —
 * single-threaded, separately per delivery mode, over a sweep of periods. Every sampled run is
 * paired with a run of the same iterations without perf, next to it in time (the order inside a
 * pair alternates, and so does the direction of the sweep), and the pair gives one point:
 * x = samples taken, y = the sampled run's extra CPU time over its partner's. CPU time is the
 * measured thread's own (CLOCK_THREAD_CPUTIME_ID: user + kernel, and the interrupts and traps
 * taken while it ran), so the time it spent waiting for a CPU that other programs held does not
 * count; the same fit on wall time is reported beside it. The least-squares slope is the cost
 * of one sample (ns), with R², its 95 % CI and the intercept's; Theil–Sen's slope on the same
 * points stands beside it, and the fit is flagged when it falls outside the least-squares CI.
 * The rounds are a design fixed before the first of them (cost_sweep.c): the machine's noise
 * and a pilot of the cost, measured first and not fitted, size them for a 95 % CI within ±5 %
 * of the pilot's slope inside the mode's budget. The fit resolves when its slope is positive
 * and its CI within ±10 %, with Theil–Sen inside it or the two summed within ±10 %
 * (pb_fit_robustly_resolved; R² is reported, not required); one that does
 * not is kept with its interval, the reason and the time a sweep that resolves it would need.
 *
 * Facilities that trap on every event, sampled or not (breakpoints, uprobes:
 * traps_every_event), pay a cost per event on top of the cost per sample. The partner run
 * without perf pays neither, the events per run are fixed by the iterations, so the intercept
 * is the events' cost: intercept / events is the cost per event, the slope the cost per sample
 * on top of its event's trap.
 *
 * Mode none's slope is the kernel's floor (taking the sample and writing the record); each
 * other mode's excess over it is what its delivery adds.
 *
 * Prediction then checks the model on other programs: predicted time = baseline + cost per
 * event x events + cost per sample x samples, the samples following from the period (a timer:
 * n = T0 / (P - c), it counts its own cost; events: E / P), against the measured time, at three
 * periods, on 1 and N threads, for another workload of the suite and — for the timer, which can
 * sample any program — for real programs run as given (xz compressing a generated file, python3
 * running a loop), with E = (measured - predicted) / predicted on CPU time (and on wall time
 * beside it). Baselines are interleaved with the sampled runs. */
#include "experiments/cost_parts.h"
#include "experiments/experiment.h"
#include "experiments/suite_defaults.h"

#include "analysis/stats.h"
#include "workloads/workload.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const enum pb_delivery modes[] = {PB_DELIVERY_NONE, PB_DELIVERY_SIGNAL,
					 PB_DELIVERY_SIGTRAP, PB_DELIVERY_DRAIN};
#define NMODES (PB_ARRAY_SIZE(modes))

static bool is_timer(const struct pb_spec *s)
{
	return s->facility->time_based;
}

const char *pb_cost_workload(const struct pb_spec *s)
{
	return pb_spec_workload(s, PB_ROLE_COST, NULL);
}

/* Another workload for the prediction; NULL when only the cost workload has the events. */
static const char *predict_workload(const struct pb_spec *s)
{
	return pb_spec_workload(s, PB_ROLE_PREDICT, NULL);
}

unsigned pb_cost_periods(const struct pb_suite_options *o, const struct pb_spec *s,
			     uint64_t *p)
{
	if (o->nperiods) {
		memcpy(p, o->periods, o->nperiods * sizeof *p);
		return o->nperiods;
	}
	return pb_cost_sweep_periods(s->facility, p);
}

/* The fewest rounds a mode's design may have: two for mode none, the floor every other figure
 * and the prediction stand on (each period measured twice, so that one disturbed round cannot
 * carry it), one for the others; --runs 1 asks for one. The design sizes the rest. */
static unsigned min_rounds(const struct pb_suite_options *o, enum pb_delivery mode)
{
	return mode == PB_DELIVERY_NONE && o->runs >= 2 ? 2 : 1;
}


/* Prediction rounds: every round is a baseline and one run per period. At least three, so
 * that one disturbed run cannot carry a point (a uprobe run at period 1 once took 80 ms where
 * its partner took 67: +25 % and +4.5 %, judged +14.7 %); more, up to the most, while a
 * measured slowdown is not yet known well enough to judge its prediction (cost_predict.c). */
unsigned pb_cost_predict_rounds(const struct pb_suite_options *o)
{
	return o->runs < PB_PREDICT_MIN_ROUNDS ? o->runs : PB_PREDICT_MIN_ROUNDS;
}

unsigned pb_cost_predict_max_rounds(const struct pb_suite_options *o)
{
	return o->runs < PB_PREDICT_MIN_ROUNDS ? o->runs : PB_PREDICT_MAX_ROUNDS;
}

/* How many classes of probe site besides the first the cost workload offers a facility whose
 * cost per event depends on the site (each gets a sweep in mode none); 0 for the others. */
static unsigned other_site_classes(const struct pb_spec *s, const struct pb_machine *m)
{
	if (!s->facility->event_cost_class || !pb_spec_sits_on_instruction(s))
		return 0;
	struct pb_workload_choice wc;
	struct pb_truth *t = calloc(1, sizeof *t);
	const char *seen[PB_WL_MAX_LABELS];
	unsigned nseen = 0;
	if (t && !pb_workload_parse(pb_cost_workload(s), &wc, NULL) &&
	    !pb_workload_truth(&wc, 1, t, NULL)) {
		int first = pb_truth_default_label(t);
		for (unsigned l = 0; l < t->nlabels; l++) {
			if (!t->labels[l].per_iteration && (int)l != first)
				continue;
			char insn[96];
			const char *cls = pb_spec_event_cost_class(m, s, t->labels[l].addr, insn,
								   sizeof insn);
			bool known = !cls || !strcmp(cls, PB_SITE_REFUSED);
			for (unsigned i = 0; i < nseen && !known; i++)
				known = !strcmp(seen[i], cls);
			if (!known)
				seen[nseen++] = cls;
		}
	}
	free(t);
	return nseen > 1 ? nseen - 1 : 0;
}

unsigned pb_cost_design_pairs_counted(unsigned np, enum pb_delivery mode)
{
	return (mode == PB_DELIVERY_NONE ? 2 : 1) * np;
}

/* The prediction runs count_runs counts on the suite's workload: a round is the baseline and
 * three periods (and, on one thread, the reference's pair, beside a facility without a cost
 * per event), the fewest rounds, on one thread and on the most; a refused prediction takes
 * them off the progress bar. */
static unsigned workload_predictions_counted(const struct pb_suite_options *o,
					     const struct pb_spec *s)
{
	if (!predict_workload(s))
		return 0;
	unsigned thread_counts = o->nthreads && o->threads[o->nthreads - 1] > 1 ? 2 : 1;
	return thread_counts * pb_cost_predict_rounds(o) * 4 +
	       (s->facility->traps_every_event ? 0 : 2 * pb_cost_predict_rounds(o));
}

/* The same on the real programs (a timer's): two, each a baseline and three periods. */
static unsigned program_predictions_counted(const struct pb_suite_options *o,
					    const struct pb_spec *s)
{
	return is_timer(s) ? 2 * pb_cost_predict_rounds(o) * 4 : 0;
}

/* Steps of the progress bar: a sweep's pair (noise, pilot, design) is one, a prediction's run
 * is one. */
static unsigned cost_count_runs(const struct pb_suite_options *o, const struct pb_spec *s)
{
	uint64_t p[PB_MAX_LIST];
	unsigned np = pb_cost_periods(o, s, p);
	/* The noise and pilot pairs and a design of each mode; the design's size is not known
	 * before its noise and pilot are measured, and the sweep corrects the count then. A
	 * facility that traps on every event takes its noise from the pilot. */
	unsigned n = s->facility->traps_every_event ? 0 : NOISE_PAIRS;
	for (unsigned m = 0; m < NMODES; m++)
		n += 2 * PILOT_PAIRS + pb_cost_design_pairs_counted(np, modes[m]);
	n += other_site_classes(s, o->machine) *
	     (2 * PILOT_PAIRS + pb_cost_design_pairs_counted(np, PB_DELIVERY_NONE));
	return n + workload_predictions_counted(o, s) + program_predictions_counted(o, s);
}

/* Most site classes a facility's cost workload is swept on (uprobes: emulated,
 * single-stepped, optimized). */
#define MAX_SITE_CLASSES 4

static bool class_fitted(const struct cost_fit *fits, size_t n, const char *cls)
{
	for (size_t i = 0; i < n; i++)
		if (fits[i].site_class && !strcmp(fits[i].site_class, cls))
			return true;
	return false;
}

/* What a sweep point of a mode carries besides its period. */
struct sweep_point_ctx {
	struct pb_results *res;
	const char *facility, *workload, *site;
	uint64_t iterations;
};

static struct pb_result_point *sweep_point(void *ctx, uint64_t period, enum pb_delivery mode)
{
	const struct sweep_point_ctx *c = ctx;
	struct pb_result_point *p = pb_results_point(c->res, "cost", c->facility, c->workload);
	struct pb_rset *par = &p->params;
	pb_rset_text(par, "kind", "sweep");
	pb_rset_text(par, "delivery", pb_delivery_name(mode));
	pb_rset_int(par, "period", PB_UNIT_NONE, (int64_t)period);
	pb_rset_int(par, "threads", PB_UNIT_THREADS, 1);
	pb_rset_int(par, "iterations", PB_UNIT_ITERATIONS, (int64_t)c->iterations);
	if (c->site)
		pb_rset_text(par, "site", c->site);
	return p;
}

/* For a facility whose cost per event depends on the probe site's class: a sweep in mode none
 * on one more label of the cost workload for each class the first site did not cover, so that
 * a target of that class is predicted from a cost measured on its own class. The kernel's
 * refusals are skipped (nothing to measure there). */
static int sweep_other_sites(const struct pb_suite_options *o, const char *facility,
			     const struct pb_spec *spec, const struct sweep_setup *first,
			     const char *wl, struct pb_results *res, struct cost_fit *site_fits,
			     size_t *nsite, struct pb_error *err)
{
	struct pb_truth *t = calloc(1, sizeof *t);
	if (!t)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	int rc = 0;
	if (pb_workload_truth(&first->sampled.workload, first->sampled.iterations, t, NULL))
		goto out;
	for (unsigned l = 0; l < t->nlabels && *nsite < MAX_SITE_CLASSES && !rc; l++) {
		if (!t->labels[l].per_iteration)
			continue;
		struct sweep_setup su = *first;
		su.draws_spare = false;
		pb_format(su.sampled.label, sizeof su.sampled.label, "%s", t->labels[l].name);
		char label[64], insn[96];
		const char *cls = pb_cost_site_of(&su.sampled, spec, label, sizeof label, insn, sizeof insn);
		if (!cls || !strcmp(cls, PB_SITE_REFUSED) || class_fitted(site_fits, *nsite, cls))
			continue;
		/* Calibrated on this site: its traps may cost 20 times the first site's. */
		struct pb_error cal_err = {0};
		su.sampled.events[0].period = su.periods[su.np - 1];
		su.sampled.iterations = pb_calibrate_for(&su.sampled, o->target_ms / 2 ? o->target_ms / 2
									: 1, &cal_err);
		struct cost_fit *cf = &site_fits[*nsite];
		struct sweep_point_ctx pc = {res, facility, wl, label, su.sampled.iterations};
		su.new_point = sweep_point;
		su.point_ctx = &pc;
		struct pb_error mode_err = {0};
		int mrc = -1;
		if (su.sampled.iterations) {
			su.base = su.sampled;
			su.base.no_perf = true;
			su.base.nevents = 0;
			/* another site, other iterations: its own noise */
			su.noise_pairs = 0;
			su.base_cpu_ns = 0;
			su.budget_ns = (uint64_t)BUDGET_NONE_TARGETS * o->target_ms * 1000000ull;
			su.min_rounds = min_rounds(o, PB_DELIVERY_NONE);
			mrc = pb_cost_sweep_mode(&su, PB_DELIVERY_NONE, cf, &mode_err);
		} else {
			memset(cf, 0, sizeof *cf);
			mode_err = cal_err;
		}
		if (mrc && mode_err.code == PB_EXIT_INTERRUPTED) {
			*err = mode_err;
			rc = -1;
			break;
		}
		pb_cost_fit_site(cf, cls, label, insn);
		/* issue 21: a failed run clears both costs before the point is written, so that
		 * neither the JSON nor a prediction can take them */
		if (mrc)
			pb_cost_fit_failed(cf, mode_err.msg);
		pb_cost_fit_point(res, facility, wl, PB_DELIVERY_NONE, cf, NULL);
		(*nsite)++;
	}
out:
	free(t);
	return rc;
}

/* Whether an unresolved per-sample cost is small enough beside the per-event cost to leave
 * out of a prediction (PB_SAMPLE_TERM_MAX_SHARE at its CI's upper end), and that end (no
 * less than 0: a sample adds no negative cost) into *bound_ns. */
static bool sample_bounded(const struct cost_fit *cf, double *bound_ns)
{
	double hi = cf->cpu.slope + cf->cpu.slope_ci95;
	*bound_ns = fmax(hi, 0);
	return cf->fitted && !cf->error[0] && cf->per_event && cf->event_resolved &&
	       !cf->resolved && isfinite(hi) && cf->event_ns > 0 &&
	       hi <= PB_SAMPLE_TERM_MAX_SHARE * cf->event_ns;
}

static struct pb_site_cost site_cost(const struct cost_fit *cf)
{
	double bound;
	return (struct pb_site_cost){cf->site_class, cf->site, cf->site_insn,
				     cf->resolved && !cf->error[0],
				     cf->event_resolved && !cf->error[0], cf->per_event,
				     sample_bounded(cf, &bound)};
}

/* The fit a target site's prediction uses: the one measured on a site of the target's class.
 * NULL, with a refused prediction point saying why, when there is none. */
static const struct cost_fit *fit_for_target(const struct pb_suite_options *o,
					     const char *facility, const struct pb_spec *spec,
					     const char *workload, const struct cost_fit *fits,
					     size_t n, struct pb_results *res,
					     struct pb_point_request *target, char *label,
					     char *insn, const char **cls)
{
	*cls = NULL;
	label[0] = insn[0] = 0;
	if (!fits[0].site_class)
		return &fits[0];
	if (pb_suite_request(target, spec, workload, 0, 1, PB_DELIVERY_NONE, NULL))
		return &fits[0];
	target->machine = o->machine;
	*cls = pb_cost_site_of(target, spec, label, 64, insn, 96);
	struct pb_site_cost sc[MAX_SITE_CLASSES];
	for (size_t i = 0; i < n; i++)
		sc[i] = site_cost(&fits[i]);
	char why[480];
	int k = pb_site_cost_pick(sc, n, *cls, label, insn, why, sizeof why);
	if (k >= 0)
		return &fits[k];
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	pb_rset_text(&p->params, "kind", "prediction");
	pb_rset_text(&p->params, "not_applicable", why);
	pb_rset_text(&p->params, "note", why);
	pb_rset_text(&p->params, "site", label);
	pb_rset_text(&p->params, "site_insn", insn);
	pb_rset_text(&p->params, "site_class", *cls);
	return NULL;
}

static int cost_run(const struct pb_suite_options *o, const struct pb_spec *asked,
		    struct pb_results *res, struct pb_error *err)
{
	const char *facility = asked->text;
	const struct pb_spec spec = *asked;
	struct sweep_setup su;
	/* Half the suite's run time per run: a pair is two runs, and the sweep repeats. */
	if (pb_cost_setup_sweep(&su, facility, &spec, o->machine, o->target_ms / 2, err))
		return -1;
	su.o = o;
	su.np = pb_cost_periods(o, &spec, su.periods);

	char wl[320], params[256];
	pb_workload_params_text(&su.sampled.workload, params, sizeof params);
	pb_format(wl, sizeof wl, "%s%s%s", su.sampled.workload.workload->name,
		  params[0] && strcmp(params, "-") ? ":" : "",
		  params[0] && strcmp(params, "-") ? params : "");
	char site[64], site_insn[96];
	const char *site_class = pb_cost_site_of(&su.sampled, &spec, site, sizeof site, site_insn,
					 sizeof site_insn);

	struct cost_fit fits[NMODES];
	bool none_ok = false;
	struct sweep_point_ctx pc = {res, facility, wl, site_class ? site : NULL,
				     su.sampled.iterations};
	su.new_point = sweep_point;
	su.point_ctx = &pc;
	su.design_periods = !o->nperiods;
	su.draws_spare = true;
	for (unsigned m = 0; m < NMODES; m++) {
		su.budget_ns = (uint64_t)(m ? BUDGET_MODE_TARGETS : BUDGET_NONE_TARGETS) *
			       o->target_ms * 1000000ull;
		su.min_rounds = min_rounds(o, modes[m]);
		struct pb_error mode_err = {0};
		int rc = pb_cost_sweep_mode(&su, modes[m], &fits[m], &mode_err);
		if (rc && mode_err.code == PB_EXIT_INTERRUPTED) {
			if (err)
				*err = mode_err;
			return -1;
		}
		if (site_class)
			pb_cost_fit_site(&fits[m], site_class, site, site_insn);
		/* A mode the facility refuses is a result, not the end of the suite; the fit
		 * resolves nothing then (issue 21: `resolved` was written before this cleared
		 * it). */
		if (rc)
			pb_cost_fit_failed(&fits[m], mode_err.msg);
		pb_cost_fit_point(res, facility, wl, modes[m], &fits[m], m ? &fits[0] : NULL);
		if (m == 0)
			none_ok = !rc && fits[0].fitted;
	}
	if (!none_ok) {
		/* no floor: every prediction is refused, saying why */
		pb_suite_more_runs(o, -(int)(workload_predictions_counted(o, &spec) +
					      program_predictions_counted(o, &spec)));
		const char *other = predict_workload(&spec);
		if (other)
			pb_cost_refuse_prediction(res, facility, other, &fits[0], NULL);
		for (size_t i = 0; is_timer(&spec) && i < 2; i++)
			pb_cost_refuse_prediction(res, facility, pb_cost_program_names[i], &fits[0],
						  NULL);
		return 0;
	}

	/* Mode none on the cost workload's other site classes, for targets of those classes. */
	struct cost_fit *site_fits = calloc(MAX_SITE_CLASSES, sizeof *site_fits);
	if (!site_fits)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	size_t nsite = 1;
	site_fits[0] = fits[0];
	if (site_class &&
	    sweep_other_sites(o, facility, &spec, &su, wl, res, site_fits, &nsite, err)) {
		free(site_fits);
		return -1;
	}

	/* Prediction with the cost of mode none (samples read after the run, as in the fit) of
	 * the target site's class, the cost workload measured again beside each target. */
	int rc = 0;
	/* Beside the suite's own workload on one thread only, for the suite's time: the reference
	 * is the same workload at the same period for the target on N threads and the programs,
	 * seconds apart. */
	struct pb_cost_reference reference = {.sampled = su.sampled};
	reference.sampled.delivery = PB_DELIVERY_NONE;
	reference.base = reference.sampled;
	reference.base.no_perf = true;
	reference.base.nevents = 0;
	const struct pb_cost_reference *ref = fits[0].per_event ? NULL : &reference;
	const char *other = predict_workload(&spec);
	/* how far the cost moved while the suite ran, once measured again beside a target */
	double cost_moved = 0;
	if (other) {
		struct pb_point_request target;
		char label[64], insn[96];
		const char *cls;
		const struct cost_fit *use = fit_for_target(o, facility, &spec, other, site_fits,
							    nsite, res, &target, label, insn, &cls);
		struct cost_fit model;
		int k = use ? (int)(use - site_fits) : -1;
		struct pb_site_cost sc[MAX_SITE_CLASSES];
		for (size_t i = 0; i < nsite; i++)
			sc[i] = site_cost(&site_fits[i]);
		int source = use ? pb_site_cost_sample_source(sc, nsite, k) : -1;
		if (use && source == 0 && k != 0) {
			/* The site's cost per event, with the per-sample cost of the first site. */
			model = *use;
			model.cpu.slope = site_fits[0].cpu.slope;
			model.cpu.slope_ci95 = site_fits[0].cpu.slope_ci95;
			pb_format(model.sample_cost_from, sizeof model.sample_cost_from, "%s",
				  site_fits[0].site);
			model.resolved = true;
			use = &model;
		}
		if (!use || source < 0)
			pb_suite_more_runs(o, -(int)workload_predictions_counted(o, &spec));
		double bound;
		if (use && source == k && sample_bounded(use, &bound)) {
			/* the per-sample cost left out, its bound said beside each prediction */
			model = *use;
			model.sample_left_out = true;
			model.sample_bound_ns = bound;
			model.cpu.slope = 0;
			use = &model;
		}
		if (use && source < 0) {
			pb_cost_refuse_prediction(res, facility, other, use, &site_fits[0]);
		} else if (use) {
			uint64_t pp[3];
			double aimed[3];
			unsigned npp = pb_cost_prediction_periods(&spec, use, su.periods, su.np, pp,
								  aimed);
			unsigned tc[2] = {1, o->threads[o->nthreads - 1]};
			for (unsigned t = 0; t < (tc[1] > 1 ? 2u : 1u) && !rc; t++)
				rc = pb_cost_predict_workload(o, facility, &spec, other, tc[t], pp,
							   aimed, npp,
							   use,
							   use == &site_fits[0] && tc[t] == 1 ? ref
											       : NULL,
							   &cost_moved, res, err);
		}
	}
	if (!rc && is_timer(&spec)) {
		if (!pb_cost_fit_usable(&fits[0])) {
			pb_suite_more_runs(o, -(int)program_predictions_counted(o, &spec));
			for (size_t i = 0; i < 2; i++)
				pb_cost_refuse_prediction(res, facility, pb_cost_program_names[i],
							  &fits[0], NULL);
		} else {
			rc = pb_cost_real_programs(o, facility, &spec, &fits[0], cost_moved, res,
						   err);
		}
	}
	free(site_fits);
	return rc;
}

const struct pb_experiment pb_experiment_cost = {
	.name = "cost",
	.summary = "ns per sample (and per event) from paired runs over a period sweep: slope, "
		   "R², CI, Theil–Sen; predicted vs measured time",
	.run = cost_run,
	.count_runs = cost_count_runs,
};

