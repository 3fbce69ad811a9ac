/* Bias and attribution (main study, IV-C): four identical loads per iteration, so an unbiased
 * facility puts 25 % of its samples on each; variants put an lfence before them or make the
 * first a likely miss. Every sample's IP is attributed twice: to the instruction at the IP
 * (right for exact facilities) and to the instruction before it (the IP+1 correction, right
 * for facilities that report the next instruction: data breakpoints, and the usual guess for
 * skid). Reported per run: share per load, samples on unlabelled instructions, and the
 * largest deviation from the ideal share. Exact facilities also run at a period that divides
 * the loop (4), where periodic sampling must lock onto one load. */
#include "experiments/experiment.h"
#include "experiments/suite_defaults.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const variants[] = {"plain", "lfence", "miss"};
#define NVARIANTS 3
#define BIAS_MIN_SAMPLES 400

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
	periods[0] = pb_suite_accuracy_period(spec);
	return 1;
}

static unsigned bias_count_runs(const struct pb_suite_options *o, const struct pb_spec *facility)
{
	const char *why;
	struct pb_spec spec;
	if (pb_spec_spread_parsed(facility, &spec, &why))
		return 0;
	uint64_t periods[PB_MAX_LIST];
	return NVARIANTS * bias_periods(o, &spec, periods) * o->runs;
}

/* Adds the attribution of one run: per load, samples at it and samples right after it. */
static void attribute_run(void *ctx, const struct pb_point *pt, struct pb_rset *run)
{
	(void)ctx;
	const struct pb_truth *truth = &pt->instance.truth;
	uint64_t total = pt->ev[0].observed;
	struct pb_rset *a = pb_rset_set(run, "attribution");
	pb_rset_int(a, "samples", PB_UNIT_SAMPLES, (int64_t)total);
	struct pb_rlist loads = {0};
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
		struct pb_rset *load = pb_rlist_set(&loads);
		pb_rset_text(load, "label", truth->labels[l].name);
		pb_rset_int(load, "addr", PB_UNIT_ADDRESS, (int64_t)pt->code.insns[i].addr);
		pb_rset_text(load, "insn", pt->code.insns[i].text);
		pb_rset_int(load, "at_ip", PB_UNIT_SAMPLES, (int64_t)raw);
		pb_rset_int(load, "before_ip", PB_UNIT_SAMPLES, (int64_t)fixed);
		pb_rset_real(load, "share_at_ip", PB_UNIT_PERCENT, share_raw);
		pb_rset_real(load, "share_before_ip", PB_UNIT_PERCENT, share_fixed);
	}
	pb_rset_real(a, "ideal_share", PB_UNIT_PERCENT, ideal);
	*pb_rset_list(a, "loads") = loads;
	pb_rset_int(a, "unlabelled_at_ip", PB_UNIT_SAMPLES, (int64_t)(total - labelled_raw));
	pb_rset_int(a, "unlabelled_before_ip", PB_UNIT_SAMPLES, (int64_t)(total - labelled_fixed));
	pb_rset_int(a, "outside_code", PB_UNIT_SAMPLES, (int64_t)pt->outside_samples);
	pb_rset_real(a, "max_deviation_at_ip", PB_UNIT_PERCENT_POINTS, total ? max_dev_raw : 0);
	pb_rset_real(a, "max_deviation_before_ip", PB_UNIT_PERCENT_POINTS,
		     total ? max_dev_fixed : 0);
	/* copied up for the CSV row */
	pb_rset_real(run, "max_deviation_at_ip", PB_UNIT_PERCENT_POINTS, total ? max_dev_raw : 0);
	pb_rset_real(run, "max_deviation_before_ip", PB_UNIT_PERCENT_POINTS,
		     total ? max_dev_fixed : 0);
}

/* A run whose session failed has no attribution, and one that got no samples has shares of 0
 * that were never measured: either would pull the mean towards 0 %. */
static const struct pb_rset *shares_of(const struct pb_result_point *point, size_t r)
{
	const struct pb_rset *a = pb_rset_get_set(pb_rlist_set_at(&point->runs, r), "attribution");
	return a && pb_rset_get_int(a, "samples") > 0 ? a : NULL;
}

