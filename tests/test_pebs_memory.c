/* Memory sample data sources (perfdata/data_src.h) and their path through perf.data.
 * 1. The decoder on constructed values: every field of union perf_mem_data_src lands where
 *    the kernel puts it, and the data sources the kernel's PEBS code builds (ds.c
 *    pebs_data_source[], load latency TLB / lock / blocked bits, precise stores), AMD IBS- and
 *    hop-shaped values and the corner cases print what perf 6.1 prints.
 * 2. Totality: random u64s format without a crash into any buffer length, the text cut
 *    exactly where the buffer ends and the length returned always the same.
 * 3. Conformance: a perf.data written with pesbench's writer holding PEBS-shaped samples (ip,
 *    addr, weight, data_src: loads and stores, L1/LFB/L2/L3/RAM/remote, snoops, TLB, lock,
 *    blk, plus sparse random values) must print, sample by sample and field by field, the
 *    same in `perf script -F ip,addr,weight,data_src` and `pesbench perfdata --dump`; the
 *    same with WEIGHT_STRUCT (weight and ins_lat). The per-data-source table of the summary
 *    (text and --json) must count the constructed samples per level with their mean weight.
 *    Without perf the test ends there, skipped (77). */
#include "check.h"
#include "perfdata/data_src.h"
#include "perfdata/perfdata.h"
#include "util/kit.h"
#include "util/rng.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define P(a, b) PERF_MEM_S(a, b)
#define LEVEL(x) P(LVLNUM, x)
#define REM P(REMOTE, REMOTE)
#define OP_LH (P(OP, LOAD) | P(LVL, HIT))
/* load latency: the TLB, lock and blocked bits ds.c adds to pebs_data_source[] */
#define TLB_HIT (P(TLB, HIT) | P(TLB, L1) | P(TLB, L2))
#define TLB_MISS (P(TLB, MISS) | P(TLB, L2))
#define HOPS(n) ((uint64_t)(n) << PERF_MEM_HOPS_SHIFT)
#define BLK(x) P(BLK, x)

static char tmpdir[] = "/tmp/pb_pebs_memory_XXXXXX";

static struct pb_rng rng = {0x2545f4914f6cdd1d};

static uint64_t rnd(void)
{
	return pb_rng_next(&rng);
}

/* A data source, what perf 6.1 prints for it, and its op / level (the table's row). */
struct known {
	uint64_t v;
	const char *text;
	const char *op, *lvl;
};

