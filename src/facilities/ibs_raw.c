/* IBS raw sample decoding. Field positions: AMD PPR MSRC001_1030..103D as mirrored in the
 * kernel's asm/amd/ibs.h; print format: perf 6.1 tools/perf/util/amd-sample-raw.c. */
#include "facilities/ibs_raw.h"
#include "facilities/facility.h"

#include "perfdata/perfdata.h"
#include "util/kit.h"
#include "util/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Family 0x19 models 0x00-0x0F (Zen 3 "Milan"/"Vermeer" steppings) carry errata #1238, #1293
 * and #1347; perf and the kernel test exactly this range. */
static bool fam19_early(const struct pb_ibs_cpu *cpu)
{
	return cpu->family == 0x19 && cpu->model < 0x10;
}

static bool pmu_cap_set(const struct pb_pmu *p, const char *name)
{
	char buf[32];
	const char *v = p ? pb_pmu_caps(p, name, buf, sizeof(buf)) : NULL;
	return v && strcmp(v, "0") != 0;
}

void pb_ibs_cpu_from_machine(const struct pb_machine *m, struct pb_ibs_cpu *cpu)
{
	const struct pb_pmu *op = pb_machine_pmu(m, "ibs_op");

	memset(cpu, 0, sizeof(*cpu));
	cpu->family = m->cpu_family;
	cpu->model = m->cpu_model;
	cpu->zen4_ibs_extensions = pmu_cap_set(op, "zen4_ibs_extensions");
	cpu->ldlat = pmu_cap_set(op, "ldlat");
	cpu->dtlb_pgsize = pmu_cap_set(op, "dtlb_pgsize");
}

unsigned pb_ibs_expected_regs(enum pb_ibs_kind kind, uint32_t caps)
{
	if (kind == PB_IBS_FETCH)
		return PB_IBS_FETCH_BASE_REGS + ((caps & PB_IBS_CAPS_FETCHCTLEXTD) ? 1 : 0);
	return PB_IBS_OP_BASE_REGS + ((caps & PB_IBS_CAPS_BRNTRGT) ? 1 : 0) +
	       ((caps & PB_IBS_CAPS_OPDATA4) ? 1 : 0);
}

const char *pb_ibs_config_format(unsigned field, char *buf, size_t len)
{
	unsigned lo = pb_ibs_field_lo(field), width = pb_ibs_field_width(field);
	if (width == 1)
		snprintf(buf, len, "config:%u", lo);
	else
		snprintf(buf, len, "config:%u-%u", lo, lo + width - 1);
	return buf;
}

static uint64_t l1tlb_page_bytes(unsigned pgsz, bool erratum1347)
{
	static const uint64_t normal[4] = { 4096, 2ull << 20, 1ull << 30, 0 };
	static const uint64_t erratum[4] = { 4096, 16384, 2ull << 20, 1ull << 30 };
	return erratum1347 ? erratum[pgsz & 3] : normal[pgsz & 3];
}

static void decode_fetch(struct pb_ibs_sample *s, bool zen4)
{
	struct pb_ibs_fetch *f = &s->fetch;
	struct pb_ibs_fetch_ctl *c = &f->ctl;
	uint64_t v = s->regs[0];
	bool early = fam19_early(&s->cpu);

	c->raw = v;
	c->max_cnt = (uint32_t)pb_ibs_field(v, PB_IBS_FETCH_CTL_MAX_CNT);
	c->cnt = (uint32_t)pb_ibs_field(v, PB_IBS_FETCH_CTL_CNT);
	c->lat = (uint32_t)pb_ibs_field(v, PB_IBS_FETCH_CTL_LAT);
	c->en = pb_ibs_field(v, PB_IBS_FETCH_CTL_EN);
	c->val = pb_ibs_field(v, PB_IBS_FETCH_CTL_VAL);
	c->comp = pb_ibs_field(v, PB_IBS_FETCH_CTL_COMP);
	c->ic_miss = pb_ibs_field(v, PB_IBS_FETCH_CTL_IC_MISS);
	c->ic_miss_valid = !early;
	c->phy_addr_valid = pb_ibs_field(v, PB_IBS_FETCH_CTL_PHY_ADDR_VALID);
	c->l1tlb_pgsz = (unsigned)pb_ibs_field(v, PB_IBS_FETCH_CTL_L1TLB_PGSZ);
	c->l1tlb_page_bytes = c->phy_addr_valid ? l1tlb_page_bytes(c->l1tlb_pgsz, early) : 0;
	c->l1tlb_miss = pb_ibs_field(v, PB_IBS_FETCH_CTL_L1TLB_MISS);
	c->l2tlb_miss = pb_ibs_field(v, PB_IBS_FETCH_CTL_L2TLB_MISS);
	c->rand_en = pb_ibs_field(v, PB_IBS_FETCH_CTL_RAND_EN);
	c->l2_miss = pb_ibs_field(v, PB_IBS_FETCH_CTL_L2_MISS);
	c->l2_miss_valid = c->comp;
	/* These were reserved before Zen 4; reading them there would invent events. */
	c->l3_miss_only = zen4 && pb_ibs_field(v, PB_IBS_FETCH_CTL_L3_MISS_ONLY);
	c->oc_miss = zen4 && pb_ibs_field(v, PB_IBS_FETCH_CTL_OC_MISS);
	c->l3_miss = zen4 && pb_ibs_field(v, PB_IBS_FETCH_CTL_L3_MISS);

	f->lin_addr = s->regs[1];
	f->phys_addr = s->regs[2];
	f->has_extd_ctl = (s->caps & PB_IBS_CAPS_FETCHCTLEXTD) != 0;
	if (f->has_extd_ctl) {
		f->extd_ctl_raw = s->regs[3];
		f->itlb_refill_lat = (uint32_t)pb_ibs_field(s->regs[3], PB_IBS_EXTD_CTL_ITLB_REFILL_LAT);
	}
	s->valid = c->en && c->val;
}

