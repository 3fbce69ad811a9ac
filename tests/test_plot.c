/* Plots from a constructed results.json: every experiment (and one this code has never heard
 * of) gets plots with titles, axis labels with units and error bars from the runs; gnuplot
 * draws a PNG and an SVG of each; without gnuplot, or with one that fails, the scripts are
 * still written and the caller gets one warning. Plots say what they show: a log axis where
 * values span more than 100x, the period's unit wherever a period is shown, a share not
 * called accuracy, a distinct colour per series (more series: another plot), category labels
 * that do not touch, and a sentence instead of a plot whose series are constant. */
#include "check.h"
#include "results_json.h"
#include "io/results.h"
#include "experiments/experiment.h"
#include "present/plot.h"
#include "util/kit.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static json_t *event(const char *facility, double accuracy, double expected, bool opened)
{
	return json_pack("{s:s, s:f, s:f, s:I, s:f, s:i, s:i, s:b, s:b, s:i, s:i, s:i}",
			 "facility", facility, "accuracy", accuracy, "expected", expected,
			 "observed", (json_int_t)(expected * accuracy / 100), "running_ratio", 1.0,
			 "lost", 0, "throttles", 0, "multiplexed", 0, "opened", opened,
			 "user_samples", 90, "kernel_samples", 10, "kernel_ip_samples", 10);
}

/* A point of n runs whose accuracy is base, base+1, ... with the framework's own metrics. */
static json_t *point(json_t *points, const char *experiment, const char *facility,
		     const char *workload, long long period, int threads, double base, int nruns)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:[], s:{}, s:I, s:i, s:s, s:b, s:b}", "experiment",
			      experiment, "facility", facility, "workload", workload, "runs",
			      "metrics", "period", (json_int_t)period, "threads", threads,
			      "delivery", "none", "exclude_kernel", 1, "exclude_user", 0);
	for (int r = 0; r < nruns; r++)
		json_array_append_new(json_object_get(p, "runs"),
				      json_pack("{s:i, s:[o]}", "run", r, "events",
						event(facility, base + r, 1000, true)));
	pb_test_point_metrics(p);
	json_array_append_new(points, p);
	return p;
}

static void add_attribution(json_t *p, const double shares[4])
{
	size_t r;
	json_t *run;
	json_t *mean_shares = json_array();
	json_array_foreach(json_object_get(p, "runs"), r, run) {
		json_t *loads = json_array();
		for (int l = 0; l < 4; l++) {
			char label[32];
			snprintf(label, sizeof label, "pb_wl_bias_plain_load%d", l + 1);
			double s = shares[l] + (double)r;
			json_array_append_new(loads, json_pack("{s:s, s:s, s:f, s:f}", "label", label,
							       "insn", "mov eax, dword ptr [rdi]",
							       "share_at_ip", 0.0, "share_before_ip", s));
		}
		json_object_set_new(run, "attribution",
				    json_pack("{s:f, s:o}", "ideal_share", 25.0, "loads", loads));
		json_object_set_new(run, "max_deviation_at_ip", json_real(25));
		json_object_set_new(run, "max_deviation_before_ip", json_real(3 + (double)r));
	}
	for (int l = 0; l < 4; l++) {
		char label[32];
		snprintf(label, sizeof label, "pb_wl_bias_plain_load%d", l + 1);
		json_array_append_new(mean_shares,
				      json_pack("{s:s, s:s, s:f, s:f}", "label", label, "insn",
						"mov eax, dword ptr [rdi]", "share_at_ip", 0.0,
						"share_before_ip", shares[l] + 0.5));
	}
	json_t *m = json_object_get(p, "metrics");
	json_object_set_new(m, "shares", mean_shares);
	json_object_set_new(m, "attribution", json_string("before_ip"));
	json_object_set_new(m, "max_deviation", json_real(3.5));
}

