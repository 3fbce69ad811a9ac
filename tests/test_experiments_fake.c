/* The experiments on constructed PEBS and IBS streams (fake kernel, fixture machines): the
 * accuracy, bias and mode figures must be the ones the constructed input implies. The
 * workloads really run; only the kernel's answers are constructed. */
#include "check.h"
#include "results_json.h"
#include "fixture.h"
#include "experiments/experiment.h"
#include "experiments/point.h"
#include "facilities/machine.h"
#include "fake_kernel.h"
#include "workloads/workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pb_machine machine;

static void load_fixture(const char *name)
{
	pb_test_fixture(&machine, name);
}

/* What the constructed kernel writes when the measured region ends. */
struct script {
	uint64_t samples;              /* how many sample records */
	uint64_t ips[8];               /* cycled through, weights[i] samples each per round */
	unsigned weights[8], nips;
	uint16_t kernel_every;         /* every k-th sample is marked kernel-mode (0: none) */
	uint64_t count;                /* what read() reports */
	double count_per_sample;       /* if set: count = samples * this (count-basis events) */
	bool ibs;
	uint64_t counting_value;       /* what counting (period 0) events read */
};

static struct script script;

static void write_script(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	if (!ev->attr.sample_period) {
		ev->count = script.counting_value;
		ev->time_enabled = ev->time_running = 1000000;
		return;
	}
	uint8_t rec[512], raw[4 + 7 * 8];
	unsigned round = 0;
	for (unsigned i = 0; i < script.nips; i++)
		round += script.weights[i];
	for (uint64_t n = 0; n < script.samples; n++) {
		unsigned slot = (unsigned)(n % round), i = 0;
		while (slot >= script.weights[i])
			slot -= script.weights[i++];
		struct pb_sample s = {.ip = script.ips[i], .pid = 1, .tid = 1, .time = n,
				      .id = ev->id, .identifier = ev->id, .period = ev->attr.sample_period};
		if (script.ibs) {
			uint32_t caps = 0x7 | (1u << 4);
			uint64_t regs[7] = {(1ull << 17) | (1ull << 18), s.ip, 0, 0, 1, 0, 0};
			memcpy(raw, &caps, 4);
			memcpy(raw + 4, regs, sizeof regs);
			s.raw = raw;
			s.raw_size = sizeof raw;
		}
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		if (script.kernel_every && n % script.kernel_every == 0) {
			struct perf_event_header h;
			memcpy(&h, rec, sizeof h);
			h.misc = (h.misc & ~PERF_RECORD_MISC_CPUMODE_MASK) | PERF_RECORD_MISC_KERNEL;
			memcpy(rec, &h, sizeof h);
		}
		fake_ring_write(ev, rec, len);
	}
	ev->count = script.count_per_sample ? (uint64_t)(script.samples * script.count_per_sample)
					    : script.count;
	ev->time_enabled = ev->time_running = 1000000;
}

/* A module's options for a test: two short runs on one thread, on the fixture's machine. */
static void small_suite(struct pb_suite_options *o)
{
	pb_suite_options_defaults(o);
	o->runs = 2;
	o->nthreads = 1;
	o->target_ms = 2;
	o->machine = &machine;
}

static void request(struct pb_point_request *req, const char *facility, const char *workload,
		    uint64_t period, uint64_t iterations)
{
	pb_test_request(req, facility, workload, period, iterations, &machine);
}

/* PEBS INST_RETIRED on the pointer chase: the truth declares the instructions, the constructed
 * kernel delivers 95 % of the samples they imply: accuracy must be 95. */
