#include "results_json.h"

#include "check.h"
#include "fixture.h"
#include "output_snapshot.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pb_result_point *pb_test_point_of_json(struct pb_results *doc, json_t *point)
{
	json_t *root = json_pack("{s:s, s:[o]}", "schema", PB_RESULTS_SCHEMA, "points", point);
	char *text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	struct pb_error err = {0};
	if (!text || pb_results_load_buffer(text, strlen(text), "test point", doc, &err) ||
	    doc->npoints != 1) {
		fprintf(stderr, "cannot read a test point: %s\n", err.msg);
		abort();
	}
	free(text);
	return doc->points[0];
}

void pb_test_results_of_json(struct pb_results *doc, const json_t *root)
{
	char *text = json_dumps(root, JSON_COMPACT);
	struct pb_error err = {0};
	if (!text || pb_results_load_buffer(text, strlen(text), "test results", doc, &err)) {
		fprintf(stderr, "cannot read test results: %s\n", err.msg);
		abort();
	}
	free(text);
}

json_t *pb_test_points_json(const struct pb_results *doc)
{
	json_t *root = pb_results_json(doc);
	json_t *points = json_incref(json_object_get(root, "points"));
	json_decref(root);
	return points;
}

json_t *pb_test_point_json(const struct pb_results *doc, size_t i)
{
	json_t *points = pb_test_points_json(doc);
	json_t *p = json_incref(json_array_get(points, i));
	json_decref(points);
	pb_test_output_snapshot("point", p);
	return p;
}

json_t *pb_test_run_json(const struct pb_point_request *req, const struct pb_point *pt)
{
	struct pb_rset run = {0};
	pb_point_record(req, pt, &run);
	struct pb_rvalue v = {.kind = PB_RV_SET, .as.set = &run};
	json_t *j = pb_rvalue_json(&v);
	pb_rset_clear(&run);
	pb_test_output_snapshot("run", j);
	return j;
}

void pb_test_point_metrics(json_t *point)
{
	struct pb_results doc;
	pb_point_metrics(pb_test_point_of_json(&doc, json_deep_copy(point)));
	json_t *computed = pb_test_point_json(&doc, 0);
	json_object_set(point, "metrics", json_object_get(computed, "metrics"));
	json_decref(computed);
	pb_results_free(&doc);
}

void pb_test_check_units(const struct pb_results *doc)
{
	const char *conflict = pb_results_unit_conflict(doc);
	CHECK_MSG(!conflict, "field '%s' has two units", conflict ? conflict : "");
	json_t *root = pb_results_json(doc);
	json_t *units = json_object_get(root, "units");
	CHECK(json_object_size(units) > 0);
	const char *name;
	json_t *unit;
	json_object_foreach(units, name, unit) {
		const char *v1 = pb_unit_name(pb_results_implied_unit(name));
		CHECK_MSG(!strcmp(json_string_value(unit), v1),
			  "field '%s' is written in '%s' but a /1 file's is read in '%s'", name,
			  json_string_value(unit), v1);
	}
	json_decref(root);
}

const struct pb_rset *pb_test_card_of(const struct pb_results *doc, const char *facility)
{
	for (size_t i = 0; i < pb_rlist_size(&doc->scorecard); i++) {
		const struct pb_rset *e = pb_rlist_set_at(&doc->scorecard, i);
		if (!strcmp(pb_rset_get_text(e, "facility"), facility))
			return e;
	}
	return NULL;
}

void pb_test_request(struct pb_point_request *req, const char *facility, const char *workload,
		     uint64_t period, uint64_t iterations, const struct pb_machine *m)
{
	struct pb_error err = {0};
	pb_point_request_defaults(req);
	CHECK(pb_point_request_set(req, strcmp(facility, "none") ? pb_test_spec(facility) : NULL,
				   workload, NULL, &(uint64_t){0}, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	req->events[0].period = period;
	req->iterations = iterations;
	req->machine = m;
}

char *pb_test_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *text = NULL;
	long n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET) && (text = calloc(1, (size_t)n + 1)) &&
	    fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

void pb_test_results_in_tmp(char *template, struct pb_results *res, const char *test)
{
	struct pb_error err = {0};
	char *argv[] = {(char *)test, NULL};
	CHECK(mkdtemp(template) != NULL);
	CHECK(pb_results_open(res, template, 1, argv, &err) == 0);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void pb_test_results_remove(struct pb_results *res, const char *dir)
{
	pb_results_close(res);
	CHECK(nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
}
