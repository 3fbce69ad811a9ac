#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pb_test_fixture(struct pb_machine *m, const char *name)
{
	char root[512];
	const char *src = getenv("PB_SOURCE_DIR") ? getenv("PB_SOURCE_DIR") : PB_SOURCE_DIR;
	snprintf(root, sizeof root, "%s/tests/fixtures/%s", src, name);
	pb_machine_probe(m, root);
}

int pb_test_build_attr(const struct pb_machine *m, const char *text, uint64_t period,
		       struct perf_event_attr *attr, struct pb_error *err)
{
	struct pb_spec spec;
	pb_error_clear(err);
	memset(attr, 0, sizeof *attr);
	if (pb_spec_parse(text, &spec, err))
		return -1;
	return pb_spec_attr(m, &spec, NULL, period, attr, err);
}

const struct pb_spec *pb_test_spec(const char *text)
{
	/* a few at once: a test may hold two (a request's and a suite's) */
	static struct pb_spec specs[8];
	static unsigned next;
	struct pb_spec *spec = &specs[next++ % 8];
	struct pb_error err = {0};
	if (pb_spec_parse(text, spec, &err)) {
		fprintf(stderr, "FAIL: the test's spec '%s' does not parse: %s\n", text, err.msg);
		exit(1);
	}
	return spec;
}