void pb_bias_metrics(struct pb_result_point *point, enum pb_ip_kind kind)
{
	struct pb_rset *metrics = &point->metrics;
	size_t nruns = pb_rlist_size(&point->runs), with = 0;
	const struct pb_rlist *first = NULL;
	for (size_t r = 0; r < nruns; r++) {
		const struct pb_rset *a = shares_of(point, r);
		if (a && !with++)
			first = pb_rset_get_list(a, "loads");
	}
	pb_rset_int(&point->params, "runs_with_shares", PB_UNIT_RUNS, (int64_t)with);
	pb_rset_int(&point->params, "runs_without_shares", PB_UNIT_RUNS, (int64_t)(nruns - with));
	/* Which attribution is the facility's own: exact IPs at the IP, next-instruction IPs
	 * before it; skid has no right answer and the table shows both. */
	pb_rset_text(metrics, "attribution",
		     kind == PB_IP_EXACT ? "at_ip" : kind == PB_IP_NEXT ? "before_ip" : "both (skid)");
	if (!with) {
		pb_rset_text(&point->params, "note", "no run had samples: no shares are given");
		return;
	}
	struct pb_rlist shares = {0};
	for (size_t l = 0; l < pb_rlist_size(first); l++) {
		double at = 0, before = 0;
		for (size_t r = 0; r < nruns; r++) {
			const struct pb_rset *a = shares_of(point, r);
			if (!a)
				continue;
			const struct pb_rset *lab = pb_rlist_set_at(pb_rset_get_list(a, "loads"), l);
			at += pb_rset_get_number(lab, "share_at_ip", NULL);
			before += pb_rset_get_number(lab, "share_before_ip", NULL);
		}
		const struct pb_rset *lab0 = pb_rlist_set_at(first, l);
		const struct pb_rvalue *label = pb_rset_get(lab0, "label");
		const struct pb_rvalue *insn = pb_rset_get(lab0, "insn");
		if (!label || !insn)
			continue;
		struct pb_rset *share = pb_rlist_set(&shares);
		pb_rset_put(share, "label", label);
		pb_rset_put(share, "insn", insn);
		pb_rset_real(share, "share_at_ip", PB_UNIT_PERCENT, at / (double)with);
		pb_rset_real(share, "share_before_ip", PB_UNIT_PERCENT, before / (double)with);
	}
	double dev_raw = 0, dev_fixed = 0;
	for (size_t r = 0; r < nruns; r++) {
		const struct pb_rset *a = shares_of(point, r);
		if (!a)
			continue;
		dev_raw += pb_rset_get_number(a, "max_deviation_at_ip", NULL);
		dev_fixed += pb_rset_get_number(a, "max_deviation_before_ip", NULL);
	}
	dev_raw /= (double)with;
	dev_fixed /= (double)with;
	*pb_rset_list(metrics, "shares") = shares;
	pb_rset_real(metrics, "max_deviation_at_ip", PB_UNIT_PERCENT_POINTS, dev_raw);
	pb_rset_real(metrics, "max_deviation_before_ip", PB_UNIT_PERCENT_POINTS, dev_fixed);
	pb_rset_real(metrics, "max_deviation", PB_UNIT_PERCENT_POINTS,
		     kind == PB_IP_NEXT ? dev_fixed : dev_raw);
}

static int bias_run(const struct pb_suite_options *o, const struct pb_spec *facility,
		    struct pb_results *res, struct pb_error *err)
{
	const char *why = NULL;
	struct pb_spec spec;
	if (pb_spec_spread_parsed(facility, &spec, &why)) {
		pb_not_applicable(res, "bias", facility->text, why);
		return 0;
	}
	uint64_t periods[PB_MAX_LIST];
	unsigned nperiods = bias_periods(o, &spec, periods);
	for (unsigned v = 0; v < NVARIANTS; v++) {
		char workload[64];
		snprintf(workload, sizeof workload, "bias:variant=%s", variants[v]);
		struct pb_point_request req;
		if (pb_suite_request(&req, &spec, workload, periods[0], 1, o->delivery, err))
			return -1;
		req.attribute = true;
		if (pb_calibrate_request(o, &req, err))
			return -1;
		/* A share resolves 100 / N points of N samples; an exact facility's even rotation
		 * over the loads reads as a deviation of up to 3/4 of a sample. At 400 samples a
		 * sample is 0.25 pp, half the 0.5 pp below which a share reads as unbiased. */
		req.iterations = pb_point_iterations_for_samples(&req, req.iterations,
								 BIAS_MIN_SAMPLES);
		for (unsigned p = 0; p < nperiods; p++) {
			if (pb_point_request_set_period(&req, periods[p], err))
				return -1;
			struct pb_result_point *point = pb_measure_runs_with(
				o, "bias", &req, res, attribute_run, NULL, err);
			if (!point)
				return -1;
			enum pb_ip_kind kind = pb_spec_ip_kind(o->machine, &spec);
			if (pb_rlist_size(&point->runs))
				pb_bias_metrics(point, kind);
			pb_rset_text(&point->params, "variant", variants[v]);
			pb_rset_text(&point->params, "ip_kind", pb_ip_kind_name(kind));
		}
	}
	return 0;
}

const struct pb_experiment pb_experiment_bias = {
	.name = "bias",
	.summary = "share of samples per identical load, attribution with and without IP+1",
	.run = bias_run,
	.count_runs = bias_count_runs,
};
