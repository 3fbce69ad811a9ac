/* Numbers that must read right (issue 21): the timer's floored expectation, too few samples
 * carrying no accuracy, the direction of an error, wrong-level samples, and the self-test's
 * derived bounds. Each case is constructed through the fake kernel, so the figure it must give
 * is known exactly. */
#include "check.h"
#include "fake_kernel.h"
#include "fixture.h"
#include "results_json.h"

#include "experiments/experiment.h"
#include "experiments/point.h"
#include "experiments/suite_defaults.h"
#include "facilities/facility.h"
#include "facilities/selftest.h"
#include "io/probe_json.h"
#include "workloads/workload.h"

#include <linux/hw_breakpoint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pb_machine machine;

/* What the constructed kernel writes when the measured region ends. */
static struct {
	uint64_t samples;   /* sample records, IP in user space unless kernel_ip */
	uint64_t count;     /* what read() reports */
	uint64_t ip;
	bool kernel_ip;     /* every sample at a kernel address, marked user mode (the arm64
			     * guest's defect) */
} script;

static void write_script(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	uint8_t rec[512];
	for (uint64_t n = 0; n < script.samples; n++) {
		struct pb_sample s = {.ip = script.kernel_ip ? 0xffff800010001000ull : script.ip,
				      .pid = 1, .tid = 1, .time = n, .id = ev->id,
				      .identifier = ev->id, .period = ev->attr.sample_period};
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		fake_ring_write(ev, rec, len);
	}
	ev->count = script.count;
	ev->time_enabled = ev->time_running = 1000000;
}

static void request(struct pb_point_request *req, const char *facility, const char *workload,
		    uint64_t period, uint64_t iterations)
{
	pb_test_request(req, facility, workload, period, iterations, &machine);
}

/* A breakpoint counting what the self-test's loop did (16 of each access). */
static void sixteen_counted(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	ev->count = 16;
}

/* A request of an exact facility for the checks that measure it through the fake kernel: its
 * self-test is answered by the fake kernel too, so that the arithmetic under test does not hang
 * on whether this machine's breakpoints fire (the request is refused where they do not, and
 * these checks failed on that VM kind, hidden in the output snapshot's inert-breakpoint copy,
 * where both sides failed alike). The self-test is forgotten after, for the live checks. */
static void request_exact(struct pb_point_request *req, const char *facility, const char *workload,
			  uint64_t period, uint64_t iterations)
{
	pb_facility_forget_self_tests();
	fake_kernel_install();
	fake_kernel_on_disable(sixteen_counted, NULL);
	request(req, facility, workload, period, iterations);
	fake_kernel_uninstall();
	pb_facility_forget_self_tests();
}

/* The real kernel's breakpoints work here; else the n checks that need them are skipped. */
static bool breakpoints_work(unsigned n)
{
	struct pb_self_test judge;
	pb_facility_bp.self_test(pb_machine_live(), NULL, &judge);
	if (judge.verdict == PB_VERDICT_WORKS)
		return true;
	pb_skip_checks(n, "breakpoints do not work on this machine: %s", judge.text);
	return false;
}

static char *printed(const struct pb_point_request *req, const struct pb_point *pt)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	pb_point_print(mem, req, pt);
	fclose(mem);
	return text;
}

static int measure(const struct pb_point_request *req, struct pb_point *pt)
{
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_error err = {0};
	int rc = pb_point_measure(req, pt, &err);
	if (rc)
		fprintf(stderr, "measure: %s\n", err.msg);
	fake_kernel_uninstall();
	return rc;
}

/* Issue 21 item 1: a timer's ticks sit on a grid from enable, so a run of 1 328 327 ns at a
 * period of 100 000 ns holds at most 13 of them. 13 observed is 100 % with no tick missed (the
 * unfloored 13.28 read 97.9 % and "missed 1"). */
