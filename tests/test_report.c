/* report.html from a constructed results folder references every plot (PNG shown, SVG
 * linked), shows the scorecard first, the machine, the skipped facilities, the per-experiment
 * rows with losses and multiplexing and each experiment's own figures (no column empty on
 * every row), the bias shares, and escapes what it quotes. The scorecard is computed from the
 * points (too-few-samples points left out), round-trips through results.json, and the
 * terminal summary fits 100 columns. `pesbench compare` on two
 * constructed files matches rows across machines ('-' where a file lacks one) and refuses a
 * file of another schema or a corrupt one with exit 6; `pesbench report` likewise. */
#include "check.h"
#include "results_json.h"
#include "cli/commands.h"
#include "experiments/experiment.h"
#include "scorecard/scorecard.h"
#include "io/results.h"
#include "present/plot.h"
#include "present/report.h"
#include "present/summary.h"
#include "util/kit.h"

#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *point(json_t *points, const char *experiment, const char *facility,
		     const char *workload, long long period, int threads, double base, int nruns,
		     long long lost, double running)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:[], s:{}, s:I, s:i}", "experiment", experiment,
			      "facility", facility, "workload", workload, "runs", "metrics",
			      "period", (json_int_t)period, "threads", threads);
	for (int r = 0; r < nruns; r++)
		json_array_append_new(
			json_object_get(p, "runs"),
			json_pack("{s:i, s:[{s:s, s:f, s:f, s:f, s:I, s:i, s:b, s:b}]}", "run", r,
				  "events", "facility", facility, "accuracy", base + r, "expected",
				  1000.0, "running_ratio", running, "lost", (json_int_t)lost,
				  "throttles", 0, "multiplexed", running < 1, "opened", 1));
	pb_test_point_metrics(p);
	json_array_append_new(points, p);
	return p;
}

/* A results file of a machine: its precise facility, a timer, and what only it has. */
static json_t *machine_results(const char *vendor, const char *model, const char *precise,
			       double precise_accuracy, bool with_interval)
{
	json_t *root = json_pack("{s:s, s:b, s:s, s:[s], s:{s:s, s:{s:s, s:s, s:s}, s:[]}, "
				 "s:[{s:s, s:s}], s:[]}",
				 "schema", PB_RESULTS_SCHEMA, "complete", 0, "started",
				 "2026-01-01T00:00:00Z", "command", "run", "machine", "schema",
				 "pesbench-probe/1", "machine", "cpu_vendor", vendor,
				 "cpu_model_name", model, "kernel", "6.1.0", "facilities", "skipped",
				 "facility", "spe", "reason", "no <arm_spe> PMU & no SPE here",
				 "points");
	json_t *pts = json_object_get(root, "points");
	point(pts, "accuracy", precise, "accuracy:ratio=20", 100000, 1, precise_accuracy, 3, 7,
	      0.5);
	point(pts, "accuracy", "timer:cpu-clock", "accuracy:ratio=20", 100000, 1, 90, 3, 0, 1);
	if (with_interval)
		point(pts, "interval", "timer:cpu-clock", "accuracy:ratio=20", 20000, 1, 60, 3, 0, 1);
	json_t *b = point(pts, "bias", "bp:rw", "bias:variant=plain", 7, 1, 100, 2, 0, 1);
	json_t *shares = json_array();
	for (int l = 0; l < 4; l++) {
		char label[32];
		snprintf(label, sizeof label, "pb_wl_bias_plain_load%d", l + 1);
		json_array_append_new(shares, json_pack("{s:s, s:s, s:f, s:f}", "label", label,
							"insn", "mov eax, dword ptr [rdi]",
							"share_at_ip", 0.0, "share_before_ip",
							21.5 + l));
	}
	json_t *m = json_object_get(b, "metrics");
	json_object_set_new(m, "shares", shares);
	json_object_set_new(m, "attribution", json_string("before_ip"));
	json_object_set_new(m, "max_deviation", json_real(3.5));
	json_object_set_new(b, "variant", json_string("plain"));
	json_array_append_new(pts, json_pack("{s:s, s:s, s:s, s:[], s:{}, s:s}", "experiment",
					     "mode", "facility", "bp:w", "workload", "", "runs",
					     "metrics", "not_applicable", "nothing to <watch>"));
	return root;
}

/* What the scorecard reads beyond the rows above: a point marked as resting on too few
 * samples, and a cost fit per facility (resolved for the timer, not for the precise one). */
static void add_scorecard_points(json_t *root, const char *precise)
{
	json_t *pts = json_object_get(root, "points");
	json_t *few = point(pts, "accuracy", "timer:cpu-clock", "accuracy:ratio=5", 100000, 1, 10,
			    3, 0, 1);
	json_object_set_new(few, "too_few_samples",
			    json_string("0.8 samples expected per run, 12 needed"));
	/* uprobe: every run exact; sw: runs of 98, 99, 100 whose interval reaches 100 */
	point(pts, "accuracy", "uprobe", "accuracy:ratio=20", 7, 1, 100, 1, 0, 1);
	json_t *sw = point(pts, "accuracy", "sw:page-faults", "accuracy:ratio=20", 7, 1, 98, 3, 0, 1);
	/* 5 samples at a level its runs excluded (issue 21: named in the scorecard) */
	json_object_set_new(json_object_get(sw, "metrics"), "wrong_level_samples_total",
			    json_integer(5));
	/* the cost fits: a resolved one for the timer, an unresolved one for the precise one */
	json_array_append_new(
		pts, json_pack("{s:s, s:s, s:s, s:[], s:{s:f, s:f, s:f, s:f, s:b}, s:s, s:s, s:i}",
			       "experiment", "cost", "facility", "timer:cpu-clock", "workload",
			       "busy", "runs", "metrics", "ns_per_sample", 2000.0, "ci95_ns", 100.0,
			       "r2", 0.998, "theil_sen_ns_per_sample", 2010.0, "resolved", 1,
			       "kind", "fit", "delivery", "none", "threads", 1));
	json_array_append_new(
		pts, json_pack("{s:s, s:s, s:s, s:[], s:{s:f, s:f, s:f, s:b}, s:s, s:s, s:s, s:i}",
			       "experiment", "cost", "facility", precise, "workload", "busy", "runs",
			       "metrics", "ns_per_sample", 300.0, "ci95_ns", 500.0, "r2", 0.2,
			       "resolved", 0, "kind", "fit", "delivery", "none", "note",
			       "per-sample cost not resolved (rule): R² 0.200 < 0.99", "threads", 1));
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	buf[got] = '\0';
	fclose(f);
	return buf;
}

static void write_results(json_t *root, const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", dir);
	CHECK(json_dump_file(root, path, JSON_INDENT(1)) == 0);
}

/* Runs a subcommand with its stdout captured into out (malloc'd). */
static int run_captured(int (*cmd)(int, char **), int argc, char **argv, const char *tmpdir,
			char **out)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	int rc = cmd(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	*out = read_all(path);
	return rc;
}

