/* `pesbench replay`: every result of a bundle computed again offline from what it stores —
 * the probe from its machine tree, each point's figures and attribution from its perf.data
 * records through the same decoding, tallies and sums a live run uses — and compared with the
 * results stored at capture. Nothing of the replaying machine enters: its kind, its CPU and
 * its instruction set do not matter. */
#include "analysis/attribution.h"
#include "bundle/bundle_parts.h"
#include "perfdata/perfdata.h"
#include "util/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_BUNDLE_JSON (64u << 20)
#define MAX_DIFFERENCES 12

struct replay_ctx {
	struct pb_point_offline *offline;
	unsigned thread, event;
};

static int feed_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		       size_t len, struct pb_error *err)
{
	(void)bytes;
	(void)len;
	(void)err;
	struct replay_ctx *r = ctx;
	if (event == 0)
		pb_point_offline_record(r->offline, r->thread, r->event, rec);
	return 0;
}

static char *read_whole(const char *path, size_t max, size_t *len, struct pb_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return pb_fail(err, PB_EXIT_BAD_FILE, errno,
			       "cannot read %s (%s): is it a bundle written by `pesbench capture`?",
			       path, strerror(errno)),
		       NULL;
	char *buf = malloc(max + 1);
	size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
	fclose(f);
	if (!buf)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory"), NULL;
	if (n > max) {
		free(buf);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0, "%s is over %zu MiB: not a bundle's",
			       path, max >> 20),
		       NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Counts where recomputed b departs from stored a, printing each as "path: stored ->
 * recomputed" while *budget lasts. A field only b has is a figure added since the capture, not
 * a changed result: it is not counted (a bundle stays a test when pesbench learns more). */
static unsigned differences(FILE *out, const char *path, json_t *a, json_t *b, unsigned *budget)
{
	if (json_equal(a, b))
		return 0;
	char sub[512];
	unsigned n = 0;
	if (json_is_object(a) && json_is_object(b)) {
		const char *key;
		json_t *va;
		json_object_foreach(a, key, va) {
			snprintf(sub, sizeof sub, "%s.%s", path, key);
			json_t *vb = json_object_get(b, key);
			if (vb) {
				n += differences(out, sub, va, vb, budget);
				continue;
			}
			n++;
			if (*budget && (*budget)--)
				fprintf(out, "    %s: stored, no longer computed\n", sub);
		}
		return n;
	}
	if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
		for (size_t i = 0; i < json_array_size(a); i++) {
			snprintf(sub, sizeof sub, "%s[%zu]", path, i);
			n += differences(out, sub, json_array_get(a, i), json_array_get(b, i), budget);
		}
		return n;
	}
	if (*budget && (*budget)--) {
		char *sa = json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT);
		char *sb = json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT);
		fprintf(out, "    %s: %.80s -> %.80s\n", path, sa ? sa : "?", sb ? sb : "?");
		free(sa);
		free(sb);
	}
	return 1;
}

/* A bundle's field that did not parse: the parser's message, after where it is and what
 * (why's own cut kept: pb_error_prefix). */
static int bad_file(struct pb_error *err, const struct pb_error *why, const char *where,
		    const char *what)
{
	if (!err)
		return -1;
	*err = *why;
	err->code = PB_EXIT_BAD_FILE;
	err->sys_errno = 0;
	return pb_error_prefix(err, "%s: %s: ", where, what);
}

static int request_of(const struct pb_bundle_point *bp, const struct pb_machine *tree,
		      struct pb_point_request *req, const char *where, struct pb_error *err)
{
	pb_point_request_defaults(req);
	struct pb_error perr = {0};
	if (pb_workload_parse(bp->workload, &req->workload, &perr))
		return bad_file(err, &perr, where, "workload");
	for (unsigned e = 0; e < bp->nevents; e++) {
		if (pb_spec_of_recorded(bp->events[e].spec, &req->events[e].spec, &perr)) {
			char what[32];
			pb_format(what, sizeof what, "event %u", e);
			return bad_file(err, &perr, where, what);
		}
		req->events[e].period = bp->events[e].period;
		req->events[e].optional = bp->events[e].optional;
	}
	req->nevents = bp->nevents;
	req->iterations = bp->iterations;
	req->threads = bp->threads;
	req->machine = tree;
	req->attribute = bp->attribute;
	req->exclude_kernel = bp->exclude_kernel;
	req->exclude_user = bp->exclude_user;
	req->run_with_unopened = bp->run_with_unopened;
	snprintf(req->label, sizeof req->label, "%s", bp->label);
	return 0;
}

