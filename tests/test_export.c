/* The export model and formats on small sets built by hand: equal stacks merge and others do
 * not (however many share a hash bucket), frames are keyed by (object, address), raw call
 * chains lose perf's context markers and a chain of markers alone falls back to the IP, a
 * chainless sample seen again adds to its stack; folded stacks merge addresses of a function,
 * turn ';' into ':' and drop empty stacks; speedscope shares one frame per function; pprof
 * is gzip whose first field is string_table[0] = ""; sibling paths put ".exact" before the
 * extension; a forked child's samples are named by the mapping its parent made before the
 * fork even when the file stores that mapping after the FORK record; samples at an address
 * two files were mapped at in turn are named by the one mapped at their time, in the export
 * (samples of a fixed period with a time reach it by the walk's IP sink) and in `perfdata
 * --histogram` (a row per file at that IP, counting only the samples of its time; one row
 * where another mapping of the process left the file in place). */
#include "analysis/perfdata_summary.h"
#include "check.h"
#include "export/from_perfdata.h"
#include "export/raw.h"
#include "io/perfdata_report.h"
#include "rec_writer.h"

#include <jansson.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char *write_to_memory(const struct pb_export_format *f, const struct pb_xset *s,
			     size_t profile, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	struct pb_error err;
	size_t list[1] = {profile};
	CHECK(out && f->write(s, list, 1, out, &err) == 0);
	fclose(out);
	return text;
}

static void sibling_paths(void)
{
	char out[256];
	pb_export_sibling_path("prof.pb.gz", "exact", out, sizeof out);
	CHECK(!strcmp(out, "prof.exact.pb.gz"));
	pb_export_sibling_path("dir.d/x", "exact", out, sizeof out);
	CHECK(!strcmp(out, "dir.d/x.exact"));
	pb_export_sibling_path("/t/.p.folded", "exact", out, sizeof out);
	CHECK(!strcmp(out, "/t/.p.exact.folded"));
	struct pb_export_request req;
	struct pb_error err;
	CHECK(pb_export_parse("speedscope:a:b.json", &req, &err) == 0 &&
	      req.format == &pb_export_speedscope && !strcmp(req.path, "a:b.json"));
	CHECK(pb_export_parse("flame:x", &req, &err) != 0 && err.code == PB_EXIT_USAGE);
	CHECK(pb_export_parse("pprof:", &req, &err) != 0 && err.code == PB_EXIT_USAGE);
}

/* The sample_id trailer of PERF_SAMPLE_TID | PERF_SAMPLE_TIME, and the record's size. */
static size_t w_end_tid_time(struct rec_writer *w, uint32_t pid, uint64_t time)
{
	w_u32(w, pid);
	w_u32(w, pid);
	w_u64(w, time);
	return w_size(w);
}

static int feed(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		size_t len, struct pb_error *err)
{
	(void)bytes;
	(void)len;
	return pb_xperf_record(ctx, event, rec, err);
}

/* The export a tap feeds, and how its samples reached it: whole (record) or by the IP sink. */
struct tapped {
	struct pb_xperf *x;
	uint64_t whole, by_ip;
};

static int feed_tap(void *ctx, int event, const struct pb_record *rec, struct pb_error *err)
{
	struct tapped *t = ctx;
	t->whole += rec->type == PERF_RECORD_SAMPLE;
	return pb_xperf_record(t->x, event, rec, err);
}

static int feed_tap_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
		       struct pb_error *err)
{
	struct tapped *t = ctx;
	t->by_ip++;
	return pb_xperf_sample_ip(t->x, event, ip, pid, time, err);
}

