/* `pesbench plan`'s measurements: the command alone and counted, the cost of one sample, and
 * the check of a plan against a run at its period. */
#include "experiments/plan.h"

#include "analysis/stats.h"
#include "facilities/machine.h"
#include "io/results.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void pb_plan_facilities(char *out, size_t len)
{
	out[0] = '\0';
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++)
		if (!(*f)->needs_address)
			pb_append(out, len, "%s%s", out[0] ? ", " : "", (*f)->name);
}

/* What a task event without inherit samples: the main thread's CPU time where the kernel
 * gives it, else the whole command's. */
static double sampled_cpu(const struct pb_program_figures *f)
{
	return (double)(f->main_cpu_ns ? f->main_cpu_ns : f->cpu_ns);
}

/* Median wall time (and CPU times, samples, lost, count) of runs of argv. */
static int measure_median(char *const *argv, const struct pb_spec *spec, uint64_t period,
			  unsigned ring, unsigned runs, struct pb_program_figures *med,
			  struct pb_error *err)
{
	double wall[64], cpu[64], main_cpu[64], samples[64], lost[64], count[64];
	for (unsigned r = 0; r < runs; r++) {
		struct pb_program_figures f;
		if (pb_program_measure(argv, NULL, spec, period, ring, -1, &f, err))
			return -1;
		wall[r] = (double)f.wall_ns;
		cpu[r] = (double)f.cpu_ns;
		main_cpu[r] = sampled_cpu(&f);
		samples[r] = (double)f.samples;
		lost[r] = (double)f.lost;
		count[r] = (double)f.count;
	}
	memset(med, 0, sizeof *med);
	med->wall_ns = (uint64_t)pb_median(wall, runs);
	med->cpu_ns = (uint64_t)pb_median(cpu, runs);
	med->main_cpu_ns = (uint64_t)pb_median(main_cpu, runs);
	med->samples = (uint64_t)pb_median(samples, runs);
	med->lost = (uint64_t)pb_median(lost, runs);
	med->count = (uint64_t)pb_median(count, runs);
	return 0;
}

int pb_plan_measure(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		    struct pb_program_figures *base, struct pb_error *err)
{
	const struct pb_facility *facility = req->spec->facility;
	if (facility->needs_address) {
		char whole[160];
		pb_plan_facilities(whole, sizeof whole);
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s needs an address inside the command, "
			       "which plan cannot choose; plan a facility that samples a whole "
			       "program (%s)", req->facility, whole);
	}
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), req->spec, NULL, &av, NULL);
	if (!av.available)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s is not available here: %s",
			       req->facility, av.reason);
	/* The command alone, then its event count (timers need none). */
	if (measure_median(req->argv, NULL, 0, 0, req->runs, base, err))
		return -1;
	/* CPU time: the cost is measured in the command's CPU time, and other programs' load
	 * on the machine does not move it; the main thread's, since only it is sampled (the
	 * processes a shell or a launcher such as a pyenv shim starts are not). */
	*model = (struct pb_slowdown_model){
		.baseline_ns = (double)base->main_cpu_ns,
		.time_based = facility->time_based,
		.min_period = facility->min_period,
		.record_bytes = 48, /* header, ip, pid/tid, time (32), with room to spare */
	};
	if (!model->time_based) {
		struct pb_program_figures counted;
		if (measure_median(req->argv, req->spec, 0, 0, req->runs, &counted, err))
			return -1;
		model->events = (double)counted.count;
	}
	return 0;
}

int pb_plan_cost_from_file(const char *path, const char *facility, double *cost, double *ci95,
			   struct pb_rate_model *rate, size_t *pairs, size_t *left_out,
			   struct pb_error *err)
{
	struct pb_results doc;
	if (pb_results_load(path, &doc, err))
		return -1;
	int rc = pb_cost_from_results(&doc, path, facility, cost, ci95, rate, err);
	if (!rc)
		pb_cost_fit_pairs(&doc, facility, pairs, left_out);
	pb_results_free(&doc);
	return rc;
}

/* The noise and a pilot measured first size the sweep; a cost that does not resolve fails
 * rather than plan on noise. */
int pb_plan_cost_now(const struct pb_spec *spec, const char *facility, uint64_t seconds,
		     double *cost, double *ci95, struct pb_rate_model *rate, size_t *pairs,
		     size_t *left_out, struct pb_error *err)
{
	struct pb_cost c;
	if (pb_cost_measure(spec, 1, 30, seconds * 1000, &c, err))
		return -1;
	if (pairs)
		*pairs = c.pairs;
	if (left_out)
		*left_out = c.pairs_left_out;
	if (c.resolved) {
		*cost = c.fit.slope;
		*ci95 = c.fit.slope_ci95;
		if (rate)
			*rate = c.rate;
		return 0;
	}
	return pb_plan_cost_refused(&c, facility, err);
}

