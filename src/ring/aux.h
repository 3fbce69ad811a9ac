/* The reader side of the perf AUX area: the second mapping of an event (after its data ring)
 * into which hardware tracers and samplers (Arm SPE, Intel PT) write a raw byte stream. The
 * kernel announces every chunk it wrote with a PERF_RECORD_AUX {aux_offset, aux_size, flags} in
 * the data ring; offsets are free-running and taken modulo the AUX size, so a chunk may run
 * past the end of the area and continue at its start. The reader hands each chunk on in one
 * piece, then stores aux_tail past it (release) so the kernel may reuse the space: in the
 * default (non-overwrite) mode the kernel never writes over bytes before aux_tail. */
#ifndef PB_AUX_H
#define PB_AUX_H

#include "ring/ring.h"

#include <stddef.h>
#include <stdint.h>

struct pb_aux {
	struct pb_ring *ring;     /* the event's ring; its aux/aux_size are the AUX area */
	uint8_t *scratch;         /* a wrapped chunk, unwrapped (aux_size + one page) */
	size_t scratch_size;
	size_t page;
	uint64_t tail;            /* free-running end of the furthest chunk consumed */
};

/* The bytes of one chunk: stream[begin, end). begin keeps the chunk's offset within the AUX area
 * modulo the page size, so that alignment packets of the stream resolve as they would in the
 * area itself. aux_rec is the PERF_RECORD_AUX that announced the chunk. */
typedef void (*pb_aux_chunk_fn)(void *ctx, const uint8_t *stream, size_t begin, size_t end,
				const struct pb_record *aux_rec);

/* Maps an AUX area of aux_pages (a power of two) after ring's data area (pb_ring_map first) and
 * prepares the reader. The event must still be disabled: the AUX area only exists once both
 * mappings are made. Undone by pb_aux_close and pb_ring_unmap. */
int pb_aux_open(struct pb_aux *aux, struct pb_ring *ring, unsigned aux_pages,
		struct pb_error *err);
/* Frees the reader's own memory (the mapping goes with pb_ring_unmap). */
void pb_aux_close(struct pb_aux *aux);

/* Consumes one PERF_RECORD_AUX: calls fn once with the chunk's bytes (not for an empty chunk)
 * and advances aux_tail past it. A record whose chunk cannot lie in the area (larger than it,
 * or an AUX area that is not mapped) is counted in stats->parse_errors and only advances the
 * tail. Returns the bytes handed to fn. */
size_t pb_aux_consume(struct pb_aux *aux, const struct pb_record *rec, pb_aux_chunk_fn fn,
		      void *ctx, struct pb_ring_stats *stats);

/* Samples the AUX flags say were dropped, at least: one per chunk flagged TRUNCATED (the area
 * was full and the hardware stopped writing) and one per chunk flagged COLLISION (Arm SPE: an
 * operation was selected while the previous one was still being recorded, and dropped). How
 * many more were lost the kernel cannot know, so this is a lower bound. */
uint64_t pb_aux_lost(const struct pb_ring_stats *stats);

/* Pages of an AUX area: base_pages, raised (to a power of two, at most max_pages) so that
 * expected_bytes fit when nothing drains the area until the end. */
unsigned pb_aux_pages_for(unsigned base_pages, uint64_t expected_bytes, unsigned max_pages);

#endif
