/* Decoding of PERF_RECORD_* records. The bytes come from the kernel, a perf.data file or a fuzzer,
 * so every field is read through a cursor that refuses to step past the record's end. No
 * allocation, locks or stdio: the ring drain calls this from signal handlers. */
#include "ring/record.h"
#include "util/kit.h"

#include <stddef.h>
#include <string.h>

/* A read position inside one record; `end` is the first byte that does not belong to the field
 * area being decoded. Once a read fails the cursor stays failed, so callers check once. */
struct cursor {
	const uint8_t *buf;
	size_t pos, end;
	bool truncated;
};

static bool have(struct cursor *c, uint64_t n)
{
	if (c->truncated || n > c->end - c->pos) {
		c->truncated = true;
		return false;
	}
	return true;
}

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (have(c, 8)) {
		memcpy(&v, c->buf + c->pos, 8);
		c->pos += 8;
	}
	return v;
}

static uint32_t take_u32(struct cursor *c)
{
	uint32_t v = 0;
	if (have(c, 4)) {
		memcpy(&v, c->buf + c->pos, 4);
		c->pos += 4;
	}
	return v;
}

/* Returns a pointer to n bytes and steps over them (NULL when they are not all there). */
static const uint8_t *take_bytes(struct cursor *c, uint64_t n)
{
	if (!have(c, n))
		return NULL;
	const uint8_t *p = c->buf + c->pos;
	c->pos += (size_t)n;
	return p;
}

/* n elements of `elem` bytes, with the multiplication checked before it can overflow. */
static const uint8_t *take_array(struct cursor *c, uint64_t n, uint64_t elem)
{
	if (c->truncated || n > (c->end - c->pos) / elem) {
		c->truncated = true;
		return NULL;
	}
	return take_bytes(c, n * elem);
}

