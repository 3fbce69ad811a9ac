/* The public API (include/pesbench/) as a caller sees it: only its own types and error words,
 * over constructed inputs: a sample record, an IBS op payload, an SPE record, the facilities of
 * fixture machines, and the perf.data reader's error paths and a stored recording; the ring
 * reader over the fake kernel's ring (the test's harness, reached through the internal sys seam
 * only to open an event and write its records). That the installed library builds and links is
 * tests/cli_install.sh's. */
#include "check.h"
#include "fake_kernel.h"

#include <pesbench/pesbench.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t put_u64(uint8_t *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, 8);
	return at + 8;
}

static void test_record(void)
{
	struct perf_event_attr attr = {
		.size = sizeof attr,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW,
	};
	struct pesbench_record_format *fmt = pesbench_record_format__new(&attr);
	struct pesbench_record *rec = pesbench_record__new();
	struct pesbench_error err = {0};
	uint8_t b[64] = {0};
	size_t n = 8;

	CHECK(fmt && rec);
	n = put_u64(b, n, 0x401234);                        /* ip */
	n = put_u64(b, n, (uint64_t)43 << 32 | 42);         /* pid, tid */
	n = put_u64(b, n, 1000);                            /* period */
	uint32_t raw_size = 12;
	memcpy(b + n, &raw_size, 4);
	memcpy(b + n + 4, "rawpayload!", 12);
	n += 16;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)n};
	memcpy(b, &h, sizeof h);

	CHECK(pesbench_record__parse(rec, fmt, b, n, &err) == 0);
	CHECK_EQ_U64(pesbench_record__type(rec), PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(pesbench_record__size(rec), n);
	CHECK(!strcmp(pesbench_record_type__name(pesbench_record__type(rec)), "SAMPLE"));
	uint64_t v = 0;
	CHECK(pesbench_record__field(rec, PESBENCH_FIELD_IP, &v) == 0);
	CHECK_EQ_U64(v, 0x401234);
	CHECK(pesbench_record__field(rec, PESBENCH_FIELD_PID, &v) == 0);
	CHECK_EQ_U64(v, 42);
	CHECK(pesbench_record__field(rec, PESBENCH_FIELD_TID, &v) == 0);
	CHECK_EQ_U64(v, 43);
	CHECK(pesbench_record__field(rec, PESBENCH_FIELD_PERIOD, &v) == 0);
	CHECK_EQ_U64(v, 1000);
	v = 7;
	CHECK(pesbench_record__field(rec, PESBENCH_FIELD_TIME, &v) == -1);
	CHECK_EQ_U64(v, 7);                                 /* untouched when absent */
	uint32_t size = 0;
	const char *raw = pesbench_record__raw(rec, &size);
	CHECK(raw && size == 12 && !memcmp(raw, "rawpayload!", 12));
	CHECK_EQ_U64(pesbench_record__callchain_nr(rec), 0);
	size_t len = 0;
	CHECK(pesbench_record__bytes(rec, &len) == b && len == n);

	/* Cut short: the size says more than the buffer holds. */
	CHECK(pesbench_record__parse(rec, fmt, b, 20, &err) == -1);
	CHECK_EQ_U64(err.code, PESBENCH_E_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "malformed");
	/* A type the parser does not decode: header only. */
	h.type = 0x3f;
	memcpy(b, &h, sizeof h);
	CHECK(pesbench_record__parse(rec, fmt, b, n, NULL) == 1);
	CHECK_EQ_U64(pesbench_record__type(rec), 0x3f);

	pesbench_record__delete(rec);
	pesbench_record_format__delete(fmt);
	pesbench_record__delete(NULL);
	pesbench_record_format__delete(NULL);
}

struct ring_seen {
	unsigned n;
	uint64_t ip[16];
	uint32_t type[16];
};

static void note_record(struct ring_seen *seen, const struct pesbench_record *rec)
{
	if (seen->n >= 16)
		return;
	uint64_t ip = 0;
	pesbench_record__field(rec, PESBENCH_FIELD_IP, &ip);
	seen->ip[seen->n] = ip;
	seen->type[seen->n++] = pesbench_record__type(rec);
}

