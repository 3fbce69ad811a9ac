/* The precise level proven by opening, on constructed Skylake and Sapphire Rapids machines
 * through the fake kernel: probe finds the highest precise_ip the kernel accepts (not what
 * caps/max_precise claims), PEBS opens at no more than that and its results say the level
 * granted, and PEBS's self-test checks that samples carry what that level promises: the
 * exact IP (pp >= 2) or the next instruction's (pp=1). */
#include "check.h"
#include "experiments/point.h"
#include "facilities/pebs.h"
#include "facilities/pfm_encode.h"
#include "facilities/selftest.h"
#include "fake_kernel.h"
#include "fixture.h"

#include <errno.h>
#include <string.h>

static struct pb_machine skl, spr;
static uint64_t branch_ip; /* where the scripted samples of the branch event land */

static void test_proven_level(void)
{
	for (int caps_level = 0; caps_level < 2; caps_level++) {
		struct pb_machine *m = caps_level ? &spr : &skl;
		const struct pb_pmu *cpu = pb_machine_pmu(m, "cpu");
		CHECK(cpu && cpu->precise_opened == -1); /* a saved tree: nothing opened */
		for (int accepted = 3; accepted >= 0; accepted--) {
			fake_kernel_install();
			fake_kernel_max_precise(accepted);
			pb_pebs_prove_precise(m);
			CHECK_EQ_U64(cpu->precise_opened, accepted);
			/* every probe opened cycles on the core PMU, for this thread, and closed it */
			for (unsigned i = 0; i < fake_kernel_nevents(); i++) {
				const struct fake_event *ev = fake_kernel_event_at(i);
				CHECK_EQ_U64(ev->attr.type, PERF_TYPE_HARDWARE);
				CHECK_EQ_U64(ev->attr.config, PERF_COUNT_HW_CPU_CYCLES);
				CHECK(ev->pid == 0 && ev->cpu == -1 && ev->closed);
			}
			fake_kernel_uninstall();
			struct pb_spec spec;
			struct pb_error err = {0};
			CHECK(pb_spec_parse("pebs:INST_RETIRED:PREC_DIST:pp=3", &spec, &err) == 0);
			struct pb_availability av;
			spec.facility->availability(m, &spec, &av);
			CHECK(av.available == (accepted >= 1));
			if (accepted < 1) {
				CHECK_STR_CONTAINS(av.reason, "refused precise_ip 1");
				continue;
			}
			CHECK_STR_CONTAINS(av.detail, "proven by opening");
			CHECK_EQ_U64(pb_pebs_granted_precise(m, &spec), accepted);
			struct perf_event_attr a;
			CHECK(pb_test_build_attr(m, "pebs:INST_RETIRED:PREC_DIST", 100003, &a, &err) ==
			      0);
			CHECK_EQ_U64(a.precise_ip, accepted);
		}
	}
}

/* The kernel takes precise_ip 2 only: a pp=3 point opens at 2 and says so. */
static void test_result_states_level(void)
{
	fake_kernel_install();
	fake_kernel_max_precise(2);
	pb_pebs_prove_precise(&skl);
	fake_kernel_uninstall();
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.machine = &skl;
	CHECK(pb_point_request_set(&req, pb_test_spec("pebs:INST_RETIRED:PREC_DIST:pp=3"), NULL,
				   NULL, NULL, &err) == 0);
	req.iterations = 1000;
	fake_kernel_install();
	fake_kernel_max_precise(2);
	struct pb_point pt;
	CHECK_MSG(pb_point_measure(&req, &pt, &err) == 0, "%s", err.msg);
	CHECK_EQ_U64(pt.ev[0].precise_requested, 3);
	CHECK_EQ_U64(pt.ev[0].precise_granted, 2);
	struct pb_rset run = {0};
	pb_point_record(&req, &pt, &run);
	const struct pb_rset *ev = pb_rlist_set_at(pb_rset_get_list(&run, "events"), 0);
	CHECK_EQ_U64(pb_rset_get_int(ev, "precise_granted"), 2);
	CHECK(pb_rset_is_true(ev, "precise_lowered"));
	pb_rset_clear(&run);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

static void write_branch_samples(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	uint8_t rec[512];
	for (unsigned i = 0; i < 100; i++) {
		struct pb_sample s = {0};
		/* the first part samples instructions anywhere in the loop; the second, taken
		 * branches, lands where the script says */
		s.ip = ev->attr.sample_period == 10007 ? branch_ip
						       : (uint64_t)(uintptr_t)pb_selftest_spin_begin;
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		fake_ring_write(ev, rec, len);
	}
	ev->count = 100 * ev->attr.sample_period;
}

static enum pb_verdict pebs_verdict(int accepted, uint64_t ip, struct pb_self_test *test)
{
	fake_kernel_install();
	fake_kernel_max_precise(accepted);
	pb_pebs_prove_precise(&skl);
	fake_kernel_on_disable(write_branch_samples, NULL);
	branch_ip = ip;
	pb_facility_find("pebs")->self_test(&skl, NULL, test);
	fake_kernel_uninstall();
	return test->verdict;
}

static void test_self_test_checks_the_level(void)
{
	uint64_t branch = (uint64_t)(uintptr_t)pb_selftest_spin_branch;
	uint64_t begin = (uint64_t)(uintptr_t)pb_selftest_spin_begin;
	struct pb_self_test test;
	/* pp=2 promises the branch itself */
	CHECK(pebs_verdict(3, branch, &test) == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "IP at the level granted");
	CHECK(pebs_verdict(2, begin, &test) == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "precise level 2 promise the exact IP and 100 of 100 samples");
	/* pp=1 promises the next instruction: the taken branch's target, the loop's start */
	CHECK(pebs_verdict(1, begin, &test) == PB_VERDICT_WORKS);
	CHECK(pebs_verdict(1, branch, &test) == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "precise level 1");
}

int main(void)
{
	pb_test_fixture(&skl, "sysfs-skl");
	pb_test_fixture(&spr, "sysfs-spr");
	if (!pb_pfm_pmu_supported("skl") || !pb_pfm_pmu_supported("spr"))
		pb_skip("this libpfm4 lacks the skl/spr tables");
	test_proven_level();
	test_result_states_level();
	test_self_test_checks_the_level();
	return pb_check_done("precise");
}
