/* Ring-buffer reader against the fake kernel: records straddling the end of the data area come
 * back byte for byte, a full ring's losses add up, and malformed headers stop the reader safely.
 * Also checks the fake kernel's own observable behaviour (read layouts, ioctls, fcntl). */
#include "check.h"
#include "fake_kernel.h"
#include "ring/ring.h"
#include "util/kit.h"
#include "util/rng.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

static struct pb_ring ring;

static struct pb_rng rng = {0x2545f4914f6cdd1d};

static uint64_t rnd(void)
{
	return pb_rng_next(&rng);
}

static int open_event(struct perf_event_attr *attr)
{
	return pb_sys()->perf_event_open(attr, 0, -1, -1, 0);
}

static void sample_attr(struct perf_event_attr *attr, uint64_t sample_type)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_PAGE_FAULTS;
	attr->sample_period = 1;
	attr->sample_type = sample_type;
	attr->disabled = 1;
}

/* An event of sample_type opened on the fake kernel, its ring mapped with `pages` data pages
 * into `ring`, and the format of its records. */
static struct fake_event *open_mapped(struct perf_event_attr *attr, struct pb_record_format *fmt,
				      uint64_t sample_type, unsigned pages)
{
	struct pb_error err;
	sample_attr(attr, sample_type);
	pb_record_format_from_attr(fmt, attr);
	int fd = open_event(attr);
	CHECK(pb_ring_map(&ring, fd, pages, &err) == 0);
	return fake_kernel_event(fd);
}

/* ---- expected records: what was written, in order, to compare with what the drain delivers */

#define MAX_EXPECTED 4096

struct expected {
	uint8_t bytes[512];
	size_t size;
};

static struct expected expect[MAX_EXPECTED];
static unsigned n_expected, n_seen, n_mismatch, n_from_scratch;

/* A sample with IP and a RAW payload of raw_size pattern bytes; the record's bytes are rebuilt
 * from the parsed RAW pointer, which points at the ring or at the scratch copy. */
static size_t build_raw_sample(uint8_t *buf, const struct perf_event_attr *attr, uint32_t raw_size,
			       uint64_t tag)
{
	uint8_t raw[512];
	struct pb_sample s;
	for (uint32_t i = 0; i < raw_size; i++)
		raw[i] = (uint8_t)(tag * 31 + i * 7);
	memset(&s, 0, sizeof(s));
	s.ip = tag;
	s.raw = raw;
	s.raw_size = raw_size;
	return fake_build_sample(buf, 512, attr, &s);
}

static void on_record(void *ctx, const struct pb_record *rec)
{
	(void)ctx;
	if (rec->type != PERF_RECORD_SAMPLE)
		return;
	/* header (8) + ip (8) + raw size (4) precede the raw bytes */
	const uint8_t *start = rec->u.sample.raw - 20;
	if (n_seen >= n_expected || rec->size != expect[n_seen].size ||
	    memcmp(start, expect[n_seen].bytes, rec->size) != 0)
		n_mismatch++;
	if (start >= ring.scratch && start < ring.scratch + sizeof(ring.scratch))
		n_from_scratch++;
	n_seen++;
}

static void reset_expectations(void)
{
	n_expected = n_seen = n_mismatch = n_from_scratch = 0;
}