/* An MMAP2 record of an executable file mapping of pid made at time, written to w. */
static void write_mmap2(struct pb_perfdata_writer *w, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *path, uint64_t time)
{
	struct rec_writer map_rec;
	struct pb_error err = {0};
	w_begin(&map_rec, PERF_RECORD_MMAP2, 0);
	w_u32(&map_rec, pid);
	w_u32(&map_rec, pid);
	w_u64(&map_rec, start);
	w_u64(&map_rec, len);
	w_u64(&map_rec, pgoff);
	for (int i = 0; i < 6; i++) /* maj, min, ino (two words), ino_generation (two) */
		w_u32(&map_rec, 0);
	w_u32(&map_rec, 5); /* PROT_READ | PROT_EXEC */
	w_u32(&map_rec, 2); /* MAP_PRIVATE */
	w_string(&map_rec, path);
	size_t map_size = w_end_tid_time(&map_rec, pid, time);
	CHECK(pb_perfdata_writer_record(w, map_rec.buf, map_size, &err) == 0);
}

/* A perf.data at path (a mkstemp template) of one page-fault event of period 1 whose samples
 * carry IP, TID and TIME, open for records. */
static struct pb_perfdata_writer *timed_page_faults(char *path)
{
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	struct pb_error err = {0};
	struct pb_perfdata_writer *w = NULL;
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof a,
				    .config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
				    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						   PERF_SAMPLE_TIME,
				    .sample_id_all = 1};
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a, "page-faults", NULL, 0, &err) == 0);
	return w;
}

/* perf stores each CPU's ring apart, so a mapping the parent made on one CPU can follow in
 * the file the FORK another CPU recorded; the child still holds it (a CI run's pprof export
 * split three IPs of a forked child off as [unknown] before the fork waited for the walk's
 * end). This program's code is the mapping; the child's sample is in a function of it. */
static void fork_before_parent_mapping(void)
{
	struct pb_map *maps = NULL;
	size_t nmaps = 0;
	uint64_t ip = (uint64_t)(uintptr_t)&fork_before_parent_mapping + 1;
	CHECK(pb_maps_read_proc(getpid(), &maps, &nmaps) > 0);
	const struct pb_map *code = NULL;
	for (size_t i = 0; i < nmaps; i++)
		if (ip >= maps[i].start && ip < maps[i].end)
			code = &maps[i];
	if (!CHECK_MSG(code != NULL, "no mapping of this program holds its own code")) {
		free(maps);
		return;
	}
	char path[] = "/tmp/pb_export_fork_XXXXXX";
	struct pb_error err = {0};
	struct pb_perfdata_writer *w = timed_page_faults(path);
	struct rec_writer fork_rec;
	w_begin(&fork_rec, PERF_RECORD_FORK, 0);
	w_u32(&fork_rec, 20); /* pid, ppid, tid, ptid */
	w_u32(&fork_rec, 10);
	w_u32(&fork_rec, 20);
	w_u32(&fork_rec, 10);
	w_u64(&fork_rec, 2000);
	size_t fork_size = w_end_tid_time(&fork_rec, 10, 2000);
	CHECK(pb_perfdata_writer_record(w, fork_rec.buf, fork_size, &err) == 0);
	write_mmap2(w, 10, code->start, code->end - code->start, code->pgoff, code->path, 1000);
	struct pb_sample s = {.ip = ip, .pid = 20, .tid = 20, .time = 3000};
	CHECK(pb_perfdata_writer_sample(w, 0, &s, &err) == 0);
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	free(maps);

	struct pb_perfdata *pd = NULL;
	struct pb_xperf *x = NULL;
	CHECK(pb_perfdata_open(path, &pd, &err) == 0);
	CHECK(pd && pb_xperf_start(pd, "fork", &x, &err) == 0);
	if (x) {
		pb_xperf_no_source(x);
		CHECK(pb_perfdata_for_each(pd, feed, x, NULL, &err) == 0);
		struct pb_xset *set = pb_xperf_finish(x, NULL, &err);
		CHECK(set && set->profiles[0].nstacks == 1);
		if (set && set->profiles[0].nstacks == 1) {
			const struct pb_xframe *f =
				&set->frames[pb_xstack_frames(&set->profiles[0], 0)[0]];
			CHECK_MSG(!strcmp(f->function, "fork_before_parent_mapping"),
				  "the child's sample named %s in %s", f->function, f->object);
		}
		pb_xperf_free(x);
	}
	pb_perfdata_close(pd);
	unlink(path);
}

