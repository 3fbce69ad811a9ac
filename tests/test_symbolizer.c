/* The analysis layer's histogram and symbolizer, which `pesbench perfdata` and `profile` share:
 * counts and order of the histogram, and names for addresses of this very program. */
#include "analysis/profile.h"
#include "check.h"
#include "util/kit.h"

#include <unistd.h>

static void test_histogram(void)
{
	struct pb_histogram h = {0};
	/* group 1: 0x30 three times, 0x10 and 0x20 once each; group 0: 0x99 twice */
	const uint64_t adds[][3] = {{1, 0x20, 7}, {1, 0x30, 8}, {0, 0x99, 5}, {1, 0x30, 9},
				    {1, 0x10, 4}, {0, 0x99, 6}, {1, 0x30, 1}};
	for (size_t i = 0; i < PB_ARRAY_SIZE(adds); i++)
		CHECK(pb_histogram_add(&h, adds[i][0], adds[i][1], (uint32_t)adds[i][2]) == 0);
	CHECK_EQ_U64(h.n, 4);
	pb_histogram_sort(&h);
	const uint64_t want[][4] = {{0, 0x99, 2, 5}, {1, 0x30, 3, 8}, {1, 0x10, 1, 4},
				    {1, 0x20, 1, 7}};
	for (size_t i = 0; i < 4 && i < h.n; i++) {
		CHECK_EQ_U64(h.rows[i].group, want[i][0]);
		CHECK_EQ_U64(h.rows[i].addr, want[i][1]);
		CHECK_EQ_U64(h.rows[i].count, want[i][2]);
		CHECK_EQ_U64(h.rows[i].pid, want[i][3]);   /* the first sample's */
	}
	/* sorting ends adding: the index no longer knows where a row is */
	CHECK(pb_histogram_add(&h, 1, 0x30, 1) == -1);
	pb_histogram_free(&h);

	/* count_known counts a pair only once pb_histogram_add has met it, and not after sorting */
	struct pb_histogram k = {0};
	CHECK(!pb_histogram_count_known(&k, 1, 0x30));
	CHECK_EQ_U64(k.n, 0);
	CHECK(pb_histogram_add(&k, 1, 0x30, 8) == 0);
	CHECK(pb_histogram_count_known(&k, 1, 0x30));
	CHECK(pb_histogram_count_known(&k, 1, 0x30));
	CHECK(!pb_histogram_count_known(&k, 2, 0x30));
	CHECK(!pb_histogram_count_known(&k, 1, 0x31));
	CHECK_EQ_U64(k.n, 1);
	CHECK_EQ_U64(k.rows[0].count, 3);
	CHECK_EQ_U64(k.rows[0].pid, 8);
	pb_histogram_sort(&k);
	CHECK(!pb_histogram_count_known(&k, 1, 0x30));
	CHECK_EQ_U64(k.rows[0].count, 3);
	pb_histogram_free(&k);

	/* many distinct addresses: every one kept, counts exact, whichever way a sample is counted
	 * (count_known first, as `pesbench perfdata` does, or pb_histogram_add alone) */
	struct pb_histogram big = {0};
	bool ok = true;
	for (uint64_t i = 0; i < 50000; i++) {
		uint64_t group = i % 3, addr = 0x400000 + (i % 10007) * 4;
		ok = ok && ((i % 2 && pb_histogram_count_known(&big, group, addr)) ||
			    pb_histogram_add(&big, group, addr, 1) == 0);
	}
	CHECK(ok);
	uint64_t total = 0;
	for (size_t i = 0; i < big.n; i++)
		total += big.rows[i].count;
	CHECK_EQ_U64(total, 50000);
	CHECK_EQ_U64(big.n, 30021);   /* 10007 addresses x 3 groups, all pairs met in 50000 */
	pb_histogram_free(&big);
}

