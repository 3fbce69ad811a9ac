/* Memory sample data sources. Field layout: union perf_mem_data_src (linux/perf_event.h); names
 * and print rules: perf 6.1 tools/perf/util/mem-events.c (perf_script__meminfo_scnprintf and the
 * perf_mem__*_scnprintf it calls), which this machine's perf runs. */
#include "facilities/pebs_memory.h"
#include "util/kit.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>

/* Older uapi headers lack the later fields; their values are fixed by the ABI. */
#ifndef PERF_MEM_LVLNUM_CXL
#define PERF_MEM_LVLNUM_CXL 0x09
#endif
#ifndef PERF_MEM_LVLNUM_IO
#define PERF_MEM_LVLNUM_IO 0x0a
#endif
#ifndef PERF_MEM_SNOOPX_PEER
#define PERF_MEM_SNOOPX_PEER 0x02
#endif
#ifndef PERF_MEM_BLK_SHIFT
#define PERF_MEM_BLK_NA 0x01
#define PERF_MEM_BLK_DATA 0x02
#define PERF_MEM_BLK_ADDR 0x04
#define PERF_MEM_BLK_SHIFT 40
#endif
#ifndef PERF_MEM_HOPS_SHIFT
#define PERF_MEM_HOPS_SHIFT 43
#endif

static unsigned field(uint64_t v, unsigned shift, unsigned width)
{
	return (unsigned)((v >> shift) & ((1u << width) - 1));
}

void pb_mem_data_src_decode(uint64_t v, struct pb_mem_src *out)
{
	out->op = (uint8_t)field(v, PERF_MEM_OP_SHIFT, 5);
	out->lvl = (uint16_t)field(v, PERF_MEM_LVL_SHIFT, 14);
	out->snoop = (uint8_t)field(v, PERF_MEM_SNOOP_SHIFT, 5);
	out->lock = (uint8_t)field(v, PERF_MEM_LOCK_SHIFT, 2);
	out->dtlb = (uint8_t)field(v, PERF_MEM_TLB_SHIFT, 7);
	out->lvl_num = (uint8_t)field(v, PERF_MEM_LVLNUM_SHIFT, 4);
	out->remote = (uint8_t)field(v, PERF_MEM_REMOTE_SHIFT, 1);
	out->snoopx = (uint8_t)field(v, PERF_MEM_SNOOPX_SHIFT, 2);
	out->blk = (uint8_t)field(v, PERF_MEM_BLK_SHIFT, 3);
	out->hops = (uint8_t)field(v, PERF_MEM_HOPS_SHIFT, 3);
	out->rsvd = (uint32_t)(v >> 46);
}

