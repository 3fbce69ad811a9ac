/* The perf mmap ring buffer: one metadata page plus 2^n data pages (and an optional AUX area).
 * The reader advances data_tail after consuming records; records straddling the end of the data
 * area are reassembled into a scratch buffer. Barriers follow perf_event.h: read data_head then an
 * acquire fence before reading data; a release fence before writing data_tail. */
#ifndef PB_RING_H
#define PB_RING_H

#include "ring/record.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_ring {
	int fd;
	void *base;                              /* the whole mapping */
	size_t map_size;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t data_size;                      /* power of two */
	uint8_t scratch[65536];                  /* a record is at most 64 KiB (u16 size) */
	/* AUX area, when mapped */
	void *aux;
	uint64_t aux_size;
};

/* What a drain saw, accumulated across calls. */
struct pb_ring_stats {
	uint64_t records;
	uint64_t samples;
	uint64_t lost;                /* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_records;        /* number of PERF_RECORD_LOST records */
	uint64_t lost_samples;        /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t throttles, unthrottles;
	uint64_t aux_records, aux_bytes, aux_truncated, aux_partial, aux_collision;
	uint64_t aux_overwrite;       /* AUX records flagged PERF_AUX_FLAG_OVERWRITE (snapshot mode) */
	uint64_t parse_errors;        /* malformed records, skipped by their header size */
	uint64_t unknown;             /* record types not decoded */
	uint64_t bytes;
};

typedef void (*pb_record_fn)(void *ctx, const struct pb_record *rec);

/* Maps 1 + data_pages pages (data_pages a power of two) of `fd` through the sys seam.
 * Prefaults every page: page-fault sampling with O_ASYNC can livelock on a first touch. */
int pb_ring_map(struct pb_ring *ring, int fd, unsigned data_pages, struct pb_error *err);
/* Maps an AUX area of aux_pages (a power of two) after the data area. */
int pb_ring_map_aux(struct pb_ring *ring, unsigned aux_pages, struct pb_error *err);
void pb_ring_unmap(struct pb_ring *ring);

/* Consumes every complete record between data_tail and data_head, calls fn (may be NULL) for
 * each and accounts them in stats. Returns the number of records consumed. Safe to call from a
 * signal handler of the thread that owns the ring, provided fn is. It is the loop below. */
uint64_t pb_ring_drain(struct pb_ring *ring, const struct pb_record_format *fmt, pb_record_fn fn,
		       void *ctx, struct pb_ring_stats *stats);

/* Counts one parsed record in stats as pb_ring_drain does (samples, losses, throttles, AUX
 * flags): a replay of stored records adds them up the same way. */
void pb_ring_account(const struct pb_record *rec, struct pb_ring_stats *stats);

/* The same reader, pulled by its caller: begin reads data_head once; each next hands out the
 * following record (a decoded one or one of a type not decoded; malformed ones are counted and
 * skipped); end publishes data_tail once, after the last record handed out, and adds what was
 * consumed to stats. Until end, neither the ring's tail nor the stats change, so an iterator
 * left without end has consumed nothing: the next reader sees the same records again. A record
 * stays valid until the next call of next or end (it may point into the ring's scratch). The
 * records between the last one handed out and head stay in the ring for the next reader. */
struct pb_ring_iter {
	struct pb_ring *ring;
	const struct pb_record_format *fmt;
	uint64_t head;
	uint64_t tail;                /* just after the last record consumed */
	struct pb_ring_stats seen;    /* what the records consumed so far add to the stats */
};

void pb_ring_iter_begin(struct pb_ring_iter *it, struct pb_ring *ring,
			const struct pb_record_format *fmt);
bool pb_ring_iter_next(struct pb_ring_iter *it, struct pb_record *rec);
/* Returns the number of records consumed (malformed ones included); stats may be NULL. */
uint64_t pb_ring_iter_end(struct pb_ring_iter *it, struct pb_ring_stats *stats);

/* Bytes waiting to be read. */
uint64_t pb_ring_pending(const struct pb_ring *ring);

/* Smallest power-of-two page count holding `bytes`, clamped to [1, max_pages]. */
unsigned pb_ring_pages_for(uint64_t bytes, unsigned max_pages);

#endif
