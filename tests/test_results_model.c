/* The typed results document and its one serialiser: a pesbench-results/1 file written before
 * the typed model (tests/fixtures/results-v1) reads into the model and writes back to the same
 * JSON, with the units /1 implied; a /2 document keeps every value and unit through a write and
 * a read; a number that is no number is left out (or null where said so), as the /1 writer
 * did; the CSV holds one row per run; schemas other than /1 and /2 are refused. */
#include "check.h"
#include "cli/commands.h"
#include "io/results.h"
#include "present/report.h"
#include "util/kit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fixture_path(void)
{
	static char path[4200];
	const char *src = getenv("PB_SOURCE_DIR");
	snprintf(path, sizeof path, "%s/tests/fixtures/results-v1/results.json", src ? src : ".");
	return path;
}

static void v1_fixture_round_trips(void)
{
	struct pb_results doc;
	struct pb_error err = {0};
	CHECK(pb_results_load(fixture_path(), &doc, &err) == 0);
	CHECK(!strcmp(doc.schema, PB_RESULTS_SCHEMA_V1));
	CHECK_EQ_U64(doc.npoints, 50);
	json_error_t je;
	json_t *file = json_load_file(fixture_path(), 0, &je);
	CHECK(file != NULL);
	json_t *again = pb_results_json(&doc);
	/* every key and value of the file, nothing more (no "units": it stays a /1 document) */
	CHECK(json_equal(file, again));
	CHECK(json_object_get(again, "units") == NULL);
	json_decref(again);
	json_decref(file);

	/* the units /1 implied, on the typed values */
	const struct pb_result_point *p = doc.points[0];
	CHECK(!strcmp(p->experiment, "accuracy"));
	const struct pb_rvalue *acc = pb_rset_get(&p->metrics, "accuracy");
	CHECK(acc && acc->kind == PB_RV_SUMMARY && acc->unit == PB_UNIT_PERCENT);
	CHECK(acc && acc->as.sum.n == 1 && acc->as.sum.mean > 0);
	const struct pb_rset *run = pb_rlist_set_at(&p->runs, 0);
	const struct pb_rvalue *wall = pb_rset_get(run, "wall_ns");
	CHECK(wall && wall->kind == PB_RV_INT && wall->unit == PB_UNIT_NS);
	const struct pb_rlist *elapsed = pb_rset_get_list(run, "elapsed_ns");
	CHECK(pb_rlist_size(elapsed) == 1 && pb_rlist_at(elapsed, 0)->unit == PB_UNIT_NS);
	const struct pb_rvalue *period = pb_rset_get(&p->params, "period");
	CHECK(period && period->kind == PB_RV_INT && period->unit == PB_UNIT_NONE);
	/* the machine's probe document carries no units, even where a field's name has one */
	const struct pb_rset *m = pb_rset_get_set(&doc.machine, "machine");
	const struct pb_rvalue *ncpus = pb_rset_get(m, "ncpus");
	CHECK(ncpus && ncpus->unit == PB_UNIT_NONE);
	pb_results_free(&doc);
}

