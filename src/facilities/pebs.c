/* Intel PEBS: the CPU writes a record (eventing IP, data address, latency) for the sampled
 * event itself, so precise_ip >= 2 gives the instruction that caused the event. Events are
 * named as libpfm4 names them and encoded for the PMU table matching the CPU model. */
#include "facilities/pebs.h"
#include "facilities/selftest.h"
#include "facilities/facility.h"
#include "facilities/pfm_encode.h"
#include "sys/sys.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEBS_MAX_PRECISE 3
/* glc_limit_period(): on Golden Cove (SPR and later) precise_ip 3 needs a period >= 128. */
#define PEBS_PDIST_MIN_PERIOD 128
/* Its machine note: the level the core PMU's caps/max_precise claims. */
#define MAX_PRECISE_NOTE "max_precise"

/* The highest precise_ip the kernel accepts on PMU p: an event of its cycles opened (for this
 * thread, disabled) at 3, 2, 1, 0 until one opens. A kernel lowers nothing here: x86 refuses
 * a level the PMU lacks (EOPNOTSUPP), so what opens is what a sample will get. */
int pb_pebs_precise_by_opening(const struct pb_pmu *p, bool hybrid)
{
	for (int level = PEBS_MAX_PRECISE; level >= 0; level--) {
		struct perf_event_attr attr = {
			.size = sizeof attr,
			.type = PERF_TYPE_HARDWARE,
			/* on a hybrid machine the PMU goes in config's upper half (kernels
			 * without hybrid PMUs refuse that: arm64 before 6.6) */
			.config = PERF_COUNT_HW_CPU_CYCLES |
				  (hybrid ? (uint64_t)(uint32_t)p->type << 32 : 0),
			.sample_period = 100003,
			.sample_type = PERF_SAMPLE_IP,
			.precise_ip = (unsigned)level,
			.disabled = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};
		int fd = pb_sys()->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			pb_sys()->close(fd);
			return level;
		}
	}
	return -1;
}

void pb_pebs_prove_precise(struct pb_machine *m)
{
	const struct pb_pmu *core[2];
	bool hybrid = pb_machine_core_pmus(m, core, 2) > 1;
	for (unsigned i = 0; i < m->npmus; i++)
		if (m->pmus[i].core)
			m->pmus[i].precise_opened = pb_pebs_precise_by_opening(&m->pmus[i], hybrid);
}

/* max_precise from the core PMU's caps; on this machine under the real kernel, every core
 * PMU's levels proved by opening as well. */
static void pebs_probe_machine(struct pb_machine *m, bool prove)
{
	const struct pb_pmu *cpu = pb_machine_pmu(m, "cpu");
	if (!cpu)
		cpu = pb_machine_pmu(m, "cpu_core"); /* hybrid Intel: the big cores carry PEBS */
	char buf[32];
	if (cpu && pb_pmu_caps(cpu, "max_precise", buf, sizeof buf))
		pb_machine_note_set(m, MAX_PRECISE_NOTE, atoi(buf));
	if (prove)
		pb_pebs_prove_precise(m);
}

/* The level the core PMU's caps claim (kept by pebs_probe_machine), -1 if unknown. */
static int caps_max_precise(const struct pb_machine *m)
{
	long long level;
	return pb_machine_note_get(m, MAX_PRECISE_NOTE, &level) ? (int)level : -1;
}

static unsigned pebs_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out,
				   unsigned max)
{
	if (!max)
		return 0;
	int level = caps_max_precise(m);
	pb_fact_number(out, "max_precise", level, level >= 0, 1);
	out->title = "highest precise level";
	if (level >= 0) {
		out->label = "max precise";
		snprintf(out->line, sizeof out->line, "%d", level);
	}
	return 1;
}

/* The highest level PEBS can give here: the PMU's caps, lowered to what opening proved. */
static int pebs_max_precise(const struct pb_machine *m)
{
	const struct pb_pmu *core = pb_machine_core_pmu(m);
	int opened = core ? core->precise_opened : -1, caps = caps_max_precise(m);
	return opened >= 0 && opened < caps ? opened : caps;
}

int pb_pebs_default_precise(const char *canonical_event, int max_precise)
{
	int want = strstr(canonical_event, "PREC_DIST") ? 3 : 2;
	if (want > max_precise)
		want = max_precise;
	return want < 1 ? 1 : want;
}

int pb_pebs_granted_precise(const struct pb_machine *m, const struct pb_spec *spec)
{
	int max = pebs_max_precise(m);
	if (spec->priv.precise <= 0)
		return pb_pebs_default_precise(spec->event, max);
	int granted = spec->priv.precise > max ? max : spec->priv.precise;
	return granted < 1 ? 1 : granted;
}

