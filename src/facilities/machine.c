/* The machine as the facilities see it: machine/'s reading plus each facility's own facts,
 * which its descriptor probes (probe_machine) and describes (machine_facts). */
#include "facilities/machine.h"
#include "facilities/facility.h"
#include "sys/sys.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Whether an earlier facility of the registry has f's hook: IBS's two descriptors share theirs,
 * and a fact is probed and shown once. */
static bool probe_hook_seen(const struct pb_facility *const *f)
{
	for (const struct pb_facility *const *g = pb_facility_list(); g != f; g++)
		if ((*g)->probe_machine == (*f)->probe_machine)
			return true;
	return false;
}

static bool facts_hook_seen(const struct pb_facility *const *f)
{
	for (const struct pb_facility *const *g = pb_facility_list(); g != f; g++)
		if ((*g)->machine_facts == (*f)->machine_facts)
			return true;
	return false;
}

static void probe_facilities(struct pb_machine *m, bool prove)
{
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++)
		if ((*f)->probe_machine && !probe_hook_seen(f))
			(*f)->probe_machine(m, prove);
}

void pb_machine_probe(struct pb_machine *m, const char *root)
{
	pb_machine_read(m, root);
	probe_facilities(m, false);
}

unsigned pb_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out, unsigned max)
{
	unsigned n = 0;
	for (const struct pb_facility *const *f = pb_facility_list(); *f && n < max; f++)
		if ((*f)->machine_facts && !facts_hook_seen(f))
			n += (*f)->machine_facts(m, out + n, max - n);
	/* a stable insertion sort: facts of one order keep the registry's order */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && out[j - 1].order > out[j].order; j--) {
			struct pb_machine_fact t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

void pb_fact_number(struct pb_machine_fact *f, const char *key, long long value, bool known,
		    unsigned order)
{
	*f = (struct pb_machine_fact){.key = key, .kind = known ? PB_FACT_INT : PB_FACT_NULL,
				      .number = value, .order = order};
}

void pb_fact_text(struct pb_machine_fact *f, const char *key, const char *text, unsigned order)
{
	*f = (struct pb_machine_fact){.key = key, .kind = PB_FACT_TEXT, .order = order};
	snprintf(f->text, sizeof f->text, "%s", text);
}

const char *pb_machine_fact_title(const char *key)
{
	static struct pb_machine unknown; /* zeroed: no PMU, no note */
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned n = pb_machine_facts(&unknown, facts, PB_MAX_MACHINE_FACTS);
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(facts[i].key, key))
			return facts[i].title;
	return NULL;
}

static struct pb_machine live_machine;
static pthread_once_t live_once = PTHREAD_ONCE_INIT;

static void probe_live_once(void)
{
	pb_machine_read(&live_machine, "");
	/* only the real kernel's answer describes this machine (a test's fake kernel may be in) */
	probe_facilities(&live_machine, pb_sys() == &pb_sys_linux);
}

const struct pb_machine *pb_machine_live(void)
{
	pthread_once(&live_once, probe_live_once);
	return &live_machine;
}