static void decode_op_ctl(struct pb_ibs_op_ctl *c, uint64_t v, bool zen4, bool ldlat)
{
	c->raw = v;
	c->max_cnt = (uint32_t)pb_ibs_field(v, PB_IBS_OP_CTL_MAX_CNT);
	c->max_cnt_ext = (uint32_t)pb_ibs_field(v, PB_IBS_OP_CTL_MAX_CNT_EXT);
	c->period = (((uint64_t)c->max_cnt_ext << pb_ibs_field_width(PB_IBS_OP_CTL_MAX_CNT)) |
		     c->max_cnt) << 4;
	c->l3_miss_only = zen4 && pb_ibs_field(v, PB_IBS_OP_CTL_L3_MISS_ONLY);
	c->en = pb_ibs_field(v, PB_IBS_OP_CTL_EN);
	c->val = pb_ibs_field(v, PB_IBS_OP_CTL_VAL);
	c->cnt_ctl = pb_ibs_field(v, PB_IBS_OP_CTL_CNT_CTL);
	c->cur_cnt = (uint32_t)pb_ibs_field(v, PB_IBS_OP_CTL_CUR_CNT);
	if (ldlat) {
		c->ldlat_thrsh = (unsigned)pb_ibs_field(v, PB_IBS_OP_CTL_LDLAT_THRSH);
		c->ldlat_en = pb_ibs_field(v, PB_IBS_OP_CTL_LDLAT_EN);
		c->ldlat_cycles = c->ldlat_en ? (c->ldlat_thrsh + 1u) * 128u : 0;
	}
}

static void decode_op_data(struct pb_ibs_op_data *d, uint64_t v)
{
	d->raw = v;
	d->comp_to_ret_ctr = (uint32_t)pb_ibs_field(v, PB_IBS_OP_DATA_COMP_TO_RET_CTR);
	d->tag_to_ret_ctr = (uint32_t)pb_ibs_field(v, PB_IBS_OP_DATA_TAG_TO_RET_CTR);
	d->op_return = pb_ibs_field(v, PB_IBS_OP_DATA_OP_RETURN);
	d->brn_taken = pb_ibs_field(v, PB_IBS_OP_DATA_BRN_TAKEN);
	d->brn_misp = pb_ibs_field(v, PB_IBS_OP_DATA_BRN_MISP);
	d->brn_ret = pb_ibs_field(v, PB_IBS_OP_DATA_BRN_RET);
	d->rip_invalid = pb_ibs_field(v, PB_IBS_OP_DATA_RIP_INVALID);
	d->brn_fuse = pb_ibs_field(v, PB_IBS_OP_DATA_BRN_FUSE);
	d->microcode = pb_ibs_field(v, PB_IBS_OP_DATA_MICROCODE);
}

static void decode_op_data2(struct pb_ibs_op_data2 *d, uint64_t v, bool zen4)
{
	d->raw = v;
	d->data_src_lo = (unsigned)pb_ibs_field(v, PB_IBS_OP_DATA2_DATA_SRC_LO);
	d->rmt_node = pb_ibs_field(v, PB_IBS_OP_DATA2_RMT_NODE);
	d->cache_hit_st = pb_ibs_field(v, PB_IBS_OP_DATA2_CACHE_HIT_ST);
	d->data_src_hi = zen4 ? (unsigned)pb_ibs_field(v, PB_IBS_OP_DATA2_DATA_SRC_HI) : 0;
	d->data_src = (d->data_src_hi << 3) | d->data_src_lo;
	d->strm_st = pb_ibs_field(v, PB_IBS_OP_DATA2_STRM_ST);
	d->rmt_socket = pb_ibs_field(v, PB_IBS_OP_DATA2_RMT_SOCKET);
}

