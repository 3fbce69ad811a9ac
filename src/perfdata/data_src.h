/* The data source of a memory sample (PERF_SAMPLE_DATA_SRC, the kernel's union
 * perf_mem_data_src as PEBS load-latency / store events, AMD IBS through perf, Arm SPE and POWER
 * fill it): decoded into named fields and printed the way `perf script -F data_src` (perf 6.1.x,
 * tools/perf/util/mem-events.c, with the names the 6.1 stable series took on: "LFB/MAB", "CXL",
 * "I/O", "Peer"; checked against perf 6.1.187) prints it:
 *
 *   |OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A
 *
 * perf prints that after the value in hex ("%16llx "). Two differences, both where perf 6.1 is
 * itself broken: perf cuts its line at 99 characters (17 of them the hex value), and it indexes
 * past its table for hop counts 5-7, which pesbench prints as "hops N". Every u64 decodes.
 *
 * It lives with the perf.data codec, not with a facility: the union is perf's ABI, which every
 * PMU that knows a data source fills the same way. */
#ifndef PB_PERFDATA_DATA_SRC_H
#define PB_PERFDATA_DATA_SRC_H

#include "ring/record.h"
#include "util/hashmap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bit fields of union perf_mem_data_src (little-endian layout, linux/perf_event.h). */
struct pb_mem_src {
	uint8_t op;       /* PERF_MEM_OP_*: bits 0-4 */
	uint16_t lvl;     /* PERF_MEM_LVL_*: bits 5-18 (older namespace: a bit per level) */
	uint8_t snoop;    /* PERF_MEM_SNOOP_*: bits 19-23 */
	uint8_t lock;     /* PERF_MEM_LOCK_*: bits 24-25 */
	uint8_t dtlb;     /* PERF_MEM_TLB_*: bits 26-32 */
	uint8_t lvl_num;  /* PERF_MEM_LVLNUM_*: bits 33-36 (newer namespace: a number) */
	uint8_t remote;   /* PERF_MEM_REMOTE_*: bit 37 */
	uint8_t snoopx;   /* PERF_MEM_SNOOPX_*: bits 38-39 */
	uint8_t blk;      /* PERF_MEM_BLK_*: bits 40-42 */
	uint8_t hops;     /* PERF_MEM_HOPS_*: bits 43-45 */
	uint32_t rsvd;    /* bits 46-63 */
};

void pb_mem_data_src_decode(uint64_t v, struct pb_mem_src *out);

/* The parts of perf's line, each as perf prints it after its tag; the return value is the
 * length the whole text needs (snprintf's convention), buf always NUL-terminated when len > 0. */
size_t pb_mem_op_format(const struct pb_mem_src *m, char *buf, size_t len);   /* LOAD */
size_t pb_mem_lvl_format(const struct pb_mem_src *m, char *buf, size_t len);  /* L1 hit */
size_t pb_mem_snoop_format(const struct pb_mem_src *m, char *buf, size_t len); /* None */
size_t pb_mem_tlb_format(const struct pb_mem_src *m, char *buf, size_t len);  /* L1 or L2 hit */
size_t pb_mem_lock_format(const struct pb_mem_src *m, char *buf, size_t len); /* No */
size_t pb_mem_blk_format(const struct pb_mem_src *m, char *buf, size_t len);  /* " N/A" */

/* "|OP ...|LVL ...|SNP ...|TLB ...|LCK ...|BLK ..." for v, not cut (perf cuts it); returns the
 * length needed. PB_MEM_SRC_TEXT_MAX holds any value's text. */
#define PB_MEM_SRC_TEXT_MAX 512
size_t pb_mem_data_src_format(uint64_t v, char *buf, size_t len);

/* A sample's weight as perf reads it: the whole u64, or var1_dw of PERF_SAMPLE_WEIGHT_STRUCT. */
uint64_t pb_sample_weight(const struct pb_sample *s);

/* Samples per (event, data source) with the sum of their weights, the data source reduced to
 * what names its operation and level: memory grows with distinct data sources only. */
struct pb_mem_slot;
struct pb_mem_table {
	struct pb_hashmap index;   /* (event, key) -> slot */
	struct pb_mem_slot *slots;
	size_t used, cap;
	uint64_t samples;
};
/* Counts sample s (it carries PERF_SAMPLE_DATA_SRC) of event; -1 when out of memory. */
int pb_mem_table_add(struct pb_mem_table *t, int event, const struct pb_sample *s);
void pb_mem_table_free(struct pb_mem_table *t);

/* A row of the table: data sources that print the same operation and level are one row. */
struct pb_mem_row {
	int event;
	char op[16];
	char *lvl;
	uint64_t count, weighted, weight_sum;
};
/* The rows by event, then samples descending; NULL (and *n = 0) when out of memory. */
struct pb_mem_row *pb_mem_table_rows(const struct pb_mem_table *t, size_t *n);
void pb_mem_rows_free(struct pb_mem_row *rows, size_t n);

#endif
