/* The facilities' self-tests: a facility the kernel accepts is trusted only when a tiny known
 * loop under it gives what the loop must give. Checked here on the real kernel against an
 * independent count, with breakpoints made inert through the sys seam (as on the VM kind whose
 * hypervisor never delivers their traps), and through the fake kernel for the verdicts no
 * machine of ours produces (miscounts, refusals, PMU samples inside and outside the loop). */
#include "check.h"
#include "fake_kernel.h"
#include "fixture.h"

#include "facilities/facility.h"
#include "facilities/selftest.h"
#include "sys/sys.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* --- breakpoints made inert: the real kernel, a breakpoint opened as a dummy event --- */
static int inert_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags)
{
	if (attr->type != PERF_TYPE_BREAKPOINT)
		return pb_sys_linux.perf_event_open(attr, pid, cpu, group_fd, flags);
	struct perf_event_attr dummy = *attr;
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.bp_type = 0;
	dummy.bp_addr = 0;
	dummy.bp_len = 0;
	return pb_sys_linux.perf_event_open(&dummy, pid, cpu, group_fd, flags);
}

static struct pb_sys inert_breakpoints;

static const struct pb_facility *facility(const char *name)
{
	const struct pb_facility *f = pb_facility_find(name);
	CHECK(f != NULL);
	return f;
}

static enum pb_verdict verdict_of(const char *name, struct pb_self_test *test)
{
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), NULL, facility(name), &av, test);
	/* available exactly when the self-test passed (or nothing could run) */
	CHECK(av.available == (test->verdict == PB_VERDICT_WORKS));
	return test->verdict;
}

/* An independent judge: a write breakpoint of our own over 1000 writes, no pesbench code. */
static volatile long judged_word;
static long long judge_breakpoints(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&judged_word;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 1000; i++)
		judged_word = i;
	long long n = -1;
	if (read(fd, &n, sizeof n) != sizeof n)
		n = -1;
	close(fd);
	return n;
}

static void real_kernel_verdicts_agree_with_the_judge(void)
{
	struct pb_self_test test;
	long long judged = judge_breakpoints();
	enum pb_verdict v = verdict_of("bp", &test);
	printf("bp: judge counted %lld of 1000 writes; self-test %s: %s\n", judged,
	       pb_verdict_name(v), test.text);
	if (judged == 1000)
		CHECK(v == PB_VERDICT_WORKS);
	else if (judged == 0)
		CHECK(v == PB_VERDICT_INERT);
	else if (judged < 0)
		CHECK(v == PB_VERDICT_REFUSED || v == PB_VERDICT_ABSENT);
	else
		CHECK(v == PB_VERDICT_INEXACT);
	/* page faults and timers exist on every Linux with perf events: as root they work */
	if (getuid() == 0) {
		CHECK(verdict_of("sw", &test) == PB_VERDICT_WORKS);
		CHECK_EQ_U64(test.counted, test.expected);
		CHECK(verdict_of("timer", &test) == PB_VERDICT_WORKS);
		CHECK(test.samples > 0);
		CHECK(test.samples_inside * 2 >= test.samples);
	} else {
		pb_skip_checks(5, "not root: sw and timer verdicts depend on perf_event_paranoid");
	}
}

static void injected_inert_breakpoints_are_found_out(void)
{
	inert_breakpoints = pb_sys_linux;
	inert_breakpoints.perf_event_open = inert_open;
	pb_sys_install(&inert_breakpoints);
	pb_facility_forget_self_tests();
	struct pb_self_test test;
	CHECK(verdict_of("bp", &test) == PB_VERDICT_INERT);
	CHECK_EQ_U64(test.counted, 0);
	CHECK_STR_CONTAINS(test.text, "w: the kernel accepts breakpoints but none fired: 16 writes, "
				      "0 counted");
	CHECK_STR_CONTAINS(test.text, "rw: the kernel accepts breakpoints but none fired");
	CHECK_STR_CONTAINS(test.text, "x: the kernel accepts breakpoints but none fired: 16 "
				      "executions, 0 counted");
	/* a spec is refused with the verdict as the reason */
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("bp:w", &spec, &err) == 0);
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), &spec, NULL, &av, &test);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "self-test inert: the kernel accepts breakpoints but none "
				      "fired: 16 writes, 0 counted");
	/* the other facilities are untouched by the injection */
	if (getuid() == 0)
		CHECK(verdict_of("sw", &test) == PB_VERDICT_WORKS);
	pb_sys_install(NULL);
	pb_facility_forget_self_tests();
}

