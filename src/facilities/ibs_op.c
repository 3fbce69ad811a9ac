/* AMD IBS op sampling: the hardware tags one op every period cycles (or dispatched ops) and
 * reports its exact RIP and what happened to it, through the dynamic 'ibs_op' PMU. */
#include "facilities/ibs_common.h"
#include "facilities/selftest.h"
#include "facilities/ibs_raw.h"
#include "ring/record.h"
#include "util/kit.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dispatched ops by default, as the main study programmed it ("it generates predictable number
 * of samples"): the declared instructions of a workload are then the events one period counts.
 * :cycles samples one op per period of cycles, which nothing declares. */
static int parse_subset(struct pb_spec *spec, const char *value, void *ctx, struct pb_error *err)
{
	(void)ctx;
	if (!pb_ibs_op_filter_parse(value, &spec->priv.subset, err))
		return 0;
	return pb_error_append(err, " (in %s)", spec->text);
}

static const struct pb_spec_option op_words[] = {
	{.word = "ops", .kind = PB_SPEC_CHOICE, .bits = PB_IBS_OPT_OPS,
	 .help = "count dispatched ops (cnt_ctl): one op tagged every period ops (the default)"},
	{.word = "cycles", .kind = PB_SPEC_CHOICE, .bits = PB_IBS_OPT_CYCLES,
	 .help = "count cycles: one op tagged every period cycles"},
	PB_IBS_COMMON_OPTIONS,
	{.word = "ldlat", .kind = PB_SPEC_NUMBER, .bits = PB_IBS_OPT_LDLAT,
	 .field = PB_SPEC_FIELD(config1), .min = PB_IBS_LDLAT_MIN, .max = PB_IBS_LDLAT_MAX,
	 .about = "a load latency in cycles",
	 .note = "the kernel refuses others; multiples of 128 are filtered in hardware, the rest "
		 "in software",
	 .help = "only loads that missed the data cache and took longer (Zen 5, v6.15 on)"},
	/* Counts only the tagged ops of a class (load+l1-miss), as the main study counted subset
	 * events from IBS op samples; the hardware still tags every period, so this changes the
	 * counting, not the attr. */
	{.word = "subset", .kind = PB_SPEC_TEXT, .arg = "CLASS[+CLASS]", .parse = parse_subset,
	 .help = "count only the tagged ops of these classes (load, l1-miss, ...)"},
};

static const struct pb_spec_options op_options =
	PB_SPEC_OPTIONS(op_words, .what = "ibs-op option", .default_choice = "ops",
			.exclusive_why = "IBS counts either dispatched ops or cycles");

static int op_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	return pb_spec_options_parse(&op_options, spec, args, NULL, err);
}

/* The declared events of an IBS op subset (ibs-op:subset=...): the workload's count of the one
 * kind of instruction the subset names. A subset is declared when its flags are those of one row
 * below, the first flag required, the others optional (they hold for every event of the row):
 *   l1-miss [+load]                  -> l1_misses (the workloads' L1 misses are loads)
 *   locked [+load] [+store]          -> locked    (a locked op loads and stores)
 *   return [+branch] [+taken]        -> returns   (a return is a taken branch)
 *   taken [+branch]                  -> taken branches
 *   branch                           -> branches
 *   load                             -> loads
 *   store                            -> stores
 * Any other combination (l2-miss, dtlb misses, mispredicted, load+store...) has no declared
 * count: the subset's basis is then "undeclared" and its accuracy is not computed. */
static bool ibs_subset_declared(uint32_t subset, const struct pb_truth *t, uint64_t iterations,
				uint64_t *events)
{
	static const struct {
		uint32_t required, optional;
		int field;
	} rows[] = {
		{PB_IBS_OP_L1_MISS, PB_IBS_OP_LOAD, 0},
		{PB_IBS_OP_LOCKED, PB_IBS_OP_LOAD | PB_IBS_OP_STORE, 1},
		{PB_IBS_OP_RETURN, PB_IBS_OP_BRANCH | PB_IBS_OP_TAKEN, 2},
		{PB_IBS_OP_TAKEN, PB_IBS_OP_BRANCH, 3},
		{PB_IBS_OP_BRANCH, 0, 4},
		{PB_IBS_OP_LOAD, 0, 5},
		{PB_IBS_OP_STORE, 0, 6},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		if (!(subset & rows[i].required) ||
		    (subset & ~(rows[i].required | rows[i].optional)))
			continue;
		switch (rows[i].field) {
		case 0: *events = t->l1_misses * iterations; break;
		case 1: *events = t->locked * iterations; break;
		case 2: *events = t->returns * iterations; break;
		case 3: *events = pb_truth_taken_total(t, iterations); break;
		case 4: *events = t->branches * iterations; break;
		case 5: *events = t->loads * iterations; break;
		default: *events = t->stores * iterations; break;
		}
		return true;
	}
	return false;
}