static const struct known known[] = {
	/* the kernel's pebs_data_source[] entries with load-latency TLB / lock / blk bits */
	{P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA) | TLB_HIT | P(LOCK, NA) | BLK(NA),
	 "|OP LOAD|LVL L3 miss|SNP N/A|TLB L1 or L2 hit|LCK N/A|BLK  N/A", "LOAD", "L3 miss"},
	{OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE) | TLB_HIT | BLK(NA),
	 "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A", "LOAD",
	 "L1 or L1 hit"},
	{OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE) | TLB_HIT | BLK(DATA),
	 "|OP LOAD|LVL LFB/MAB or LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  Data",
	 "LOAD", "LFB/MAB or LFB/MAB hit"},
	{OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE) | TLB_MISS | BLK(ADDR),
	 "|OP LOAD|LVL L2 or L2 hit|SNP None|TLB L2 miss|LCK No|BLK  Addr", "LOAD",
	 "L2 or L2 hit"},
	{OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE) | TLB_HIT | BLK(DATA) | BLK(ADDR),
	 "|OP LOAD|LVL L3 or L3 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  Data Addr", "LOAD",
	 "L3 or L3 hit"},
	{OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, MISS) | TLB_MISS | P(LOCK, LOCKED),
	 "|OP LOAD|LVL L3 or L3 hit|SNP Miss|TLB L2 miss|LCK Yes|BLK  N/A", "LOAD",
	 "L3 or L3 hit"},
	{OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT) | TLB_HIT,
	 "|OP LOAD|LVL L3 or L3 hit|SNP Hit|TLB L1 or L2 hit|LCK No|BLK  N/A", "LOAD",
	 "L3 or L3 hit"},
	{OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM) | TLB_HIT | P(LOCK, LOCKED),
	 "|OP LOAD|LVL L3 or L3 hit|SNP HitM|TLB L1 or L2 hit|LCK Yes|BLK  N/A", "LOAD",
	 "L3 or L3 hit"},
	{OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HIT) | TLB_MISS,
	 "|OP LOAD|LVL Remote Remote Cache (1 hop) or L3 hit|SNP Hit|TLB L2 miss|LCK No|BLK  N/A",
	 "LOAD", "Remote Remote Cache (1 hop) or L3 hit"},
	{OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HITM) | TLB_HIT,
	 "|OP LOAD|LVL Remote Remote Cache (1 hop) or L3 hit|SNP HitM|TLB L1 or L2 hit|LCK No|BLK  N/A",
	 "LOAD", "Remote Remote Cache (1 hop) or L3 hit"},
	{OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT) | TLB_HIT,
	 "|OP LOAD|LVL Local RAM or RAM hit|SNP Hit|TLB L1 or L2 hit|LCK No|BLK  N/A", "LOAD",
	 "Local RAM or RAM hit"},
	{OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE) | P(SNOOP, MISS) | TLB_MISS,
	 "|OP LOAD|LVL Local RAM or RAM hit|SNP None or Miss|TLB L2 miss|LCK No|BLK  N/A", "LOAD",
	 "Local RAM or RAM hit"},
	{OP_LH | P(LVL, REM_RAM1) | LEVEL(RAM) | REM | P(SNOOP, NONE) | P(SNOOP, MISS) | TLB_HIT,
	 "|OP LOAD|LVL Remote Remote RAM (1 hop) or RAM hit|SNP None or Miss|TLB L1 or L2 hit|LCK No|BLK  N/A",
	 "LOAD", "Remote Remote RAM (1 hop) or RAM hit"},
	{OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE) | TLB_HIT,
	 "|OP LOAD|LVL I/O or N/A hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A", "LOAD",
	 "I/O or N/A hit"},
	{OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE) | TLB_HIT,
	 "|OP LOAD|LVL Uncached or N/A hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A", "LOAD",
	 "Uncached or N/A hit"},
	/* precise stores (Skylake and later): L1 hit or miss, the STLB bit */
	{P(OP, STORE) | P(SNOOP, NA) | P(LVL, HIT) | P(LVL, L1) | LEVEL(L1) | TLB_HIT,
	 "|OP STORE|LVL L1 or L1 hit|SNP N/A|TLB L1 or L2 hit|LCK No|BLK  N/A", "STORE",
	 "L1 or L1 hit"},
	{P(OP, STORE) | P(SNOOP, NA) | P(LVL, MISS) | P(LVL, L1) | LEVEL(L1) | TLB_MISS,
	 "|OP STORE|LVL L1 or L1 miss|SNP N/A|TLB L2 miss|LCK No|BLK  N/A", "STORE",
	 "L1 or L1 miss"},
	/* pre-Skylake stores: the older namespace only */
	{P(OP, STORE) | P(SNOOP, NA) | P(LVL, L1) | P(LVL, HIT) | P(TLB, L1) | P(TLB, HIT) |
		 P(LOCK, LOCKED),
	 "|OP STORE|LVL L1 hit|SNP N/A|TLB L1 hit|LCK Yes|BLK  N/A", "STORE", "L1 hit"},
	/* hop counts, the peer / forward snoops, level numbers 6.1 does not name */
	{OP_LH | REM | HOPS(PERF_MEM_HOPS_1) | LEVEL(ANY_CACHE) | P(SNOOP, HIT) |
		 ((uint64_t)PERF_MEM_SNOOPX_PEER << PERF_MEM_SNOOPX_SHIFT),
	 "|OP LOAD|LVL Remote node, same socket Any cache hit|SNP Hit or Peer|TLB N/A|LCK No|BLK  N/A",
	 "LOAD", "Remote node, same socket Any cache hit"},
	{OP_LH | HOPS(PERF_MEM_HOPS_0) | P(LVL, L2) | P(SNOOPX, FWD) | P(TLB, WK) | P(TLB, MISS),
	 "|OP LOAD|LVL core, same node  hit|SNP Fwd|TLB Walker miss|LCK No|BLK  N/A", "LOAD",
	 "core, same node  hit"},
	{P(OP, PFETCH) | P(LVL, NA) | LEVEL(CXL) | P(TLB, OS),
	 "|OP PFETCH|LVL N/A or CXL|SNP N/A|TLB Fault|LCK No|BLK  N/A", "PFETCH", "N/A or CXL"},
	{P(OP, EXEC) | LEVEL(L4) | P(LVL, HIT) | P(LOCK, NA),
	 "|OP EXEC|LVL L4 hit|SNP N/A|TLB N/A|LCK N/A|BLK  N/A", "EXEC", "L4 hit"},
	{P(OP, LOAD) | (7ull << PERF_MEM_LVLNUM_SHIFT) | P(LVL, MISS) | P(LVL, HIT),
	 "|OP LOAD|LVL L7 hit miss|SNP N/A|TLB N/A|LCK No|BLK  N/A", "LOAD", "L7 hit miss"},
	/* nothing set, everything N/A */
	{0, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A", "No", "N/A"},
	{P(OP, NA) | P(LVL, NA) | P(SNOOP, NA) | P(LOCK, NA) | P(TLB, NA) | BLK(NA),
	 "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A", "N/A", "N/A"},
};
#define NKNOWN (PB_ARRAY_SIZE(known))

