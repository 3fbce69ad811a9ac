/* Record parser: every sample field and record type survives a round trip through the fake
 * kernel's serialiser, and every truncation is refused without reading out of bounds (run under
 * ASan: truncated copies live in exactly-sized heap blocks). */
#include "check.h"
#include "fake_kernel.h"
#include "ring/record.h"
#include "rec_writer.h"
#include "util/kit.h"
#include "util/rng.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#define ALL_SAMPLE_BITS ((uint64_t)PERF_SAMPLE_MAX - 1)

static struct pb_rng rng = {0x9e3779b97f4a7c15};

static uint64_t rnd(void)
{
	return pb_rng_next(&rng);
}

/* Payload storage the sample's pointers refer to. */
static uint64_t callchain_buf[40];
static uint8_t raw_buf[64], branch_buf[24 * 8], counters_buf[8 * 8], stack_buf[256], aux_buf[64];

static void fill_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd();
}

/* A sample with every field set to something distinctive for attr's layout. */
static void make_sample(const struct perf_event_attr *attr, struct pb_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP;
	s->identifier = rnd();
	s->ip = rnd();
	s->pid = (uint32_t)rnd();
	s->tid = (uint32_t)rnd();
	s->time = rnd();
	s->addr = rnd();
	s->id = rnd();
	s->stream_id = rnd();
	s->cpu = (uint32_t)rnd();
	s->period = rnd();
	s->read.nr = (attr->read_format & PERF_FORMAT_GROUP) ? 1 + rnd() % PB_MAX_READ_VALUES : 1;
	s->read.time_enabled = rnd();
	s->read.time_running = rnd();
	for (unsigned i = 0; i < s->read.nr; i++) {
		s->read.values[i].value = rnd();
		s->read.values[i].id = rnd();
		s->read.values[i].lost = rnd();
	}
	s->callchain_nr = rnd() % 40;
	for (unsigned i = 0; i < 40; i++)
		callchain_buf[i] = rnd();
	s->callchain = callchain_buf;
	s->raw_size = (uint32_t)(rnd() % sizeof(raw_buf));
	fill_bytes(raw_buf, sizeof(raw_buf));
	s->raw = raw_buf;
	s->branch_nr = rnd() % 9;
	s->branch_hw_index = rnd();
	fill_bytes(branch_buf, sizeof(branch_buf));
	fill_bytes(counters_buf, sizeof(counters_buf));
	s->branches = branch_buf;
	s->branch_counters = counters_buf;
	s->regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
	s->regs_intr.abi = PERF_SAMPLE_REGS_ABI_64;
	for (unsigned i = 0; i < PB_MAX_REGS; i++) {
		s->regs_user.regs[i] = rnd();
		s->regs_intr.regs[i] = rnd();
	}
	s->stack_user_size = 8 * (rnd() % 32);
	s->stack_user_dyn_size = rnd();
	fill_bytes(stack_buf, sizeof(stack_buf));
	s->stack_user = stack_buf;
	s->weight = rnd();
	s->data_src = rnd();
	s->transaction = rnd();
	s->phys_addr = rnd();
	s->cgroup = rnd();
	s->data_page_size = rnd();
	s->code_page_size = rnd();
	s->aux_size = 8 * (rnd() % 8);
	fill_bytes(aux_buf, sizeof(aux_buf));
	s->aux = aux_buf;
}

