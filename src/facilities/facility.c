#include "facilities/facility.h"
#include "util/suggest.h"
#include "util/text.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The registry, NULL-terminated; its free slots take facilities registered at run time. */
#define PB_MAX_FACILITIES 16
static const struct pb_facility *facilities[PB_MAX_FACILITIES + 1] = {
	&pb_facility_timer,  &pb_facility_sw,       &pb_facility_bp,
	&pb_facility_uprobe, &pb_facility_hw,       &pb_facility_pebs,
	&pb_facility_ibs_op, &pb_facility_ibs_fetch, &pb_facility_spe,
};

int pb_facility_register_extra(const struct pb_facility *f)
{
	size_t n = 0;
	while (facilities[n])
		n++;
	if (n == PB_MAX_FACILITIES || pb_facility_find(f->name))
		return -1;
	facilities[n] = f;
	return 0;
}

const struct pb_facility *const *pb_facility_list(void)
{
	return facilities;
}

const struct pb_own_figure *pb_own_figure_named(const char *name)
{
	for (const struct pb_facility *const *f = facilities; *f; f++)
		for (const struct pb_own_figure *const *o = (*f)->own_figures; o && *o; o++)
			if (!strcmp((*o)->name, name))
				return *o;
	return NULL;
}

const char *pb_l1_miss_counter(void)
{
	for (const struct pb_facility *const *f = facilities; *f; f++)
		if ((*f)->l1_miss_counter)
			return (*f)->l1_miss_counter;
	return NULL;
}

const struct pb_facility *pb_facility_find(const char *name)
{
	for (const struct pb_facility *const *f = facilities; *f; f++)
		if (!strcmp((*f)->name, name))
			return *f;
	return NULL;
}

const struct pb_facility *pb_facility_of_perf_name(const char *event)
{
	for (const struct pb_facility *const *f = facilities; *f; f++) {
		if (!(*f)->perf_event_name)
			continue;
		const char *name;
		for (size_t i = 0; (name = (*f)->perf_event_name(i)); i++)
			if (!strcmp(name, event))
				return *f;
	}
	return NULL;
}

/* perf_names: perf's event names are accepted where the name is read (a spec), so they are
 * suggested too */
static int unknown_facility(const char *name, const char *text, bool perf_names,
			    struct pb_error *err)
{
	struct pb_suggest near;
	pb_suggest_init(&near, name);
	for (const struct pb_facility *const *f = facilities; *f; f++) {
		pb_suggest_consider(&near, (*f)->name);
		const char *event;
		for (size_t i = 0; perf_names && (*f)->perf_event_name &&
				   (event = (*f)->perf_event_name(i));
		     i++)
			pb_suggest_consider(&near, event);
	}
	char prefix[128] = "";
	if (strcmp(name, text))
		pb_format(prefix, sizeof prefix, "%.100s: ", text);
	return pb_suggest_fail(err, &near, prefix, "facility", "`pesbench facilities`");
}

const struct pb_facility *pb_facility_find_or_fail(const char *name, const char *text,
						 struct pb_error *err)
{
	const struct pb_facility *f = pb_facility_find(name);
	if (!f)
		unknown_facility(name, text, false, err);
	return f;
}

/* "hw@cpu_atom" -> name "hw", spec->pmu "cpu_atom". */
static int pb_spec_split_pmu(struct pb_spec *spec, char *name, const char *text,
			     struct pb_error *err)
{
	char *at = strchr(name, '@');
	if (!at)
		return 0;
	*at = '\0';
	const char *pmu = at + 1;
	if (!*pmu || strlen(pmu) >= sizeof spec->pmu || strchr(pmu, '/') || strchr(pmu, '@'))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s: @ must name a PMU of /sys/bus/event_source/devices (cpu_core, "
			       "cpu_atom, armv8_pmuv3_0, ...)", text);
	snprintf(spec->pmu, sizeof spec->pmu, "%s", pmu);
	return 0;
}