static json_t *constructed(void)
{
	json_t *root = json_pack(
		"{s:s, s:b, s:{s:s, s:{s:s, s:s, s:s, s:b}, s:[]}, s:[{s:s, s:s}], s:[]}", "schema",
		"pesbench-results/1", "complete", 1, "machine", "schema", "pesbench-probe/1",
		"machine", "cpu_vendor", "AuthenticAMD", "cpu_model_name", "AMD EPYC 7763", "kernel",
		"6.1.0", "hypervisor", 0, "facilities", "skipped", "facility", "spe", "reason",
		"SPE is an Arm facility", "points");
	json_t *pts = json_object_get(root, "points");
	for (int ratio = 20; ratio <= 60; ratio += 20)
		for (int t = 1; t <= 2; t++) {
			char wl[64];
			snprintf(wl, sizeof wl, "accuracy:ratio=%d,seed=1", ratio);
			point(pts, "accuracy", "ibs-op", wl, 100000, t, 90 + ratio / 10.0 + t, 3);
		}
	point(pts, "accuracy", "sw:page-faults", "mode:kernel=fault", 7, 1, 97, 3);
	static const long long periods[] = {10000, 9973, 1000, 997, 100, 101};
	for (int i = 0; i < 6; i++) {
		json_t *p = point(pts, "interval", "ibs-op", "accuracy:ratio=20,seed=1", periods[i], 1,
				  80 + i, 3);
		json_object_set_new(p, "period_kind", json_string(i % 2 ? "prime" : "round"));
	}
	static const double shares[4] = {24, 26, 25, 23};
	json_t *b = point(pts, "bias", "bp:rw", "bias:variant=plain", 7, 1, 99, 3);
	json_object_set_new(b, "variant", json_string("plain"));
	add_attribution(b, shares);
	b = point(pts, "bias", "bp:rw", "bias:variant=lfence", 7, 1, 98, 3);
	json_object_set_new(b, "variant", json_string("lfence"));
	add_attribution(b, shares);
	for (int k = 1; k <= 3; k++) {
		json_t *p = point(pts, "multi", "bp:w", "mix", 7, 1, 95, 2);
		size_t r;
		json_t *run;
		json_array_foreach(json_object_get(p, "runs"), r, run)
			for (int e = 1; e < k; e++)
				json_array_append_new(json_object_get(run, "events"),
						      event("bp:w", 94 + r, 100, e < 2));
		pb_test_point_metrics(p);
		json_object_set_new(p, "events_opened_together", json_integer(k));
	}
	const char *levels[] = {"user", "kernel", "both"};
	for (int l = 0; l < 3; l++) {
		json_t *p = point(pts, "mode", "timer:cpu-clock", "mode:kernel=getppid", 100000, 1,
				  50 + l, 2);
		json_object_set_new(p, "levels", json_string(levels[l]));
		json_object_set_new(p, "exclude_kernel", json_boolean(l == 0));
		json_object_set_new(p, "exclude_user", json_boolean(l == 1));
	}
	/* an experiment this code does not know: a metric with a unit suffix, no accuracy */
	const char *deliveries[] = {"none", "signal"};
	for (int d = 0; d < 2; d++)
		for (int t = 1; t <= 2; t++) {
			json_t *p = json_pack("{s:s, s:s, s:s, s:I, s:i, s:s, s:[], s:{}}", "experiment",
					      "overheadx", "facility", "timer:cpu-clock", "workload",
					      "busy", "period", (json_int_t)100000, "threads", t, "delivery",
					      deliveries[d], "runs", "metrics");
			for (int r = 0; r < 3; r++)
				json_array_append_new(json_object_get(p, "runs"),
						      json_pack("{s:i, s:f}", "run", r,
								"time_overhead_pct",
								2.0 * d + t + r * 0.5));
			json_object_set_new(json_object_get(p, "metrics"), "time_overhead_pct",
					    json_pack("{s:i, s:f, s:f, s:f, s:f}", "n", 3, "mean",
						      2.0 * d + t + 0.5, "stdev", 0.5, "min",
						      2.0 * d + t, "max", 2.0 * d + t + 1));
			json_array_append_new(pts, p);
		}
	json_array_append_new(pts, json_pack("{s:s, s:s, s:s, s:[], s:{}, s:s}", "experiment",
					     "bias", "facility", "sw:page-faults", "workload", "",
					     "runs", "metrics", "not_applicable", "no loads"));
	return root;
}

static char *slurp(const char *dir, const char *name, const char *ext, size_t *len)
{
	char path[4400];
	snprintf(path, sizeof path, "%s/plots/%s.%s", dir, name, ext);
	FILE *f = fopen(path, "rb");
	if (!f) {
		*len = 0;
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static const struct pb_plot *find_plot(const struct pb_plot_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->plots[i].name, name))
			return &set->plots[i];
	return NULL;
}