static void pebs_accuracy(void)
{
	load_fixture("sysfs-skl");
	struct pb_point_request req;
	request(&req, "pebs:INST_RETIRED:PREC_DIST", "accuracy:ratio=20", 1009, 400000);
	struct pb_truth truth;
	struct pb_error err = {0};
	CHECK(pb_workload_truth(&req.workload, req.iterations, &truth, &err) == 0);
	uint64_t instructions = truth.instructions * req.iterations + truth.once_instructions;
	double expected = (double)(instructions / 1009); /* overflows of a counter: floored */
	memset(&script, 0, sizeof script);
	script.samples = (uint64_t)llround(expected * 0.95);
	script.ips[0] = truth.labels[0].addr;
	script.weights[0] = 1;
	script.nips = 1;
	script.count = instructions;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_point pt;
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK(!strcmp(pt.ev[0].basis, "declared"));
	CHECK(fabs(pt.ev[0].expected - expected) < 1e-6);
	CHECK_EQ_U64(pt.ev[0].observed, script.samples);
	CHECK(fabs(pt.ev[0].accuracy - (100 - fabs(script.samples - expected) / expected * 100)) <
	      1e-9);
	CHECK(fabs(pt.ev[0].accuracy - 95) < 0.05);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* A check beside the measured event (the accuracy experiment's L1D-miss count) that cannot
 * open does not take the point down: the measured event runs and carries its accuracy, the
 * check carries the kernel's reason. A run that fails carries no accuracy at all. */
static void optional_check_and_failed_run(void)
{
	load_fixture("sysfs-skl");
	struct pb_point_request req;
	request(&req, "pebs:INST_RETIRED:PREC_DIST", "accuracy:ratio=20", 1009, 400000);
	struct pb_error err = {0};
	CHECK(pb_spec_parse("hw:instructions", &req.events[1].spec, &err) == 0);
	req.events[1].period = 0;
	req.events[1].optional = true;
	req.nevents = 2;
	struct pb_truth truth;
	CHECK(pb_workload_truth(&req.workload, req.iterations, &truth, &err) == 0);
	uint64_t instructions = truth.instructions * req.iterations + truth.once_instructions;
	memset(&script, 0, sizeof script);
	script.samples = instructions / 1009;
	script.ips[0] = truth.labels[0].addr;
	script.weights[0] = 1;
	script.nips = 1;
	script.count = instructions;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	fake_kernel_fail_open_after(1, ENOENT);
	struct pb_point pt;
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK(pt.ev[0].opened_all && !pt.ev[1].opened_all);
	CHECK(fabs(pt.ev[0].accuracy - 100) < 1e-9);
	CHECK(isnan(pt.ev[1].accuracy));
	pb_point_free(&pt);

	/* not optional: the open failure fails the run, and nothing of it is an accuracy */
	req.events[1].optional = false;
	fake_kernel_fail_open_after(1, ENOENT);
	CHECK(pb_point_measure(&req, &pt, &err) != 0);
	CHECK(pt.ev[0].basis != NULL && isnan(pt.ev[0].accuracy));
	fake_kernel_uninstall();
}

/* What a counter reads when the PMU lost its events without a word: 0, for time_running out
 * of time_enabled (QEMU 7.2's RISC-V PMU gives 0 with running == enabled). */
static void zero_count(struct fake_event *ev, void *ctx)
{
	ev->count = 0;
	ev->time_enabled = 1000000;
	ev->time_running = *(const uint64_t *)ctx;
}

/* A counter that read 0 while on the PMU the whole time, with the workload's events declared,
 * is a loss: flagged silent_zero with a note, no accuracy, counted in the point's metrics;
 * the same 0 after a descheduled (multiplexed) time is not. */
static void silent_zero_is_a_loss(void)
{
	load_fixture("sysfs-skl");
	struct pb_point_request req;
	request(&req, "hw:instructions", "busy", 100003, 40000);
	uint64_t running = 1000000;
	fake_kernel_install();
	fake_kernel_on_disable(zero_count, &running);
	struct pb_point pt;
	struct pb_error err = {0};
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK(pt.ev[0].declared > 0);
	CHECK(pt.ev[0].silent_zero);
	CHECK(isnan(pt.ev[0].accuracy));
	json_t *run = pb_test_run_json(&req, &pt);
	json_t *ev = json_array_get(json_object_get(run, "events"), 0);
	CHECK(json_is_true(json_object_get(ev, "silent_zero")));
	CHECK_STR_CONTAINS(json_string_value(json_object_get(ev, "silent_zero_note")), "a loss");
	struct pb_results doc;
	pb_point_metrics(pb_test_point_of_json(&doc, json_pack("{s:[O]}", "runs", run)));
	json_t *point = pb_test_point_json(&doc, 0);
	pb_results_free(&doc);
	CHECK_EQ_U64(json_integer_value(json_object_get(json_object_get(point, "metrics"),
							"silent_zero_runs")), 1);
	json_decref(point);
	json_decref(run);
	pb_point_free(&pt);

	running = 400000;
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK(!pt.ev[0].silent_zero);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* A facility that produced no sample where samples were due: no accuracy (never a plain 0 %),
 * an explicit flag and note in the point, the run and the point's metrics. */
static void no_samples_is_flagged(void)
{
	load_fixture("sysfs-skl");
	struct pb_point_request req;
	request(&req, "pebs:INST_RETIRED:PREC_DIST", "accuracy:ratio=20", 1009, 40000);
	memset(&script, 0, sizeof script);
	script.count = 0;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_point pt;
	struct pb_error err = {0};
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK(pt.ev[0].expected > 100);
	CHECK_EQ_U64(pt.ev[0].observed, 0);
	CHECK(pt.ev[0].no_samples);
	CHECK(isnan(pt.ev[0].accuracy));
	json_t *run = pb_test_run_json(&req, &pt);
	json_t *ev = json_array_get(json_object_get(run, "events"), 0);
	CHECK(json_is_true(json_object_get(ev, "no_samples")));
	CHECK(json_is_null(json_object_get(ev, "accuracy")));
	CHECK_STR_CONTAINS(json_string_value(json_object_get(ev, "note")), "none arrived");
	/* the point's metrics count such runs and hold no accuracy made of them */
	struct pb_results doc;
	pb_point_metrics(pb_test_point_of_json(&doc, json_pack("{s:[O]}", "runs", run)));
	json_t *point = pb_test_point_json(&doc, 0);
	pb_results_free(&doc);
	json_t *m = json_object_get(point, "metrics");
	CHECK_EQ_U64(json_integer_value(json_object_get(m, "no_samples_runs")), 1);
	CHECK(json_object_get(m, "accuracy") == NULL);
	char *printed = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&printed, &size);
	pb_point_print(mem, &req, &pt);
	fclose(mem);
	CHECK_STR_CONTAINS(printed, "NO SAMPLES");
	free(printed);
	json_decref(point);
	json_decref(run);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* The mode experiment's user-only run of a workload that takes every declared fault inside a
 * system call sees none of them: its 0 is the right answer (0 % of the faults kept), neither a
 * silent loss nor "NO SAMPLES" (every default suite flagged it so). The same 0 with the kernel
 * level in, or at user level where the faults are user-mode, is still a loss. */
static void level_left_out_sees_nothing(void)
{
	load_fixture("sysfs-skl");
	uint64_t running = 1000000;
	const struct {
		const char *workload;
		bool exclude_kernel, exclude_user, flagged;
		double seen;
	} runs[] = {
		{"mode:kernel=fault", true, false, false, 0},
		{"mode:kernel=fault", false, false, true, 1},
		{"mode:kernel=fault", false, true, true, 1},
		{"mode:kernel=touch", true, false, true, 1},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(runs); i++) {
		/* set on the fixture's machine, which runs no self-test: the live one's verdict
		 * (valgrind's own faults make it inexact) is not what this tests */
		struct pb_point_request req;
		struct pb_error set_err = {0};
		pb_point_request_defaults(&req);
		req.machine = &machine;
		if (!CHECK_MSG(pb_point_request_set(&req, pb_test_spec("sw:page-faults"),
						    runs[i].workload, NULL, &(uint64_t){1},
						    &set_err) == 0,
			       "%s", set_err.msg))
			continue;
		req.iterations = 64;
		req.exclude_kernel = runs[i].exclude_kernel;
		req.exclude_user = runs[i].exclude_user;
		/* the request's self-test ran on the real kernel; the run counts nothing */
		fake_kernel_install();
		fake_kernel_on_disable(zero_count, &running);
		struct pb_point pt;
		struct pb_error err = {0};
		int rc = pb_point_measure(&req, &pt, &err);
		fake_kernel_uninstall();
		if (!CHECK_MSG(rc == 0, "%s", err.msg))
			continue;
		const struct pb_point_figures *f = &pt.ev[0];
		CHECK_MSG(f->seen_share == runs[i].seen, "run %zu: %s sees %.2f of its faults", i,
			  runs[i].workload, f->seen_share);
		CHECK_MSG((f->no_samples || f->silent_zero) == runs[i].flagged,
			  "run %zu: no_samples %d, silent_zero %d", i, f->no_samples, f->silent_zero);
		if (!runs[i].flagged) {
			CHECK(f->expected > 1 && f->accuracy == 0);
			json_t *run = pb_test_run_json(&req, &pt);
			json_t *ev = json_array_get(json_object_get(run, "events"), 0);
			CHECK_STR_CONTAINS(json_string_value(json_object_get(ev, "note")),
					   "left out the level where the workload takes 100 % of its "
					   "declared events");
			json_decref(run);
		}
		pb_point_free(&pt);
	}
}

/* The mode experiment says so on the point whose level holds none of the declared events, and
 * counts no loss there; the kernel-level point of the same zeros is one. */
static void mode_experiment_names_the_level_left_out(void)
{
	load_fixture("sysfs-skl");
	const struct pb_spec *spec = pb_test_spec("sw:page-faults");
	/* the module sets its requests on the live machine, whose self-test must pass (under
	 * valgrind its own faults make page-fault counts inexact) */
	struct pb_error live = {0};
	if (pb_point_refuse_untrusted(spec, NULL, &live)) {
		pb_skip_checks(8, "the mode module on sw:page-faults: %s", live.msg);
		return;
	}
	uint64_t running = 1000000;
	fake_kernel_install();
	fake_kernel_on_disable(zero_count, &running);
	struct pb_suite_options o;
	small_suite(&o);
	struct pb_results res;
	struct pb_error err = {0};
	char dir[] = "/tmp/pb-test-exp-fake-XXXXXX";
	pb_test_results_in_tmp(dir, &res, "test_experiments_fake");
	CHECK_MSG(pb_experiment_mode.run(&o, spec, &res, &err) == 0, "%s", err.msg);
	json_t *points = pb_test_points_json(&res);
	CHECK_EQ_U64(json_array_size(points), 3);
	for (size_t i = 0; i < json_array_size(points); i++) {
		json_t *p = json_array_get(points, i);
		json_t *m = json_object_get(p, "metrics");
		bool user = !strcmp(json_string_value(json_object_get(p, "levels")), "user");
		json_int_t losses = json_integer_value(json_object_get(m, "no_samples_runs")) +
				    json_integer_value(json_object_get(m, "silent_zero_runs"));
		const char *note = json_string_value(json_object_get(p, "note"));
		/* each flagged run is both: no samples, and a counter silent on the PMU */
		CHECK_MSG(user ? losses == 0 : losses == 4, "%s: %lld flags",
			  json_string_value(json_object_get(p, "levels")), (long long)losses);
		CHECK(user ? note && strstr(note, "100 % of the workload's declared events happen "
						    "at the level this run leaves out")
			   : !note);
	}
	json_decref(points);
	pb_test_results_remove(&res, dir);
	fake_kernel_uninstall();
}

/* pp=3 on a CPU whose kernel grants at most 2: opened at 2, and every result says so. */
static void pebs_precise_lowered(void)
{
	load_fixture("sysfs-skl");
	pb_machine_note_set(&machine, "max_precise", 2); /* PEBS's note: caps say 2 */
	struct pb_point_request req;
	request(&req, "pebs:INST_RETIRED:PREC_DIST:pp=3", "accuracy:ratio=20", 1009, 4000);
	memset(&script, 0, sizeof script);
	script.samples = 100;
	script.ips[0] = 0x401000;
	script.weights[0] = 1;
	script.nips = 1;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_point pt;
	struct pb_error err = {0};
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK_EQ_U64(fake_kernel_event_at(0)->attr.precise_ip, 2);
	CHECK_EQ_U64(pt.ev[0].precise_requested, 3);
	CHECK_EQ_U64(pt.ev[0].precise_granted, 2);
	json_t *run = pb_test_run_json(&req, &pt);
	json_t *ev = json_array_get(json_object_get(run, "events"), 0);
	CHECK(json_is_true(json_object_get(ev, "precise_lowered")));
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "precise_requested")), 3);
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "precise_granted")), 2);
	char *printed = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&printed, &size);
	pb_point_print(mem, &req, &pt);
	fclose(mem);
	CHECK_STR_CONTAINS(printed, "precise level LOWERED: requested 3, granted 2");
	free(printed);
	json_decref(run);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* A thread the system would not pin (a cgroup forbidding its CPU) still measures; the run says
 * how many ran unpinned, with perf and without. */
