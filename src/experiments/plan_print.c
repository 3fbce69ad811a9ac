/* `pesbench plan --check` in words: each check as it ends (the plan's own, then each corrected
 * period), and what the checks leave. */
#include "experiments/plan.h"

#include "analysis/stats.h"
#include "util/text.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a sample cost the command in a check, beside the plan's cost. */
static void put_own_cost(const struct pb_plan_check *c, double planned_ns)
{
	if (!isfinite(c->own_ns_per_sample))
		printf("  a sample cost     not measured: no round had samples");
	else if (isfinite(c->own_ci95_ns))
		printf("  a sample cost     %.1f ± %.1f µs to this command", c->own_ns_per_sample / 1e3,
		       c->own_ci95_ns / 1e3);
	else
		printf("  a sample cost     %.1f µs to this command (one round: no interval)",
		       c->own_ns_per_sample / 1e3);
	printf(" (the plan took %.1f µs)\n", planned_ns / 1e3);
}

/* " ± x" for an interval, or nothing when one round gave none (the rounds are printed). */
static void plus_minus(char *out, size_t len, double ci95)
{
	if (isfinite(ci95))
		snprintf(out, len, " ± %.2f", ci95);
	else
		out[0] = '\0';
}

/* A check's overhead against the budget, in words. */
static void budget_phrase(char *out, size_t len, const struct pb_plan_check *c, double budget)
{
	const char *verdict = pb_plan_budget_verdict(c, budget);
	if (!strcmp(verdict, "at"))
		snprintf(out, len, "its interval holds the %.3g %% budget", budget);
	else if (!strcmp(verdict, "unjudged"))
		snprintf(out, len, "too wide to judge the %.3g %% budget", budget);
	else
		snprintf(out, len, "%s the %.3g %% budget", verdict, budget);
}

/* One check of the plan, or of a period corrected from the check before it. */
void pb_plan_print_step(const struct pb_plan_checks *all, unsigned i, void *plan_arg)
{
	const struct pb_plan *plan = plan_arg;
	const struct pb_plan_check *c = &all->step[i];
	const struct pb_slowdown_model *model = &plan->model;
	double budget = plan->budget_pct;
	const char *unit = model->time_based ? "ns" : "events";
	if (i > 0) {
		const struct pb_plan_check *before = &all->step[i - 1];
		printf("corrected period:   %llu %s: this command's own cost, %.1f µs a sample, "
		       "predicts %.2f %%\n", (unsigned long long)c->period, unit,
		       before->own_ns_per_sample / 1e3, all->planned[i].overhead_pct);
	}
	printf("check:              %llu samples, %llu lost (%s %u round%s)\n",
	       (unsigned long long)c->sampled.samples, (unsigned long long)c->sampled.lost,
	       c->rounds > 1 ? "medians of" : "in", c->rounds, c->rounds > 1 ? "s" : "");
	if (c->rounds_left_out)
		printf("  left out          %u round%s a disturbance moved (a run far above the "
		       "others'): in no figure below\n", c->rounds_left_out,
		       c->rounds_left_out > 1 ? "s" : "");
	printf("  baseline again    %.3f ms CPU (mean of the rounds, each beside a sampled run)\n",
	       c->baseline_ns / 1e6);
	printf("  predicted time    %.3f ms CPU (%s at this period)\n", c->predicted_ns / 1e6,
	       i ? "the corrected model" : "the plan's model");
	char against[64];
	budget_phrase(against, sizeof against, c, budget);
	char pm[48];
	plus_minus(pm, sizeof pm, c->measured_ci95_pp);
	printf("  measured time     %.3f ms CPU, overhead %.2f%s %% (%s)\n",
	       (double)c->sampled.cpu_ns / 1e6, c->measured_pct, pm, against);
	printf("  prediction error  %+.2f %%\n",
	       pb_prediction_error_pct((double)c->sampled.cpu_ns, c->predicted_ns));
	char ppm[48];
	plus_minus(ppm, sizeof ppm, c->predicted_ci95_pp);
	/* the prediction carries its cost's interval, which the verdict weighs with the check's */
	printf("  slowdown          predicted %.2f%s %%, measured %.2f%s %%\n", c->predicted_pct, ppm,
	       c->measured_pct, pm);
	printf("  its error         %+.2f pp: %s (±%.2f pp allowed)\n",
	       c->predicted_pct - c->measured_pct, c->verdict,
	       pb_slowdown_tolerance_pp(c->measured_pct));
	put_own_cost(c, model->ns_per_sample);
	fflush(stdout);
}