static void test_map_errors(void)
{
	struct perf_event_attr attr;
	struct pb_error err;
	sample_attr(&attr, PERF_SAMPLE_IP);
	int fd = open_event(&attr);
	CHECK(fd >= FAKE_FD_BASE);

	pb_error_clear(&err);
	CHECK(pb_ring_map(&ring, fd, 3, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "power-of-two");
	CHECK(pb_ring_map(&ring, fd, 0, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "power-of-two");

	/* The kernel's refusal is reported with its errno. */
	CHECK(pb_ring_map(&ring, FAKE_FD_BASE + FAKE_MAX_EVENTS - 1, 1, &err) == -1);
	CHECK_EQ_U64(err.sys_errno, EBADF);
	CHECK_STR_CONTAINS(err.msg, "cannot map");

	CHECK(pb_ring_map(&ring, fd, 4, &err) == 0);
	struct fake_event *ev = fake_kernel_event(fd);
	size_t page = fake_page_size();
	CHECK(ev && ev->map == ring.base);
	CHECK_EQ_U64(ring.map_size, 5 * page);
	CHECK_EQ_U64(ring.data_size, 4 * page);
	CHECK(ring.data == (uint8_t *)ring.base + page);
	CHECK_EQ_U64(ev->data_pages, 4);

	/* AUX area: placed after the data area through the control page. */
	CHECK(pb_ring_map_aux(&ring, 3, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "power-of-two");
	CHECK(pb_ring_map_aux(&ring, 2, &err) == 0);
	CHECK(ring.aux && ring.aux == ev->aux_map);
	CHECK_EQ_U64(ring.meta->aux_offset, 5 * page);
	CHECK_EQ_U64(ring.meta->aux_size, 2 * page);
	CHECK_EQ_U64(ring.aux_size, 2 * page);

	pb_ring_unmap(&ring);
	CHECK(ring.base == NULL && ring.aux == NULL);
	CHECK(ev->map == NULL && ev->aux_map == NULL);
	CHECK_EQ_U64(pb_sys()->close(fd), 0);
	CHECK(ev->closed);
	CHECK(pb_sys()->close(fd) == -1 && errno == EBADF);
}

/* ---- the two readers: every test below runs with the callback drain and with the iterator */

typedef uint64_t ring_reader(struct pb_ring *r, const struct pb_record_format *fmt,
			     pb_record_fn fn, void *ctx, struct pb_ring_stats *stats);

static unsigned n_tail_moved, n_stats_moved;

/* The iterator driven as a caller would, checking on the way that neither the ring's tail nor
 * the stats move before end. */
static uint64_t pull_drain(struct pb_ring *r, const struct pb_record_format *fmt,
			   pb_record_fn fn, void *ctx, struct pb_ring_stats *stats)
{
	struct pb_ring_iter it;
	struct pb_record rec;
	struct pb_ring_stats before;
	uint64_t tail = r->meta ? r->meta->data_tail : 0;
	if (stats)
		before = *stats;
	pb_ring_iter_begin(&it, r, fmt);
	while (pb_ring_iter_next(&it, &rec)) {
		n_tail_moved += r->meta->data_tail != tail;
		n_stats_moved += stats && memcmp(&before, stats, sizeof(before)) != 0;
		if (fn)
			fn(ctx, &rec);
	}
	n_tail_moved += r->meta && r->meta->data_tail != tail;
	return pb_ring_iter_end(&it, stats);
}

static ring_reader *read_ring = pb_ring_drain;

/* Starts the ring at `start` (head = tail), writes records of the sizes `next_size` gives until
 * the ring refuses one, then drains and compares every record byte for byte. */
static void fill_and_drain(struct fake_event *ev, const struct perf_event_attr *attr,
			   const struct pb_record_format *fmt, uint64_t start,
			   uint32_t (*next_size)(unsigned i))
{
	struct pb_ring_stats stats;
	memset(&stats, 0, sizeof(stats));
	ring.meta->data_head = start;
	ring.meta->data_tail = start;
	reset_expectations();
	for (unsigned i = 0; n_expected < MAX_EXPECTED; i++) {
		struct expected *e = &expect[n_expected];
		e->size = build_raw_sample(e->bytes, attr, next_size(i), i + start);
		if (!fake_ring_write(ev, e->bytes, e->size))
			break;
		n_expected++;
	}
	uint64_t pending = pb_ring_pending(&ring);
	uint64_t got = read_ring(&ring, fmt, on_record, NULL, &stats);
	CHECK_EQ_U64(got, n_expected);
	CHECK_EQ_U64(stats.samples, n_expected);
	CHECK_EQ_U64(stats.bytes, pending);
	CHECK_EQ_U64(n_seen, n_expected);
	CHECK_EQ_U64(n_mismatch, 0);
	CHECK_EQ_U64(stats.parse_errors, 0);
	CHECK_EQ_U64(ring.meta->data_tail, ring.meta->data_head);
	CHECK_EQ_U64(pb_ring_pending(&ring), 0);
	/* The refused record is now pending as lost; forget it for the next round. */
	ev->lost = ev->lost_pending = 0;
}

static uint32_t fixed_size;
static uint32_t size_fixed(unsigned i)
{
	(void)i;
	return fixed_size;
}

static uint32_t size_varied(unsigned i)
{
	return (uint32_t)((i * 37 + 11) % 400);
}

static uint32_t size_random(unsigned i)
{
	(void)i;
	return (uint32_t)(rnd() % 480);
}

static void test_wrap_around(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct fake_event *ev = open_mapped(&attr, &fmt, PERF_SAMPLE_IP | PERF_SAMPLE_RAW, 1);
	uint64_t size = ring.data_size;
	unsigned scratch_uses = 0, rounds = 0;

	/* Start offsets all over the last 512 bytes before the end (and a few elsewhere), with
	 * fixed record sizes from 24 to 504 bytes: every split point of a record gets exercised. */
	for (uint64_t back = 8; back <= 512; back += 8) {
		for (fixed_size = 4; fixed_size <= 484; fixed_size += 48) {
			fill_and_drain(ev, &attr, &fmt, size - back, size_fixed);
			scratch_uses += n_from_scratch;
			rounds++;
		}
	}
	for (unsigned k = 0; k < 64; k++) {
		fill_and_drain(ev, &attr, &fmt, rnd() % size & ~7ULL, size_varied);
		scratch_uses += n_from_scratch;
		fill_and_drain(ev, &attr, &fmt, rnd() & ~7ULL, size_random);
		scratch_uses += n_from_scratch;
		rounds += 2;
	}
	/* Positions near the 2^64 wrap of the head counter itself. */
	fill_and_drain(ev, &attr, &fmt, UINT64_MAX - 4095, size_varied);
	fill_and_drain(ev, &attr, &fmt, UINT64_MAX - 7, size_random);
	/* Several rounds in a row without resetting positions: the normal steady state. */
	uint64_t pos = ring.meta->data_head;
	for (unsigned k = 0; k < 100; k++) {
		fill_and_drain(ev, &attr, &fmt, pos, size_random);
		scratch_uses += n_from_scratch;
		pos = ring.meta->data_head;
	}
	CHECK(scratch_uses >= rounds / 2); /* the straddling path really ran */
	printf("wrap-around: %u rounds, %u records reassembled in scratch\n", rounds, scratch_uses);
	pb_ring_unmap(&ring);
}

/* Writes `attempts` samples, draining at random moments, then forces the pending LOST record
 * out with further samples; returns the number of samples the fake kernel accepted. */
static uint64_t write_with_random_drains(struct fake_event *ev, const struct perf_event_attr *attr,
					 const struct pb_record_format *fmt, uint64_t attempts,
					 unsigned drain_every, struct pb_ring_stats *stats)
{
	uint8_t buf[512];
	uint64_t accepted = 0;
	for (uint64_t i = 0; i < attempts; i++) {
		size_t n = build_raw_sample(buf, attr, (uint32_t)(rnd() % 64), i);
		accepted += fake_ring_write(ev, buf, n);
		if (drain_every && rnd() % drain_every == 0)
			read_ring(&ring, fmt, NULL, NULL, stats);
	}
	return accepted;
}

static void test_lost(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_ring_stats stats;
	struct fake_event *ev =
		open_mapped(&attr, &fmt, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 1);

	/* Never drained: the ring keeps what fits (one byte short of full, like the kernel). */
	uint8_t buf[64];
	struct pb_sample s;
	memset(&s, 0, sizeof(s));
	size_t n = fake_build_sample(buf, sizeof(buf), &attr, &s);
	CHECK_EQ_U64(n, 32);
	unsigned kept = 0;
	for (unsigned i = 0; i < 1000; i++) {
		s.ip = i;
		fake_build_sample(buf, sizeof(buf), &attr, &s);
		kept += fake_ring_write(ev, buf, n);
	}
	CHECK_EQ_U64(kept, fake_ring_capacity(ring.data_size) / 32);
	CHECK_EQ_U64(ev->lost, 1000 - kept);
	CHECK_EQ_U64(ev->lost_pending, 1000 - kept);
	memset(&stats, 0, sizeof(stats));
	read_ring(&ring, &fmt, NULL, NULL, &stats);
	CHECK_EQ_U64(stats.samples, kept);
	CHECK_EQ_U64(stats.lost_records, 0); /* not announced until the next write succeeds */
	CHECK(fake_ring_write(ev, buf, n));
	read_ring(&ring, &fmt, NULL, NULL, &stats);
	CHECK_EQ_U64(stats.lost_records, 1);
	CHECK_EQ_U64(stats.lost, ev->lost);
	CHECK_EQ_U64(stats.samples + stats.lost, 1001);
	CHECK_EQ_U64(ev->lost_pending, 0);

	/* Random drain moments; at the end every loss must be announced and accounted. */
	for (unsigned drain_every = 2; drain_every <= 64; drain_every *= 2) {
		uint64_t lost_before = ev->lost;
		memset(&stats, 0, sizeof(stats));
		uint64_t attempts = 20000;
		uint64_t accepted = write_with_random_drains(ev, &attr, &fmt, attempts, drain_every,
							     &stats);
		read_ring(&ring, &fmt, NULL, NULL, &stats);
		while (ev->lost_pending) {
			accepted += write_with_random_drains(ev, &attr, &fmt, 1, 0, &stats);
			attempts++;
			read_ring(&ring, &fmt, NULL, NULL, &stats);
		}
		CHECK_EQ_U64(stats.samples, accepted);
		CHECK_EQ_U64(stats.lost, ev->lost - lost_before);
		CHECK_EQ_U64(stats.samples + stats.lost, attempts);
		/* ~73 records fit; gaps between drains that long only occur at the sparse rates. */
		if (drain_every >= 32)
			CHECK(stats.lost_records > 0);
		CHECK_EQ_U64(stats.parse_errors, 0);
		printf("drain 1/%u: %llu samples, %llu lost in %llu LOST records\n", drain_every,
		       (unsigned long long)stats.samples, (unsigned long long)stats.lost,
		       (unsigned long long)stats.lost_records);
	}
	pb_ring_unmap(&ring);
}

/* LOST records carry a sample_id block when the attr asks for one. */
static void test_lost_with_sample_id(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_error err;
	struct pb_ring_stats stats;
	sample_attr(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER);
	attr.sample_id_all = 1;
	pb_record_format_from_attr(&fmt, &attr);
	int fd = open_event(&attr);
	CHECK(pb_ring_map(&ring, fd, 1, &err) == 0);
	struct fake_event *ev = fake_kernel_event(fd);
	uint64_t id = 0;
	CHECK_EQ_U64(pb_sys()->ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id), 0);
	CHECK_EQ_U64(id, ev->id);

	memset(&stats, 0, sizeof(stats));
	uint64_t accepted = write_with_random_drains(ev, &attr, &fmt, 3000, 40, &stats);
	/* Random drains overflow the ring only by chance; 200 samples (6 KiB or more) without one
	 * overflow a page for certain, so LOST records are there to check whatever the sequence. */
	accepted += write_with_random_drains(ev, &attr, &fmt, 200, 0, &stats);
	while (ev->lost_pending) {
		read_ring(&ring, &fmt, NULL, NULL, &stats);
		accepted += write_with_random_drains(ev, &attr, &fmt, 1, 0, &stats);
	}
	read_ring(&ring, &fmt, NULL, NULL, &stats);
	CHECK_EQ_U64(stats.samples, accepted);
	CHECK_EQ_U64(stats.lost, ev->lost);
	CHECK(stats.lost_records > 0);
	CHECK_EQ_U64(stats.parse_errors, 0);
	pb_ring_unmap(&ring);
}

static struct {
	unsigned calls, unknown;
	uint64_t last_ip;
} seen;

static void count_record(void *ctx, const struct pb_record *rec)
{
	(void)ctx;
	seen.calls++;
	if (rec->type == PERF_RECORD_SAMPLE)
		seen.last_ip = rec->u.sample.ip;
	if (rec->type >= 100)
		seen.unknown++;
}

static void write_aux(struct fake_event *ev, uint64_t offset, uint64_t size, uint64_t flags)
{
	uint64_t r[4];
	struct perf_event_header h = {PERF_RECORD_AUX, 0, 32};
	memcpy(r, &h, 8);
	r[1] = offset;
	r[2] = size;
	r[3] = flags;
	CHECK(fake_ring_write(ev, r, sizeof(r)));
}

static void test_other_accounting(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_ring_stats stats;
	uint8_t buf[64];
	struct fake_event *ev = open_mapped(&attr, &fmt, PERF_SAMPLE_IP, 2);

	for (unsigned i = 0; i < 5; i++)
		CHECK(fake_ring_write(ev, buf, fake_build_throttle(buf, false, 100 + i, ev->id)));
	for (unsigned i = 0; i < 3; i++)
		CHECK(fake_ring_write(ev, buf, fake_build_throttle(buf, true, 200 + i, ev->id)));
	write_aux(ev, 0, 4096, 0);
	write_aux(ev, 4096, 1000, PERF_AUX_FLAG_TRUNCATED);
	write_aux(ev, 8192, 24, PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION);
	write_aux(ev, 8192, 8, PERF_AUX_FLAG_OVERWRITE);
	uint64_t ls[2];
	struct perf_event_header h = {PERF_RECORD_LOST_SAMPLES, 0, 16};
	memcpy(ls, &h, 8);
	ls[1] = 17;
	CHECK(fake_ring_write(ev, ls, sizeof(ls)));
	h.type = 150; /* a type pesbench does not know */
	memcpy(ls, &h, 8);
	CHECK(fake_ring_write(ev, ls, sizeof(ls)));

	memset(&stats, 0, sizeof(stats));
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_U64(read_ring(&ring, &fmt, count_record, NULL, &stats), 14);
	CHECK_EQ_U64(stats.records, 14);
	CHECK_EQ_U64(seen.calls, 14);
	CHECK_EQ_U64(seen.unknown, 1);
	CHECK_EQ_U64(stats.throttles, 5);
	CHECK_EQ_U64(stats.unthrottles, 3);
	CHECK_EQ_U64(stats.aux_records, 4);
	CHECK_EQ_U64(stats.aux_bytes, 4096 + 1000 + 24 + 8);
	CHECK_EQ_U64(stats.aux_truncated, 1);
	CHECK_EQ_U64(stats.aux_partial, 1);
	CHECK_EQ_U64(stats.aux_collision, 1);
	CHECK_EQ_U64(stats.aux_overwrite, 1);
	CHECK_EQ_U64(stats.lost_samples, 17);
	CHECK_EQ_U64(stats.unknown, 1);
	CHECK_EQ_U64(stats.samples, 0);
	CHECK_EQ_U64(stats.bytes, 8 * 32 + 4 * 32 + 2 * 16);
	/* Stats accumulate across drains. */
	CHECK(fake_ring_write(ev, buf, fake_build_throttle(buf, false, 300, ev->id)));
	read_ring(&ring, &fmt, NULL, NULL, &stats);
	CHECK_EQ_U64(stats.throttles, 6);
	CHECK_EQ_U64(stats.records, 15);
	pb_ring_unmap(&ring);
}

/* Writes raw bytes at the head, as a broken producer would. */
static void write_garbage(struct fake_event *ev, const void *bytes, size_t n)
{
	CHECK(fake_ring_write(ev, bytes, n));
}

static void write_ip_sample(struct fake_event *ev, const struct perf_event_attr *attr, uint64_t ip)
{
	uint8_t buf[64];
	struct pb_sample s;
	memset(&s, 0, sizeof(s));
	s.ip = ip;
	CHECK(fake_ring_write(ev, buf, fake_build_sample(buf, sizeof(buf), attr, &s)));
}

static void test_malformed(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_ring_stats stats;
	struct fake_event *ev = open_mapped(&attr, &fmt, PERF_SAMPLE_IP, 1);

	/* Header sizes 0, 4, 12 and "larger than what is there": the reader delivers what came
	 * before, counts one error, gives up the rest up to head, and leaves no loop behind. */
	uint16_t bad[] = {0, 4, 12, 2048};
	for (unsigned i = 0; i < PB_ARRAY_SIZE(bad); i++) {
		memset(&stats, 0, sizeof(stats));
		memset(&seen, 0, sizeof(seen));
		write_ip_sample(ev, &attr, 0x1000 + i);
		uint64_t junk[8] = {0};
		struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, bad[i]};
		memcpy(junk, &h, 8);
		write_garbage(ev, junk, sizeof(junk));
		write_ip_sample(ev, &attr, 0x2000 + i);
		CHECK_EQ_U64(read_ring(&ring, &fmt, count_record, NULL, &stats), 1);
		CHECK_EQ_U64(seen.calls, 1);
		CHECK_EQ_U64(seen.last_ip, 0x1000 + i);
		CHECK_EQ_U64(stats.parse_errors, 1);
		CHECK_EQ_U64(ring.meta->data_tail, ring.meta->data_head);
		CHECK_EQ_U64(read_ring(&ring, &fmt, count_record, NULL, &stats), 0);
		/* After the bad stretch, new records read normally again. */
		write_ip_sample(ev, &attr, 0x3000 + i);
		CHECK_EQ_U64(read_ring(&ring, &fmt, count_record, NULL, &stats), 1);
		CHECK_EQ_U64(seen.last_ip, 0x3000 + i);
	}

	/* A well-framed record whose fields do not fit (a sample of 8 bytes that should hold an
	 * IP) is skipped by its size; the reader goes on with the next one. */
	memset(&stats, 0, sizeof(stats));
	memset(&seen, 0, sizeof(seen));
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 8};
	write_garbage(ev, &h, sizeof(h));
	write_ip_sample(ev, &attr, 0x4000);
	CHECK_EQ_U64(read_ring(&ring, &fmt, count_record, NULL, &stats), 2);
	CHECK_EQ_U64(stats.parse_errors, 1);
	CHECK_EQ_U64(stats.samples, 1);
	CHECK_EQ_U64(seen.last_ip, 0x4000);

	/* A head that ran more than a whole ring ahead cannot be read: give up, don't loop. */
	memset(&stats, 0, sizeof(stats));
	ring.meta->data_head += 3 * ring.data_size;
	CHECK_EQ_U64(read_ring(&ring, &fmt, NULL, NULL, &stats), 0);
	CHECK_EQ_U64(stats.parse_errors, 1);
	CHECK_EQ_U64(ring.meta->data_tail, ring.meta->data_head);
	/* A head that is not on a record boundary: fewer than 8 bytes left. */
	ring.meta->data_head += 4;
	CHECK_EQ_U64(read_ring(&ring, &fmt, NULL, NULL, &stats), 0);
	CHECK_EQ_U64(stats.parse_errors, 2);
	CHECK_EQ_U64(ring.meta->data_tail, ring.meta->data_head);

	/* Random garbage everywhere: the drain always terminates with tail == head. */
	unsigned rounds = 2000, settled = 0;
	for (unsigned round = 0; round < rounds; round++) {
		uint64_t pos = rnd() & ~7ULL;
		uint64_t fill = rnd() % ring.data_size;
		ring.meta->data_tail = pos;
		ring.meta->data_head = pos + fill;
		for (uint64_t i = 0; i < ring.data_size; i += 8) {
			uint64_t v = rnd();
			if (rnd() % 4 == 0) /* plausible headers now and then: small type, 8-byte size */
				v = (rnd() % 14) | ((rnd() & 0xffff) << 32) |
				    ((uint64_t)(8 * (1 + rnd() % 40)) << 48);
			memcpy(ring.data + i, &v, 8);
		}
		memset(&stats, 0, sizeof(stats));
		read_ring(&ring, &fmt, count_record, NULL, &stats);
		settled += ring.meta->data_tail == ring.meta->data_head;
	}
	CHECK_EQ_U64(settled, rounds);
	pb_ring_unmap(&ring);
}

