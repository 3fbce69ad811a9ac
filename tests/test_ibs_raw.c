/* IBS raw decoding with constructed payloads: every register field alone, caps-decided layout,
 * errata by family/model, Zen 4 / Zen 5 layout changes, perf 6.1's print format, the op
 * classifier, and truncation at every length. */
#include "check.h"
#include "facilities/ibs_raw.h"
#include "facilities/machine.h"
#include "util/kit.h"

#include <stdio.h>

/* caps of a Zen 4 part as the kernel reports them, minus the optional-register bits, which each
 * test sets explicitly. */
#define CAPS_BASE (PB_IBS_CAPS_AVAIL | PB_IBS_CAPS_FETCHSAM | PB_IBS_CAPS_OPSAM | \
		   PB_IBS_CAPS_OPCNT | PB_IBS_CAPS_OPCNTEXT | PB_IBS_CAPS_RIPINVALIDCHK)

static const struct pb_ibs_cpu zen4_cpu = { 0x19, 0x61, true, true, false };
static const struct pb_ibs_cpu zen2_cpu = { 0x17, 0x31, false, false, false };
static const struct pb_ibs_cpu milan_cpu = { 0x19, 0x01, false, false, false };

/* Payload bytes: u32 caps then u64 regs, little-endian, exactly as PERF_SAMPLE_RAW holds them. */
static size_t build(unsigned char *buf, uint32_t caps, const uint64_t *regs, unsigned n)
{
	for (unsigned i = 0; i < 4; i++)
		buf[i] = (unsigned char)(caps >> (8 * i));
	for (unsigned r = 0; r < n; r++)
		for (unsigned i = 0; i < 8; i++)
			buf[4 + 8 * r + i] = (unsigned char)(regs[r] >> (8 * i));
	return 4 + 8 * (size_t)n;
}

static int decode(enum pb_ibs_kind kind, uint32_t caps, const uint64_t *regs, unsigned n,
		  const struct pb_ibs_cpu *cpu, struct pb_ibs_sample *s, struct pb_error *err)
{
	unsigned char buf[4 + 8 * PB_IBS_MAX_REGS];
	size_t len = build(buf, caps, regs, n);
	/* An exact-size heap copy lets ASan catch any read past the payload. */
	unsigned char *heap = malloc(len);
	memcpy(heap, buf, len);
	int rc = pb_ibs_decode(heap, len, kind, cpu, s, err);
	free(heap);
	return rc;
}

static char *print_to_string(const struct pb_ibs_sample *s, int *lines)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int n = pb_ibs_print(f, s);
	fclose(f);
	if (lines)
		*lines = n;
	return text;
}

/* ---- one field at a time -------------------------------------------------------------- */

typedef uint64_t (*getter)(const struct pb_ibs_sample *s);
#define GET(name, expr) \
	static uint64_t get_##name(const struct pb_ibs_sample *s) { return (uint64_t)(expr); }

GET(f_max_cnt, s->fetch.ctl.max_cnt)
GET(f_cnt, s->fetch.ctl.cnt)
GET(f_lat, s->fetch.ctl.lat)
GET(f_en, s->fetch.ctl.en)
GET(f_val, s->fetch.ctl.val)
GET(f_comp, s->fetch.ctl.comp)
GET(f_ic_miss, s->fetch.ctl.ic_miss)
GET(f_phy_addr_valid, s->fetch.ctl.phy_addr_valid)
GET(f_l1tlb_pgsz, s->fetch.ctl.l1tlb_pgsz)
GET(f_l1tlb_miss, s->fetch.ctl.l1tlb_miss)
GET(f_l2tlb_miss, s->fetch.ctl.l2tlb_miss)
GET(f_rand_en, s->fetch.ctl.rand_en)
GET(f_l2_miss, s->fetch.ctl.l2_miss)
GET(f_l3_miss_only, s->fetch.ctl.l3_miss_only)
GET(f_oc_miss, s->fetch.ctl.oc_miss)
GET(f_l3_miss, s->fetch.ctl.l3_miss)
GET(f_lin_addr, s->fetch.lin_addr)
GET(f_phys_addr, s->fetch.phys_addr)
GET(f_itlb_refill_lat, s->fetch.itlb_refill_lat)

GET(o_max_cnt, s->op.ctl.max_cnt)
GET(o_l3_miss_only, s->op.ctl.l3_miss_only)
GET(o_en, s->op.ctl.en)
GET(o_val, s->op.ctl.val)
GET(o_cnt_ctl, s->op.ctl.cnt_ctl)
GET(o_max_cnt_ext, s->op.ctl.max_cnt_ext)
GET(o_cur_cnt, s->op.ctl.cur_cnt)
GET(o_ldlat_thrsh, s->op.ctl.ldlat_thrsh)
GET(o_ldlat_en, s->op.ctl.ldlat_en)
GET(o_rip, s->op.rip)
GET(o_comp_to_ret, s->op.data.comp_to_ret_ctr)
GET(o_tag_to_ret, s->op.data.tag_to_ret_ctr)
GET(o_return, s->op.data.op_return)
GET(o_brn_taken, s->op.data.brn_taken)
GET(o_brn_misp, s->op.data.brn_misp)
GET(o_brn_ret, s->op.data.brn_ret)
GET(o_rip_invalid, s->op.data.rip_invalid)
GET(o_brn_fuse, s->op.data.brn_fuse)
GET(o_microcode, s->op.data.microcode)
GET(o_data_src_lo, s->op.data2.data_src_lo)
GET(o_rmt_node, s->op.data2.rmt_node)
GET(o_cache_hit_st, s->op.data2.cache_hit_st)
GET(o_data_src_hi, s->op.data2.data_src_hi)
GET(o_strm_st, s->op.data2.strm_st)
GET(o_rmt_socket, s->op.data2.rmt_socket)
GET(o_ld_op, s->op.data3.ld_op)
GET(o_st_op, s->op.data3.st_op)
GET(o_dc_l1tlb_miss, s->op.data3.dc_l1tlb_miss)
GET(o_dc_l2tlb_miss, s->op.data3.dc_l2tlb_miss)
GET(o_dc_l1tlb_hit_2m, s->op.data3.dc_l1tlb_hit_2m)
GET(o_dc_l1tlb_hit_1g, s->op.data3.dc_l1tlb_hit_1g)
GET(o_dc_l2tlb_hit_2m, s->op.data3.dc_l2tlb_hit_2m)
GET(o_dc_miss, s->op.data3.dc_miss)
GET(o_dc_mis_acc, s->op.data3.dc_mis_acc)
GET(o_dc_wc_mem_acc, s->op.data3.dc_wc_mem_acc)
GET(o_dc_uc_mem_acc, s->op.data3.dc_uc_mem_acc)
GET(o_dc_locked_op, s->op.data3.dc_locked_op)
GET(o_dc_miss_no_mab_alloc, s->op.data3.dc_miss_no_mab_alloc)
GET(o_dc_lin_addr_valid, s->op.data3.dc_lin_addr_valid)
GET(o_dc_phy_addr_valid, s->op.data3.dc_phy_addr_valid)
GET(o_dc_l2tlb_hit_1g, s->op.data3.dc_l2tlb_hit_1g)
GET(o_l2_miss, s->op.data3.l2_miss)
GET(o_sw_pf, s->op.data3.sw_pf)
GET(o_op_mem_width, s->op.data3.op_mem_width)
GET(o_open_mem_reqs, s->op.data3.dc_miss_open_mem_reqs)
GET(o_dc_miss_lat, s->op.data3.dc_miss_lat)
GET(o_tlb_refill_lat, s->op.data3.tlb_refill_lat)
GET(o_dc_lin_addr, s->op.dc_lin_addr)
GET(o_dc_phys_addr, s->op.dc_phys_addr)
GET(o_br_target, s->op.br_target)
GET(o_op_data4, s->op.op_data4)

