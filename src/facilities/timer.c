/* Software timer sampling: an hrtimer fires every `period` ns of the task's (task-clock) or the
 * CPU's (cpu-clock) time. No PMU needed. The kernel clamps periods below 10 us up to 10 us. */
#include "facilities/facility.h"
#include "facilities/selftest.h"

#include <stdio.h>
#include <string.h>

static const struct pb_spec_option clocks[] = {
	{.word = "cpu-clock", .kind = PB_SPEC_CHOICE, .field = PB_SPEC_FIELD(config),
	 .value = PERF_COUNT_SW_CPU_CLOCK, .help = "the CPU clock while the thread runs, "
						   "sampled by an hrtimer (the default)"},
	{.word = "task-clock", .kind = PB_SPEC_CHOICE, .field = PB_SPEC_FIELD(config),
	 .value = PERF_COUNT_SW_TASK_CLOCK, .help = "the task clock while the thread runs, "
						    "sampled by an hrtimer"},
};

static const struct pb_spec_options clock_options =
	PB_SPEC_OPTIONS(clocks, .what = "clock", .default_choice = "cpu-clock",
			.hint = "use timer:cpu-clock or timer:task-clock",
			.exclusive_why = "a timer runs on one clock");

static int timer_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	if (pb_spec_options_parse(&clock_options, spec, args, NULL, err))
		return -1;
	spec->type = PERF_TYPE_SOFTWARE;
	return 0;
}

static void timer_availability(const struct pb_machine *m, const struct pb_spec *spec,
			       struct pb_availability *out)
{
	(void)spec;
	memset(out, 0, sizeof *out);
	if (!pb_machine_pmu(m, "software")) {
		snprintf(out->reason, sizeof out->reason,
			 "no 'software' PMU under /sys/bus/event_source/devices: the kernel was built "
			 "without perf events (CONFIG_PERF_EVENTS)");
		return;
	}
	out->available = true;
	snprintf(out->detail, sizeof out->detail,
		 "hrtimer sampling; periods below 10000 ns are raised to 10000 ns by the kernel; "
		 "max sample rate %ld/s", m->max_sample_rate);
}

static int timer_attr(const struct pb_machine *m, const struct pb_spec *spec,
		      const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		      struct pb_error *err)
{
	(void)m;
	(void)target;
	if (period && period < pb_facility_timer.min_period)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s: period %llu ns is below the kernel's 10000 ns timer minimum; "
			       "the kernel would silently use 10000 ns (pick >= 10000)",
			       spec->text, (unsigned long long)period);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = spec->config;
	return 0;
}

/* The self-test samples a spin loop of about 20 ms every 100 us: about 200 ticks due, well
 * above the 44 the sampling bound needs (selftest.c), on a loop short enough for any run. */
static void timer_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			    struct pb_self_test *out)
{
	struct pb_spec clock = {.facility = &pb_facility_timer, .type = PERF_TYPE_SOFTWARE,
				.config = PERF_COUNT_SW_CPU_CLOCK};
	snprintf(clock.text, sizeof clock.text, "timer:cpu-clock");
	snprintf(clock.event, sizeof clock.event, "cpu-clock");
	struct pb_selftest_run run = {
		.loop = pb_selftest_spin_loop,
		.n = 20000, /* 2e7 iterations: about 20 ms at a few GHz */
		.what = "a spin loop",
		.accepted = "timer events",
		.period = 100000,
		.ip_lo = (uint64_t)(uintptr_t)pb_selftest_spin_begin,
		.ip_hi = (uint64_t)(uintptr_t)pb_selftest_spin_end,
	};
	pb_selftest_sample(m, spec ? spec : &clock, &run, out);
}

/* Periods in ns: the kernel raises anything below 10 us, and the prime-like ones cannot lock
 * onto a loop's length. */
static const struct pb_period_sets timer_periods = {
	.accuracy = 100000,
	.round = {1000000, 100000, 50000, 20000},
	.prime = {999983, 99991, 49999, 19997},
	.cost = {1000000, 500000, 200000, 100000, 50000},
	.buffer = 100000,
};

/* perf's names for the two clocks are the words of the spec: cpu-clock, task-clock. */
static const char *timer_perf_event_name(size_t i)
{
	return pb_spec_options_choice(&clock_options, i);
}

const struct pb_facility pb_facility_timer = {
	.perf_event_name = timer_perf_event_name,
	.name = "timer",
	.options = &clock_options,
	.usage = "timer:cpu-clock|task-clock",
	.summary = "software hrtimer sampling every PERIOD ns",
	.needs = "any kernel with perf events; own threads at perf_event_paranoid <= 2",
	.ip_kind = PB_IP_SKID,
	.exact = false,
	.default_period = 1000000,
	.min_period = 10000,
	.parse = timer_parse,
	.availability = timer_availability,
	.attr = timer_attr,
	.self_test = timer_self_test,
	.suite_spec = "timer:cpu-clock",
	.time_based = true,
	.ticks_from_enable = true,
	.samples_every_level = true,
	.multi_events = 4,
	.periods = &timer_periods,
};
