/* Hybrid machines: an Alder Lake (cpu_core on CPUs 0-15, cpu_atom on 16-23) and an Arm
 * big.LITTLE board (armv8_cortex_a55 on 0-3, armv8_cortex_a76 on 4-7), both constructed from
 * the kernel's sysfs layout. Every core PMU is found with its CPUs, hw@PMU builds an event of
 * that PMU, and a point measured on it (through the fake kernel) pins its threads to that
 * PMU's CPUs and opens its events there. */
#include "check.h"
#include "experiments/point.h"
#include "fake_kernel.h"
#include "fixture.h"

#include <string.h>

static struct pb_machine adl, biglittle, skl;

static void test_core_pmus(void)
{
	const struct pb_pmu *core[PB_MAX_PMUS];
	CHECK_EQ_U64(pb_machine_core_pmus(&adl, core, PB_MAX_PMUS), 2);
	const struct pb_pmu *atom = pb_machine_pmu(&adl, "cpu_atom");
	const struct pb_pmu *big = pb_machine_pmu(&adl, "cpu_core");
	CHECK(atom && big && atom->core && big->core);
	CHECK_EQ_U64(pb_pmu_cpu_count(big), 16);
	CHECK_EQ_U64(pb_pmu_cpu_count(atom), 8);
	CHECK_EQ_U64(pb_pmu_cpu_at(atom, 0), 16);
	CHECK_EQ_U64(pb_pmu_cpu_at(atom, 9), 17); /* wraps: a 10th thread shares the 2nd CPU */
	CHECK_EQ_U64(pb_pmu_cpu_at(big, 15), 15);
	/* the default core PMU of a hybrid Intel machine is the big cores' (PEBS lives there) */
	CHECK(!strcmp(pb_machine_core_pmu(&adl)->name, "cpu_core"));
	CHECK(!pb_machine_pmu(&adl, "msr")->core);

	CHECK_EQ_U64(pb_machine_core_pmus(&biglittle, core, PB_MAX_PMUS), 2);
	CHECK(!strcmp(core[0]->name, "armv8_cortex_a55") && !strcmp(core[0]->cpus, "0-3"));
	CHECK(!strcmp(core[1]->name, "armv8_cortex_a76") && !strcmp(core[1]->cpus, "4-7"));
	CHECK_EQ_U64(core[1]->type, 9);

	/* one core PMU without a cpus file: covers every CPU */
	CHECK_EQ_U64(pb_machine_core_pmus(&skl, core, PB_MAX_PMUS), 1);
	CHECK_EQ_U64(pb_pmu_cpu_count(core[0]), 0);
	CHECK(pb_pmu_cpu_at(core[0], 0) < 0);
}

static void test_cpulist(void)
{
	uint64_t mask[2];
	CHECK(pb_cpulist_parse("0-3,8,10-11", mask, 128) == 7);
	CHECK_EQ_U64(mask[0], 0xd0f);
	CHECK(pb_cpulist_parse("64-65", mask, 128) == 2 && mask[1] == 3 && mask[0] == 0);
	CHECK(pb_cpulist_parse("1,1", mask, 128) == 1);
	CHECK(pb_cpulist_parse("", mask, 128) == 0);
	CHECK(pb_cpulist_parse("3-1", mask, 128) == -1);
	CHECK(pb_cpulist_parse("128", mask, 128) == -1);
	CHECK(pb_cpulist_parse("1-", mask, 128) == -1);
	CHECK(pb_cpulist_parse("a", mask, 128) == -1);
	CHECK(pb_cpulist_parse("1;2", mask, 128) == -1);
}

