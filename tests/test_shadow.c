/* The shadow experiment, run for real with one run per gap: its points have the structure the
 * results and the end-of-suite table read, the four events' counts plus the other samples add
 * up to the samples read, the shares add up to 100 %, the summary covers every gap, timer
 * sampling is labelled as such, and facilities without a shadow are recorded as not
 * applicable. */
#include "check.h"
#include "fixture.h"
#include "experiments/experiment.h"
#include "results_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *points_of(struct pb_results *res, const char *facility, size_t *n)
{
	json_t *out = json_array();
	size_t i;
	json_t *p;
	json_t *points = pb_test_points_json(res);
	json_array_foreach(points, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "experiment")), "shadow") &&
		    !strcmp(json_string_value(json_object_get(p, "facility")), facility))
			json_array_append(out, p);
	json_decref(points);
	*n = json_array_size(out);
	return out;
}

static void check_gap_point(json_t *p, bool timer)
{
	json_t *runs = json_object_get(p, "runs");
	CHECK_EQ_U64(json_array_size(runs), 1);
	json_t *a = json_object_get(json_array_get(runs, 0), "attribution");
	CHECK(a != NULL);
	if (!a)
		return;
	json_int_t samples = json_integer_value(json_object_get(a, "samples"));
	for (int k = 0; k < 2; k++) {
		json_t *ev = json_object_get(a, k ? "events_before_ip" : "events_at_ip");
		json_int_t sum = json_integer_value(json_object_get(a, k ? "other_before_ip"
									  : "other_at_ip"));
		CHECK_EQ_U64(json_array_size(ev), 4);
		for (size_t i = 0; i < 4; i++)
			sum += json_integer_value(json_array_get(ev, i));
		CHECK_EQ_U64((uint64_t)sum, (uint64_t)samples);
	}
	json_t *m = json_object_get(p, "metrics");
	json_t *shares = json_object_get(m, "shares");
	CHECK_EQ_U64(json_array_size(shares), 4);
	double at = 0, counted = 0;
	size_t i;
	json_t *s;
	json_array_foreach(shares, i, s) {
		at += json_number_value(json_object_get(s, "share_at_ip"));
		counted += (double)json_integer_value(json_object_get(s, "at_ip"));
		CHECK_STR_CONTAINS(json_string_value(json_object_get(s, "label")), "_ev");
	}
	if (counted > 0)
		CHECK(fabs(at - 100.0) < 1e-6);
	CHECK(json_is_boolean(json_object_get(m, "uniform")));
	CHECK(json_number_value(json_object_get(m, "tolerance_pp")) >= 2.0);
	CHECK(json_number_value(json_object_get(m, "tsc_per_iteration")) > 0);
	if (timer)
		CHECK_STR_CONTAINS(json_string_value(json_object_get(p, "note")),
				   "interrupt attribution, not a PMU shadow");
	printf("  %-20s samples %5lld  shares at IP %5.1f %5.1f %5.1f %5.1f  max dev %.1f pp\n",
	       json_string_value(json_object_get(p, "variant")), (long long)samples,
	       json_number_value(json_object_get(json_array_get(shares, 0), "share_at_ip")),
	       json_number_value(json_object_get(json_array_get(shares, 1), "share_at_ip")),
	       json_number_value(json_object_get(json_array_get(shares, 2), "share_at_ip")),
	       json_number_value(json_object_get(json_array_get(shares, 3), "share_at_ip")),
	       json_number_value(json_object_get(m, "max_deviation")));
}