static void test_symbolizer(void)
{
	struct pb_symbolizer sy = {0};
	char name[256];
	/* no mapping: no name */
	pb_symbolizer_name(&sy, 1, 0x1000, name, sizeof name);
	CHECK(!strcmp(name, ""));

	CHECK(pb_symbolizer_add_map(&sy, UINT32_MAX, 0xffffffff81000000ull, 0x1000000, 0,
				    "[kernel.kallsyms]_text", 0) == 0);
	CHECK(pb_symbolizer_add_map(&sy, 7, 0x10000, 0x1000, 0x2000, "/nonexistent/libx.so", 0) == 0);
	/* kernel mappings hold any process's IPs; one whose recording says nothing of its kernel
	 * is named by the mapping (test_kallsyms: when the running kernel's symbols name it) */
	pb_symbolizer_name(&sy, 99, 0xffffffff81000010ull, name, sizeof name);
	CHECK_MSG(!strcmp(name, "[kernel.kallsyms]"), "%s", name);
	CHECK_STR_CONTAINS(sy.kernel.note, "says neither its kernel's build id nor its release");
	/* another process's mapping does not name pid 8's IP */
	pb_symbolizer_name(&sy, 8, 0x10010, name, sizeof name);
	CHECK(!strcmp(name, ""));
	/* a file that cannot be opened: object and file offset */
	pb_symbolizer_name(&sy, 7, 0x10010, name, sizeof name);
	CHECK(!strcmp(name, "(libx.so+0x2010)"));
	size_t o;
	uint64_t addr;
	CHECK(!pb_symbolizer_resolve(&sy, 7, 0x10010, &o, &addr));
	/* the latest mapping wins */
	CHECK(pb_symbolizer_add_map(&sy, 7, 0x10000, 0x800, 0, "[anon:later]", 0) == 0);
	pb_symbolizer_name(&sy, 7, 0x10010, name, sizeof name);
	CHECK(!strcmp(name, "[anon:later]"));
	pb_symbolizer_name(&sy, 7, 0x10810, name, sizeof name);
	CHECK(!strcmp(name, "(libx.so+0x2810)"));
	/* one object per path, however many mappings name it */
	CHECK_EQ_U64(sy.nobjects, 1);
	pb_symbolizer_free(&sy);

	/* This program's own code, through its /proc/self/maps: main has a symbol. */
	struct pb_map *maps = NULL;
	size_t n = 0;
	if (!CHECK_MSG(pb_maps_read_proc(getpid(), &maps, &n) > 0, "no executable mappings"))
		return;
	struct pb_symbolizer self = {0};
	for (size_t i = 0; i < n; i++)
		CHECK(pb_symbolizer_add_map(&self, (uint32_t)getpid(), maps[i].start,
					    maps[i].end - maps[i].start, maps[i].pgoff,
					    maps[i].path, 0) == 0);
	uint64_t at = (uint64_t)(uintptr_t)&test_histogram + 2;
	pb_symbolizer_name(&self, (uint32_t)getpid(), at, name, sizeof name);
	CHECK_STR_CONTAINS(name, "test_histogram+0x2 (test_symbolizer)");
	/* a function's first instruction is +0x0, as perf script writes it, not "+0" */
	pb_symbolizer_name(&self, (uint32_t)getpid(), at - 2, name, sizeof name);
	CHECK_STR_CONTAINS(name, "test_histogram+0x0 (test_symbolizer)");
	CHECK(pb_symbolizer_resolve(&self, (uint32_t)getpid(), at, &o, &addr));
	CHECK(o < self.nobjects && self.objects[o].object != NULL);
	pb_symbolizer_free(&self);
	free(maps);
}

/* What pid's ip is named as, checked against want. */
static void named(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, const char *want)
{
	char name[256];
	pb_symbolizer_name(sy, pid, ip, name, sizeof name);
	CHECK_MSG(!strcmp(name, want), "pid %u's %#llx named \"%s\", not \"%s\"", pid,
		  (unsigned long long)ip, name, want);
}

/* A forked process names its IPs by what its parent had mapped at the fork, whatever order
 * the records came in: perf stores each CPU's ring apart, so the parent's mapping from one
 * CPU can follow the FORK another CPU recorded (a CI run of cli_perfdata_conformance split
 * three of the child's IPs off as [unknown] that way). */
static void test_forks(void)
{
	struct pb_symbolizer sy = {0};
	/* file order: the fork at t=200, then the parent's mapping of t=100, then one of t=300 */
	CHECK(pb_symbolizer_fork(&sy, 20, 10, 200) == 0);
	CHECK(pb_symbolizer_add_map(&sy, 10, 0x10000, 0x1000, 0, "[before]", 100) == 0);
	CHECK(pb_symbolizer_add_map(&sy, 10, 0x20000, 0x1000, 0, "[after]", 300) == 0);
	/* the child's own mapping, after the fork, over part of what it inherited */
	CHECK(pb_symbolizer_add_map(&sy, 20, 0x10800, 0x800, 0, "[child]", 250) == 0);
	/* a grandchild forked from the child after that */
	CHECK(pb_symbolizer_fork(&sy, 30, 20, 260) == 0);
	named(&sy, 20, 0x10010, ""); /* not settled: forks wait for the last record */
	CHECK(pb_symbolizer_settle(&sy) == 0);
	named(&sy, 20, 0x10010, "[before]");
	/* mapped after the fork: the parent's alone */
	named(&sy, 20, 0x20010, "");
	/* made later than the inherited one, so it wins */
	named(&sy, 20, 0x10810, "[child]");
	named(&sy, 10, 0x10810, "[before]");
	/* what the child inherited, passed on */
	named(&sy, 30, 0x10010, "[before]");
	named(&sy, 30, 0x10810, "[child]");
	CHECK(pb_symbolizer_settle(&sy) == 0); /* again: nothing new to apply */
	CHECK_EQ_U64(sy.nmaps, 3 + 1 + 2); /* own, the child's copy, the grandchild's two */
	pb_symbolizer_free(&sy);

	/* without times the file's order stands in: only what came before the FORK is inherited */
	struct pb_symbolizer untimed = {0};
	CHECK(pb_symbolizer_add_map(&untimed, 10, 0x10000, 0x1000, 0, "[before]", 0) == 0);
	CHECK(pb_symbolizer_fork(&untimed, 20, 10, 0) == 0);
	CHECK(pb_symbolizer_add_map(&untimed, 10, 0x20000, 0x1000, 0, "[after]", 0) == 0);
	CHECK(pb_symbolizer_add_map(&untimed, 10, 0x10000, 0x100, 0, "[over]", 0) == 0);
	CHECK(pb_symbolizer_settle(&untimed) == 0);
	named(&untimed, 20, 0x10010, "[before]");
	named(&untimed, 20, 0x20010, "");
	named(&untimed, 10, 0x10010, "[over]"); /* the latest announced still wins */
	pb_symbolizer_free(&untimed);
}