/* The line of a compare table that starts with these words. */
static const char *line_with(const char *text, const char *start)
{
	for (const char *l = text; l && *l;) {
		if (!strncmp(l, start, strlen(start)))
			return l;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NULL;
}

/* An experiment's table heads each run of rows sharing a facility and workload once, across
 * the table, and has no facility or workload column. */
static void check_grouped(const char *html, const struct pb_results *doc, const char *experiment)
{
	char id[64];
	snprintf(id, sizeof id, "id=\"exp-%s\"", experiment);
	const char *start = strstr(html, id);
	CHECK(start != NULL);
	if (!start)
		return;
	const char *end = strstr(start + 1, "<h2");
	size_t len = end ? (size_t)(end - start) : strlen(start);
	char *section = strndup(start, len);
	unsigned groups = 0, rows = 0;
	const struct pb_result_point *last = NULL;
	for (size_t i = 0; i < doc->npoints; i++) {
		const struct pb_result_point *p = doc->points[i];
		if (strcmp(p->experiment, experiment))
			continue;
		rows++;
		groups += !last || strcmp(last->facility, p->facility) ||
			  strcmp(last->workload, p->workload);
		last = p;
	}
	unsigned seen = 0;
	for (const char *at = section; (at = strstr(at, "<tr class=\"group\"><th colspan=")); at++)
		seen++;
	CHECK(rows > groups); /* else nothing is grouped */
	CHECK_EQ_U64(seen, groups);
	CHECK(!strstr(section, "<th>facility</th>") && !strstr(section, "<th>workload</th>"));
	free(section);
}

static void check_report(void)
{
	char dir[] = "/tmp/pb-test-report-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	json_t *results_json = machine_results("GenuineIntel", "Intel(R) Xeon(R) Gold 6354",
					       "pebs:INST_RETIRED:PREC_DIST", 97, true);
	add_scorecard_points(results_json, "pebs:INST_RETIRED:PREC_DIST");
	/* a second period of the timer's interval row: two rows under one heading */
	point(json_object_get(results_json, "points"), "interval", "timer:cpu-clock",
	      "accuracy:ratio=20", 50000, 1, 70, 3, 0, 1);
	write_results(results_json, dir);
	struct pb_results doc;
	pb_test_results_of_json(&doc, results_json);
	pb_scorecard_fill(&doc);
	const struct pb_results *results = &doc;
	struct pb_error err = {0};
	size_t nplots = 0;
	CHECK(pb_report_folder(results, dir, false, pb_experiment_summary, NULL, &nplots, &err) ==
	      0);
	char path[4200];
	snprintf(path, sizeof path, "%s/report.html", dir);
	char *html = read_all(path);
	CHECK(html != NULL);

	struct pb_plot_set set;
	CHECK(pb_plots_make(results, dir, false, pb_experiment_summary, &set, &err) == 0);
	CHECK_EQ_U64(set.n, nplots);
	CHECK(set.n >= 4);
	for (size_t i = 0; i < set.n; i++) {
		char needle[300];
		snprintf(needle, sizeof needle, "href=\"plots/%s.svg\"", set.plots[i].name);
		if (set.plots[i].sentence[0]) {
			/* a plot of flat lines: its sentence stands in its place */
			CHECK(!strstr(html, needle));
			CHECK(strstr(set.plots[i].sentence, ": not drawn, as ") != NULL);
			snprintf(needle, sizeof needle, "<p class=\"nodraw\">%.60s", set.plots[i].title);
		} else if (set.plots[i].rendered) {
			CHECK_STR_CONTAINS(html, needle);
			snprintf(needle, sizeof needle, "<img src=\"plots/%s.png\"", set.plots[i].name);
		} else {
			snprintf(needle, sizeof needle, "href=\"plots/%s.gp\"", set.plots[i].name);
		}
		CHECK_STR_CONTAINS(html, needle);
	}
	pb_plot_set_free(&set);

	CHECK_STR_CONTAINS(html, "<!DOCTYPE html>");
	CHECK_STR_CONTAINS(html, "Intel(R) Xeon(R) Gold 6354");
	check_grouped(html, results, "interval");
	/* a table whose rows all span (mode: bp:w not applicable) has no empty header row */
	CHECK(!strstr(html, "<tr></tr>"));
	CHECK_STR_CONTAINS(html, "<tr class=\"bad\"><td colspan=\"1\"><div class=\"p\">not "
			   "applicable: nothing to &lt;watch&gt;</div></td></tr>");
	CHECK_STR_CONTAINS(html, "no &lt;arm_spe&gt; PMU &amp; no SPE here");
	CHECK(!strstr(html, "<arm_spe>"));
	CHECK_STR_CONTAINS(html, "nothing to &lt;watch&gt;");
	CHECK_STR_CONTAINS(html, "INCOMPLETE");
	CHECK_STR_CONTAINS(html, "id=\"exp-accuracy\"");
	CHECK_STR_CONTAINS(html, "id=\"exp-interval\"");
	/* the rows' figures: mean of 97, 98, 99 with its interval (no digit finer than the
	 * interval's second); losses over 3 runs; multiplexing */
	CHECK_STR_CONTAINS(html, "<td class=\"n\">98.0 ±2.5</td>");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">21</td>");
	/* a figure's cell breaks only before its interval, never inside its words */
	CHECK_STR_CONTAINS(html, "<td class=\"n\">0.500&nbsp;(multiplexed)</td>");
	/* the scorecard comes first, the cost table shows the fit, not accuracy columns */
	const char *card = strstr(html, "id=\"scorecard\""), *mach = strstr(html, "id=\"machine\"");
	CHECK(card && mach && card < mach);
	CHECK_STR_CONTAINS(html, "<th>ns/sample ± 95 % CI</th>");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">2000 ±100</td>");
	/* resolved or not in a word, the reason in the notes (two columns of prose made the
	 * table wider than the page) */
	CHECK_STR_CONTAINS(html, "<td><div class=\"t\">no</div></td>");
	CHECK_STR_CONTAINS(html, "<tr class=\"prose\"><td colspan=\"");
	CHECK_STR_CONTAINS(html, "\"><div class=\"p\">notes: not resolved: R² 0.200 &lt; "
			   "0.99</div></td></tr>");
	CHECK(!strstr(html, "<th>notes</th>"));
	/* an unresolved cost in the scorecard: its estimate, named as one */
	CHECK_STR_CONTAINS(html, "<td>not resolved; estimate 300 ns</td>");
	/* a 1-run row has no interval: said, never printed as nan */
	CHECK_STR_CONTAINS(html, "(no interval)");
	static const char *const nans[] = {">nan", " nan", "nan,", "nan]", "-nan", ">inf", " inf"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(nans); i++) {
		const char *at = strstr(html, nans[i]);
		if (at)
			fprintf(stderr, "'%s' in: %.80s\n", nans[i], at > html + 60 ? at - 60 : html);
		CHECK(!at);
	}
	const char *cost = strstr(html, "id=\"exp-cost\"");
	CHECK(cost && !strstr(cost, "accuracy (%)"));
	/* every table sits in a block of the page's width: a table alone does not keep to the
	 * page's column (the skipped facilities' and the bias shares' stood at the left edge) */
	unsigned tables = 0;
	for (const char *t = strstr(html, "<table"); t; t = strstr(t + 1, "<table")) {
		const char *div = t - 1;
		while (div > html && *div != '<')
			div--;
		tables++;
		CHECK_MSG(!strncmp(div, "<div class=\"wide", 16), "%.60s", div);
	}
	CHECK(tables >= 5);
	/* the bias shares table */
	CHECK_STR_CONTAINS(html, "pb_wl_bias_plain_load4");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">24.50</td>");
	/* the experiments' summaries come from the catalogue the caller passes, and a report
	 * without one still says everything the results hold */
	char about[300];
	snprintf(about, sizeof about, "<p>%s.</p>", pb_experiment_summary("accuracy"));
	CHECK_STR_CONTAINS(html, about);
	free(html);
	size_t len = 0;
	html = pb_report_html(results, NULL, NULL, &len);
	CHECK(html && !strstr(html, about));
	CHECK_STR_CONTAINS(html, "id=\"exp-accuracy\"");
	CHECK_STR_CONTAINS(html, "<td class=\"n\">98.0 ±2.5</td>");
	free(html);

	/* --no-plots on a folder without images: still a report, nothing pretends to be drawn */
	char bare[] = "/tmp/pb-test-report-XXXXXX";
	CHECK(mkdtemp(bare) != NULL);
	CHECK(pb_report_folder(results, bare, true, pb_experiment_summary, NULL, &nplots, &err) ==
	      0);
	snprintf(path, sizeof path, "%s/report.html", bare);
	html = read_all(path);
	CHECK(html && !strstr(html, "<img"));
	CHECK_STR_CONTAINS(html, "(not drawn)");
	free(html);

	/* `pesbench report DIR` as a command */
	char *argv[] = {"report", dir, "--quiet", NULL};
	char *out = NULL;
	CHECK(run_captured(pb_cmd_report, 3, argv, bare, &out) == 0);
	free(out);
	/* --json: the scorecard and where the report is, as JSON, nothing else on stdout */
	char *argv_json[] = {"report", dir, "--no-plots", "--json", NULL};
	CHECK(run_captured(pb_cmd_report, 4, argv_json, bare, &out) == 0);
	json_error_t je;
	json_t *printed = json_loads(out ? out : "", 0, &je);
	CHECK(printed != NULL);
	const char *where = json_string_value(json_object_get(printed, "report"));
	CHECK(where && strstr(where, "/report.html"));
	json_t *entries = json_object_get(printed, "scorecard");
	CHECK(json_is_array(entries) && json_array_size(entries) >= 4);
	CHECK(json_is_object(json_object_get(json_array_get(entries, 0), "accuracy_worst")));
	json_decref(printed);
	free(out);
	pb_results_free(&doc);
	json_decref(results_json);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, bare);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static double fig(const struct pb_rset *e, const char *name, const char *field)
{
	bool ok;
	double v = pb_rset_get_number(pb_rset_get_set(e, name), field, &ok);
	return ok ? v : NAN;
}

