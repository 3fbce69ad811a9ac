/* mode: user code free of a chosen event, interleaved with system calls whose kernel path
 * produces it, for user/kernel misattribution. No kernel module: the kernel paths are those
 * of ordinary system calls. */
#include "workloads/workload.h"

#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>

enum { V_GETPPID, V_FAULT, V_TOUCH };

extern const char pb_wl_mode_code_begin[], pb_wl_mode_code_end[], pb_wl_mode_syscall1[],
	pb_wl_mode_syscall2[], pb_wl_mode_back[], pb_wl_mode_ret[], pb_wl_mode_touch_syscall[],
	pb_wl_mode_touch_store[], pb_wl_mode_touch_back[], pb_wl_mode_touch_ret[];
void pb_wl_mode_loop(void *page, uint64_t iterations, uint64_t nr1, uint64_t nr2);
void pb_wl_mode_touch_loop(void *page, uint64_t iterations, uint64_t nr_madvise);

/* wl_mode.S: what each loop executes once per call. */
#if defined(__x86_64__)
#define ONCE_INSNS 7       /* push, 4 movs, pop, ret */
#define TOUCH_ONCE_INSNS 4 /* 3 movs, ret */
#define SYSCALL_AS_BRANCH "syscall instruction as a far branch"
#elif defined(__aarch64__)
#define ONCE_INSNS 5       /* 4 movs, ret */
#define TOUCH_ONCE_INSNS 5 /* 4 movs, ret */
#define SYSCALL_AS_BRANCH "svc instruction as a branch (an exception)"
#elif defined(__riscv)
#define ONCE_INSNS 5       /* 4 mvs, ret */
#define TOUCH_ONCE_INSNS 5 /* 3 mvs, li, ret */
#define SYSCALL_AS_BRANCH "ecall instruction as a branch (an exception)"
#endif

static const char *const variants[] = {"getppid", "fault", "touch", NULL};
static const struct pb_param_def params[] = {
	{"kernel", "what the kernel does: getppid twice (kernel loads and stores only), "
		   "madvise(MADV_DONTNEED)+uname (a kernel-mode page fault per iteration), or "
		   "touch: madvise(MADV_DONTNEED) then a user store to the dropped page (a user-mode "
		   "page fault per iteration, countable with exclude_kernel)",
	 V_GETPPID, 0, 2, variants},
};

struct mode_state {
	void *page;
};

static void assumptions(const int64_t *p, char *buf, size_t len)
{
	if (p[0] == V_TOUCH) {
		snprintf(buf, len,
			 "the loop's one memory access is its store to the page madvise just dropped, "
			 "so the page fault of each iteration is taken in user mode; the kernel's "
			 "madvise path loads and stores in kernel mode. A PMU may also count the "
			 SYSCALL_AS_BRANCH "; it is declared as a syscall only.");
		return;
	}
	snprintf(buf, len,
		 "the user-mode instructions of the loop only move registers (wl_mode.S), so every "
		 "load and store%s of an iteration happens in the kernel. A PMU may also count the "
		 SYSCALL_AS_BRANCH "; it is declared as a syscall only.",
		 p[0] == V_FAULT ? " and the page fault" : "");
}

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)err;
	if (p[0] == V_TOUCH) {
		pb_truth_add_label(t, "pb_wl_mode_touch_syscall", pb_wl_mode_touch_syscall,
				   PB_EV_SYSCALL, 1);
		pb_truth_add_label(t, "pb_wl_mode_touch_store", pb_wl_mode_touch_store, PB_EV_STORE,
				   1);
		pb_truth_add_label(t, "pb_wl_mode_touch_back", pb_wl_mode_touch_back,
				   PB_EV_BRANCH | PB_EV_TAKEN, 1);
		pb_truth_add_ret(t, "pb_wl_mode_touch_ret", pb_wl_mode_touch_ret);
		pb_truth_count_labels(t);
		t->instructions = 8;
		t->once_instructions = TOUCH_ONCE_INSNS;
		t->page_faults = 1;
		t->page_faults_user = 1;
		t->has_watch = true;
		t->watch_writes = iterations;
		t->watch_accesses = iterations;
		t->watch_what = "the byte the loop writes on the dropped page";
		pb_truth_set_code(t, pb_wl_mode_code_begin, pb_wl_mode_code_end);
		return 0;
	}
	pb_truth_add_label(t, "pb_wl_mode_syscall1", pb_wl_mode_syscall1, PB_EV_SYSCALL, 1);
	pb_truth_add_label(t, "pb_wl_mode_syscall2", pb_wl_mode_syscall2, PB_EV_SYSCALL, 1);
	pb_truth_add_label(t, "pb_wl_mode_back", pb_wl_mode_back, PB_EV_BRANCH | PB_EV_TAKEN, 1);
	pb_truth_add_ret(t, "pb_wl_mode_ret", pb_wl_mode_ret);
	pb_truth_count_labels(t);
	t->instructions = 10;
	t->once_instructions = ONCE_INSNS;
	t->page_faults = p[0] == V_FAULT ? 1 : 0;
	t->has_watch = false;
	t->watch_what = "none: the user code touches no memory by design";
	pb_truth_set_code(t, pb_wl_mode_code_begin, pb_wl_mode_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	struct mode_state *st = state;
	st->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED) {
		st->page = NULL;
		return pb_fail(err, PB_EXIT_FAILURE, 0, "mode: cannot map a page");
	}
	if (p[0] == V_TOUCH)
		pb_wl_watch(target, st->page, 1);
	/* Read the loop's code now, so its pages are mapped before the measured run and the only
	 * page faults in it are the ones the loop causes on purpose. (Running it once would do
	 * too, but callgrind would count that run.) */
	const volatile char *code = pb_wl_mode_code_begin;
	(void)code[0];
	(void)code[pb_wl_mode_code_end - pb_wl_mode_code_begin - 1];
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	struct mode_state *st = state;
	if (p[0] == V_TOUCH)
		pb_wl_mode_touch_loop(st->page, iterations, SYS_madvise);
	else if (p[0] == V_FAULT)
		pb_wl_mode_loop(st->page, iterations, SYS_madvise, SYS_uname);
	else
		pb_wl_mode_loop(st->page, iterations, SYS_getppid, SYS_getppid);
}

static void teardown(void *state)
{
	struct mode_state *st = state;
	if (st->page)
		munmap(st->page, 4096);
	st->page = NULL;
}

const struct pb_workload pb_workload_mode = {
	.name = "mode",
	.summary = "user code free of memory events, interleaved with syscalls whose kernel path "
		   "loads, stores and (variant fault) takes a page fault; variant touch takes "
		   "the fault in user mode",
	PB_WL_PARAMS(params),
	.assumptions = assumptions,
	.truth = truth,
	.state_size = sizeof(struct mode_state),
	.setup = setup,
	.run = run,
	.teardown = teardown,
};