/* The samples of the named profile whose leaf frame is in object. */
static uint64_t samples_in(const struct pb_xset *set, const char *object)
{
	const struct pb_xprofile *p = &set->profiles[0];
	uint64_t n = 0;
	for (size_t st = 0; st < p->nstacks; st++)
		if (!strcmp(set->frames[pb_xstack_frames(p, st)[0]].object, object))
			n += pb_xstack_values(p, st)[0];
	return n;
}

/* A process unmapped a library and mapped another file at its address (dlclose, dlopen; a
 * JIT's code), with a mapping elsewhere between (a new era of the process that leaves a.so in
 * place). Samples of IP|TID|TIME and a fixed period: the walk's IP sink takes them. The sample
 * of t=2500 comes after the mapping of t=3000 (another CPU's ring); that of t=500 precedes
 * every mapping of its address: the closest, a.so, names it (clocks of two CPUs). So a.so
 * holds 3 samples, b.so 1. Returns the file's path in path (unlink it). */
static void write_remapped(char *path)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w = timed_page_faults(path);
	struct pb_sample s = {.ip = 0x1010, .pid = 10, .tid = 10, .time = 500};
	CHECK(pb_perfdata_writer_sample(w, 0, &s, &err) == 0);
	write_mmap2(w, 10, 0x1000, 0x1000, 0, "/nonexistent/a.so", 1000);
	write_mmap2(w, 10, 0x8000, 0x1000, 0, "/nonexistent/c.so", 1500);
	s.time = 2000;
	CHECK(pb_perfdata_writer_sample(w, 0, &s, &err) == 0);
	write_mmap2(w, 10, 0x1000, 0x1000, 0, "/nonexistent/b.so", 3000);
	s.time = 2500;
	CHECK(pb_perfdata_writer_sample(w, 0, &s, &err) == 0);
	s.time = 4000;
	CHECK(pb_perfdata_writer_sample(w, 0, &s, &err) == 0);
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
}

/* The export of that file through the walk `perfdata --export` makes: each sample named by the
 * file mapped at its time, the samples taken by the IP sink (with their time), none whole. */
static void remapped_address(void)
{
	char path[] = "/tmp/pb_export_remap_XXXXXX";
	write_remapped(path);
	struct pb_error err = {0};
	struct pb_perfdata *pd = NULL;
	struct tapped t = {0};
	CHECK(pb_perfdata_open(path, &pd, &err) == 0);
	CHECK(pd && pb_xperf_start(pd, "remap", &t.x, &err) == 0);
	if (t.x) {
		pb_xperf_no_source(t.x);
		const struct pb_facility *const no_facility[] = {NULL};
		const struct pb_pdsum_tap tap = {.record = feed_tap, .sample_ip = feed_tap_ip,
						 .needs_period = true, .ctx = &t};
		struct pb_pdsum sum = {.tap = &tap};
		CHECK(pb_pdsum_open(&sum, pd, no_facility, &err) == 0);
		CHECK(pb_pdsum_walk(&sum, &err) == 0);
		CHECK_EQ_U64(t.by_ip, 4);
		CHECK_EQ_U64(t.whole, 0);
		struct pb_xset *set = pb_xperf_finish(t.x, &sum.stats, &err);
		CHECK(set != NULL);
		if (set) {
			CHECK_EQ_U64(samples_in(set, "/nonexistent/a.so"), 3);
			CHECK_EQ_U64(samples_in(set, "/nonexistent/b.so"), 1);
		}
		pb_pdsum_free(&sum);
		pb_xperf_free(t.x);
	}
	pb_perfdata_close(pd);
	unlink(path);
}

/* `perfdata --histogram` of that file: IP 0x1010 is one IP with a row per file, a.so's
 * counting the samples of before b.so (of two eras of the process: c.so was mapped between)
 * and b.so's the one after, in the text and in the JSON. */