/* Display columns of the longest line (UTF-8 sequences count once). */
static size_t widest_line(const char *text)
{
	size_t widest = 0, col = 0;
	for (const char *c = text; *c; c++) {
		if (*c == '\n') {
			col = 0;
			continue;
		}
		if ((*c & 0xC0) != 0x80 && ++col > widest)
			widest = col;
	}
	return widest;
}

/* The terminal's summary of doc, malloc'd. */
static char *summary_text(const struct pb_results *doc)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	pb_summary_print(f, doc);
	fclose(f);
	return out;
}

static void check_scorecard(void)
{
	json_t *root = machine_results("GenuineIntel", "Intel(R) Xeon(R) Gold 6354",
				       "pebs:INST_RETIRED:PREC_DIST", 97, true);
	add_scorecard_points(root, "pebs:INST_RETIRED:PREC_DIST");
	struct pb_results doc;
	pb_test_results_of_json(&doc, root);
	pb_scorecard_fill(&doc);
	/* the timer: accuracy rows 91 (accuracy) and 61 (interval); the marked row of 11 is out */
	const struct pb_rset *timer = pb_test_card_of(&doc, "timer");
	CHECK(timer && pb_rset_is_true(timer, "measured"));
	CHECK(fabs(fig(timer, "accuracy_worst", "value") - 61) < 1e-9);
	CHECK(fabs(fig(timer, "accuracy_median", "value") - 61) < 1e-9 ||
	      fabs(fig(timer, "accuracy_median", "value") - 91) < 1e-9);
	CHECK(fig(timer, "accuracy_worst", "lo") < 61 && fig(timer, "accuracy_worst", "hi") > 61);
	/* a time-based facility estimates time: judged for that, never for exact counts */
	CHECK_STR_CONTAINS(pb_rset_get_text(timer, "summary"), "not for unbiased time estimates");
	CHECK(!strstr(pb_rset_get_text(timer, "summary"), "for exact counts"));
	/* the cost and what it implies at 1 and 10 kHz: 2000 ns × 1000/s = 0.2 % */
	CHECK(fabs(fig(timer, "ns_per_sample", "value") - 2000) < 1e-9);
	CHECK(fabs(fig(timer, "ns_per_sample", "hi") - 2100) < 1e-9);
	CHECK(fabs(fig(timer, "overhead_1khz", "value") - 0.2) < 1e-9);
	CHECK(fabs(fig(timer, "overhead_10khz", "value") - 2) < 1e-9);
	CHECK(pb_rset_is_true(pb_rset_get_set(timer, "overhead_1khz"), "resolved"));
	/* pebs: cost unresolved */
	const struct pb_rset *pebs = pb_test_card_of(&doc, "pebs");
	CHECK(pebs && !pb_rset_is_true(pb_rset_get_set(pebs, "ns_per_sample"), "resolved"));
	CHECK_STR_CONTAINS(pb_rset_get_text(pb_rset_get_set(pebs, "ns_per_sample"), "note"),
			   "not resolved: estimate 300");
	/* lost 7 per run of 3, out of 1000-sample runs: the loss is named */
	CHECK(fig(pebs, "loss", "value") > 0);
	CHECK_STR_CONTAINS(pb_rset_get_text(pebs, "summary"), "lossless capture");
	CHECK_STR_CONTAINS(pb_rset_get_text(pebs, "summary"), "multiplexed");
	CHECK_STR_CONTAINS(pb_rset_get_text(pb_test_card_of(&doc, "uprobe"), "summary"),
			   "use for exact counts");
	/* runs of 98, 99, 100 %: 99 ± 2.5, whose interval allows 3.5 % off */
	CHECK_STR_CONTAINS(pb_rset_get_text(pb_test_card_of(&doc, "sw"), "summary"),
			   "use for counts to ±3.5 %");
	CHECK(fig(pb_test_card_of(&doc, "sw"), "wrong_level_samples", "value") == 5);
	CHECK_STR_CONTAINS(pb_rset_get_text(pb_test_card_of(&doc, "sw"), "summary"),
			   "privilege-level filtering (5 samples at an excluded level)");
	CHECK(fig(timer, "wrong_level_samples", "value") == 0);
	CHECK(!strstr(pb_rset_get_text(timer, "summary"), "privilege-level"));
	/* spe was skipped: not measured, and why */
	const struct pb_rset *spe = pb_test_card_of(&doc, "spe");
	CHECK(spe && !pb_rset_is_true(spe, "measured"));
	CHECK_STR_CONTAINS(pb_rset_get_text(spe, "why"), "no SPE here");

	/* results.json carries it as fixed for every branch, and reads it back */
	json_t *written = pb_results_json(&doc);
	json_t *entries = json_object_get(written, "scorecard");
	CHECK(json_is_array(entries) && json_array_size(entries) == pb_rlist_size(&doc.scorecard));
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		CHECK(json_is_string(json_object_get(e, "facility")));
		CHECK(json_is_string(json_object_get(e, "verdict")));
		CHECK(json_is_boolean(json_object_get(e, "measured")));
		CHECK(json_is_string(json_object_get(e, "summary")));
		if (!json_is_true(json_object_get(e, "measured")))
			CHECK(json_is_string(json_object_get(e, "why")));
	}
	json_t *worst = json_object_get(json_array_get(entries, 0), "accuracy_worst");
	CHECK(json_is_number(json_object_get(worst, "value")) &&
	      json_is_number(json_object_get(worst, "lo")) &&
	      json_is_number(json_object_get(worst, "hi")) &&
	      json_is_string(json_object_get(worst, "unit")) &&
	      json_is_boolean(json_object_get(worst, "resolved")));
	char *text = json_dumps(written, 0);
	struct pb_results back;
	struct pb_error err = {0};
	CHECK(pb_results_load_buffer(text, strlen(text), "back", &back, &err) == 0);
	CHECK_EQ_U64(pb_rlist_size(&back.scorecard), pb_rlist_size(&doc.scorecard));
	CHECK(fabs(fig(pb_test_card_of(&back, "timer"), "overhead_1khz", "value") - 0.2) < 1e-9);
	/* the scorecard is not a point field: no "value" unit leaks into the units object */
	CHECK(!json_object_get(json_object_get(written, "units"), "value"));
	pb_results_free(&back);
	free(text);
	json_decref(written);

	/* the terminal: the scorecard first, at most 100 columns, no per-point table; a failed
	 * point is named, with its reason */
	struct pb_result_point *bad = pb_results_point(&doc, "accuracy", "timer:cpu-clock", "busy");
	pb_rset_text(&bad->params, "error", "the workload exited with status 3");
	char *out = summary_text(&doc);
	CHECK(widest_line(out) <= 100);
	const char *head = strstr(out, "Scorecard");
	CHECK(head && strstr(head, "\ntimer ") && strstr(out, "Not measured here"));
	CHECK(!strstr(out, "accuracy:ratio=20"));
	CHECK_STR_CONTAINS(out, "2 ±0.1 µs");
	CHECK_STR_CONTAINS(out, "0.2 / 2 %");
	CHECK_STR_CONTAINS(out, "1 point FAILED, e.g. accuracy on timer:cpu-clock with busy: the "
				"workload exited with status 3");
	free(out);
	/* report.html's list of every figure: four digits, never an exponent (a cost of 13361 ns
	 * read "1.336e+04 [1.321e+04, 1.351e+04]") */
	struct pb_rset *cost = pb_rset_set((struct pb_rset *)timer, "ns_per_sample");
	pb_rset_real(cost, "value", PB_UNIT_NONE, 13361.2);
	pb_rset_real(cost, "lo", PB_UNIT_NONE, 13208.1);
	pb_rset_real(cost, "hi", PB_UNIT_NONE, 13514.3);
	pb_rset_text(cost, "unit", "ns/sample");
	size_t html_len;
	char *html = pb_report_html(&doc, NULL, NULL, &html_len);
	CHECK(html != NULL);
	if (html) {
		CHECK_STR_CONTAINS(html, "cost per sample: 13361 [13208, 13514] ns/sample");
		CHECK(!strstr(html, "e+0"));
		/* the failed point at the top, before the contents, as the terminal says it */
		const char *failed = strstr(html, "<p class=\"warn\">1 point FAILED, e.g. accuracy "
					    "on timer:cpu-clock with busy: the workload exited");
		const char *nav = strstr(html, "<nav>");
		CHECK_MSG(failed && nav && failed < nav, "%s",
			  failed ? "after the contents" : "none");
		/* every figure under a label of its own, never its key */
		for (const char *const *name = pb_scorecard_figures; *name; name++) {
			char key[64];
			snprintf(key, sizeof key, "%s: ", *name);
			CHECK_MSG(!strstr(html, key), "%s has no label", *name);
		}
	}
	free(html);

	pb_results_free(&doc);
	json_decref(root);
}

