/* Naming a function that has several names at one address: the chooser follows perf's rules in
 * perf's order (each case below is decided by one rule, against what a later rule would say),
 * the alias table finds a start address's names, and a real library's aliases are named as perf
 * names them (glibc: ____strtoll_l_internal, pthread_mutex_lock). */
#include "analysis/profile.h"
#include "analysis/symbol_alias.h"
#include "check.h"
#include "util/kit.h"

#include <elf.h>
#include <unistd.h>

#define SIZED 64

static const char *chosen(const struct pb_symbol_alias *cands, size_t n)
{
	const struct pb_symbol_alias *best = pb_symbol_alias_choose(cands, n);
	return best ? best->name : "(none)";
}

/* Both orders of a pair: the winner must not depend on which came first in the list. */
static void check_pair(struct pb_symbol_alias a, struct pb_symbol_alias b, const char *want)
{
	struct pb_symbol_alias ab[] = {a, b}, ba[] = {b, a};
	const char *got_ab = chosen(ab, 2), *got_ba = chosen(ba, 2);
	CHECK_MSG(!strcmp(got_ab, want), "%s vs %s: chose %s, want %s", a.name, b.name, got_ab,
		  want);
	CHECK_MSG(!strcmp(got_ba, want), "%s vs %s: chose %s, want %s", b.name, a.name, got_ba,
		  want);
	const struct pb_symbol_alias *w = !strcmp(a.name, want) ? &a : &b;
	const struct pb_symbol_alias *l = w == &a ? &b : &a;
	CHECK(pb_symbol_alias_better(w, l));
	CHECK(!pb_symbol_alias_better(l, w));
}

static void test_rules(void)
{
	/* 1 before 2: a sized weak symbol over an unsized global one */
	check_pair((struct pb_symbol_alias){0x10, 0, "f", STB_GLOBAL, 1},
		   (struct pb_symbol_alias){0x10, SIZED, "f_weak", STB_WEAK, 2}, "f_weak");
	/* 2 before 4 and 5: a local over a weak one, though more underscored and longer */
	check_pair((struct pb_symbol_alias){0x10, SIZED, "f", STB_WEAK, 1},
		   (struct pb_symbol_alias){0x10, SIZED, "__f_local", STB_LOCAL, 2}, "__f_local");
	/* 2 and 3 never disagree (a weak symbol is not global, so either rule prefers the global
	 * one): no case can tell their order; this one checks that they hold together */
	check_pair((struct pb_symbol_alias){0x10, SIZED, "f", STB_WEAK, 1},
		   (struct pb_symbol_alias){0x10, SIZED, "__f", STB_GLOBAL, 2}, "__f");
	/* 3 before 4: a global over a local, though more underscored */
	check_pair((struct pb_symbol_alias){0x10, SIZED, "f", STB_LOCAL, 1},
		   (struct pb_symbol_alias){0x10, SIZED, "__f", STB_GLOBAL, 2}, "__f");
	/* 4 before 5: fewer leading underscores over a longer name */
	check_pair((struct pb_symbol_alias){0x10, SIZED, "_f_with_a_long_name", STB_LOCAL, 1},
		   (struct pb_symbol_alias){0x10, SIZED, "f", STB_LOCAL, 2}, "f");
	/* 5: the longer name when all else is equal (underscores inside the name do not count) */
	check_pair((struct pb_symbol_alias){0x10, SIZED, "__f", STB_LOCAL, 1},
		   (struct pb_symbol_alias){0x10, SIZED, "__GI_f", STB_LOCAL, 2}, "__GI_f");
	/* 6: a full tie goes to the symbol first in the symbol table, not first in the list */
	struct pb_symbol_alias tie[] = {{0x10, SIZED, "fb", STB_GLOBAL, 7},
					{0x10, SIZED, "fa", STB_GLOBAL, 3}};
	CHECK(!strcmp(chosen(tie, 2), "fa"));
	CHECK(!pb_symbol_alias_better(&tie[0], &tie[1]) && !pb_symbol_alias_better(&tie[1], &tie[0]));
	CHECK(pb_symbol_alias_choose(tie, 0) == NULL);

	/* sets seen in glibc 2.36's debug files, in their symbol-table order */
	check_pair((struct pb_symbol_alias){0x48c30, 1263, "____strtoll_l_internal", STB_LOCAL,
					    3643},
		   (struct pb_symbol_alias){0x48c30, 1263, "__GI_____strtoll_l_internal",
					    STB_LOCAL, 4361},
		   "__GI_____strtoll_l_internal");
	/* an ifunc resolver and the function it resolves share an address (perf: __strnlen_ifunc;
	 * elfutils met strnlen first); and in ld.so two locals (perf: brk) */
	struct pb_symbol_alias strnlen[] = {
		{0x9f550, 129, "__strnlen_ifunc", STB_LOCAL, 1464},
		{0x9f550, 129, "__strnlen", STB_LOCAL, 5381},
		{0x9f550, 129, "strnlen", STB_WEAK, 7458},
	};
	CHECK(!strcmp(chosen(strnlen, PB_ARRAY_SIZE(strnlen)), "__strnlen_ifunc"));
	check_pair((struct pb_symbol_alias){0x1fc40, 48, "__brk", STB_LOCAL, 477},
		   (struct pb_symbol_alias){0x1fc40, 48, "brk", STB_LOCAL, 584}, "brk");
	struct pb_symbol_alias lock[] = {
		{0x8c370, 726, "___pthread_mutex_lock", STB_LOCAL, 3919},
		{0x8c370, 726, "__GI___pthread_mutex_lock", STB_LOCAL, 4767},
		{0x8c370, 726, "__pthread_mutex_lock@GLIBC_2.2.5", STB_GLOBAL, 8269},
		{0x8c370, 726, "pthread_mutex_lock@@GLIBC_2.2.5", STB_GLOBAL, 9936},
	};
	/* every rotation, forwards and backwards: one winner */
	size_t n = PB_ARRAY_SIZE(lock);
	for (size_t r = 0; r < 2 * n; r++) {
		struct pb_symbol_alias perm[PB_ARRAY_SIZE(lock)];
		for (size_t i = 0; i < n; i++)
			perm[i] = lock[r < n ? (i + r) % n : (n - 1 - i + r) % n];
		const char *got = chosen(perm, n);
		CHECK_MSG(!strcmp(got, "pthread_mutex_lock@@GLIBC_2.2.5"), "rotation %zu chose %s",
			  r, got);
	}
}

