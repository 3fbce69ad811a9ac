/* Reading the mmap ring buffer of a perf event (perf_event_open(2), "MMAP layout"): one metadata
 * page and 2^n data pages. The reader consumes every complete record between data_tail and
 * data_head, reassembles records that wrap around the end of the buffer, parses each and then
 * advances data_tail, with the barriers perf_event.h asks for. It calls the caller back for each
 * record (pesbench_ring__drain) or hands them out one by one (pesbench_ring__begin/next/end). */
#ifndef PESBENCH_RING_H
#define PESBENCH_RING_H

#include <pesbench/core.h>
#include <pesbench/record.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pesbench_ring;

/* Maps the ring of event fd (from perf_event_open; the caller keeps the fd and closes it after
 * pesbench_ring__unmap) with data_pages data pages, a power of two. NULL with err set when the
 * page count is not a power of two or mmap fails (err->sys_errno; EPERM beyond
 * perf_event_mlock_kb). */
struct pesbench_ring *pesbench_ring__map(int fd, unsigned data_pages, struct pesbench_error *err);
void pesbench_ring__unmap(struct pesbench_ring *ring);

/* Called for each record drained; rec is valid only during the call. */
typedef void (*pesbench_ring_fn)(void *ctx, const struct pesbench_record *rec);

/* Consumes every complete record, parsed with fmt, calling fn (may be NULL) for each, and counts
 * them (pesbench_ring__stat). Returns the number of records consumed. A malformed record is
 * counted as a parse error and skipped by its header size. */
uint64_t pesbench_ring__drain(struct pesbench_ring *ring, const struct pesbench_record_format *fmt,
			      pesbench_ring_fn fn, void *ctx);
/* The same reader, driven by the caller's own loop (the counts and the checks are the drain's):
 *
 *     pesbench_ring__begin(ring, fmt);
 *     while ((rec = pesbench_ring__next(ring)))
 *             use(rec);
 *     pesbench_ring__end(ring);
 *
 * begin takes the records the kernel has written so far; fmt must stay valid until end. next
 * returns the following record (valid until the next call on the ring), NULL when none is left;
 * a malformed record is counted as a parse error and skipped. end tells the kernel, once, that
 * every record next returned (and the malformed ones met on the way) may be overwritten, adds
 * them to the counts and returns how many were consumed. A caller may stop before next returns
 * NULL: the records it did not take stay in the ring for the next read. A read not ended (begin
 * or drain called again) consumes nothing: its records are read again. next and end without
 * begin return NULL and 0. */
void pesbench_ring__begin(struct pesbench_ring *ring, const struct pesbench_record_format *fmt);
const struct pesbench_record *pesbench_ring__next(struct pesbench_ring *ring);
uint64_t pesbench_ring__end(struct pesbench_ring *ring);

/* Bytes written by the kernel and not read yet. */
uint64_t pesbench_ring__pending(const struct pesbench_ring *ring);

enum pesbench_ring_stat {
	PESBENCH_RING_RECORDS,       /* records consumed */
	PESBENCH_RING_SAMPLES,       /* of them PERF_RECORD_SAMPLE */
	PESBENCH_RING_LOST,          /* samples PERF_RECORD_LOST says the kernel dropped */
	PESBENCH_RING_LOST_SAMPLES,  /* sum of PERF_RECORD_LOST_SAMPLES */
	PESBENCH_RING_THROTTLES,
	PESBENCH_RING_UNTHROTTLES,
	PESBENCH_RING_PARSE_ERRORS,  /* malformed records skipped */
	PESBENCH_RING_UNKNOWN,       /* records of a type pesbench does not decode */
	PESBENCH_RING_BYTES,         /* bytes consumed */
};
/* The counts over every drain and ended read since the ring was mapped; 0 for an unknown stat. */
uint64_t pesbench_ring__stat(const struct pesbench_ring *ring, enum pesbench_ring_stat stat);

#ifdef __cplusplus
}
#endif

#endif