/* pp=1 is PEBS with constant skid: the record's IP is the instruction after the one that
 * caused the event; pp >= 2 corrects it to the exact instruction. */
static enum pb_ip_kind pebs_ip_kind(const struct pb_machine *m, const struct pb_spec *spec)
{
	return pb_pebs_granted_precise(m, spec) >= 2 ? PB_IP_EXACT : PB_IP_NEXT;
}

/* What pebs_parse collects besides the spec: the event's words and a pmu= table name. */
struct pebs_words {
	struct pb_spec_event_words event;   /* first: the `other` hook's context */
	char pmu[48];
};

static int precise_not_zero(struct pb_spec *spec, uint64_t value, void *ctx,
			    struct pb_error *err)
{
	(void)ctx;
	if (value == 0)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: pp=0 is not PEBS; use hw:EVENT for classic overflow sampling",
			       spec->text);
	return 0;
}

static int parse_pmu(struct pb_spec *spec, const char *value, void *ctx, struct pb_error *err)
{
	struct pebs_words *w = ctx;
	if (!*value || strlen(value) >= sizeof w->pmu)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: pmu= needs a libpfm4 PMU name (skl, icl, spr, ...)", spec->text);
	snprintf(w->pmu, sizeof w->pmu, "%s", value);
	return 0;
}

#define PEBS_PRECISE(word_, help_)                                                              \
	{.word = (word_), .kind = PB_SPEC_NUMBER, .field = PB_SPEC_FIELD(priv.precise), .min = 1,    \
	 .max = PEBS_MAX_PRECISE, .check = precise_not_zero,                                   \
	 .bad_value = "pp must be 1, 2 or 3 (constant skid, exact IP, exact IP with precise "  \
		      "distribution)",                                                         \
	 .help = (help_)}

/* Event words and libpfm4 modifiers (ldlat=32, c=1) that are no option stay together as the
 * event name; empty words come from the "::" of a qualified name and are kept. */
static const struct pb_spec_option pebs_words[] = {
	PEBS_PRECISE("pp", "the precise level: 1 constant skid, 2 exact IP, 3 exact IP with "
			   "precise distribution (default: 3 for PREC_DIST events, else 2, at "
			   "most what the machine grants)"),
	PEBS_PRECISE("precise", "the same as pp="),
	{.word = "pmu", .kind = PB_SPEC_TEXT, .arg = "NAME", .parse = parse_pmu,
	 .help = "the libpfm4 table to name the event in (skl, icl, spr, ...); default: this "
		 "CPU's"},
};

static const struct pb_spec_options pebs_options =
	PB_SPEC_OPTIONS(pebs_words, .what = "pebs option", .other = pb_spec_event_word);

/* args: EVENT[:UMASK...][:pp=N][:pmu=NAME], EVENT possibly "pmu::EVENT". */
static int pebs_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	if (!args || !*args)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "pebs needs an event as libpfm4 names it, e.g. "
			       "pebs:INST_RETIRED:PREC_DIST or pebs:MEM_LOAD_RETIRED:L1_MISS:pp=2");
	struct pebs_words w = {0};
	if (pb_spec_options_parse(&pebs_options, spec, args, &w, err))
		return -1;
	const char *event = w.event.text, *pmu = w.pmu;
	if (!event[0] || event[0] == ':')
		return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: no event name", spec->text);
	if (pmu[0]) {
		if (strstr(event, "::"))
			return pb_fail(err, PB_EXIT_USAGE, EINVAL,
				       "%s: give the PMU either as pmu= or as pmu::EVENT, not both",
				       spec->text);
		if (!pb_pfm_pmu_supported(pmu))
			return pb_fail(err, PB_EXIT_USAGE, EINVAL,
				       "%s: this libpfm4 has no PMU table '%s' (Intel tables: skl, skx, "
				       "clx, icl, icx, spr)", spec->text, pmu);
		if (strlen(pmu) + 2 + strlen(event) >= sizeof spec->event)
			return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: event name too long",
				       spec->text);
		strcpy(spec->event, pmu);
		strcat(spec->event, "::");
		strcat(spec->event, event);
	} else {
		snprintf(spec->event, sizeof spec->event, "%s", event);
	}
	spec->type = PERF_TYPE_RAW;
	/* A qualified name can be checked now; otherwise the machine decides the table. */
	if (strstr(spec->event, "::")) {
		struct pb_pfm_encoding enc;
		if (pb_pfm_encode(spec->event, &enc, err))
			return -1;
		spec->config = enc.config;
		spec->config1 = enc.config1;
	}
	return 0;
}