/* snprintf that keeps counting past the end, so every formatter returns the length needed. */
struct text {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = t->used < t->len ? t->len - t->used : 0;
	int n = vsnprintf(room ? t->buf + t->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->used += (size_t)n;
}

static struct text text_begin(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	return (struct text){.buf = buf, .len = len};
}

/* perf's lists: one name per set bit from bit 0, " or " between them. */
static unsigned put_bits(struct text *t, unsigned bits, const char *const *names, size_t nnames,
			 unsigned printed)
{
	for (size_t i = 0; bits && i < nnames; i++, bits >>= 1) {
		if (!(bits & 1))
			continue;
		put(t, "%s%s", printed++ ? " or " : "", names[i]);
	}
	return printed;
}

size_t pb_mem_op_format(const struct pb_mem_src *m, char *buf, size_t len)
{
	struct text t = text_begin(buf, len);
	/* the first bit that is set wins, NA first */
	if (m->op & PERF_MEM_OP_NA)
		put(&t, "N/A");
	else if (m->op & PERF_MEM_OP_LOAD)
		put(&t, "LOAD");
	else if (m->op & PERF_MEM_OP_STORE)
		put(&t, "STORE");
	else if (m->op & PERF_MEM_OP_PFETCH)
		put(&t, "PFETCH");
	else if (m->op & PERF_MEM_OP_EXEC)
		put(&t, "EXEC");
	else
		put(&t, "No");
	return t.used;
}

static const char *const mem_lvl[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};

/* The level numbers perf 6.1 (with the stable backports Debian ships) names; the others print
 * as "L<n>". */
static const char *lvl_num_name(unsigned n)
{
	switch (n) {
	case PERF_MEM_LVLNUM_CXL: return "CXL";
	case PERF_MEM_LVLNUM_IO: return "I/O";
	case PERF_MEM_LVLNUM_ANY_CACHE: return "Any cache";
	case PERF_MEM_LVLNUM_LFB: return "LFB/MAB";
	case PERF_MEM_LVLNUM_RAM: return "RAM";
	case PERF_MEM_LVLNUM_PMEM: return "PMEM";
	case PERF_MEM_LVLNUM_NA: return "N/A";
	default: return NULL;
	}
}

static const char *const mem_hops[] = {
	"N/A", "core, same node", "node, same socket", "socket, same board", "board",
};

/* perf 6.1 mixes both namespaces: "Remote " when the remote bit is set; the hop count instead
 * of the PERF_MEM_LVL bits when there is one; then the level number after " or "; N/A when
 * nothing was printed; " hit" and " miss" (both, when both bits are). */
size_t pb_mem_lvl_format(const struct pb_mem_src *m, char *buf, size_t len)
{
	struct text t = text_begin(buf, len);
	unsigned lvl = m->lvl & ~(unsigned)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	unsigned printed = 0;
	if (m->remote)
		put(&t, "Remote ");
	if (m->hops) {
		/* perf reads past its table for 5-7 (undefined); a name that says the value */
		if (m->hops < PB_ARRAY_SIZE(mem_hops))
			put(&t, "%s ", mem_hops[m->hops]);
		else
			put(&t, "hops %u ", m->hops);
	} else {
		printed = put_bits(&t, lvl, mem_lvl, PB_ARRAY_SIZE(mem_lvl), 0);
	}
	if (m->lvl_num) {
		const char *name = lvl_num_name(m->lvl_num);
		put(&t, "%s", printed++ ? " or " : "");
		if (name)
			put(&t, "%s", name);
		else
			put(&t, "L%u", m->lvl_num);
	}
	if (t.used == 0)
		put(&t, "N/A");
	if (m->lvl & PERF_MEM_LVL_HIT)
		put(&t, " hit");
	if (m->lvl & PERF_MEM_LVL_MISS)
		put(&t, " miss");
	return t.used;
}

static const char *const snoop_access[] = {"N/A", "None", "Hit", "Miss", "HitM"};
static const char *const snoopx_access[] = {"Fwd", "Peer"};

size_t pb_mem_snoop_format(const struct pb_mem_src *m, char *buf, size_t len)
{
	struct text t = text_begin(buf, len);
	unsigned printed = put_bits(&t, m->snoop, snoop_access, PB_ARRAY_SIZE(snoop_access), 0);
	put_bits(&t, m->snoopx, snoopx_access, PB_ARRAY_SIZE(snoopx_access), printed);
	if (t.used == 0)
		put(&t, "N/A");
	return t.used;
}

static const char *const tlb_access[] = {"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"};

size_t pb_mem_tlb_format(const struct pb_mem_src *m, char *buf, size_t len)
{
	struct text t = text_begin(buf, len);
	unsigned bits = m->dtlb & ~(unsigned)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS);
	put_bits(&t, bits, tlb_access, PB_ARRAY_SIZE(tlb_access), 0);
	if (t.used == 0)
		put(&t, "N/A");
	if (m->dtlb & PERF_MEM_TLB_HIT)
		put(&t, " hit");
	if (m->dtlb & PERF_MEM_TLB_MISS)
		put(&t, " miss");
	return t.used;
}

size_t pb_mem_lock_format(const struct pb_mem_src *m, char *buf, size_t len)
{
	struct text t = text_begin(buf, len);
	if (m->lock & PERF_MEM_LOCK_NA)
		put(&t, "N/A");
	else if (m->lock & PERF_MEM_LOCK_LOCKED)
		put(&t, "Yes");
	else
		put(&t, "No");
	return t.used;
}

/* Every part perf prints here starts with a space, hence "|BLK  N/A". */
size_t pb_mem_blk_format(const struct pb_mem_src *m, char *buf, size_t len)
{
	struct text t = text_begin(buf, len);
	if (!m->blk || (m->blk & PERF_MEM_BLK_NA)) {
		put(&t, " N/A");
		return t.used;
	}
	if (m->blk & PERF_MEM_BLK_DATA)
		put(&t, " Data");
	if (m->blk & PERF_MEM_BLK_ADDR)
		put(&t, " Addr");
	return t.used;
}

size_t pb_mem_data_src_format(uint64_t v, char *buf, size_t len)
{
	struct pb_mem_src m;
	char part[PB_MEM_SRC_TEXT_MAX];
	struct text t = text_begin(buf, len);
	pb_mem_data_src_decode(v, &m);
	static const struct {
		const char *tag;
		size_t (*fn)(const struct pb_mem_src *, char *, size_t);
	} parts[] = {
		{"OP", pb_mem_op_format},     {"LVL", pb_mem_lvl_format},
		{"SNP", pb_mem_snoop_format}, {"TLB", pb_mem_tlb_format},
		{"LCK", pb_mem_lock_format},  {"BLK", pb_mem_blk_format},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(parts); i++) {
		parts[i].fn(&m, part, sizeof part);
		put(&t, "|%s %s", parts[i].tag, part);
	}
	return t.used;
}