static void remapped_address_histogram(void)
{
	char path[] = "/tmp/pb_export_remaph_XXXXXX";
	write_remapped(path);
	struct pb_error err = {0};
	struct pb_perfdata *pd = NULL;
	CHECK(pb_perfdata_open(path, &pd, &err) == 0);
	const struct pb_facility *const no_facility[] = {NULL};
	struct pb_pdsum sum = {.histogram = true};
	CHECK(pd && pb_pdsum_open(&sum, pd, no_facility, &err) == 0);
	CHECK(pd && pb_pdsum_walk(&sum, &err) == 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	CHECK(out != NULL);
	if (pd && out) {
		pb_perfdata_report_text(&sum, "remap", 20, out);
		fclose(out);
		CHECK_STR_CONTAINS(text, ": 1 distinct IPs\n");
		CHECK_STR_CONTAINS(text, "3  75.000%  0x1010             (a.so+0x10)\n");
		CHECK_STR_CONTAINS(text, "1  25.000%  0x1010             (b.so+0x10)\n");
	}
	free(text);
	json_t *doc = pd ? pb_perfdata_report_json(&sum, 20) : NULL;
	json_t *ev = json_array_get(json_object_get(doc, "events"), 0);
	json_t *top = json_object_get(ev, "top_ips");
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "distinct_ips")), 1);
	CHECK_EQ_U64(json_array_size(top), 2);
	for (size_t i = 0; i < json_array_size(top); i++) {
		json_t *row = json_array_get(top, i);
		const char *sym = json_string_value(json_object_get(row, "symbol"));
		CHECK_EQ_U64(json_integer_value(json_object_get(row, "samples")),
			     sym && !strcmp(sym, "(a.so+0x10)") ? 3 : 1);
		CHECK(sym && (!strcmp(sym, "(a.so+0x10)") || !strcmp(sym, "(b.so+0x10)")));
	}
	json_decref(doc);
	pb_pdsum_free(&sum);
	pb_perfdata_close(pd);
	unlink(path);
}

