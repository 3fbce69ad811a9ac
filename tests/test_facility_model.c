/* Validation of the facility table, as libpfm4 validates its event tables: every facility
 * carries its whole model (a new one that lacks a part fails here), its suite spec resolves to a
 * basis on its natural workload, its periods are legal for it and build an attr on a machine
 * that has it, its prime-like periods are prime (in its period unit), and every event name the
 * declared-event table maps is one perf or libpfm4 knows. */
#include "check.h"
#include "fixture.h"

#include "facilities/facility.h"
#include "facilities/pfm_encode.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const fixtures[] = {"sysfs-vm", "sysfs-skl", "sysfs-spr", "sysfs-zen4",
				       "sysfs-zen5", "sysfs-neoverse", "sysfs-qemu-a57"};
#define NFIXTURES (PB_ARRAY_SIZE(fixtures))

static volatile uint64_t watched;

static void probe_site(void)
{
	watched++;
}

static bool is_prime(uint64_t n)
{
	if (n < 2)
		return false;
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return false;
	return true;
}

static void complete_descriptor(const struct pb_facility *f)
{
	CHECK_MSG(f->usage && f->summary && f->needs, "%s: usage, summary and needs", f->name);
	CHECK_MSG(f->parse && f->availability && f->attr && f->self_test,
		  "%s: parse, availability, attr, self_test", f->name);
	CHECK_MSG(f->suite_spec != NULL, "%s: no suite spec", f->name);
	CHECK_MSG(f->periods != NULL, "%s: no period sets", f->name);
	CHECK_MSG(f->multi_events >= 1, "%s: multi_events", f->name);
	CHECK_MSG(f->default_period >= f->min_period, "%s: default period below minimum", f->name);
	CHECK_MSG(f->time_based || f->declare, "%s: neither time-based nor a declare hook",
		  f->name);
	CHECK_MSG(!f->aux_pages || f->aux_deliver, "%s: an AUX area and no AUX delivery",
		  f->name);
	/* the session sizes the area from it: 0 would give every run the smallest */
	CHECK_MSG(!f->aux_pages || f->aux_record_bytes > 0, "%s: an AUX area and no record size",
		  f->name);
	CHECK_MSG(pb_facility_find(f->name) == f, "%s: not found by its name", f->name);
}

static void check_period(const struct pb_facility *f, uint64_t p, const char *what)
{
	CHECK_MSG(p >= f->min_period, "%s %s period %llu below the minimum %llu", f->name, what,
		  (unsigned long long)p, (unsigned long long)f->min_period);
	CHECK_MSG(!f->period_multiple || p % f->period_multiple == 0,
		  "%s %s period %llu not a multiple of %llu", f->name, what, (unsigned long long)p,
		  (unsigned long long)f->period_multiple);
}

static void legal_periods(const struct pb_facility *f)
{
	const struct pb_period_sets *s = f->periods;
	if (!s)
		return;
	uint64_t unit = f->period_multiple ? f->period_multiple : 1;
	check_period(f, s->accuracy, "accuracy");
	check_period(f, s->buffer, "buffer");
	for (unsigned i = 0; i < 4; i++) {
		check_period(f, s->round[i], "round");
		check_period(f, s->prime[i], "prime-like");
		CHECK_MSG(s->prime[i] % unit == 0 && is_prime(s->prime[i] / unit),
			  "%s prime-like period %llu is not %llu x a prime", f->name,
			  (unsigned long long)s->prime[i], (unsigned long long)unit);
		CHECK_MSG(!is_prime(s->round[i] / unit), "%s round period %llu is prime",
			  f->name, (unsigned long long)s->round[i]);
		if (i)
			CHECK_MSG(s->round[i] < s->round[i - 1] && s->prime[i] < s->prime[i - 1],
				  "%s interval periods not longest first", f->name);
	}
	for (unsigned i = 0; i < 5; i++) {
		check_period(f, s->cost[i], "cost");
		if (i)
			CHECK_MSG(s->cost[i] < s->cost[i - 1], "%s cost periods not longest first",
				  f->name);
	}
}

