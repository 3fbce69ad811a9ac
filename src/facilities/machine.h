/* The machine as the facilities see it: what machine/ reads, plus each facility's own hardware
 * facts, probed and described by its descriptor (probe_machine, machine_facts). Nothing outside
 * facilities/ names one of those facts: `probe` and capture bundles go through
 * pb_machine_facts(). */
#ifndef PB_FACILITIES_MACHINE_H
#define PB_FACILITIES_MACHINE_H

#include "machine/machine.h"

/* Fills m: pb_machine_read, then every facility's probe_machine hook. root NULL or "" = the
 * live system. Never fails: what it cannot read stays unknown. */
void pb_machine_probe(struct pb_machine *m, const char *root);
/* The machine probed once per process (live system); under the real kernel, facilities may
 * also open events to prove what sysfs claims (PEBS's precise levels). */
const struct pb_machine *pb_machine_live(void);

enum pb_fact_kind { PB_FACT_NULL, PB_FACT_INT, PB_FACT_TEXT };

/* One hardware fact a facility knows of a machine, as `probe` shows it and a capture bundle
 * keeps it. */
struct pb_machine_fact {
	const char *key;         /* its member of probe JSON's "machine" object */
	enum pb_fact_kind kind;  /* PB_FACT_NULL: unknown (JSON null) */
	long long number;        /* PB_FACT_INT */
	char text[200];          /* PB_FACT_TEXT */
	/* How report.html's machine table names it (results.json's "facts" list keeps it); NULL:
	 * its key, underscores read as spaces. A string that lives as long as the program. */
	const char *title;
	/* Its line in `probe`'s text: the label and the value, or label NULL for none. */
	const char *label;
	char line[240];
	/* Where a saved tree keeps it when no copied sysfs file says it (the live CPUID of IBS):
	 * a path under the tree's root and its bytes; tree_path NULL: nothing to keep. */
	const char *tree_path;
	char tree_text[64];
	/* Where it sits among the facts of other facilities, lowest first (facts of equal order
	 * keep the registry's order): pesbench-probe/1 kept its member order when the facts moved
	 * into the descriptors. */
	unsigned order;
};

/* Each facility's facts of m (a hook shared by several descriptors, as IBS's two are, asked
 * once), ordered; returns how many were written to out (at most max). */
unsigned pb_machine_facts(const struct pb_machine *m, struct pb_machine_fact *out,
			  unsigned max);
#define PB_MAX_MACHINE_FACTS 32
/* The title of the fact at key as this build's facilities give it on a machine of which they
 * know nothing (every fact they ever write); NULL when none has that key or it has no title.
 * For documents written before results.json listed the facts with their titles. */
const char *pb_machine_fact_title(const char *key);
/* A fact at key in order: a number (JSON null when not known), or a text; no text line, no
 * title. */
void pb_fact_number(struct pb_machine_fact *f, const char *key, long long value, bool known,
		    unsigned order);
void pb_fact_text(struct pb_machine_fact *f, const char *key, const char *text, unsigned order);

#endif
