/* The ring buffer reader of the public API (include/pesbench/ring.h) over ring/ring.c. */
#include "api/api.h"
#include "ring/ring.h"

#include <pesbench/ring.h>

#include <stdbool.h>
#include <stdlib.h>

struct pesbench_ring {
	struct pb_ring ring;
	struct pb_ring_stats stats;
	/* the read begun by pesbench_ring__begin, when reading */
	struct pb_ring_iter iter;
	bool reading;
	struct pb_record rec;
	struct pesbench_record out;
};

struct pesbench_ring *pesbench_ring__map(int fd, unsigned data_pages, struct pesbench_error *err)
{
	struct pesbench_ring *r = calloc(1, sizeof(*r));
	struct pb_error e;
	if (!r) {
		pb_api_nomem(err, "a ring buffer reader");
		return NULL;
	}
	if (pb_ring_map(&r->ring, fd, data_pages, &e)) {
		free(r);
		pb_api_error(err, &e);
		return NULL;
	}
	return r;
}

void pesbench_ring__unmap(struct pesbench_ring *ring)
{
	if (!ring)
		return;
	pb_ring_unmap(&ring->ring);
	free(ring);
}

struct drain_ctx {
	pesbench_ring_fn fn;
	void *ctx;
};

static void on_record(void *ctx, const struct pb_record *rec)
{
	struct drain_ctx *d = ctx;
	/* storage stays unwritten (no 1.6 KiB clear per record): the record is the ring's. */
	struct pesbench_record r;
	r.rec = rec;
	r.bytes = NULL;
	r.len = 0;
	d->fn(d->ctx, &r);
}

uint64_t pesbench_ring__drain(struct pesbench_ring *ring, const struct pesbench_record_format *fmt,
			      pesbench_ring_fn fn, void *ctx)
{
	struct drain_ctx d = {fn, ctx};
	ring->reading = false;
	return pb_ring_drain(&ring->ring, &fmt->fmt, fn ? on_record : NULL, &d, &ring->stats);
}

void pesbench_ring__begin(struct pesbench_ring *ring, const struct pesbench_record_format *fmt)
{
	pb_ring_iter_begin(&ring->iter, &ring->ring, fmt ? &fmt->fmt : NULL);
	ring->reading = true;
}

const struct pesbench_record *pesbench_ring__next(struct pesbench_ring *ring)
{
	if (!ring->reading || !pb_ring_iter_next(&ring->iter, &ring->rec))
		return NULL;
	ring->out.rec = &ring->rec;
	ring->out.bytes = NULL;
	ring->out.len = 0;
	return &ring->out;
}

uint64_t pesbench_ring__end(struct pesbench_ring *ring)
{
	if (!ring->reading)
		return 0;
	ring->reading = false;
	return pb_ring_iter_end(&ring->iter, &ring->stats);
}

uint64_t pesbench_ring__pending(const struct pesbench_ring *ring)
{
	return pb_ring_pending(&ring->ring);
}

uint64_t pesbench_ring__stat(const struct pesbench_ring *ring, enum pesbench_ring_stat stat)
{
	const struct pb_ring_stats *s = &ring->stats;
	switch (stat) {
	case PESBENCH_RING_RECORDS: return s->records;
	case PESBENCH_RING_SAMPLES: return s->samples;
	case PESBENCH_RING_LOST: return s->lost;
	case PESBENCH_RING_LOST_SAMPLES: return s->lost_samples;
	case PESBENCH_RING_THROTTLES: return s->throttles;
	case PESBENCH_RING_UNTHROTTLES: return s->unthrottles;
	case PESBENCH_RING_PARSE_ERRORS: return s->parse_errors;
	case PESBENCH_RING_UNKNOWN: return s->unknown;
	case PESBENCH_RING_BYTES: return s->bytes;
	}
	return 0;
}