static void on_drained(void *ctx, const struct pesbench_record *rec)
{
	note_record(ctx, rec);
}

/* Fills the fake kernel's ring of fd, from 16 bytes before the end of its data area: samples
 * with IP 1..4 (the first wraps), a too-short sample, a LOST record. */
static void fill_ring(int fd, const struct perf_event_attr *attr)
{
	struct fake_event *ev = fake_kernel_event(fd);
	struct perf_event_mmap_page *meta = (void *)ev->map;
	meta->data_head = meta->data_tail = meta->data_size - 16;
	uint8_t buf[64];
	struct pb_sample s;
	memset(&s, 0, sizeof(s));
	for (s.ip = 1; s.ip <= 4; s.ip++)
		CHECK(fake_ring_write(ev, buf, fake_build_sample(buf, sizeof(buf), attr, &s)));
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 8};
	CHECK(fake_ring_write(ev, &h, sizeof(h)));
	CHECK(fake_ring_write(ev, buf, fake_build_lost(buf, ev->id, 5)));
}

/* The reader over a fake kernel's ring: the drain and the caller's own loop see the same records
 * and the same counts; a read stopped early or never ended consumes only what it took. */
static void test_ring(void)
{
	struct pesbench_error err = {0};
	CHECK(!pesbench_ring__map(-1, 3, &err));
	CHECK_EQ_U64(err.code, PESBENCH_E_USAGE);
	CHECK_STR_CONTAINS(err.msg, "power-of-two");
	pesbench_ring__unmap(NULL);

	fake_kernel_install();
	struct perf_event_attr attr = {.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
				       .sample_period = 1, .sample_type = PERF_SAMPLE_IP |
				       PERF_SAMPLE_TID, .disabled = 1};
	int fd = pb_sys()->perf_event_open(&attr, 0, -1, -1, 0);
	struct pesbench_record_format *fmt = pesbench_record_format__new(&attr);
	struct pesbench_ring *ring = pesbench_ring__map(fd, 1, &err);
	CHECK(ring && fmt);
	if (!ring || !fmt)
		return;

	fill_ring(fd, &attr);
	struct ring_seen drained = {0}, pulled = {0};
	CHECK_EQ_U64(pesbench_ring__drain(ring, fmt, on_drained, &drained), 6);
	CHECK_EQ_U64(pesbench_ring__pending(ring), 0);

	fill_ring(fd, &attr);
	const struct pesbench_record *rec;
	CHECK(!pesbench_ring__next(ring));          /* not begun */
	CHECK_EQ_U64(pesbench_ring__end(ring), 0);
	uint64_t pending = pesbench_ring__pending(ring);
	pesbench_ring__begin(ring, fmt);
	while ((rec = pesbench_ring__next(ring))) {
		note_record(&pulled, rec);
		CHECK(!pesbench_record__bytes(rec, NULL));
	}
	CHECK_EQ_U64(pesbench_ring__pending(ring), pending); /* the tail moves at end only */
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_RECORDS), 6);
	CHECK_EQ_U64(pesbench_ring__end(ring), 6);
	CHECK_EQ_U64(pesbench_ring__pending(ring), 0);
	CHECK_EQ_U64(pesbench_ring__end(ring), 0);   /* ended already */

	/* 5 records handed out of 6: 4 samples and the LOST; the bad one is counted, not shown. */
	CHECK_EQ_U64(drained.n, 5);
	CHECK_EQ_U64(pulled.n, drained.n);
	CHECK(!memcmp(pulled.ip, drained.ip, sizeof(pulled.ip)));
	CHECK(!memcmp(pulled.type, drained.type, sizeof(pulled.type)));
	CHECK(pulled.ip[0] == 1 && pulled.ip[3] == 4 && pulled.type[4] == PERF_RECORD_LOST);
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_RECORDS), 12);
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_SAMPLES), 8);
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_PARSE_ERRORS), 2);
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_LOST), 10);

	/* Stopped after two; then a read begun again without end, and one cut off by a drain:
	 * neither consumes anything, so the drain delivers the four left. */
	fill_ring(fd, &attr);
	pesbench_ring__begin(ring, fmt);
	CHECK(pesbench_ring__next(ring) && pesbench_ring__next(ring));
	CHECK_EQ_U64(pesbench_ring__end(ring), 2);
	pesbench_ring__begin(ring, fmt);
	CHECK(pesbench_ring__next(ring));
	pesbench_ring__begin(ring, fmt);
	rec = pesbench_ring__next(ring);
	uint64_t ip = 0;
	CHECK(rec && pesbench_record__field(rec, PESBENCH_FIELD_IP, &ip) == 0 && ip == 3);
	struct ring_seen rest = {0};
	CHECK_EQ_U64(pesbench_ring__drain(ring, fmt, on_drained, &rest), 4);
	CHECK(!pesbench_ring__next(ring));
	CHECK_EQ_U64(pesbench_ring__end(ring), 0);
	CHECK_EQ_U64(rest.n, 3);
	CHECK_EQ_U64(rest.ip[0], 3);
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_RECORDS), 18);
	CHECK_EQ_U64(pesbench_ring__stat(ring, PESBENCH_RING_SAMPLES), 12);

	pesbench_ring__unmap(ring);
	pesbench_record_format__delete(fmt);
	pb_sys()->close(fd);
	fake_kernel_uninstall();
}