/* compare reads the /1 file as it did before the typed model: every figure in both columns */
static void compare_reads_v1(void)
{
	char *argv[] = {"compare", fixture_path(), fixture_path(), NULL};
	char out_path[] = "/tmp/pb-test-model-XXXXXX";
	int fd = mkstemp(out_path);
	CHECK(fd >= 0);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	int rc = pb_cmd_compare(3, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	CHECK_EQ_U64(rc, 0);
	FILE *f = fopen(out_path, "r");
	char text[1 << 16];
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[n] = '\0';
	if (f)
		fclose(f);
	unlink(out_path);
	/* every figure in both columns; "timer" read as "timer:cpu-clock"; one run: no interval */
	CHECK_STR_CONTAINS(text, "42 rows in 9 tables, 42 with a figure from every run");
	CHECK_STR_CONTAINS(text, "timer:cpu-clock accuracy:ratio=20,factor=4,seed=1  | 76.71±? | "
				 "76.71±? Δ+0.00?");
}

static void fill(struct pb_results *doc)
{
	struct pb_result_point *p = pb_results_point(doc, "demo", "timer", "accuracy:ratio=20");
	pb_rset_int(&p->params, "period", PB_UNIT_NONE, 100000);
	pb_rset_text(&p->params, "role", "sampled \"quoted\"");
	for (int r = 0; r < 2; r++) {
		struct pb_rset *run = pb_rlist_set(&p->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, 1000 + r);
		pb_rset_real(run, "expected", PB_UNIT_SAMPLES, 99.5);
		pb_rset_real_or_null(run, "accuracy", PB_UNIT_PERCENT, r ? NAN : 98.25);
		pb_rset_real(run, "no_figure", PB_UNIT_NS, NAN);  /* left out */
		pb_rset_bool(run, "multiplexed", r == 1);
		struct pb_rlist *l = pb_rset_list(run, "elapsed_ns");
		pb_rlist_int(l, PB_UNIT_NS, 10);
		pb_rlist_int(l, PB_UNIT_NS, 20);
	}
	double v[] = {1, 2, 3};
	pb_rset_summarize(&p->metrics, "wall_ns", PB_UNIT_NS, v, 3);
	struct pb_rset *table = pb_rset_set(&p->metrics, "fit");
	pb_rset_real(table, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, 412.5);
	pb_rset_null(table, "intercept_ns", PB_UNIT_NS);
	/* set again: replaced where it was, not appended */
	pb_rset_int(&p->params, "period", PB_UNIT_NONE, 4000);
	pb_results_skip(doc, "spe", "no arm_spe PMU");
}

static void v2_round_trips(void)
{
	char dir[] = "/tmp/pb-test-model-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct pb_results doc;
	struct pb_error err = {0};
	char *argv[] = {"run", "demo", NULL};
	CHECK(pb_results_open(&doc, dir, 2, argv, &err) == 0);
	fill(&doc);
	CHECK(pb_results_unit_conflict(&doc) == NULL);
	CHECK(pb_results_write(&doc, true, 0, &err) == 0);
	json_t *written = pb_results_json(&doc);
	pb_results_close(&doc);

	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", dir);
	struct pb_results back;
	CHECK(pb_results_load(path, &back, &err) == 0);
	CHECK(!strcmp(back.schema, PB_RESULTS_SCHEMA));
	json_t *again = pb_results_json(&back);
	CHECK(json_equal(written, again));
	json_t *units = json_object_get(again, "units");
	CHECK(!strcmp(json_string_value(json_object_get(units, "wall_ns")), "ns"));
	CHECK(!strcmp(json_string_value(json_object_get(units, "ns_per_sample")),
		      "ns per sample"));
	CHECK(json_object_get(units, "period") == NULL);
	CHECK(pb_rset_is_true(&back.head, "complete"));
	CHECK_EQ_U64(back.npoints, 1);
	const struct pb_result_point *p = back.points[0];
	CHECK(p && !strcmp(p->workload, "accuracy:ratio=20"));
	CHECK_EQ_U64(pb_rset_get_int(&p->params, "period"), 4000);
	CHECK(!strcmp(p->params.f[0].name, "period"));
	const struct pb_rset *r0 = pb_rlist_set_at(&p->runs, 0), *r1 = pb_rlist_set_at(&p->runs, 1);
	CHECK(pb_rset_get(r0, "accuracy")->kind == PB_RV_REAL);
	CHECK(pb_rset_get(r0, "accuracy")->unit == PB_UNIT_PERCENT);
	CHECK(pb_rset_get(r1, "accuracy")->kind == PB_RV_NULL);
	CHECK(pb_rset_get(r0, "no_figure") == NULL);
	CHECK(pb_rset_get(r0, "expected")->kind == PB_RV_REAL);
	CHECK(pb_rset_get(r0, "wall_ns")->kind == PB_RV_INT);
	const struct pb_rvalue *s = pb_rset_get(&p->metrics, "wall_ns");
	CHECK(s && s->kind == PB_RV_SUMMARY && s->unit == PB_UNIT_NS);
	CHECK(s && s->as.sum.n == 3 && fabs(s->as.sum.mean - 2) < 1e-12 &&
	      fabs(s->as.sum.stdev - 1) < 1e-12 && s->as.sum.ci95 > 0);
	const struct pb_rset *fit = pb_rset_get_set(&p->metrics, "fit");
	CHECK(pb_rset_get(fit, "ns_per_sample")->unit == PB_UNIT_NS_PER_SAMPLE);
	CHECK(pb_rset_get(fit, "intercept_ns")->kind == PB_RV_NULL);
	CHECK(!strcmp(pb_rset_get_text(pb_rlist_set_at(&back.skipped, 0), "reason"),
		      "no arm_spe PMU"));
	pb_results_free(&back);
	json_decref(again);
	json_decref(written);

	/* the CSV: point fields, then run fields, one row per run; no figure is an empty cell */
	snprintf(path, sizeof path, "%s/results.csv", dir);
	FILE *f = fopen(path, "r");
	char csv[2048];
	size_t n = f ? fread(csv, 1, sizeof csv - 1, f) : 0;
	csv[n] = '\0';
	if (f)
		fclose(f);
	CHECK_STR_CONTAINS(csv, "experiment,facility,workload,period,role,run.run,run.wall_ns,"
				"run.expected,run.accuracy,run.multiplexed\n");
	CHECK_STR_CONTAINS(csv, "\"demo\",\"timer\",\"accuracy:ratio=20\",4000,"
				"\"sampled \"\"quoted\"\"\",0,1000,99.5,98.25,false\n");
	CHECK_STR_CONTAINS(csv, ",1,1001,99.5,,true\n");
	unlink(path);
	snprintf(path, sizeof path, "%s/results.json", dir);
	unlink(path);
	rmdir(dir);
}

static void other_schemas_refused(void)
{
	static const char *const docs[] = {
		"{\"schema\": \"pesbench-results/3\", \"points\": []}",
		"{\"schema\": \"pesbench-results/2\"}",
		"[1, 2]",
		"{\"schema\": \"pesbench-results/2\", \"points\": [",
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(docs); i++) {
		struct pb_results doc;
		struct pb_error err = {0};
		CHECK(pb_results_load_buffer(docs[i], strlen(docs[i]), "doc", &doc, &err) != 0);
		CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);
		CHECK_EQ_U64(doc.npoints, 0);
		pb_results_free(&doc);
	}
	struct pb_results doc;
	struct pb_error err = {0};
	const char *v2 = "{\"schema\": \"pesbench-results/2\", \"points\": [{\"experiment\": "
			 "\"x\", \"runs\": [], \"metrics\": {\"t\": 5}}], \"units\": {\"t\": \"ns\"}}";
	CHECK(pb_results_load_buffer(v2, strlen(v2), "doc", &doc, &err) == 0);
	CHECK(doc.npoints == 1 && pb_rset_get(&doc.points[0]->metrics, "t")->unit == PB_UNIT_NS);
	pb_results_free(&doc);
}

