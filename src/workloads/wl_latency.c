/* latency-biased: alternating div and add paths of equal length and very unequal latency. */
#include "workloads/workload.h"

#include <stdlib.h>

extern const char pb_wl_latency_code_begin[], pb_wl_latency_code_end[], pb_wl_latency_parity[],
	pb_wl_latency_div[], pb_wl_latency_join[], pb_wl_latency_add[], pb_wl_latency_back[],
	pb_wl_latency_ret[];
void pb_wl_latency_loop(const uint64_t *divisor, uint64_t iterations);

struct latency_state {
	uint64_t *divisor;
};

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)err;
	const unsigned taken = PB_EV_BRANCH | PB_EV_TAKEN;
	pb_truth_add_label(t, "pb_wl_latency_parity", pb_wl_latency_parity, PB_EV_BRANCH, 2);
	pb_truth_add_label(t, "pb_wl_latency_div", pb_wl_latency_div, PB_EV_LOAD, 1);
	pb_truth_add_label(t, "pb_wl_latency_join", pb_wl_latency_join, taken, 1);
	pb_truth_add_label(t, "pb_wl_latency_add", pb_wl_latency_add, 0, 1);
	pb_truth_add_label(t, "pb_wl_latency_back", pb_wl_latency_back, taken, 2);
	pb_truth_add_once(t, "pb_wl_latency_ret", pb_wl_latency_ret,
			  PB_EV_LOAD | taken | PB_EV_RETURN);
	pb_truth_count_labels(t);
	/* The parity branch is taken on the add pass only: once of its two executions. */
	t->taken_branches += 1;
	t->instructions = 16;
	t->once_instructions = 3; /* lea, mov, ret */
	t->has_watch = true;
	t->watch_what = "the divisor the div reads";
	t->watch_accesses = iterations;
	t->code_begin = (uint64_t)(uintptr_t)pb_wl_latency_code_begin;
	t->code_end = (uint64_t)(uintptr_t)pb_wl_latency_code_end;
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	struct latency_state *st = state;
	st->divisor = aligned_alloc(64, 64);
	if (!st->divisor)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "latency-biased: out of memory");
	*st->divisor = 7;
	target->data_addr = (uint64_t)(uintptr_t)st->divisor;
	target->data_len = 8;
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)p;
	struct latency_state *st = state;
	pb_wl_latency_loop(st->divisor, iterations);
}

static void teardown(void *state)
{
	struct latency_state *st = state;
	free(st->divisor);
	st->divisor = NULL;
}

const struct pb_workload pb_workload_latency = {
	.name = "latency-biased",
	.summary = "alternating div and add paths of equal length: time-based sampling piles up "
		   "after the div",
	.truth = truth,
	.state_size = sizeof(struct latency_state),
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
