/* The bias point's metrics from constructed runs: the mean shares and deviations cover only the
 * runs whose attribution has samples (a failed run or one without samples is not a 0 % share),
 * the point says how many runs counted, and with none there are no shares at all. */
#include "check.h"
#include "experiments/experiment.h"
#include "results_json.h"

#include <math.h>

static json_t *load(const char *label, double at, double before)
{
	return json_pack("{s:s, s:s, s:f, s:f}", "label", label, "insn", "mov (%rax),%rbx",
			 "share_at_ip", at, "share_before_ip", before);
}

/* A run that attributed samples: two loads, at-IP shares a/100-a, before-IP 50/50. */
static json_t *run_with(json_int_t samples, double a, double dev_at, double dev_before)
{
	json_t *loads = json_array();
	json_array_append_new(loads, load("load0", a, 50));
	json_array_append_new(loads, load("load1", 100 - a, 50));
	json_t *attr = json_pack("{s:I, s:o, s:f, s:f}", "samples", samples, "loads", loads,
				 "max_deviation_at_ip", dev_at, "max_deviation_before_ip",
				 dev_before);
	return json_pack("{s:o}", "attribution", attr);
}

/* The bias metrics of a point holding runs, as results.json holds the point after them. */
static json_t *bias_point(json_t *runs, enum pb_ip_kind kind)
{
	struct pb_results doc;
	struct pb_result_point *p = pb_test_point_of_json(
		&doc, json_pack("{s:s, s:s, s:s, s:o, s:o}", "experiment", "bias", "facility",
				"timer", "workload", "bias", "runs", runs, "metrics",
				json_object()));
	pb_bias_metrics(p, kind);
	json_t *point = pb_test_point_json(&doc, 0);
	pb_results_free(&doc);
	return point;
}

static double share(json_t *point, size_t l, const char *key)
{
	json_t *s = json_array_get(json_object_get(json_object_get(point, "metrics"), "shares"), l);
	return json_number_value(json_object_get(s, key));
}

static double metric(json_t *point, const char *key)
{
	return json_number_value(json_object_get(json_object_get(point, "metrics"), key));
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void failed_runs_are_not_zero_shares(void)
{
	json_t *runs = json_array();
	/* the first run failed: no attribution at all (the hook is not called) */
	json_array_append_new(runs, json_pack("{s:s}", "error", "session failed"));
	json_array_append_new(runs, run_with(1000, 60, 10, 0));
	/* a run that read no sample: its shares are 0 but were never measured */
	json_array_append_new(runs, run_with(0, 0, 0, 0));
	json_array_append_new(runs, run_with(500, 40, 20, 4));
	json_t *p = bias_point(runs, PB_IP_EXACT);
	CHECK_EQ_U64(json_integer_value(json_object_get(p, "runs_with_shares")), 2);
	CHECK_EQ_U64(json_integer_value(json_object_get(p, "runs_without_shares")), 2);
	CHECK_EQ_U64(json_array_size(json_object_get(json_object_get(p, "metrics"), "shares")), 2);
	CHECK(near(share(p, 0, "share_at_ip"), 50));
	CHECK(near(share(p, 1, "share_at_ip"), 50));
	CHECK(near(share(p, 0, "share_before_ip"), 50));
	CHECK_STR_CONTAINS(json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(p, "metrics"), "shares"), 1),
		"label")), "load1");
	CHECK(near(metric(p, "max_deviation_at_ip"), 15));
	CHECK(near(metric(p, "max_deviation_before_ip"), 2));
	CHECK(near(metric(p, "max_deviation"), 15)); /* exact: at the IP */
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(p, "metrics"),
							"attribution")), "at_ip"));
	CHECK(!json_object_get(p, "note"));
	json_decref(p);

	/* next-instruction IPs: the before-IP deviation is the facility's own */
	runs = json_array();
	json_array_append_new(runs, run_with(0, 0, 0, 0));
	json_array_append_new(runs, run_with(10, 70, 20, 6));
	p = bias_point(runs, PB_IP_NEXT);
	CHECK(near(metric(p, "max_deviation"), 6));
	CHECK(near(share(p, 0, "share_at_ip"), 70));
	CHECK_EQ_U64(json_integer_value(json_object_get(p, "runs_with_shares")), 1);
	CHECK_EQ_U64(json_integer_value(json_object_get(p, "runs_without_shares")), 1);
	json_decref(p);
}

static void no_samples_no_shares(void)
{
	json_t *runs = json_array();
	json_array_append_new(runs, json_pack("{s:s}", "error", "session failed"));
	json_array_append_new(runs, run_with(0, 0, 0, 0));
	json_t *p = bias_point(runs, PB_IP_EXACT);
	json_t *m = json_object_get(p, "metrics");
	CHECK(!json_object_get(m, "shares"));
	CHECK(!json_object_get(m, "max_deviation"));
	CHECK(!json_object_get(m, "max_deviation_at_ip"));
	CHECK_EQ_U64(json_integer_value(json_object_get(p, "runs_with_shares")), 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(p, "runs_without_shares")), 2);
	CHECK_STR_CONTAINS(json_string_value(json_object_get(p, "note")), "no run had samples");
	json_decref(p);
}

int main(void)
{
	failed_runs_are_not_zero_shares();
	no_samples_no_shares();
	return pb_check_done("bias");
}