/* The terminal's scorecard never cuts a cell: a loss cell naming throttles and multiplexing
 * (20 characters in a 6-character column, cut to "1e+02 " before: 3 runs of 12 throttles
 * each, every sample lost as no run kept one) wraps in its column, every
 * figure whole and with its unit, and no line is wider than 100 columns or ends in a space. */
static void check_scorecard_cells_whole(void)
{
	json_t *root = machine_results("GenuineIntel", "Intel(R) Xeon(R) Gold 6354",
				       "pebs:INST_RETIRED:PREC_DIST", 97, true);
	add_scorecard_points(root, "pebs:INST_RETIRED:PREC_DIST");
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(root, "points"), i, p) {
		if (strcmp(json_string_value(json_object_get(p, "facility")),
			   "pebs:INST_RETIRED:PREC_DIST"))
			continue;
		size_t r;
		json_t *run;
		json_array_foreach(json_object_get(p, "runs"), r, run)
			json_object_set_new(json_array_get(json_object_get(run, "events"), 0),
					    "throttles", json_integer(12));
		pb_test_point_metrics(p);
	}
	struct pb_results doc;
	pb_test_results_of_json(&doc, root);
	pb_scorecard_fill(&doc);
	struct pb_scorecard_cells cells;
	pb_scorecard_cells(pb_test_card_of(&doc, "pebs"), &cells);
	CHECK_MSG(strstr(cells.loss, " thr 36") && strstr(cells.loss, " mux 50%"),
		  "the loss cell names neither the throttles nor the multiplexing: %s", cells.loss);
	char *out = summary_text(&doc);
	CHECK(widest_line(out) <= 100);
	CHECK_MSG(!strstr(out, " \n"), "a line ends in a space:\n%s", out);
	CHECK_MSG(!strstr(out, "e+0"), "a figure in exponent form:\n%s", out);
	const char *const whole[] = {"100 %", "thr 36", "mux 50%", "bias 3.5 pp"};
	for (size_t k = 0; k < PB_ARRAY_SIZE(whole); k++)
		CHECK_MSG(strstr(out, whole[k]), "\"%s\" is not whole in:\n%s", whole[k], out);
	free(out);
	pb_results_free(&doc);
	json_decref(root);
}


