#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>

void pb_format(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
