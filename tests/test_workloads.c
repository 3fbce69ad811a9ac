/* Workload table: parameter parsing, declared truth per parameter, labels resolved to
 * distinct runtime addresses inside each workload's code, and the perf-free runner. */
#include "check.h"

#include "util/kit.h"
#include "runner/runner.h"
#include "workloads/workload.h"

#include <unistd.h>

/* The declared truth differs per architecture where the code does (src/workloads/wl_*.S):
 * x86's call/ret push/pop, AArch64's keep the return address in x30; x86's lock add is one
 * instruction, AArch64's an exclusive pair; ... */
#if defined(__x86_64__)
#define ARCH(x86, a64) (x86)
#elif defined(__aarch64__)
#define ARCH(x86, a64) (a64)
#endif

static struct pb_truth truth_of(const char *text, uint64_t iterations)
{
	struct pb_workload_choice c;
	struct pb_truth t;
	struct pb_error err = {0};
	memset(&t, 0, sizeof t);
	CHECK(pb_workload_parse(text, &c, &err) == 0);
	CHECK(pb_workload_truth(&c, iterations, &t, &err) == 0);
	return t;
}

static void test_parse(void)
{
	struct pb_workload_choice c;
	struct pb_error err = {0};
	char buf[128];
	CHECK(pb_workload_parse("accuracy", &c, &err) == 0);
	CHECK_STR_CONTAINS(pb_workload_params_text(&c, buf, sizeof buf), "ratio=20");
	CHECK(pb_workload_parse("accuracy:ratio=40,factor=8", &c, &err) == 0);
	CHECK_EQ_U64(c.params[0], 40);
	CHECK_EQ_U64(c.params[1], 8);
	CHECK(pb_workload_parse("shadow:kind=misses,gap=7", &c, &err) == 0);
	CHECK_STR_CONTAINS(pb_workload_params_text(&c, buf, sizeof buf), "kind=misses,gap=7");

	CHECK(pb_workload_parse("nosuch", &c, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "call-chain");
	CHECK(pb_workload_parse("accuracy:ratio=4", &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "outside 5..1000");
	CHECK(pb_workload_parse("accuracy:ratio=2x", &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "not an integer");
	CHECK(pb_workload_parse("accuracy:size=3", &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "ratio, factor, seed");
	CHECK(pb_workload_parse("bias:variant=fast", &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "plain, lfence, miss");
	CHECK(pb_workload_parse("bias:variant", &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "no value");
	CHECK(pb_workload_parse("busy:x=1", &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "none");

	CHECK(pb_workload_parse("busy", &c, &err) == 0);
	struct pb_truth t;
	CHECK(pb_workload_truth(&c, 0, &t, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "at least 1");
}

static void test_truth_arithmetic(void)
{
	static const unsigned ratios[] = {5, 6, 20, 37, 100, 1000};
	for (unsigned i = 0; i < PB_ARRAY_SIZE(ratios); i++) {
		char text[64];
		snprintf(text, sizeof text, "accuracy:ratio=%u", ratios[i]);
		struct pb_truth t = truth_of(text, 1000);
		CHECK_EQ_U64(t.instructions, ratios[i]);
		CHECK_EQ_U64(t.loads, 1);
		CHECK_EQ_U64(t.l1_misses, 1);
		CHECK_EQ_U64(t.branches, 2);
	}
	/* Ring of factor x L1D in 128-byte nodes; the start node is read once per lap. */
	bool assumed;
	uint64_t nodes = (uint64_t)pb_workload_l1d_size(&assumed) * 4 / 128;
	CHECK_EQ_U64(truth_of("accuracy", nodes).watch_accesses, 1);
	CHECK_EQ_U64(truth_of("accuracy", nodes + 1).watch_accesses, 2);
	CHECK_EQ_U64(truth_of("accuracy", 3 * nodes).watch_accesses, 3);

	CHECK_EQ_U64(truth_of("bias:variant=plain", 10).instructions, 6);
	CHECK_EQ_U64(truth_of("bias:variant=lfence", 10).instructions, ARCH(7, 8));
	struct pb_truth miss = truth_of("bias:variant=miss", 10);
	CHECK_EQ_U64(miss.instructions, 8);
	CHECK_EQ_U64(miss.loads, 4);
	CHECK_EQ_U64(miss.l1_misses, 1);
	/* four loads: the flush names a byte of the line outside the watched word */
	CHECK_EQ_U64(miss.watch_accesses, 40);

	struct pb_truth mix = truth_of("mix", 100);
	CHECK_EQ_U64(mix.instructions, ARCH(11, 14));
	CHECK_EQ_U64(mix.loads, ARCH(4, 3));
	CHECK_EQ_U64(mix.stores, ARCH(4, 3));
	CHECK_EQ_U64(mix.branches, 5);
	CHECK_EQ_U64(mix.taken_branches, 4);
	CHECK_EQ_U64(mix.once_instructions, ARCH(1, 2));
	CHECK_EQ_U64(mix.calls, 1);
	CHECK_EQ_U64(mix.returns, 1);
	CHECK_EQ_U64(mix.locked, 2);
	CHECK_EQ_U64(mix.watch_writes, 100);
	CHECK_EQ_U64(pb_truth_taken_total(&mix, 100), 399);

	struct pb_truth mode = truth_of("mode:kernel=fault", 10);
	CHECK_EQ_U64(mode.syscalls, 2);
	CHECK_EQ_U64(mode.loads + mode.stores, 0);
	CHECK_EQ_U64(mode.page_faults, 1);
	CHECK_EQ_U64(mode.once_instructions, ARCH(7, 5));
	CHECK_EQ_U64(truth_of("mode:kernel=getppid", 10).page_faults, 0);

	for (unsigned gap = 0; gap <= 64; gap += 9) {
		char text[64];
		snprintf(text, sizeof text, "shadow:kind=loads,gap=%u", gap);
		CHECK_EQ_U64(truth_of(text, 10).instructions, 4 * (gap + 1) + 2);
		snprintf(text, sizeof text, "shadow:kind=misses,gap=%u", gap);
		struct pb_truth t = truth_of(text, 10);
		CHECK_EQ_U64(t.instructions, 4 * (gap + 1) + 7);
		CHECK_EQ_U64(t.l1_misses, 4);
		CHECK_EQ_U64(t.once_instructions, ARCH(1, 4));
		snprintf(text, sizeof text, "shadow:kind=branches,gap=%u", gap);
		t = truth_of(text, 10);
		CHECK_EQ_U64(t.taken_branches, 5);
		CHECK(!t.has_watch);
	}

	struct pb_truth lat = truth_of("latency-biased", 10);
	CHECK_EQ_U64(lat.instructions, ARCH(16, 12));
	CHECK_EQ_U64(lat.loads, 1);
	CHECK_EQ_U64(lat.branches, 5);
	CHECK_EQ_U64(lat.taken_branches, 4);

	struct pb_truth cc = truth_of("call-chain", 10);
	CHECK_EQ_U64(cc.instructions, ARCH(52, 82));
	CHECK_EQ_U64(cc.once_instructions, ARCH(3, 6));
	CHECK_EQ_U64(cc.loads, 10); /* x86: the rets' pops; AArch64: the frame records' ldp */
	CHECK_EQ_U64(cc.nlabels, ARCH(32, 52));
	CHECK_EQ_U64(cc.calls, 10);
	CHECK_EQ_U64(cc.returns, 10);
	CHECK_EQ_U64(cc.stores, 20);

	struct pb_truth busy = truth_of("busy", 10);
	CHECK_EQ_U64(busy.instructions, 10);
	CHECK_EQ_U64(busy.loads + busy.stores, 0);
}

/* Every choice's labels: resolved, distinct, inside its workload's code, with a kind count
 * that adds up to the declared per-iteration counts. */
static void check_labels(const struct pb_workload_choice *c)
{
	struct pb_truth t;
	struct pb_error err = {0};
	CHECK(pb_workload_truth(c, 7, &t, &err) == 0);
	CHECK(t.nlabels >= 2);
	CHECK(t.code_begin && t.code_end > t.code_begin);
	uint64_t loads = 0;
	for (unsigned i = 0; i < t.nlabels; i++) {
		const struct pb_label_truth *l = &t.labels[i];
		CHECK(l->addr >= t.code_begin && l->addr < t.code_end);
		CHECK(!strncmp(l->name, "pb_wl_", 6));
		CHECK(l->per_iteration + l->once > 0);
		if (l->kinds & PB_EV_LOAD)
			loads += l->per_iteration;
		for (unsigned j = 0; j < i; j++) {
			CHECK(t.labels[j].addr != l->addr);
			CHECK(strcmp(t.labels[j].name, l->name) != 0);
		}
	}
	CHECK_EQ_U64(loads, t.loads);
	CHECK(t.instructions >= t.branches);
}

static void test_labels(void)
{
	unsigned choices = 0;
	for (const struct pb_workload *const *w = pb_workload_list(); *w; w++) {
		struct pb_workload_choice c = {.workload = *w};
		for (unsigned i = 0; i < (*w)->nparams; i++)
			c.params[i] = (*w)->params[i].def;
		check_labels(&c);
		choices++;
		for (unsigned i = 0; i < (*w)->nparams; i++) {
			const struct pb_param_def *d = &(*w)->params[i];
			struct pb_workload_choice v = c;
			for (int64_t x = d->min; x <= d->max; x += d->choices ? 1 : (d->max - d->min) / 3 + 1) {
				v.params[i] = x;
				check_labels(&v);
			}
		}
	}
	CHECK_EQ_U64(choices, 8);
	/* Different variants of one workload have their own code and labels. */
	struct pb_truth a = truth_of("shadow:kind=loads,gap=3", 1), b = truth_of("shadow:kind=loads,gap=4", 1);
	CHECK(a.labels[0].addr != b.labels[0].addr);
	CHECK_STR_CONTAINS(b.labels[0].name, "_g4_");
}

static void test_runner(void)
{
	const char *texts[] = {"accuracy:factor=2", "bias:variant=miss", "mix", "mode:kernel=fault",
			       "shadow:kind=misses,gap=2", "latency-biased", "call-chain", "busy"};
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (unsigned i = 0; i < PB_ARRAY_SIZE(texts); i++) {
		struct pb_workload_choice c;
		struct pb_error err = {0};
		struct pb_instance in;
		struct pb_runner_result res;
		CHECK(pb_workload_parse(texts[i], &c, &err) == 0);
		CHECK(pb_instance_init(&in, &c, 200, 3, &err) == 0);
		CHECK(pb_runner_run(&in, &res, &err) == 0);
		CHECK_EQ_U64(res.threads, 3);
		for (unsigned t = 0; t < 3; t++) {
			CHECK_EQ_U64(res.cpu[t], t % (unsigned)ncpus);
			CHECK(in.states[t] != NULL);
		}
		/* Prepared again (a second session), each thread's data is rebuilt. */
		struct pb_target target;
		CHECK(pb_instance_prepare(&in, 1, &target) == 0);
		CHECK((target.data_addr != 0) == in.truth.has_watch);
		CHECK(target.code_addr == 0);
		in.code_label = 0;
		CHECK(pb_instance_prepare(&in, 1, &target) == 0);
		CHECK_EQ_U64(target.code_addr, in.truth.labels[0].addr);
		pb_instance_free(&in);
	}
	struct pb_workload_choice c;
	struct pb_error err = {0};
	struct pb_instance in;
	CHECK(pb_workload_parse("busy", &c, &err) == 0);
	CHECK(pb_instance_init(&in, &c, 10, 0, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "threads");
}

int main(void)
{
	test_parse();
	test_truth_arithmetic();
	test_labels();
	test_runner();
	return pb_check_done("test_workloads");
}
