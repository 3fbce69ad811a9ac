/* AMD IBS raw samples: the PERF_SAMPLE_RAW payload of an ibs_op / ibs_fetch event, decoded into
 * named register fields, classified into the subset events the experiments count, and printed
 * the way `perf report -D` (perf 6.1) prints it.
 *
 * Payload layout (kernel arch/x86/events/amd/ibs.c): u32 caps, then u64 regs[].
 *   fetch: FetchCtl, FetchLinAd, FetchPhysAd, [IcIbsExtdCtl iff PB_IBS_CAPS_FETCHCTLEXTD]
 *   op:    OpCtl, OpRip, OpData, OpData2, OpData3, DcLinAd, DcPhysAd,
 *          [BrTarget iff PB_IBS_CAPS_BRNTRGT], [OpData4 iff PB_IBS_CAPS_OPDATA4]
 * The caps word, never the length, says which optional registers are there: with 8 op registers
 * the last one is BrTarget on one CPU and OpData4 on another. */
#ifndef PB_IBS_RAW_H
#define PB_IBS_RAW_H

#include "facilities/ibs_common.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The caps bits (PB_IBS_CAPS_*) and enum pb_ibs_kind are shared with the ibs-op / ibs-fetch
 * facilities and defined once, in ibs_common.h. */
#define PB_IBS_FETCH_BASE_REGS 3u
#define PB_IBS_OP_BASE_REGS 7u
#define PB_IBS_MAX_REGS 9u

/* What the decoder needs to know about the CPU that took the sample: family/model select the
 * errata, the sysfs caps of ibs_op (or perf.data HEADER_PMU_CAPS) select changed layouts. */
struct pb_ibs_cpu {
	unsigned family, model;
	bool zen4_ibs_extensions; /* ibs_op caps/zen4_ibs_extensions: 5-bit DataSrc, L3 miss bits */
	bool ldlat;               /* caps/ldlat: OpCtl holds the load-latency filter */
	bool dtlb_pgsize;         /* caps/dtlb_pgsize: OpData3 holds DcPageSize (Zen 5) */
};

/* Register fields: the layout of AMD's PPR (MSRC001_1030..103D), as the kernel's asm/amd/ibs.h
 * mirrors it, written once. A field packs its lowest bit and its width; pb_ibs_field() reads
 * it. The decoder and the printer read every field through these names. */
#define PB_IBS_FIELD(lo, width) ((unsigned)(lo) | (unsigned)(width) << 8)

enum pb_ibs_register_field {
	/* IBS_FETCH_CTL (MSR 0xc0011030) */
	PB_IBS_FETCH_CTL_MAX_CNT = PB_IBS_FIELD(0, 16),   /* the period is MaxCnt << 4 */
	PB_IBS_FETCH_CTL_CNT = PB_IBS_FIELD(16, 16),
	PB_IBS_FETCH_CTL_LAT = PB_IBS_FIELD(32, 16),
	PB_IBS_FETCH_CTL_EN = PB_IBS_FIELD(48, 1),
	PB_IBS_FETCH_CTL_VAL = PB_IBS_FIELD(49, 1),
	PB_IBS_FETCH_CTL_COMP = PB_IBS_FIELD(50, 1),
	PB_IBS_FETCH_CTL_IC_MISS = PB_IBS_FIELD(51, 1),
	PB_IBS_FETCH_CTL_PHY_ADDR_VALID = PB_IBS_FIELD(52, 1),
	PB_IBS_FETCH_CTL_L1TLB_PGSZ = PB_IBS_FIELD(53, 2),
	PB_IBS_FETCH_CTL_L1TLB_MISS = PB_IBS_FIELD(55, 1),
	PB_IBS_FETCH_CTL_L2TLB_MISS = PB_IBS_FIELD(56, 1),
	PB_IBS_FETCH_CTL_RAND_EN = PB_IBS_FIELD(57, 1),
	PB_IBS_FETCH_CTL_L2_MISS = PB_IBS_FIELD(58, 1),
	PB_IBS_FETCH_CTL_L3_MISS_ONLY = PB_IBS_FIELD(59, 1),  /* 59-61: Zen 4 on, else reserved */
	PB_IBS_FETCH_CTL_OC_MISS = PB_IBS_FIELD(60, 1),
	PB_IBS_FETCH_CTL_L3_MISS = PB_IBS_FIELD(61, 1),
	/* IC_IBS_EXTD_CTL (MSR 0xc001103c) */
	PB_IBS_EXTD_CTL_ITLB_REFILL_LAT = PB_IBS_FIELD(0, 16),