static uint64_t zen34_dc_page(const struct pb_ibs_op_data3 *d)
{
	if (!d->dc_l1tlb_miss)
		return d->dc_l1tlb_hit_1g ? (1ull << 30) : d->dc_l1tlb_hit_2m ? (2ull << 20) : 4096;
	if (!d->dc_l2tlb_miss)
		return d->dc_l2tlb_hit_1g ? (1ull << 30) : d->dc_l2tlb_hit_2m ? (2ull << 20) : 4096;
	return 0; /* page walk: the hit bits say nothing */
}

static void decode_op_data3(struct pb_ibs_op_data3 *d, uint64_t v, bool dtlb_pgsize)
{
	static const uint64_t zen5_page[4] = { 4096, 2ull << 20, 1ull << 30, 0 };

	d->raw = v;
	d->ld_op = pb_ibs_field(v, PB_IBS_OP_DATA3_LD_OP);
	d->st_op = pb_ibs_field(v, PB_IBS_OP_DATA3_ST_OP);
	d->dc_l1tlb_miss = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_L1TLB_MISS);
	d->dc_l2tlb_miss = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_L2TLB_MISS);
	d->dc_l1tlb_hit_2m = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_L1TLB_HIT_2M);
	d->dc_l1tlb_hit_1g = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_L1TLB_HIT_1G);
	d->dc_l2tlb_hit_2m = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_L2TLB_HIT_2M);
	d->dc_miss = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_MISS);
	d->dc_mis_acc = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_MIS_ACC);
	d->dc_wc_mem_acc = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_WC_MEM_ACC);
	d->dc_uc_mem_acc = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_UC_MEM_ACC);
	d->dc_locked_op = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_LOCKED_OP);
	d->dc_miss_no_mab_alloc = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_MISS_NO_MAB_ALLOC);
	d->dc_lin_addr_valid = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_LIN_ADDR_VALID);
	d->dc_phy_addr_valid = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_PHY_ADDR_VALID);
	d->dc_l2tlb_hit_1g = pb_ibs_field(v, PB_IBS_OP_DATA3_DC_L2TLB_HIT_1G);
	d->l2_miss = pb_ibs_field(v, PB_IBS_OP_DATA3_L2_MISS);
	d->sw_pf = pb_ibs_field(v, PB_IBS_OP_DATA3_SW_PF);
	d->op_mem_width = (unsigned)pb_ibs_field(v, PB_IBS_OP_DATA3_OP_MEM_WIDTH);
	d->op_mem_bytes = d->op_mem_width ? (1u << (d->op_mem_width - 1)) : 0;
	d->dc_miss_open_mem_reqs = (unsigned)pb_ibs_field(v, PB_IBS_OP_DATA3_DC_MISS_OPEN_MEM_REQS);
	d->dc_miss_lat = (uint32_t)pb_ibs_field(v, PB_IBS_OP_DATA3_DC_MISS_LAT);
	d->tlb_refill_lat = (uint32_t)pb_ibs_field(v, PB_IBS_OP_DATA3_TLB_REFILL_LAT);
	d->has_dc_page_size = dtlb_pgsize;
	if (dtlb_pgsize)
		d->dc_page_size = (unsigned)pb_ibs_field(v, PB_IBS_OP_DATA3_DC_PAGE_SIZE);
	/* The TLB bits describe the translation only when it produced a physical address. */
	if (d->dc_phy_addr_valid)
		d->dc_page_bytes = dtlb_pgsize ? zen5_page[d->dc_page_size] : zen34_dc_page(d);
}

static void decode_op(struct pb_ibs_sample *s, bool zen4, bool ldlat, bool dtlb_pgsize)
{
	struct pb_ibs_op *o = &s->op;
	unsigned next = PB_IBS_OP_BASE_REGS;

	decode_op_ctl(&o->ctl, s->regs[0], zen4, ldlat);
	o->rip = s->regs[1];
	decode_op_data(&o->data, s->regs[2]);
	o->rip_valid = !o->data.rip_invalid;
	decode_op_data2(&o->data2, s->regs[3], zen4);
	decode_op_data3(&o->data3, s->regs[4], dtlb_pgsize);
	o->dc_lin_addr = s->regs[5];
	o->dc_phys_addr = s->regs[6];
	if (s->caps & PB_IBS_CAPS_BRNTRGT) {
		o->has_br_target = true;
		o->br_target = s->regs[next++];
	}
	if (s->caps & PB_IBS_CAPS_OPDATA4) {
		o->has_op_data4 = true;
		o->op_data4 = s->regs[next++];
	}

	/* Erratum #1293: a software prefetch or a miss without MAB allocation leaves OpData2,
	 * L2Miss and OpDcMissOpenMemReqs stale. */
	bool e1293 = fam19_early(&s->cpu) && (o->data3.sw_pf || o->data3.dc_miss_no_mab_alloc);
	o->data2.trusted = !e1293;
	o->data3.l2_miss_valid = !e1293;
	o->data3.open_mem_reqs_valid = !e1293;
	s->valid = o->ctl.en && o->ctl.val;
}

