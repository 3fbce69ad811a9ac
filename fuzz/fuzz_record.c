/* Fuzzes the record parser and the ring reader with arbitrary record streams.
 * Input: 17 bytes that tests/lib/fuzz_ring.h reads as the record format (sample_type,
 * read_format, branch and sample_id_all flags, register masks) and where in the ring the stream
 * starts; the rest is the record stream, parsed directly and then through pb_ring_drain from a
 * ring it wraps around in, so the scratch reassembly is exercised too. Every pointer the parser
 * hands out is read in full so AddressSanitizer sees any that reach outside the record. Each
 * record the fast path for samples of a fixed layout (pb_record_parse_fixed_sample, refilling
 * from the previous one) accepts must decode, with the full parser, to the same bytes. */
#include "ring/record.h"
#include "../tests/lib/fuzz_ring.h"
#include "../tests/lib/same_record.h"
#include "ring/ring.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static volatile uint64_t sink;

static void touch(const void *p, uint64_t n)
{
	const volatile uint8_t *b = p;
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

static void consume(void *ctx, const struct pb_record *rec)
{
	(void)ctx;
	if (rec->type == PERF_RECORD_SAMPLE) {
		const struct pb_sample *s = &rec->u.sample;
		if (s->callchain)
			touch(s->callchain, s->callchain_nr * 8);
		if (s->raw)
			touch(s->raw, s->raw_size);
		if (s->branches)
			touch(s->branches, s->branch_nr * 24);
		if (s->branch_counters)
			touch(s->branch_counters, s->branch_nr * 8);
		if (s->stack_user)
			touch(s->stack_user, s->stack_user_size);
		if (s->aux)
			touch(s->aux, s->aux_size);
		sink += s->regs_user.nr + s->regs_intr.nr + s->read.nr;
		for (uint64_t i = 0; i < s->read.nr; i++)
			sink += s->read.values[i].value;
	} else if (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) {
		if (rec->u.mmap.filename)
			sink += strlen(rec->u.mmap.filename);
	} else if (rec->type == PERF_RECORD_COMM) {
		if (rec->u.comm.comm)
			sink += strlen(rec->u.comm.comm);
	}
}

static struct pb_ring ring;
static struct perf_event_mmap_page meta;
static uint8_t area[PB_FUZZ_RING_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < PB_FUZZ_RING_HEADER)
		return 0;
	struct pb_record_format fmt = pb_fuzz_ring_format(data);
	uint8_t start_byte = data[16];
	const uint8_t *stream = data + PB_FUZZ_RING_HEADER;
	size_t len = size - PB_FUZZ_RING_HEADER;
	if (len > PB_FUZZ_RING_MAX)
		len = PB_FUZZ_RING_MAX;

	/* Direct parsing, record after record, each given exactly the bytes that remain. */
	struct pb_record rec, fast;
	struct pb_sample_layout layout;
	pb_sample_layout_init(&layout, fmt.sample_type);
	int refill = 0;
	size_t pos = 0;
	while (pos + 8 <= len) {
		int took = pb_record_parse_fixed_sample(&layout, stream + pos, len - pos, &fast, refill);
		refill = took;
		int rc = pb_record_parse(&fmt, stream + pos, len - pos, &rec);
		if (took && (rc != PB_PARSE_OK || !pb_same_record(&rec, &fast)))
			__builtin_trap(); /* the fast path read what the full parser did not */
		if (rc == PB_PARSE_OK || rc == PB_PARSE_UNKNOWN)
			consume(NULL, &rec);
		if (rc == PB_PARSE_BAD_HEADER || rec.size > len - pos || rec.size < 8)
			break;
		pos += rec.size;
	}

	/* The same stream in a ring, starting near its end. */
	pb_fuzz_ring_place(&ring, &meta, area, stream, len, start_byte);
	struct pb_ring_stats stats;
	memset(&stats, 0, sizeof(stats));
	pb_ring_drain(&ring, &fmt, consume, NULL, &stats);
	if (meta.data_tail != meta.data_head)
		__builtin_trap(); /* the reader must always catch up with head */
	return 0;
}
