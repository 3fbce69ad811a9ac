/* `pesbench capture`: the machine's facts, every facility's self-test, and one accuracy, bias
 * and multi point per available facility with every record its rings gave, as a bundle. */
#include "analysis/attribution.h"
#include "bundle/bundle_parts.h"
#include "experiments/experiment.h"
#include "experiments/point.h"
#include "experiments/suite_defaults.h"
#include "facilities/selftest.h"
#include "perfdata/perfdata.h"
#include "io/probe_json.h"
#include "io/results.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Samples a captured point aims at: enough for accuracy and attribution to mean something,
 * few enough that a bundle stays a few hundred KB. */
#define CAPTURE_SAMPLES 400
/* Records of one thread's event beyond this are not kept: the capture says so and fails. */
#define CAPTURE_MAX_BYTES (4u << 20)

struct stream {
	uint8_t *bytes;
	size_t len, cap;
	bool overflow;
};

struct tap {
	struct stream s[PB_BUNDLE_MAX_THREADS][PB_MAX_EVENTS];
	unsigned unstored;           /* records without bytes (taken out of an AUX area) */
};

/* Appends one record's bytes to s; past CAPTURE_MAX_BYTES it keeps none and says so. */
static void stream_append(struct stream *s, const struct pb_record *rec)
{
	if (s->overflow || s->len + rec->size > CAPTURE_MAX_BYTES) {
		s->overflow = true;
		return;
	}
	if (s->len + rec->size > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 65536;
		while (cap < s->len + rec->size)
			cap *= 2;
		uint8_t *grown = realloc(s->bytes, cap);
		if (!grown) {
			s->overflow = true;
			return;
		}
		s->bytes = grown;
		s->cap = cap;
	}
	memcpy(s->bytes + s->len, rec->bytes, rec->size);
	s->len += rec->size;
}

static void tap_record(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	struct tap *t = ctx;
	if (thread >= PB_BUNDLE_MAX_THREADS || event >= PB_MAX_EVENTS)
		return;
	if (!rec->bytes) {
		t->unstored++;
		return;
	}
	stream_append(&t->s[thread][event], rec);
}

static void tap_free(struct tap *t)
{
	for (unsigned th = 0; th < PB_BUNDLE_MAX_THREADS; th++)
		for (unsigned e = 0; e < PB_MAX_EVENTS; e++)
			free(t->s[th][e].bytes);
}

static int write_stream(const char *dir, const char *file, const struct perf_event_attr *attr,
			const char *name, const struct stream *s, struct pb_error *err)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	struct pb_perfdata_writer *w;
	if (pb_perfdata_writer_open(path, &w, err))
		return -1;
	pb_perfdata_writer_anonymous(w);
	if (pb_perfdata_writer_add_event(w, attr, name, NULL, 0, err) < 0) {
		pb_perfdata_writer_abort(w);
		return -1;
	}
	for (size_t off = 0; off < s->len;) {
		struct perf_event_header h;
		memcpy(&h, s->bytes + off, sizeof h);
		if (pb_perfdata_writer_record(w, s->bytes + off, h.size, err)) {
			pb_perfdata_writer_abort(w);
			return -1;
		}
		off += h.size;
	}
	return pb_perfdata_writer_close(w, err);
}

/* Iterations for about CAPTURE_SAMPLES samples: from the declared events where there are
 * some, from a timed run for a facility whose period is time. */
static void size_for_bundle(struct pb_point_request *req)
{
	uint64_t period = req->events[0].period;
	if (period && req->events[0].spec.facility->time_based) {
		uint64_t ms = period * CAPTURE_SAMPLES / 1000000;
		uint64_t iterations = pb_calibrate_for(req, ms ? ms : 1, NULL);
		if (iterations)
			req->iterations = iterations;
		return;
	}
	uint64_t declared = 0;
	struct pb_truth truth;
	if (!period || pb_workload_truth(&req->workload, req->iterations, &truth, NULL))
		return;
	const struct pb_spec *spec = &req->events[0].spec;
	int label = -1;
	if (pb_spec_sits_on_instruction(spec))
		label = req->label[0] ? pb_truth_label(&truth, req->label)
				      : pb_truth_default_label(&truth);
	pb_declared_events(spec, &truth, label, req->iterations, &declared);
	uint64_t samples = declared / period;
	if (samples > CAPTURE_SAMPLES) {
		uint64_t fewer = req->iterations * CAPTURE_SAMPLES / samples;
		req->iterations = fewer ? fewer : 1;
	} else if (samples) {
		/* at most a hundred times the default: a counter-overflow point stays short */
		uint64_t factor = CAPTURE_SAMPLES / samples;
		req->iterations *= factor < 100 ? factor : 100;
	}
}