/* The first fixture machine on which the suite spec is available. */
static bool machine_with(const struct pb_spec *spec, struct pb_machine *m, const char **name)
{
	for (size_t i = 0; i < NFIXTURES; i++) {
		pb_test_fixture(m, fixtures[i]);
		struct pb_availability av;
		spec->facility->availability(m, spec, &av);
		if (av.available) {
			*name = fixtures[i];
			return true;
		}
	}
	return false;
}

static void suite_spec_resolves(const struct pb_facility *f)
{
	if (!f->suite_spec)
		return;
	struct pb_spec spec;
	struct pb_error err = {0};
	if (!CHECK_MSG(pb_spec_parse(f->suite_spec, &spec, &err) == 0, "%s: suite spec %s: %s",
		       f->name, f->suite_spec, err.msg))
		return;
	CHECK_MSG(spec.facility == f, "%s: suite spec belongs to another facility", f->name);

	static const enum pb_workload_role roles[] = {PB_ROLE_NATURAL, PB_ROLE_COST,
						      PB_ROLE_PREDICT, PB_ROLE_LEVELS};
	for (size_t r = 0; r < PB_ARRAY_SIZE(roles); r++) {
		const char *why = NULL;
		const char *w = pb_spec_workload(&spec, roles[r], &why);
		struct pb_workload_choice choice;
		if (w)
			CHECK_MSG(pb_workload_parse(w, &choice, &err) == 0,
				  "%s role %zu: workload %s does not parse: %s", f->name, r, w,
				  err.msg);
		else
			CHECK_MSG(why && why[0], "%s role %zu: no workload and no reason", f->name,
				  r);
	}
	char buf[192];
	const char *why = NULL;
	const char *spread = pb_spec_spread(&spec, buf, sizeof buf, &why);
	struct pb_spec spread_spec;
	if (spread)
		CHECK_MSG(pb_spec_parse(spread, &spread_spec, &err) == 0, "%s: spread spec %s",
			  f->name, spread);
	else
		CHECK_MSG(why && why[0], "%s: no spread spec and no reason", f->name);

	/* The basis on the natural workload's truth. */
	struct pb_workload_choice natural;
	struct pb_truth truth;
	if (!CHECK_MSG(pb_workload_parse(pb_spec_workload(&spec, PB_ROLE_NATURAL, NULL),
					 &natural, &err) == 0 &&
			       pb_workload_truth(&natural, 1000, &truth, &err) == 0,
		       "%s: natural workload: %s", f->name, err.msg))
		return;
	int label = pb_spec_sits_on_instruction(&spec) ? pb_truth_default_label(&truth) : -1;
	uint64_t events = 0;
	const char *basis = pb_spec_declare(&spec, &truth, label, 1000, &events);
	CHECK_MSG(!strcmp(basis, "declared") || !strcmp(basis, "count") ||
			  !strcmp(basis, "time"),
		  "%s: suite spec basis '%s' on %s", f->name, basis, natural.workload->name);
	CHECK_MSG(strcmp(basis, "declared") || events > 0, "%s: declared and no events",
		  f->name);
	CHECK_MSG(!f->time_based == !!strcmp(basis, "time"), "%s: time basis iff time-based",
		  f->name);
	printf("  %-10s %-28s natural %-20s basis %-8s %llu events in 1000 iterations\n",
	       f->name, f->suite_spec, natural.workload->name, basis,
	       (unsigned long long)events);

	/* Every period builds an attr on a machine that has the facility. */
	struct pb_machine m;
	const char *fixture = NULL;
	if (!CHECK_MSG(machine_with(&spec, &m, &fixture), "%s is available on no fixture tree",
		       f->name))
		return;
	struct pb_target target = {.data_addr = (uint64_t)(uintptr_t)&watched,
				   .data_len = sizeof watched,
				   .code_addr = (uint64_t)(uintptr_t)probe_site};
	const struct pb_period_sets *s = f->periods;
	uint64_t all[] = {s->accuracy, s->buffer, s->round[0], s->round[1], s->round[2],
			  s->round[3], s->prime[0], s->prime[1], s->prime[2], s->prime[3],
			  s->cost[0], s->cost[1], s->cost[2], s->cost[3], s->cost[4],
			  f->default_period};
	for (size_t i = 0; i < PB_ARRAY_SIZE(all); i++) {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof attr);
		pb_error_clear(&err);
		CHECK_MSG(f->attr(&m, &spec, &target, all[i], &attr, &err) == 0,
			  "%s on %s: period %llu refused: %s", f->name, fixture,
			  (unsigned long long)all[i], err.msg);
	}
}

