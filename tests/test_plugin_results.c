/* A facility is one file: a test facility defined only here (in no registry) counts a figure of
 * its own, the samples whose IP is odd, through its own_figure / own_tally_sample hooks. Measured
 * through the fake kernel on a fixture machine, measure prints that figure (results.json and
 * report.html show it in tests/test_plugin_facility.c); the point's traits (what its period counts, its family, exactness, IP
 * relation, canonical spec) are written into results.json from the descriptor, and the plots
 * read its period as ns from them, and compare puts two such facilities on one row when their
 * traits say both are precise, although the registry of this build has never heard of them. */
#include "check.h"
#include "fixture.h"
#include "plugin.h"
#include "results_json.h"
#include "fake_kernel.h"
#include "experiments/point.h"
#include "io/results.h"
#include "present/compare.h"
#include "present/plot.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PERIOD 250000    /* ns: the test facility is time-based */

static void plugin_availability(const struct pb_machine *m, const struct pb_spec *spec,
				struct pb_availability *out)
{
	(void)m;
	(void)spec;
	memset(out, 0, sizeof *out);
	out->available = true;
}

static int plugin_attr(const struct pb_machine *m, const struct pb_spec *spec,
		       const struct pb_target *target, uint64_t period,
		       struct perf_event_attr *attr, struct pb_error *err)
{
	(void)m;
	(void)spec;
	(void)target;
	(void)err;
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	attr->sample_period = period;
	return 0;
}

static const char *plugin_declare(const struct pb_spec *spec, const struct pb_truth *truth,
				  const struct pb_label_truth *label, uint64_t iterations,
				  uint64_t *events)
{
	(void)spec;
	(void)truth;
	(void)label;
	(void)iterations;
	*events = 0;
	return "count";
}

static const struct pb_own_figure odd_ips = {"odd_ip_samples", "samples",
					     "%llu samples at an odd IP"};

static const struct pb_own_figure *plugin_own_figure(const struct pb_spec *spec, size_t i)
{
	(void)spec;
	return i == 0 ? &odd_ips : NULL;
}

static void plugin_own_tally_sample(const struct pb_machine *m, const struct pb_spec *spec,
				    const struct pb_sample *s, uint64_t *own)
{
	(void)m;
	(void)spec;
	own[0] += s->ip & 1;
}

static const struct pb_facility plugin = {
	.name = "plugin-odd",
	.usage = "plugin-odd",
	.summary = "a test facility known only to this test",
	.needs = "nothing",
	.ip_kind = PB_IP_SKID,
	.exact = false,
	.default_period = PERIOD,
	.min_period = 1,
	.time_based = true,
	.availability = plugin_availability,
	.attr = plugin_attr,
	.declare = plugin_declare,
	.own_figure = plugin_own_figure,
	.own_tally_sample = plugin_own_tally_sample,
};

/* compare matches two facilities neither this build's registry knows on one row because their
 * traits say both are precise: the file is read, not the registry. */
static void compare_by_traits(const json_t *written)
{
	const char *names[2] = {"plugin-odd", "plugin-even"};
	char dirs[2][64];
	struct pb_compare *c = pb_compare_new();
	struct pb_error err = {0};
	for (int k = 0; k < 2; k++) {
		json_t *doc = json_deep_copy(written);
		size_t i;
		json_t *p;
		json_array_foreach(json_object_get(doc, "points"), i, p) {
			json_object_set_new(p, "facility", json_string(names[k]));
			json_object_set_new(json_object_get(p, "traits"), "family",
					    json_string("precise"));
			json_object_set_new(json_object_get(p, "traits"), "spec",
					    json_string(names[k]));
		}
		snprintf(dirs[k], sizeof dirs[k], "/tmp/pb_plugin_compare_XXXXXX");
		CHECK(mkdtemp(dirs[k]) != NULL);
		char path[256];
		snprintf(path, sizeof path, "%s/results.json", dirs[k]);
		CHECK(json_dump_file(doc, path, JSON_INDENT(1)) == 0);
		json_decref(doc);
		CHECK_MSG(pb_compare_add(c, dirs[k], &err) == 0, "%s", err.msg);
	}
	CHECK_MSG(pb_compare_build(c, &err) == 0, "%s", err.msg);
	json_t *cmp = pb_compare_json(c);
	size_t t, r, precise_rows = 0;
	json_t *table, *row;
	json_array_foreach(json_object_get(cmp, "tables"), t, table) {
		json_array_foreach(json_object_get(table, "rows"), r, row) {
			CHECK(!strcmp(json_string_value(json_object_get(row, "facility_kind")),
				      "precise"));
			json_t *cells = json_object_get(row, "cells");
			CHECK(json_array_size(cells) == 2 && !json_is_null(json_array_get(cells, 0)) &&
			      !json_is_null(json_array_get(cells, 1)));
			precise_rows++;
		}
	}
	CHECK(precise_rows > 0);
	json_decref(cmp);
	pb_compare_free(c);
	for (int k = 0; k < 2; k++) {
		char cmd[256];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dirs[k]);
		CHECK(system(cmd) == 0);
	}
}

