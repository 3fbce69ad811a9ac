/* call-chain: ten nested calls per iteration with equal work per level. */
#include "workloads/workload.h"

#include <stdio.h>

#define DEPTH 10
enum { R_STORE, R_CALL, R_RET, R_SAVE, R_RESTORE, R_SAVE2, R_RESTORE2, R_SIZE };

/* wl_callchain.S: per iteration, the loop's call, count down and closing branch, then the
 * levels; once per call, the loop function's own set-up and ret. */
#if defined(__x86_64__)
/* add, add, store, call, ret; the leaf has no call. */
#define LEVEL_INSNS 5
#define ONCE_INSNS 3 /* xor, xor, ret */
#elif defined(__aarch64__)
/* stp (frame record), mov x29, add, add, store, bl, ldp, ret; the leaf has no bl. */
#define LEVEL_INSNS 8
#define ONCE_INSNS 6 /* stp, mov x29, mov, mov, ldp, ret */
#elif defined(__riscv)
/* addi sp, sd ra, sd s0, addi s0, addi, addi, store, jal, ld ra, ld s0, addi sp, ret. */
#define LEVEL_INSNS 12
#define ONCE_INSNS 10 /* addi sp, sd ra, sd s0, addi s0, li, li, ld ra, ld s0, addi sp, ret */
#endif

extern const char pb_wl_callchain_code_begin[], pb_wl_callchain_code_end[],
	pb_wl_callchain_call[], pb_wl_callchain_back[], pb_wl_callchain_ret[];
/* Per level 1..10: see wl_callchain.S. */
extern const uintptr_t pb_wl_callchain_table[DEPTH][R_SIZE];
void pb_wl_callchain_loop(uint64_t *slots, uint64_t iterations);

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)err;
	const unsigned taken = PB_EV_BRANCH | PB_EV_TAKEN;
	char name[64];
	pb_truth_add_label(t, "pb_wl_callchain_call", pb_wl_callchain_call, PB_EV_CALL_INSN, 1);
	for (int level = 1; level <= DEPTH; level++) {
		const uintptr_t *rec = pb_wl_callchain_table[level - 1];
		if (rec[R_SAVE]) {
			snprintf(name, sizeof name, "pb_wl_callchain_l%d_save", level);
			pb_truth_add_label(t, name, (const void *)rec[R_SAVE], PB_EV_STORE, 1);
		}
		if (rec[R_SAVE2]) {
			snprintf(name, sizeof name, "pb_wl_callchain_l%d_save2", level);
			pb_truth_add_label(t, name, (const void *)rec[R_SAVE2], PB_EV_STORE, 1);
		}
		snprintf(name, sizeof name, "pb_wl_callchain_l%d_store", level);
		pb_truth_add_label(t, name, (const void *)rec[R_STORE], PB_EV_STORE, 1);
		if (rec[R_CALL]) {
			snprintf(name, sizeof name, "pb_wl_callchain_l%d_call", level);
			pb_truth_add_label(t, name, (const void *)rec[R_CALL], PB_EV_CALL_INSN, 1);
		}
		if (rec[R_RESTORE]) {
			snprintf(name, sizeof name, "pb_wl_callchain_l%d_restore", level);
			pb_truth_add_label(t, name, (const void *)rec[R_RESTORE], PB_EV_LOAD, 1);
		}
		if (rec[R_RESTORE2]) {
			snprintf(name, sizeof name, "pb_wl_callchain_l%d_restore2", level);
			pb_truth_add_label(t, name, (const void *)rec[R_RESTORE2], PB_EV_LOAD, 1);
		}
		snprintf(name, sizeof name, "pb_wl_callchain_l%d_ret", level);
		pb_truth_add_label(t, name, (const void *)rec[R_RET], PB_EV_RET_INSN, 1);
	}
	pb_truth_add_label(t, "pb_wl_callchain_back", pb_wl_callchain_back, taken, 1);
	pb_truth_add_ret(t, "pb_wl_callchain_ret", pb_wl_callchain_ret);
	pb_truth_count_labels(t);
	t->instructions = 1 + DEPTH * LEVEL_INSNS - 1 + 2;
	t->once_instructions = ONCE_INSNS;
	t->has_watch = true;
	t->watch_what = "the deepest level's slot (stored once per iteration)";
	t->watch_writes = iterations;
	t->watch_accesses = iterations;
	pb_truth_set_code(t, pb_wl_callchain_code_begin, pb_wl_callchain_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	if (pb_wl_buffer_setup(state, DEPTH * sizeof(uint64_t), "call-chain", err))
		return -1;
	uint64_t *slots = ((struct pb_wl_buffer *)state)->data;
	pb_wl_watch(target, &slots[DEPTH - 1], 8);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)p;
	pb_wl_callchain_loop(((struct pb_wl_buffer *)state)->data, iterations);
}

const struct pb_workload pb_workload_callchain = {
	.name = "call-chain",
	.summary = "ten nested calls per iteration, equal work (two adds and a store) per level",
	.truth = truth,
	.setup = setup,
	.run = run,
	PB_WL_BUFFERED,
};