static void declared_event_names_are_known(void)
{
	unsigned rows = 0;
	for (const struct pb_declared_event *d = pb_declared_event_table; d->event; d++, rows++) {
		if (d->perf_generic) {
			char text[128];
			snprintf(text, sizeof text, "hw:%s", d->event);
			struct pb_spec spec;
			CHECK_MSG(pb_spec_parse(text, &spec, NULL) == 0, "%s is not a perf name",
				  d->event);
			continue;
		}
		const char *pmu = pb_pfm_event_known(d->event, d->umasks);
		CHECK_MSG(pmu != NULL, "%s%s%s is in no libpfm4 table", d->event,
			  d->umasks[0] ? ":" : "", d->umasks);
		char written[160];
		snprintf(written, sizeof written, "%s::%s%s%s", pmu ? pmu : "x", d->event,
			 d->umasks[0] ? ":" : "", d->umasks);
		CHECK_MSG(pb_declared_event_find(written) == d, "%s does not find its own row",
			  written);
	}
	CHECK(rows >= 10);
	/* Counting something else is never declared as what the row counts. */
	CHECK(pb_declared_event_find("BR_INST_RETIRED:COND") == NULL);
	CHECK(pb_declared_event_find("INST_RETIRED:ANY_P:c=1") == NULL);
	CHECK(pb_declared_event_find("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED") == NULL);
	const struct pb_declared_event *br = pb_declared_event_find("BR_INST_RETIRED:ALL_BRANCHES");
	const struct pb_declared_event *inst = pb_declared_event_find("INST_RETIRED:ANY");
	CHECK(br && inst && br->counts != inst->counts);
	CHECK(pb_declared_event_find("perf::PERF_COUNT_HW_CACHE_L1D:MISS:READ") != NULL);
}

/* A refusal is read by the facility that knows its rule (the session read a uprobe's by the
 * PMU's type and worded a breakpoint's for every facility); the others get the generic one. */
static void open_refusals_are_the_facilities(void)
{
	struct pb_spec bp, uprobe, timer;
	CHECK(pb_spec_parse("bp:w", &bp, NULL) == 0);
	CHECK(pb_spec_parse("uprobe", &uprobe, NULL) == 0);
	CHECK(pb_spec_parse("timer:cpu-clock", &timer, NULL) == 0);
	CHECK_STR_CONTAINS(pb_spec_open_refusal(&bp, ENOSPC), "debug-register");
	CHECK(pb_spec_open_refusal(&bp, EACCES) == NULL);
	CHECK_STR_CONTAINS(pb_spec_open_refusal(&uprobe, EPERM), "CAP_SYS_ADMIN");
	CHECK_STR_CONTAINS(pb_spec_open_refusal(&uprobe, EACCES), "CAP_SYS_ADMIN");
	CHECK_STR_CONTAINS(pb_spec_open_refusal(&uprobe, 524), "lock-prefixed");
	CHECK(pb_spec_open_refusal(&uprobe, ENOSPC) == NULL);
	CHECK(pb_spec_open_refusal(&timer, ENOSPC) == NULL);
	CHECK(pb_spec_open_refusal(&timer, EPERM) == NULL);
}

/* A facility that is absent says why in its self-test's text, whole: the text was cut at 300
 * bytes of a reason that may take 383. The longest reason on the fixture machines is printed. */