static void timer_expectation_is_floored(void)
{
	CHECK(pb_facility_timer.ticks_from_enable);
	struct pb_point_request req;
	request(&req, "timer:cpu-clock", "busy", 100000, 2000000);
	memset(&script, 0, sizeof script);
	script.samples = 13;
	script.count = 1328327;
	script.ip = 0x401000;
	struct pb_point pt;
	CHECK(measure(&req, &pt) == 0);
	CHECK(!strcmp(pt.ev[0].basis, "time"));
	CHECK(fabs(pt.ev[0].expected - 13) < 1e-9);
	CHECK(fabs(pt.ev[0].accuracy - 100) < 1e-9);
	CHECK_EQ_U64(pt.ev[0].missed, 0);
	char *text = printed(&req, &pt);
	CHECK(strstr(text, "missed") == NULL);
	free(text);
	/* one tick fewer than the grid holds is a missed tick */
	pb_point_free(&pt);
	script.samples = 12;
	CHECK(measure(&req, &pt) == 0);
	CHECK_EQ_U64(pt.ev[0].missed, 1);
	pb_point_free(&pt);
}

/* Issue 21 item 9: bp:r's self-test must read the watched word. x86 cannot trap reads alone,
 * so through the sys seam a read watchpoint is opened as a read/write one on the real kernel:
 * a loop that reads the word 16 times is counted 16 times, one that never touches it 0. */
static int read_as_read_write(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags)
{
	struct perf_event_attr a = *attr;
	if (a.type == PERF_TYPE_BREAKPOINT && a.bp_type == HW_BREAKPOINT_R)
		a.bp_type = HW_BREAKPOINT_RW;
	return pb_sys_linux.perf_event_open(&a, pid, cpu, group_fd, flags);
}

static void bp_read_self_test_reads(void)
{
	static struct pb_machine arm;
	pb_test_fixture(&arm, "sysfs-qemu-a57");
	if (!breakpoints_work(2))
		return;
	static struct pb_sys seam;
	seam = pb_sys_linux;
	seam.perf_event_open = read_as_read_write;
	pb_sys_install(&seam);
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("bp:r", &spec, &err) == 0);
	struct pb_self_test test;
	pb_facility_bp.self_test(&arm, &spec, &test);
	pb_sys_install(NULL);
	printf("bp:r self-test: %s: %s\n", pb_verdict_name(test.verdict), test.text);
	CHECK(test.verdict == PB_VERDICT_WORKS);
	CHECK_STR_CONTAINS(test.text, "16 reads, 16 counted");
}

/* Issue 21 item 13: on arm64 probe shows each facility's own model for the architecture:
 * watchpoints report the accessing instruction (exact), and the uprobe cost line is not x86's
 * 5-byte nop. */
static void arm64_texts_from_the_model(void)
{
	static struct pb_machine arm;
	pb_test_fixture(&arm, "sysfs-qemu-a57");
	CHECK(pb_facility_ip_kind(&arm, &pb_facility_bp) == PB_IP_EXACT);
	CHECK(pb_facility_ip_kind(&machine, &pb_facility_bp) == PB_IP_NEXT);
	json_t *probe = pb_probe_json(&arm);
	json_t *list = json_object_get(probe, "facilities");
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *f = json_array_get(list, i);
		const char *name = json_string_value(json_object_get(f, "name"));
		if (!strcmp(name, "bp"))
			CHECK(!strcmp(json_string_value(json_object_get(f, "ip")), "exact"));
	}
	json_decref(probe);
	struct pb_availability av;
	pb_facility_uprobe.availability(&arm, NULL, &av);
	if (av.available) {
		CHECK(strstr(av.detail, "5-byte") == NULL);
		CHECK_STR_CONTAINS(av.detail, "single-stepped");
	} else {
		pb_skip_checks(2, "the arm64 fixture has no uprobe PMU: %s", av.reason);
	}
}

/* Issue 21 item 4: the miss variant's flush is no watched access, declared from the code; a
 * read/write breakpoint on the real kernel counts the four loads of each iteration, nothing
 * more (x86's clflush of the watched word was a fifth, so 25 % shares were never ideal). */
static void bias_flush_is_not_watched(void)
{
	if (!breakpoints_work(3))
		return;
	struct pb_point_request req;
	request(&req, "bp:rw", "bias:variant=miss", 7, 20000);
	req.machine = NULL;
	struct pb_point pt;
	struct pb_error err = {0};
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK_EQ_U64(pt.ev[0].declared, 4 * 20000);
	CHECK_EQ_U64(pt.ev[0].count, 4 * 20000);
	CHECK(fabs(pt.ev[0].accuracy - 100) < 1e-9);
	pb_point_free(&pt);
}

