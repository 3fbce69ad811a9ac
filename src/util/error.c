#include "util/error.h"
#include "util/text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The length of s[0..len) without a last character vsnprintf cut short: its lead byte says how
 * many bytes it needs. */
static size_t whole_characters(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	size_t lead = pb_utf8_floor(s, len - 1);
	unsigned char c = (unsigned char)s[lead];
	size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return len - lead < need ? lead : len;
}

/* A message longer than its room keeps its start and its end, joined by " ... ": a message
 * says what failed first and what to do last, and the advice is the part a user cannot do
 * without (the CI of 2026-11-27 lost plan's advice behind a long reason, when only the start
 * was kept). The end gets two fifths of the room, or all of what was appended last (whole_end
 * bytes) while that leaves the start a fifth; neither part is cut inside a character. */
static void keep_ends(char *msg, size_t room, const char *full, size_t len, size_t whole_end)
{
	static const char joint[] = " ... ";
	size_t usable = room - 1 - (sizeof joint - 1);
	size_t tail = usable * 2 / 5;
	if (whole_end > tail && whole_end <= usable - usable / 5)
		tail = whole_end;
	size_t head = pb_utf8_floor(full, usable - tail), from = pb_utf8_ceil(full, len - tail);
	memcpy(msg, full, head);
	memcpy(msg + head, joint, sizeof joint - 1);
	memcpy(msg + head + sizeof joint - 1, full + from, len - from);
	msg[head + sizeof joint - 1 + len - from] = 0;
}

/* Writes prefix and then fmt's text into err->msg, keeping both ends of what is too long, and
 * fmt's text whole where it can (keep_ends) when keep_added. */
static void set_message(struct pb_error *err, const char *prefix, bool keep_added,
			const char *fmt, va_list ap)
{
	char full[4096];
	size_t start = strlen(prefix) < sizeof full ? strlen(prefix) : sizeof full - 1;
	memcpy(full, prefix, start);
	int n = vsnprintf(full + start, sizeof full - start, fmt, ap);
	size_t room = sizeof full - start;
	size_t added = n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
	full[start + added] = 0;
	size_t len = start + added;
	if (n >= 0 && (size_t)n >= room)
		full[len = whole_characters(full, len)] = 0;
	if (len < sizeof err->msg)
		memcpy(err->msg, full, len + 1);
	else
		keep_ends(err->msg, sizeof err->msg, full, len, keep_added ? len - start : 0);
}

int pb_fail(struct pb_error *err, int code, int sys_errno, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	set_message(err, "", false, fmt, ap);
	va_end(ap);
	err->code = code;
	err->sys_errno = sys_errno;
	return -1;
}

static void set_message_f(struct pb_error *err, const char *prefix, bool keep_added,
			  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(err, prefix, keep_added, fmt, ap);
	va_end(ap);
}

int pb_fail_advice(struct pb_error *err, int code, int sys_errno, const char *advice,
		   const char *fmt, ...)
{
	if (!err)
		return -1;
	char what[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	what[whole_characters(what, strlen(what))] = 0;
	set_message_f(err, what, true, "%s", advice ? advice : "");
	err->code = code;
	err->sys_errno = sys_errno;
	return -1;
}

int pb_error_append(struct pb_error *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	char before[sizeof err->msg];
	memcpy(before, err->msg, sizeof before);
	before[sizeof before - 1] = 0;
	va_list ap;
	va_start(ap, fmt);
	set_message(err, before, false, fmt, ap);
	va_end(ap);
	return -1;
}

void pb_error_clear(struct pb_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}
