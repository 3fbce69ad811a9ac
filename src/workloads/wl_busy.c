/* busy: register-only work, for the per-sample cost regression. */
#include "workloads/workload.h"

extern const char pb_wl_busy_code_begin[], pb_wl_busy_code_end[], pb_wl_busy_add[],
	pb_wl_busy_back[], pb_wl_busy_ret[];
void pb_wl_busy_loop(uint64_t iterations);

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)iterations;
	(void)err;
	pb_truth_add_label(t, "pb_wl_busy_add", pb_wl_busy_add, 0, 1);
	pb_truth_add_label(t, "pb_wl_busy_back", pb_wl_busy_back, PB_EV_BRANCH | PB_EV_TAKEN, 1);
	pb_truth_add_ret(t, "pb_wl_busy_ret", pb_wl_busy_ret);
	pb_truth_count_labels(t);
	t->instructions = 10;
	t->once_instructions = 1;
	t->has_watch = false;
	t->watch_what = "none: register-only by design";
	pb_truth_set_code(t, pb_wl_busy_code_begin, pb_wl_busy_code_end);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)state;
	(void)p;
	pb_wl_busy_loop(iterations);
}

const struct pb_workload pb_workload_busy = {
	.name = "busy",
	.summary = "register-only loop (8 adds), the baseline for the cost of one sample",
	.truth = truth,
	.run = run,
};
