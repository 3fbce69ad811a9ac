/* Parsing of perf_event ring records (PERF_RECORD_*) into plain structs.
 * The parser trusts nothing: every length is checked against the record size. */
#ifndef PB_RECORD_H
#define PB_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_MAX_READ_VALUES 16
#define PB_MAX_REGS 64

/* branch_sample_type bit (Linux 6.8) that appends one u64 of event counters per branch entry;
 * older uapi headers do not define it. */
#define PB_SAMPLE_BRANCH_COUNTERS (1ULL << 19)

/* What the parser needs to know of the attr that produced the records. */
struct pb_record_format {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t sample_regs_user;
	uint64_t sample_regs_intr;
	bool branch_hw_index;   /* branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX */
	bool branch_counters;   /* branch_sample_type & PB_SAMPLE_BRANCH_COUNTERS */
	bool sample_id_all;
};

void pb_record_format_from_attr(struct pb_record_format *fmt, const struct perf_event_attr *attr);

struct pb_read_value {
	uint64_t value;
	uint64_t id;
	uint64_t lost;
};

struct pb_read {
	uint64_t nr;              /* values held (1 unless PERF_FORMAT_GROUP) */
	uint64_t time_enabled;
	uint64_t time_running;
	struct pb_read_value values[PB_MAX_READ_VALUES]; /* values[nr..] undefined */
};

struct pb_regs {
	uint64_t abi;             /* PERF_SAMPLE_REGS_ABI_*; 0 = none recorded */
	uint32_t nr;
	uint64_t regs[PB_MAX_REGS]; /* regs[nr..] undefined */
};

/* A decoded PERF_RECORD_SAMPLE. Pointers (raw, branches, callchain) point into the
 * buffer given to the parser and live only as long as it. */
struct pb_sample {
	uint64_t sample_type;     /* which fields below are valid */
	uint16_t misc;
	uint64_t identifier;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	struct pb_read read;
	uint64_t callchain_nr;
	const uint64_t *callchain;        /* unaligned-safe: read with memcpy */
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_index;
	const uint8_t *branches;          /* branch_nr × struct perf_branch_entry (24 bytes) */
	const uint8_t *branch_counters;   /* branch_nr × u64, when fmt->branch_counters */
	struct pb_regs regs_user;
	uint64_t stack_user_size, stack_user_dyn_size;
	const uint8_t *stack_user;
	uint64_t weight;                  /* PERF_SAMPLE_WEIGHT, or the full u64 of WEIGHT_STRUCT */
	uint32_t weight_var1;             /* WEIGHT_STRUCT: var1_dw */
	uint16_t weight_var2, weight_var3;
	uint64_t data_src;
	uint64_t transaction;
	struct pb_regs regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
};

/* The trailing sample_id block of non-sample records (sample_id_all). */
struct pb_sample_id {
	bool present;
	uint32_t pid, tid;
	uint64_t time, id, stream_id, identifier;
	uint32_t cpu;
};

struct pb_record {
	uint32_t type;            /* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	struct pb_sample_id sample_id;
	union {
		struct pb_sample sample;
		struct { uint64_t id, lost; } lost;                       /* PERF_RECORD_LOST */
		struct { uint64_t lost; } lost_samples;                   /* PERF_RECORD_LOST_SAMPLES */
		struct { uint64_t time, id, stream_id; } throttle;        /* THROTTLE / UNTHROTTLE */
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
			const char *filename;                             /* NUL-terminated inside the record */
			bool has_build_id;        /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID: maj..ino_generation are 0 */
			uint8_t build_id_size;
			uint8_t build_id[20];
		} mmap;                                                   /* MMAP and MMAP2 */
		struct { uint32_t pid, tid; const char *comm; } comm;
		struct { uint64_t aux_offset, aux_size, flags; } aux;
		struct { uint32_t pid, tid; } itrace_start;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task;  /* FORK / EXIT */
	} u;
};

enum pb_parse_status {
	PB_PARSE_OK = 0,
	PB_PARSE_TRUNCATED = -1,  /* a field runs past the record's size */
	PB_PARSE_BAD_HEADER = -2, /* size smaller than the header or not a multiple of 8 */
	PB_PARSE_TOO_MANY = -3,   /* more read values or registers than pesbench holds */
	PB_PARSE_UNKNOWN = 1      /* a record type pesbench does not decode; header fields valid */
};

/* Parses one record of `len` bytes (len >= header.size). */
int pb_record_parse(const struct pb_record_format *fmt, const uint8_t *buf, size_t len,
		    struct pb_record *out);
const char *pb_record_type_name(uint32_t type);
/* Bytes of the sample_id block that trails non-sample records when sample_id_all is set. */
size_t pb_record_sample_id_size(uint64_t sample_type);
const char *pb_parse_status_text(int status);

#endif