/* ---- 1. constructed values ---- */

static void test_fields(void)
{
	struct pb_mem_src m;
	uint64_t v = P(OP, STORE) | P(LVL, REM_CCE2) | P(SNOOP, HITM) | P(LOCK, LOCKED) |
		     P(TLB, WK) | LEVEL(PMEM) | REM | P(SNOOPX, FWD) | BLK(ADDR) |
		     HOPS(PERF_MEM_HOPS_3) | (0x2abcdull << 46);
	pb_mem_data_src_decode(v, &m);
	CHECK_EQ_U64(m.op, PERF_MEM_OP_STORE);
	CHECK_EQ_U64(m.lvl, PERF_MEM_LVL_REM_CCE2);
	CHECK_EQ_U64(m.snoop, PERF_MEM_SNOOP_HITM);
	CHECK_EQ_U64(m.lock, PERF_MEM_LOCK_LOCKED);
	CHECK_EQ_U64(m.dtlb, PERF_MEM_TLB_WK);
	CHECK_EQ_U64(m.lvl_num, PERF_MEM_LVLNUM_PMEM);
	CHECK_EQ_U64(m.remote, 1);
	CHECK_EQ_U64(m.snoopx, PERF_MEM_SNOOPX_FWD);
	CHECK_EQ_U64(m.blk, PERF_MEM_BLK_ADDR);
	CHECK_EQ_U64(m.hops, PERF_MEM_HOPS_3);
	CHECK_EQ_U64(m.rsvd, 0x2abcd);
	/* every field at its widest: no bit leaks into a neighbour */
	pb_mem_data_src_decode(~0ull, &m);
	CHECK_EQ_U64(m.op, 0x1f);
	CHECK_EQ_U64(m.lvl, 0x3fff);
	CHECK_EQ_U64(m.snoop, 0x1f);
	CHECK_EQ_U64(m.lock, 3);
	CHECK_EQ_U64(m.dtlb, 0x7f);
	CHECK_EQ_U64(m.lvl_num, 0xf);
	CHECK_EQ_U64(m.remote, 1);
	CHECK_EQ_U64(m.snoopx, 3);
	CHECK_EQ_U64(m.blk, 7);
	CHECK_EQ_U64(m.hops, 7);
	CHECK_EQ_U64(m.rsvd, 0x3ffff);
	/* one bit at a time: each lands in exactly one field, at the right place */
	for (unsigned b = 0; b < 64; b++) {
		pb_mem_data_src_decode(1ull << b, &m);
		uint64_t back = (uint64_t)m.op << PERF_MEM_OP_SHIFT |
				(uint64_t)m.lvl << PERF_MEM_LVL_SHIFT |
				(uint64_t)m.snoop << PERF_MEM_SNOOP_SHIFT |
				(uint64_t)m.lock << PERF_MEM_LOCK_SHIFT |
				(uint64_t)m.dtlb << PERF_MEM_TLB_SHIFT |
				(uint64_t)m.lvl_num << PERF_MEM_LVLNUM_SHIFT |
				(uint64_t)m.remote << PERF_MEM_REMOTE_SHIFT |
				(uint64_t)m.snoopx << PERF_MEM_SNOOPX_SHIFT |
				(uint64_t)m.blk << PERF_MEM_BLK_SHIFT |
				(uint64_t)m.hops << PERF_MEM_HOPS_SHIFT | (uint64_t)m.rsvd << 46;
		CHECK_EQ_U64(back, 1ull << b);
	}
}