/* What the checks leave: the last period checked, with its measured overhead. */
void pb_plan_print_recommended(FILE *out, const struct pb_plan *plan,
			       const struct pb_plan_checks *all)
{
	const struct pb_plan_check *last = &all->step[all->n - 1];
	const char *unit = plan->model.time_based ? "ns" : "events";
	char against[64], pm[48];
	budget_phrase(against, sizeof against, last, plan->budget_pct);
	plus_minus(pm, sizeof pm, last->measured_ci95_pp);
	fprintf(out, "recommended:        %llu %s: overhead %.2f%s %% (%s)\n",
		(unsigned long long)last->period, unit, last->measured_pct, pm, against);
}

/* The undecided check's note: how many rounds would decide it at the noise seen. */
static const char *undecided_why(const struct pb_plan_check *last, char *buf, size_t len)
{
	unsigned need = pb_slowdown_rounds_to_decide(last->predicted_pct, last->predicted_ci95_pp,
						     last->measured_pct, last->measured_ci95_pp,
						     last->rounds);
	const char *head = "the check cannot tell the prediction from its tolerance at this noise";
	char never[320];
	if (need == UINT_MAX)
		pb_format(buf, len, "%s; %s", head,
			  pb_slowdown_undecided_why(last->predicted_pct, last->predicted_ci95_pp,
						    last->measured_pct, never, sizeof never));
	else if (need > PB_PLAN_MAX_RUNS)
		pb_format(buf, len, "%s: about %u rounds would decide it, more than --runs allows "
			  "(%u); measure on a quieter machine", head, need, PB_PLAN_MAX_RUNS);
	else if (need > last->rounds)
		pb_format(buf, len, "%s: about %u rounds would decide it (--runs %u)", head, need,
			  need);
	else
		pb_format(buf, len, "%s: more --runs narrow the interval", head);
	return buf;
}

const char *pb_plan_stopped_why(const struct pb_plan_checks *all, char *buf, size_t len)
{
	const struct pb_plan_check *last = &all->step[all->n - 1];
	if (!strcmp(all->stopped, "undecided") && last->rounds < 2)
		return "one round gives no interval, so the check decides nothing and corrects "
		       "nothing: --runs 3 or more let it";
	if (!strcmp(all->stopped, "undecided"))
		return undecided_why(last, buf, len);
	if (!strcmp(all->stopped, "limit"))
		return "still outside its tolerance after the most corrections: a sample's cost "
		       "moves with the rate for this command here; the last period checked is "
		       "recommended with its measured overhead";
	if (!strcmp(all->stopped, "no change"))
		return "this command's own cost gives the same period again";
	if (!strcmp(all->stopped, "no cost"))
		return "the check measured no cost per sample to correct with";
	if (!strcmp(all->stopped, "cost unresolved")) {
		unsigned need = pb_plan_rounds_to_resolve(last);
		pb_format(buf, len, "the check's own cost of a sample, %.1f ± %.1f µs, did not "
			  "resolve to ±%.0f %%, and a cost that did not is not planned with: ",
			  last->own_ns_per_sample / 1e3, last->own_ci95_ns / 1e3,
			  100 * PB_FIT_MAX_REL_CI);
		if (need > PB_PLAN_MAX_RUNS)
			pb_append(buf, len, "about %u rounds would resolve it, more than --runs "
				  "allows (%u)", need, PB_PLAN_MAX_RUNS);
		else
			pb_append(buf, len, "about %u rounds would resolve it (--runs %u)", need,
				  need);
		return buf;
	}
	return NULL;
}
