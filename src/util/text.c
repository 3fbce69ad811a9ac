#include "util/text.h"
#include "util/kit.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

unsigned long pb_text_cuts;
char pb_text_last_cut[96];

static void count_cut(const char *text, size_t len)
{
	pb_text_cuts++;
	snprintf(pb_text_last_cut, sizeof pb_text_last_cut, "%.*s",
		 (int)(len ? strnlen(text, len) : 0), text);
}

void pb_format(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= len)
		count_cut(buf, len);
}

/* Whether byte c continues a UTF-8 character (10xxxxxx). */
static bool continues(char c)
{
	return ((unsigned char)c & 0xC0) == 0x80;
}

int pb_utf8_columns(const char *s, size_t n)
{
	int cols = 0;
	for (size_t i = 0; i < n; i++)
		cols += !continues(s[i]);
	return cols;
}

size_t pb_utf8_floor(const char *s, size_t i)
{
	while (i > 0 && continues(s[i]))
		i--;
	return i;
}

size_t pb_utf8_ceil(const char *s, size_t i)
{
	while (s[i] && continues(s[i]))
		i++;
	return i;
}

void pb_format_number(char *buf, size_t len, const char *fmt, double v)
{
	pb_format(buf, len, fmt, v);
	if (strchr(buf, 'e'))
		pb_format(buf, len, strchr(fmt, '+') ? "%+.0f" : "%.0f", v);
}

const char *pb_num(char *buf, const char *fmt, double v)
{
	pb_format_number(buf, PB_NUM_LEN, fmt, v);
	return buf;
}

void pb_format_value_ci(char *buf, size_t len, const char *fmt, double v, double ci)
{
	/* an interval below the doubles' own precision is none: 30, 30 gives 1.8e-15 */
	if (isfinite(ci) && isfinite(v) && ci >= 0 && ci < 1e-9 * fmax(1, fabs(v)))
		ci = 0;
	if (!(ci > 0) || !isfinite(ci) || !isfinite(v)) {
		pb_format_number(buf, len, fmt, v);
		if (ci == 0)
			pb_append(buf, len, " ±0");
		return;
	}
	/* the interval's second significant digit, once rounded, sets the place of both: 2.1
	 * tenths, 0.38 hundredths, 9.96 (10) units, 1 (1.0) tenths */
	double place = floor(log10(ci)) - 1;
	if (round(ci / pow(10, place)) >= 100)
		place += 1;
	int decimals = place < 0 ? (int)fmin(-place, 9) : 0;
	if (place > 0) {
		/* whole tens or more: both rounded there (16400 ±5000, not 16446 ±5001) */
		double unit = pow(10, place);
		v = round(v / unit) * unit;
		ci = round(ci / unit) * unit;
	}
	char value[PB_NUM_LEN], c[PB_NUM_LEN];
	pb_format(value, sizeof value, "%.*f", decimals, v);
	pb_format(c, sizeof c, "%.*f", decimals, ci);
	/* a figure that rounds to zero has no sign */
	const char *shown = value[0] == '-' && !strpbrk(value, "123456789") ? value + 1 : value;
	pb_format(buf, len, "%s ±%s", shown, c);
}

void pb_format_duration_ci(char *buf, size_t len, double ns, double ci)
{
	static const struct {
		double ns;
		const char *name;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	size_t u = 0;
	while (u + 1 < sizeof units / sizeof *units && !(fabs(ns) >= units[u].ns))
		u++;
	pb_format_value_ci(buf, len, "%.4g", ns / units[u].ns, ci / units[u].ns);
	pb_append(buf, len, " %s", units[u].name);
}

void pb_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;
	va_start(ap, fmt);
	/* a full buffer takes nothing more: counted when there was more to take */
	int n = used + 1 >= len ? vsnprintf(NULL, 0, fmt, ap)
				: vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n >= len - used)
		count_cut(buf, len);
}

void pb_list_add(char *buf, size_t len, const char *name)
{
	static const char more[] = "...";
	if (!len)
		return;
	size_t used = strnlen(buf, len);
	if (used >= len)
		return;
	/* Already cut short: the list is the mark alone or ends in ", ..." (a name of its own may
	 * end in "...", as "sw:a|b|..." does). */
	if (!strcmp(buf, more) || (used >= 5 && !strcmp(buf + used - 5, ", ...")))
		return;
	const char *sep = used ? ", " : "";
	if (used + strlen(sep) + strlen(name) < len) {
		pb_append(buf, len, "%s%s", sep, name);
		return;
	}
	/* Room for the mark: drop whole names from the end until it fits. */
	while (used && used + strlen(sep) + sizeof more > len) {
		char *comma = NULL;
		for (char *c = buf; (c = strstr(c, ", ")); c++)
			comma = c;
		used = comma ? (size_t)(comma - buf) : 0;
		buf[used] = '\0';
		sep = used ? ", " : "";
	}
	if (used + strlen(sep) + sizeof more <= len)
		pb_append(buf, len, "%s%s", sep, more);
}