static const char *table_for(const struct pb_machine *m, const struct pb_spec *spec)
{
	return spec && strstr(spec->event, "::") ? NULL : pb_pfm_pmu_for_machine(m);
}

static void pebs_availability(const struct pb_machine *m, const struct pb_spec *spec,
			      struct pb_availability *out)
{
	memset(out, 0, sizeof *out);
	if (strcmp(m->cpu_vendor, "GenuineIntel")) {
		const char *instead = !strcmp(m->cpu_vendor, "AuthenticAMD") ? " (use ibs-op on AMD)"
				      : pb_machine_is_arm(m) ? " (use spe on Arm)" : "";
		snprintf(out->reason, sizeof out->reason,
			 "PEBS is an Intel facility and this CPU is %s%s",
			 m->cpu_vendor[0] ? m->cpu_vendor : "of unknown vendor", instead);
		return;
	}
	const struct pb_pmu *cpu = pb_machine_pmu(m, "cpu");
	if (!cpu)
		cpu = pb_machine_pmu(m, "cpu_core");
	if (!cpu) {
		snprintf(out->reason, sizeof out->reason,
			 m->hypervisor
				 ? "no hardware PMU: /sys/bus/event_source/devices/cpu is absent and this "
				   "is a virtual machine (hypervisor flag set) without PMU passthrough; "
				   "PEBS needs bare metal or a vPMU with PEBS virtualisation"
				 : "no 'cpu' PMU in /sys/bus/event_source/devices on this Intel CPU; the "
				   "kernel's Intel PMU driver did not register (check dmesg for 'PEBS')");
		return;
	}
	int caps = caps_max_precise(m);
	if (pebs_max_precise(m) < 1) {
		if (caps >= 1)
			snprintf(out->reason, sizeof out->reason,
				 "%s/caps/max_precise says %d, yet the kernel refused precise_ip 1 when "
				 "pesbench opened an event: no PEBS is usable here", cpu->name, caps);
		else if (caps < 0)
			snprintf(out->reason, sizeof out->reason,
				 "%s PMU has no caps/max_precise file: this kernel does not say "
				 "whether PEBS works; PEBS needs a kernel that reports it", cpu->name);
		else
			snprintf(out->reason, sizeof out->reason,
				 "%s/caps/max_precise is 0: the kernel found no usable PEBS%s",
				 cpu->name, m->hypervisor ? " (a VM whose vPMU does not virtualise PEBS)"
							  : "");
		return;
	}
	if (pb_perf_forbidden(m, out))
		return;
	/* A pp above the CPU's maximum is lowered to it, as perf does, and the results say
	 * "requested N, granted M" (pb_pebs_granted_precise). */
	const char *table = table_for(m, spec);
	if (!table && !(spec && strstr(spec->event, "::"))) {
		snprintf(out->reason, sizeof out->reason,
			 "this libpfm4 has no event table for Intel family %u model 0x%x; name events "
			 "as pmu::EVENT with the closest table (skl, icl, spr)",
			 m->cpu_family, m->cpu_model);
		return;
	}
	out->available = true;
	char opened[48] = "";
	if (cpu->precise_opened >= 0)
		snprintf(opened, sizeof opened, ", %d proven by opening", cpu->precise_opened);
	snprintf(out->detail, sizeof out->detail,
		 "%s PMU type %d, max_precise %d%s; events from libpfm4 table '%s'%s", cpu->name,
		 cpu->type, caps, opened, table ? table : "as qualified",
		 pb_user_space_only_note(m));
}

static bool is_golden_cove_or_later(const char *table)
{
	return !strcmp(table, "spr") || !strcmp(table, "emr") || !strcmp(table, "gnr");
}