static void run_facility(struct pb_results *res, const struct pb_suite_options *o,
			 const char *facility, bool timer)
{
	struct pb_error err = {0};
	int rc = pb_experiment_shadow.run(o, pb_test_spec(facility), res, &err);
	if (rc && (err.code == PB_EXIT_UNAVAILABLE)) {
		printf("%s: not available here (%s)\n", facility, err.msg);
		return;
	}
	CHECK_EQ_U64(rc, 0);
	size_t n;
	json_t *pts = points_of(res, facility, &n);
	/* bp:w is measured as bp:rw (the loads read): its gap points carry that name */
	if (!strncmp(facility, "bp", 2)) {
		json_decref(pts);
		size_t m;
		json_t *rw = points_of(res, "bp:rw", &m);
		pts = points_of(res, facility, &n);
		json_array_extend(pts, rw);
		json_decref(rw);
		n += m;
	}
	CHECK_EQ_U64(n, 7);          /* six gaps and the summary */
	printf("%s:\n", facility);
	size_t i;
	json_t *p, *summary = NULL;
	json_array_foreach(pts, i, p) {
		if (json_object_get(p, "summary"))
			summary = json_object_get(p, "summary");
		else
			check_gap_point(p, timer);
	}
	CHECK(summary != NULL);
	if (summary) {
		json_t *gaps = json_object_get(summary, "gaps");
		CHECK_EQ_U64(json_array_size(gaps), 6);
		CHECK_EQ_U64(json_integer_value(json_object_get(json_array_get(gaps, 5), "gap")), 16);
		/* every gap's loop timed, the gaps in order; how much longer 16 nops after each load
		 * make it is a figure, printed: timing is no pass/fail check here (16 nops against
		 * none was asserted longer, and under valgrind, on a noisy machine, it was not:
		 * memcheck stage of 2026-11-28's CI on kind A) */
		size_t g;
		json_t *row;
		json_int_t before = -1;
		json_array_foreach(gaps, g, row) {
			CHECK(json_number_value(json_object_get(row, "tsc_per_iteration")) > 0);
			json_int_t gap = json_integer_value(json_object_get(row, "gap"));
			CHECK(gap > before);
			before = gap;
		}
		printf("  TSC per iteration: %.1f with no padding, %.1f with 16 nops\n",
		       json_number_value(json_object_get(json_array_get(gaps, 0), "tsc_per_iteration")),
		       json_number_value(json_object_get(json_array_get(gaps, 5), "tsc_per_iteration")));
		CHECK(json_object_get(summary, "shadow_gap_nops") != NULL);
		if (timer)
			CHECK_STR_CONTAINS(json_string_value(json_object_get(summary, "note")), "timer");
		char *text = json_dumps(json_object_get(summary, "shadow_gap_nops"), JSON_ENCODE_ANY);
		printf("  shadow gap: %s nops\n", text);
		free(text);
	}
	json_decref(pts);
}

int main(void)
{
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	o.runs = 1;
	o.target_ms = 30;
	struct pb_results res;
	struct pb_error err = {0};
	char dir[] = "/tmp/pb-test-shadow-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(pb_results_open(&res, dir, 0, NULL, &err) == 0);
	CHECK(pb_experiment_find("shadow") == &pb_experiment_shadow);
	CHECK_EQ_U64(pb_experiment_shadow.count_runs(&o, pb_test_spec("timer:cpu-clock")), 6);
	CHECK_EQ_U64(pb_experiment_shadow.count_runs(&o, pb_test_spec("uprobe")), 0);

	run_facility(&res, &o, "timer:cpu-clock", true);
	run_facility(&res, &o, "bp:w", false);

	CHECK(pb_experiment_shadow.run(&o, pb_test_spec("uprobe"), &res, &err) == 0);
	size_t n;
	json_t *up = points_of(&res, "uprobe", &n);
	CHECK_EQ_U64(n, 1);
	CHECK_STR_CONTAINS(json_string_value(json_object_get(json_array_get(up, 0),
							     "not_applicable")), "no shadow");
	json_decref(up);
	CHECK(pb_results_write(&res, true, 0, &err) == 0);
	pb_test_check_units(&res);
	pb_results_close(&res);
	char path[256];
	snprintf(path, sizeof path, "%s/results.json", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/results.csv", dir);
	unlink(path);
	rmdir(dir);
	return pb_check_done("shadow");
}
