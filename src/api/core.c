/* The public API's shared parts: version and errors (include/pesbench/core.h). */
#include "api/api.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

_Static_assert((int)PESBENCH_E_BAD_FILE == (int)PB_EXIT_BAD_FILE &&
		       (int)PESBENCH_E_USAGE == (int)PB_EXIT_USAGE &&
		       (int)PESBENCH_E_UNAVAILABLE == (int)PB_EXIT_UNAVAILABLE &&
		       (int)PESBENCH_E_FAILURE == (int)PB_EXIT_FAILURE,
	       "public error codes are pesbench's exit codes");
_Static_assert(sizeof(((struct pesbench_error *)0)->msg) == sizeof(((struct pb_error *)0)->msg),
	       "messages are copied whole");

const char *pesbench_version(void)
{
	return PB_VERSION;
}

int pb_api_error(struct pesbench_error *out, const struct pb_error *err)
{
	if (out) {
		out->code = err->code ? err->code : PESBENCH_E_FAILURE;
		out->sys_errno = err->sys_errno;
		memcpy(out->msg, err->msg, sizeof out->msg);
		out->msg[sizeof out->msg - 1] = '\0';
	}
	return -1;
}

int pb_api_nomem(struct pesbench_error *out, const char *what)
{
	struct pb_error err;
	pb_fail(&err, PB_EXIT_FAILURE, ENOMEM, "out of memory for %s", what);
	return pb_api_error(out, &err);
}