static int pebs_attr(const struct pb_machine *m, const struct pb_spec *spec,
		     const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		     struct pb_error *err)
{
	(void)target;
	struct pb_availability av;
	pebs_availability(m, spec, &av);
	if (!av.available)
		return pb_fail(err, PB_EXIT_UNAVAILABLE,
			       spec->priv.precise > caps_max_precise(m) ? EOPNOTSUPP : 0, "%s: %s",
			       spec->text, av.reason);
	if (period == 0)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: PEBS samples only (the kernel refuses precise_ip on a counting "
			       "event); give a period", spec->text);
	char name[192];
	const char *table = table_for(m, spec);
	if (table)
		snprintf(name, sizeof name, "%s::%s", table, spec->event);
	else
		snprintf(name, sizeof name, "%s", spec->event);
	struct pb_pfm_encoding enc;
	if (pb_pfm_encode(name, &enc, err))
		return -1;
	if (!enc.precise_capable)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: %s is not a PEBS event in libpfm4's tables (the kernel would "
			       "accept precise_ip on it, but the hardware writes no meaningful PEBS "
			       "record); use hw:%s for classic sampling", spec->text, enc.canonical,
			       spec->event);
	int precise = spec->priv.precise > 0 ? pb_pebs_granted_precise(m, spec)
					 : pb_pebs_default_precise(enc.canonical, pebs_max_precise(m));
	const char *sep = strstr(enc.canonical, "::");
	char pmu[48] = "";
	if (sep && (size_t)(sep - enc.canonical) < sizeof pmu) {
		memcpy(pmu, enc.canonical, (size_t)(sep - enc.canonical));
		pmu[sep - enc.canonical] = '\0';
	}
	if (precise == 3 && is_golden_cove_or_later(pmu) && period < PEBS_PDIST_MIN_PERIOD)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: precise distribution (pp=3) on %s needs a period of at least "
			       "%d; use %d or pp=2", spec->text, pmu, PEBS_PDIST_MIN_PERIOD,
			       PEBS_PDIST_MIN_PERIOD);
	attr->type = enc.type;
	attr->config = enc.config;
	attr->config1 = enc.config1;
	attr->precise_ip = (unsigned)precise;
	attr->freq = 0;
	attr->sample_type |= PERF_SAMPLE_IP;
	const char *event = sep ? sep + 2 : enc.canonical;
	if (!strncmp(event, "MEM_", 4)) {
		/* The PEBS record's memory info group: data address, latency, data source. */
		attr->sample_type |= PERF_SAMPLE_ADDR;
		attr->sample_type |= pb_machine_kernel_at_least(m, 5, 12) ? PERF_SAMPLE_WEIGHT_STRUCT
									  : PERF_SAMPLE_WEIGHT;
		/* On Golden Cove a load-latency event with DATA_SRC must follow a mem-loads-aux
		 * event in its group (ENODATA otherwise); one facility event cannot, so it goes
		 * without the data source. */
		bool load_latency = !strncmp(event, "MEM_TRANS_RETIRED:LOAD_LATENCY", 30);
		if (!(load_latency && is_golden_cove_or_later(pmu)))
			attr->sample_type |= PERF_SAMPLE_DATA_SRC;
	}
	return 0;
}

