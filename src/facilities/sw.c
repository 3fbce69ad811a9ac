/* Exact software events counted by the kernel itself (page faults, context switches, ...). */
#include "facilities/facility.h"
#include "facilities/selftest.h"
#include "util/kit.h"
#include "util/suggest.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <string.h>

#define SW_EVENT(name_, config_, help_)                                                        \
	{.word = (name_), .kind = PB_SPEC_CHOICE, .field = PB_SPEC_FIELD(config),              \
	 .value = (config_), .help = (help_)}

static const struct pb_spec_option sw_events[] = {
	SW_EVENT("page-faults", PERF_COUNT_SW_PAGE_FAULTS, "every page fault (the default)"),
	SW_EVENT("minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "faults served without I/O"),
	SW_EVENT("major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "faults that waited for I/O"),
	SW_EVENT("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches"),
	SW_EVENT("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "moves to another CPU"),
	SW_EVENT("alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment fixups"),
	SW_EVENT("emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, "emulated instructions"),
	SW_EVENT("dummy", PERF_COUNT_SW_DUMMY, "nothing: a placeholder event"),
};

static int sw_unknown(const struct pb_spec_options *t, struct pb_spec *spec, const char *name,
		      struct pb_error *err)
{
	struct pb_suggest near;
	pb_suggest_init(&near, name);
	for (size_t i = 0; i < t->n; i++)
		pb_suggest_consider(&near, t->options[i].word);
	char prefix[224];
	pb_format(prefix, sizeof prefix, "%s: ", spec->text);
	return pb_suggest_fail(err, &near, prefix, "sw event", "`pesbench facilities`");
}

static const struct pb_spec_options sw_options =
	PB_SPEC_OPTIONS(sw_events, .what = "event", .default_choice = "page-faults",
			.exclusive_why = "one event per spec", .unknown = sw_unknown);

static int sw_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	if (pb_spec_options_parse(&sw_options, spec, args, NULL, err))
		return -1;
	spec->type = PERF_TYPE_SOFTWARE;
	return 0;
}

static void sw_availability(const struct pb_machine *m, const struct pb_spec *spec,
			    struct pb_availability *out)
{
	memset(out, 0, sizeof *out);
	if (!pb_machine_pmu(m, "software")) {
		snprintf(out->reason, sizeof out->reason,
			 "no 'software' PMU: the kernel was built without perf events");
		return;
	}
	out->available = true;
	if (spec && (spec->config == PERF_COUNT_SW_ALIGNMENT_FAULTS ||
		     spec->config == PERF_COUNT_SW_EMULATION_FAULTS) &&
	    !strcmp(m->cpu_vendor, "AuthenticAMD"))
		snprintf(out->detail, sizeof out->detail,
			 "opens, but x86 never raises this event: it always counts 0");
	else
		snprintf(out->detail, sizeof out->detail,
			 "exact kernel-counted events; page faults report the faulting instruction "
			 "and the exact data address");
}

static int sw_attr(const struct pb_machine *m, const struct pb_spec *spec,
		   const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		   struct pb_error *err)
{
	(void)period; /* no limit of its own; pb_spec_attr writes sample_period */
	(void)m;
	(void)target;
	(void)err;
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = spec->config;
	if (spec->config == PERF_COUNT_SW_PAGE_FAULTS ||
	    spec->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
	    spec->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)
		attr->sample_type |= PERF_SAMPLE_ADDR;
	return 0;
}

/* The self-test touches N fresh anonymous pages: N page faults, whatever the spec asks for
 * (the software PMU either delivers its events or not). */
#define SW_SELF_TEST_PAGES 16

/* Not instrumented: under AddressSanitizer each store would also fault in shadow pages. */
__attribute__((no_sanitize("address"))) static void touch_fresh_pages(void *arg, unsigned n)
{
	(void)arg;
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)page * n, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	madvise((void *)p, (size_t)page * n, MADV_NOHUGEPAGE);
	for (unsigned i = 0; i < n; i++)
		p[(size_t)i * (size_t)page] = 1;
	munmap((void *)p, (size_t)page * n);
}

/* A spec measured with a signal per sample is also counted with them: the page faults must
 * stay exact while signals arrive. */
static void sw_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			 struct pb_self_test *out)
{
	struct pb_spec faults = {.facility = &pb_facility_sw, .type = PERF_TYPE_SOFTWARE,
				 .config = PERF_COUNT_SW_PAGE_FAULTS};
	snprintf(faults.text, sizeof faults.text, "sw:page-faults");
	snprintf(faults.event, sizeof faults.event, "page-faults");
	struct pb_selftest_run run = {.loop = touch_fresh_pages, .n = SW_SELF_TEST_PAGES,
				      .expected = SW_SELF_TEST_PAGES, .what = "pages touched",
				      .accepted = "page-fault events"};
	pb_selftest_count(m, &faults, &run, out);
	pb_selftest_count_delivered(m, &faults, &run, spec, out);
}

/* Page faults are declared by the workloads that take them; other software events have the
 * kernel's own count as basis. */
static const char *sw_declare(const struct pb_spec *spec, const struct pb_truth *truth,
			      const struct pb_label_truth *label, uint64_t iterations,
			      uint64_t *events)
{
	(void)label;
	if ((spec->config == PERF_COUNT_SW_PAGE_FAULTS ||
	     spec->config == PERF_COUNT_SW_PAGE_FAULTS_MIN) && truth->page_faults) {
		*events = truth->page_faults * iterations;
		return "declared";
	}
	return "count";
}

/* A workload that faults inside the kernel (mode:kernel=fault: uname writing to a dropped
 * page) is seen only by kernel-level counting; mode:kernel=touch faults in user mode, so an
 * unprivileged user (perf_event_paranoid 2) can count it. */
static double sw_user_level_share(const struct pb_spec *spec, const struct pb_truth *truth)
{
	(void)spec;
	return truth->page_faults ? (double)truth->page_faults_user / (double)truth->page_faults
				  : 1;
}

static const char *sw_workload(const struct pb_spec *spec, enum pb_workload_role role,
			       const char **why)
{
	(void)spec;
	switch (role) {
	case PB_ROLE_NATURAL:
	case PB_ROLE_COST:
		return "mode:kernel=touch"; /* user-mode faults: measurable without privileges */
	case PB_ROLE_PREDICT:
		*why = "only the cost workload takes page faults at a known rate";
		return NULL;
	case PB_ROLE_LEVELS:
		return "mode:kernel=fault";
	}
	return NULL;
}

static const char *sw_spread(const struct pb_spec *spec, char *buf, size_t len,
			     const char **why)
{
	(void)spec, (void)buf, (void)len;
	*why = "software events of the kernel do not occur in the load loops";
	return NULL;
}

/* Every word of the spec is perf's own name of the software event (page-faults, ...). */
static const char *sw_perf_event_name(size_t i)
{
	return pb_spec_options_choice(&sw_options, i);
}

const struct pb_facility pb_facility_sw = {
	.perf_event_name = sw_perf_event_name,
	.name = "sw",
	.options = &sw_options,
	.usage = "sw:page-faults|minor-faults|major-faults|context-switches|cpu-migrations|...",
	.summary = "exact kernel software events",
	.needs = "any kernel with perf events; own threads at perf_event_paranoid <= 2",
	.ip_kind = PB_IP_EXACT,
	.exact = true,
	.default_period = 1,
	.min_period = 1,
	.parse = sw_parse,
	.availability = sw_availability,
	.attr = sw_attr,
	.self_test = sw_self_test,
	.suite_spec = "sw:page-faults",
	.multi_events = 4,
	.periods = &pb_exact_periods,
	.declare = sw_declare,
	.workload = sw_workload,
	.user_level_share = sw_user_level_share,
	.spread_spec = sw_spread,
	.oracle_name = "faults",
};