/* A caller that stops early consumes exactly what it took: the tail moves once, at end, to just
 * after the last record handed out; the rest, and a read never ended, are read again. */
static void test_iterator_partial(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_ring_stats stats;
	struct pb_ring_iter it;
	struct pb_record rec;
	struct fake_event *ev = open_mapped(&attr, &fmt, PERF_SAMPLE_IP | PERF_SAMPLE_TID, 1);
	/* 24-byte samples from 32 bytes before the end: the second one's IP lies past the wrap. */
	uint64_t start = ring.data_size - 32;
	ring.meta->data_head = ring.meta->data_tail = start;
	for (uint64_t ip = 1; ip <= 6; ip++)
		write_ip_sample(ev, &attr, ip);
	memset(&stats, 0, sizeof(stats));

	/* Never ended: nothing consumed, nothing counted. */
	pb_ring_iter_begin(&it, &ring, &fmt);
	CHECK(pb_ring_iter_next(&it, &rec) && rec.u.sample.ip == 1);
	CHECK(pb_ring_iter_next(&it, &rec) && rec.u.sample.ip == 2); /* reassembled */
	CHECK_EQ_U64(ring.meta->data_tail, start);
	CHECK_EQ_U64(stats.records, 0);

	/* Three taken, then ended: the tail lands after the third, the counts hold three. */
	pb_ring_iter_begin(&it, &ring, &fmt);
	for (uint64_t ip = 1; ip <= 3; ip++) {
		CHECK(pb_ring_iter_next(&it, &rec));
		CHECK_EQ_U64(rec.u.sample.ip, ip);
		CHECK_EQ_U64(ring.meta->data_tail, start);
	}
	CHECK_EQ_U64(pb_ring_iter_end(&it, &stats), 3);
	CHECK_EQ_U64(ring.meta->data_tail, start + 3 * 24);
	CHECK_EQ_U64(stats.samples, 3);
	CHECK_EQ_U64(stats.bytes, 3 * 24);
	CHECK_EQ_U64(pb_ring_pending(&ring), 3 * 24);

	/* Records written after begin are not seen by that read; the next read takes them. */
	pb_ring_iter_begin(&it, &ring, &fmt);
	write_ip_sample(ev, &attr, 7);
	unsigned taken = 0;
	uint64_t last = 0;
	while (pb_ring_iter_next(&it, &rec)) {
		taken++;
		last = rec.u.sample.ip;
	}
	CHECK_EQ_U64(taken, 3);
	CHECK_EQ_U64(last, 6);
	CHECK(!pb_ring_iter_next(&it, &rec)); /* stays exhausted */
	CHECK_EQ_U64(pb_ring_iter_end(&it, &stats), 3);
	CHECK_EQ_U64(stats.samples, 6);
	CHECK_EQ_U64(pb_ring_pending(&ring), 24);
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_U64(pb_ring_drain(&ring, &fmt, count_record, NULL, &stats), 1);
	CHECK_EQ_U64(seen.last_ip, 7);
	CHECK_EQ_U64(stats.samples, 7);
	CHECK_EQ_U64(stats.records, 7);

	/* A lost stretch: the error is counted at end, once, and the tail jumps to head. */
	uint64_t junk[4] = {0};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 12};
	memcpy(junk, &h, 8);
	write_ip_sample(ev, &attr, 8);
	write_garbage(ev, junk, sizeof(junk));
	pb_ring_iter_begin(&it, &ring, &fmt);
	CHECK(pb_ring_iter_next(&it, &rec) && rec.u.sample.ip == 8);
	CHECK(!pb_ring_iter_next(&it, &rec));
	CHECK_EQ_U64(stats.parse_errors, 0);
	CHECK_EQ_U64(pb_ring_iter_end(&it, &stats), 1);
	CHECK_EQ_U64(stats.parse_errors, 1);
	CHECK_EQ_U64(ring.meta->data_tail, ring.meta->data_head);
	/* end without stats still publishes the tail */
	write_ip_sample(ev, &attr, 9);
	pb_ring_iter_begin(&it, &ring, &fmt);
	CHECK(pb_ring_iter_next(&it, &rec) && rec.u.sample.ip == 9);
	CHECK_EQ_U64(pb_ring_iter_end(&it, NULL), 1);
	CHECK_EQ_U64(pb_ring_pending(&ring), 0);
	pb_ring_unmap(&ring);

	struct pb_ring unmapped;
	memset(&unmapped, 0, sizeof(unmapped));
	pb_ring_iter_begin(&it, &unmapped, NULL);
	CHECK(!pb_ring_iter_next(&it, &rec));
	CHECK_EQ_U64(pb_ring_iter_end(&it, &stats), 0);
}