	/* IBS_OP_CTL (MSR 0xc0011033) */
	PB_IBS_OP_CTL_MAX_CNT = PB_IBS_FIELD(0, 16),
	PB_IBS_OP_CTL_L3_MISS_ONLY = PB_IBS_FIELD(16, 1),      /* Zen 4 on */
	PB_IBS_OP_CTL_EN = PB_IBS_FIELD(17, 1),
	PB_IBS_OP_CTL_VAL = PB_IBS_FIELD(18, 1),
	PB_IBS_OP_CTL_CNT_CTL = PB_IBS_FIELD(19, 1),           /* 0 cycles, 1 dispatched ops */
	PB_IBS_OP_CTL_MAX_CNT_EXT = PB_IBS_FIELD(20, 7),       /* OpCntExt: MaxCnt bits 16-22 */
	PB_IBS_OP_CTL_CUR_CNT = PB_IBS_FIELD(32, 27),
	PB_IBS_OP_CTL_LDLAT_THRSH = PB_IBS_FIELD(59, 4),       /* with caps/ldlat (Zen 5) */
	PB_IBS_OP_CTL_LDLAT_EN = PB_IBS_FIELD(63, 1),
	/* IBS_OP_DATA (MSR 0xc0011035) */
	PB_IBS_OP_DATA_COMP_TO_RET_CTR = PB_IBS_FIELD(0, 16),
	PB_IBS_OP_DATA_TAG_TO_RET_CTR = PB_IBS_FIELD(16, 16),
	PB_IBS_OP_DATA_OP_RETURN = PB_IBS_FIELD(34, 1),
	PB_IBS_OP_DATA_BRN_TAKEN = PB_IBS_FIELD(35, 1),
	PB_IBS_OP_DATA_BRN_MISP = PB_IBS_FIELD(36, 1),
	PB_IBS_OP_DATA_BRN_RET = PB_IBS_FIELD(37, 1),
	PB_IBS_OP_DATA_RIP_INVALID = PB_IBS_FIELD(38, 1),
	PB_IBS_OP_DATA_BRN_FUSE = PB_IBS_FIELD(39, 1),
	PB_IBS_OP_DATA_MICROCODE = PB_IBS_FIELD(40, 1),
	/* IBS_OP_DATA2 (MSR 0xc0011036) */
	PB_IBS_OP_DATA2_DATA_SRC_LO = PB_IBS_FIELD(0, 3),
	PB_IBS_OP_DATA2_RMT_NODE = PB_IBS_FIELD(4, 1),
	PB_IBS_OP_DATA2_CACHE_HIT_ST = PB_IBS_FIELD(5, 1),
	PB_IBS_OP_DATA2_DATA_SRC_HI = PB_IBS_FIELD(6, 2),      /* Zen 4 on: DataSrc bits 3-4 */
	PB_IBS_OP_DATA2_STRM_ST = PB_IBS_FIELD(8, 1),
	PB_IBS_OP_DATA2_RMT_SOCKET = PB_IBS_FIELD(9, 1),
	/* IBS_OP_DATA3 (MSR 0xc0011037) */
	PB_IBS_OP_DATA3_LD_OP = PB_IBS_FIELD(0, 1),
	PB_IBS_OP_DATA3_ST_OP = PB_IBS_FIELD(1, 1),
	PB_IBS_OP_DATA3_DC_L1TLB_MISS = PB_IBS_FIELD(2, 1),
	PB_IBS_OP_DATA3_DC_L2TLB_MISS = PB_IBS_FIELD(3, 1),
	PB_IBS_OP_DATA3_DC_L1TLB_HIT_2M = PB_IBS_FIELD(4, 1),  /* 4, 5, 6, 19: Zen 3/4 meaning */
	PB_IBS_OP_DATA3_DC_L1TLB_HIT_1G = PB_IBS_FIELD(5, 1),
	PB_IBS_OP_DATA3_DC_L2TLB_HIT_2M = PB_IBS_FIELD(6, 1),
	PB_IBS_OP_DATA3_DC_PAGE_SIZE = PB_IBS_FIELD(4, 2),     /* Zen 5 (caps/dtlb_pgsize) */
	PB_IBS_OP_DATA3_DC_MISS = PB_IBS_FIELD(7, 1),
	PB_IBS_OP_DATA3_DC_MIS_ACC = PB_IBS_FIELD(8, 1),
	PB_IBS_OP_DATA3_DC_WC_MEM_ACC = PB_IBS_FIELD(13, 1),
	PB_IBS_OP_DATA3_DC_UC_MEM_ACC = PB_IBS_FIELD(14, 1),
	PB_IBS_OP_DATA3_DC_LOCKED_OP = PB_IBS_FIELD(15, 1),
	PB_IBS_OP_DATA3_DC_MISS_NO_MAB_ALLOC = PB_IBS_FIELD(16, 1),
	PB_IBS_OP_DATA3_DC_LIN_ADDR_VALID = PB_IBS_FIELD(17, 1),
	PB_IBS_OP_DATA3_DC_PHY_ADDR_VALID = PB_IBS_FIELD(18, 1),
	PB_IBS_OP_DATA3_DC_L2TLB_HIT_1G = PB_IBS_FIELD(19, 1),
	PB_IBS_OP_DATA3_L2_MISS = PB_IBS_FIELD(20, 1),
	PB_IBS_OP_DATA3_SW_PF = PB_IBS_FIELD(21, 1),
	PB_IBS_OP_DATA3_OP_MEM_WIDTH = PB_IBS_FIELD(22, 4),
	PB_IBS_OP_DATA3_DC_MISS_OPEN_MEM_REQS = PB_IBS_FIELD(26, 6),
	PB_IBS_OP_DATA3_DC_MISS_LAT = PB_IBS_FIELD(32, 16),
	PB_IBS_OP_DATA3_TLB_REFILL_LAT = PB_IBS_FIELD(48, 16),
};

