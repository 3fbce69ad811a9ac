/* shadow: adjacent events separated by 0..64 nops, to find how far apart two events must be
 * for a sampling facility to see both equally. */
#include "workloads/workload.h"

#include <stdio.h>

#define MAX_GAP 64
enum { K_LOADS, K_BRANCHES, K_MISSES, K_COUNT };
enum { R_ENTRY, R_EV1, R_BACK = R_EV1 + 4, R_RET, R_SIZE };
enum { P_KIND, P_GAP };

/* wl_shadow.S: the misses kind's flushes, and whether a read/write data breakpoint fires on
 * the flush of the watched line: an x86 one does on clflush; an Arm watchpoint ignores
 * dc civac (a cache maintenance operation by VA that is not a write). AArch64's dc takes no
 * offset, so the misses loop computes the three other lines' addresses once per call. */
#if defined(__x86_64__)
#define FLUSH_TEXT "clflushed every iteration and the mfence after the flushes orders them"
#define FLUSH_WATCHED 1
#define MISSES_ONCE_INSNS 1 /* ret */
#elif defined(__aarch64__)
#define FLUSH_TEXT "cleaned and invalidated (dc civac) every iteration and the dsb sy after " \
	"the flushes completes them"
#define FLUSH_WATCHED 0
#define MISSES_ONCE_INSNS 4 /* 3 adds, ret */
#elif defined(__riscv)
#define FLUSH_TEXT "(never: the kind is absent)"
#define FLUSH_WATCHED 0
#define MISSES_ONCE_INSNS 1
#define ABSENT_MISSES "shadow:kind=misses does not exist on RV64: RV64GC has no instruction " \
	"that evicts a cache line (cache-block management, Zicbom, is an extension), so no " \
	"load can be made to miss by construction; use kind=loads or branches"
#endif
/* The kinds wl_shadow.S leaves out on this architecture have all-zero records. */
#ifndef ABSENT_MISSES
#define ABSENT_MISSES "shadow:kind=misses is not assembled on this architecture"
#endif

extern const char pb_wl_shadow_code_begin[], pb_wl_shadow_code_end[];
/* Kind-major, gap-minor: see wl_shadow.S. */
extern const uintptr_t pb_wl_shadow_table[K_COUNT][MAX_GAP + 1][R_SIZE];

static const char *const kinds[] = {"loads", "branches", "misses", NULL};
static const struct pb_param_def params[] = {
	{"kind", "the four adjacent events: loads of one word, jumps to the next instruction, "
		 "or loads of four lines clflushed (after an mfence; AArch64: dc civac, dsb sy)",
	 K_LOADS, 0, K_COUNT - 1, kinds},
	{"gap", "nops after each of the four events", 0, 0, MAX_GAP, NULL},
};

static void assumptions(const int64_t *p, char *buf, size_t len)
{
	if (p[P_KIND] == K_MISSES)
		snprintf(buf, len,
			 "each of the four loads misses L1: its line is " FLUSH_TEXT " before the "
			 "loads. Not measurable without a PMU.");
	else
		buf[0] = '\0';
}

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	const uintptr_t *rec = pb_wl_shadow_table[p[P_KIND]][p[P_GAP]];
	const char *k = kinds[p[P_KIND]];
	if (!rec[R_ENTRY])
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s", ABSENT_MISSES);
	unsigned ev = p[P_KIND] == K_BRANCHES ? PB_EV_BRANCH | PB_EV_TAKEN
			: p[P_KIND] == K_MISSES ? PB_EV_LOAD | PB_EV_L1_MISS
						: PB_EV_LOAD;
	char name[64];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "pb_wl_shadow_%s_g%d_ev%d", k, (int)p[P_GAP], i + 1);
		pb_truth_add_label(t, name, (const void *)rec[R_EV1 + i], ev, 1);
	}
	snprintf(name, sizeof name, "pb_wl_shadow_%s_g%d_back", k, (int)p[P_GAP]);
	pb_truth_add_label(t, name, (const void *)rec[R_BACK], PB_EV_BRANCH | PB_EV_TAKEN, 1);
	snprintf(name, sizeof name, "pb_wl_shadow_%s_g%d_ret", k, (int)p[P_GAP]);
	pb_truth_add_ret(t, name, (const void *)rec[R_RET]);
	pb_truth_count_labels(t);
	/* four events with their gaps, dec, jnz; misses add four clflushes and an mfence. */
	t->instructions = 4 * (1 + (uint64_t)p[P_GAP]) + 2 + (p[P_KIND] == K_MISSES ? 5 : 0);
	t->once_instructions = p[P_KIND] == K_MISSES ? MISSES_ONCE_INSNS : 1;
	t->has_watch = p[P_KIND] != K_BRANCHES;
	if (p[P_KIND] == K_LOADS) {
		t->watch_what = "the word the four loads read";
		t->watch_accesses = 4 * iterations;
	} else if (p[P_KIND] == K_MISSES) {
		t->watch_what = "the first of the four lines";
		t->watch_accesses = (1 + FLUSH_WATCHED) * iterations;
	} else {
		t->watch_what = "none: the branch kind touches no data";
	}
	pb_truth_set_code(t, pb_wl_shadow_code_begin, pb_wl_shadow_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	if (pb_wl_buffer_setup(state, 4 * 64, "shadow", err))
		return -1;
	if (p[P_KIND] != K_BRANCHES)
		pb_wl_watch(target, ((struct pb_wl_buffer *)state)->data, 8);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	void (*loop)(uint64_t *, uint64_t) =
		(void (*)(uint64_t *, uint64_t))pb_wl_shadow_table[p[P_KIND]][p[P_GAP]][R_ENTRY];
	loop(((struct pb_wl_buffer *)state)->data, iterations);
}

const struct pb_workload pb_workload_shadow = {
	.name = "shadow",
	.summary = "four adjacent loads, jumps or cache misses separated by `gap` nops",
	PB_WL_PARAMS(params),
	.assumptions = assumptions,
	.truth = truth,
	.setup = setup,
	.run = run,
	PB_WL_BUFFERED,
};
