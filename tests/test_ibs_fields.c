/* The IBS register fields, named once in ibs_raw.h: no two fields of a register overlap (but the
 * one Zen 5 field that replaces Zen 3/4 bits), reading a field gives exactly its bits, and the
 * sysfs fallbacks built from them are the kernel's (reference/pmu-facts.md 1.1). */
#include "check.h"
#include "facilities/ibs_raw.h"
#include "util/kit.h"

static const unsigned fetch_ctl[] = {
	PB_IBS_FETCH_CTL_MAX_CNT, PB_IBS_FETCH_CTL_CNT, PB_IBS_FETCH_CTL_LAT,
	PB_IBS_FETCH_CTL_EN, PB_IBS_FETCH_CTL_VAL, PB_IBS_FETCH_CTL_COMP,
	PB_IBS_FETCH_CTL_IC_MISS, PB_IBS_FETCH_CTL_PHY_ADDR_VALID, PB_IBS_FETCH_CTL_L1TLB_PGSZ,
	PB_IBS_FETCH_CTL_L1TLB_MISS, PB_IBS_FETCH_CTL_L2TLB_MISS, PB_IBS_FETCH_CTL_RAND_EN,
	PB_IBS_FETCH_CTL_L2_MISS, PB_IBS_FETCH_CTL_L3_MISS_ONLY, PB_IBS_FETCH_CTL_OC_MISS,
	PB_IBS_FETCH_CTL_L3_MISS,
};
static const unsigned op_ctl[] = {
	PB_IBS_OP_CTL_MAX_CNT, PB_IBS_OP_CTL_L3_MISS_ONLY, PB_IBS_OP_CTL_EN, PB_IBS_OP_CTL_VAL,
	PB_IBS_OP_CTL_CNT_CTL, PB_IBS_OP_CTL_MAX_CNT_EXT, PB_IBS_OP_CTL_CUR_CNT,
	PB_IBS_OP_CTL_LDLAT_THRSH, PB_IBS_OP_CTL_LDLAT_EN,
};
static const unsigned op_data[] = {
	PB_IBS_OP_DATA_COMP_TO_RET_CTR, PB_IBS_OP_DATA_TAG_TO_RET_CTR, PB_IBS_OP_DATA_OP_RETURN,
	PB_IBS_OP_DATA_BRN_TAKEN, PB_IBS_OP_DATA_BRN_MISP, PB_IBS_OP_DATA_BRN_RET,
	PB_IBS_OP_DATA_RIP_INVALID, PB_IBS_OP_DATA_BRN_FUSE, PB_IBS_OP_DATA_MICROCODE,
};
static const unsigned op_data2[] = {
	PB_IBS_OP_DATA2_DATA_SRC_LO, PB_IBS_OP_DATA2_RMT_NODE, PB_IBS_OP_DATA2_CACHE_HIT_ST,
	PB_IBS_OP_DATA2_DATA_SRC_HI, PB_IBS_OP_DATA2_STRM_ST, PB_IBS_OP_DATA2_RMT_SOCKET,
};
/* without DC_PAGE_SIZE, which replaces DC_L1TLB_HIT_2M and _1G on Zen 5 */
static const unsigned op_data3[] = {
	PB_IBS_OP_DATA3_LD_OP, PB_IBS_OP_DATA3_ST_OP, PB_IBS_OP_DATA3_DC_L1TLB_MISS,
	PB_IBS_OP_DATA3_DC_L2TLB_MISS, PB_IBS_OP_DATA3_DC_L1TLB_HIT_2M,
	PB_IBS_OP_DATA3_DC_L1TLB_HIT_1G, PB_IBS_OP_DATA3_DC_L2TLB_HIT_2M, PB_IBS_OP_DATA3_DC_MISS,
	PB_IBS_OP_DATA3_DC_MIS_ACC, PB_IBS_OP_DATA3_DC_WC_MEM_ACC, PB_IBS_OP_DATA3_DC_UC_MEM_ACC,
	PB_IBS_OP_DATA3_DC_LOCKED_OP, PB_IBS_OP_DATA3_DC_MISS_NO_MAB_ALLOC,
	PB_IBS_OP_DATA3_DC_LIN_ADDR_VALID, PB_IBS_OP_DATA3_DC_PHY_ADDR_VALID,
	PB_IBS_OP_DATA3_DC_L2TLB_HIT_1G, PB_IBS_OP_DATA3_L2_MISS, PB_IBS_OP_DATA3_SW_PF,
	PB_IBS_OP_DATA3_OP_MEM_WIDTH, PB_IBS_OP_DATA3_DC_MISS_OPEN_MEM_REQS,
	PB_IBS_OP_DATA3_DC_MISS_LAT, PB_IBS_OP_DATA3_TLB_REFILL_LAT,
};

