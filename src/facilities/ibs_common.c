/* Rules both IBS PMUs obey. The kernel's own checks changed across releases (the low-nibble
 * EINVAL is dead code before 6.15, the 0x90 op minimum arrived with 6.15), so pesbench applies
 * the strictest portable rules itself and says why, instead of letting a kernel silently
 * sample at a different period than the one asked for. */
#include "facilities/ibs_common.h"
#include "facilities/ibs_raw.h"
#include "util/kit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

const char *pb_ibs_pmu_name(enum pb_ibs_kind kind)
{
	return kind == PB_IBS_OP ? "ibs_op" : "ibs_fetch";
}

static const char *facility_name(enum pb_ibs_kind kind)
{
	return kind == PB_IBS_OP ? "ibs-op" : "ibs-fetch";
}

uint64_t pb_ibs_min_period(enum pb_ibs_kind kind)
{
	return kind == PB_IBS_OP ? PB_IBS_OP_MIN_PERIOD : PB_IBS_FETCH_MIN_PERIOD;
}

uint64_t pb_ibs_max_period(enum pb_ibs_kind kind, uint32_t caps)
{
	if (kind == PB_IBS_OP && (caps & PB_IBS_CAPS_OPCNTEXT))
		return PB_IBS_OP_MAX_PERIOD_EXT;
	return PB_IBS_MAX_PERIOD;
}

int pb_ibs_check_period(enum pb_ibs_kind kind, const char *spec_text, uint32_t caps,
			uint64_t period, struct pb_error *err)
{
	uint64_t min = pb_ibs_min_period(kind), max = pb_ibs_max_period(kind, caps);
	const char *name = spec_text && *spec_text ? spec_text : facility_name(kind);
	if (period == 0)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s samples only: give a period (a multiple of 16 from %llu to %llu)",
			       name, (unsigned long long)min, (unsigned long long)max);
	if (period < min)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: period %llu is below the minimum %llu (0x%llx) the kernel accepts "
			       "for %s; use %llu", name, (unsigned long long)period,
			       (unsigned long long)min, (unsigned long long)min, pb_ibs_pmu_name(kind),
			       (unsigned long long)min);
	if (period > max)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: period %llu is above the hardware maximum %llu (0x%llx%s); the "
			       "kernel would reach it by re-arming in software with an extra interrupt "
			       "per chunk, which distorts cost and loss figures; use %llu or less",
			       name, (unsigned long long)period, (unsigned long long)max,
			       (unsigned long long)max,
			       kind == PB_IBS_OP && !(caps & PB_IBS_CAPS_OPCNTEXT)
				       ? ", this CPU lacks the OpCntExt capability" : "",
			       (unsigned long long)max);
	if (period & 0xf) {
		/* min and max are multiples of 16, so both neighbours are in range here. */
		uint64_t below = period & ~UINT64_C(0xf), above = below + 16;
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: period %llu is not a multiple of 16; IBS counts in units of 16 "
			       "and the kernel silently masks the low 4 bits (it would sample every "
			       "%llu); use %llu or %llu", name, (unsigned long long)period,
			       (unsigned long long)below, (unsigned long long)below,
			       (unsigned long long)above);
	}
	return 0;
}

static const struct {
	uint32_t bit;
	const char *name;
} cap_names[] = {
	{PB_IBS_CAPS_AVAIL, "AVAIL"},
	{PB_IBS_CAPS_FETCHSAM, "FETCHSAM"},
	{PB_IBS_CAPS_OPSAM, "OPSAM"},
	{PB_IBS_CAPS_RDWROPCNT, "RDWROPCNT"},
	{PB_IBS_CAPS_OPCNT, "OPCNT"},
	{PB_IBS_CAPS_BRNTRGT, "BRNTRGT"},
	{PB_IBS_CAPS_OPCNTEXT, "OPCNTEXT"},
	{PB_IBS_CAPS_RIPINVALIDCHK, "RIPINVALIDCHK"},
	{PB_IBS_CAPS_OPBRNFUSE, "OPBRNFUSE"},
	{PB_IBS_CAPS_FETCHCTLEXTD, "FETCHCTLEXTD"},
	{PB_IBS_CAPS_OPDATA4, "OPDATA4"},
	{PB_IBS_CAPS_ZEN4, "ZEN4"},
	{PB_IBS_CAPS_OPLDLAT, "OPLDLAT"},
	{PB_IBS_CAPS_OPDTLBPGSIZE, "OPDTLBPGSIZE"},
};

const char *pb_ibs_caps_names(uint32_t caps, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < PB_ARRAY_SIZE(cap_names); i++) {
		if (!(caps & cap_names[i].bit))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", cap_names[i].name);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0'; /* whole names only */
			break;
		}
		used += (size_t)w;
	}
	return buf;
}

