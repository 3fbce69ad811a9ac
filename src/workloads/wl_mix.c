/* mix: one iteration of every kind of event, in known numbers. */
#include "workloads/workload.h"

#include <stdlib.h>

extern const char pb_wl_mix_code_begin[], pb_wl_mix_code_end[], pb_wl_mix_call[],
	pb_wl_mix_lock1[], pb_wl_mix_lock2[], pb_wl_mix_load[], pb_wl_mix_store[],
	pb_wl_mix_never[], pb_wl_mix_jump[], pb_wl_mix_back[], pb_wl_mix_ret[], pb_wl_mix_leaf[];
void pb_wl_mix_loop(uint64_t *data, uint64_t iterations);

struct mix_state {
	uint64_t *data;
};

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)err;
	const unsigned locked = PB_EV_LOAD | PB_EV_STORE | PB_EV_LOCKED;
	const unsigned taken = PB_EV_BRANCH | PB_EV_TAKEN;
	pb_truth_add_label(t, "pb_wl_mix_call", pb_wl_mix_call, PB_EV_STORE | taken | PB_EV_CALL, 1);
	pb_truth_add_label(t, "pb_wl_mix_leaf", pb_wl_mix_leaf, PB_EV_LOAD | taken | PB_EV_RETURN,
			   1);
	pb_truth_add_label(t, "pb_wl_mix_lock1", pb_wl_mix_lock1, locked, 1);
	pb_truth_add_label(t, "pb_wl_mix_lock2", pb_wl_mix_lock2, locked, 1);
	pb_truth_add_label(t, "pb_wl_mix_load", pb_wl_mix_load, PB_EV_LOAD, 1);
	pb_truth_add_label(t, "pb_wl_mix_store", pb_wl_mix_store, PB_EV_STORE, 1);
	pb_truth_add_label(t, "pb_wl_mix_never", pb_wl_mix_never, PB_EV_BRANCH, 1);
	pb_truth_add_label(t, "pb_wl_mix_jump", pb_wl_mix_jump, taken, 1);
	pb_truth_add_label(t, "pb_wl_mix_back", pb_wl_mix_back, taken, 1);
	pb_truth_add_once(t, "pb_wl_mix_ret", pb_wl_mix_ret, PB_EV_LOAD | taken | PB_EV_RETURN);
	pb_truth_count_labels(t);
	t->instructions = 11;
	t->once_instructions = 1;
	t->has_watch = true;
	t->watch_what = "the word the loop stores to";
	t->watch_writes = iterations;
	t->watch_accesses = iterations;
	t->code_begin = (uint64_t)(uintptr_t)pb_wl_mix_code_begin;
	t->code_end = (uint64_t)(uintptr_t)pb_wl_mix_code_end;
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	struct mix_state *st = state;
	st->data = aligned_alloc(64, 64);
	if (!st->data)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "mix: out of memory");
	st->data[0] = st->data[1] = 0;
	target->data_addr = (uint64_t)(uintptr_t)&st->data[1];
	target->data_len = 8;
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)p;
	struct mix_state *st = state;
	pb_wl_mix_loop(st->data, iterations);
}

static void teardown(void *state)
{
	struct mix_state *st = state;
	free(st->data);
	st->data = NULL;
}

const struct pb_workload pb_workload_mix = {
	.name = "mix",
	.summary = "known loads, stores, branches, taken branches, a call, a return and locked "
		   "ops per iteration",
	.truth = truth,
	.state_size = sizeof(struct mix_state),
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