struct field {
	const char *name;
	unsigned reg, lo, width;
	getter get;
};

#define FLD(name, reg, lo, width) { #name, reg, lo, width, get_##name }

static const struct field fetch_fields[] = {
	FLD(f_max_cnt, 0, 0, 16), FLD(f_cnt, 0, 16, 16), FLD(f_lat, 0, 32, 16),
	FLD(f_en, 0, 48, 1), FLD(f_val, 0, 49, 1), FLD(f_comp, 0, 50, 1),
	FLD(f_ic_miss, 0, 51, 1), FLD(f_phy_addr_valid, 0, 52, 1), FLD(f_l1tlb_pgsz, 0, 53, 2),
	FLD(f_l1tlb_miss, 0, 55, 1), FLD(f_l2tlb_miss, 0, 56, 1), FLD(f_rand_en, 0, 57, 1),
	FLD(f_l2_miss, 0, 58, 1), FLD(f_l3_miss_only, 0, 59, 1), FLD(f_oc_miss, 0, 60, 1),
	FLD(f_l3_miss, 0, 61, 1), FLD(f_lin_addr, 1, 0, 64), FLD(f_phys_addr, 2, 0, 64),
	FLD(f_itlb_refill_lat, 3, 0, 16),
};

static const struct field op_fields[] = {
	FLD(o_max_cnt, 0, 0, 16), FLD(o_l3_miss_only, 0, 16, 1), FLD(o_en, 0, 17, 1),
	FLD(o_val, 0, 18, 1), FLD(o_cnt_ctl, 0, 19, 1), FLD(o_max_cnt_ext, 0, 20, 7),
	FLD(o_cur_cnt, 0, 32, 27), FLD(o_ldlat_thrsh, 0, 59, 4), FLD(o_ldlat_en, 0, 63, 1),
	FLD(o_rip, 1, 0, 64),
	FLD(o_comp_to_ret, 2, 0, 16), FLD(o_tag_to_ret, 2, 16, 16), FLD(o_return, 2, 34, 1),
	FLD(o_brn_taken, 2, 35, 1), FLD(o_brn_misp, 2, 36, 1), FLD(o_brn_ret, 2, 37, 1),
	FLD(o_rip_invalid, 2, 38, 1), FLD(o_brn_fuse, 2, 39, 1), FLD(o_microcode, 2, 40, 1),
	FLD(o_data_src_lo, 3, 0, 3), FLD(o_rmt_node, 3, 4, 1), FLD(o_cache_hit_st, 3, 5, 1),
	FLD(o_data_src_hi, 3, 6, 2), FLD(o_strm_st, 3, 8, 1), FLD(o_rmt_socket, 3, 9, 1),
	FLD(o_ld_op, 4, 0, 1), FLD(o_st_op, 4, 1, 1), FLD(o_dc_l1tlb_miss, 4, 2, 1),
	FLD(o_dc_l2tlb_miss, 4, 3, 1), FLD(o_dc_l1tlb_hit_2m, 4, 4, 1),
	FLD(o_dc_l1tlb_hit_1g, 4, 5, 1), FLD(o_dc_l2tlb_hit_2m, 4, 6, 1), FLD(o_dc_miss, 4, 7, 1),
	FLD(o_dc_mis_acc, 4, 8, 1), FLD(o_dc_wc_mem_acc, 4, 13, 1), FLD(o_dc_uc_mem_acc, 4, 14, 1),
	FLD(o_dc_locked_op, 4, 15, 1), FLD(o_dc_miss_no_mab_alloc, 4, 16, 1),
	FLD(o_dc_lin_addr_valid, 4, 17, 1), FLD(o_dc_phy_addr_valid, 4, 18, 1),
	FLD(o_dc_l2tlb_hit_1g, 4, 19, 1), FLD(o_l2_miss, 4, 20, 1), FLD(o_sw_pf, 4, 21, 1),
	FLD(o_op_mem_width, 4, 22, 4), FLD(o_open_mem_reqs, 4, 26, 6),
	FLD(o_dc_miss_lat, 4, 32, 16), FLD(o_tlb_refill_lat, 4, 48, 16),
	FLD(o_dc_lin_addr, 5, 0, 64), FLD(o_dc_phys_addr, 6, 0, 64), FLD(o_br_target, 7, 0, 64),
	FLD(o_op_data4, 8, 0, 64),
};

