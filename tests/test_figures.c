/* Figure records (io/figures.c) against figures worked out by hand: each key figure's interval
 * as docs/fleet.md states it (Wilson for loss, first-order propagation for overhead, the CI of
 * the runs' mean for the bias deviation, the fit's CI for cost), the alias of an old spec name,
 * a too-few-samples point left out, the done record, and the JSONL reader's refusals. */
#include "check.h"
#include "io/figures.h"
#include "io/results.h"
#include "util/kit.h"
#include "present/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const json_t *figure(const json_t *records, const char *experiment, const char *metric)
{
	size_t i;
	json_t *rec;
	json_array_foreach(records, i, rec)
		if (!strcmp(json_string_value(json_object_get(rec, "record")), "figure") &&
		    !strcmp(json_string_value(json_object_get(rec, "experiment")), experiment) &&
		    !strcmp(json_string_value(json_object_get(rec, "metric")), metric))
			return rec;
	return NULL;
}

static double bound(const json_t *rec, const char *which)
{
	return json_number_value(json_object_get(json_object_get(rec, "interval"), which));
}

static void summary(struct pb_rset *s, const char *name, enum pb_unit unit, double a, double b)
{
	double v[2] = {a, b};
	pb_rset_summarize(s, name, unit, v, 2);
}