static void test_ibs(void)
{
	/* An op sample of a load that missed L1 (caps: op sampling, no optional registers). */
	const uint32_t caps = 1u << 0 | 1u << 2 | 1u << 4 | 1u << 7;
	const uint64_t regs[7] = {
		1ull << 17 | 1ull << 18 | 0x100,             /* OpCtl: En, Val, MaxCnt 0x100 */
		0x401000,                                    /* OpRip */
		0,                                           /* OpData */
		0,                                           /* OpData2 */
		1ull << 0 | 1ull << 7 | 1ull << 17,          /* OpData3: LdOp, DcMiss, lin valid */
		0x7000,                                      /* DcLinAd */
		0,                                           /* DcPhysAd */
	};
	uint8_t buf[4 + 8 * 7];
	memcpy(buf, &caps, 4);
	memcpy(buf + 4, regs, sizeof regs);
	struct pesbench_ibs_cpu cpu = {0x19, 0x61, PESBENCH_IBS_CPU_ZEN4_EXT};
	struct pesbench_ibs_sample *s = pesbench_ibs_sample__new();
	struct pesbench_error err = {0};
	uint64_t v = 0;

	CHECK(s);
	CHECK(pesbench_ibs_sample__decode(s, buf, sizeof buf, PESBENCH_IBS_OP, &cpu, &err) == 0);
	CHECK(pesbench_ibs_sample__valid(s));
	CHECK_EQ_U64(pesbench_ibs_sample__nr_regs(s), 7);
	CHECK_EQ_U64(pesbench_ibs_sample__reg(s, 1), 0x401000);
	CHECK_EQ_U64(pesbench_ibs_sample__reg(s, 99), 0);
	CHECK(pesbench_ibs_sample__field(s, PESBENCH_IBS_IP, &v) == 0);
	CHECK_EQ_U64(v, 0x401000);
	CHECK(pesbench_ibs_sample__field(s, PESBENCH_IBS_PERIOD, &v) == 0);
	CHECK_EQ_U64(v, 0x1000);
	CHECK(pesbench_ibs_sample__field(s, PESBENCH_IBS_DATA_ADDR, &v) == 0);
	CHECK_EQ_U64(v, 0x7000);
	CHECK(pesbench_ibs_sample__field(s, PESBENCH_IBS_OP_FLAGS, &v) == 0);
	CHECK(v & PESBENCH_IBS_OP_LOAD);
	CHECK(v & PESBENCH_IBS_OP_L1_MISS);
	CHECK(!(v & PESBENCH_IBS_OP_STORE));
	CHECK(pesbench_ibs_sample__field(s, PESBENCH_IBS_BR_TARGET, &v) == -1);
	CHECK(pesbench_ibs_sample__field(s, PESBENCH_IBS_FETCH_LAT, &v) == -1);
	CHECK(!strcmp(pesbench_ibs_op_flag__name(PESBENCH_IBS_OP_LOAD), "load"));
	CHECK(!pesbench_ibs_op_flag__name(3));

	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	CHECK(pesbench_ibs_sample__fprintf(s, f) > 0);
	fclose(f);
	CHECK_STR_CONTAINS(text, "ibs_op_ctl");
	free(text);

	/* The caps word asks for registers the payload does not have. */
	CHECK(pesbench_ibs_sample__decode(s, buf, sizeof buf - 8, PESBENCH_IBS_OP, &cpu, &err) == -1);
	CHECK_EQ_U64(err.code, PESBENCH_E_BAD_FILE);
	pesbench_ibs_sample__delete(s);
}

