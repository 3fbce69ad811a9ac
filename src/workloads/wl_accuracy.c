/* accuracy: one load per iteration that misses L1 by construction, padded with register adds
 * to a load:instruction ratio of 1/ratio. */
#include "util/rng.h"
#include "workloads/workload.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

extern const char pb_wl_accuracy_code_begin[], pb_wl_accuracy_code_end[], pb_wl_accuracy_jump[],
	pb_wl_accuracy_chase[], pb_wl_accuracy_back[], pb_wl_accuracy_ret[];
void pb_wl_accuracy_loop(void **node, uint64_t iterations, uint64_t pad);

#define NODE_STRIDE 128
/* Instructions per iteration that are not padding: jmp, chasing load, dec, jnz. */
#define FIXED_INSNS 4
/* Entries of the smallest common L1 DTLB for 4 KiB pages; only used to word an assumption. */
#define TYPICAL_L1_DTLB 64

enum { P_RATIO, P_FACTOR, P_SEED };

/* How setup evicts the ring (pb_wl_flush_line), for the assumption's wording. */
#if defined(__x86_64__)
#define FIRST_LAP "every node's line is clflushed before the run, so the first lap misses too"
#define ONCE_INSNS 4 /* lea, shl, sub, ret */
#elif defined(__aarch64__)
#define FIRST_LAP "every node's line is cleaned and invalidated (dc civac) before the run, " \
	"so the first lap misses too"
#define ONCE_INSNS 4 /* adr, lsl, sub, ret */
#elif defined(__riscv)
#define FIRST_LAP "the first lap may hit lines setup left in the cache: RV64GC has no " \
	"instruction that evicts a line (cache-block management, Zicbom, is an extension)"
#define ONCE_INSNS 5 /* lla (auipc, addi), slli, sub, ret */
#endif

static const struct pb_param_def params[] = {
	{"ratio", "instructions per chasing load (the load:instruction ratio is 1/ratio)", 20, 5,
	 1000, NULL},
	{"factor", "ring size as a multiple of the L1D size", 4, 2, 64, NULL},
	{"seed", "seed of the ring's shuffle", 1, 0, 1000000000, NULL},
};

static size_t ring_nodes(const int64_t *p)
{
	return (size_t)pb_workload_l1d_size(NULL) * (size_t)p[P_FACTOR] / NODE_STRIDE;
}

static void assumptions(const int64_t *p, char *buf, size_t len)
{
	bool assumed;
	unsigned l1d = pb_workload_l1d_size(&assumed);
	size_t nodes = ring_nodes(p);
	size_t pages = (nodes * NODE_STRIDE + 4095) / 4096;
	snprintf(buf, len,
		 "the chasing load misses L1 on every iteration. Not measurable without a PMU; "
		 "reasoning: L1D is %u KiB (%s); the ring is %lld x L1D = %zu KiB of %zu nodes, one "
		 "per %d bytes, so each node has a cache line of its own and the line next to it "
		 "(which adjacent-line prefetchers fetch) is never used; the order is a random "
		 "single cycle (Sattolo shuffle), so stride prefetchers see no pattern and each "
		 "load's address comes from the previous load; " FIRST_LAP
		 "; after that, a cyclic walk over %lldx "
		 "more lines than L1 holds evicts each line before it is reached again under LRU "
		 "(pseudo-LRU may let a few hit). The ring spans %zu pages, %s. On hardware with a "
		 "PMU the accuracy experiment checks this with an L1-miss counting event.",
		 l1d / 1024, assumed ? "ASSUMED: neither sysfs nor CPUID reports it"
				     : !strcmp(pb_machine_live()->l1d_source, "cpuid")
					       ? "from CPUID: sysfs has no cache directory here"
					       : "from sysfs",
		 (long long)p[P_FACTOR], nodes * NODE_STRIDE / 1024, nodes, NODE_STRIDE,
		 (long long)p[P_FACTOR], pages,
		 pages <= TYPICAL_L1_DTLB ? "within a typical 64-entry L1 DTLB"
					  : "more than a typical 64-entry L1 DTLB holds: loads may "
					    "also miss the TLB");
}

static int truth(const int64_t *p, uint64_t iterations, struct pb_truth *t, struct pb_error *err)
{
	(void)err;
	uint64_t nodes = ring_nodes(p);
	pb_truth_add_label(t, "pb_wl_accuracy_jump", pb_wl_accuracy_jump, PB_EV_BRANCH | PB_EV_TAKEN,
			   1);
	pb_truth_add_label(t, "pb_wl_accuracy_chase", pb_wl_accuracy_chase,
			   PB_EV_LOAD | PB_EV_L1_MISS, 1);
	pb_truth_add_label(t, "pb_wl_accuracy_back", pb_wl_accuracy_back, PB_EV_BRANCH | PB_EV_TAKEN,
			   1);
	pb_truth_add_ret(t, "pb_wl_accuracy_ret", pb_wl_accuracy_ret);
	pb_truth_count_labels(t);
	t->instructions = (uint64_t)p[P_RATIO];
	t->once_instructions = ONCE_INSNS;
	/* The chase starts at node 0 and visits every node once per lap. */
	t->has_watch = true;
	t->watch_what = "the ring node the chase starts from (read once per lap)";
	t->watch_writes = 0;
	t->watch_accesses = (iterations + nodes - 1) / nodes;
	pb_truth_set_code(t, pb_wl_accuracy_code_begin, pb_wl_accuracy_code_end);
	return 0;
}

static int setup(void *state, const int64_t *p, struct pb_target *target, struct pb_error *err)
{
	size_t nodes = ring_nodes(p);
	if (pb_wl_buffer_setup(state, nodes * NODE_STRIDE, "accuracy", err))
		return -1;
	size_t *order = malloc(nodes * sizeof *order);
	if (!order)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "accuracy: out of memory");
	/* Sattolo's algorithm: a uniformly random permutation that is one single cycle. */
	for (size_t i = 0; i < nodes; i++)
		order[i] = i;
	struct pb_rng rng;
	pb_rng_seed(&rng, (uint64_t)p[P_SEED]);
	for (size_t i = nodes - 1; i > 0; i--) {
		/* `% i`, not pb_rng_below: a seed keeps the ring it always built */
		size_t j = (size_t)(pb_rng_next(&rng) % i);
		size_t tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	char *base = ((struct pb_wl_buffer *)state)->data;
	for (size_t i = 0; i < nodes; i++)
		*(void **)(base + order[i] * NODE_STRIDE) = base + order[(i + 1) % nodes] * NODE_STRIDE;
	free(order);
	for (size_t i = 0; i < nodes; i++)
		pb_wl_flush_line(base + i * NODE_STRIDE);
	pb_wl_flush_wait();
	/* The chase starts at node 0, wherever it sits in the cycle. */
	pb_wl_watch(target, base, 8);
	return 0;
}

static void run(void *state, const int64_t *p, uint64_t iterations)
{
	pb_wl_accuracy_loop(((struct pb_wl_buffer *)state)->data, iterations,
			    (uint64_t)p[P_RATIO] - FIXED_INSNS);
}

const struct pb_workload pb_workload_accuracy = {
	.name = "accuracy",
	.summary = "pointer chase over a shuffled ring larger than L1, one missing load per "
		   "iteration, padded with adds to 1/ratio loads per instruction",
	PB_WL_PARAMS(params),
	.assumptions = assumptions,
	.truth = truth,
	.setup = setup,
	.run = run,
	PB_WL_BUFFERED,
};