static void build(struct pb_results *doc)
{
	pb_results_init(doc);
	pb_rset_text(&doc->head, "pesbench_version", "test");
	pb_rset_text(&doc->head, "started", "2026-01-01T00:00:00Z");
	pb_rset_bool(&doc->head, "complete", true);
	struct pb_rset *m = pb_rset_set(&doc->machine, "machine");
	pb_rset_text(m, "host", "node7");
	pb_rset_text(m, "cpu_vendor", "GenuineIntel");

	/* "timer" as /1 files wrote it: read as timer:cpu-clock; accuracy 98, 100 */
	struct pb_result_point *p = pb_results_point(doc, "accuracy", "timer", "accuracy:ratio=20");
	pb_rset_int(&p->params, "period", PB_UNIT_NONE, 100000);
	summary(&p->metrics, "accuracy", PB_UNIT_PERCENT, 98, 100);

	/* too few samples: no figure, though it has an accuracy */
	p = pb_results_point(doc, "interval", "timer", "accuracy:ratio=20");
	pb_rset_bool(&p->params, "too_few_samples", true);
	summary(&p->metrics, "accuracy", PB_UNIT_PERCENT, 50, 60);

	/* buffer: 5 lost of 100 records */
	p = pb_results_point(doc, "buffer", "timer", "w");
	pb_rset_int(&p->metrics, "lost_total", PB_UNIT_SAMPLES, 5);
	pb_rset_int(&p->metrics, "samples_total", PB_UNIT_SAMPLES, 95);
	pb_rset_real(&p->metrics, "loss_pct", PB_UNIT_PERCENT, 5);

	/* overhead: baseline 100, 100 ns; sampled 110, 130 ns (means 100 and 120) */
	p = pb_results_point(doc, "overhead", "timer", "w");
	pb_rset_text(&p->params, "role", "baseline");
	summary(&p->metrics, "wall_ns", PB_UNIT_NS, 99, 101);
	summary(&p->metrics, "cpu_ns", PB_UNIT_NS, 99, 101);
	p = pb_results_point(doc, "overhead", "timer", "w");
	pb_rset_text(&p->params, "role", "sampled");
	summary(&p->metrics, "wall_ns", PB_UNIT_NS, 110, 130);
	summary(&p->metrics, "cpu_ns", PB_UNIT_NS, 110, 130);
	pb_rset_real(&p->metrics, "time_overhead_pct", PB_UNIT_PERCENT, 20);
	pb_rset_real(&p->metrics, "cpu_overhead_pct", PB_UNIT_PERCENT, 20);
	/* the CPU time's own interval, as the overhead experiment writes it now */
	pb_rset_real(&p->metrics, "cpu_overhead_ci95_pp", PB_UNIT_PERCENT_POINTS, 3.5);

	/* bias: runs' own deviations 4 and 6, the point's mean 5 */
	p = pb_results_point(doc, "bias", "bp:rw", "bias:variant=plain");
	for (int r = 0; r < 2; r++) {
		struct pb_rset *a = pb_rset_set(pb_rlist_set(&p->runs), "attribution");
		pb_rset_int(a, "samples", PB_UNIT_SAMPLES, 100);
		pb_rset_real(a, "max_deviation_at_ip", PB_UNIT_PERCENT_POINTS, 4 + 2 * r);
		pb_rset_real(a, "max_deviation_before_ip", PB_UNIT_PERCENT_POINTS, 30);
	}
	pb_rset_real(&p->metrics, "max_deviation_at_ip", PB_UNIT_PERCENT_POINTS, 5);
	pb_rset_real(&p->metrics, "max_deviation_before_ip", PB_UNIT_PERCENT_POINTS, 30);
	pb_rset_real(&p->metrics, "max_deviation", PB_UNIT_PERCENT_POINTS, 5);

	/* cost: an unresolved fit */
	p = pb_results_point(doc, "cost", "timer", "busy");
	pb_rset_real(&p->metrics, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, 2000);
	pb_rset_real(&p->metrics, "ci95_ns", PB_UNIT_NS_PER_SAMPLE, 150);
	pb_rset_bool(&p->metrics, "resolved", false);

	/* predictions judged on the slowdown: a timer's, aimed at 10 %, its period from the fit
	 * (0.5 pp off, measured ± 0.8 pp, undecided), and a breakpoint's at a period of its sweep */
	for (int k = 0; k < 2; k++) {
		p = pb_results_point(doc, "cost", k ? "bp:w" : "timer", "accuracy:ratio=20");
		pb_rset_text(&p->params, "kind", "prediction");
		pb_rset_int(&p->params, "period", PB_UNIT_NONE, k ? 1000 : 143305);
		if (!k)
			pb_rset_real(&p->params, "aimed_slowdown_pct", PB_UNIT_PERCENT, 10);
		pb_rset_int(&p->metrics, "rounds", PB_UNIT_NONE, 8);
		pb_rset_real(&p->metrics, "slowdown_error_pp", PB_UNIT_PERCENT_POINTS,
			     k ? -2 : 0.5);
		pb_rset_real(&p->metrics, "measured_slowdown_ci95_pp", PB_UNIT_PERCENT_POINTS,
			     0.8);
		/* the breakpoint's prediction carries its cost's interval (the timer's, as a file
		 * written before it had one, does not) */
		if (k)
			pb_rset_real(&p->metrics, "predicted_slowdown_ci95_pp",
				     PB_UNIT_PERCENT_POINTS, 0.6);
		pb_rset_text(&p->metrics, "slowdown_verdict", k ? "within" : "undecided");
	}
	/* one whose cost's interval reaches its period: its prediction has no upper end */
	p = pb_results_point(doc, "cost", "timer", "program:xz");
	pb_rset_text(&p->params, "kind", "prediction");
	pb_rset_int(&p->params, "period", PB_UNIT_NONE, 60000);
	pb_rset_int(&p->metrics, "rounds", PB_UNIT_NONE, 8);
	pb_rset_real(&p->metrics, "slowdown_error_pp", PB_UNIT_PERCENT_POINTS, 3);
	pb_rset_real(&p->metrics, "measured_slowdown_ci95_pp", PB_UNIT_PERCENT_POINTS, 0.8);
	pb_rset_bool(&p->metrics, "predicted_slowdown_ci95_pp_unbounded", true);
	pb_rset_text(&p->metrics, "slowdown_verdict", "undecided");
}

/* The same intervals as the records give, for one attribution or the point's own, and in
 * report.html beside the figures. */
