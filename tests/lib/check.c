#include "check.h"

#include <stdarg.h>

unsigned pb_checks_passed, pb_checks_failed;

void pb_skip(const char *why, ...)
{
	va_list ap;
	va_start(ap, why);
	fprintf(stderr, "SKIPPED: ");
	vfprintf(stderr, why, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(77);
}

int pb_check_done(const char *suite)
{
	printf("%s: %u passed, %u failed\n", suite, pb_checks_passed, pb_checks_failed);
	if (pb_checks_passed + pb_checks_failed == 0) {
		fprintf(stderr, "%s: no check ran\n", suite);
		return 1;
	}
	return pb_checks_failed ? 1 : 0;
}