int pb_ibs_decode(const void *raw, size_t len, enum pb_ibs_kind kind,
		  const struct pb_ibs_cpu *cpu, struct pb_ibs_sample *out, struct pb_error *err)
{
	const unsigned char *p = raw;
	const char *pmu = kind == PB_IBS_FETCH ? "ibs_fetch" : "ibs_op";
	static const struct pb_ibs_cpu unknown_cpu;

	memset(out, 0, sizeof(*out));
	if (kind != PB_IBS_FETCH && kind != PB_IBS_OP)
		return pb_fail(err, PB_EXIT_USAGE, 0, "IBS decode: unknown sample kind %d", (int)kind);
	out->kind = kind;
	out->cpu = cpu ? *cpu : unknown_cpu;
	if (!raw || len < 4)
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s raw sample of %zu bytes has no caps word (needs at least 4 bytes); "
			       "the record is truncated or was not recorded with PERF_SAMPLE_RAW",
			       pmu, len);
	out->caps = (uint32_t)pb_load_le(p, 4);

	unsigned want = pb_ibs_expected_regs(kind, out->caps);
	size_t want_len = 4 + 8 * (size_t)want;
	if (len != want_len) {
		const char *why = len < want_len ? "truncated" : "longer than its caps allow";
		if (kind == PB_IBS_OP)
			return pb_fail(err, PB_EXIT_BAD_FILE, 0,
				       "ibs_op raw sample is %zu bytes but its caps 0x%08x (BrTarget %s, "
				       "OpData4 %s) mean %u registers = %zu bytes: %s; the file is "
				       "corrupt or the sample is not an ibs_op sample",
				       len, out->caps,
				       (out->caps & PB_IBS_CAPS_BRNTRGT) ? "yes" : "no",
				       (out->caps & PB_IBS_CAPS_OPDATA4) ? "yes" : "no", want, want_len,
				       why);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "ibs_fetch raw sample is %zu bytes but its caps 0x%08x (IcIbsExtdCtl %s) "
			       "mean %u registers = %zu bytes: %s; the file is corrupt or the sample is "
			       "not an ibs_fetch sample",
			       len, out->caps, (out->caps & PB_IBS_CAPS_FETCHCTLEXTD) ? "yes" : "no",
			       want, want_len, why);
	}
	out->nregs = want;
	for (unsigned i = 0; i < want; i++)
		out->regs[i] = pb_load_le(p + 4 + 8 * (size_t)i, 8);

	/* The PMU caps from sysfs / perf.data say which layout applies; the payload's own caps
	 * word says the same when present, so a file without PMU caps still decodes right. */
	bool zen4 = out->cpu.zen4_ibs_extensions || (out->caps & PB_IBS_CAPS_ZEN4);
	bool ldlat = out->cpu.ldlat || (out->caps & PB_IBS_CAPS_OPLDLAT);
	bool dtlb_pgsize = out->cpu.dtlb_pgsize || (out->caps & PB_IBS_CAPS_OPDTLBPGSIZE);
	if (kind == PB_IBS_FETCH)
		decode_fetch(out, zen4);
	else
		decode_op(out, zen4, ldlat, dtlb_pgsize);
	return 0;
}

/* Wording of perf 6.1 (newer perf renamed some Zen 4 sources; the meaning is the same). */
static const char *const data_src_pre_zen4[8] = {
	"none", "(reserved)", "Local node cache", "DRAM",
	"Remote node cache", "(reserved)", "(reserved)", "Other",
};
static const char *const data_src_zen4[13] = {
	"none",
	"Local L3 or other L1/L2 in CCX",
	"A peer cache in a near CCX",
	"Data returned from DRAM",
	"(reserved)",
	"A peer cache in a far CCX",
	"DRAM address map with \"long latency\" bit set",
	"Data returned from MMIO/Config/PCI/APIC",
	"Extension Memory (S-Link, GenZ, etc)",
	"(reserved)",
	"(reserved)",
	"(reserved)",
	"Peer Agent Memory",
};

const char *pb_ibs_data_src_name(unsigned data_src, bool zen4)
{
	if (zen4)
		return data_src < 13 ? data_src_zen4[data_src] : "(reserved)";
	return data_src < 8 ? data_src_pre_zen4[data_src] : "(reserved)";
}