static void check_compare(void)
{
	char a[] = "/tmp/pb-test-compare-XXXXXX", b[] = "/tmp/pb-test-compare-XXXXXX";
	CHECK(mkdtemp(a) && mkdtemp(b));
	json_t *intel = machine_results("GenuineIntel", "Intel(R) Xeon(R) Gold 6354",
					"pebs:INST_RETIRED:PREC_DIST", 97, true);
	json_t *amd = machine_results("AuthenticAMD", "AMD EPYC 7763", "ibs-op", 91, false);
	/* the Intel run had a busy neighbour; the AMD file says nothing of one */
	json_object_set_new(intel, "other_load_cpus", json_real(0.98));
	json_object_set_new(intel, "other_load_cpus_ci95", json_real(0.021));
	write_results(intel, a);
	write_results(amd, b);
	char bfile[4200];
	snprintf(bfile, sizeof bfile, "%s/results.json", b);

	char *argv[] = {"compare", a, bfile, NULL};
	char *out = NULL;
	CHECK(run_captured(pb_cmd_compare, 3, argv, a, &out) == 0);
	CHECK_STR_CONTAINS(out, "Intel(R) Xeon(R) Gold 6354");
	CHECK_STR_CONTAINS(out, "AMD EPYC 7763");
	const char *beside = strstr(out, "beside it, other work kept 0.980 ±0.021 CPUs busy\n");
	CHECK(beside && !strstr(beside + 1, "beside it"));
	/* PEBS and IBS on one row: the Intel vs AMD comparison. Three runs of 97..99 and
	 * 91..93: mean ± t(2) s / sqrt(3) = 2.48; the 6-point gap exceeds both intervals. */
	const char *row = line_with(out, "pebs:INST_RETIRED:PREC_DIST ");
	CHECK(row != NULL);
	if (row) {
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)strcspn(row, "\n"), row);
		CHECK_STR_CONTAINS(line, "| 98.00±2.48 L M ");
		CHECK_STR_CONTAINS(line, "| ibs-op:ops 92.00±2.48 L M Δ-6.00*");
	}
	row = line_with(out, "timer:cpu-clock ");
	CHECK(row && strstr(row, "| 91.00±2.48 ") && strstr(row, "| 91.00±2.48 Δ+0.00"));
	/* only the Intel file has the interval row */
	row = line_with(out, "== interval");
	CHECK(row != NULL);
	row = row ? line_with(row, "timer:cpu-clock ") : NULL;
	CHECK(row != NULL);
	if (row) {
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)strcspn(row, "\n"), row);
		CHECK_STR_CONTAINS(line, "61.00±2.48");
		/* the other run's cell empty, the last of the line, unpadded */
		CHECK(strlen(line) >= 4 && !strcmp(line + strlen(line) - 4, " | -"));
	}
	/* the bias table compares the deviation; two runs without shares give no interval */
	CHECK_STR_CONTAINS(out, "== bias: bias_deviation");
	row = line_with(out, "bp:rw");
	CHECK(row && strstr(row, "3.50±?") && strstr(row, "Δ+0.00?"));
	/* the not-applicable mode point gives no figure */
	CHECK(!strstr(out, "== mode"));
	CHECK_STR_CONTAINS(out, "4 rows in 3 tables, 3 with a figure from every run");
	free(out);

	char *argv_json[] = {"compare", a, b, "--json", NULL};
	CHECK(run_captured(pb_cmd_compare, 4, argv_json, a, &out) == 0);
	json_error_t je;
	json_t *doc = json_loads(out ? out : "", 0, &je);
	CHECK(doc != NULL);
	size_t i, k, nrows = 0;
	json_t *t, *r;
	unsigned unmatched = 0;
	json_array_foreach(json_object_get(doc, "tables"), k, t) {
		json_array_foreach(json_object_get(t, "rows"), i, r) {
			json_t *cells = json_object_get(r, "cells");
			nrows++;
			CHECK_EQ_U64(json_array_size(cells), 2);
			if (json_is_null(json_array_get(cells, 1))) {
				unmatched++;
				CHECK(!strcmp(json_string_value(json_object_get(t, "experiment")),
					      "interval"));
			}
			json_t *second = json_array_get(cells, 1);
			if (!strcmp(json_string_value(json_object_get(r, "facility_kind")), "precise"))
				CHECK(json_is_true(json_object_get(second, "exceeds_both_intervals")));
		}
	}
	CHECK_EQ_U64(nrows, 4);
	CHECK_EQ_U64(unmatched, 1);
	json_decref(doc);
	free(out);

	/* another schema version, a cut-short file, a missing one: exit 6, nothing printed */
	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", b);
	FILE *f = fopen(path, "w");
	fputs("{\"schema\": \"pesbench-results/3\", \"points\": []}", f);
	fclose(f);
	CHECK(run_captured(pb_cmd_compare, 3, argv, a, &out) == PB_EXIT_BAD_FILE);
	CHECK(out && !*out);
	free(out);
	char *argv_report[] = {"report", b, NULL};
	CHECK(run_captured(pb_cmd_report, 2, argv_report, a, &out) == PB_EXIT_BAD_FILE);
	free(out);
	f = fopen(path, "w");
	fputs("{\"schema\": \"pesbench-results/1\", \"points\": [", f);
	fclose(f);
	CHECK(run_captured(pb_cmd_compare, 3, argv, a, &out) == PB_EXIT_BAD_FILE);
	free(out);
	unlink(path);
	CHECK(run_captured(pb_cmd_compare, 3, argv, a, &out) == PB_EXIT_BAD_FILE);
	free(out);
	/* one file is not a comparison */
	char *argv_one[] = {"compare", a, NULL};
	CHECK(run_captured(pb_cmd_compare, 2, argv_one, a, &out) == PB_EXIT_USAGE);
	free(out);

	json_decref(intel);
	json_decref(amd);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", a, b);
	if (system(cmd))
		fprintf(stderr, "could not remove %s %s\n", a, b);
}

/* A complete results document of a machine it knows nothing of and no points yet. */
static json_t *bare_results(void)
{
	return json_pack("{s:s, s:b, s:s, s:[s], s:{s:s}, s:[]}", "schema", PB_RESULTS_SCHEMA,
			 "complete", 1, "started", "2026-01-01T00:00:00Z", "command", "run",
			 "machine", "schema", "pesbench-probe/1", "points");
}

/* A timer prediction's notes say, beside the prediction, how it fares with the cost workload
 * measured beside it and with the target's own cost at another period, each with its verdict,
 * the calibrating period in the facility's unit (a timer's in µs); a fit's notes give its
 * costs by period in that unit too. */