static void test_table(void)
{
	struct pb_symbol_alias_table t = {0};
	/* added out of address order; three names at 0x200, the last added first in the table */
	const struct pb_symbol_alias adds[] = {
		{0x300, 8, "c", STB_GLOBAL, 5}, {0x200, 8, "b2", STB_LOCAL, 4},
		{0x100, 8, "a", STB_GLOBAL, 1}, {0x200, 8, "b3", STB_LOCAL, 6},
		{0x200, 8, "b1", STB_LOCAL, 2},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(adds); i++)
		CHECK(pb_symbol_alias_table_add(&t, &adds[i]) == 0);
	pb_symbol_alias_table_sort(&t);
	const struct pb_symbol_alias *first;
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x200, &first), 3);
	CHECK(first && !strcmp(first[0].name, "b1") && !strcmp(first[1].name, "b2") &&
	      !strcmp(first[2].name, "b3"));
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x100, &first), 1);
	CHECK(first && !strcmp(first->name, "a"));
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x300, &first), 1);
	CHECK(first && !strcmp(first->name, "c"));
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x201, &first), 0);
	CHECK(first == NULL);
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x400, &first), 0);
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x0, &first), 0);
	pb_symbol_alias_table_free(&t);
	CHECK_EQ_U64(pb_symbol_alias_table_at(&t, 0x100, &first), 0);
}

static const struct pb_symbol_alias *find_named(const struct pb_symbol_alias_table *t,
						 const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->v[i].name, name, len) &&
		    (t->v[i].name[len] == '\0' || t->v[i].name[len] == '@'))
			return &t->v[i];
	return NULL;
}