/* --- the fake kernel: what no machine of ours does --- */
static uint64_t scripted_count;

static void count_as_scripted(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	ev->count = scripted_count;
}

static void fake_counts_give_their_verdicts(void)
{
	struct pb_self_test test;
	fake_kernel_install();
	fake_kernel_on_disable(count_as_scripted, NULL);

	scripted_count = 16;
	pb_facility_forget_self_tests();
	CHECK(verdict_of("bp", &test) == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "16 writes, 16 counted");

	scripted_count = 15; /* every run: a miscount believed because it happens again */
	pb_facility_forget_self_tests();
	CHECK(verdict_of("bp", &test) == PB_VERDICT_INEXACT);
	CHECK_EQ_U64(test.counted, 3 * 15);
	CHECK_EQ_U64(test.expected, 3 * 16);
	CHECK_STR_CONTAINS(test.text, "breakpoints miscount: 16 writes, 15 counted");
	/* the retry is recorded, never silent (issue 21) */
	CHECK_EQ_U64(test.attempts, 2);
	CHECK_STR_CONTAINS(test.text, "(attempt 2 of 2; attempt 1: inexact breakpoints miscount");
	CHECK_STR_CONTAINS(test.earlier, "w: attempt 1: inexact breakpoints miscount: 16 writes, "
					 "15 counted");

	scripted_count = 17;
	pb_facility_forget_self_tests();
	CHECK(verdict_of("uprobe", &test) == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "uprobes miscount: 16 calls, 17 counted");

	pb_facility_forget_self_tests();
	fake_kernel_fail_next_open(ENOSPC);
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("bp:x", &spec, &err) == 0);
	struct pb_availability av;
	pb_facility_check(pb_machine_live(), &spec, NULL, &av, &test);
	CHECK(test.verdict == PB_VERDICT_REFUSED);
	CHECK_EQ_U64(test.sys_errno, ENOSPC);
	CHECK_STR_CONTAINS(av.reason, "self-test refused: perf_event_open refused the event: No "
				      "space left on device");
	fake_kernel_uninstall();
	pb_facility_forget_self_tests();
}

/* PMU facilities: samples of the spin loop must arrive, inside the loop. */
static uint64_t sample_ip;
static unsigned sample_count;
static unsigned due_count;    /* periods the count holds; 0: sample_count */
static bool general_broken;   /* instructions sampled: 1 sample (QEMU's arm64 defect) */
static unsigned far_attempts; /* sampling runs still to land far from the loop */
static unsigned starved_runs; /* sampling runs still to give nothing (starved after counting) */
static unsigned noisy_counts; /* counting runs still to count timer ticks' kernel instructions
			       * on top (where a PMU ignores exclude_kernel): 5000 per 100000
			       * iterations, so twice as many in a run twice as long */
static int64_t boundary_offset = 37; /* the instructions around the loop a counter sees */
static unsigned lost_per_1000;       /* a counter losing this many of every 1000 iterations */
static uint64_t branch_config; /* PEBS's exact-IP part samples taken branches: on the branch */

static void write_samples(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	if (!ev->attr.sample_period) {
		/* hw's counting part: the spin loop's instructions, as a PMU counts them */
		uint64_t iterations = pb_selftest_spin_last_iterations();
		ev->count = (uint64_t)((int64_t)pb_selftest_spin_instructions(iterations) +
				       boundary_offset) -
			    iterations / 1000 * lost_per_1000 +
			    (noisy_counts ? iterations / 20 : 0);
		noisy_counts -= noisy_counts > 0;
		return;
	}
	uint8_t rec[512];
	bool far = far_attempts > 0;
	far_attempts -= far;
	bool starved = starved_runs > 0;
	starved_runs -= starved;
	bool general = ev->attr.type == PERF_TYPE_HARDWARE &&
		       ev->attr.config == PERF_COUNT_HW_INSTRUCTIONS;
	unsigned samples = starved ? 0 : general && general_broken ? 1 : sample_count;
	for (unsigned i = 0; i < samples; i++) {
		struct pb_sample s = {0};
		s.ip = far ? 0x1000 : sample_ip;
		if (!far && branch_config && ev->attr.precise_ip && ev->attr.config == branch_config)
			s.ip = (uint64_t)(uintptr_t)pb_selftest_spin_branch;
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		fake_ring_write(ev, rec, len);
	}
	ev->count = (uint64_t)(due_count ? due_count : sample_count) * ev->attr.sample_period;
}

