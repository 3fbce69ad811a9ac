/* Memory sample data sources. Field layout: union perf_mem_data_src (linux/perf_event.h); names
 * and print rules: perf 6.1 tools/perf/util/mem-events.c (perf_script__meminfo_scnprintf and the
 * perf_mem__*_scnprintf it calls), which this machine's perf runs. */
#include "perfdata/data_src.h"
#include "util/kit.h"

#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- samples per data source ---- */

/* What of a data source names its row: the operation and the level (both namespaces, remote,
 * hops); snoop, TLB, lock and blocked bits are left out. */
#define MEM_KEY_MASK                                                                      \
	((0x1full << PERF_MEM_OP_SHIFT) | (0x3fffull << PERF_MEM_LVL_SHIFT) |               \
	 (0xfull << PERF_MEM_LVLNUM_SHIFT) | (1ull << PERF_MEM_REMOTE_SHIFT) |               \
	 (0x7ull << 43 /* PERF_MEM_HOPS_SHIFT */))

/* One (event, data source key) and its samples; the map finds its row. */
struct pb_mem_slot {
	uint64_t key;
	uint64_t count;
	uint64_t weighted, weight_sum;
	int event;
};

uint64_t pb_sample_weight(const struct pb_sample *s)
{
	return (s->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1 : s->weight;
}

int pb_mem_table_add(struct pb_mem_table *t, int event, const struct pb_sample *s)
{
	if (pb_grow(&t->slots, &t->cap, t->used, sizeof *t->slots, 64))
		return -1;
	uint64_t key = s->data_src & MEM_KEY_MASK;
	bool added;
	uint64_t *slot = pb_hashmap_upsert(&t->index, (uint64_t)(unsigned)event, key, &added);
	if (!slot)
		return -1;
	if (added) {
		t->slots[t->used] = (struct pb_mem_slot){.key = key, .event = event};
		*slot = t->used++;
	}
	struct pb_mem_slot *m = &t->slots[*slot];
	m->count++;
	t->samples++;
	if (s->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		m->weighted++;
		m->weight_sum += pb_sample_weight(s);
	}
	return 0;
}

void pb_mem_table_free(struct pb_mem_table *t)
{
	pb_hashmap_free(&t->index);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

static int cmp_mem_row_names(const struct pb_mem_row *x, const struct pb_mem_row *y)
{
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	int c = strcmp(x->op, y->op);
	return c ? c : strcmp(x->lvl, y->lvl);
}

static int cmp_mem_row_name(const void *a, const void *b)
{
	return cmp_mem_row_names(a, b);
}

static int cmp_mem_row_count(const void *a, const void *b)
{
	const struct pb_mem_row *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_mem_row_names(x, y);
}

struct pb_mem_row *pb_mem_table_rows(const struct pb_mem_table *t, size_t *n)
{
	struct pb_mem_row *rows = calloc(t->used ? t->used : 1, sizeof(*rows));
	size_t k = 0;
	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < t->used; i++) {
		const struct pb_mem_slot *m = &t->slots[i];
		struct pb_mem_src src;
		char lvl[PB_MEM_SRC_TEXT_MAX];
		pb_mem_data_src_decode(m->key, &src);
		pb_mem_op_format(&src, rows[k].op, sizeof rows[k].op);
		pb_mem_lvl_format(&src, lvl, sizeof lvl);
		rows[k].lvl = strdup(lvl);
		if (!rows[k].lvl) {
			pb_mem_rows_free(rows, k);
			return NULL;
		}
		rows[k].event = m->event;
		rows[k].count = m->count;
		rows[k].weighted = m->weighted;
		rows[k].weight_sum = m->weight_sum;
		k++;
	}
	qsort(rows, k, sizeof(*rows), cmp_mem_row_name);
	size_t out = 0;
	for (size_t i = 0; i < k; i++) {
		if (out && !cmp_mem_row_names(&rows[out - 1], &rows[i])) {
			rows[out - 1].count += rows[i].count;
			rows[out - 1].weighted += rows[i].weighted;
			rows[out - 1].weight_sum += rows[i].weight_sum;
			free(rows[i].lvl);
			continue;
		}
		rows[out++] = rows[i];
	}
	qsort(rows, out, sizeof(*rows), cmp_mem_row_count);
	*n = out;
	return rows;
}

void pb_mem_rows_free(struct pb_mem_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].lvl);
	free(rows);
}