static void test_pending_and_pages(void)
{
	size_t page = fake_page_size();
	CHECK_EQ_U64(pb_ring_pages_for(0, 64), 1);
	CHECK_EQ_U64(pb_ring_pages_for(page, 64), 1);
	CHECK_EQ_U64(pb_ring_pages_for(page + 1, 64), 2);
	CHECK_EQ_U64(pb_ring_pages_for(5 * page, 64), 8);
	CHECK_EQ_U64(pb_ring_pages_for(1000 * page, 64), 64);
	CHECK_EQ_U64(pb_ring_pages_for(1000 * page, 48), 32); /* cap rounded down to a power of 2 */
	CHECK_EQ_U64(pb_ring_pages_for(UINT64_MAX, 16384), 16384);
	CHECK_EQ_U64(pb_ring_pages_for(1000 * page, 0), 1);

	struct pb_ring unmapped;
	memset(&unmapped, 0, sizeof(unmapped));
	CHECK_EQ_U64(pb_ring_pending(&unmapped), 0);
	CHECK_EQ_U64(pb_ring_drain(&unmapped, NULL, NULL, NULL, NULL), 0);
}

/* The fake kernel's syscalls, as the session sees them. */
static void test_fake_syscalls(void)
{
	struct perf_event_attr attr;
	sample_attr(&attr, PERF_SAMPLE_IP);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			   PERF_FORMAT_ID | PERF_FORMAT_LOST;
	fake_kernel_fail_next_open(EACCES);
	CHECK(open_event(&attr) == -1 && errno == EACCES);
	int fd = open_event(&attr);
	CHECK(fd >= FAKE_FD_BASE);
	struct fake_event *ev = fake_kernel_event(fd);
	CHECK(ev && !ev->enabled && ev->attr.read_format == attr.read_format);
	ev->count = 42;
	ev->time_enabled = 1000;
	ev->time_running = 900;
	ev->lost = 3;
	uint64_t v[16];
	CHECK_EQ_U64(pb_sys()->read(fd, v, sizeof(v)), 40);
	CHECK(v[0] == 42 && v[1] == 1000 && v[2] == 900 && v[3] == ev->id && v[4] == 3);
	CHECK(pb_sys()->read(fd, v, 16) == -1 && errno == ENOSPC);

	CHECK_EQ_U64(pb_sys()->ioctl(fd, PERF_EVENT_IOC_RESET, 0), 0);
	CHECK_EQ_U64(ev->count, 0);
	CHECK_EQ_U64(pb_sys()->ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	CHECK(ev->enabled && ev->enables == 1);
	uint64_t period = 1000;
	CHECK_EQ_U64(pb_sys()->ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period), 0);
	CHECK_EQ_U64(ev->attr.sample_period, 1000);
	CHECK(pb_sys()->ioctl(fd, 0x12345, 0) == -1 && errno == ENOTTY);

	struct f_owner_ex owner = {F_OWNER_TID, 777};
	CHECK_EQ_U64(pb_sys()->fcntl(fd, F_SETOWN_EX, (unsigned long)&owner), 0);
	CHECK_EQ_U64(pb_sys()->fcntl(fd, F_SETSIG, 40), 0);
	CHECK_EQ_U64(pb_sys()->fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK), 0);
	CHECK(ev->owner_tid == 777 && ev->async_signal == 40 && ev->async);

	/* Group: leader + 2 members, read through any of them, leader first. */
	struct perf_event_attr g = attr;
	g.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	int leader = open_event(&g);
	int m1 = pb_sys()->perf_event_open(&g, 0, -1, leader, 0);
	int m2 = pb_sys()->perf_event_open(&g, 0, -1, leader, 0);
	CHECK(leader > 0 && m1 > leader && m2 > m1);
	fake_kernel_event(leader)->count = 10;
	fake_kernel_event(m1)->count = 11;
	fake_kernel_event(m2)->count = 12;
	fake_kernel_event(m2)->lost = 5;
	CHECK_EQ_U64(pb_sys()->read(m1, v, sizeof(v)), 8 + 3 * 24);
	CHECK_EQ_U64(v[0], 3);
	CHECK(v[1] == 10 && v[4] == 11 && v[7] == 12 && v[9] == 5);
	CHECK_EQ_U64(v[8], fake_kernel_event(m2)->id);
	CHECK_EQ_U64(pb_sys()->ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP), 0);
	CHECK(fake_kernel_event(m2)->enabled && fake_kernel_event(m1)->enabled);
	CHECK(pb_sys()->perf_event_open(&g, 0, -1, FAKE_FD_BASE + FAKE_MAX_EVENTS - 2, 0) == -1 &&
	      errno == EBADF);
}