static void check_prediction_notes(void)
{
	json_t *root = bare_results();
	json_t *metrics = json_pack(
		"{s:f, s:f, s:f, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:s, s:i, s:f, s:f, s:f, s:s}",
		"error_pct", -4.8, "predicted_slowdown_pct", 30.0, "measured_slowdown_pct", 24.31,
		"slowdown_verdict", "outside", "measured_slowdown_ci95_pp", 2.65,
		"measured_ns_per_sample", 14100.0, "measured_ns_per_sample_ci95", 1200.0,
		"reference_ns_per_sample", 17200.0, "reference_ns_per_sample_ci95", 1600.0,
		"rebased_predicted_slowdown_pct", 31.1, "rebased_slowdown_verdict", "outside",
		"calibrated_from_period", 184226, "calibrated_ns_per_sample", 22100.0,
		"calibrated_ns_per_sample_ci95", 900.0, "calibrated_predicted_slowdown_pct", 43.9,
		"calibrated_slowdown_verdict", "outside");
	json_object_set_new(metrics, "reference_vs_fit_pct", json_real(3.0));
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:{s:s, s:s, s:b, s:s, s:s}, s:s, s:I, s:i, s:o, s:[]}",
		"experiment", "cost", "facility", "timer:cpu-clock", "workload", "accuracy:ratio=20",
		"traits", "period_unit", "ns", "family", "timer", "exact", 0, "ip", "skid", "spec",
		"timer:cpu-clock", "kind", "prediction", "period", (json_int_t)72574, "threads", 1,
		"metrics", metrics, "runs"));
	/* the same point undecided: what would decide it */
	json_t *undecided = json_deep_copy(json_array_get(json_object_get(root, "points"), 0));
	json_t *um = json_object_get(undecided, "metrics");
	json_object_set_new(um, "slowdown_verdict", json_string("undecided"));
	json_object_set_new(um, "rounds_to_decide", json_integer(9));
	json_object_set_new(um, "rounds", json_integer(8));
	json_object_set_new(um, "rounds_left_out", json_integer(1));
	json_object_set_new(um, "slowdown_error_pp", json_real(-2.73));
	json_object_set_new(um, "slowdown_tolerance_pp", json_real(2.731));
	json_object_set_new(undecided, "period", json_integer(569642));
	json_array_append_new(json_object_get(root, "points"), undecided);
	/* a prediction with its cost's interval, which the cell shows beside each prediction */
	json_t *with_ci = json_deep_copy(json_array_get(json_object_get(root, "points"), 0));
	json_t *wm = json_object_get(with_ci, "metrics");
	json_object_set_new(wm, "predicted_slowdown_ci95_pp", json_real(0.55));
	json_object_set_new(wm, "rebased_predicted_slowdown_ci95_pp", json_real(2.9));
	json_object_set_new(wm, "calibrated_predicted_slowdown_ci95_pp", json_real(9.08));
	json_object_set_new(wm, "calibrated_slowdown_verdict", json_string("undecided"));
	json_object_set_new(with_ci, "period", json_integer(77777));
	json_array_append_new(json_object_get(root, "points"), with_ci);
	/* undecided at any number of rounds: why, in the cell */
	json_t *never = json_deep_copy(undecided);
	json_t *nm = json_object_get(never, "metrics");
	json_object_del(nm, "rounds_to_decide");
	json_object_set_new(nm, "undecided_why", json_string("no number of rounds decides it: its "
			    "error (0.83 pp) lies within the prediction's own interval"));
	json_object_set_new(never, "period", json_integer(66666));
	json_array_append_new(json_object_get(root, "points"), never);
	/* the cost workload beside it where the fit gave no cost at the period: no comparison
	 * with the fit (it read "(fit +0 %)", the missing figure taken as 0) */
	json_t *unfit = json_deep_copy(json_array_get(json_object_get(root, "points"), 0));
	json_object_del(json_object_get(unfit, "metrics"), "reference_vs_fit_pct");
	json_object_set_new(json_object_get(unfit, "metrics"), "reference_ns_per_sample",
			    json_real(17900.0));
	json_object_set_new(unfit, "period", json_integer(40123));
	json_array_append_new(json_object_get(root, "points"), unfit);
	/* every round left out: not measured, never "measured 0 %" */
	json_t *unmeasured = json_deep_copy(unfit);
	json_object_del(json_object_get(unmeasured, "metrics"), "measured_slowdown_pct");
	json_object_del(json_object_get(unmeasured, "metrics"), "measured_slowdown_ci95_pp");
	json_object_set_new(unmeasured, "period", json_integer(30123));
	json_array_append_new(json_object_get(root, "points"), unmeasured);
	/* a cost fit's costs by period, in a file of the cost experiment alone: no point's runs
	 * say what a period counts, the traits do (it read "at 3.599e+04 events") */
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:{s:s, s:s, s:b, s:s, s:s}, s:s, s:s, s:i, "
		"s:{s:f, s:f, s:f, s:b, s:[{s:I, s:i, s:i, s:f, s:f}, {s:I, s:i, s:i, s:f, s:f}]}, "
		"s:[]}",
		"experiment", "cost", "facility", "timer:cpu-clock", "workload", "busy", "traits",
		"period_unit", "ns", "family", "timer", "exact", 0, "ip", "skid", "spec",
		"timer:cpu-clock", "kind", "fit", "delivery", "none", "threads", 1, "metrics",
		"ns_per_sample", 16748.0, "ci95_ns", 447.0, "r2", 0.993, "resolved", 1,
		"ns_per_sample_by_period", "period", (json_int_t)35986, "samples", 900, "pairs", 8,
		"ns_per_sample", 16600.0, "ci95_ns", 520.0, "period", (json_int_t)1000000, "samples",
		32, "pairs", 8, "ns_per_sample", 64700.0, "ci95_ns", 120000.0, "runs"));
	/* a sweep point of two pairs; the fit above had a second design */
	json_t *fit = json_array_get(json_object_get(root, "points"),
				     json_array_size(json_object_get(root, "points")) - 1);
	json_object_set_new(json_object_get(fit, "metrics"), "redesigned", json_true());
	json_object_set_new(json_object_get(fit, "metrics"), "rate_dependent", json_false());
	json_object_set_new(json_object_get(fit, "metrics"), "rate_ns_per_decade", json_real(465));
	json_object_set_new(json_object_get(fit, "metrics"), "rate_ns_per_decade_ci95",
			    json_real(1427));
	json_object_set_new(fit, "fit_weights", json_string("1 / (run² + 0.31 baseline²): as "
							    "the design sizes it"));
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:I, s:{}, s:[{s:i, s:i}, {s:i, s:i}]}", "experiment",
		"cost", "facility", "timer:cpu-clock", "workload", "busy", "kind", "sweep", "delivery",
		"none", "period", (json_int_t)50000, "metrics", "runs", "run", 0, "observed", 600,
		"run", 1, "observed", 610));
	struct pb_results doc;
	pb_test_results_of_json(&doc, root);
	size_t len = 0;
	char *html = pb_report_html(&doc, NULL, NULL, &len);
	CHECK(html != NULL);
	if (html) {
		/* the cell leads with the slowdown, as judged; the total CPU time's error after */
		CHECK_STR_CONTAINS(html, "<td><div class=\"t\">slowdown predicted 30 %, measured 24.3 % ± 2.6 pp: "
					 "outside (total CPU time ");
		/* an undecided verdict shows its error beside what is allowed */
		CHECK_STR_CONTAINS(html, "± 2.6 pp: undecided (error 2.7 pp, ±2.7 pp allowed), about "
				   "9 rounds would decide it, 1 of 8 rounds left out as disturbed "
				   "(total CPU time ");
		/* a point that left none out says nothing of it */
		CHECK(!strstr(html, "0 of 8 rounds left out"));
		CHECK_STR_CONTAINS(html, "predicted with it 31.1 %: outside");
		CHECK_STR_CONTAINS(html, "the cost workload beside it 17.9 ± 1.6 µs, predicted");
		CHECK_STR_CONTAINS(html, "slowdown predicted 30 %, not measured (no round gave a "
				   "figure): outside");
		CHECK(!strstr(html, "measured 0 %"));
		CHECK_STR_CONTAINS(html, "with its own cost at 184 µs, 22.1 µs a sample: 43.9 %, "
				   "outside");
		CHECK_STR_CONTAINS(html, "slowdown predicted 30 % ± 0.55 pp, measured 24.3 % ± 2.6 pp");
		CHECK_STR_CONTAINS(html, "undecided (error 2.7 pp, ±2.7 pp allowed), no number of "
				   "rounds decides it: its error (0.83 pp) lies within the "
				   "prediction&#39;s own interval, 1 of 8 rounds left out");
		CHECK_STR_CONTAINS(html, "predicted with it 31.1 % ± 2.9 pp: outside");
		CHECK_STR_CONTAINS(html, "22.1 µs a sample: 43.9 % ± 9.1 pp, undecided");
		CHECK_STR_CONTAINS(html, "by period: 16.6 ± 0.52 µs at 35.99 µs");
		/* and the line by rate, not told from one cost */
		CHECK_STR_CONTAINS(html, "64.7 ± 120 µs at 1000 µs; a tenfold longer period adds "
				   "+0.47 ± 1.4 µs a sample, not told from one cost");
		/* never in exponent form: it read "± 1.2e+02 µs" (suite of 2026-11-27 03:04) */
		CHECK_STR_CONTAINS(html, "64.7 ± 120 µs at 1000 µs");
		CHECK(!strstr(html, "e+0"));
		CHECK_STR_CONTAINS(html, "The fits' data: 1 sweep point, 2 pairs (a sampled run and "
				   "its unsampled partner each) (a fit with a second design fits its "
				   "pairs alone");
		/* how the fits weigh their pairs, under their data */
		CHECK_STR_CONTAINS(html, "<p>Each fit is least squares weighted by its pairs' "
				   "noise: 1 / (run² + 0.31 baseline²): as the design sizes "
				   "it.</p>");
	}
	free(html);
	pb_results_free(&doc);
	/* a fit that could not be weighted is counted beside them */
	json_t *flat = json_deep_copy(fit);
	json_object_set_new(flat, "fit_weights", json_string("none: a run's expected length was "
							     "not above 0"));
	json_object_set_new(flat, "workload", json_string("mix"));
	json_array_append_new(json_object_get(root, "points"), flat);
	pb_test_results_of_json(&doc, root);
	html = pb_report_html(&doc, NULL, NULL, &len);
	CHECK_MSG(html && strstr(html, "as the design sizes it; 1 fit weighed every pair alike "
				 "(fit_weights says why).</p>"),
		  "%s", "the unweighted fit is not counted");
	free(html);
	pb_results_free(&doc);
	json_array_remove(json_object_get(root, "points"),
			  json_array_size(json_object_get(root, "points")) - 1);
	/* a line that rounds to nothing reads "+0.00", never "-0.00" (the suite of 17:24) */
	json_object_set_new(json_object_get(fit, "metrics"), "rate_ns_per_decade", json_real(-2.9));
	pb_test_results_of_json(&doc, root);
	html = pb_report_html(&doc, NULL, NULL, &len);
	CHECK(html && strstr(html, "a tenfold longer period adds +0.00 ± 1.4 µs a sample"));
	free(html);
	pb_results_free(&doc);
	json_decref(root);
}