static void test_spe(void)
{
	/* PC packet (header 0xb0: address, index 0), an ld/st op type, END. */
	uint8_t stream[32];
	size_t n = 0;
	uint64_t pc = 0x0000aaaabbbb1234ull;
	stream[n++] = 0xb0;
	memcpy(stream + n, &pc, 8);
	n += 8;
	stream[n++] = 0x49;                         /* op type, class ld/st */
	stream[n++] = 0x00;                         /* a load */
	stream[n++] = 0x01;                         /* END */
	stream[n++] = 0x00;                         /* PAD */

	struct pesbench_spe_decoder *d = pesbench_spe_decoder__new(stream, n);
	CHECK(d);
	const struct pesbench_spe_record *r = pesbench_spe_decoder__next(d);
	CHECK(r);
	uint64_t v = 0;
	if (r) {
		CHECK(pesbench_spe_record__complete(r));
		CHECK_EQ_U64(pesbench_spe_record__offset(r), 0);
		CHECK_EQ_U64(pesbench_spe_record__length(r), 12);
		CHECK_EQ_U64(pesbench_spe_record__nr_bad_packets(r), 0);
		CHECK(pesbench_spe_record__field(r, PESBENCH_SPE_PC, &v) == 0);
		CHECK_EQ_U64(v, pc);
		CHECK(pesbench_spe_record__field(r, PESBENCH_SPE_OP_CLASS, &v) == 0);
		CHECK_EQ_U64(v, 1);
		CHECK(pesbench_spe_record__field(r, PESBENCH_SPE_TOTAL_LAT, &v) == -1);
	}
	CHECK(!pesbench_spe_decoder__next(d));
	CHECK(!strcmp(pesbench_spe_event__name(3), "L1D-REFILL"));
	pesbench_spe_decoder__delete(d);
}

static void test_facilities(const char *src)
{
	const struct pesbench_facility *f;
	unsigned n = 0;
	bool timer = false, ibs = false;
	pesbench_facility__for_each(f) {
		n++;
		timer |= !strcmp(pesbench_facility__name(f), "timer");
		ibs |= !strcmp(pesbench_facility__name(f), "ibs-op");
		CHECK(pesbench_facility__summary(f)[0] && pesbench_facility__usage(f)[0]);
	}
	CHECK(n >= 9 && timer && ibs);
	CHECK(pesbench_facility__find("spe") && !pesbench_facility__find("nope"));

	char root[512], reason[512];
	struct pesbench_error err = {0};
	snprintf(root, sizeof root, "%s/tests/fixtures/sysfs-zen4", src);
	struct pesbench_machine *zen4 = pesbench_machine__new(root, &err);
	snprintf(root, sizeof root, "%s/tests/fixtures/sysfs-vm", src);
	struct pesbench_machine *vm = pesbench_machine__new(root, &err);
	CHECK(zen4 && vm);
	if (zen4 && vm) {
		CHECK(pesbench_machine__probe(zen4, "ibs-op", 0, reason, sizeof reason, &err) == 1);
		CHECK(pesbench_machine__probe(vm, "ibs-op", PESBENCH_PROBE_SELF_TEST, reason,
					      sizeof reason, &err) == 0);
		CHECK(reason[0]);
		CHECK(pesbench_machine__probe(zen4, "warp-drive:on", 0, NULL, 0, &err) == -1);
		CHECK_EQ_U64(err.code, PESBENCH_E_USAGE);
		CHECK_STR_CONTAINS(err.msg, "warp-drive");
	}
	pesbench_machine__delete(zen4);
	pesbench_machine__delete(vm);
	CHECK(!pesbench_machine__new("/nonexistent/root", &err));
	CHECK_EQ_U64(err.code, PESBENCH_E_USAGE);
}

