/* bias: four identical loads per iteration; variants with an lfence before them and with the
 * first load a likely miss. */
#include "workloads/workload.h"

#include <stdio.h>

/* The variants' prefixes (wl_bias.S), in instructions. */
#if defined(__x86_64__)
#define FENCE_INSNS 1   /* lfence */
#define FLUSH_INSNS 2   /* clflush, mfence */
#define FLUSH_TEXT "clflushed and an mfence orders the flush before it"
#elif defined(__aarch64__)
#define FENCE_INSNS 2   /* dsb ld, isb */
#define FLUSH_INSNS 2   /* dc civac, dsb sy */
#define FLUSH_TEXT "cleaned and invalidated (dc civac) and a dsb sy completes that before it"
#elif defined(__riscv)
#define FENCE_INSNS 2   /* fence r, rw; fence.i */
#define FLUSH_INSNS 0   /* the miss variant does not exist: see ABSENT_MISS */
#define FLUSH_WATCHED 0
#define FLUSH_TEXT "(never: the variant is absent)"
#define ABSENT_MISS "bias:variant=miss does not exist on RV64: RV64GC has no instruction that " \
	"evicts a cache line (cache-block management, Zicbom, is an extension), so no load " \
	"can be made to miss by construction; use variant=plain or lfence"
#endif
/* The variants wl_bias.S leaves out on this architecture have an all-zero record. */
#ifndef ABSENT_MISS
#define ABSENT_MISS "bias:variant=miss is not assembled on this architecture"
#endif
/* The word the loads read, bytes into the buffer's first line (PB_BIAS_WORD in wl_bias.S);
 * the flush names byte 0 of the line, outside the watched word, so the watched accesses are
 * the four loads in every variant: x86's clflush is a read to a data breakpoint and would
 * otherwise be a fifth. */
#define BIAS_WORD 8

enum { V_PLAIN, V_LFENCE, V_MISS, V_COUNT };
enum { R_ENTRY, R_PREFIX, R_LOAD1, R_BACK = R_LOAD1 + 4, R_RET, R_SIZE };

extern const char pb_wl_bias_code_begin[], pb_wl_bias_code_end[];
/* One record per variant, in enum order: see wl_bias.S. */
extern const uintptr_t pb_wl_bias_table[V_COUNT][R_SIZE];

static const char *const variants[] = {"plain", "lfence", "miss", NULL};
static const struct pb_param_def params[] = {
	{"variant", "what precedes the four loads: nothing, an lfence (AArch64: dsb ld+isb), or "
		    "a clflush+mfence (AArch64: dc civac+dsb sy) of their line (the first load then "
		    "misses)", V_PLAIN, 0, V_COUNT - 1, variants},
};

static void assumptions(const int64_t *p, char *buf, size_t len)
{
	if (p[0] == V_MISS)
		snprintf(buf, len,
			 "the first load misses L1: its line is " FLUSH_TEXT ", and the four loads "
			 "read one line; so only the first of the four can miss. Not measurable "
			 "without a PMU.");
	else
		snprintf(buf, len, "the four loads hit L1 (one line, read every iteration).");
}

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	const uintptr_t *rec = pb_wl_bias_table[p[0]];
	const char *v = variants[p[0]];
	if (!rec[R_ENTRY])
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s", ABSENT_MISS);
	char name[64];
	if (p[0] == V_LFENCE) {
		snprintf(name, sizeof name, "pb_wl_bias_%s_fence", v);
		pb_truth_add_label(t, name, (const void *)rec[R_PREFIX], 0, 1);
	} else if (p[0] == V_MISS) {
		snprintf(name, sizeof name, "pb_wl_bias_%s_flush", v);
		pb_truth_add_label(t, name, (const void *)rec[R_PREFIX], 0, 1);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "pb_wl_bias_%s_load%d", v, i + 1);
		unsigned miss = (p[0] == V_MISS && i == 0) ? PB_EV_L1_MISS : 0;
		pb_truth_add_label(t, name, (const void *)rec[R_LOAD1 + i], PB_EV_LOAD | miss, 1);
	}
	snprintf(name, sizeof name, "pb_wl_bias_%s_back", v);
	pb_truth_add_label(t, name, (const void *)rec[R_BACK], PB_EV_BRANCH | PB_EV_TAKEN, 1);
	snprintf(name, sizeof name, "pb_wl_bias_%s_ret", v);
	pb_truth_add_ret(t, name, (const void *)rec[R_RET]);
	pb_truth_count_labels(t);
	/* four loads, count down, closing branch; and the variant's prefix. */
	t->instructions = 6 + (p[0] == V_LFENCE ? FENCE_INSNS : 0) +
			  (p[0] == V_MISS ? FLUSH_INSNS : 0);
	t->once_instructions = 1;
	t->has_watch = true;
	t->watch_what = "the word the four loads read";
	t->watch_writes = 0;
	t->watch_accesses = 4 * iterations;
	pb_truth_set_code(t, pb_wl_bias_code_begin, pb_wl_bias_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	if (pb_wl_buffer_setup(state, sizeof(uint32_t), "bias", err))
		return -1;
	pb_wl_watch(target, (const char *)((struct pb_wl_buffer *)state)->data + BIAS_WORD, 4);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	void (*loop)(const uint32_t *, uint64_t) =
		(void (*)(const uint32_t *, uint64_t))pb_wl_bias_table[p[0]][R_ENTRY];
	loop(((struct pb_wl_buffer *)state)->data, iterations);
}

const struct pb_workload pb_workload_bias = {
	.name = "bias",
	.summary = "four identical loads per iteration (ideal: 25 % of the samples each)",
	PB_WL_PARAMS(params),
	.assumptions = assumptions,
	.truth = truth,
	.setup = setup,
	.run = run,
	PB_WL_BUFFERED,
};
