/* The facility layer's doors for the rest of pesbench: each run-time hook reached through its
 * pb_spec_* / pb_facility_* function, which forwards to the hook and gives the documented
 * default when a facility leaves it out (tests/source_facility_hooks.sh checks nothing else
 * calls a hook); and the specs that arrive by another door than the command line (the public
 * API's text, a bundle's recorded spec, verify's oracles), parsed in the facility layer. */
#include "check.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "ring/record.h"
#include "util/error.h"

#include <string.h>

static int calls;
static const struct pb_spec *availability_spec;

static int test_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	(void)spec;
	if (args && strcmp(args, "ok"))
		return pb_fail(err, PB_EXIT_USAGE, 0, "hooktest takes only :ok");
	return 0;
}

static void test_availability(const struct pb_machine *m, const struct pb_spec *spec,
			      struct pb_availability *out)
{
	(void)m;
	calls++;
	availability_spec = spec;
	out->available = false;
	snprintf(out->reason, sizeof out->reason, "hooktest is never available");
}

/* A facility with only what every facility must have: every optional hook left out. */
static const struct pb_facility bare = {
	.name = "hooktest", .usage = "hooktest[:ok]", .summary = "test facility",
	.parse = test_parse, .availability = test_availability,
};

static bool say_no(const struct pb_spec *spec)
{
	(void)spec;
	calls++;
	return false;
}

static bool say_yes(const struct pb_spec *spec)
{
	(void)spec;
	calls++;
	return true;
}

static bool not_in_subset(const struct pb_machine *m, const struct pb_spec *spec,
			  const struct pb_sample *sample)
{
	(void)m, (void)spec, (void)sample;
	calls++;
	return false;
}

static int refuse_random(struct pb_spec *spec, struct pb_error *err)
{
	(void)spec;
	return pb_fail(err, PB_EXIT_USAGE, 0, "no random periods here");
}

static const struct pb_own_figure figure = {"hooktest_figure", "events", "%llu figures"};

static const struct pb_own_figure *one_figure(const struct pb_spec *spec, size_t i)
{
	(void)spec, (void)i;
	calls++;
	return &figure; /* past the first too: the caller's bound must stop it */
}

static void tally_thread(const struct pb_spec *spec, uint64_t samples,
			 const struct pb_ring_stats *ring, uint64_t *own)
{
	(void)spec, (void)ring;
	own[0] += samples;
}

static void tally_sample(const struct pb_machine *m, const struct pb_spec *spec,
			 const struct pb_sample *sample, uint64_t *own)
{
	(void)m, (void)spec, (void)sample;
	own[1]++;
}

static uint64_t deliver_three(struct pb_aux *aux, const struct pb_record *aux_rec,
			      void (*fn)(void *ctx, const struct pb_record *rec), void *ctx,
			      struct pb_ring_stats *stats)
{
	(void)aux, (void)aux_rec, (void)fn, (void)ctx, (void)stats;
	return 3;
}

static const char *one_name(size_t i)
{
	return i == 0 ? "hooktest-event" : NULL;
}

/* The same facility with every one of those hooks given. */
static const struct pb_facility full = {
	.name = "hooktest-full", .parse = test_parse, .availability = test_availability,
	.can_exclude = say_no, .filters_in_software = say_yes,
	.sample_in_subset = not_in_subset, .randomise_in_hardware = refuse_random,
	.own_figure = one_figure, .own_tally_thread = tally_thread,
	.own_tally_sample = tally_sample, .aux_deliver = deliver_three,
	.perf_event_name = one_name,
};

static void defaults_without_hooks(void)
{
	struct pb_spec spec = {.facility = &bare};
	struct pb_error err = {0};
	uint64_t own[PB_OWN_FIGURES] = {0};
	struct pb_sample sample = {0};
	CHECK(pb_spec_can_exclude(&spec));
	CHECK(!pb_spec_filters_in_software(&spec));
	CHECK(pb_spec_sample_in_subset(NULL, &spec, &sample));
	CHECK_EQ_U64((uint64_t)pb_spec_randomise_in_hardware(&spec, &err), 0);
	CHECK(pb_spec_own_figure(&spec, 0) == NULL);
	pb_spec_own_tally_thread(&spec, 5, NULL, own);
	pb_spec_own_tally_sample(NULL, &spec, &sample, own);
	CHECK_EQ_U64(own[0] + own[1], 0);
	CHECK_EQ_U64(pb_facility_aux_deliver(&bare, NULL, NULL, NULL, NULL, NULL), 0);
	CHECK(pb_facility_perf_event_name(&bare, 0) == NULL);
}