static void check_shown_beside(const struct pb_results *doc)
{
	const struct pb_result_point *bias = NULL, *buffer = NULL;
	for (size_t i = 0; i < doc->npoints; i++) {
		if (!strcmp(doc->points[i]->experiment, "bias"))
			bias = doc->points[i];
		if (!strcmp(doc->points[i]->experiment, "buffer"))
			buffer = doc->points[i];
	}
	CHECK(bias && buffer);
	if (!bias || !buffer)
		return;
	struct pb_figure_interval f;
	/* at the IP: 5 ± t(1) × s(4, 6) / √2 = 12.706 */
	CHECK(pb_figure_bias_interval(bias, "max_deviation_at_ip", &f) && f.has_interval);
	CHECK(fabs(f.hi - f.lo - 2 * 12.706) < 0.01 && f.n == 2);
	/* IP+1-corrected: 30 in both runs, no spread */
	CHECK(pb_figure_bias_interval(bias, "max_deviation_before_ip", &f) && f.lo == 30 &&
	      f.hi == 30);
	CHECK(!pb_figure_bias_interval(bias, "no_such_deviation", &f));
	CHECK(pb_figure_loss_interval(buffer, &f) && fabs(f.lo - 2.154) < 0.01);
	size_t len = 0;
	char *html = pb_report_html(doc, NULL, NULL, &len);
	CHECK(html != NULL);
	if (!html)
		return;
	CHECK_STR_CONTAINS(html, "<td class=\"n\">5 ±13</td>");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">30.00 ±0</td>");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">5&nbsp;(2.2–11)</td>");
	/* the CPU overhead with its own interval; the time's, written before there was one,
	 * with the means' CIs propagated, as its record gives it (-107.97 to 147.97) */
	CHECK_STR_CONTAINS(html, "<td class=\"n\">20.0 ±3.5</td>");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">20 ±130</td>");
	free(html);
}

/* What else the machine did during the run rides on its "run" record, each figure with its
 * interval, so a fleet's table tells a run beside a busy neighbour apart. */
static void check_run_load(void)
{
	struct pb_results doc;
	build(&doc);
	pb_rset_real(&doc.tail, "other_load_cpus", PB_UNIT_COUNT, 0.96);
	pb_rset_real(&doc.tail, "other_load_cpus_ci95", PB_UNIT_COUNT, 0.0094);
	pb_rset_real(&doc.tail, "load_cpus", PB_UNIT_COUNT, 2.0);
	pb_rset_real(&doc.tail, "steal_pct", PB_UNIT_PERCENT, 0.018);
	pb_rset_real(&doc.tail, "steal_ci95_pp", PB_UNIT_PERCENT_POINTS, 0.03);
	pb_rset_int(&doc.tail, "cpu_speed_probes", PB_UNIT_COUNT, 56);
	pb_rset_int(&doc.tail, "cpu_speed_slower_probes", PB_UNIT_COUNT, 16);
	pb_rset_real(&doc.tail, "cpu_speed_slowest_ratio", PB_UNIT_RATIO, 3.1);
	char dir[] = "/tmp/pb-test-figures-XXXXXX", path[4200];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/results.json", dir);
	json_t *root = pb_results_json(&doc);
	CHECK(json_dump_file(root, path, 0) == 0);
	json_decref(root);
	pb_results_free(&doc);
	json_t *records = NULL;
	struct pb_error err = {0};
	CHECK(pb_figures_of_file(path, "folder", -1, &records, &err) == 0);
	const json_t *load = json_object_get(json_array_get(records, 0), "load");
	CHECK(json_is_object(load));
	static const struct {
		const char *key;
		double value;
	} want[] = {{"other_cpus", 0.96}, {"other_cpus_ci95", 0.0094}, {"cpus", 2.0},
		    {"steal_pct", 0.018}, {"steal_ci95_pp", 0.03}, {"cpu_speed_probes", 56},
		    {"cpu_speed_slower_probes", 16}, {"cpu_speed_slowest_ratio", 3.1}};
	for (size_t i = 0; i < PB_ARRAY_SIZE(want); i++)
		CHECK_MSG(fabs(json_number_value(json_object_get(load, want[i].key)) - want[i].value) <
				  1e-12,
			  "load.%s", want[i].key);
	json_decref(records);
	unlink(path);
	rmdir(dir);
}

