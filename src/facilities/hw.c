/* Classic counter-overflow sampling: a hardware counter interrupts after period events and the
 * kernel records wherever the CPU was by then (skid). No precise mechanism is asked for. */
#include "facilities/facility.h"
#include "facilities/selftest.h"
#include "facilities/pfm_encode.h"
#include "util/kit.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	uint64_t config;
} generic_events[] = {
	{"cycles", PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_COUNT_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
};

#define NGENERIC (PB_ARRAY_SIZE(generic_events))

static int generic_index(const char *name)
{
	for (size_t i = 0; i < NGENERIC; i++)
		if (!strcmp(generic_events[i].name, name))
			return (int)i;
	return -1;
}

/* No option words: every word is part of the event's name (hw:INST_RETIRED:ANY_P). */
static const struct pb_spec_options hw_options = {.what = "hw option",
						  .other = pb_spec_event_word};

static int hw_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	if (!args || !*args) {
		char names[256] = "";
		for (size_t i = 0; i < NGENERIC; i += 2)
			pb_list_add(names, sizeof names, generic_events[i].name);
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "hw needs an event: hw:EVENT with a generic name (%s) or a libpfm4 "
			       "name (hw:INST_RETIRED:ANY_P)", names);
	}
	struct pb_spec_event_words words = {0};
	if (pb_spec_options_parse(&hw_options, spec, args, &words, err))
		return -1;
	snprintf(spec->event, sizeof spec->event, "%s", words.text);
	spec->priv.precise = 0;
	int g = generic_index(spec->event);
	if (g >= 0) {
		spec->type = PERF_TYPE_HARDWARE;
		spec->config = generic_events[g].config;
	}
	return 0;
}

/* hw@PMU: the core PMU the spec names, or NULL with out->reason listing the machine's. */
static const struct pb_pmu *hw_named_pmu(const struct pb_machine *m, const struct pb_spec *spec,
					 struct pb_availability *out)
{
	const struct pb_pmu *p = pb_machine_pmu(m, spec->pmu);
	if (p && p->core)
		return p;
	const struct pb_pmu *core[PB_MAX_PMUS];
	unsigned n = pb_machine_core_pmus(m, core, PB_MAX_PMUS);
	char names[256] = "";
	for (unsigned i = 0; i < n; i++) {
		char one[128];
		snprintf(one, sizeof one, "%.40s (CPUs %.60s)", core[i]->name,
			 core[i]->cpus[0] ? core[i]->cpus : "all");
		pb_list_add(names, sizeof names, one);
	}
	snprintf(out->reason, sizeof out->reason, "%s is %s; the core PMUs here: %s", spec->pmu,
		 p ? "not a core PMU (no CPU runs code on it)" : "not a PMU of this machine",
		 n ? names : "none");
	return NULL;
}

/* A hw@PMU attr: the event on that PMU, whatever the machine's default core PMU. A generic
 * event names its PMU in config's upper half (PERF_PMU_TYPE_SHIFT, the kernel's extended
 * hardware type for hybrid machines); a raw one takes the PMU's own type. */
static void hw_apply_pmu(const struct pb_pmu *p, struct perf_event_attr *attr)
{
	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE)
		attr->config = (attr->config & 0xffffffffu) | (uint64_t)(uint32_t)p->type << 32;
	else
		attr->type = (uint32_t)p->type;
}

static void hw_availability(const struct pb_machine *m, const struct pb_spec *spec,
			    struct pb_availability *out)
{
	memset(out, 0, sizeof *out);
	const struct pb_pmu *p = pb_machine_core_pmu(m);
	if (p && spec && spec->pmu[0] && !(p = hw_named_pmu(m, spec, out)))
		return;
	if (!p) {
		if (m->hypervisor)
			snprintf(out->reason, sizeof out->reason,
				 "no hardware PMU: /sys/bus/event_source/devices/cpu is absent and this "
				 "is a virtual machine (hypervisor flag set) without PMU passthrough; run "
				 "on bare metal or enable the vPMU (KVM: -cpu host,pmu=on)");
		else
			snprintf(out->reason, sizeof out->reason,
				 "no hardware PMU: /sys/bus/event_source/devices has no cpu (or armv8_*) "
				 "PMU although this is not a VM; the kernel lacks the PMU driver for this "
				 "CPU or it failed to probe (check dmesg for 'Performance Events')");
		return;
	}
	if (pb_perf_forbidden(m, out))
		return;
	if (pb_machine_is_riscv(m) && !m->riscv_sscofpmf) {
		snprintf(out->reason, sizeof out->reason,
			 "RISC-V hart without Sscofpmf (isa %.60s): no counter-overflow interrupt, so "
			 "Linux's SBI PMU driver counts but refuses sampling (EOPNOTSUPP) and "
			 "privilege filters (EINVAL): counting only. Needs Sscofpmf and an SBI "
			 "firmware with the PMU extension",
			 m->riscv_isa);
		return;
	}
	out->available = true;
	const char *table = pb_pfm_pmu_for_machine(m);
	char counters[48] = "";
	if (m->pmu_counters)
		snprintf(counters, sizeof counters, ", %u counters", m->pmu_counters);
	char cpus[72] = "";
	const struct pb_pmu *core[2];
	/* which CPUs matter where core PMUs split them (hybrid) */
	if (p->cpus[0] && pb_machine_core_pmus(m, core, 2) > 1)
		snprintf(cpus, sizeof cpus, ", CPUs %.60s", p->cpus);
	snprintf(out->detail, sizeof out->detail, "%s PMU type %d%s%.24s; libpfm4 table: %s%s",
		 p->name, p->type, cpus, counters, table ? table : "none (generic names only)",
		 pb_user_space_only_note(m));
}