static int print_fetch(FILE *out, const struct pb_ibs_sample *s)
{
	static const char *const pgsz[4] = { "4KB", "2MB", "1GB", "RESERVED" };
	static const char *const pgsz_1347[4] = { "4KB", "16KB", "2MB", "1GB" };
	const struct pb_ibs_fetch_ctl *c = &s->fetch.ctl;
	uint64_t v = c->raw;
	bool early = fam19_early(&s->cpu);
	char ic_miss[16] = "", l1pg[32] = "", l2miss[16] = "", l3[64] = "";
	int lines = 0;

	if (!early)
		snprintf(ic_miss, sizeof(ic_miss), " IcMiss %d",
			 (int)pb_ibs_field(v, PB_IBS_FETCH_CTL_IC_MISS));
	if (c->phy_addr_valid)
		snprintf(l1pg, sizeof(l1pg), " L1TlbPgSz %s",
			 (early ? pgsz_1347 : pgsz)[c->l1tlb_pgsz]);
	if (c->comp)
		snprintf(l2miss, sizeof(l2miss), " L2Miss %d",
			 (int)pb_ibs_field(v, PB_IBS_FETCH_CTL_L2_MISS));
	if (s->cpu.zen4_ibs_extensions)
		snprintf(l3, sizeof(l3), " L3MissOnly %d FetchOcMiss %d FetchL3Miss %d",
			 (int)pb_ibs_field(v, PB_IBS_FETCH_CTL_L3_MISS_ONLY),
			 (int)pb_ibs_field(v, PB_IBS_FETCH_CTL_OC_MISS),
			 (int)pb_ibs_field(v, PB_IBS_FETCH_CTL_L3_MISS));
	fprintf(out,
		"ibs_fetch_ctl:\t%016llx MaxCnt %7d Cnt %7d Lat %5d En %d Val %d Comp %d%s "
		"PhyAddrValid %d%s L1TlbMiss %d L2TlbMiss %d RandEn %d%s%s\n",
		(unsigned long long)v, (int)(c->max_cnt << 4), (int)(c->cnt << 4), (int)c->lat,
		c->en, c->val, c->comp, ic_miss, c->phy_addr_valid, l1pg, c->l1tlb_miss,
		c->l2tlb_miss, c->rand_en, l2miss, l3);
	lines++;
	fprintf(out, "IbsFetchLinAd:\t%016llx\n", (unsigned long long)s->fetch.lin_addr);
	lines++;
	if (c->phy_addr_valid) {
		fprintf(out, "IbsFetchPhysAd:\t%016llx\n", (unsigned long long)s->fetch.phys_addr);
		lines++;
	}
	if (s->fetch.has_extd_ctl) {
		fprintf(out, "ic_ibs_ext_ctl:\t%016llx IbsItlbRefillLat %3d\n",
			(unsigned long long)s->fetch.extd_ctl_raw, (int)s->fetch.itlb_refill_lat);
		lines++;
	}
	return lines;
}

static void print_op_data2(FILE *out, const struct pb_ibs_sample *s)
{
	uint64_t v = s->op.data2.raw;
	unsigned lo = (unsigned)pb_ibs_field(v, PB_IBS_OP_DATA2_DATA_SRC_LO);
	bool hit_st = pb_ibs_field(v, PB_IBS_OP_DATA2_CACHE_HIT_ST);
	const char *hit = hit_st ? "CacheHitSt 1=O-State " : "CacheHitSt 0=M-state ";
	char src[96] = "";
	unsigned ds;
	bool show_hit;

	if (s->cpu.zen4_ibs_extensions) {
		ds = ((unsigned)pb_ibs_field(v, PB_IBS_OP_DATA2_DATA_SRC_HI) << 3) | lo;
		show_hit = ds == 1 || ds == 2 || ds == 5;
		if (ds != 0 && ds < 13)
			snprintf(src, sizeof(src), " DataSrc %u=%s", ds, data_src_zen4[ds]);
	} else {
		ds = lo;
		show_hit = ds == 2;
		if (ds != 0)
			snprintf(src, sizeof(src), " DataSrc %u=%s", ds, data_src_pre_zen4[ds]);
	}
	fprintf(out, "ibs_op_data2:\t%016llx %sRmtNode %d%s\n", (unsigned long long)v,
		show_hit ? hit : "", (int)pb_ibs_field(v, PB_IBS_OP_DATA2_RMT_NODE), src);
}