static uint64_t mask_of(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

/* Sets each field alone to two distinctive values (a bit pattern and all ones) on top of an
 * all-zero sample and checks that field reads back and every other field stays 0. */
static void check_fields_alone(enum pb_ibs_kind kind, const struct field *fields, unsigned nf,
			       uint32_t caps, unsigned nregs, const struct pb_ibs_cpu *cpu)
{
	for (unsigned i = 0; i < nf; i++) {
		const uint64_t m = mask_of(fields[i].width);
		const uint64_t values[2] = { (0xa5c3e1f00f1e3c5bull & m) | 1, m };
		for (unsigned v = 0; v < 2; v++) {
			uint64_t regs[PB_IBS_MAX_REGS] = { 0 };
			struct pb_ibs_sample s;
			struct pb_error err = { 0 };
			regs[fields[i].reg] = values[v] << fields[i].lo;
			int rc = decode(kind, caps, regs, nregs, cpu, &s, &err);
			CHECK(rc == 0);
			if (rc != 0) {
				fprintf(stderr, "  %s: %s\n", fields[i].name, err.msg);
				continue;
			}
			uint64_t got = fields[i].get(&s);
			if (got != values[v])
				fprintf(stderr, "  field %s: set 0x%llx, read 0x%llx\n", fields[i].name,
					(unsigned long long)values[v], (unsigned long long)got);
			CHECK_EQ_U64(got, values[v]);
			unsigned others_changed = 0;
			for (unsigned j = 0; j < nf; j++) {
				if (j != i && fields[j].get(&s) != 0) {
					fprintf(stderr, "  setting %s changed %s\n", fields[i].name,
						fields[j].name);
					others_changed++;
				}
			}
			CHECK_EQ_U64(others_changed, 0);
		}
	}
}

/* Bits no layout defines must not show up in any field. */
static void check_reserved_bits(void)
{
	uint64_t regs[PB_IBS_MAX_REGS] = { 0 };
	struct pb_ibs_sample s;
	unsigned changed = 0;

	regs[0] = 0xffull << 27 & 0xf8000000ull; /* OpCtl 27-31 */
	regs[2] = (3ull << 32) | (0x7fffffull << 41); /* OpData 32-33, 41-63 */
	regs[3] = (1ull << 3) | (~0ull << 10);        /* OpData2 3, 10-63 */
	regs[4] = 0xfull << 9;                         /* OpData3 9-12 */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT | PB_IBS_CAPS_OPDATA4, regs, 9,
		     &zen4_cpu, &s, NULL) == 0);
	for (unsigned j = 0; j < PB_ARRAY_SIZE(op_fields); j++)
		if (op_fields[j].get(&s) != 0) {
			fprintf(stderr, "  reserved op bits changed %s\n", op_fields[j].name);
			changed++;
		}
	CHECK_EQ_U64(changed, 0);

	uint64_t fregs[4] = { 3ull << 62, 0, 0, ~0ull << 16 };
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE | PB_IBS_CAPS_FETCHCTLEXTD, fregs, 4, &zen4_cpu, &s,
		     NULL) == 0);
	changed = 0;
	for (unsigned j = 0; j < PB_ARRAY_SIZE(fetch_fields); j++)
		if (fetch_fields[j].get(&s) != 0)
			changed++;
	CHECK_EQ_U64(changed, 0);
	CHECK_EQ_U64(s.fetch.extd_ctl_raw, ~0ull << 16);
}

static void test_fields(void)
{
	check_fields_alone(PB_IBS_FETCH, fetch_fields, PB_ARRAY_SIZE(fetch_fields),
			   CAPS_BASE | PB_IBS_CAPS_FETCHCTLEXTD, 4, &zen4_cpu);
	check_fields_alone(PB_IBS_OP, op_fields, PB_ARRAY_SIZE(op_fields),
			   CAPS_BASE | PB_IBS_CAPS_BRNTRGT | PB_IBS_CAPS_OPDATA4, 9, &zen4_cpu);
	check_reserved_bits();
}

/* ---- derived values ------------------------------------------------------------------- */

static void test_derived(void)
{
	uint64_t regs[9] = { 0 };
	struct pb_ibs_sample s;

	/* Period: 7 extension bits above the 16-bit MaxCnt, in units of 16. */
	regs[0] = 0xffffull | (0x7full << 20);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.period, 0x7fffff0ull);
	regs[0] = 1ull << 20;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.period, 0x100000ull);
	regs[0] = 0x1234;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.period, 0x12340ull);

	/* Load-latency threshold (v + 1) * 128, only with the ldlat capability and LdLatEn. */
	regs[0] = (1ull << 63) | (0ull << 59);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.ldlat_cycles, 128);
	regs[0] = (1ull << 63) | (15ull << 59);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.ldlat_cycles, 2048);
	regs[0] = 15ull << 59; /* threshold without LdLatEn: no filter */
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.ldlat_cycles, 0);
	CHECK_EQ_U64(s.op.ctl.ldlat_thrsh, 15);
	regs[0] = (1ull << 63) | (3ull << 59); /* a CPU without ldlat: bits are not the filter */
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen2_cpu, &s, NULL) == 0);
	CHECK(!s.op.ctl.ldlat_en);
	CHECK_EQ_U64(s.op.ctl.ldlat_cycles, 0);
	/* ... unless the payload's own caps say the CPU has it. */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_OPLDLAT, regs, 7, &zen2_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.ctl.ldlat_cycles, 512);

	/* OpMemWidth: 1 << (v - 1) bytes, 0 = not a memory op. */
	static const unsigned widths[][2] = { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 4 }, { 4, 8 },
					       { 5, 16 }, { 6, 32 }, { 7, 64 } };
	regs[0] = 0;
	for (unsigned i = 0; i < PB_ARRAY_SIZE(widths); i++) {
		regs[4] = (uint64_t)widths[i][0] << 22;
		CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
		CHECK_EQ_U64(s.op.data3.op_mem_bytes, widths[i][1]);
	}

	/* RIP validity follows RipInvalid. */
	regs[4] = 0;
	regs[2] = 1ull << 38;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK(!s.op.rip_valid);
	regs[2] = 0;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK(s.op.rip_valid);

	/* Fetch L2Miss means something only for a completed fetch. */
	uint64_t f[3] = { 1ull << 58, 0, 0 };
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen4_cpu, &s, NULL) == 0);
	CHECK(s.fetch.ctl.l2_miss && !s.fetch.ctl.l2_miss_valid);
	f[0] |= 1ull << 50;
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen4_cpu, &s, NULL) == 0);
	CHECK(s.fetch.ctl.l2_miss_valid);

	/* Validity: En and Val both. */
	f[0] = 1ull << 48;
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen4_cpu, &s, NULL) == 0);
	CHECK(!s.valid);
	f[0] |= 1ull << 49;
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen4_cpu, &s, NULL) == 0);
	CHECK(s.valid);
}

/* ---- caps decide the layout ------------------------------------------------------------ */

