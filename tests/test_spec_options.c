/* The table-driven spec-option parser every facility uses: a made-up table exercises each kind
 * of word, then every facility's own table is walked through pb_spec_parse. */
#include "check.h"
#include "facilities/facility.h"
#include "facilities/spec_options.h"
#include "util/kit.h"

#include <errno.h>

enum { OPT_A = 1, OPT_B = 2, OPT_LAT = 4, OPT_NAMED = 8, OPT_RED = 16, OPT_BLUE = 32 };

static int named_calls;

static int parse_name(struct pb_spec *spec, const char *value, void *ctx, struct pb_error *err)
{
	(void)ctx;
	named_calls++;
	if (strcmp(value, "good"))
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: bad name '%s'", spec->text, value);
	return 0;
}

static int odd_only(struct pb_spec *spec, uint64_t v, void *ctx, struct pb_error *err)
{
	(void)ctx;
	return v % 2 ? 0 : pb_fail(err, PB_EXIT_USAGE, 0, "%s: even", spec->text);
}

static const struct pb_spec_option words[] = {
	{.word = "red", .kind = PB_SPEC_CHOICE, .bits = OPT_RED, .field = PB_SPEC_FIELD(priv.bp_type),
	 .value = 7, .help = "red"},
	{.word = "blue", .kind = PB_SPEC_CHOICE, .bits = OPT_BLUE, .field = PB_SPEC_FIELD(priv.bp_type),
	 .value = 9, .help = "blue"},
	{.word = "a", .kind = PB_SPEC_FLAG, .bits = OPT_A, .help = "a"},
	{.word = "b", .kind = PB_SPEC_FLAG, .bits = OPT_B, .help = "b"},
	{.word = "lat", .kind = PB_SPEC_NUMBER, .bits = OPT_LAT, .field = PB_SPEC_FIELD(config1),
	 .min = 10, .max = 20, .about = "a latency", .note = "why", .help = "lat"},
	{.word = "mask", .kind = PB_SPEC_NUMBER, .field = PB_SPEC_FIELD(config2), .base = 16,
	 .max = UINT64_MAX, .arg = "HEX", .about = "a mask", .help = "mask"},
	{.word = "odd", .kind = PB_SPEC_NUMBER, .field = PB_SPEC_FIELD(priv.precise), .min = 1,
	 .max = 9, .check = odd_only, .bad_value = "odd must be 1..9", .help = "odd"},
	{.word = "name", .kind = PB_SPEC_TEXT, .bits = OPT_NAMED, .arg = "NAME",
	 .parse = parse_name, .help = "name"},
};

static const struct pb_spec_options table =
	PB_SPEC_OPTIONS(words, .what = "test option", .default_choice = "red",
			.exclusive_why = "one colour");

static int parse(const char *args, struct pb_spec *spec, struct pb_error *err)
{
	memset(spec, 0, sizeof *spec);
	snprintf(spec->text, sizeof spec->text, "t:%s", args ? args : "");
	pb_error_clear(err);
	return pb_spec_options_parse(&table, spec, args, NULL, err);
}

static void test_kinds(void)
{
	struct pb_spec s;
	struct pb_error err;
	/* nothing given: the default choice, nothing else */
	CHECK(parse(NULL, &s, &err) == 0);
	CHECK(!strcmp(s.event, "red") && s.priv.bp_type == 7 && s.options == OPT_RED);

	CHECK(parse("a:blue:lat=12:mask=ff:odd=3:name=good", &s, &err) == 0);
	CHECK_EQ_U64(s.options, OPT_A | OPT_BLUE | OPT_LAT | OPT_NAMED);
	CHECK(!strcmp(s.event, "blue") && s.priv.bp_type == 9);
	CHECK_EQ_U64(s.config1, 12);
	CHECK_EQ_U64(s.config2, 0xff);
	CHECK_EQ_U64(s.priv.precise, 3);
	/* the same choice twice is one choice; empty words are skipped */
	CHECK(parse("blue::blue:b", &s, &err) == 0);
	CHECK_EQ_U64(s.options, OPT_BLUE | OPT_B);
	/* ranges are inclusive; base 0 takes 0x */
	CHECK(parse("lat=10", &s, &err) == 0 && s.config1 == 10);
	CHECK(parse("lat=0x14", &s, &err) == 0 && s.config1 == 20);
	CHECK(parse("mask=ffffffffffffffff", &s, &err) == 0 && s.config2 == UINT64_MAX);
}

