/* A perf_event_attr field by field, under the kernel header's names (as `perf record -vv`
 * prints them), and `pesbench attr --json`: the fields with the facility's model for the
 * workload. */
#ifndef PB_ATTR_FIELDS_H
#define PB_ATTR_FIELDS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

struct pb_attr_field {
	const char *name;
	uint64_t value;
	bool hex;
};
/* The fields of a into f (room for 40): the first 8 always worth showing, then the flags;
 * a breakpoint's type, address and length after them. Returns how many. */
unsigned pb_attr_fields(const struct perf_event_attr *a, struct pb_attr_field *f);

/* The model `attr` prints beside the fields. */
struct pb_attr_model {
	const char *spec, *machine;      /* the spec as resolved; a tree's path, or "live" */
	const char *workload, *params;   /* the workload and its parameters as text */
	const char *basis;               /* of the expected samples */
	uint64_t declared_per_1000;      /* declared events per 1000 iterations */
	const char *ip;                  /* where a sample's IP lands */
	bool exclude_kernel;
};

struct json_t;
/* The JSON object of `pesbench attr --json`; NULL when memory runs out. */
struct json_t *pb_attr_json(const struct pb_attr_model *m, const struct pb_attr_field *f,
			    unsigned n);

#endif