/* Compares what the parser decoded with what was serialised, field by field. */
static void compare_sample(const struct perf_event_attr *attr, const struct pb_sample *want,
			   const struct pb_sample *got)
{
	uint64_t st = attr->sample_type, rf = attr->read_format;
	CHECK_EQ_U64(got->sample_type, st);
	CHECK_EQ_U64(got->misc, want->misc);
	if (st & PERF_SAMPLE_IDENTIFIER)
		CHECK_EQ_U64(got->identifier, want->identifier);
	if (st & PERF_SAMPLE_IP)
		CHECK_EQ_U64(got->ip, want->ip);
	if (st & PERF_SAMPLE_TID) {
		CHECK_EQ_U64(got->pid, want->pid);
		CHECK_EQ_U64(got->tid, want->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		CHECK_EQ_U64(got->time, want->time);
	if (st & PERF_SAMPLE_ADDR)
		CHECK_EQ_U64(got->addr, want->addr);
	if (st & PERF_SAMPLE_ID)
		CHECK_EQ_U64(got->id, want->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		CHECK_EQ_U64(got->stream_id, want->stream_id);
	if (st & PERF_SAMPLE_CPU)
		CHECK_EQ_U64(got->cpu, want->cpu);
	if (st & PERF_SAMPLE_PERIOD)
		CHECK_EQ_U64(got->period, want->period);
	if (st & PERF_SAMPLE_READ) {
		CHECK_EQ_U64(got->read.nr, want->read.nr);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			CHECK_EQ_U64(got->read.time_enabled, want->read.time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			CHECK_EQ_U64(got->read.time_running, want->read.time_running);
		for (unsigned i = 0; i < want->read.nr && i < got->read.nr; i++) {
			CHECK_EQ_U64(got->read.values[i].value, want->read.values[i].value);
			CHECK_EQ_U64(got->read.values[i].id,
				     (rf & PERF_FORMAT_ID) ? want->read.values[i].id : 0);
			CHECK_EQ_U64(got->read.values[i].lost,
				     (rf & PERF_FORMAT_LOST) ? want->read.values[i].lost : 0);
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		CHECK_EQ_U64(got->callchain_nr, want->callchain_nr);
		CHECK(got->callchain && !memcmp(got->callchain, want->callchain, want->callchain_nr * 8));
	}
	if (st & PERF_SAMPLE_RAW) {
		CHECK_EQ_U64(got->raw_size, want->raw_size);
		CHECK(got->raw && !memcmp(got->raw, want->raw, want->raw_size));
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		CHECK_EQ_U64(got->branch_nr, want->branch_nr);
		CHECK_EQ_U64(got->branch_hw_index,
			     (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
				     ? want->branch_hw_index : 0);
		CHECK(got->branches && !memcmp(got->branches, want->branches, want->branch_nr * 24));
		if (attr->branch_sample_type & PB_SAMPLE_BRANCH_COUNTERS)
			CHECK(got->branch_counters &&
			      !memcmp(got->branch_counters, want->branch_counters, want->branch_nr * 8));
		else
			CHECK(got->branch_counters == NULL);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		CHECK_EQ_U64(got->regs_user.abi, want->regs_user.abi);
		CHECK_EQ_U64(got->regs_user.nr, __builtin_popcountll(attr->sample_regs_user));
		CHECK(!memcmp(got->regs_user.regs, want->regs_user.regs, got->regs_user.nr * 8));
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		CHECK_EQ_U64(got->stack_user_size, want->stack_user_size);
		CHECK(!memcmp(got->stack_user, want->stack_user, want->stack_user_size));
		CHECK_EQ_U64(got->stack_user_dyn_size,
			     want->stack_user_size ? want->stack_user_dyn_size : 0);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		CHECK_EQ_U64(got->weight, want->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		CHECK_EQ_U64(got->data_src, want->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		CHECK_EQ_U64(got->transaction, want->transaction);
	if (st & PERF_SAMPLE_REGS_INTR) {
		CHECK_EQ_U64(got->regs_intr.abi, want->regs_intr.abi);
		CHECK_EQ_U64(got->regs_intr.nr, __builtin_popcountll(attr->sample_regs_intr));
		CHECK(!memcmp(got->regs_intr.regs, want->regs_intr.regs, got->regs_intr.nr * 8));
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		CHECK_EQ_U64(got->phys_addr, want->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		CHECK_EQ_U64(got->cgroup, want->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		CHECK_EQ_U64(got->data_page_size, want->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		CHECK_EQ_U64(got->code_page_size, want->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		CHECK_EQ_U64(got->aux_size, want->aux_size);
		CHECK(got->aux && !memcmp(got->aux, want->aux, want->aux_size));
	}
}

/* Every prefix of a record, copied into a heap block of exactly that size, must be refused. */
static void check_truncations(const struct pb_record_format *fmt, const uint8_t *rec, size_t size)
{
	struct pb_record out;
	unsigned wrong = 0;
	for (size_t len = 0; len < size; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, rec, len);
		int rc = pb_record_parse(fmt, copy, len, &out);
		if (rc != PB_PARSE_TRUNCATED) {
			if (!wrong)
				fprintf(stderr, "prefix %zu of %zu bytes: %s\n", len, size,
					pb_parse_status_text(rc));
			wrong++;
		}
		free(copy);
	}
	/* The same with the header claiming a shorter record: every field is mandatory. */
	for (size_t claimed = 8; claimed < size; claimed += 8) {
		uint8_t *copy = malloc(claimed);
		memcpy(copy, rec, claimed);
		uint16_t sz = (uint16_t)claimed;
		memcpy(copy + 6, &sz, 2);
		int rc = pb_record_parse(fmt, copy, claimed, &out);
		if (rc != PB_PARSE_TRUNCATED) {
			if (!wrong)
				fprintf(stderr, "header size %zu of %zu: %s\n", claimed, size,
					pb_parse_status_text(rc));
			wrong++;
		}
		free(copy);
	}
	CHECK_EQ_U64(wrong, 0);
}

static uint8_t recbuf[65536];

/* Builds a sample for attr, parses it back, compares, and optionally tries all truncations. */
static size_t round_trip(const struct perf_event_attr *attr, bool truncations)
{
	struct pb_sample want;
	struct pb_record_format fmt;
	struct pb_record got;
	make_sample(attr, &want);
	pb_record_format_from_attr(&fmt, attr);
	size_t size = fake_build_sample(recbuf, sizeof(recbuf), attr, &want);
	CHECK(size >= 8 && size % 8 == 0);
	if (size < 8)
		return 0;
	uint8_t *copy = malloc(size);
	memcpy(copy, recbuf, size);
	int rc = pb_record_parse(&fmt, copy, size, &got);
	CHECK_EQ_U64(rc, PB_PARSE_OK);
	CHECK_EQ_U64(got.type, PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(got.size, size);
	if (rc == PB_PARSE_OK)
		compare_sample(attr, &want, &got.u.sample);
	free(copy);
	if (truncations)
		check_truncations(&fmt, recbuf, size);
	return size;
}

static void attr_for(struct perf_event_attr *attr, uint64_t sample_type, uint64_t read_format)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_type = sample_type;
	attr->read_format = read_format;
	attr->sample_regs_user = 0x0000000000ff00f3ULL;
	attr->sample_regs_intr = 0x8000000000000005ULL;
}

static void test_each_field_alone(void)
{
	struct perf_event_attr attr;
	for (unsigned bit = 0; bit < 25; bit++) {
		attr_for(&attr, 1ULL << bit, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID);
		round_trip(&attr, true);
	}
	/* Fixed-size fields have a known size: header + the field. */
	attr_for(&attr, PERF_SAMPLE_IP, 0);
	CHECK_EQ_U64(round_trip(&attr, false), 16);
	attr_for(&attr, PERF_SAMPLE_TID | PERF_SAMPLE_CPU, 0);
	CHECK_EQ_U64(round_trip(&attr, false), 24);
}

static void test_all_fields_together(void)
{
	struct perf_event_attr attr;
	for (uint64_t rf = 0; rf < PERF_FORMAT_MAX; rf++) {
		for (int ws = 0; ws < 2; ws++) {
			uint64_t st = ALL_SAMPLE_BITS &
				      ~(ws ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);
			attr_for(&attr, st, rf);
			attr.branch_sample_type = (rf & 1) ? PERF_SAMPLE_BRANCH_HW_INDEX : 0;
			if (rf & 2)
				attr.branch_sample_type |= PB_SAMPLE_BRANCH_COUNTERS;
			round_trip(&attr, rf == PERF_FORMAT_MAX - 1);
		}
	}
}

static void test_random_combinations(void)
{
	struct perf_event_attr attr;
	for (unsigned i = 0; i < 3000; i++) {
		uint64_t st = rnd() & ALL_SAMPLE_BITS;
		if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
			st &= ~PERF_SAMPLE_WEIGHT;
		attr_for(&attr, st, rnd() % PERF_FORMAT_MAX);
		attr.sample_regs_user = rnd();
		attr.sample_regs_intr = rnd() & rnd();
		attr.branch_sample_type = rnd() & (PERF_SAMPLE_BRANCH_HW_INDEX | PB_SAMPLE_BRANCH_COUNTERS);
		round_trip(&attr, i % 50 == 0);
	}
}

static void test_group_read(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_record got;
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	attr_for(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD, rf);
	pb_record_format_from_attr(&fmt, &attr);

	struct pb_sample s;
	memset(&s, 0, sizeof(s));
	s.ip = 0x401000;
	s.period = 7;
	s.read.nr = 3;
	s.read.time_enabled = 1000;
	s.read.time_running = 600;
	for (unsigned i = 0; i < 3; i++) {
		s.read.values[i].value = 100 + i;
		s.read.values[i].id = 50 + i;
		s.read.values[i].lost = 9 + i;
	}
	size_t size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	/* header, ip, period, nr, enabled, running, 3 × {value, id, lost} */
	CHECK_EQ_U64(size, 8 + 8 + 8 + 8 + 16 + 3 * 24);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.read.nr, 3);
	CHECK_EQ_U64(got.u.sample.read.time_enabled, 1000);
	CHECK_EQ_U64(got.u.sample.read.time_running, 600);
	CHECK_EQ_U64(got.u.sample.read.values[2].value, 102);
	CHECK_EQ_U64(got.u.sample.read.values[2].id, 52);
	CHECK_EQ_U64(got.u.sample.read.values[2].lost, 11);
	CHECK_EQ_U64(got.u.sample.period, 7);

	/* Single-value layout: value, enabled, running, id, lost. */
	attr.read_format = rf & ~(uint64_t)PERF_FORMAT_GROUP;
	pb_record_format_from_attr(&fmt, &attr);
	size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 8 + 8 + 8 + 5 * 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.read.nr, 1);
	CHECK_EQ_U64(got.u.sample.read.values[0].value, 100);
	CHECK_EQ_U64(got.u.sample.read.values[0].lost, 9);

	/* A group larger than pesbench holds is refused, not overflowed. */
	attr.read_format = PERF_FORMAT_GROUP;
	pb_record_format_from_attr(&fmt, &attr);
	struct writer_like { uint64_t v[64]; } big;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 0};
	size_t n = 0;
	big.v[n++] = 0;
	big.v[n++] = 0x401000;   /* ip */
	big.v[n++] = 7;          /* period */
	big.v[n++] = PB_MAX_READ_VALUES + 1;
	for (unsigned i = 0; i <= PB_MAX_READ_VALUES; i++)
		big.v[n++] = i;
	h.size = (uint16_t)(n * 8);
	memcpy(big.v, &h, 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, (const uint8_t *)big.v, n * 8, &got), PB_PARSE_TOO_MANY);
}

static void test_weight(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_record got;
	struct pb_sample s;
	memset(&s, 0, sizeof(s));
	s.weight = 0x0003000200000001ULL;

	attr_for(&attr, PERF_SAMPLE_WEIGHT_STRUCT, 0);
	pb_record_format_from_attr(&fmt, &attr);
	size_t size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 16);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.weight, s.weight);
	CHECK_EQ_U64(got.u.sample.weight_var1, 1);
	CHECK_EQ_U64(got.u.sample.weight_var2, 2);
	CHECK_EQ_U64(got.u.sample.weight_var3, 3);

	attr_for(&attr, PERF_SAMPLE_WEIGHT, 0);
	pb_record_format_from_attr(&fmt, &attr);
	size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 16);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.weight, s.weight);
	CHECK_EQ_U64(got.u.sample.weight_var1, 0);
	CHECK_EQ_U64(got.u.sample.weight_var3, 0);
}

static void test_regs(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_record got;
	struct pb_sample s;
	memset(&s, 0, sizeof(s));
	for (unsigned i = 0; i < PB_MAX_REGS; i++)
		s.regs_user.regs[i] = 1000 + i;

	attr_for(&attr, PERF_SAMPLE_REGS_USER, 0);
	attr.sample_regs_user = (1ULL << 0) | (1ULL << 3) | (1ULL << 8) | (1ULL << 16) | (1ULL << 63);
	pb_record_format_from_attr(&fmt, &attr);
	s.regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
	size_t size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 8 + 8 + 5 * 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.regs_user.nr, 5);
	CHECK_EQ_U64(got.u.sample.regs_user.regs[4], 1004);

	/* ABI_NONE: the kernel writes the abi word and no registers. */
	s.regs_user.abi = PERF_SAMPLE_REGS_ABI_NONE;
	size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 16);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.regs_user.nr, 0);

	/* All 64 registers. */
	attr.sample_regs_user = ~0ULL;
	pb_record_format_from_attr(&fmt, &attr);
	s.regs_user.abi = PERF_SAMPLE_REGS_ABI_32;
	size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 16 + 64 * 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.regs_user.nr, 64);
	CHECK_EQ_U64(got.u.sample.regs_user.regs[63], 1063);
}