static void test_errors(void)
{
	struct pb_spec s;
	struct pb_error err;
	CHECK(parse("red:blue", &s, &err) == -1);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "t:red:blue: :red and :blue exclude each other (one colour)");

	/* the valid list is the table, as a user writes each word */
	CHECK(parse("a:green", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "t:a:green: unknown test option 'green'; valid: red, blue, "
				    "a, b, lat=10..20, mask=HEX, odd=1..9, name=NAME");
	/* a flag with a value, a number without one: no such word */
	CHECK(parse("a=1", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "unknown test option 'a=1'");
	CHECK(parse("lat", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "unknown test option 'lat'");

	const char *bad_lat[] = {"lat=9", "lat=21", "lat=", "lat=x", "lat=12x", "lat=-12",
				 "lat=99999999999999999999999"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(bad_lat); i++) {
		CHECK(parse(bad_lat[i], &s, &err) == -1);
		CHECK_STR_CONTAINS(err.msg, "lat must be a latency from 10 to 20 (why)");
		CHECK_EQ_U64(s.options, 0);   /* nothing set by a refused word */
	}
	CHECK(parse("mask=zz", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "t:mask=zz: mask needs a mask");
	/* the check speaks first, then the range's own message */
	CHECK(parse("odd=4", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "t:odd=4: even");
	CHECK(parse("odd=11", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "t:odd=11: odd must be 1..9");
	named_calls = 0;
	CHECK(parse("name=bad", &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "bad name 'bad'");
	CHECK_EQ_U64(named_calls, 1);
	CHECK(!(s.options & OPT_NAMED));

	char longword[200];
	memset(longword, 'x', sizeof longword - 1);
	longword[sizeof longword - 1] = '\0';
	CHECK(parse(longword, &s, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "is too long");
}

static void test_event_words(void)
{
	static const struct pb_spec_options events = {.what = "x", .other = pb_spec_event_word};
	struct pb_spec s = {0};
	struct pb_error err;
	struct pb_spec_event_words w = {0};
	CHECK(pb_spec_options_parse(&events, &s, "skl::INST_RETIRED:ANY_P", &w, &err) == 0);
	CHECK(!strcmp(w.text, "skl::INST_RETIRED:ANY_P"));   /* the empty word is kept */
	char big[160];
	memset(big, 'e', 100);
	strcpy(big + 100, ":eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
	struct pb_spec_event_words w2 = {0};
	CHECK(pb_spec_options_parse(&events, &s, big, &w2, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "event name too long");
}

/* Every facility parses through a table, each word of which is documented and accepted. */
static void test_facilities(void)
{
	unsigned facilities = 0;
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		facilities++;
		if (!CHECK_MSG((*f)->options != NULL, "%s has no option table", (*f)->name))
			continue;
		const struct pb_spec_options *t = (*f)->options;
		CHECK_MSG(t->what && *t->what, "%s: its table names no kind of word", (*f)->name);
		for (size_t i = 0; i < t->n; i++) {
			const struct pb_spec_option *o = &t->options[i];
			CHECK_MSG(o->help && *o->help, "%s:%s has no help", (*f)->name, o->word);
			/* flags and choices alone, numbers at both ends of their range */
			if (o->kind == PB_SPEC_TEXT)
				continue;
			char text[192], prefix[96] = "";
			if (!strcmp((*f)->name, "hw") || !strcmp((*f)->name, "pebs"))
				snprintf(prefix, sizeof prefix, "INST_RETIRED:ANY_P:");
			uint64_t values[2] = {o->min, o->max};
			for (int v = 0; v < (o->kind == PB_SPEC_NUMBER ? 2 : 1); v++) {
				if (o->kind == PB_SPEC_NUMBER)
					snprintf(text, sizeof text, "%s:%s%s=%s%llx", (*f)->name,
						 prefix, o->word, o->base == 16 ? "" : "0x",
						 (unsigned long long)values[v]);
				else
					snprintf(text, sizeof text, "%s:%s%s", (*f)->name, prefix,
						 o->word);
				struct pb_spec spec;
				struct pb_error err;
				CHECK_MSG(pb_spec_parse(text, &spec, &err) == 0, "%s: %s", text,
					  err.msg);
				if (o->bits)
					CHECK_MSG((spec.options & o->bits) == o->bits,
						  "%s does not set its bits", text);
			}
		}
		/* an unknown word is refused, naming it */
		char text[64];
		snprintf(text, sizeof text, "%s:%s", (*f)->name, t->other ? "pp=9" : "nonesuch");
		struct pb_spec spec;
		struct pb_error err;
		if (!strcmp((*f)->name, "hw"))
			continue;   /* every word is the event's: the PMU judges it later */
		CHECK_MSG(pb_spec_parse(text, &spec, &err) == -1, "%s accepted", text);
	}
	CHECK_EQ_U64(facilities, 9);
}

int main(void)
{
	test_kinds();
	test_errors();
	test_event_words();
	test_facilities();
	return pb_check_done("spec_options");
}