static inline unsigned pb_ibs_field_lo(unsigned field)
{
	return field & 0xff;
}

static inline unsigned pb_ibs_field_width(unsigned field)
{
	return field >> 8;
}

/* The field's bits in place: what to OR into a register to set it to all ones. */
static inline uint64_t pb_ibs_field_mask(unsigned field)
{
	return (~0ull >> (64 - pb_ibs_field_width(field))) << pb_ibs_field_lo(field);
}

/* The field's value in register reg. */
static inline uint64_t pb_ibs_field(uint64_t reg, unsigned field)
{
	return (reg & pb_ibs_field_mask(field)) >> pb_ibs_field_lo(field);
}

/* The sysfs format text of a control field the kernel takes in attr.config ("config:19"): what a
 * PMU that lists no format/ files is taken to have. */
const char *pb_ibs_config_format(unsigned field, char *buf, size_t len);

/* IBS_FETCH_CTL, decoded. */
struct pb_ibs_fetch_ctl {
	uint64_t raw;
	uint32_t max_cnt;        /* field value; the period is max_cnt << 4 */
	uint32_t cnt;            /* field value; the count is cnt << 4 */
	uint32_t lat;            /* cycles from fetch request to completion */
	bool en, val, comp;
	bool ic_miss;
	bool ic_miss_valid;      /* false on family 0x19 model < 0x10 (erratum #1238) */
	bool phy_addr_valid;
	unsigned l1tlb_pgsz;     /* the 2-bit field */
	uint64_t l1tlb_page_bytes; /* decoded page size; 0 when reserved or !phy_addr_valid */
	bool l1tlb_miss, l2tlb_miss, rand_en;
	bool l2_miss;
	bool l2_miss_valid;      /* only a completed fetch (comp) reports L2Miss */
	bool l3_miss_only, oc_miss, l3_miss; /* Zen 4 on */
};

