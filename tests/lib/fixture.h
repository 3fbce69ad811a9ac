/* Constructed machines for tests: sysfs/procfs trees under tests/fixtures/, and building a
 * facility's attr on one of them. */
#ifndef PB_TEST_FIXTURE_H
#define PB_TEST_FIXTURE_H

#include "facilities/facility.h"

/* Probes tests/fixtures/NAME (source tree from $PB_SOURCE_DIR, else the build's). */
void pb_test_fixture(struct pb_machine *m, const char *name);
/* Parses a spec and builds its attr on machine m with no target; clears err and attr first. */
int pb_test_build_attr(const struct pb_machine *m, const char *text, uint64_t period,
		       struct perf_event_attr *attr, struct pb_error *err);
/* The spec text parsed (exits failing the test when it does not parse): what the CLI hands
 * the layers below. Valid until eight more calls. */
const struct pb_spec *pb_test_spec(const char *text);

#endif
