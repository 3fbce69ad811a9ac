/* Parsing perf_event records (PERF_RECORD_*), as the kernel writes them into a ring buffer and
 * perf writes them into perf.data. The parser trusts nothing: every length is checked against
 * the record's size and nothing outside the given bytes is read.
 *
 * A record's layout depends on the perf_event_attr that produced it (sample_type, read_format,
 * registers, sample_id_all): a struct pesbench_record_format holds what the parser needs of it. */
#ifndef PESBENCH_RECORD_H
#define PESBENCH_RECORD_H

#include <pesbench/core.h>

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pesbench_record_format;
struct pesbench_record;

/* The format of the records of events opened with attr. Freed by pesbench_record_format__delete.
 * NULL when out of memory. */
struct pesbench_record_format *pesbench_record_format__new(const struct perf_event_attr *attr);
void pesbench_record_format__delete(struct pesbench_record_format *fmt);

/* A holder a caller parses records into, reusable for any number of records. */
struct pesbench_record *pesbench_record__new(void);
void pesbench_record__delete(struct pesbench_record *rec);

/* Parses the record at buf (len bytes, at least the header's size). Returns 0 when the record
 * was decoded, 1 when its type is one pesbench does not decode (only the header fields, type,
 * misc and size, are valid), -1 when it is malformed (err says how: a size that is not a
 * multiple of 8, a field past its end). The record points into buf: its raw bytes, callchain
 * and strings are valid as long as buf is. */
int pesbench_record__parse(struct pesbench_record *rec, const struct pesbench_record_format *fmt,
			   const void *buf, size_t len, struct pesbench_error *err);

/* The header: PERF_RECORD_* type, misc bits, size in bytes. */
uint32_t pesbench_record__type(const struct pesbench_record *rec);
uint16_t pesbench_record__misc(const struct pesbench_record *rec);
uint16_t pesbench_record__size(const struct pesbench_record *rec);
/* "SAMPLE", "MMAP2", ...; "UNKNOWN" for a type pesbench does not know. */
const char *pesbench_record_type__name(uint32_t type);
/* The record's bytes as stored (header included); NULL when the record came from a ring
 * buffer (pesbench_ring__drain, __next), whose bytes the kernel may already reuse. */
const void *pesbench_record__bytes(const struct pesbench_record *rec, size_t *len);

/* Numeric fields. For a PERF_RECORD_SAMPLE, the PERF_SAMPLE_* fields its sample_type carries;
 * for other records the fields of their body (LOST: ID and LOST; MMAP/MMAP2: PID, TID, ADDR,
 * LEN, PGOFF; COMM, FORK, EXIT: PID, TID; AUX: AUX_OFFSET, AUX_SIZE, AUX_FLAGS) and, with
 * sample_id_all, the PID, TID, TIME, ID, STREAM_ID, CPU of their sample_id trailer. */
enum pesbench_field {
	PESBENCH_FIELD_IP,
	PESBENCH_FIELD_PID,
	PESBENCH_FIELD_TID,
	PESBENCH_FIELD_TIME,
	PESBENCH_FIELD_ADDR,
	PESBENCH_FIELD_ID,
	PESBENCH_FIELD_STREAM_ID,
	PESBENCH_FIELD_CPU,
	PESBENCH_FIELD_PERIOD,
	PESBENCH_FIELD_WEIGHT,       /* PERF_SAMPLE_WEIGHT, or the full u64 of WEIGHT_STRUCT */
	PESBENCH_FIELD_DATA_SRC,     /* union perf_mem_data_src */
	PESBENCH_FIELD_PHYS_ADDR,
	PESBENCH_FIELD_LOST,         /* LOST and LOST_SAMPLES: records lost */
	PESBENCH_FIELD_LEN,          /* MMAP/MMAP2 */
	PESBENCH_FIELD_PGOFF,        /* MMAP/MMAP2 */
	PESBENCH_FIELD_AUX_OFFSET,   /* AUX */
	PESBENCH_FIELD_AUX_SIZE,     /* AUX */
	PESBENCH_FIELD_AUX_FLAGS,    /* AUX: PERF_AUX_FLAG_* */
};

/* Stores the field in *value and returns 0, or returns -1 when the record does not carry it. */
int pesbench_record__field(const struct pesbench_record *rec, enum pesbench_field field,
			   uint64_t *value);
/* PERF_SAMPLE_RAW bytes of a sample (after the u32 size): NULL, *size 0, when absent. */
const void *pesbench_record__raw(const struct pesbench_record *rec, uint32_t *size);
/* PERF_SAMPLE_CALLCHAIN: the number of entries, 0 when absent, and entry i (0 past the end). */
uint64_t pesbench_record__callchain_nr(const struct pesbench_record *rec);
uint64_t pesbench_record__callchain_ip(const struct pesbench_record *rec, uint64_t i);
/* The string of a COMM record (the command) or MMAP/MMAP2 record (the file), else NULL. */
const char *pesbench_record__string(const struct pesbench_record *rec);

#ifdef __cplusplus
}
#endif

#endif