/* The facility as a whole, before any option: the PMU, per-task support. */
static bool base_availability(enum pb_ibs_kind kind, const struct pb_machine *m,
			      struct pb_availability *out)
{
	const char *pmu = pb_ibs_pmu_name(kind);
	bool amd = !strcmp(m->cpu_vendor, "AuthenticAMD") || !strcmp(m->cpu_vendor, "HygonGenuine");
	if (!pb_machine_pmu(m, pmu)) {
		if (!amd)
			snprintf(out->reason, sizeof out->reason,
				 "IBS is an AMD facility and this CPU is %s; no '%s' PMU in "
				 "/sys/bus/event_source/devices%s",
				 m->cpu_vendor[0] ? m->cpu_vendor : "of unknown vendor", pmu,
				 !strcmp(m->cpu_vendor, "GenuineIntel") ? " (use pebs:EVENT on Intel)"
									: "");
		else if (m->hypervisor)
			snprintf(out->reason, sizeof out->reason,
				 "no '%s' PMU: this is a virtual machine (hypervisor flag set) and "
				 "the hypervisor does not pass IBS through; run on bare metal", pmu);
		else
			snprintf(out->reason, sizeof out->reason,
				 "no '%s' PMU although the CPU is AMD: the CPU lacks IBS (CPUID "
				 "8000_0001 ECX bit 10), the BIOS disabled it, or the kernel was built "
				 "without CONFIG_PERF_EVENTS_AMD (check dmesg for 'AMD IBS detected')", pmu);
		return false;
	}
	if (!pb_machine_kernel_at_least(m, 6, 2)) {
		snprintf(out->reason, sizeof out->reason,
			 "kernel %s opens %s only CPU-wide; per-thread IBS (what pesbench uses) "
			 "needs Linux 6.2 or later", m->kernel_release[0] ? m->kernel_release : "?", pmu);
		return false;
	}
	return true;
}

static bool swfilt_possible(enum pb_ibs_kind kind, const struct pb_machine *m)
{
	const struct pb_pmu *p = pb_machine_pmu(m, pb_ibs_pmu_name(kind));
	char buf[32];
	if (p && p->formats[0])
		return pb_pmu_format(p, "swfilt", buf, sizeof buf) != NULL;
	return pb_machine_kernel_at_least(m, 6, 14);
}

/* Its machine note: the IBS capability word (pb_ibs_probe_machine), absent when not known. */
#define IBS_CAPS_NOTE "ibs_caps"
/* Where a saved tree keeps the word live CPUID gave. */
#define IBS_CAPS_TREE_FILE "/pesbench-ibs-caps"

static bool known_caps(const struct pb_machine *m, uint32_t *caps)
{
	long long word;
	if (!pb_machine_note_get(m, IBS_CAPS_NOTE, &word))
		return false;
	*caps = (uint32_t)word;
	return true;
}

/* The caps, or the three bits every IBS has when they are not known. */
static uint32_t caps_or_basic(const struct pb_machine *m)
{
	uint32_t caps;
	return known_caps(m, &caps) ? caps
				    : PB_IBS_CAPS_AVAIL | PB_IBS_CAPS_FETCHSAM | PB_IBS_CAPS_OPSAM;
}

void pb_ibs_availability(enum pb_ibs_kind kind, const struct pb_machine *m,
			 const struct pb_spec *spec, struct pb_availability *out)
{
	memset(out, 0, sizeof *out);
	if (!base_availability(kind, m, out))
		return;
	uint32_t caps = caps_or_basic(m);
	uint64_t options = spec ? spec->options : 0;
	bool swfilt = swfilt_possible(kind, m);

	if ((options & PB_IBS_OPT_SWFILT) && !swfilt) {
		snprintf(out->reason, sizeof out->reason,
			 ":swfilt needs Linux 6.14 or later (no format/swfilt in %s; kernel %s)",
			 pb_ibs_pmu_name(kind), m->kernel_release);
		return;
	}
	if ((options & PB_IBS_OPT_L3MISSONLY) && !(caps & PB_IBS_CAPS_ZEN4)) {
		snprintf(out->reason, sizeof out->reason,
			 ":l3missonly needs the Zen 4 IBS extensions (ibs_caps bit 11, "
			 "caps/zen4_ibs_extensions); this CPU's caps are 0x%08x", caps);
		return;
	}
	if ((options & PB_IBS_OPT_OPS) && !(caps & PB_IBS_CAPS_OPCNT)) {
		snprintf(out->reason, sizeof out->reason,
			 ":ops (count dispatched ops) needs ibs_caps bit 4 OPCNT (format/cnt_ctl); "
			 "this CPU's caps are 0x%08x; use :cycles", caps);
		return;
	}
	if ((options & PB_IBS_OPT_LDLAT) && !(caps & PB_IBS_CAPS_OPLDLAT)) {
		snprintf(out->reason, sizeof out->reason,
			 ":ldlat needs the load-latency filter (Zen 5, ibs_caps bit 12, caps/ldlat, "
			 "Linux 6.15+); this CPU's caps are 0x%08x", caps);
		return;
	}
	bool privileged = pb_machine_may_sample_kernel(m);
	if (!privileged && (spec ? !(options & PB_IBS_OPT_SWFILT) : !swfilt)) {
		snprintf(out->reason, sizeof out->reason,
			 "IBS cannot leave out kernel samples without :swfilt, so it needs "
			 "CAP_PERFMON, CAP_SYS_ADMIN or perf_event_paranoid <= 1 (it is %d); run as "
			 "root, grant CAP_PERFMON, `sysctl kernel.perf_event_paranoid=1`%s",
			 m->paranoid, swfilt ? ", or add :swfilt" : "");
		return;
	}
	out->available = true;
	char names[200];
	const struct pb_pmu *p = pb_machine_pmu(m, pb_ibs_pmu_name(kind));
	snprintf(out->detail, sizeof out->detail,
		 "%s type %d, caps 0x%08x (%s); period %llu..%llu in steps of 16%s%s",
		 p->name, p->type, caps, pb_ibs_caps_names(caps, names, sizeof names),
		 (unsigned long long)pb_ibs_min_period(kind),
		 (unsigned long long)pb_ibs_max_period(kind, caps),
		 swfilt ? "; :swfilt offered" : "",
		 privileged ? "" : "; unprivileged: user-space only, with :swfilt");
}