struct pb_ibs_fetch {
	struct pb_ibs_fetch_ctl ctl;
	uint64_t lin_addr;       /* IbsFetchLinAd: the sample IP */
	uint64_t phys_addr;      /* IbsFetchPhysAd, meaningful when ctl.phy_addr_valid */
	bool has_extd_ctl;       /* PB_IBS_CAPS_FETCHCTLEXTD: IcIbsExtdCtl was appended */
	uint64_t extd_ctl_raw;
	uint32_t itlb_refill_lat;
};

/* IBS_OP_CTL, decoded. */
struct pb_ibs_op_ctl {
	uint64_t raw;
	uint32_t max_cnt;
	uint32_t max_cnt_ext;
	uint64_t period;         /* ((max_cnt_ext << 16) | max_cnt) << 4 */
	bool l3_miss_only, en, val;
	bool cnt_ctl;            /* false: counts cycles, true: counts dispatched ops */
	uint32_t cur_cnt;
	unsigned ldlat_thrsh;
	uint32_t ldlat_cycles;   /* (ldlat_thrsh + 1) * 128 when ldlat_en */
	bool ldlat_en;           /* both only decoded when pb_ibs_cpu.ldlat */
};

/* IBS_OP_DATA, decoded. */
struct pb_ibs_op_data {
	uint64_t raw;
	uint32_t comp_to_ret_ctr, tag_to_ret_ctr;
	bool op_return, brn_taken, brn_misp; /* meaningful only when brn_ret */
	bool brn_ret, rip_invalid, brn_fuse, microcode;
};

/* IBS_OP_DATA2, decoded: northbridge data source, meaningful for loads only. */
struct pb_ibs_op_data2 {
	uint64_t raw;
	bool trusted;            /* false when erratum #1293 says to ignore the register */
	unsigned data_src_lo;
	unsigned data_src_hi;    /* Zen 4 extension */
	unsigned data_src;       /* (hi << 3) | lo with zen4 extensions, else lo */
	bool rmt_node, cache_hit_st, strm_st, rmt_socket;
};

/* IBS_OP_DATA3, decoded. */
struct pb_ibs_op_data3 {
	uint64_t raw;
	bool ld_op, st_op;
	bool dc_l1tlb_miss, dc_l2tlb_miss;
	/* Zen 3/4 names of the TLB hit bits (what perf 6.1 prints on every CPU). */
	bool dc_l1tlb_hit_2m, dc_l1tlb_hit_1g, dc_l2tlb_hit_2m, dc_l2tlb_hit_1g;
	/* Zen 5 (dtlb_pgsize): DcPageSize replaces them; DcL2TlbHit2M and 1G are reserved. */
	bool has_dc_page_size;
	unsigned dc_page_size;   /* 0 4K, 1 2M, 2 1G, 3 reserved */
	uint64_t dc_page_bytes;  /* page of the data access when known (either layout), else 0 */
	bool dc_miss, dc_mis_acc, dc_wc_mem_acc, dc_uc_mem_acc, dc_locked_op;
	bool dc_miss_no_mab_alloc, dc_lin_addr_valid, dc_phy_addr_valid;
	bool l2_miss;
	bool l2_miss_valid;      /* false under erratum #1293 */
	bool sw_pf;
	unsigned op_mem_width;   /* the 4-bit field */
	uint32_t op_mem_bytes;   /* 1 << (op_mem_width - 1), 0 when the field is 0 */
	unsigned dc_miss_open_mem_reqs;
	bool open_mem_reqs_valid; /* false under erratum #1293 */
	uint32_t dc_miss_lat, tlb_refill_lat;
};