/* The quoted text after `set NAME "` in a script. */
static void script_value(const char *gp, const char *what, char *out, size_t len)
{
	out[0] = '\0';
	char needle[64];
	snprintf(needle, sizeof needle, "\nset %s \"", what);
	const char *s = gp ? strstr(gp, needle) : NULL;
	if (!s)
		return;
	s += strlen(needle);
	size_t n = strcspn(s, "\"");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

static bool has_unit(const char *label)
{
	const char *open = strchr(label, '('), *close = open ? strchr(open, ')') : NULL;
	return open && close && close > open + 1;
}

static void check_scripts(const char *dir, const struct pb_plot_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->plots[i].sentence[0])
			continue;
		size_t len;
		char *gp = slurp(dir, set->plots[i].name, "gp", &len);
		char *dat = slurp(dir, set->plots[i].name, "dat", &len);
		CHECK(gp != NULL);
		CHECK(dat != NULL && len > 0);
		char title[256], xlabel[256], ylabel[256];
		script_value(gp, "title", title, sizeof title);
		script_value(gp, "xlabel", xlabel, sizeof xlabel);
		script_value(gp, "ylabel", ylabel, sizeof ylabel);
		CHECK(title[0] != '\0');
		if (!has_unit(xlabel) || !has_unit(ylabel)) {
			fprintf(stderr, "%s: axis labels without units: '%s' / '%s'\n",
				set->plots[i].name, xlabel, ylabel);
			CHECK(false);
		}
		/* every plot here has repeated runs: each must show their spread */
		CHECK_STR_CONTAINS(gp, "using 1:2:3:4 with yerror");
		CHECK(set->plots[i].caption[0] != '\0');
		free(gp);
		free(dat);
	}
}

static bool file_starts(const char *dir, const char *name, const char *ext, const char *magic,
			size_t min_size)
{
	size_t len;
	char *text = slurp(dir, name, ext, &len);
	bool ok = text && len >= min_size && !memcmp(text, magic, strlen(magic));
	free(text);
	return ok;
}

static bool exists(const char *dir, const char *name, const char *ext)
{
	char path[4400];
	struct stat st;
	snprintf(path, sizeof path, "%s/plots/%s.%s", dir, name, ext);
	return !stat(path, &st);
}

/* A /2 document names each figure's unit: a metric whose name says no unit is labelled with
 * the document's, and one whose name looks like another unit is labelled with the document's
 * all the same (nanoseconds in the millions read as ms). */
