/* Choosing one name among a function's aliases, by perf's rules (symbol_alias.h). */
#include "analysis/symbol_alias.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static size_t leading_underscores(const char *name)
{
	size_t n = 0;
	while (name[n] == '_')
		n++;
	return n;
}

/* +1 when a wins, -1 when b wins, 0 on a full tie of rules 1-5. */
static int compare_aliases(const struct pb_symbol_alias *a, const struct pb_symbol_alias *b)
{
	bool a_sized = a->size > 0, b_sized = b->size > 0;
	if (a_sized != b_sized)
		return a_sized ? 1 : -1;
	bool a_weak = a->binding == STB_WEAK, b_weak = b->binding == STB_WEAK;
	if (a_weak != b_weak)
		return a_weak ? -1 : 1;
	bool a_global = a->binding == STB_GLOBAL, b_global = b->binding == STB_GLOBAL;
	if (a_global != b_global)
		return a_global ? 1 : -1;
	size_t a_under = leading_underscores(a->name), b_under = leading_underscores(b->name);
	if (a_under != b_under)
		return a_under < b_under ? 1 : -1;
	size_t a_len = strlen(a->name), b_len = strlen(b->name);
	if (a_len != b_len)
		return a_len > b_len ? 1 : -1;
	return 0;
}

bool pb_symbol_alias_better(const struct pb_symbol_alias *a, const struct pb_symbol_alias *b)
{
	return compare_aliases(a, b) > 0;
}

const struct pb_symbol_alias *pb_symbol_alias_choose(const struct pb_symbol_alias *cands,
						     size_t n)
{
	const struct pb_symbol_alias *best = NULL;
	for (size_t i = 0; i < n; i++) {
		int c = best ? compare_aliases(&cands[i], best) : 1;
		if (c > 0 || (c == 0 && cands[i].order < best->order))
			best = &cands[i];
	}
	return best;
}

int pb_symbol_alias_table_add(struct pb_symbol_alias_table *t, const struct pb_symbol_alias *a)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct pb_symbol_alias *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *a;
	return 0;
}

static int by_start_then_order(const void *pa, const void *pb)
{
	const struct pb_symbol_alias *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

void pb_symbol_alias_table_sort(struct pb_symbol_alias_table *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof *t->v, by_start_then_order);
}

size_t pb_symbol_alias_table_at(const struct pb_symbol_alias_table *t, uint64_t start,
				const struct pb_symbol_alias **first)
{
	size_t lo = 0, hi = t->n;   /* the first entry with start >= start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < t->n && t->v[end].start == start)
		end++;
	*first = end > lo ? &t->v[lo] : NULL;
	return end - lo;
}

void pb_symbol_alias_table_free(struct pb_symbol_alias_table *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}
