/* Which of several function symbols at one address names it. Libraries give one function many
 * names (glibc's pthread_mutex_lock is also __pthread_mutex_lock, ___pthread_mutex_lock and
 * __GI___pthread_mutex_lock); elfutils returns whichever its scan meets first, while perf keeps
 * one by fixed rules. pesbench's profiles are compared with perf's by name, so pesbench chooses
 * by perf's rules (tools/perf/util/symbol.c, choose_best_symbol), in this order:
 *   1. a symbol with a size over one without,
 *   2. a non-weak symbol over a weak one,
 *   3. a global symbol over a non-global one,
 *   4. fewer leading underscores,
 *   5. the longer name,
 *   6. the one first in the symbol table (perf keeps the first of a full tie).
 * perf's last, per-architecture tie-break (kernel "SyS" syscall aliases lose) concerns the
 * kernel's symbols only, which pesbench does not name through ELF objects: left out. */
#ifndef PB_SYMBOL_ALIAS_H
#define PB_SYMBOL_ALIAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_symbol_alias {
	uint64_t start;     /* link-time address */
	uint64_t size;
	const char *name;   /* owned by whoever built the list (the ELF string table) */
	unsigned char binding;  /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint32_t order;     /* index in the symbol table: rule 6 */
};

/* Whether a is strictly preferred over b by rules 1-5 (a full tie is false both ways). */
bool pb_symbol_alias_better(const struct pb_symbol_alias *a, const struct pb_symbol_alias *b);
/* The preferred one of n candidates (NULL when n is 0): of a full tie, the lowest order. */
const struct pb_symbol_alias *pb_symbol_alias_choose(const struct pb_symbol_alias *cands,
						     size_t n);

/* A module's function symbols sorted by start address (then symbol-table order), built once
 * so that naming an address looks its aliases up instead of scanning the symbol table. */
struct pb_symbol_alias_table {
	struct pb_symbol_alias *v;
	size_t n, cap;
};

int pb_symbol_alias_table_add(struct pb_symbol_alias_table *t, const struct pb_symbol_alias *a);
/* Sorts the table; call once after the last add and before any lookup. */
void pb_symbol_alias_table_sort(struct pb_symbol_alias_table *t);
/* The entries starting at start: their number, and the first in *first (NULL when none). */
size_t pb_symbol_alias_table_at(const struct pb_symbol_alias_table *t, uint64_t start,
				const struct pb_symbol_alias **first);
void pb_symbol_alias_table_free(struct pb_symbol_alias_table *t);

#endif
