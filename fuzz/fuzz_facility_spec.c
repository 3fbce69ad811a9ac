/* Fuzzes the spec parsers of the hardware facilities (hw, pebs, ibs-op, ibs-fetch, spe) and
 * the attr builders behind them, on constructed machines that have each PMU (the fixtures).
 * Input: byte 0 picks the machine, bytes 1-8 the period, the rest is the spec text. Whatever
 * the text, a facility either fails with a message or builds an attr its own rules accept. */
#include "facilities/facility.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pb_machine machines[5];
static int loaded;

static void load(void)
{
	static const char *const names[] = {"sysfs-zen4", "sysfs-zen5", "sysfs-skl", "sysfs-spr",
					    "sysfs-neoverse"};
	for (int i = 0; i < 5; i++) {
		char root[512];
		snprintf(root, sizeof root, "%s/tests/fixtures/%s", PB_SOURCE_DIR, names[i]);
		pb_machine_probe(&machines[i], root);
	}
	loaded = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!loaded)
		load();
	if (size < 10)
		return 0;
	const struct pb_machine *m = &machines[data[0] % 5];
	uint64_t period;
	memcpy(&period, data + 1, sizeof period);
	if (data[0] & 0x80)
		period &= 0xFFFFFFF; /* keep some periods in the plausible range */
	static const char *const prefixes[] = {"hw:", "pebs:", "ibs-op:", "ibs-fetch:", "spe:"};
	char text[160];
	size_t n = size - 10 < 120 ? size - 10 : 120;
	snprintf(text, sizeof text, "%s", prefixes[data[9] % 5]);
	size_t used = strlen(text);
	memcpy(text + used, data + 10, n);
	text[used + n] = '\0';

	struct pb_spec spec;
	struct pb_error err;
	if (pb_spec_parse(text, &spec, &err)) {
		if (!err.msg[0] || !err.code)
			abort(); /* every refusal says why and how it exits */
		return 0;
	}
	struct pb_availability av;
	pb_facility_availability(m, spec.facility, &spec, &av);
	if (!av.available && !av.reason[0])
		abort();
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	/* the one writer of sample_period, with the facility's period rules (issue 22) */
	if (pb_spec_attr(m, &spec, NULL, period, &attr, &err)) {
		if (!err.msg[0] || !err.code)
			abort();
		return 0;
	}
	if (attr.sample_period != period)
		abort();
	if ((!strcmp(spec.facility->name, "ibs-op") || !strcmp(spec.facility->name, "ibs-fetch")) &&
	    (period & 0xf || attr.exclude_guest || attr.exclude_idle))
		abort();
	if (!strcmp(spec.facility->name, "hw") && attr.precise_ip)
		abort();
	return 0;
}