static void test_known(void)
{
	char buf[PB_MEM_SRC_TEXT_MAX];
	for (size_t i = 0; i < NKNOWN; i++) {
		size_t n = pb_mem_data_src_format(known[i].v, buf, sizeof buf);
		if (strcmp(buf, known[i].text))
			fprintf(stderr, "%#" PRIx64 ":\n  got  %s\n  want %s\n", known[i].v, buf,
				known[i].text);
		CHECK(!strcmp(buf, known[i].text));
		CHECK_EQ_U64(n, strlen(known[i].text));
		struct pb_mem_src m;
		pb_mem_data_src_decode(known[i].v, &m);
		pb_mem_op_format(&m, buf, sizeof buf);
		CHECK(!strcmp(buf, known[i].op));
		pb_mem_lvl_format(&m, buf, sizeof buf);
		if (strcmp(buf, known[i].lvl))
			fprintf(stderr, "level of %#" PRIx64 ": got '%s', want '%s'\n", known[i].v, buf,
				known[i].lvl);
		CHECK(!strcmp(buf, known[i].lvl));
	}
	/* hop counts 5-7 (perf reads past its table): named by number */
	pb_mem_data_src_format(P(OP, LOAD) | HOPS(6) | LEVEL(RAM), buf, sizeof buf);
	CHECK_STR_CONTAINS(buf, "|LVL hops 6 RAM|");
}

/* ---- 2. totality ---- */

static void test_total(void)
{
	char full[PB_MEM_SRC_TEXT_MAX], cut[PB_MEM_SRC_TEXT_MAX + 8];
	size_t longest = 0;
	unsigned bad_len = 0, bad_cut = 0;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t v = i < 4 ? (uint64_t[]){0, ~0ull, 1ull << 63, 0x5555555555555555ull}[i]
				   : rnd();
		size_t n = pb_mem_data_src_format(v, full, sizeof full);
		bad_len += n != strlen(full) || n >= sizeof full;
		if (n > longest)
			longest = n;
		size_t len = (size_t)(rnd() % (n + 2));
		memset(cut, 'x', sizeof cut);
		size_t m = pb_mem_data_src_format(v, len ? cut : NULL, len);
		bad_cut += m != n;
		if (len) {
			/* the text up to the buffer's end, NUL-terminated, nothing written after */
			bad_cut += strlen(cut) != (len - 1 < n ? len - 1 : n);
			bad_cut += strncmp(cut, full, strlen(cut)) != 0;
			bad_cut += cut[len] != 'x';
		}
	}
	/* all 14 levels, both hit and miss, a level number: the longest a level gets */
	size_t n = pb_mem_data_src_format(~0ull & ~(7ull << PERF_MEM_HOPS_SHIFT), full, sizeof full);
	fprintf(stderr, "longest random text %zu, all bits but hops %zu: %s\n", longest, n, full);
	CHECK(n < PB_MEM_SRC_TEXT_MAX);
	CHECK_STR_CONTAINS(full, "|LVL Remote N/A or L1 or LFB/MAB or L2 or L3 or Local RAM or ");
	CHECK_STR_CONTAINS(full, " or Uncached or N/A hit miss|SNP N/A or None or Hit or Miss or "
				 "HitM or Fwd or Peer|TLB N/A or L1 or L2 or Walker or Fault hit "
				 "miss|LCK N/A|BLK  N/A");
	CHECK_EQ_U64(bad_len, 0);
	CHECK_EQ_U64(bad_cut, 0);
}

