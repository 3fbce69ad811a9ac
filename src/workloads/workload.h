/* A workload is one parameterised assembly loop plus a declaration of what one iteration
 * executes. The declaration is code, computed from the parameters, and every event-producing
 * instruction is an exported label in the loop's .S file, so a sample's IP can be attributed
 * to the exact instruction. `pesbench verify` checks declarations against exact oracles
 * (uprobes, breakpoints, callgrind); nothing here is trusted because it was written down.
 *
 * Adding a workload: one wl_NAME.S (the loop) and one wl_NAME.c (its pb_workload entry), then
 * one line in workloads.c. */
#ifndef PB_WORKLOAD_H
#define PB_WORKLOAD_H

#include "facilities/facility.h"
#include "util/error.h"
#include "util/kit.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_WL_MAX_PARAMS 4
/* call-chain on RV64: 10 levels x (2 frame saves, store, call, 2 frame restores, ret) + 3. */
#define PB_WL_MAX_LABELS 80

/* Event kinds an instruction produces (bits). An instruction may produce several: a locked
 * add is a load, a store and a locked op. 0 = labelled for attribution only (div, fences). */
enum pb_event_kind {
	PB_EV_LOAD = 1u << 0,
	PB_EV_STORE = 1u << 1,
	PB_EV_BRANCH = 1u << 2,
	PB_EV_TAKEN = 1u << 3,   /* a branch taken whenever its iteration loops again */
	PB_EV_CALL = 1u << 4,
	PB_EV_RETURN = 1u << 5,
	PB_EV_LOCKED = 1u << 6,
	PB_EV_SYSCALL = 1u << 7,
	PB_EV_L1_MISS = 1u << 8, /* a load that misses L1 by construction (an assumption) */
	PB_EV_KINDS = 9
};

/* What a call and a return instruction are, on this architecture: x86's call pushes the
 * return address and ret pops it; AArch64's bl and ret keep it in x30 and touch no memory
 * (a function that calls saves x30 with an instruction of its own, declared on its own). */
#if defined(__x86_64__)
#define PB_EV_CALL_INSN (PB_EV_STORE | PB_EV_BRANCH | PB_EV_TAKEN | PB_EV_CALL)
#define PB_EV_RET_INSN (PB_EV_LOAD | PB_EV_BRANCH | PB_EV_TAKEN | PB_EV_RETURN)
#else
#define PB_EV_CALL_INSN (PB_EV_BRANCH | PB_EV_TAKEN | PB_EV_CALL)
#define PB_EV_RET_INSN (PB_EV_BRANCH | PB_EV_TAKEN | PB_EV_RETURN)
#endif

/* "load", "store", ... for bit i of enum pb_event_kind. */
const char *pb_event_kind_name(unsigned bit_index);
/* Writes "load+store+locked" (or "-" for none) into buf. */
const char *pb_event_kinds_text(unsigned kinds, char *buf, size_t len);

struct pb_param_def {
	const char *name;
	const char *summary;
	int64_t def, min, max;
	const char *const *choices;  /* NULL-terminated names for values 0..; NULL = integer */
};

struct pb_label_truth {
	char name[64];               /* the exported symbol */
	uint64_t addr;               /* its runtime address */
	unsigned kinds;              /* enum pb_event_kind bits */
	uint64_t per_iteration;      /* executions per iteration */
	uint64_t once;               /* executions per call outside the loop (entry, exit) */
};

/* Per-iteration counts are for an iteration that loops again: the closing branch of the last
 * iteration falls through, so a run of n iterations takes n*taken_branches - 1 branches. */
struct pb_truth {
	uint64_t instructions, loads, stores, branches, taken_branches, calls, returns, locked,
		syscalls, l1_misses;
	uint64_t page_faults;        /* page faults per iteration, user and kernel mode (mode) */
	uint64_t page_faults_user;   /* of those, taken by user-mode instructions */
	uint64_t once_instructions;  /* executed once per call of the loop function */
	/* The watched data (pb_target.data_addr), totals for the whole run: what a write
	 * breakpoint and a read/write breakpoint count. Both 0 when has_watch is false. */
	bool has_watch;
	uint64_t watch_writes, watch_accesses;
	const char *watch_what;      /* "the node the chase starts from", ... */
	/* Address range of all the workload's code, for callgrind. */
	uint64_t code_begin, code_end;
	unsigned nlabels;
	struct pb_label_truth labels[PB_WL_MAX_LABELS];
};

