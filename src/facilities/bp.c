/* x86 debug-register breakpoints as perf events. Counts are exact; data breakpoints trap after
 * the access, so a sample's IP is the next instruction; execute breakpoints fault before it. */
#include "facilities/facility.h"

#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <string.h>

static int bp_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	const char *kind = args ? args : "w";
	if (!strcmp(kind, "w"))
		spec->bp_type = HW_BREAKPOINT_W;
	else if (!strcmp(kind, "rw"))
		spec->bp_type = HW_BREAKPOINT_RW;
	else if (!strcmp(kind, "x"))
		spec->bp_type = HW_BREAKPOINT_X;
	else if (!strcmp(kind, "r"))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s: x86 debug registers cannot trap reads alone; use bp:rw (reads "
			       "and writes)", spec->text);
	else
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: unknown breakpoint kind '%s'; use bp:w, "
			       "bp:rw or bp:x", spec->text, kind);
	snprintf(spec->event, sizeof spec->event, "%s", kind);
	spec->type = PERF_TYPE_BREAKPOINT;
	return 0;
}

static void bp_availability(const struct pb_machine *m, const struct pb_spec *spec,
			    struct pb_availability *out)
{
	(void)spec;
	memset(out, 0, sizeof *out);
	if (!pb_machine_pmu(m, "breakpoint")) {
		snprintf(out->reason, sizeof out->reason,
			 "no 'breakpoint' PMU: the kernel lacks CONFIG_HAVE_HW_BREAKPOINT");
		return;
	}
	out->available = true;
	snprintf(out->detail, sizeof out->detail,
		 "%u debug-register slots per task (shared with debuggers); a data breakpoint "
		 "reports the next instruction and the watched address", m->bp_slots);
}

static int bp_attr(const struct pb_machine *m, const struct pb_spec *spec,
		   const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		   struct pb_error *err)
{
	(void)m;
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_type = spec->bp_type;
	attr->sample_period = period;
	if (spec->bp_type == HW_BREAKPOINT_X) {
		if (!target || !target->code_addr)
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "%s needs an instruction address; the workload declares none",
				       spec->text);
		attr->bp_addr = target->code_addr;
		attr->bp_len = sizeof(long);
		return 0;
	}
	if (!target || !target->data_addr)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s needs a data address to watch; the workload declares none",
			       spec->text);
	unsigned len = target->data_len ? target->data_len : 8;
	if (len != 1 && len != 2 && len != 4 && len != 8)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: watch length %u is not 1, 2, 4 or 8",
			       spec->text, len);
	if (target->data_addr % len)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s: address 0x%llx is not aligned to its length %u (the kernel "
			       "refuses it)", spec->text, (unsigned long long)target->data_addr, len);
	attr->bp_addr = target->data_addr;
	attr->bp_len = len;
	attr->sample_type |= PERF_SAMPLE_ADDR;
	return 0;
}

const struct pb_facility pb_facility_bp = {
	.name = "bp",
	.usage = "bp:w|rw|x",
	.summary = "x86 debug-register watch/breakpoints (4 slots)",
	.needs = "a breakpoint PMU (x86, arm64); own threads at perf_event_paranoid <= 2",
	.ip_kind = PB_IP_NEXT,
	.exact = true,
	.default_period = 1,
	.min_period = 1,
	.parse = bp_parse,
	.availability = bp_availability,
	.attr = bp_attr,
};
