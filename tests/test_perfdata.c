/* perf.data reader and writer.
 * 1. Round trip: a file written with the writer (two events told apart by
 *    PERF_SAMPLE_IDENTIFIER, sideband, samples) reads back with the same attrs, names, ids,
 *    features and samples (IP multiset per event).
 * 2. Every strict prefix of a valid file, a pipe-mode header, the other byte order, garbage and
 *    a corrupt record size fail with PB_EXIT_BAD_FILE (read from exact-size heap buffers, so
 *    AddressSanitizer catches any read past them).
 * 3. IBS conformance: a file with ibs_op / ibs_fetch PMU mappings, an AMD CPUID and random raw
 *    IBS payloads; `perf report -D` (perf's own decoder) must print, line for line, what
 *    pb_ibs_print prints for the samples pesbench reads back (skipped without perf).
 * 4. Writer vs perf: samples of a real timer session on this process, written with the writer,
 *    must open in `perf script` and `perf report` with the same count and the same IPs, and
 *    perf must resolve them to this program's symbols (skipped without perf or permission).
 * 5. The walk's fast path for samples of a fixed layout (pb_record_parse_fixed_sample) decodes
 *    exactly what the full parser does, field for field and byte for byte, on random records of
 *    random fixed layouts, refilled in a row; it refuses a record cut short, a longer one, one
 *    cut by the end of the buffer and one of another type, and in a file the record cut short
 *    still stops the walk while the longer one is read by the full parser; the same files walked
 *    with the IP sink (pb_perfdata_for_each_ip) give it the same IPs, pids and times, hand it
 *    nothing of an excluded sample_type, and fail and count alike.
 * 6. A reader walked again sees what its first walk saw: a pipe-mode stream whose walk adds an
 *    event, features, PMU mappings and capabilities and an event name (and holds a sample of an
 *    event before its attr, attributed to the only event then) walked four times on one reader, from memory and from a file,
 *    gives every record the same event and the reader the same state at every record, and the
 *    same counts after; likewise a real `perf record -o -` stream (skipped without perf). */
#include "check.h"
#include "same_record.h"
#include "facilities/facility.h"
#include "facilities/ibs_raw.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "util/kit.h"
#include "util/rng.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/pb_perfdata_XXXXXX";

static struct pb_rng rng = {0x9e3779b97f4a7c15};

static uint64_t rnd(void)
{
	return pb_rng_next(&rng);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* ---- 1. round trip ---- */

#define RT_SAMPLES 500

struct collected {
	uint64_t ips[2][RT_SAMPLES];
	size_t n[2];
	uint64_t comms, mmaps, other;
	char mmap_name[256];
};

static int collect(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		   size_t len, struct pb_error *err)
{
	struct collected *c = ctx;
	(void)bytes;
	(void)len;
	(void)err;
	if (rec->type == PERF_RECORD_SAMPLE && event >= 0 && event < 2 && c->n[event] < RT_SAMPLES)
		c->ips[event][c->n[event]++] = rec->u.sample.ip;
	else if (rec->type == PERF_RECORD_COMM)
		c->comms++;
	else if (rec->type == PERF_RECORD_MMAP2) {
		if (!c->mmaps++ && rec->u.mmap.filename)
			snprintf(c->mmap_name, sizeof c->mmap_name, "%s", rec->u.mmap.filename);
	} else
		c->other++;
	return 0;
}

static void sw_attr(struct perf_event_attr *a, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
	a->sample_period = 1000;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
	a->sample_id_all = 1;
	a->exclude_kernel = 1;
}

static void test_round_trip(const char *path, uint64_t expect_ips[2][RT_SAMPLES])
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a0, a1;
	const uint64_t ids0[] = {101, 102}, ids1[] = {201};
	sw_attr(&a0, PERF_COUNT_SW_CPU_CLOCK);
	sw_attr(&a1, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a0, "cpu-clock", ids0, 2, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a1, "page-faults", ids1, 1, &err) == 1);
	pb_perfdata_writer_set_cpuid(w, "AuthenticAMD,25,1,1");
	CHECK(pb_perfdata_writer_add_pmu(w, 11, "ibs_op") == 0);
	/* a name the pmu mappings could only hold cut short is refused */
	CHECK(pb_perfdata_writer_add_pmu(w, 12, "a_pmu_name_much_longer_than_any_the_kernel_gives_"
						 "and_longer_than_the_writer_keeps") == -1);
	CHECK(pb_perfdata_writer_comm(w, 42, 42, "roundtrip", &err) == 0);
	CHECK(pb_perfdata_writer_mmap2(w, 42, 42, 0x400000, 0x1000, 0, 5, 2, "/bin/roundtrip",
				       &err) == 0);
	CHECK(access(path, F_OK) != 0); /* nothing under the name before close */
	size_t k[2] = {0, 0};
	for (unsigned i = 0; i < RT_SAMPLES; i++) {
		unsigned ev = i % 3 == 0;
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 42, .tid = 42,
				      .time = 1000 + i, .ip = 0x400000 + (rnd() % 64) * 4,
				      .addr = i, .identifier = ev ? 201 : (i & 1 ? 101 : 102)};
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, ev, &s, &err), 0);
		expect_ips[ev][k[ev]++] = s.ip;
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);

	struct pb_perfdata *pd;
	CHECK(pb_perfdata_open(path, &pd, &err) == 0);
	if (err.code) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	CHECK_EQ_U64(pb_perfdata_nevents(pd), 2);
	CHECK(!strcmp(pb_perfdata_event(pd, 0)->name, "cpu-clock"));
	CHECK(!strcmp(pb_perfdata_event(pd, 1)->name, "page-faults"));
	CHECK_EQ_U64(pb_perfdata_event(pd, 0)->nids, 2);
	CHECK_EQ_U64(pb_perfdata_event(pd, 1)->ids[0], 201);
	CHECK_EQ_U64(pb_perfdata_event(pd, 1)->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	CHECK(!strcmp(pb_perfdata_cpuid(pd), "AuthenticAMD,25,1,1"));
	CHECK(pb_perfdata_pmu_name(pd, 11) && !strcmp(pb_perfdata_pmu_name(pd, 11), "ibs_op"));
	uint32_t avail = 0, online = 0;
	CHECK(pb_perfdata_nr_cpus(pd, &avail, &online) && online >= 1 && avail >= online);
	CHECK(pb_perfdata_has_feature(pd, PB_FEAT_EVENT_DESC));
	static struct collected c;
	struct pb_perfdata_stats st;
	CHECK(pb_perfdata_for_each(pd, collect, &c, &st, &err) == 0);
	CHECK_EQ_U64(st.samples, RT_SAMPLES);
	CHECK_EQ_U64(st.unattributed, 0);
	CHECK_EQ_U64(c.comms, 1);
	CHECK_EQ_U64(c.mmaps, 1);
	CHECK(!strcmp(c.mmap_name, "/bin/roundtrip"));
	for (int ev = 0; ev < 2; ev++) {
		size_t want = ev ? (RT_SAMPLES + 2) / 3 : RT_SAMPLES - (RT_SAMPLES + 2) / 3;
		CHECK_EQ_U64(c.n[ev], want);
		CHECK_EQ_U64(pb_perfdata_event(pd, (size_t)ev)->samples, want);
		qsort(c.ips[ev], c.n[ev], 8, cmp_u64);
		qsort(expect_ips[ev], want, 8, cmp_u64);
		CHECK(!memcmp(c.ips[ev], expect_ips[ev], want * 8));
	}
	/* A second walk counts the same (counters are reset, not accumulated). */
	CHECK(pb_perfdata_for_each(pd, NULL, NULL, &st, &err) == 0);
	CHECK_EQ_U64(pb_perfdata_event(pd, 0)->samples, c.n[0]);
	pb_perfdata_close(pd);
}