static void units_from_the_document(void)
{
	const char *doc_text =
		"{\"schema\": \"pesbench-results/2\", \"points\": ["
		"{\"experiment\": \"unitx\", \"facility\": \"timer\", \"workload\": \"busy\","
		" \"threads\": 1, \"runs\": [{\"run\": 0}], \"metrics\": {\"frob\": {\"n\": 1,"
		" \"mean\": 2e6, \"stdev\": 0.0, \"min\": 2e6, \"max\": 2e6, \"median\": 2e6,"
		" \"ci95\": 0.0}, \"gap_pct\": {\"n\": 1, \"mean\": 3, \"stdev\": 0.0, \"min\": 3,"
		" \"max\": 3, \"median\": 3, \"ci95\": 0.0}}},"
		"{\"experiment\": \"unitx\", \"facility\": \"timer\", \"workload\": \"busy\","
		" \"threads\": 2, \"runs\": [{\"run\": 0}], \"metrics\": {\"frob\": {\"n\": 1,"
		" \"mean\": 3e6, \"stdev\": 0.0, \"min\": 3e6, \"max\": 3e6, \"median\": 3e6,"
		" \"ci95\": 0.0}, \"gap_pct\": {\"n\": 1, \"mean\": 4, \"stdev\": 0.0, \"min\": 4,"
		" \"max\": 4, \"median\": 4, \"ci95\": 0.0}}}],"
		" \"units\": {\"frob\": \"ns\", \"gap_pct\": \"pages\", \"threads\": \"threads\"}}";
	struct pb_results doc;
	struct pb_error err = {0};
	CHECK(pb_results_load_buffer(doc_text, strlen(doc_text), "units", &doc, &err) == 0);
	char dir[] = "/tmp/pb-test-plot-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct pb_plot_set set;
	CHECK(pb_plots_make(&doc, dir, false, NULL, &set, &err) == 0);
	pb_plot_set_free(&set);
	CHECK(pb_plots_make(&doc, dir, true, NULL, &set, &err) == 0);
	size_t len;
	char label[256] = "";
	char *gp = slurp(dir, "unitx-frob", "gp", &len);
	script_value(gp, "ylabel", label, sizeof label);
	CHECK_STR_CONTAINS(label, "frob (ms)");
	script_value(gp, "xlabel", label, sizeof label);
	CHECK_STR_CONTAINS(label, "threads");
	free(gp);
	gp = slurp(dir, "unitx-gap_pct", "gp", &len);
	label[0] = '\0';
	script_value(gp, "ylabel", label, sizeof label);
	CHECK_STR_CONTAINS(label, "gap pct (pages)");
	free(gp);
	pb_plot_set_free(&set);
	pb_results_free(&doc);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* The plots of the document root holds, drawn into a folder of their own. */
struct drawn {
	struct pb_results doc;
	char dir[32];
	struct pb_plot_set set;
};

static void draw(struct drawn *d, json_t *root)
{
	struct pb_error err = {0};
	pb_test_results_of_json(&d->doc, root);
	snprintf(d->dir, sizeof d->dir, "/tmp/pb-test-plot-XXXXXX");
	CHECK(mkdtemp(d->dir) != NULL);
	CHECK(pb_plots_make(&d->doc, d->dir, true, NULL, &d->set, &err) == 0);
}

static void drawn_free(struct drawn *d, json_t *root)
{
	pb_plot_set_free(&d->set);
	pb_results_free(&d->doc);
	json_decref(root);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", d->dir);
	CHECK(system(cmd) == 0);
}

/* A point of 3 runs whose metric NAME is a summary of mean v (spread ±spread). */
static void metric_point(json_t *pts, const char *experiment, const char *facility,
			 const char *workload, long long period, int threads, const char *delivery,
			 const char *name, double v, double spread)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:I, s:i, s:s, s:[{s:i}, {s:i}, {s:i}], s:{}}",
			      "experiment", experiment, "facility", facility, "workload", workload,
			      "period", (json_int_t)period, "threads", threads, "delivery", delivery,
			      "runs", "run", 0, "run", 1, "run", 2, "metrics");
	json_object_set_new(json_object_get(p, "metrics"), name,
			    json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "n", 3, "mean", v,
				      "stdev", spread, "min", v - spread, "max", v + spread,
				      "median", v, "ci95", spread));
	json_array_append_new(pts, p);
}

/* Whether plots/NAME.EXT holds text. */
static bool plot_file_has(const char *dir, const char *name, const char *ext, const char *text)
{
	size_t len;
	char *content = slurp(dir, name, ext, &len);
	bool has = content && strstr(content, text);
	free(content);
	return has;
}

/* The colours a script gives its series, in order. */
static size_t series_colours(const char *gp, char colours[][16], size_t max)
{
	size_t n = 0;
	for (const char *c = gp ? strstr(gp, "linecolor rgb \"#") : NULL; c && n < max;
	     c = strstr(c + 1, "linecolor rgb \"#")) {
		snprintf(colours[n], 16, "%.7s", c + 15);
		n++;
	}
	return n;
}

