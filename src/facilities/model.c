/* The facility model as the experiments see it: each descriptor's hooks with the defaults of a
 * facility that leaves one out, and the one table that maps hardware event names to the truth
 * field counting them. */
#include "facilities/facility.h"

#include "workloads/workload.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *pb_spec_declare(const struct pb_spec *spec, const struct pb_truth *truth, int label,
			    uint64_t iterations, uint64_t *events)
{
	*events = 0;
	const struct pb_label_truth *lt =
		label >= 0 && (unsigned)label < truth->nlabels ? &truth->labels[label] : NULL;
	if (spec->facility->declare)
		return spec->facility->declare(spec, truth, lt, iterations, events);
	return spec->facility->time_based ? "time" : "count";
}

const char *pb_spec_workload(const struct pb_spec *spec, enum pb_workload_role role,
			     const char **why)
{
	static const char *unused;
	if (!why)
		why = &unused;
	*why = NULL;
	if (spec && spec->facility->workload)
		return spec->facility->workload(spec, role, why);
	switch (role) {
	case PB_ROLE_COST: return "busy";
	case PB_ROLE_PREDICT: return "accuracy:ratio=20";
	case PB_ROLE_LEVELS: return "mode:kernel=getppid";
	case PB_ROLE_NATURAL: break;
	}
	return "accuracy";
}

const char *pb_spec_open_refusal(const struct pb_spec *spec, int err_no)
{
	return spec->facility->open_refusal ? spec->facility->open_refusal(err_no) : NULL;
}

const char *pb_spec_site_refusal(const struct pb_spec *spec, int err_no)
{
	return spec->facility->site_refusal ? spec->facility->site_refusal(err_no) : NULL;
}

bool pb_spec_sits_on_instruction(const struct pb_spec *spec)
{
	return spec->facility->sits_on_instruction && spec->facility->sits_on_instruction(spec);
}

double pb_spec_user_level_share(const struct pb_spec *spec, const struct pb_truth *truth)
{
	return spec->facility->user_level_share ? spec->facility->user_level_share(spec, truth)
						 : 1;
}

bool pb_spec_needs_kernel_level(const struct pb_spec *spec, const struct pb_truth *truth)
{
	return pb_spec_user_level_share(spec, truth) < 1;
}

const char *pb_spec_event_cost_class(const struct pb_machine *m, const struct pb_spec *spec,
				     uint64_t code_addr, char *insn, size_t insn_len)
{
	if (insn && insn_len)
		insn[0] = 0;
	if (!spec->facility->event_cost_class || !code_addr)
		return NULL;
	return spec->facility->event_cost_class(m, spec, code_addr, insn, insn_len);
}

const char *pb_spec_spread(const struct pb_spec *spec, char *buf, size_t len, const char **why)
{
	*why = NULL;
	if (spec->facility->spread_spec)
		return spec->facility->spread_spec(spec, buf, len, why);
	if ((size_t)snprintf(buf, len, "%s", spec->text) >= len) {
		*why = "the facility spec is too long";
		return NULL;
	}
	return buf;
}

const char *pb_facility_period_unit(const struct pb_facility *f)
{
	return f->time_based ? "ns" : "events";
}

const struct pb_facility *pb_facility_of(const char *spec_text)
{
	char name[32];
	size_t n = strcspn(spec_text, ":");
	if (n >= sizeof name)
		return NULL;
	memcpy(name, spec_text, n);
	name[n] = '\0';
	const struct pb_facility *f = pb_facility_find(name);
	return f ? f : pb_facility_of_perf_name(name);
}

/* Exact facilities see every event: short periods, and primes near them. */
const struct pb_period_sets pb_exact_periods = {
	.accuracy = 7,
	.round = {1000, 100, 10, 4},
	.prime = {997, 101, 11, 3},
	.cost = {1000, 64, 16, 8, 4},
	.buffer = 2,
};

/* Counter-overflow facilities (hw, PEBS, SPE): long enough never to be throttled. */
const struct pb_period_sets pb_counter_periods = {
	.accuracy = 100000,
	.round = {1000000, 100000, 10000, 1000},
	.prime = {999983, 100003, 10007, 1009},
	.cost = {10000000, 1000000, 200000, 100000, 50000},
	.buffer = 10000,
};

/* What a declared hardware event counts, per iteration of a workload's loop. */
enum counted {
	COUNTS_INSTRUCTIONS,
	COUNTS_LOADS,
	COUNTS_STORES,
	COUNTS_L1D_MISSES,
	COUNTS_BRANCHES,
	COUNTS_TAKEN_BRANCHES
};

/* Event names as perf (generic) and libpfm4 write them, with the umasks that make them count
 * exactly what the truth field declares; "" is an event written without a umask, which
 * libpfm4 gives its default umask. Any other umask (INST_RETIRED:NOP, BR_INST_RETIRED:COND)
 * counts something else and gets the kernel's count as basis. The validation test checks every
 * row against libpfm4's tables. */