static int print_op(FILE *out, const struct pb_ibs_sample *s)
{
	const struct pb_ibs_op *o = &s->op;
	const struct pb_ibs_op_ctl *c = &o->ctl;
	const struct pb_ibs_op_data *d = &o->data;
	const struct pb_ibs_op_data3 *d3 = &o->data3;
	uint64_t v3 = d3->raw;
	char l3only[24] = "", ret[16] = "", taken[16] = "", misp[16] = "";
	char l2miss[16] = "", width[32] = "", reqs[32] = "";
	int lines = 0;

	if (s->cpu.zen4_ibs_extensions)
		snprintf(l3only, sizeof(l3only), " L3MissOnly %d",
			 (int)pb_ibs_field(c->raw, PB_IBS_OP_CTL_L3_MISS_ONLY));
	fprintf(out, "ibs_op_ctl:\t%016llx MaxCnt %9d%s En %d Val %d CntCtl %d=%s CurCnt %9d\n",
		(unsigned long long)c->raw, (int)c->period, l3only, c->en, c->val, c->cnt_ctl,
		c->cnt_ctl ? "uOps" : "cycles", (int)c->cur_cnt);
	lines++;
	if (!d->rip_invalid) {
		fprintf(out, "IbsOpRip:\t%016llx\n", (unsigned long long)o->rip);
		lines++;
	}
	if (d->brn_ret) {
		snprintf(ret, sizeof(ret), " OpReturn %d", d->op_return);
		snprintf(taken, sizeof(taken), " OpBrnTaken %d", d->brn_taken);
		snprintf(misp, sizeof(misp), " OpBrnMisp %d", d->brn_misp);
	}
	fprintf(out,
		"ibs_op_data:\t%016llx CompToRetCtr %5d TagToRetCtr %5d%s%s%s BrnRet %d "
		" RipInvalid %d BrnFuse %d Microcode %d\n",
		(unsigned long long)d->raw, (int)d->comp_to_ret_ctr, (int)d->tag_to_ret_ctr, ret,
		taken, misp, d->brn_ret, d->rip_invalid, d->brn_fuse, d->microcode);
	lines++;
	if (o->data2.trusted) {
		print_op_data2(out, s);
		lines++;
	}
	if (d3->l2_miss_valid) {
		snprintf(l2miss, sizeof(l2miss), " L2Miss %d", d3->l2_miss);
		snprintf(reqs, sizeof(reqs), " OpDcMissOpenMemReqs %2d", (int)d3->dc_miss_open_mem_reqs);
	}
	if (d3->op_mem_width)
		snprintf(width, sizeof(width), " OpMemWidth %2d bytes", (int)d3->op_mem_bytes);
	/* perf 6.1 names bits 4, 5, 6, 19 by their Zen 3/4 meaning on every CPU. */
	fprintf(out,
		"ibs_op_data3:\t%016llx LdOp %d StOp %d DcL1TlbMiss %d DcL2TlbMiss %d "
		"DcL1TlbHit2M %d DcL1TlbHit1G %d DcL2TlbHit2M %d DcMiss %d DcMisAcc %d "
		"DcWcMemAcc %d DcUcMemAcc %d DcLockedOp %d DcMissNoMabAlloc %d DcLinAddrValid %d "
		"DcPhyAddrValid %d DcL2TlbHit1G %d%s SwPf %d%s%s DcMissLat %5d TlbRefillLat %5d\n",
		(unsigned long long)v3, d3->ld_op, d3->st_op, d3->dc_l1tlb_miss, d3->dc_l2tlb_miss,
		d3->dc_l1tlb_hit_2m, d3->dc_l1tlb_hit_1g, d3->dc_l2tlb_hit_2m, d3->dc_miss,
		d3->dc_mis_acc, d3->dc_wc_mem_acc, d3->dc_uc_mem_acc, d3->dc_locked_op,
		d3->dc_miss_no_mab_alloc, d3->dc_lin_addr_valid, d3->dc_phy_addr_valid,
		d3->dc_l2tlb_hit_1g, l2miss, d3->sw_pf, width, reqs, (int)d3->dc_miss_lat,
		(int)d3->tlb_refill_lat);
	lines++;
	if (d3->dc_lin_addr_valid) {
		fprintf(out, "IbsDCLinAd:\t%016llx\n", (unsigned long long)o->dc_lin_addr);
		lines++;
	}
	if (d3->dc_phy_addr_valid) {
		fprintf(out, "IbsDCPhysAd:\t%016llx\n", (unsigned long long)o->dc_phys_addr);
		lines++;
	}
	if (o->has_br_target && d->brn_ret && o->br_target) {
		fprintf(out, "IbsBrTarget:\t%016llx\n", (unsigned long long)o->br_target);
		lines++;
	}
	return lines;
}

int pb_ibs_print(FILE *out, const struct pb_ibs_sample *s)
{
	if (!s->valid)
		return 0;
	return s->kind == PB_IBS_FETCH ? print_fetch(out, s) : print_op(out, s);
}

