/* A facility's measurement model in words, as `pesbench facilities` shows it (text, Markdown
 * for docs/facilities.md, JSON): one row per facility, filled by the command from the
 * descriptor and its natural workload. */
#ifndef PB_FACILITY_MODEL_H
#define PB_FACILITY_MODEL_H

#include "facilities/facility.h"

struct pb_facility_model {
	const struct pb_facility *f;
	char natural[64], basis[16], per_iteration[32], ip[32], periods[96], exclusion[96],
		cost[64], roles[160], words[320];
};

struct json_t;
/* The rows as a JSON array (`pesbench facilities --json`); NULL when memory runs out. */
struct json_t *pb_facility_models_json(const struct pb_facility_model *rows, unsigned n);

#endif