static unsigned disable_calls;
static void on_disable(struct fake_event *ev, void *ctx)
{
	disable_calls++;
	write_ip_sample(ev, ctx, 0x5000);
}

static void test_disable_script(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_error err;
	struct pb_ring_stats stats;
	sample_attr(&attr, PERF_SAMPLE_IP);
	pb_record_format_from_attr(&fmt, &attr);
	fake_kernel_on_disable(on_disable, &attr);
	int fd = open_event(&attr);
	CHECK(pb_ring_map(&ring, fd, 1, &err) == 0);
	CHECK_EQ_U64(pb_sys()->ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	CHECK_EQ_U64(disable_calls, 1);
	memset(&stats, 0, sizeof(stats));
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ_U64(pb_ring_drain(&ring, &fmt, count_record, NULL, &stats), 1);
	CHECK_EQ_U64(seen.last_ip, 0x5000);
	pb_ring_unmap(&ring);
	CHECK_EQ_U64(pb_sys()->close(fd), 0);
	fake_kernel_on_disable(NULL, NULL);
}

int main(void)
{
	fake_kernel_install();
	test_map_errors();
	ring_reader *readers[] = {pb_ring_drain, pull_drain};
	for (unsigned r = 0; r < PB_ARRAY_SIZE(readers); r++) {
		read_ring = readers[r];
		printf("-- with %s\n", r ? "the iterator pulled by hand" : "pb_ring_drain");
		test_wrap_around();
		test_lost();
		test_lost_with_sample_id();
		test_other_accounting();
		test_malformed();
	}
	CHECK_EQ_U64(n_tail_moved, 0);
	CHECK_EQ_U64(n_stats_moved, 0);
	test_iterator_partial();
	test_pending_and_pages();
	test_fake_syscalls();
	test_disable_script();
	fake_kernel_uninstall();
	CHECK(pb_sys() == &pb_sys_linux);
	return pb_check_done("test_ring");
}