/* ---- 3. perf.data through perf script and pesbench perfdata --dump ---- */

#define NSAMPLES 1200
#define STRUCT_SAMPLES 200

struct expect {
	uint64_t ip, addr, weight, data_src;
	uint16_t ins_lat;
};

static struct expect want[NSAMPLES];

/* Random data sources with few bits per field: what hardware reports, and short enough for
 * perf's 99-character line; hop counts 0-4 only (perf reads past its table above). */
static uint64_t sparse_data_src(void)
{
	static const struct { unsigned shift, width, maxbits; } f[] = {
		{PERF_MEM_OP_SHIFT, 5, 1},     {PERF_MEM_LVL_SHIFT, 14, 2},
		{PERF_MEM_SNOOP_SHIFT, 5, 2},  {PERF_MEM_LOCK_SHIFT, 2, 1},
		{PERF_MEM_TLB_SHIFT, 7, 2},    {PERF_MEM_SNOOPX_SHIFT, 2, 1},
		{PERF_MEM_BLK_SHIFT, 3, 2},
	};
	uint64_t v = 0;
	for (size_t i = 0; i < PB_ARRAY_SIZE(f); i++) {
		unsigned k = (unsigned)(rnd() % (f[i].maxbits + 1));
		while (k--)
			v |= 1ull << (f[i].shift + rnd() % f[i].width);
	}
	if (rnd() % 2)
		v |= (rnd() % 16) << PERF_MEM_LVLNUM_SHIFT;
	if (rnd() % 4 == 0)
		v |= REM;
	if (rnd() % 4 == 0)
		v |= HOPS(rnd() % 5);
	if (rnd() % 8 == 0)
		v |= (rnd() & 0x3ffff) << 46;
	return v;
}

static char *run_capture(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, k;
	char *buf = malloc(cap);
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (cap - n < 4096)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	int st = pclose(f);
	if (st != 0)
		fprintf(stderr, "`%s` exited with status %d\n", cmd, st);
	return buf;
}

