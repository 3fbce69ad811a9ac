/* Intel PEBS facts a caller needs beyond the facility table. */
#ifndef PB_PEBS_H
#define PB_PEBS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether the kernel would use large (multi-record) PEBS for attr: a fixed period, no wakeup
 * per N events, and only sample fields the PEBS record itself provides. When it would not,
 * why names the first thing that forces one interrupt per sample. Mirrors
 * intel_pmu_hw_config() / intel_pmu_large_pebs_flags() (reference/pmu-facts.md 3.3). */
bool pb_pebs_large_eligible(const struct perf_event_attr *attr, char *why, size_t len);

/* The precise_ip pesbench uses when the user gives no pp: 3 (precise distribution) for
 * PREC_DIST events, else 2 (exact IP), never above max_precise. */
int pb_pebs_default_precise(const char *canonical_event, int max_precise);

/* The precise level pesbench opens a spec with on machine m: the user's pp lowered to the CPU's
 * maximum, or the default for the event. */
struct pb_spec;
struct pb_machine;
int pb_pebs_granted_precise(const struct pb_machine *m, const struct pb_spec *spec);

/* The highest precise_ip the kernel accepts on PMU p, found by opening an event of its cycles
 * at each level from 3 down (through the sys seam; hybrid: the PMU named in config's upper
 * half, as on a machine with several core PMUs); -1 when none opens. */
struct pb_pmu;
int pb_pebs_precise_by_opening(const struct pb_pmu *p, bool hybrid);
/* Fills precise_opened of every core PMU of m by opening. */
void pb_pebs_prove_precise(struct pb_machine *m);

#endif