/* A /1 cost prediction wrote its error as a summary without ci95: it reads back as a table of
 * that figure, and the report's cost table still shows its median. */
static void v1_tables_read_as_figures(void)
{
	const char *v1 =
		"{\"schema\": \"pesbench-results/1\", \"complete\": true, \"points\": ["
		"{\"experiment\": \"cost\", \"facility\": \"bp:w\", \"workload\": \"mix\","
		" \"runs\": [{\"run\": 0, \"error_pct\": 1.5}], \"metrics\": {\"error_pct\":"
		" {\"n\": 1, \"mean\": 1.5, \"stdev\": 0.0, \"min\": 1.5, \"max\": 1.5,"
		" \"median\": 1.5}}, \"kind\": \"prediction\", \"period\": 7, \"threads\": 1}]}";
	struct pb_results doc;
	struct pb_error err = {0};
	CHECK(pb_results_load_buffer(v1, strlen(v1), "v1", &doc, &err) == 0);
	const struct pb_rvalue *e = pb_rset_get(&doc.points[0]->metrics, "error_pct");
	CHECK(e && e->kind == PB_RV_SET && e->unit == PB_UNIT_PERCENT);
	size_t len = 0;
	char *text = pb_report_html(&doc, NULL, NULL, &len);
	CHECK(text != NULL);
	CHECK_STR_CONTAINS(text, "<th>predicted vs measured</th>");
	CHECK_STR_CONTAINS(text, "<td><div class=\"t\">+1.5 %</div></td>");
	free(text);
	pb_results_free(&doc);
}

int main(void)
{
	v1_tables_read_as_figures();
	v1_fixture_round_trips();
	compare_reads_v1();
	v2_round_trips();
	other_schemas_refused();
	return pb_check_done("results_model");
}
