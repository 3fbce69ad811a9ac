/* pesbench library: what every part of the public API shares (errors, version).
 *
 * Conventions of the whole API (the headers of include/pesbench/):
 *  - Types are opaque: a caller holds pointers only, made by an object__new / object__open
 *    function and given back to the matching __delete / __close, which accept NULL.
 *  - A function that can fail returns an int, 0 on success and -1 on failure, or a pointer,
 *    NULL on failure, and fills the struct pesbench_error the caller passes (which may be NULL
 *    when the caller does not want the message). Nothing is printed, nothing exits.
 *  - Pointers a function returns into an object (names, records, decoded samples) are owned by
 *    that object and valid until the call the function documents, or until the object is
 *    deleted. Strings are never NULL unless documented.
 *  - Objects are not shared between threads without the caller's own locking.
 */
#ifndef PESBENCH_CORE_H
#define PESBENCH_CORE_H

#ifdef __cplusplus
extern "C" {
#endif

/* What went wrong, in the words pesbench's own commands use, and the class of failure. The codes
 * are pesbench's exit codes (README "Exit codes"). */
enum pesbench_error_code {
	PESBENCH_OK = 0,
	PESBENCH_E_FAILURE = 1,     /* the system failed at run time (out of memory, mmap, ...) */
	PESBENCH_E_USAGE = 2,       /* a bad argument (unknown facility, malformed spec) */
	PESBENCH_E_UNAVAILABLE = 3, /* the facility does not exist or is not permitted here */
	PESBENCH_E_OUTPUT = 4,
	PESBENCH_E_MISMATCH = 5,
	PESBENCH_E_BAD_FILE = 6,    /* a file or record is truncated, corrupt or of another kind */
};

struct pesbench_error {
	int code;                   /* enum pesbench_error_code */
	int sys_errno;              /* errno of the failing system call, 0 when none */
	char msg[512];              /* one line a user can act on, without a trailing newline */
};

/* "0.1.0": the version of the library the program runs with. */
const char *pesbench_version(void);

#ifdef __cplusplus
}
#endif

#endif
