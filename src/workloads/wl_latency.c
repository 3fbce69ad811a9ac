/* latency-biased: alternating div and add paths of equal length and very unequal latency. */
#include "workloads/workload.h"

extern const char pb_wl_latency_code_begin[], pb_wl_latency_code_end[], pb_wl_latency_parity[],
	pb_wl_latency_div[], pb_wl_latency_join[], pb_wl_latency_add[], pb_wl_latency_back[],
	pb_wl_latency_ret[];
void pb_wl_latency_loop(const uint64_t *divisor, uint64_t iterations);

/* wl_latency.S: x86's div reads the divisor from memory; AArch64's udiv takes registers, so
 * an ldr of its own (pb_wl_latency_load) is the path's load and each path is one instruction
 * shorter. */
#if defined(__x86_64__)
#define DIV_KINDS PB_EV_LOAD
#define ITERATION_INSNS 16
#define ONCE_INSNS 3 /* lea, mov, ret */
#elif defined(__aarch64__)
extern const char pb_wl_latency_load[];
#define DIV_KINDS 0
#define ITERATION_INSNS 12
#define ONCE_INSNS 3 /* lsl, mov, ret */
#elif defined(__riscv)
extern const char pb_wl_latency_load[];
#define DIV_KINDS 0
#define ITERATION_INSNS 14
#define ONCE_INSNS 4 /* slli, li, srli, ret */
#endif

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)err;
	const unsigned taken = PB_EV_BRANCH | PB_EV_TAKEN;
	pb_truth_add_label(t, "pb_wl_latency_parity", pb_wl_latency_parity, PB_EV_BRANCH, 2);
#if !defined(__x86_64__)
	pb_truth_add_label(t, "pb_wl_latency_load", pb_wl_latency_load, PB_EV_LOAD, 1);
#endif
	pb_truth_add_label(t, "pb_wl_latency_div", pb_wl_latency_div, DIV_KINDS, 1);
	pb_truth_add_label(t, "pb_wl_latency_join", pb_wl_latency_join, taken, 1);
	pb_truth_add_label(t, "pb_wl_latency_add", pb_wl_latency_add, 0, 1);
	pb_truth_add_label(t, "pb_wl_latency_back", pb_wl_latency_back, taken, 2);
	pb_truth_add_ret(t, "pb_wl_latency_ret", pb_wl_latency_ret);
	pb_truth_count_labels(t);
	/* The parity branch is taken on the add pass only: once of its two executions. */
	t->taken_branches += 1;
	t->instructions = ITERATION_INSNS;
	t->once_instructions = ONCE_INSNS;
	t->has_watch = true;
	t->watch_what = "the divisor the div reads";
	t->watch_accesses = iterations;
	pb_truth_set_code(t, pb_wl_latency_code_begin, pb_wl_latency_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	if (pb_wl_buffer_setup(state, sizeof(uint64_t), "latency-biased", err))
		return -1;
	uint64_t *divisor = ((struct pb_wl_buffer *)state)->data;
	*divisor = 7;
	pb_wl_watch(target, divisor, 8);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)p;
	pb_wl_latency_loop(((struct pb_wl_buffer *)state)->data, iterations);
}

const struct pb_workload pb_workload_latency = {
	.name = "latency-biased",
	.summary = "alternating div and add paths of equal length: time-based sampling piles up "
		   "after the div",
	.truth = truth,
	.setup = setup,
	.run = run,
	PB_WL_BUFFERED,
};