static void test_caps_vs_length(void)
{
	uint64_t regs[9] = { 0x60000, 0x401000, 0, 0, 0, 0, 0, 0x7777777777, 0x9999999999 };
	struct pb_ibs_sample s;
	struct pb_error err = { 0 };

	/* 8 registers, BrTarget only: the 8th is the branch target. */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, regs, 8, &zen4_cpu, &s, &err) == 0);
	CHECK(s.op.has_br_target && !s.op.has_op_data4);
	CHECK_EQ_U64(s.op.br_target, 0x7777777777ull);
	CHECK_EQ_U64(s.nregs, 8);
	/* 8 registers, OpData4 only: the same bytes are OpData4. */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_OPDATA4, regs, 8, &zen4_cpu, &s, &err) == 0);
	CHECK(!s.op.has_br_target && s.op.has_op_data4);
	CHECK_EQ_U64(s.op.op_data4, 0x7777777777ull);
	CHECK_EQ_U64(s.op.br_target, 0);
	/* Both: BrTarget first, then OpData4. */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT | PB_IBS_CAPS_OPDATA4, regs, 9,
		     &zen4_cpu, &s, &err) == 0);
	CHECK_EQ_U64(s.op.br_target, 0x7777777777ull);
	CHECK_EQ_U64(s.op.op_data4, 0x9999999999ull);
	/* 8 registers but caps say 9: truncated. */
	pb_error_clear(&err);
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT | PB_IBS_CAPS_OPDATA4, regs, 8,
		     &zen4_cpu, &s, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "truncated");
	CHECK_STR_CONTAINS(err.msg, "68 bytes");
	CHECK_STR_CONTAINS(err.msg, "9 registers");
	/* 8 registers but caps say 7: the length must not be taken as a hint. */
	pb_error_clear(&err);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, regs, 8, &zen4_cpu, &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "longer than its caps allow");
	CHECK_STR_CONTAINS(err.msg, "BrTarget no");
	/* 7 registers with BrTarget in caps: truncated. */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, regs, 7, &zen4_cpu, &s, &err) == -1);

	/* Fetch: IcIbsExtdCtl present only with caps bit 9. */
	uint64_t f[4] = { 3ull << 48, 0x401000, 0x1000, 0x2a };
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE | PB_IBS_CAPS_FETCHCTLEXTD, f, 4, &zen4_cpu, &s,
		     &err) == 0);
	CHECK(s.fetch.has_extd_ctl);
	CHECK_EQ_U64(s.fetch.itlb_refill_lat, 0x2a);
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen4_cpu, &s, &err) == 0);
	CHECK(!s.fetch.has_extd_ctl);
	CHECK_EQ_U64(s.fetch.itlb_refill_lat, 0);
	pb_error_clear(&err);
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 4, &zen4_cpu, &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "ibs_fetch");
	CHECK_STR_CONTAINS(err.msg, "IcIbsExtdCtl no");
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE | PB_IBS_CAPS_FETCHCTLEXTD, f, 3, &zen4_cpu, &s,
		     &err) == -1);
	CHECK_EQ_U64(pb_ibs_expected_regs(PB_IBS_OP, 0), 7);
	CHECK_EQ_U64(pb_ibs_expected_regs(PB_IBS_OP, PB_IBS_CAPS_BRNTRGT | PB_IBS_CAPS_OPDATA4), 9);
	CHECK_EQ_U64(pb_ibs_expected_regs(PB_IBS_FETCH, PB_IBS_CAPS_FETCHCTLEXTD), 4);
	/* Unaligned payloads decode the same. */
	unsigned char buf[1 + 4 + 8 * 8];
	build(buf + 1, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, regs, 8);
	CHECK(pb_ibs_decode(buf + 1, 4 + 8 * 8, PB_IBS_OP, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.rip, 0x401000);
	CHECK_EQ_U64(s.op.br_target, 0x7777777777ull);
}

/* Every length short of (and just past) a full payload fails cleanly, reading nothing past it. */
static void test_truncated_every_length(void)
{
	static const struct { enum pb_ibs_kind kind; uint32_t caps; unsigned n; } cases[] = {
		{ PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT | PB_IBS_CAPS_OPDATA4, 9 },
		{ PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, 8 },
		{ PB_IBS_OP, CAPS_BASE, 7 },
		{ PB_IBS_FETCH, CAPS_BASE | PB_IBS_CAPS_FETCHCTLEXTD, 4 },
		{ PB_IBS_FETCH, CAPS_BASE, 3 },
	};
	for (unsigned c = 0; c < PB_ARRAY_SIZE(cases); c++) {
		uint64_t regs[9] = { 3ull << 17, 1, 2, 3, 4, 5, 6, 7, 8 };
		unsigned char full[4 + 8 * 9 + 8];
		size_t full_len = build(full, cases[c].caps, regs, cases[c].n);
		unsigned failures = 0, wrong_code = 0;
		for (size_t len = 0; len <= full_len + 8; len++) {
			if (len == full_len)
				continue;
			unsigned char *heap = malloc(len ? len : 1);
			memcpy(heap, full, len);
			struct pb_ibs_sample s;
			struct pb_error err = { 0 };
			if (pb_ibs_decode(heap, len, cases[c].kind, &zen4_cpu, &s, &err) == -1)
				failures++;
			if (err.code != PB_EXIT_BAD_FILE || err.msg[0] == 0)
				wrong_code++;
			free(heap);
		}
		CHECK_EQ_U64(failures, full_len + 8);
		CHECK_EQ_U64(wrong_code, 0);
		struct pb_ibs_sample s;
		CHECK(pb_ibs_decode(full, full_len, cases[c].kind, &zen4_cpu, &s, NULL) == 0);
	}
	struct pb_error err = { 0 };
	struct pb_ibs_sample s;
	CHECK(pb_ibs_decode(NULL, 0, PB_IBS_OP, &zen4_cpu, &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "no caps word");
	CHECK(pb_ibs_decode(NULL, 0, (enum pb_ibs_kind)7, &zen4_cpu, &s, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
}

/* ---- errata ------------------------------------------------------------------------------ */

static void test_errata(void)
{
	struct pb_ibs_sample s;
	/* Fetch: IcMiss set, phys valid, L1TlbPgSz = 1. */
	uint64_t f[3] = { (3ull << 48) | (1ull << 51) | (1ull << 52) | (1ull << 53), 0x1000, 0x2000 };
	static const struct { unsigned fam, model; bool early; } cpus[] = {
		{ 0x19, 0x00, true }, { 0x19, 0x01, true }, { 0x19, 0x0f, true },
		{ 0x19, 0x10, false }, { 0x19, 0x21, false }, { 0x17, 0x01, false },
		{ 0x1a, 0x02, false },
	};
	for (unsigned i = 0; i < PB_ARRAY_SIZE(cpus); i++) {
		struct pb_ibs_cpu cpu = { cpus[i].fam, cpus[i].model, false, false, false };
		CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &cpu, &s, NULL) == 0);
		/* #1238: IcMiss is unreliable on early family 0x19. */
		CHECK(s.fetch.ctl.ic_miss_valid == !cpus[i].early);
		/* #1347: the page size table differs (1 = 16K there, 2M elsewhere). */
		CHECK_EQ_U64(s.fetch.ctl.l1tlb_page_bytes, cpus[i].early ? 16384 : (2u << 20));
		char *text = print_to_string(&s, NULL);
		if (cpus[i].early) {
			CHECK(strstr(text, "IcMiss") == NULL);
			CHECK_STR_CONTAINS(text, " L1TlbPgSz 16KB ");
		} else {
			CHECK_STR_CONTAINS(text, " IcMiss 1 ");
			CHECK_STR_CONTAINS(text, " L1TlbPgSz 2MB ");
		}
		free(text);
	}
	/* Page size tables in full. */
	static const uint64_t normal[4] = { 4096, 2u << 20, 1u << 30, 0 };
	static const uint64_t e1347[4] = { 4096, 16384, 2u << 20, 1u << 30 };
	for (unsigned pg = 0; pg < 4; pg++) {
		f[0] = (3ull << 48) | (1ull << 52) | ((uint64_t)pg << 53);
		CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen2_cpu, &s, NULL) == 0);
		CHECK_EQ_U64(s.fetch.ctl.l1tlb_page_bytes, normal[pg]);
		CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &milan_cpu, &s, NULL) == 0);
		CHECK_EQ_U64(s.fetch.ctl.l1tlb_page_bytes, e1347[pg]);
	}
	f[0] = (3ull << 48) | (1ull << 53); /* page size without PhyAddrValid means nothing */
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen2_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.fetch.ctl.l1tlb_page_bytes, 0);

	/* #1293: SwPf or DcMissNoMabAlloc on early family 0x19 voids OpData2, L2Miss and
	 * OpDcMissOpenMemReqs. */
	static const uint64_t triggers[2] = { 1ull << 21, 1ull << 16 };
	for (unsigned t = 0; t < 2; t++) {
		uint64_t o[7] = { 3ull << 17, 0x401000, 0, 3 /* DRAM */,
				  triggers[t] | 1 /* LdOp */ | (1ull << 7) | (1ull << 20) | (5ull << 26),
				  0, 0 };
		struct pb_ibs_op_class cls;
		CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &milan_cpu, &s, NULL) == 0);
		CHECK(!s.op.data2.trusted && !s.op.data3.l2_miss_valid &&
		      !s.op.data3.open_mem_reqs_valid);
		CHECK(pb_ibs_op_classify(&s, &cls, NULL) == 0);
		CHECK(!(cls.flags & PB_IBS_OP_L2_MISS));
		CHECK(cls.flags & PB_IBS_OP_L1_MISS);
		CHECK(cls.data_src == -1);
		char *text = print_to_string(&s, NULL);
		CHECK(strstr(text, "ibs_op_data2:") == NULL);
		CHECK(strstr(text, "L2Miss") == NULL);
		CHECK(strstr(text, "OpDcMissOpenMemReqs") == NULL);
		free(text);
		struct pb_ibs_cpu later = milan_cpu;
		later.model = 0x10;
		CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &later, &s, NULL) == 0);
		CHECK(s.op.data2.trusted && s.op.data3.l2_miss_valid);
		CHECK(pb_ibs_op_classify(&s, &cls, NULL) == 0);
		CHECK(cls.flags & PB_IBS_OP_L2_MISS);
		CHECK(cls.data_src == 3);
		text = print_to_string(&s, NULL);
		CHECK_STR_CONTAINS(text, "ibs_op_data2:");
		CHECK_STR_CONTAINS(text, " L2Miss 1 ");
		CHECK_STR_CONTAINS(text, " OpDcMissOpenMemReqs  5 ");
		free(text);
	}
}

