/* The period check every path shares (pb_spec_check_period): a facility's minimum and multiple
 * refuse a period wherever it comes from. The suite's requests (run --period, an experiment's
 * own periods) once skipped the minimum: pb_suite_request set the period after the request was
 * checked with a period of 0, so `run --period 5000 --facility timer` ran points the kernel
 * would have stretched to 10000 ns. */
#include "check.h"
#include "fixture.h"

#include "experiments/point.h"
#include "experiments/suite_defaults.h"
#include "facilities/facility.h"
#include "session/session.h"

#include <string.h>

static void check_spec(const char *text, uint64_t period, const char *refusal)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse(text, &spec, &err) == 0);
	int rc = pb_spec_check_period(&spec, period, "--period", &err);
	CHECK_MSG((rc == 0) == (refusal == NULL), "%s at %llu: rc %d (%s)", text,
		  (unsigned long long)period, rc, err.msg);
	if (refusal) {
		CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
		CHECK_STR_CONTAINS(err.msg, refusal);
	}
}

static void test_facility_limits(void)
{
	check_spec("timer:cpu-clock", 9999, "below timer's minimum of 10000");
	check_spec("timer:cpu-clock", 10000, NULL);
	check_spec("timer:cpu-clock", 0, NULL);   /* counting: no period to check */
	check_spec("ibs-op", 100, "below ibs-op's minimum of 144");
	check_spec("ibs-op", 1000, "not a multiple of 16");
	check_spec("ibs-op", 1000, "use 992 or 1008");
	check_spec("ibs-fetch", 4104, "not a multiple of 16");
	check_spec("ibs-op", 1008, NULL);
	check_spec("spe", 255, "below spe's minimum of 256");
	check_spec("sw:page-faults", 1, NULL);
	/* every facility's own default passes its own check */
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		struct pb_spec spec = {.facility = *f};
		struct pb_error err = {0};
		CHECK_MSG(pb_spec_check_period(&spec, (*f)->default_period, "default", &err) == 0,
			  "%s: %s", (*f)->name, err.msg);
	}
}

/* The bug: a suite request with a period below the minimum was accepted. The refusal comes
 * before the facility is judged (a usage error whatever the machine has). */
static void test_suite_request_checks_period(void)
{
	struct pb_point_request req;
	struct pb_error err = {0};
	CHECK(pb_suite_request(&req, pb_test_spec("timer:cpu-clock"), "busy", 5000, 1,
			       PB_DELIVERY_NONE, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "--period 5000 is below timer's minimum of 10000");
	err = (struct pb_error){0};
	CHECK(pb_suite_request(&req, pb_test_spec("ibs-op"), NULL, 1000, 1, PB_DELIVERY_NONE,
			       &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "not a multiple of 16");
}

/* The same check on a request set with a period given (measure's path) and on a period
 * changed between points (every experiment's loop over periods), on a fixture machine
 * (nothing self-tested there): a legal period is carried in the request's one place, a
 * refused one leaves it as it was. */
static void test_request_set(void)
{
	struct pb_machine skl;
	pb_test_fixture(&skl, "sysfs-skl");
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.machine = &skl;
	uint64_t period = 8000;
	CHECK(pb_point_request_set(&req, pb_test_spec("timer:cpu-clock"), "busy", NULL, &period,
				   &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "--period 8000 is below timer's minimum of 10000");
	err = (struct pb_error){0};
	pb_point_request_defaults(&req);
	req.machine = &skl;
	CHECK(pb_point_request_set(&req, pb_test_spec("timer:cpu-clock"), "busy", NULL, NULL,
				   &err) == 0);
	CHECK_EQ_U64(req.events[0].period, pb_facility_timer.default_period);
	CHECK(pb_point_request_set_period(&req, 20000, &err) == 0);
	CHECK_EQ_U64(req.events[0].period, 20000);
	CHECK(pb_point_request_set_period(&req, 9000, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "--period 9000 is below timer's minimum of 10000");
	CHECK_EQ_U64(req.events[0].period, 20000);
	err = (struct pb_error){0};
	pb_point_request_defaults(&req);
	req.machine = &skl;
	period = 7;
	CHECK(pb_point_request_set(&req, pb_test_spec("sw:page-faults"), NULL, NULL, &period,
				   &err) == 0);
	CHECK_EQ_U64(req.events[0].period, 7);
}

/* Whatever path set an event's period (profile's too), the session checks it before the
 * facility builds the attr, and sample_period is written once, by pb_spec_attr. */
static void test_session_checks_every_event(void)
{
	struct pb_machine skl;
	pb_test_fixture(&skl, "sysfs-skl");
	struct pb_event_config ec = {.spec = *pb_test_spec("timer:cpu-clock"), .period = 5000,
				     .exclude_kernel = true};
	struct perf_event_attr attr;
	struct pb_error err = {0};
	CHECK(pb_event_attr(&skl, &ec, NULL, &attr, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "--period 5000 is below timer's minimum of 10000");
	err = (struct pb_error){0};
	ec.period = 20000;
	CHECK(pb_event_attr(&skl, &ec, NULL, &attr, &err) == 0);
	CHECK_EQ_U64(attr.sample_period, 20000);
	ec.period = 0;
	CHECK(pb_event_attr(&skl, &ec, NULL, &attr, &err) == 0);
	CHECK_EQ_U64(attr.sample_period, 0);
	err = (struct pb_error){0};
	CHECK(pb_spec_attr(&skl, pb_test_spec("sw:page-faults"), NULL, 3, &attr, &err) == 0);
	CHECK_EQ_U64(attr.sample_period, 3);
}

int main(void)
{
	test_facility_limits();
	test_suite_request_checks_period();
	test_request_set();
	test_session_checks_every_event();
	return pb_check_done("spec_period");
}