/* ---- 2b. the id found without PERF_SAMPLE_IDENTIFIER ---- */

struct id_walk {
	uint64_t samples[2], comms[2];
};

static int count_by_event(void *ctx, int event, const struct pb_record *rec,
			  const uint8_t *bytes, size_t len, struct pb_error *err)
{
	struct id_walk *wk = ctx;
	(void)bytes, (void)len, (void)err;
	if (rec->type == PERF_RECORD_SAMPLE && event >= 0 && event < 2)
		wk->samples[event]++;
	else if (rec->type == PERF_RECORD_COMM && event >= 0 && event < 2)
		wk->comms[event]++;
	return 0;
}

/* With PERF_SAMPLE_ID alone the id sits after IP, TID, TIME and ADDR in a sample, and before
 * STREAM_ID and CPU at the end of a sideband record's trailer (perf's id_pos / is_pos). The
 * fields around it hold other values, so a position off by one finds no event. */
static void test_id_without_identifier(const char *path)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a0, a1;
	const uint64_t ids0[] = {301}, ids1[] = {401};
	sw_attr(&a0, PERF_COUNT_SW_CPU_CLOCK);
	sw_attr(&a1, PERF_COUNT_SW_PAGE_FAULTS);
	a0.sample_type = a1.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
					  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU;
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a0, "cpu-clock", ids0, 1, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a1, "page-faults", ids1, 1, &err) == 1);
	CHECK(pb_perfdata_writer_comm(w, 42, 42, "ids", &err) == 0);
	/* A COMM of event 1 whose trailer's stream id and cpu differ from its id. */
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[8];
		uint32_t id_pid, id_tid;
		uint64_t time, id, stream_id;
		uint32_t cpu, res;
	} comm = {{PERF_RECORD_COMM, 0, sizeof comm}, 43, 43, "ids1", 43, 43, 5, 401, 999, 7, 0};
	CHECK(pb_perfdata_writer_record(w, &comm, sizeof comm, &err) == 0);
	for (unsigned i = 0; i < 30; i++) {
		unsigned ev = i % 3 == 0;
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 42, .tid = 42,
				      .time = 1000 + i, .ip = 0x400000 + i * 4, .addr = 0x7000 + i,
				      .id = ev ? 401 : 301, .stream_id = 999, .cpu = 7};
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, ev, &s, &err), 0);
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);

	struct pb_perfdata *pd;
	CHECK(pb_perfdata_open(path, &pd, &err) == 0);
	if (err.code) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	struct id_walk wk = {{0}, {0}};
	struct pb_perfdata_stats st;
	CHECK(pb_perfdata_for_each(pd, count_by_event, &wk, &st, &err) == 0);
	CHECK_EQ_U64(st.unattributed, 0);
	CHECK_EQ_U64(wk.samples[0], 20);
	CHECK_EQ_U64(wk.samples[1], 10);
	CHECK_EQ_U64(wk.comms[0], 1);
	CHECK_EQ_U64(wk.comms[1], 1);
	pb_perfdata_close(pd);
}

/* ---- 3. records that straddle reads ---- */

#define ST_SAMPLES 400

/* What a walk saw, folded so two walks can be compared: every record's event and bytes, and
 * the decoded IP and RAW payload of every sample. */
struct digest {
	uint64_t hash, records, samples, raw_bytes;
};

static void fold(struct digest *d, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		d->hash = (d->hash ^ b[i]) * UINT64_C(0x100000001b3);
}

static int digest_record(void *ctx, int event, const struct pb_record *rec,
			 const uint8_t *bytes, size_t len, struct pb_error *err)
{
	struct digest *d = ctx;
	(void)err;
	d->records++;
	fold(d, &event, sizeof event);
	fold(d, &len, sizeof len);
	fold(d, bytes, len);
	if (rec->type == PERF_RECORD_SAMPLE) {
		d->samples++;
		fold(d, &rec->u.sample.ip, 8);
		if (rec->u.sample.raw) {
			fold(d, rec->u.sample.raw, rec->u.sample.raw_size);
			d->raw_bytes += rec->u.sample.raw_size;
		}
	}
	return 0;
}

/* The file reader reads the data section in chunks and decodes records where they landed;
 * a record cut by a chunk's end is moved and completed. Walks with chunks far smaller than
 * the records (down to 1 byte), around their size and larger must see exactly what a walk
 * over the whole file in memory sees: the same bytes of every record and the same decoding. */
static void test_straddle(const char *path)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a;
	sw_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_type |= PERF_SAMPLE_RAW;
	const uint64_t ids[] = {7};
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a, "cpu-clock", ids, 1, &err) == 0);
	CHECK(pb_perfdata_writer_comm(w, 42, 42, "straddle", &err) == 0);
	static uint8_t raw[65000];
	for (size_t i = 0; i < sizeof raw; i++)
		raw[i] = (uint8_t)(i * 131 + 7);
	uint64_t raw_total = 0;
	for (unsigned i = 0; i < ST_SAMPLES; i++) {
		/* sizes of all residues mod 8, mostly short, and two near the 64 KiB record limit */
		uint32_t n = i == 100 || i == 301 ? 65000 - i : (uint32_t)(rnd() % (i % 7 ? 40 : 3000));
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 42, .tid = 42,
				      .time = i, .ip = 0x400000 + i * 4, .raw = raw + i,
				      .raw_size = n};
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, 0, &s, &err), 0);
		raw_total += n;
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);

	size_t len = 0;
	uint8_t *bytes = slurp(path, &len);
	CHECK(bytes != NULL);
	if (!bytes)
		return;
	struct pb_perfdata *pd;
	struct digest want = {0};
	CHECK(pb_perfdata_open_memory(bytes, len, &pd, &err) == 0);
	CHECK(pb_perfdata_for_each(pd, digest_record, &want, NULL, &err) == 0);
	pb_perfdata_close(pd);
	CHECK_EQ_U64(want.samples, ST_SAMPLES);
	CHECK(want.raw_bytes >= raw_total); /* the writer pads each payload to 8 bytes */

	static const size_t chunks[] = {1, 7, 8, 24, 100, 4096, 4099, 65536, 70000, 0};
	for (size_t k = 0; k < PB_ARRAY_SIZE(chunks); k++) {
		struct digest got = {0};
		CHECK(pb_perfdata_open(path, &pd, &err) == 0);
		if (err.code) {
			fprintf(stderr, "%s\n", err.msg);
			break;
		}
		pb_perfdata_set_read_chunk(pd, chunks[k]);
		CHECK(pb_perfdata_for_each(pd, digest_record, &got, NULL, &err) == 0);
		/* again on the same reader: the window starts over */
		struct digest again = {0};
		CHECK(pb_perfdata_for_each(pd, digest_record, &again, NULL, &err) == 0);
		pb_perfdata_close(pd);
		if (got.hash != want.hash || again.hash != want.hash)
			fprintf(stderr, "chunk %zu: walk differs from the in-memory walk\n", chunks[k]);
		CHECK_EQ_U64(got.records, want.records);
		CHECK_EQ_U64(got.samples, want.samples);
		CHECK_EQ_U64(got.raw_bytes, want.raw_bytes);
		CHECK_EQ_U64(got.hash, want.hash);
		CHECK_EQ_U64(again.hash, want.hash);
	}
	free(bytes);
}

