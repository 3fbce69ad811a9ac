/* Arm SPE through the session over the fake kernel (sysfs-neoverse fixture machine): the fake
 * writes constructed SPE records into the event's AUX area and announces them with
 * PERF_RECORD_AUX records, as the kernel does; the session must map the AUX area, read every
 * chunk (one across the end of the area), deliver one sample per record with the record's PC,
 * data address, latency and time, count TRUNCATED and COLLISION chunks as losses and move
 * aux_tail past what it read. Then the point layer must give the accuracy the constructed
 * streams imply. */
#include "check.h"
#include "results_json.h"
#include "fixture.h"
#include "experiments/point.h"
#include "facilities/spe_samples.h"
#include "facilities/machine.h"
#include "fake_kernel.h"
#include "ring/aux.h"
#include "session/session.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct pb_machine machine;

static void load_fixture(const char *name)
{
	pb_test_fixture(&machine, name);
}

/* ---- SPE byte-stream construction (packet layouts: pmu-facts.md section 5.2) ---- */

struct bytes {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct bytes *s, uint8_t v)
{
	if (s->n < s->cap)
		s->b[s->n++] = v;
}

static void put_le(struct bytes *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(s, (uint8_t)(v >> (8 * i)));
}

struct op {
	uint64_t pc;          /* what the sample's ip must be */
	unsigned el;
	uint64_t va;
	uint16_t latency;
	bool timestamped;     /* ends with TIMESTAMP (else END) */
	uint64_t timestamp;
};

/* One record: PC, load op type, data VA, total latency, events, then TIMESTAMP or END. */
static void put_record(struct bytes *s, const struct op *op)
{
	put(s, 0xb0); /* ADDRESS, index 0: PC */
	put_le(s, (op->pc & ((1ull << 56) - 1)) | ((uint64_t)op->el << 61) | (1ull << 63), 8);
	put(s, 0x49); /* OP_TYPE, class 1 (load/store), payload 0: a load */
	put(s, 0x00);
	put(s, 0xb2); /* ADDRESS, index 2: data VA */
	put_le(s, op->va, 8);
	put(s, 0x98); /* COUNTER, index 0: total latency */
	put_le(s, op->latency, 2);
	put(s, 0x52); /* EVENTS, 2 bytes: retired, L1D access */
	put_le(s, (1u << 1) | (1u << 2), 2);
	if (op->timestamped) {
		put(s, 0x71);
		put_le(s, op->timestamp, 8);
	} else {
		put(s, 0x01);
	}
}

/* ---- the session test ---- */

#define NOPS 40
static struct op ops[NOPS];

/* The clock the fake kernel publishes: perf time = 5000 + counter * 3 / 2. */
#define CLOCK_ZERO 5000
#define CLOCK_MULT 3
#define CLOCK_SHIFT 1

struct chunk_plan {
	uint64_t start_pos;          /* where the first chunk starts (free-running) */
	uint64_t chunk_end[4];       /* free-running end of each chunk, in write order */
	size_t chunk_len[4];
	bool aux_mapped_when_enabled;
	size_t aux_size;             /* the area's bytes while the event ran */
};
static struct chunk_plan plan;

static void write_spe(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	plan.aux_mapped_when_enabled = ev->aux_map && ev->enables == 1;
	plan.aux_size = ev->aux_size;
	if (!ev->aux_map)
		return;
	struct perf_event_mmap_page *meta = (void *)ev->map;
	meta->cap_user_time_zero = 1;
	meta->time_zero = CLOCK_ZERO;
	meta->time_mult = CLOCK_MULT;
	meta->time_shift = CLOCK_SHIFT;

	uint8_t buf[4096];
	/* The first chunk starts 37 bytes before the end of the area, so it runs across the end;
	 * its second record is split by the wrap. */
	plan.start_pos = 3 * (uint64_t)ev->aux_size - 37;
	fake_aux_seek(ev, plan.start_pos);
	uint64_t pos = plan.start_pos;
	static const unsigned first_op[4] = {30, 0, 10, 20};
	static const uint64_t flags[4] = {0, 0, PERF_AUX_FLAG_TRUNCATED, PERF_AUX_FLAG_COLLISION};
	for (unsigned c = 0; c < 4; c++) {
		struct bytes s = {.b = buf, .cap = sizeof buf};
		for (unsigned i = first_op[c]; i < first_op[c] + 10; i++) {
			put_record(&s, &ops[i]);
			if (c == 1 && i == 4) {
				/* a record without a PC: it cannot be placed, and is not a sample */
				put(&s, 0xb2);
				put_le(&s, 0x7f0000abc000ull, 8);
				put(&s, 0x01);
			}
			if (c == 2)
				for (unsigned p = 0; p < 7; p++)
					put(&s, 0x00); /* PAD between records */
		}
		long n = fake_aux_write(ev, buf, s.n, flags[c]);
		CHECK(n == (long)s.n);
		pos += s.n;
		plan.chunk_end[c] = pos;
		plan.chunk_len[c] = s.n;
	}
	ev->count = NOPS * ev->attr.sample_period;
	ev->time_enabled = ev->time_running = 1000000;
}

