/* Reading the mmap ring buffer of a perf event (perf_event_open(2), "MMAP layout"): one metadata
 * page and 2^n data pages. The reader consumes every complete record between data_tail and
 * data_head, reassembles records that wrap around the end of the buffer, parses each and then
 * advances data_tail, with the barriers perf_event.h asks for. */
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
/* The counts over every drain since the ring was mapped; 0 for an unknown stat. */
uint64_t pesbench_ring__stat(const struct pesbench_ring *ring, enum pesbench_ring_stat stat);

#ifdef __cplusplus
}
#endif

#endif
