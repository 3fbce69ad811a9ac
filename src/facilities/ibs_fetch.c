/* AMD IBS fetch sampling: the hardware tags one instruction fetch every period fetches and
 * reports its linear address, latency and cache/TLB outcome, through the 'ibs_fetch' PMU. */
#include "facilities/ibs_common.h"
#include "facilities/ibs_raw.h"
#include "facilities/selftest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct pb_spec_option fetch_words[] = {
	{.word = "rand", .kind = PB_SPEC_FLAG, .bits = PB_IBS_OPT_RAND,
	 .help = "randomise the low bits of each period (rand_en), so a loop is not always "
		 "tagged at one fetch"},
	PB_IBS_COMMON_OPTIONS,
};

static const struct pb_spec_options fetch_options =
	PB_SPEC_OPTIONS(fetch_words, .what = "ibs-fetch option");

static int fetch_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	snprintf(spec->event, sizeof spec->event, "fetch");
	return pb_spec_options_parse(&fetch_options, spec, args, NULL, err);
}

static void fetch_availability(const struct pb_machine *m, const struct pb_spec *spec,
			       struct pb_availability *out)
{
	pb_ibs_availability(PB_IBS_FETCH, m, spec, out);
}

static int fetch_attr(const struct pb_machine *m, const struct pb_spec *spec,
		      const struct pb_target *target, uint64_t period,
		      struct perf_event_attr *attr, struct pb_error *err)
{
	(void)target;
	if (pb_ibs_attr_common(PB_IBS_FETCH, m, spec, period, attr, err))
		return -1;
	/* Randomising the low bits stops a loop from always tagging the same fetch. */
	char fallback[24];
	if ((spec->options & PB_IBS_OPT_RAND) &&
	    pb_ibs_set_format(m, PB_IBS_FETCH, "rand_en",
			      pb_ibs_config_format(PB_IBS_FETCH_CTL_RAND_EN, fallback,
						   sizeof fallback),
			      1, attr, err))
		return -1;
	return 0;
}

static void fetch_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			    struct pb_self_test *out)
{
	pb_selftest_sampling_pmu(m, spec, "ibs-fetch", "IBS fetch events", true, out);
}

/* IBS fetch randomises the low bits of its own period in hardware (rand_en): the paper's
 * "built-in randomisation", and no ioctl round trip per sample. */
static int fetch_randomise(struct pb_spec *spec, struct pb_error *err)
{
	if (spec->options & PB_IBS_OPT_RAND)
		return 0;
	char text[sizeof spec->text];
	if ((size_t)snprintf(text, sizeof text, "%s:rand", spec->text) >= sizeof text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "facility spec too long");
	return pb_spec_parse(text, spec, err);
}

/* A fetch sample is taken every period fetches, which no workload declares: the kernel's own
 * count is the basis. */
static const char *fetch_declare(const struct pb_spec *spec, const struct pb_truth *truth,
				 const struct pb_label_truth *label, uint64_t iterations,
				 uint64_t *events)
{
	(void)spec, (void)truth, (void)label, (void)iterations, (void)events;
	return "count";
}

const struct pb_facility pb_facility_ibs_fetch = {
	.name = "ibs-fetch",
	.options = &fetch_options,
	.usage = "ibs-fetch[:rand][:l3missonly][:swfilt]",
	.summary = "AMD IBS fetch sampling: exact fetch address with i-cache/iTLB outcome and "
		   "fetch latency",
	PB_IBS_FACILITY_COMMON,
	.min_period = PB_IBS_FETCH_MIN_PERIOD,
	.parse = fetch_parse,
	.availability = fetch_availability,
	.attr = fetch_attr,
	.self_test = fetch_self_test,
	.suite_spec = "ibs-fetch",
	.randomise_in_hardware = fetch_randomise,
	.declare = fetch_declare,
	.probe_machine = pb_ibs_probe_machine,
	.machine_facts = pb_ibs_machine_facts,
	.perfdata = &pb_ibs_perfdata_decoder,
};