static int capture_point(const char *dir, const char *name, const char *experiment,
			 struct pb_point_request *req, struct pb_bundle_point *bp,
			 struct pb_error *err)
{
	struct tap *tap = calloc(1, sizeof *tap);
	struct pb_point *pt = calloc(1, sizeof *pt);
	int rc = -1;
	bool measured = false;
	if (!tap || !pt) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto out;
	}
	req->on_record = tap_record;
	req->record_ctx = tap;
	/* a point whose run failed is freed by pb_point_measure: there is nothing to keep */
	if (pb_point_measure(req, pt, err))
		goto out;
	measured = true;
	memset(bp, 0, sizeof *bp);
	snprintf(bp->name, sizeof bp->name, "%s", name);
	snprintf(bp->experiment, sizeof bp->experiment, "%s", experiment);
	char params[96];
	pb_workload_params_text(&req->workload, params, sizeof params);
	bool no_params = !params[0] || !strcmp(params, "-");
	snprintf(bp->workload, sizeof bp->workload, "%s%s%s", req->workload.workload->name,
		 no_params ? "" : ":", no_params ? "" : params);
	if (pt->label >= 0)
		snprintf(bp->label, sizeof bp->label, "%s", pt->instance.truth.labels[pt->label].name);
	bp->iterations = req->iterations;
	bp->threads = req->threads;
	bp->attribute = req->attribute;
	bp->exclude_kernel = req->exclude_kernel;
	bp->exclude_user = req->exclude_user;
	bp->run_with_unopened = req->run_with_unopened;
	bp->run_failed = false;
	bp->truth = pt->instance.truth;
	snprintf(bp->watch_what, sizeof bp->watch_what, "%s",
		 bp->truth.watch_what ? bp->truth.watch_what : "");
	snprintf(bp->isa, sizeof bp->isa, "%s", pb_code_isa());
	bp->code_len = bp->truth.code_end - bp->truth.code_begin;
	if (bp->code_len > PB_BUNDLE_MAX_CODE) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "%s: the workload's code is over 1 MiB", name);
		goto out;
	}
	bp->code = malloc(bp->code_len ? bp->code_len : 1);
	if (!bp->code) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto out;
	}
	memcpy(bp->code, (const void *)(uintptr_t)bp->truth.code_begin, bp->code_len);
	bp->nevents = req->nevents;
	for (unsigned e = 0; e < req->nevents; e++) {
		struct pb_bundle_event *ev = &bp->events[e];
		snprintf(ev->spec, sizeof ev->spec, "%s", req->events[e].spec.text);
		ev->period = req->events[e].period;
		ev->optional = req->events[e].optional;
		for (unsigned th = 0; th < req->threads; th++) {
			const struct pb_event_result *er = &pt->session->thread[th].events[e];
			struct pb_bundle_reading *rd = &ev->thread[th];
			const struct stream *s = &tap->s[th][e];
			snprintf(rd->file, sizeof rd->file, "points/%s.t%u.e%u.perf.data", name, th, e);
#define KEEP(field) rd->field = er->field;
			PB_BUNDLE_READING_FIELDS(KEEP)
#undef KEEP
			snprintf(rd->open_error, sizeof rd->open_error, "%s", er->open_error);
			if (s->overflow) {
				pb_fail(err, PB_EXIT_FAILURE, 0,
					"%s: more than %u MiB of records for one event: too much for a "
					"bundle", name, CAPTURE_MAX_BYTES >> 20);
				goto out;
			}
			if (write_stream(dir, rd->file, &er->attr, ev->spec, s, err))
				goto out;
		}
	}
	if (tap->unstored) {
		pb_fail(err, PB_EXIT_FAILURE, 0,
			"%s: %u samples came out of an AUX area, which this version cannot store",
			name, tap->unstored);
		goto out;
	}
	/* the results as pesbench computed them from these records */
	bp->results = pb_bundle_results_json(req, pt);
	rc = 0;
out:
	if (measured)
		pb_point_free(pt);
	free(pt);
	if (tap)
		tap_free(tap);
	free(tap);
	return rc;
}

/* The sampling self-tests' runs, kept as they run (pb_selftest_set_tap). */
struct selftest_capture {
	struct pb_bundle *b;
	const char *dir;
	const char *facility;                /* whose self-test is running */
	struct pb_bundle_selftest_run *run;  /* the run being kept; NULL: this one is not */
	struct perf_event_attr attr;
	struct stream s;
	unsigned unwritten;                  /* runs that could not be kept */
};