/* Reads one thread's event back: its attr into er, its records through the offline tally. */
static int replay_stream(const char *dir, const struct pb_bundle_reading *rd, unsigned th,
			 unsigned e, struct pb_event_result *er, struct pb_point_offline *o,
			 struct pb_error *err)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, rd->file);
	struct pb_perfdata *pd;
	if (pb_perfdata_open(path, &pd, err)) {
		if (err)
			err->code = PB_EXIT_BAD_FILE; /* a file the bundle names is part of it */
		return -1;
	}
	int rc = -1;
	if (pb_perfdata_nevents(pd) != 1) {
		pb_fail(err, PB_EXIT_BAD_FILE, 0,
			"%s holds %zu events; a bundle stores one per file", path,
			pb_perfdata_nevents(pd));
		goto out;
	}
	er->attr = pb_perfdata_event(pd, 0)->attr;
	struct replay_ctx r = {.offline = o, .thread = th, .event = e};
	rc = pb_perfdata_for_each(pd, feed_record, &r, NULL, err);
out:
	pb_perfdata_close(pd);
	return rc;
}

static int replay_point(const char *dir, const struct pb_bundle_point *bp,
			const struct pb_machine *tree, json_t **results, struct pb_error *err)
{
	char where[96];
	snprintf(where, sizeof where, "bundle.json: point %s", bp->name);
	struct pb_point_request req;
	if (request_of(bp, tree, &req, where, err))
		return -1;
	struct pb_point *pt = calloc(1, sizeof *pt);
	if (!pt || !(pt->session = calloc(1, sizeof *pt->session))) {
		free(pt);
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	}
	int rc = -1;
	pt->instance.choice = req.workload;
	pt->instance.iterations = req.iterations;
	pt->instance.threads = req.threads;
	pt->instance.truth = bp->truth;
	pt->label = bp->label[0] ? pb_truth_label(&bp->truth, bp->label) : -1;
	if (bp->label[0] && pt->label < 0) {
		pb_fail(err, PB_EXIT_BAD_FILE, 0, "%s: label '%s' is not in its truth", where,
			bp->label);
		goto out;
	}
	pt->instance.code_label = pt->label;
	if (req.attribute) {
		if (pb_code_map_decode_isa(&pt->code, bp->isa, bp->code, bp->code_len,
					   bp->truth.code_begin, err))
			goto out;
		for (unsigned l = 0; l < bp->truth.nlabels; l++)
			pb_code_map_label(&pt->code, bp->truth.labels[l].addr, (int)l);
	}
	struct pb_session_result *sr = pt->session;
	sr->threads = bp->threads;
	sr->nevents = bp->nevents;
	for (unsigned th = 0; th < bp->threads; th++)
		for (unsigned e = 0; e < bp->nevents; e++) {
			const struct pb_bundle_reading *rd = &bp->events[e].thread[th];
			struct pb_event_result *er = &sr->thread[th].events[e];
#define RESTORE(field) er->field = rd->field;
			PB_BUNDLE_READING_FIELDS(RESTORE)
#undef RESTORE
			snprintf(er->open_error, sizeof er->open_error, "%s", rd->open_error);
		}
	struct pb_point_offline *o = pb_point_offline_start(&req, pt, tree, err);
	if (!o)
		goto out;
	for (unsigned th = 0; th < bp->threads; th++)
		for (unsigned e = 0; e < bp->nevents; e++) {
			const struct pb_bundle_reading *rd = &bp->events[e].thread[th];
			if (rd->opened &&
			    replay_stream(dir, rd, th, e, &sr->thread[th].events[e], o, err)) {
				pb_point_offline_finish(o, true);
				goto out;
			}
		}
	pb_point_offline_finish(o, bp->run_failed);
	*results = pb_bundle_results_json(&req, pt);
	rc = 0;
out:
	pb_point_free(pt);
	free(pt);
	return rc;
}

struct selftest_count {
	const struct pb_bundle_selftest_run *run;
	uint64_t samples, inside;
};

