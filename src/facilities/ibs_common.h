/* What ibs-op and ibs-fetch share: the CPUID 8000_001B capability bits, the period rules the
 * hardware imposes (units of 16, per-PMU minimum and maximum), option bits, availability and
 * the common part of the attr. Facts: reference/pmu-facts.md section 1. */
#ifndef PB_IBS_COMMON_H
#define PB_IBS_COMMON_H

#include "facilities/facility.h"
#include "facilities/spec_options.h"

#include <stddef.h>
#include <stdint.h>

/* ibs_caps bits (arch/x86/include/asm/perf_event.h IBS_CAPS_*). */
#define PB_IBS_CAPS_AVAIL (1u << 0)
#define PB_IBS_CAPS_FETCHSAM (1u << 1)
#define PB_IBS_CAPS_OPSAM (1u << 2)
#define PB_IBS_CAPS_RDWROPCNT (1u << 3)
#define PB_IBS_CAPS_OPCNT (1u << 4)
#define PB_IBS_CAPS_BRNTRGT (1u << 5)
#define PB_IBS_CAPS_OPCNTEXT (1u << 6)
#define PB_IBS_CAPS_RIPINVALIDCHK (1u << 7)
#define PB_IBS_CAPS_OPBRNFUSE (1u << 8)
#define PB_IBS_CAPS_FETCHCTLEXTD (1u << 9)
#define PB_IBS_CAPS_OPDATA4 (1u << 10)
#define PB_IBS_CAPS_ZEN4 (1u << 11)
#define PB_IBS_CAPS_OPLDLAT (1u << 12)
#define PB_IBS_CAPS_OPDTLBPGSIZE (1u << 19)

/* spec->options bits of the two IBS facilities. */
#define PB_IBS_OPT_OPS (1u << 0)        /* ibs-op: count dispatched ops (cnt_ctl) */
#define PB_IBS_OPT_CYCLES (1u << 1)     /* ibs-op: count cycles (:cycles; ops is the default) */
#define PB_IBS_OPT_L3MISSONLY (1u << 2)
#define PB_IBS_OPT_SWFILT (1u << 3)
#define PB_IBS_OPT_LDLAT (1u << 4)      /* ibs-op: threshold in spec->config1 */
#define PB_IBS_OPT_RAND (1u << 5)       /* ibs-fetch: randomise the period (rand_en) */

enum pb_ibs_kind { PB_IBS_FETCH, PB_IBS_OP };

#define PB_IBS_OP_MIN_PERIOD 0x90u      /* 144: the kernel refuses less for op (v6.15+) */
#define PB_IBS_FETCH_MIN_PERIOD 0x10u
#define PB_IBS_MAX_PERIOD 0xFFFF0u      /* 16-bit MaxCnt in units of 16 */
#define PB_IBS_OP_MAX_PERIOD_EXT 0x7FFFFF0u /* with OpCntExt: 7 more MaxCnt bits */
#define PB_IBS_LDLAT_MIN 128u
#define PB_IBS_LDLAT_MAX 2048u

const char *pb_ibs_pmu_name(enum pb_ibs_kind kind);   /* "ibs_op" / "ibs_fetch" */
uint64_t pb_ibs_min_period(enum pb_ibs_kind kind);
uint64_t pb_ibs_max_period(enum pb_ibs_kind kind, uint32_t caps);
/* 0 if period is one the hardware takes as is; else the error names the nearest valid ones. */
int pb_ibs_check_period(enum pb_ibs_kind kind, const char *spec_text, uint32_t caps,
			uint64_t period, struct pb_error *err);
/* "OPCNT OPCNTEXT ZEN4 ..." for caps. */
const char *pb_ibs_caps_names(uint32_t caps, char *buf, size_t len);
/* The descriptors' hardware-fact hooks, shared by ibs-op and ibs-fetch: the IBS capabilities
 * (CPUID 8000_001B EAX on live AMD, a saved tree's /pesbench-ibs-caps, or rebuilt from the
 * PMUs' sysfs caps and formats), and their description for probe and capture bundles. */
void pb_ibs_probe_machine(struct pb_machine *m, bool prove);
unsigned pb_ibs_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out,
			      unsigned max);

/* The spec words both take (entries of a struct pb_spec_option table). */
#define PB_IBS_COMMON_OPTIONS                                                                  \
	{.word = "l3missonly", .kind = PB_SPEC_FLAG, .bits = PB_IBS_OPT_L3MISSONLY,           \
	 .help = "interrupt only for a tagged op or fetch that missed L3 (Zen 4 on); the "      \
		 "period can no longer be reconstructed"},                                   \
	{.word = "swfilt", .kind = PB_SPEC_FLAG, .bits = PB_IBS_OPT_SWFILT,                   \
	 .help = "let the kernel drop samples of an excluded privilege level (v6.14 on); "     \
		 "without it IBS samples every level"}
void pb_ibs_availability(enum pb_ibs_kind kind, const struct pb_machine *m,
			 const struct pb_spec *spec, struct pb_availability *out);
/* Type, period, l3missonly, swfilt, excludes, sample_type; the caller adds its own bits. */
int pb_ibs_attr_common(enum pb_ibs_kind kind, const struct pb_machine *m,
		       const struct pb_spec *spec, uint64_t period, struct perf_event_attr *attr,
		       struct pb_error *err);
/* Sets a PMU format field (sysfs format/<name>, or fallback when the PMU lists no formats). */
int pb_ibs_set_format(const struct pb_machine *m, enum pb_ibs_kind kind, const char *name,
		      const char *fallback, uint64_t value, struct perf_event_attr *attr,
		      struct pb_error *err);

/* The privilege-level model of both IBS PMUs: a level can be left out only with :swfilt, and
 * the samples the kernel then drops arrive as PERF_RECORD_LOST_SAMPLES. */
bool pb_ibs_can_exclude(const struct pb_spec *spec);
extern const struct pb_period_sets pb_ibs_periods;

/* The struct pb_facility fields ibs-op and ibs-fetch share: what they need, the exact IP of
 * the tagged op or fetch, the period rules (units of 16), the privilege-level model above. */
#define PB_IBS_FACILITY_COMMON                                                                 \
	.needs = "AMD CPU with IBS, bare metal, Linux 6.2+ for per-thread use; CAP_PERFMON or "  \
		 "perf_event_paranoid <= 1 unless :swfilt (Linux 6.14+)",                      \
	.ip_kind = PB_IP_EXACT, .exact = false, .default_period = 0x10000,                    \
	.period_multiple = 16, .can_exclude = pb_ibs_can_exclude,                              \
	.filters_in_software = pb_ibs_can_exclude, .precise_family = true, .multi_events = 8, \
	.periods = &pb_ibs_periods

#endif
