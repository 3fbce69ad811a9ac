/* The AUX area reader (see aux.h). Ordering: the chunk's bytes were written by the kernel before
 * it wrote the PERF_RECORD_AUX, which the data-ring reader saw after an acquire load of
 * data_head, so the bytes are visible here without a fence of their own; the release store of
 * aux_tail keeps our reads before the kernel's reuse of the space. */
#include "ring/aux.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pb_aux_open(struct pb_aux *aux, struct pb_ring *ring, unsigned aux_pages,
		struct pb_error *err)
{
	memset(aux, 0, sizeof *aux);
	long page = sysconf(_SC_PAGESIZE);
	aux->page = page > 0 ? (size_t)page : 4096;
	if (pb_ring_map_aux(ring, aux_pages, err))
		return -1;
	aux->scratch_size = ring->aux_size + aux->page;
	aux->scratch = malloc(aux->scratch_size);
	if (!aux->scratch) {
		aux->scratch_size = 0;
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM,
			       "out of memory for a %zu-byte AUX reassembly buffer",
			       (size_t)ring->aux_size + aux->page);
	}
	aux->ring = ring;
	aux->tail = __atomic_load_n(&ring->meta->aux_tail, __ATOMIC_RELAXED);
	return 0;
}

void pb_aux_close(struct pb_aux *aux)
{
	free(aux->scratch);
	memset(aux, 0, sizeof *aux);
}

static void advance_tail(struct pb_aux *aux, uint64_t end)
{
	/* Chunks arrive in order; a stale or repeated record must not move the tail back. */
	if ((int64_t)(end - aux->tail) > 0)
		aux->tail = end;
	__atomic_store_n(&aux->ring->meta->aux_tail, aux->tail, __ATOMIC_RELEASE);
}

size_t pb_aux_consume(struct pb_aux *aux, const struct pb_record *rec, pb_aux_chunk_fn fn,
		      void *ctx, struct pb_ring_stats *stats)
{
	if (rec->type != PERF_RECORD_AUX)
		return 0;
	const struct pb_ring *ring = aux->ring;
	uint64_t offset = rec->u.aux.aux_offset, size = rec->u.aux.aux_size;
	if (!ring || !ring->aux || !ring->meta) {
		if (stats)
			stats->parse_errors++;
		return 0;
	}
	if (size > ring->aux_size) {
		if (stats)
			stats->parse_errors++;
		advance_tail(aux, offset + size);
		return 0;
	}
	if (size == 0) {
		advance_tail(aux, offset);
		return 0;
	}
	const uint8_t *area = ring->aux;
	size_t start = (size_t)(offset & (ring->aux_size - 1));
	if (start + size <= ring->aux_size) {
		if (fn)
			fn(ctx, area, start, start + (size_t)size, rec);
	} else {
		size_t lead = start & (aux->page - 1);
		size_t first = ring->aux_size - start;
		memcpy(aux->scratch + lead, area + start, first);
		memcpy(aux->scratch + lead + first, area, (size_t)size - first);
		if (fn)
			fn(ctx, aux->scratch, lead, lead + (size_t)size, rec);
	}
	advance_tail(aux, offset + size);
	return (size_t)size;
}

uint64_t pb_aux_lost(const struct pb_ring_stats *stats)
{
	return stats->aux_truncated + stats->aux_collision;
}

unsigned pb_aux_pages_for(unsigned base_pages, uint64_t expected_bytes, unsigned max_pages)
{
	unsigned pages = pb_ring_pages_for(expected_bytes, max_pages);
	if (pages < base_pages)
		pages = base_pages;
	/* base_pages is the facility's choice and a power of two; keep the result one. */
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages ? pages : 1;
}