static int count_samples(void *ctx, int event, const struct pesbench_record *rec,
			 struct pesbench_error *err)
{
	(void)event;
	(void)err;
	if (pesbench_record__type(rec) == PERF_RECORD_SAMPLE)
		++*(uint64_t *)ctx;
	return 0;
}

static int stop_at_first(void *ctx, int event, const struct pesbench_record *rec,
			 struct pesbench_error *err)
{
	(void)ctx;
	(void)event;
	(void)rec;
	snprintf(err->msg, sizeof err->msg, "stopped by the callback");
	return 42;
}

static void test_perfdata(const char *src)
{
	struct pesbench_error err = {0};
	CHECK(!pesbench_perfdata__open("/nonexistent/perf.data", &err));
	CHECK(err.code != 0 && err.sys_errno != 0);
	CHECK_STR_CONTAINS(err.msg, "/nonexistent/perf.data");
	static const char junk[200] = "not a perf.data file";
	CHECK(!pesbench_perfdata__open_memory(junk, sizeof junk, &err));
	CHECK_EQ_U64(err.code, PESBENCH_E_BAD_FILE);

	char path[512];
	snprintf(path, sizeof path, "%s/fuzz/corpus/perfdata/perf61_cpu_clock.data", src);
	struct pesbench_perfdata *pd = pesbench_perfdata__open(path, &err);
	CHECK_MSG(pd, "%s", err.msg);
	if (!pd)
		return;
	uint64_t samples = 0;
	CHECK(pesbench_perfdata__for_each(pd, count_samples, &samples, &err) == 0);
	CHECK(samples > 0);
	CHECK_EQ_U64(pesbench_perfdata__nr_samples(pd), samples);
	CHECK(pesbench_perfdata__nr_records(pd) >= samples);
	CHECK_EQ_U64(pesbench_perfdata__nr_events(pd), 1);
	struct pesbench_perfdata_event *ev = pesbench_perfdata__event(pd, 0);
	CHECK(ev && !pesbench_perfdata__event(pd, 1));
	CHECK_EQ_U64(pesbench_perfdata_event__nr_samples(ev), samples);
	CHECK_STR_CONTAINS(pesbench_perfdata_event__name(ev), "cpu-clock");
	CHECK_EQ_U64(pesbench_perfdata_event__attr(ev)->type, PERF_TYPE_SOFTWARE);
	CHECK(pesbench_perfdata_event__format(ev));
	CHECK(pesbench_perfdata__hostname(pd) && pesbench_perfdata__arch(pd));
	enum pesbench_ibs_kind kind;
	struct pesbench_ibs_cpu cpu;
	CHECK(!pesbench_perfdata__ibs_event(pd, 0, &kind, &cpu));

	/* The callback's own stop comes back as its value with its message. */
	CHECK(pesbench_perfdata__for_each(pd, stop_at_first, NULL, &err) == 42);
	CHECK_STR_CONTAINS(err.msg, "stopped by the callback");
	/* A walk without a callback counts. */
	CHECK(pesbench_perfdata__for_each(pd, NULL, NULL, NULL) == 0);
	CHECK_EQ_U64(pesbench_perfdata__nr_samples(pd), samples);
	pesbench_perfdata__close(pd);
	pesbench_perfdata__close(NULL);
}

int main(void)
{
	const char *src = getenv("PB_SOURCE_DIR");
	CHECK_MSG(src, "PB_SOURCE_DIR is not set");
	if (!src)
		return pb_check_done("test_api");
	CHECK(!strcmp(pesbench_version(), PB_VERSION));
	test_record();
	test_ring();
	test_ibs();
	test_spe();
	test_facilities(src);
	test_perfdata(src);
	return pb_check_done("test_api");
}