/* The overhead table of a breakpoint: its 30 µs baseline beside its 30 ms sampled run, each in
 * its unit (the baseline read "0.03001 ±0.00044" in a column of ms), a baseline's delivery said
 * in the delivery column (a role column of its own pushed lost and throttles off the page),
 * and a period of time as a reader says it. */
static json_t *summary(double mean, double ci95)
{
	return json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "n", 5, "mean", mean, "stdev",
			 ci95 / 1.24, "min", mean - ci95, "max", mean + ci95, "median", mean, "ci95",
			 ci95);
}

static void check_overhead_cells(void)
{
	json_t *root = bare_results();
	json_t *points = json_object_get(root, "points");
	json_array_append_new(points, json_pack(
		"{s:s, s:s, s:s, s:{s:s}, s:s, s:i, s:i, s:s, s:{s:o, s:i}, s:[]}",
		"experiment", "overhead", "facility", "bp:w", "workload", "mix", "traits",
		"period_unit", "events", "role", "baseline", "period", 0, "threads", 1, "delivery",
		"-", "metrics", "wall_ns", summary(30010, 440), "lost_total", 0, "runs"));
	json_array_append_new(points, json_pack(
		"{s:s, s:s, s:s, s:{s:s}, s:s, s:i, s:i, s:s, s:{s:o, s:i}, s:[]}",
		"experiment", "overhead", "facility", "bp:w", "workload", "mix", "traits",
		"period_unit", "events", "role", "sampled", "period", 7, "threads", 1, "delivery",
		"sigtrap", "metrics", "wall_ns", summary(30540000, 40000), "lost_total", 3, "runs"));
	json_array_append_new(points, json_pack(
		"{s:s, s:s, s:s, s:{s:s}, s:s, s:i, s:i, s:s, s:{s:o}, s:[]}",
		"experiment", "overhead", "facility", "timer:cpu-clock", "workload", "busy",
		"traits", "period_unit", "ns", "role", "sampled", "period", 100000, "threads", 1,
		"delivery", "none", "metrics", "wall_ns", summary(33940000, 830000), "runs"));
	struct pb_results doc;
	pb_test_results_of_json(&doc, root);
	size_t len = 0;
	char *html = pb_report_html(&doc, NULL, NULL, &len);
	CHECK(html != NULL);
	if (html) {
		CHECK_STR_CONTAINS(html, "<td class=\"n\">30.01 ±0.44&nbsp;µs</td>");
		CHECK_STR_CONTAINS(html, "<td class=\"n\">30.540 ±0.040&nbsp;ms</td>");
		CHECK_STR_CONTAINS(html, "<td><div class=\"t\">no perf</div></td>");
		CHECK_STR_CONTAINS(html, "<td><div class=\"t\">sigtrap</div></td>");
		CHECK(!strstr(html, "<th>role</th>"));
		CHECK_STR_CONTAINS(html, "<th>lost</th>");
		CHECK_STR_CONTAINS(html, "<td class=\"n\">100&nbsp;µs</td>");
		CHECK_STR_CONTAINS(html, "<td class=\"n\">7&nbsp;events</td>");
		CHECK_STR_CONTAINS(html, "<div class=\"wide figures\">");
	}
	free(html);
	pb_results_free(&doc);
	json_decref(root);
}

/* A cost fit that left a disturbed pair out says so where a reader looks: the fit's notes in
 * report.html and a line of the terminal's summary. */