/* Sample fields the PEBS record can hold (LARGE_PEBS_FLAGS plus TIME from format 3 on). */
static const struct {
	uint64_t bit;
	const char *name;
} single_record_fields[] = {
	{PERF_SAMPLE_CALLCHAIN, "CALLCHAIN (unwound at the interrupt)"},
	{PERF_SAMPLE_RAW, "RAW"},
	{PERF_SAMPLE_STACK_USER, "STACK_USER"},
	{PERF_SAMPLE_READ, "READ (before PEBS format 6)"},
	{PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK (before adaptive PEBS, Ice Lake)"},
	{PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
	{PERF_SAMPLE_CGROUP, "CGROUP"},
	{PERF_SAMPLE_AUX, "AUX"},
};

#define PEBS_LARGE_FIELDS                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |  \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER |                  \
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_REGS_INTR |                \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CODE_PAGE_SIZE |                \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_TIME)

/* PEBS holds AX..FLAGS and R8..R15 (perf_regs numbering), not the segment registers. */
#define PEBS_GP_REGS UINT64_C(0xff03ff)

bool pb_pebs_large_eligible(const struct perf_event_attr *attr, char *why, size_t len)
{
#define NOT_LARGE(...)                                                                         \
	do {                                                                                   \
		if (why && len)                                                                \
			snprintf(why, len, __VA_ARGS__);                                       \
		return false;                                                                  \
	} while (0)
	if (why && len)
		why[0] = '\0';
	if (!attr->precise_ip)
		NOT_LARGE("precise_ip is 0: not a PEBS event");
	if (attr->freq)
		NOT_LARGE("frequency mode: the kernel must adjust the period at every interrupt");
	if (!attr->watermark && attr->wakeup_events)
		NOT_LARGE("wakeup_events=%u without watermark asks for a wakeup per N samples",
			  attr->wakeup_events);
	if (attr->aux_sample_size)
		NOT_LARGE("aux_sample_size asks for AUX data with each sample");
	for (size_t i = 0; i < PB_ARRAY_SIZE(single_record_fields); i++)
		if (attr->sample_type & single_record_fields[i].bit)
			NOT_LARGE("PERF_SAMPLE_%s is not in the PEBS record",
				  single_record_fields[i].name);
	uint64_t other = attr->sample_type & ~(uint64_t)PEBS_LARGE_FIELDS;
	if (other)
		NOT_LARGE("sample_type bits 0x%llx are not in the PEBS record",
			  (unsigned long long)other);
	if ((attr->sample_type & PERF_SAMPLE_TIME) && attr->use_clockid)
		NOT_LARGE("PERF_SAMPLE_TIME with use_clockid: PEBS timestamps are TSC only");
	if ((attr->sample_type & PERF_SAMPLE_REGS_USER) && !attr->exclude_kernel)
		NOT_LARGE("PERF_SAMPLE_REGS_USER without exclude_kernel (a kernel-mode record "
			  "holds no user registers)");
	if ((attr->sample_type & PERF_SAMPLE_REGS_USER) && (attr->sample_regs_user & ~PEBS_GP_REGS))
		NOT_LARGE("sample_regs_user asks for registers beyond the PEBS general-purpose set");
	if ((attr->sample_type & PERF_SAMPLE_REGS_INTR) && (attr->sample_regs_intr & ~PEBS_GP_REGS))
		NOT_LARGE("sample_regs_intr asks for registers beyond the PEBS general-purpose set");
	return true;
#undef NOT_LARGE
}

/* Taken branches of the spin loop are all its closing branch's: sampled at the level granted,
 * pp >= 2 must put every sample in the loop on that branch, and pp=1 (the next instruction)
 * on its target, the loop's first instruction. */
#define PEBS_BRANCH_PERIOD 10007

static void pebs_exact_ip_test(const struct pb_machine *m, struct pb_self_test *out)
{
	struct pb_spec branches;
	struct pb_error err = {0};
	if (pb_spec_parse("pebs:BR_INST_RETIRED:NEAR_TAKEN", &branches, &err)) {
		memset(out, 0, sizeof *out);
		out->verdict = PB_VERDICT_REFUSED;
		snprintf(out->text, sizeof out->text, "%s", err.msg);
		return;
	}
	int level = pb_pebs_granted_precise(m, &branches);
	branches.priv.precise = level;
	char accepted[64];
	snprintf(accepted, sizeof accepted, "PEBS samples at precise level %d", level);
	struct pb_selftest_run run = {
		.loop = pb_selftest_spin_loop,
		.n = 100 * PEBS_BRANCH_PERIOD / 1000, /* 100 due: past the bound's 44 (selftest.c) */
		.what = "a spin loop's taken branches",
		.accepted = accepted,
		.period = PEBS_BRANCH_PERIOD,
		.ip_lo = (uint64_t)(uintptr_t)pb_selftest_spin_begin,
		.ip_hi = (uint64_t)(uintptr_t)pb_selftest_spin_end,
		.exact_ip = level >= 2 ? (uint64_t)(uintptr_t)pb_selftest_spin_branch
				       : (uint64_t)(uintptr_t)pb_selftest_spin_begin,
	};
	pb_selftest_sample(m, &branches, &run, out);
}

static void pebs_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			   struct pb_self_test *out)
{
	struct pb_self_test part;
	pb_selftest_sampling_pmu(m, spec, "pebs:INST_RETIRED:ANY_P", "PEBS events", false, &part);
	pb_selftest_merge(out, &part, "samples", true);
	if (part.verdict != PB_VERDICT_WORKS)
		return;
	pebs_exact_ip_test(m, &part);
	pb_selftest_merge(out, &part, "IP at the level granted", false);
}

const struct pb_facility pb_facility_pebs = {
	.name = "pebs",
	.options = &pebs_options,
	.usage = "pebs:EVENT[:pp=N]",
	.summary = "Intel PEBS: the CPU records the eventing IP, data address and latency",
	.needs = "Intel CPU with PEBS, bare metal (or a vPMU with PEBS); kernel events need "
		 "CAP_PERFMON or perf_event_paranoid <= 1",
	.ip_kind = PB_IP_EXACT,
	.exact = false,
	.default_period = 100003,
	.min_period = 1,
	.parse = pebs_parse,
	.availability = pebs_availability,
	.attr = pebs_attr,
	.ip_kind_of = pebs_ip_kind,
	.self_test = pebs_self_test,
	.suite_spec = "pebs:INST_RETIRED:PREC_DIST",
	.precise_family = true,
	.multi_events = 8,
	.periods = &pb_counter_periods,
	.declare = pb_declare_spec_event,
	.probe_machine = pebs_probe_machine,
	.machine_facts = pebs_machine_facts,
};