static const char *const op_flag_names[PB_IBS_OP_NFLAGS] = {
	"load", "store", "branch", "taken", "mispredicted", "return", "locked", "l1-miss",
	"l2-miss", "dtlb-l1-miss", "dtlb-l2-miss", "uncacheable", "misaligned", "sw-prefetch",
	"rip-invalid", "fused", "microcode",
};

const char *pb_ibs_op_flag_name(uint32_t flag)
{
	for (unsigned i = 0; i < PB_IBS_OP_NFLAGS; i++)
		if (flag == (1u << i))
			return op_flag_names[i];
	return NULL;
}

int pb_ibs_op_filter_parse(const char *text, uint32_t *mask, struct pb_error *err)
{
	uint32_t m = 0;
	const char *p = text ? text : "";

	while (*p) {
		size_t n = strcspn(p, "+,");
		unsigned i;
		for (i = 0; i < PB_IBS_OP_NFLAGS; i++)
			if (strlen(op_flag_names[i]) == n && strncmp(p, op_flag_names[i], n) == 0)
				break;
		if (i == PB_IBS_OP_NFLAGS) {
			char known[320] = "";
			for (unsigned k = 0; k < PB_IBS_OP_NFLAGS; k++)
				pb_list_add(known, sizeof known, op_flag_names[k]);
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "unknown IBS op filter '%.*s'; use names joined by '+' from: %s",
				       (int)(n > 64 ? 64 : n), p, known);
		}
		m |= 1u << i;
		p += n;
		if (*p)
			p++;
	}
	if (!m)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "empty IBS op filter; name at least one class, e.g. load+l1-miss");
	*mask = m;
	return 0;
}

bool pb_ibs_op_matches(const struct pb_ibs_op_class *c, uint32_t mask)
{
	return (c->flags & mask) == mask;
}

int pb_ibs_op_classify(const struct pb_ibs_sample *s, struct pb_ibs_op_class *out,
		       struct pb_error *err)
{
	memset(out, 0, sizeof(*out));
	out->data_src = -1;
	if (s->kind != PB_IBS_OP)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "only ibs_op samples can be classified; this is an ibs_fetch sample");

	const struct pb_ibs_op *o = &s->op;
	const struct pb_ibs_op_data *d = &o->data;
	const struct pb_ibs_op_data3 *d3 = &o->data3;
	bool mem = d3->ld_op || d3->st_op;
	uint32_t f = 0;

	if (d3->ld_op)
		f |= PB_IBS_OP_LOAD;
	if (d3->st_op)
		f |= PB_IBS_OP_STORE;
	/* Return, taken and mispredicted are defined only for a retired branch. */
	if (d->brn_ret) {
		f |= PB_IBS_OP_BRANCH;
		if (d->brn_taken)
			f |= PB_IBS_OP_TAKEN;
		if (d->brn_misp)
			f |= PB_IBS_OP_MISPREDICTED;
		if (d->op_return)
			f |= PB_IBS_OP_RETURN;
	}
	/* The data-cache bits describe the memory access of a load or store only. */
	if (mem) {
		if (d3->dc_locked_op)
			f |= PB_IBS_OP_LOCKED;
		if (d3->dc_miss) {
			f |= PB_IBS_OP_L1_MISS;
			if (d3->l2_miss && d3->l2_miss_valid)
				f |= PB_IBS_OP_L2_MISS;
		}
		if (d3->dc_l1tlb_miss)
			f |= PB_IBS_OP_DTLB_L1_MISS;
		if (d3->dc_l2tlb_miss)
			f |= PB_IBS_OP_DTLB_L2_MISS;
		if (d3->dc_uc_mem_acc)
			f |= PB_IBS_OP_UNCACHEABLE;
		if (d3->dc_mis_acc)
			f |= PB_IBS_OP_MISALIGNED;
		if (d3->dc_lin_addr_valid) {
			out->data_addr = o->dc_lin_addr;
			out->data_addr_valid = true;
		}
	}
	if (d3->sw_pf)
		f |= PB_IBS_OP_SW_PREFETCH;
	if (d->rip_invalid)
		f |= PB_IBS_OP_RIP_INVALID;
	if (d->brn_fuse)
		f |= PB_IBS_OP_FUSED;
	if (d->microcode)
		f |= PB_IBS_OP_MICROCODE;

	/* As the kernel's PERF_SAMPLE_WEIGHT: the miss latency of a load that missed L1. */
	if (d3->ld_op && d3->dc_miss)
		out->latency = d3->dc_miss_lat;
	if (d3->ld_op && o->data2.trusted)
		out->data_src = (int)o->data2.data_src;
	out->flags = f;
	return 0;
}