void pb_record_format_from_attr(struct pb_record_format *fmt, const struct perf_event_attr *attr)
{
	memset(fmt, 0, sizeof(*fmt));
	fmt->sample_type = attr->sample_type;
	fmt->read_format = attr->read_format;
	fmt->sample_regs_user = attr->sample_regs_user;
	fmt->sample_regs_intr = attr->sample_regs_intr;
	fmt->branch_hw_index = (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;
	fmt->branch_counters = (attr->branch_sample_type & PB_SAMPLE_BRANCH_COUNTERS) != 0;
	fmt->sample_id_all = attr->sample_id_all;
}

size_t pb_record_sample_id_size(uint64_t sample_type)
{
	static const uint64_t fields[] = {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					  PERF_SAMPLE_IDENTIFIER};
	size_t size = 0;
	for (size_t i = 0; i < PB_ARRAY_SIZE(fields); i++)
		if (sample_type & fields[i])
			size += 8;
	return size;
}

static int parse_read(const struct pb_record_format *fmt, struct cursor *c, struct pb_read *r)
{
	uint64_t rf = fmt->read_format;
	if (rf & PERF_FORMAT_GROUP) {
		r->nr = take_u64(c);
		if (c->truncated)
			return PB_PARSE_TRUNCATED;
		if (r->nr > PB_MAX_READ_VALUES)
			return PB_PARSE_TOO_MANY;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			r->time_enabled = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			r->time_running = take_u64(c);
		for (uint64_t i = 0; i < r->nr; i++) {
			r->values[i].value = take_u64(c);
			r->values[i].id = (rf & PERF_FORMAT_ID) ? take_u64(c) : 0;
			r->values[i].lost = (rf & PERF_FORMAT_LOST) ? take_u64(c) : 0;
		}
	} else {
		r->nr = 1;
		r->values[0].value = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			r->time_enabled = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			r->time_running = take_u64(c);
		r->values[0].id = (rf & PERF_FORMAT_ID) ? take_u64(c) : 0;
		r->values[0].lost = (rf & PERF_FORMAT_LOST) ? take_u64(c) : 0;
	}
	return c->truncated ? PB_PARSE_TRUNCATED : PB_PARSE_OK;
}

static int parse_regs(struct cursor *c, uint64_t mask, struct pb_regs *regs)
{
	regs->abi = take_u64(c);
	regs->nr = 0;
	if (c->truncated)
		return PB_PARSE_TRUNCATED;
	/* The kernel writes no registers when it had none to give (ABI_NONE, e.g. a kernel thread). */
	if (regs->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return PB_PARSE_OK;
	unsigned n = (unsigned)__builtin_popcountll(mask);
	for (unsigned i = 0; i < n; i++)
		regs->regs[i] = take_u64(c);
	regs->nr = n;
	return c->truncated ? PB_PARSE_TRUNCATED : PB_PARSE_OK;
}

static int parse_sample(const struct pb_record_format *fmt, struct cursor *c, struct pb_sample *s)
{
	uint64_t st = fmt->sample_type;
	int rc;

	s->sample_type = st;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->identifier = take_u64(c);
	if (st & PERF_SAMPLE_IP)
		s->ip = take_u64(c);
	if (st & PERF_SAMPLE_TID) {
		s->pid = take_u32(c);
		s->tid = take_u32(c);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = take_u64(c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = take_u64(c);
	if (st & PERF_SAMPLE_ID)
		s->id = take_u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = take_u64(c);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = take_u32(c);
		(void)take_u32(c); /* res */
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = take_u64(c);
	if (c->truncated)
		return PB_PARSE_TRUNCATED;
	if (st & PERF_SAMPLE_READ) {
		rc = parse_read(fmt, c, &s->read);
		if (rc != PB_PARSE_OK)
			return rc;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->callchain_nr = take_u64(c);
		s->callchain = (const uint64_t *)(const void *)take_array(c, s->callchain_nr, 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size + data, padded by the kernel so the next field is 8-byte aligned again. */
		size_t start = c->pos;
		s->raw_size = take_u32(c);
		s->raw = take_bytes(c, s->raw_size);
		if (!c->truncated) {
			size_t used = c->pos - start;
			size_t pad = (8 - used % 8) % 8;
			(void)take_bytes(c, pad);
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->branch_nr = take_u64(c);
		if (fmt->branch_hw_index)
			s->branch_hw_index = take_u64(c);
		s->branches = take_array(c, s->branch_nr, 24);
		if (fmt->branch_counters)
			s->branch_counters = take_array(c, s->branch_nr, 8);
	}
	if (c->truncated)
		return PB_PARSE_TRUNCATED;
	if (st & PERF_SAMPLE_REGS_USER) {
		rc = parse_regs(c, fmt->sample_regs_user, &s->regs_user);
		if (rc != PB_PARSE_OK)
			return rc;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		s->stack_user_size = take_u64(c);
		s->stack_user = take_bytes(c, s->stack_user_size);
		/* dyn_size exists only when a stack was dumped. */
		if (s->stack_user_size != 0)
			s->stack_user_dyn_size = take_u64(c);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		s->weight = take_u64(c);
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			s->weight_var1 = (uint32_t)s->weight;
			s->weight_var2 = (uint16_t)(s->weight >> 32);
			s->weight_var3 = (uint16_t)(s->weight >> 48);
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = take_u64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = take_u64(c);
	if (c->truncated)
		return PB_PARSE_TRUNCATED;
	if (st & PERF_SAMPLE_REGS_INTR) {
		rc = parse_regs(c, fmt->sample_regs_intr, &s->regs_intr);
		if (rc != PB_PARSE_OK)
			return rc;
	}
	/* The order below is the kernel's (perf_output_sample), which the uapi comment does not
	 * spell out: CGROUP and the page sizes come before AUX. */
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = take_u64(c);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = take_u64(c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = take_u64(c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = take_u64(c);
	if (st & PERF_SAMPLE_AUX) {
		s->aux_size = take_u64(c);
		s->aux = take_bytes(c, s->aux_size);
	}
	return c->truncated ? PB_PARSE_TRUNCATED : PB_PARSE_OK;
}

/* The sample_id block sits at the very end of the record, after variable-length payloads such as
 * file names, so it is decoded from there; the payload area then ends where it starts. */
static int parse_sample_id(const struct pb_record_format *fmt, struct cursor *c,
			   struct pb_sample_id *id)
{
	if (!fmt->sample_id_all)
		return PB_PARSE_OK;
	size_t size = pb_record_sample_id_size(fmt->sample_type);
	if (size > c->end - c->pos)
		return PB_PARSE_TRUNCATED;
	struct cursor t = {.buf = c->buf, .pos = c->end - size, .end = c->end};
	uint64_t st = fmt->sample_type;
	if (st & PERF_SAMPLE_TID) {
		id->pid = take_u32(&t);
		id->tid = take_u32(&t);
	}
	if (st & PERF_SAMPLE_TIME)
		id->time = take_u64(&t);
	if (st & PERF_SAMPLE_ID)
		id->id = take_u64(&t);
	if (st & PERF_SAMPLE_STREAM_ID)
		id->stream_id = take_u64(&t);
	if (st & PERF_SAMPLE_CPU) {
		id->cpu = take_u32(&t);
		(void)take_u32(&t);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		id->identifier = take_u64(&t);
	id->present = true;
	c->end -= size;
	return PB_PARSE_OK;
}

/* A NUL-terminated string that must end inside the payload area. */
static const char *take_string(struct cursor *c)
{
	if (c->truncated || c->pos >= c->end) {
		c->truncated = true;
		return NULL;
	}
	const char *s = (const char *)c->buf + c->pos;
	if (!memchr(s, '\0', c->end - c->pos)) {
		c->truncated = true;
		return NULL;
	}
	c->pos = c->end;
	return s;
}

static void parse_mmap2(struct cursor *c, uint16_t misc, struct pb_record *out)
{
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		out->u.mmap.has_build_id = true;
		const uint8_t *b = take_bytes(c, 24);
		if (!b)
			return;
		out->u.mmap.build_id_size = b[0];
		/* A size beyond the 20-byte field would make consumers read past it. */
		if (b[0] > sizeof(out->u.mmap.build_id)) {
			c->truncated = true;
			return;
		}
		memcpy(out->u.mmap.build_id, b + 4, b[0]);
	} else {
		out->u.mmap.maj = take_u32(c);
		out->u.mmap.min = take_u32(c);
		out->u.mmap.ino = take_u64(c);
		out->u.mmap.ino_generation = take_u64(c);
	}
	out->u.mmap.prot = take_u32(c);
	out->u.mmap.flags = take_u32(c);
}

static int parse_other(const struct pb_record_format *fmt, struct cursor *c, struct pb_record *out)
{
	int rc = parse_sample_id(fmt, c, &out->sample_id);
	if (rc != PB_PARSE_OK)
		return rc;
	switch (out->type) {
	case PERF_RECORD_LOST:
		out->u.lost.id = take_u64(c);
		out->u.lost.lost = take_u64(c);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		out->u.lost_samples.lost = take_u64(c);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		out->u.throttle.time = take_u64(c);
		out->u.throttle.id = take_u64(c);
		out->u.throttle.stream_id = take_u64(c);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		out->u.mmap.pid = take_u32(c);
		out->u.mmap.tid = take_u32(c);
		out->u.mmap.addr = take_u64(c);
		out->u.mmap.len = take_u64(c);
		out->u.mmap.pgoff = take_u64(c);
		if (out->type == PERF_RECORD_MMAP2)
			parse_mmap2(c, out->misc, out);
		out->u.mmap.filename = take_string(c);
		break;
	case PERF_RECORD_COMM:
		out->u.comm.pid = take_u32(c);
		out->u.comm.tid = take_u32(c);
		out->u.comm.comm = take_string(c);
		break;
	case PERF_RECORD_AUX:
		out->u.aux.aux_offset = take_u64(c);
		out->u.aux.aux_size = take_u64(c);
		out->u.aux.flags = take_u64(c);
		break;
	case PERF_RECORD_ITRACE_START:
		out->u.itrace_start.pid = take_u32(c);
		out->u.itrace_start.tid = take_u32(c);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		out->u.task.pid = take_u32(c);
		out->u.task.ppid = take_u32(c);
		out->u.task.tid = take_u32(c);
		out->u.task.ptid = take_u32(c);
		out->u.task.time = take_u64(c);
		break;
	default:
		return PB_PARSE_UNKNOWN;
	}
	return c->truncated ? PB_PARSE_TRUNCATED : PB_PARSE_OK;
}

static inline __attribute__((always_inline)) void zero_span(uint8_t *b, size_t from, size_t to)
{
	/* In pieces of 64 bytes: GCC inlines those as vector stores, but a longer constant memset
	 * as `rep stos`, whose start-up on AMD cost more than all the rest of a sample's parse. */
	for (; from + 64 <= to; from += 64)
		memset(b + from, 0, 64);
	memset(b + from, 0, to - from);
}

/* Zeroes *out but for the arrays of a sample (read values, user and interrupt registers):
 * they are 1.4 KiB of the 1.8 KiB record, and zeroing them cost more than all the rest of a
 * small sample's decoding (reading a perf.data of 5 M samples spent two thirds of its
 * instructions here). parse_read and parse_regs set every element below the nr they set; the
 * ones past it are documented as undefined. */
void pb_record_clear_(struct pb_record *out)
{
#define AT(f) offsetof(struct pb_record, u.sample.f)
#define END(f) (AT(f) + sizeof out->u.sample.f)
	uint8_t *b = (uint8_t *)out;
	zero_span(b, 0, AT(read.values));
	zero_span(b, END(read.values), AT(regs_user.regs));
	zero_span(b, END(regs_user.regs), AT(regs_intr.regs));
	zero_span(b, END(regs_intr.regs), sizeof(*out));
#undef AT
#undef END
}

int pb_record_parse(const struct pb_record_format *fmt, const uint8_t *buf, size_t len,
		    struct pb_record *out)
{
	struct perf_event_header h;

	pb_record_clear_(out);
	if (len < sizeof(h))
		return PB_PARSE_TRUNCATED;
	memcpy(&h, buf, sizeof(h));
	out->bytes = buf;
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;
	if (h.size < sizeof(h) || h.size % 8 != 0)
		return PB_PARSE_BAD_HEADER;
	if (h.size > len)
		return PB_PARSE_TRUNCATED;

	struct cursor c = {.buf = buf, .pos = sizeof(h), .end = h.size};
	if (h.type == PERF_RECORD_SAMPLE) {
		out->u.sample.misc = h.misc;
		return parse_sample(fmt, &c, &out->u.sample);
	}
	int rc = parse_other(fmt, &c, out);
	if (rc == PB_PARSE_UNKNOWN)
		out->sample_id.present = false;
	return rc;
}

/* The sample fields whose size never varies (WEIGHT and WEIGHT_STRUCT share one word). */
#define PB_FIXED_SAMPLE_FIELDS                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |        \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |         \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |                  \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |               \
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

void pb_sample_layout_init(struct pb_sample_layout *layout, uint64_t sample_type)
{
	layout->sample_type = sample_type;
	layout->size = 0;
	layout->ip_at = layout->tid_at = layout->time_at = 0;
	/* A bit this parser does not know (a newer kernel's field) may add bytes: no fast path. */
	if (sample_type & ~(uint64_t)PB_FIXED_SAMPLE_FIELDS)
		return;
	/* Only IDENTIFIER comes before IP, only IDENTIFIER and IP before TID, only those three
	 * before TIME (parse_sample, the kernel's perf_output_sample). */
	size_t at = sizeof(struct perf_event_header) +
		    (sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0);
	if (sample_type & PERF_SAMPLE_IP)
		layout->ip_at = (uint8_t)at;
	at += sample_type & PERF_SAMPLE_IP ? 8 : 0;
	if (sample_type & PERF_SAMPLE_TID)
		layout->tid_at = (uint8_t)at;
	at += sample_type & PERF_SAMPLE_TID ? 8 : 0;
	if (sample_type & PERF_SAMPLE_TIME)
		layout->time_at = (uint8_t)at;
	uint64_t words = sample_type;
	if (words & PERF_SAMPLE_WEIGHT)
		words &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
	layout->size = (uint32_t)(sizeof(struct perf_event_header) +
				  8 * (size_t)__builtin_popcountll(words));
}

const char *pb_record_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	if (type < PB_ARRAY_SIZE(names) && names[type])
		return names[type];
	return "UNKNOWN";
}

const char *pb_parse_status_text(int status)
{
	switch (status) {
	case PB_PARSE_OK:
		return "ok";
	case PB_PARSE_TRUNCATED:
		return "truncated record: a field runs past the record's size";
	case PB_PARSE_BAD_HEADER:
		return "bad record header: size smaller than 8 bytes or not a multiple of 8";
	case PB_PARSE_TOO_MANY:
		return "record holds more read values than pesbench supports (16)";
	case PB_PARSE_UNKNOWN:
		return "record type not decoded by pesbench";
	default:
		return "invalid parse status";
	}
}