static void plots_say_what_they_show(void)
{
	json_t *root = json_pack("{s:s, s:b, s:{}, s:[], s:[]}", "schema", "pesbench-results/2",
				 "complete", 1, "machine", "skipped", "points");
	json_t *pts = json_object_get(root, "points");
	/* a timer at 10 % and breakpoints at 90000 %: one axis, two orders of magnitude apart;
	 * their periods count different things */
	for (int t = 1; t <= 2; t++) {
		metric_point(pts, "spanx", "timer:cpu-clock", "busy", 100000, t, "none",
			     "time_overhead_pct", 10 + t, 1);
		metric_point(pts, "spanx", "bp:w", "busy", 7, t, "none", "time_overhead_pct",
			     90000 + t, 100);
	}
	/* and one below zero, which a log axis cannot show: the caption names it */
	metric_point(pts, "spanx", "sw:page-faults", "busy", 1, 1, "none", "time_overhead_pct", -5,
		     1);
	/* a figure that is the same at every x */
	for (int t = 1; t <= 2; t++)
		metric_point(pts, "flatx", "timer:cpu-clock", "busy", 100000, t, "none", "ratio_pct",
			     100, 0);
	/* and one of five digits: written whole, not "1.336e+04" */
	for (int t = 1; t <= 2; t++)
		metric_point(pts, "flatbigx", "timer:cpu-clock", "busy", 100000, t, "none",
			     "ratio_pct", 13361, 0);
	/* 14 delivery settings over 16 thread counts: 14 series, more than there are distinct
	 * colours */
	for (int d = 0; d < 14; d++)
		for (int t = 1; t <= 16; t++) {
			char delivery[16];
			snprintf(delivery, sizeof delivery, "mode%02d", d);
			metric_point(pts, "manyx", "timer:cpu-clock", "busy", 100000, t, delivery,
				     "wall_pct", d + t, 0.5);
		}
	/* 30 long categories */
	for (int w = 0; w < 30; w++) {
		char workload[64];
		snprintf(workload, sizeof workload, "a-rather-long-workload-name-%02d", w);
		metric_point(pts, "catx", "timer:cpu-clock", workload, 100000, 1, "none", "gap_pct",
			     w, 0.5);
	}
	struct drawn d;
	draw(&d, root);
	const char *dir = d.dir;
	struct pb_plot_set *set = &d.set;
	size_t len;
	CHECK(plot_file_has(dir, "spanx-time_overhead_pct", "gp", "set logscale y"));
	CHECK(plot_file_has(dir, "spanx-time_overhead_pct", "dat", "period 100000 ns"));
	CHECK(plot_file_has(dir, "spanx-time_overhead_pct", "dat", "period 7 events"));
	const struct pb_plot *span = find_plot(set, "spanx-time_overhead_pct");
	CHECK(span && strstr(span->caption, "one point at or below 0 is not on it: "
					    "sw:page-faults, period 1 event: -5."));

	const struct pb_plot *flat = find_plot(set, "flatx-ratio_pct");
	CHECK(flat && !flat->rendered &&
	      strstr(flat->sentence, "not drawn, as ratio pct does not change with the threads: "
				     "100 in timer:cpu-clock."));
	CHECK(!exists(dir, "flatx-ratio_pct", "gp") && !exists(dir, "flatx-ratio_pct", "png"));
	const struct pb_plot *flat_big = find_plot(set, "flatbigx-ratio_pct");
	CHECK(flat_big && !flat_big->rendered &&
	      strstr(flat_big->sentence, "does not change with the threads: 13361 in "
					 "timer:cpu-clock."));

	/* 12 series with 12 colours, the 2 left over on a plot of their own */
	char *gp = slurp(dir, "manyx-wall_pct", "gp", &len);
	char colours[32][16];
	size_t n = series_colours(gp, colours, 32);
	CHECK_EQ_U64(n, 12);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(colours[i], colours[j]));
	free(gp);
	gp = slurp(dir, "manyx-wall_pct-part2", "gp", &len);
	CHECK_EQ_U64(series_colours(gp, colours, 32), 2);
	free(gp);
	CHECK(plot_file_has(dir, "manyx-wall_pct-part2", "gp", "(part 2)"));
	CHECK(plot_file_has(dir, "manyx-wall_pct-part2", "dat", "delivery=mode13"));

	/* 30 labels of 30 characters in 880 px: upright, not slanted into each other */
	CHECK(plot_file_has(dir, "catx-gap_pct", "gp", "set xtics rotate by 90"));

	drawn_free(&d, root);
}

/* The cost experiment's predictions: one plot per facility, each target's measured slowdown
 * with its 95 % CI as bars and its predicted one dashed in the same colour, by period in µs
 * on a log axis ticked at the periods; the interval and the tolerance get no plot of their
 * own (they did, and the slowdown error showed no interval: "one value per point"). */