/* ---- 2. corrupt input ---- */

static int open_and_walk(const uint8_t *bytes, size_t len, struct pb_error *err)
{
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, bytes, len);
	struct pb_perfdata *pd;
	int rc = pb_perfdata_open_memory(copy, len, &pd, err);
	if (!rc) {
		rc = pb_perfdata_for_each(pd, NULL, NULL, NULL, err);
		pb_perfdata_close(pd);
	}
	free(copy);
	return rc;
}

static void test_corrupt(const char *path)
{
	size_t len;
	uint8_t *file = slurp(path, &len);
	CHECK(file != NULL && len > 200);
	if (!file)
		return;
	struct pb_error err = {0};
	CHECK(open_and_walk(file, len, &err) == 0);
	unsigned refused = 0, tried = 0;
	for (size_t cut = 0; cut < len; cut += (cut < 400 ? 1 : 7)) {
		pb_error_clear(&err);
		tried++;
		if (open_and_walk(file, cut, &err) != 0 && err.code == PB_EXIT_BAD_FILE)
			refused++;
		else
			fprintf(stderr, "prefix of %zu bytes not refused (%s)\n", cut, err.msg);
	}
	CHECK_EQ_U64(refused, tried);

	uint8_t pipe[16];
	memcpy(pipe, "PERFILE2", 8);
	uint64_t sixteen = 16;
	memcpy(pipe + 8, &sixteen, 8);
	pb_error_clear(&err);
	CHECK(open_and_walk(pipe, sizeof pipe, &err) != 0 && err.code == PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "pipe");

	uint8_t *swapped = malloc(len);
	memcpy(swapped, file, len);
	for (int i = 0; i < 8; i++)
		swapped[i] = file[7 - i];
	pb_error_clear(&err);
	CHECK(open_and_walk(swapped, len, &err) != 0 && err.code == PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "byte order");

	memset(swapped, 'x', len);
	pb_error_clear(&err);
	CHECK(open_and_walk(swapped, len, &err) != 0 && err.code == PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "not a perf.data");

	/* The first record's size made odd: the walk must stop with the record's offset. */
	uint64_t data_off;
	memcpy(&data_off, file + 40, 8);
	memcpy(swapped, file, len);
	swapped[data_off + 6] |= 1;
	pb_error_clear(&err);
	CHECK(open_and_walk(swapped, len, &err) != 0 && err.code == PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "offset");
	/* An attr section pointing past the end. */
	memcpy(swapped, file, len);
	uint64_t huge = (uint64_t)len * 4;
	memcpy(swapped + 24, &huge, 8);
	pb_error_clear(&err);
	CHECK(open_and_walk(swapped, len, &err) != 0 && err.code == PB_EXIT_BAD_FILE);
	free(swapped);
	free(file);
}

/* ---- 3. IBS conformance with perf report -D ---- */

#define IBS_OP_TYPE 11
#define IBS_FETCH_TYPE 12
#define IBS_SAMPLES 64

static bool ibs_line(const char *l)
{
	static const char *const prefixes[] = {
		"ibs_fetch_ctl:", "IbsFetchLinAd:", "IbsFetchPhysAd:", "ic_ibs_ext_ctl:",
		"ibs_op_ctl:", "IbsOpRip:", "ibs_op_data:", "ibs_op_data2:", "ibs_op_data3:",
		"IbsDCLinAd:", "IbsDCPhysAd:", "IbsBrTarget:"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(prefixes); i++)
		if (!strncmp(l, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Appends the IBS lines of text (trailing blanks dropped) to a NUL-separated list. */
static size_t ibs_lines(const char *text, char ***out)
{
	size_t n = 0, cap = 64;
	char **lines = malloc(cap * sizeof(*lines));
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (ibs_line(p)) {
			while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
				len--;
			if (n == cap)
				lines = realloc(lines, (cap *= 2) * sizeof(*lines));
			lines[n++] = strndup(p, len);
		}
		p += len;
		while (*p && *p != '\n')
			p++;
		if (*p)
			p++;
	}
	*out = lines;
	return n;
}

static char *run_capture(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t k;
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n < 4096)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	int st = pclose(f);
	if (st != 0) {
		fprintf(stderr, "`%s` exited with status %d\n", cmd, st);
	}
	return buf;
}

struct ibs_walk {
	struct pb_perfdata *pd;
	FILE *out;
	unsigned decoded, failed;
};

static int print_ibs(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct ibs_walk *iw = ctx;
	(void)bytes;
	(void)len;
	(void)err;
	enum pb_ibs_kind kind;
	struct pb_ibs_cpu cpu;
	if (rec->type != PERF_RECORD_SAMPLE || event < 0 ||
	    !pb_perfdata_ibs_event(iw->pd, (size_t)event, &kind, &cpu))
		return 0;
	struct pb_ibs_sample s;
	struct pb_error e = {0};
	if (pb_ibs_decode(rec->u.sample.raw, rec->u.sample.raw_size, kind, &cpu, &s, &e)) {
		iw->failed++;
		fprintf(stderr, "IBS decode failed: %s\n", e.msg);
		return 0;
	}
	iw->decoded++;
	pb_ibs_print(iw->out, &s);
	return 0;
}

static void write_ibs_file(const char *path, const char *cpuid)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr op = {0}, fetch = {0};
	op.type = IBS_OP_TYPE;
	op.sample_period = 0x10000;
	op.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	op.sample_id_all = 1;
	op.exclude_kernel = 1; /* no kernel maps in the file: perf would warn about kptr_restrict */
	fetch = op;
	fetch.type = IBS_FETCH_TYPE;
	const uint64_t op_id = 7001, fetch_id = 7002;
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &op, "ibs_op//", &op_id, 1, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &fetch, "ibs_fetch//", &fetch_id, 1, &err) == 1);
	pb_perfdata_writer_set_cpuid(w, cpuid);
	pb_perfdata_writer_set_cpudesc(w, "AMD constructed for pesbench tests");
	pb_perfdata_writer_add_pmu(w, IBS_OP_TYPE, "ibs_op");
	pb_perfdata_writer_add_pmu(w, IBS_FETCH_TYPE, "ibs_fetch");
	CHECK(pb_perfdata_writer_comm(w, 99, 99, "ibsgen", &err) == 0);
	const uint32_t op_caps = PB_IBS_CAPS_AVAIL | PB_IBS_CAPS_FETCHSAM | PB_IBS_CAPS_OPSAM |
				 PB_IBS_CAPS_RDWROPCNT | PB_IBS_CAPS_OPCNT | PB_IBS_CAPS_BRNTRGT |
				 PB_IBS_CAPS_OPCNTEXT | PB_IBS_CAPS_RIPINVALIDCHK |
				 PB_IBS_CAPS_OPBRNFUSE | PB_IBS_CAPS_FETCHCTLEXTD;
	for (unsigned i = 0; i < IBS_SAMPLES; i++) {
		bool is_op = i % 2 == 0;
		uint8_t raw[4 + 8 * PB_IBS_MAX_REGS];
		unsigned nregs = pb_ibs_expected_regs(is_op ? PB_IBS_OP : PB_IBS_FETCH, op_caps);
		uint64_t regs[PB_IBS_MAX_REGS];
		for (unsigned r = 0; r < nregs; r++)
			regs[r] = rnd();
		/* Valid samples (En and Val set) are the ones perf decodes; a few invalid ones
		 * check that both print nothing for them. */
		bool valid = i % 16 != 5;
		if (is_op)
			regs[0] = valid ? regs[0] | (1ull << 17) | (1ull << 18) : regs[0] & ~(1ull << 18);
		else
			regs[0] = valid ? regs[0] | (1ull << 48) | (1ull << 49) : regs[0] & ~(1ull << 49);
		memcpy(raw, &op_caps, 4);
		memcpy(raw + 4, regs, nregs * 8);
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 99, .tid = 99,
				      .time = 5000 + i, .cpu = i % 2, .ip = regs[1],
				      .identifier = is_op ? op_id : fetch_id,
				      .raw = raw, .raw_size = 4 + nregs * 8};
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, is_op ? 0 : 1, &s, &err), 0);
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
}

