/* hw:EVENT (classic overflow) against constructed machines: generic names, libpfm4 names per
 * CPU table, no precise_ip, and why it is unavailable where it is. */
#include "check.h"
#include "fixture.h"
#include "facilities/facility.h"
#include "facilities/pfm_encode.h"
#include "util/kit.h"

#include <errno.h>
#include <string.h>

static struct pb_machine skl, spr, zen4, zen5, vm, neoverse;

static void test_generic(void)
{
	static const struct {
		const char *spec;
		uint64_t config;
	} cases[] = {
		{"hw:cycles", PERF_COUNT_HW_CPU_CYCLES},
		{"hw:cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
		{"hw:instructions", PERF_COUNT_HW_INSTRUCTIONS},
		{"hw:branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		{"hw:branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
		{"hw:cache-misses", PERF_COUNT_HW_CACHE_MISSES},
		{"hw:cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
		{"hw:ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
	};
	struct perf_event_attr a;
	struct pb_error err;
	for (size_t i = 0; i < PB_ARRAY_SIZE(cases); i++) {
		CHECK(pb_test_build_attr(&skl, cases[i].spec, 1000003, &a, &err) == 0);
		CHECK_EQ_U64(a.type, PERF_TYPE_HARDWARE);
		CHECK_EQ_U64(a.config, cases[i].config);
		CHECK_EQ_U64(a.precise_ip, 0);
		CHECK_EQ_U64(a.sample_period, 1000003);
		CHECK(a.sample_type & PERF_SAMPLE_IP);
	}
	/* Generic names need no libpfm4 table: they work on Arm too. */
	CHECK(pb_test_build_attr(&neoverse, "hw:instructions", 100000, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_HARDWARE);
	/* Period 0 counts only. */
	CHECK(pb_test_build_attr(&skl, "hw:cycles", 0, &a, &err) == 0);
	CHECK_EQ_U64(a.sample_period, 0);
	CHECK(!(a.sample_type & PERF_SAMPLE_IP));
}

/* The counter the accuracy experiment checks its declared L1 misses with is the hw facility's,
 * and counts L1D read misses on a machine with a core PMU. */
static void test_l1_miss_counter(void)
{
	const char *counter = pb_l1_miss_counter();
	CHECK(counter && !strncmp(counter, "hw:", 3));
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(counter && pb_test_build_attr(&skl, counter, 0, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_HW_CACHE);
	CHECK_EQ_U64(a.config, PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
				       PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	CHECK_EQ_U64(a.sample_period, 0);
}

static void test_libpfm_names(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	CHECK(pb_test_build_attr(&skl, "hw:INST_RETIRED:ANY_P", 1000003, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a.config, 0xc0);
	CHECK_EQ_U64(a.precise_ip, 0);
	CHECK(pb_test_build_attr(&skl, "hw:MEM_LOAD_RETIRED:L1_MISS", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x8d1);
	CHECK_EQ_U64(a.precise_ip, 0);
	CHECK(pb_test_build_attr(&spr, "hw:BR_INST_RETIRED:NEAR_TAKEN", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x20c4);
	CHECK(pb_test_build_attr(&spr, "hw:INST_RETIRED:ANY", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x100); /* libpfm4 4.13 says 0x1c0: corrected */
	CHECK(pb_test_build_attr(&zen4, "hw:RETIRED_INSTRUCTIONS", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a.config, 0xc0);
	CHECK(pb_test_build_attr(&zen4, "hw:RETIRED_OPS", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0xc1);
	CHECK(pb_test_build_attr(&zen4, "hw:CYCLES_NOT_IN_HALT", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0x76);
	/* Zen 5 is newer than libpfm4 4.13: a Zen table is still chosen. */
	const char *t = pb_pfm_pmu_for_machine(&zen5);
	CHECK(t && (!strcmp(t, "amd64_fam1ah_zen5") || !strcmp(t, "amd64_fam19h_zen4")));
	/* Qualified names ignore the CPU model. */
	CHECK(pb_test_build_attr(&zen4, "hw:skl::INST_RETIRED:ANY_P", 10007, &a, &err) == 0);
	CHECK_EQ_U64(a.config, 0xc0);
}

static void test_errors(void)
{
	struct perf_event_attr a;
	struct pb_error err;
	struct pb_spec spec;
	CHECK(pb_spec_parse("hw", &spec, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "cycles");
	CHECK(pb_test_build_attr(&skl, "hw:INST_RETIRED:ANY_Q", 1000, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "close names");
	CHECK_STR_CONTAINS(err.msg, "INST_RETIRED:ANY_P");
	CHECK(pb_test_build_attr(&skl, "hw:BR_MSIP_RETIRED", 1000, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "BR_MISP_RETIRED");
	CHECK(pb_test_build_attr(&skl, "hw:cycle", 1000, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "generic events: cycles");
	CHECK(pb_test_build_attr(&skl, "hw:INST_RETIRED:ANY_P:precise=2", 1000, &a, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "pebs:");
	CHECK(pb_test_build_attr(&neoverse, "hw:INST_RETIRED", 1000, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	CHECK_STR_CONTAINS(err.msg, "no event table");
	CHECK(pb_test_build_attr(&vm, "hw:cycles", 1000, &a, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
}

static void test_availability(void)
{
	const struct pb_facility *hw = pb_facility_find("hw");
	struct pb_availability av;
	CHECK(hw != NULL);
	hw->availability(&vm, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "no hardware PMU");
	CHECK_STR_CONTAINS(av.reason, "/sys/bus/event_source/devices/cpu is absent");
	CHECK_STR_CONTAINS(av.reason, "hypervisor flag");

	struct pb_machine bare = vm;
	bare.hypervisor = false;
	hw->availability(&bare, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "not a VM");

	struct pb_machine locked = skl;
	locked.paranoid = 3;
	hw->availability(&locked, NULL, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "perf_event_paranoid is 3");
	locked.cap_perfmon = true;
	hw->availability(&locked, NULL, &av);
	CHECK(av.available);

	hw->availability(&skl, NULL, &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "cpu PMU type 4");
	CHECK_STR_CONTAINS(av.detail, "skl");
	CHECK_STR_CONTAINS(av.detail, "user-space only");
	hw->availability(&spr, NULL, &av);
	CHECK(av.available);
	CHECK(strstr(av.detail, "user-space only") == NULL);
	hw->availability(&neoverse, NULL, &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "armv8_pmuv3_0");

	/* The live machine: the verdict follows what sysfs shows, whatever this host is. */
	const struct pb_machine *live = pb_machine_live();
	hw->availability(live, NULL, &av);
	bool has_core = pb_machine_pmu(live, "cpu") || pb_machine_pmu(live, "cpu_core");
	if (!has_core && !(live->npmus && !strncmp(live->pmus[0].name, "armv", 4))) {
		CHECK(!av.available);
		CHECK_STR_CONTAINS(av.reason, "no hardware PMU");
	} else {
		CHECK(av.available || av.reason[0]);
	}
}

int main(void)
{
	pb_test_fixture(&skl, "sysfs-skl");
	pb_test_fixture(&spr, "sysfs-spr");
	pb_test_fixture(&zen4, "sysfs-zen4");
	pb_test_fixture(&zen5, "sysfs-zen5");
	pb_test_fixture(&vm, "sysfs-vm");
	pb_test_fixture(&neoverse, "sysfs-neoverse");
	if (!pb_pfm_pmu_supported("skl") || !pb_pfm_pmu_supported("amd64_fam19h_zen4"))
		pb_skip("this libpfm4 (%s) lacks the skl/zen4 tables", pb_pfm_version());
	test_generic();
	test_l1_miss_counter();
	test_libpfm_names();
	test_errors();
	test_availability();
	return pb_check_done("facility_hw");
}