static bool shell_plain(const char *word)
{
	if (!*word)
		return false;
	for (const char *c = word; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_./=:,+@%", *c))
			return false;
	return true;
}

void pb_command_text(char *buf, size_t len, char *const argv[])
{
	static const char more[] = " ...";
	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; argv && argv[i]; i++) {
		char word[512];
		if (shell_plain(argv[i])) {
			pb_format(word, sizeof word, "%s", argv[i]);
		} else {
			/* 'it'\''s': a quote inside a quoted word closes, escapes and reopens */
			size_t w = 0;
			word[w++] = '\'';
			for (const char *c = argv[i]; *c && w + 6 < sizeof word; c++) {
				if (*c == '\'') {
					memcpy(word + w, "'\\''", 4);
					w += 4;
				} else {
					word[w++] = *c;
				}
			}
			word[w++] = '\'';
			word[w] = '\0';
		}
		size_t used = strlen(buf), sep = i ? 1 : 0;
		/* room for this word, and for the mark after it unless it is the last */
		size_t need = used + sep + strlen(word) + (argv[i + 1] ? sizeof more - 1 : 0);
		if (need >= len || strlen(word) + 1 >= sizeof word) {
			const char *mark = i ? more : more + 1;
			if (used + strlen(mark) < len)
				pb_append(buf, len, "%s", mark);
			return;
		}
		pb_append(buf, len, "%s%s", sep ? " " : "", word);
	}
}

unsigned pb_edit_distance(const char *a, const char *b, bool fold_case)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > PB_EDIT_DISTANCE_MAX_LEN || lb > PB_EDIT_DISTANCE_MAX_LEN)
		return PB_EDIT_DISTANCE_FAR;
	/* one row of the dynamic-programming table, updated in place */
	unsigned row[PB_EDIT_DISTANCE_MAX_LEN + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned char x = (unsigned char)a[i - 1], y = (unsigned char)b[j - 1];
			bool same = fold_case ? toupper(x) == toupper(y) : x == y;
			unsigned up = row[j];
			unsigned best = diag + !same;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* Whether the token at t (up to a space) is a unit a figure's number is written with, its
 * trailing punctuation aside. */
static bool is_unit(const char *t)
{
	static const char *const units[] = {"%", "pp", "ns", "µs", "us", "ms", "s", "Hz", "kHz",
					    "MHz", "GHz", "KiB", "MiB", "GiB"};
	size_t len = strcspn(t, " ");
	while (len && strchr(",;:.)", t[len - 1]))
		len--;
	for (size_t i = 0; i < PB_ARRAY_SIZE(units); i++)
		if (strlen(units[i]) == len && !strncmp(t, units[i], len))
			return true;
	return false;
}

/* The length of the text's next chunk that a line break must not part: a word, with a "±"
 * and the number after it, and a unit after a number ("1.2 %", "13.2 ± 0.15 µs"). */
static int unbroken(const char *text)
{
	static const char pm[] = "±";
	const int pm_len = (int)sizeof pm - 1;
	int len = (int)strcspn(text, " ");
	for (;;) {
		const char *next = text + len + strspn(text + len, " ");
		if (!*next)
			return len;
		bool after_number = len > 0 && strchr("0123456789", text[len - 1]);
		/* "±" next, or the chunk ending in one */
		bool plus_minus = !strncmp(next, pm, pm_len) ||
				  (len >= pm_len && !strncmp(text + len - pm_len, pm, pm_len));
		if (!plus_minus && !(after_number && is_unit(next)))
			return len;
		len = (int)(next - text) + (int)strcspn(next, " ");
	}
}

void pb_text_wrapped(FILE *out, const char *first, const char *text, int indent)
{
	fputs(first, out);
	int col = pb_utf8_columns(first, strlen(first));
	bool space = *first && first[strlen(first) - 1] != ' ';
	while (*text) {
		int word = unbroken(text), width = pb_utf8_columns(text, (size_t)word);
		/* a chunk wider than a line is broken at its spaces after all */
		if (indent + width > PB_TEXT_WIDTH) {
			word = (int)strcspn(text, " ");
			width = pb_utf8_columns(text, (size_t)word);
		}
		if (col > indent && col + space + width > PB_TEXT_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			space = false;
		}
		if (space) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", word, text);
		col += width;
		space = true;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

void pb_text_entry(FILE *out, int indent, const char *name, int width, const char *text)
{
	char first[256];
	pb_format(first, sizeof first, "%*s%-*s ", indent, "", width, name);
	pb_text_wrapped(out, first, text, indent + width + 1);
}

void pb_hex(char *out, const unsigned char *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}
