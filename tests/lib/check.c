#include "check.h"
#include "util/text.h"

#include "facilities/facility.h"

#include <stdarg.h>

unsigned pb_checks_passed, pb_checks_failed, pb_checks_skipped;

void pb_skip_checks(unsigned n, const char *why, ...)
{
	va_list ap;
	va_start(ap, why);
	printf("SKIPPED %u checks: ", n);
	vprintf(why, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	pb_checks_skipped += n;
}

bool pb_test_facility_works(const char *spec_text, char *why, size_t len)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	if (pb_spec_parse(spec_text, &spec, &err)) {
		snprintf(why, len, "%s", err.msg);
		return false;
	}
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), &spec, NULL, &av, NULL);
	if (!av.available)
		snprintf(why, len, "%s: %s", spec_text, av.reason);
	return av.available;
}

void pb_test_on_exact_facilities(void (*fn)(const char *facility))
{
	static const char *const candidates[] = {"bp:w", "uprobe"};
	char why[2][512];
	bool works[2];
	unsigned per_run = 0;
	for (unsigned i = 0; i < 2; i++) {
		works[i] = pb_test_facility_works(candidates[i], why[i], sizeof why[i]);
		if (!works[i])
			continue;
		unsigned before = pb_checks_passed + pb_checks_failed;
		fn(candidates[i]);
		per_run = pb_checks_passed + pb_checks_failed - before;
	}
	if (!works[0] && !works[1]) {
		pb_skip_checks(1, "no exact facility works here: %s; %s", why[0], why[1]);
		return;
	}
	for (unsigned i = 0; i < 2; i++)
		if (!works[i])
			pb_skip_checks(per_run ? per_run : 1, "%s", why[i]);
}

void pb_skip(const char *why, ...)
{
	if (pb_checks_failed) {
		fprintf(stderr, "%u checks had failed before the test skipped: it fails\n",
			pb_checks_failed);
		exit(1);
	}
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
	/* a text cut to fit its buffer hides the end of what was said: a failure wherever a test
	 * did not make it on purpose (and set pb_text_cuts back) */
	if (pb_text_cuts) {
		pb_checks_failed++;
		fprintf(stderr, "%s: %lu text(s) cut short to fit a buffer (pb_format, pb_append), "
			"the last: \"%s\"\n", suite, pb_text_cuts, pb_text_last_cut);
	}
	if (pb_checks_skipped)
		printf("%s: %u passed, %u failed, %u skipped\n", suite, pb_checks_passed,
		       pb_checks_failed, pb_checks_skipped);
	else
		printf("%s: %u passed, %u failed\n", suite, pb_checks_passed, pb_checks_failed);
	if (pb_checks_passed + pb_checks_failed == 0) {
		fprintf(stderr, "%s: no check ran\n", suite);
		return 1;
	}
	return pb_checks_failed ? 1 : 0;
}

bool pb_check_msg(bool ok, const char *file, int line, const char *fmt, ...)
{
	if (ok) {
		pb_checks_passed++;
		return true;
	}
	pb_checks_failed++;
	fprintf(stderr, "%s:%d: CHECK failed: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}