static void test_branch_stack(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_record got;
	struct pb_sample s;
	uint8_t entries[3 * 24];
	for (unsigned i = 0; i < sizeof(entries); i++)
		entries[i] = (uint8_t)(i * 7 + 1);
	memset(&s, 0, sizeof(s));
	s.branch_nr = 3;
	s.branches = entries;
	s.branch_hw_index = 0xabcdef;

	attr_for(&attr, PERF_SAMPLE_BRANCH_STACK, 0);
	pb_record_format_from_attr(&fmt, &attr);
	CHECK(!fmt.branch_hw_index);
	size_t size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 8 + 8 + 3 * 24);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.branch_nr, 3);
	CHECK_EQ_U64(got.u.sample.branch_hw_index, 0);
	CHECK(got.u.sample.branches == recbuf + 16);
	CHECK(!memcmp(got.u.sample.branches, entries, sizeof(entries)));

	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	pb_record_format_from_attr(&fmt, &attr);
	CHECK(fmt.branch_hw_index);
	size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	CHECK_EQ_U64(size, 8 + 16 + 3 * 24);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.branch_hw_index, 0xabcdef);
	CHECK(got.u.sample.branches == recbuf + 24);
	CHECK(!memcmp(got.u.sample.branches, entries, sizeof(entries)));
	/* Without the hw_idx flag the entries start 8 bytes early (trailing bytes are tolerated):
	 * the flag must come from the attr, not be guessed from the size. */
	fmt.branch_hw_index = false;
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK(got.u.sample.branch_hw_index == 0 && got.u.sample.branches == recbuf + 16);

	/* An absurd nr must not overflow the size computation. */
	attr.branch_sample_type = 0;
	pb_record_format_from_attr(&fmt, &attr);
	uint64_t evil[3] = {0, 0x0aaaaaaaaaaaaaabULL, 0};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 24};
	memcpy(evil, &h, 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, (const uint8_t *)evil, 24, &got), PB_PARSE_TRUNCATED);
}

