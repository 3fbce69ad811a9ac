/* The option layer's conventions: short letters given by convention (and never twice, never
 * over a table's own), periods with units, and the check of a period's units against the
 * facility's period unit as its descriptor states it. */
#include "check.h"
#include "cli/options.h"
#include "facilities/facility.h"

#include <stdint.h>
#include <string.h>

struct fake_args {
	const char *facility, *event, *out, *output;
	uint64_t period;
	unsigned period_units;
	bool json;
};

#define ARG(field, type) PB_AT(struct fake_args, field, type)

static const struct pb_opt fake_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_STRING, .at = ARG(facility, const char *),
	 .help = "h"},
	{.name = "event", .arg = "E", .kind = PB_OPT_STRING, .at = ARG(event, const char *),
	 .help = "h"},
	{.name = "period", .arg = "P", .kind = PB_OPT_PERIOD, .at = ARG(period, uint64_t),
	 .units_at = PB_UNITS(struct fake_args, period_units), .min = 1, .max = UINT64_MAX >> 1,
	 .help = "h"},
	/* the table gives -o to --json: --out and --output get no -o */
	{.name = "json", .short_name = 'o', .kind = PB_OPT_FLAG, .at = ARG(json, bool), .help = "h"},
	{.name = "out", .arg = "DIR", .kind = PB_OPT_STRING, .at = ARG(out, const char *),
	 .help = "h"},
	{0},
};

static const struct pb_cmd_spec fake = {
	.name = "fake", .summary = "s", .options = fake_options,
	.args_size = sizeof(struct fake_args),
};

static int parse(struct fake_args *a, int argc, char **argv, struct pb_error *err)
{
	memset(a, 0, sizeof *a);
	memset(err, 0, sizeof *err);
	int rest;
	return pb_options_parse(&fake, argc, argv, a, &rest, err) == PB_PARSED ? 0 : -1;
}

int main(void)
{
	char letters[PB_OPT_MAX_SHORT + 1];
	CHECK(pb_opt_short_letters(&fake, &fake_options[0], letters) == 2);
	CHECK_MSG(!strcmp(letters, "fe"), "facility: %s", letters);
	/* -e is the facility's already: the event gets none */
	CHECK(pb_opt_short_letters(&fake, &fake_options[1], letters) == 0);
	CHECK(pb_opt_short_letters(&fake, &fake_options[2], letters) == 1 && letters[0] == 'c');
	CHECK(pb_opt_short_letters(&fake, &fake_options[3], letters) == 1 && letters[0] == 'o');
	CHECK(pb_opt_short_letters(&fake, &fake_options[4], letters) == 0);

	struct fake_args a;
	struct pb_error err;
	char *argv1[] = {"fake", "-e", "cycles", "-c", "10k", "-o", NULL};
	CHECK(parse(&a, 6, argv1, &err) == 0);
	CHECK(a.facility && !strcmp(a.facility, "cycles") && !a.event);
	CHECK_EQ_U64(a.period, 10000);
	CHECK(a.period_units == PB_PERIOD_COUNT);
	CHECK(a.json && !a.out);

	/* times in ns, counts plain or with a suffix */
	static const struct {
		const char *text;
		uint64_t value;
		unsigned units;
	} good[] = {
		{"1", 1, PB_PERIOD_PLAIN},         {"0x100", 256, PB_PERIOD_PLAIN},
		{"5k", 5000, PB_PERIOD_COUNT},     {"2M", 2000000, PB_PERIOD_COUNT},
		{"1G", 1000000000, PB_PERIOD_COUNT}, {"750ns", 750, PB_PERIOD_TIME},
		{"100us", 100000, PB_PERIOD_TIME}, {"1ms", 1000000, PB_PERIOD_TIME},
		{"2s", 2000000000, PB_PERIOD_TIME},
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		uint64_t v = 0;
		unsigned units = 99;
		int rc = pb_parse_period("--period", good[i].text, 1, UINT64_MAX >> 1, &v, &units,
					 &err);
		CHECK_MSG(rc == 0 && v == good[i].value && units == good[i].units,
			  "%s: rc %d, %llu, units %u (%s)", good[i].text, rc, (unsigned long long)v,
			  units, err.msg);
	}
	static const struct {
		const char *text, *message;
	} bad[] = {
		{"5q", "unknown unit"},          {"1.5ms", "whole units"},
		{"0", "too small"},              {"0ms", "too short"},
		{"ms", "is not a number"},       {"-1ms", "whole units"},
		{"99999999999s", "too long a time"},
		{"99999999999999999999999ms", "too long a time"},
		{"99999999999999999999", "too large"}, {"", "needs a number"},
		{"1ks", "unknown unit"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t v = 0;
		unsigned units;
		memset(&err, 0, sizeof err);
		int rc = pb_parse_period("--period", bad[i].text, 1, UINT64_MAX >> 1, &v, &units,
					 &err);
		CHECK_MSG(rc == -1 && err.code == PB_EXIT_USAGE && strstr(err.msg, bad[i].message),
			  "'%s': rc %d, '%s'", bad[i].text, rc, err.msg);
	}
	/* a list: the units of every element */
	uint64_t list[4];
	unsigned n, units;
	CHECK(pb_parse_period_list("--period", "1ms,10k,7", 1, UINT64_MAX, list, 4, &n, &units,
				   &err) == 0);
	CHECK(n == 3 && list[0] == 1000000 && list[1] == 10000 && list[2] == 7);
	CHECK(units == (PB_PERIOD_TIME | PB_PERIOD_COUNT));
	CHECK(pb_parse_period_list("--period", "1,2,3,4,5", 1, 9, list, 4, &n, &units, &err) == -1);

	/* the units against each facility's period unit, from its descriptor */
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		bool in_ns = !strcmp(pb_facility_period_unit(*f), "ns");
		CHECK(in_ns == (*f)->time_based);
		const char *spec = (*f)->suite_spec;
		memset(&err, 0, sizeof err);
		CHECK_MSG(pb_period_check("--period", PB_PERIOD_PLAIN, spec, &err) == 0, "%s", spec);
		int time_rc = pb_period_check("--period", PB_PERIOD_TIME, spec, &err);
		CHECK_MSG(in_ns ? time_rc == 0 : time_rc == -1 && strstr(err.msg, "not after a time"),
			  "%s with a time: %d '%s'", spec, time_rc, err.msg);
		memset(&err, 0, sizeof err);
		int count_rc = pb_period_check("--period", PB_PERIOD_COUNT, spec, &err);
		CHECK_MSG(in_ns ? count_rc == -1 && strstr(err.msg, "is a time") : count_rc == 0,
			  "%s with a count: %d '%s'", spec, count_rc, err.msg);
	}
	/* perf's names are checked as the spec they stand for */
	CHECK(pb_period_check("--period", PB_PERIOD_TIME, "cpu-clock", &err) == 0);
	CHECK(pb_period_check("--period", PB_PERIOD_TIME, "page-faults", &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "sw:page-faults");
	/* an unknown facility is its parser's to name */
	CHECK(pb_period_check("--period", PB_PERIOD_TIME, "frob", &err) == 0);
	return pb_check_done("cli_options");
}
