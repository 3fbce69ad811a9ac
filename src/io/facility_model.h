/* A facility's measurement model in words, as `pesbench facilities` shows it (text, Markdown
 * for docs/facilities.md, JSON): one row per facility, from the descriptor and its natural
 * workload. */
#ifndef PB_FACILITY_MODEL_H
#define PB_FACILITY_MODEL_H

#include "facilities/facility.h"

struct pb_facility_model {
	const struct pb_facility *f;
	char natural[64], basis[16], per_iteration[32], ip[32], periods[96], exclusion[96],
		cost[64], roles[160], words[320];
};

/* The row of facility f from its suite spec (parsed by the caller): the basis of expected
 * samples and the declared events on its natural workload, its IP relation, periods, level
 * exclusion, cost, other workloads and spec words. */
int pb_facility_model_fill(const struct pb_facility *f, const struct pb_spec *spec,
			   struct pb_facility_model *r, struct pb_error *err);

struct json_t;
/* The rows as a JSON array (`pesbench facilities --json`); NULL when memory runs out. */
struct json_t *pb_facility_models_json(const struct pb_facility_model *rows, unsigned n);

#endif