struct pb_ibs_op {
	struct pb_ibs_op_ctl ctl;
	uint64_t rip;
	bool rip_valid;          /* !RipInvalid */
	struct pb_ibs_op_data data;
	struct pb_ibs_op_data2 data2;
	struct pb_ibs_op_data3 data3;
	uint64_t dc_lin_addr, dc_phys_addr; /* valid per data3.dc_lin/phy_addr_valid */
	bool has_br_target;      /* PB_IBS_CAPS_BRNTRGT */
	uint64_t br_target;
	bool has_op_data4;       /* PB_IBS_CAPS_OPDATA4; no fields documented: kept raw */
	uint64_t op_data4;
};

struct pb_ibs_sample {
	enum pb_ibs_kind kind;
	struct pb_ibs_cpu cpu;   /* as given to the decoder; the printer needs it */
	uint32_t caps;           /* the caps word of the payload */
	unsigned nregs;
	uint64_t regs[PB_IBS_MAX_REGS];
	bool valid;              /* En and Val both set; perf prints nothing otherwise */
	struct pb_ibs_fetch fetch; /* kind == PB_IBS_FETCH */
	struct pb_ibs_op op;       /* kind == PB_IBS_OP */
};

/* The decoder's view of this machine: CPU family/model and the caps/ files of ibs_op (any
 * caps file whose value is not "0" counts as present). */
void pb_ibs_cpu_from_machine(const struct pb_machine *m, struct pb_ibs_cpu *cpu);

/* Number of u64 registers a payload with these caps carries. */
unsigned pb_ibs_expected_regs(enum pb_ibs_kind kind, uint32_t caps);

/* Decodes raw (the PERF_SAMPLE_RAW bytes after the u32 size, i.e. starting at caps) of len bytes.
 * Fails with PB_EXIT_BAD_FILE when len is too short or disagrees with the caps word; it never
 * reads outside [raw, raw + len). raw need not be aligned. */
int pb_ibs_decode(const void *raw, size_t len, enum pb_ibs_kind kind,
		  const struct pb_ibs_cpu *cpu, struct pb_ibs_sample *out, struct pb_error *err);

/* Data source names (OpData2 DataSrc). zen4 selects the 5-bit table. Returns "none" for 0 and
 * "(reserved)" for values the table does not define. The wording is perf 6.1's. */
const char *pb_ibs_data_src_name(unsigned data_src, bool zen4);

/* Prints s in the lines and field order of perf 6.1's `perf report -D` IBS dump
 * (tools/perf/util/amd-sample-raw.c). Prints nothing for an invalid sample (!En || !Val), as perf.
 * Deliberate differences from perf 6.1, both because perf reads registers by position whatever
 * the caps say:
 *   - IbsBrTarget is printed only when PB_IBS_CAPS_BRNTRGT put it in the payload (perf prints
 *     regs[7], which is OpData4 on a CPU with OPDATA4 and no BRNTRGT, and past the payload with
 *     neither);
 *   - ic_ibs_ext_ctl is printed only when PB_IBS_CAPS_FETCHCTLEXTD put it in the payload (perf
 *     always prints regs[3]).
 * Like perf 6.1, the Zen 4 fields (L3MissOnly, FetchOcMiss, FetchL3Miss) and the 5-bit DataSrc
 * table are printed only when cpu.zen4_ibs_extensions (perf takes it from the perf.data PMU caps),
 * errata follow cpu.family/model, and the OpData3 TLB hit bits keep their Zen 3/4 names even on
 * Zen 5; the decoded struct, not the print, carries the Zen 5 page size and ldlat fields.
 * Returns the number of lines printed. */
int pb_ibs_print(FILE *out, const struct pb_ibs_sample *s);

/* What an op sample was, for counting subset events from op samples ("IBS op filtered on
 * L1-miss loads" = samples whose class has PB_IBS_OP_LOAD | PB_IBS_OP_L1_MISS). */