static void unpinned_threads_are_reported(void)
{
	load_fixture("sysfs-skl");
	struct pb_point_request req;
	request(&req, "pebs:INST_RETIRED:PREC_DIST", "accuracy:ratio=20", 1009, 4000);
	memset(&script, 0, sizeof script);
	script.samples = 3;
	script.ips[0] = 0x401000;
	script.weights[0] = 1;
	script.nips = 1;
	struct pb_error err = {0};
	struct pb_point pt;
	for (int refuse = 0; refuse < 2; refuse++) {
		fake_kernel_install();
		fake_kernel_on_disable(write_script, NULL);
		if (refuse)
			fake_kernel_refuse_cpu(0, EINVAL);
		CHECK(pb_point_measure(&req, &pt, &err) == 0);
		CHECK_EQ_U64(pt.unpinned_threads, (unsigned)refuse);
		CHECK_EQ_U64(pt.ev[0].observed, 3);
		json_t *run = pb_test_run_json(&req, &pt);
		CHECK(json_is_integer(json_object_get(run, "unpinned_threads")));
		CHECK_EQ_U64(json_integer_value(json_object_get(run, "unpinned_threads")), refuse);
		char *printed = NULL;
		size_t size = 0;
		FILE *mem = open_memstream(&printed, &size);
		pb_point_print(mem, &req, &pt);
		fclose(mem);
		CHECK(!strstr(printed, "UNPINNED") == !refuse);
		free(printed);
		json_decref(run);
		pb_point_free(&pt);
		fake_kernel_uninstall();
	}

	request(&req, "none", "accuracy:ratio=20", 0, 4000);
	fake_kernel_install();
	fake_kernel_refuse_cpu(0, EINVAL);
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK_EQ_U64(pt.unpinned_threads, 1);
	json_t *run = pb_test_run_json(&req, &pt);
	CHECK_EQ_U64(json_integer_value(json_object_get(run, "unpinned_threads")), 1);
	json_decref(run);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* IBS op on the four-load loop: samples placed 40/20/20/20 on the loads must come out as
 * those shares at the IP (IBS IPs are exact), with nothing unlabelled. */
static void ibs_bias(void)
{
	load_fixture("sysfs-zen4");
	struct pb_point_request req;
	request(&req, "ibs-op", "bias:variant=plain", 0x10000, 1000);
	req.attribute = true;
	struct pb_truth truth;
	struct pb_error err = {0};
	CHECK(pb_workload_truth(&req.workload, req.iterations, &truth, &err) == 0);
	memset(&script, 0, sizeof script);
	script.ibs = true;
	for (unsigned l = 0; l < truth.nlabels && script.nips < 4; l++) {
		if (!(truth.labels[l].kinds & PB_EV_LOAD))
			continue;
		script.ips[script.nips] = truth.labels[l].addr;
		script.weights[script.nips] = script.nips == 0 ? 2 : 1;
		script.nips++;
	}
	CHECK_EQ_U64(script.nips, 4);
	script.samples = 1000;
	script.count = 1000 * 0x10000;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_point pt;
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK(!req.exclude_kernel); /* IBS without swfilt samples both levels */
	uint64_t at_loads[4] = {0};
	for (size_t i = 0; i < pt.code.n; i++)
		for (unsigned k = 0; k < 4; k++)
			if (pt.code.insns[i].addr == script.ips[k])
				at_loads[k] = pt.insn_samples[i];
	CHECK_EQ_U64(at_loads[0], 400);
	CHECK_EQ_U64(at_loads[1], 200);
	CHECK_EQ_U64(at_loads[2], 200);
	CHECK_EQ_U64(at_loads[3], 200);
	CHECK_EQ_U64(pt.outside_samples, 0);
	/* IBS op counts ops, declared as the loop's instructions (the main study's way) */
	CHECK(!strcmp(pt.ev[0].basis, "declared"));
	CHECK(fabs(pt.ev[0].expected - (double)(pt.ev[0].declared / req.events[0].period)) < 1e-9);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* ibs-op:cycles tags an op per period of cycles, which no workload declares: its basis is the
 * kernel's count, never the workload's instructions. */
static void ibs_cycles_basis(void)
{
	load_fixture("sysfs-zen4");
	struct pb_point_request req;
	request(&req, "ibs-op:cycles", "accuracy:ratio=20", 0x10000, 1000);
	struct pb_truth truth;
	struct pb_error err = {0};
	CHECK(pb_workload_truth(&req.workload, 1000, &truth, &err) == 0);
	uint64_t declared;
	CHECK(!strcmp(pb_declared_events(&req.events[0].spec, &truth, -1, 1000, &declared),
		      "count"));
	request(&req, "ibs-op", "accuracy:ratio=20", 0x10000, 1000);
	CHECK(!strcmp(pb_declared_events(&req.events[0].spec, &truth, -1, 1000, &declared),
		      "declared"));
	CHECK_EQ_U64(declared, truth.instructions * 1000 + truth.once_instructions);
}

/* IBS leaves out the kernel only with :swfilt: then the request keeps exclude_kernel, the attr
 * carries swfilt (config2:0), and the samples the kernel drops for the excluded level, announced
 * as PERF_RECORD_LOST_SAMPLES, are filtered, not lost. A malformed record is dropped and
 * counted as such. */
static unsigned lost_samples_records, malformed_records;

static void write_filtered(struct fake_event *ev, void *ctx)
{
	write_script(ev, ctx);
	uint8_t rec[128];
	/* {header, u64 lost} and the sample_id block every record carries (sample_id_all) */
	size_t trailer = ev->attr.sample_id_all ? pb_record_sample_id_size(ev->attr.sample_type)
						: 0;
	for (unsigned i = 0; i < lost_samples_records; i++) {
		struct perf_event_header h = {.type = PERF_RECORD_LOST_SAMPLES,
					      .size = (uint16_t)(16 + trailer)};
		uint64_t lost = 5;
		memset(rec, 0, sizeof rec);
		memcpy(rec, &h, sizeof h);
		memcpy(rec + 8, &lost, 8);
		fake_ring_write(ev, rec, h.size);
	}
	for (unsigned i = 0; i < malformed_records; i++) {
		/* a sample record too short for the sample_type it claims */
		struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .size = 16};
		memset(rec, 0, sizeof rec);
		memcpy(rec, &h, sizeof h);
		fake_ring_write(ev, rec, h.size);
	}
}

static void ibs_swfilt_excludes_and_filters(void)
{
	load_fixture("sysfs-zen5");
	struct pb_point_request req;
	request(&req, "ibs-op:swfilt", "accuracy:ratio=20", 0x10000, 2000);
	CHECK(req.exclude_kernel);
	request(&req, "ibs-op", "accuracy:ratio=20", 0x10000, 2000);
	CHECK(!req.exclude_kernel);

	request(&req, "ibs-op:swfilt", "accuracy:ratio=20", 0x10000, 2000);
	memset(&script, 0, sizeof script);
	script.samples = 10;
	script.ibs = true;
	script.ips[0] = 0x401000;
	script.weights[0] = 1;
	script.nips = 1;
	lost_samples_records = 3;
	malformed_records = 2;
	fake_kernel_install();
	fake_kernel_on_disable(write_filtered, NULL);
	struct pb_point pt;
	struct pb_error err = {0};
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	const struct fake_event *ev = fake_kernel_event_at(0);
	CHECK(ev && (ev->attr.config2 & 1));
	CHECK(ev && ev->attr.exclude_kernel);
	CHECK_EQ_U64(pt.ev[0].filtered, 15);
	CHECK_EQ_U64(pt.ev[0].lost, 0);
	CHECK_EQ_U64(pt.ev[0].dropped, 2);
	CHECK_EQ_U64(pt.ev[0].observed, 10);
	json_t *run = pb_test_run_json(&req, &pt);
	json_t *j = json_array_get(json_object_get(run, "events"), 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(j, "filtered")), 15);
	CHECK_EQ_U64(json_integer_value(json_object_get(j, "dropped")), 2);
	json_decref(run);
	pb_point_free(&pt);
	fake_kernel_uninstall();

	/* a facility that filters nothing: the same records are losses */
	load_fixture("sysfs-skl");
	request(&req, "pebs:INST_RETIRED:PREC_DIST", "accuracy:ratio=20", 1009, 2000);
	memset(&script, 0, sizeof script);
	script.samples = 10;
	script.ips[0] = 0x401000;
	script.weights[0] = 1;
	script.nips = 1;
	malformed_records = 0;
	fake_kernel_install();
	fake_kernel_on_disable(write_filtered, NULL);
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK_EQ_U64(pt.ev[0].filtered, 0);
	CHECK_EQ_U64(pt.ev[0].lost, 15);
	pb_point_free(&pt);
	fake_kernel_uninstall();
	lost_samples_records = 0;
}

