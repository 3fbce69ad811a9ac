/* bundle.json, both ways. Read back, it is outside bytes: a bundle comes from a user's machine
 * by mail, so every field is checked for its type and range and every path for staying inside
 * the bundle, and a message names the field that is wrong. */
#include "bundle/bundle.h"
#include "util/text.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The numeric fields of a truth, by name: stored and read back by one table. */
static const struct {
	const char *name;
	size_t offset;
} truth_fields[] = {
#define TF(f) {#f, offsetof(struct pb_truth, f)}
	TF(instructions), TF(loads), TF(stores), TF(branches), TF(taken_branches), TF(calls),
	TF(returns), TF(locked), TF(syscalls), TF(l1_misses), TF(page_faults),
	TF(page_faults_user), TF(once_instructions), TF(watch_writes), TF(watch_accesses),
	TF(code_begin), TF(code_end),
#undef TF
};
#define NTRUTH_FIELDS (sizeof truth_fields / sizeof truth_fields[0])

static uint64_t *truth_field(struct pb_truth *t, size_t i)
{
	return (uint64_t *)((char *)t + truth_fields[i].offset);
}

/* ---- writing ---- */

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *hex_of(const uint8_t *bytes, size_t len)
{
	char *text = malloc(len * 2 + 1);
	if (!text)
		return json_null();
	pb_hex(text, bytes, len);
	json_t *j = json_string(text);
	free(text);
	return j;
}

static json_t *truth_json(const struct pb_bundle_point *p)
{
	json_t *t = json_object();
	struct pb_truth truth = p->truth;
	for (size_t i = 0; i < NTRUTH_FIELDS; i++)
		json_object_set_new(t, truth_fields[i].name, u64(*truth_field(&truth, i)));
	json_object_set_new(t, "has_watch", json_boolean(truth.has_watch));
	json_object_set_new(t, "watch_what", json_string(p->watch_what));
	json_t *labels = json_array();
	for (unsigned l = 0; l < truth.nlabels; l++) {
		const struct pb_label_truth *lt = &truth.labels[l];
		json_array_append_new(labels,
				      json_pack("{s:s, s:I, s:I, s:I, s:I}", "name", lt->name, "addr",
						(json_int_t)lt->addr, "kinds", (json_int_t)lt->kinds,
						"per_iteration", (json_int_t)lt->per_iteration,
						"once", (json_int_t)lt->once));
	}
	json_object_set_new(t, "labels", labels);
	return t;
}

static json_t *reading_json(const struct pb_bundle_reading *r)
{
	return json_pack("{s:s, s:b, s:s, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "file", r->file,
			 "opened", r->opened, "open_error", r->open_error, "ring_pages",
			 (json_int_t)r->ring_pages, "has_lost_format", r->has_lost_format,
			 "lost_format", (json_int_t)r->lost_format, "count", (json_int_t)r->count,
			 "time_enabled", (json_int_t)r->time_enabled, "time_running",
			 (json_int_t)r->time_running, "signals", (json_int_t)r->signals,
			 "signals_wrong_thread", (json_int_t)r->signals_wrong_thread);
}

static json_t *point_json(const struct pb_bundle_point *p)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:b, s:b, s:b, s:b, s:b, s:s}",
			      "name", p->name, "experiment", p->experiment, "workload", p->workload,
			      "label", p->label, "iterations", (json_int_t)p->iterations, "threads",
			      (json_int_t)p->threads, "attribute", p->attribute, "exclude_kernel",
			      p->exclude_kernel, "exclude_user", p->exclude_user,
			      "run_with_unopened", p->run_with_unopened, "run_failed", p->run_failed,
			      "isa", p->isa);
	json_object_set_new(j, "truth", truth_json(p));
	json_object_set_new(j, "code", hex_of(p->code, p->code_len));
	json_t *events = json_array();
	for (unsigned e = 0; e < p->nevents; e++) {
		const struct pb_bundle_event *ev = &p->events[e];
		json_t *threads = json_array();
		for (unsigned th = 0; th < p->threads; th++)
			json_array_append_new(threads, reading_json(&ev->thread[th]));
		json_array_append_new(events, json_pack("{s:s, s:I, s:b, s:o}", "spec", ev->spec,
							"period", (json_int_t)ev->period,
							"optional", ev->optional, "threads",
							threads));
	}
	json_object_set_new(j, "events", events);
	json_object_set_new(j, "results", p->results ? json_incref(p->results) : json_null());
	return j;
}