static void test_ibs_conformance(const char *path, const char *cpuid, bool have_perf)
{
	write_ibs_file(path, cpuid);
	struct pb_error err = {0};
	struct ibs_walk iw = {0};
	char *ours = NULL;
	size_t ours_len = 0;
	CHECK(pb_perfdata_open(path, &iw.pd, &err) == 0);
	if (!iw.pd)
		return;
	enum pb_ibs_kind kind;
	struct pb_ibs_cpu cpu;
	CHECK(pb_perfdata_ibs_event(iw.pd, 0, &kind, &cpu) && kind == PB_IBS_OP);
	CHECK(pb_perfdata_ibs_event(iw.pd, 1, &kind, &cpu) && kind == PB_IBS_FETCH);
	unsigned fam = 0, model = 0;
	sscanf(cpuid, "%*[^,],%u,%u", &fam, &model);
	CHECK_EQ_U64(cpu.family, fam);
	CHECK_EQ_U64(cpu.model, model);
	iw.out = open_memstream(&ours, &ours_len);
	CHECK(pb_perfdata_for_each(iw.pd, print_ibs, &iw, NULL, &err) == 0);
	fclose(iw.out);
	CHECK_EQ_U64(iw.decoded, IBS_SAMPLES);
	CHECK_EQ_U64(iw.failed, 0);
	pb_perfdata_close(iw.pd);
	if (!have_perf) {
		free(ours);
		return;
	}
	char cmd[512];
	snprintf(cmd, sizeof cmd, "perf report -D -i %s 2>/dev/null", path);
	char *theirs = run_capture(cmd);
	char **a, **b;
	size_t na = ibs_lines(ours, &a), nb = ibs_lines(theirs, &b);
	/* 64 samples, 4 of them invalid: every valid one prints at least 3 lines. */
	CHECK(na >= 60 * 3);
	fprintf(stderr, "[%s] %zu IBS lines from pesbench, %zu from perf report -D\n", cpuid, na, nb);
	CHECK_EQ_U64(na, nb);
	size_t mismatches = 0;
	for (size_t i = 0; i < na && i < nb; i++)
		if (strcmp(a[i], b[i]) && mismatches++ < 10)
			fprintf(stderr, "[%s] IBS line %zu differs:\n  pesbench: %s\n  perf:     %s\n",
				cpuid, i, a[i], b[i]);
	CHECK_EQ_U64(mismatches, 0);
	if (na == 0 || nb == 0)
		fprintf(stderr, "perf report -D output begins:\n%.2000s\n", theirs);
	/* The CLI's --dump goes through the same decoder; its lines must be perf's too. */
	const char *bin = getenv("PB_BIN");
	if (bin) {
		snprintf(cmd, sizeof cmd, "'%s' perfdata '%s' --dump", bin, path);
		char *cli = run_capture(cmd);
		char **c;
		size_t nc = ibs_lines(cli, &c);
		CHECK_EQ_U64(nc, nb);
		size_t cli_mismatches = 0;
		for (size_t i = 0; i < nc && i < nb; i++)
			cli_mismatches += strcmp(c[i], b[i]) != 0;
		CHECK_EQ_U64(cli_mismatches, 0);
		for (size_t i = 0; i < nc; i++)
			free(c[i]);
		free(c);
		free(cli);
	}
	for (size_t i = 0; i < na; i++)
		free(a[i]);
	for (size_t i = 0; i < nb; i++)
		free(b[i]);
	free(a);
	free(b);
	free(theirs);
	free(ours);
}

/* ---- 4. a real session written for perf ---- */

#define SESSION_MAX 200000

struct session_samples {
	struct pb_sample s[SESSION_MAX];
	size_t n;
	uint64_t dropped;
};

static struct session_samples samples;

static volatile uint64_t spin_sink;

static __attribute__((noinline)) void spin_for_perfdata_test(void)
{
	for (uint64_t i = 0; i < 60000000ull; i++)
		spin_sink += i * 3;
}

static void run_spin(void *ctx, unsigned thread)
{
	(void)ctx;
	(void)thread;
	spin_for_perfdata_test();
}

static void keep_sample(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	(void)ctx;
	(void)thread;
	(void)event;
	if (rec->type != PERF_RECORD_SAMPLE)
		return;
	if (samples.n < SESSION_MAX) {
		samples.s[samples.n] = rec->u.sample;
		samples.s[samples.n].raw = NULL; /* pointers die with the ring */
		samples.s[samples.n].callchain = NULL;
		samples.n++;
	} else {
		samples.dropped++;
	}
}

static void test_writer_with_perf(const char *path)
{
	struct pb_session_config cfg = {.threads = 1, .delivery = PB_DELIVERY_NONE,
					.run = run_spin, .on_record = keep_sample,
					.expected_samples = 20000};
	struct pb_error err = {0};
	cfg.nevents = 1;
	if (pb_spec_parse("timer:cpu-clock", &cfg.events[0].spec, &err)) {
		fprintf(stderr, "skipping the perf round trip: %s\n", err.msg);
		return;
	}
	cfg.events[0].period = 100000; /* 100 us of CPU time */
	cfg.events[0].exclude_kernel = true;
	static struct pb_session_result res;
	if (pb_session_run(&cfg, &res, &err)) {
		fprintf(stderr, "skipping the perf round trip: %s\n", err.msg);
		return;
	}
	CHECK(samples.n > 50);
	CHECK_EQ_U64(samples.dropped, 0);
	CHECK_EQ_U64(samples.n, res.thread[0].events[0].samples);

	/* The file keeps the fields perf needs; the session's attr says what was sampled. */
	struct perf_event_attr attr = res.thread[0].events[0].attr;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	attr.read_format = 0;
	attr.sample_id_all = 1;
	attr.disabled = 0;
	struct pb_perfdata_writer *w;
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &attr, "cpu-clock", NULL, 0, &err) == 0);
	CHECK(pb_perfdata_writer_proc_maps(w, (uint32_t)getpid(), &err) == 0);
	/* The session's workload thread has its own tid; perf names samples by it. */
	CHECK(pb_perfdata_writer_comm(w, samples.s[0].pid, samples.s[0].tid, "perfdata-test",
				      &err) == 0);
	for (size_t i = 0; i < samples.n; i++) {
		samples.s[i].misc = PERF_RECORD_MISC_USER;
		CHECK(pb_perfdata_writer_sample(w, 0, &samples.s[i], &err) == 0);
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "perf script -i %s -F ip,sym 2>/dev/null", path);
	char *out = run_capture(cmd);
	size_t lines = 0, on_spin = 0;
	uint64_t *ips = malloc(samples.n * 8 + 8), *want = malloc(samples.n * 8 + 8);
	for (char *p = out; *p;) {
		char *e = strchr(p, '\n');
		if (e)
			*e = '\0';
		unsigned long long ip;
		if (sscanf(p, " %llx", &ip) == 1) {
			if (lines < samples.n)
				ips[lines] = ip;
			lines++;
			on_spin += strstr(p, "spin_for_perfdata_test") != NULL;
		}
		p = e ? e + 1 : p + strlen(p);
	}
	CHECK_EQ_U64(lines, samples.n);
	for (size_t i = 0; i < samples.n; i++)
		want[i] = samples.s[i].ip;
	if (lines == samples.n) {
		qsort(ips, lines, 8, cmp_u64);
		qsort(want, lines, 8, cmp_u64);
		CHECK(!memcmp(ips, want, lines * 8));
	}
	/* The loop is where the time goes: perf must name it from the MMAP2 records. */
	CHECK(on_spin * 2 > samples.n);
	free(out);
	/* perf report rounds "# Samples:" to K/M; --stats counts exactly. */
	snprintf(cmd, sizeof cmd, "perf report --stats -i %s 2>&1", path);
	out = run_capture(cmd);
	char *at = strstr(out, "SAMPLE events:");
	unsigned long long reported = 0;
	CHECK(at && sscanf(at, "SAMPLE events: %llu", &reported) == 1);
	CHECK_EQ_U64(reported, samples.n);
	free(out);
	snprintf(cmd, sizeof cmd, "perf report --stdio -i %s --sort comm,sym 2>&1", path);
	out = run_capture(cmd);
	CHECK_STR_CONTAINS(out, "spin_for_perfdata_test");
	CHECK_STR_CONTAINS(out, "perfdata-test");
	if (!strstr(out, "spin_for_perfdata_test"))
		fprintf(stderr, "%.3000s\n", out);
	free(out);
	free(ips);
	free(want);
}

