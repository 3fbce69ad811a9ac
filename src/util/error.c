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

static const char joint[] = " ... ";
#define JOINT_LEN (sizeof joint - 1)

/* Writes err->msg from a (and, when joined, the joint and b: a message already cut, whose end
 * is b). A message longer than its room keeps its start and its end, joined by " ... ": a
 * message says what failed first and what to do last, and the advice is the part a user cannot
 * do without (the CI of 2026-11-27 lost plan's advice behind a long reason, when only the start
 * was kept). The end gets two fifths of the room, or all of its last keep_end bytes (what was
 * added last) while that leaves the start a fifth; neither part is cut inside a character. A
 * message already cut is cut again at its joint, so it never holds two (the text between them
 * was lost the first time). err->cut records where the joint is. */
static void compose(struct pb_error *err, const char *a, size_t alen, const char *b, size_t blen,
		    bool joined, size_t keep_end)
{
	const size_t room = sizeof err->msg;
	if (!joined) {
		b = a;
		blen = alen;
	}
	if ((joined ? alen + JOINT_LEN + blen : alen) < room) {
		memmove(err->msg, a, alen);
		if (joined) {
			memmove(err->msg + alen + JOINT_LEN, b, blen);
			memcpy(err->msg + alen, joint, JOINT_LEN);
		}
		err->msg[joined ? alen + JOINT_LEN + blen : alen] = 0;
		err->cut = joined ? (unsigned short)alen : 0;
		return;
	}
	size_t usable = room - 1 - JOINT_LEN;
	size_t tail = usable * 2 / 5;
	if (keep_end > tail && keep_end <= usable - usable / 5)
		tail = keep_end;
	if (tail > blen)
		tail = blen;
	size_t head = pb_utf8_floor(a, alen < usable - tail ? alen : usable - tail);
	/* the room the start did not take goes to the end */
	tail = usable - head < blen ? usable - head : blen;
	size_t from = pb_utf8_ceil(b, blen - tail);
	char out[sizeof err->msg];
	memcpy(out, a, head);
	memcpy(out + head, joint, JOINT_LEN);
	memcpy(out + head + JOINT_LEN, b + from, blen - from);
	out[head + JOINT_LEN + blen - from] = 0;
	memcpy(err->msg, out, sizeof out);
	err->cut = (unsigned short)head;
}

/* fmt's text after prefix, into full (4 KiB); its length, and the added part's in *added. */
static size_t format_after(char *full, size_t size, const char *prefix, size_t *added,
			   const char *fmt, va_list ap)
{
	size_t start = strlen(prefix) < size ? strlen(prefix) : size - 1;
	memmove(full, prefix, start);
	int n = vsnprintf(full + start, size - start, fmt, ap);
	size_t room = size - start;
	*added = n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
	size_t len = start + *added;
	full[len] = 0;
	if (n >= 0 && (size_t)n >= room) {
		full[len = whole_characters(full, len)] = 0;
		*added = len - start;
	}
	return len;
}

/* Writes prefix and then fmt's text into err->msg as a new message, keeping fmt's text whole
 * where it can (compose) when keep_added. */
static void set_message(struct pb_error *err, const char *prefix, bool keep_added,
			const char *fmt, va_list ap)
{
	char full[4096];
	size_t added, len = format_after(full, sizeof full, prefix, &added, fmt, ap);
	compose(err, full, len, NULL, 0, false, keep_added ? added : 0);
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

/* The message as it stands: whole in a (false), or cut (true), its start a and its end b. */
static bool message_parts(const struct pb_error *err, char *a, size_t *alen, char *b, size_t *blen)
{
	size_t len = strnlen(err->msg, sizeof err->msg - 1);
	bool cut = err->cut && err->cut + JOINT_LEN <= len &&
		   !memcmp(err->msg + err->cut, joint, JOINT_LEN);
	*alen = cut ? err->cut : len;
	memcpy(a, err->msg, *alen);
	a[*alen] = 0;
	*blen = cut ? len - err->cut - JOINT_LEN : 0;
	memcpy(b, err->msg + (cut ? err->cut + JOINT_LEN : len), *blen);
	b[*blen] = 0;
	return cut;
}

/* fmt's text added after err's message, or in front of it (in_front), the message cut again
 * at its joint when it was cut before. */
static void add_text(struct pb_error *err, bool in_front, const char *fmt, va_list ap)
{
	char a[sizeof err->msg], b[sizeof err->msg], full[4096];
	size_t alen, blen, added;
	bool joined = message_parts(err, a, &alen, b, &blen);
	if (!in_front) {
		size_t len = format_after(full, sizeof full, joined ? b : a, &added, fmt, ap);
		if (joined)
			compose(err, a, alen, full, len, true, added);
		else
			compose(err, full, len, NULL, 0, false, added);
		return;
	}
	size_t len = format_after(full, sizeof full - sizeof a, "", &added, fmt, ap);
	memcpy(full + len, a, alen + 1);
	len += alen;
	/* the message keeps its end (what to do) whole where it can; the cut falls in front */
	if (joined)
		compose(err, full, len, b, blen, true, blen);
	else
		compose(err, full, len, NULL, 0, false, alen);
}

int pb_error_append(struct pb_error *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	add_text(err, false, fmt, ap);
	va_end(ap);
	return -1;
}

int pb_error_prefix(struct pb_error *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	add_text(err, true, fmt, ap);
	va_end(ap);
	return -1;
}

void pb_error_clear(struct pb_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}
