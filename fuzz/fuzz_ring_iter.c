/* Fuzzes the pull-style ring reader against the callback one: on the same ring bytes, the
 * records the iterator hands out, pass after pass, must be the records pb_ring_drain calls back
 * with, in the same order, and the two must leave the same counts and the tail at head.
 * Input: the 17 bytes of tests/lib/fuzz_ring.h (record format, start in the ring), then one byte
 * that shapes the pull reading: bits 0-3 the records taken per pass before end (0: all), bit 4
 * a first pass abandoned without end (it must consume nothing). The rest is the record stream. */
#include "../tests/lib/fuzz_ring.h"
#include "../tests/lib/same_record.h"
#include "ring/ring.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_RECORDS (PB_FUZZ_RING_MAX / 8)

static struct pb_ring ring;
static struct perf_event_mmap_page meta;
static uint8_t area[PB_FUZZ_RING_MAX];
/* What the callback saw. Their pointers stay good: the area is not written again, and at most
 * one record wraps (the stream fits the area), so the scratch keeps the same bytes. */
static struct pb_record called[MAX_RECORDS];
static size_t n_called;

static void keep(void *ctx, const struct pb_record *rec)
{
	(void)ctx;
	if (n_called < MAX_RECORDS)
		called[n_called] = *rec;
	n_called++;
}

static bool same_arrays(const struct pb_record *a, const struct pb_record *b)
{
	if (a->type != PERF_RECORD_SAMPLE)
		return true;
	const struct pb_sample *x = &a->u.sample, *y = &b->u.sample;
	return !memcmp(x->read.values, y->read.values, x->read.nr * sizeof(x->read.values[0])) &&
	       !memcmp(x->regs_user.regs, y->regs_user.regs,
		       x->regs_user.nr * sizeof(x->regs_user.regs[0])) &&
	       !memcmp(x->regs_intr.regs, y->regs_intr.regs,
		       x->regs_intr.nr * sizeof(x->regs_intr.regs[0]));
}

/* One pull pass of at most `most` records (0: all), each checked against the callback's next;
 * returns whether records may remain. */
static bool pull_pass(const struct pb_record_format *fmt, unsigned most, size_t *at,
		      struct pb_ring_stats *stats, bool end)
{
	struct pb_ring_iter it;
	struct pb_record rec;
	uint64_t tail = meta.data_tail;
	unsigned taken = 0;
	bool more = true;
	pb_ring_iter_begin(&it, &ring, fmt);
	while (!most || taken < most) {
		if (!pb_ring_iter_next(&it, &rec)) {
			more = false;
			break;
		}
		if (*at >= n_called || !pb_same_record(&called[*at], &rec) ||
		    !same_arrays(&called[*at], &rec))
			__builtin_trap(); /* the iterator saw another record than the callback */
		if (meta.data_tail != tail)
			__builtin_trap(); /* the tail moved before end */
		(*at)++;
		taken++;
	}
	if (end)
		pb_ring_iter_end(&it, stats);
	else
		*at -= taken;
	return more;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < PB_FUZZ_RING_HEADER + 1)
		return 0;
	struct pb_record_format fmt = pb_fuzz_ring_format(data);
	uint8_t start_byte = data[16];
	unsigned per_pass = data[17] & 15;
	bool abandon_first = data[17] & 16;
	const uint8_t *stream = data + PB_FUZZ_RING_HEADER + 1;
	size_t len = size - PB_FUZZ_RING_HEADER - 1;
	if (len > PB_FUZZ_RING_MAX)
		len = PB_FUZZ_RING_MAX;

	pb_fuzz_ring_place(&ring, &meta, area, stream, len, start_byte);
	uint64_t tail = meta.data_tail, head = meta.data_head;
	struct pb_ring_stats by_callback, by_pull;
	memset(&by_callback, 0, sizeof(by_callback));
	memset(&by_pull, 0, sizeof(by_pull));
	n_called = 0;
	pb_ring_drain(&ring, &fmt, keep, NULL, &by_callback);
	if (n_called > MAX_RECORDS || meta.data_tail != head)
		__builtin_trap();

	meta.data_tail = tail;
	size_t at = 0;
	if (abandon_first) {
		pull_pass(&fmt, per_pass, &at, &by_pull, false);
		if (meta.data_tail != tail)
			__builtin_trap(); /* a pass never ended consumed something */
	}
	while (pull_pass(&fmt, per_pass, &at, &by_pull, true))
		;
	if (at != n_called || meta.data_tail != head ||
	    memcmp(&by_callback, &by_pull, sizeof(by_pull)) != 0)
		__builtin_trap(); /* fewer records, another tail or other counts than the callback */
	return 0;
}
