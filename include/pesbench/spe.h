/* Decoding Arm SPE records: the byte stream the Statistical Profiling Extension writes into a
 * perf AUX area (PERF_RECORD_AUX chunks, or the AUXTRACE data of a perf.data file). A record is
 * a run of packets that ends with an END or TIMESTAMP packet; an unknown packet header is
 * skipped one byte at a time, so decoding resynchronises. */
#ifndef PESBENCH_SPE_H
#define PESBENCH_SPE_H

#include <pesbench/core.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pesbench_spe_decoder;
struct pesbench_spe_record;

/* A decoder over len bytes at buf, which must outlive it. The start of buf is taken as
 * page-aligned, as the AUX area keeps it (alignment packets pad to boundaries of the stream).
 * NULL when out of memory. */
struct pesbench_spe_decoder *pesbench_spe_decoder__new(const void *buf, size_t len);
void pesbench_spe_decoder__delete(struct pesbench_spe_decoder *d);

/* The next record, NULL at the end of the stream. The record is owned by the decoder and valid
 * until the next call. */
const struct pesbench_spe_record *pesbench_spe_decoder__next(struct pesbench_spe_decoder *d);

/* Where the record lies in the stream. */
size_t pesbench_spe_record__offset(const struct pesbench_spe_record *r);
size_t pesbench_spe_record__length(const struct pesbench_spe_record *r);
/* Ended by END or TIMESTAMP (false: the stream ended inside it). */
bool pesbench_spe_record__complete(const struct pesbench_spe_record *r);
/* Unknown packet headers skipped inside the record. */
unsigned pesbench_spe_record__nr_bad_packets(const struct pesbench_spe_record *r);

enum pesbench_spe_field {
	PESBENCH_SPE_PC,            /* the sampled instruction */
	PESBENCH_SPE_EL,            /* exception level of the PC, 0-3 */
	PESBENCH_SPE_BRANCH_TARGET,
	PESBENCH_SPE_DATA_VA,
	PESBENCH_SPE_DATA_PA,
	PESBENCH_SPE_TOTAL_LAT,     /* cycles from issue to completion */
	PESBENCH_SPE_ISSUE_LAT,     /* cycles from dispatch to issue */
	PESBENCH_SPE_XLAT_LAT,      /* cycles of the translation table walk */
	PESBENCH_SPE_EVENTS,        /* events packet: bit n is the PMU's event_filter bit n */
	PESBENCH_SPE_OP_CLASS,      /* 0 other, 1 load/store/atomic, 2 branch */
	PESBENCH_SPE_OP_TYPE,       /* the operation type packet's payload byte */
	PESBENCH_SPE_DATA_SOURCE,   /* implementation defined, kept raw */
	PESBENCH_SPE_TIMESTAMP,
	PESBENCH_SPE_CONTEXT,       /* CONTEXTIDR_EL1 or _EL2 */
};
/* Stores the field in *value and returns 0, or returns -1 when the record has no such packet. */
int pesbench_spe_record__field(const struct pesbench_spe_record *r, enum pesbench_spe_field field,
			       uint64_t *value);
/* "L1D-REFILL", ...: the name of events bit, NULL for a bit no SPE version defines. */
const char *pesbench_spe_event__name(unsigned bit);

#ifdef __cplusplus
}
#endif

#endif