/* Whether an op sample belongs to the subset: its raw registers decoded for the machine and
 * classified. Undecodable and invalid (!En || !Val) samples belong to none. */
static bool op_sample_in_subset(const struct pb_machine *m, const struct pb_spec *spec,
				const struct pb_sample *s)
{
	struct pb_ibs_cpu cpu;
	struct pb_ibs_sample ibs;
	struct pb_ibs_op_class cls;
	pb_ibs_cpu_from_machine(m, &cpu);
	if (!s->raw || pb_ibs_decode(s->raw, s->raw_size, PB_IBS_OP, &cpu, &ibs, NULL) ||
	    !ibs.valid || pb_ibs_op_classify(&ibs, &cls, NULL))
		return false;
	return pb_ibs_op_matches(&cls, spec->priv.subset);
}

/* Ops are counted as the workload's instructions, the way the main study did (an assumption
 * the README states); a subset counts the one kind of instruction it names. */
static const char *op_declare(const struct pb_spec *spec, const struct pb_truth *truth,
			      const struct pb_label_truth *label, uint64_t iterations,
			      uint64_t *events)
{
	(void)label;
	if (spec->options & PB_IBS_OPT_CYCLES)
		return "count";
	if (spec->priv.subset)
		return ibs_subset_declared(spec->priv.subset, truth, iterations, events) ? "declared"
										     : "undeclared";
	*events = truth->instructions * iterations + truth->once_instructions;
	return "declared";
}

static void op_availability(const struct pb_machine *m, const struct pb_spec *spec,
			    struct pb_availability *out)
{
	pb_ibs_availability(PB_IBS_OP, m, spec, out);
}

static int op_attr(const struct pb_machine *m, const struct pb_spec *spec,
		   const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		   struct pb_error *err)
{
	(void)target;
	if (pb_ibs_attr_common(PB_IBS_OP, m, spec, period, attr, err))
		return -1;
	char fallback[24];
	if ((spec->options & PB_IBS_OPT_OPS) &&
	    pb_ibs_set_format(m, PB_IBS_OP, "cnt_ctl",
			      pb_ibs_config_format(PB_IBS_OP_CTL_CNT_CTL, fallback, sizeof fallback),
			      1, attr, err))
		return -1;
	if ((spec->options & PB_IBS_OPT_LDLAT) &&
	    pb_ibs_set_format(m, PB_IBS_OP, "ldlat", "config1:0-11", spec->config1, attr, err))
		return -1;
	return 0;
}

/* IBS cannot exclude the kernel without swfilt, so the self-test samples both levels. */
static void op_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			 struct pb_self_test *out)
{
	pb_selftest_sampling_pmu(m, spec, "ibs-op", "IBS op events", true, out);
}

/* With :subset, observed counts the subset's samples only: every op sample read is said
 * beside it, so the subset's share can be checked. */
static const struct pb_own_figure op_samples_read = {
	"ibs_ops_sampled", "samples", "observed: the subset's samples among %llu op samples"};

static const struct pb_own_figure *const op_own_figures[] = {&op_samples_read, NULL};

static const struct pb_own_figure *op_own_figure(const struct pb_spec *spec, size_t i)
{
	return spec->priv.subset && i == 0 ? op_own_figures[0] : NULL;
}

static void op_own_tally_thread(const struct pb_spec *spec, uint64_t samples,
				const struct pb_ring_stats *ring, uint64_t *own)
{
	(void)ring;
	if (spec->priv.subset)
		own[0] += samples;
}

const struct pb_facility pb_facility_ibs_op = {
	.name = "ibs-op",
	.options = &op_options,
	.usage = "ibs-op[:ops|:cycles][:l3missonly][:swfilt][:ldlat=N][:subset=load+l1-miss]",
	.summary = "AMD IBS op sampling: exact RIP of a tagged op plus its data address, "
		   "latency and data source",
	PB_IBS_FACILITY_COMMON,
	.min_period = PB_IBS_OP_MIN_PERIOD,
	.parse = op_parse,
	.availability = op_availability,
	.attr = op_attr,
	.declare = op_declare,
	.sample_in_subset = op_sample_in_subset,
	.suite_spec = "ibs-op",
	.self_test = op_self_test,
	.probe_machine = pb_ibs_probe_machine,
	.machine_facts = pb_ibs_machine_facts,
	.perfdata = &pb_ibs_perfdata_decoder,
	.own_figure = op_own_figure,
	.own_figures = op_own_figures,
	.own_tally_thread = op_own_tally_thread,
};