static json_t *selftest_run_json(const struct pb_bundle_selftest_run *r)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "facility",
			 r->facility, "spec", r->spec, "file", r->file, "period",
			 (json_int_t)r->period, "ip_lo", (json_int_t)r->ip_lo, "ip_hi",
			 (json_int_t)r->ip_hi, "exact_ip", (json_int_t)r->exact_ip, "counted",
			 (json_int_t)r->counted, "samples", (json_int_t)r->samples,
			 "samples_inside", (json_int_t)r->samples_inside, "verdict", r->verdict);
}

json_t *pb_bundle_json(const struct pb_bundle *b)
{
	json_t *points = json_array(), *runs = json_array();
	for (size_t i = 0; i < b->npoints; i++)
		json_array_append_new(points, point_json(&b->points[i]));
	for (size_t i = 0; i < b->nselftest_runs; i++)
		json_array_append_new(runs, selftest_run_json(&b->selftest_runs[i]));
	return json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:o, s:o}", "schema", PB_BUNDLE_SCHEMA,
			 "pesbench_version", b->version, "isa", b->isa, "probe",
			 b->probe ? b->probe : json_null(), "self_tests",
			 b->self_tests ? b->self_tests : json_array(), "notes",
			 b->notes ? b->notes : json_array(), "points", points, "self_test_runs",
			 runs);
}

/* ---- reading ---- */

struct reader {
	struct pb_error *err;
	const char *name;
	char where[160];             /* the point or field being read, for messages */
};

static int bad(struct reader *r, const char *field, const char *what)
{
	return pb_fail(r->err, PB_EXIT_BAD_FILE, 0,
		       "%s: %s%s%s %s; the bundle is damaged or was not written by `pesbench "
		       "capture` (" PB_BUNDLE_SCHEMA ")", r->name, r->where, r->where[0] ? ": " : "",
		       field, what);
}