static json_t *event_json(const struct pb_point_request *req, const struct pb_point *pt)
{
	json_t *run = pb_test_run_json(req, pt);
	json_t *ev = json_incref(json_array_get(json_object_get(run, "events"), 0));
	json_decref(run);
	return ev;
}

/* Issue 21 item 6: a run expecting fewer samples than an accuracy needs carries none, says
 * why in the text and the JSON, never prints nan; experiments that size a run size it up. */
static void too_few_samples_carry_no_accuracy(void)
{
	struct pb_point_request req;
	request(&req, "timer:cpu-clock", "busy", 1000000, 1000);
	memset(&script, 0, sizeof script);
	script.count = 800000; /* 0.8 ms at 1 ms: nothing due */
	struct pb_point pt;
	CHECK(measure(&req, &pt) == 0);
	CHECK(isnan(pt.ev[0].accuracy));
	CHECK(pt.ev[0].too_few_samples);
	CHECK(!pt.ev[0].no_samples);
	json_t *ev = event_json(&req, &pt);
	CHECK(json_is_null(json_object_get(ev, "accuracy")));
	CHECK(json_is_true(json_object_get(ev, "too_few_samples")));
	CHECK_STR_CONTAINS(json_string_value(json_object_get(ev, "accuracy_withheld")),
			   "too few samples");
	json_decref(ev);
	char *text = printed(&req, &pt);
	CHECK_STR_CONTAINS(text, "no accuracy: too few samples");
	CHECK(strstr(text, "nan") == NULL && strstr(text, "inf") == NULL);
	free(text);
	pb_point_free(&pt);
	/* 5 samples due: a figure of 1 in 5 is no accuracy either */
	script.count = 5000000;
	script.samples = 5;
	CHECK(measure(&req, &pt) == 0);
	CHECK(isnan(pt.ev[0].accuracy) && pt.ev[0].too_few_samples);
	pb_point_free(&pt);
	/* 10 due: a figure */
	script.count = 10000000;
	script.samples = 10;
	CHECK(measure(&req, &pt) == 0);
	CHECK(fabs(pt.ev[0].accuracy - 100) < 1e-9 && !pt.ev[0].too_few_samples);
	pb_point_free(&pt);

	/* sizing: 100 iterations of mix write its word 100 times, 1 sample at period 100 */
	request_exact(&req, "bp:w", "mix", 100, 100);
	uint64_t it = pb_point_iterations_for_samples(&req, 100, PB_MIN_EXPECTED_SAMPLES);
	struct pb_truth truth;
	struct pb_error err = {0};
	CHECK(pb_workload_truth(&req.workload, it, &truth, &err) == 0);
	CHECK(truth.watch_writes / 100 >= PB_MIN_EXPECTED_SAMPLES);
	CHECK(pb_point_iterations_for_samples(&req, it, PB_MIN_EXPECTED_SAMPLES) == it);
}

/* Issue 21 item 10: the accuracy is symmetric, so its direction is said beside it. */
static void over_count_has_a_direction(void)
{
	struct pb_point_request req;
	request(&req, "timer:cpu-clock", "busy", 100000, 1000);
	memset(&script, 0, sizeof script);
	script.count = 10000000;   /* 100 due */
	script.samples = 101;
	struct pb_point pt;
	CHECK(measure(&req, &pt) == 0);
	CHECK(fabs(pt.ev[0].accuracy - 99) < 1e-9);
	CHECK(fabs(pt.ev[0].signed_error - 1) < 1e-9);
	CHECK(!strcmp(pb_point_direction(&pt.ev[0]), "over"));
	json_t *ev = event_json(&req, &pt);
	CHECK(!strcmp(json_string_value(json_object_get(ev, "direction")), "over"));
	CHECK(fabs(json_number_value(json_object_get(ev, "signed_error")) - 1) < 1e-9);
	json_decref(ev);
	char *text = printed(&req, &pt);
	CHECK_STR_CONTAINS(text, "OVER by 1.000 %");
	free(text);
	pb_point_free(&pt);
	script.samples = 97;
	CHECK(measure(&req, &pt) == 0);
	CHECK(!strcmp(pb_point_direction(&pt.ev[0]), "under"));
	text = printed(&req, &pt);
	CHECK_STR_CONTAINS(text, "UNDER by 3.000 %");
	free(text);
	pb_point_free(&pt);
	/* an exact facility counting one access more per signal (the arm64 guest): the count's
	 * direction too */
	request_exact(&req, "bp:w", "mix", 100, 10000);
	struct pb_truth truth;
	struct pb_error err = {0};
	CHECK(pb_workload_truth(&req.workload, req.iterations, &truth, &err) == 0);
	script.count = truth.watch_writes + truth.watch_writes / 100;
	script.samples = script.count / 100;
	CHECK(measure(&req, &pt) == 0);
	CHECK(pt.ev[0].signed_error > 0);
	text = printed(&req, &pt);
	char want[64];
	snprintf(want, sizeof want, "count OVER the declaration by %llu",
		 (unsigned long long)(truth.watch_writes / 100));
	CHECK_STR_CONTAINS(text, want);
	free(text);
	pb_point_free(&pt);
}

