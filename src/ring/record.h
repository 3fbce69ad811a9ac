/* Parsing of perf_event ring records (PERF_RECORD_*) into plain structs.
 * The parser trusts nothing: every length is checked against the record size. */
#ifndef PB_RECORD_H
#define PB_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	/* The record's bytes as pb_record_parse read them (size of them), valid only while the
	 * buffer it parsed is: what a capture stores unchanged. NULL when the record was built
	 * some other way (a sample taken out of an AUX area, a test's). */
	const uint8_t *bytes;
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

/* A sample whose fields all have one size (no READ, CALLCHAIN, RAW, BRANCH_STACK, REGS_*,
 * STACK_USER, AUX) has one size per event, and every field one offset: a reader of millions of
 * them can decode them without the full parser's per-field bounds checks (a perf.data walk spent
 * a quarter of its time there). */
struct pb_sample_layout {
	uint64_t sample_type;
	uint32_t size;            /* header included; 0: the size varies, no fast path */
	/* offsets of the IP, of pid, tid and of the time in the record; 0: absent */
	uint8_t ip_at, tid_at, time_at;
};

void pb_sample_layout_init(struct pb_sample_layout *layout, uint64_t sample_type);

/* Zeroes *out as pb_record_parse does before it decodes (all but a sample's arrays). */
void pb_record_clear_(struct pb_record *out);

static inline uint64_t pb_load_u64_(const uint8_t **p)
{
	uint64_t v;
	memcpy(&v, *p, 8);
	*p += 8;
	return v;
}

/* Decodes buf (len bytes) as pb_record_parse would when it is a PERF_RECORD_SAMPLE of exactly
 * the layout's size, and returns true; false, with *out untouched, for anything else (another
 * type, a record cut short or longer than the layout): the caller then parses it in full, which
 * reports what is wrong with it. `refill`: *out holds the last sample this function decoded with
 * this same layout and nothing has written to it since, so only the fields of the layout need
 * rewriting (every other byte is already what pb_record_parse would leave). Inline, like the
 * histogram's hash map: it runs once per sample of a perf.data walk. */
static inline bool pb_record_parse_fixed_sample(const struct pb_sample_layout *layout,
						const uint8_t *buf, size_t len,
						struct pb_record *out, bool refill)
{
	struct perf_event_header h;
	if (!layout->size || len < sizeof h)
		return false;
	memcpy(&h, buf, sizeof h);
	if (h.type != PERF_RECORD_SAMPLE || h.size != layout->size || h.size > len)
		return false;
	if (!refill)
		pb_record_clear_(out);
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;
	out->bytes = buf;
	struct pb_sample *s = &out->u.sample;
	uint64_t st = layout->sample_type;
	s->misc = h.misc;
	s->sample_type = st;
	/* The order and the splits of parse_sample, without its checks: the size says every
	 * field is there. */
	const uint8_t *p = buf + sizeof h;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->identifier = pb_load_u64_(&p);
	if (st & PERF_SAMPLE_IP)
		s->ip = pb_load_u64_(&p);
	if (st & PERF_SAMPLE_TID) {
		memcpy(&s->pid, p, 4);
		memcpy(&s->tid, p + 4, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = pb_load_u64_(&p);
	/* The rarer fields behind one test, so a small layout (IP, TID, TIME) pays for few */
	if (st & ~(uint64_t)(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME)) {
		if (st & PERF_SAMPLE_ADDR)
			s->addr = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_ID)
			s->id = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_STREAM_ID)
			s->stream_id = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_CPU) {
			memcpy(&s->cpu, p, 4);
			p += 8;
		}
		if (st & PERF_SAMPLE_PERIOD)
			s->period = pb_load_u64_(&p);
		if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
			s->weight = pb_load_u64_(&p);
			if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
				s->weight_var1 = (uint32_t)s->weight;
				s->weight_var2 = (uint16_t)(s->weight >> 32);
				s->weight_var3 = (uint16_t)(s->weight >> 48);
			}
		}
		if (st & PERF_SAMPLE_DATA_SRC)
			s->data_src = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_TRANSACTION)
			s->transaction = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_PHYS_ADDR)
			s->phys_addr = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_CGROUP)
			s->cgroup = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
			s->data_page_size = pb_load_u64_(&p);
		if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
			s->code_page_size = pb_load_u64_(&p);
	}
	return true;
}

const char *pb_record_type_name(uint32_t type);
/* Bytes of the sample_id block that trails non-sample records when sample_id_all is set. */
size_t pb_record_sample_id_size(uint64_t sample_type);
const char *pb_parse_status_text(int status);

#endif
