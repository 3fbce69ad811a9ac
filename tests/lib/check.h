/* Minimal test assertions. Each CHECK counts; pb_check_done() prints the closing line
 * "N passed, N failed" and returns the exit code (0, 1, or 77 when skipped). */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern unsigned pb_checks_passed, pb_checks_failed;

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (cond) {                                                                \
			pb_checks_passed++;                                                \
		} else {                                                                   \
			pb_checks_failed++;                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                          \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                 \
	do {                                                                               \
		uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                         \
		if (va_ == vb_) {                                                          \
			pb_checks_passed++;                                                \
		} else {                                                                   \
			pb_checks_failed++;                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%" PRIu64 " vs %" PRIu64 \
					")\n", __FILE__, __LINE__, #a, #b, va_, vb_);      \
		}                                                                          \
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                    \
	do {                                                                               \
		const char *h_ = (hay), *n_ = (needle);                                    \
		if (h_ && strstr(h_, n_)) {                                                \
			pb_checks_passed++;                                                \
		} else {                                                                   \
			pb_checks_failed++;                                                \
			fprintf(stderr, "%s:%d: CHECK failed: \"%s\" does not contain \"%s\"\n", \
				__FILE__, __LINE__, h_ ? h_ : "(null)", n_);               \
		}                                                                          \
	} while (0)

/* A check that says what failed in its own words, and is the condition's value, so that a
 * test can stop early: if (!CHECK_MSG(ok, "%s refused", name)) return; */
bool pb_check_msg(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define CHECK_MSG(cond, ...) pb_check_msg((cond), __FILE__, __LINE__, __VA_ARGS__)

/* Checks a test cannot make on this machine: printed as "SKIPPED <n> checks: <why>" (make
 * check sums these lines per reason) and counted; they never turn a failure into a pass. */
extern unsigned pb_checks_skipped;
void pb_skip_checks(unsigned n, const char *why, ...) __attribute__((format(printf, 2, 3)));
/* Whether a facility passed its self-test on the live machine (through the sys seam in force);
 * when not, why (the verdict and its figures). */
#include <stdbool.h>
bool pb_test_facility_works(const char *spec, char *why, size_t len);
/* Runs fn once per exact sampling facility ("bp:w", "uprobe") that works here; for each that
 * does not, prints a skip line counting the checks one working run made (at least 1). */
void pb_test_on_exact_facilities(void (*fn)(const char *facility));

/* Prints why and exits 77 (CTest: skipped); exits 1 instead when a check already failed. */
void pb_skip(const char *why, ...) __attribute__((noreturn, format(printf, 1, 2)));
int pb_check_done(const char *suite);

#endif