static void cost_predictions_plot(void)
{
	json_t *root = json_pack("{s:s, s:[]}", "schema", "pesbench-results/2", "points");
	json_t *pts = json_object_get(root, "points");
	const struct {
		const char *workload;
		long long period;
		double predicted, measured, ci;
	} rows[] = {
		{"accuracy:ratio=20", 71897, 30, 18.73, 1.09},
		{"accuracy:ratio=20", 569642, 3, 4.71, 0.74},
		{"program:xz", 71897, 30, 28.02, 26.77},
		{"program:xz", 569642, 3, -4.31, 16.02},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++)
		json_array_append_new(
			pts, json_pack("{s:s, s:s, s:s, s:I, s:i, s:s, s:[{s:i}], s:{s:f, s:f, s:f, "
				       "s:f, s:f, s:f, s:f}}",
				       "experiment", "cost", "facility", "timer:cpu-clock", "workload",
				       rows[i].workload, "period", (json_int_t)rows[i].period,
				       "threads", 1, "kind", "prediction", "runs", "run", 0, "metrics",
				       "predicted_slowdown_pct", rows[i].predicted,
				       "measured_slowdown_pct", rows[i].measured,
				       "measured_slowdown_ci95_pp", rows[i].ci, "slowdown_tolerance_pp",
				       1.0, "slowdown_error_pp", rows[i].predicted - rows[i].measured,
				       "measured_ns_per_sample", 10000.0 + (double)i,
				       "measured_ns_per_sample_ci95", 500.0));
	/* a point's note is not a parameter: the one that left a round out stays in its series */
	json_object_set_new(json_array_get(pts, 0), "left_out_note",
			    json_string("1 of 8 rounds left out as disturbed (...)"));
	json_object_set_new(json_array_get(pts, 2), "note", json_string("a note of its own"));
	struct drawn d;
	draw(&d, root);
	const char *dir = d.dir;
	struct pb_plot_set *set = &d.set;
	CHECK(find_plot(set, "cost-predictions-timer_cpu-clock") != NULL);
	CHECK(!plot_file_has(dir, "cost-measured_ns_per_sample-timer_cpu-clock", "gp", "note"));
	CHECK(!find_plot(set, "cost-measured_slowdown_ci95_pp-timer_cpu-clock"));
	CHECK(!find_plot(set, "cost-slowdown_tolerance_pp-timer_cpu-clock"));
	CHECK(find_plot(set, "cost-slowdown_error_pp-timer_cpu-clock") != NULL);
	/* a generic figure with its interval beside it: the interval is its bars, not a plot */
	CHECK(!find_plot(set, "cost-measured_ns_per_sample_ci95-timer_cpu-clock"));
	const char *own_cost = "cost-measured_ns_per_sample-timer_cpu-clock";
	CHECK(plot_file_has(dir, own_cost, "dat", " 10000 9500 10500"));
	CHECK(plot_file_has(dir, own_cost, "gp", "bars: each figure's 95 % CI"));
	CHECK(plot_file_has(dir, own_cost, "gp", "using 1:2:3:4 with yerror"));
	size_t len;
	char *dat = slurp(dir, "cost-predictions-timer_cpu-clock", "dat", &len);
	char *gp = slurp(dir, "cost-predictions-timer_cpu-clock", "gp", &len);
	/* x in µs; the measured point's bars are its CI; the predicted one has none */
	CHECK_STR_CONTAINS(dat, "71.897 18.73 17.64 19.82");
	CHECK_STR_CONTAINS(dat, "569.642 -4.31 -20.33 11.71");
	CHECK_STR_CONTAINS(dat, "71.897 30 30 30");
	char label[256];
	script_value(gp, "xlabel", label, sizeof label);
	CHECK_STR_CONTAINS(label, "µs");
	CHECK_STR_CONTAINS(gp, "set logscale x");
	CHECK_STR_CONTAINS(gp, "set xtics (\"71.9\" 71.897, \"569.6\" 569.642)");
	/* each target's pair in one colour, the predicted dashed */
	const char *xz = gp ? strstr(gp, "index 2 using 1:2:3:4 with yerrorlines") : NULL;
	const char *xz_pred = gp ? strstr(gp, "index 3 using 1:2 with linespoints") : NULL;
	CHECK(xz && xz_pred);
	if (xz && xz_pred) {
		char a[64] = "", b[64] = "";
		sscanf(strstr(xz, "linecolor rgb"), "linecolor rgb %63s", a);
		sscanf(strstr(xz_pred, "linecolor rgb"), "linecolor rgb %63s", b);
		CHECK_MSG(a[0] && !strcmp(a, b), "xz's measured %s, predicted %s", a, b);
		CHECK(strstr(xz_pred, "dashtype 2") < strstr(xz_pred, "title"));
	}
	free(dat);
	free(gp);
	drawn_free(&d, root);
}


