/* Fuzzes the AUX path of SPE: a PERF_RECORD_AUX {aux_offset, aux_size, flags} taken from the
 * input's first 17 bytes, over an AUX area (a power of two of the remaining bytes) holding the
 * rest, read by the AUX reader and turned into samples. Checks the reader's promises: it reads
 * only inside the area (AddressSanitizer: the area is an exact-size heap buffer), a chunk larger
 * than the area is refused, aux_tail moves to the chunk's end and never backwards, and every
 * sample has a PC and a size the chunk could hold. */
#include "facilities/spe_samples.h"
#include "ring/aux.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
	uint64_t samples;
};

static void on_sample(void *ctx, const struct pb_record *rec)
{
	struct sink *s = ctx;
	if (rec->type != PERF_RECORD_SAMPLE || !(rec->u.sample.sample_type & PERF_SAMPLE_IP))
		abort();
	s->samples++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 17)
		return 0;
	uint64_t offset, chunk;
	memcpy(&offset, data, 8);
	memcpy(&chunk, data + 8, 8);
	uint8_t flags = data[16];
	data += 17;
	size -= 17;
	size_t area = 1;
	while (area * 2 <= size && area < 65536)
		area *= 2;
	/* Keep chunk sizes mostly within reach of the area, but let some exceed it. */
	chunk %= 2 * area + 1;

	static struct perf_event_mmap_page meta;
	memset(&meta, 0, sizeof meta);
	meta.aux_tail = offset & 0xff; /* a tail somewhere before the chunk */
	struct pb_ring *ring = calloc(1, sizeof *ring);
	uint8_t *bytes = malloc(area);
	if (!ring || !bytes) {
		free(ring);
		free(bytes);
		return 0;
	}
	memcpy(bytes, data, size < area ? size : area);
	ring->meta = &meta;
	ring->aux = bytes;
	ring->aux_size = area;

	struct pb_aux aux = {.ring = ring, .page = 4096, .tail = meta.aux_tail};
	aux.scratch_size = area + aux.page;
	aux.scratch = malloc(aux.scratch_size);
	if (!aux.scratch) {
		free(ring);
		free(bytes);
		return 0;
	}
	struct pb_record rec = {.type = PERF_RECORD_AUX};
	rec.u.aux.aux_offset = offset;
	rec.u.aux.aux_size = chunk;
	rec.u.aux.flags = flags & 0xf;
	struct pb_ring_stats stats = {0};
	struct sink sink = {0};
	uint64_t before = aux.tail;
	uint64_t n = pb_spe_aux_deliver(&aux, &rec, on_sample, &sink, &stats);
	if (n != sink.samples)
		abort();
	/* a record takes at least a 9-byte PC packet and its end */
	if (chunk > area ? n != 0 : n > chunk / 10)
		abort();
	if ((int64_t)(offset + chunk - before) > 0 && meta.aux_tail != offset + chunk)
		abort();
	if ((int64_t)(meta.aux_tail - before) < 0)
		abort();
	free(aux.scratch);
	free(bytes);
	free(ring);
	return 0;
}