int pb_spec_parse(const char *text, struct pb_spec *spec, struct pb_error *err)
{
	memset(spec, 0, sizeof *spec);
	spec->priv.precise = -1;
	if (!text || !*text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "empty facility spec; `pesbench facilities` "
			       "lists them");
	char name[64];
	size_t len = strcspn(text, ":");
	if (len >= sizeof name)
		len = sizeof name - 1;
	memcpy(name, text, len);
	name[len] = '\0';
	if (pb_spec_split_pmu(spec, name, text, err))
		return -1;

	spec->facility = pb_facility_find(name);
	const struct pb_facility *by_perf_name = spec->facility ? NULL
					       : pb_facility_of_perf_name(name);
	int written = by_perf_name ? snprintf(spec->text, sizeof spec->text, "%s:%s",
					      by_perf_name->name, text)
				   : snprintf(spec->text, sizeof spec->text, "%s", text);
	if (written < 0 || (size_t)written >= sizeof spec->text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "facility spec '%.40s...' is too long (max %zu)",
			       text, sizeof spec->text - 1);
	if (by_perf_name) {
		spec->facility = by_perf_name;
		return spec->facility->parse(spec, text, err);
	}
	if (!spec->facility)
		return unknown_facility(name, text, true, err);
	const char *colon = strchr(text, ':');
	if (spec->pmu[0] && !spec->facility->pmu_qualified)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s: %s takes no @PMU (only hw does: hw@cpu_atom:instructions)", text,
			       name);
	const char *args = colon && colon[1] ? colon + 1 : NULL;
	return spec->facility->parse(spec, args, err);
}

int pb_spec_check_period(const struct pb_spec *spec, uint64_t period, const char *what,
			 struct pb_error *err)
{
	const struct pb_facility *f = spec->facility;
	if (!period)
		return 0;
	if (period < f->min_period)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s %llu is below %s's minimum of %llu", what,
			       (unsigned long long)period, f->name,
			       (unsigned long long)f->min_period);
	uint64_t step = f->period_multiple;
	if (step > 1 && period % step) {
		uint64_t below = period - period % step;
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s %llu is not a multiple of %llu, which %s counts its period in; "
			       "use %llu or %llu", what, (unsigned long long)period,
			       (unsigned long long)step, f->name, (unsigned long long)below,
			       (unsigned long long)(below + step));
	}
	return 0;
}

int pb_spec_spread_parsed(const struct pb_spec *spec, struct pb_spec *out, const char **why)
{
	char buf[sizeof spec->text];
	const char *text = pb_spec_spread(spec, buf, sizeof buf, why);
	if (!text)
		return -1;
	if (pb_spec_parse(text, out, NULL)) {
		*why = "the facility's spread spec does not parse";
		return -1;
	}
	return 0;
}

int pb_facility_suite_parsed(const struct pb_facility *f, struct pb_spec *out,
			     struct pb_error *err)
{
	if (!f->suite_spec)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s has no suite spec", f->name);
	return pb_spec_parse(f->suite_spec, out, err);
}

int pb_spec_attr(const struct pb_machine *m, const struct pb_spec *spec,
		 const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		 struct pb_error *err)
{
	if (spec->facility->attr(m, spec, target, period, attr, err))
		return -1;
	attr->sample_period = period;
	return 0;
}

int pb_spec_counting_here(const struct pb_machine *m, const char *text, struct pb_spec *out,
			  char *why, size_t why_len)
{
	struct pb_availability av;
	struct pb_error err = {0};
	if (pb_spec_parse(text, out, NULL)) {
		pb_format(why, why_len, "%s does not parse", text);
		return -1;
	}
	out->facility->availability(m, out, &av);
	if (!av.available) {
		pb_format(why, why_len, "%s", av.reason);
		return -1;
	}
	/* an event the PMU cannot encode must not take the point it rides along with down */
	struct perf_event_attr attr = {0};
	if (pb_spec_attr(m, out, NULL, 0, &attr, &err)) {
		pb_format(why, why_len, "%s", err.msg);
		return -1;
	}
	return 0;
}

const char *pb_ip_kind_name(enum pb_ip_kind kind)
{
	switch (kind) {
	case PB_IP_EXACT: return "exact";
	case PB_IP_NEXT: return "next-insn";
	case PB_IP_SKID: return "skid";
	}
	return "?";
}

enum pb_ip_kind pb_spec_ip_kind(const struct pb_machine *m, const struct pb_spec *spec)
{
	if (!spec->facility->ip_kind_of)
		return spec->facility->ip_kind;
	return spec->facility->ip_kind_of(m ? m : pb_machine_live(), spec);
}

enum pb_ip_kind pb_facility_ip_kind(const struct pb_machine *m, const struct pb_facility *f)
{
	struct pb_spec spec;
	struct pb_availability av;
	if (!f->ip_kind_of || !f->suite_spec || pb_spec_parse(f->suite_spec, &spec, NULL))
		return f->ip_kind;
	/* a facility absent here keeps its general relation: there is nothing to grant */
	f->availability(m ? m : pb_machine_live(), &spec, &av);
	if (!av.available)
		return f->ip_kind;
	return pb_spec_ip_kind(m, &spec);
}

const char *pb_verdict_name(enum pb_verdict verdict)
{
	switch (verdict) {
	case PB_VERDICT_WORKS: return "works";
	case PB_VERDICT_INERT: return "inert";
	case PB_VERDICT_INEXACT: return "inexact";
	case PB_VERDICT_REFUSED: return "refused";
	case PB_VERDICT_ABSENT: return "absent";
	case PB_VERDICT_UNTESTED: return "untested";
	}
	return "?";
}