static void selftest_begin(void *ctx, const struct pb_spec *spec,
			   const struct perf_event_attr *attr, const struct pb_selftest_run *run)
{
	struct selftest_capture *c = ctx;
	c->run = NULL;
	c->s.len = 0;
	c->s.overflow = false;
	/* an AUX facility's samples are in its AUX area, which a bundle does not keep yet */
	if (run->aux_pages || c->b->nselftest_runs == PB_BUNDLE_MAX_SELFTEST_RUNS) {
		c->unwritten++;
		return;
	}
	struct pb_bundle_selftest_run *r = &c->b->selftest_runs[c->b->nselftest_runs];
	memset(r, 0, sizeof *r);
	snprintf(r->facility, sizeof r->facility, "%s", c->facility);
	snprintf(r->spec, sizeof r->spec, "%s", spec->text);
	snprintf(r->file, sizeof r->file, "points/selftest-%zu.perf.data", c->b->nselftest_runs);
	r->period = run->period;
	r->ip_lo = run->ip_lo;
	r->ip_hi = run->ip_hi;
	r->exact_ip = run->exact_ip;
	c->attr = *attr;
	c->run = r;
}

static void selftest_record(void *ctx, const struct pb_record *rec)
{
	struct selftest_capture *c = ctx;
	if (c->run && rec->bytes)
		stream_append(&c->s, rec);
}

static void selftest_end(void *ctx, const struct pb_self_test *out)
{
	struct selftest_capture *c = ctx;
	struct pb_bundle_selftest_run *r = c->run;
	c->run = NULL;
	struct pb_error err = {0};
	if (!r || c->s.overflow || write_stream(c->dir, r->file, &c->attr, r->spec, &c->s, &err)) {
		c->unwritten += r != NULL;
		return;
	}
	r->counted = out->counted;
	r->samples = out->samples;
	r->samples_inside = out->samples_inside;
	snprintf(r->verdict, sizeof r->verdict, "%s", pb_verdict_name(out->verdict));
	c->b->nselftest_runs++;
}

static void note(struct pb_bundle *b, FILE *progress, const char *fmt, const char *a,
		 const char *c)
{
	char text[1024];
	snprintf(text, sizeof text, fmt, a, c);
	json_array_append_new(b->notes, json_string(text));
	if (progress)
		fprintf(progress, "  %s\n", text);
}

static bool wanted(const struct pb_capture_options *o, const struct pb_facility *f)
{
	if (!o->facilities)
		return true;
	for (unsigned i = 0; i < o->nfacilities; i++)
		if (!strcmp(o->facilities[i], f->name))
			return true;
	return false;
}

/* The three points of one facility; each that cannot run is a note, not a failure. */
static int capture_facility(const struct pb_capture_options *o, const struct pb_facility *f,
			    struct pb_bundle *b, struct pb_error *err)
{
	struct pb_spec suite_spec;
	if (pb_facility_suite_parsed(f, &suite_spec, err))
		return -1;
	for (int kind = 0; kind < 3; kind++) {
		static const char *const experiments[] = {"accuracy", "bias", "multi"};
		const char *experiment = experiments[kind];
		char name[64];
		const char *why = NULL, *workload = NULL;
		struct pb_spec spec = suite_spec;
		uint64_t period = pb_suite_accuracy_period(&spec);
		if (kind == 1) {
			if (pb_spec_spread_parsed(&suite_spec, &spec, &why)) {
				note(b, o->progress, "bias-%s: not captured: %s", f->name, why);
				continue;
			}
			workload = "bias:variant=plain";
			/* the bias study's own period for exact facilities: prime to the loop */
			period = spec.facility->exact ? 7 : pb_suite_accuracy_period(&spec);
		}
		const char *spec_text = spec.text;
		struct pb_point_request req;
		struct pb_error perr = {0};
		if (pb_suite_request(&req, &spec, workload, period, 1, PB_DELIVERY_NONE, &perr)) {
			note(b, o->progress, "%s: not captured: %s", experiment, perr.msg);
			continue;
		}
		req.attribute = kind == 1;
		if (kind == 2) {
			unsigned k = f->multi_events ? f->multi_events : 2;
			req.nevents = k > PB_MAX_EVENTS ? PB_MAX_EVENTS : k;
			for (unsigned e = 1; e < req.nevents; e++)
				req.events[e] = req.events[0];
			req.run_with_unopened = true;
		}
		size_for_bundle(&req);
		snprintf(name, sizeof name, "%s-%s", experiment, f->name);
		if (o->progress)
			fprintf(o->progress, "  %-16s %s on %s, %llu iterations\n", name, spec_text,
				req.workload.workload->name, (unsigned long long)req.iterations);
		struct pb_bundle_point *bp = &b->points[b->npoints];
		if (capture_point(o->dir, name, experiment, &req, bp, &perr)) {
			free(bp->code);
			json_decref(bp->results);
			memset(bp, 0, sizeof *bp);
			note(b, o->progress, "%s: not captured: %s", name, perr.msg);
			continue;
		}
		b->npoints++;
	}
	return 0;
}