/* ---- 5. the fast path for samples of a fixed layout ---- */

static const uint64_t fixed_fields[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
	PERF_SAMPLE_PERIOD, PERF_SAMPLE_WEIGHT, PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_DATA_SRC,
	PERF_SAMPLE_TRANSACTION, PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_CGROUP,
	PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE};
static const uint64_t variable_fields[] = {
	PERF_SAMPLE_READ, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW, PERF_SAMPLE_BRANCH_STACK,
	PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER, PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_AUX};

static void random_sample(uint8_t *buf, size_t size, uint32_t type)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t)rnd();
	struct perf_event_header h = {.type = type, .misc = (uint16_t)rnd(), .size = (uint16_t)size};
	memcpy(buf, &h, sizeof h);
}

static void test_fixed_layout_parse(void)
{
	static uint8_t buf[2][512];
	struct pb_record full, fast, before;
	unsigned decoded = 0, fields_seen = 0;
	for (unsigned round = 0; round < 4000; round++) {
		uint64_t st = 0;
		for (size_t i = 0; i < PB_ARRAY_SIZE(fixed_fields); i++)
			if (rnd() % 3 == 0)
				st |= fixed_fields[i];
		struct pb_record_format fmt = {.sample_type = st};
		struct pb_sample_layout layout;
		pb_sample_layout_init(&layout, st);
		/* a variable field, or a bit no parser knows, leaves no fixed layout */
		if (round % 8 == 7) {
			uint64_t more = round % 16 == 7
						? variable_fields[rnd() % PB_ARRAY_SIZE(variable_fields)]
						: UINT64_C(1) << (40 + rnd() % 24);
			struct pb_sample_layout varying;
			pb_sample_layout_init(&varying, st | more);
			CHECK_EQ_U64(varying.size, 0);
			random_sample(buf[0], 256, PERF_RECORD_SAMPLE);
			for (uint32_t size = 8; size <= 256; size += 8) {
				memcpy(buf[0] + 6, &(uint16_t){(uint16_t)size}, 2);
				CHECK(!pb_record_parse_fixed_sample(&varying, buf[0], 256, &fast, false));
			}
			continue;
		}
		CHECK(layout.size >= 8 && layout.size % 8 == 0);
		size_t size = layout.size;
		/* the layout's size is what the full parser needs: 8 bytes less are too few */
		random_sample(buf[0], size, PERF_RECORD_SAMPLE);
		if (size > 8) {
			memcpy(buf[0] + 6, &(uint16_t){(uint16_t)(size - 8)}, 2);
			CHECK_EQ_U64(pb_record_parse(&fmt, buf[0], size - 8, &full), PB_PARSE_TRUNCATED);
			memset(&fast, 0x5a, sizeof fast);
			before = fast;
			CHECK(!pb_record_parse_fixed_sample(&layout, buf[0], size, &fast, false));
			CHECK(!memcmp(&fast, &before, sizeof fast));
			memcpy(buf[0] + 6, &(uint16_t){(uint16_t)size}, 2);
		}
		/* two records in a row: the second one refills what the first left */
		memset(&full, 0xa5, sizeof full);
		memset(&fast, 0xa5, sizeof fast);
		random_sample(buf[1], size, PERF_RECORD_SAMPLE);
		for (int k = 0; k < 2; k++) {
			CHECK_EQ_U64(pb_record_parse(&fmt, buf[k], size, &full), PB_PARSE_OK);
			/* where the IP sink reads the IP, pid and time */
			uint64_t ip = 0, time = 0;
			uint32_t pid = 0;
			CHECK_EQ_U64(layout.ip_at != 0, (st & PERF_SAMPLE_IP) != 0);
			CHECK_EQ_U64(layout.tid_at != 0, (st & PERF_SAMPLE_TID) != 0);
			CHECK_EQ_U64(layout.time_at != 0, (st & PERF_SAMPLE_TIME) != 0);
			if (layout.ip_at)
				memcpy(&ip, buf[k] + layout.ip_at, 8);
			if (layout.tid_at)
				memcpy(&pid, buf[k] + layout.tid_at, 4);
			if (layout.time_at)
				memcpy(&time, buf[k] + layout.time_at, 8);
			CHECK_EQ_U64(ip, full.u.sample.ip);
			CHECK_EQ_U64(pid, full.u.sample.pid);
			CHECK_EQ_U64(time, full.u.sample.time);
			bool ok = pb_record_parse_fixed_sample(&layout, buf[k], size, &fast, k == 1);
			CHECK(ok);
			if (!ok || !pb_same_record(&full, &fast)) {
				fprintf(stderr, "sample_type %#" PRIx64 " record %d: the fast path "
					"differs from the full parser\n", st, k);
				CHECK(false);
				break;
			}
			decoded++;
		}
		/* fields both read, so a misread offset shows */
		if (st & (PERF_SAMPLE_IP | PERF_SAMPLE_TIME))
			fields_seen += full.u.sample.ip != 0 || full.u.sample.time != 0;
		/* a longer record: the full parser reads it (and ignores the rest); not the fast path */
		random_sample(buf[0], size + 8, PERF_RECORD_SAMPLE);
		CHECK_EQ_U64(pb_record_parse(&fmt, buf[0], size + 8, &full), PB_PARSE_OK);
		before = fast;
		CHECK(!pb_record_parse_fixed_sample(&layout, buf[0], size + 8, &fast, true));
		/* cut by the end of the buffer, and of another type */
		random_sample(buf[0], size, PERF_RECORD_SAMPLE);
		CHECK(!pb_record_parse_fixed_sample(&layout, buf[0], size - 1, &fast, true));
		CHECK(!pb_record_parse_fixed_sample(&layout, buf[0], 7, &fast, true));
		random_sample(buf[0], size, PERF_RECORD_MMAP);
		CHECK(!pb_record_parse_fixed_sample(&layout, buf[0], size, &fast, true));
		CHECK(!memcmp(&fast, &before, sizeof fast));
	}
	CHECK(decoded > 5000);
	CHECK(fields_seen > 1000);
}