/* ---- layouts that changed ---------------------------------------------------------------- */

static void test_data_source(void)
{
	struct pb_ibs_sample s;
	uint64_t o[7] = { 3ull << 17, 0x401000, 0, 0, 1 /* LdOp */, 0, 0 };
	struct pb_ibs_cpu zen4_no_ext_caps = zen4_cpu;
	struct pb_ibs_op_class cls;

	/* DataSrc hi = 1, lo = 0: Zen 4 reads 8 (extension memory); before, only lo = 0 counts. */
	o[3] = 1ull << 6;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data2.data_src, 8);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen2_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data2.data_src, 0);
	CHECK_EQ_U64(s.op.data2.data_src_hi, 0);
	/* hi = 1, lo = 4: 12 on Zen 4, 4 (remote node cache) before. */
	o[3] = (1ull << 6) | 4;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data2.data_src, 12);
	CHECK(pb_ibs_op_classify(&s, &cls, NULL) == 0);
	CHECK(cls.data_src == 12);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen2_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data2.data_src, 4);
	/* The payload's ZEN4 caps bit alone selects the 5-bit decoding... */
	zen4_no_ext_caps.zen4_ibs_extensions = false;
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_ZEN4, o, 7, &zen4_no_ext_caps, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data2.data_src, 12);
	/* ...but the print follows perf 6.1, which looks only at the PMU caps. */
	char *text = print_to_string(&s, NULL);
	CHECK_STR_CONTAINS(text, " DataSrc 4=Remote node cache\n");
	free(text);

	/* Names, both tables. */
	CHECK(strcmp(pb_ibs_data_src_name(0, false), "none") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(2, false), "Local node cache") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(3, false), "DRAM") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(4, false), "Remote node cache") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(7, false), "Other") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(1, false), "(reserved)") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(9, false), "(reserved)") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(1, true), "Local L3 or other L1/L2 in CCX") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(2, true), "A peer cache in a near CCX") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(3, true), "Data returned from DRAM") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(5, true), "A peer cache in a far CCX") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(8, true), "Extension Memory (S-Link, GenZ, etc)") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(12, true), "Peer Agent Memory") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(4, true), "(reserved)") == 0);
	CHECK(strcmp(pb_ibs_data_src_name(31, true), "(reserved)") == 0);

	/* CacheHitSt is printed only for cache sources: 2 before Zen 4; 1, 2, 5 on Zen 4. */
	static const struct { unsigned src; bool zen4; bool hit; } hits[] = {
		{ 2, false, true }, { 3, false, false }, { 1, false, false },
		{ 1, true, true }, { 2, true, true }, { 5, true, true }, { 3, true, false },
		{ 12, true, false },
	};
	for (unsigned i = 0; i < PB_ARRAY_SIZE(hits); i++) {
		o[3] = (1ull << 5) | (hits[i].src & 7) | ((uint64_t)(hits[i].src >> 3) << 6);
		CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, hits[i].zen4 ? &zen4_cpu : &zen2_cpu, &s,
			     NULL) == 0);
		text = print_to_string(&s, NULL);
		CHECK((strstr(text, "CacheHitSt 1=O-State ") != NULL) == hits[i].hit);
		free(text);
	}
	/* A store's OpData2 is not a data source. */
	o[3] = 3;
	o[4] = 2;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK(pb_ibs_op_classify(&s, &cls, NULL) == 0);
	CHECK(cls.data_src == -1);
}

