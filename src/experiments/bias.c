/* Bias and attribution (main study, IV-C): four identical loads per iteration, so an unbiased
 * facility puts 25 % of its samples on each; variants put an lfence before them or make the
 * first a likely miss. Every sample's IP is attributed twice: to the instruction at the IP
 * (right for exact facilities) and to the instruction before it (the IP+1 correction, right
 * for facilities that report the next instruction: data breakpoints, and the usual guess for
 * skid). Reported per run: share per load, samples on unlabelled instructions, and the
 * largest deviation from the ideal share. Exact facilities also run at a period that divides
 * the loop (4), where periodic sampling must lock onto one load. */
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const variants[] = {"plain", "lfence", "miss"};
#define NVARIANTS 3

static unsigned bias_periods(const struct pb_suite_options *o, const struct pb_spec *spec,
			     uint64_t *periods)
{
	if (o->nperiods) {
		memcpy(periods, o->periods, o->nperiods * sizeof *periods);
		return o->nperiods;
	}
	if (spec->facility->exact) {
		periods[0] = 7;
		periods[1] = 4;
		return 2;
	}
	periods[0] = pb_plan_accuracy_period(spec);
	return 1;
}

static unsigned bias_plan(const struct pb_suite_options *o, const char *facility)
{
	char buf[64];
	const char *why;
	const char *spec_text = pb_plan_spread_facility(facility, buf, sizeof buf, &why);
	struct pb_spec spec;
	if (!spec_text || pb_spec_parse(spec_text, &spec, NULL))
		return 0;
	uint64_t periods[PB_MAX_LIST];
	return NVARIANTS * bias_periods(o, &spec, periods) * o->runs;
}

/* Adds the attribution of one run: per load, samples at it and samples right after it. */
static void attribute_run(void *ctx, const struct pb_point *pt, json_t *run)
{
	(void)ctx;
	const struct pb_truth *truth = &pt->instance.truth;
	uint64_t total = pt->ev[0].observed;
	json_t *labels = json_array();
	uint64_t labelled_raw = 0, labelled_fixed = 0;
	unsigned nloads = 0;
	double max_dev_raw = 0, max_dev_fixed = 0;
	for (unsigned l = 0; l < truth->nlabels; l++)
		if (truth->labels[l].kinds & PB_EV_LOAD && truth->labels[l].per_iteration)
			nloads++;
	double ideal = nloads ? 100.0 / nloads : 0;
	for (size_t i = 0; i < pt->code.n; i++) {
		int l = pt->code.insns[i].label;
		if (l < 0 || !(truth->labels[l].kinds & PB_EV_LOAD) || !truth->labels[l].per_iteration)
			continue;
		uint64_t raw = pt->insn_samples[i], fixed = pt->insn_samples_before[i];
		labelled_raw += raw;
		labelled_fixed += fixed;
		double share_raw = total ? 100.0 * (double)raw / (double)total : 0;
		double share_fixed = total ? 100.0 * (double)fixed / (double)total : 0;
		if (fabs(share_raw - ideal) > max_dev_raw)
			max_dev_raw = fabs(share_raw - ideal);
		if (fabs(share_fixed - ideal) > max_dev_fixed)
			max_dev_fixed = fabs(share_fixed - ideal);
		json_array_append_new(
			labels, json_pack("{s:s, s:I, s:s, s:I, s:I, s:f, s:f}", "label",
					  truth->labels[l].name, "addr",
					  (json_int_t)pt->code.insns[i].addr, "insn",
					  pt->code.insns[i].text, "at_ip", (json_int_t)raw,
					  "before_ip", (json_int_t)fixed, "share_at_ip", share_raw,
					  "share_before_ip", share_fixed));
	}
	json_t *a = json_object();
	json_object_set_new(a, "samples", json_integer((json_int_t)total));
	json_object_set_new(a, "ideal_share", json_real(ideal));
	json_object_set_new(a, "loads", labels);
	json_object_set_new(a, "unlabelled_at_ip", json_integer((json_int_t)(total - labelled_raw)));
	json_object_set_new(a, "unlabelled_before_ip",
			    json_integer((json_int_t)(total - labelled_fixed)));
	json_object_set_new(a, "outside_code", json_integer((json_int_t)pt->outside_samples));
	json_object_set_new(a, "max_deviation_at_ip", json_real(total ? max_dev_raw : 0));
	json_object_set_new(a, "max_deviation_before_ip", json_real(total ? max_dev_fixed : 0));
	json_object_set_new(run, "attribution", a);
	/* copied up for the CSV row */
	json_object_set_new(run, "max_deviation_at_ip", json_real(total ? max_dev_raw : 0));
	json_object_set_new(run, "max_deviation_before_ip", json_real(total ? max_dev_fixed : 0));
}

/* A run whose session failed has no attribution, and one that got no samples has shares of 0
 * that were never measured: either would pull the mean towards 0 %. */
static bool run_has_shares(json_t *run)
{
	json_t *a = json_object_get(run, "attribution");
	return a && json_integer_value(json_object_get(a, "samples")) > 0;
}