static int hw_attr(const struct pb_machine *m, const struct pb_spec *spec,
		   const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		   struct pb_error *err)
{
	(void)target;
	struct pb_availability av;
	hw_availability(m, spec, &av);
	if (!av.available)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s: %s", spec->text, av.reason);
	int g = generic_index(spec->event);
	if (g >= 0) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = generic_events[g].config;
	} else {
		char name[192];
		const char *table = strstr(spec->event, "::") ? NULL : pb_pfm_pmu_for_machine(m);
		if (table)
			snprintf(name, sizeof name, "%s::%s", table, spec->event);
		else if (!strstr(spec->event, "::") && m->root[0])
			return pb_fail(err, PB_EXIT_UNAVAILABLE, 0,
				       "%s: this libpfm4 has no event table for %s family 0x%x model "
				       "0x%x; use a generic event (cycles, instructions, branches, "
				       "branch-misses, cache-misses) or qualify it as pmu::EVENT",
				       spec->text, m->cpu_vendor, m->cpu_family,
				       m->cpu_model);
		else
			snprintf(name, sizeof name, "%s", spec->event);
		struct pb_pfm_encoding enc;
		if (pb_pfm_encode(name, &enc, err)) {
			/* perf-style lower-case names: point at the generic ones too. */
			char close[160] = "";
			for (size_t i = 0; i < NGENERIC; i++)
				if (!strncasecmp(generic_events[i].name, spec->event, 3))
					snprintf(close + strlen(close), sizeof close - strlen(close),
						 "%s%s", close[0] ? ", " : "", generic_events[i].name);
			if (close[0])
				pb_error_append(err, "; generic events: %s", close);
			return -1;
		}
		if (strstr(name, "precise="))
			return pb_fail(err, PB_EXIT_USAGE, EINVAL,
				       "%s: hw is classic overflow sampling without a precise "
				       "mechanism; use pebs:%s for precise sampling", spec->text,
				       spec->event);
		attr->type = enc.type;
		attr->config = enc.config;
		attr->config1 = enc.config1;
	}
	const struct pb_pmu *core[2];
	/* with one core PMU it is the default one, and a kernel without hybrid PMUs (arm64
	 * before 6.6) would refuse it named in config */
	if (spec->pmu[0] && pb_machine_core_pmus(m, core, 2) > 1)
		hw_apply_pmu(pb_machine_pmu(m, spec->pmu), attr);
	attr->precise_ip = 0;
	if (period)
		attr->sample_type |= PERF_SAMPLE_IP;
	return 0;
}

/* Which counter an event lands on: the cycles event on the PMU's cycle counter (arm64
 * PMCCNTR, x86 fixed counter 1), every other event on a general-purpose counter (x86
 * instructions on a fixed one, which samples as they do). A PMU can sample on one kind and
 * not the other: QEMU's arm64 PMU raises general-counter overflows only at timer ticks. */
static bool on_cycle_counter(const struct pb_spec *spec)
{
	return spec->type == PERF_TYPE_HARDWARE && spec->config == PERF_COUNT_HW_CPU_CYCLES;
}

static const char *hw_verdict_key(const struct pb_spec *spec, char *buf, size_t len)
{
	snprintf(buf, len, "hw: %s", spec->counting_only ? "counting"
				     : on_cycle_counter(spec) ? "cycle counter" : "general counters");
	return buf;
}

/* A sampling test run after the counting one. A PMU may lose a sampling event's overflows
 * right after a counting event on the same counter (QEMU 7.2's RISC-V PMU under Linux 6.1: a
 * stale overflow timer is re-armed instead of raising the interrupt). When the test samples
 * nothing, a second, identical one tells that order-dependent loss from a counter that never
 * samples, and names it; both tries are recorded. */
static void sample_after_count(const struct pb_machine *m, const struct pb_spec *sampled,
			       const char *accepted, struct pb_self_test *out)
{
	pb_selftest_sampling_pmu(m, sampled, NULL, accepted, false, out);
	if (out->verdict != PB_VERDICT_INERT)
		return;
	struct pb_self_test again;
	pb_selftest_sampling_pmu(m, sampled, NULL, accepted, false, &again);
	if (again.verdict != PB_VERDICT_WORKS)
		return;
	snprintf(out->text, sizeof out->text,
		 "STARVED after counting: the first sampling test right after the counting one "
		 "got %llu samples, an identical second %llu (%llu due): the PMU loses a sampling "
		 "event's overflows after a counting event",
		 (unsigned long long)out->samples, (unsigned long long)again.samples,
		 (unsigned long long)again.expected);
	again.ms += out->ms;
	again.attempts = out->attempts + again.attempts;
	snprintf(again.text, sizeof again.text, "%s", out->text);
	*out = again;
}