static void test_page_size(void)
{
	struct pb_ibs_sample s;
	struct pb_ibs_cpu zen5 = { 0x1a, 0x02, true, true, true };
	uint64_t o[7] = { 3ull << 17, 0x401000, 0, 0, 0, 0, 0x5000 };
	static const uint64_t zen5_bytes[4] = { 4096, 2u << 20, 1u << 30, 0 };

	for (unsigned pg = 0; pg < 4; pg++) {
		o[4] = 1 | (1ull << 18) | ((uint64_t)pg << 4);
		CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen5, &s, NULL) == 0);
		CHECK(s.op.data3.has_dc_page_size);
		CHECK_EQ_U64(s.op.data3.dc_page_size, pg);
		CHECK_EQ_U64(s.op.data3.dc_page_bytes, zen5_bytes[pg]);
		/* Zen 4 reads the same bits as two TLB-hit flags. */
		CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
		CHECK(!s.op.data3.has_dc_page_size);
		CHECK_EQ_U64(s.op.data3.dc_page_size, 0);
		CHECK_EQ_U64(s.op.data3.dc_l1tlb_hit_2m, pg & 1);
		CHECK_EQ_U64(s.op.data3.dc_l1tlb_hit_1g, pg >> 1);
	}
	/* Zen 5 page size via the payload caps bit alone. */
	struct pb_ibs_cpu no_caps = zen5;
	no_caps.dtlb_pgsize = false;
	o[4] = 1 | (1ull << 18) | (2ull << 4);
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_OPDTLBPGSIZE, o, 7, &no_caps, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 1u << 30);
	/* Without a physical address the TLB bits say nothing. */
	o[4] = 1 | (1ull << 4);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen5, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 0);
	/* Zen 3/4: L1 hit bits, else L2 hit bits, else (walk) unknown. */
	o[4] = 1 | (1ull << 18) | (1ull << 4);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 2u << 20);
	o[4] = 1 | (1ull << 18) | (1ull << 2) | (1ull << 19);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 1u << 30);
	o[4] = 1 | (1ull << 18) | (1ull << 2) | (1ull << 6);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 2u << 20);
	o[4] = 1 | (1ull << 18) | (1ull << 2) | (1ull << 3);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 0);
	o[4] = 1 | (1ull << 18);
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK_EQ_U64(s.op.data3.dc_page_bytes, 4096);
}

/* ---- perf 6.1's print, literally -------------------------------------------------------- */

static void test_print_op(void)
{
	struct pb_ibs_sample s;
	uint64_t o[8] = {
		/* MaxCnt 0x1000, ext 1, L3MissOnly, En, Val, CntCtl, CurCnt 5 */
		0x1000ull | (1ull << 16) | (1ull << 17) | (1ull << 18) | (1ull << 19) | (1ull << 20) |
			(5ull << 32),
		0x0000555555551234ull,
		/* CompToRet 7, TagToRet 300, Return, Taken, BrnRet, Fuse */
		7ull | (300ull << 16) | (1ull << 34) | (1ull << 35) | (1ull << 37) | (1ull << 39),
		/* DataSrc 2, RmtNode, CacheHitSt */
		2ull | (1ull << 4) | (1ull << 5),
		/* LdOp, DcMiss, LinValid, PhyValid, L2Miss, width 4 (8 bytes), reqs 3, lat 250,
		 * refill 17 */
		1ull | (1ull << 7) | (1ull << 17) | (1ull << 18) | (1ull << 20) | (4ull << 22) |
			(3ull << 26) | (250ull << 32) | (17ull << 48),
		0x00007ffd12345678ull, 0x0000000123456000ull, 0x0000555555559abcull,
	};
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, o, 8, &zen4_cpu, &s, NULL) == 0);
	int lines = 0;
	char *text = print_to_string(&s, &lines);
	const char *want =
		"ibs_op_ctl:\t00000005001f1000 MaxCnt   1114112 L3MissOnly 1 En 1 Val 1 CntCtl 1=uOps "
		"CurCnt         5\n"
		"IbsOpRip:\t0000555555551234\n"
		"ibs_op_data:\t000000ac012c0007 CompToRetCtr     7 TagToRetCtr   300 OpReturn 1 "
		"OpBrnTaken 1 OpBrnMisp 0 BrnRet 1  RipInvalid 0 BrnFuse 1 Microcode 0\n"
		"ibs_op_data2:\t0000000000000032 CacheHitSt 1=O-State RmtNode 1 DataSrc 2=A peer "
		"cache in a near CCX\n"
		"ibs_op_data3:\t001100fa0d160081 LdOp 1 StOp 0 DcL1TlbMiss 0 DcL2TlbMiss 0 "
		"DcL1TlbHit2M 0 DcL1TlbHit1G 0 DcL2TlbHit2M 0 DcMiss 1 DcMisAcc 0 DcWcMemAcc 0 "
		"DcUcMemAcc 0 DcLockedOp 0 DcMissNoMabAlloc 0 DcLinAddrValid 1 DcPhyAddrValid 1 "
		"DcL2TlbHit1G 0 L2Miss 1 SwPf 0 OpMemWidth  8 bytes OpDcMissOpenMemReqs  3 "
		"DcMissLat   250 TlbRefillLat    17\n"
		"IbsDCLinAd:\t00007ffd12345678\n"
		"IbsDCPhysAd:\t0000000123456000\n"
		"IbsBrTarget:\t0000555555559abc\n";
	if (strcmp(text, want) != 0)
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", text, want);
	CHECK(strcmp(text, want) == 0);
	CHECK_EQ_U64(lines, 8);
	free(text);

	/* Pre-Zen 4, cycles, not a branch, RIP invalid, no addresses, no caps BrTarget. */
	uint64_t p[8] = { 0x0090ull | (3ull << 17), 0x1111, 0x4000000000ull, 7, 2, 0, 0,
			  0x0000555555559abcull };
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_OPDATA4, p, 8, &zen2_cpu, &s, NULL) == 0);
	text = print_to_string(&s, &lines);
	want = "ibs_op_ctl:\t0000000000060090 MaxCnt      2304 En 1 Val 1 CntCtl 0=cycles "
	       "CurCnt         0\n"
	       "ibs_op_data:\t0000004000000000 CompToRetCtr     0 TagToRetCtr     0 BrnRet 0  "
	       "RipInvalid 1 BrnFuse 0 Microcode 0\n"
	       "ibs_op_data2:\t0000000000000007 RmtNode 0 DataSrc 7=Other\n"
	       "ibs_op_data3:\t0000000000000002 LdOp 0 StOp 1 DcL1TlbMiss 0 DcL2TlbMiss 0 "
	       "DcL1TlbHit2M 0 DcL1TlbHit1G 0 DcL2TlbHit2M 0 DcMiss 0 DcMisAcc 0 DcWcMemAcc 0 "
	       "DcUcMemAcc 0 DcLockedOp 0 DcMissNoMabAlloc 0 DcLinAddrValid 0 DcPhyAddrValid 0 "
	       "DcL2TlbHit1G 0 L2Miss 0 SwPf 0 OpDcMissOpenMemReqs  0 DcMissLat     0 "
	       "TlbRefillLat     0\n";
	if (strcmp(text, want) != 0)
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", text, want);
	CHECK(strcmp(text, want) == 0);
	CHECK_EQ_U64(lines, 4);
	free(text);

	/* BrTarget is caps-aware (perf 6.1 would print regs[7] here; see ibs_raw.h). */
	p[2] = 1ull << 37;
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_OPDATA4, p, 8, &zen2_cpu, &s, NULL) == 0);
	text = print_to_string(&s, NULL);
	CHECK(strstr(text, "IbsBrTarget") == NULL);
	free(text);
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, p, 8, &zen2_cpu, &s, NULL) == 0);
	text = print_to_string(&s, NULL);
	CHECK_STR_CONTAINS(text, "IbsBrTarget:\t0000555555559abc\n");
	free(text);
	p[7] = 0; /* a zero target is not printed, as perf */
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, p, 8, &zen2_cpu, &s, NULL) == 0);
	text = print_to_string(&s, NULL);
	CHECK(strstr(text, "IbsBrTarget") == NULL);
	free(text);

	/* Invalid samples print nothing. */
	p[0] = 1ull << 17;
	CHECK(decode(PB_IBS_OP, CAPS_BASE | PB_IBS_CAPS_BRNTRGT, p, 8, &zen2_cpu, &s, NULL) == 0);
	text = print_to_string(&s, &lines);
	CHECK_EQ_U64(lines, 0);
	CHECK(text[0] == 0);
	free(text);
}