int main(void)
{
	fork_before_parent_mapping();
	remapped_address();
	remapped_address_histogram();
	sibling_paths();
	static const struct pb_xvalue_type types[2] = {
		{.type = "samples", .unit = "count", .primary = true},
		{.type = "period", .unit = "events"}};
	struct pb_xset s = {0};
	CHECK(pb_xset_add_profile(&s, "p", types, 2) == 0);
	long a1 = pb_xset_frame(&s, "/bin/x", 0x10, "a;b", "x.c", 3);
	long a2 = pb_xset_frame(&s, "/bin/x", 0x14, "a;b", "x.c", 4);
	long m = pb_xset_frame(&s, "/bin/x", 0x40, "main", "x.c", 9);
	CHECK(pb_xset_frame(&s, "/bin/x", 0x10, "other", "", 0) == a1); /* first naming stays */
	CHECK(pb_xset_frame(&s, "/bin/y", 0x10, "a;b", "x.c", 3) != a1); /* another object */
	CHECK(a1 >= 0 && a2 > a1 && m > a2 && s.nframes == 4);

	/* leaf first: a at two addresses under main, and an empty value stack */
	uint32_t st1[2] = {(uint32_t)a1, (uint32_t)m}, st2[2] = {(uint32_t)a2, (uint32_t)m};
	uint64_t v[2] = {1, 100}, zero[2] = {0, 0};
	CHECK(pb_xprofile_add(&s, 0, st1, 2, v) == 0);
	CHECK(pb_xprofile_add(&s, 0, st1, 2, v) == 0);
	CHECK(pb_xprofile_add(&s, 0, st2, 2, v) == 1);
	CHECK(pb_xprofile_add(&s, 0, st2, 1, zero) == 2); /* same leaf, shorter: its own stack */
	CHECK_EQ_U64(pb_xstack_values(&s.profiles[0], 0)[0], 2);
	CHECK_EQ_U64(pb_xstack_values(&s.profiles[0], 0)[1], 200);
	/* many stacks: each stays itself whatever the buckets */
	for (uint32_t i = 0; i < 3000; i++) {
		uint32_t f[3] = {i, i % 7, i % 3};
		for (int k = 0; k < 3; k++)
			f[k] %= (uint32_t)s.nframes;
		pb_xprofile_add(&s, 0, f, 3, v);
	}
	uint64_t total = 0;
	for (size_t i = 0; i < s.profiles[0].nstacks; i++)
		total += pb_xstack_values(&s.profiles[0], i)[0];
	CHECK_EQ_U64(total, 3 + 3000);

	size_t len;
	char *folded = write_to_memory(&pb_export_folded, &s, 0, &len);
	CHECK(folded && strstr(folded, "main;a:b 3\n")); /* two addresses of a:b, one line */
	CHECK(folded && !strstr(folded, "a;b"));
	CHECK(folded && !strstr(folded, " 0\n")); /* the empty stack is left out */
	free(folded);

	char *spd = write_to_memory(&pb_export_speedscope, &s, 0, &len);
	json_error_t je;
	json_t *root = spd ? json_loadb(spd, len, 0, &je) : NULL;
	CHECK(root != NULL);
	json_t *frames = json_object_get(json_object_get(root, "shared"), "frames");
	/* a;b of x.c (three addresses, two objects: one name and file) and main */
	CHECK_EQ_U64(json_array_size(frames), 2);
	CHECK(!strcmp(json_string_value(json_object_get(root, "$schema")),
		      "https://www.speedscope.app/file-format-schema.json"));
	json_t *p0 = json_array_get(json_object_get(root, "profiles"), 0);
	CHECK(!strcmp(json_string_value(json_object_get(p0, "type")), "sampled"));
	CHECK_EQ_U64(json_array_size(json_object_get(p0, "samples")),
		     json_array_size(json_object_get(p0, "weights")));
	json_decref(root);
	free(spd);

	char *pp = write_to_memory(&pb_export_pprof, &s, 0, &len);
	CHECK(pp && len > 2 && (uint8_t)pp[0] == 0x1f && (uint8_t)pp[1] == 0x8b);
	uint8_t plain[8] = {0};
	z_stream z = {.next_in = (Bytef *)pp, .avail_in = (uInt)len, .next_out = plain,
		      .avail_out = sizeof plain};
	CHECK(inflateInit2(&z, 31) == Z_OK);
	inflate(&z, Z_SYNC_FLUSH);
	inflateEnd(&z);
	CHECK(plain[0] == (6 << 3 | 2) && plain[1] == 0); /* string_table: "" first */
	free(pp);
	pb_xset_free(&s);

	/* raw chains: markers skipped, markers alone fall back to the IP, chainless adds up */
	struct pb_xraw r;
	CHECK(pb_xraw_init(&r, "raw", types, 2) == 0);
	uint64_t chain[4] = {PERF_CONTEXT_USER, 0x1000, 0x2000, PERF_CONTEXT_KERNEL};
	uint64_t markers[2] = {PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER};
	CHECK(pb_xraw_add(&r, 7, 0x1000, chain, 4, v) == 0);
	CHECK(pb_xraw_add(&r, 7, 0x3000, markers, 2, v) == 0);
	CHECK(pb_xraw_add(&r, 7, 0x3000, NULL, 0, v) == 0);
	CHECK(pb_xraw_add(&r, 7, 0x3000, NULL, 0, v) == 0);
	CHECK(pb_xraw_add(&r, 8, 0x3000, NULL, 0, v) == 0); /* another process */
	const struct pb_xprofile *rp = &r.stacks.profiles[0];
	CHECK_EQ_U64(rp->nstacks, 3);
	CHECK_EQ_U64(rp->stacks[0].depth, 2);
	CHECK(r.ip[pb_xstack_frames(rp, 0)[0]] == 0x1000 && r.ip[pb_xstack_frames(rp, 0)[1]] == 0x2000);
	CHECK_EQ_U64(rp->stacks[1].depth, 1);
	CHECK_EQ_U64(pb_xstack_values(rp, 1)[0], 3);
	CHECK_EQ_U64(pb_xstack_values(rp, 2)[0], 1);
	pb_xraw_free(&r);
	return pb_check_done("export");
}