static void test_raw_padding(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	struct pb_record got;
	struct pb_sample s;
	uint8_t raw[13];
	for (unsigned i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(0xa0 + i);
	memset(&s, 0, sizeof(s));
	s.raw = raw;
	s.raw_size = sizeof(raw);
	s.period = 0x1122334455667788ULL;
	attr_for(&attr, PERF_SAMPLE_RAW | PERF_SAMPLE_DATA_SRC, 0);
	s.data_src = 0x5566;
	pb_record_format_from_attr(&fmt, &attr);
	size_t size = fake_build_sample(recbuf, sizeof(recbuf), &attr, &s);
	/* 4 + 13 = 17 bytes padded to 24, then data_src */
	CHECK_EQ_U64(size, 8 + 24 + 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, recbuf, size, &got), PB_PARSE_OK);
	CHECK_EQ_U64(got.u.sample.raw_size, 13);
	CHECK(!memcmp(got.u.sample.raw, raw, 13));
	CHECK_EQ_U64(got.u.sample.data_src, 0x5566);
}

/* ---- non-sample records ---- */

#define ID_SAMPLE_TYPE                                                                         \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |           \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP)

static size_t w_end(struct rec_writer *w, bool sample_id_all)
{
	if (sample_id_all) {
		w_u32(w, 4242); /* pid */
		w_u32(w, 4243); /* tid */
		w_u64(w, 777);  /* time */
		w_u64(w, 55);   /* id */
		w_u64(w, 56);   /* stream_id */
		w_u32(w, 1);    /* cpu */
		w_u32(w, 0);
		w_u64(w, 55);   /* identifier */
	}
	return w_size(w);
}