static void test_print_fetch(void)
{
	struct pb_ibs_sample s;
	uint64_t f[4] = {
		/* MaxCnt 0x1000, Cnt 0x20, Lat 77, En, Val, Comp, PhyValid, pgsz 2, L1TlbMiss,
		 * RandEn, L2Miss, OcMiss */
		0x1000ull | (0x20ull << 16) | (77ull << 32) | (1ull << 48) | (1ull << 49) |
			(1ull << 50) | (1ull << 52) | (2ull << 53) | (1ull << 55) | (1ull << 57) |
			(1ull << 58) | (1ull << 60),
		0x0000555555550000ull, 0x0000000087654000ull, 42,
	};
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE | PB_IBS_CAPS_FETCHCTLEXTD, f, 4, &zen4_cpu, &s, NULL) ==
	      0);
	int lines = 0;
	char *text = print_to_string(&s, &lines);
	const char *want =
		"ibs_fetch_ctl:\t16d7004d00201000 MaxCnt   65536 Cnt     512 Lat    77 En 1 Val 1 "
		"Comp 1 IcMiss 0 PhyAddrValid 1 L1TlbPgSz 1GB L1TlbMiss 1 L2TlbMiss 0 RandEn 1 "
		"L2Miss 1 L3MissOnly 0 FetchOcMiss 1 FetchL3Miss 0\n"
		"IbsFetchLinAd:\t0000555555550000\n"
		"IbsFetchPhysAd:\t0000000087654000\n"
		"ic_ibs_ext_ctl:\t000000000000002a IbsItlbRefillLat  42\n";
	if (strcmp(text, want) != 0)
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", text, want);
	CHECK(strcmp(text, want) == 0);
	CHECK_EQ_U64(lines, 4);
	free(text);

	/* Early Zen 3, no Comp, no phys address, no ExtdCtl in caps. */
	f[0] = (3ull << 48) | (1ull << 51) | (1ull << 58);
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &milan_cpu, &s, NULL) == 0);
	text = print_to_string(&s, &lines);
	want = "ibs_fetch_ctl:\t040b000000000000 MaxCnt       0 Cnt       0 Lat     0 En 1 Val 1 "
	       "Comp 0 PhyAddrValid 0 L1TlbMiss 0 L2TlbMiss 0 RandEn 0\n"
	       "IbsFetchLinAd:\t0000555555550000\n";
	if (strcmp(text, want) != 0)
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", text, want);
	CHECK(strcmp(text, want) == 0);
	CHECK_EQ_U64(lines, 2);
	free(text);
}

/* ---- the classifier ------------------------------------------------------------------------ */

static uint32_t classify(uint64_t data, uint64_t data3, struct pb_ibs_op_class *cls)
{
	uint64_t o[7] = { 3ull << 17, 0x401000, data, 0, data3, 0x7000, 0 };
	struct pb_ibs_sample s;
	CHECK(decode(PB_IBS_OP, CAPS_BASE, o, 7, &zen4_cpu, &s, NULL) == 0);
	CHECK(pb_ibs_op_classify(&s, cls, NULL) == 0);
	return cls->flags;
}

