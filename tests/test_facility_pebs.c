/* pebs against constructed Intel machines. Encodings are compared with the values measured
 * with libpfm4 4.13 and the Intel perfmon tables (reference/vm-facts.md section 8,
 * pmu-facts.md 3.2 and 4.5); libpfm4 encodes for absent PMUs here (LIBPFM_ENCODE_INACTIVE). */
#include "check.h"
#include "fixture.h"
#include "facilities/facility.h"
#include "facilities/pebs.h"
#include "facilities/pfm_encode.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

static struct pb_machine skl, spr, vm, zen4, neoverse;

static void avail(const struct pb_machine *m, const char *text, struct pb_availability *out)
{
	struct pb_spec spec;
	struct pb_error err;
	memset(out, 0, sizeof *out);
	if (pb_spec_parse(text, &spec, &err) == 0)
		spec.facility->availability(m, &spec, out);
	else
		fprintf(stderr, "parse %s: %s\n", text, err.msg);
}

static void test_encodings(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(pb_test_build_attr(&skl, "pebs:INST_RETIRED:PREC_DIST", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a.config, 0x1c0);
	CHECK_EQ_U64(a.precise_ip, 3); /* PREC_DIST defaults to precise distribution */
	CHECK_EQ_U64(a.sample_period, 100003);
	CHECK(a.sample_type & PERF_SAMPLE_IP);
	CHECK(!(a.sample_type & PERF_SAMPLE_ADDR));

	CHECK(pb_test_build_attr(&spr, "pebs:INST_RETIRED:PREC_DIST", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x100);
	CHECK_EQ_U64(a.precise_ip, 3);
	/* An explicit table overrides the CPU model. */
	CHECK(pb_test_build_attr(&skl, "pebs:INST_RETIRED:PREC_DIST:pmu=icl", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x100);
	CHECK(pb_test_build_attr(&skl, "pebs:icl::INST_RETIRED:PREC_DIST", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x100);

	CHECK(pb_test_build_attr(&skl, "pebs:MEM_LOAD_RETIRED:L1_MISS", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x8d1);
	CHECK_EQ_U64(a.precise_ip, 2); /* exact IP; precise distribution is for PREC_DIST */
	CHECK(a.sample_type & PERF_SAMPLE_ADDR);
	CHECK(a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT); /* kernel 5.15 >= 5.12 */
	CHECK(a.sample_type & PERF_SAMPLE_DATA_SRC);
	CHECK(pb_test_build_attr(&spr, "pebs:MEM_LOAD_RETIRED:L1_MISS:pp=3", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x8d1);
	CHECK_EQ_U64(a.precise_ip, 3);
	CHECK(pb_test_build_attr(&skl, "pebs:MEM_LOAD_RETIRED:L1_MISS:precise=1", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.precise_ip, 1);
	CHECK(pb_test_build_attr(&skl, "pebs:MEM_INST_RETIRED:ALL_STORES", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x82d0);

	/* Load latency: libpfm4 modifiers pass through. */
	CHECK(pb_test_build_attr(&skl, "pebs:MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=32", 1009, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x1cd);
	CHECK_EQ_U64(a.config1, 32);
	CHECK(a.sample_type & PERF_SAMPLE_DATA_SRC);
	/* SPR would need a mem-loads-aux group leader for DATA_SRC (ENODATA otherwise). */
	CHECK(pb_test_build_attr(&spr, "pebs:MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=32", 1009, &a, &err) == 0);
	CHECK(!(a.sample_type & PERF_SAMPLE_DATA_SRC));
	CHECK(a.sample_type & PERF_SAMPLE_ADDR);
}

static void test_libpfm_corrections(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	struct pb_pfm_encoding enc;
	CHECK(pb_pfm_encode("spr::INST_RETIRED:ANY", &enc, &err) == 0);
	CHECK_EQ_U64(enc.config, 0x100);
	CHECK_STR_CONTAINS(enc.correction, "0x1c0 -> 0x100");
	CHECK_STR_CONTAINS(enc.canonical, "spr::INST_RETIRED:ANY");
	CHECK(pb_pfm_encode("spr::MEM_TRANS_RETIRED:STORE_SAMPLE", &enc, &err) == 0);
	CHECK_EQ_U64(enc.config, 0x2cd);
	CHECK_STR_CONTAINS(enc.correction, "0x3cd -> 0x2cd");
	CHECK(pb_pfm_encode("icl::INST_RETIRED:ANY", &enc, &err) == 0);
	CHECK_EQ_U64(enc.config, 0x100);
	CHECK(enc.correction[0] == '\0'); /* only SPR's table is wrong */
	CHECK(pb_pfm_encode("skl::INST_RETIRED:ANY_P", &enc, &err) == 0);
	CHECK_EQ_U64(enc.config, 0xc0);
	CHECK(enc.correction[0] == '\0');
	CHECK(enc.precise_capable);
	CHECK(pb_pfm_encode("skl::UOPS_ISSUED:ANY", &enc, &err) == 0);
	CHECK(!enc.precise_capable);

	CHECK(pb_test_build_attr(&spr, "pebs:MEM_TRANS_RETIRED:STORE_SAMPLE", 1009, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x2cd);
	CHECK(pb_test_build_attr(&spr, "pebs:INST_RETIRED:ANY", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x100);
	/* PEBS flag missing in 4.13's SPR table: allowed through the correction table. */
	CHECK(pb_test_build_attr(&spr, "pebs:MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", 1009, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x1d3);
	CHECK_EQ_U64(a.precise_ip, 2);
}

static void test_errors(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	struct pb_spec spec;
	CHECK(pb_spec_parse("pebs", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "INST_RETIRED:PREC_DIST");
	CHECK(pb_spec_parse("pebs:INST_RETIRED:PREC_DIST:pp=4", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "1, 2 or 3");
	CHECK(pb_spec_parse("pebs:INST_RETIRED:PREC_DIST:pp=0", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "hw:EVENT");
	CHECK(pb_spec_parse("pebs:INST_RETIRED:PREC_DIST:pmu=k7x", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "no PMU table 'k7x'");
	CHECK(pb_spec_parse("pebs:skl::INST_RETIRED:PREC_DIST:pmu=icl", &spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "not both");
	/* A qualified name is checked at parse time. */
	CHECK(pb_spec_parse("pebs:skl::INST_RETRED:PREC_DIST", &spec, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "close names");
	CHECK_STR_CONTAINS(err.msg, "INST_RETIRED:PREC_DIST");

	CHECK(pb_test_build_attr(&skl, "pebs:INST_RETIRED:PREC_DSIT", 100003, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "INST_RETIRED:PREC_DIST");
	CHECK(pb_test_build_attr(&skl, "pebs:MEM_LOAD_RETIRED", 100003, &a, &err) == -1); /* no default umask */
	CHECK(pb_test_build_attr(&skl, "pebs:UOPS_ISSUED:ANY", 100003, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "not a PEBS event");
	CHECK_STR_CONTAINS(err.msg, "hw:UOPS_ISSUED:ANY");
	CHECK(pb_test_build_attr(&skl, "pebs:INST_RETIRED:PREC_DIST", 0, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "give a period");
	/* Golden Cove precise distribution needs period >= 128. */
	CHECK(pb_test_build_attr(&spr, "pebs:MEM_LOAD_RETIRED:L1_MISS:pp=3", 127, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "128");
	CHECK(pb_test_build_attr(&spr, "pebs:MEM_LOAD_RETIRED:L1_MISS:pp=3", 128, &a, &err) == 0);
	CHECK(pb_test_build_attr(&skl, "pebs:MEM_LOAD_RETIRED:L1_MISS:pp=3", 127, &a, &err) == 0);

	/* A CPU whose kernel reports max_precise 2. */
	struct pb_machine two = skl;
	pb_machine_note_set(&two, "max_precise", 2); /* PEBS's note of caps/max_precise */
	CHECK(pb_test_build_attr(&two, "pebs:INST_RETIRED:PREC_DIST", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.precise_ip, 2);
	/* pp=3 asked where the maximum is 2: opened at 2, and said so (requested vs granted) */
	CHECK(pb_test_build_attr(&two, "pebs:INST_RETIRED:PREC_DIST:pp=3", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.precise_ip, 2);
	CHECK(pb_spec_parse("pebs:INST_RETIRED:PREC_DIST:pp=3", &spec, &err) == 0);
	CHECK_EQ_U64(pb_pebs_granted_precise(&two, &spec), 2);
	CHECK(pb_spec_ip_kind(&two, &spec) == PB_IP_EXACT);
	/* pp=1: constant skid, the IP is the next instruction */
	CHECK(pb_spec_parse("pebs:INST_RETIRED:PREC_DIST:pp=1", &spec, &err) == 0);
	CHECK(pb_spec_ip_kind(&two, &spec) == PB_IP_NEXT);
}

static void test_availability(void)
{
	struct pb_availability av;
	const struct pb_facility *pebs = pb_facility_find("pebs");
	CHECK(pebs != NULL);
	pebs->availability(&skl, NULL, &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "max_precise 3");
	CHECK_STR_CONTAINS(av.detail, "'skl'");
	CHECK_STR_CONTAINS(av.detail, "user-space only");
	pebs->availability(&spr, NULL, &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "'spr'");
	CHECK(strstr(av.detail, "user-space only") == NULL);

	pebs->availability(&vm, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "no hardware PMU");
	CHECK_STR_CONTAINS(av.reason, "virtual machine");
	pebs->availability(&zen4, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "AuthenticAMD");
	CHECK_STR_CONTAINS(av.reason, "ibs-op");
	pebs->availability(&neoverse, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "spe");

	struct pb_machine m = skl;
	pb_machine_note_set(&m, "max_precise", 0);
	m.hypervisor = true;
	pebs->availability(&m, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "max_precise is 0");
	m = skl;
	m.paranoid = 3;
	pebs->availability(&m, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "perf_event_paranoid is 3");
	m = skl;
	m.cpu_model = 0x01; /* no libpfm4 table */
	pebs->availability(&m, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "no event table");
	avail(&m, "pebs:skl::INST_RETIRED:PREC_DIST", &av); /* qualified names still work */
	CHECK(av.available);
	avail(&skl, "pebs:INST_RETIRED:PREC_DIST:pp=3", &av);
	CHECK(av.available);
	/* Emerald Rapids falls back to the Sapphire Rapids table on this libpfm4. */
	m = spr;
	m.cpu_model = 0xcf;
	const char *t = pb_pfm_pmu_for_machine(&m);
	CHECK(t && (!strcmp(t, "spr") || !strcmp(t, "emr")));
}

static void test_large_pebs(void)
{
	struct perf_event_attr a;
	char why[200];
	memset(&a, 0, sizeof a);
	a.precise_ip = 2;
	a.sample_period = 10007;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PERIOD;
	CHECK(pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK(why[0] == '\0');
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "CALLCHAIN");
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	a.sample_type |= PERF_SAMPLE_RAW;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "RAW");
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_RAW;
	a.sample_type |= PERF_SAMPLE_READ;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "READ");
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
	a.sample_type |= PERF_SAMPLE_STACK_USER;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
	CHECK(pb_pebs_large_eligible(&a, NULL, 0));

	a.freq = 1;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "frequency");
	a.freq = 0;
	a.wakeup_events = 1;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "wakeup_events=1");
	a.watermark = 1; /* same union: now a byte watermark */
	a.wakeup_watermark = 4096;
	CHECK(pb_pebs_large_eligible(&a, why, sizeof why));
	a.watermark = 0;
	a.wakeup_events = 0;

	a.sample_type |= PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 0xff03ff;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "exclude_kernel");
	a.exclude_kernel = 1;
	CHECK(pb_pebs_large_eligible(&a, why, sizeof why));
	a.sample_regs_user |= 1u << 10; /* CS is not in the PEBS record */
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "beyond");
	a.sample_regs_user = 0xff03ff;
	a.use_clockid = 1;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "use_clockid");
	a.use_clockid = 0;
	a.precise_ip = 0;
	CHECK(!pb_pebs_large_eligible(&a, why, sizeof why));
	CHECK_STR_CONTAINS(why, "precise_ip is 0");

	CHECK_EQ_U64(pb_pebs_default_precise("skl::INST_RETIRED:PREC_DIST", 3), 3);
	CHECK_EQ_U64(pb_pebs_default_precise("skl::INST_RETIRED:PREC_DIST", 2), 2);
	CHECK_EQ_U64(pb_pebs_default_precise("skl::MEM_LOAD_RETIRED:L1_MISS", 3), 2);
	CHECK_EQ_U64(pb_pebs_default_precise("skl::MEM_LOAD_RETIRED:L1_MISS", 1), 1);
}

int main(void)
{
	pb_test_fixture(&skl, "sysfs-skl");
	pb_test_fixture(&spr, "sysfs-spr");
	pb_test_fixture(&vm, "sysfs-vm");
	pb_test_fixture(&zen4, "sysfs-zen4");
	pb_test_fixture(&neoverse, "sysfs-neoverse");
	if (!pb_pfm_pmu_supported("skl") || !pb_pfm_pmu_supported("spr"))
		pb_skip("this libpfm4 (%s) has no skl/spr tables", pb_pfm_version());
	test_encodings();
	test_libpfm_corrections();
	test_errors();
	test_availability();
	test_large_pebs();
	return pb_check_done("facility_pebs");
}
