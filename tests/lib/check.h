/* Minimal test assertions. Each CHECK counts; pb_check_done() prints the closing line
 * "N passed, N failed" and returns the exit code (0, 1, or 77 when skipped). */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <inttypes.h>
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

/* Prints why and exits 77 (CTest: skipped). */
void pb_skip(const char *why, ...) __attribute__((noreturn, format(printf, 1, 2)));
int pb_check_done(const char *suite);

#endif