static void test_classifier(void)
{
	struct pb_ibs_op_class c;
	const uint64_t LD = 1, ST = 2, DCMISS = 1ull << 7, L2MISS = 1ull << 20;
	const uint64_t BRN = 1ull << 37;

	CHECK_EQ_U64(classify(0, LD, &c), PB_IBS_OP_LOAD);
	CHECK_EQ_U64(classify(0, ST, &c), PB_IBS_OP_STORE);
	CHECK_EQ_U64(classify(0, LD | DCMISS | (300ull << 32), &c), PB_IBS_OP_LOAD | PB_IBS_OP_L1_MISS);
	CHECK_EQ_U64(c.latency, 300);
	CHECK_EQ_U64(classify(0, ST | DCMISS | (300ull << 32), &c), PB_IBS_OP_STORE | PB_IBS_OP_L1_MISS);
	CHECK_EQ_U64(c.latency, 0); /* latency is a load's */
	CHECK_EQ_U64(classify(0, LD | DCMISS | L2MISS, &c),
		     PB_IBS_OP_LOAD | PB_IBS_OP_L1_MISS | PB_IBS_OP_L2_MISS);
	CHECK_EQ_U64(classify(0, LD | L2MISS, &c), PB_IBS_OP_LOAD); /* L2Miss needs an L1 miss */
	CHECK_EQ_U64(classify(0, DCMISS | (1ull << 15), &c), 0);    /* cache bits of a non-mem op */
	CHECK_EQ_U64(classify(0, LD | ST | (1ull << 15), &c),
		     PB_IBS_OP_LOAD | PB_IBS_OP_STORE | PB_IBS_OP_LOCKED);
	CHECK_EQ_U64(classify(BRN, 0, &c), PB_IBS_OP_BRANCH);
	CHECK_EQ_U64(classify(BRN | (1ull << 35), 0, &c), PB_IBS_OP_BRANCH | PB_IBS_OP_TAKEN);
	CHECK_EQ_U64(classify(BRN | (1ull << 36), 0, &c), PB_IBS_OP_BRANCH | PB_IBS_OP_MISPREDICTED);
	CHECK_EQ_U64(classify(BRN | (1ull << 34) | (1ull << 35), 0, &c),
		     PB_IBS_OP_BRANCH | PB_IBS_OP_RETURN | PB_IBS_OP_TAKEN);
	/* Branch detail bits without BrnRet are meaningless. */
	CHECK_EQ_U64(classify((1ull << 34) | (1ull << 35) | (1ull << 36), 0, &c), 0);
	CHECK_EQ_U64(classify(0, LD | (1ull << 2) | (1ull << 3), &c),
		     PB_IBS_OP_LOAD | PB_IBS_OP_DTLB_L1_MISS | PB_IBS_OP_DTLB_L2_MISS);
	CHECK_EQ_U64(classify(0, LD | (1ull << 14) | (1ull << 8), &c),
		     PB_IBS_OP_LOAD | PB_IBS_OP_UNCACHEABLE | PB_IBS_OP_MISALIGNED);
	CHECK_EQ_U64(classify(0, LD | (1ull << 21), &c), PB_IBS_OP_LOAD | PB_IBS_OP_SW_PREFETCH);
	CHECK_EQ_U64(classify((1ull << 38) | (1ull << 39) | (1ull << 40), 0, &c),
		     PB_IBS_OP_RIP_INVALID | PB_IBS_OP_FUSED | PB_IBS_OP_MICROCODE);
	classify(0, LD | (1ull << 17), &c);
	CHECK(c.data_addr_valid);
	CHECK_EQ_U64(c.data_addr, 0x7000);
	classify(0, LD, &c);
	CHECK(!c.data_addr_valid);

	/* Counting a subset event: L1-missing loads among mixed samples. */
	static const uint64_t mix[][2] = {
		{ 0, 1 | (1ull << 7) }, { 0, 1 }, { 1ull << 37, 0 }, { 0, 1 | (1ull << 7) },
		{ 0, 2 | (1ull << 7) }, { 0, 0 }, { 0, 1 | (1ull << 7) | (1ull << 20) }, { 0, 1 },
	};
	uint32_t mask = 0;
	CHECK(pb_ibs_op_filter_parse("load+l1-miss", &mask, NULL) == 0);
	CHECK_EQ_U64(mask, PB_IBS_OP_LOAD | PB_IBS_OP_L1_MISS);
	unsigned hits = 0, expect = 0;
	for (unsigned i = 0; i < PB_ARRAY_SIZE(mix); i++) {
		classify(mix[i][0], mix[i][1], &c);
		hits += pb_ibs_op_matches(&c, mask);
		expect += (mix[i][1] & 1) && (mix[i][1] & (1ull << 7));
	}
	CHECK_EQ_U64(hits, expect);
	CHECK_EQ_U64(hits, 3);

	/* Filter names. */
	struct pb_error err = { 0 };
	CHECK(pb_ibs_op_filter_parse("branch,taken", &mask, &err) == 0);
	CHECK_EQ_U64(mask, PB_IBS_OP_BRANCH | PB_IBS_OP_TAKEN);
	CHECK(pb_ibs_op_filter_parse("load+l9-miss", &mask, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "'l9-miss'");
	CHECK_STR_CONTAINS(err.msg, "l1-miss");
	CHECK(pb_ibs_op_filter_parse("", &mask, &err) == -1);
	for (unsigned i = 0; i < PB_IBS_OP_NFLAGS; i++) {
		const char *name = pb_ibs_op_flag_name(1u << i);
		CHECK(name != NULL);
		CHECK(name && pb_ibs_op_filter_parse(name, &mask, NULL) == 0 && mask == (1u << i));
	}
	CHECK(pb_ibs_op_flag_name(3) == NULL);

	/* Fetch samples are not op samples. */
	uint64_t f[3] = { 3ull << 48, 0, 0 };
	struct pb_ibs_sample s;
	CHECK(decode(PB_IBS_FETCH, CAPS_BASE, f, 3, &zen4_cpu, &s, NULL) == 0);
	CHECK(pb_ibs_op_classify(&s, &c, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "ibs_fetch");
}

static void test_cpu_from_machine(void)
{
	struct pb_machine m;
	memset(&m, 0, sizeof(m));
	m.cpu_family = 0x1a;
	m.cpu_model = 0x02;
	snprintf(m.pmus[0].name, sizeof(m.pmus[0].name), "ibs_op");
	snprintf(m.pmus[0].caps, sizeof(m.pmus[0].caps), "dtlb_pgsize=1\nldlat=1\nzen4_ibs_extensions=1\n");
	snprintf(m.pmus[1].name, sizeof(m.pmus[1].name), "ibs_fetch");
	snprintf(m.pmus[1].caps, sizeof(m.pmus[1].caps), "zen4_ibs_extensions=1\n");
	m.npmus = 2;
	struct pb_ibs_cpu cpu;
	pb_ibs_cpu_from_machine(&m, &cpu);
	CHECK_EQ_U64(cpu.family, 0x1a);
	CHECK_EQ_U64(cpu.model, 0x02);
	CHECK(cpu.zen4_ibs_extensions && cpu.ldlat && cpu.dtlb_pgsize);
	snprintf(m.pmus[0].caps, sizeof(m.pmus[0].caps), "zen4_ibs_extensions=1\n");
	pb_ibs_cpu_from_machine(&m, &cpu);
	CHECK(cpu.zen4_ibs_extensions && !cpu.ldlat && !cpu.dtlb_pgsize);
	m.npmus = 0;
	pb_ibs_cpu_from_machine(&m, &cpu);
	CHECK(!cpu.zen4_ibs_extensions);
}

int main(void)
{
	test_fields();
	test_derived();
	test_caps_vs_length();
	test_truncated_every_length();
	test_errata();
	test_data_source();
	test_page_size();
	test_print_op();
	test_print_fetch();
	test_classifier();
	test_cpu_from_machine();
	return pb_check_done("test_ibs_raw");
}