/* PEBS sampled at user level only, with every 4th sample marked kernel-mode by the
 * constructed kernel: the mode figures must count exactly those as kernel samples. */
static void pebs_mode(void)
{
	load_fixture("sysfs-skl");
	struct pb_point_request req;
	request(&req, "pebs:INST_RETIRED:PREC_DIST", "mode:kernel=getppid", 10007, 1000);
	req.exclude_kernel = true;
	memset(&script, 0, sizeof script);
	script.samples = 400;
	script.ips[0] = 0x401000;
	script.ips[1] = 0xffffffff81000000ull;
	script.weights[0] = script.weights[1] = 1;
	script.nips = 2;
	script.kernel_every = 4;
	script.count = 400 * 10007;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_point pt;
	struct pb_error err = {0};
	CHECK(pb_point_measure(&req, &pt, &err) == 0);
	CHECK_EQ_U64(pt.ev[0].kernel_samples, 100);
	CHECK_EQ_U64(pt.ev[0].user_samples, 300);
	CHECK_EQ_U64(pt.ev[0].kernel_ip_samples, 200);
	pb_point_free(&pt);
	fake_kernel_uninstall();
}

/* A whole experiment module over the fake kernel: the accuracy experiment on a PEBS event
 * with no declared truth (basis "count"), 90 % of the samples the count implies. */
