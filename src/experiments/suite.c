#include "experiments/suite.h"

#include "facilities/facility.h"
#include "facilities/machine.h"
#include "machine/load.h"
#include "runner/cpu_speed.h"
#include "util/kit.h"
#include "util/text.h"

#include <stdlib.h>
#include <string.h>

static void skip(struct pb_suite *s, struct pb_results *res, const char *facility,
		 const char *reason)
{
	pb_results_skip(res, facility, reason);
	if (s->nskipped == PB_MAX_LIST)
		return;
	struct pb_suite_skip *k = &s->skipped[s->nskipped++];
	k->facility = facility;
	pb_format(k->reason, sizeof k->reason, "%s", reason);
}

void pb_suite_choose(struct pb_suite *s, const struct pb_machine *m, const struct pb_spec *asked,
		     unsigned nasked, const struct pb_suite_options *o, struct pb_results *res)
{
	if (!s->nexperiments)
		for (const struct pb_experiment *const *e = pb_experiment_list();
		     *e && s->nexperiments < PB_SUITE_MAX_EXPERIMENTS; e++)
			s->experiments[s->nexperiments++] = *e;
	s->nrunnable = s->nskipped = 0;
	struct pb_spec wanted[PB_MAX_LIST];
	unsigned nwanted = 0;
	if (nasked)
		for (unsigned i = 0; i < nasked && nwanted < PB_MAX_LIST; i++)
			wanted[nwanted++] = asked[i];
	else
		/* What the default suite samples with, where the machine has it: each
		 * facility's own suite spec. */
		for (const struct pb_facility *const *f = pb_facility_list();
		     *f && nwanted < PB_MAX_LIST; f++) {
			struct pb_error err = {0};
			if (!(*f)->suite_spec)
				continue;
			if (pb_facility_suite_parsed(*f, &wanted[nwanted], &err))
				skip(s, res, (*f)->suite_spec, err.msg);
			else
				nwanted++;
		}
	for (unsigned i = 0; i < nwanted; i++) {
		struct pb_availability av;
		pb_facility_check(m, &wanted[i], NULL, &av, NULL);
		if (av.available) {
			s->runnable[s->nrunnable++] = wanted[i];
			continue;
		}
		/* the skip names the spec by its text, which the suite keeps */
		const char *text = wanted[i].text;
		if (s->nskipped < PB_MAX_LIST) {
			s->skipped_specs[s->nskipped] = wanted[i];
			text = s->skipped_specs[s->nskipped].text;
		}
		skip(s, res, text, av.reason);
	}
	s->total_runs = 0;
	for (unsigned f = 0; f < s->nrunnable; f++)
		for (unsigned e = 0; e < s->nexperiments; e++)
			s->total_runs += s->experiments[e]->count_runs(o, &s->runnable[f]);
}

int pb_suite_check_periods(const struct pb_spec *specs, unsigned n,
			   const struct pb_suite_options *o, struct pb_error *err)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned p = 0; p < o->nperiods; p++)
			if (pb_spec_check_period(&specs[i], o->periods[p], "--period", err))
				return -1;
	return 0;
}

/* What else the machine did during the suite, into res's closing fields: other_load_cpus and
 * steal_pct with their 95 % half-widths, and the machine's online CPUs (load_cpus); nothing
 * when the load could not be read (a saved tree without /proc/stat). */
static void record_load(struct pb_results *res, const struct pb_machine_load *load)
{
	if (!load->valid)
		return;
	pb_rset_real(&res->tail, "other_load_cpus", PB_UNIT_COUNT, load->other_cpus);
	pb_rset_real(&res->tail, "other_load_cpus_ci95", PB_UNIT_COUNT, load->other_cpus_ci95);
	pb_rset_real(&res->tail, "load_cpus", PB_UNIT_COUNT, load->cpus);
	pb_rset_real(&res->tail, "steal_pct", PB_UNIT_PERCENT, load->steal_pct);
	pb_rset_real(&res->tail, "steal_ci95_pp", PB_UNIT_PERCENT_POINTS, load->steal_ci95_pp);
}

/* The CPUs' speed over the suite (runner/cpu_speed.h) into res's closing fields: the probes,
 * the slower ones, the slowest ratio and its CPU, and the sentence the summary and the report
 * show. */
static void record_speed(struct pb_results *res, const struct pb_speed_watch *w)
{
	struct pb_speed_summary sum;
	pb_speed_summarize(w, &sum);
	if (!sum.valid)
		return;
	pb_rset_int(&res->tail, "cpu_speed_probes", PB_UNIT_COUNT, sum.probes);
	pb_rset_int(&res->tail, "cpu_speed_slower_probes", PB_UNIT_COUNT, sum.slower);
	pb_rset_real(&res->tail, "cpu_speed_slowest_ratio", PB_UNIT_RATIO, sum.slowest_ratio);
	pb_rset_int(&res->tail, "cpu_speed_slowest_cpu", PB_UNIT_NONE, sum.slowest_cpu);
	char note[512];
	pb_speed_text(&sum, note, sizeof note);
	pb_rset_text(&res->tail, "cpu_speed_note", note);
}

/* Probes the CPUs' speed between experiments, on this machine only: a saved tree's machine is
 * not the one the loop would run on. */
static void probe_speed(const struct pb_suite_options *o, struct pb_speed_watch *w)
{
	if (w && (!o->machine || !o->machine->root[0]))
		pb_speed_watch_probe(w);
}

int pb_suite_run(const struct pb_suite *s, const struct pb_suite_options *o,
		 struct pb_results *res, pb_suite_failure_fn on_failure, void *ctx,
		 double *seconds)
{
	/* the suite's clock, and what else the machine did meanwhile */
	struct pb_load_watch load_watch;
	pb_machine_load_watch(o->machine, &load_watch);
	/* (no memory for it: no probes, and no figures said of them) */
	struct pb_speed_watch *speed = malloc(sizeof *speed);
	if (speed)
		pb_speed_watch_start(speed);
	probe_speed(o, speed);
	int rc = PB_EXIT_OK;
	struct pb_error err = {0};
	/* one pool of the cost fits' unused budget for the whole suite */
	struct pb_suite_options suite_o = *o;
	struct pb_cost_spare spare = {0};
	if (!suite_o.cost_spare)
		suite_o.cost_spare = &spare;
	for (unsigned f = 0; f < s->nrunnable && rc == PB_EXIT_OK; f++) {
		for (unsigned e = 0; e < s->nexperiments; e++) {
			const struct pb_experiment *x = s->experiments[e];
			int failed = x->run(&suite_o, &s->runnable[f], res, &err);
			probe_speed(o, speed);
			if (!failed)
				continue;
			if (err.code == PB_EXIT_INTERRUPTED) {
				rc = PB_EXIT_INTERRUPTED;
				break;
			}
			/* One facility failing one experiment is a result, not the end. */
			struct pb_result_point *p =
				pb_results_point(res, x->name, s->runnable[f].text, NULL);
			pb_rset_text(&p->params, "error", err.msg);
			if (on_failure)
				on_failure(ctx, x->name, s->runnable[f].text, err.msg);
			pb_error_clear(&err);
		}
	}
	double elapsed = (double)(pb_now_ns() - load_watch.started_ns) / 1e9;
	struct pb_machine_load load;
	pb_machine_load_since(o->machine, &load_watch, &load);
	pb_rset_real(&res->tail, "suite_seconds", PB_UNIT_S, elapsed);
	record_load(res, &load);
	if (speed)
		record_speed(res, speed);
	free(speed);
	if (seconds)
		*seconds = elapsed;
	return rc;
}
