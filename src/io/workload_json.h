/* The workloads as `pesbench workloads --json` lists them: parameters, declared truth per
 * iteration, labelled instructions, watched data and assumptions. */
#ifndef PB_WORKLOAD_JSON_H
#define PB_WORKLOAD_JSON_H

#include "util/error.h"
#include "workloads/workload.h"

#include <stddef.h>
#include <stdint.h>

/* One declared count per iteration, under its name in the listing. */
struct pb_truth_count {
	const char *name;
	uint64_t value;
};
/* The truth's counts per iteration in the listing's order (at most 16). */
unsigned pb_truth_counts(const struct pb_truth *t, struct pb_truth_count *out);

struct json_t;
/* An array of the n workloads with their truth; the watched data's totals over `iterations`.
 * NULL when a truth cannot be worked out (err says why) or memory runs out. */
struct json_t *pb_workloads_json(const struct pb_workload_choice *choices, size_t n,
				 unsigned iterations, struct pb_error *err);

#endif