static size_t absent_reason_whole(const struct pb_facility *f)
{
	size_t longest = 0;
	for (size_t i = 0; i < NFIXTURES; i++) {
		struct pb_machine m;
		pb_test_fixture(&m, fixtures[i]);
		struct pb_availability av;
		struct pb_self_test test;
		pb_facility_check(&m, NULL, f, &av, &test);
		if (av.available)
			continue;
		CHECK_MSG(test.verdict == PB_VERDICT_ABSENT && !strcmp(test.text, av.reason),
			  "%s on %s: '%s' for '%s'", f->name, fixtures[i], test.text, av.reason);
		if (strlen(av.reason) > longest)
			longest = strlen(av.reason);
	}
	return longest;
}

/* A reason as long as its field holds */
static void absent_at_length(const struct pb_machine *m, const struct pb_spec *spec,
			     struct pb_availability *out)
{
	(void)m, (void)spec;
	memset(out, 0, sizeof *out);
	memset(out->reason, 'r', sizeof out->reason - 1);
	memcpy(out->reason + sizeof out->reason - 12, "end of why.", 12);
}

static void longest_reason_whole(void)
{
	struct pb_facility f = *pb_facility_list()[0];
	f.availability = absent_at_length;
	struct pb_machine m;
	pb_test_fixture(&m, fixtures[0]);
	struct pb_availability av;
	struct pb_self_test test;
	pb_facility_check(&m, NULL, &f, &av, &test);
	CHECK(test.verdict == PB_VERDICT_ABSENT);
	CHECK_MSG(strlen(test.text) == sizeof av.reason - 1 && strstr(test.text, "end of why."),
		  "%zu bytes", strlen(test.text));
}

static void available(const struct pb_machine *m, const struct pb_spec *spec,
		      struct pb_availability *out)
{
	(void)m, (void)spec;
	memset(out, 0, sizeof *out);
	out->available = true;
}

/* A self-test's text as long as its field holds, in two-byte characters */
static void inexact_at_length(const struct pb_machine *m, const struct pb_spec *spec,
			      struct pb_self_test *out)
{
	(void)m, (void)spec;
	memset(out, 0, sizeof *out);
	out->verdict = PB_VERDICT_INEXACT;
	for (size_t i = 0; i + 2 < sizeof out->text; i += 2)
		memcpy(out->text + i, "µ", 2);
}

/* A self-test's text longer than a reason keeps says so where it is cut, never inside a
 * character: 360 bytes of a text of 640 were kept without a word. */
static void long_self_test_cut_visibly(void)
{
	struct pb_facility f = *pb_facility_list()[0];
	f.availability = available;
	f.self_test = inexact_at_length;
	static struct pb_machine live;   /* no saved tree: the self-test runs */
	struct pb_availability av;
	struct pb_self_test test;
	pb_facility_check(&live, NULL, &f, &av, &test);
	pb_facility_forget_self_tests();
	CHECK(!av.available && test.verdict == PB_VERDICT_INEXACT);
	CHECK_MSG(strlen(av.reason) < sizeof av.reason - 1, "%zu bytes", strlen(av.reason));
	const char *cut = strstr(av.reason, " [cut short]");
	CHECK_MSG(cut && !cut[strlen(" [cut short]")], "%s", av.reason);
	CHECK(cut && !strncmp(cut - 2, "µ", 2));
	CHECK(!strncmp(av.reason, "self-test inexact: µµ", strlen("self-test inexact: µµ")));
}

int main(void)
{
	unsigned n = 0;
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++, n++) {
		complete_descriptor(*f);
		legal_periods(*f);
		suite_spec_resolves(*f);
	}
	size_t longest = 0;
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		size_t len = absent_reason_whole(*f);
		longest = len > longest ? len : longest;
	}
	printf("facility_model: the longest reason a facility is absent: %zu bytes\n", longest);
	longest_reason_whole();
	long_self_test_cut_visibly();
	CHECK(n >= 9);
	declared_event_names_are_known();
	open_refusals_are_the_facilities();
	return pb_check_done("facility_model");
}