enum pb_ibs_op_flag {
	PB_IBS_OP_LOAD         = 1u << 0,  /* LdOp */
	PB_IBS_OP_STORE        = 1u << 1,  /* StOp */
	PB_IBS_OP_BRANCH       = 1u << 2,  /* BrnRet: a retired branch */
	PB_IBS_OP_TAKEN        = 1u << 3,  /* branch and BrnTaken */
	PB_IBS_OP_MISPREDICTED = 1u << 4,  /* branch and BrnMisp */
	PB_IBS_OP_RETURN       = 1u << 5,  /* branch and OpReturn */
	PB_IBS_OP_LOCKED       = 1u << 6,  /* memory op and DcLockedOp */
	PB_IBS_OP_L1_MISS      = 1u << 7,  /* memory op and DcMiss */
	PB_IBS_OP_L2_MISS      = 1u << 8,  /* L1 miss and a trusted L2Miss */
	PB_IBS_OP_DTLB_L1_MISS = 1u << 9,  /* memory op and DcL1TlbMiss */
	PB_IBS_OP_DTLB_L2_MISS = 1u << 10, /* memory op and DcL2TlbMiss */
	PB_IBS_OP_UNCACHEABLE  = 1u << 11, /* memory op and DcUcMemAcc */
	PB_IBS_OP_MISALIGNED   = 1u << 12, /* memory op and DcMisAcc */
	PB_IBS_OP_SW_PREFETCH  = 1u << 13, /* SwPf */
	PB_IBS_OP_RIP_INVALID  = 1u << 14, /* the sample IP is not the op's */
	PB_IBS_OP_FUSED        = 1u << 15, /* BrnFuse */
	PB_IBS_OP_MICROCODE    = 1u << 16, /* Microcode */
};
#define PB_IBS_OP_NFLAGS 17u

struct pb_ibs_op_class {
	uint32_t flags;          /* enum pb_ibs_op_flag */
	uint32_t latency;        /* DcMissLat cycles of an L1-missing load, else 0 */
	int data_src;            /* DataSrc of a load with trusted OpData2, else -1 */
	uint64_t data_addr;      /* DcLinAd when valid */
	bool data_addr_valid;
};

/* Classifies what the registers say; callers counting events skip samples with !s->valid, as
 * perf does. Fails (PB_EXIT_USAGE) when s is not an op sample. */
int pb_ibs_op_classify(const struct pb_ibs_sample *s, struct pb_ibs_op_class *out,
		       struct pb_error *err);
/* Short name of one flag ("load", "l1-miss", ...), NULL if flag is not a single known flag. */
const char *pb_ibs_op_flag_name(uint32_t flag);
/* Parses "load+l1-miss" (names joined by '+' or ',') into a flag mask. */
int pb_ibs_op_filter_parse(const char *text, uint32_t *mask, struct pb_error *err);
/* True when the class has every flag of mask. */
bool pb_ibs_op_matches(const struct pb_ibs_op_class *c, uint32_t mask);

/* The IBS kind of a kernel PMU name as perf.data files record it ("ibs_op", "ibs_fetch"). */
bool pb_ibs_kind_of_pmu(const char *pmu, enum pb_ibs_kind *kind);

struct pb_perfdata;
/* Whether event index of a perf.data file is an IBS event (its type maps to a PMU named
 * ibs_op* / ibs_fetch*), as perf decides it; *kind says which. The CPU for the decoder comes
 * from HEADER_CPUID ("AuthenticAMD,family,model,stepping", decimal) and the ibs_op PMU caps.
 * False for other events or when the file does not come from an AMD CPU. It lives here, not in
 * the perf.data reader, so that the reader knows no facility. */
bool pb_perfdata_ibs_event(const struct pb_perfdata *pd, size_t index, enum pb_ibs_kind *kind,
			   struct pb_ibs_cpu *cpu);

/* IBS's reading of a perf.data file (the perfdata hook of ibs-op and ibs-fetch, which share it):
 * under --dump every IBS sample's raw payload decoded and printed as `perf report -D` prints it,
 * then how many were decoded and how many were not. */
struct pb_perfdata_decoder;
extern const struct pb_perfdata_decoder pb_ibs_perfdata_decoder;

#endif