static void write_file(const char *path, bool weight_struct, size_t n)
{
	struct pb_error err = {0};
	struct pb_perfdata_writer *w;
	struct perf_event_attr a = {0};
	/* cpu/mem-loads,ldlat=30/P as perf mem record asks for it */
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	a.config1 = 30;
	a.precise_ip = 2;
	a.sample_period = 4000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
			(weight_struct ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT);
	a.sample_id_all = 1;
	a.exclude_kernel = 1;
	CHECK(pb_perfdata_writer_open(path, &w, &err) == 0);
	CHECK(pb_perfdata_writer_add_event(w, &a, "cpu/mem-loads,ldlat=30/P", NULL, 0, &err) == 0);
	pb_perfdata_writer_clear_pmus(w);
	pb_perfdata_writer_add_pmu(w, PERF_TYPE_RAW, "cpu");
	pb_perfdata_writer_add_pmu(w, PERF_TYPE_SOFTWARE, "software");
	CHECK(pb_perfdata_writer_comm(w, 4242, 4242, "memgen", &err) == 0);
	for (size_t i = 0; i < n; i++) {
		struct expect *e = &want[i];
		e->ip = 0x401000 + 4 * (rnd() % 4096);
		e->addr = 0x7ffd00000000ull + 8 * (rnd() % (1u << 24));
		/* the constructed sources twice each, then random ones */
		e->data_src = i < 2 * NKNOWN ? known[i % NKNOWN].v : sparse_data_src();
		e->weight = i < 2 * NKNOWN ? 10 * (i % NKNOWN) + 3 + i / NKNOWN
					   : rnd() % 2000 + (rnd() % 16 == 0 ? rnd() % 100000 : 0);
		e->ins_lat = weight_struct ? (uint16_t)rnd() : 0;
		struct pb_sample s = {.misc = PERF_RECORD_MISC_USER, .pid = 4242, .tid = 4242,
				      .time = 1000000 + 1000 * i, .ip = e->ip, .addr = e->addr,
				      .data_src = e->data_src};
		/* WEIGHT_STRUCT: var1_dw the latency, var2_w the instruction latency, var3_w
		 * random (retire latency): perf must not read it as part of the weight */
		s.weight = weight_struct ? (e->weight & 0xffffffff) | (uint64_t)e->ins_lat << 32 |
						   (rnd() & 0xffff) << 48
					 : e->weight;
		CHECK_EQ_U64(pb_perfdata_writer_sample(w, 0, &s, &err), 0);
	}
	CHECK(pb_perfdata_writer_close(w, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
}

struct line_fields {
	uint64_t ip, addr, weight, data_src;
	long ins_lat;    /* -1: not on the line */
	char text[PB_MEM_SRC_TEXT_MAX];
};

static void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = '\0';
}

/* `perf script -F ip,addr,weight,data_src[,ins_lat]` (6.1) prints, in its own order:
 * addr "%16lx", data_src "%16lx" right after it, " " and the decoded text padded to the
 * longest so far, weight "%16lu", [ins_lat "%16u"], then the ip. */
static bool parse_perf_line(char *l, bool with_ins_lat, struct line_fields *f)
{
	if (strlen(l) < 34)
		return false;
	char hex[17];
	memcpy(hex, l, 16);
	hex[16] = '\0';
	f->addr = strtoull(hex, NULL, 16);
	memcpy(hex, l + 16, 16);
	f->data_src = strtoull(hex, NULL, 16);
	char *text = l + 33;
	rtrim(text);
	/* the last fields, from the right */
	unsigned tail = with_ins_lat ? 3 : 2;
	uint64_t vals[3];
	for (unsigned k = 0; k < tail; k++) {
		char *sp = strrchr(text, ' ');
		if (!sp)
			return false;
		vals[k] = strtoull(sp + 1, NULL, k == 0 ? 16 : 10);
		*sp = '\0';
		rtrim(text);
	}
	f->ip = vals[0];
	f->ins_lat = with_ins_lat ? (long)vals[1] : -1;
	f->weight = vals[tail - 1];
	snprintf(f->text, sizeof f->text, "%s", text);
	return true;
}

/* "sample event=0 ip=0x.. pid=.. tid=.. time=.. addr=0x.. period=.. weight=N [ins_lat=N
 * retire_lat=N] data_src=0x.. TEXT" */
static bool parse_pb_line(char *l, struct line_fields *f)
{
	char *p;
	if (strncmp(l, "sample ", 7))
		return false;
	char *ds = strstr(l, " data_src=0x");
	if (!ds)
		return false;
	*ds = '\0';
	f->data_src = strtoull(ds + 12, &p, 16);
	if (*p != ' ')
		return false;
	snprintf(f->text, sizeof f->text, "%s", p + 1);
	rtrim(f->text);
	if (!(p = strstr(l, " ip=0x")))
		return false;
	f->ip = strtoull(p + 6, NULL, 16);
	if (!(p = strstr(l, " addr=0x")))
		return false;
	f->addr = strtoull(p + 8, NULL, 16);
	if (!(p = strstr(l, " weight=")))
		return false;
	f->weight = strtoull(p + 8, NULL, 10);
	p = strstr(l, " ins_lat=");
	f->ins_lat = p ? strtol(p + 9, NULL, 10) : -1;
	return true;
}

/* perf 6.1 cuts its data_src column at 99 characters: 17 for the value, 82 for the text. */
#define PERF_TEXT_MAX 82

static void compare_with_perf(const char *path, const char *bin, bool weight_struct, size_t n)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "perf script -i '%s' -F ip,addr,weight,data_src%s 2>&1", path,
		 weight_struct ? ",ins_lat" : "");
	char *perf = run_capture(cmd);
	snprintf(cmd, sizeof cmd, "'%s' perfdata '%s' --dump", bin, path);
	char *ours = run_capture(cmd);
	if (!perf || !ours) {
		CHECK(perf && ours);
		free(perf);
		free(ours);
		return;
	}
	char *sp = NULL, *so = NULL;
	char *lp = strtok_r(perf, "\n", &sp);
	size_t i = 0, perf_lines = 0, bad = 0, cut = 0, compared_text = 0;
	char *lo = strtok_r(ours, "\n", &so);
	for (; lp || lo; i++) {
		while (lo && strncmp(lo, "sample ", 7))
			lo = strtok_r(NULL, "\n", &so);
		if (!lp || !lo)
			break;
		perf_lines++;
		struct line_fields a = {0}, b = {0};
		bool ok = parse_perf_line(lp, weight_struct, &a) && parse_pb_line(lo, &b);
		if (!ok) {
			if (bad++ < 5)
				fprintf(stderr, "sample %zu: lines do not parse:\n  perf:     %s\n"
						"  pesbench: %s\n", i, lp, lo);
		} else {
			const struct expect *e = i < n ? &want[i] : NULL;
			/* text: equal, or perf's cut copy of ours */
			bool text_ok;
			if (strlen(b.text) > PERF_TEXT_MAX) {
				char prefix[PERF_TEXT_MAX + 1];
				memcpy(prefix, b.text, PERF_TEXT_MAX);
				prefix[PERF_TEXT_MAX] = '\0';
				rtrim(prefix);
				text_ok = !strcmp(prefix, a.text);
				cut++;
			} else {
				text_ok = !strcmp(a.text, b.text);
				compared_text++;
			}
			bool same = a.ip == b.ip && a.addr == b.addr && a.weight == b.weight &&
				    a.data_src == b.data_src && a.ins_lat == b.ins_lat && text_ok;
			bool as_written = e && e->ip == b.ip && e->addr == b.addr &&
					  e->weight == b.weight && e->data_src == b.data_src &&
					  (!weight_struct || b.ins_lat == e->ins_lat);
			if (!same || !as_written) {
				if (bad++ < 10)
					fprintf(stderr,
						"sample %zu differs%s:\n  perf:     ip=%#" PRIx64
						" addr=%#" PRIx64 " weight=%" PRIu64 " ins_lat=%ld "
						"data_src=%#" PRIx64 " %s\n  pesbench: ip=%#" PRIx64
						" addr=%#" PRIx64 " weight=%" PRIu64 " ins_lat=%ld "
						"data_src=%#" PRIx64 " %s\n", i,
						as_written ? "" : " (or from what was written)", a.ip,
						a.addr, a.weight, a.ins_lat, a.data_src, a.text, b.ip,
						b.addr, b.weight, b.ins_lat, b.data_src, b.text);
			}
		}
		lp = strtok_r(NULL, "\n", &sp);
		lo = strtok_r(NULL, "\n", &so);
	}
	fprintf(stderr, "%s: %zu samples compared, %zu texts whole, %zu cut by perf, %zu differ\n",
		path, perf_lines, compared_text, cut, bad);
	CHECK_EQ_U64(perf_lines, n);
	CHECK_EQ_U64(i, n);
	CHECK_EQ_U64(bad, 0);
	/* the constructed values all fit perf's line: each is compared in full */
	CHECK(compared_text >= 2 * NKNOWN);
	if (perf_lines != n)
		fprintf(stderr, "perf script printed:\n%.2000s\n", perf);
	free(perf);
	free(ours);
}

