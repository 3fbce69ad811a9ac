/* Arm SPE: the CPU tags one operation every period operations and writes a packet record for it
 * (PC, addresses, latencies, events) into an AUX buffer. This file builds the attr; the
 * config bits come from the PMU's own sysfs format/ files. */
#include "facilities/facility.h"
#include "facilities/selftest.h"
#include "facilities/spe_samples.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	SPE_LOAD = 1u << 0,
	SPE_STORE = 1u << 1,
	SPE_BRANCH = 1u << 2,
	SPE_JITTER = 1u << 3,
	SPE_TS = 1u << 4,
	SPE_PA = 1u << 5,
	SPE_MIN_LATENCY = 1u << 6,
	SPE_EVENT_FILTER = 1u << 7,
};

/* Option word → sysfs format name, with the layout drivers/perf/arm_spe_pmu.c documents for a
 * PMU that lists no formats at all. */
static const struct {
	unsigned bit;
	const char *word;
	const char *format;
	const char *fallback;
} spe_options[] = {
	{SPE_TS, "ts", "ts_enable", "config:0"},
	{SPE_PA, "pa", "pa_enable", "config:1"},
	{SPE_JITTER, "jitter", "jitter", "config:16"},
	{SPE_BRANCH, "branch", "branch_filter", "config:32"},
	{SPE_LOAD, "load", "load_filter", "config:33"},
	{SPE_STORE, "store", "store_filter", "config:34"},
};

#define NOPTIONS (PB_ARRAY_SIZE(spe_options))

/* arm_spe_0, or the first arm_spe_* (heterogeneous systems have one per core type). */
static const struct pb_pmu *spe_pmu(const struct pb_machine *m)
{
	const struct pb_pmu *p = pb_machine_pmu(m, "arm_spe_0");
	for (unsigned i = 0; !p && i < m->npmus; i++)
		if (!strncmp(m->pmus[i].name, "arm_spe_", 8))
			p = &m->pmus[i];
	return p;
}

static const struct pb_spec_option spe_words[] = {
	{.word = "load", .kind = PB_SPEC_FLAG, .bits = SPE_LOAD, .help = "sample loads only"},
	{.word = "store", .kind = PB_SPEC_FLAG, .bits = SPE_STORE, .help = "sample stores only"},
	{.word = "branch", .kind = PB_SPEC_FLAG, .bits = SPE_BRANCH, .help = "sample branches only"},
	{.word = "jitter", .kind = PB_SPEC_FLAG, .bits = SPE_JITTER,
	 .help = "randomise the interval a little, so a loop is not always sampled at one op"},
	{.word = "ts", .kind = PB_SPEC_FLAG, .bits = SPE_TS, .help = "timestamp every record"},
	{.word = "pa", .kind = PB_SPEC_FLAG, .bits = SPE_PA,
	 .help = "record physical addresses (needs CAP_PERFMON)"},
	{.word = "min_latency", .kind = PB_SPEC_NUMBER, .bits = SPE_MIN_LATENCY,
	 .field = PB_SPEC_FIELD(config2), .max = UINT64_MAX, .arg = "N",
	 .about = "a number of cycles",
	 .help = "only operations that took at least N cycles (the PMU's counter width bounds N)"},
	{.word = "event_filter", .kind = PB_SPEC_NUMBER, .bits = SPE_EVENT_FILTER,
	 .field = PB_SPEC_FIELD(config1), .max = UINT64_MAX, .base = 16, .arg = "HEX",
	 .about = "a hexadecimal event mask (bit 1 retired, 3 L1D refill, 5 TLB walk, 7 "
		  "mispredicted, ...)",
	 .help = "only operations with all these events"},
};

static const struct pb_spec_options spe_word_options =
	PB_SPEC_OPTIONS(spe_words, .what = "spe option");

static int spe_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	if (pb_spec_options_parse(&spe_word_options, spec, args, NULL, err))
		return -1;
	snprintf(spec->event, sizeof spec->event, "ops");
	return 0;
}