static void check_left_out_pair(void)
{
	json_t *root = bare_results();
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:{s:f, s:f, s:b, s:i}, s:[]}", "experiment",
		"cost", "facility", "uprobe", "workload", "busy", "kind", "fit", "delivery", "none",
		"threads", 1, "left_out_note", "1 of 16 pairs left out as disturbed (...): at period "
		"64 events, 3.291 ms above the line of the rest (9.7 % of its run)", "metrics",
		"ns_per_sample", 142.0, "ci95_ns", 5.7, "resolved", 1, "pairs_left_out", 1, "runs"));
	/* a fit whose notes together pass 1 KiB (a rate note, four pairs left out, its own note):
	 * the cell holds them whole (it was cut at 1024 bytes) */
	char rate[600], left_out[800], note[500];
	memset(rate, 'r', sizeof rate - 1), rate[sizeof rate - 1] = 0;
	memset(left_out, 'l', sizeof left_out - 1), left_out[sizeof left_out - 1] = 0;
	memset(note, 'n', sizeof note - 1), note[sizeof note - 1] = 0;
	memcpy(note + sizeof note - 12, "end of note", 12);
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:{s:f, s:f, s:b, s:i}, s:[]}",
		"experiment", "cost", "facility", "bp:w", "workload", "mix", "kind", "fit",
		"delivery", "drain", "threads", 1, "rate_note", rate, "left_out_note", left_out,
		"note", note, "metrics", "ns_per_sample", 965.0, "ci95_ns", 16.0, "resolved", 1,
		"pairs_left_out", 4, "runs"));
	/* a prediction that left a round out: its note in the cell, a line of its own below */
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:{s:i, s:i}, s:[]}", "experiment", "cost",
		"facility", "timer:cpu-clock", "workload", "program:python3 loop 3e5", "kind",
		"prediction", "period", (json_int_t)143867, "threads", 1, "left_out_note",
		"1 of 8 rounds left out as disturbed (0 for a baseline far above the other rounds', "
		"1 for a sampled run ...)", "metrics", "rounds", 8, "rounds_left_out", 1, "runs"));
	/* an overhead point that left one out of its time overheads: said apart */
	json_array_append_new(json_object_get(root, "points"), json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:{s:i}, s:[]}", "experiment", "overhead",
		"facility", "timer:cpu-clock", "workload", "busy", "role", "sampled", "delivery",
		"none", "period", (json_int_t)100000, "threads", 1, "left_out_note",
		"1 of 10 rounds left out of the time overheads as disturbed (...)", "metrics",
		"rounds_left_out", 1, "runs"));
	struct pb_results doc;
	pb_test_results_of_json(&doc, root);
	size_t len = 0;
	char *html = pb_report_html(&doc, NULL, NULL, &len);
	CHECK(html != NULL);
	if (html) {
		CHECK_STR_CONTAINS(html, "notes: 1 of 16 pairs left out as disturbed (...): at period "
				   "64 events, 3.291 ms above");
		CHECK_STR_CONTAINS(html, "nnnnnnnnend of note");
		CHECK_STR_CONTAINS(html, "1 of 8 rounds left out as disturbed (0 for a baseline");
	}
	free(html);
	char *text = summary_text(&doc);
	CHECK(text != NULL);
	if (text) {
		CHECK_STR_CONTAINS(text, "2 points left a pair a disturbance moved out of its cost fit, "
				   "e.g. cost on uprobe with busy");
		CHECK_STR_CONTAINS(text, "1 point left a round a disturbance moved out of its "
				   "prediction, e.g. cost on timer:cpu-clock with\n  program:python3 "
				   "loop 3e5");
		CHECK_STR_CONTAINS(text, "1 point left a round a disturbance moved out of its time "
				   "overheads, e.g. overhead on timer:cpu-clock\n  with busy");
	}
	free(text);
	pb_results_free(&doc);
	json_decref(root);
}

/* A wrapped line never parts a figure from its unit or its interval: the scorecard's use line
 * read "...(cost\n below the 1.2\n% timing noise)" at 100 columns (2026-11-27). A chunk wider
 * than a line is still broken at its spaces. */
static void check_wrapped_figures(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return;
	char pad[80];
	memset(pad, 'x', 79);
	pad[79] = 0;
	/* "1.2" ends at column 98 and "%" would fit after it: the pair goes on together */
	pb_text_wrapped(f, "", "time-based: use for sampling up to 14.7 kHz (cost below the 1.2 % "
			   "timing noise) and 13.2 ± 0.15 µs a sample; counting alone costs 193 ± "
			   "14 ns an event", 10);
	pb_text_wrapped(f, "", pad, 10);
	pb_text_wrapped(f, "", "w 11111111111 ± 22222222222 ± 33333333333 ± 44444444444 ± "
			   "55555555555 ± 66666666666 ± 77777777777 ± 88888888888 ± 9 %", 10);
	fclose(f);
	CHECK_MSG(!strstr(out, "1.2\n") && !strstr(out, "14.7\n") && !strstr(out, "±\n") &&
			  !strstr(out, "193\n") && !strstr(out, "13.2\n"),
		  "%s", out);
	CHECK_STR_CONTAINS(out, "1.2 %");
	/* every line within 100 columns (µ and ± count as one) */
	for (char *line = out; line && *line;) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line), cols = 0;
		for (size_t i = 0; i < n; i++)
			cols += ((unsigned char)line[i] & 0xC0) != 0x80;
		CHECK_MSG(cols <= 100, "%zu columns: %.*s", cols, (int)n, line);
		line = end ? end + 1 : NULL;
	}
	free(out);
}

/* What else the machine did during the suite, and how fast its CPUs ran: said under the
 * machine in the terminal and the report, with each figure's interval, and nothing said by a
 * document that does not carry it. */
static void check_load_sentence(void)
{
	for (int with = 0; with < 2; with++) {
		char dir[] = "/tmp/pb-test-load-XXXXXX";
		if (!CHECK_MSG(mkdtemp(dir) != NULL, "mkdtemp"))
			return;
		json_t *root = machine_results("AuthenticAMD", "AMD EPYC", "ibs-op", 97, false);
		if (with) {
			json_object_set_new(root, "other_load_cpus", json_real(0.98));
			json_object_set_new(root, "other_load_cpus_ci95", json_real(0.021));
			json_object_set_new(root, "load_cpus", json_real(1.996));
			json_object_set_new(root, "steal_pct", json_real(0.3));
			json_object_set_new(root, "steal_ci95_pp", json_real(0.12));
			json_object_set_new(root, "cpu_speed_probes", json_integer(6));
			json_object_set_new(root, "cpu_speed_note",
					    json_string("A fixed loop took up to 1.7 times its "
							"fastest time, on CPU 1 (1 of 6 probes)."));
		}
		struct pb_results doc;
		pb_test_results_of_json(&doc, root);
		pb_scorecard_fill(&doc);
		char *text = summary_text(&doc);
		struct pb_error err = {0};
		CHECK(pb_report_folder(&doc, dir, false, pb_experiment_summary, NULL, NULL, &err) ==
		      0);
		char path[4200];
		snprintf(path, sizeof path, "%s/report.html", dir);
		char *html = read_all(path);
		const char *said = "Beside the suite, other work kept 0.980 ±0.021 of the 2 CPUs busy, "
				   "and the hypervisor withheld 0.30 ±0.12 % of CPU time (steal).";
		if (with) {
			/* wrapped at 100 columns, so the terminal's is looked for in two parts */
			CHECK_STR_CONTAINS(text, "Beside the suite, other work kept 0.980 ±0.021 of the "
						 "2 CPUs busy");
			CHECK_STR_CONTAINS(text, "0.30 ±0.12 % of CPU time (steal).");
			CHECK_STR_CONTAINS(html, said);
			/* and the CPUs' speed beneath it, as the suite wrote it */
			CHECK_STR_CONTAINS(text, "A fixed loop took up to 1.7 times its fastest "
					   "time, on CPU 1");
			CHECK_STR_CONTAINS(html, "<br>A fixed loop took up to 1.7 times its "
					   "fastest time, on CPU 1 (1 of 6 probes).");
		} else {
			CHECK(text && !strstr(text, "Beside the suite"));
			CHECK(html && !strstr(html, "Beside the suite"));
			CHECK(text && !strstr(text, "A fixed loop"));
			CHECK(html && !strstr(html, "A fixed loop"));
		}
		free(text);
		free(html);
		pb_results_free(&doc);
		json_decref(root);
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		CHECK(system(cmd) == 0);
	}
}

int main(void)
{
	check_load_sentence();
	check_wrapped_figures();
	check_overhead_cells();
	check_left_out_pair();
	check_prediction_notes();
	check_report();
	check_scorecard();
	check_scorecard_cells_whole();
	check_compare();
	return pb_check_done("report");
}