static enum pb_verdict pmu_verdict(const struct pb_machine *m, const char *name,
				   struct pb_self_test *test)
{
	facility(name)->self_test(m, NULL, test);
	return test->verdict;
}

static void pmu_samples_give_their_verdicts(void)
{
	static struct pb_machine zen4, spr;
	pb_test_fixture(&zen4, "sysfs-zen4");
	pb_test_fixture(&spr, "sysfs-spr");
	struct pb_self_test test;
	struct perf_event_attr branch_attr;
	struct pb_error err;
	CHECK(pb_test_build_attr(&spr, "pebs:BR_INST_RETIRED:NEAR_TAKEN", 10007, &branch_attr,
				 &err) == 0);
	branch_config = branch_attr.config;
	fake_kernel_install();
	fake_kernel_on_disable(write_samples, NULL);
	const char *names[] = {"ibs-op", "ibs-fetch", "pebs", "hw"};
	const struct pb_machine *machines[] = {&zen4, &zen4, &spr, &spr};
	for (int i = 0; i < 4; i++) {
		sample_ip = (uint64_t)(uintptr_t)pb_selftest_spin_begin;
		sample_count = 64;
		CHECK(pmu_verdict(machines[i], names[i], &test) == PB_VERDICT_WORKS);
		/* pebs runs a second part (taken branches, their IPs at the level granted); hw
		 * samples on both kinds of counter */
		CHECK_EQ_U64(test.samples_inside, strcmp(names[i], "pebs") && strcmp(names[i], "hw")
							  ? 64 : 128);
		sample_ip = 0x1000; /* far from the loop */
		CHECK(pmu_verdict(machines[i], names[i], &test) == PB_VERDICT_INEXACT);
		CHECK_STR_CONTAINS(test.text, "outside the loop: 0 of 64");
		CHECK_STR_CONTAINS(test.text, "attempt 3 of 3");
		/* a busy machine once: measured again, and the text says it */
		sample_ip = (uint64_t)(uintptr_t)pb_selftest_spin_begin;
		far_attempts = 1;
		CHECK(pmu_verdict(machines[i], names[i], &test) == PB_VERDICT_WORKS);
		CHECK_STR_CONTAINS(test.text, "attempt 2 of 3");
		CHECK_EQ_U64(far_attempts, 0);
		/* the bound is two-sided (issue 21): 100 samples where 64 +- 26 were due */
		sample_count = 100;
		due_count = 64;
		CHECK(pmu_verdict(machines[i], names[i], &test) == PB_VERDICT_INEXACT);
		CHECK_STR_CONTAINS(test.text, "sample too often: 100 samples where 64 +- 26");
		/* 20 due cannot be judged: the bound needs 44, longer runs are tried */
		sample_count = due_count = 20;
		CHECK(pmu_verdict(machines[i], names[i], &test) == PB_VERDICT_INEXACT);
		CHECK_STR_CONTAINS(test.text, "a bound needs 44");
		CHECK_EQ_U64(test.attempts, 3);
		due_count = 0;
		sample_count = 0;
		CHECK(pmu_verdict(machines[i], names[i], &test) == PB_VERDICT_INERT);
		CHECK_STR_CONTAINS(test.text, "none sampled");
	}
	/* hw: the first sampling test right after the counting one starved, an identical second
	 * sampled: works, and the self-test names the loss */
	sample_ip = (uint64_t)(uintptr_t)pb_selftest_spin_begin;
	sample_count = 64;
	starved_runs = 1;
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "STARVED after counting");
	CHECK_STR_CONTAINS(test.text, "got 0 samples, an identical second 64");
	CHECK_EQ_U64(starved_runs, 0);
	/* issue 21: the count's offset derived, not tolerated. The loop counted at 100000 and
	 * 200000 iterations must differ by exactly 200000 instructions; what a counter sees
	 * around the loop is measured by it. */
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "instructions: 200001 instructions, 200038 counted, and "
				      "400001, 400038 counted: the loop exact, 37 more at the "
				      "enable/disable boundaries");
	CHECK_EQ_U64(test.attempts, 1);
	/* QEMU's RISC-V PMU counts the kernel's enable/disable path, 1766 instructions: 0.88 %
	 * of this loop, inside a 1 % tolerance only by luck; 3000 would have failed it. Measured,
	 * either is the offset it is. */
	boundary_offset = 3000;
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "the loop exact, 3000 more at the enable/disable");
	/* fewer than the loop's own: a loss, whatever the lengths agree on */
	boundary_offset = -10;
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "instruction counters miscount: 200001 instructions, 199991 "
				      "counted (under by 10) at both lengths");
	CHECK_EQ_U64(test.attempts, 3);
	boundary_offset = 37;
	/* a counter losing 1 instruction in 2000: the lengths disagree, 100 under */
	lost_per_1000 = 1;
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "the longer run counted 199900 more where its loop has "
				      "200000 more (under by 100)");
	lost_per_1000 = 0;
	/* a tick's kernel instructions in the first try: the second is clean, and both kept */
	noisy_counts = 1;
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_WORKS);
	CHECK_EQ_U64(noisy_counts, 0);
	CHECK_STR_CONTAINS(test.text, "the loop exact, 37 more");
	CHECK_STR_CONTAINS(test.text, "(the smallest counts of 2 tries; attempt 1: 205038 and "
				      "400038 counted)");
	CHECK_EQ_U64(test.attempts, 2);
	CHECK_STR_CONTAINS(test.earlier, "attempt 1: 205038 and 400038 counted");
	noisy_counts = 6; /* every try: believed, over by the longer run's extra ticks */
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "where its loop has 200000 more (over by 5000)");
	CHECK_STR_CONTAINS(test.text, "attempt 2: 205038 and 410038 counted");
	noisy_counts = 0;
	/* issue 21: a verdict per kind of counter. General-purpose counters that sample once
	 * where 64 are due: the facility works on the cycle counter, says the other kind is
	 * broken with its figures, and a spec on it fails its own self-test. */
	sample_ip = (uint64_t)(uintptr_t)pb_selftest_spin_begin;
	sample_count = 64;
	general_broken = true;
	CHECK(pmu_verdict(&spr, "hw", &test) == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "cycle counter sampled: 64 samples");
	CHECK_STR_CONTAINS(test.text, "general counters sampled (BROKEN: specs on them are "
				      "refused): general-purpose counters sample too rarely: 1 "
				      "samples where 64");
	struct pb_spec on_general, on_cycles;
	err = (struct pb_error){0};
	CHECK(pb_spec_parse("hw:branches", &on_general, &err) == 0);
	CHECK(pb_spec_parse("hw:cycles", &on_cycles, &err) == 0);
	pb_facility_hw.self_test(&spr, &on_general, &test);
	CHECK(test.verdict == PB_VERDICT_INEXACT);
	pb_facility_hw.self_test(&spr, &on_cycles, &test);
	CHECK(test.verdict == PB_VERDICT_WORKS);
	char a[64], b[64], c[64];
	struct pb_spec instructions;
	CHECK(pb_spec_parse("hw:instructions", &instructions, &err) == 0);
	CHECK(!strcmp(pb_facility_hw.verdict_key(&on_general, a, sizeof a),
		      pb_facility_hw.verdict_key(&instructions, b, sizeof b)));
	CHECK(strcmp(pb_facility_hw.verdict_key(&on_cycles, c, sizeof c), a) != 0);
	/* a spec that only counts (verify's oracle) is judged on its count */
	instructions.counting_only = true;
	pb_facility_hw.self_test(&spr, &instructions, &test);
	CHECK(test.verdict == PB_VERDICT_WORKS);
	CHECK(strcmp(pb_facility_hw.verdict_key(&instructions, c, sizeof c), a) != 0);
	general_broken = false;

	/* a saved tree runs nothing: untested, available as its files say */
	struct pb_availability av;
	pb_facility_check(&zen4, NULL, facility("ibs-op"), &av, &test);
	CHECK(test.verdict == PB_VERDICT_UNTESTED);
	fake_kernel_uninstall();
}

int main(void)
{
	real_kernel_verdicts_agree_with_the_judge();
	injected_inert_breakpoints_are_found_out();
	fake_counts_give_their_verdicts();
	pmu_samples_give_their_verdicts();
	return pb_check_done("test_selftest");
}