const struct pb_declared_event pb_declared_event_table[] = {
	{"instructions", "", true, COUNTS_INSTRUCTIONS},
	{"branches", "", true, COUNTS_BRANCHES},
	{"branch-instructions", "", true, COUNTS_BRANCHES},
	{"PERF_COUNT_HW_INSTRUCTIONS", "", false, COUNTS_INSTRUCTIONS},
	{"PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "", false, COUNTS_BRANCHES},
	{"PERF_COUNT_HW_CACHE_L1D", "READ:MISS", false, COUNTS_L1D_MISSES},
	/* Intel */
	{"INST_RETIRED", "", false, COUNTS_INSTRUCTIONS},
	{"INST_RETIRED", "ANY", false, COUNTS_INSTRUCTIONS},
	{"INST_RETIRED", "ANY_P", false, COUNTS_INSTRUCTIONS},
	{"INST_RETIRED", "PREC_DIST", false, COUNTS_INSTRUCTIONS},
	{"MEM_INST_RETIRED", "ALL_LOADS", false, COUNTS_LOADS},
	{"MEM_INST_RETIRED", "ALL_STORES", false, COUNTS_STORES},
	{"MEM_UOPS_RETIRED", "ALL_LOADS", false, COUNTS_LOADS},
	{"MEM_UOPS_RETIRED", "ALL_STORES", false, COUNTS_STORES},
	{"MEM_LOAD_RETIRED", "L1_MISS", false, COUNTS_L1D_MISSES},
	{"MEM_LOAD_UOPS_RETIRED", "L1_MISS", false, COUNTS_L1D_MISSES},
	{"BR_INST_RETIRED", "", false, COUNTS_BRANCHES},
	{"BR_INST_RETIRED", "ALL_BRANCHES", false, COUNTS_BRANCHES},
	{"BR_INST_RETIRED", "NEAR_TAKEN", false, COUNTS_TAKEN_BRANCHES},
	/* AMD */
	{"RETIRED_INSTRUCTIONS", "", false, COUNTS_INSTRUCTIONS},
	{"RETIRED_BRANCH_INSTRUCTIONS", "", false, COUNTS_BRANCHES},
	{"RETIRED_TAKEN_BRANCH_INSTRUCTIONS", "", false, COUNTS_TAKEN_BRANCHES},
	{NULL, NULL, false, 0},
};

/* Whether "UMASK[:UMASK]" (a row's) is exactly the set of umasks in words[1..n). */
static bool umasks_match(const char *row, char words[][64], unsigned n)
{
	unsigned wanted = 0;
	for (const char *r = row; *r; wanted++) {
		size_t len = strcspn(r, ":");
		bool found = false;
		for (unsigned i = 1; i < n; i++)
			found |= strlen(words[i]) == len && !strncasecmp(words[i], r, len);
		if (!found)
			return false;
		r += len + (r[len] == ':');
	}
	return wanted == n - 1;
}

const struct pb_declared_event *pb_declared_event_find(const char *event)
{
	/* "pmu::EVENT:UMASK:UMASK": the PMU does not change what is counted. */
	const char *sep = strstr(event, "::");
	if (sep)
		event = sep + 2;
	char words[6][64];
	unsigned n = 0;
	for (const char *e = event; *e && n < 6; n++) {
		size_t len = strcspn(e, ":");
		/* a modifier (c=1, e, i=1...) changes what is counted: no declaration */
		if (len >= sizeof words[0] || memchr(e, '=', len))
			return NULL;
		memcpy(words[n], e, len);
		words[n][len] = '\0';
		e += len + (e[len] == ':');
	}
	if (!n)
		return NULL;
	for (const struct pb_declared_event *d = pb_declared_event_table; d->event; d++)
		if (!strcasecmp(d->event, words[0]) && umasks_match(d->umasks, words, n))
			return d;
	return NULL;
}

const char *pb_declare_spec_event(const struct pb_spec *spec, const struct pb_truth *truth,
				  const struct pb_label_truth *label, uint64_t iterations,
				  uint64_t *events)
{
	(void)label;
	const struct pb_declared_event *d = pb_declared_event_find(spec->event);
	if (!d)
		return "count";
	switch ((enum counted)d->counts) {
	case COUNTS_INSTRUCTIONS:
		*events = truth->instructions * iterations + truth->once_instructions;
		break;
	case COUNTS_LOADS: *events = truth->loads * iterations; break;
	case COUNTS_STORES: *events = truth->stores * iterations; break;
	case COUNTS_L1D_MISSES: *events = truth->l1_misses * iterations; break;
	case COUNTS_BRANCHES: *events = truth->branches * iterations; break;
	case COUNTS_TAKEN_BRANCHES: *events = pb_truth_taken_total(truth, iterations); break;
	}
	return "declared";
}