/* The C library this test runs on, from its own mappings. */
static bool find_libc(char *path, size_t len)
{
	struct pb_map *maps = NULL;
	size_t n = 0;
	bool found = false;
	if (pb_maps_read_proc(getpid(), &maps, &n) > 0)
		for (size_t i = 0; i < n && !found; i++)
			if (!strncmp(pb_path_base(maps[i].path), "libc.so", 7) ||
			    !strncmp(pb_path_base(maps[i].path), "libc-", 5)) {
				snprintf(path, len, "%s", maps[i].path);
				found = true;
			}
	free(maps);
	return found;
}

static void test_libc(void)
{
	enum { LIBC_CHECKS = 9, DEBUG_FILE_CHECKS = 5 };
	char path[PATH_MAX];
	if (!find_libc(path, sizeof path)) {
		pb_skip_checks(LIBC_CHECKS, "no libc.so among this test's mappings");
		return;
	}
	struct pb_prof_object *o;
	struct pb_error err = {0};
	if (!CHECK_MSG(pb_prof_object_open(path, &o, &err) == 0, "%s: %s", path, err.msg))
		return;
	uint64_t t0 = pb_now_ns();
	const struct pb_symbol_alias_table *t = pb_prof_object_aliases(o);
	uint64_t build_ns = pb_now_ns() - t0;
	CHECK(t && t->n > 0);
	/* built once: a second call returns the same table */
	CHECK(pb_prof_object_aliases(o) == t);

	/* Wherever the table has names, the symbol named is the one the chooser picks among
	 * them (the plumbing: addresses of the table and of elfutils' lookup agree). */
	size_t starts = 0, multi = 0, differ = 0;
	for (size_t i = 0, k = 1; t && i < t->n; i += k) {
		const struct pb_symbol_alias *first;
		k = pb_symbol_alias_table_at(t, t->v[i].start, &first);
		const struct pb_symbol_alias *best = pb_symbol_alias_choose(first, k);
		uint64_t start = 0;
		const char *name = best->size ? pb_prof_object_symbol(o, best->start, &start) : NULL;
		if (name && start == best->start) {
			starts++;
			multi += k > 1;
			if (strcmp(name, best->name)) {
				differ++;
				if (differ <= 5)
					fprintf(stderr, "%#" PRIx64 ": named %s, chooser %s\n",
						start, name, best->name);
			}
		}
	}
	printf("libc %s: %zu function symbols (table built in %.2f ms), %zu sized starts, "
	       "%zu with aliases\n", path, t ? t->n : 0, (double)build_ns / 1e6, starts, multi);
	CHECK(starts > 100 && multi >= 10);
	CHECK_EQ_U64(differ, 0);

	/* glibc's local names are in its debug file only (Debian's libc6-dbg) */
	const struct pb_symbol_alias *strtoll = t ? find_named(t, "____strtoll_l_internal") : NULL;
	const struct pb_symbol_alias *lock = t ? find_named(t, "pthread_mutex_lock") : NULL;
	if (!strtoll || !lock) {
		pb_skip_checks(DEBUG_FILE_CHECKS, "%s's symbol table has no ____strtoll_l_internal "
			       "or pthread_mutex_lock (no debug file: libc6-dbg)", path);
		pb_prof_object_close(o);
		return;
	}
	uint64_t start = 0;
	const char *name = pb_prof_object_symbol(o, strtoll->start + 1, &start);
	CHECK_EQ_U64(start, strtoll->start);
	CHECK_MSG(name && !strcmp(name, "__GI_____strtoll_l_internal"), "strtoll: %s", name);

	const struct pb_symbol_alias *first;
	size_t k = pb_symbol_alias_table_at(t, lock->start, &first);
	CHECK_MSG(k >= 3, "%zu names at pthread_mutex_lock", k);
	name = pb_prof_object_symbol(o, lock->start, &start);
	CHECK_EQ_U64(start, lock->start);
	CHECK_MSG(name && !strcmp(name, lock->name), "pthread_mutex_lock: %s", name);
	pb_prof_object_close(o);
}

int main(void)
{
	test_rules();
	test_table();
	test_libc();
	return pb_check_done("symbol_alias");
}