struct seen {
	struct pb_sample samples[NOPS + 8];
	uint16_t misc[NOPS + 8];
	unsigned nsamples;
	uint64_t tail_at_aux[8];     /* aux_tail when each PERF_RECORD_AUX was delivered */
	unsigned naux;
	unsigned other;
};
static struct seen seen;

static void on_record(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	(void)ctx;
	(void)thread;
	(void)event;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (seen.nsamples < NOPS + 8) {
			seen.samples[seen.nsamples] = rec->u.sample;
			seen.misc[seen.nsamples] = rec->misc;
		}
		seen.nsamples++;
	} else if (rec->type == PERF_RECORD_AUX) {
		struct fake_event *ev = fake_kernel_event_at(0);
		const struct perf_event_mmap_page *meta = (const void *)ev->map;
		if (seen.naux < 8)
			seen.tail_at_aux[seen.naux] = __atomic_load_n(&meta->aux_tail,
								      __ATOMIC_ACQUIRE);
		seen.naux++;
	} else {
		seen.other++;
	}
}

static void idle_run(void *ctx, unsigned thread)
{
	(void)ctx;
	(void)thread;
}

static void spe_session(void)
{
	load_fixture("sysfs-neoverse");
	for (unsigned i = 0; i < NOPS; i++) {
		ops[i].el = i % 5 == 3 ? 1 : 0;
		/* a user PC, or an EL1 kernel PC whose top byte the decoder restores */
		ops[i].pc = ops[i].el ? 0xffff800010000000ull + 4 * i : 0x400000ull + 4 * i;
		ops[i].va = 0x7f0000100000ull + 64 * i;
		ops[i].latency = (uint16_t)(20 + 3 * i);
		ops[i].timestamped = i % 4 != 1;
		ops[i].timestamp = 1000000 + 10 * i;
	}
	struct pb_session_config cfg = {.nevents = 1, .delivery = PB_DELIVERY_NONE, .threads = 1,
					.machine = &machine, .ring_pages = 16, .run = idle_run,
					.on_record = on_record, .expected_samples = 50000};
	struct pb_error err = {0};
	CHECK(pb_spec_parse("spe", &cfg.events[0].spec, &err) == 0);
	cfg.events[0].period = 4096;
	cfg.events[0].exclude_kernel = false;
	memset(&seen, 0, sizeof seen);
	memset(&plan, 0, sizeof plan);
	fake_kernel_install();
	fake_kernel_on_disable(write_spe, NULL);
	static struct pb_session_result res;
	int rc = pb_session_run(&cfg, &res, &err);
	if (rc)
		fprintf(stderr, "session: %s\n", err.msg);
	CHECK(rc == 0);
	const struct pb_event_result *er = &res.thread[0].events[0];
	struct fake_event *ev = fake_kernel_event_at(0);
	CHECK(ev != NULL);
	CHECK(plan.aux_mapped_when_enabled);
	/* the area sized for the samples expected, at the facility's bytes a record (SPE's 64):
	 * 3.2 MB, past the 128 pages it starts from, a power of two of pages */
	size_t aux_pages = plan.aux_size / fake_page_size();
	CHECK_MSG(plan.aux_size >= 50000 * 64 && aux_pages > 128 && !(aux_pages & (aux_pages - 1)),
		  "%zu pages", aux_pages);
	const struct pb_pmu *spe = pb_machine_pmu(&machine, "arm_spe_0");
	CHECK(spe && er->attr.type == (uint32_t)spe->type);
	CHECK(er->attr.disabled);

	/* one sample per placeable record, in stream order: chunk D (ops 30-39, across the end of
	 * the area), then A (0-9), B (10-19), C (20-29) */
	CHECK_EQ_U64(er->samples, NOPS);
	CHECK_EQ_U64(seen.nsamples, NOPS);
	static const unsigned order[4] = {30, 0, 10, 20};
	unsigned k = 0;
	for (unsigned c = 0; c < 4 && seen.nsamples == NOPS; c++) {
		for (unsigned i = order[c]; i < order[c] + 10; i++, k++) {
			const struct pb_sample *s = &seen.samples[k];
			const struct op *op = &ops[i];
			CHECK_EQ_U64(s->ip, op->pc);
			CHECK_EQ_U64(s->addr, op->va);
			CHECK_EQ_U64(s->weight, op->latency);
			CHECK(s->sample_type & PERF_SAMPLE_ADDR);
			CHECK(s->sample_type & PERF_SAMPLE_WEIGHT);
			CHECK_EQ_U64(seen.misc[k] & PERF_RECORD_MISC_CPUMODE_MASK,
				     op->el ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
			CHECK_EQ_U64(!!(s->sample_type & PERF_SAMPLE_TIME), op->timestamped);
			if (op->timestamped)
				CHECK_EQ_U64(s->time, CLOCK_ZERO + op->timestamp * CLOCK_MULT / 2);
			CHECK_EQ_U64(s->identifier, ev->id);
		}
	}

	/* the chunks, their flags, and the losses they stand for */
	CHECK_EQ_U64(seen.naux, 4);
	CHECK_EQ_U64(er->ring.aux_records, 4);
	CHECK_EQ_U64(er->ring.aux_bytes, plan.chunk_len[0] + plan.chunk_len[1] +
						 plan.chunk_len[2] + plan.chunk_len[3]);
	CHECK_EQ_U64(er->ring.aux_truncated, 1);
	CHECK_EQ_U64(er->ring.aux_collision, 1);
	CHECK_EQ_U64(pb_aux_lost(&er->ring), 2);
	CHECK_EQ_U64(pb_event_lost(er), 2);
	CHECK_EQ_U64(er->ring.parse_errors, 1); /* the record without a PC */
	/* aux_tail had moved past every earlier chunk when the next one was announced */
	CHECK_EQ_U64(seen.tail_at_aux[0], plan.start_pos);
	for (unsigned c = 1; c < 4 && seen.naux >= 4; c++)
		CHECK_EQ_U64(seen.tail_at_aux[c], plan.chunk_end[c - 1]);
	fake_kernel_uninstall();
}

/* A hand-driven drain: AUX records go to the SPE sample path. */
struct delivered_ctx {
	struct pb_aux *aux;
	struct pb_ring_stats *stats;
	unsigned samples, aux_records;
};

static void count_sample(void *ctx, const struct pb_record *r)
{
	struct delivered_ctx *d = ctx;
	if (r->type == PERF_RECORD_SAMPLE)
		d->samples++;
}

static void on_aux_record(void *ctx, const struct pb_record *r)
{
	struct delivered_ctx *d = ctx;
	if (r->type != PERF_RECORD_AUX)
		return;
	d->aux_records++;
	pb_spe_aux_deliver(d->aux, r, count_sample, d, d->stats);
}

/* AUX chunks that the area cannot hold: the fake kernel, like the real one, never writes over
 * unread bytes and flags the cut chunk TRUNCATED; the records that did fit are delivered. */
static void spe_area_full(void)
{
	struct pb_aux aux;
	struct pb_ring ring;
	struct pb_error err = {0};
	fake_kernel_install();
	struct perf_event_attr attr = {.size = sizeof attr, .type = 11, .sample_period = 4096};
	int fd = pb_sys()->perf_event_open(&attr, 0, -1, -1, 0);
	CHECK(fd >= 0);
	CHECK(pb_ring_map(&ring, fd, 4, &err) == 0);
	CHECK(pb_aux_open(&aux, &ring, 1, &err) == 0);
	struct fake_event *ev = fake_kernel_event(fd);
	CHECK(ev && ev->aux_size == fake_page_size());
	/* fill the area but 10 bytes, then offer a 35-byte record: 10 bytes are kept */
	size_t size = ev->aux_size;
	uint8_t *pad = calloc(1, size);
	CHECK(fake_aux_write(ev, pad, size - 10, 0) == (long)(size - 10));
	uint8_t rec[64];
	struct bytes s = {.b = rec, .cap = sizeof rec};
	struct op op = {.pc = 0x400100, .va = 0x7f0000000040, .latency = 7, .timestamped = true,
			.timestamp = 99};
	put_record(&s, &op);
	CHECK(fake_aux_write(ev, rec, s.n, 0) == 10);
	struct pb_ring_stats stats = {0};
	/* read the ring by hand: AUX records go to the AUX reader, nothing else expected */
	struct pb_record_format fmt = {0};
	struct delivered_ctx d = {.aux = &aux, .stats = &stats};
	pb_ring_drain(&ring, &fmt, on_aux_record, &d, &stats);
	CHECK_EQ_U64(d.aux_records, 2);
	CHECK_EQ_U64(d.samples, 0);       /* the only record was cut: nothing to place */
	CHECK_EQ_U64(stats.aux_truncated, 1);
	CHECK_EQ_U64(pb_aux_lost(&stats), 1);
	CHECK_EQ_U64(stats.parse_errors, 1); /* the cut record */
	CHECK_EQ_U64(ring.meta->aux_tail, size); /* everything written was consumed */
	free(pad);
	pb_aux_close(&aux);
	pb_ring_unmap(&ring);
	pb_sys()->close(fd);
	fake_kernel_uninstall();
}

/* ---- the point layer on constructed SPE streams ---- */

struct point_script {
	uint64_t records;
	uint64_t pc;
	bool collision_last;    /* flag the last chunk COLLISION */
};
static struct point_script pscript;

static void write_point_stream(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	if (!ev->aux_map)
		return;
	static uint8_t buf[256 * 64];
	uint64_t left = pscript.records, n = 0;
	while (left) {
		unsigned in_chunk = left > 256 ? 256 : (unsigned)left;
		struct bytes s = {.b = buf, .cap = sizeof buf};
		for (unsigned i = 0; i < in_chunk; i++, n++) {
			struct op op = {.pc = pscript.pc, .va = 0x7f0000200000ull + 64 * (n % 1024),
					.latency = 40, .timestamped = true, .timestamp = n};
			put_record(&s, &op);
		}
		left -= in_chunk;
		uint64_t flags = (!left && pscript.collision_last) ? PERF_AUX_FLAG_COLLISION : 0;
		CHECK(fake_aux_write(ev, buf, s.n, flags) == (long)s.n);
	}
	ev->count = pscript.records * ev->attr.sample_period;
	ev->time_enabled = ev->time_running = 1000000;
}

static void spe_point(const char *facility, double share, bool collision)
{
	load_fixture("sysfs-neoverse");
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	CHECK(pb_point_request_set(&req, pb_test_spec(facility), "accuracy:ratio=20", NULL,
				   &(uint64_t){0}, &err) == 0);
	req.events[0].period = 1024;
	req.iterations = 200000;
	req.machine = &machine;
	struct pb_truth truth;
	CHECK(pb_workload_truth(&req.workload, req.iterations, &truth, &err) == 0);
	bool loads = strstr(facility, ":load") != NULL;
	uint64_t declared = loads ? truth.loads * req.iterations
				  : truth.instructions * req.iterations + truth.once_instructions;
	/* an operation counter taking a sample every 1024 operations: floor(declared / 1024) */
	double expected = (double)(declared / 1024);
	memset(&pscript, 0, sizeof pscript);
	pscript.records = (uint64_t)llround(expected * share);
	pscript.pc = truth.labels[0].addr;
	pscript.collision_last = collision;
	fake_kernel_install();
	fake_kernel_on_disable(write_point_stream, NULL);
	struct pb_point pt;
	int rc = pb_point_measure(&req, &pt, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", facility, err.msg);
	CHECK(rc == 0);
	if (rc) {
		fake_kernel_uninstall();
		return;
	}
	const struct pb_point_figures *f = &pt.ev[0];
	CHECK(!strcmp(f->basis, "declared"));
	CHECK_EQ_U64(f->declared, declared);
	CHECK(fabs(f->expected - expected) < 1e-6);
	CHECK_EQ_U64(f->observed, pscript.records);
	CHECK_EQ_U64(f->user_samples, pscript.records);
	CHECK_EQ_U64(f->kernel_samples, 0);
	double accuracy = 100 - fabs((double)pscript.records - expected) / expected * 100;
	CHECK(fabs(f->accuracy - accuracy) < 1e-9);
	/* the stream holds the share rounded to whole records: half a record off at most */
	CHECK(fabs(f->accuracy - share * 100) <= 50 / expected + 1e-9);
	CHECK_EQ_U64(f->aux_collision, collision ? 1 : 0);
	CHECK_EQ_U64(f->lost, collision ? 1 : 0);
	json_t *j = pb_test_run_json(&req, &pt);
	json_t *ev = json_array_get(json_object_get(j, "events"), 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "aux_collision")), collision ? 1 : 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "lost")), collision ? 1 : 0);
	json_decref(j);
	printf("%s: expected %.2f, observed %llu, accuracy %.3f%%, lost %llu\n", facility,
	       f->expected, (unsigned long long)f->observed, f->accuracy,
	       (unsigned long long)f->lost);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

int main(void)
{
	spe_session();
	spe_area_full();
	spe_point("spe", 0.9, true);
	spe_point("spe:load", 0.85, false);
	return pb_check_done("spe_session");
}
