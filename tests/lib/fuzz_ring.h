/* What the ring fuzz targets (fuzz_record, fuzz_ring_iter) share: their first 17 input bytes
 * give a record format and where in a ring the stream starts, and the stream is laid into a
 * constructed ring so that it wraps around the end of the data area. Header-only: the fuzz
 * targets link the library and nothing of tests/lib. */
#ifndef PB_FUZZ_RING_H
#define PB_FUZZ_RING_H

#include "ring/ring.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PB_FUZZ_RING_HEADER 17
#define PB_FUZZ_RING_MAX 65536

/* Bytes 0-7 give sample_type; bytes 8-15 give read_format (bits 0-4), the branch and
 * sample_id_all flags (bits 5-7), the user register mask (bits 8-39) and the interrupt register
 * mask (bits 40-63). */
static inline struct pb_record_format pb_fuzz_ring_format(const uint8_t *data)
{
	uint64_t a, b;
	memcpy(&a, data, 8);
	memcpy(&b, data + 8, 8);
	struct pb_record_format fmt = {
		.sample_type = a & ((uint64_t)PERF_SAMPLE_MAX - 1),
		.read_format = b & 0x1f,
		.branch_hw_index = (b >> 5) & 1,
		.branch_counters = (b >> 6) & 1,
		.sample_id_all = (b >> 7) & 1,
		.sample_regs_user = (b >> 8) & 0xffffffffULL,
		.sample_regs_intr = b >> 40,
	};
	return fmt;
}

/* Lays len bytes of stream (at most PB_FUZZ_RING_MAX) into area as the data of ring, in the
 * smallest power of two that holds them, from a start that start_byte picks near the end of
 * the area (and in any lap of the free-running counters): data_tail there, data_head after. */
static inline void pb_fuzz_ring_place(struct pb_ring *ring, struct perf_event_mmap_page *meta,
				      uint8_t *area, const uint8_t *stream, size_t len,
				      uint8_t start_byte)
{
	uint64_t data_size = 64;
	while (data_size < len)
		data_size *= 2;
	memset(meta, 0, sizeof(*meta));
	memset(ring, 0, offsetof(struct pb_ring, scratch));
	ring->meta = meta;
	ring->data = area;
	ring->data_size = data_size;
	uint64_t tail = (data_size - 8 * (uint64_t)(start_byte % 8)) + data_size * (start_byte >> 3);
	for (size_t i = 0; i < len; i++)
		area[(tail + i) & (data_size - 1)] = stream[i];
	meta->data_tail = tail;
	meta->data_head = tail + len;
}

#endif