int pb_plan_period(struct pb_plan *plan, struct pb_error *err)
{
	struct pb_slowdown_model *m = &plan->model;
	plan->cost_at_period = false;
	if (pb_period_for_budget(m, plan->budget_pct, &plan->period, err))
		return -1;
	plan->cost_at_period = plan->cost_rate.dependent &&
			       !pb_period_for_budget_on_line(m, &plan->cost_rate, plan->budget_pct,
							     &plan->period, &plan->cost_ci95_ns);
	return 0;
}

void pb_plan_period_range(struct pb_plan *plan)
{
	uint64_t *ends[2] = {&plan->period_lo, &plan->period_hi};
	double *overheads[2] = {&plan->overhead_lo_pct, &plan->overhead_hi_pct};
	/* a cheaper sample allows a shorter period */
	const double sign[2] = {-1, 1};
	for (int k = 0; k < 2; k++) {
		struct pb_slowdown_model m = plan->model;
		struct pb_budget_period at;
		m.ns_per_sample += sign[k] * plan->cost_ci95_ns;
		bool known = isfinite(plan->cost_ci95_ns) && m.ns_per_sample > 0;
		*overheads[k] = known ? pb_slowdown_overhead_pct(&m, plan->period.period) : NAN;
		*ends[k] = known && !pb_period_for_budget(&m, plan->budget_pct, &at, NULL)
			   ? at.period
			   : 0;
	}
}

int pb_plan_cost_refused(const struct pb_cost *c, const char *facility, struct pb_error *err)
{
	/* what to do: appended last, it is the part a cut message keeps whole (the CI of
	 * 2026-11-27 lost the advice after a Theil–Sen disagreement) */
	char advice[360];
	/* 20 % over the estimate: it comes from a CI that is itself an estimate; and more than the
	 * sweep that just failed had or took, whatever the estimate (its design part alone once
	 * asked for the --cost-seconds 5 the user had given) — a time is offered only when the
	 * budget was what limited it */
	double ask = fmax(ceil(c->seconds_to_resolve * 1.2),
			  floor(fmax(c->seconds, c->budget_seconds)) + 1);
	if (isfinite(c->seconds_to_resolve) && ask <= 3600)
		pb_format(advice, sizeof advice, ". A sweep of %s%.0f s would resolve it: "
			  "--cost-seconds %.0f", c->to_resolve_lower ? "more than " : "",
			  c->seconds_to_resolve, ask);
	else if (isfinite(c->seconds_to_resolve))
		pb_format(advice, sizeof advice, ". A sweep of %s%.0f s would resolve it, more "
			  "than --cost-seconds allows (3600): measure on a quieter machine",
			  c->to_resolve_lower ? "more than " : "", c->seconds_to_resolve);
	else if (c->fit.slope > 0 && !pb_fit_resolved(&c->fit))
		pb_format(advice, sizeof advice, ". The sweep had the rounds it was sized for, "
			  "and the noise rose as it ran, which a longer sweep does not mend: "
			  "measure again, or on a quieter machine");
	else if (pb_fit_resolved(&c->fit))
		/* narrow enough, but the two estimators disagree: the pairs bend */
		pb_format(advice, sizeof advice, ". The interval is narrow enough, but the cost "
			  "of a sample differs between the sweep's periods on this machine now, "
			  "which a longer sweep does not mend: measure again later, or on a quieter "
			  "machine");
	else
		pb_format(advice, sizeof advice, ". No cost was seen above the noise to size a "
			  "longer sweep for: measure on a quieter machine");
	return pb_fail_advice(err, PB_EXIT_FAILURE, 0, advice, "the cost of one %s sample could "
			      "not be measured precisely enough on this machine in %.1f s: %.1f ± "
			      "%.1f ns per sample (95 %% CI), R² %.3f (run-to-run noise %.0f ns): "
			      "%s", facility, c->seconds, c->fit.slope, c->fit.slope_ci95, c->fit.r2,
			      c->noise_ns, c->why[0] ? c->why : "not resolved");
}

/* The mean of v's rounds that are numbers: a round a disturbance moved is NaN in the kept
 * figures (kept_rounds) */
static double mean_of(const double *v, unsigned n)
{
	double sum = 0;
	unsigned k = 0;
	for (unsigned r = 0; r < n; r++)
		if (isfinite(v[r])) {
			sum += v[r];
			k++;
		}
	return k ? sum / k : NAN;
}

/* The rounds of a check: as many as asked when that is fewer than a prediction's fewest (a
 * quick look, as `run cost --runs` takes it), else on while the slowdown is not precise. */