static void check_figures(void)
{
	struct pb_results doc;
	build(&doc);
	char dir[] = "/tmp/pb-test-figures-XXXXXX", path[4200];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/results.json", dir);
	json_t *root = pb_results_json(&doc);
	json_object_set_new(root, "scorecard",
			    json_pack("[{s:s, s:s, s:b, s:s}]", "facility", "timer", "verdict",
				      "works", "measured", 1, "summary", "use it for time"));
	CHECK(json_dump_file(root, path, 0) == 0);
	json_decref(root);
	check_shown_beside(&doc);
	pb_results_free(&doc);

	json_t *records = NULL;
	struct pb_error err = {0};
	CHECK(pb_figures_of_file(path, "folder", 0, &records, &err) == 0);
	CHECK(records != NULL);
	if (!records)
		return;
	const json_t *first = json_array_get(records, 0), *last =
		json_array_get(records, json_array_size(records) - 1);
	CHECK(!strcmp(json_string_value(json_object_get(first, "record")), "run"));
	/* a document that does not say what else the machine did: no load, not a 0 */
	CHECK(json_object_get(first, "load") == NULL);
	CHECK(!strcmp(json_string_value(json_object_get(last, "record")), "done"));
	CHECK_EQ_U64(json_integer_value(json_object_get(last, "figures")), 9);
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(first, "machine"), "label")),
		      "node7"));
	const json_t *sc = json_array_get(records, 1);
	CHECK(!strcmp(json_string_value(json_object_get(sc, "record")), "scorecard"));

	/* accuracy: mean 99, t(1) 12.706 × 1.414 / √2 = 12.706 */
	const json_t *f = figure(records, "accuracy", "accuracy");
	CHECK(f && !strcmp(json_string_value(json_object_get(f, "facility")), "timer:cpu-clock"));
	CHECK(f && fabs(bound(f, "lo") - (99 - 12.706)) < 0.01 && fabs(bound(f, "hi") - 111.706) < 0.01);
	CHECK(figure(records, "interval", "accuracy") == NULL);

	/* loss: Wilson with k = 5, n = 100: 2.154 % .. 11.175 % */
	f = figure(records, "buffer", "loss_pct");
	CHECK(f && fabs(bound(f, "lo") - 2.154) < 0.01 && fabs(bound(f, "hi") - 11.175) < 0.01);

	/* overhead, written without its own interval (time): ratio 1.2; relative half-widths 12.706 × 14.142 / √2 / 120 = 1.0588 and
	 * 12.706 / 100 = 0.12706: r = 1.06640, lo = (1.2 (1 - r) - 1) 100 = -107.97 */
	f = figure(records, "overhead", "overhead_time_pct");
	CHECK(f && fabs(json_number_value(json_object_get(f, "value")) - 20) < 1e-9);
	CHECK(f && fabs(bound(f, "lo") - -107.97) < 0.05 && fabs(bound(f, "hi") - 147.97) < 0.05);
	/* with the experiment's own interval (paired rounds): that one, around the figure */
	f = figure(records, "overhead", "overhead_cpu_pct");
	CHECK(f && bound(f, "lo") == 16.5 && bound(f, "hi") == 23.5);
	CHECK(f && strstr(json_string_value(json_object_get(json_object_get(f, "interval"),
							     "basis")), "paired"));

	/* bias: the at-IP runs (the point's value is theirs), 5 ± 12.706 */
	f = figure(records, "bias", "bias_deviation");
	CHECK(f && fabs(bound(f, "lo") - (5 - 12.706)) < 0.01);
	CHECK(figure(records, "bias", "accuracy") == NULL);

	/* cost: the fit's interval, marked unresolved */
	f = figure(records, "cost", "cost_ns_per_sample");
	CHECK(f && bound(f, "lo") == 1850 && bound(f, "hi") == 2150);
	CHECK(f && json_is_false(json_object_get(f, "resolved")));

	/* a prediction's slowdown error, ± the measured slowdown's CI; the timer's lines up on
	 * the slowdown it aimed at, not on its period (which its run's fit chose), the
	 * breakpoint's on its period */
	unsigned slowdowns = 0;
	for (size_t i = 0; i < json_array_size(records); i++) {
		const json_t *r = json_array_get(records, i);
		const char *metric = json_string_value(json_object_get(r, "metric"));
		if (!metric || strcmp(metric, "prediction_slowdown_error_pp"))
			continue;
		slowdowns++;
		double v = json_number_value(json_object_get(r, "value"));
		if (!strcmp(json_string_value(json_object_get(r, "workload")), "program:xz")) {
			/* no interval rather than the measured one alone, and not resolved */
			CHECK(v == 3 && json_is_null(json_object_get(r, "interval")));
			CHECK(json_is_false(json_object_get(r, "resolved")));
			continue;
		}
		const json_t *set = json_object_get(r, "settings");
		bool timer = !strcmp(json_string_value(json_object_get(r, "facility")),
				     "timer:cpu-clock");
		/* the measured slowdown's interval, and the prediction's with it in quadrature
		 * where it has one: hypot(0.8, 0.6) = 1 */
		double half = timer ? 0.8 : 1.0;
		CHECK(fabs(bound(r, "lo") - (v - half)) < 1e-9 &&
		      fabs(bound(r, "hi") - (v + half)) < 1e-9);
		CHECK(json_is_true(json_object_get(r, "resolved")));
		CHECK(!strcmp(json_string_value(json_object_get(r, "unit")), "percentage points"));
		if (timer) {
			CHECK(v == 0.5 && json_object_get(set, "period") == NULL);
			CHECK(json_number_value(json_object_get(set, "aimed_slowdown_pct")) == 10);
		} else {
			CHECK(v == -2 && json_integer_value(json_object_get(set, "period")) == 1000);
			CHECK(json_object_get(set, "aimed_slowdown_pct") == NULL);
		}
	}
	CHECK_EQ_U64(slowdowns, 3);

	/* what run writes, compare reads back the same */
	CHECK(pb_figures_write_jsonl(dir, records, &err) == 0);
	char jsonl[4200];
	snprintf(jsonl, sizeof jsonl, "%s/results.jsonl", dir);
	json_t *again = json_array();
	CHECK(pb_figures_load_jsonl(jsonl, again, &err) == 0);
	CHECK(json_equal(again, records));
	json_decref(again);
	json_decref(records);
	unlink(jsonl);
	unlink(path);
	rmdir(dir);
}

static void check_refusals(void)
{
	json_t *records = json_array();
	struct pb_error err = {0};
	static const char *const bad[] = {
		"[1, 2]\n",
		"{\"schema\": \"pesbench-figure/2\", \"record\": \"run\", \"run_id\": \"x\", "
		"\"machine\": {}}\n",
		"{\"schema\": \"pesbench-figure/1\", \"record\": \"figure\", \"run_id\": \"x\", "
		"\"machine\": {}, \"metric\": \"accuracy\", \"value\": \"high\"}\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		memset(&err, 0, sizeof err);
		CHECK(pb_figures_parse_jsonl(bad[i], strlen(bad[i]), "t", records, &err) != 0);
		CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);
		CHECK_STR_CONTAINS(err.msg, "t line 1");
	}
	CHECK_EQ_U64(json_array_size(records), 0);
	/* blank lines are no records */
	CHECK(pb_figures_parse_jsonl("\n  \n", 4, "t", records, &err) == 0);
	CHECK_EQ_U64(json_array_size(records), 0);
	json_decref(records);
}

int main(void)
{
	check_figures();
	check_run_load();
	check_refusals();
	return pb_check_done("figures");
}
