/* The one place the CLI writes a document: errors as "pesbench NAME: message", and JSON on
 * standard output. No other file of cli/ calls jansson. */
#include "cli/output.h"

#include "analysis/demangle.h"
#include "experiments/plan.h"
#include "experiments/point.h"
#include "io/result_model.h"
#include "io/results.h"
#include "runner/profile_run.h"
#include "runner/verify.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int pb_cli_report(const char *command, const struct pb_error *err)
{
	fprintf(stderr, "pesbench %s: %s\n", command, err->msg[0] ? err->msg : "failed");
	return err->code ? err->code : PB_EXIT_FAILURE;
}

int pb_cli_print_json(const char *command, json_t *doc, int indent)
{
	errno = 0;
	int rc = doc ? json_dumpf(doc, stdout, JSON_INDENT(indent) | JSON_PRESERVE_ORDER) : -1;
	json_decref(doc);
	if (rc || fputc('\n', stdout) == EOF || fflush(stdout)) {
		struct pb_error err = {0};
		pb_fail(&err, PB_EXIT_OUTPUT, errno, "cannot write the JSON to standard output%s%s",
			errno ? ": " : "", errno ? strerror(errno) : "");
		return pb_cli_report(command, &err);
	}
	return PB_EXIT_OK;
}

int pb_cli_print_document(const char *command, json_t *doc, const struct pb_error *err)
{
	if (!doc && err->msg[0])
		return pb_cli_report(command, err);
	return pb_cli_print_json(command, doc, 2);
}

static double percent(double fraction)
{
	return 100.0 * fraction;
}

static json_t *level_json(bool too_few, const struct pb_share_error *e)
{
	if (too_few)
		return json_null();
	return json_pack("{s:f, s:f}", "error_percent", percent(e->error), "max_difference_pp",
			 percent(e->max_abs));
}

int pb_cli_print_profile(char *const *argv, const char *perf_data, uint64_t top, bool too_few,
			 const struct pb_profile_outcome *out)
{
	const char *spec = out->spec_text;
	const struct pb_period_setup *setup = &out->setup;
	const struct pb_process_result *res = &out->process;
	const struct pb_profile_report *r = &out->report;
	json_t *cmd = json_array();
	for (char *const *a = argv; *a; a++)
		json_array_append_new(cmd, json_string(*a));
	json_t *funcs = json_array();
	for (size_t i = 0; i < r->nfuncs && i < top; i++) {
		const struct pb_profile_func *f = &r->funcs[i];
		json_t *one = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:I, s:I}", "function",
					f->name, "symbol", f->symbol, "object", f->object, "source",
					f->source, "exact_share", percent(f->exact_share),
					"sampled_share", percent(f->sampled_share),
					"sampled_share_ci95_pp", percent(f->sampled_share_ci95),
					"exact_instructions", (json_int_t)f->exact_ir, "samples",
					(json_int_t)f->samples);
		json_array_append_new(funcs, one);
	}
	json_t *root = json_pack(
		"{s:o, s:s, s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:o, s:o, "
		"s:o, s:o, s:s}",
		"command", cmd, "source", perf_data ? perf_data : "sampled", "facility",
		perf_data ? "perf.data" : spec, "period", (json_int_t)setup->initial,
		"period_method", pb_period_method_name(setup->method), "samples",
		(json_int_t)r->samples, "kernel_samples", (json_int_t)r->kernel_samples,
		"unmapped_samples", (json_int_t)r->unmapped_samples, "unexecuted_samples",
		(json_int_t)r->unexecuted_samples, "exact_instructions", (json_int_t)r->total_ir,
		"executed_instructions", (json_int_t)r->ninsns, "basic_blocks",
		(json_int_t)r->nblocks, "period_changes", (json_int_t)res->period_changes,
		"wall_s", (double)res->wall_ns / 1e9, "instruction", level_json(too_few, &r->insn),
		"basic_block", level_json(too_few, &r->block), "function", level_json(too_few, &r->func),
		"top_functions", funcs, "comparison",
		"shares: a unit's share of the samples against its share of the instructions");
	/* the levels' errors are null then, and this says why */
	json_object_set_new(root, "too_few_samples", json_boolean(too_few));
	json_object_set_new(root, "share_ci95_batches", json_integer(r->share_batches));
	return pb_cli_print_json("profile", root, 2);
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *plan_check_json(const struct pb_plan_check *c, const struct pb_plan *plan)
{
	const char *budget_verdict = pb_plan_budget_verdict(c, plan->budget_pct);
	return json_pack(
		"{s:I, s:I, s:i, s:i, s:I, s:I, s:f, s:f, s:f, s:f, s:o, s:f, s:o, s:f, s:f, s:s, "
		"s:b, s:o, s:o, s:s, s:b}",
		"period", (json_int_t)c->period, "ring_pages", (json_int_t)c->ring_pages, "rounds",
		(int)c->rounds, "rounds_left_out", (int)c->rounds_left_out, "samples",
		(json_int_t)c->sampled.samples, "lost", (json_int_t)c->sampled.lost,
		"baseline_cpu_ns", c->baseline_ns, "predicted_ns", c->predicted_ns, "measured_ns",
		(double)c->sampled.cpu_ns, "predicted_slowdown_pct", c->predicted_pct,
		"predicted_slowdown_ci95_pp", number_or_null(c->predicted_ci95_pp),
		"measured_slowdown_pct", c->measured_pct,
		"measured_slowdown_ci95_pp", number_or_null(c->measured_ci95_pp),
		"slowdown_error_pp", c->predicted_pct - c->measured_pct, "slowdown_tolerance_pp",
		pb_slowdown_tolerance_pp(c->measured_pct), "slowdown_verdict", c->verdict,
		"slowdown_within", c->within, "own_ns_per_sample", number_or_null(c->own_ns_per_sample),
		"own_ns_per_sample_ci95", number_or_null(c->own_ci95_ns), "budget_verdict",
		budget_verdict, "within_budget", !strcmp(budget_verdict, "within"));
}

