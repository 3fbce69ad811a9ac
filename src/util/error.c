#include "util/error.h"

#include <stdio.h>
#include <string.h>

int pb_fail(struct pb_error *err, int code, int sys_errno, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->code = code;
	err->sys_errno = sys_errno;
	return -1;
}

void pb_error_clear(struct pb_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}
