/* call-chain: ten nested calls per iteration with equal work per level. */
#include "workloads/workload.h"

#include <stdio.h>
#include <stdlib.h>

#define DEPTH 10
enum { R_STORE, R_CALL, R_RET, R_SIZE };

extern const char pb_wl_callchain_code_begin[], pb_wl_callchain_code_end[],
	pb_wl_callchain_call[], pb_wl_callchain_back[], pb_wl_callchain_ret[];
/* Per level 1..10: see wl_callchain.S. */
extern const uintptr_t pb_wl_callchain_table[DEPTH][R_SIZE];
void pb_wl_callchain_loop(uint64_t *slots, uint64_t iterations);

struct callchain_state {
	uint64_t *slots;
};

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)err;
	const unsigned taken = PB_EV_BRANCH | PB_EV_TAKEN;
	char name[64];
	pb_truth_add_label(t, "pb_wl_callchain_call", pb_wl_callchain_call,
			   PB_EV_STORE | taken | PB_EV_CALL, 1);
	for (int level = 1; level <= DEPTH; level++) {
		const uintptr_t *rec = pb_wl_callchain_table[level - 1];
		snprintf(name, sizeof name, "pb_wl_callchain_l%d_store", level);
		pb_truth_add_label(t, name, (const void *)rec[R_STORE], PB_EV_STORE, 1);
		if (rec[R_CALL]) {
			snprintf(name, sizeof name, "pb_wl_callchain_l%d_call", level);
			pb_truth_add_label(t, name, (const void *)rec[R_CALL],
					   PB_EV_STORE | taken | PB_EV_CALL, 1);
		}
		snprintf(name, sizeof name, "pb_wl_callchain_l%d_ret", level);
		pb_truth_add_label(t, name, (const void *)rec[R_RET],
				   PB_EV_LOAD | taken | PB_EV_RETURN, 1);
	}
	pb_truth_add_label(t, "pb_wl_callchain_back", pb_wl_callchain_back, taken, 1);
	pb_truth_add_once(t, "pb_wl_callchain_ret", pb_wl_callchain_ret,
			  PB_EV_LOAD | taken | PB_EV_RETURN);
	pb_truth_count_labels(t);
	t->instructions = 1 + (DEPTH - 1) * 5 + 4 + 2;
	t->once_instructions = 3; /* xor, xor, ret */
	t->has_watch = true;
	t->watch_what = "the deepest level's slot (stored once per iteration)";
	t->watch_writes = iterations;
	t->watch_accesses = iterations;
	t->code_begin = (uint64_t)(uintptr_t)pb_wl_callchain_code_begin;
	t->code_end = (uint64_t)(uintptr_t)pb_wl_callchain_code_end;
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	struct callchain_state *st = state;
	st->slots = aligned_alloc(64, 128);
	if (!st->slots)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "call-chain: out of memory");
	for (int i = 0; i < 16; i++)
		st->slots[i] = 0;
	target->data_addr = (uint64_t)(uintptr_t)&st->slots[DEPTH - 1];
	target->data_len = 8;
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)p;
	struct callchain_state *st = state;
	pb_wl_callchain_loop(st->slots, iterations);
}

static void teardown(void *state)
{
	struct callchain_state *st = state;
	free(st->slots);
	st->slots = NULL;
}

const struct pb_workload pb_workload_callchain = {
	.name = "call-chain",
	.summary = "ten nested calls per iteration, equal work (two adds and a store) per level",
	.truth = truth,
	.state_size = sizeof(struct callchain_state),
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