int pb_cli_print_plan(const struct pb_plan_request *req, const struct pb_plan *plan,
		      const struct pb_plan_checks *checks)
{
	const struct pb_slowdown_model *model = &plan->model;
	json_t *doc = json_pack("{s:s, s:s, s:f, s:I, s:f, s:f, s:s, s:f, s:I, s:s, s:f, s:f, s:f, "
				"s:i}",
				"command", req->argv[0], "facility", req->facility,
				"baseline_cpu_ns", model->baseline_ns, "runs", (json_int_t)req->runs,
				"events", model->time_based ? 0.0 : model->events,
				"ns_per_sample", model->ns_per_sample, "cost_source",
				plan->cost_source, "budget_pct", plan->budget_pct, "period",
				(json_int_t)plan->period.period, "period_unit",
				model->time_based ? "ns" : "events", "predicted_samples",
				plan->period.samples, "predicted_ns", plan->period.predicted_ns,
				"predicted_overhead_pct", plan->period.overhead_pct, "ring_pages",
				(int)plan->ring_pages);
	if (doc) {
		/* "command" is the program, as before; "argv" the whole command */
		json_t *words = json_array();
		for (size_t i = 0; req->argv[i]; i++)
			json_array_append_new(words, json_string(req->argv[i]));
		json_object_set_new(doc, "argv", words);
		json_object_set_new(doc, "ns_per_sample_ci95", json_real(plan->cost_ci95_ns));
		/* true: ns_per_sample is the sweep's rate model at the period, not its pooled
		 * slope */
		json_object_set_new(doc, "ns_per_sample_at_period",
				    json_boolean(plan->cost_at_period));
		json_object_set_new(doc, "cost_pairs_left_out",
				    json_integer((json_int_t)plan->cost_pairs_left_out));
		/* fewer samples than a share needs (experiments/point.h) */
		json_object_set_new(doc, "too_few_samples",
				    json_boolean(plan->period.samples < PB_MIN_EXPECTED_SAMPLES));
		if (isfinite(plan->overhead_lo_pct) && isfinite(plan->overhead_hi_pct)) {
			json_object_set_new(doc, "predicted_overhead_lo_pct",
					    json_real(plan->overhead_lo_pct));
			json_object_set_new(doc, "predicted_overhead_hi_pct",
					    json_real(plan->overhead_hi_pct));
		}
		if (plan->period_lo && plan->period_hi) {
			json_object_set_new(doc, "period_lo", json_integer((json_int_t)plan->period_lo));
			json_object_set_new(doc, "period_hi", json_integer((json_int_t)plan->period_hi));
		}
	}
	if (doc && plan->load.valid)
		json_object_set_new(doc, "load",
				    json_pack("{s:f, s:f, s:f, s:f, s:f}", "other_cpus",
					      plan->load.other_cpus, "other_cpus_ci95",
					      plan->load.other_cpus_ci95, "steal_pct",
					      plan->load.steal_pct, "steal_ci95_pp",
					      plan->load.steal_ci95_pp, "cpus", plan->load.cpus));
	if (doc && plan->speed.valid) {
		char note[512];
		pb_speed_text(&plan->speed, note, sizeof note);
		json_object_set_new(doc, "cpu_speed",
				    json_pack("{s:i, s:i, s:f, s:i, s:s}", "probes",
					      (int)plan->speed.probes, "slower_probes",
					      (int)plan->speed.slower, "slowest_ratio",
					      plan->speed.slowest_ratio, "slowest_cpu",
					      (int)plan->speed.slowest_cpu, "note", note));
	}
	if (doc && checks && checks->n) {
		/* check: the plan's own; corrections: each corrected period with its check */
		json_object_set_new(doc, "check", plan_check_json(&checks->step[0], plan));
		json_t *steps = json_array();
		for (unsigned i = 1; i < checks->n; i++) {
			json_t *s = plan_check_json(&checks->step[i], plan);
			json_object_set_new(s, "from_ns_per_sample",
					    json_real(checks->step[i - 1].own_ns_per_sample));
			json_object_set_new(s, "corrected_overhead_pct",
					    json_real(checks->planned[i].overhead_pct));
			json_array_append_new(steps, s);
		}
		json_object_set_new(doc, "corrections", steps);
		json_object_set_new(doc, "recommended_period",
				    json_integer((json_int_t)checks->step[checks->n - 1].period));
		json_object_set_new(doc, "stopped", json_string(checks->stopped));
	}
	return pb_cli_print_json("plan", doc, 2);
}

