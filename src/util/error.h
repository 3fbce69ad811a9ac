/* Errors carried up to the CLI: a message a user can act on and a documented exit code. */
#ifndef PB_ERROR_H
#define PB_ERROR_H

#include <stdarg.h>

/* Exit codes, documented in README ("Exit codes"). */
enum pb_exit {
	PB_EXIT_OK = 0,
	PB_EXIT_FAILURE = 1,      /* a measurement or the system failed at run time */
	PB_EXIT_USAGE = 2,        /* bad command line or bad input value */
	PB_EXIT_UNAVAILABLE = 3,  /* the facility does not exist or is not permitted here */
	PB_EXIT_OUTPUT = 4,       /* output folder unwritable or full */
	PB_EXIT_MISMATCH = 5,     /* verification found a declared truth wrong */
	PB_EXIT_BAD_FILE = 6,     /* input file truncated, corrupt or of another version */
	PB_EXIT_INTERRUPTED = 130 /* SIGINT/SIGTERM; partial results were written */
};

struct pb_error {
	int code;       /* enum pb_exit */
	int sys_errno;  /* errno of the failing call, 0 if none */
	char msg[512];
	unsigned short cut; /* where msg's " ... " joins its start and end when cut, else 0 */
};

/* Sets err (if non-NULL) and returns -1 so callers can `return pb_fail(...)`. */
int pb_fail(struct pb_error *err, int code, int sys_errno, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* pb_fail with what to do after what failed: when the two are too long for the room, the
 * advice is kept whole while it leaves the start a fifth of it, the cut falling in what failed
 * (its start kept). */
int pb_fail_advice(struct pb_error *err, int code, int sys_errno, const char *advice,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Adds to err's message (code and errno kept) as pb_fail writes one: a message that grows past
 * its room keeps its start and its end, so what is added last, the advice, is never lost; one
 * already cut is cut again at its joint, so it never holds two " ... ".
 * Returns -1; does nothing without err. */
int pb_error_append(struct pb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Puts context before err's message (code and errno kept): "PATH: " + the message. Cut as
 * pb_error_append cuts, the message's end kept whole where it can. A message already cut is cut
 * again at its joint, never twice. Returns -1; does nothing without err. */
int pb_error_prefix(struct pb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pb_error_clear(struct pb_error *err);

#endif