/* The summary's per-data-source table: the known sources only (the first 2 * NKNOWN
 * samples of a file of that many). */
static void check_table(const char *path, const char *bin)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "'%s' perfdata '%s' --json", bin, path);
	char *json = run_capture(cmd);
	snprintf(cmd, sizeof cmd, "'%s' perfdata '%s'", bin, path);
	char *text = run_capture(cmd);
	CHECK(json && text);
	if (!json || !text) {
		free(json);
		free(text);
		return;
	}
	char want_total[64];
	snprintf(want_total, sizeof want_total, "\"data_source_samples\": %zu", 2 * NKNOWN);
	CHECK_STR_CONTAINS(json, want_total);
	snprintf(want_total, sizeof want_total, "%zu samples with a data source", 2 * NKNOWN);
	CHECK_STR_CONTAINS(text, want_total);
	/* per (op, level): samples and the mean weight of the constructed weights */
	for (size_t i = 0; i < NKNOWN; i++) {
		uint64_t count = 0, sum = 0;
		bool first = true;
		for (size_t k = 0; k < NKNOWN; k++) {
			if (strcmp(known[k].op, known[i].op) || strcmp(known[k].lvl, known[i].lvl))
				continue;
			if (k < i)
				first = false;
			count += 2;
			sum += want[k].weight + want[k + NKNOWN].weight;
		}
		if (!first)
			continue;
		char row[512];
		snprintf(row, sizeof row, " %12" PRIu64 " %7.3f%% %12.1f  %-6s  %s\n", count,
			 100.0 * (double)count / (double)(2 * NKNOWN), (double)sum / (double)count,
			 known[i].op, known[i].lvl);
		CHECK_STR_CONTAINS(text, row);
		snprintf(row, sizeof row,
			 "\"op\": \"%s\",\n          \"level\": \"%s\",\n          \"samples\": %" PRIu64
			 ",\n          \"weighted_samples\": %" PRIu64, known[i].op, known[i].lvl, count,
			 count);
		CHECK_STR_CONTAINS(json, row);
	}
	free(json);
	free(text);
}

