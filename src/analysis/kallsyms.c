/* /proc/kallsyms and /sys/kernel/notes read into a table that names kernel addresses. */
#include "analysis/kallsyms.h"

#include "util/kit.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym_at {
	struct pb_ksym sym;
	size_t order;            /* its line: of aliases at one address, the last names it */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym_at *x = a, *y = b;
	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_value(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* One line, cut at its end (line is the table's own copy): "ADDRESS TYPE NAME", then a tab and
 * "[MODULE]" for a module's symbol; false for a line of another shape. */
static bool parse_line(char *line, uint64_t *addr, char *type, char **name)
{
	size_t i = 0, digits = 0;
	uint64_t a = 0;
	for (; is_hex(line[i]); i++, digits++)
		a = a << 4 | hex_value(line[i]);
	if (!digits || digits > 16 || line[i] != ' ' || !line[i + 1] || line[i + 2] != ' ')
		return false;
	*type = line[i + 1];
	char *n = line + i + 3;
	size_t len = strcspn(n, " \t");
	if (!len)
		return false;
	n[len] = '\0';
	*addr = a;
	*name = n;
	return true;
}

int pb_kallsyms_parse(const char *text, size_t len, struct pb_kallsyms *out)
{
	memset(out, 0, sizeof *out);
	out->text = malloc(len + 1);
	if (!out->text)
		return -1;
	memcpy(out->text, text, len);
	out->text[len] = '\0';
	struct ksym_at *at = NULL;
	size_t cap = 0, n = 0, lines = 0;
	bool any_address = false;
	for (char *line = out->text, *next; line < out->text + len; line = next) {
		char *end = memchr(line, '\n', (size_t)(out->text + len - line));
		next = end ? end + 1 : out->text + len;
		if (end)
			*end = '\0';
		if (!*line)
			continue;
		uint64_t addr;
		char type, *name;
		if (!parse_line(line, &addr, &type, &name)) {
			out->unparsed++;
			continue;
		}
		any_address = any_address || addr;
		if (!strchr("tTwW", type))
			continue;
		if (pb_grow(&at, &cap, n, sizeof *at, 1024)) {
			free(at);
			pb_kallsyms_free(out);
			return -1;
		}
		at[n++] = (struct ksym_at){{addr, name}, lines++};
	}
	out->hidden = n && !any_address;
	if (n)
		qsort(at, n, sizeof *at, cmp_ksym);
	out->syms = malloc((n ? n : 1) * sizeof *out->syms);
	if (!out->syms) {
		free(at);
		pb_kallsyms_free(out);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		out->syms[i] = at[i].sym;
	out->n = n;
	free(at);
	return 0;
}

bool pb_kallsyms_address(const struct pb_kallsyms *k, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->syms[i].name, name)) {
			*addr = k->syms[i].addr;
			return true;
		}
	return false;
}

const char *pb_kallsyms_find(const struct pb_kallsyms *k, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = k->n; /* the symbols at or below addr: [0, lo) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* of aliases, the last listed, as perf names them: each of the others ends at the next
	 * symbol's start, its own, and so holds no address (memcpy, __memcpy, __pi_memcpy:
	 * perf script says __pi_memcpy) */
	*start = k->syms[lo - 1].addr;
	return k->syms[lo - 1].name;
}

void pb_kallsyms_free(struct pb_kallsyms *k)
{
	free(k->syms);
	free(k->text);
	memset(k, 0, sizeof *k);
}

static uint32_t native_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

bool pb_kernel_notes_build_id(const uint8_t *notes, size_t len, char *hex, size_t hex_len)
{
	enum { NT_GNU_BUILD_ID = 3 };
	size_t at = 0;
	while (len - at >= 12) {
		uint32_t namesz = native_u32(notes + at), descsz = native_u32(notes + at + 4);
		uint32_t type = native_u32(notes + at + 8);
		size_t name_padded = ((size_t)namesz + 3) & ~(size_t)3;
		size_t desc_padded = ((size_t)descsz + 3) & ~(size_t)3;
		at += 12;
		if (name_padded > len - at || desc_padded > len - (at + name_padded))
			return false;
		const uint8_t *name = notes + at, *desc = notes + at + name_padded;
		at += name_padded + desc_padded;
		if (type != NT_GNU_BUILD_ID || namesz != 4 || memcmp(name, "GNU", 4) || !descsz ||
		    2 * (size_t)descsz + 1 > hex_len)
			continue;
		pb_hex(hex, desc, descsz);
		return true;
	}
	return false;
}
