/* Plumbing the tests of a facility defined in a test file share (tests/test_plugin_*.c): what the
 * fake kernel's ring holds for it, and which events of a perf.data file its decoder claims. The
 * facilities' hooks stay in the test that defines each: that they need no other file is what
 * those tests show. */
#ifndef PB_TEST_PLUGIN_H
#define PB_TEST_PLUGIN_H

#include "fake_kernel.h"
#include "perfdata/perfdata.h"

#include <stdbool.h>
#include <stddef.h>

#define PB_TEST_PLUGIN_SAMPLES 30 /* samples pb_test_plugin_samples writes */
#define PB_TEST_PLUGIN_ODD 11     /* of which at an odd IP */

/* A fake_kernel_on_disable callback: PB_TEST_PLUGIN_SAMPLES samples in ev's ring, the first
 * PB_TEST_PLUGIN_ODD of them at an odd IP, and a count and times of that many periods. */
void pb_test_plugin_samples(struct fake_event *ev, void *ctx);

/* For each of pd's events, whether the file's PMU mappings name its PMU pmu: a calloc'd array of
 * *n flags. NULL when none is (*n then 0) or memory ran out (*n then the number of events). */
bool *pb_test_plugin_events_of_pmu(struct pb_perfdata *pd, const char *pmu, size_t *n);

#endif