/* Every record a walk hands out, against the full parser of its bytes. */
struct fixed_walk {
	uint64_t samples, compared, differ, sunk;
	uint64_t ip_sum, pid_sum, time_sum;
};

/* The IP sink (pb_perfdata_for_each_ip): counted like the samples compare_with_full sees. */
static int sink_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
		   struct pb_error *err)
{
	struct fixed_walk *w = ctx;
	(void)err;
	CHECK_EQ_U64(event, 0);
	w->samples++;
	w->sunk++;
	w->ip_sum += ip;
	w->pid_sum += pid;
	w->time_sum += time;
	return 0;
}

static int compare_with_full(void *ctx, int event, const struct pb_record *rec,
			     const uint8_t *bytes, size_t len, struct pb_error *err)
{
	struct fixed_walk *w = ctx;
	(void)err;
	if (rec->type != PERF_RECORD_SAMPLE || event < 0)
		return 0;
	struct perf_event_attr a;
	sw_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct pb_record_format fmt;
	pb_record_format_from_attr(&fmt, &a);
	struct pb_record full;
	w->samples++;
	w->ip_sum += rec->u.sample.ip;
	w->pid_sum += rec->u.sample.pid;
	w->time_sum += rec->u.sample.time;
	if (pb_record_parse(&fmt, bytes, len, &full) == PB_PARSE_OK) {
		w->compared++;
		w->differ += !pb_same_record(&full, rec);
	}
	return 0;
}

#define FX_SAMPLES 300

/* A file of IP|TID|TIME samples and, after sample `at`, one raw SAMPLE record of `odd_size`
 * bytes (0: none); returns the walk's result. */
static int walk_fixed_file(const char *path, size_t at, uint16_t odd_size,
			   const struct pb_perfdata_ip_sink *sink, size_t chunk,
			   struct fixed_walk *w, struct pb_error *err)
{
	struct pb_perfdata_writer *wr;
	struct perf_event_attr a;
	sw_attr(&a, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	const uint64_t ids[] = {3};
	CHECK(pb_perfdata_writer_open(path, &wr, err) == 0);
	CHECK(pb_perfdata_writer_add_event(wr, &a, "cpu-clock", ids, 1, err) == 0);
	for (size_t i = 0; i < FX_SAMPLES; i++) {
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 7, .tid = (uint32_t)i,
				      .time = i, .ip = 0x400000 + i};
		CHECK(pb_perfdata_writer_sample(wr, 0, &s, err) == 0);
		if (i == at && odd_size) {
			uint8_t rec[64];
			random_sample(rec, odd_size, PERF_RECORD_SAMPLE);
			uint64_t ip = 0x900000, time = 0x77;
			uint32_t pid = 5;
			memcpy(rec + 8, &ip, 8);
			memcpy(rec + 16, &pid, 4);
			memcpy(rec + 24, &time, 8);
			CHECK(pb_perfdata_writer_record(wr, rec, odd_size, err) == 0);
		}
	}
	CHECK(pb_perfdata_writer_close(wr, err) == 0);
	struct pb_perfdata *pd;
	if (pb_perfdata_open(path, &pd, err))
		return -1;
	pb_perfdata_set_read_chunk(pd, chunk);
	int rc = pb_perfdata_for_each_ip(pd, compare_with_full, sink, w, NULL, err);
	pb_perfdata_close(pd);
	return rc;
}

static void test_fixed_layout_walk(const char *path)
{
	const uint64_t ip_sum = FX_SAMPLES * UINT64_C(0x400000) + FX_SAMPLES * (FX_SAMPLES - 1) / 2;
	const uint64_t time_sum = FX_SAMPLES * (FX_SAMPLES - 1) / 2;
	const struct pb_perfdata_ip_sink to_sink = {.fn = sink_ip};
	/* a sample_type bit of the event: its samples go to the record callback after all */
	const struct pb_perfdata_ip_sink excluded = {.fn = sink_ip, .exclude = PERF_SAMPLE_TIME};
	const struct pb_perfdata_ip_sink *sinks[] = {NULL, &to_sink, &excluded};
	/* reads of the default size, and small ones that end the buffer inside records */
	static const size_t chunks[] = {0, 8, 44, 1000};
	for (size_t run = 0; run < PB_ARRAY_SIZE(sinks) * PB_ARRAY_SIZE(chunks); run++) {
		const size_t k = run % PB_ARRAY_SIZE(sinks), chunk = chunks[run / PB_ARRAY_SIZE(sinks)];
		const bool sunk = sinks[k] == &to_sink;
		struct pb_error err = {0};
		struct fixed_walk w = {0};
		CHECK_EQ_U64(walk_fixed_file(path, 0, 0, sinks[k], chunk, &w, &err), 0);
		CHECK_EQ_U64(w.samples, FX_SAMPLES);
		CHECK_EQ_U64(w.compared, sunk ? 0 : FX_SAMPLES);
		CHECK_EQ_U64(w.sunk, sunk ? FX_SAMPLES : 0);
		CHECK_EQ_U64(w.differ, 0);
		CHECK_EQ_U64(w.ip_sum, ip_sum);
		CHECK_EQ_U64(w.pid_sum, 7 * FX_SAMPLES);
		CHECK_EQ_U64(w.time_sum, time_sum);

		/* 8 bytes longer than the layout: read by the full parser, its first fields
		 * count */
		memset(&w, 0, sizeof w);
		pb_error_clear(&err);
		CHECK_EQ_U64(walk_fixed_file(path, 100, 40, sinks[k], chunk, &w, &err), 0);
		CHECK_EQ_U64(w.samples, FX_SAMPLES + 1);
		CHECK_EQ_U64(w.compared, sunk ? 1 : FX_SAMPLES + 1);
		CHECK_EQ_U64(w.differ, 0);
		CHECK_EQ_U64(w.ip_sum, ip_sum + 0x900000);
		CHECK_EQ_U64(w.pid_sum, 7 * FX_SAMPLES + 5);
		CHECK_EQ_U64(w.time_sum, time_sum + 0x77);

		/* 8 bytes shorter: the sample is cut short, and the walk says where */
		memset(&w, 0, sizeof w);
		pb_error_clear(&err);
		CHECK(walk_fixed_file(path, 100, 24, sinks[k], chunk, &w, &err) != 0);
		CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);
		CHECK_STR_CONTAINS(err.msg, "does not parse");
		CHECK_EQ_U64(w.samples, 101);
		CHECK_EQ_U64(w.differ, 0);
	}
}

/* ---- 6. a reader walked again ---- */

/* A pipe-mode stream (perf record -o -) built record by record. */
struct stream {
	uint8_t bytes[4096];
	size_t len;
};

static void put(struct stream *s, const void *p, size_t n)
{
	if (s->len + n <= sizeof s->bytes)
		memcpy(s->bytes + s->len, p, n);
	s->len += n;
}

static void put_u32(struct stream *s, uint32_t v) { put(s, &v, 4); }
static void put_u64(struct stream *s, uint64_t v) { put(s, &v, 8); }

static void put_header(struct stream *s, uint32_t type, size_t size)
{
	struct perf_event_header h = {.type = type, .size = (uint16_t)size};
	put(s, &h, sizeof h);
}

/* perf_header_string with a length of 4 (3 characters at most and the NUL). */
static void put_string4(struct stream *s, const char *str)
{
	char b[4] = {0};
	memcpy(b, str, strnlen(str, 3));
	put_u32(s, 4);
	put(s, b, 4);
}

#define PIPE_PID 4242