static int check_empty_dir(const char *dir, struct pb_error *err)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			return pb_fail(err, PB_EXIT_USAGE, errno,
				       "%s exists and is not a folder pesbench can read", dir);
		if (mkdir(dir, 0755))
			return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot make %s", dir);
		return 0;
	}
	struct dirent *e;
	bool empty = true;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	if (!empty)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s is not empty: capture writes a new bundle and never mixes with "
			       "files already there; give a new folder", dir);
	return 0;
}

int pb_capture(const struct pb_capture_options *o, struct pb_error *err)
{
	if (check_empty_dir(o->dir, err))
		return -1;
	const struct pb_machine *live = pb_machine_live();
	char path[1100];
	snprintf(path, sizeof path, "%s/machine", o->dir);
	if (pb_bundle_write_machine(path, live, err))
		return -1;
	snprintf(path, sizeof path, "%s/points", o->dir);
	if (mkdir(path, 0755))
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot make %s", path);

	struct pb_bundle b = {0};
	snprintf(b.version, sizeof b.version, "%s", PB_VERSION);
	snprintf(b.isa, sizeof b.isa, "%s", pb_code_isa());
	static struct pb_machine tree;
	snprintf(path, sizeof path, "%s/machine", o->dir);
	pb_machine_probe(&tree, path);
	b.probe = pb_bundle_probe_json(&tree);
	b.self_tests = json_array();
	b.notes = json_array();
	b.points = calloc(PB_BUNDLE_MAX_POINTS, sizeof *b.points);
	b.selftest_runs = calloc(PB_BUNDLE_MAX_SELFTEST_RUNS, sizeof *b.selftest_runs);
	struct selftest_capture stc = {.b = &b, .dir = o->dir};
	const struct pb_selftest_tap tap = {.begin = selftest_begin, .record = selftest_record,
					    .end = selftest_end, .ctx = &stc};
	int rc = -1;
	if (!b.points || !b.selftest_runs) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto out;
	}
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		if (!wanted(o, *f))
			continue;
		struct pb_availability av;
		struct pb_self_test test;
		stc.facility = (*f)->name;
		pb_selftest_set_tap(&tap);
		pb_facility_check(live, NULL, *f, &av, &test);
		pb_selftest_set_tap(NULL);
		json_t *st = json_pack("{s:s, s:b, s:s, s:s, s:o}", "facility", (*f)->name,
				       "available", av.available, "reason", av.reason, "detail",
				       av.detail, "self_test", pb_self_test_json(&test));
		json_array_append_new(b.self_tests, st);
		if (o->progress)
			fprintf(o->progress, "%-10s %s\n", (*f)->name,
				av.available ? "available: capturing" : "not available");
		if (!av.available)
			continue;
		if ((*f)->aux_pages) {
			note(&b, o->progress, "%s: not captured: its samples arrive in an AUX area, "
			     "which this version of capture does not store%s", (*f)->name, "");
			continue;
		}
		if (b.npoints + 3 > PB_BUNDLE_MAX_POINTS)
			break;
		if (capture_facility(o, *f, &b, err))
			goto out;
	}
	if (stc.unwritten) {
		char count[16];
		snprintf(count, sizeof count, "%u", stc.unwritten);
		note(&b, o->progress, "%s self-test runs not kept%s (AUX data, or no room)", count,
		     "");
	}
	json_t *doc = pb_bundle_json(&b);
	char *text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(doc);
	snprintf(path, sizeof path, "%s/bundle.json", o->dir);
	if (!text) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto out;
	}
	rc = pb_write_atomic(path, text, strlen(text), err);
	free(text);
out:
	pb_selftest_set_tap(NULL);
	free(stc.s.bytes);
	pb_bundle_free(&b);
	return rc;
}