/* Issue 21 item 11: samples at a level the run excluded are flagged, by IP as well as by the
 * record's flag (the arm64 guest writes kernel IPs into user-mode records). */
static void wrong_level_samples_are_flagged(void)
{
	struct pb_point_request req;
	request(&req, "timer:cpu-clock", "busy", 100000, 1000);
	req.exclude_kernel = true;
	memset(&script, 0, sizeof script);
	script.count = 2000000;
	script.samples = 20;
	script.kernel_ip = true;
	struct pb_point pt;
	CHECK(measure(&req, &pt) == 0);
	CHECK_EQ_U64(pt.ev[0].wrong_level_samples, 20);
	CHECK_EQ_U64(pt.ev[0].kernel_samples, 0); /* the flag says user */
	json_t *ev = event_json(&req, &pt);
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "wrong_level_samples")), 20);
	json_decref(ev);
	char *text = printed(&req, &pt);
	CHECK_STR_CONTAINS(text, "WRONG LEVEL: 20 samples");
	free(text);
	pb_point_free(&pt);
	script.kernel_ip = false;
	CHECK(measure(&req, &pt) == 0);
	CHECK_EQ_U64(pt.ev[0].wrong_level_samples, 0);
	pb_point_free(&pt);
}

/* Issue 21 item 12: the declared truth counts user-level events; a kernel-only run has none,
 * so no accuracy (it read -11320 % in the arm64 guest). */
static void a_level_without_truth_has_no_accuracy(void)
{
	struct pb_point_request req;
	request(&req, "hw:instructions", "mode", 10007, 1000);
	req.exclude_kernel = false;
	req.exclude_user = true;
	memset(&script, 0, sizeof script);
	script.count = 576 * 10007;
	script.samples = 576;
	struct pb_point pt;
	CHECK(measure(&req, &pt) == 0);
	CHECK(!strcmp(pt.ev[0].basis, "undeclared"));
	CHECK(isnan(pt.ev[0].accuracy));
	CHECK_STR_CONTAINS(pt.ev[0].withheld, "left the user level out");
	pb_point_free(&pt);
	/* both levels of an event the kernel also makes: not declared either */
	req.exclude_user = false;
	CHECK(measure(&req, &pt) == 0);
	CHECK(isnan(pt.ev[0].accuracy));
	pb_point_free(&pt);
	/* user only: declared */
	req.exclude_kernel = true;
	CHECK(measure(&req, &pt) == 0);
	CHECK(!strcmp(pt.ev[0].basis, "declared"));
	pb_point_free(&pt);
}

/* Issue 21 item 4, done when: bias on bp:rw at a period coprime with the four loads deviates
 * less than 0.5 pp from the ideal share on every variant, with runs sized to 400 samples. */