static void put_attr(struct stream *s, uint64_t config, uint64_t id)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = config;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.sample_id_all = 1;
	put_header(s, PB_PERF_RECORD_HEADER_ATTR, 8 + sizeof a + 8);
	put(s, &a, sizeof a);
	put_u64(s, id);
}

static void put_sample(struct stream *s, uint64_t id, uint64_t ip)
{
	put_header(s, PERF_RECORD_SAMPLE, 32);
	put_u64(s, id);
	put_u64(s, ip);
	put_u32(s, PIPE_PID);
	put_u32(s, PIPE_PID);
}

/* The sample_id trailer of the attrs above: TID, then IDENTIFIER. */
static void put_trailer(struct stream *s, uint64_t id)
{
	put_u32(s, PIPE_PID);
	put_u32(s, PIPE_PID);
	put_u64(s, id);
}

static void put_hostname(struct stream *s, const char *name)
{
	put_header(s, PB_PERF_RECORD_HEADER_FEATURE, 8 + 8 + 4 + 4);
	put_u64(s, PB_FEAT_HOSTNAME);
	put_string4(s, name);
}

#define PIPE_ID_A 11
#define PIPE_ID_B 22
#define PIPE_PMU_TYPE 4
#define PIPE_LOST 5

/* Event A in the prescan; then a sample of B before B's attr (A's while A is the only event), B's
 * attr, a second hostname, PMU mappings and capabilities, a name for B, samples of both, a
 * LOST and a THROTTLE of B: everything a walk adds to what open read. */
static void build_pipe_stream(struct stream *s)
{
	s->len = 0;
	put(s, "PERFILE2", 8);
	put_u64(s, 16);
	put_attr(s, PERF_COUNT_SW_CPU_CLOCK, PIPE_ID_A);
	put_hostname(s, "one");
	put_sample(s, PIPE_ID_A, 0x1000);
	put_sample(s, PIPE_ID_B, 0x2000);
	put_attr(s, PERF_COUNT_SW_TASK_CLOCK, PIPE_ID_B);
	put_hostname(s, "two");
	put_header(s, PB_PERF_RECORD_HEADER_FEATURE, 8 + 8 + 4 + 4 + 8);
	put_u64(s, PB_FEAT_PMU_MAPPINGS);
	put_u32(s, 1);
	put_u32(s, PIPE_PMU_TYPE);
	put_string4(s, "cpu");
	put_header(s, PB_PERF_RECORD_HEADER_FEATURE, 8 + 8 + 4 + 4 + 3 * 8);
	put_u64(s, PB_FEAT_PMU_CAPS);
	put_u32(s, 1);
	put_u32(s, 1);
	put_string4(s, "cap");
	put_string4(s, "7");
	put_string4(s, "cpu");
	put_header(s, PB_PERF_RECORD_EVENT_UPDATE, 8 + 16 + 8);
	put_u64(s, 2); /* PERF_EVENT_UPDATE__NAME */
	put_u64(s, PIPE_ID_B);
	put(s, "task-b\0\0", 8);
	put_sample(s, PIPE_ID_A, 0x1001);
	put_sample(s, PIPE_ID_B, 0x2001);
	put_sample(s, PIPE_ID_B, 0x2002);
	put_header(s, PERF_RECORD_LOST, 8 + 16 + 16);
	put_u64(s, PIPE_ID_B);
	put_u64(s, PIPE_LOST);
	put_trailer(s, PIPE_ID_B);
	put_header(s, PERF_RECORD_THROTTLE, 8 + 24 + 16);
	put_u64(s, 123456); /* time */
	put_u64(s, PIPE_ID_B);
	put_u64(s, PIPE_ID_B); /* stream id */
	put_trailer(s, PIPE_ID_B);
}

#define TRACE_MAX 4096

/* What one walk saw: per record its event and the reader's state at that moment, per sample
 * its IP, and the reader's events after the walk. */
struct walk_trace {
	int rc;
	size_t nrecords;
	int event[TRACE_MAX];
	uint32_t type[TRACE_MAX];
	uint64_t ip[TRACE_MAX];
	uint64_t state[TRACE_MAX];
	/* the reader at the first and the last record */
	size_t nevents_first, nevents_last;
	char host_first[16], host_last[16], cap_first[16], cap_last[16], pmu_first[16],
		pmu_last[16], name_last[PB_PERFDATA_NAME_MAX];
	/* after the walk */
	struct pb_perfdata_stats stats;
	size_t nevents;
	uint64_t ids[8], samples[8], lost[8], throttles[8];
	char names[8][PB_PERFDATA_NAME_MAX];
};

struct trace_ctx {
	struct pb_perfdata *pd;
	struct walk_trace *t;
};

static uint64_t reader_state(struct pb_perfdata *pd)
{
	uint64_t h = 0xcbf29ce484222325;
	size_t n = pb_perfdata_nevents(pd);
	h = (h ^ n) * 0x100000001b3;
	for (size_t i = 0; i < n; i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		for (const char *c = ev->name; *c; c++)
			h = (h ^ (uint8_t)*c) * 0x100000001b3;
		for (size_t k = 0; k < ev->nids; k++)
			h = (h ^ ev->ids[k]) * 0x100000001b3;
	}
	for (unsigned bit = 0; bit < PB_FEAT_BITS; bit++)
		if (pb_perfdata_has_feature(pd, bit))
			h = (h ^ bit) * 0x100000001b3;
	for (const char *c = pb_perfdata_hostname(pd); *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3;
	return (h ^ pb_perfdata_npmus(pd)) * 0x100000001b3;
}

static void copy_or_dash(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "-");
}

static int trace_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
			size_t len, struct pb_error *err)
{
	struct trace_ctx *c = ctx;
	struct walk_trace *t = c->t;
	(void)bytes;
	(void)len;
	(void)err;
	if (t->nrecords == TRACE_MAX)
		return 0;
	size_t i = t->nrecords++;
	t->event[i] = event;
	t->type[i] = rec->type;
	t->ip[i] = rec->type == PERF_RECORD_SAMPLE && event >= 0 ? rec->u.sample.ip : 0;
	t->state[i] = reader_state(c->pd);
	bool first = i == 0;
	size_t n = pb_perfdata_nevents(c->pd);
	if (first)
		t->nevents_first = n;
	t->nevents_last = n;
	copy_or_dash(first ? t->host_first : t->host_last, 16, pb_perfdata_hostname(c->pd));
	copy_or_dash(first ? t->cap_first : t->cap_last, 16,
		     pb_perfdata_pmu_cap(c->pd, "cpu", "cap"));
	copy_or_dash(first ? t->pmu_first : t->pmu_last, 16,
		     pb_perfdata_pmu_name(c->pd, PIPE_PMU_TYPE));
	if (n > 1)
		copy_or_dash(t->name_last, sizeof t->name_last, pb_perfdata_event(c->pd, 1)->name);
	return 0;
}

static int refuse_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
		     struct pb_error *err)
{
	(void)ctx;
	(void)ip;
	(void)time;
	(void)pid;
	(void)err;
	CHECK_MSG(false, "the IP sink got a sample of event %d, whose sample_type it excludes",
		  event);
	return 0;
}