int main(void)
{
	units_from_the_document();
	plots_say_what_they_show();
	cost_predictions_plot();
	json_t *constructed_json = constructed();
	struct pb_results doc;
	pb_test_results_of_json(&doc, constructed_json);
	const struct pb_results *results = &doc;
	char dir[] = "/tmp/pb-test-plot-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	/* an earlier drawing's plot whose figure is gone, and a file of the user's: the first
	 * goes (it looked as current as the new ones), the second stays */
	static const char *const left[] = {"gone-metric.png", "gone-metric.svg", "gone-metric.gp",
					   "gone-metric.dat", "notes.txt"};
	char path[4400];
	snprintf(path, sizeof path, "%s/plots", dir);
	CHECK(mkdir(path, 0755) == 0);
	for (size_t i = 0; i < PB_ARRAY_SIZE(left); i++) {
		snprintf(path, sizeof path, "%s/plots/%s", dir, left[i]);
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (f)
			fclose(f);
	}
	struct pb_plot_set set;
	struct pb_error err = {0};
	CHECK(pb_plots_make(results, dir, true, pb_experiment_summary, &set, &err) == 0);
	for (const char *ext = "png\0svg\0gp\0dat\0"; *ext; ext += strlen(ext) + 1)
		CHECK_MSG(!exists(dir, "gone-metric", ext), "stale gone-metric.%s kept", ext);
	CHECK(exists(dir, "notes", "txt"));

	/* one plot per kind of figure, found by the data */
	static const char *const expected[] = {
		"accuracy-accuracy", "interval-accuracy-ibs-op", "bias-shares-bp_rw-period7",
		"bias-deviation", "bias-accuracy", "multi-accuracy-bp_w", "multi-running-bp_w",
		"mode-wrong-level-timer_cpu-clock", "mode-share", "overheadx-time_overhead_pct",
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(expected); i++) {
		if (!find_plot(&set, expected[i]))
			fprintf(stderr, "missing plot %s\n", expected[i]);
		CHECK(find_plot(&set, expected[i]) != NULL);
	}
	check_scripts(dir, &set);

	/* mode's "accuracy" with a level excluded is the share on the level sampled: so named */
	{
		size_t l;
		char y[256];
		char *mode = slurp(dir, "mode-share", "gp", &l);
		script_value(mode, "ylabel", y, sizeof y);
		CHECK_STR_CONTAINS(y, "the share on the levels sampled");
		CHECK(!strstr(y, "accuracy"));
		free(mode);
	}

	size_t len;
	char *gp = slurp(dir, "overheadx-time_overhead_pct", "gp", &len);
	char label[256];
	script_value(gp, "ylabel", label, sizeof label);
	CHECK_STR_CONTAINS(label, "(%)");
	script_value(gp, "xlabel", label, sizeof label);
	CHECK_STR_CONTAINS(label, "threads");  /* x: the numeric parameter; delivery: series */
	free(gp);
	char *dat = slurp(dir, "overheadx-time_overhead_pct", "dat", &len);
	CHECK_STR_CONTAINS(dat, "series 1: timer:cpu-clock, delivery=signal");
	free(dat);

	/* round and prime periods are series of their own, on a log axis */
	dat = slurp(dir, "interval-accuracy-ibs-op", "dat", &len);
	CHECK_STR_CONTAINS(dat, ": round period");
	CHECK_STR_CONTAINS(dat, ": prime period");
	free(dat);
	gp = slurp(dir, "interval-accuracy-ibs-op", "gp", &len);
	CHECK_STR_CONTAINS(gp, "set logscale x");
	CHECK_STR_CONTAINS(gp, "events per sample");
	free(gp);

	/* workload categories without the parameter they all share */
	gp = slurp(dir, "accuracy-accuracy", "gp", &len);
	CHECK_STR_CONTAINS(gp, "\"accuracy:ratio=40\"");
	CHECK(gp && !strstr(gp, "seed=1"));
	CHECK_STR_CONTAINS(gp, "AMD EPYC 7763");
	free(gp);

	/* the bias shares: the facility's own attribution, the ideal share drawn */
	dat = slurp(dir, "bias-shares-bp_rw-period7", "dat", &len);
	CHECK_STR_CONTAINS(dat, "plain, IP+1-corrected");
	CHECK(dat && !strstr(dat, "at the IP"));
	free(dat);
	gp = slurp(dir, "bias-shares-bp_rw-period7", "gp", &len);
	CHECK_STR_CONTAINS(gp, "ideal share (25 %)");
	free(gp);

	/* multi: the event the kernel refused is named on the plot, not drawn as a figure */
	gp = slurp(dir, "multi-accuracy-bp_w", "gp", &len);
	CHECK_STR_CONTAINS(gp, "1 of 3 not opened");
	free(gp);
	dat = slurp(dir, "multi-accuracy-bp_w", "dat", &len);
	CHECK(dat && !strstr(dat, "event 3"));
	free(dat);

	/* mode: "both" excludes nothing and is not plotted as a wrong-level figure */
	gp = slurp(dir, "mode-wrong-level-timer_cpu-clock", "gp", &len);
	CHECK(gp && !strstr(gp, "\"both\""));
	free(gp);

	bool have_gnuplot = !set.gnuplot_missing;
	if (have_gnuplot) {
		CHECK(set.warning[0] == '\0');
		if (set.warning[0])
			fprintf(stderr, "warning: %s\n", set.warning);
		for (size_t i = 0; i < set.n; i++) {
			if (set.plots[i].sentence[0])
				continue;
			CHECK(set.plots[i].rendered);
			CHECK(file_starts(dir, set.plots[i].name, "png", "\x89PNG\r\n", 2000));
			size_t n;
			char *svg = slurp(dir, set.plots[i].name, "svg", &n);
			CHECK(n > 1000);
			CHECK_STR_CONTAINS(svg, "<svg");
			free(svg);
		}
	} else {
		fprintf(stderr, "gnuplot is not installed: image checks not run\n");
	}
	size_t planned = set.n;
	pb_plot_set_free(&set);

	/* planning only: nothing written, images already there are reported as drawn */
	CHECK(pb_plots_make(results, dir, false, pb_experiment_summary, &set, &err) == 0);
	CHECK_EQ_U64(set.n, planned);
	for (size_t i = 0; i < set.n; i++)
		CHECK(set.plots[i].rendered == (have_gnuplot && !set.plots[i].sentence[0]));
	pb_plot_set_free(&set);

	/* no gnuplot: a warning once, scripts written, no images, no failure */
	char bare[] = "/tmp/pb-test-plot-XXXXXX";
	CHECK(mkdtemp(bare) != NULL);
	setenv("PB_GNUPLOT", "/nonexistent/gnuplot", 1);
	CHECK(pb_plots_make(results, bare, true, pb_experiment_summary, &set, &err) == 0);
	CHECK(set.gnuplot_missing);
	CHECK_STR_CONTAINS(set.warning, "gnuplot not found");
	CHECK_STR_CONTAINS(set.warning, "gnuplot-nox");
	CHECK_EQ_U64(set.n, planned);
	for (size_t i = 0; i < set.n; i++) {
		CHECK(!set.plots[i].rendered);
		CHECK(exists(bare, set.plots[i].name, "gp") == !set.plots[i].sentence[0]);
		CHECK(!exists(bare, set.plots[i].name, "png"));
	}
	pb_plot_set_free(&set);

	/* a gnuplot that fails: said once, with the plot and its log */
	setenv("PB_GNUPLOT", "/bin/false", 1);
	CHECK(pb_plots_make(results, bare, true, pb_experiment_summary, &set, &err) == 0);
	CHECK(!set.gnuplot_missing);
	CHECK_STR_CONTAINS(set.warning, "failed to draw");
	CHECK_STR_CONTAINS(set.warning, ".log");
	for (size_t i = 0; i < set.n; i++)
		CHECK(!set.plots[i].rendered);
	pb_plot_set_free(&set);
	unsetenv("PB_GNUPLOT");

	/* an unwritable folder is an output error */
	CHECK(pb_plots_make(results, "/proc/self/nonexistent-dir", true, pb_experiment_summary, &set,
			    &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_OUTPUT);
	pb_plot_set_free(&set);

	pb_results_free(&doc);
	json_decref(constructed_json);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, bare);
	if (system(cmd))
		fprintf(stderr, "could not remove %s %s\n", dir, bare);
	return pb_check_done("plot");
}