int main(void)
{
	test_fields();
	test_known();
	test_total();

	if (!mkdtemp(tmpdir))
		pb_skip("cannot create a temporary folder: %s", strerror(errno));
	char path[256];
	/* the writer and reader, without perf */
	snprintf(path, sizeof path, "%s/table.data", tmpdir);
	write_file(path, false, 2 * NKNOWN);
	const char *bin = getenv("PB_BIN");
	if (bin)
		check_table(path, bin);
	else
		pb_skip_checks(1, "PB_BIN is not set: the CLI's data source table is not checked");

	bool have_perf = system("perf version >/dev/null 2>&1") == 0;
	if (have_perf && bin) {
		snprintf(path, sizeof path, "%s/mem.data", tmpdir);
		write_file(path, false, NSAMPLES);
		compare_with_perf(path, bin, false, NSAMPLES);
		snprintf(path, sizeof path, "%s/mem_struct.data", tmpdir);
		write_file(path, true, STRUCT_SAMPLES);
		compare_with_perf(path, bin, true, STRUCT_SAMPLES);
	}
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (getenv("PB_KEEP_TMP") == NULL && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	if (!have_perf)
		pb_skip("perf is not installed: pesbench's dump is not compared with perf script");
	if (!bin)
		pb_skip("PB_BIN is not set: pesbench perfdata --dump is not compared with perf");
	return pb_check_done("pebs_memory");
}