/* Self-tests run once per facility kind and process: a suite asks for the same facility at
 * every point, and the answer does not change while the process lives. */
#define SELF_TEST_CACHE 64
static struct {
	const struct pb_facility *facility;
	char key[sizeof ((struct pb_spec *)0)->text];
	struct pb_self_test test;
} self_tests[SELF_TEST_CACHE];
static unsigned self_tests_used;
static pthread_mutex_t self_tests_lock = PTHREAD_MUTEX_INITIALIZER;

void pb_facility_forget_self_tests(void)
{
	pthread_mutex_lock(&self_tests_lock);
	self_tests_used = 0;
	pthread_mutex_unlock(&self_tests_lock);
}

bool pb_perf_forbidden(const struct pb_machine *m, struct pb_availability *out)
{
	if (m->paranoid <= 2 || m->cap_perfmon || m->cap_sys_admin)
		return false;
	snprintf(out->reason, sizeof out->reason,
		 "perf_event_paranoid is %d (> 2): the kernel forbids all perf events to users "
		 "without CAP_PERFMON; run as root or `sysctl kernel.perf_event_paranoid=2`",
		 m->paranoid);
	return true;
}

const char *pb_user_space_only_note(const struct pb_machine *m)
{
	return pb_machine_may_sample_kernel(m)
		       ? "" : "; user-space only (perf_event_paranoid 2 without CAP_PERFMON)";
}

static void cached_self_test(const struct pb_machine *m, const struct pb_facility *f,
			     const struct pb_spec *spec, struct pb_self_test *out)
{
	char keybuf[sizeof self_tests[0].key], key[sizeof self_tests[0].key];
	snprintf(key, sizeof key, "%.180s%s",
		 !spec ? "" : f->verdict_key ? f->verdict_key(spec, keybuf, sizeof keybuf)
					     : spec->text,
		 spec && spec->sigtrap_per_sample ? " +sigtrap"
		 : spec && spec->signal_per_sample ? " +signals" : "");
	pthread_mutex_lock(&self_tests_lock);
	for (unsigned i = 0; i < self_tests_used; i++)
		if (self_tests[i].facility == f && !strcmp(self_tests[i].key, key)) {
			*out = self_tests[i].test;
			pthread_mutex_unlock(&self_tests_lock);
			return;
		}
	f->self_test(m, spec, out);
	unsigned slot = self_tests_used < SELF_TEST_CACHE ? self_tests_used++ : SELF_TEST_CACHE - 1;
	self_tests[slot].facility = f;
	snprintf(self_tests[slot].key, sizeof self_tests[slot].key, "%s", key);
	self_tests[slot].test = *out;
	pthread_mutex_unlock(&self_tests_lock);
}

void pb_facility_check(const struct pb_machine *m, const struct pb_spec *spec,
		       const struct pb_facility *f, struct pb_availability *av,
		       struct pb_self_test *test)
{
	struct pb_self_test local;
	if (!test)
		test = &local;
	memset(test, 0, sizeof *test);
	if (spec)
		f = spec->facility;
	f->availability(m, spec, av);
	if (!av->available) {
		test->verdict = PB_VERDICT_ABSENT;
		snprintf(test->text, sizeof test->text, "%s", av->reason);
		return;
	}
	if (m->root[0] || !f->self_test) {
		test->verdict = PB_VERDICT_UNTESTED;
		snprintf(test->text, sizeof test->text,
			 "not self-tested: %s", m->root[0] ? "a machine read from a saved tree "
							     "(--root) runs nothing"
							   : "the facility has no self-test");
		return;
	}
	cached_self_test(m, f, spec, test);
	if (test->verdict == PB_VERDICT_WORKS)
		return;
	av->available = false;
	/* A reason goes into errors with the spec before it (pb_error's 512), so it keeps up to
	 * 360 bytes of the text; a longer one (three attempts' may take 640) says it is cut. */
	size_t whole = strlen(test->text);
	size_t keep = whole <= 360 ? whole : pb_utf8_floor(test->text, 340);
	snprintf(av->reason, sizeof av->reason, "self-test %s: %.*s%s",
		 pb_verdict_name(test->verdict), (int)keep, test->text,
		 keep < whole ? " [cut short]" : "");
}

int pb_spec_precise_requested(const struct pb_spec *spec)
{
	return spec->priv.precise;
}

bool pb_spec_has_subset(const struct pb_spec *spec)
{
	return spec->priv.subset != 0;
}

void pb_spec_drop_subset(struct pb_spec *spec)
{
	spec->priv.subset = 0;
}