struct pb_workload {
	const char *name;
	const char *summary;
	const struct pb_param_def *params;
	unsigned nparams;
	/* What cannot be measured here, with the reasoning; may be NULL. */
	void (*assumptions)(const int64_t *params, char *buf, size_t len);
	int (*truth)(const int64_t *params, uint64_t iterations, struct pb_truth *out,
		     struct pb_error *err);
	size_t state_size;
	/* On the thread that will run the loop: allocate and initialise private data, fill the
	 * data part of the target. Outside any measured region. NULL: nothing to prepare. */
	int (*setup)(void *state, const int64_t *params, struct pb_target *target,
		     struct pb_error *err);
	/* The measured region: exactly one call of the loop function. */
	void (*run)(void *state, const int64_t *params, uint64_t iterations);
	void (*teardown)(void *state);  /* NULL: the state holds nothing to release */
};

/* A workload with its parameter values, as written "name:key=value,key=value". */
struct pb_workload_choice {
	const struct pb_workload *workload;
	int64_t params[PB_WL_MAX_PARAMS];
};

/* NULL-terminated table of every workload. */
const struct pb_workload *const *pb_workload_list(void);
const struct pb_workload *pb_workload_find(const char *name);
/* Parses "name[:key=value[,key=value...]]"; unknown names, keys, values out of range and bad
 * choices are usage errors naming what is valid. Unset parameters take their defaults. */
int pb_workload_parse(const char *text, struct pb_workload_choice *out, struct pb_error *err);
/* Writes "key=value,..." (choices by name). */
const char *pb_workload_params_text(const struct pb_workload_choice *c, char *buf, size_t len);
/* The truth of a choice; fails for iterations == 0. */
int pb_workload_truth(const struct pb_workload_choice *c, uint64_t iterations,
		      struct pb_truth *out, struct pb_error *err);
/* Total taken branches over a run (see struct pb_truth). */
uint64_t pb_truth_taken_total(const struct pb_truth *t, uint64_t iterations);
/* Index of a label by name, -1 if none. */
int pb_truth_label(const struct pb_truth *t, const char *name);
/* The label a facility that sits on an instruction uses when none is named: the first that
 * marks an event every iteration, else the first; -1 when the workload has none. */
int pb_truth_default_label(const struct pb_truth *t);

/* Helpers for workload files. */
void pb_truth_add_label(struct pb_truth *t, const char *name, const void *addr, unsigned kinds,
			uint64_t per_iteration);
/* A label executed once per call (the loop function's own ret): outside the per-iteration
 * counts, but an oracle sees it. */
void pb_truth_add_once(struct pb_truth *t, const char *name, const void *addr, unsigned kinds);
/* Sums the kinds of the labels into the per-iteration counts (loads, stores, ...): a
 * workload whose every event-producing instruction is labelled declares its counts this way,
 * so the two cannot disagree. instructions and once_instructions stay the caller's. */
void pb_truth_count_labels(struct pb_truth *t);

/* The loop function's closing ret, executed once per run: PB_EV_RET_INSN. */
void pb_truth_add_ret(struct pb_truth *t, const char *name, const void *addr);
/* Records the workload's code range [begin, end) for callgrind. */
void pb_truth_set_code(struct pb_truth *t, const void *begin, const void *end);

/* The state of a workload that keeps one private buffer: setup allocates it (cache-line
 * aligned, zeroed), teardown frees it. */
struct pb_wl_buffer {
	void *data;
	size_t bytes;
};
int pb_wl_buffer_setup(void *state, size_t bytes, const char *workload, struct pb_error *err);
void pb_wl_buffer_teardown(void *state);
/* Table-entry shorthands: a parameter array, and a state that is one pb_wl_buffer. */
#define PB_WL_PARAMS(array) .params = (array), .nparams = PB_ARRAY_SIZE(array)
#define PB_WL_BUFFERED .state_size = sizeof(struct pb_wl_buffer), .teardown = pb_wl_buffer_teardown
/* Evicts the cache line holding addr from every cache level (x86 clflush, AArch64 dc civac;
 * EL0 may issue it because Linux sets SCTLR_EL1.UCI), then waits until every flush is done. */
void pb_wl_flush_line(const void *addr);
void pb_wl_flush_wait(void);
/* Makes addr (len bytes) the data a breakpoint watches. */
void pb_wl_watch(struct pb_target *target, const void *addr, unsigned len);

/* The machine's L1D size in bytes, and whether it was measured or assumed (32 KiB). */
unsigned pb_workload_l1d_size(bool *assumed);

extern const struct pb_workload pb_workload_accuracy, pb_workload_bias, pb_workload_mix,
	pb_workload_mode, pb_workload_shadow, pb_workload_latency, pb_workload_callchain,
	pb_workload_busy;

#endif