static void trace_walk(struct pb_perfdata *pd, bool ip_sink, struct walk_trace *t)
{
	memset(t, 0, sizeof *t);
	struct trace_ctx c = {pd, t};
	struct pb_error err = {0};
	/* a sink that takes nothing: the records go to trace_record as in a plain walk */
	const struct pb_perfdata_ip_sink none = {.fn = refuse_ip, .exclude = UINT64_MAX};
	t->rc = ip_sink ? pb_perfdata_for_each_ip(pd, trace_record, &none, &c, &t->stats, &err)
			: pb_perfdata_for_each(pd, trace_record, &c, &t->stats, &err);
	if (t->rc)
		fprintf(stderr, "walk failed: %s\n", err.msg);
	t->nevents = pb_perfdata_nevents(pd);
	for (size_t i = 0; i < t->nevents && i < 8; i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		t->ids[i] = ev->nids ? ev->ids[0] : UINT64_MAX;
		t->samples[i] = ev->samples;
		t->lost[i] = ev->lost;
		t->throttles[i] = ev->throttles;
		memcpy(t->names[i], ev->name, sizeof t->names[i]);
	}
}

/* The walks after the first must see exactly what it saw. */
static void check_walks_agree(const char *what, const struct walk_trace *w, size_t nwalks)
{
	for (size_t k = 1; k < nwalks; k++)
		CHECK_MSG(!memcmp(&w[0], &w[k], sizeof w[0]),
			  "%s: walk %zu saw other events or samples than walk 1 (%zu vs %zu events, "
			  "%zu vs %zu records)", what, k + 1, w[k].nevents, w[0].nevents,
			  w[k].nrecords, w[0].nrecords);
}

static void test_pipe_walked_again(const char *path)
{
	static struct stream s;
	build_pipe_stream(&s);
	CHECK(s.len <= sizeof s.bytes);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(s.bytes, 1, s.len, f) == s.len);
	if (f)
		fclose(f);
	uint8_t *copy = malloc(s.len);
	memcpy(copy, s.bytes, s.len);
	static struct walk_trace w[4];
	for (int from_file = 0; from_file < 2; from_file++) {
		struct pb_perfdata *pd;
		struct pb_error err = {0};
		int rc = from_file ? pb_perfdata_open(path, &pd, &err)
				   : pb_perfdata_open_memory(copy, s.len, &pd, &err);
		if (!CHECK_MSG(rc == 0, "pipe stream refused: %s", err.msg))
			break;
		CHECK(pb_perfdata_is_pipe(pd));
		CHECK_EQ_U64(pb_perfdata_nevents(pd), 1);
		if (from_file)
			pb_perfdata_set_read_chunk(pd, 64); /* records straddle reads */
		/* three plain walks, then one with an IP sink that takes none */
		for (size_t k = 0; k < 4; k++)
			trace_walk(pd, k == 3, &w[k]);
		pb_perfdata_close(pd);

		/* what the first walk saw, as the stream says */
		CHECK_EQ_U64(w[0].rc, 0);
		CHECK_EQ_U64(w[0].nevents_first, 1);
		CHECK_EQ_U64(w[0].nevents_last, 2);
		CHECK_EQ_U64(w[0].nevents, 2);
		CHECK(!strcmp(w[0].host_first, "one") && !strcmp(w[0].host_last, "two"));
		CHECK(!strcmp(w[0].cap_first, "-") && !strcmp(w[0].cap_last, "7"));
		CHECK(!strcmp(w[0].pmu_first, "-") && !strcmp(w[0].pmu_last, "cpu"));
		CHECK(!strcmp(w[0].name_last, "task-b"));
		CHECK_EQ_U64(w[0].ids[0], PIPE_ID_A);
		CHECK_EQ_U64(w[0].ids[1], PIPE_ID_B);
		CHECK_EQ_U64(w[0].samples[0], 3); /* with it, B's sample before B's attr */
		CHECK_EQ_U64(w[0].samples[1], 2);
		CHECK_EQ_U64(w[0].lost[1], PIPE_LOST);
		CHECK_EQ_U64(w[0].throttles[1], 1);
		CHECK_EQ_U64(w[0].stats.samples, 5);
		CHECK_EQ_U64(w[0].stats.unattributed, 0);
		int sample_events[5], n = 0;
		for (size_t i = 0; i < w[0].nrecords; i++)
			if (w[0].type[i] == PERF_RECORD_SAMPLE && n < 5)
				sample_events[n++] = w[0].event[i];
		CHECK_EQ_U64(n, 5);
		/* with one event, every sample is that event's (perf's rule) */
		CHECK(sample_events[0] == 0 && sample_events[1] == 0 && sample_events[2] == 0 &&
		      sample_events[3] == 1 && sample_events[4] == 1);
		check_walks_agree(from_file ? "pipe stream from a file" : "pipe stream in memory", w,
				  4);
	}
	free(copy);
}

/* A real `perf record -o -` stream of a short command, walked twice on one reader. */
static void test_real_pipe_walked_again(const char *path)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "perf record -q -e cpu-clock -c 100000 -o - -- "
		 "dd if=/dev/zero of=/dev/null bs=4k count=200000 2>/dev/null >%s", path);
	if (system(cmd) != 0) {
		fprintf(stderr, "skipping the real pipe-mode walk: perf record -o - failed\n");
		return;
	}
	struct pb_perfdata *pd;
	struct pb_error err = {0};
	if (!CHECK_MSG(pb_perfdata_open(path, &pd, &err) == 0, "perf record -o -: %s", err.msg))
		return;
	CHECK(pb_perfdata_is_pipe(pd));
	static struct walk_trace w[2];
	trace_walk(pd, false, &w[0]);
	trace_walk(pd, true, &w[1]);
	pb_perfdata_close(pd);
	CHECK_EQ_U64(w[0].rc, 0);
	CHECK(w[0].stats.samples > 0 && w[0].nevents >= 1);
	fprintf(stderr, "real pipe stream: %zu event(s), %" PRIu64 " records, %" PRIu64
		" samples, walked twice\n", w[0].nevents, w[0].stats.records, w[0].stats.samples);
	check_walks_agree("perf record -o -", w, 2);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		pb_skip("cannot create a temporary folder: %s", strerror(errno));
	char path[256];
	static uint64_t expect[2][RT_SAMPLES];
	snprintf(path, sizeof path, "%s/roundtrip.data", tmpdir);
	test_round_trip(path, expect);
	test_corrupt(path);
	snprintf(path, sizeof path, "%s/ids.data", tmpdir);
	test_id_without_identifier(path);
	snprintf(path, sizeof path, "%s/straddle.data", tmpdir);
	test_straddle(path);
	test_fixed_layout_parse();
	snprintf(path, sizeof path, "%s/fixed.data", tmpdir);
	test_fixed_layout_walk(path);

	bool have_perf = system("perf version >/dev/null 2>&1") == 0;
	if (!have_perf)
		fprintf(stderr, "perf is not installed: the perf agreement parts are skipped\n");
	/* Zen 2 (no errata) and family 0x19 model 1 (errata #1238, #1293, #1347 apply). */
	snprintf(path, sizeof path, "%s/ibs_zen2.data", tmpdir);
	test_ibs_conformance(path, "AuthenticAMD,23,49,0", have_perf);
	snprintf(path, sizeof path, "%s/ibs_zen3.data", tmpdir);
	test_ibs_conformance(path, "AuthenticAMD,25,1,1", have_perf);
	snprintf(path, sizeof path, "%s/pipe.data", tmpdir);
	test_pipe_walked_again(path);
	if (have_perf) {
		snprintf(path, sizeof path, "%s/session.data", tmpdir);
		test_writer_with_perf(path);
		snprintf(path, sizeof path, "%s/real_pipe.data", tmpdir);
		test_real_pipe_walked_again(path);
	}
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (getenv("PB_KEEP_TMP") == NULL && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return pb_check_done("perfdata");
}