/* The union of the fields' masks, or 0 when two overlap or one leaves the register. */
static uint64_t disjoint_union(const unsigned *f, size_t n)
{
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned lo = pb_ibs_field_lo(f[i]), w = pb_ibs_field_width(f[i]);
		uint64_t m = pb_ibs_field_mask(f[i]);
		if (!w || lo + w > 64 || (all & m) || (uint64_t)__builtin_popcountll(m) != w)
			return 0;
		all |= m;
	}
	return all;
}

static void check_reads(const unsigned *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t m = pb_ibs_field_mask(f[i]);
		uint64_t ones = m >> pb_ibs_field_lo(f[i]);
		CHECK_EQ_U64(pb_ibs_field(~0ull, f[i]), ones);
		CHECK_EQ_U64(pb_ibs_field(~m, f[i]), 0);
		/* the lowest bit of the field reads as 1, the bit below it not at all */
		CHECK_EQ_U64(pb_ibs_field(m & -m, f[i]), 1);
	}
}

int main(void)
{
	/* Register bits the PPR leaves reserved stay outside every field. */
	CHECK_EQ_U64(disjoint_union(fetch_ctl, PB_ARRAY_SIZE(fetch_ctl)), 0x3fffffffffffffffull);
	CHECK_EQ_U64(disjoint_union(op_ctl, PB_ARRAY_SIZE(op_ctl)), 0xffffffff07ffffffull);
	CHECK_EQ_U64(disjoint_union(op_data, PB_ARRAY_SIZE(op_data)), 0x1fcffffffffull);
	CHECK_EQ_U64(disjoint_union(op_data2, PB_ARRAY_SIZE(op_data2)), 0x3f7ull);
	CHECK_EQ_U64(disjoint_union(op_data3, PB_ARRAY_SIZE(op_data3)), 0xffffffffffffe1ffull);
	CHECK_EQ_U64(pb_ibs_field_mask(PB_IBS_OP_DATA3_DC_PAGE_SIZE),
		     pb_ibs_field_mask(PB_IBS_OP_DATA3_DC_L1TLB_HIT_2M) |
			     pb_ibs_field_mask(PB_IBS_OP_DATA3_DC_L1TLB_HIT_1G));
	CHECK_EQ_U64(pb_ibs_field_mask(PB_IBS_EXTD_CTL_ITLB_REFILL_LAT), 0xffff);
	check_reads(fetch_ctl, PB_ARRAY_SIZE(fetch_ctl));
	check_reads(op_ctl, PB_ARRAY_SIZE(op_ctl));
	check_reads(op_data3, PB_ARRAY_SIZE(op_data3));

	/* The kernel's format/ files (pmu-facts 1.1, 1.3). */
	char buf[24];
	CHECK(!strcmp(pb_ibs_config_format(PB_IBS_OP_CTL_CNT_CTL, buf, sizeof buf), "config:19"));
	CHECK(!strcmp(pb_ibs_config_format(PB_IBS_OP_CTL_L3_MISS_ONLY, buf, sizeof buf),
		      "config:16"));
	CHECK(!strcmp(pb_ibs_config_format(PB_IBS_FETCH_CTL_RAND_EN, buf, sizeof buf),
		      "config:57"));
	CHECK(!strcmp(pb_ibs_config_format(PB_IBS_FETCH_CTL_L3_MISS_ONLY, buf, sizeof buf),
		      "config:59"));
	CHECK(!strcmp(pb_ibs_config_format(PB_IBS_OP_CTL_MAX_CNT_EXT, buf, sizeof buf),
		      "config:20-26"));
	/* IBS_OP_MAX_CNT_EXT_MASK is 0x7F << 20, IBS_OP_CUR_CNT 27 bits at 32 */
	CHECK_EQ_U64(pb_ibs_field_mask(PB_IBS_OP_CTL_MAX_CNT_EXT), 0x7full << 20);
	CHECK_EQ_U64(pb_ibs_field_mask(PB_IBS_OP_CTL_CUR_CNT), 0x7ffffffull << 32);
	return pb_check_done("ibs_fields");
}
