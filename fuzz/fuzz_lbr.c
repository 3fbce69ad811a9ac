/* Fuzzes the two readers of bytes pesbench did not write in profile accuracy: the LBR walk
 * over a sample's branch stack (the kernel's perf_branch_entry array) and the basic-block
 * builder over code bytes (an ELF's text). Input: byte 0 picks the part; the rest is a
 * branch stack (24-byte entries) or code at 0x1000 whose every byte offset is an executed
 * address. Invariants: no more ranges than entry pairs, every counted block inside the table,
 * block instructions summing to the profile's. */
#include "analysis/periods.h"
#include "analysis/profile.h"

#include <stdlib.h>
#include <string.h>

static struct pb_bb blocks[] = {{0x1000, 0x1010, 4, 0, 0}, {0x1010, 0x1040, 9, 0, 0},
				{0x1040, 0x1100, 30, 0, 0}, {0x2000, 0x2008, 2, 0, 0}};
static const struct pb_bb_table table = {.bb = blocks, .n = 4};

static void on_range(void *ctx, uint64_t begin, uint64_t end)
{
	if (end < begin)
		abort();
	pb_lbr_count_blocks(&table, begin, end, ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1) {
		struct pb_sample s = {.sample_type = PERF_SAMPLE_BRANCH_STACK,
				      .branch_nr = (size - 1) / sizeof(struct perf_branch_entry),
				      .branches = data + 1};
		uint64_t counts[4] = {0};
		size_t skipped = 0;
		size_t n = pb_lbr_ranges(&s, 1 << 16, on_range, counts, &skipped);
		if (s.branch_nr >= 2 && n + skipped != s.branch_nr - 1)
			abort();
		if (s.branch_nr < 2 && n)
			abort();
		return 0;
	}
	size_t len = size - 1 > 256 ? 256 : size - 1;
	struct pb_cg_instr *ins = calloc(len ? len : 1, sizeof *ins);
	if (!ins)
		return 0;
	uint64_t total = 0;
	for (size_t i = 0; i < len; i++) {
		ins[i].addr = 0x1000 + i;
		ins[i].ir = 1 + data[1 + i] % 3;
		total += ins[i].ir;
	}
	struct pb_cg_profile p = {.instr = ins, .n = len};
	struct pb_bb_table t;
	struct pb_error err;
	if (pb_bb_build_buffer(&p, data + 1, size - 1, 0x1000, &t, &err) == 0) {
		uint64_t sum = 0;
		for (size_t b = 0; b < t.n; b++)
			sum += t.bb[b].instructions;
		if (sum != total)
			abort();
		pb_bb_table_free(&t);
	}
	free(ins);
	return 0;
}