static void accuracy_experiment_on_pebs(void)
{
	load_fixture("sysfs-skl");
	memset(&script, 0, sizeof script);
	script.samples = 900;
	script.count_per_sample = 10007.0 / 0.9;
	script.counting_value = 777;
	script.ips[0] = 0x401000;
	script.weights[0] = 1;
	script.nips = 1;
	fake_kernel_install();
	fake_kernel_on_disable(write_script, NULL);
	struct pb_suite_options o;
	small_suite(&o);
	o.periods[0] = 10007;
	o.nperiods = 1;
	struct pb_results res;
	struct pb_error err = {0};
	char dir[] = "/tmp/pb-test-exp-fake-XXXXXX";
	pb_test_results_in_tmp(dir, &res, "test_experiments_fake");
	CHECK(pb_experiment_accuracy.run(&o, pb_test_spec("pebs:BR_MISP_RETIRED:ALL_BRANCHES"),
					 &res, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	json_t *points = pb_test_points_json(&res);
	size_t n = json_array_size(points);
	CHECK(n >= 1);
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(points, i);
		json_t *m = json_object_get(p, "metrics");
		/* the L1-miss assumption is checked with a counting event on a PMU machine */
		json_t *l1 = json_object_get(p, "l1_miss_assumption");
		CHECK(json_is_true(json_object_get(l1, "checked")));
		CHECK_EQ_U64(json_integer_value(json_object_get(l1, "counted")), 777);
		double mean = json_number_value(json_object_get(json_object_get(m, "accuracy"),
								"mean"));
		CHECK(fabs(mean - 90) < 0.01);
	}
	json_decref(points);
	pb_test_check_units(&res);
	pb_test_results_remove(&res, dir);
	fake_kernel_uninstall();
}

int main(void)
{
	pebs_accuracy();
	no_samples_is_flagged();
	level_left_out_sees_nothing();
	mode_experiment_names_the_level_left_out();
	silent_zero_is_a_loss();
	optional_check_and_failed_run();
	ibs_bias();
	ibs_cycles_basis();
	pebs_precise_lowered();
	unpinned_threads_are_reported();
	ibs_swfilt_excludes_and_filters();
	pebs_mode();
	accuracy_experiment_on_pebs();
	return pb_check_done("experiments_fake");
}