static void check_sample_id(const struct pb_record *r, bool sample_id_all)
{
	CHECK(r->sample_id.present == sample_id_all);
	if (sample_id_all) {
		CHECK_EQ_U64(r->sample_id.pid, 4242);
		CHECK_EQ_U64(r->sample_id.tid, 4243);
		CHECK_EQ_U64(r->sample_id.time, 777);
		CHECK_EQ_U64(r->sample_id.id, 55);
		CHECK_EQ_U64(r->sample_id.stream_id, 56);
		CHECK_EQ_U64(r->sample_id.cpu, 1);
		CHECK_EQ_U64(r->sample_id.identifier, 55);
	}
}

static int parse_other(const struct pb_record_format *fmt, struct rec_writer *w, size_t size,
		       struct pb_record *out)
{
	uint8_t *copy = malloc(size);
	memcpy(copy, w->buf, size);
	int rc = pb_record_parse(fmt, copy, size, out);
	free(copy);
	check_truncations(fmt, w->buf, size);
	return rc;
}

static void test_other_records(bool sid)
{
	struct pb_record_format fmt = {.sample_type = ID_SAMPLE_TYPE, .sample_id_all = sid};
	struct rec_writer w;
	struct pb_record r;
	size_t size;
	const size_t id_bytes = sid ? 48 : 0;

	CHECK_EQ_U64(pb_record_sample_id_size(ID_SAMPLE_TYPE), 48);

	w_begin(&w, PERF_RECORD_LOST, 0);
	w_u64(&w, 55);
	w_u64(&w, 123456);
	size = w_end(&w, sid);
	CHECK_EQ_U64(size, 24 + id_bytes);
	CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(r.type, PERF_RECORD_LOST);
	CHECK_EQ_U64(r.u.lost.id, 55);
	CHECK_EQ_U64(r.u.lost.lost, 123456);
	check_sample_id(&r, sid);
	/* The fake kernel's builder matches (without sample_id). */
	if (!sid) {
		uint8_t b[24];
		CHECK_EQ_U64(fake_build_lost(b, 55, 123456), 24);
		CHECK(!memcmp(b, w.buf, 24));
	}

	w_begin(&w, PERF_RECORD_LOST_SAMPLES, 0);
	w_u64(&w, 99);
	size = w_end(&w, sid);
	CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(r.u.lost_samples.lost, 99);
	check_sample_id(&r, sid);

	for (int un = 0; un < 2; un++) {
		w_begin(&w, un ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);
		w_u64(&w, 1000 + un);
		w_u64(&w, 55);
		w_u64(&w, 55);
		size = w_end(&w, sid);
		CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
		CHECK_EQ_U64(r.type, un ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE);
		CHECK_EQ_U64(r.u.throttle.time, 1000 + un);
		CHECK_EQ_U64(r.u.throttle.id, 55);
		CHECK_EQ_U64(r.u.throttle.stream_id, 55);
		check_sample_id(&r, sid);
		if (!sid) {
			uint8_t b[32];
			CHECK_EQ_U64(fake_build_throttle(b, un, 1000 + un, 55), 32);
			CHECK(!memcmp(b, w.buf, 32));
		}
	}

	w_begin(&w, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	w_u32(&w, 10);
	w_u32(&w, 11);
	w_u64(&w, 0x400000);
	w_u64(&w, 0x1000);
	w_u64(&w, 0x2000);
	w_string(&w, "/usr/bin/some-program");
	size = w_end(&w, sid);
	CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(pb_record_parse(&fmt, w.buf, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(r.type, PERF_RECORD_MMAP);
	CHECK_EQ_U64(r.u.mmap.pid, 10);
	CHECK_EQ_U64(r.u.mmap.tid, 11);
	CHECK_EQ_U64(r.u.mmap.addr, 0x400000);
	CHECK_EQ_U64(r.u.mmap.len, 0x1000);
	CHECK_EQ_U64(r.u.mmap.pgoff, 0x2000);
	CHECK(r.u.mmap.filename && !strcmp(r.u.mmap.filename, "/usr/bin/some-program"));
	CHECK(r.u.mmap.filename == (const char *)w.buf + 40);
	check_sample_id(&r, sid);

	/* MMAP2, classic and build-id variants; parsed in place so filename can be compared. */
	for (int bid = 0; bid < 2; bid++) {
		w_begin(&w, PERF_RECORD_MMAP2, bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
		w_u32(&w, 20);
		w_u32(&w, 21);
		w_u64(&w, 0x7f0000000000);
		w_u64(&w, 0x3000);
		w_u64(&w, 0x1000);
		if (bid) {
			uint8_t b[24] = {20, 0, 0, 0};
			for (int i = 0; i < 20; i++)
				b[4 + i] = (uint8_t)(0xb0 + i);
			w_bytes(&w, b, 24);
		} else {
			w_u32(&w, 8);
			w_u32(&w, 1);
			w_u64(&w, 123456);
			w_u64(&w, 7);
		}
		w_u32(&w, (PROT_READ | PROT_EXEC));
		w_u32(&w, 2);
		w_string(&w, "/lib/libc.so.6");
		size = w_end(&w, sid);
		CHECK_EQ_U64(pb_record_parse(&fmt, w.buf, size, &r), PB_PARSE_OK);
		CHECK_EQ_U64(r.type, PERF_RECORD_MMAP2);
		CHECK_EQ_U64(r.u.mmap.addr, 0x7f0000000000);
		CHECK_EQ_U64(r.u.mmap.prot, (PROT_READ | PROT_EXEC));
		CHECK_EQ_U64(r.u.mmap.flags, 2);
		CHECK(r.u.mmap.has_build_id == (bool)bid);
		if (bid) {
			CHECK_EQ_U64(r.u.mmap.build_id_size, 20);
			CHECK_EQ_U64(r.u.mmap.build_id[19], 0xb0 + 19);
			CHECK_EQ_U64(r.u.mmap.ino, 0);
		} else {
			CHECK_EQ_U64(r.u.mmap.maj, 8);
			CHECK_EQ_U64(r.u.mmap.min, 1);
			CHECK_EQ_U64(r.u.mmap.ino, 123456);
			CHECK_EQ_U64(r.u.mmap.ino_generation, 7);
		}
		CHECK(r.u.mmap.filename && !strcmp(r.u.mmap.filename, "/lib/libc.so.6"));
		check_sample_id(&r, sid);
		check_truncations(&fmt, w.buf, size);
		if (bid) {
			/* A build-id size beyond its 20-byte field is refused. */
			w.buf[40] = 21;
			CHECK_EQ_U64(pb_record_parse(&fmt, w.buf, size, &r), PB_PARSE_TRUNCATED);
		}
	}

	w_begin(&w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	w_u32(&w, 30);
	w_u32(&w, 31);
	w_string(&w, "pesbench-work");
	size = w_end(&w, sid);
	CHECK_EQ_U64(pb_record_parse(&fmt, w.buf, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(r.u.comm.pid, 30);
	CHECK_EQ_U64(r.u.comm.tid, 31);
	CHECK(r.u.comm.comm && !strcmp(r.u.comm.comm, "pesbench-work"));
	CHECK_EQ_U64(r.misc, PERF_RECORD_MISC_COMM_EXEC);
	check_sample_id(&r, sid);
	check_truncations(&fmt, w.buf, size);
	/* A name without its terminating NUL is refused. */
	memset(w.buf + 16, 'x', 16);
	CHECK_EQ_U64(pb_record_parse(&fmt, w.buf, size, &r), PB_PARSE_TRUNCATED);

	w_begin(&w, PERF_RECORD_AUX, 0);
	w_u64(&w, 4096);
	w_u64(&w, 8192);
	w_u64(&w, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION);
	size = w_end(&w, sid);
	CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(r.u.aux.aux_offset, 4096);
	CHECK_EQ_U64(r.u.aux.aux_size, 8192);
	CHECK_EQ_U64(r.u.aux.flags, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION);
	check_sample_id(&r, sid);

	w_begin(&w, PERF_RECORD_ITRACE_START, 0);
	w_u32(&w, 40);
	w_u32(&w, 41);
	size = w_end(&w, sid);
	CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
	CHECK_EQ_U64(r.u.itrace_start.pid, 40);
	CHECK_EQ_U64(r.u.itrace_start.tid, 41);
	check_sample_id(&r, sid);

	for (int ex = 0; ex < 2; ex++) {
		w_begin(&w, ex ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0);
		w_u32(&w, 50);
		w_u32(&w, 51);
		w_u32(&w, 52);
		w_u32(&w, 53);
		w_u64(&w, 999);
		size = w_end(&w, sid);
		CHECK_EQ_U64(parse_other(&fmt, &w, size, &r), PB_PARSE_OK);
		CHECK_EQ_U64(r.type, ex ? PERF_RECORD_EXIT : PERF_RECORD_FORK);
		CHECK_EQ_U64(r.u.task.pid, 50);
		CHECK_EQ_U64(r.u.task.ppid, 51);
		CHECK_EQ_U64(r.u.task.tid, 52);
		CHECK_EQ_U64(r.u.task.ptid, 53);
		CHECK_EQ_U64(r.u.task.time, 999);
		check_sample_id(&r, sid);
	}
}

static void test_headers(void)
{
	struct pb_record_format fmt = {0};
	struct pb_record r;
	uint64_t buf[4] = {0};
	struct perf_event_header h = {PERF_RECORD_SWITCH, 0x2000, 8};

	memcpy(buf, &h, 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, (uint8_t *)buf, 8, &r), PB_PARSE_UNKNOWN);
	CHECK_EQ_U64(r.type, PERF_RECORD_SWITCH);
	CHECK_EQ_U64(r.misc, 0x2000);
	CHECK_EQ_U64(r.size, 8);
	h.type = 200;
	h.size = 32;
	memcpy(buf, &h, 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, (uint8_t *)buf, 32, &r), PB_PARSE_UNKNOWN);
	CHECK_EQ_U64(r.type, 200);

	uint16_t bad_sizes[] = {0, 4, 7, 12, 20};
	for (unsigned i = 0; i < PB_ARRAY_SIZE(bad_sizes); i++) {
		h.type = PERF_RECORD_SAMPLE;
		h.size = bad_sizes[i];
		memcpy(buf, &h, 8);
		CHECK_EQ_U64(pb_record_parse(&fmt, (uint8_t *)buf, 32, &r), PB_PARSE_BAD_HEADER);
	}
	/* A size larger than the buffer handed over. */
	h.size = 40;
	memcpy(buf, &h, 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, (uint8_t *)buf, 32, &r), PB_PARSE_TRUNCATED);
	/* An empty sample is a valid record. */
	h.size = 8;
	memcpy(buf, &h, 8);
	CHECK_EQ_U64(pb_record_parse(&fmt, (uint8_t *)buf, 32, &r), PB_PARSE_OK);
}

static void test_names(void)
{
	CHECK_STR_CONTAINS(pb_record_type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	CHECK_STR_CONTAINS(pb_record_type_name(PERF_RECORD_LOST), "LOST");
	CHECK_STR_CONTAINS(pb_record_type_name(PERF_RECORD_LOST_SAMPLES), "LOST_SAMPLES");
	CHECK_STR_CONTAINS(pb_record_type_name(PERF_RECORD_MMAP2), "MMAP2");
	CHECK_STR_CONTAINS(pb_record_type_name(9999), "UNKNOWN");
	CHECK_STR_CONTAINS(pb_parse_status_text(PB_PARSE_TRUNCATED), "truncated");
	CHECK_STR_CONTAINS(pb_parse_status_text(PB_PARSE_BAD_HEADER), "header");
	CHECK_STR_CONTAINS(pb_parse_status_text(PB_PARSE_TOO_MANY), "more");
	CHECK_STR_CONTAINS(pb_parse_status_text(PB_PARSE_UNKNOWN), "not decoded");
	CHECK_STR_CONTAINS(pb_parse_status_text(PB_PARSE_OK), "ok");
}

static void test_format_from_attr(void)
{
	struct perf_event_attr attr;
	struct pb_record_format fmt;
	attr_for(&attr, PERF_SAMPLE_IP | PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_LOST);
	attr.sample_id_all = 1;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX | PB_SAMPLE_BRANCH_COUNTERS;
	pb_record_format_from_attr(&fmt, &attr);
	CHECK_EQ_U64(fmt.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_READ);
	CHECK_EQ_U64(fmt.read_format, PERF_FORMAT_GROUP | PERF_FORMAT_LOST);
	CHECK_EQ_U64(fmt.sample_regs_user, attr.sample_regs_user);
	CHECK_EQ_U64(fmt.sample_regs_intr, attr.sample_regs_intr);
	CHECK(fmt.sample_id_all && fmt.branch_hw_index && fmt.branch_counters);
}

int main(void)
{
	test_each_field_alone();
	test_all_fields_together();
	test_random_combinations();
	test_group_read();
	test_weight();
	test_regs();
	test_branch_stack();
	test_raw_padding();
	test_other_records(false);
	test_other_records(true);
	test_headers();
	test_names();
	test_format_from_attr();
	return pb_check_done("test_record");
}