/* IBS periods are multiples of 16 (the low 4 bits of MaxCnt are not stored): "prime-like"
 * is 16 times an odd prime, so it shares no factor but 16 with a loop's length. */
const struct pb_period_sets pb_ibs_periods = {
	.accuracy = 100000 & ~(uint64_t)15,
	.round = {1000000, 100000, 10000, 1024},
	.prime = {16 * 62501ull, 16 * 6247ull, 16 * 619ull, 16 * 61ull},
	/* the hardware's longest period first: beyond it the kernel re-arms in software */
	.cost = {PB_IBS_MAX_PERIOD, 500000, 200000, 100000, 50000},
	.buffer = 10000,
};

bool pb_ibs_can_exclude(const struct pb_spec *spec)
{
	return spec->options & PB_IBS_OPT_SWFILT;
}

int pb_ibs_set_format(const struct pb_machine *m, enum pb_ibs_kind kind, const char *name,
		      const char *fallback, uint64_t value, struct perf_event_attr *attr,
		      struct pb_error *err)
{
	const struct pb_pmu *p = pb_machine_pmu(m, pb_ibs_pmu_name(kind));
	char buf[64];
	const char *text = p ? pb_pmu_format(p, name, buf, sizeof buf) : NULL;
	if (!text) {
		if (p && p->formats[0])
			return pb_fail(err, PB_EXIT_UNAVAILABLE, EINVAL,
				       "%s has no format/%s here: this CPU or kernel does not offer it",
				       pb_ibs_pmu_name(kind), name);
		text = fallback; /* a PMU without a format directory: the documented layout */
	}
	struct pb_format_field f;
	if (pb_format_parse(text, &f))
		return pb_fail(err, PB_EXIT_FAILURE, 0, "%s/format/%s is '%s', not a config field",
			       pb_ibs_pmu_name(kind), name, text);
	if (value > pb_format_max(&f))
		return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: %s value %llu does not fit %s",
			       pb_ibs_pmu_name(kind), name, (unsigned long long)value, text);
	pb_format_apply(attr, &f, value);
	return 0;
}

int pb_ibs_attr_common(enum pb_ibs_kind kind, const struct pb_machine *m,
		       const struct pb_spec *spec, uint64_t period, struct perf_event_attr *attr,
		       struct pb_error *err)
{
	struct pb_availability av;
	pb_ibs_availability(kind, m, spec, &av);
	if (!av.available)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s: %s", spec->text, av.reason);
	uint32_t caps = caps_or_basic(m);
	if (pb_ibs_check_period(kind, spec->text, caps, period, err))
		return -1;
	bool swfilt = spec->options & PB_IBS_OPT_SWFILT;
	if (!swfilt && (attr->exclude_user || attr->exclude_kernel || attr->exclude_hv))
		return pb_fail(err, PB_EXIT_USAGE, EINVAL,
			       "%s: IBS cannot exclude user, kernel or hypervisor samples in "
			       "hardware and the kernel refuses the attempt (EINVAL); add :swfilt "
			       "(Linux 6.14+, filtered in software) or sample every privilege level",
			       spec->text);
	const struct pb_pmu *p = pb_machine_pmu(m, pb_ibs_pmu_name(kind));
	attr->type = (uint32_t)p->type;
	attr->freq = 0;
	/* Never accepted by either IBS PMU, with or without swfilt. */
	attr->exclude_guest = 0;
	attr->exclude_host = 0;
	attr->exclude_idle = 0;
	/* RAW makes the kernel read every IBS register; IP is IbsOpRip/IbsFetchLinAd. */
	attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	if (swfilt && pb_ibs_set_format(m, kind, "swfilt", "config2:0", 1, attr, err))
		return -1;
	char fallback[24];
	pb_ibs_config_format(kind == PB_IBS_OP ? PB_IBS_OP_CTL_L3_MISS_ONLY
					       : PB_IBS_FETCH_CTL_L3_MISS_ONLY,
			     fallback, sizeof fallback);
	if ((spec->options & PB_IBS_OPT_L3MISSONLY) &&
	    pb_ibs_set_format(m, kind, "l3missonly", fallback, 1, attr, err))
		return -1;
	return 0;
}