static unsigned check_max_rounds(unsigned runs)
{
	return runs < PB_PREDICT_MIN_ROUNDS ? runs
	       : runs > PB_PREDICT_MAX_ROUNDS ? runs : PB_PREDICT_MAX_ROUNDS;
}

/* The rounds' figures with those a disturbance moved (pb_paired_disturbed) as no number. */
struct kept_figures {
	double extra[PB_PLAN_MAX_RUNS], bases[PB_PLAN_MAX_RUNS], cpus[PB_PLAN_MAX_RUNS];
};

static unsigned kept_rounds(const double *extra, const double *bases, const double *cpus,
			    unsigned n, struct kept_figures *k)
{
	bool out[PB_PLAN_MAX_RUNS], far_above;
	unsigned left_out = pb_paired_disturbed(extra, bases, n, out, NULL, &far_above);
	for (unsigned r = 0; r < n; r++) {
		k->extra[r] = out[r] ? NAN : extra[r];
		k->bases[r] = out[r] ? NAN : bases[r];
		k->cpus[r] = out[r] ? NAN : cpus[r];
	}
	return left_out;
}

int pb_plan_check(const struct pb_plan_request *req, struct pb_slowdown_model *model,
		  uint64_t period, unsigned ring_pages, struct pb_plan_check *out,
		  struct pb_error *err)
{
	double cpus[PB_PLAN_MAX_RUNS], bases[PB_PLAN_MAX_RUNS], samples[PB_PLAN_MAX_RUNS],
		lost[PB_PLAN_MAX_RUNS], extra[PB_PLAN_MAX_RUNS], taken[PB_PLAN_MAX_RUNS];
	struct kept_figures kept;
	unsigned most = check_max_rounds(req->runs), n = 0;
	memset(out, 0, sizeof *out);
	out->period = period;
	out->ring_pages = ring_pages;
	double predicted_pct = NAN, measured_pct = NAN, ci95_pp = NAN;
	while (n < most) {
		struct pb_program_figures b, f;
		if (pb_program_measure(req->argv, NULL, NULL, 0, 0, -1, &b, err) ||
		    pb_program_measure(req->argv, NULL, req->spec, period, ring_pages, -1, &f,
				       err))
			return -1;
		bases[n] = sampled_cpu(&b);
		cpus[n] = sampled_cpu(&f);
		samples[n] = (double)f.samples;
		lost[n] = (double)f.lost;
		/* a lost sample cost its interrupt as a kept one did (pb_cost_pair_samples) */
		taken[n] = samples[n] + lost[n];
		extra[n] = cpus[n] - bases[n];
		n++;
		/* as the suite's predictions judge: the rounds no disturbance moved */
		out->rounds_left_out = kept_rounds(extra, bases, cpus, n, &kept);
		pb_paired_slowdown(kept.extra, bases, n, &measured_pct, &ci95_pp);
		model->baseline_ns = mean_of(kept.bases, n);
		predicted_pct = pb_slowdown_overhead_pct(model, period);
		if (n >= req->runs && n >= 2 && pb_slowdown_precise(predicted_pct, ci95_pp))
			break;
	}
	out->rounds = n;
	out->sampled.cpu_ns = (uint64_t)mean_of(kept.cpus, n);
	out->sampled.samples = (uint64_t)pb_median(samples, n);
	out->sampled.lost = (uint64_t)pb_median(lost, n);
	out->baseline_ns = model->baseline_ns;
	/* The same model as the plan: samples from the period, not from the run. */
	out->predicted_ns = pb_model_time_ns(model, period);
	out->predicted_pct = predicted_pct;
	out->measured_pct = measured_pct;
	out->measured_ci95_pp = n >= 2 ? ci95_pp : NAN;
	pb_paired_sample_cost(kept.extra, taken, n, &out->own_ns_per_sample, &out->own_ci95_ns);
	if (n == 1 && taken[0] > 0) /* a quick look (--runs 1): the estimate, no interval */
		out->own_ns_per_sample = extra[0] / taken[0];
	out->predicted_ci95_pp = pb_slowdown_overhead_ci95_pp(model, period);
	out->verdict = pb_slowdown_verdict(out->predicted_pct, out->predicted_ci95_pp,
					   out->measured_pct, out->measured_ci95_pp);
	out->within = pb_slowdown_within(out->predicted_pct, out->measured_pct);
	return 0;
}

bool pb_plan_own_cost_resolved(const struct pb_plan_check *check)
{
	return isfinite(check->own_ns_per_sample) &&
	       pb_cost_resolved(check->own_ns_per_sample, check->own_ci95_ns);
}