void pb_bias_metrics(json_t *point, enum pb_ip_kind kind)
{
	json_t *runs = json_object_get(point, "runs");
	json_t *metrics = json_object_get(point, "metrics");
	if (!metrics) {
		metrics = json_object();
		json_object_set_new(point, "metrics", metrics);
	}
	size_t nruns = json_array_size(runs), with = 0;
	json_t *first = NULL;
	for (size_t r = 0; r < nruns; r++) {
		json_t *run = json_array_get(runs, r);
		if (!run_has_shares(run))
			continue;
		if (!with++)
			first = json_object_get(json_object_get(run, "attribution"), "loads");
	}
	json_object_set_new(point, "runs_with_shares", json_integer((json_int_t)with));
	json_object_set_new(point, "runs_without_shares", json_integer((json_int_t)(nruns - with)));
	/* Which attribution is the facility's own: exact IPs at the IP, next-instruction IPs
	 * before it; skid has no right answer and the table shows both. */
	json_object_set_new(metrics, "attribution",
			    json_string(kind == PB_IP_EXACT ? "at_ip"
					: kind == PB_IP_NEXT ? "before_ip" : "both (skid)"));
	if (!with) {
		json_object_set_new(point, "note",
				    json_string("no run had samples: no shares are given"));
		return;
	}
	json_t *shares = json_array();
	for (size_t l = 0; l < json_array_size(first); l++) {
		double at = 0, before = 0;
		for (size_t r = 0; r < nruns; r++) {
			json_t *run = json_array_get(runs, r);
			if (!run_has_shares(run))
				continue;
			json_t *lab = json_array_get(json_object_get(json_object_get(run, "attribution"),
								     "loads"), l);
			at += json_number_value(json_object_get(lab, "share_at_ip"));
			before += json_number_value(json_object_get(lab, "share_before_ip"));
		}
		json_t *lab0 = json_array_get(first, l);
		json_array_append_new(shares,
				      json_pack("{s:O, s:O, s:f, s:f}", "label",
						json_object_get(lab0, "label"), "insn",
						json_object_get(lab0, "insn"), "share_at_ip",
						at / (double)with, "share_before_ip",
						before / (double)with));
	}
	double dev_raw = 0, dev_fixed = 0;
	for (size_t r = 0; r < nruns; r++) {
		json_t *run = json_array_get(runs, r);
		if (!run_has_shares(run))
			continue;
		json_t *a = json_object_get(run, "attribution");
		dev_raw += json_number_value(json_object_get(a, "max_deviation_at_ip"));
		dev_fixed += json_number_value(json_object_get(a, "max_deviation_before_ip"));
	}
	dev_raw /= (double)with;
	dev_fixed /= (double)with;
	json_object_set_new(metrics, "shares", shares);
	json_object_set_new(metrics, "max_deviation_at_ip", json_real(dev_raw));
	json_object_set_new(metrics, "max_deviation_before_ip", json_real(dev_fixed));
	json_object_set_new(metrics, "max_deviation",
			    json_real(kind == PB_IP_NEXT ? dev_fixed : dev_raw));
}

static int bias_run(const struct pb_suite_options *o, const char *facility,
		    struct pb_results *res, struct pb_error *err)
{
	char buf[64];
	const char *why = NULL;
	const char *spec_text = pb_plan_spread_facility(facility, buf, sizeof buf, &why);
	if (!spec_text) {
		pb_not_applicable(res, "bias", facility, why);
		return 0;
	}
	struct pb_spec spec;
	if (pb_spec_parse(spec_text, &spec, err))
		return -1;
	uint64_t periods[PB_MAX_LIST];
	unsigned nperiods = bias_periods(o, &spec, periods);
	for (unsigned v = 0; v < NVARIANTS; v++) {
		char workload[64];
		snprintf(workload, sizeof workload, "bias:variant=%s", variants[v]);
		struct pb_point_request req;
		if (pb_plan_request(&req, spec_text, workload, periods[0], 1, o->delivery, err))
			return -1;
		req.machine = o->machine;
		req.attribute = true;
		req.iterations = pb_calibrate_for(&req, o->target_ms, err);
		if (!req.iterations)
			return -1;
		for (unsigned p = 0; p < nperiods; p++) {
			req.period = req.events[0].period = periods[p];
			json_t *point = pb_measure_runs_with(o, "bias", &req, res, attribute_run, NULL,
							     err);
			if (!point)
				return -1;
			if (json_array_size(json_object_get(point, "runs")))
				pb_bias_metrics(point, pb_spec_ip_kind(o->machine, &spec));
			json_object_set_new(point, "variant", json_string(variants[v]));
			json_object_set_new(point, "ip_kind",
					    json_string(pb_ip_kind_name(pb_spec_ip_kind(o->machine, &spec))));
		}
	}
	return 0;
}

const struct pb_experiment pb_experiment_bias = {
	.name = "bias",
	.summary = "share of samples per identical load, attribution with and without IP+1",
	.run = bias_run,
	.plan = bias_plan,
};
