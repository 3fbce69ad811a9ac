#include "plugin.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

void pb_test_plugin_samples(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	uint8_t rec[512];
	for (unsigned n = 0; n < PB_TEST_PLUGIN_SAMPLES; n++) {
		struct pb_sample s = {.ip = 0x401000 + 2 * n + (n < PB_TEST_PLUGIN_ODD), .pid = 1,
				      .tid = 1, .time = n, .id = ev->id, .identifier = ev->id,
				      .period = ev->attr.sample_period};
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		CHECK(fake_ring_write(ev, rec, len));
	}
	ev->count = PB_TEST_PLUGIN_SAMPLES * ev->attr.sample_period;
	ev->time_enabled = ev->time_running = PB_TEST_PLUGIN_SAMPLES * ev->attr.sample_period;
}

bool *pb_test_plugin_events_of_pmu(struct pb_perfdata *pd, const char *pmu, size_t *n)
{
	*n = pb_perfdata_nevents(pd);
	bool *mine = calloc(*n ? *n : 1, sizeof *mine), any = false;
	if (!mine)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		const char *name = pb_perfdata_pmu_name(pd, pb_perfdata_event(pd, i)->attr.type);
		any |= mine[i] = name && !strcmp(name, pmu);
	}
	if (!any) {
		free(mine);
		*n = 0;
		return NULL;
	}
	return mine;
}