bool pb_ibs_kind_of_pmu(const char *pmu, enum pb_ibs_kind *kind)
{
	if (!strncmp(pmu, "ibs_op", 6))
		*kind = PB_IBS_OP;
	else if (!strncmp(pmu, "ibs_fetch", 9))
		*kind = PB_IBS_FETCH;
	else
		return false;
	return true;
}

/* ---- IBS events of a perf.data file ---- */

static bool cap_on(const struct pb_perfdata *pd, const char *name)
{
	const char *v = pb_perfdata_pmu_cap(pd, "ibs_op", name);
	return v && strcmp(v, "0") != 0;
}

bool pb_perfdata_ibs_event(const struct pb_perfdata *pd, size_t index, enum pb_ibs_kind *kind,
			   struct pb_ibs_cpu *cpu)
{
	const char *cpuid = pb_perfdata_cpuid(pd), *arch = pb_perfdata_arch(pd);
	if (index >= pb_perfdata_nevents(pd) || strncmp(cpuid, "AuthenticAMD", 12) != 0)
		return false;
	if (arch[0] && strcmp(arch, "x86_64") && strcmp(arch, "i386") && strcmp(arch, "i686"))
		return false;
	/* the reader hands out events for writing; this only reads the attr */
	uint32_t type = pb_perfdata_event((struct pb_perfdata *)pd, index)->attr.type;
	const char *pmu = pb_perfdata_pmu_name(pd, type);
	if (!pmu)
		return false;
	if (!pb_ibs_kind_of_pmu(pmu, kind))
		return false;
	memset(cpu, 0, sizeof(*cpu));
	unsigned fam = 0, model = 0;
	if (sscanf(cpuid, "%*[^,],%u,%u", &fam, &model) == 2) {
		cpu->family = fam;
		cpu->model = model;
	}
	cpu->zen4_ibs_extensions = cap_on(pd, "zen4_ibs_extensions");
	cpu->ldlat = cap_on(pd, "ldlat");
	cpu->dtlb_pgsize = cap_on(pd, "dtlb_pgsize");
	return true;
}

/* ---- pesbench perfdata: IBS payloads of a file's samples, as perf report -D prints them ---- */

struct ibs_file {
	size_t nevents;             /* the events open saw; later ones (pipe mode) are not IBS's */
	bool *is_ibs;
	enum pb_ibs_kind *kind;
	struct pb_ibs_cpu *cpu;
	uint64_t decoded, bad;
};

static void ibs_file_close(void *state)
{
	struct ibs_file *f = state;
	if (!f)
		return;
	free(f->is_ibs);
	free(f->kind);
	free(f->cpu);
	free(f);
}

static void *ibs_file_open(struct pb_perfdata *pd, struct pb_error *err)
{
	size_t n = pb_perfdata_nevents(pd);
	struct ibs_file *f = calloc(1, sizeof *f);
	if (f) {
		f->is_ibs = calloc(n ? n : 1, sizeof *f->is_ibs);
		f->kind = calloc(n ? n : 1, sizeof *f->kind);
		f->cpu = calloc(n ? n : 1, sizeof *f->cpu);
	}
	if (!f || !f->is_ibs || !f->kind || !f->cpu) {
		ibs_file_close(f);
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		return NULL;
	}
	f->nevents = n;
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= f->is_ibs[i] = pb_perfdata_ibs_event(pd, i, &f->kind[i], &f->cpu[i]);
	if (!any) {
		ibs_file_close(f);
		return NULL;
	}
	return f;
}

static void ibs_file_dump(void *state, int event, const struct pb_sample *s, FILE *out)
{
	struct ibs_file *f = state;
	if (!(s->sample_type & PERF_SAMPLE_RAW) || event < 0 || (size_t)event >= f->nevents ||
	    !f->is_ibs[event] || !s->raw)
		return;
	struct pb_ibs_sample ibs;
	struct pb_error err = {0};
	if (pb_ibs_decode(s->raw, s->raw_size, f->kind[event], &f->cpu[event], &ibs, &err)) {
		f->bad++;
		fprintf(out, "  (IBS payload not decoded: %s)\n", err.msg);
		return;
	}
	f->decoded++;
	pb_ibs_print(out, &ibs);
}

static void ibs_file_summary(const void *state, FILE *out)
{
	const struct ibs_file *f = state;
	if (f->decoded + f->bad)
		fprintf(out, "\n  IBS payloads: %" PRIu64 " decoded, %" PRIu64 " not decodable\n",
			f->decoded, f->bad);
}

const struct pb_perfdata_decoder pb_ibs_perfdata_decoder = {
	.about = "AMD IBS raw payloads, decoded as `perf report -D` prints them, when the file's "
		 "PMU mappings name ibs_op / ibs_fetch",
	.open = ibs_file_open,
	.dump = ibs_file_dump,
	.dump_summary = ibs_file_summary,
	.close = ibs_file_close,
};
