/* The sampling facilities pesbench knows (timer, sw, bp, uprobe, hw, pebs, ibs-op, ibs-fetch,
 * spe) and whether each can run on a machine, with the reason when not and what the user can do
 * about it, as `pesbench probe` reports them. */
#ifndef PESBENCH_FACILITY_H
#define PESBENCH_FACILITY_H

#include <pesbench/core.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pesbench_facility;
struct pesbench_machine;

/* Iterates the facilities: pass NULL for the first; NULL after the last. Facilities are static:
 * never freed. */
const struct pesbench_facility *pesbench_facility__next(const struct pesbench_facility *prev);
#define pesbench_facility__for_each(f) \
	for ((f) = pesbench_facility__next(NULL); (f); (f) = pesbench_facility__next(f))
/* NULL for an unknown name. */
const struct pesbench_facility *pesbench_facility__find(const char *name);

const char *pesbench_facility__name(const struct pesbench_facility *f);     /* "ibs-op" */
const char *pesbench_facility__usage(const struct pesbench_facility *f);    /* its spec syntax */
const char *pesbench_facility__summary(const struct pesbench_facility *f);
const char *pesbench_facility__needs(const struct pesbench_facility *f);    /* privileges, hardware */

/* The machine whose facilities are probed: the live system (root NULL), or a copy of its sysfs
 * and procfs files under root (pesbench's tests/fixtures/sysfs-*): then nothing can run and
 * only what the files say is judged. NULL with err set when out of memory or root is not a
 * directory. */
struct pesbench_machine *pesbench_machine__new(const char *root, struct pesbench_error *err);
void pesbench_machine__delete(struct pesbench_machine *m);

enum pesbench_probe_flag {
	/* On the live system, also run the facility's self-test: a tiny known loop under it (a few
	 * milliseconds, once per facility and process); a facility whose self-test fails (events
	 * accepted but never delivered, a wrong count) is not available. */
	PESBENCH_PROBE_SELF_TEST = 1u << 0,
};

/* Whether spec (a facility name, "ibs-op", or a full spec, "ibs-op:cycles") can run on m: 1 when
 * it can, 0 when not, with why in reason (what is missing and what the user can do), -1 with err
 * set when spec is malformed or names no facility. When available, reason says what was found
 * (counters, caps, precise levels), or is "". reason may be NULL. */
int pesbench_machine__probe(struct pesbench_machine *m, const char *spec, unsigned flags,
			    char *reason, size_t reason_len, struct pesbench_error *err);

#ifdef __cplusplus
}
#endif

#endif