static void spe_availability(const struct pb_machine *m, const struct pb_spec *spec,
			     struct pb_availability *out)
{
	memset(out, 0, sizeof *out);
	const struct pb_pmu *p = spe_pmu(m);
	if (!p) {
		if (pb_machine_is_x86(m))
			snprintf(out->reason, sizeof out->reason,
				 "SPE is an Arm facility and this CPU is %s; no arm_spe_* PMU%s",
				 m->cpu_vendor, !strcmp(m->cpu_vendor, "GenuineIntel")
							? " (use pebs:EVENT on Intel)"
							: " (use ibs-op on AMD)");
		else if (m->hypervisor)
			snprintf(out->reason, sizeof out->reason,
				 "no arm_spe_* PMU: this virtual machine does not expose SPE; run on "
				 "bare metal");
		else
			snprintf(out->reason, sizeof out->reason,
				 "no arm_spe_* PMU in /sys/bus/event_source/devices: the CPU lacks "
				 "FEAT_SPE, the firmware does not describe its interrupt, the kernel "
				 "lacks CONFIG_ARM_SPE_PMU, or KPTI hides the profiling buffer (boot "
				 "with kpti=off; dmesg says 'profiling buffer inaccessible')");
		return;
	}
	if (pb_perf_forbidden(m, out))
		return;
	bool privileged = m->cap_perfmon || m->cap_sys_admin;
	if (spec && (spec->options & SPE_PA) && !privileged) {
		snprintf(out->reason, sizeof out->reason,
			 ":pa (physical addresses) needs CAP_PERFMON or CAP_SYS_ADMIN (the driver "
			 "returns EACCES otherwise)");
		return;
	}
	char buf[64];
	for (size_t i = 0; spec && i < NOPTIONS; i++)
		if ((spec->options & spe_options[i].bit) && p->formats[0] &&
		    !pb_pmu_format(p, spe_options[i].format, buf, sizeof buf)) {
			snprintf(out->reason, sizeof out->reason,
				 ":%s is not offered by %s (no format/%s)", spe_options[i].word,
				 p->name, spe_options[i].format);
			return;
		}
	out->available = true;
	char min_interval[32] = "?", count_size[32] = "?";
	pb_pmu_caps(p, "min_interval", min_interval, sizeof min_interval);
	pb_pmu_caps(p, "count_size", count_size, sizeof count_size);
	snprintf(out->detail, sizeof out->detail,
		 "%s type %d, min_interval %s, %s-bit latency counters; samples arrive in an AUX "
		 "buffer%s", p->name, p->type, min_interval, count_size,
		 pb_machine_may_sample_kernel(m) ? "" : "; user-space only (exclude_kernel)");
}

static int set_format(const struct pb_pmu *p, const char *name, const char *fallback,
		      uint64_t value, struct perf_event_attr *attr, const char *spec_text,
		      struct pb_error *err)
{
	char buf[64];
	const char *text = pb_pmu_format(p, name, buf, sizeof buf);
	if (!text) {
		if (p->formats[0])
			return pb_fail(err, PB_EXIT_UNAVAILABLE, EOPNOTSUPP,
				       "%s: %s has no format/%s: this SPE does not offer it",
				       spec_text, p->name, name);
		text = fallback;
	}
	struct pb_format_field f;
	if (pb_format_parse(text, &f))
		return pb_fail(err, PB_EXIT_FAILURE, 0, "%s/format/%s is '%s', not a config field",
			       p->name, name, text);
	if (value > pb_format_max(&f))
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: %s %llu does not fit its field %s (maximum %llu)", spec_text,
			       name, (unsigned long long)value, text,
			       (unsigned long long)pb_format_max(&f));
	pb_format_apply(attr, &f, value);
	return 0;
}