static void test_specs(void)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("hw@cpu_atom:instructions", &spec, &err) == 0);
	CHECK(!strcmp(spec.pmu, "cpu_atom") && !strcmp(spec.facility->name, "hw"));
	CHECK(!strcmp(spec.event, "instructions"));
	CHECK(pb_spec_parse("timer@cpu_atom:cpu-clock", &spec, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "takes no @PMU");
	CHECK(pb_spec_parse("hw@:cycles", &spec, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);

	struct perf_event_attr a;
	CHECK(pb_test_build_attr(&adl, "hw@cpu_atom:instructions", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.type, PERF_TYPE_HARDWARE);
	CHECK_EQ_U64(a.config, PERF_COUNT_HW_INSTRUCTIONS | (uint64_t)8 << 32);
	CHECK(pb_test_build_attr(&biglittle, "hw@armv8_cortex_a76:cycles", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.config, PERF_COUNT_HW_CPU_CYCLES | (uint64_t)9 << 32);

	/* the one core PMU of a machine is its default: not named in config, which kernels
	 * without hybrid PMUs refuse */
	CHECK(pb_test_build_attr(&skl, "hw@cpu:cycles", 100003, &a, &err) == 0);
	CHECK_EQ_U64(a.config, PERF_COUNT_HW_CPU_CYCLES);

	struct pb_availability av;
	CHECK(pb_spec_parse("hw@frob:cycles", &spec, &err) == 0);
	spec.facility->availability(&adl, &spec, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "cpu_atom (CPUs 16-23)");
	CHECK_STR_CONTAINS(av.reason, "cpu_core (CPUs 0-15)");
	CHECK(pb_test_build_attr(&adl, "hw@msr:cycles", 100003, &a, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_UNAVAILABLE);
	CHECK_STR_CONTAINS(err.msg, "not a core PMU");
	CHECK(pb_spec_parse("hw@cpu_atom:cycles", &spec, &err) == 0);
	spec.facility->availability(&adl, &spec, &av);
	CHECK(av.available);
	CHECK_STR_CONTAINS(av.detail, "cpu_atom PMU type 8, CPUs 16-23");
}

/* measure --facility hw@cpu_atom:instructions on the Alder Lake through the fake kernel: each
 * thread's event is opened for that thread (pid 0) on a CPU of cpu_atom, and the thread is
 * pinned there. */
static void test_measure_on_atom(void)
{
	for (int pmu = 0; pmu < 2; pmu++) {
		struct pb_point_request req;
		struct pb_error err = {0};
		pb_point_request_defaults(&req);
		req.machine = &adl;
		const char *spec = pmu ? "hw@cpu_atom:instructions" : "hw:instructions";
		CHECK(pb_point_request_set(&req, pb_test_spec(spec), NULL, NULL, NULL, &err) == 0);
		req.threads = 2;
		req.iterations = 1000;
		fake_kernel_install();
		struct pb_point pt;
		CHECK_MSG(pb_point_measure(&req, &pt, &err) == 0, "%s: %s", spec, err.msg);
		CHECK_EQ_U64(fake_kernel_nevents(), 2);
		for (unsigned i = 0; i < fake_kernel_nevents(); i++) {
			const struct fake_event *ev = fake_kernel_event_at(i);
			CHECK_EQ_U64(ev->pid, 0);
			if (pmu) {
				CHECK_MSG(ev->cpu >= 16 && ev->cpu <= 23,
					  "hw@cpu_atom opened on CPU %d, not one of cpu_atom's 16-23",
					  ev->cpu);
				CHECK_EQ_U64(ev->attr.config >> 32, 8);
			} else {
				CHECK_EQ_U64(ev->cpu, -1); /* a plain hw event follows its thread */
			}
		}
		if (pmu) {
			CHECK(fake_kernel_event_at(0)->cpu != fake_kernel_event_at(1)->cpu);
			for (unsigned th = 0; th < 2; th++)
				CHECK(pt.session->thread[th].cpu >= 16 && pt.session->thread[th].cpu <= 23);
		}
		pb_point_free(&pt);
		fake_kernel_uninstall();
	}
}

/* More threads than the PMU has CPUs would share them: refused, naming the limit. */
static void test_too_many_threads(void)
{
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.machine = &adl;
	CHECK(pb_point_request_set(&req, pb_test_spec("hw@cpu_atom:instructions"), NULL, NULL, NULL,
				   &err) == 0);
	req.threads = 9;
	req.iterations = 1000;
	fake_kernel_install();
	struct pb_point pt;
	CHECK(pb_point_measure(&req, &pt, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "cpu_atom covers 8 CPUs; 9 threads");
	CHECK_EQ_U64(fake_kernel_nevents(), 0);
	fake_kernel_uninstall();
}

int main(void)
{
	pb_test_fixture(&adl, "sysfs-adl");
	pb_test_fixture(&biglittle, "sysfs-biglittle");
	pb_test_fixture(&skl, "sysfs-skl");
	test_core_pmus();
	test_cpulist();
	test_specs();
	test_measure_on_atom();
	test_too_many_threads();
	return pb_check_done("hybrid");
}
