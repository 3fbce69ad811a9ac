/* The facilities on the arm64 machines (tests/fixtures/sysfs-qemu-a57, the guest of make
 * check-arm64, and sysfs-neoverse), whatever this host is: hw on the armv8_pmuv3 PMU, the
 * libpfm4 table named by MIDR, arm64 breakpoints, and why pebs, ibs and spe are absent. */
#include "check.h"
#include "fixture.h"
#include "facilities/facility.h"
#include "facilities/pfm_encode.h"

#include <linux/hw_breakpoint.h>
#include <string.h>

static struct pb_machine a57, neoverse, skl;

static void availability(const struct pb_machine *m, const char *name, struct pb_availability *av)
{
	const struct pb_facility *f = pb_facility_find(name);
	CHECK_MSG(f != NULL, "facility %s", name);
	memset(av, 0, sizeof *av);
	if (f)
		f->availability(m, NULL, av);
}

static void test_hw(void)
{
	struct pb_availability av;
	availability(&a57, "hw", &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "armv8_pmuv3 PMU type 8, 7 counters");
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(pb_test_build_attr(&a57, "hw:cycles", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_HARDWARE);
	CHECK_EQ_U64(a.config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_EQ_U64(a.sample_period, 100003);
	CHECK_EQ_U64(a.precise_ip, 0);
	CHECK(pb_test_build_attr(&a57, "hw:instructions", 0, &a, &err) == 0);
	CHECK_EQ_U64(a.config, PERF_COUNT_HW_INSTRUCTIONS);
	/* libpfm4 names: the A57 table where this libpfm4 has it (arm64 builds), else refused
	 * with the reason */
	int rc = pb_test_build_attr(&a57, "hw:INST_RETIRED", 1000, &a, &err);
	if (pb_pfm_pmu_supported("arm_ac57")) {
		CHECK(rc == 0);
		CHECK_EQ_U64(a.type, PERF_TYPE_RAW);
		CHECK_EQ_U64(a.config & 0xffff, 0x08);
	} else {
		CHECK(rc == -1);
		CHECK_STR_CONTAINS(err.msg, "no event table for ARM family 0x8 model 0xd07");
	}
}

static void test_pfm_tables(void)
{
	CHECK(!strcmp(pb_pfm_arm_table(0x41, 0xd07), "arm_ac57"));
	CHECK(!strcmp(pb_pfm_arm_table(0x41, 0xd03), "arm_ac53"));
	CHECK(!strcmp(pb_pfm_arm_table(0x41, 0xd0c), "arm_n1"));
	CHECK(!strcmp(pb_pfm_arm_table(0x41, 0xd49), "arm_n2"));
	CHECK(!strcmp(pb_pfm_arm_table(0x46, 0x001), "arm_a64fx"));
	CHECK(pb_pfm_arm_table(0x41, 0xd08) == NULL); /* A72: libpfm4 4.13 has no table */
	CHECK(pb_pfm_arm_table(0xc0, 0xac3) == NULL);
	/* the machine gets a table only when this libpfm4 has it */
	const char *t = pb_pfm_pmu_for_machine(&a57);
	CHECK(pb_pfm_pmu_supported("arm_ac57") ? t && !strcmp(t, "arm_ac57") : t == NULL);
}

static void test_bp(void)
{
	struct pb_availability av;
	availability(&a57, "bp", &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "4 watchpoints and 6 breakpoints per task");
	availability(&neoverse, "bp", &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "unknown");

	struct pb_spec spec;
	struct pb_error err = {0};
	uint64_t word = 0;
	struct pb_target target = {.data_addr = (uint64_t)(uintptr_t)&word, .data_len = 8,
				   .code_addr = 0x400000};
	struct perf_event_attr a;
	/* arm64 reports a watchpoint at the accessing instruction; x86 at the next one */
	CHECK(pb_spec_parse("bp:w", &spec, &err) == 0);
	CHECK_EQ_U64(pb_spec_ip_kind(&a57, &spec), PB_IP_EXACT);
	CHECK_EQ_U64(pb_spec_ip_kind(&skl, &spec), PB_IP_NEXT);
	/* an execute breakpoint covers one A64 instruction; x86 wants sizeof(long) */
	CHECK(pb_spec_parse("bp:x", &spec, &err) == 0);
	memset(&a, 0, sizeof a);
	CHECK(spec.facility->attr(&a57, &spec, &target, 1, &a, &err) == 0);
	CHECK_EQ_U64(a.bp_type, HW_BREAKPOINT_X);
	CHECK_EQ_U64(a.bp_len, HW_BREAKPOINT_LEN_4);
	memset(&a, 0, sizeof a);
	CHECK(spec.facility->attr(&skl, &spec, &target, 1, &a, &err) == 0);
	CHECK_EQ_U64(a.bp_len, sizeof(long));
	/* read-only watchpoints exist on arm64, not in x86 debug registers */
	CHECK(pb_spec_parse("bp:r", &spec, &err) == 0);
	memset(&a, 0, sizeof a);
	CHECK(spec.facility->attr(&a57, &spec, &target, 1, &a, &err) == 0);
	CHECK_EQ_U64(a.bp_type, HW_BREAKPOINT_R);
	CHECK_EQ_U64(a.bp_addr, (uint64_t)(uintptr_t)&word);
	memset(&a, 0, sizeof a);
	CHECK(spec.facility->attr(&skl, &spec, &target, 1, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "cannot trap reads alone");
}

static void test_absent(void)
{
	struct pb_availability av;
	availability(&a57, "pebs", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "Intel facility");
	CHECK_STR_CONTAINS(av.reason, "use spe on Arm");
	availability(&a57, "ibs-op", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "AMD facility");
	availability(&a57, "ibs-fetch", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "AMD facility");
	availability(&a57, "spe", &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "no arm_spe");
	availability(&neoverse, "spe", &av);
	CHECK(av.available);
}

int main(void)
{
	pb_test_fixture(&a57, "sysfs-qemu-a57");
	pb_test_fixture(&neoverse, "sysfs-neoverse");
	pb_test_fixture(&skl, "sysfs-skl");
	test_hw();
	test_pfm_tables();
	test_bp();
	test_absent();
	return pb_check_done("facility_arm");
}