/* What pid's ip at time is named as, checked against want. */
static void named_at(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, uint64_t time,
		     const char *want)
{
	char name[256];
	pb_symbolizer_name_at(sy, pid, ip, time, name, sizeof name);
	CHECK_MSG(!strcmp(name, want), "pid %u's %#llx at %llu named \"%s\", not \"%s\"", pid,
		  (unsigned long long)ip, (unsigned long long)time, name, want);
}

/* A process unmapped a library and mapped another file at its address (dlclose and dlopen, a
 * JIT's code): a sample is named by the file mapped there at its time, not by the last one. */
static void test_remapped(void)
{
	struct pb_symbolizer sy = {0};
	/* the file gives B first: another CPU's ring */
	CHECK(pb_symbolizer_add_map(&sy, 10, 0x1000, 0x1000, 0, "/nonexistent/b.so", 100) == 0);
	CHECK(pb_symbolizer_add_map(&sy, 10, 0x1000, 0x1000, 0, "/nonexistent/a.so", 10) == 0);
	CHECK(pb_symbolizer_fork(&sy, 20, 10, 60) == 0);
	/* the eras of pid 10 as far as the mappings go: before A, A's, B's */
	uint32_t before = pb_symbolizer_era(&sy, 10, 5), a = pb_symbolizer_era(&sy, 10, 50);
	CHECK_EQ_U64(before, 0);
	CHECK(a != 0 && a == pb_symbolizer_era(&sy, 10, 10) && a == pb_symbolizer_era(&sy, 10, 99));
	CHECK(pb_symbolizer_era(&sy, 10, 100) != a && pb_symbolizer_era(&sy, 10, 100) != 0);
	CHECK_EQ_U64(pb_symbolizer_era(&sy, 10, PB_SYM_TIME_UNKNOWN), PB_SYM_ERA_UNKNOWN);
	CHECK_EQ_U64(pb_symbolizer_era(&sy, 20, 70), 0); /* the child made no mapping of its own */
	CHECK(pb_symbolizer_settle(&sy) == 0);
	named_at(&sy, 10, 0x1010, 50, "(a.so+0x10)");
	named_at(&sy, 10, 0x1010, 10, "(a.so+0x10)"); /* made at 10: holds the sample of 10 */
	named_at(&sy, 10, 0x1010, 150, "(b.so+0x10)");
	named_at(&sy, 10, 0x1010, PB_SYM_TIME_UNKNOWN, "(b.so+0x10)"); /* no time: the latest */
	named(&sy, 10, 0x1010, "(b.so+0x10)");
	/* before every mapping of the address (the CPUs' clocks disagree): the closest after */
	named_at(&sy, 10, 0x1010, 5, "(a.so+0x10)");
	/* the child holds what its parent had mapped at the fork; B came later, in the parent */
	named_at(&sy, 20, 0x1010, 70, "(a.so+0x10)");
	named_at(&sy, 20, 0x1010, 150, "(a.so+0x10)");
	named_at(&sy, 20, 0x2010, 70, "");
	size_t o;
	uint64_t addr;
	CHECK(!pb_symbolizer_resolve_at(&sy, 10, 0x1010, 50, &o, &addr)); /* no such file */
	CHECK(pb_symbolizer_map_at(&sy, 10, 0x1010, 50) != NULL &&
	      pb_symbolizer_map_at(&sy, 10, 0x1010, 50)->time == 10);
	pb_symbolizer_free(&sy);
}

int main(void)
{
	test_histogram();
	test_symbolizer();
	test_forks();
	test_remapped();
	return pb_check_done("symbolizer");
}
