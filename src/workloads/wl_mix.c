/* mix: one iteration of every kind of event, in known numbers. */
#include "workloads/workload.h"

extern const char pb_wl_mix_code_begin[], pb_wl_mix_code_end[], pb_wl_mix_call[],
	pb_wl_mix_lock1[], pb_wl_mix_lock2[], pb_wl_mix_load[], pb_wl_mix_store[],
	pb_wl_mix_never[], pb_wl_mix_jump[], pb_wl_mix_back[], pb_wl_mix_ret[], pb_wl_mix_leaf[];
void pb_wl_mix_loop(uint64_t *data, uint64_t iterations);

/* wl_mix.S: x86's lock add is one instruction, a load, a store and a locked op; AArch64's
 * atomic add is an exclusive pair: ldxr (the load, at pb_wl_mix_lockN), add, stxr (the store
 * and the locked op, at pb_wl_mix_lockN_store). */
#if defined(__x86_64__)
#define LOCK_KINDS (PB_EV_LOAD | PB_EV_STORE | PB_EV_LOCKED)
#define ITERATION_INSNS 11
#define ONCE_INSNS 1 /* ret */
#elif defined(__aarch64__)
extern const char pb_wl_mix_lock1_store[], pb_wl_mix_lock2_store[];
#define LOCK_KINDS PB_EV_LOAD
#define ITERATION_INSNS 14
#define ONCE_INSNS 2 /* mov x11, x30; ret x11 */
#elif defined(__riscv)
#define LOCK_KINDS (PB_EV_LOAD | PB_EV_STORE | PB_EV_LOCKED) /* amoadd.d */
#define ITERATION_INSNS 10
#define ONCE_INSNS 3 /* mv t5, ra; li t1, 1; jr t5 */
#endif

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)p;
	(void)err;
	const unsigned taken = PB_EV_BRANCH | PB_EV_TAKEN;
	pb_truth_add_label(t, "pb_wl_mix_call", pb_wl_mix_call, PB_EV_CALL_INSN, 1);
	pb_truth_add_label(t, "pb_wl_mix_leaf", pb_wl_mix_leaf, PB_EV_RET_INSN, 1);
	pb_truth_add_label(t, "pb_wl_mix_lock1", pb_wl_mix_lock1, LOCK_KINDS, 1);
#if defined(__aarch64__)
	pb_truth_add_label(t, "pb_wl_mix_lock1_store", pb_wl_mix_lock1_store,
			   PB_EV_STORE | PB_EV_LOCKED, 1);
#endif
	pb_truth_add_label(t, "pb_wl_mix_lock2", pb_wl_mix_lock2, LOCK_KINDS, 1);
#if defined(__aarch64__)
	pb_truth_add_label(t, "pb_wl_mix_lock2_store", pb_wl_mix_lock2_store,
			   PB_EV_STORE | PB_EV_LOCKED, 1);
#endif
	pb_truth_add_label(t, "pb_wl_mix_load", pb_wl_mix_load, PB_EV_LOAD, 1);
	pb_truth_add_label(t, "pb_wl_mix_store", pb_wl_mix_store, PB_EV_STORE, 1);
	pb_truth_add_label(t, "pb_wl_mix_never", pb_wl_mix_never, PB_EV_BRANCH, 1);
	pb_truth_add_label(t, "pb_wl_mix_jump", pb_wl_mix_jump, taken, 1);
	pb_truth_add_label(t, "pb_wl_mix_back", pb_wl_mix_back, taken, 1);
	pb_truth_add_ret(t, "pb_wl_mix_ret", pb_wl_mix_ret);
	pb_truth_count_labels(t);
	t->instructions = ITERATION_INSNS;
	t->once_instructions = ONCE_INSNS;
	t->has_watch = true;
	t->watch_what = "the word the loop stores to";
	t->watch_writes = iterations;
	t->watch_accesses = iterations;
	pb_truth_set_code(t, pb_wl_mix_code_begin, pb_wl_mix_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	(void)p;
	if (pb_wl_buffer_setup(state, 2 * sizeof(uint64_t), "mix", err))
		return -1;
	uint64_t *data = ((struct pb_wl_buffer *)state)->data;
	pb_wl_watch(target, &data[1], 8);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	(void)p;
	pb_wl_mix_loop(((struct pb_wl_buffer *)state)->data, iterations);
}

const struct pb_workload pb_workload_mix = {
	.name = "mix",
	.summary = "known loads, stores, branches, taken branches, a call, a return and locked "
		   "ops per iteration",
	.truth = truth,
	.setup = setup,
	.run = run,
	PB_WL_BUFFERED,
};