int main(void)
{
	struct pb_machine machine;
	pb_test_fixture(&machine, "sysfs-skl");
	CHECK(pb_facility_of("plugin-odd") == NULL);   /* in no registry */

	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.nevents = 1;
	req.events[0].spec.facility = &plugin;
	req.events[0].spec.priv.precise = -1;
	snprintf(req.events[0].spec.text, sizeof req.events[0].spec.text, "plugin-odd");
	req.events[0].period = PERIOD;
	req.iterations = 1000;
	req.threads = 1;
	req.machine = &machine;
	CHECK(pb_workload_parse("accuracy:ratio=20", &req.workload, &err) == 0);

	fake_kernel_install();
	fake_kernel_on_disable(pb_test_plugin_samples, NULL);
	struct pb_point pt;
	int rc = pb_point_measure(&req, &pt, &err);
	fake_kernel_uninstall();
	CHECK_MSG(rc == 0, "measure: %s", err.msg);
	CHECK_EQ_U64(pt.ev[0].observed, PB_TEST_PLUGIN_SAMPLES);
	CHECK_EQ_U64(pt.ev[0].own[0], PB_TEST_PLUGIN_ODD);
	/* measure's table says it too, in the facility's words */
	char *text = NULL;
	size_t text_len = 0;
	FILE *out = open_memstream(&text, &text_len);
	CHECK(out != NULL);
	pb_point_print(out, &req, &pt);
	fclose(out);
	CHECK_MSG(text && strstr(text, "; 11 samples at an odd IP"), "measure printed: %s", text);
	free(text);

	char dir[] = "/tmp/pb_plugin_results_XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct pb_results doc;
	char *argv[] = {"pesbench", "run"};
	CHECK(pb_results_open(&doc, dir, 2, argv, &err) == 0);
	/* two periods, so a plot has the period for its x axis */
	CHECK_EQ_U64(pt.ev[0].accuracy, 100);
	for (int k = 1; k <= 2; k++) {
		struct pb_result_point *p = pb_results_point(&doc, "accuracy", "plugin-odd",
							     "accuracy:ratio=20");
		pb_rset_int(&p->params, "period", PB_UNIT_NONE, k * PERIOD);
		pb_rset_int(&p->params, "threads", PB_UNIT_THREADS, 1);
		pb_point_traits(&req, p);
		/* an accuracy that changes with the period, or the plot is a sentence: only its
		 * axis is under test here */
		pt.ev[0].accuracy = 100 - k;
		for (int r = 0; r < 2; r++)
			pb_point_record(&req, &pt, pb_rlist_set(&p->runs));
		pb_point_metrics(p);
	}
	pb_point_free(&pt);
	CHECK(pb_results_write(&doc, true, 0, &err) == 0);
	pb_results_close(&doc);

	/* results.json: the traits (the own figure is test_plugin_facility's) */
	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	CHECK(root != NULL);
	json_t *point = json_array_get(json_object_get(root, "points"), 0);
	compare_by_traits(root);
	json_t *traits = json_object_get(point, "traits");
	CHECK(!strcmp(json_string_value(json_object_get(traits, "period_unit")), "ns"));
	CHECK(!strcmp(json_string_value(json_object_get(traits, "family")), "plugin-odd"));
	CHECK(json_is_false(json_object_get(traits, "exact")));
	CHECK(!strcmp(json_string_value(json_object_get(traits, "ip")), "skid"));
	CHECK(!strcmp(json_string_value(json_object_get(traits, "spec")), "plugin-odd"));
	json_decref(root);

	struct pb_results back;
	CHECK(pb_results_load(path, &back, &err) == 0);
	/* the plot's period axis counts ns: the traits say so, the registry could not */
	setenv("PB_GNUPLOT", "/nonexistent/gnuplot", 1);   /* scripts only: nothing to draw */
	struct pb_plot_set set;
	CHECK(pb_plots_make(&back, dir, true, NULL, &set, &err) == 0);
	bool ns_axis = false;
	for (size_t i = 0; i < set.n; i++) {
		snprintf(path, sizeof path, "%s/plots/%s.gp", dir, set.plots[i].name);
		char *gp = pb_test_read_file(path);
		ns_axis |= gp && strstr(gp, "sampling period (ns of CPU time per sample)");
		free(gp);
	}
	CHECK_MSG(ns_axis, "no plot of %zu has the period in ns", set.n);
	pb_plot_set_free(&set);
	pb_results_free(&back);

	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return pb_check_done("plugin_results");
}