static int get_text(struct reader *r, json_t *obj, const char *field, char *out, size_t len)
{
	json_t *v = json_object_get(obj, field);
	if (!json_is_string(v))
		return bad(r, field, "is missing or not a string");
	if (strlen(json_string_value(v)) >= len)
		return bad(r, field, "is too long");
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

static int get_u64(struct reader *r, json_t *obj, const char *field, uint64_t max,
		   uint64_t *out)
{
	json_t *v = json_object_get(obj, field);
	if (!json_is_integer(v))
		return bad(r, field, "is missing or not an integer");
	json_int_t i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return bad(r, field, "is out of range");
	*out = (uint64_t)i;
	return 0;
}

static int get_bool(struct reader *r, json_t *obj, const char *field, bool *out)
{
	json_t *v = json_object_get(obj, field);
	if (!json_is_boolean(v))
		return bad(r, field, "is missing or not true/false");
	*out = json_is_true(v);
	return 0;
}

/* A file of the bundle: points/NAME.perf.data, never a path leaving the bundle. */
static bool safe_path(const char *path)
{
	if (strncmp(path, "points/", 7) || strstr(path, "..") || strchr(path + 7, '/'))
		return false;
	for (const char *c = path; *c; c++)
		if (*c < 0x21 || *c > 0x7e || *c == '\\')
			return false;
	return strlen(path) > 7;
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int parse_code(struct reader *r, json_t *obj, struct pb_bundle_point *p)
{
	json_t *v = json_object_get(obj, "code");
	if (!json_is_string(v))
		return bad(r, "code", "is missing or not a hex string");
	const char *hex = json_string_value(v);
	size_t n = strlen(hex);
	if (n % 2 || n / 2 > PB_BUNDLE_MAX_CODE)
		return bad(r, "code", "is not whole bytes of hex, or longer than 1 MiB");
	if (n / 2 != p->truth.code_end - p->truth.code_begin)
		return bad(r, "code", "does not span the truth's code_begin..code_end");
	p->code_len = n / 2;
	p->code = malloc(p->code_len ? p->code_len : 1);
	if (!p->code)
		return pb_fail(r->err, PB_EXIT_FAILURE, 0, "out of memory");
	for (size_t i = 0; i < p->code_len; i++) {
		int hi = hex_nibble(hex[2 * i]), lo = hex_nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return bad(r, "code", "holds a character that is not lower-case hex");
		p->code[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int parse_truth(struct reader *r, json_t *obj, struct pb_bundle_point *p)
{
	json_t *t = json_object_get(obj, "truth");
	if (!json_is_object(t))
		return bad(r, "truth", "is missing or not an object");
	for (size_t i = 0; i < NTRUTH_FIELDS; i++)
		if (get_u64(r, t, truth_fields[i].name, UINT64_MAX, truth_field(&p->truth, i)))
			return -1;
	if (p->truth.code_end < p->truth.code_begin)
		return bad(r, "truth.code_end", "is below code_begin");
	if (get_bool(r, t, "has_watch", &p->truth.has_watch) ||
	    get_text(r, t, "watch_what", p->watch_what, sizeof p->watch_what))
		return -1;
	p->truth.watch_what = p->watch_what;
	json_t *labels = json_object_get(t, "labels");
	if (!json_is_array(labels) || json_array_size(labels) > PB_WL_MAX_LABELS)
		return bad(r, "truth.labels", "is missing, not a list, or longer than 64");
	size_t i;
	json_t *l;
	json_array_foreach(labels, i, l) {
		struct pb_label_truth *lt = &p->truth.labels[i];
		uint64_t kinds;
		if (!json_is_object(l))
			return bad(r, "truth.labels[]", "is not an object");
		if (get_text(r, l, "name", lt->name, sizeof lt->name) ||
		    get_u64(r, l, "addr", UINT64_MAX, &lt->addr) ||
		    get_u64(r, l, "kinds", (1u << PB_EV_KINDS) - 1, &kinds) ||
		    get_u64(r, l, "per_iteration", UINT64_MAX, &lt->per_iteration) ||
		    get_u64(r, l, "once", UINT64_MAX, &lt->once))
			return -1;
		lt->kinds = (unsigned)kinds;
	}
	p->truth.nlabels = (unsigned)json_array_size(labels);
	return 0;
}

static int parse_reading(struct reader *r, json_t *j, struct pb_bundle_reading *rd)
{
	uint64_t pages;
	if (!json_is_object(j))
		return bad(r, "events[].threads[]", "is not an object");
	if (get_text(r, j, "file", rd->file, sizeof rd->file) ||
	    get_bool(r, j, "opened", &rd->opened) ||
	    get_text(r, j, "open_error", rd->open_error, sizeof rd->open_error) ||
	    get_u64(r, j, "ring_pages", 1u << 20, &pages) ||
	    get_bool(r, j, "has_lost_format", &rd->has_lost_format) ||
	    get_u64(r, j, "lost_format", UINT64_MAX, &rd->lost_format) ||
	    get_u64(r, j, "count", UINT64_MAX, &rd->count) ||
	    get_u64(r, j, "time_enabled", UINT64_MAX, &rd->time_enabled) ||
	    get_u64(r, j, "time_running", UINT64_MAX, &rd->time_running) ||
	    get_u64(r, j, "signals", UINT64_MAX, &rd->signals) ||
	    get_u64(r, j, "signals_wrong_thread", UINT64_MAX, &rd->signals_wrong_thread))
		return -1;
	rd->ring_pages = (unsigned)pages;
	if (!safe_path(rd->file))
		return bad(r, "events[].threads[].file", "names a file outside the bundle's points/");
	return 0;
}

static int parse_point(struct reader *r, json_t *j, struct pb_bundle_point *p)
{
	uint64_t threads;
	if (!json_is_object(j))
		return bad(r, "points[]", "is not an object");
	if (get_text(r, j, "name", p->name, sizeof p->name))
		return -1;
	snprintf(r->where, sizeof r->where, "point %.60s", p->name);
	if (get_text(r, j, "experiment", p->experiment, sizeof p->experiment) ||
	    get_text(r, j, "workload", p->workload, sizeof p->workload) ||
	    get_text(r, j, "label", p->label, sizeof p->label) ||
	    get_u64(r, j, "iterations", UINT64_MAX, &p->iterations) ||
	    get_u64(r, j, "threads", PB_BUNDLE_MAX_THREADS, &threads) ||
	    get_bool(r, j, "attribute", &p->attribute) ||
	    get_bool(r, j, "exclude_kernel", &p->exclude_kernel) ||
	    get_bool(r, j, "exclude_user", &p->exclude_user) ||
	    get_bool(r, j, "run_with_unopened", &p->run_with_unopened) ||
	    get_bool(r, j, "run_failed", &p->run_failed) ||
	    get_text(r, j, "isa", p->isa, sizeof p->isa))
		return -1;
	if (!threads || !p->iterations)
		return bad(r, threads ? "iterations" : "threads", "is 0");
	p->threads = (unsigned)threads;
	if (parse_truth(r, j, p) || parse_code(r, j, p))
		return -1;
	json_t *events = json_object_get(j, "events");
	if (!json_is_array(events) || !json_array_size(events) ||
	    json_array_size(events) > PB_MAX_EVENTS)
		return bad(r, "events", "is missing, empty, or longer than 8");
	p->nevents = (unsigned)json_array_size(events);
	for (unsigned e = 0; e < p->nevents; e++) {
		json_t *ej = json_array_get(events, e);
		struct pb_bundle_event *ev = &p->events[e];
		if (!json_is_object(ej))
			return bad(r, "events[]", "is not an object");
		if (get_text(r, ej, "spec", ev->spec, sizeof ev->spec) ||
		    get_u64(r, ej, "period", UINT64_MAX, &ev->period) ||
		    get_bool(r, ej, "optional", &ev->optional))
			return -1;
		json_t *th = json_object_get(ej, "threads");
		if (!json_is_array(th) || json_array_size(th) != p->threads)
			return bad(r, "events[].threads", "is not a list of one entry per thread");
		for (unsigned t = 0; t < p->threads; t++)
			if (parse_reading(r, json_array_get(th, t), &ev->thread[t]))
				return -1;
	}
	json_t *results = json_object_get(j, "results");
	if (!json_is_object(results))
		return bad(r, "results", "is missing or not an object");
	p->results = json_incref(results);
	r->where[0] = '\0';
	return 0;
}

static int parse_selftest_run(struct reader *r, json_t *j, struct pb_bundle_selftest_run *run)
{
	if (!json_is_object(j))
		return bad(r, "self_test_runs[]", "is not an object");
	if (get_text(r, j, "facility", run->facility, sizeof run->facility) ||
	    get_text(r, j, "spec", run->spec, sizeof run->spec) ||
	    get_text(r, j, "file", run->file, sizeof run->file) ||
	    get_u64(r, j, "period", UINT64_MAX, &run->period) ||
	    get_u64(r, j, "ip_lo", UINT64_MAX, &run->ip_lo) ||
	    get_u64(r, j, "ip_hi", UINT64_MAX, &run->ip_hi) ||
	    get_u64(r, j, "exact_ip", UINT64_MAX, &run->exact_ip) ||
	    get_u64(r, j, "counted", UINT64_MAX, &run->counted) ||
	    get_u64(r, j, "samples", UINT64_MAX, &run->samples) ||
	    get_u64(r, j, "samples_inside", UINT64_MAX, &run->samples_inside) ||
	    get_text(r, j, "verdict", run->verdict, sizeof run->verdict))
		return -1;
	if (!safe_path(run->file))
		return bad(r, "self_test_runs[].file", "names a file outside the bundle's points/");
	return 0;
}

/* Bundles written before self-test runs were kept have none: an empty list. */
static int parse_selftest_runs(struct reader *r, json_t *doc, struct pb_bundle *out)
{
	json_t *runs = json_object_get(doc, "self_test_runs");
	if (!runs)
		return 0;
	if (!json_is_array(runs) || json_array_size(runs) > PB_BUNDLE_MAX_SELFTEST_RUNS)
		return bad(r, "self_test_runs", "is not a list, or longer than 64");
	out->selftest_runs = calloc(json_array_size(runs) + 1, sizeof *out->selftest_runs);
	if (!out->selftest_runs)
		return pb_fail(r->err, PB_EXIT_FAILURE, 0, "out of memory");
	for (size_t i = 0; i < json_array_size(runs); i++) {
		if (parse_selftest_run(r, json_array_get(runs, i), &out->selftest_runs[i]))
			return -1;
		out->nselftest_runs++;
	}
	return 0;
}

int pb_bundle_parse(const char *text, size_t len, const char *name, struct pb_bundle *out,
		    struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	struct reader r = {.err = err, .name = name};
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s: not JSON (line %d: %s); a bundle's bundle.json is written by "
			       "`pesbench capture`", name, jerr.line, jerr.text);
	char schema[64];
	int rc = -1;
	if (!json_is_object(doc)) {
		bad(&r, "the document", "is not an object");
		goto out;
	}
	if (get_text(&r, doc, "schema", schema, sizeof schema))
		goto out;
	if (strcmp(schema, PB_BUNDLE_SCHEMA)) {
		pb_fail(err, PB_EXIT_BAD_FILE, 0,
			"%s: schema '%s' is not " PB_BUNDLE_SCHEMA " (a newer pesbench wrote it?)",
			name, schema);
		goto out;
	}
	if (get_text(&r, doc, "pesbench_version", out->version, sizeof out->version) ||
	    get_text(&r, doc, "isa", out->isa, sizeof out->isa))
		goto out;
	out->probe = json_incref(json_object_get(doc, "probe"));
	out->self_tests = json_incref(json_object_get(doc, "self_tests"));
	out->notes = json_incref(json_object_get(doc, "notes"));
	if (!json_is_object(out->probe) || !json_is_array(out->self_tests) ||
	    !json_is_array(out->notes)) {
		bad(&r, "probe, self_tests or notes", "is missing or of the wrong type");
		goto out;
	}
	json_t *points = json_object_get(doc, "points");
	if (!json_is_array(points) || json_array_size(points) > PB_BUNDLE_MAX_POINTS) {
		bad(&r, "points", "is missing, not a list, or longer than 64");
		goto out;
	}
	out->points = calloc(json_array_size(points) + 1, sizeof *out->points);
	if (!out->points) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(points); i++) {
		out->npoints++;
		if (parse_point(&r, json_array_get(points, i), &out->points[i]))
			goto out;
	}
	if (parse_selftest_runs(&r, doc, out))
		goto out;
	rc = 0;
out:
	json_decref(doc);
	if (rc)
		pb_bundle_free(out);
	return rc;
}

void pb_bundle_free(struct pb_bundle *b)
{
	for (size_t i = 0; i < b->npoints; i++) {
		free(b->points[i].code);
		json_decref(b->points[i].results);
	}
	free(b->points);
	free(b->selftest_runs);
	json_decref(b->probe);
	json_decref(b->self_tests);
	json_decref(b->notes);
	memset(b, 0, sizeof *b);
}