unsigned pb_plan_rounds_to_resolve(const struct pb_plan_check *check)
{
	if (!(check->own_ns_per_sample > 0))
		return UINT_MAX;
	/* the cost sweep's own sizing, counted in rounds where it counts seconds */
	struct pb_fit own = {.slope = check->own_ns_per_sample, .slope_ci95 = check->own_ci95_ns};
	bool lower_bound;
	double need = ceil(pb_cost_seconds_to_resolve(&own, check->rounds, &lower_bound));
	return need < UINT_MAX ? (unsigned)need : UINT_MAX;
}

int pb_plan_corrected_period(const struct pb_slowdown_model *planned,
			     const struct pb_plan_check *check, double budget_pct,
			     struct pb_slowdown_model *corrected, struct pb_budget_period *out,
			     struct pb_error *err)
{
	if (!(check->own_ns_per_sample > 0) || !isfinite(check->own_ns_per_sample))
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the check measured no cost per sample "
			       "to correct the plan with (%.1f ns over %u rounds)",
			       check->own_ns_per_sample, check->rounds);
	if (!pb_plan_own_cost_resolved(check))
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the check's own cost of a sample, %.0f ± "
			       "%.0f ns, did not resolve to ±%.0f %%: no period is planned with it",
			       check->own_ns_per_sample, check->own_ci95_ns,
			       100 * PB_FIT_MAX_REL_CI);
	*corrected = *planned;
	corrected->baseline_ns = check->baseline_ns;
	corrected->ns_per_sample = check->own_ns_per_sample;
	corrected->ns_per_sample_ci95 = check->own_ci95_ns;
	return pb_period_for_budget(corrected, budget_pct, out, err);
}

const char *pb_plan_budget_verdict(const struct pb_plan_check *check, double budget_pct)
{
	double ci = isfinite(check->measured_ci95_pp) ? check->measured_ci95_pp : 0;
	if (check->measured_pct + ci <= budget_pct)
		return "within";
	if (check->measured_pct - ci > budget_pct)
		return "OVER";
	if (check->measured_pct - ci <= 0 && check->measured_pct + ci >= 2 * budget_pct)
		return "unjudged";
	return "at";
}

void pb_plan_watch_start(struct pb_plan *plan)
{
	pb_machine_load_watch(NULL, &plan->load_watch);
	pb_speed_watch_start(&plan->speed_watch);
	pb_speed_watch_probe(&plan->speed_watch);
}

void pb_plan_watch_probe(struct pb_plan *plan)
{
	if (plan->speed_watch.started_ns)
		pb_speed_watch_probe(&plan->speed_watch);
}

void pb_plan_watch_end(struct pb_plan *plan)
{
	pb_machine_load_since(NULL, &plan->load_watch, &plan->load);
	pb_plan_watch_probe(plan);
	pb_speed_summarize(&plan->speed_watch, &plan->speed);
}

int pb_plan_check_and_correct(const struct pb_plan_request *req, struct pb_plan *plan,
			      bool ring_given, struct pb_plan_checks *out,
			      void (*progress)(const struct pb_plan_checks *, unsigned, void *),
			      void *ctx,
			      struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	struct pb_slowdown_model model = plan->model;
	/* the plan's prediction carries its cost's interval */
	model.ns_per_sample_ci95 = plan->cost_ci95_ns;
	out->planned[0] = plan->period;
	uint64_t period = plan->period.period;
	unsigned ring = plan->ring_pages;
	for (;;) {
		struct pb_plan_check *c = &out->step[out->n];
		if (pb_plan_check(req, &model, period, ring, c, err))
			return -1;
		out->n++;
		pb_plan_watch_probe(plan);
		if (progress)
			progress(out, out->n - 1, ctx);
		/* corrected when the check decides against the plan: its slowdown outside the
		 * tolerance, or its whole interval over the budget (one round has none) */
		bool over = isfinite(c->measured_ci95_pp) &&
			    !strcmp(pb_plan_budget_verdict(c, plan->budget_pct), "OVER");
		if (strcmp(c->verdict, "outside") && !over) {
			out->stopped = strcmp(c->verdict, "within") ? "undecided" : "held";
			return 0;
		}
		if (out->n > PB_PLAN_MAX_CORRECTIONS) {
			out->stopped = "limit";
			return 0;
		}
		struct pb_budget_period next;
		struct pb_error why = {0};
		if (pb_plan_corrected_period(&plan->model, c, plan->budget_pct, &model, &next,
					     &why)) {
			out->stopped = c->own_ns_per_sample > 0 && !pb_plan_own_cost_resolved(c)
					       ? "cost unresolved" : "no cost";
			return 0;
		}
		if (next.period == period) {
			out->stopped = "no change";
			return 0;
		}
		out->planned[out->n] = next;
		period = next.period;
		if (!ring_given)
			ring = next.ring_pages;
	}
}