static int count_selftest_record(void *ctx, int event, const struct pb_record *rec,
				 const uint8_t *bytes, size_t len, struct pb_error *err)
{
	(void)event;
	(void)bytes;
	(void)len;
	(void)err;
	struct selftest_count *c = ctx;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	c->samples++;
	c->inside += rec->u.sample.ip >= c->run->ip_lo && rec->u.sample.ip < c->run->ip_hi;
	return 0;
}

/* A self-test run's samples, and those inside its loop, counted again from its records. */
static int replay_selftest_run(const char *dir, const struct pb_bundle_selftest_run *run,
			       FILE *out, struct pb_replay_report *rep, struct pb_error *err)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", dir, run->file);
	struct pb_perfdata *pd;
	if (pb_perfdata_open(path, &pd, err)) {
		if (err)
			err->code = PB_EXIT_BAD_FILE;
		return -1;
	}
	struct selftest_count c = {.run = run};
	int rc = pb_perfdata_for_each(pd, count_selftest_record, &c, NULL, err);
	pb_perfdata_close(pd);
	if (rc)
		return -1;
	rep->selftest_runs++;
	bool same = c.samples == run->samples && c.inside == run->samples_inside;
	rep->selftest_differ += !same;
	char what[64];
	snprintf(what, sizeof what, "self-test %.40s", run->spec);
	fprintf(out, "  %-22s %s (%s; %llu samples, %llu inside the loop)\n", what,
		same ? "identical" : "DIFFERS", run->verdict, (unsigned long long)c.samples,
		(unsigned long long)c.inside);
	if (!same)
		fprintf(out, "    samples: %llu -> %llu, inside the loop: %llu -> %llu\n",
			(unsigned long long)run->samples, (unsigned long long)c.samples,
			(unsigned long long)run->samples_inside, (unsigned long long)c.inside);
	return 0;
}

int pb_replay(const char *dir, FILE *out, struct pb_replay_report *rep, struct pb_error *err)
{
	memset(rep, 0, sizeof *rep);
	char path[1100];
	snprintf(path, sizeof path, "%s/bundle.json", dir);
	size_t len;
	char *text = read_whole(path, MAX_BUNDLE_JSON, &len, err);
	if (!text)
		return -1;
	struct pb_bundle b;
	int rc = pb_bundle_parse(text, len, path, &b, err);
	free(text);
	if (rc)
		return -1;
	snprintf(path, sizeof path, "%s/machine", dir);
	struct stat st;
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		pb_bundle_free(&b);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s is missing: a bundle holds the machine's tree there", path);
	}
	static struct pb_machine tree;
	pb_machine_probe(&tree, path);
	json_t *probe = pb_bundle_probe_json(&tree);
	unsigned budget = MAX_DIFFERENCES;
	fprintf(out, "bundle %s: pesbench %s, %s, %zu self-test runs, %zu points\n", dir, b.version,
		b.isa, b.nselftest_runs, b.npoints);
	/* printed before its verdict line would be: counted first, quietly */
	unsigned quiet = 0;
	rep->probe_identical = !differences(out, "probe", b.probe, probe, &quiet);
	fprintf(out, "  %-22s %s\n", "probe (machine/)",
		rep->probe_identical ? "identical" : "DIFFERS");
	differences(out, "probe", b.probe, probe, &budget);
	json_decref(probe);
	rc = 0;
	for (size_t i = 0; i < b.nselftest_runs && !rc; i++)
		rc = replay_selftest_run(dir, &b.selftest_runs[i], out, rep, err);
	for (size_t i = 0; i < b.npoints && !rc; i++) {
		const struct pb_bundle_point *bp = &b.points[i];
		json_t *results = NULL;
		if (replay_point(dir, bp, &tree, &results, err)) {
			rc = -1;
			break;
		}
		rep->points++;
		quiet = 0;
		bool same = !differences(out, "results", bp->results, results, &quiet);
		if (same)
			rep->identical++;
		else
			rep->differ++;
		fprintf(out, "  %-22s %s\n", bp->name, same ? "identical" : "DIFFERS");
		budget = MAX_DIFFERENCES;
		differences(out, "results", bp->results, results, &budget);
		json_decref(results);
	}
	pb_bundle_free(&b);
	return rc;
}