/* The self-test counts the instructions of a loop of known length at two lengths: the counter
 * also sees the fixed few instructions between the enabling ioctl and the loop and back, so
 * the longer run must count exactly the extra loop iterations, and that fixed offset is
 * measured rather than tolerated (docs/numbers.md). It then samples the loop on each kind of
 * counter: the cycles event
 * on the cycle counter, instructions on a general-purpose one. A spec is judged on the kind it
 * lands on, a spec that only counts (verify's oracles) on the count. The facility as a whole
 * works when its count and one kind work; a kind that does
 * not is named in the text with its figures, and a spec on it is refused. */
static void hw_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			 struct pb_self_test *out)
{
	struct pb_spec counted, cycles, general;
	struct pb_error err = {0};
	if (pb_spec_parse("hw:instructions", &counted, &err) ||
	    pb_spec_parse("hw:cycles", &cycles, &err) ||
	    pb_spec_parse("hw:instructions", &general, &err)) {
		memset(out, 0, sizeof *out);
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "%s", err.msg);
		return;
	}
	/* the sampling parts are measured with the spec's delivery: a signal per sample where it
	 * has them (the count has no samples to deliver) */
	cycles.signal_per_sample = general.signal_per_sample = spec && spec->signal_per_sample;
	cycles.sigtrap_per_sample = general.sigtrap_per_sample = spec && spec->sigtrap_per_sample;
	struct pb_selftest_run count_run = {
		.loop = pb_selftest_spin_loop,
		.n = 100,
		.expected = pb_selftest_spin_instructions(100000),
		.what = "instructions",
		.accepted = "instruction counters",
		.per_n = pb_selftest_spin_instructions(1000) - pb_selftest_spin_instructions(0),
	};
	struct pb_self_test part;
	pb_selftest_count_offset(m, &counted, &count_run, &part);
	pb_selftest_merge(out, &part, "instructions", true);
	if (spec && spec->counting_only)
		return;
	bool want_cycles = !spec || on_cycle_counter(spec);
	bool want_general = !spec || !on_cycle_counter(spec);
	struct pb_self_test on_cycles = {0}, on_general = {0};
	if (want_cycles)
		sample_after_count(m, &cycles, "cycle counters", &on_cycles);
	if (want_general)
		sample_after_count(m, &general, "general-purpose counters", &on_general);
	if (spec) {
		pb_selftest_merge(out, want_cycles ? &on_cycles : &on_general,
				  want_cycles ? "cycle counter sampled" : "general counters sampled",
				  false);
		return;
	}
	/* the whole: the worse kind's verdict only when neither works */
	bool cycles_work = on_cycles.verdict == PB_VERDICT_WORKS;
	bool general_works = on_general.verdict == PB_VERDICT_WORKS;
	const struct pb_self_test *worse = cycles_work ? &on_general : &on_cycles;
	const struct pb_self_test *better = cycles_work ? &on_cycles : &on_general;
	char label[64];
	snprintf(label, sizeof label, "%s sampled", cycles_work ? "cycle counter"
								: "general counters");
	pb_selftest_merge(out, better, label, false);
	snprintf(label, sizeof label, "%s sampled%s", cycles_work ? "general counters"
								  : "cycle counter",
		 worse->verdict == PB_VERDICT_WORKS ? "" : " (BROKEN: specs on them are refused)");
	if (cycles_work || general_works) {
		struct pb_self_test noted = *worse;
		enum pb_verdict kept = out->verdict;
		pb_selftest_merge(out, &noted, label, false);
		out->verdict = kept;
	} else {
		pb_selftest_merge(out, worse, label, false);
	}
}

static const char *hw_perf_event_name(size_t i)
{
	return i < NGENERIC ? generic_events[i].name : NULL;
}

const struct pb_facility pb_facility_hw = {
	.perf_event_name = hw_perf_event_name,
	.name = "hw",
	.options = &hw_options,
	.usage = "hw:EVENT",
	.pmu_qualified = true,
	.summary = "classic counter-overflow interrupt, no precise mechanism (skid)",
	.needs = "a hardware PMU (bare metal or a VM with vPMU); kernel events need CAP_PERFMON or "
		 "perf_event_paranoid <= 1",
	.ip_kind = PB_IP_SKID,
	.exact = false,
	.default_period = 1000003,
	.min_period = 1,
	.parse = hw_parse,
	.availability = hw_availability,
	.attr = hw_attr,
	.self_test = hw_self_test,
	.verdict_key = hw_verdict_key,
	.suite_spec = "hw:instructions",
	.l1_miss_counter = "hw:perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS",
	/* more than the usual 4-8 counters, to force multiplexing */
	.multi_events = 8,
	.periods = &pb_counter_periods,
	.declare = pb_declare_spec_event,
	.skid_in_sample_count = true,
};