int pb_cli_print_verify(const struct pb_verify_report *rep)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < rep->n; i++) {
		const struct pb_verify_row *r = &rep->rows[i];
		char addr[24];
		snprintf(addr, sizeof addr, "0x%" PRIx64, r->addr);
		json_array_append_new(rows, json_pack(
			"{s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:o, s:b, s:b, s:s}", "workload", r->workload,
			"params", r->params, "oracle", r->oracle, "what", r->what,
			"address", r->addr ? json_string(addr) : json_null(), "thread",
			(json_int_t)r->thread, "declared", (json_int_t)r->declared, "measured",
			r->refused ? json_null() : json_integer((json_int_t)r->measured), "ok",
			r->ok, "refused", r->refused, "note", r->note));
	}
	json_t *not_run = json_array();
	for (const char *p = rep->skipped; *p;) {
		size_t len = strcspn(p, "\n");
		const char *line = p;
		while (len && (*line == ' ')) /* the table's indent */
			line++, len--;
		if (len)
			json_array_append_new(not_run, json_stringn(line, len));
		p = line + len;
		if (*p)
			p++;
	}
	return pb_cli_print_json("verify",
				 json_pack("{s:I, s:I, s:o, s:o}", "checks", (json_int_t)rep->n,
					   "mismatches", (json_int_t)rep->mismatches, "rows", rows,
					   "not_run", not_run), 2);
}

int pb_cli_print_version(const char *version)
{
	return pb_cli_print_json("version", json_pack("{s:s, s:s, s:s}", "version", version,
						      "jansson", JANSSON_VERSION, "demangler",
						      pb_demangler_name()), 2);
}

int pb_cli_print_report(const char *html_path, size_t nplots, const struct pb_rlist *scorecard)
{
	struct pb_rvalue card = {.kind = PB_RV_LIST, .as.list = (struct pb_rlist *)scorecard};
	return pb_cli_print_json("report", json_pack("{s:s, s:I, s:o}", "report", html_path,
						     "plots", (json_int_t)nplots, "scorecard",
						     pb_rvalue_json(&card)), 2);
}