static int spe_attr(const struct pb_machine *m, const struct pb_spec *spec,
		    const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		    struct pb_error *err)
{
	(void)target;
	struct pb_availability av;
	spe_availability(m, spec, &av);
	if (!av.available)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s: %s", spec->text, av.reason);
	const struct pb_pmu *p = spe_pmu(m);
	if (attr->freq)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: SPE refuses frequency mode (EINVAL); give a fixed period",
			       spec->text);
	char buf[32];
	unsigned long min_interval = 0;
	if (pb_pmu_caps(p, "min_interval", buf, sizeof buf))
		min_interval = strtoul(buf, NULL, 0);
	if (period == 0)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: SPE samples only: give a period of at least %lu operations",
			       spec->text, min_interval ? min_interval : 1);
	if (period < min_interval)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: period %llu is below %s/caps/min_interval %lu (the driver would "
			       "silently raise it); use %lu or more", spec->text,
			       (unsigned long long)period, p->name, min_interval, min_interval);
	attr->type = (uint32_t)p->type;
	/* The AUX buffer only exists after the second mmap: enable after mapping it. */
	attr->disabled = 1;
	attr->exclude_idle = 0; /* EOPNOTSUPP from the driver */
	for (size_t i = 0; i < NOPTIONS; i++)
		if ((spec->options & spe_options[i].bit) &&
		    set_format(p, spe_options[i].format, spe_options[i].fallback, 1, attr, spec->text,
			       err))
			return -1;
	if ((spec->options & SPE_EVENT_FILTER) &&
	    set_format(p, "event_filter", "config1:0-63", spec->config1, attr, spec->text, err))
		return -1;
	if ((spec->options & SPE_MIN_LATENCY) &&
	    set_format(p, "min_latency", "config2:0-11", spec->config2, attr, spec->text, err))
		return -1;
	/* The samples decoded from the AUX area carry the id of the AUX record that announced
	 * their chunk; it costs 8 bytes per chunk, not per sample. */
	attr->sample_type |= PERF_SAMPLE_IDENTIFIER;
	return 0;
}

unsigned pb_spe_type_filters(const struct pb_spec *spec)
{
	unsigned f = 0;
	if (spec->options & SPE_LOAD)
		f |= PB_SPE_FILTER_LOAD;
	if (spec->options & SPE_STORE)
		f |= PB_SPE_FILTER_STORE;
	if (spec->options & SPE_BRANCH)
		f |= PB_SPE_FILTER_BRANCH;
	return f;
}

static void spe_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			  struct pb_self_test *out)
{
	pb_selftest_sampling_pmu(m, spec, "spe", "SPE events", false, out);
}

/* SPE selects one operation per period like IBS op; with type filters (spe:load...) only
 * operations of those types are counted towards the period. */
static const char *spe_declare(const struct pb_spec *spec, const struct pb_truth *truth,
			       const struct pb_label_truth *label, uint64_t iterations,
			       uint64_t *events)
{
	(void)label;
	unsigned types = pb_spe_type_filters(spec);
	if (!types) {
		*events = truth->instructions * iterations + truth->once_instructions;
		return "declared";
	}
	if (types & PB_SPE_FILTER_LOAD)
		*events += truth->loads * iterations;
	if (types & PB_SPE_FILTER_STORE)
		*events += truth->stores * iterations;
	if (types & PB_SPE_FILTER_BRANCH)
		*events += truth->branches * iterations;
	return "declared";
}

/* Neoverse cores refuse intervals below 1024 (caps/min_interval), so the shortest interval
 * periods are 4096 and a prime near it. */
static const struct pb_period_sets spe_periods = {
	.accuracy = 100000,
	.round = {1000000, 100000, 10000, 4096},
	.prime = {999983, 100003, 10007, 4099},
	.cost = {10000000, 1000000, 200000, 100000, 50000},
	.buffer = 10000,
};

const struct pb_facility pb_facility_spe = {
	.name = "spe",
	.options = &spe_word_options,
	.usage = "spe[:load][:store][:branch][:jitter][:ts][:pa][:min_latency=N][:event_filter=HEX]",
	.summary = "Arm SPE: per-operation records (PC, addresses, latencies) in an AUX buffer",
	.needs = "Arm CPU with FEAT_SPE, bare metal, the arm_spe_pmu driver (kpti=off on some "
		 "kernels); :pa needs CAP_PERFMON",
	.ip_kind = PB_IP_EXACT,
	.exact = false,
	.default_period = 65536,
	.min_period = 256,
	/* 512 KiB with 4 KiB pages: about 8000 records of 64 bytes between two drains. */
	.aux_pages = 128,
	.aux_record_bytes = 64,
	.parse = spe_parse,
	.availability = spe_availability,
	.attr = spe_attr,
	.self_test = spe_self_test,
	.aux_deliver = pb_spe_aux_deliver,
	.suite_spec = "spe",
	.precise_family = true,
	.multi_events = 8,
	.periods = &spe_periods,
	.declare = spe_declare,
};