static void bias_on_breakpoints_is_even(void)
{
	if (!breakpoints_work(6))
		return;
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	o.runs = 1;
	o.nthreads = 1;
	o.threads[0] = 1;
	o.periods[0] = 7;
	o.nperiods = 1;
	o.target_ms = 1;
	struct pb_results res;
	struct pb_error err = {0};
	char dir[] = "/tmp/pb-test-numbers-XXXXXX";
	pb_test_results_in_tmp(dir, &res, "test_numbers");
	CHECK(pb_experiment_bias.run(&o, pb_test_spec("bp:rw"), &res, &err) == 0);
	json_t *points = pb_test_points_json(&res);
	CHECK_EQ_U64(json_array_size(points), 3);
	for (size_t i = 0; i < json_array_size(points); i++) {
		json_t *p = json_array_get(points, i);
		json_t *run = json_array_get(json_object_get(p, "runs"), 0);
		json_t *a = json_object_get(run, "attribution");
		double dev = json_number_value(json_object_get(json_object_get(p, "metrics"),
							       "max_deviation"));
		printf("bias bp:rw %s: %lld samples, max deviation %.3f pp\n",
		       json_string_value(json_object_get(p, "variant")),
		       (long long)json_integer_value(json_object_get(a, "samples")), dev);
		CHECK(json_integer_value(json_object_get(a, "samples")) >= 400 && dev < 0.5);
	}
	json_decref(points);
	pb_test_results_remove(&res, dir);
}

/* Issue 21 item 10: a breakpoint measured with a signal per sample is self-tested with them.
 * On the real kernel (x86 counts exactly with signals) it works and every 4th event raised a
 * signal; through the fake kernel, a count one higher when sampled (the arm64 guest's
 * behaviour) fails it, while the plain count still works. */
static void one_more_per_signal(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	ev->count = ev->attr.sample_period ? 17 : 16;
}

static void bp_self_test_delivers_signals(void)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("bp:w", &spec, &err) == 0);
	spec.signal_per_sample = true;
	struct pb_self_test test;
	if (breakpoints_work(3)) {
		pb_facility_bp.self_test(pb_machine_live(), &spec, &test);
		printf("bp:w with signals: %s: %s\n", pb_verdict_name(test.verdict), test.text);
		CHECK(test.verdict == PB_VERDICT_WORKS);
		CHECK_STR_CONTAINS(test.text, "sampled: 16 writes, 16 counted with a signal per sample");
		CHECK_EQ_U64(test.samples, 16 / 4);
	}
	fake_kernel_install();
	fake_kernel_on_disable(one_more_per_signal, NULL);
	pb_facility_bp.self_test(pb_machine_live(), &spec, &test);
	CHECK(test.verdict == PB_VERDICT_INEXACT);
	CHECK_STR_CONTAINS(test.text, "miscount with a signal per sample: 16 writes, 17 counted");
	spec.signal_per_sample = false;
	pb_facility_bp.self_test(pb_machine_live(), &spec, &test);
	CHECK(test.verdict == PB_VERDICT_WORKS);
	/* the suite's points are judged with their own delivery too: a request of the suite with
	 * signals is refused, one without is not, and a point whose delivery was set after its
	 * request (the overhead, cost and buffer experiments) is refused when measured */
	pb_facility_forget_self_tests();
	struct pb_point_request req;
	CHECK(pb_suite_request(&req, pb_test_spec("bp:w"), "mix", 7, 1, PB_DELIVERY_SIGNAL,
			       &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "with a signal per sample");
	err = (struct pb_error){0};
	CHECK(pb_suite_request(&req, pb_test_spec("bp:w"), "mix", 7, 1, PB_DELIVERY_NONE,
			       &err) == 0);
	req.delivery = PB_DELIVERY_SIGTRAP;
	req.iterations = 100;
	struct pb_point pt;
	CHECK(pb_point_measure(&req, &pt, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "with a SIGTRAP per sample"); /* as sigtrap delivers them */
	pb_facility_forget_self_tests();
	fake_kernel_uninstall();
}

int main(void)
{
	pb_test_fixture(&machine, "sysfs-skl");
	timer_expectation_is_floored();
	bp_read_self_test_reads();
	arm64_texts_from_the_model();
	bias_flush_is_not_watched();
	too_few_samples_carry_no_accuracy();
	over_count_has_a_direction();
	wrong_level_samples_are_flagged();
	a_level_without_truth_has_no_accuracy();
	bias_on_breakpoints_is_even();
	bp_self_test_delivers_signals();
	return pb_check_done("test_numbers");
}
