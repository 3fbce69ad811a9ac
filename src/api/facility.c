/* Facility probing of the public API (include/pesbench/facility.h) over facilities/facility.c
 * and machine.c: what `pesbench probe` reports, one facility or spec at a time. */
#include "api/api.h"
#include "facilities/facility.h"
#include "facilities/machine.h"

#include <pesbench/facility.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pesbench_machine {
	const struct pb_machine *m;   /* the live machine (probed once per process) or own */
	struct pb_machine *own;       /* a fixture tree's */
};

/* The facility descriptors are handed out as they are: the public type is never defined. */
static const struct pb_facility *facility_of(const struct pesbench_facility *f)
{
	return (const struct pb_facility *)f;
}

const struct pesbench_facility *pesbench_facility__next(const struct pesbench_facility *prev)
{
	const struct pb_facility *const *list = pb_facility_list();
	if (!prev)
		return (const struct pesbench_facility *)list[0];
	for (; *list; list++)
		if (*list == facility_of(prev))
			return (const struct pesbench_facility *)list[1];
	return NULL;
}

const struct pesbench_facility *pesbench_facility__find(const char *name)
{
	return (const struct pesbench_facility *)pb_facility_find(name);
}

const char *pesbench_facility__name(const struct pesbench_facility *f)
{
	return facility_of(f)->name;
}

const char *pesbench_facility__usage(const struct pesbench_facility *f)
{
	return facility_of(f)->usage;
}

const char *pesbench_facility__summary(const struct pesbench_facility *f)
{
	return facility_of(f)->summary;
}

const char *pesbench_facility__needs(const struct pesbench_facility *f)
{
	return facility_of(f)->needs ? facility_of(f)->needs : "";
}

struct pesbench_machine *pesbench_machine__new(const char *root, struct pesbench_error *err)
{
	struct pesbench_machine *pm = calloc(1, sizeof(*pm));
	struct pb_error e;
	if (!pm) {
		pb_api_nomem(err, "a machine");
		return NULL;
	}
	if (!root) {
		pm->m = pb_machine_live();
		return pm;
	}
	struct stat st;
	if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
		pb_fail(&e, PB_EXIT_USAGE, errno, "machine root %s is not a directory", root);
		free(pm);
		pb_api_error(err, &e);
		return NULL;
	}
	pm->own = malloc(sizeof(*pm->own));
	if (!pm->own) {
		free(pm);
		pb_api_nomem(err, "a machine");
		return NULL;
	}
	pb_machine_probe(pm->own, root);
	pm->m = pm->own;
	return pm;
}

void pesbench_machine__delete(struct pesbench_machine *m)
{
	if (!m)
		return;
	free(m->own);
	free(m);
}

int pesbench_machine__probe(struct pesbench_machine *pm, const char *spec_text, unsigned flags,
			    char *reason, size_t reason_len, struct pesbench_error *err)
{
	struct pb_error e;
	struct pb_availability av;
	if (pb_spec_text_availability(pm->m, spec_text, flags & PESBENCH_PROBE_SELF_TEST, &av, &e))
		return pb_api_error(err, &e);
	if (reason && reason_len)
		snprintf(reason, reason_len, "%s", av.available ? av.detail : av.reason);
	return av.available ? 1 : 0;
}