static void hooks_answer(void)
{
	struct pb_spec spec = {.facility = &full};
	struct pb_error err = {0};
	uint64_t own[PB_OWN_FIGURES] = {0};
	struct pb_sample sample = {0};
	calls = 0;
	CHECK(!pb_spec_can_exclude(&spec));
	CHECK(pb_spec_filters_in_software(&spec));
	CHECK(!pb_spec_sample_in_subset(NULL, &spec, &sample));
	CHECK_EQ_U64(calls, 3);
	CHECK(pb_spec_randomise_in_hardware(&spec, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "no random periods");
	CHECK(pb_spec_own_figure(&spec, 0) == &figure);
	CHECK(pb_spec_own_figure(&spec, PB_OWN_FIGURES - 1) == &figure);
	calls = 0;
	CHECK(pb_spec_own_figure(&spec, PB_OWN_FIGURES) == NULL);
	CHECK_MSG(calls == 0, "own_figure asked past PB_OWN_FIGURES");
	pb_spec_own_tally_thread(&spec, 5, NULL, own);
	pb_spec_own_tally_sample(NULL, &spec, &sample, own);
	CHECK_EQ_U64(own[0], 5);
	CHECK_EQ_U64(own[1], 1);
	CHECK_EQ_U64(pb_facility_aux_deliver(&full, NULL, NULL, NULL, NULL, NULL), 3);
	CHECK(pb_facility_perf_event_name(&full, 0) && pb_facility_perf_event_name(&full, 1) == NULL);
}

static void api_text(void)
{
	struct pb_machine m;
	memset(&m, 0, sizeof m);
	struct pb_availability av;
	struct pb_error err = {0};
	/* a bare name asks about the facility as a whole, a spec about itself */
	calls = 0;
	CHECK(pb_spec_text_availability(&m, "hooktest", false, &av, &err) == 0);
	CHECK(calls == 1 && availability_spec == NULL && !av.available);
	CHECK_STR_CONTAINS(av.reason, "never available");
	CHECK(pb_spec_text_availability(&m, "hooktest:ok", false, &av, &err) == 0);
	CHECK(calls == 2 && availability_spec != NULL);
	/* the self-test path asks availability first, and stops at an absent facility */
	CHECK(pb_spec_text_availability(&m, "hooktest:ok", true, &av, &err) == 0);
	CHECK(calls == 3 && !av.available);
	CHECK(pb_spec_text_availability(&m, "hooktest:bad", false, &av, &err) == -1);
	CHECK_EQ_U64((uint64_t)err.code, PB_EXIT_USAGE);
	CHECK(pb_spec_text_availability(&m, "no-such-facility", false, &av, &err) == -1);
}

static void recorded_and_oracles(void)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_of_recorded("hooktest:ok", &spec, &err) == 0);
	CHECK(spec.facility == &bare && !strcmp(spec.text, "hooktest:ok"));
	/* a recorded spec that does not parse is the file's fault, with the parser's message */
	CHECK(pb_spec_of_recorded("hooktest:bad", &spec, &err) == -1);
	CHECK_EQ_U64((uint64_t)err.code, PB_EXIT_BAD_FILE);
	CHECK_STR_CONTAINS(err.msg, "takes only :ok");
	for (unsigned o = 0; o < PB_ORACLES; o++) {
		CHECK_MSG(pb_oracle_spec((enum pb_oracle)o, &spec, &err) == 0,
			  "oracle %u: %s", o, err.msg);
		CHECK_MSG(spec.facility != NULL && spec.text[0], "oracle %u has a spec", o);
	}
	CHECK(pb_oracle_spec(PB_ORACLES, &spec, &err) == -1);
}

int main(void)
{
	CHECK_EQ_U64((uint64_t)pb_facility_register_extra(&bare), 0);
	defaults_without_hooks();
	hooks_answer();
	api_text();
	recorded_and_oracles();
	return pb_check_done("spec_hooks");
}