static bool pmu_has(const struct pb_pmu *p, const char *which, const char *name)
{
	char buf[128];
	if (!p)
		return false;
	const char *v = !strcmp(which, "caps") ? pb_pmu_caps(p, name, buf, sizeof buf)
					       : pb_pmu_format(p, name, buf, sizeof buf);
	return v && strcmp(v, "0") != 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* Read as the kernel reads them (arch/x86/events/amd/ibs.c). */
static bool cpuid_ibs_caps(uint32_t *caps)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & (1u << 10)))
		return false;
	unsigned max = __get_cpuid_max(0x80000000, NULL);
	*caps = PB_IBS_CAPS_AVAIL | PB_IBS_CAPS_FETCHSAM | PB_IBS_CAPS_OPSAM;
	if (max >= 0x8000001B && __get_cpuid(0x8000001B, &a, &b, &c, &d) && (a & PB_IBS_CAPS_AVAIL))
		*caps = a; /* the kernel falls back to the three basic bits when the leaf is invalid */
	return true;
}
#else
static bool cpuid_ibs_caps(uint32_t *caps)
{
	(void)caps;
	return false;
}
#endif

void pb_ibs_probe_machine(struct pb_machine *m, bool prove)
{
	const struct pb_pmu *op = pb_machine_pmu(m, "ibs_op");
	const struct pb_pmu *fetch = pb_machine_pmu(m, "ibs_fetch");
	(void)prove;
	uint32_t caps;
	if (!m->root[0]) {
		if ((!strcmp(m->cpu_vendor, "AuthenticAMD") || !strcmp(m->cpu_vendor, "HygonGenuine")) &&
		    cpuid_ibs_caps(&caps))
			pb_machine_note_set(m, IBS_CAPS_NOTE, caps);
		return;
	}
	char buf[64];
	if (pb_machine_read_file(m, IBS_CAPS_TREE_FILE, buf, sizeof buf) > 0) {
		pb_machine_note_set(m, IBS_CAPS_NOTE, (uint32_t)strtoul(buf, NULL, 16));
		return;
	}
	if (!op && !fetch)
		return;
	/* Rebuilt from what the kernel exposes: each of these files exists only with its bit. */
	caps = PB_IBS_CAPS_AVAIL | PB_IBS_CAPS_FETCHSAM | PB_IBS_CAPS_OPSAM;
	if (pmu_has(op, "format", "cnt_ctl"))
		caps |= PB_IBS_CAPS_OPCNT;
	if (pmu_has(op, "caps", "zen4_ibs_extensions") || pmu_has(fetch, "caps", "zen4_ibs_extensions"))
		caps |= PB_IBS_CAPS_ZEN4;
	if (pmu_has(op, "caps", "ldlat"))
		caps |= PB_IBS_CAPS_OPLDLAT;
	if (pmu_has(op, "caps", "dtlb_pgsize"))
		caps |= PB_IBS_CAPS_OPDTLBPGSIZE;
	pb_machine_note_set(m, IBS_CAPS_NOTE, caps);
}

unsigned pb_ibs_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out,
			      unsigned max)
{
	char names[200] = "";
	if (max < 2)
		return 0;
	uint32_t caps = 0;
	bool known = known_caps(m, &caps);
	if (known)
		pb_ibs_caps_names(caps, names, sizeof names);
	pb_fact_number(&out[0], "ibs_caps", caps, known, 2);
	if (known) {
		out[0].label = "IBS caps";
		snprintf(out[0].line, sizeof out[0].line, "0x%08x %s", caps, names);
		/* live CPUID is not in the sysfs files a bundle copies: the tree keeps its answer */
		out[0].tree_path = IBS_CAPS_TREE_FILE;
		snprintf(out[0].tree_text, sizeof out[0].tree_text, "%08x\n", caps);
	}
	pb_fact_text(&out[1], "ibs_caps_names", names, 2);
	out[1].title = "IBS capabilities";
	return 2;
}
